"""Writing outputs safely: to a temporary name beside the target, renamed when complete.

* :func:`check_target` says, before any work starts, whether a file can be written where asked (its
  folder exists or can be made, is writable, and the target is not a folder) — one line if not.
* :func:`atomic_path` yields a temporary path beside the target and renames it onto the target
  only when the block succeeds; the file gets the usual mode (``0666`` less the umask, so ``0644``
  by default — a bare ``mkstemp`` would leave ``0600``).  The temporary name is
  ``.NAME.partial-PID-XXXX.SUFFIX``: a run that was killed leaves it behind, and the next write to
  the same target removes the leftovers of processes that no longer run.
* :func:`write_json` writes strict JSON (no NaN or Infinity tokens).
"""
from __future__ import annotations

import contextlib
import json
import os
import re
import tempfile
from pathlib import Path
from typing import Any, Iterator

from .errors import InputError

PARTIAL = ".partial-"


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def file_mode() -> int:
    """The mode a new file gets under the current umask (0644 under the default 022)."""
    return 0o666 & ~_umask()


def check_target(target: str | Path, what: str = "output") -> Path:
    """Check that ``target`` can be written (before the work that makes it); :class:`InputError` if not."""
    target = Path(target)
    shown = str(target)
    if not target.name or target.name in (".", ".."):
        raise InputError(shown, "", f"the {what} needs a file name")
    if target.is_dir():
        raise InputError(shown, "", f"is a folder; give the {what} a file name")
    if target.exists() and not os.access(target, os.W_OK):
        raise InputError(shown, "", f"the {what} exists and cannot be overwritten (permission denied)")
    folder = target.parent
    while not folder.exists():               # the nearest folder that exists must let us make the rest
        if folder.parent == folder:
            break
        folder = folder.parent
    if not folder.is_dir():
        raise InputError(shown, "", f"cannot write the {what}: {folder} is a file, not a folder")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise InputError(shown, "", f"cannot write the {what}: no permission to write in {folder}")
    return target


def check_folder(folder: str | Path, what: str = "output folder") -> Path:
    """Check that files can be written in ``folder`` (made if need be); :class:`InputError` if not."""
    folder = Path(folder)
    if folder.exists() and not folder.is_dir():
        raise InputError(str(folder), "", f"is a file; the {what} must be a folder")
    return check_target(folder / "x", what).parent


def safe_name(ident: str, limit: int = 100) -> str:
    """An id as it may appear in a file name: letters, digits, CJK, . _ - only, no leading dot,
    at most ``limit`` characters (``../../x`` → ``_.._x``)."""
    return re.sub(r"[^\w.\-]", "_", str(ident)).lstrip(".")[:limit] or "_"


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def clean_leftovers(target: str | Path) -> list[Path]:
    """Remove the temporary files an interrupted write to ``target`` left (their process is gone)."""
    target = Path(target)
    removed = []
    with contextlib.suppress(OSError):
        for p in target.parent.glob(f".{target.name}{PARTIAL}*"):
            pid = p.name[len(f".{target.name}{PARTIAL}"):].split("-", 1)[0]
            if pid.isdigit() and int(pid) != os.getpid() and not _alive(int(pid)) and p.is_file():
                p.unlink(missing_ok=True)
                removed.append(p)
    return removed


@contextlib.contextmanager
def atomic_path(target: str | Path, suffix: str | None = None) -> Iterator[Path]:
    """Yield a temporary path next to ``target``; rename it onto ``target`` only if the block succeeds.

    An interrupted or failed write leaves nothing at ``target`` (and no temporary file).  The file
    is made with the usual mode (0666 less the umask).  A folder that cannot be made or written, or
    a target that is a folder, raises :class:`InputError`.
    """
    target = Path(target)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        clean_leftovers(target)
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}{PARTIAL}{os.getpid()}-",
                                   suffix=suffix or target.suffix or ".tmp", dir=target.parent)
        os.close(fd)
    except OSError as e:
        raise InputError(str(target), "", f"cannot write: {e.strerror or e}") from None
    tmp_path = Path(tmp)
    try:
        yield tmp_path
        try:
            os.chmod(tmp_path, file_mode())
            os.replace(tmp_path, target)
        except OSError as e:
            raise InputError(str(target), "", f"cannot write: {e.strerror or e}") from None
    finally:
        if tmp_path.exists():
            tmp_path.unlink()


def json_text(data: Any) -> str:
    """Strict JSON text (UTF-8, one space indent); a NaN or an infinity is a bug, not a token."""
    return json.dumps(data, ensure_ascii=False, indent=1, sort_keys=False, allow_nan=False) + "\n"


def write_json(target: str | Path, data: Any) -> None:
    text = json_text(data)                   # made before the file is opened: an error leaves nothing
    with atomic_path(target) as tmp:
        tmp.write_text(text, encoding="utf-8")
