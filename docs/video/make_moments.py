"""The four 1080p frames of the third round as the video draws them: a draw, a hit, the flag raised, a tally laid.

    .venv/bin/python docs/video/make_moments.py [--plan PLAN.json]

The times are found in the plan (the first pair's first draw, its first hit a moment after it lands, the
獲者's first 舉旌 at its height, the 釋獲者's first tally laid to the drum) and written into the file names'
README lines; frames come from :func:`reconstruct.render.video.render_frames` (the video's camera, labels
and captions).
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from PIL import Image  # noqa: E402


def moments(plan, camera) -> dict[str, float]:
    """Times in the third round where the video's camera looks at the thing: the first draw filmed on the
    archer, the first hit filmed on the target, the first 舉旌 and the first tally laid filmed on them."""
    def filmed(t, kind):
        return camera.shot_at(t).kind.startswith(kind)

    third = [s for s in plan.shots if s.round == 3]
    g = {k: [] for k in ("draw", "raise_flag", "lay_tally")}
    for a in plan.actors.values():
        for x in a.gestures:
            if x.kind in g and x.t0 >= third[0].loose - 30:
                g[x.kind].append(x)
    draw = min((x for x in g["draw"] if filmed(x.t1 - 0.1, "archery:archer")), key=lambda x: x.t0)
    hit = min((s for s in third if s.hit and filmed(s.land + 0.4, "archery:target")), key=lambda s: s.land)
    flag = min((x for x in g["raise_flag"] if filmed(x.t1, "archery:flag")), key=lambda x: x.t0)
    tally = min((x for x in g["lay_tally"] if filmed((x.t0 + x.t1) / 2, "archery:tally")), key=lambda x: x.t0)
    return {"draw": round(draw.t1 - 0.1, 2), "hit": round(hit.land + 0.4, 2), "flag": round(flag.t1, 2),
            "tally": round((tally.t0 + tally.t1) / 2, 2)}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--plan", type=Path)
    a = ap.parse_args(argv)
    from reconstruct.layout import load_reading
    from reconstruct.model.plan import Plan
    from reconstruct.render.video import render_frames
    from reconstruct.scene.ground import ground_meshes
    reading = load_reading("zheng_xuan")
    if a.plan:
        plan = Plan.load(a.plan)
    else:
        import reconstruct as xs
        plan = xs.plan("zheng_xuan")
    from reconstruct.scene.shots import plan_shots
    camera = plan_shots(plan, (1920, 1080))
    when = moments(plan, camera)
    frames = render_frames(plan, ground_meshes(reading, plan.props), list(when.values()), size=(1920, 1080),
                           camera=camera)
    for (name, t), img in zip(when.items(), frames):
        out = ROOT / "docs" / "video" / f"{name}_1080.jpg"
        Image.fromarray(img).save(out, quality=90)
        print(f"{out.relative_to(ROOT)}: plan {t} s")


if __name__ == "__main__":
    main()
