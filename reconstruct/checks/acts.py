"""Statements about acts rather than places (``assets/statements.yaml``): who drinks, bows made to someone
who is there, what one holds, where a cup changes hands.

- ``drinks``: the subject drinks (a ``drink`` gesture) during the clause (every performance of it, through
  the clause ``until`` names); ``ref``, if given, is the cup.
- ``bows``: every bow the subject (``*``: anyone) makes to someone during the clause is made to one within
  ``value`` metres (default 2) who is turned towards him (the bower within ``tol`` degrees, default 100, of
  the way he faces: side by side, both facing north as the text often says, counts), and a bow answering
  his (答拜) starts only once his is done.
- ``holds``: whatever the subject (``*``: anyone) holds, by his state, of the kinds ``value`` (default
  觯 and 爵), is in his hand (the prop's carrier is he) throughout the clause.
- ``hands_over``: every time the prop passes from one person to another during the clause, it does so
  within ``value`` metres (default 1.5) of ``ref``.

Reads the plan only, through :mod:`reconstruct.model.plan`.
"""
from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

from ..model.vocabulary import GestureKind, PropKind

if TYPE_CHECKING:
    from .statements import PlanView, Result, Statement

ACT_RELATIONS = ("drinks", "bows", "holds", "hands_over")
BOWS = (GestureKind.BOW, GestureKind.KNEEL_BOW)
ANSWER_WITHIN = 30.0        # seconds: a bow to one who bowed to one this shortly before answers his


def window(s: "Statement", view: "PlanView") -> tuple[float, float, str] | None:
    """From the start of the clause's first performance to the end of the last performance of the clause
    ``until`` names (or of this one): (t0, t1, event ids), or None if nothing performs it."""
    evs = _performances(view, s.span, s.part)
    if not evs:
        return None
    last = _performances(view, s.until_span, s.part) if s.until_span else evs
    if not last:
        return None
    t0, t1 = min(e.start for e in evs), max(e.end for e in last)
    first = min(evs, key=lambda e: e.start).id
    end = max(last, key=lambda e: e.end).id
    return t0, t1, first if first == end else f"{first}…{end}"


def _performances(view: "PlanView", span, part: str = "passage") -> list:
    a, b = span
    return [e for e in view.by_part[part] if e.span[0] < b and a < e.span[1]]


def evaluate_act(s: "Statement", view: "PlanView") -> "Result":
    from .statements import Result

    w = window(s, view)
    if w is None:
        return Result(s, "n/a", message="no event of the plan performs this clause")
    t0, t1, ev = w
    who = list(view.plan.actors) if s.subject == "*" else [view.resolve(s.subject)]
    if s.subject != "*" and (who[0] is None or who[0][0] != ("props" if s.relation == "hands_over" else "actors")):
        return Result(s, "n/a", message=f"{s.subject} is not in the plan")
    ids = who if s.subject == "*" else [who[0][1]]
    fn = {"drinks": _drinks, "bows": _bows, "holds": _holds, "hands_over": _hands_over}[s.relation]
    status, measured, wanted, margin, message = fn(s, view, ids, t0, t1)
    return Result(s, status, measured, wanted, margin, message, ev, round(t1, 3))


def _drinks(s, view, ids, t0, t1):
    pid = ids[0]
    cup = view.resolve(s.ref)[1] if s.ref and view.resolve(s.ref) else None
    sips = [g for g in view.plan.actors[pid].gestures
            if g.kind == GestureKind.DRINK and t0 - 1e-6 <= g.t0 <= t1 + 1e-6 and (cup is None or g.object == cup)]
    wanted = f"drinks{' from the ' + cup if cup else ''} during the clause"
    if sips:
        g = sips[0]
        return "pass", round(g.t0, 3), wanted, 1.0, f"{pid} drinks ({g.object}) at {g.t0:.1f} s"
    return "fail", None, wanted, -1.0, f"{pid} does not drink between {t0:.1f} and {t1:.1f} s"


