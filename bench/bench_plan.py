"""Planning time for the whole passage, and how it grows with the number of 衆賓 (3 → 9 → 27).

Prints the wall time of each plan and the ratio against the 3-衆賓 baseline run in the same invocation,
with the ratio of people, so growth can be compared with linear.  Run: .venv/bin/python bench/bench_plan.py
"""
from __future__ import annotations

import argparse
import time

from reconstruct.planner import make_plan
from reconstruct.reading import load_reading
from reconstruct.rite import load_rite


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--layout", default="layouts/zheng_xuan.toml")
    ap.add_argument("--counts", default="3,9,27")
    ap.add_argument("--repeat", type=int, default=1)
    a = ap.parse_args()
    reading = load_reading(a.layout)
    base = None
    for n in [int(c) for c in a.counts.split(",")]:
        rite = load_rite(zhongbin=n)
        best = float("inf")
        for _ in range(a.repeat):
            t0 = time.perf_counter()
            plan = make_plan(reading, rite)
            best = min(best, time.perf_counter() - t0)
        people = len(plan["actors"])
        if base is None:
            base = (best, people)
        print(f"众宾 {n:3d}: {people:3d} people, {len(plan['events']):4d} events, planned in {best:6.2f} s "
              f"(x{best / base[0]:.2f} time for x{people / base[1]:.2f} people), "
              f"{len(plan['conflicts'])} conflicts left", flush=True)


if __name__ == "__main__":
    main()
