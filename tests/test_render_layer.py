"""The moving layer (render/layer.py), the frame renderer (render/frames.py), name tags (render/labels.py) and holds (render/holds.py)."""
import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent / "fixtures"))
from mini_fixtures import ground, plan, raw  # noqa: E402,F401 (fixtures)

from reconstruct.model.plan import Plan  # noqa: E402
from reconstruct.render.frames import FrameRenderer  # noqa: E402
from reconstruct.render.holds import frame_times, hold_times  # noqa: E402
from reconstruct.render.labels import place_labels  # noqa: E402
from reconstruct.render.layer import MovingLayer  # noqa: E402
from reconstruct.scene.sampler import PlanSampler  # noqa: E402
from reconstruct.scene.shots import plan_shots  # noqa: E402

SIZE = (320, 180)


def test_unstrung_bow_across_the_palms(raw):
    p2 = json.loads(json.dumps(raw))
    p2["actors"]["上耦上射"]["states"] = [[0, {"holding": ["上耦上射弓"], "bow": "strung"}],
                                        [10, {"holding": ["上耦上射弓"], "bow": "unstrung"}]]
    layer = MovingLayer(PlanSampler(Plan.from_dict(p2)))
    k = layer.items.index(("prop", "上耦上射弓"))
    alt = layer.unstrung[k]

    def shown(i):
        return abs(np.linalg.det(layer.matrices[layer.part_start[i]][:3, :3])) > 1e-9

    layer.update(5.0)
    assert shown(k) and not shown(alt)
    layer.update(12.0)
    assert shown(alt) and not shown(k)
    # lying across: its length (local z) is horizontal
    M = layer.matrices[layer.part_start[alt]]
    assert abs(M[2, 2]) < 0.1


def test_roof_cut_away_in_hall_shots(plan, ground):
    from reconstruct.scene.shots import CameraPose
    import trimesh
    roof = trimesh.creation.box(extents=(30, 30, 0.3))
    roof.apply_translation((0, 0, 20.0))
    meshes = list(ground) + [("L_wu", roof, (90, 90, 90))]
    layer = MovingLayer(PlanSampler(plan))
    layer.update(1.0)
    r = FrameRenderer(meshes, layer, SIZE)
    try:
        above = CameraPose((0.0, -1.0, 60.0), (0.0, 0.0, 0.0))
        with_roof = r.full(above).astype(int)
        cut = r.full(CameraPose(above.eye, above.target, above.up, above.view_angle, True)).astype(int)
    finally:
        r.close()
    grey = (np.abs(with_roof - 90).max(-1) < 40).mean()
    assert grey > 0.5 > (np.abs(cut - 90).max(-1) < 40).mean()


def test_label_placement_no_overlap_inside_frame():
    frame = np.zeros((180, 320, 3), np.uint8)
    anchors = [(f"person {i}", 150 + 3 * i, 90, 1.0) for i in range(12)] + [("edge", 318, 5, 2.0)]
    placed = place_labels(frame, anchors, 10, bottom=150)
    assert 1 <= len(placed) < len(anchors)                   # some dropped: no room
    for i, a in enumerate(placed):
        assert a[0] >= 0 and a[1] >= 0 and a[2] <= 320 and a[3] <= 150
        for b in placed[i + 1:]:
            assert a[2] <= b[0] or b[2] <= a[0] or a[3] <= b[1] or b[3] <= a[1]
    assert frame.any()


def test_long_holds_play_faster(raw, plan):
    p2 = json.loads(json.dumps(raw))
    for group in ("actors", "props"):                # everything stands still from 30 s to 60 s
        for ident, tr in p2[group].items():
            x, y, z = plan.track(ident).at([30.0])[0][0].tolist()
            last = [k for k in tr["keys"] if k[0] <= 30.0][-1]
            still = "stand" if group == "actors" else "rest"       # (a prop's posture: the plan reader checks)
            tr["keys"] = [k for k in tr["keys"] if k[0] < 30.0] + [[t, x, y, z, last[4], still] for t in (30.0, 60.0)]
    p2["events"] = [e for e in p2["events"] if e["start"] < 30.0]
    p2["duration"] = 60.0
    p2 = Plan.from_dict(p2)
    cam = plan_shots(p2, SIZE)
    plain, _ = hold_times(p2, cam, 20.0, 60.0, 25, hold_after=None)
    assert np.allclose(plain, frame_times(20.0, 60.0, 25))
    ts, rate = hold_times(p2, cam, 20.0, 60.0, 25, size=SIZE)
    assert len(ts) < len(plain) * 0.5 and rate.max() == 8.0
    assert np.all(np.diff(ts) > 0) and ts[0] == 20.0
    assert np.all(rate[ts < 30.0] == 1.0)            # while people move: real time


def test_a_reset_layer_poses_as_a_new_one(plan):
    """Chunks start from a reset layer: after reset() it reports and poses exactly what a new layer would."""
    used = MovingLayer(PlanSampler(plan))
    for t in (5.0, 23.0, 40.0):
        used.update(t)
    used.reset()
    new = MovingLayer(PlanSampler(plan))
    assert used.update(22.96) == new.update(22.96) == set(range(len(new.items))) - {
        k for k in range(len(new.items)) if not np.abs(new.matrices[new.part_start[k]:new.part_start[k + 1]]).any()}
    assert used.update(23.0) == new.update(23.0)
    assert np.array_equal(used.matrices, new.matrices)


def test_a_layer_posed_frame_after_frame_poses_as_one_posing_afresh(plan_of):
    """The layer keeps what it posed (a held thing's matrix while its holder, his gestures, what else he holds, an
    arrow's being tucked and the flag's lean stay the same; a resting thing's while it lies still) and reuses it:
    over a stretch of the default passage with bows drawn, arrows nocked, tucked and carried, the flag raised and
    lowered and cups handed, every frame's matrices equal those of a layer that forgets everything before posing."""
    plan = plan_of()
    seq, fresh = MovingLayer(PlanSampler(plan)), MovingLayer(PlanSampler(plan))
    ev = {e.id: e for e in plan.events}
    t0 = ev["p9.dafu.1.xuxi"].start                # the 大夫 and his partner shoot (the 获者's flag, tucked arrows)
    held = set()
    for t in np.arange(t0, t0 + 40.0, 0.2):
        seq.update(float(t))
        fresh.reset()
        fresh.update(float(t))
        assert np.array_equal(seq.matrices, fresh.matrices), t
        held |= {k for k in range(len(seq.items)) if seq._held_cache.get(seq.items[k][1])}
    kinds = {seq.items[k][1].split(":")[-1][-1] for k in held}
    assert {"弓", "矢"} <= kinds, kinds                  # bows and arrows were held and their poses reused