def _bows(s, view, ids, t0, t1):
    reach = float(s.value) if s.value is not None else 2.0
    turned = s.tol if s.tol is not None else 100.0
    plan = view.plan
    worst, message, n = math.inf, "", 0
    for pid in ids:
        for g in plan.actors[pid].gestures:
            if g.kind not in BOWS or not (t0 - 1e-6 <= g.t0 <= t1 + 1e-6) or g.object not in plan.actors:
                continue
            n += 1
            other = plan.actors[g.object]
            (p, _), (q, qh) = plan.actors[pid].track.at([g.t0]), other.track.at([g.t0])
            d = math.hypot(p[0, 0] - q[0, 0], p[0, 1] - q[0, 1])
            bearing = math.degrees(math.atan2(p[0, 0] - q[0, 0], p[0, 1] - q[0, 1])) % 360
            off = abs((bearing - float(qh[0]) + 180.0) % 360.0 - 180.0)
            m = min(reach - d, (turned - off) / 100.0)
            why = f"{pid} bows to {g.object} at {g.t0:.1f} s, {d:.2f} m away, {off:.0f}° off his facing"
            answered = [h for h in other.gestures if h.kind in BOWS and h.object == pid
                        and g.t0 - ANSWER_WITHIN <= h.t0 < g.t0]
            if answered:
                h = max(answered, key=lambda h: h.t0)
                if g.t0 - h.t1 < m:
                    m = g.t0 - h.t1
                    why = f"{pid} answers {g.object}'s bow at {g.t0:.1f} s, {h.t1 - g.t0:.1f} s before it ends"
            if m < worst:
                worst, message = m, why
    wanted = f"each bow to one within {reach:g} m, turned to the bower (±{turned:g}°), after the bow it answers"
    if n == 0:
        return "fail", None, wanted, -1.0, "no bow is made to anyone in the clause"
    return ("pass" if worst >= 0 else "fail"), n, wanted, worst, f"{n} bows; the closest call: {message}"


def _holds(s, view, ids, t0, t1):
    kinds = s.value if isinstance(s.value, list) else ([s.value] if s.value else [PropKind.觯, PropKind.爵])
    plan = view.plan
    bad, n = [], 0
    for pid in ids:
        st = plan.actors[pid].states
        for i, (t, v) in enumerate(zip(st.times, st.values)):
            t_next = st.times[i + 1] if i + 1 < len(st.times) else plan.duration
            a, b = max(t, t0), min(t_next, t1)
            if b <= a:
                continue
            for prop in (v or {}).get("holding") or []:
                pr = plan.props.get(prop)
                if pr is None or pr.kind not in kinds:
                    continue
                n += 1
                for tt in np.linspace(a + 1e-3, b - 1e-3, 3) if b - a > 2e-3 else [a]:
                    c = pr.carrier(float(tt))
                    if c != pid:
                        bad.append(f"{pid} holds {prop} at {tt:.1f} s, which is "
                                   + (f"in {c}'s hand" if c else "set down"))
                        break
    wanted = f"what one holds ({'/'.join(kinds)}) is in his hand"
    if bad:
        return "fail", len(bad), wanted, -float(len(bad)), bad[0] + (f" (and {len(bad) - 1} more)" if len(bad) > 1 else "")
    return "pass", 0, wanted, 1.0, f"{n} things held, each in the hand of who holds it"


def _hands_over(s, view, ids, t0, t1):
    plan = view.plan
    prop = plan.props[ids[0]]
    near = float(s.value) if s.value is not None else 1.5
    ref = view.resolve(s.ref) if s.ref else None
    if ref is None:
        return "n/a", None, "", None, f"{s.ref} is not in the plan"
    rx, ry, *_ = view.state(*ref, None)
    worst, message, n = math.inf, "", 0
    prev = None
    for t, who in zip(prop.carriers.times, prop.carriers.values):
        if prev in plan.actors and who in plan.actors and t0 - 1e-6 <= t <= t1 + 1e-6:
            n += 1
            (p, _) = plan.actors[who].track.at([t])
            d = math.hypot(p[0, 0] - rx, p[0, 1] - ry)
            if near - d < worst:
                worst, message = near - d, f"{prev} hands it to {who} at {t:.1f} s, {d:.2f} m from {ref[1]}"
        prev = who
    wanted = f"handed on within {near:g} m of {ref[1]}"
    if n == 0:
        return "fail", None, wanted, -1.0, f"{ids[0]} does not change hands in the clause"
    return ("pass" if worst >= 0 else "fail"), n, wanted, worst, f"{n} hand-overs; the farthest: {message}"
