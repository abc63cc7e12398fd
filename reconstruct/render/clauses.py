"""Captions in step with the act: an event's text split at its clauses, each shown while it is performed.

An event of the plan may hold several clauses (降复位，坐，兼敛算，实八算于中 …) performed one after the
other over a long stretch; one caption for all of it describes a bow before it is seen.  Here the
Chinese text is cut at its clause marks (，；。：), and the clauses are timed by what the event's
people do: a clause boundary goes to the start of a gesture, of a walk or of a change of posture of
those people near where the clause's share of the text (by length) would put it, or there when
nothing is done near it.  A clause shown for less than :data:`MIN_CLAUSE_S` is joined to its
neighbour.  The English gloss is cut at its commas and semicolons and each piece goes with the
clause at the same place in the sentence.  An event of one clause whose gloss is too long to read at once
(the first half has no punctuation) shows its gloss in pages (:func:`gloss_pages`), timed the same way; a step
performed from the page our copy lacks shows the 注疏's words beside the words it cites.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from ..model.plan import Event, Plan

__all__ = ["Clause", "split_clauses", "split_gloss", "gloss_pages", "ClauseTimeline", "MIN_CLAUSE_S", "PAGE_CHARS"]

MIN_CLAUSE_S = 2.2        # s, the shortest a clause is on screen
PAGE_CHARS = 225          # the longest gloss shown at once (two lines at the caption size)
_ZH_MARKS = "，；。：！？"


@dataclass(frozen=True)
class Clause:
    t0: float
    t1: float
    zh: str
    en: str
    index: int


def split_clauses(text: str) -> list[str]:
    """The clauses of a text, each with the mark that ends it (a quotation stays with its words)."""
    out, cur, depth = [], "", 0
    for ch in text:
        cur += ch
        if ch in "“「『":
            depth += 1
        elif ch in "”」』":
            depth = max(0, depth - 1)
        elif ch in _ZH_MARKS and depth == 0 and cur.strip(_ZH_MARKS):
            out.append(cur)
            cur = ""
    if cur.strip():
        if out and not cur.strip(_ZH_MARKS + "”」』"):
            out[-1] += cur
        else:
            out.append(cur)
    return out or [text]


def split_gloss(en: str) -> list[str]:
    """Pieces of an English gloss cut after commas, semicolons and colons (not inside quotes)."""
    if not en:
        return []
    parts = re.split(r"(?<=[,;:])\s+(?=(?:[^'\"]*['\"][^'\"]*['\"])*[^'\"]*$)", en)
    return [p for p in parts if p.strip()]


def gloss_pages(en: str, limit: int = PAGE_CHARS) -> list[str]:
    """A gloss longer than ``limit`` characters cut into pages at its semicolons, each as long as fits
    ``limit``; a part still longer is cut at its commas, and a clause still longer between words, so that
    no page is longer than ``limit`` (but a single word); a shorter gloss is one page.  The pages joined
    by single spaces give the gloss back."""
    if len(en) <= limit:
        return [en] if en else []

    def pieces(text: str, marks: tuple[str, ...]) -> list[str]:
        if len(text) <= limit or not marks:
            return [text]
        cut = re.split(r"\s+", text) if marks[0] == " " else re.split(rf"(?<={re.escape(marks[0])})\s+", text)
        return [q for part in cut for q in pieces(part, marks[1:])]

    pages: list[str] = []
    for part in pieces(en, (";", ",", " ")):
        if pages and len(pages[-1]) + 1 + len(part) <= limit:
            pages[-1] += " " + part
        else:
            pages.append(part)
    return pages


def _fractions(pieces: list[str]) -> np.ndarray:
    n = np.array([max(1, len(p)) for p in pieces], float)
    return np.r_[0.0, np.cumsum(n) / n.sum()]


class ClauseTimeline:
    """The clauses of every event of a plan, timed by what the event's people do."""

    def __init__(self, plan: Plan, glosses: dict | None = None):
        self.plan = plan
        self.glosses = glosses or {}
        self._cache: dict[str, list[Clause]] = {}

    def clauses(self, ev: Event) -> list[Clause]:
        if ev.id not in self._cache:
            self._cache[ev.id] = self._time(ev)
        return self._cache[ev.id]

    def at(self, ev: Event, t: float) -> Clause:
        """The clause of ``ev`` performed at ``t`` (the first before it starts, the last after it ends)."""
        cl = self.clauses(ev)
        for c in cl:
            if t < c.t1:
                return c
        return cl[-1]

    def _cues(self, ev: Event) -> list[float]:
        """Times inside the event at which its people start doing something."""
        out = []
        for aid in ev.actors:
            a = self.plan.actors.get(aid)
            if a is None:
                continue
            out += [g.t0 for g in a.gestures if ev.start < g.t0 < ev.end]
            tr = a.track
            kt, post = tr.t, tr.posture
            mv = tr.moving() if len(tr) > 1 else np.zeros(0, bool)
            for i in range(1, len(kt)):
                if not ev.start < kt[i] < ev.end:
                    continue
                if post[i] != post[i - 1] or (i < len(mv) and mv[i] != mv[i - 1]):
                    out.append(float(kt[i]))
        return sorted(set(round(x, 3) for x in out))

    def _bounds(self, ev: Event, fr: np.ndarray) -> list[float]:
        """Times between the pieces whose shares of the text end at ``fr``: each at the start of something the
        event's people do near where its share puts it, or there."""
        dur = ev.end - ev.start
        cues = self._cues(ev)
        bounds = [ev.start]
        for f in fr[1:-1]:
            want = ev.start + f * dur
            near = [c for c in cues if abs(c - want) < 0.25 * dur and c > bounds[-1] + 0.5]
            bounds.append(min(near, key=lambda c: abs(c - want)) if near else max(want, bounds[-1] + 0.5))
        return bounds + [ev.end]

    def _time(self, ev: Event) -> list[Clause]:
        en = self.glosses.get(ev.id) or ev.gloss or ""
        zh = split_clauses(ev.text)
        dur = ev.end - ev.start
        if len(zh) < 2:
            # one clause of the text (the first half is unpunctuated) glossing a long stretch of acts: the gloss
            # paged at its semicolons, each page while its acts are done (the Chinese stays).  A step on the page
            # our copy lacks shows the 注疏's words it performs beside the words it cites (主人降〔注疏：…〕)
            lac = (ev.procedure or {}).get("lacuna")
            shown = f"{ev.text}〔注疏：{lac}〕" if lac else ev.text
            pages = gloss_pages(en)
            if len(pages) < 2 or dur < len(pages) * MIN_CLAUSE_S:
                return [Clause(ev.start, ev.end, shown, en, 0)]
            b = self._bounds(ev, _fractions(pages))
            return [Clause(float(b[k]), float(b[k + 1]), shown, pg, k) for k, pg in enumerate(pages)]
        if dur < 2 * MIN_CLAUSE_S:
            return [Clause(ev.start, ev.end, ev.text, en, 0)]
        fr = _fractions(zh)
        bounds = self._bounds(ev, fr)
        # join clauses too short to read to the next (the last to the one before)
        pieces = [[bounds[i], bounds[i + 1], zh[i], fr[i], fr[i + 1]] for i in range(len(zh))]
        i = 0
        while i < len(pieces) and len(pieces) > 1:
            if pieces[i][1] - pieces[i][0] >= MIN_CLAUSE_S:
                i += 1
                continue
            j = i + 1 if i + 1 < len(pieces) else i - 1
            a, b = sorted((i, j))
            pieces[a] = [pieces[a][0], pieces[b][1], pieces[a][2] + pieces[b][2], pieces[a][3], pieces[b][4]]
            del pieces[b]
            i = a
        gl = split_gloss(en)
        gfr = _fractions(gl) if gl else None
        out = []
        for k, (t0, t1, text, f0, f1) in enumerate(pieces):
            if gl and len(pieces) > 1:
                mids = (gfr[:-1] + gfr[1:]) / 2
                pick = [g for g, m in zip(gl, mids) if f0 <= m < f1 or (k == len(pieces) - 1 and m >= f0)]
                if not pick:
                    pick = [gl[min(len(gl) - 1, int(np.searchsorted(gfr, (f0 + f1) / 2) - 1))]]
                en_k = " ".join(pick)
            else:
                en_k = en
            out.append(Clause(float(t0), float(t1), text, en_k, k))
        return out
