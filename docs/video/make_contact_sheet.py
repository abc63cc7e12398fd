"""Contact sheet of the default video: 12 frames spread over the whole passage, as the video shows them.

    .venv/bin/python docs/video/make_contact_sheet.py [--plan PLAN.json] [--part passage|first|whole]
                                                      [--out docs/video/contact_sheet.png]

Frames come from :func:`reconstruct.render.video.render_frames` (same camera, labels, captions and timeline
as ``render.py video`` with no range), at plan times evenly spaced over the passage (the first at
4 s, inside the establishing shot); each tile is stamped with the plan time and the shot kind.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402
from PIL import Image, ImageDraw  # noqa: E402

from reconstruct.render import captions as C  # noqa: E402
from reconstruct.scene.shots import plan_shots  # noqa: E402
from reconstruct.render.video import render_frames  # noqa: E402


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--plan", type=Path, help="a saved plan (default: plan the default reading)")
    ap.add_argument("--out", type=Path, default=ROOT / "docs" / "video" / "contact_sheet.png")
    ap.add_argument("--part", default="passage", help="the part of the chapter planned when no --plan is given")
    ap.add_argument("--n", type=int, default=12)
    ap.add_argument("--size", default="1280x720")
    ap.add_argument("--times", help="comma-separated plan seconds instead of evenly spaced ones")
    a = ap.parse_args(argv)
    from reconstruct.layout import load_reading
    from reconstruct.model.plan import Plan
    from reconstruct.scene.ground import ground_meshes
    reading = load_reading("zheng_xuan")
    if a.plan:
        plan = Plan.load(a.plan)
    else:
        from reconstruct.planner import make_plan
        from reconstruct.rite.loader import load_part
        plan = make_plan(reading, load_part(a.part, reading=reading))
    size = tuple(int(v) for v in a.size.split("x"))
    dur = float(plan.duration)
    if a.times:
        times = [float(x) for x in a.times.split(",")]
    else:
        times = [4.0] + list(np.linspace(0, dur, a.n + 1)[1:-1] + dur / a.n / 2)[: a.n - 1]
    cam = plan_shots(plan, size)
    frames = render_frames(plan, ground_meshes(reading, plan.props), times, size=size, camera=cam)
    tw, th = 640, 360
    cols = 3
    rows = (len(frames) + cols - 1) // cols
    sheet = Image.new("RGB", (tw * cols, th * rows), (20, 18, 16))
    font = C.caption_font(15)
    for i, (t, f) in enumerate(zip(times, frames)):
        tile = Image.fromarray(f).resize((tw, th), Image.LANCZOS)
        d = ImageDraw.Draw(tile)
        stamp = f"plan {t:.0f} s ({t / 60:.1f} min) · {cam.shot_at(t).kind}"
        d.rectangle((0, 0, d.textlength(stamp, font=font) + 10, 21), fill=(0, 0, 0))
        d.text((5, 1), stamp, font=font, fill=(255, 255, 255))
        sheet.paste(tile, ((i % cols) * tw, (i // cols) * th))
    a.out.parent.mkdir(parents=True, exist_ok=True)
    sheet.save(a.out, optimize=True)
    print(f"wrote {a.out} ({len(frames)} frames over {dur:.0f} s of plan)")


if __name__ == "__main__":
    main()
