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
    """The YAML document of the text ``src`` (the safe loader: libyaml's where PyYAML has it, see
    :func:`_safe_load`); a syntax error, or a document nested too deep, raises :class:`InputError` naming
    ``shown`` and the line.

    A text parsed before in this process is not parsed again: its document is kept (pickled) by its text and each
    caller gets a fresh copy of it, which it may change. The pure-Python loader takes about 0.5 s of CPU for the
    statements catalogue (128 kB; libyaml's about 0.1 s), which every ``check`` (:func:`reconstruct.check`,
    ``run_check``) read again: a program that checks several plans, or the suite, paid it each time."""
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
    """The document, read by libyaml's parser (``yaml.CSafeLoader``, about a fifth of the CPU) when PyYAML has it,
    the text is one it reads as PyYAML's own parser does (:func:`libyaml_reads_alike`) and the document is
    well-formed and at most :data:`C_YAML_DEPTH` deep; anything else (a syntax error, a deeper document, a tab, a
    tag, no libyaml) is read by the pure-Python loader, whose messages and lines, and whose documents, are the ones
    this reader has always given: the two build the same document from the same text (the same resolver and
    constructors; tests/test_yaml_loaders.py, on every shipped YAML file and on damaged ones)."""
    if C_SAFE_LOADER is not None:
        doc = read_by_libyaml(src, C_SAFE_LOADER, C_YAML_DEPTH)
        if doc is not NOT_READ:
            return doc
    try:
        return yaml.load(src, Loader=SafeLoader)
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        raise InputError(shown, f"{mark.line + 1}" if mark else "",
                         f"YAML syntax: {getattr(e, 'problem', None) or str(e).splitlines()[0][:160]}") from None
    except (RecursionError, ValueError) as e:
        raise InputError(shown, "", f"YAML: {str(e).splitlines()[0][:160] or 'nested too deep'}") from None


class SafeLoader(yaml.SafeLoader):
    """PyYAML's pure-Python safe loader, where a value its tag cannot be made of (``!!int`` or ``!!float`` of
    nothing, ``!!bool x``, ``!!timestamp x``, ``!!seq x`` in the rite script) is a YAML error at its line: PyYAML's
    constructors raise an IndexError, KeyError, AttributeError or TypeError there, which the command line took for
    an internal error. (A ValueError, ``!!int x``, was one line already, and stays as it was.)"""

    def construct_object(self, node, deep=False):
        try:
            return super().construct_object(node, deep)
        except (AttributeError, IndexError, KeyError, TypeError):
            if not isinstance(node, yaml.Node):
                raise                   # a value inside a node that is not a collection: said for that node
            made_of = (repr(node.value[:40]) if isinstance(node, yaml.ScalarNode)
                       else "a mapping" if isinstance(node, yaml.MappingNode) else "a list")
            raise yaml.constructor.ConstructorError(
                None, None, f"{node.tag.replace('tag:yaml.org,2002:', '!!')} cannot be made of {made_of}",
                node.start_mark) from None


# libyaml's safe loader (its parser and composer in C, PyYAML's resolver and constructors in Python), or None when
# PyYAML was built without it.
C_SAFE_LOADER: type | None = getattr(yaml, "CSafeLoader", None) if getattr(yaml, "__with_libyaml__", False) else None
# A document libyaml composed is kept only up to this depth (counted by composed_within; the statements: 4, the
# 禮節圖 steps: 6). The pure-Python composer recurses, two frames a level, and stops with a RecursionError some
# 450–500 levels down (fewer from a deeper stack), where libyaml goes on to 1000: a deeper document is read again
# by it, and refused (or read) exactly as before.
C_YAML_DEPTH = 100


def libyaml_reads_alike(src: str) -> bool:
    """Whether libyaml's parser reads ``src`` as PyYAML's pure-Python parser does, as far as is known: not where
    the text has a tab (libyaml takes one between tokens for a space, ``a:\tb``, where PyYAML refuses it), a byte
    order mark after its first character (libyaml skips one at the start of any line) or a ``!`` that may begin a
    tag (libyaml resolves a bare ``!`` on an empty value to a string, PyYAML to null, and in a flow collection ends
    a tag at a comma where PyYAML reads on); ``!=``, the rite's expressions' operator, is never a tag either reads
    as one it knows. Such a text is read by the pure-Python loader alone."""
    return "\t" not in src and src.find("\ufeff", 1) < 0 and src.count("!") == src.count("!=")


NOT_READ = object()      # what read_by_libyaml answers when the pure-Python loader is to read the text


def read_by_libyaml(src: str, loader_class: type, max_depth: int, max_aliases: int | None = None) -> Any:
    """The document of ``src`` built by ``loader_class`` (one on libyaml's parser), when the text is one libyaml reads
    as PyYAML's own parser does and it composes within the bounds (:func:`composed_within`) and builds without error;
    else :data:`NOT_READ`: the caller's pure-Python loader reads it and says what is wrong, with its line (the
    messages users have always seen).  One function for the statements' reader and the rite script's."""
    if not libyaml_reads_alike(src):
        return NOT_READ
    loader = None
    try:
        loader = loader_class(src)
        node = loader.get_single_node()
        if node is None:
            return None
        if composed_within(node, max_depth, max_aliases):
            return loader.construct_document(node)
    except Exception:                   # noqa: BLE001 — whatever it is, said by the pure-Python loader
        pass
    finally:
        if loader is not None:
            loader.dispose()
    return NOT_READ


def composed_within(root: yaml.Node, max_depth: int, max_aliases: int | None = None) -> bool:
    """Whether a composed YAML document keeps the bounds a composer enforcing them would have kept as it composed
    it, counted as :class:`reconstruct.rite.yaml_lines` counts them: every node composed, scalars and aliases too,
    is one level deeper than the collection holding it (the document's root: depth 1), and an alias (``*name``) is
    every use of a node after its first, which is where its anchor stood; what a node holds is walked once, from
    its first place. Walked in document order (mapping keys before their values), without recursion, so a
    document libyaml composed 1000 deep, or one whose alias holds itself, is walked in a loop."""
    seen: set[int] = set()
    aliases = 0
    todo: list[tuple[yaml.Node, int]] = [(root, 1)]
    while todo:
        node, depth = todo.pop()
        if depth > max_depth:
            return False
        if id(node) in seen:
            aliases += 1
            if max_aliases is not None and aliases > max_aliases:
                return False
            continue
        seen.add(id(node))
        if isinstance(node, yaml.MappingNode):
            todo.extend((x, depth + 1) for pair in reversed(node.value) for x in reversed(pair))
        elif isinstance(node, yaml.SequenceNode):
            todo.extend((x, depth + 1) for x in reversed(node.value))
    return True
