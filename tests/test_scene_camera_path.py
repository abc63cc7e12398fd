"""The camera path as data (scene/shots.py camera_path, keys, xiangshe-camera/1; docs/camera-path.md)."""
import json
import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).parent / "fixtures"))
from mini_fixtures import raw  # noqa: E402,F401 (fixture)

from reconstruct.cli import main  # noqa: E402
from reconstruct.model.plan import Plan  # noqa: E402
from reconstruct.scene.shots import CAMERA_FORMAT, KEY_COLUMNS, camera_path, keys_at  # noqa: E402

FIXTURES = Path(__file__).parent / "fixtures"
SIZE = (1280, 720)


@pytest.fixture(scope="module")
def mini(raw):
    return Plan.from_dict(raw)


def test_the_keys_reproduce_the_path(mini):
    path = camera_path(mini, SIZE)
    assert camera_path(mini, SIZE) is path                     # one path per plan and size
    k = path.keys()
    assert k.shape[1] == len(KEY_COLUMNS) and (np.diff(k[:, 0]) > 0).all()
    ts = np.arange(0.0, mini.duration, 0.04)
    got = keys_at(k, ts)
    want = np.array([(*p.eye, *p.target, *p.up, p.view_angle) for p in map(path.at, ts)])
    err = np.abs(got[:, 1:] - want)
    near_cut = np.array([any(0 <= s.t0 - t < 0.006 for s in path.shots) for t in ts])
    assert err[~near_cut].max() < 0.05                         # within 5 cm (eased moves sampled every 0.1 s)


def test_render_py_shots_writes_the_documented_format(tmp_path):
    out = tmp_path / "camera.json"
    assert main(["shots", "--plan", str(FIXTURES / "mini_plan.json"), "--json", str(out)]) == 0
    d = json.loads(out.read_text())
    assert d["format"] == CAMERA_FORMAT and d["key_columns"] == list(KEY_COLUMNS) and d["size"] == [1280, 720]
    shots = d["shots"]
    assert shots[0]["start"] == d["start"] and shots[-1]["end"] == d["end"]
    assert all(a["end"] == pytest.approx(b["start"]) for a, b in zip(shots, shots[1:]))       # no gaps
    assert all(len(r) == len(KEY_COLUMNS) for r in d["keys"])
    plan = Plan.load(FIXTURES / "mini_plan.json")
    assert all(set(s["people"]) <= set(plan.actors) for s in shots)
    assert any(s["people"] for s in shots)
