"""Matching keys for names written in simplified or traditional characters.

The text is in simplified characters; the sources and many readers write
traditional ones (個/个, 階/阶, 東/东 …).  Names are compared by a *key*: the
traditional form made by OpenCC, so 西阶 and 西階 meet.  The key is never shown
or written back: s2t turns 于 into 於, and the quoted text must stay as written.
"""
from __future__ import annotations

from functools import lru_cache

import opencc

_S2T = opencc.OpenCC("s2t")
_T2S = opencc.OpenCC("t2s")


@lru_cache(maxsize=None)
def key(name: str) -> str:
    """The matching key of a name: traditional characters, no spaces."""
    return _S2T.convert(_T2S.convert(name.strip().replace(" ", "")))


@lru_cache(maxsize=None)
def simplified(name: str) -> str:
    """The simplified form, used for ids (plan-format.md: ids are simplified)."""
    return _T2S.convert(name.strip())


@lru_cache(maxsize=None)
def traditional(name: str) -> str:
    return _S2T.convert(name.strip())


class NameIndex:
    """Names (with aliases) of things, looked up by key.

    >>> idx = NameIndex(); idx.add("西阶", ["西階", "賓階"]); idx.get("西階")
    '西阶'
    """

    def __init__(self) -> None:
        self._by_key: dict[str, str] = {}

    def add(self, ident: str, aliases: list[str] | tuple[str, ...] = ()) -> None:
        for n in (ident, *aliases):
            self._by_key.setdefault(key(n), ident)

    def get(self, name: str) -> str | None:
        return self._by_key.get(key(name))

    def __contains__(self, name: str) -> bool:
        return key(name) in self._by_key

    def prefixes(self, text: str) -> list[tuple[str, int]]:
        """Every known name the text starts with, longest first: [(id, length), …]."""
        out = []
        for n in range(len(text), 0, -1):
            hit = self._by_key.get(key(text[:n]))
            if hit is not None:
                out.append((hit, n))
        return out

    def ids(self) -> list[str]:
        return sorted(set(self._by_key.values()))
