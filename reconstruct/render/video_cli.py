"""The ``video`` sub-command: plan (or read a saved plan), build the ground, render.

``render.py video [LAYOUT] [--out out/xiangshe.mp4] [--from X] [--to X] [--speed S]
[--size 1280x720] [--fps 25] [--crf 18] [--frames DIR] [--labels] [--plan PLAN.json]
[--zhongbin N]``

``--from``/``--to`` take a footnote number (``88``), an event id (``p2.sheshe``) or
plan seconds written with an ``s`` (``12.5s``).  The renderer never re-plans: with
``--plan`` the saved plan is rendered as it is; the ground comes from LAYOUT.
"""
from __future__ import annotations

import argparse
import re
from pathlib import Path

from ..errors import InputError
from ..model.plan import Plan

SIZES = ("1280x720", "1920x1080", "3840x2160")
DEFAULT_OUT = Path("out") / "xiangshe.mp4"


def parse_point(value: str) -> float | int | str:
    """``12.5s`` → 12.5 (seconds), ``88`` → 88 (footnote), anything else → an event id."""
    v = value.strip()
    m = re.fullmatch(r"(\d+(?:\.\d*)?|\.\d+)\s*s", v)
    if m:
        return float(m.group(1))
    if re.fullmatch(r"\d+", v):
        return int(v)
    if re.fullmatch(r"\d*\.\d+|\d+\.", v):
        raise argparse.ArgumentTypeError(f"{value!r}: write seconds with an s (e.g. {v}s), "
                                         "a footnote number, or an event id")
    if not v:
        raise argparse.ArgumentTypeError("empty --from/--to")
    return v


def parse_size(value: str) -> tuple[int, int]:
    m = re.fullmatch(r"(\d+)x(\d+)", value.strip())
    if not m:
        raise argparse.ArgumentTypeError(f"{value!r}: size is WxH, one of {', '.join(SIZES)}")
    w, h = int(m.group(1)), int(m.group(2))
    if w % 2 or h % 2 or w < 16 or h < 16:
        raise argparse.ArgumentTypeError(f"{value!r}: width and height must be even (yuv420p)")
    return w, h


def ground_meshes(reading) -> list[tuple[str, object, tuple[float, float, float] | str]]:
    """The ground as the ``(name, mesh, rgb)`` tuples :func:`render_video` expects, with the fields
    outside the wall (as the stills draw them) for those who stand outside the gate."""
    from ..scene.ground import FIELD_COLOR, build_ground, field_mesh

    return [("field", field_mesh(reading), FIELD_COLOR),
            *((p.node, p.mesh, tuple(float(c) for c in p.color)) for p in build_ground(reading))]


def cmd_video(a: argparse.Namespace) -> int:
    from ..layout.reading import load_reading
    from ..render.video import render_video

    reading = load_reading(a.layout)
    if a.plan:
        plan = Plan.load(a.plan)
        pf = plan.layout.file
        if pf and Path(pf).stem != Path(a.layout).stem:
            print(f"warning: {a.plan} was planned on {pf}, the ground is {a.layout}")
    else:
        from ..planner.core import make_plan
        from ..rite.loader import load_rite

        plan = make_plan(reading, load_rite(a.rite, zhongbin=a.zhongbin, dafu=a.dafu))
    from ..render.video import resolve_range
    try:                             # check --from/--to before the ground is built
        resolve_range(plan, a.start, a.end)
    except ValueError as e:
        raise InputError(a.plan or "plan", "--from/--to", str(e)) from None
    text = None
    try:
        from ..text import seed as T
        text = T.load()
    except OSError:
        pass
    meshes = ground_meshes(reading)
    try:
        st = render_video(plan, meshes, a.out, size=a.size, fps=a.fps, crf=a.crf, start=a.start, end=a.end,
                          speed=a.speed, frames_dir=a.frames, labels=a.labels, progress=not a.quiet, text=text,
                          cards=not a.no_cards)
    except ValueError as e:          # e.g. event text not matching the seed
        raise InputError(a.plan or "plan", "video", str(e)) from None
    vs = st.get("video_seconds") or 0.0
    secs = st.get("seconds") or 0.0
    print(f"wrote {a.out}")
    print(f"plan {st['plan_start']:.2f}–{st['plan_end']:.2f} s; {st['frames']} frames, "
          f"{vs:.2f} s of video at {a.fps} fps, {a.size[0]}x{a.size[1]}")
    extra = ", ".join(f"{k} {v}" for k, v in st.items()
                      if k not in ("frames", "plan_start", "plan_end", "seconds", "video_seconds"))
    print(f"render {secs:.1f} s = {secs / vs if vs else float('nan'):.2f}× the video's duration"
          + (f" ({extra})" if extra else ""))
    if a.frames:
        print(f"frames in {a.frames}")
    return 0


def register_cli(sub, with_layout) -> None:
    sp = sub.add_parser("video", help="render the plan to an H.264 video (whole passage or an excerpt)")
    with_layout(sp)
    sp.add_argument("--out", type=Path, default=DEFAULT_OUT, help=f"the mp4 (default {DEFAULT_OUT})")
    sp.add_argument("--from", dest="start", type=parse_point, default=None, metavar="X",
                    help="start: footnote number, event id, or plan seconds like 12.5s")
    sp.add_argument("--to", dest="end", type=parse_point, default=None, metavar="X",
                    help="end: footnote number (its last event's end), event id, or 12.5s")
    sp.add_argument("--speed", type=float, default=1.0, help="plan seconds per video second (default 1)")
    sp.add_argument("--size", type=parse_size, default=(1280, 720), metavar="WxH",
                    help=f"frame size: {', '.join(SIZES)} (default 1280x720)")
    sp.add_argument("--fps", type=int, default=25)
    sp.add_argument("--crf", type=int, default=18, help="x264 quality (lower = better, bigger)")
    sp.add_argument("--frames", type=Path, default=None, metavar="DIR", help="also write every frame as PNG")
    sp.add_argument("--labels", action="store_true", help="name tags over heads in every shot")
    sp.add_argument("--no-cards", action="store_true", help="no title and end cards")
    sp.add_argument("--plan", type=Path, default=None, help="render this saved plan instead of planning")
    sp.add_argument("--zhongbin", type=int, default=3, help="number of 衆賓 (default 3)")
    sp.add_argument("--dafu", type=int, default=1, help="number of 大夫 (default 1)")
    sp.add_argument("--rite", type=Path, default=None, help="the rite script (default assets/rite/rite.yaml)")
    sp.add_argument("--quiet", action="store_true", help="no progress bar")
    sp.set_defaults(func=cmd_video)
