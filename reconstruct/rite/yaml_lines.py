"""YAML that remembers where it came from: every mapping, list and string of the rite script
carries the line it starts on, so an error names ``file:line``.

Reading is bounded: the file's size, how deep lists and mappings nest, and how many aliases
(``*name``) it uses — a few aliases that each repeat the one before can make a document of
billions of nodes.  Beyond a bound the reader stops with one line saying which.

Two loaders build the same document, with the same lines: libyaml's (:class:`_CLoader`, its parser and
composer in C, about a fifth of the CPU: 0.12 s against 0.62 s for the files of the whole chapter), used
where PyYAML has it, and the pure-Python one (:class:`_Loader`), which bounds depth and aliases as it
composes.  libyaml's composed document is measured against the same bounds before anything is built from
it (:func:`reconstruct.inputs.composed_within`); whatever it refuses, finds beyond a bound or cannot build,
and a text it is known to read otherwise (a tab, a tag: :func:`reconstruct.inputs.libyaml_reads_alike`), is
read by the pure-Python loader, so every document, message and line a user sees is the one it has always
given (tests/test_yaml_loaders.py).
"""
from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Any

import yaml

from ..errors import InputError
from ..inputs import C_SAFE_LOADER, NOT_READ, SafeLoader, read_by_libyaml, read_text
from ..resources import logical_name
from .errors import RiteError

MAX_BYTES = 2_000_000      # a rite file (the shipped ones: 10–40 kB)
MAX_DEPTH = 50             # lists and mappings inside one another (the shipped script: 8)
MAX_ALIASES = 100          # uses of an anchor (*name) in one file (the shipped script: none)
MAX_NODES = 1_000_000      # values in the document with every alias written out (the shipped: < 5,000 a file)


class LStr(str):
    line: int = 0


class LDict(dict):
    line: int = 0


class LList(list):
    line: int = 0


class _Loader(SafeLoader):
    """The safe loader, keeping line numbers, with the bounds above."""

    def __init__(self, stream: str) -> None:
        super().__init__(stream)
        self._depth = 0
        self._aliases = 0

    def compose_node(self, parent, index):
        if self.check_event(yaml.AliasEvent):
            self._aliases += 1
            if self._aliases > MAX_ALIASES:
                mark = self.peek_event().start_mark
                raise yaml.MarkedYAMLError(problem=f"more than {MAX_ALIASES} aliases (*name)", problem_mark=mark)
        self._depth += 1
        try:
            if self._depth > MAX_DEPTH:
                mark = self.peek_event().start_mark
                raise yaml.MarkedYAMLError(problem=f"lists and mappings nested more than {MAX_DEPTH} deep",
                                           problem_mark=mark)
            return super().compose_node(parent, index)
        finally:
            self._depth -= 1


class _CLoader(C_SAFE_LOADER or yaml.SafeLoader):   # type: ignore[misc]
    """libyaml's safe loader with the same constructors (line numbers); its bounds are kept by :func:`_load`."""


def _mark(obj, node):
    obj.line = node.start_mark.line + 1
    return obj


def _c_map(loader, node):
    loader.flatten_mapping(node)
    d = LDict()
    _mark(d, node)
    for k, v in node.value:
        key = loader.construct_object(k, deep=True)
        try:
            hash(key)
        except TypeError:
            raise yaml.MarkedYAMLError(problem="a mapping key must be a plain word, not a list or mapping",
                                       problem_mark=k.start_mark) from None
        if key in d:
            raise yaml.MarkedYAMLError(problem=f"duplicate key {key!r}", problem_mark=k.start_mark)
        d[key] = loader.construct_object(v, deep=True)
    return d


def _c_seq(loader, node):
    return _mark(LList(loader.construct_object(v, deep=True) for v in node.value), node)


def _c_str(loader, node):
    return _mark(LStr(loader.construct_scalar(node)), node)


for _L in (_Loader, _CLoader):
    _L.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _c_map)
    _L.add_constructor(yaml.resolver.BaseResolver.DEFAULT_SEQUENCE_TAG, _c_seq)
    _L.add_constructor("tag:yaml.org,2002:str", _c_str)
del _L


def rel(path: Path) -> str:
    """The name a file is cited by in messages (``assets/rite/p1_count.yaml`` for a shipped one)."""
    return logical_name(path)


def read_yaml(path: Path) -> Any:
    """The YAML document at ``path`` with line numbers; any problem raises :class:`RiteError`."""
    shown = rel(path)
    try:
        src = read_text(path, shown, what="rite file", max_bytes=MAX_BYTES)
    except InputError as e:
        raise RiteError(shown, 0, e.what) from None
    return _parse(src, shown)


@lru_cache(maxsize=64)
def _parse(src: str, shown: str) -> Any:
    """The document of the text ``src`` (cached by its text: the same files are read again and again
    by every load of the script; callers never change what they get).  Room for every file of the shipped
    script, both halves (21; with 16 a load of the whole chapter after the passage's parsed most of them again)."""
    try:
        doc = _load(src)
    except yaml.MarkedYAMLError as e:
        mark = e.problem_mark or e.context_mark
        raise RiteError(shown, mark.line + 1 if mark else 0, f"YAML error: {e.problem or e.context}") from None
    except yaml.YAMLError as e:
        raise RiteError(shown, 0, f"YAML error: {e}") from None
    except (RecursionError, MemoryError):
        raise RiteError(shown, 0, "YAML error: the document is nested too deep") from None
    except ValueError as e:          # e.g. an integer of more than 4300 digits
        raise RiteError(shown, 0, f"YAML error: {str(e).splitlines()[0][:200]}") from None
    size = _expanded_size(doc)
    if size < 0:
        raise RiteError(shown, line_of(doc), "YAML error: an alias (*name) refers to a value that holds it")
    if size > MAX_NODES:
        raise RiteError(shown, line_of(doc), f"YAML error: with its aliases written out the document has more "
                                             f"than {MAX_NODES:,} values")
    return doc


def _load(src: str) -> Any:
    """The document of ``src``: libyaml's, when it composes the text within the bounds and builds it without
    error; else the pure-Python loader's document, or its error (the one users have always seen)."""
    if C_SAFE_LOADER is not None:
        doc = read_by_libyaml(src, _CLoader, MAX_DEPTH, MAX_ALIASES)
        if doc is not NOT_READ:
            return doc
    return yaml.load(src, Loader=_Loader)


def _expanded_size(doc: Any) -> int:
    """How many values the document has with every alias written out (-1: an alias holds itself);
    each distinct list or mapping is counted once, so this is quick however many times it is reused."""
    sizes: dict[int, int] = {}
    open_: set[int] = set()

    def size(x: Any) -> int:
        if not isinstance(x, (list, dict)):
            return 1
        if id(x) in sizes:
            return sizes[id(x)]
        if id(x) in open_:
            raise _Cycle
        open_.add(id(x))
        items = [*x.keys(), *x.values()] if isinstance(x, dict) else x
        n = 1
        for v in items:
            n += size(v)
            if n > MAX_NODES:
                break
        open_.discard(id(x))
        sizes[id(x)] = n
        return n

    try:
        return size(doc)
    except _Cycle:
        return -1


class _Cycle(Exception):
    pass


def line_of(node: Any, default: int = 0) -> int:
    """The line a node of the script starts on (``default`` for a value that has none)."""
    return getattr(node, "line", default) or default
