"""The camera (scene/shots.py, the grammar of scene/grammar.py): calm moves, walkers followed close, people large
and above the captions."""
import json
import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).parent / "fixtures"))
from mini_fixtures import raw  # noqa: E402,F401 (fixture)

from reconstruct.model.plan import Plan  # noqa: E402
from reconstruct.scene.sampler import PlanSampler  # noqa: E402
from reconstruct.scene.shots import plan_shots, project  # noqa: E402

@pytest.fixture(scope="module")
def mini(raw):
    return Plan.from_dict(raw)


def _long_walk_plan(raw):
    """The mini plan with the 司射 walking the length of a real range (~63 m) and back."""
    p2 = json.loads(json.dumps(raw))
    for k in p2["actors"]["司射"]["keys"]:
        k[2] = round(-1.5 + (k[2] + 1.5) * 2.8, 3)
    return Plan.from_dict(p2)


def test_camera_films_long_walks_in_close_stretches(raw, mini):
    cam = plan_shots(mini, (1280, 720))
    assert cam.shots[0].kind == "overview"
    # the grammar's kinds (updated from the old planner's overview/group/walk/plan: issue 33)
    assert {s.kind for s in cam.shots} <= {"overview", "establish", "medium", "close", "walk"}
    long = _long_walk_plan(raw)
    cam2 = plan_shots(long, (1280, 720))
    s = cam2.shot_at(45.0)                   # 司射 walks ~63 m down the range and back
    assert s.kind == "walk"                  # followed in stretches (the video adds the inset map)
    assert "plan" not in {x.kind for x in cam2.shots}
    assert cam2.shots == plan_shots(long, (1280, 720)).shots      # deterministic
    # he stays in the frame all the way
    for t in np.arange(33.0, 66.0, 1.0):
        px, _ = project(cam2.at(t), [PlanSampler(long).position(PlanSampler(long).actors["司射"], t)[0]],
                        (1280, 720))
        assert 0 <= px[0, 0] < 1280 and 0 <= px[0, 1] < 720
    # and large enough to be seen as a person
    sm = PlanSampler(long)
    feet = sm.position(sm.actors["司射"], 45.0)[0]
    px, _ = project(cam2.at(45.0), [feet, feet + [0, 0, 1.7]], (1280, 720))
    assert abs(px[0, 1] - px[1, 1]) > 50
    # calm: the eye never jumps more than MAX_SPEED-ish per frame
    ts = np.arange(0, mini.duration, 0.04)
    eyes = np.array([cam.at(t).eye for t in ts])
    steps = np.linalg.norm(np.diff(eyes, axis=0), axis=1)
    assert np.sort(steps)[-len(cam.shots)] < 1.2         # only cuts (at most one per shot) jump


def test_group_shots_show_people_large_and_above_the_captions(mini):
    size = (1280, 720)
    cam = plan_shots(mini, size)
    sampler = PlanSampler(mini)
    for t, who in ((23.0, ("上耦上射", "上耦下射")), (17.5, ("宾",)), (14.0, ("释获者",))):
        pose = cam.at(t)
        assert cam.shot_at(t).kind in ("medium", "close", "walk")            # was "group" (issue 33)
        for aid in who:
            feet = sampler.position(sampler.actors[aid], t)[0]
            px, _ = project(pose, [feet, feet + [0, 0, 1.7]], size)
            assert abs(px[0, 1] - px[1, 1]) > 60, (t, aid)            # tens of pixels tall at least
            assert 0 < px[0, 0] < size[0] and 0 < px[1, 1] < px[0, 1] < size[1] * 0.8   # above the band
    # on the hall the roof is cut away
    assert cam.at(17.5).cutaway


def test_seeing_the_guests_off_is_filmed_from_outside_the_gate(plan):
    """主人送于門外，再拜: when the host bows outside the gate, the camera stands outside too, and the host
    and the guests he sees off are in the frame (the 大夫, far behind inside the court today, is no longer
    asked for: issue 33's medium shot frames the host and those he bows to)."""
    full = plan                          # the whole passage, planned once per session (conftest)
    song = full.event("p23.song")
    gate_y = full.landmarks["门"].position[1]
    cam = plan_shots(full, (1280, 720), start=song.start - 60.0, end=song.end)
    # as he bows the second time (賓不答拜: then the guests go their way)
    bows = [g for g in full.actors["主人"].gestures if g.kind == "kneel_bow" and g.object == "宾"
            and song.start <= g.t0 <= song.end]
    t = (bows[-1].t0 + bows[-1].t1) / 2
    pose = cam.at(t)
    assert pose.eye[1] < gate_y, pose.eye
    sampler = PlanSampler(full)
    for who in ("主人", "宾", "众宾1"):         # 記: 大夫後出 — the 大夫 is seen off after them (p23.dafu)
        xyz = sampler.position(sampler.actors[who], t)[0]
        assert xyz[1] < gate_y, (who, xyz)
        px, _ = project(pose, [xyz + [0, 0, 1.0]], (1280, 720))
        assert 0 <= px[0, 0] <= 1280 and 0 <= px[0, 1] <= 720 * 0.8, (who, px)


def test_close_shots_keep_the_face_as_he_kneels_and_stands(plan):
    """A close shot frames the hands and the face whose hands they are: one who kneels (to count, to bow, to take
    a cup) and stands again within the shot keeps his head in the picture throughout, not only at the middle
    of the shot (the 釋獲者 counting the tallies at the start of the passage stood up out of the frame's top)."""
    from reconstruct.scene.framing import POSTURE_HEIGHT
    from reconstruct.scene.figures import STANDING_HEIGHT
    cam = plan_shots(plan, (1280, 720), start=0.0, end=600.0)
    heights = {str(k): v for k, v in POSTURE_HEIGHT.items()}
    seen = 0
    for s in cam.shots:
        if s.kind != "close" or not s.people or s.t1 > 600.0:
            continue
        track = plan.actors[s.people[0]].track
        ts = np.linspace(s.t0 + 0.05, s.t1 - 0.05, 7)
        xyz, _ = track.at(ts)
        postures = track.posture_at(ts).astype(str)
        if np.ptp(xyz[:, :2], axis=0).max() > 0.5:           # he walks in it: a walk's framing, not this one's
            continue
        seen += 1
        for t, p, post in zip(ts, xyz, postures):
            head = p + [0.0, 0.0, heights.get(post, STANDING_HEIGHT)]
            px, depth = project(cam.at(t), head[None, :], (1280, 720))
            assert depth[0] > 0 and 0 <= px[0, 0] <= 1280 and 0 <= px[0, 1] <= 720, (s.t0, s.people[0], t, post, px)
    assert seen >= 8, seen
