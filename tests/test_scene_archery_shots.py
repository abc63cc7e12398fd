"""The shooting filmed (scene/archery_shots.py): each loose seen from beside the archer, the arrow arriving
at the 侯, the flag raised and tallies laid on screen; cuts only; nobody under the caption band."""
import numpy as np
import pytest

from reconstruct.scene import archery_shots as A
from reconstruct.scene.sampler import PlanSampler
from reconstruct.scene.shots import SAFE, plan_shots, project

SIZE = (1280, 720)

# one worker films the shooting once (round3; pytest-xdist --dist loadgroup, .ci/run): spread, both did
pytestmark = pytest.mark.xdist_group("archery_shots")


@pytest.fixture(scope="module")
def round3(plan):
    a = min(s.loose for s in plan.shots) - 30.0
    b = max(s.land for s in plan.shots) + 10.0
    return a, b, plan_shots(plan, SIZE, a, b)


def test_every_loose_is_seen_from_beside_the_archer(plan, round3):
    _, _, cam = round3
    sampler = PlanSampler(plan)
    for s in plan.shots:
        shot = cam.shot_at(s.loose)
        assert shot.kind == "archery:archer" and shot.events == (s.archer,), (s.archer, s.loose)
        pose = cam.at(s.loose)
        feet = sampler.position(sampler.actors[s.archer], s.loose)[0]
        px, _ = project(pose, [feet, feet + [0, 0, 1.75]], SIZE)
        assert abs(px[0, 1] - px[1, 1]) > 250                 # large: the draw can be seen
        assert 0 < px[1, 0] < SIZE[0] and 0 < px[1, 1]         # his head in the frame …
        assert px[0, 1] < SIZE[1] * SAFE[3]                    # … and his feet above the caption band


def test_arrows_are_seen_arriving_and_flags_and_tallies_on_screen(plan, round3):
    _, _, cam = round3
    hou = np.asarray(plan.landmarks["侯"].position)
    arriving = 0
    hits = [s for s in plan.shots if s.hit]
    for s in hits:
        if cam.shot_at(s.land - 0.05).kind == "archery:target":
            px, _ = project(cam.at(s.land), [hou + [0, 0, 2.0]], SIZE)
            assert 0 < px[0, 0] < SIZE[0] and 0 < px[0, 1] < SIZE[1] * SAFE[3]
            arriving += 1
    assert arriving >= 0.9 * len(hits)
    kinds = [x.kind for x in cam.shots]
    flags = [g for g in plan.actors["获者"].gestures if g.kind == "raise_flag"]
    seen = sum(cam.shot_at((g.t0 + g.t1) / 2).kind == "archery:flag" for g in flags)
    assert seen >= len(flags) // 3
    lays = [g for g in plan.actors["释获者"].gestures if g.kind == "lay_tally" and g.t0 > min(x.loose for x in plan.shots)]
    assert sum(cam.shot_at((g.t0 + g.t1) / 2).kind == "archery:tally" for g in lays) >= 3
    assert "plan" not in kinds


def test_the_shooting_is_cut_not_panned(round3):
    a, b, cam = round3
    for i, s in enumerate(cam.shots):
        if s.kind.startswith("archery") or (i and cam.shots[i - 1].kind.startswith("archery")):
            assert cam.moves[i] == 0.0
    # no shot of the shooting shorter than the shortest cut allows
    for s in cam.shots:
        if s.kind.startswith("archery") and a < s.t0 and s.t1 < b:
            assert s.t1 - s.t0 >= A.MIN_CUT - 1e-6


def test_schedule_gives_the_screen_to_the_first_in_rank():
    w = [A.ArcheryWindow(0.0, 3.0, "target", "侯", 2.0), A.ArcheryWindow(1.5, 4.0, "archer", "x", 3.0),
         A.ArcheryWindow(4.0, 6.0, "tally", "释获者", 1.5)]
    got = [(round(a, 2), round(b, 2), x.kind) for a, b, x in A._schedule(w, 0.0, 6.0)]
    assert got == [(0.0, 1.5, "target"), (1.5, 4.0, "archer"), (4.0, 6.0, "tally")]
