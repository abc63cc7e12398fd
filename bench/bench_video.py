"""Frames per second of the video renderer, as ratios between runs made in the same invocation.

    .venv/bin/python bench/bench_video.py [--plan PLAN.json | --mini] [--start 240] [--seconds 20]
                                          [--naive-seconds 4] [--size 1280x720] [--chunk-seconds 10]
                                          [--modes plain,chunked,workers2,naive,ss1,other]
                                          [--camera PATH.json] [--other-camera PATH.json] [--museum]
    .venv/bin/python bench/bench_video.py --one-chunk --size 3840x2160 [--start 240] [--chunk-seconds 10]

Default: the real plan of the default reading (planned here, or ``--plan`` a saved one) on the
real ground; ``--mini``: the synthetic mini plan and stand-in ground of tests/fixtures.  Every run
draws the same frames (hold compression off, no cards, a fresh chunk store) with the same camera
(``plan_shots``), captions and x264 settings; times include set-up and encoding.

* **plain** — the single-process renderer over the whole stretch as one chunk (no chunk resets);
* **chunked, 1 worker** — the same frames in chunks of ``--chunk-seconds``, one after the other
  in this process: its time over plain's is the overhead of chunking (a background re-rendered and
  an encoder started at every chunk);
* **chunked, 2 workers** — the same chunks on a local Dask cluster of 2 processes (cluster start-up
  included);
* **ss1** — plain with the moving layer drawn at the frame's size (``supersample=1``) instead of twice it;
* **other** — plain filmed with ``--other-camera`` (a camera path of ``render.py shots --json``, e.g. the camera
  before the shot grammar) instead of the plan's;
* **naive** — the obvious PyVista program over the first ``--naive-seconds``: every mesh (each part
  of each person, each prop, the architecture) an actor re-rendered every frame with PyVista's
  default anti-aliasing, posed via user_matrix, captioned the same way (set-up excluded).

``--one-chunk``: the cost of one chunk at the given size (for docs/rendering-at-scale.md).
``--camera``: film every run with this camera path instead of the plan's.  ``--museum``: the museum
delivery's settings (1920x1080 unless ``--size``, the clean picture, H.264 at a constant 15 Mb/s).

Each run also reports the CPU seconds per frame of this process (the renderer and llvmpipe's threads) and
of its children (ffmpeg): less sensitive than wall-clock time to other work on the machine, though not
immune (shared caches).  Wall-clock figures are comparable only within one invocation.
"""
from __future__ import annotations

import argparse
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

from reconstruct.model.plan import Plan  # noqa: E402
from reconstruct.render import captions as C  # noqa: E402
from reconstruct.render.holds import frame_times  # noqa: E402
from reconstruct.render.video import ROOF_NODES, MovingLayer, PlanSampler, render_video  # noqa: E402
from reconstruct.scene import figures as F  # noqa: E402
from reconstruct.scene import props as PR  # noqa: E402
from reconstruct.render.delivery import MUSEUM  # noqa: E402
from reconstruct.scene.shots import CameraPath, plan_shots  # noqa: E402


def _colour(rgb):
    """A colour as PyVista takes it (names and hex strings as they are, 0–255 triples scaled)."""
    return rgb if isinstance(rgb, str) else tuple(c / 255 if max(rgb) > 1 else c for c in rgb)


def _naive_scene(plan, ground, size):
    import pyvista as pv
    pl = pv.Plotter(off_screen=True, window_size=size)          # default theme and anti-aliasing
    roof = []
    for name, mesh, rgb in ground:
        a = pl.add_mesh(pv.wrap(mesh), color=_colour(rgb))
        if name in ROOF_NODES:
            roof.append(a)
    layer = MovingLayer(PlanSampler(plan))
    actors = []          # (part index in layer.matrices, pyvista actor)
    for k, (kind, ident) in enumerate(layer.items):
        if kind in ("shadow", "shadow_floor"):            # the obvious program has no shadows
            continue
        if kind == "actor":
            meshes = F.part_meshes(ident)
            parts = [(layer.part_start[k] + j, meshes[p]) for j, p in enumerate(F.PARTS)]
        else:
            parts = [(layer.part_start[k], PR.prop_mesh(ident.split(":")[-1], strung=kind != "unstrung"))]
        for j, m in parts:
            pm = pv.wrap(m)
            pm["rgb"] = np.asarray(m.visual.vertex_colors)[:, :3]
            actors.append((j, pl.add_mesh(pm, scalars="rgb", rgb=True, smooth_shading=kind == "actor")))
    pl.show(auto_close=False)
    return pl, roof, layer, actors


