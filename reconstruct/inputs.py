"""Reading an input file safely: a regular file, not too big, UTF-8 — else one line saying why.
A YAML data file (the statements catalogue, the 禮節圖 steps) is parsed by :func:`parse_yaml`, whose
errors are one line too (the rite script has its own reader, :mod:`.rite.yaml_lines`).

Every loader (readings, the rite script and its event files, the seed text, the statements
catalogue, saved plans) reads through :func:`read_text`, so a folder, a device such as
``/dev/zero``, a file that is too big or not text is refused before anything is parsed.
"""
from __future__ import annotations

import os
import pickle
import stat
from pathlib import Path
from typing import Any

import yaml

from .errors import InputError

# Generous bounds: the shipped files are a few tens of kB (a reading, a rite file), 40 kB (the
# statements) and 1–4 MB (a plan of 3–27 衆賓).
MAX_TEXT_BYTES = 4_000_000
MAX_PLAN_BYTES = 512_000_000


def read_text(path: str | Path, shown: str | None = None, *, what: str = "file",
              max_bytes: int = MAX_TEXT_BYTES) -> str:
    """The text of ``path`` (UTF-8, newlines as Python's text mode reads them); a missing file, a
    folder, a device, a file over ``max_bytes`` or one that is not UTF-8 raises :class:`InputError`
    naming ``shown`` (default: the path)."""
    shown = str(path) if shown is None else shown
    data = read_bytes(path, shown, what=what, max_bytes=max_bytes)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise InputError(shown, "", f"not UTF-8 text ({e.reason} at byte {e.start})") from None
    return text.replace("\r\n", "\n").replace("\r", "\n")


def read_bytes(path: str | Path, shown: str | None = None, *, what: str = "file",
               max_bytes: int = MAX_TEXT_BYTES) -> bytes:
    """The bytes of a regular file of at most ``max_bytes`` (else :class:`InputError`)."""
    shown = str(path) if shown is None else shown
    try:
        st = os.stat(path)
    except FileNotFoundError:
        raise InputError(shown, "", f"no such {what}") from None
    except (OSError, ValueError) as e:
        raise InputError(shown, "", f"cannot read: {getattr(e, 'strerror', None) or e}") from None
    if stat.S_ISDIR(st.st_mode):
        raise InputError(shown, "", f"is a folder, not a {what}")
    if not stat.S_ISREG(st.st_mode):
        raise InputError(shown, "", f"is not a regular file (a device or a pipe?), not a {what}")
    if st.st_size > max_bytes:
        raise InputError(shown, "", f"too big for a {what} ({st.st_size:,} bytes; at most {max_bytes:,})")
    try:
        with open(path, "rb") as f:
            data = f.read(max_bytes + 1)
    except OSError as e:
        raise InputError(shown, "", f"cannot read: {e.strerror or e}") from None
    if len(data) > max_bytes:
        raise InputError(shown, "", f"too big for a {what} (over {max_bytes:,} bytes)")
    return data


def parse_yaml(src: str, shown: str) -> Any:
    """The YAML document of the text ``src`` (``yaml.safe_load``); a syntax error, or a document nested too
    deep, raises :class:`InputError` naming ``shown`` and the line.

    A text parsed before in this process is not parsed again: its document is kept (pickled) by its text and each
    caller gets a fresh copy of it, which it may change. The pure-Python loader takes about 3 s of CPU for the
    statements catalogue (128 kB), which every ``check`` (:func:`reconstruct.check`, ``run_check``) read again:
    a program that checks several plans, or the suite, paid it each time."""
    kept = _KEPT.get((src, shown))
    if kept is not None:
        return pickle.loads(kept)
    doc = _safe_load(src, shown)
    try:
        kept = pickle.dumps(doc, protocol=pickle.HIGHEST_PROTOCOL)
    except (RecursionError, pickle.PicklingError, TypeError):
        return doc                      # nested deeper than pickle goes: not kept
    if len(_KEPT) >= 8:
        _KEPT.pop(next(iter(_KEPT)))    # the oldest
    _KEPT[(src, shown)] = kept
    return pickle.loads(kept)           # the caller's own copy: the kept one is never handed out


_KEPT: dict[tuple[str, str], bytes] = {}


def _safe_load(src: str, shown: str) -> Any:
    try:
        return yaml.safe_load(src)
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        raise InputError(shown, f"{mark.line + 1}" if mark else "",
                         f"YAML syntax: {getattr(e, 'problem', None) or str(e).splitlines()[0][:160]}") from None
    except (RecursionError, ValueError) as e:
        raise InputError(shown, "", f"YAML: {str(e).splitlines()[0][:160] or 'nested too deep'}") from None
