"""Export time and file size of the whole passage as one animated GLB, against the static ground export.

Plans the passage once (or reads ``--plan plan.json``), then times in the same run: the static
ground export (``export_ground``, the baseline) and the animated export (``export_animated``), best
of ``--repeat``.  Prints both with the ratios and the issue-6 targets (under 10 s, under 30 MB).
Run: .venv/bin/python bench/bench_export.py [--layout layouts/zheng_xuan.toml] [--repeat 3]
"""
from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

from reconstruct.exchange.animation import build_animated, export_animated
from reconstruct.exchange.gltf import export_ground
from reconstruct.layout.reading import load_reading
from reconstruct.model.plan import Plan

TARGET_S = 10.0
TARGET_MB = 30.0


def best_of(n: int, fn) -> float:
    best = float("inf")
    for _ in range(n):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--layout", default="layouts/zheng_xuan.toml")
    ap.add_argument("--plan", help="a plan JSON (xiangshe-plan/1) instead of planning now")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--fmt", default="glb", choices=("glb", "gltf"))
    ap.add_argument("--camera", action="store_true", help="add the camera following the shot plan")
    a = ap.parse_args()
    reading = load_reading(a.layout)
    if a.plan:
        plan = Plan.load(a.plan)
        print(f"plan {a.plan}")
    else:
        from reconstruct.planner.core import make_plan
        from reconstruct.rite.loader import load_rite
        t0 = time.perf_counter()
        plan = make_plan(reading, load_rite())
        print(f"planned in {time.perf_counter() - t0:.2f} s (not part of the export)")
    print(f"passage {plan.duration:.1f} s, {len(plan.actors)} people, {len(plan.props)} props, "
          f"{len(plan.events)} events")
    with tempfile.TemporaryDirectory() as d:
        g_path, a_path = Path(d) / f"ground.{a.fmt}", Path(d) / f"passage.{a.fmt}"
        tg = best_of(a.repeat, lambda: export_ground(reading, g_path, fmt=a.fmt))
        ta = best_of(a.repeat, lambda: export_animated(reading, plan, a_path, fmt=a.fmt, camera=a.camera))
        sg, sa = g_path.stat().st_size / 1e6, a_path.stat().st_size / 1e6
    _, summary = build_animated(reading, plan, camera=a.camera)
    print(f"static ground   : {tg:6.2f} s  {sg:7.2f} MB   (baseline)")
    print(f"animated passage: {ta:6.2f} s  {sa:7.2f} MB   (x{ta / tg:.1f} time, x{sa / sg:.1f} size of the ground)")
    print(f"  {summary['people']} people, {summary['props']} props ({summary['moving_props']} moving), "
          f"{summary['animated_nodes']} animated nodes, {summary['channels']} channels, {summary['keys']} keys")
    ok = ta < TARGET_S and sa < TARGET_MB
    print(f"{'OK' if ok else 'FAIL'} targets: export {ta:.2f} s < {TARGET_S:g} s, file {sa:.2f} MB < {TARGET_MB:g} MB")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
