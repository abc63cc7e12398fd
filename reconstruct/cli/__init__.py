"""The command line: ``python render.py SUBCOMMAND …``, ``python -m reconstruct …`` or ``xiangshe …``.

Every argument is declared here, once; the commands read the stages in order — text → rite script
→ reading → plan → outputs — and never re-derive what an earlier stage says.  Bad input prints one
line (file, place, what is wrong) and exits with status 2; an internal error (a bug) prints one line
asking for a report (``--debug`` shows the traceback).
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..errors import InputError
from ..model.defaults import FPS, FRAME_MAX, FRAME_SIZE, FRAME_SIZES, STILL_VIEWS, size_text



from .args import (DEFAULT_VIDEO, OUT, _with_cast, _with_layout, crf, load_cast, load_reading, plan_texts,  # noqa: F401
                   outputs_ok, parse_point, parse_size, plan_of, positive_float, positive_int)


def cmd_layout(a: argparse.Namespace) -> int:
    from ..layout.table import layout_table
    from ..outputs import write_json

    outputs_ok(a.json)
    if a.list:
        from ..layout import list_readings
        for p in list_readings():
            r = load_reading(p)
            print(f"{p.stem:<18} {r.name} ({r.name_en})")
        return 0
    reading = load_reading(a.layout)
    print(layout_table(reading))
    if a.json:
        write_json(a.json, {"layout": {"name": reading.name, "file": reading.file},
                            "measures": {"chi_m": reading.units.chi_m, "bu_m": round(reading.units.bu_m, 6)},
                            "landmarks": reading.landmarks_json()})
        print(f"\nwrote {a.json}")
    return 0


def cmd_still(a: argparse.Namespace) -> int:
    from ..outputs import safe_name

    outputs_ok(a.out)
    reading = load_reading(a.layout)
    if a.object:
        return _object_plate(a, reading)
    name = a.view.removeprefix("reading:")
    if a.view not in STILL_VIEWS and name not in reading.views:
        raise InputError("--view", a.view, f"no such view; one of {', '.join(STILL_VIEWS)}"
                         + "".join(f", {v}" for v in reading.views if v not in STILL_VIEWS))
    from ..render.still import render_still      # (the renderer loaded once the view is known: seconds)
    out = a.out or OUT / f"{Path(reading.file).stem}_{safe_name(a.view)}{'_evidence' if a.evidence else ''}.png"
    outputs_ok(out)
    render_still(reading, out, view=a.view, size=a.size, labels=not a.no_labels, evidence=a.evidence)
    print(f"wrote {out}")
    return 0


def cmd_export(a: argparse.Namespace) -> int:
    """GLB/glTF: the ground and the whole animated ceremony (one animation); --static for the ground only;
    --rig for the rigged scene (an armature and an animation per person, the film's camera), --from/--to
    for an excerpt of it.  OBJ/PLY/STL: the ground.  --blender-script: the Blender set-up script."""
    import time

    from ..exchange.gltf import export_ground

    outputs_ok(a.glb, a.gltf, a.obj, a.ply, a.stl, a.blender_script)
    if (a.start is not None or a.end is not None) and not a.rig:
        raise InputError("export", "--from/--to", "an excerpt is exported with --rig")
    if a.rig and a.static:
        raise InputError("export", "--rig", "--static writes the ground only; leave out one of them")
    if a.blender_script:
        from ..exchange.blender import write_blender_script
        from ..render.frames import ROOF_NODES, SKY, SUN_COLOR, SUN_DIR
        write_blender_script(a.blender_script, glb=a.glb or a.gltf, sun_dir=SUN_DIR, sun_rgb=SUN_COLOR, sky=SKY,
                             roof=ROOF_NODES)
        print(f"wrote {a.blender_script}")
        if not (a.glb or a.obj or a.gltf or a.ply or a.stl):
            return 0
    reading = load_reading(a.layout)
    if not (a.glb or a.obj or a.gltf or a.ply or a.stl):
        a.glb = OUT / f"{Path(reading.file).stem}.glb"
        outputs_ok(a.glb)
    plan = None
    for fmt in ("glb", "gltf", "obj", "ply", "stl"):
        target = getattr(a, fmt)
        if not target:
            continue
        t_wall = time.perf_counter()
        if fmt in ("glb", "gltf") and a.rig:
            from ..exchange.rig import export_rigged
            plan = plan if plan is not None else plan_of(a, reading)
            try:
                t0, t1 = plan.time_of(a.start), min(plan.time_of(a.end, end=True), plan.duration)
            except ValueError as e:
                raise InputError(a.plan or "plan", "--from/--to", str(e)) from None
            if not 0 <= t0 < t1:
                raise InputError(a.plan or "plan", "--from/--to", f"the excerpt {t0:.2f}–{t1:.2f} s is empty or "
                                                                   f"outside the passage (0–{plan.duration:.2f} s)")
            st = export_rigged(reading, plan, target, fmt=fmt, window=(t0, t1) if (t0 > 0 or t1 < plan.duration)
                               else None)
            print(f"rigged: {st['people']} people ({st['joints']} joints), {st['props']} props, "
                  f"{st['animations']} animations, {st['keys']} keys, {st['shots']} shots ({st['cuts']} cuts), "
                  f"{st['events']} events, plan {t0:.2f}–{t1:.2f} s")
        elif fmt in ("glb", "gltf") and not a.static:
            from ..exchange.animation import export_animated
            plan = plan if plan is not None else plan_of(a, reading)
            export_animated(reading, plan, target, fmt=fmt, camera=a.camera)
        else:
            export_ground(reading, target, fmt=fmt)
        print(f"wrote {target} ({Path(target).stat().st_size / 1e6:.2f} MB, {time.perf_counter() - t_wall:.1f} s)")
    return 0


def cmd_web(a: argparse.Namespace) -> int:
    """One self-contained offline HTML page: the animated ceremony, scrubbable and captioned."""
    import time

    from ..web import write_page

    t0 = time.perf_counter()
    outputs_ok(a.out)
    if a.compare:
        return _web_compare(a, t0)
    cut = _attract_cut(a.attract)
    reading = load_reading(a.layout)
    plan = plan_of(a, reading)
    stats = write_page(reading, plan, a.out, attract=_attract_clips(plan, cut),
                       alternatives=_alternatives(plan))
    print(f"wrote {a.out}")
    for line in stats.lines():
        print(line)
    print(f"built in {time.perf_counter() - t0:.1f} s (page {stats.seconds:.1f} s)")
    return 0


def _attract_cut(name):
    """The cut whose clips the page's attract loop plays (None: the whole passage)."""
    if name in (None, "", "none"):
        return None
    from ..render.cut import load_cut
    return load_cut(name)


def _attract_clips(plan, cut) -> list[dict] | None:
    """The attract loop's clips: each clip of the cut as plan seconds (the film's camera is the page's own
    camera path, the one the video is filmed with)."""
    if cut is None:
        return None
    from ..render.cut import clip_range
    clips = []
    for i, c in enumerate(cut.clips):
        try:
            t0, t1 = clip_range(plan, c, f"{cut.file}: clip {i + 1}")
        except ValueError as e:
            raise InputError(cut.file, f"clip {i + 1}", str(e).split(": ", 2)[-1]) from None
        clips.append({"start": t0, "end": t1, "speed": c.speed, "chapter": c.chapter})
    return clips


def _alternatives(plan) -> dict:
    """Where the shipped readings other than the plan's put each of its landmarks (the page's evidence view):
    landmark → reading → {position, evidence, from_here_m}."""
    from ..layout import alternative_places, list_readings
    mine = Path(plan.layout.file).stem
    others = [load_reading(path) for path in list_readings() if path.stem != mine]
    where = alternative_places(plan.landmarks, {r.name: r for r in others})
    return {k: {n: e for n, e in v.items() if e is not None} for k, v in where.items()
            if any(e is not None for e in v.values())}


def _web_compare(a: argparse.Namespace, t0: float) -> int:
    """``web --compare A B``: one page playing both plans on one timeline (A solid, B a ghost) with the
    differences ``compare`` finds, each a link to its moment."""
    import time

    from ..checks.report import compare
    from ..web.compare import write_compare_page

    (ra, pa), (rb, pb) = (_reading_and_plan(a, x) for x in a.compare)
    c = compare(pa, pb)
    stats = write_compare_page((ra, pa), (rb, pb), c, a.out)
    print(f"wrote {a.out}")
    for line in stats.lines():
        print(line)
    print(f"built in {time.perf_counter() - t0:.1f} s")
    return 0


def _reading_and_plan(a: argparse.Namespace, source: str):
    """A reading and its plan from a plan JSON file (its reading named in it) or a reading (planned here)."""
    from ..model.plan import Plan
    if source.lower().endswith(".json"):
        plan = Plan.load(source)
        name = plan.layout.file or plan.layout.name
        try:
            reading = load_reading(name)
        except InputError:
            reading = load_reading(Path(name).stem)
        return reading, plan
    reading = load_reading(source)
    return reading, plan_of(argparse.Namespace(**{**vars(a), "layout": source, "plan": None}), reading)


def cmd_script(a: argparse.Namespace) -> int:
    import json

    from ..checks.script import check, report_lines

    rep = check(a.rite, zhongbin=a.zhongbin, dafu=a.dafu, options=dict(a.option or ()), layout=a.layout,
                part=a.part)
    ok = (rep["coverage"] >= 1.0 and not rep["unresolved"] and rep["text_matches_shared_seed"]
          and not rep["caption_only"])
    print(json.dumps(rep, ensure_ascii=False, indent=1) if a.json else "\n".join(report_lines(rep)))
    return 0 if ok else 1


def cmd_plan(a: argparse.Namespace) -> int:
    from ..planner import Planner, summary

    outputs_ok(a.json)
    reading = load_reading(a.layout)
    planner = Planner(reading, load_cast(a, reading))
    plan = planner.run()
    print(summary(plan))
    waits = sorted(((d, b.id, ev) for b in planner.bodies.values() for d, ev in b.waited), reverse=True)[:5]
    if waits:
        print("longest waits: " + ", ".join(f"{who} {d:.1f} s ({ev})" for d, who, ev in waits))
    if a.explain:
        print("\n".join(planner.explain))
    if a.json:
        plan.save(a.json)
        print(f"wrote {a.json}")
    return 0


def cmd_shots(a: argparse.Namespace) -> int:
    from collections import Counter

    from ..outputs import write_json
    from ..scene.shots import camera_path

    outputs_ok(a.json)
    plan = plan_of(a)
    path = camera_path(plan, a.size)
    kinds = Counter(s.kind for s in path.shots)
    secs = Counter()
    for s in path.shots:
        secs[s.kind] += s.t1 - s.t0
    print(f"{len(path.shots)} shots over {plan.duration:.1f} s at {a.size[0]}x{a.size[1]}: "
          + ", ".join(f"{k} {kinds[k]} ({100 * secs[k] / max(1e-9, plan.duration):.0f} %)" for k in sorted(kinds)))
    if a.json:
        write_json(a.json, path.to_dict(a.size))
        print(f"wrote {a.json}")
    return 0


def cmd_video(a: argparse.Namespace) -> int:
    from ..render.engine import Interrupted
    from ..render.video import render_video
    from ..scene.ground import ground_meshes
    from ..text import seed

    outputs_ok(a.out, folders=[a.frames])
    camera = None
    if a.camera:                     # a camera path file: read (and refused) before any planning
        from ..scene.shots import CameraPath
        camera = CameraPath.load(a.camera)
    reading = load_reading(a.layout)
    plan = plan_of(a, reading)
    if a.plan and plan.layout.file and Path(plan.layout.file).stem != Path(reading.file).stem:
        print(f"warning: {a.plan} was planned on {plan.layout.file}, the ground is {reading.file}")
    try:                             # check --from/--to before the ground is built
        t0, t1 = plan.time_of(a.start), plan.time_of(a.end, end=True)
    except ValueError as e:
        raise InputError(a.plan or "plan", "--from/--to", str(e)) from None
    if t0 >= plan.duration:
        raise InputError(a.plan or "plan", "--from/--to", f"the excerpt starts at {t0:.2f} s, after the passage "
                                                           f"ends ({plan.duration:.2f} s)")
    if t1 <= t0:
        raise InputError(a.plan or "plan", "--from/--to", f"the excerpt ends ({t1:.2f} s) before it starts ({t0:.2f} s)")
    cut = None
    if a.cut:
        from ..render.cut import clip_range, load_cut
        cut = load_cut(a.cut)
        for i, c in enumerate(cut.clips):            # every clip in the plan, before anything is rendered
            try:
                clip_range(plan, c)
            except ValueError as e:
                raise InputError(cut.file, f"clip[{i}].at", str(e).lstrip(": ")) from None
    if a.evidence and (a.deliver or cut is not None):
        raise InputError("video", "--evidence", "the evidence view is a plain video: leave out --deliver/--cut")
    if a.deliver:
        return _deliver(a, plan, ground_meshes(reading, plan.props), cut)
    if cut is not None:
        return _cut(a, plan, ground_meshes(reading, plan.props), cut)
    try:
        st = render_video(plan, ground_meshes(reading, plan.props, evidence=a.evidence), a.out, size=a.size, fps=a.fps, crf=a.crf, start=a.start,
                          end=a.end, speed=a.speed, frames_dir=a.frames, labels=a.labels, progress=not a.quiet,
                          text=plan_texts(plan), cards=not a.no_cards, workers=a.workers, scheduler=a.scheduler,
                          fresh=a.fresh, chunk_seconds=a.chunk_seconds, sound=not a.no_sound, camera=camera,
                          evidence=a.evidence, supersample=a.supersample)
    except ValueError as e:          # e.g. event text not matching the seed
        raise InputError(a.plan or "plan", "video", str(e)) from None
    except Interrupted as e:         # SIGINT/SIGTERM: finished chunks are kept for a rerun
        print(f"stopped ({e}); finished chunks kept beside {a.out}: run the same command again to resume",
              file=sys.stderr)
        return 128 + int(e.signum)
    vs, secs = st.get("video_seconds") or 0.0, st.get("seconds") or 0.0
    print(f"wrote {a.out}")
    print(f"plan {st['plan_start']:.2f}–{st['plan_end']:.2f} s; {st['frames']} frames, "
          f"{vs:.2f} s of video at {a.fps} fps, {a.size[0]}x{a.size[1]}")
    extra = ", ".join(f"{k} {v}" for k, v in st.items()
                      if k not in ("frames", "plan_start", "plan_end", "seconds", "video_seconds", "captions"))
    print(f"render {secs:.1f} s = {secs / vs if vs else float('nan'):.2f}× the video's duration"
          + (f" ({extra})" if extra else ""))
    if a.frames:
        print(f"frames in {a.frames}")
    return 0


def cmd_check(a: argparse.Namespace) -> int:
    from ..checks.report import check_table, run_check
    from ..outputs import write_json

    outputs_ok(a.json)
    plan = plan_of(a)
    results = run_check(plan, a.catalogue)
    print(check_table(results, plan))
    if a.json:
        write_json(a.json, {"layout": plan.layout.to_dict(), "results": [r.as_json() for r in results],
                            "failed_required": [r.statement.id for r in results if r.failed_required]})
        print(f"\nwrote {a.json}")
    return 1 if any(r.failed_required for r in results) else 0


def cmd_compare(a: argparse.Namespace) -> int:
    from ..checks.report import compare, compare_table
    from ..model.plan import Plan
    from ..outputs import safe_name, write_json
    from ..render.diagram import overlay

    out = Path(a.out) if a.out else OUT / f"compare_{safe_name(Path(a.a).stem)}_{safe_name(Path(a.b).stem)}.svg"
    outputs_ok(out, out.with_suffix(".png"), a.json)
    pa = Plan.load(a.plan_a) if a.plan_a else plan_of(argparse.Namespace(**{**vars(a), "layout": a.a, "plan": None}))
    pb = Plan.load(a.plan_b) if a.plan_b else plan_of(argparse.Namespace(**{**vars(a), "layout": a.b, "plan": None}))
    c = compare(pa, pb)
    print(compare_table(c))
    overlay(pa, pb, pa.layout.name or "A", pb.layout.name or "B").save(out, out.with_suffix(".png"))
    print(f"\nwrote {out} and {out.with_suffix('.png')}")
    if a.json:
        write_json(a.json, c)
        print(f"wrote {a.json}")
    return 0


def cmd_diagram(a: argparse.Namespace) -> int:
    from ..checks.report import diagram_at, diagram_booklet
    from ..outputs import safe_name

    outdir = Path(a.out) if a.out else OUT / "diagrams"
    outputs_ok(folders=[outdir])
    if not a.all and not a.at:
        raise InputError("diagram", "", "give --at EVENT|FOOTNOTE or --all")
    part = getattr(a, "part", "passage")
    by = a.by or ("paragraph" if part == "passage" else "step")
    if a.all and by == "paragraph" and part != "passage":
        raise InputError("diagram", "--by", "one diagram per paragraph is the passage's: give --by step with "
                                            f"--part {part}")
    if a.all and by == "step":
        from ..checks import lijietu
        lijietu.load()                      # the steps' file is checked before planning
    plan = plan_of(a)
    stem = safe_name(a.stem) if a.stem else safe_name(Path(plan.layout.file or a.layout).stem)
    if a.all and by == "step":
        from ..checks.report import lijietu_booklet, lijietu_summary
        if not a.stem:
            stem += "_lijietu" + ("" if part == "passage" else f"_{part}")
        book = lijietu_booklet(plan, part, outdir, stem)
        print(f"wrote {len(book['pages'])} diagrams (the 義疏's 禮節圖 steps) and {outdir / (stem + '.html')}")
        print(lijietu_summary(book["results"]))
        return 0
    if a.all:
        pages = diagram_booklet(plan, outdir, stem)
        print(f"wrote {len(pages)} diagrams and {outdir / (stem + '.html')}")
        return 0
    svg = diagram_at(plan, a.at, outdir, stem, since_previous=a.since_previous)
    print(f"wrote {svg} and {svg.with_suffix('.png')}")
    return 0


def cmd_report(a: argparse.Namespace) -> int:
    """``report [LAYOUT]``: the paradata report (checks/paradata.py), one self-contained HTML page."""
    from ..checks.paradata import write_report
    from ..outputs import safe_name, write_json
    from ..rite import load_rite_with_report

    reading = load_reading(a.layout)
    stem = safe_name(Path(reading.file).stem)
    out = Path(a.out) if a.out else OUT / f"report_{stem}.html"
    outputs_ok(out, a.json)
    plan = plan_of(a, reading)
    other_name = a.other or ("ao_jigong" if stem == "zheng_xuan" else "zheng_xuan")
    other = plan_of(argparse.Namespace(**{**vars(a), "plan": None}), load_reading(other_name)) if a.other != "none" else None
    decl = load_rite_with_report(a.rite, reading=reading)[1]["option_decl"]
    replan = None
    if a.replan:
        from ..planner import make_plan

        def replan(variant):
            return make_plan(variant, load_cast(a, variant))
        known = set(reading.dimensions)
        for k in a.replan:
            if k not in known:
                raise InputError("--replan", k, f"not a dimension of this reading; one of {', '.join(sorted(known))}"[:300])
    d = write_report(a.layout, plan, out, other=other, option_decl=decl, replan=replan, replan_keys=tuple(a.replan))
    print(f"wrote {out}: {len(d['sources'])} sources, {len(d['dimensions'])} dimensions, {len(d['dependencies'])} "
          f"changes tried, {len(d['landmarks'])} landmarks, {len(d['checks'])} statements")
    if a.json:
        write_json(a.json, d)
        print(f"wrote {a.json}")
    return 0


# ---------------------------------------------------------------------------
# the parser

def _layout_parser(sub) -> None:
    sp = sub.add_parser("layout", help="print the resolved coordinates of a reading")
    _with_layout(sp)
    sp.add_argument("--json", type=Path, help="write the landmarks as JSON (plan-format's `landmarks`)")
    sp.add_argument("--list", action="store_true", help="list the shipped readings")
    sp.set_defaults(func=cmd_layout)

def _object_plate(a: argparse.Namespace, reading) -> int:
    """``still --object NAME``: a catalogue plate of one thing of the rite (render/plates.py)."""
    from ..outputs import safe_name
    from ..render.plates import PLATES, render_plate
    from ..scene.ground import build_ground

    if a.object not in PLATES:
        raise InputError("--object", a.object, f"no such object; one of {', '.join(PLATES)}")
    out = a.out or OUT / f"object_{safe_name(a.object)}.png"
    outputs_ok(out)
    hou, hits, note = None, (), ""
    if a.object == "侯":
        hou = [p for p in build_ground(reading) if p.landmark in ("侯", "侯中") and p.node != "L_hou_gang"]
        plan = plan_of(a, reading)
        last = max((s.round for s in plan.shots), default=0)
        hits = [s.at for s in plan.shots if s.hit and s.round == last]
        note = f"the {len(hits)} hits of round {last} where the plan lands them ({Path(reading.file).stem})"
    render_plate(a.object, out, size=a.size, hou_parts=hou, hits=hits, footer=note)
    print(f"wrote {out}")
    return 0


def _still_parser(sub) -> None:
    sp = sub.add_parser("still", help="render a still PNG of the ground")
    _with_layout(sp)
    sp.add_argument("--view", default="overview", help=f"{' | '.join(STILL_VIEWS)} | a view named in the reading")
    sp.add_argument("--out", type=Path)
    sp.add_argument("--size", type=parse_size, default=FRAME_SIZE, metavar="WxH",
                    help=f"image size: any even WxH up to {size_text(FRAME_MAX)} (default {size_text(FRAME_SIZE)})")
    sp.add_argument("--no-labels", action="store_true")
    sp.add_argument("--evidence", action="store_true",
                    help="the evidence view: the ground coloured by what each thing rests on (the text, 鄭, 賈, a later "
                         "reading, an excavation, CHOSEN), with a legend")
    sp.add_argument("--object", default=None, metavar="NAME",
                    help="a catalogue plate of one thing of the rite instead: 鹿中 | 翿旌 | 侯 | 楅")
    _with_cast(sp)
    sp.set_defaults(func=cmd_still)

def _export_parser(sub) -> None:
    sp = sub.add_parser("export", help="the ground and the animated ceremony as GLB / glTF (or the ground as OBJ / PLY / STL)")
    _with_layout(sp)
    for fmt in ("glb", "gltf", "obj", "ply", "stl"):
        sp.add_argument(f"--{fmt}", type=Path)
    sp.add_argument("--static", action="store_true", help="GLB/glTF of the ground only, without the ceremony")
    sp.add_argument("--rig", action="store_true",
                    help="rigged people for Blender: an armature, a skinned mesh and an animation per person, "
                         "the props' and the film camera's animations")
    sp.add_argument("--from", dest="start", type=parse_point, default=None, metavar="X",
                    help="(with --rig) start: footnote number, event id, or plan seconds like 12.5s")
    sp.add_argument("--to", dest="end", type=parse_point, default=None, metavar="X",
                    help="(with --rig) end: footnote number (its last event's end), event id, or 12.5s")
    sp.add_argument("--blender-script", type=Path, default=None, metavar="F.py",
                    help="write the Blender set-up script (import the GLB, 25 fps, markers, camera, sun; save a .blend)")
    sp.add_argument("--camera", action="store_true",
                    help="add a camera node following the video's camera path (docs/camera-path.md)")
    _with_cast(sp)
    sp.set_defaults(func=cmd_export)

def _web_parser(sub) -> None:
    sp = sub.add_parser("web", help="the animated ceremony as one offline HTML page (three.js, captions, scrubber)")
    _with_layout(sp)
    sp.add_argument("--out", type=Path, default=OUT / "xiangshe.html", help="the page (default out/xiangshe.html)")
    sp.add_argument("--attract", default="gallery", metavar="CUT",
                    help="the cut whose clips the kiosk's attract loop plays after a minute without input (a shipped "
                         "cut's name or a cut file; 'none': the whole passage); docs/web.md")
    sp.add_argument("--compare", nargs=2, metavar=("A", "B"),
                    help="two readings or two saved plans (.json): one page playing both on one timeline, A solid and "
                         "B a ghost, with the differences `compare` finds (docs/web.md)")
    _with_cast(sp)
    sp.set_defaults(func=cmd_web)


def _script_parser(sub) -> None:
    sp = sub.add_parser("script", help="check the rite script against the text (and a reading): coverage, names")
    sp.add_argument("--check", action="store_true", help="(the only thing it does; accepted for clarity)")
    sp.add_argument("--json", action="store_true", help="print the report as JSON")
    sp.add_argument("--layout", default=None, help="a reading whose landmarks the script's place names must resolve to")
    _with_cast(sp, saved_plan=False)
    sp.set_defaults(func=cmd_script)

def _plan_parser(sub) -> None:
    sp = sub.add_parser("plan", help="plan the whole passage on a reading (xiangshe-plan/1)")
    _with_layout(sp)
    sp.add_argument("--json", type=Path, help="write the plan")
    sp.add_argument("--explain", action="store_true", help="why each path goes where it goes")
    _with_cast(sp, saved_plan=False)
    sp.set_defaults(func=cmd_plan)

def _shots_parser(sub) -> None:
    sp = sub.add_parser("shots", help="the camera path: its shots and keys (xiangshe-camera/1, docs/camera-path.md)")
    _with_layout(sp)
    sp.add_argument("--json", type=Path, help="write the camera path")
    sp.add_argument("--size", type=parse_size, default=FRAME_SIZE, metavar="WxH",
                    help=f"the frame the shots are fitted to (default {size_text(FRAME_SIZE)})")
    _with_cast(sp)
    sp.set_defaults(func=cmd_shots)


def _cut(a: argparse.Namespace, plan, ground, cut) -> int:
    """``video --cut NAME``: the film of render/cut.py."""
    from ..render.cut import render_cut
    from ..render.engine import Interrupted
    from ..text import seed

    try:
        st = render_cut(plan, ground, a.out, cut, size=a.size, fps=a.fps, crf=a.crf, progress=not a.quiet,
                        workers=a.workers, scheduler=a.scheduler, fresh=a.fresh, text=plan_texts(plan),
                        overlays="cut", supersample=a.supersample)
    except ValueError as e:
        raise InputError(cut.file, "", str(e)) from None
    except Interrupted as e:
        print(f"stopped ({e}); finished clips kept: run the same command again to resume", file=sys.stderr)
        return 128 + int(e.signum)
    print(f"wrote {a.out}: the cut {cut.name}, {st['clips']} clips, {st['video_seconds']:.1f} s, "
          f"{len(st['chapters'])} chapters")
    return 0


def _deliver(a: argparse.Namespace, plan, ground, cut=None) -> int:
    """``video --deliver NAME``: the masters, captions and report of render/delivery.py; exit 1 when a
    measured figure is outside the spec."""
    from ..render.delivery import DELIVERIES, deliver, package_paths
    from ..render.engine import Interrupted
    from ..text import seed

    spec = DELIVERIES[a.deliver]
    if a.fps not in spec.fps:
        raise InputError("--fps", str(a.fps), f"the {spec.name} delivery plays at "
                         + " or ".join(map(str, spec.fps)) + " fps")
    paths = package_paths(a.out)
    outputs_ok(*paths.values())
    try:
        rep = deliver(plan, ground, a.out, spec, fps=a.fps, cut=cut, start=a.start, end=a.end, speed=a.speed,
                      frames_dir=a.frames, progress=not a.quiet, text=plan_texts(plan), cards=not a.no_cards,
                      workers=a.workers, scheduler=a.scheduler, fresh=a.fresh, chunk_seconds=a.chunk_seconds,
                      supersample=a.supersample)
    except ValueError as e:
        raise InputError(a.plan or "plan", "video --deliver", str(e)) from None
    except Interrupted as e:
        print(f"stopped ({e}); finished chunks kept: run the same command again to resume", file=sys.stderr)
        return 128 + int(e.signum)
    for c in rep["checks"]:
        print(f"{'ok ' if c['pass'] else 'BAD'} {c['what']}: {c['measured']} (spec {c['spec']})")
    print(f"wrote {', '.join(str(p) for p in paths.values())}")
    return 0 if rep["ok"] else 1


def _video_parser(sub) -> None:
    sp = sub.add_parser("video", help="render the plan to an H.264 video (whole passage or an excerpt)")
    _with_layout(sp)
    sp.add_argument("--out", type=Path, default=DEFAULT_VIDEO, help=f"the mp4 (default {DEFAULT_VIDEO})")
    sp.add_argument("--from", dest="start", type=parse_point, default=None, metavar="X",
                    help="start: footnote number, event id, or plan seconds like 12.5s")
    sp.add_argument("--to", dest="end", type=parse_point, default=None, metavar="X",
                    help="end: footnote number (its last event's end), event id, or 12.5s")
    sp.add_argument("--speed", type=positive_float, default=1.0, help="plan seconds per video second (default 1)")
    sp.add_argument("--evidence", action="store_true",
                    help="the evidence view: the ground and the things coloured by what each rests on (the text, 鄭, 賈, a "
                         "later reading, an excavation, CHOSEN), a legend, and a tag on each act that rests on an option")
    sp.add_argument("--size", type=parse_size, default=FRAME_SIZE, metavar="WxH",
                    help=f"frame size: any even WxH up to {size_text(FRAME_MAX)}, e.g. "
                         f"{', '.join(map(size_text, FRAME_SIZES))} (default {size_text(FRAME_SIZE)})")
    sp.add_argument("--fps", type=positive_int, default=FPS)
    sp.add_argument("--crf", type=crf, default=18, help="x264 quality, 0–51 (lower = better, bigger)")
    sp.add_argument("--frames", type=Path, default=None, metavar="DIR", help="also write every frame as PNG")
    sp.add_argument("--labels", action="store_true", help="name tags over heads in every shot")
    sp.add_argument("--camera", type=Path, default=None, metavar="F",
                    help="film with this camera path (render.py shots --json; default: the plan's own)")
    sp.add_argument("--no-cards", action="store_true", help="no title and end cards")
    sp.add_argument("--supersample", type=int, choices=[1, 2], default=2,
                    help="the people drawn at 2 (default) or 1 times the frame size per axis: 1 is faster, "
                         "with jagged edges and broken bow strings")
    sp.add_argument("--no-sound", action="store_true",
                    help="no soundtrack (by default: the drum's beat while the round is shot to music, "
                         "the strings and the hits, a quiet ambience; AAC stereo)")
    sp.add_argument("--quiet", action="store_true", help="no progress bar")
    sp.add_argument("--workers", type=positive_int, default=None, metavar="N",
                    help="render processes; more than 1 starts a local Dask cluster (default: 2 on long renders)")
    sp.add_argument("--scheduler", default=None, metavar="tcp://HOST:PORT",
                    help="send the chunks to a running Dask scheduler (its workers need this package installed "
                         "and the output folder shared)")
    sp.add_argument("--fresh", action="store_true", help="forget finished chunks kept from an earlier run")
    sp.add_argument("--chunk-seconds", type=positive_float, default=10.0, metavar="S",
                    help="video seconds per chunk (default 10)")
    sp.add_argument("--cut", default=None, metavar="NAME|FILE",
                    help="a film edited from the plan by a cut file: gallery (assets/cuts/gallery.toml: about "
                         "6.5 minutes, dissolves, a title card, chapters, loops without a seam) or a TOML file "
                         "of the same form; --from/--to do not apply")
    sp.add_argument("--deliver", choices=["museum"], default=None,
                    help="a delivery package beside --out: museum = a clean and an open-captioned master at "
                         "1920x1080, 25 fps (or --fps 50), H.264 High 15 Mb/s constant, AAC-LC 48 kHz 192 kb/s, "
                         "-23 LUFS, true peak under -1 dBTP; SRT and WebVTT captions (zh, en); a report measured "
                         "on the files (JSON and HTML). --size, --crf, --labels and --no-sound do not apply")
    _with_cast(sp)
    sp.set_defaults(func=cmd_video)

def _check_parser(sub) -> None:
    sp = sub.add_parser("check", help="test a reading against the text's spatial statements")
    _with_layout(sp)
    sp.add_argument("--json", type=Path, help="write the results as JSON")
    sp.add_argument("--catalogue", type=Path, help="another statements catalogue (default: the shipped one)")
    _with_cast(sp)
    sp.set_defaults(func=cmd_check)

def _compare_parser(sub) -> None:
    sp = sub.add_parser("compare", help="what moves between two readings; overlay diagram")
    sp.add_argument("a")
    sp.add_argument("b")
    sp.add_argument("--plan-a", type=Path)
    sp.add_argument("--plan-b", type=Path)
    sp.add_argument("--out", type=Path, help="overlay SVG (a PNG is written beside it)")
    sp.add_argument("--json", type=Path)
    _with_cast(sp, saved_plan=False)
    sp.set_defaults(func=cmd_compare)

def _report_parser(sub) -> None:
    sp = sub.add_parser("report", help="the paradata report: sources, every choice with its basis and "
                                        "alternatives, what it changes downstream, the checks, the diagrams (HTML)")
    _with_layout(sp)
    sp.add_argument("--out", type=Path, help="the HTML page (default out/report_<reading>.html)")
    sp.add_argument("--json", type=Path, help="also write the report's data as JSON")
    sp.add_argument("--other", help="the reading overlaid in the diagrams (default: ao_jigong, or zheng_xuan for "
                                    "another reading; none: no overlay)")
    sp.add_argument("--replan", action="append", default=[], metavar="TABLE.FIELD",
                    help="also plan the rite again on the ground with this dimension changed and list the statements "
                         "whose margin changes (slow: one plan each; e.g. range.hou_dao)")
    _with_cast(sp)
    sp.set_defaults(func=cmd_report)

def _diagram_parser(sub) -> None:
    sp = sub.add_parser("diagram", help="plan diagrams in the manner of the 仪礼图 (SVG + PNG)")
    _with_layout(sp)
    sp.add_argument("--at", help="event id, footnote number or a piece of the event's text")
    sp.add_argument("--all", action="store_true", help="one diagram per paragraph (or 禮節圖 step: --by) and an HTML "
                                                       "booklet")
    sp.add_argument("--by", choices=("paragraph", "step"), default=None,
                    help="with --all: one diagram per paragraph of the passage (the passage's default), or per step "
                         "of the 義疏's 禮節圖 (assets/lijietu.yaml; the default with --part first or whole)")
    sp.add_argument("--stem", help="the output files' name (default: the reading's; _lijietu[_PART] for the steps)")
    sp.add_argument("--since-previous", action="store_true", help="draw paths since the previous event's end")
    sp.add_argument("--out", type=Path, help="output directory (default out/diagrams)")
    _with_cast(sp)
    sp.set_defaults(func=cmd_diagram)


class _Parser(argparse.ArgumentParser):
    """argparse, with a bad argument reported in one line (``--help`` shows the usage)."""

    def error(self, message: str):
        self.exit(2, f"{self.prog}: error: {' '.join(message.split())} (see {self.prog} --help)\n")


def build_parser() -> argparse.ArgumentParser:
    p = _Parser(prog="render.py", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--debug", action="store_true", help="show the traceback of an internal error")
    sub = p.add_subparsers(dest="command", parser_class=_Parser)
    for add in (_layout_parser, _still_parser, _export_parser, _web_parser, _script_parser, _plan_parser, _shots_parser, _video_parser, _check_parser, _compare_parser, _diagram_parser, _report_parser):
        add(sub)
    return p


def _user_errors() -> tuple[type[BaseException], ...]:
    """Error types that mean bad input (one line, exit 2)."""
    from ..planner import PlanError
    from ..rite import RiteError
    return InputError, RiteError, PlanError


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    parser = build_parser()
    if not [x for x in argv if x != "--debug"]:
        argv = [*argv, "video"]
    try:
        a = parser.parse_args(argv)
    except SystemExit as e:              # --help (0) or a bad argument (2, already said in one line)
        return e.code if isinstance(e.code, int) else 2
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
    except Exception as e:  # noqa: BLE001 — a bug: one line, the traceback only on request
        if a.debug:
            raise
        print(f"internal error ({type(e).__name__}: {str(e)[:200]}); please report it, with --debug for the "
              f"traceback", file=sys.stderr)
        return 3
