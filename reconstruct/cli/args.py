"""The command line's argument types and the stages each command loads or plans (see :mod:`reconstruct.cli`)."""
from __future__ import annotations

import argparse
import re
from pathlib import Path

from ..model.defaults import (DAFU, DAFU_RANGE, FRAME_MAX, FRAME_MIN, FRAME_SIZES, PART, PARTS, ZHONGBIN, ZHONGBIN_RANGE,
                              frame_size_problem, size_text)
from ..resources import DEFAULT_LAYOUT

OUT = Path("out")
DEFAULT_VIDEO = OUT / "xiangshe.mp4"


# ---------------------------------------------------------------------------
# argument types

def _number(kind: type, lo: float, hi: float, what: str):
    """An argparse type: a number of ``kind`` within [lo, hi] (``what`` says the range on refusal)."""
    def parse(value: str):
        try:
            v = kind(value)
        except ValueError:
            raise argparse.ArgumentTypeError(
                f"{value!r} is not a {'whole ' if kind is int else ''}number") from None
        if not lo <= v <= hi:
            raise argparse.ArgumentTypeError(f"{value!r}: {what}")
        return v
    return parse


positive_int = _number(int, 1, 10**6, "must be 1 or more")
dafu = _number(int, *DAFU_RANGE, "must be between {} and {}".format(*DAFU_RANGE))
zhongbin = _number(int, *ZHONGBIN_RANGE, "must be between {} and {}".format(*ZHONGBIN_RANGE))
positive_float = _number(float, 1e-6, 1e6, "must be a positive number")
crf = _number(int, 0, 51, "x264's quality runs from 0 to 51")


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
    """A frame size ``WxH``: any even width and height within the limits (video and stills alike)."""
    m = re.fullmatch(r"(\d{1,6})x(\d{1,6})", value.strip())
    if not m:
        raise argparse.ArgumentTypeError(f"{value!r}: size is WxH, even, from {FRAME_MIN}x{FRAME_MIN} to "
                                         f"{size_text(FRAME_MAX)} (e.g. {', '.join(map(size_text, FRAME_SIZES))})")
    w, h = int(m.group(1)), int(m.group(2))
    problem = frame_size_problem(w, h)
    if problem:
        raise argparse.ArgumentTypeError(f"{value!r}: {problem}")
    return w, h


def option(value: str) -> tuple[str, str]:
    if "=" not in value:
        raise argparse.ArgumentTypeError(f"{value!r}: write NAME=CHOICE")
    k, v = value.split("=", 1)
    return k.strip(), v.strip()


# ---------------------------------------------------------------------------
# the stages, loaded or planned

def load_reading(layout):
    from ..layout import load_reading as load
    return load(layout)


def load_cast(a: argparse.Namespace, reading=None):
    """The rite script with the cast and options the command line asks for (the script's own
    parameters where it does not; the reading's choices of the interpretive options where it names
    none)."""
    from ..rite.loader import load_part
    return load_part(getattr(a, "part", PART), a.rite, zhongbin=a.zhongbin, dafu=a.dafu,
                     options=dict(a.option or ()), reading=reading)


def plan_of(a: argparse.Namespace, reading=None):
    """The plan a command works on: the saved one given with ``--plan``, else the reading planned."""
    from ..model.plan import Plan
    if getattr(a, "plan", None):
        return Plan.load(a.plan)
    from ..planner import make_plan
    reading = reading if reading is not None else load_reading(a.layout)
    return make_plan(reading, load_cast(a, reading))


def plan_texts(plan) -> dict[str, str]:
    """The texts a plan's spans are offsets into, by their logical names: the plan's own (``text.file``) and any
    an event names (``text_file``: the whole chapter's first half); the shipped seed where the plan names none."""
    from ..resources import data_path, logical_name
    from ..text import seed
    names = {plan.text.get("file") or logical_name(seed.SEED)} | {e.text_file for e in plan.events if e.text_file}
    out = {}
    for n in sorted(names):
        p = data_path(n)
        out[n] = p.read_text(encoding="utf-8") if p.is_file() else seed.load()
    return out


def _with_layout(sp: argparse.ArgumentParser) -> None:
    sp.add_argument("layout", nargs="?", default=str(DEFAULT_LAYOUT),
                    help="a reading: a TOML file, or the name of a shipped one (zheng_xuan, ao_jigong, …); "
                         "default: zheng_xuan")


def _with_cast(sp: argparse.ArgumentParser, saved_plan: bool = True) -> None:
    g = sp.add_argument_group("the rite (when planning)")
    g.add_argument("--zhongbin", type=zhongbin, default=None, help=f"number of 衆賓 (default: the rite's, {ZHONGBIN})")
    g.add_argument("--dafu", type=dafu, default=None, help=f"number of 大夫 (default: the rite's, {DAFU})")
    g.add_argument("--option", type=option, action="append", default=[], metavar="NAME=CHOICE",
                   help="an interpretive option of the rite script (e.g. victor=左)")
    g.add_argument("--rite", type=Path, default=None, help="the rite script (default: the shipped one)")
    g.add_argument("--part", choices=PARTS, default=PART,
                   help="which part of the chapter: the passage (from the count of the second round, (80); the "
                        "default), the first half (戒賓 … up to it), or the whole chapter as one ceremony")
    if saved_plan:
        g.add_argument("--plan", type=Path, default=None, help="a saved plan (xiangshe-plan/1) instead of planning")


# ---------------------------------------------------------------------------
# commands

def outputs_ok(*targets, folders=()) -> None:
    """Before any work: each output file (and output folder) can be written where asked."""
    from ..outputs import check_folder, check_target
    for t in targets:
        if t:
            check_target(t)
    for d in folders:
        if d:
            check_folder(d)
