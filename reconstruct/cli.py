"""The command line: ``python render.py SUBCOMMAND …`` (also installed as ``xiangshe``).

Sub-commands read the stages in order — text → rite script → reading → plan →
outputs — and never re-derive what an earlier stage says.  Bad input prints one
line (file, place, what is wrong) and exits with status 2.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .errors import InputError
from .layout.reading import Reading, load_reading
from .resources import DEFAULT_LAYOUT

OUT = Path("out")


def _user_errors() -> tuple[type[BaseException], ...]:
    """Error types that mean bad input (one line, exit 2), from the stages that exist."""
    kinds: list[type[BaseException]] = [InputError]
    for mod, name in (("reconstruct.rite.loader", "RiteError"), ("reconstruct.planner.core", "PlanError")):
        try:
            kinds.append(getattr(__import__(mod, fromlist=[name]), name))
        except (ImportError, AttributeError):
            pass
    return tuple(kinds)


def _width(text: str) -> int:
    """Display width in a terminal: CJK characters take two columns."""
    import unicodedata

    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)


def layout_table(reading: Reading) -> str:
    """A readable table of the resolved landmarks."""
    rows = [f"{reading.name} ({reading.name_en}) — {reading.file}",
            f"1 尺 = {reading.units.chi_m} m, 1 步 = {reading.units.bu_m:.3f} m; building: {reading.building_type}; "
            f"hall {reading.hall_height:.2f} m high",
            "",
            f"{'landmark':<10}{'x east':>8} {'y north':>9} {'z':>6} {'facing':>6}  placed by",
            "-" * 78]
    for lm in reading.landmarks.values():
        x, y, z = lm.position
        facing = "" if lm.heading is None else f"{lm.heading:.0f}°"
        name = lm.id + " " * max(1, 10 - _width(lm.id))
        rows.append(f"{name}{x:8.2f} {y:9.2f} {z:6.2f} {facing:>6}  {lm.placed_by}")
    return "\n".join(rows)


def cmd_layout(a: argparse.Namespace) -> int:
    from .outputs import write_json

    reading = load_reading(a.layout)
    print(layout_table(reading))
    if a.json:
        write_json(a.json, {"layout": {"name": reading.name, "file": reading.file},
                            "measures": {"chi_m": reading.units.chi_m, "bu_m": round(reading.units.bu_m, 6)},
                            "landmarks": reading.landmarks_json()})
        print(f"\nwrote {a.json}")
    return 0


def cmd_still(a: argparse.Namespace) -> int:
    from .render.still import render_still

    reading = load_reading(a.layout)
    out = a.out or OUT / f"{Path(a.layout).stem}_{a.view}.png"
    render_still(reading, out, view=a.view, size=tuple(a.size), labels=not a.no_labels)
    print(f"wrote {out}")
    return 0


def cmd_export(a: argparse.Namespace) -> int:
    """GLB/glTF: the ground and the whole animated ceremony (one animation); --static for the ground only.
    OBJ/PLY/STL: the ground."""
    from .exchange.gltf import export_ground

    reading = load_reading(a.layout)
    if not (a.glb or a.obj or a.gltf or a.ply or a.stl):
        a.glb = OUT / f"{Path(a.layout).stem}.glb"
    plan = None
    for fmt in ("glb", "gltf", "obj", "ply", "stl"):
        target = getattr(a, fmt)
        if not target:
            continue
        if fmt in ("glb", "gltf") and not a.static:
            from .exchange.animation import export_animated
            from .planner.core import make_plan
            from .rite.loader import load_rite

            if plan is None:
                plan = make_plan(reading, load_rite(zhongbin=a.zhongbin, dafu=a.dafu))
            export_animated(reading, plan, target, fmt=fmt)
        else:
            export_ground(reading, target, fmt=fmt)
        print(f"wrote {target}")
    return 0


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="render.py", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="command")

    def with_layout(sp: argparse.ArgumentParser) -> None:
        sp.add_argument("layout", nargs="?", default=str(DEFAULT_LAYOUT),
                        help="a reading: a TOML file, or the name of a shipped one (zheng_xuan, ao_jigong, …); "
                             "default: zheng_xuan")

    sp = sub.add_parser("layout", help="print the resolved coordinates of a reading")
    with_layout(sp)
    sp.add_argument("--json", type=Path, help="write the landmarks as JSON (plan-format's `landmarks`)")
    sp.set_defaults(func=cmd_layout)

    sp = sub.add_parser("still", help="render a still PNG of the ground")
    with_layout(sp)
    sp.add_argument("--view", default="overview", help="overview | plan | hall | range | a view named in the reading")
    sp.add_argument("--out", type=Path)
    sp.add_argument("--size", type=int, nargs=2, default=(1280, 720), metavar=("W", "H"))
    sp.add_argument("--no-labels", action="store_true")
    sp.set_defaults(func=cmd_still)

    sp = sub.add_parser("export", help="export the ground as GLB / glTF / OBJ / PLY / STL")
    with_layout(sp)
    for fmt in ("glb", "gltf", "obj", "ply", "stl"):
        sp.add_argument(f"--{fmt}", type=Path)
    sp.add_argument("--static", action="store_true", help="GLB/glTF of the ground only, without the ceremony")
    sp.add_argument("--zhongbin", type=int, default=3, help="number of 衆賓 (default 3)")
    sp.add_argument("--dafu", type=int, default=1, help="number of 大夫 (default 1)")
    sp.set_defaults(func=cmd_export)

    sp = sub.add_parser("script", help="check the rite script against the text (and a reading): coverage, names",
                        add_help=False)
    sp.add_argument("args", nargs=argparse.REMAINDER)
    sp.set_defaults(func=lambda a: __import__("reconstruct.checks.script", fromlist=["main_check"]).main_check(
        [x for x in a.args if x != "--"]))

    for extra in _extra_commands():
        extra(sub, with_layout)
    return p


def _extra_commands():
    """Sub-commands of the later stages, registered by their modules (script, plan, video, check …)."""
    out = []
    for mod in ("planner.core", "render.video_cli", "checks.report"):
        try:
            m = __import__(f"reconstruct.{mod}", fromlist=["register_cli"])
        except ImportError:
            continue
        if hasattr(m, "register_cli"):
            out.append(m.register_cli)
    return out


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    parser = build_parser()
    if not argv:
        argv = ["video"] if "video" in parser._subparsers._group_actions[0].choices else ["still"]
    if argv[0] == "script" and not {"-h", "--help"} & set(argv[1:2]):
        argv = ["script", "--", *argv[1:]]
    a = parser.parse_args(argv)
    if not getattr(a, "func", None):
        parser.print_help()
        return 2
    try:
        return int(a.func(a) or 0)
    except _user_errors() as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted; no output written", file=sys.stderr)
        return 130
