"""The renderer: figures land where the plan puts them, captions are burned in, the file is right."""
import json
import shutil
import subprocess
import sys
from pathlib import Path

import imageio.v2 as imageio
import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).parent / "fixtures"))
from mini_plan import make_plan, standin_ground  # noqa: E402

from reconstruct.model.plan import Plan  # noqa: E402
from reconstruct.render import captions, video  # noqa: E402
from reconstruct.scene.shots import plan_shots, project  # noqa: E402

SIZE = (320, 180)


@pytest.fixture(scope="module")
def raw():
    return make_plan()


@pytest.fixture(scope="module")
def plan(raw):
    return Plan.from_dict(raw)


@pytest.fixture(scope="module")
def ground():
    return standin_ground()


def test_fixture_json_matches_generator(raw, plan):
    stored = json.loads((Path(__file__).parent / "fixtures" / "mini_plan.json").read_text(encoding="utf-8"))
    assert stored == json.loads(json.dumps(raw, ensure_ascii=False))
    text = (Path(__file__).parents[1] / plan.text["file"]).read_text(encoding="utf-8")
    for e in plan.events:
        assert text[e.span[0]:e.span[1]] == e.text


def _frame(plan, ground, tmp_path, t, name, camera, **kw):
    d = tmp_path / name
    video.render_video(plan, ground, tmp_path / f"{name}.mp4", size=SIZE, start=t, end=t + 0.04, frames_dir=d,
                       cards=False, progress=False, camera=camera, **kw)
    return imageio.imread(d / "frame_000000.png").astype(int)


def test_figure_appears_where_the_plan_puts_it(raw, plan, ground, tmp_path):
    cam = plan_shots(plan, SIZE)
    t = 23.0                                     # the archers bow, in a group shot
    with_all = _frame(plan, ground, tmp_path, t, "a", cam)
    p2 = json.loads(json.dumps(raw))
    del p2["actors"]["上耦上射"]
    del p2["props"]["上耦上射弓"]
    without = _frame(Plan.from_dict(p2), ground, tmp_path, t, "b", cam)
    x, y, z = plan.actors["上耦上射"].track.xyz[0]
    px, _ = project(cam.at(t), [(x, y, z + 1.1)], SIZE)
    u, v = np.round(px[0]).astype(int)
    assert 0 <= u < SIZE[0] and 0 <= v < SIZE[1]
    diff = np.abs(with_all - without).sum(-1)
    assert diff[v - 2:v + 3, u - 2:u + 3].max() > 60          # the torso is there
    far = diff.copy()
    far[max(0, v - 30):v + 30, max(0, u - 25):u + 25] = 0
    assert (far > 60).mean() < 0.01                          # and nothing else changed


def test_caption_band_and_timeline(plan, ground, tmp_path):
    img = _frame(plan, ground, tmp_path, 23.0, "c", plan_shots(plan, SIZE))
    h = SIZE[1]
    lum = img.mean(-1)
    band = lum[int(h * 0.82):int(h * 0.97)]
    assert (band > 170).sum() > 20                           # light text
    assert band.mean() < lum[int(h * 0.55):int(h * 0.75)].mean()   # on a darker band


def test_output_format_and_frame_count(plan, ground, tmp_path):
    out = tmp_path / "x.mp4"
    st = video.render_video(plan, ground, out, size=SIZE, fps=25, start=22.0, end=22.4, cards=False, progress=False)
    assert st["frames"] == 10
    r = imageio.get_reader(str(out))
    frames = [f for f in r]
    assert len(frames) == 10 and frames[0].shape == (SIZE[1], SIZE[0], 3)
    if shutil.which("ffprobe"):
        info = subprocess.run(["ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries",
                               "stream=codec_name,pix_fmt,profile,width,height", "-of", "json", str(out)],
                              capture_output=True, text=True, check=True)
        s = json.loads(info.stdout)["streams"][0]
        assert (s["codec_name"], s["pix_fmt"], s["width"], s["height"]) == ("h264", "yuv420p", *SIZE)
        assert s["profile"] == "High"
    assert "WEBVTT" in out.with_suffix(".zh.vtt").read_text(encoding="utf-8")
    assert "射" in out.with_suffix(".zh.vtt").read_text(encoding="utf-8")
    assert not list(tmp_path.glob(".*partial*"))


