"""The renderer of this checkout against another (an older commit's worktree), on the same acts.

    git worktree add /tmp/old <commit>
    .venv/bin/python render.py plan --json /tmp/new.json;  (cd /tmp/old && <its python> render.py plan --json /tmp/old.json)
    .venv/bin/python bench/bench_video_against.py --other /tmp/old --other-plan /tmp/old.json --plan /tmp/new.json \\
        --stretch 2525:2511 --stretch 6687.9:6617.9 [--seconds 30] [--size 1280x720] [--camera PATH.json] [--repeat 1]

Each ``--stretch NEW:OLD`` names where the same act begins in this plan and in the other (plans shift in time as the
rite changes).  Every run is ``render_video`` in a fresh process of its own checkout (its own camera planner unless
``--camera``, captions on, no cards, no sound, hold compression off), this checkout and the other in turn, and
reports the CPU per frame of the renderer's process and of its children (x264): less sensitive than wall time to
other work on the machine, though not immune (shared caches).  Ratios are this checkout's over the other's.
"""
from __future__ import annotations

import argparse
import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

RUN = textwrap.dedent("""
    import os, sys, time, tempfile
    root, planf, t0, t1, size, camf = sys.argv[1:7]
    sys.path.insert(0, root)
    os.environ.setdefault("VTK_DEFAULT_OPENGL_WINDOW", "vtkEGLRenderWindow")
    import reconstruct
    assert reconstruct.__file__.startswith(root), reconstruct.__file__
    from reconstruct.model.plan import Plan
    from reconstruct.layout.reading import load_reading
    from reconstruct.scene.ground import ground_meshes
    from reconstruct.render.video import render_video
    from reconstruct.scene import shots as S
    plan = Plan.load(planf); sz = tuple(int(v) for v in size.split("x")); t0, t1 = float(t0), float(t1)
    ground = ground_meshes(load_reading())
    if camf != "-":
        cam = S.CameraPath.load(camf)
    elif hasattr(S, "camera_path"):
        cam = S.camera_path(plan, sz)
    else:                                       # a checkout from before the camera path was data
        import reconstruct.render.video as V
        cam = V._excerpt_shots(plan, sz, t0, t1)
    with tempfile.TemporaryDirectory() as d:
        c, ch = time.process_time(), os.times()
        st = render_video(plan, ground, os.path.join(d, "x.mp4"), size=sz, start=t0, end=t1, cards=False,
                          progress=False, compress_holds=None, fresh=True, sound=False, workers=1, camera=cam)
        ch1 = os.times()
    n = st["frames"]
    kids = ch1.children_user + ch1.children_system - ch.children_user - ch.children_system
    print(n, 1000 * (time.process_time() - c) / n, 1000 * kids / n)
""")


def run(root: Path, plan: str, t0: float, seconds: float, size: str, camera: str) -> tuple[int, float, float]:
    out = subprocess.run([sys.executable, "-c", RUN, str(root), plan, str(t0), str(t0 + seconds), size, camera],
                         capture_output=True, text=True, check=True, cwd="/")
    n, own, kids = out.stdout.split()[-3:]
    return int(n), float(own), float(kids)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--other", required=True, help="the other checkout (a worktree of an older commit)")
    ap.add_argument("--other-plan", required=True, help="a plan saved by the other checkout")
    ap.add_argument("--plan", required=True, help="a plan saved by this checkout")
    ap.add_argument("--stretch", action="append", required=True, help="NEW:OLD plan times where the act begins")
    ap.add_argument("--seconds", type=float, default=30.0)
    ap.add_argument("--size", default="1280x720")
    ap.add_argument("--camera", default="-", help="this checkout's camera path (render.py shots --json)")
    ap.add_argument("--repeat", type=int, default=1)
    a = ap.parse_args(argv)
    total = {"this": 0.0, "other": 0.0}
    for spec in a.stretch:
        new, old = (float(v) for v in spec.split(":"))
        for _ in range(a.repeat):
            n1, o1, k1 = run(Path(a.other).resolve(), a.other_plan, old, a.seconds, a.size, "-")
            n2, o2, k2 = run(ROOT, a.plan, new, a.seconds, a.size, a.camera)
            total["other"] += o1 + k1
            total["this"] += o2 + k2
            print(f"{new:.1f} s (other {old:.1f} s), {n2} / {n1} frames: this {o2:.1f} + {k2:.1f} ms CPU a frame, "
                  f"other {o1:.1f} + {k1:.1f}: {(o2 + k2) / (o1 + k1):.2f}x", flush=True)
    print(f"all stretches: this {total['this']:.1f}, other {total['other']:.1f} ms a frame summed: "
          f"{total['this'] / total['other']:.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
