"""Two readings in one page (``render.py web --compare A B``): both plans played on one timeline, A solid and
B as a ghost, with the differences ``compare`` found listed beside, each a link to its moment.

The timeline is A's (its plan seconds, its captions and footnotes).  The same act does not happen at the same
second in both plans (a longer walk in one reading delays all that follows), so B is shown at the moment of the
same act: :func:`timeline_warp` pairs the start and the end of every event the two plans share (by id) and B's
time is interpolated linearly between those pairs.  The differences are the ``compare`` report's (the command
line hands it in: ``web`` does not import ``checks``), each given the moment it is seen at:

* a landmark that moves: the first moment someone stands within :data:`NEAR` of it in A (the start if nobody
  does), and the camera is turned to it;
* a person whose path differs: the moment the two are furthest apart (and by how much);
* a statement that passes in one reading and not in the other: the moment it is measured in A (else in B).
"""
from __future__ import annotations

import math
from pathlib import Path

import numpy as np

from ..model.plan import Plan
from ..model.reading import Reading
from .page import PageStats, build_page, write_html

__all__ = ["timeline_warp", "ghost_times", "differences", "compare_data", "build_compare_page",
           "write_compare_page", "NEAR", "STEP"]

NEAR = 1.0        # m: someone "at" a landmark
STEP = 1.0        # s: the sampling of A's timeline for the moments


def timeline_warp(plan_a: Plan, plan_b: Plan) -> np.ndarray:
    """(n, 2) knots (A's time, B's time), both increasing: the starts and ends of the events both plans
    perform (by id), from (0, 0) to the two ends."""
    eb = {e.id: e for e in plan_b.events}
    pairs = sorted({(e.start, eb[e.id].start) for e in plan_a.events if e.id in eb}
                   | {(e.end, eb[e.id].end) for e in plan_a.events if e.id in eb})
    knots = [(0.0, 0.0)]
    for ta, tb in pairs + [(plan_a.duration, plan_b.duration)]:
        if ta > knots[-1][0] + 1e-6 and tb > knots[-1][1] + 1e-6:
            knots.append((ta, tb))
    return np.asarray(knots, float)


def ghost_times(warp: np.ndarray, times) -> np.ndarray:
    """B's time at each of A's times."""
    return np.interp(np.asarray(times, float), warp[:, 0], warp[:, 1])


def _clock(t: float) -> str:
    h, r = divmod(max(0.0, t), 3600)
    m, s = divmod(r, 60)
    return f"{int(h)}:{int(m):02d}:{s:04.1f}"


def differences(plan_a: Plan, plan_b: Plan, report: dict, warp: np.ndarray) -> list[dict]:
    """The compare report's differences, each with its moment on A's timeline (``moment``, plan seconds), a
    kind (landmark, only, person, statement), a label and a line of detail; ``at`` a point to look at (plan frame)."""
    times = np.arange(0.0, plan_a.duration + STEP / 2, STEP)
    out: list[dict] = []
    xy_a = {aid: a.track.at(times)[0] for aid, a in plan_a.actors.items()}
    for m in report.get("landmarks_moved", []):
        p = np.asarray(m["a"], float)
        first = [float(times[np.argmax(d)]) for d in
                 (np.hypot(xy[:, 0] - p[0], xy[:, 1] - p[1]) < NEAR for xy in xy_a.values()) if d.any()]
        out.append({"kind": "landmark", "label": m["landmark"],
                    "detail": f"moves {m['distance_m']:.2f} m (east {m['dx']:+.2f}, north {m['dy']:+.2f})",
                    "moment": round(min(first), 3) if first else 0.0, "at": [round(float(v), 3) for v in p],
                    "at_b": [round(float(v), 3) for v in m["b"]], "size": m["distance_m"]})
    for side in ("a", "b"):
        for k in report.get(f"only_in_{side}", []):
            lm = (plan_a if side == "a" else plan_b).landmarks.get(k)
            out.append({"kind": "only", "label": k, "detail": f"only in {side.upper()}", "moment": 0.0,
                        "at": [round(float(v), 3) for v in lm.position] if lm else None, "size": 0.0})
    tb = ghost_times(warp, times)
    for p in report.get("people", []):
        aid = p["actor"]
        if aid not in plan_b.actors:
            continue
        d = np.linalg.norm(xy_a[aid][:, :2] - plan_b.actors[aid].track.at(tb)[0][:, :2], axis=1)
        i = int(np.argmax(d))
        if abs(p["a_m"] - p["b_m"]) < 0.01 and d[i] < 0.05:
            continue
        out.append({"kind": "person", "label": aid,
                    "detail": f"walks {p['a_m']:.1f} → {p['b_m']:.1f} m ({p['b_m'] - p['a_m']:+.1f}); "
                              f"furthest apart {d[i]:.2f} m at {_clock(float(times[i]))}",
                    "moment": round(float(times[i]), 3), "size": round(float(d[i]), 3)})
    for s in report.get("statements", []):
        ta, tb_ = s.get("a_time"), s.get("b_time")
        if ta is None and tb_ is not None:
            ta = float(np.interp(tb_, warp[:, 1], warp[:, 0]))
        out.append({"kind": "statement", "label": f"{s['id']} {s['quote']}",
                    "detail": f"A {s['a']} → B {s['b']} — A: {s['a_msg']} | B: {s['b_msg']}",
                    "moment": round(float(ta), 3) if ta is not None and math.isfinite(ta) else 0.0, "size": 0.0})
    order = {"statement": 0, "landmark": 1, "only": 2, "person": 3}
    out.sort(key=lambda d: (order[d["kind"]], -d["size"], d["moment"], d["label"]))
    return out


def _reading_json(plan: Plan) -> dict:
    lay = plan.layout
    return {"name": lay.name, "name_en": lay.name_en, "file": Path(lay.file).name}


def compare_data(plan_a: Plan, plan_b: Plan, report: dict) -> dict:
    """What the compare page adds to the page's data: both readings, the warp and the differences."""
    warp = timeline_warp(plan_a, plan_b)
    return {"title": f"鄉射禮 二讀對照 · {plan_a.layout.name} / {plan_b.layout.name}",
            "compare": {"a": _reading_json(plan_a), "b": _reading_json(plan_b),
                        "duration_b": plan_b.duration,
                        "warp": [[round(float(a), 4), round(float(b), 4)] for a, b in warp],
                        "differences": differences(plan_a, plan_b, report, warp)}}


def build_compare_page(a: tuple[Reading, Plan], b: tuple[Reading, Plan], report: dict) -> tuple[str, PageStats]:
    """The compare page's HTML: A's page with B's scene as a ghost and the differences."""
    return build_page(*a, ghost=b, extra=compare_data(a[1], b[1], report))


def write_compare_page(a: tuple[Reading, Plan], b: tuple[Reading, Plan], report: dict, out) -> PageStats:
    html, stats = build_compare_page(a, b, report)
    write_html(html, out)
    return stats
