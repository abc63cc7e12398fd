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
from reconstruct.scene.framing import MEDIUM, WIDE, measure  # noqa: E402
from reconstruct.scene.grammar import HANDLED, MIN_SHOT, OBSTACLES, SAME_ANGLE, WALK_CUT  # noqa: E402
from reconstruct.scene.grammar_views import _crosses  # noqa: E402
from reconstruct.scene.shots import (CAMERA_FORMAT, KEY_COLUMNS, CameraPose, camera_path, keys_at,  # noqa: E402
                                     project)

FIXTURES = Path(__file__).parent / "fixtures"
SIZE = (1280, 720)

# on one worker, with the page's and the rig's tests: the passage's shots planned once for all (pytest-xdist
# --dist loadgroup, .ci/run); spread, each worker planned them and built the exported path again
pytestmark = pytest.mark.xdist_group("passage_camera")


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


# -- the whole default passage, from the exported path (issue 33's measures) ----------------------------------

@pytest.fixture(scope="module")
def exported(plan):
    """The default passage's camera path as written by ``render.py shots --json`` (read back from JSON)."""
    return json.loads(json.dumps(camera_path(plan, SIZE).to_dict(SIZE)))


def _shot_at(d, t):
    starts = np.array([s["start"] for s in d["shots"]])
    return d["shots"][max(0, int(np.searchsorted(starts, t, side="right")) - 1)]


def test_the_act_is_framed_large_over_the_whole_passage(plan, exported):
    """Sampled every 5 s at 1280x720 from the exported keys: the tallest person of the current act is at least
    40 % of the frame's height in at least half of the samples and under 10 % in under 5 % of them."""
    ts = np.arange(0.0, plan.duration, 5.0)
    k = keys_at(exported["keys"], ts)
    path = camera_path(plan, SIZE)                    # the keys are the path (a hold is not a glide)
    want = np.array([(*p.eye, *p.target) for p in map(path.at, ts)])
    starts = np.array([s["start"] for s in exported["shots"]])
    nxt = starts[np.minimum(np.searchsorted(starts, ts), len(starts) - 1)]
    away = ~((nxt - ts >= 0) & (nxt - ts < 0.006))   # not inside a cut's 5 ms
    assert np.abs(k[away, 1:7] - want[away]).max() < 0.1
    tallest = measure(plan, ts, k[:, 1:4], k[:, 4:7], k[:, 7:10], k[:, 10], SIZE[0] / SIZE[1]).tallest()
    v = tallest[~np.isnan(tallest)]
    assert len(v) > 0.9 * len(ts)                     # nearly always someone acts
    assert (v >= MEDIUM).mean() >= 0.5, np.median(v)
    assert (v < WIDE).mean() < 0.05, np.median(v)


def _hands(plan, aid, t):
    """Where the hands of a person are, roughly: before his chest, at the height his posture puts them."""
    tr = plan.actors[aid].track
    (p,), (h,) = tr.at([t])
    low = tr.posture_at([t])[0] in ("kneel", "kneel_bow")
    hr = np.radians(h)
    return p + [0.38 * np.sin(hr), 0.38 * np.cos(hr), 0.6 if low else 0.9]


def test_every_clause_naming_a_thing_handled_has_a_close_shot_of_the_hands(plan, exported):
    """Each clause whose people handle a thing (a gesture of :data:`HANDLED` while it is performed: a cup
    taken, filled, drunk, a tally laid, an arrow nocked, a bow handed over) is filmed, while a hand does it,
    by a close shot (or the shooting's shot of the archer) with those hands in the picture above the captions."""
    handled, framed = [], {}
    for e in plan.events:
        acts = [(a, g) for a in e.actors if a in plan.actors for g in plan.actors[a].gestures
                if g.kind in HANDLED and e.start - 0.05 <= g.t0 < e.end]
        if not acts:
            continue
        handled.append(e.id)
        for a, g in acts:
            t = (g.t0 + g.t1) / 2
            shot = _shot_at(exported, t)
            if shot["kind"] != "close" and not shot["kind"].startswith("archery"):
                continue
            k = keys_at(exported["keys"], [t])[0]
            pose = CameraPose(tuple(k[1:4]), tuple(k[4:7]), tuple(k[7:10]), float(k[10]))
            px, depth = project(pose, [_hands(plan, a, t)], SIZE)
            if 0 <= px[0, 0] < SIZE[0] and 0 <= px[0, 1] < SIZE[1] * 0.8 and depth[0] > 0:
                framed[e.id] = (shot["kind"], shot["start"], a, g.kind)
                break
    assert len(handled) > 150                         # the cups, tallies, arrows and bows of the passage
    missing = [x for x in handled if x not in framed]
    assert not missing, missing[:10]