def naive(plan, ground, out, size, t0, t1, fps, cam) -> tuple[float, float]:
    """Frames per second and seconds of the naive loop over [t0, t1] (set-up excluded)."""
    import imageio.v2 as imageio
    pl, roof, layer, actors = _naive_scene(plan, ground, size)
    w = imageio.get_writer(str(out), format="FFMPEG", mode="I", fps=fps, codec="libx264", quality=None,
                           macro_block_size=8, pixelformat="yuv420p", ffmpeg_log_level="error",
                           ffmpeg_params=["-profile:v", "high", "-crf", "18", "-movflags", "+faststart"])
    events = plan.events_by_start()
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
        ev = plan.current_event(float(t), events=events)
        if ev is not None:
            if ev.id not in bands:
                bands[ev.id] = C.CaptionBand.draw(size, ev.text, ev.gloss, ev.footnote)
            bands[ev.id].apply(frame)
        C.draw_timeline(frame, (t - t0) / (t1 - t0))
        w.append_data(frame)
    w.close()
    dt = time.perf_counter() - t_start
    pl.close()
    return len(times) / dt, dt


def _load(a):
    if a.mini:
        from mini_plan import make_plan, standin_ground
        return Plan.from_dict(make_plan()), standin_ground()
    from reconstruct.layout.reading import load_reading
    from reconstruct.scene.ground import ground_meshes
    reading = load_reading()
    if a.plan:
        return Plan.load(a.plan), ground_meshes(reading)
    from reconstruct.planner import make_plan
    from reconstruct.rite import load_rite
    return make_plan(reading, load_rite()), ground_meshes(reading)


def timed(plan, ground, out, size, fps, cam, t0, t1, **kw) -> tuple[float, dict]:
    t, c, ch = time.perf_counter(), time.process_time(), os.times()
    st = render_video(plan, ground, out, size=size, fps=fps, start=t0, end=t1, cards=False, progress=False,
                      camera=cam, compress_holds=None, fresh=True, **kw)
    ch1 = os.times()
    st["cpu_self"] = time.process_time() - c
    st["cpu_children"] = ch1.children_user + ch1.children_system - ch.children_user - ch.children_system
    return time.perf_counter() - t, st


