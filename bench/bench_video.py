"""Frames per second of our renderer against a naive full-scene PyVista loop, same plan, same camera.

    .venv/bin/python bench/bench_video.py [--plan PLAN.json] [--start 0] [--seconds 30] [--size 1280x720]

Without --plan it uses the synthetic mini plan and the stand-in ground from tests/fixtures
(the real ground comes from the reading; see render.py).  The naive loop is the obvious
PyVista program: every mesh (each part of each person, each prop, the architecture) is an
actor re-rendered every frame with PyVista's default anti-aliasing, posed via user_matrix,
captioned the same way, and encoded with the same x264 settings.  Both times include
encoding; set-up is excluded from the naive loop and included for ours (worst case).
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

from reconstruct import captions as C  # noqa: E402
from reconstruct import figures as F  # noqa: E402
from reconstruct.camera import plan_shots  # noqa: E402
from reconstruct.video import MovingLayer, PlanSampler, current_event, frame_times, render_video  # noqa: E402


def naive(plan, ground, out, size, t0, t1, fps, cam):
    import imageio.v2 as imageio
    import pyvista as pv
    pl = pv.Plotter(off_screen=True, window_size=size)          # default theme: MSAA, light kit
    for name, mesh, rgb in ground:
        pl.add_mesh(pv.wrap(mesh), color=tuple(c / 255 for c in rgb))
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
            m = F.prop_mesh(ident.split(":")[-1])
            pm = pv.wrap(m)
            pm["rgb"] = np.asarray(m.visual.vertex_colors)[:, :3]
            actors.append((layer.part_start[k], pl.add_mesh(pm, scalars="rgb", rgb=True)))
    pl.show(auto_close=False)
    w = imageio.get_writer(str(out), format="FFMPEG", mode="I", fps=fps, codec="libx264", quality=None,
                           macro_block_size=8, pixelformat="yuv420p", ffmpeg_log_level="error",
                           ffmpeg_params=["-profile:v", "high", "-crf", "18", "-movflags", "+faststart"])
    events = plan["events"]
    times = frame_times(t0, t1, fps)
    bands = {}
    t_start = time.perf_counter()
    for t in times:
        layer.update(float(t))
        for j, a in actors:
            a.user_matrix = layer.matrices[j]
        pose = cam.at(float(t))
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


def ours(plan, ground, out, size, t0, t1, fps, cam, preset):
    t = time.perf_counter()
    st = render_video(plan, ground, out, size=size, fps=fps, start=t0, end=t1, cards=False, progress=False,
                      camera=cam, preset=preset)
    dt = time.perf_counter() - t
    return st["frames"] / dt, dt, st


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--plan", help="plan JSON (default: the mini fixture)")
    ap.add_argument("--start", type=float, default=0.0)
    ap.add_argument("--seconds", type=float, default=30.0)
    ap.add_argument("--size", default="1280x720")
    ap.add_argument("--fps", type=int, default=25)
    ap.add_argument("--preset", default="medium")
    ap.add_argument("--pairs", type=int, default=1, help="alternate ours/naive this many times")
    a = ap.parse_args(argv)
    from mini_plan import make_plan, standin_ground
    plan = json.loads(Path(a.plan).read_text(encoding="utf-8")) if a.plan else make_plan()
    ground = standin_ground()
    size = tuple(int(v) for v in a.size.split("x"))
    t0, t1 = a.start, min(a.start + a.seconds, plan["duration"])
    cam = plan_shots(plan, size)
    tri_fig = F.figure_geometry("宾").n_triangles
    print(f"plan: {len(plan['actors'])} people, {len(plan.get('props') or {})} props; {tri_fig} triangles per figure; "
          f"{t0:.1f}-{t1:.1f} s at {size[0]}x{size[1]} {a.fps} fps")
    ratios = []
    with tempfile.TemporaryDirectory() as d:
        for i in range(a.pairs):
            f_o, dt_o, st = ours(plan, ground, Path(d) / "ours.mp4", size, t0, t1, a.fps, cam, a.preset)
            f_n, dt_n = naive(plan, ground, Path(d) / "naive.mp4", size, t0, t1, a.fps, cam)
            ratios.append(f_o / f_n)
            passes = {k: st[k] for k in ("full", "background", "layer", "reused")}
            print(f"pair {i + 1}: ours {f_o:.1f} fps ({dt_o:.1f} s, render/duration {dt_o / (t1 - t0):.2f}, passes {passes}); "
                  f"naive {f_n:.1f} fps ({dt_n:.1f} s); ratio {f_o / f_n:.2f}")
    print(f"RESULT ours/naive median ratio {np.median(ratios):.2f}")


if __name__ == "__main__":
    main()
