"""Measured framing (scene/framing.py): the on-screen height of the people of the current act."""
import math
import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).parent / "fixtures"))
from mini_fixtures import raw  # noqa: E402,F401 (fixture)

from reconstruct.model.plan import Plan  # noqa: E402
from reconstruct.scene.figures import STANDING_HEIGHT  # noqa: E402
from reconstruct.scene.framing import POSTURE_HEIGHT, act_people, measure, screen_heights  # noqa: E402


@pytest.fixture(scope="module")
def mini(raw):
    return Plan.from_dict(raw)


def test_a_person_at_a_known_distance_has_the_known_height(mini):
    # at 17 s the 宾 stands at (-2, 5, 0.69) on the hall, named by e0005 (16–18.5 s); e0003 (释获者,
    # from 10 s) is under way too but began earlier: the act is the 宾's
    assert act_people(mini, 17.0) == ("宾",)
    mid = np.array([-2.0, 5.0, 0.69 + STANDING_HEIGHT / 2])
    ts = np.array([17.0, 17.0, 17.0, 17.0, 5.0])
    south = np.array([0.0, 1.0, 0.0])
    eye = np.array([mid - 6 * south, mid - 3 * south, mid + 6 * south, mid - 1.0 * south, mid - 6 * south])
    target = eye + south                           # all look north (the third from behind him: away)
    f = measure(mini, ts, eye, target, (0, 0, 1), 38.0, 16 / 9)
    expect = STANDING_HEIGHT / (2 * 6 * math.tan(math.radians(19)))
    k = f.ids.index("宾")
    assert f.fraction[0, k] == pytest.approx(expect, rel=1e-6)            # 6 m: 40 %
    assert f.fraction[1, k] == pytest.approx(2 * expect, rel=1e-6)        # twice as near, twice as tall
    assert f.fraction[2, k] == 0.0                                        # behind the camera
    assert f.fraction[3, k] == pytest.approx(1.0)                         # clipped to the frame
    assert np.isnan(f.fraction[4, k])                                     # at 5 s the act is the 释获者's
    assert f.tallest()[0] == pytest.approx(expect, rel=1e-6)
    assert f.tallest()[4] == f.fraction[4, f.ids.index("释获者")]        # his act at 5 s


def test_screen_heights_are_vectorised_and_follow_posture_and_aim():
    feet = np.zeros((3, 2, 3))
    feet[:, 1, 0] = 30.0                           # the second person far to the east: out of a 16:9 frame
    h = np.array([[POSTURE_HEIGHT["stand"], POSTURE_HEIGHT["stand"]], [POSTURE_HEIGHT["kneel"]] * 2,
                  [POSTURE_HEIGHT["stand"]] * 2])
    eye = np.array([[0, -10.0, 0.8], [0, -10.0, 0.8], [0, -20.0, 0.8]])
    fr = screen_heights(feet, h, eye, eye + [0, 1, 0], (0, 0, 1), np.array([38.0, 38.0, 38.0]), 16 / 9)
    assert fr.shape == (3, 2)
    assert fr[1, 0] < fr[0, 0] and fr[0, 0] == pytest.approx(2 * fr[2, 0], rel=0.02)
    assert (fr[:, 1] == 0).all()