def test_interrupted_render_leaves_no_file(plan, ground, tmp_path, monkeypatch):
    calls = {"n": 0}
    real = captions.draw_timeline

    def boom(*a, **k):
        calls["n"] += 1
        if calls["n"] == 3:
            raise KeyboardInterrupt
        return real(*a, **k)

    monkeypatch.setattr(video.C, "draw_timeline", boom)
    out = tmp_path / "y.mp4"
    with pytest.raises(KeyboardInterrupt):
        video.render_video(plan, ground, out, size=SIZE, start=22.0, end=23.0, cards=False, progress=False)
    assert not out.exists()
    # nothing half-written: only the chunk store is left, with no finished chunk and no partial segment
    assert [p.name for p in tmp_path.iterdir()] == [".y.chunks"]
    assert [p.name for p in (tmp_path / ".y.chunks").iterdir()] == ["manifest.json"]


def test_ranges_and_events(plan):
    assert video.resolve_range(plan, "e0003", "e0003") == (10.0, 26.0)
    fn = plan.events[0].footnote
    a, b = video.resolve_range(plan, fn, fn)
    assert a == 0.0 and b >= 8.0
    assert len(video.frame_times(0, 2, 25)) == 50 and len(video.frame_times(0, 2, 25, speed=2)) == 25
    assert plan.current_event(23.0).id == "e0006"
    assert captions.display_text("司shè适堂西") == "司射适堂西"


def _long_walk_plan(raw):
    """The mini plan with the 司射 walking the length of a real range (~63 m) and back."""
    p2 = json.loads(json.dumps(raw))
    for k in p2["actors"]["司射"]["keys"]:
        k[2] = round(-1.5 + (k[2] + 1.5) * 2.8, 3)
    return Plan.from_dict(p2)


def test_camera_plan_view_only_for_long_walks(raw, plan):
    cam = plan_shots(plan, (1280, 720))
    assert cam.shots[0].kind == "overview"
    assert {s.kind for s in cam.shots} == {"overview", "group"}        # a 22 m walk is still a close shot
    long = _long_walk_plan(raw)
    cam2 = plan_shots(long, (1280, 720))
    s = cam2.shot_at(45.0)                   # 司射 walks ~63 m down the range and back
    assert s.kind == "plan" and s.pose.cutaway
    assert cam2.shots == plan_shots(long, (1280, 720)).shots      # deterministic
    # he stays in the frame all the way
    for t in np.arange(33.0, 66.0, 1.0):
        px, _ = project(cam2.at(t), [video.PlanSampler(long).position(video.PlanSampler(long).actors["司射"], t)[0]],
                        (1280, 720))
        assert 0 <= px[0, 0] < 1280 and 0 <= px[0, 1] < 720
    # calm: the eye never jumps more than MAX_SPEED-ish per frame
    ts = np.arange(0, plan.duration, 0.04)
    eyes = np.array([cam.at(t).eye for t in ts])
    steps = np.linalg.norm(np.diff(eyes, axis=0), axis=1)
    assert np.sort(steps)[-len(cam.shots)] < 1.2         # only cuts (at most one per shot) jump


def test_group_shots_show_people_large_and_above_the_captions(plan):
    size = (1280, 720)
    cam = plan_shots(plan, size)
    sampler = video.PlanSampler(plan)
    for t, who in ((23.0, ("上耦上射", "上耦下射")), (17.5, ("宾",)), (14.0, ("释获者",))):
        pose = cam.at(t)
        assert cam.shot_at(t).kind == "group"
        for aid in who:
            feet = sampler.position(sampler.actors[aid], t)[0]
            px, _ = project(pose, [feet, feet + [0, 0, 1.7]], size)
            assert abs(px[0, 1] - px[1, 1]) > 60, (t, aid)            # tens of pixels tall at least
            assert 0 < px[0, 0] < size[0] and 0 < px[1, 1] < px[0, 1] < size[1] * 0.8   # above the band
    # on the hall the roof is cut away
    assert cam.at(17.5).cutaway


