"""Planning time for the whole passage, and how it grows with the number of 衆賓 (3 → 9 → 27).

Prints the wall time of each plan and the ratio against the 3-衆賓 baseline run in the same invocation,
with the ratio of 衆賓 and of people (everyone: with 3 衆賓 the rite has 37, 34 of them others) and the
seconds each added person costs (constant when growth is linear), and how many walks were planned (the
rite's loops give each added 衆賓 more walks than the average person) and what each cost on average
(constant when crowds cost nothing extra); last, how far each later count lies from the straight line
through the first two.  Last on each line: how many others each walk comes within 1.5 m of (on its level,
sampled every 0.5 s) — the crowd a walk meets, which the planner has to route round and time against; when
that grows with the count, so does the cost of each walk.  Run: .venv/bin/python bench/bench_plan.py
"""
from __future__ import annotations

import argparse
import time

import numpy as np

from reconstruct.planner import make_plan
from reconstruct.reading import load_reading
from reconstruct.rite import load_rite


def met_per_walk(plan: dict, within: float = 1.5, step: float = 0.5) -> float:
    """The mean number of others a walk comes within ``within`` metres of, on the same level, at some
    sampled moment of the walk."""
    keys = [np.asarray([k[:4] for k in a["keys"]], float) for a in plan["actors"].values()]
    postures = [[k[5] for k in a["keys"]] for a in plan["actors"].values()]
    grid = np.arange(0.0, max(k[-1, 0] for k in keys) + step, step)
    at = np.stack([np.stack([np.interp(grid, k[:, 0], k[:, j]) for j in (1, 2, 3)]) for k in keys])  # (people, 3, T)
    met = walks = 0
    for i, (k, ps) in enumerate(zip(keys, postures)):
        for s in range(len(ps) - 1):
            if ps[s + 1] != "walk" or ps[s] == "walk":
                continue
            e = s + 1
            while e + 1 < len(ps) and ps[e + 1] == "walk":
                e += 1
            lo, hi = np.searchsorted(grid, [k[s, 0], k[e, 0]])
            if hi <= lo:
                hi = lo + 1
            d = at[:, :, lo:hi] - at[i, :, lo:hi]
            near = (np.hypot(d[:, 0], d[:, 1]) < within) & (np.abs(d[:, 2]) < 0.3)
            near[i] = False
            met += int(near.any(axis=1).sum())
            walks += 1
    return met / max(walks, 1)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--layout", default="layouts/zheng_xuan.toml")
    ap.add_argument("--counts", default="3,9,27")
    ap.add_argument("--repeat", type=int, default=1)
    a = ap.parse_args()
    reading = load_reading(a.layout)
    base = None
    prev = None
    rows = []
    for n in [int(c) for c in a.counts.split(",")]:
        rite = load_rite(zhongbin=n)
        best = float("inf")
        for _ in range(a.repeat):
            t0 = time.perf_counter()
            plan = make_plan(reading, rite)
            best = min(best, time.perf_counter() - t0)
        people = len(plan["actors"])
        walks = sum(1 for a in plan["actors"].values() for k0, k1 in zip(a["keys"], a["keys"][1:])
                    if k0[5] != "walk" and k1[5] == "walk")
        if base is None:
            base = (best, people, n)
        marginal = f", +{(best - prev[0]) / (people - prev[1]):.2f} s per added person" if prev else ""
        print(f"众宾 {n:3d}: {people:3d} people, {len(plan['events']):4d} events, {walks:5d} walks, planned in "
              f"{best:6.2f} s (x{best / base[0]:.2f} time for x{n / base[2]:.1f} 衆賓, x{people / base[1]:.2f} "
              f"people{marginal}; {1000 * best / walks:.2f} ms per walk), {len(plan['conflicts'])} conflicts left; "
              f"each walk meets {met_per_walk(plan):.1f} others",
              flush=True)
        prev = (best, people)
        rows.append((n, people, best))
    if len(rows) >= 3:      # linear growth: every later count on the straight line through the first two
        (_, p0, t0), (_, p1, t1) = rows[0], rows[1]
        slope = (t1 - t0) / (p1 - p0)
        for n, people, best in rows[2:]:
            line = t1 + slope * (people - p1)
            print(f"众宾 {n:3d}: the straight line through the first two counts predicts {line:.2f} s; "
                  f"measured {best:.2f} s ({100 * (best / line - 1):+.0f} %)")


if __name__ == "__main__":
    main()
