"""The whole chapter (issue 29, --part whole) on every shipped reading with 3, 9 and 27 衆賓: plan, audit (all
rules, sampled every 0.1 s) and the conservation of things, one line per case, then the findings grouped by
kind and event (most frequent first).  Too slow for the test suite (18 plans of the whole chapter); the test
suite keeps the default case (tests/test_chapter.py::test_whole_audit_and_conservation).

.venv/bin/python bench/whole_matrix.py [--layouts zheng_xuan,…] [--counts 3,9,27] [--show 3] [--save DIR]
"""
from __future__ import annotations

import argparse
import bisect
import collections
import sys
from pathlib import Path

from reconstruct.checks.audit import audit
from reconstruct.checks.conservation import conservation
from reconstruct.layout import load_reading
from reconstruct.planner import make_plan
from reconstruct.planner.errors import PlanError
from reconstruct.rite.loader import load_part

LAYOUTS = ("zheng_xuan", "ao_jigong", "yishu_1748", "dashe_fa", "zhou_chi_197", "zheng_xuan_xiang")


def event_at(plan, t: float) -> str:
    """The id of the latest event begun by ``t`` (where a finding happens)."""
    starts = [e.start for e in plan.events]
    i = bisect.bisect_right(starts, t) - 1
    return plan.events[i].id if i >= 0 else "-"


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--layouts", default=",".join(LAYOUTS))
    ap.add_argument("--counts", default="3,9,27")
    ap.add_argument("--show", type=int, default=3, help="findings printed per case")
    ap.add_argument("--save", help="a folder to write each plan to (LAYOUT-N.json)")
    a = ap.parse_args()
    counts = [int(c) for c in a.counts.split(",")]
    total = collections.Counter()
    print(f"{'reading':18s} {'衆賓':>4s} {'overlap':>7s} {'other':>5s} {'conserv':>7s}  events (findings)", flush=True)
    for name in a.layouts.split(","):
        reading = load_reading(name)
        for n in counts:
            try:
                plan = make_plan(reading, load_part("whole", zhongbin=n, reading=reading))
            except PlanError as e:            # a case that does not plan is a finding too
                print(f"{name:18s} {n:4d}  plan failed: {str(e)[:300]}", flush=True)
                total["cases"] += 1
                total["failed"] += 1
                continue
            if a.save:
                Path(a.save).mkdir(parents=True, exist_ok=True)
                plan.save(Path(a.save) / f"{name}-{n}.json")
            found = audit(plan, reading, limit=10_000)
            cons = conservation(plan)
            ov = [f for f in found if f.kind == "overlap"]
            where = collections.Counter(event_at(plan, f.t) for f in found + cons)
            print(f"{name:18s} {n:4d} {len(ov):7d} {len(found) - len(ov):5d} {len(cons):7d}  "
                  + ", ".join(f"{e}×{c}" for e, c in where.most_common(6)), flush=True)
            for f in (found + cons)[:a.show]:
                print(f"    {f}  [{event_at(plan, f.t)}]", flush=True)
            total["cases"] += 1
            total["clean"] += not found and not cons
            total["overlap"] += len(ov)
            total["other"] += len(found) - len(ov)
            total["conservation"] += len(cons)
    print(f"clean {total['clean']}/{total['cases']}; plan failed {total['failed']}; overlaps {total['overlap']}, other audit "
          f"{total['other']}, conservation {total['conservation']}", flush=True)
    return 0 if total["clean"] == total["cases"] else 1


if __name__ == "__main__":
    sys.exit(main())
