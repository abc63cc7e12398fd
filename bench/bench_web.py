"""Build time and size of the web page (render.py web), against the animated GLB export in the same run,
and optionally a screenshot of the page in headless chromium at a footnote.

Run: .venv/bin/python bench/bench_web.py [--layout zheng_xuan] [--plan plan.json] [--repeat 1]
       [--screenshot docs/web/xiangshe_third_round.png --at 104 --preset wu --offset 4]
"""
from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

from reconstruct.exchange.animation import export_animated
from reconstruct.layout import load_reading
from reconstruct.model.plan import Plan
from reconstruct.web import write_page


def best_of(n: int, fn):
    best, out = float("inf"), None
    for _ in range(n):
        t0 = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t0)
    return best, out


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--layout", default="zheng_xuan")
    ap.add_argument("--plan", help="a saved plan instead of planning now")
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--screenshot", type=Path)
    ap.add_argument("--at", default="104", help="footnote (or event id) of the screenshot")
    ap.add_argument("--offset", type=float, default=4.0, help="seconds after its start")
    ap.add_argument("--preset", default="wu")
    a = ap.parse_args()
    reading = load_reading(a.layout)
    t0 = time.perf_counter()
    if a.plan:
        plan = Plan.load(a.plan)
    else:
        from reconstruct.planner import make_plan
        from reconstruct.rite import load_rite
        plan = make_plan(reading, load_rite())
    print(f"plan {time.perf_counter() - t0:.2f} s ({'loaded' if a.plan else 'planned'}; not counted below)")
    with tempfile.TemporaryDirectory() as d:
        tg, _ = best_of(a.repeat, lambda: export_animated(reading, plan, Path(d) / "passage.glb"))
        out = Path(d) / "xiangshe.html"
        tw, stats = best_of(a.repeat, lambda: write_page(reading, plan, out))
        print(f"animated GLB export: {tg:6.2f} s (baseline)")
        print(f"web page           : {tw:6.2f} s (x{tw / tg:.2f} the GLB export)")
        for line in stats.lines():
            print(line)
        if a.screenshot:
            from reconstruct.web.browser import open_page, why_no_browser
            why = why_no_browser()
            if why:
                print(f"no screenshot: {why}")
                return 1
            at = int(a.at) if a.at.isdigit() else a.at
            t = plan.time_of(at) + a.offset
            with open_page(out) as page:
                page.evaluate("(t) => { xiangshe.setTime(t); }", t)
                page.evaluate("(p) => xiangshe.setPreset(p)", a.preset)
                page.wait_for_timeout(300)
                a.screenshot.parent.mkdir(parents=True, exist_ok=True)
                page.screenshot(path=str(a.screenshot))
                cap = page.evaluate("xiangshe.caption()")
            print(f"screenshot {a.screenshot} at {t:.1f} s ({a.preset}): {cap['footnote']} {cap['text']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