def test_label_placement_no_overlap_inside_frame():
    frame = np.zeros((180, 320, 3), np.uint8)
    anchors = [(f"person {i}", 150 + 3 * i, 90, 1.0) for i in range(12)] + [("edge", 318, 5, 2.0)]
    placed = video.place_labels(frame, anchors, 10, bottom=150)
    assert 1 <= len(placed) < len(anchors)                   # some dropped: no room
    for i, a in enumerate(placed):
        assert a[0] >= 0 and a[1] >= 0 and a[2] <= 320 and a[3] <= 150
        for b in placed[i + 1:]:
            assert a[2] <= b[0] or b[2] <= a[0] or a[3] <= b[1] or b[3] <= a[1]
    assert frame.any()


def test_unstrung_bow_across_the_palms(raw):
    p2 = json.loads(json.dumps(raw))
    p2["actors"]["上耦上射"]["states"] = [[0, {"holding": ["上耦上射弓"], "bow": "strung"}],
                                        [10, {"holding": ["上耦上射弓"], "bow": "unstrung"}]]
    layer = video.MovingLayer(video.PlanSampler(Plan.from_dict(p2)))
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


def test_long_holds_play_faster(raw, plan):
    p2 = json.loads(json.dumps(raw))
    for group in ("actors", "props"):                # everything stands still from 30 s to 60 s
        for ident, tr in p2[group].items():
            x, y, z = plan.track(ident).at([30.0])[0][0].tolist()
            last = [k for k in tr["keys"] if k[0] <= 30.0][-1]
            tr["keys"] = [k for k in tr["keys"] if k[0] < 30.0] + [[t, x, y, z, last[4], "stand"] for t in (30.0, 60.0)]
    p2["events"] = [e for e in p2["events"] if e["start"] < 30.0]
    p2["duration"] = 60.0
    p2 = Plan.from_dict(p2)
    cam = plan_shots(p2, SIZE)
    plain, _ = video.hold_times(p2, cam, 20.0, 60.0, 25, hold_after=None)
    assert np.allclose(plain, video.frame_times(20.0, 60.0, 25))
    ts, rate = video.hold_times(p2, cam, 20.0, 60.0, 25, size=SIZE)
    assert len(ts) < len(plain) * 0.5 and rate.max() == 8.0
    assert np.all(np.diff(ts) > 0) and ts[0] == 20.0
    assert np.all(rate[ts < 30.0] == 1.0)            # while people move: real time


def test_roof_cut_away_in_hall_shots(plan, ground):
    from reconstruct.scene.shots import CameraPose
    import trimesh
    roof = trimesh.creation.box(extents=(30, 30, 0.3))
    roof.apply_translation((0, 0, 20.0))
    meshes = list(ground) + [("L_wu", roof, (90, 90, 90))]
    layer = video.MovingLayer(video.PlanSampler(plan))
    layer.update(1.0)
    r = video.FrameRenderer(meshes, layer, SIZE)
    try:
        above = CameraPose((0.0, -1.0, 60.0), (0.0, 0.0, 0.0))
        with_roof = r.full(above).astype(int)
        cut = r.full(CameraPose(above.eye, above.target, above.up, above.view_angle, True)).astype(int)
    finally:
        r.close()
    grey = (np.abs(with_roof - 90).max(-1) < 40).mean()
    assert grey > 0.5 > (np.abs(cut - 90).max(-1) < 40).mean()


def test_seeing_the_guests_off_is_filmed_from_outside_the_gate():
    """主人送于門外，再拜: when the host bows outside the gate, the camera stands outside too, and the host
    and the guests he sees off (in their file outside the gate) are in the frame."""
    from reconstruct.planner.core import make_plan
    from reconstruct.layout.reading import load_reading
    from reconstruct.rite.loader import load_rite
    full = make_plan(load_reading(), load_rite())
    song = full.event("p23.song")
    gate_y = full.landmarks["门"].position[1]
    cam = plan_shots(full, (1280, 720), start=song.start - 60.0, end=song.end)
    t = song.end - 0.5
    pose = cam.at(t)
    assert pose.eye[1] < gate_y, pose.eye
    sampler = video.PlanSampler(full)
    for who in ("主人", "众宾1", "大夫"):
        xyz = sampler.position(sampler.actors[who], t)[0]
        assert xyz[1] < gate_y, (who, xyz)
        px, _ = project(pose, [xyz + [0, 0, 1.0]], (1280, 720))
        assert 0 <= px[0, 0] <= 1280 and 0 <= px[0, 1] <= 720 * 0.8, (who, px)