def test_the_grammar_cuts_cleanly(exported):
    """No shot of the grammar under 2 s (the shooting's inserts keep their own rhythm); every shot reached by a cut
    (a held camera: a walk's stretches too, the walker crossing the frame); no cut between two shots of the same
    kind and people from nearly the same angle, and a walk's next stretch seen from at least WALK_CUT another way
    unless every such view hides the walker."""
    shots = exported["shots"]
    short = [s for s in shots[:-1] if s["end"] - s["start"] < MIN_SHOT - 1e-3 and not s["kind"].startswith("archery")]
    assert not short, short[:3]
    assert all(s["move"] == 0 for s in shots)
    k = np.asarray(exported["keys"])
    walks, wide = 0, 0
    for a, b in zip(shots, shots[1:]):
        if a["kind"] == b["kind"] and set(a["people"]) == set(b["people"]) and a["people"]:
            da, db = (keys_at(k, [t])[0] for t in (b["start"] - 0.01, b["start"] + 0.01))
            va, vb = da[4:6] - da[1:3], db[4:6] - db[1:3]
            cos = va @ vb / np.linalg.norm(va) / np.linalg.norm(vb)
            assert cos < np.cos(np.radians(SAME_ANGLE - 0.5)), (a, b)        # (the keys are rounded to 0.1 mm)
            if a["kind"] == "walk":
                walks += 1
                wide += cos < np.cos(np.radians(WALK_CUT - 0.5))
    assert walks > 100                                # long walks are cut into several stretches
    # a walk's next stretch from at least WALK_CUT another way, but where that would hide the walker behind a
    # wall, a column or the 乏 for most of the stretch (grammar_views.HIDDEN)
    assert wide >= 0.95 * walks, (wide, walks)
    kinds = {s["kind"] for s in shots}
    assert {"establish", "medium", "close", "walk"} <= kinds


def test_no_shot_hides_the_one_it_follows(plan, exported):
    """The shot's first person (the one the caption's act is about) is not behind the hall's walls, a column or the
    乏 for half the shot or more (sampled at five times): 29 shots did, mostly walks whose next stretch, kept at
    least WALK_CUT from the last, put the 西序 between the camera and the walker."""
    k = np.asarray(exported["keys"])
    boxes = [(np.min(lm.footprint, 0), np.max(lm.footprint, 0), lm.position[2] + (1.2 if name == "乏" else 3.5))
             for name in OBSTACLES if (lm := plan.landmarks.get(name)) is not None and lm.footprint]
    lo, hi, top = (np.array([b[i] for b in boxes], float) for i in range(3))
    assert len(boxes) >= 3                                     # the two 序 and the 乏 at least
    hidden = []
    for s in exported["shots"]:
        if not s["people"] or s["kind"].startswith("archery"):
            continue
        ts = np.linspace(s["start"] + 0.05, s["end"] - 0.05, 5)
        eyes = keys_at(k, ts)[:, 1:4]
        chest = plan.track(s["people"][0]).at(ts)[0] + [0.0, 0.0, 1.1]
        blocked = [_crosses(eyes[i:i + 1], chest[i:i + 1], lo, hi, top).any() for i in range(len(ts))]
        if np.mean(blocked) >= 0.5:
            hidden.append((s["start"], s["kind"], s["people"][0]))
    assert not hidden, hidden[:5]


