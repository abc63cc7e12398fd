"""The seed text: loading, its hash, clauses with character offsets, display form.

The seed (``assets/text/xiangshe_li_part2.txt``) is a byte-identical copy of
``shared/seed/xiangshe_li_part2.txt``: the second half of 鄉射禮 and part of its
記, in simplified characters, with footnote markers ``（80）`` … ``（129）``
(and one stray bare ``89`` before 北面于三耦之南).  Three characters are written
in pinyin in the data — ``shè`` = 射, ``jiāo`` = 交, ``yù`` = 欲 — and stay so in
the data: spans and offsets always refer to the file as it is.  Only
:func:`display` restores the characters, for captions.

Offsets are Python ``str`` indices into the file read as UTF-8.

>>> t = load(); t[:4]
'扑，袭。'
>>> display("司shè适堂西")
'司射适堂西'
"""
from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from ..resources import SEED

# the shared material beside a checkout (absent in an installed package)
SHARED_SEED = Path(__file__).resolve().parents[3] / "shared" / "seed" / "xiangshe_li_part2.txt"

PINYIN = {"shè": "射", "jiāo": "交", "yù": "欲"}
# Punctuation and layout: never counted for coverage, and clause boundaries.
PUNCT = set("，。、；：“”‘’！？《》［］（）【】…—·\n\r\t  ,.;:!?()[]\"'")
# Footnote markers: （80） in full-width parentheses, and the one bare "89" of the seed.
FOOTNOTE = re.compile(r"（(\d+)）|(\d+)")
_PINYIN_RE = re.compile("|".join(map(re.escape, PINYIN)))


def load(path: str | Path | None = None) -> str:
    """The seed text as a Python string (UTF-8)."""
    return Path(path or SEED).read_text(encoding="utf-8")


def sha256(path: str | Path | None = None) -> str:
    """sha256 of the file's bytes."""
    return hashlib.sha256(Path(path or SEED).read_bytes()).hexdigest()


def display(text: str) -> str:
    """The text with 射/交/欲 restored from the pinyin of the data (for captions)."""
    return _PINYIN_RE.sub(lambda m: PINYIN[m.group(0)], text)


@dataclass(frozen=True)
class Footnote:
    number: int
    span: tuple[int, int]


@dataclass(frozen=True)
class Clause:
    """A stretch of text between punctuation marks or footnote markers."""

    index: int
    text: str
    span: tuple[int, int]
    footnote: int | None      # see footnote_for
    paragraph: int            # 0-based, paragraphs are separated by a blank line

    @property
    def display(self) -> str:
        return display(self.text)


@lru_cache(maxsize=4)
def _footnotes(text: str) -> tuple[Footnote, ...]:
    return tuple(Footnote(int(m.group(1) or m.group(2)), m.span()) for m in FOOTNOTE.finditer(text))


def footnotes(text: str | None = None) -> tuple[Footnote, ...]:
    return _footnotes(load() if text is None else text)


def content_mask(text: str | None = None) -> list[bool]:
    """For every character: True if it is text to be covered (not punctuation, layout or a footnote marker)."""
    text = load() if text is None else text
    mask = [ch not in PUNCT for ch in text]
    for f in footnotes(text):
        for i in range(*f.span):
            mask[i] = False
    return mask


def footnote_after(pos: int, text: str | None = None) -> int | None:
    """The number of the first footnote marker starting at or after ``pos``."""
    for f in footnotes(text):
        if f.span[0] >= pos:
            return f.number
    return None


def footnote_for(span: tuple[int, int], text: str | None = None) -> int | None:
    """The footnote of a stretch of text: the first marker after it in the same paragraph,
    else (a paragraph that ends without one) the last marker before it."""
    text = load() if text is None else text
    end = text.find("\n\n", span[1])
    end = len(text) if end < 0 else end
    before = None
    for f in footnotes(text):
        if span[1] <= f.span[0] < end:
            return f.number
        if f.span[1] <= span[0]:
            before = f.number
    return before


@lru_cache(maxsize=4)
def _clauses(text: str) -> tuple[Clause, ...]:
    mask = content_mask(text)
    out: list[Clause] = []
    i, n = 0, len(text)
    while i < n:
        if not mask[i]:
            i += 1
            continue
        j = i
        while j < n and mask[j]:
            j += 1
        out.append(Clause(len(out), text[i:j], (i, j), footnote_for((i, j), text), text.count("\n\n", 0, i)))
        i = j
    return tuple(out)


def clauses(text: str | None = None) -> tuple[Clause, ...]:
    """The seed cut into clauses at punctuation and footnote markers, with offsets.

    >>> c = clauses()[0]; c.text, c.span, c.footnote
    ('扑', (0, 1), 80)
    """
    return _clauses(load() if text is None else text)


def clause_at(pos: int, text: str | None = None) -> Clause | None:
    for c in clauses(text):
        if c.span[0] <= pos < c.span[1]:
            return c
    return None
