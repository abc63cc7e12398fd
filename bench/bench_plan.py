"""Planning time for the whole passage, and how it grows with the number of 衆賓 (3 → 9 → 27).

Prints the wall time of each plan and the ratio against the 3-衆賓 baseline run in the same invocation,
with the ratio of 衆賓 and of people (everyone: with 3 衆賓 the rite has 37, 34 of them others) and the
seconds each added person costs (constant when growth is linear), and how many walks were planned (the
rite's loops give each added 衆賓 more walks than the average person) and what each cost on average
(constant when crowds cost nothing extra); last, how far each later count lies from the straight line
through the first two.  Last on each line: how many others each walk comes within 1.5 m of (on its level,
sampled every 0.5 s) — the crowd a walk meets, which the planner has to route round and time against; when
that grows with the count, so does the cost of each walk.

``--parts``: which parts of the chapter (issue 29) to plan: the passage (from the count of the second round,
the default's only part before), the first half, the whole chapter; each part is timed at every count, its
ratios against its own first count as above, and each part after the first also against the first part at
the same count (the whole chapter against the passage: how much the first half adds; the issue's budget:
the passage under 2 s, the whole chapter under 4 s on the reference machine).  Run, when nothing else runs:
.venv/bin/python bench/bench_plan.py [--parts passage,whole] [--counts 3,9,27] [--repeat 3]
"""
from __future__ import annotations

import argparse
import time

import numpy as np

from reconstruct.checks.audit import sample
from reconstruct.planner.core import make_plan
from reconstruct.layout.reading import load_reading
from reconstruct.rite.loader import PARTS, load_part


def walks_and_met(plan, within: float = 1.5, step: float = 0.5) -> tuple[int, float]:
    """How many walks the plan has (a walk: from a key not walking into keys walking), and the mean number
    of others each comes within ``within`` metres of, on the same level, at some sampled moment of it."""
    actors = list(plan.actors.values())
    grid = np.arange(0.0, plan.duration + step, step)
    at = np.stack([sample(a.track, grid)[:, :3] for a in actors])    # (people, T, x y z)
    walks = met = 0
    for i, a in enumerate(actors):
        keys = a.track.rows()
        for s in range(len(keys) - 1):
            if keys[s + 1][5] != "walk" or keys[s][5] == "walk":
                continue
            e = s + 1
            while e + 1 < len(keys) and keys[e + 1][5] == "walk":
                e += 1
            lo, hi = np.searchsorted(grid, [keys[s][0], keys[e][0]])
            d = at[:, lo:max(hi, lo + 1)] - at[i, lo:max(hi, lo + 1)]
            near = (np.hypot(d[..., 0], d[..., 1]) < within) & (np.abs(d[..., 2]) < 0.3)
            near[i] = False
            met += int(near.any(axis=1).sum())
            walks += 1
    return walks, met / max(walks, 1)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--layout", default="layouts/zheng_xuan.toml")
    ap.add_argument("--counts", default="3,9,27")
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--parts", default="passage,whole",
                    help=f"parts of the chapter to plan, comma-separated ({', '.join(PARTS)}); default passage,whole")
    a = ap.parse_args()
    parts = [p.strip() for p in a.parts.split(",") if p.strip()]
    if not parts or any(p not in PARTS for p in parts):
        ap.error(f"--parts: one or more of {', '.join(PARTS)}")
    reading = load_reading(a.layout)
    counts = [int(c) for c in a.counts.split(",")]
    first: dict[int, float] = {}
    for part in parts:
        print(f"-- {part}", flush=True)
        times = bench_part(reading, part, counts, a.repeat)
        if first:
            for n, best in times.items():
                print(f"众宾 {n:3d}: {part} planned in {best:.2f} s = x{best / first[n]:.2f} the {parts[0]}'s "
                      f"{first[n]:.2f} s", flush=True)
        else:
            first = times


def bench_part(reading, part: str, counts: list[int], repeat: int) -> dict[int, float]:
    """Plan one part of the chapter at each count of 衆賓 and print its lines; the best time per count."""
    base = None
    prev = None
    rows = []
    for n in counts:
        rite = load_part(part, zhongbin=n)
        best = float("inf")
        for _ in range(repeat):
            t0 = time.perf_counter()
            plan = make_plan(reading, rite)
            best = min(best, time.perf_counter() - t0)
        people = len(plan.actors)
        walks, met = walks_and_met(plan)
        if base is None:
            base = (best, people, n)
        marginal = f", +{(best - prev[0]) / (people - prev[1]):.2f} s per added person" if prev else ""
        print(f"众宾 {n:3d}: {people:3d} people, {len(plan.events):4d} events, {walks:5d} walks, planned in "
              f"{best:6.2f} s (x{best / base[0]:.2f} time for x{n / base[2]:.1f} 衆賓, x{people / base[1]:.2f} "
              f"people{marginal}; {1000 * best / walks:.2f} ms per walk), {len(plan.conflicts)} conflicts left; "
              f"each walk meets {met:.1f} others",
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
    return {n: best for n, _, best in rows}


if __name__ == "__main__":
    main()