def one_chunk(a, plan, ground, size, cam) -> None:
    """The cost of one chunk (the first full chunk from --start) at this size."""
    t0, t1 = a.start, min(a.start + a.chunk_seconds, plan.duration)
    with tempfile.TemporaryDirectory() as d:
        dt, st = timed(plan, ground, Path(d) / "chunk.mp4", size, a.fps, cam, t0, t1, workers=1,
                       chunk_seconds=a.chunk_seconds)
    print(f"RESULT one chunk {size[0]}x{size[1]}: plan {t0:.0f}-{t1:.0f} s, {st['frames']} frames in {dt:.1f} s "
          f"({st['frames'] / dt:.2f} fps, {dt / st['frames']:.3f} s/frame; passes: full {st.get('full')}, "
          f"background {st.get('background')}, layer {st.get('layer')}, reused {st.get('reused')})")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--plan", help="a saved plan JSON (default: plan the default reading)")
    ap.add_argument("--mini", action="store_true", help="the mini fixture plan and stand-in ground")
    ap.add_argument("--start", type=float, default=240.0)
    ap.add_argument("--seconds", type=float, default=20.0, help="plan seconds rendered by ours")
    ap.add_argument("--naive-seconds", type=float, default=4.0, help="plan seconds for the naive loop")
    ap.add_argument("--size", default="1280x720")
    ap.add_argument("--fps", type=int, default=25)
    ap.add_argument("--chunk-seconds", type=float, default=10.0)
    ap.add_argument("--one-chunk", action="store_true", help="only time one chunk at --size")
    ap.add_argument("--modes", default="plain,chunked,workers2,naive",
                    help="which runs to make, comma-separated (plain, chunked, workers2, naive, ss1, other)")
    ap.add_argument("--camera", help="film with this camera path (render.py shots --json) instead of the plan's")
    ap.add_argument("--other-camera", help="the camera path of the 'other' run")
    ap.add_argument("--museum", action="store_true",
                    help="the museum delivery's picture: 1920x1080 (unless --size), clean, 15 Mb/s constant")
    a = ap.parse_args(argv)
    plan, ground = _load(a)
    if a.museum and a.size == ap.get_default("size"):
        a.size = "1920x1080"
    size = tuple(int(v) for v in a.size.split("x"))
    cam = CameraPath.load(a.camera) if a.camera else plan_shots(plan, size)
    extra = dict(overlays="clean", bitrate_kbps=MUSEUM.video_kbps) if a.museum else {}
    print(f"plan: {len(plan.actors)} people, {len(plan.props)} props, {F.figure_geometry('宾').n_triangles} "
          f"triangles per figure; {os.cpu_count()} cores; {size[0]}x{size[1]} {a.fps} fps")
    if a.one_chunk:
        return one_chunk(a, plan, ground, size, cam)
    t0, t1 = a.start, min(a.start + a.seconds, plan.duration)
    modes = set(a.modes.split(","))
    from reconstruct.render.frames import blend_over           # compiled (or loaded from numba's cache) before timing
    for ss in (1, 2):
        blend_over(np.zeros((1, 1, 3), np.uint8), np.zeros((ss, ss, 3), np.uint8), np.ones((ss, ss), np.float32),
                   np.zeros((1, 1), np.float32), ss)
    fps = {}
    with tempfile.TemporaryDirectory() as d:
        d = Path(d)
        n = len(frame_times(t0, t1, a.fps))
        runs = (("plain", dict(workers=1, chunk_seconds=1e9)), ("chunked", dict(workers=1, chunk_seconds=a.chunk_seconds)),
                ("workers2", dict(workers=2, chunk_seconds=a.chunk_seconds)),
                ("ss1", dict(workers=1, chunk_seconds=1e9, supersample=1)),
                ("other", dict(workers=1, chunk_seconds=1e9)))
        cpu = {}
        for name, kw in runs:
            if name in modes:
                c = CameraPath.load(a.other_camera) if name == "other" else cam
                dt, st = timed(plan, ground, d / f"{name}.mp4", size, a.fps, c, t0, t1, sound=False, **kw, **extra)
                fps[name] = (st["frames"] / dt, dt)
                cpu[name] = (st["cpu_self"] / st["frames"], st["cpu_children"] / st["frames"],
                             st.get("layer_px", 0) / st["frames"] / (size[0] * size[1]), st.get("layer", 0) / st["frames"],
                             st.get("full", 0) / st["frames"])
        if "naive" in modes:
            fps["naive"] = naive(plan, ground, d / "naive.mp4", size, t0, min(t1, t0 + a.naive_seconds), a.fps, cam)
    print(f"plan {t0:.0f}-{t1:.0f} s, {n} frames ({n / a.fps:.1f} s of video)")
    for name, (f, dt) in fps.items():
        more = "" if name == "naive" else f"   render/duration {a.fps / f:.2f}x"
        if name in cpu:
            s_, ch_, lp, nl, nf = cpu[name]
            more += (f"   cpu {1000 * s_:.0f} + ffmpeg {1000 * ch_:.0f} ms/frame; per frame: layer passes {nl:.2f} "
                     f"over {lp:.2f} frames of pixels, full passes {nf:.2f}")
        print(f"  {name:10s} {f:6.1f} fps ({dt:.1f} s){more}")
    ratios = [f"ratio({x}/naive) {fps[x][0] / fps['naive'][0]:.2f}" for x in fps if x != "naive" and "naive" in fps]
    print("RESULT " + "; ".join(ratios + [f"render/duration({x}) {a.fps / fps[x][0]:.2f}" for x in fps if x != "naive"]))


if __name__ == "__main__":
    main()
