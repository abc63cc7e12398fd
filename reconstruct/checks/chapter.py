"""The seam of the chapter: the state the first half ends in against the state the passage begins in (who
stands where, facing where, bared or not, with what in his hands; where each thing lies and who holds it).

Both are read from plans (the first half's at its end, the passage's at time 0, as the planner placed the
passage's initial state), so the comparison measures what was planned and re-derives nothing.  Each
difference is a :class:`~reconstruct.checks.audit.Finding` (kind ``seam``)."""
from __future__ import annotations

from collections import Counter

import numpy as np
from scipy.optimize import linear_sum_assignment

from ..model.plan import Plan
from .audit import Finding

TOLERANCE_M = 0.6      # a person or a thing within this of where the passage has it stands there (one step)
INTERCHANGEABLE = ("算",)   # things of a kind that are alike (the 算 are eighty tallies): matched as a set


def _where(track, t: float) -> np.ndarray:
    xyz, _ = track.at(np.asarray([t], float))
    return xyz[0]


def _holds_bow(plan: Plan, state: dict) -> bool:
    return any(h in plan.props and plan.props[h].kind == "弓" for h in state.get("holding") or [])


def seam(first: Plan, passage: Plan, t_first: float | None = None, t_passage: float = 0.0,
         tol: float = TOLERANCE_M) -> list[Finding]:
    """Where ``first`` at ``t_first`` (default: its end) differs from ``passage`` at ``t_passage``."""
    t1 = first.duration if t_first is None else t_first
    out: list[Finding] = []
    for pid, b in passage.actors.items():
        a = first.actors.get(pid)
        if a is None:
            out.append(Finding("seam", pid, t1, "not in the first half"))
            continue
        d = float(np.linalg.norm(_where(a.track, t1)[:2] - _where(b.track, t_passage)[:2]))
        if d > tol:
            out.append(Finding("seam", pid, t1, f"stands {d:.1f} m from where the passage has him"))
        sa, sb = a.state(t1), b.state(t_passage)
        for k in ("bare_left_arm", "gear", "bow"):
            if k == "bow" and not (_holds_bow(first, sa) or _holds_bow(passage, sb)):
                continue      # 執張弓 / 執弛弓 says how a bow in hand is held: who has laid his down (釋弓) holds none
            if sa.get(k) != sb.get(k):
                out.append(Finding("seam", pid, t1, f"{k}: {sa.get(k)} at the end of the first half, "
                                                    f"{sb.get(k)} in the passage"))
        ha, hb = sorted(sa.get("holding") or []), sorted(sb.get("holding") or [])
        if ha != hb:
            out.append(Finding("seam", pid, t1, f"holds {ha or 'nothing'}, the passage has {hb or 'nothing'}"))
    alike = {pid for pid, q in passage.props.items() if q.kind in INTERCHANGEABLE and pid in first.props}
    out.extend(_alike(first, passage, sorted(alike), t1, t_passage, tol))
    for pid, q in passage.props.items():
        p = first.props.get(pid)
        if p is None:
            out.append(Finding("seam", pid, t1, "not in the first half"))
            continue
        if pid in alike:
            continue
        ca, cb = p.carrier(t1), q.carrier(t_passage)
        if ca != cb:
            out.append(Finding("seam", pid, t1, f"held by {ca or 'nobody'}, the passage has {cb or 'nobody'}"))
        elif ca is None:
            d = float(np.linalg.norm(_where(p.track, t1)[:2] - _where(q.track, t_passage)[:2]))
            if d > tol:
                out.append(Finding("seam", pid, t1, f"lies {d:.1f} m from where the passage has it"))
    return out


def _alike(first: Plan, passage: Plan, ids: list[str], t1: float, t0: float, tol: float) -> list[Finding]:
    """Things that are alike (the 算), as a set: as many held by each one on both sides, and those lying
    paired one to one (the pairing with the least total distance) within ``tol``; ids need not agree."""
    out: list[Finding] = []
    held_a = Counter(first.props[i].carrier(t1) for i in ids)
    held_b = Counter(passage.props[i].carrier(t0) for i in ids)
    for who in sorted(set(held_a) | set(held_b), key=str):
        if who is not None and held_a[who] != held_b[who]:
            out.append(Finding("seam", who, t1, f"holds {held_a[who]} of the 算, the passage has {held_b[who]}"))
    lying_a = [_where(first.props[i].track, t1)[:2] for i in ids if first.props[i].carrier(t1) is None]
    lying_b = [(i, _where(passage.props[i].track, t0)[:2]) for i in ids if passage.props[i].carrier(t0) is None]
    if len(lying_a) != len(lying_b):
        out.append(Finding("seam", "算", t1, f"{len(lying_a)} lie on the ground at the end of the first half, "
                                             f"{len(lying_b)} in the passage"))
    if lying_a and lying_b:
        b = np.asarray([q for _, q in lying_b])
        d = np.linalg.norm(np.asarray(lying_a)[:, None, :] - b[None, :, :], axis=2)
        rows, cols = linear_sum_assignment(d)
        for r, c in zip(rows, cols):
            if d[r, c] > tol:
                out.append(Finding("seam", lying_b[c][0], t1, f"lies {d[r, c]:.1f} m from the nearest of its kind "
                                                             "where the passage has one"))
    return out