def test_two_people_facing_each_other_are_filmed_from_one_side(plan, exported):
    """The 180° rule: consecutive shots framing the same two people who face each other keep the camera on one
    side of the line between them."""
    def facing(a, b, t):
        (pa,), (ha,) = plan.actors[a].track.at([t])
        (pb,), (hb,) = plan.actors[b].track.at([t])
        v = pb[:2] - pa[:2]
        n = np.linalg.norm(v)
        fa, fb = (np.array([np.sin(np.radians(h)), np.cos(np.radians(h))]) for h in (ha, hb))
        return (n > 0.3 and fa @ v > 0.3 * n and fb @ -v > 0.3 * n), pa, v

    checked = 0
    shots = exported["shots"]
    for x, y in zip(shots, shots[1:]):
        if len(x["people"]) != 2 or set(x["people"]) != set(y["people"]) or x["kind"].startswith("archery"):
            continue
        a, b = sorted(x["people"])
        sides = []
        for s in (x, y):
            t = (s["start"] + s["end"]) / 2
            face, pa, v = facing(a, b, t)
            if not face:
                break
            e = keys_at(exported["keys"], [t])[0][1:3] - pa[:2]
            sides.append(np.sign(v[0] * e[1] - v[1] * e[0]))
        if len(sides) == 2:
            checked += 1
            assert sides[0] == sides[1], (x, y)
    assert checked >= 3


def test_the_gltf_camera_follows_the_same_keys(tmp_path):
    """render.py export --camera: the GLB's camera node is animated along the path's keys (the eye folded along
    the line of sight where a key's vfov differs from the camera's)."""
    import pygltflib

    from reconstruct.exchange.channels import read_channels
    out = tmp_path / "c.glb"
    assert main(["export", "--plan", str(FIXTURES / "mini_plan.json"), "--glb", str(out), "--camera"]) == 0
    ts, xyz, _ = read_channels(pygltflib.GLTF2().load(str(out)))[("camera", "translation")]
    plan = Plan.load(FIXTURES / "mini_plan.json")
    want = keys_at(camera_path(plan, SIZE).keys(), ts)
    scale = np.tan(np.radians(want[:, 10]) / 2) / np.tan(np.radians(want[0, 10]) / 2)
    eye = want[:, 4:7] + (want[:, 1:4] - want[:, 4:7]) * scale[:, None]
    assert len(ts) > 10
    # Y-up: (x, z, -y); within 1 cm (a cut's two keys 5 ms apart, the times in float32)
    assert np.allclose(xyz, np.c_[eye[:, 0], eye[:, 2], -eye[:, 1]], atol=1e-2)


def test_a_written_path_reads_back_as_the_same_camera(mini, tmp_path):
    """render.py shots --json, then CameraPath.load (what render.py video --camera reads): the same camera at
    every time, to the keys' rounding; a malformed file is one line naming the place."""
    from reconstruct.errors import InputError
    from reconstruct.scene.shots import CameraPath
    out = tmp_path / "camera.json"
    assert main(["shots", "--plan", str(FIXTURES / "mini_plan.json"), "--json", str(out)]) == 0
    back = CameraPath.load(out)
    path = camera_path(mini, SIZE)
    assert [s.kind for s in back.shots] == [s.kind for s in path.shots]
    for t in np.arange(0.0, mini.duration, 0.5):
        a, b = path.at(t), back.at(t)
        assert np.allclose(a.eye, b.eye, atol=1e-3) and np.allclose(a.target, b.target, atol=1e-3), t
        assert a.cutaway == b.cutaway and a.view_angle == pytest.approx(b.view_angle, abs=1e-3)
    d = json.loads(out.read_text())
    good = [list(r) for r in d["keys"]]
    d["keys"][3][2] = "x"
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(d))
    with pytest.raises(InputError, match=r"bad.json:keys\[3\]: not a finite number"):
        CameraPath.load(bad)
    rc = main(["video", "--plan", str(FIXTURES / "mini_plan.json"), "--camera", str(bad), "--out", str(tmp_path / "v.mp4")])
    assert rc == 2 and not (tmp_path / "v.mp4").exists()
    for content, why in (("{", "not JSON"), ('{"format": "xiangshe-plan/1"}', "not a camera path"),
                         (json.dumps({**d, "keys": good[::-1]}), "times must increase")):
        bad.write_text(content)
        with pytest.raises(InputError, match=why):
            CameraPath.load(bad)
    with pytest.raises(InputError, match="is a folder"):
        CameraPath.load(tmp_path)
