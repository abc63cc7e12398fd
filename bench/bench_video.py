"""Frames per second of our renderer against a naive full-scene PyVista loop, same plan, same camera.

    .venv/bin/python bench/bench_video.py [--plan PLAN.json] [--start 240] [--seconds 60] [--naive-seconds 10]
                                          [--size 1280x720] [--mini]

Default: the real plan of the default reading (planned here, or ``--plan`` a saved one) on the
real ground.  ``--mini``: the synthetic mini plan and stand-in ground of tests/fixtures.

Two measurements, in the same run:

* **ratio** — ours and the naive loop over the same ``--naive-seconds`` of plan from ``--start``,
  the same frames (hold compression off, so both draw exactly the same frame times), the same
  camera (``plan_shots``), captions and x264 settings.  The naive loop is the obvious PyVista
  program: every mesh (each part of each person, each prop, the architecture) an actor
  re-rendered every frame with PyVista's default anti-aliasing, posed via user_matrix, captioned
  the same way.  Both times include encoding; the naive loop's set-up is excluded, ours included.
* **render / duration** — ours as ``render.py video`` runs it (defaults: 2 render processes on a
  2-core box, hold compression on) over ``--seconds`` of plan: wall time over the video's length.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("VTK_DEFAULT_OPENGL_WINDOW", "vtkEGLRenderWindow")
ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "fixtures"))

import numpy as np  # noqa: E402

from reconstruct.render import captions as C  # noqa: E402
from reconstruct.scene import figures as F  # noqa: E402
from reconstruct.scene.shots import plan_shots  # noqa: E402
from reconstruct.render.video import MovingLayer, PlanSampler, ROOF_NODES, current_event, frame_times, render_video  # noqa: E402


def naive(plan, ground, out, size, t0, t1, fps, cam):
    import imageio.v2 as imageio
    import pyvista as pv
    pl = pv.Plotter(off_screen=True, window_size=size)          # default theme and anti-aliasing
    roof = []
    for name, mesh, rgb in ground:
        a = pl.add_mesh(pv.wrap(mesh), color=tuple(c / 255 if max(rgb) > 1 else c for c in rgb))
        if name in ROOF_NODES:
            roof.append(a)
    sampler = PlanSampler(plan)
    layer = MovingLayer(sampler)
    actors = []          # (part index in layer.matrices, pyvista actor)
    for k, (kind, ident) in enumerate(layer.items):
        if kind == "actor":
            meshes = F.part_meshes(ident)
            for j, p in enumerate(F.PARTS):
                m = meshes[p]
                pm = pv.wrap(m)
                pm["rgb"] = np.asarray(m.visual.vertex_colors)[:, :3]
                actors.append((layer.part_start[k] + j, pl.add_mesh(pm, scalars="rgb", rgb=True, smooth_shading=True)))
        else:
            m = F.prop_mesh(ident.split(":")[-1], strung=kind != "unstrung")
            pm = pv.wrap(m)
            pm["rgb"] = np.asarray(m.visual.vertex_colors)[:, :3]
            actors.append((layer.part_start[k], pl.add_mesh(pm, scalars="rgb", rgb=True)))
    pl.show(auto_close=False)
    w = imageio.get_writer(str(out), format="FFMPEG", mode="I", fps=fps, codec="libx264", quality=None,
                           macro_block_size=8, pixelformat="yuv420p", ffmpeg_log_level="error",
                           ffmpeg_params=["-profile:v", "high", "-crf", "18", "-movflags", "+faststart"])
    events = sorted(plan["events"], key=lambda e: e["start"])
    times = frame_times(t0, t1, fps)
    bands = {}
    t_start = time.perf_counter()
    for t in times:
        layer.update(float(t))
        for j, a in actors:
            a.user_matrix = layer.matrices[j]
        pose = cam.at(float(t))
        for a in roof:
            a.SetVisibility(not pose.cutaway)
        pl.camera.position, pl.camera.focal_point, pl.camera.up = pose.eye, pose.target, pose.up
        pl.camera.view_angle = pose.view_angle
        pl.renderer.ResetCameraClippingRange()
        pl.render()
        frame = np.array(pl.image)
        ev = current_event(events, float(t))
        if ev is not None:
            if ev["id"] not in bands:
                bands[ev["id"]] = C.CaptionBand.draw(size, ev["text"], ev.get("gloss"), ev.get("footnote"))
            bands[ev["id"]].apply(frame)
        C.draw_timeline(frame, (t - t0) / (t1 - t0))
        w.append_data(frame)
    w.close()
    dt = time.perf_counter() - t_start
    pl.close()
    return len(times) / dt, dt


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--plan", help="a saved plan JSON (default: plan the default reading)")
    ap.add_argument("--mini", action="store_true", help="the mini fixture plan and stand-in ground")
    ap.add_argument("--start", type=float, default=240.0)
    ap.add_argument("--seconds", type=float, default=60.0, help="plan seconds for render/duration")
    ap.add_argument("--naive-seconds", type=float, default=10.0, help="plan seconds for the ours/naive ratio")
    ap.add_argument("--size", default="1280x720")
    ap.add_argument("--fps", type=int, default=25)
    a = ap.parse_args(argv)
    if a.mini:
        from mini_plan import make_plan, standin_ground
        plan, ground = make_plan(), standin_ground()
    else:
        from reconstruct.layout.reading import DEFAULT_LAYOUT, load_reading
        from reconstruct.render.video_cli import ground_meshes
        reading = load_reading(DEFAULT_LAYOUT)
        if a.plan:
            plan = json.loads(Path(a.plan).read_text(encoding="utf-8"))
        else:
            from reconstruct.planner.core import make_plan
            from reconstruct.rite.loader import load_rite
            plan = make_plan(reading, load_rite(None))
        ground = ground_meshes(reading)
    size = tuple(int(v) for v in a.size.split("x"))
    cam = plan_shots(plan, size)
    t0 = a.start
    n0, n1 = t0, min(t0 + a.naive_seconds, plan["duration"])
    r1 = min(t0 + a.seconds, plan["duration"])
    print(f"plan: {len(plan['actors'])} people, {len(plan.get('props') or {})} props, "
          f"{F.figure_geometry('宾').n_triangles} triangles per figure; {os.cpu_count()} cores; {size[0]}x{size[1]} {a.fps} fps")
    with tempfile.TemporaryDirectory() as d:
        t = time.perf_counter()
        st1 = render_video(plan, ground, Path(d) / "o1.mp4", size=size, fps=a.fps, start=n0, end=n1, cards=False,
                           progress=False, camera=cam, compress_holds=None, workers=1)
        dt1 = time.perf_counter() - t
        f1 = st1["frames"] / dt1
        f_n, dt_n = naive(plan, ground, Path(d) / "naive.mp4", size, n0, n1, a.fps, cam)
        print(f"same frames, plan {n0:.0f}-{n1:.0f} s ({st1['frames']} frames), one process each: "
              f"ours {f1:.1f} fps ({dt1:.1f} s), naive {f_n:.1f} fps ({dt_n:.1f} s); ratio {f1 / f_n:.2f}")
        t = time.perf_counter()
        st = render_video(plan, ground, Path(d) / "o2.mp4", size=size, fps=a.fps, start=t0, end=r1, cards=False,
                          progress=False, camera=cam)
        dt = time.perf_counter() - t
        vs = st["video_seconds"]
        passes = {k: st.get(k) for k in ("full", "background", "layer", "reused", "compressed_frames", "workers")}
        print(f"as rendered by default, plan {t0:.0f}-{r1:.0f} s: {st['frames']} frames = {vs:.1f} s of video in "
              f"{dt:.1f} s: {st['frames'] / dt:.1f} fps, render/duration {dt / vs:.2f} ({passes})")
        print(f"RESULT ratio(ours/naive, same frames, 1 process) {f1 / f_n:.2f}; "
              f"ratio(ours default/naive) {st['frames'] / dt / f_n:.2f}; render/duration {dt / vs:.2f}")


if __name__ == "__main__":
    main()
