"""The rigged GLB (``render.py export --rig``): skins, one animation per person, the film's camera, the
pose read back against the video's PlanSampler (joint world transforms within 1 mm / 0.5°), the Khronos
validator and Blender.

Cheap: an 8-second window of the session's plan around the first arrow loosed (the archer draws and
looses, the others stand), and the small hand-made plan (fixtures/plan_small.json).
"""
import json
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pygltflib
import pytest
from scipy.spatial.transform import Rotation

from reconstruct.exchange.channels import read_channels, sample_channel
from reconstruct.exchange.frames import Y_UP
from reconstruct.exchange.names import actor_node_name, prop_node_name
from reconstruct.exchange.people import pose_times
from reconstruct.exchange.rig import JOINTS, build_rigged, carried_spans, export_rigged, person_animation_name, trs_matrix
from reconstruct.model.defaults import FPS
from reconstruct.model.plan import Plan
from reconstruct.scene import figures as F
from reconstruct.scene.sampler import PlanSampler
from reconstruct.scene.shots import camera_path

ROOT = Path(__file__).resolve().parent.parent
TOOLS = ROOT.parent / "shared" / "tools"
FIXTURES = Path(__file__).parent / "fixtures"


# one worker builds this module's expensive fixtures once (pytest-xdist --dist loadgroup, .ci/run), the same
# that plans the passage's shots for the page and the camera path's tests (camera_path, once per process)
pytestmark = pytest.mark.xdist_group("passage_camera")


@pytest.fixture(scope="module")
def window(plan):
    t = plan.shots[0].loose
    return (t - 4.0, t + 4.0)


@pytest.fixture(scope="module")
def rig_glb(reading, plan, window, tmp_path_factory):
    path = tmp_path_factory.mktemp("rig") / "excerpt.glb"
    summary = export_rigged(reading, plan, path, window=window)
    return path, summary


@pytest.fixture(scope="module")
def gl(rig_glb):
    return pygltflib.GLTF2().load(str(rig_glb[0]))


@pytest.fixture(scope="module")
def channels(gl):
    return read_channels(gl)


def _world(gl, channels, parent, node: int, t: float) -> np.ndarray:
    """World 4x4 (glTF Y-up) of a node at t, composing the animated TRS of it and its ancestors."""
    M = np.eye(4)
    chain = []
    while node is not None:
        chain.append(node)
        node = parent.get(node)
    for i in reversed(chain):
        n = gl.nodes[i]
        trs = {"translation": n.translation or [0, 0, 0], "rotation": n.rotation or [0, 0, 0, 1],
               "scale": n.scale or [1, 1, 1]}
        for path in trs:
            ch = channels.get((n.name, path))
            if ch is not None:
                trs[path] = sample_channel(ch[0], ch[1], t, step=ch[2] == "STEP")
        M = M @ trs_matrix(trs["translation"], trs["rotation"], trs["scale"])
    return M


def _polar(R: np.ndarray) -> np.ndarray:
    u, _, vt = np.linalg.svd(R)
    return u @ vt


def test_structure_skins_and_animations(gl, plan, rig_glb, window):
    _, summary = rig_glb
    names = [n.name for n in gl.nodes]
    assert all(n.isascii() for n in names) and len(names) == len(set(names))
    assert len(gl.skins) == len(plan.actors) and summary["people"] == len(plan.actors)
    roots = set(gl.scenes[gl.scene].nodes)
    parent = {c: i for i, n in enumerate(gl.nodes) for c in (n.children or [])}
    for skin in gl.skins:
        assert [gl.nodes[j].name for j in skin.joints] == [f"{skin.name}_{p}" for p in JOINTS]
        assert all(parent[j] == skin.skeleton or gl.nodes[parent[j]].name.startswith(skin.name) for j in skin.joints)
        assert skin.skeleton not in skin.joints                # P_… is the armature, not a bone
    skinned = [i for i, n in enumerate(gl.nodes) if n.skin is not None]
    assert len(skinned) == len(plan.actors)
    for i in skinned:                                          # the skinned mesh node: a root, no transform
        n = gl.nodes[i]
        assert i in roots and n.translation is None and n.rotation is None and n.scale is None
        prim = gl.meshes[n.mesh].primitives[0]
        assert prim.attributes.JOINTS_0 is not None and prim.attributes.WEIGHTS_0 is not None
    # one animation per person (his ASCII id; the Chinese id and role in extras), one for props, one for the camera
    anims = {a.name: a for a in gl.animations}
    assert set(anims) == {person_animation_name(a) for a in plan.actors} | {"props", "camera"}
    sishe = anims[person_animation_name("司射")]
    assert sishe.extras["actor"] == "司射" and sishe.extras["role"] == "司射"
    for aid in plan.actors:                  # each person's animation moves only his own nodes
        a = anims[person_animation_name(aid)]
        own = {gl.nodes[c.target.node].name for c in a.channels}
        assert own and all(n == actor_node_name(aid) or n.startswith(actor_node_name(aid) + "_") for n in own)
    # keys only within the window, plan times kept
    for a in gl.animations:
        for s in a.samplers:
            acc = gl.accessors[s.input]
            assert acc.min[0] >= window[0] - 1e-3 and acc.max[0] <= window[1] + 1e-3
    ev = gl.scenes[gl.scene].extras["events"]
    assert ev and all(e["end"] >= window[0] and e["start"] <= window[1] for e in ev)


def test_bind_pose_skin_reproduces_the_parts(gl):
    """Each skinned vertex, taken back by its joint's inverse bind matrix, is a vertex of its part's own mesh
    (the figure's part in its joint's frame): weight 1 to one part, so the pose is the unrigged one."""
    from scipy.spatial import cKDTree

    from reconstruct.exchange.channels import accessor_array
    from reconstruct.exchange.frames import to_yup
    ibm = accessor_array(gl, gl.skins[0].inverseBindMatrices).reshape(-1, 4, 4).transpose(0, 2, 1)
    assert ibm.shape == (len(JOINTS), 4, 4) and np.allclose(ibm[:, 3], [0, 0, 0, 1])
    node = next(n for n in gl.nodes if n.skin is not None)
    parts = F.part_meshes(node.extras["actor"])
    trees = {p: cKDTree(to_yup(np.asarray(m.vertices))) for p, m in parts.items()}
    seen = set()
    for prim in gl.meshes[node.mesh].primitives:
        pos = accessor_array(gl, prim.attributes.POSITION)
        jo = accessor_array(gl, prim.attributes.JOINTS_0).astype(int)
        we = accessor_array(gl, prim.attributes.WEIGHTS_0)
        assert np.all(we[:, 0] == 1) and np.all(we[:, 1:] == 0) and np.all(jo[:, 1:] == 0)
        local = np.einsum("nij,nj->ni", ibm[jo[:, 0]], np.c_[pos, np.ones(len(pos))])[:, :3]
        for j in np.unique(jo[:, 0]):
            d, _ = trees[JOINTS[j]].query(local[jo[:, 0] == j])
            assert d.max() < 1e-5, JOINTS[j]
            seen.add(JOINTS[j])
    assert seen == set(JOINTS)


def test_joints_match_the_plan_sampler(gl, channels, plan, window):
    """At the sampled times the joints' world transforms are the video's (PlanSampler + figures) to 1 mm / 0.5°."""
    sampler = PlanSampler(plan)
    carried = carried_spans(plan)
    parent = {c: i for i, n in enumerate(gl.nodes) for c in (n.children or [])}
    index = {n.name: i for i, n in enumerate(gl.nodes)}
    checked = moving = 0
    for aid in plan.actors:
        name = actor_node_name(aid)
        # the times the exporter sampled (float64: the GLB's float32 key times may fall on the other side
        # of a step of the pose, e.g. the draw's)
        ts = pose_times(sampler.actors[aid], sampler.state_times(aid), carried.get(aid, []), plan.duration, FPS,
                        plan.actors[aid].gestures)
        keyed = ts[(ts > window[0]) & (ts < window[1])]
        if len(keyed) > 2:
            moving += 1
        times = [window[0], window[1]] + list(keyed[::max(1, len(keyed) // 5)][:5])
        for t in times:
            hold = [p for a, e, p in carried.get(aid, []) if a <= t < e] or None
            xyz, hd, params, state = sampler.actor_pose(aid, t, hold)
            want = F.world_transforms(*xyz, hd, params=params, state=state)
            for part in JOINTS:
                W = Y_UP @ want[part][:3, :3] @ Y_UP.T
                got = _world(gl, channels, parent, index[f"{name}_{part}"], t)
                if abs(np.linalg.det(W)) < 1e-9:                       # hidden (袒, 決遂): hidden in the GLB too
                    assert abs(np.linalg.det(got[:3, :3])) < 1e-9, (aid, part, t)
                    continue
                assert np.linalg.norm(got[:3, 3] - Y_UP @ want[part][:3, 3]) < 1e-3, (aid, part, t)
                ang = Rotation.from_matrix(_polar(got[:3, :3]).T @ _polar(W)).magnitude()
                assert np.degrees(ang) < 0.5, (aid, part, t, np.degrees(ang))
                checked += 1
    assert moving >= 1 and checked >= len(plan.actors) * 2 * (len(JOINTS) - 6)


def test_props_are_where_the_video_draws_them(gl, channels, plan, window):
    """Props keyed in world space: in the hands as the video holds them (the bow aimed, the arrow on the
    string, the others tucked in the belt), at rest as it lays them; to 1 mm / 0.5° at the sampled times."""
    from reconstruct.exchange.rig import HeldPoses, prop_matrices
    from reconstruct.render.layer import MovingLayer
    sampler = PlanSampler(plan)
    layer = MovingLayer(sampler)
    item = {ident: k for k, (kind, ident) in enumerate(layer.items) if kind == "prop"}
    parent = {c: i for i, n in enumerate(gl.nodes) for c in (n.children or [])}
    index = {n.name: i for i, n in enumerate(gl.nodes)}
    moving = sorted({n[2:] for (n, path) in channels if n.startswith("R_")})
    by_name = {prop_node_name(p)[2:]: p for p in plan.props}
    held = HeldPoses(plan, sampler)
    checked = carried = 0
    for pid in (by_name[m] for m in moving):
        ts, _ = prop_matrices(plan, sampler, held, pid, FPS, window)
        for t in ts[::max(1, len(ts) // 6)]:
            layer.update(float(t))
            V = layer.matrices[layer.part_start[item[pid]]]
            if abs(np.linalg.det(V[:3, :3])) < 1e-9:           # hidden by the video (the unstrung bow's twin shows)
                continue
            if sampler.carrier_of(pid, float(t)) is None and F.prop_kind(pid) == "弓":
                continue                  # set down, the bow lies flat (the video stands it on its grip)
            # the key written for t (its time rounded to float32): the draw steps the hand, an arrow flies 50 m/s
            got = _world(gl, channels, parent, index[prop_node_name(pid)], float(np.float32(t)))
            tol = 1e-3
            assert np.linalg.norm(got[:3, 3] - Y_UP @ V[:3, 3]) < tol, (pid, t)
            ang = Rotation.from_matrix(_polar(got[:3, :3]).T @ (Y_UP @ _polar(V[:3, :3]) @ Y_UP.T)).magnitude()
            assert np.degrees(ang) < 0.5, (pid, t, np.degrees(ang))
            checked += 1
            carried += sampler.carrier_of(pid, float(t)) is not None
    assert carried >= 10 and checked >= carried


def test_camera_is_the_films_with_cuts_as_step_keys(gl, channels, plan, window):
    cam = next(i for i, n in enumerate(gl.nodes) if n.camera is not None)
    node = gl.nodes[cam]
    assert gl.cameras[node.camera].perspective.yfov == pytest.approx(np.radians(38.0), abs=1e-6)
    t, v, interp = channels[("camera", "translation")]
    assert interp == "STEP" and channels[("camera", "rotation")][2] == "STEP"
    path = camera_path(plan, (1280, 720)).starting_at(window[0])
    shots = gl.scenes[gl.scene].extras["shots"]
    assert [s["kind"] for s in shots] == [s.kind for s in path.shots if s.t0 < window[1] and s.t1 > window[0]]
    assert node.extras["cuts"] == [s["t0"] for s in shots if s["cut"]]
    # at every frame of the window the keyed camera is where the video's is
    from reconstruct.exchange.frames import to_yup
    for k in range(int(np.ceil(window[0] * FPS)), int(window[1] * FPS), 7):
        got = sample_channel(t, v, k / FPS, step=True)
        assert np.linalg.norm(got - to_yup(path.at(k / FPS).eye)) < 1e-3, k


def test_small_plan_whole_passage(reading):
    """Without a window the whole passage is keyed; someone who never moves still has his animation."""
    small = Plan.load(FIXTURES / "plan_small.json")
    g, summary = build_rigged(reading, small)
    names = {a.name for a in g.animations}
    assert names == {person_animation_name(a) for a in small.actors} | {"camera"}     # its props never move
    ch = read_channels(g)
    t, v, _ = ch[("P_bin", "translation")]
    assert t[0] == 0 and t[-1] == pytest.approx(small.duration)


def test_bad_format(reading, tmp_path):
    small = Plan.load(FIXTURES / "plan_small.json")
    with pytest.raises(ValueError):
        export_rigged(reading, small, tmp_path / "s.obj", fmt="obj")
    assert not list(tmp_path.iterdir())


def test_khronos_validator(rig_glb):
    if shutil.which("node") is None:
        pytest.skip("node not installed: the Khronos glTF validator cannot run")
    if not (TOOLS / "gltf_validate.sh").exists():
        pytest.skip(f"validator script not found at {TOOLS}")
    r = subprocess.run(["bash", str(TOOLS / "gltf_validate.sh"), str(rig_glb[0])], capture_output=True, text=True,
                       timeout=300)
    if r.returncode == 2:
        pytest.skip("gltf-validator could not be set up: " + r.stdout[-200:])
    assert "0 errors, 0 warnings" in r.stdout.strip().splitlines()[-1], r.stdout


PROBE = r'''
import bpy, json, sys
out = {"armatures": {}, "markers": [[m.name, m.frame] for m in bpy.context.scene.timeline_markers],
       "frames": [bpy.context.scene.frame_start, bpy.context.scene.frame_end], "fps": bpy.context.scene.render.fps,
       "camera": bpy.context.scene.camera.name if bpy.context.scene.camera else None, "heads": {}}
frame = int(sys.argv[sys.argv.index("--") + 1])
bpy.context.scene.frame_set(frame)
for o in bpy.context.scene.objects:
    if o.type == "ARMATURE":
        ad = o.animation_data
        out["armatures"][o.name] = [ad.action.name if ad and ad.action else None, len(o.pose.bones)]
        for b in o.pose.bones:
            out["heads"][o.name + "/" + b.name] = list(o.matrix_world @ b.head)
print("PROBE" + json.dumps(out))
'''


def test_blender_setup_script(rig_glb, plan, window, tmp_path):
    """The set-up script runs headless: one armature and one action per person, a marker per event and per
    cut, the range of the export; the bones stand where the PlanSampler puts the joints (to 2 mm)."""
    if shutil.which("blender") is None:
        pytest.skip("blender not installed (apt-get install blender python3-numpy): the set-up script not run")
    from reconstruct.exchange.blender import write_blender_script
    script = write_blender_script(tmp_path / "setup.py", glb=rig_glb[0])
    blend = tmp_path / "scene.blend"
    r = subprocess.run(["blender", "-b", "--python", str(script), "--", str(rig_glb[0]), "--out", str(blend)],
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0 and blend.exists(), r.stdout[-2000:] + r.stderr[-2000:]
    frame = int(np.ceil(window[0] * FPS)) + 60
    probe = tmp_path / "probe.py"
    probe.write_text(PROBE)
    r = subprocess.run(["blender", "-b", str(blend), "--python", str(probe), "--", str(frame)],
                       capture_output=True, text=True, timeout=600)
    line = next(x for x in r.stdout.splitlines() if x.startswith("PROBE"))
    got = json.loads(line[5:])
    g = pygltflib.GLTF2().load(str(rig_glb[0]))
    extras = g.scenes[g.scene].extras
    assert len(got["armatures"]) == len(plan.actors)
    actions = [a for a, _ in got["armatures"].values()]
    assert None not in actions and len(set(actions)) == len(plan.actors)          # one action per person
    assert all(n == len(JOINTS) for _, n in got["armatures"].values())
    assert got["fps"] == FPS and got["frames"] == [int(np.floor(window[0] * FPS)), int(np.ceil(window[1] * FPS))]
    names = [m for m, _ in got["markers"]]
    assert sorted(n for n in names if not n.startswith("cut ")) == sorted(f"{e['footnote']} {e['id']}"
                                                                             for e in extras["events"])
    cuts = [f for m, f in got["markers"] if m.startswith("cut ")]
    assert cuts[1:] == [int(round(s["t0"] * FPS)) for s in extras["shots"] if s["cut"]]
    assert got["camera"] == "camera"
    # bone heads (joint origins) against the video's figures at that frame
    sampler = PlanSampler(plan)
    carried = carried_spans(plan)
    t = frame / FPS
    worst = 0.0
    for aid in plan.actors:
        hold = [p for a, e, p in carried.get(aid, []) if a <= t < e] or None
        xyz, hd, params, state = sampler.actor_pose(aid, t, hold)
        want = F.world_transforms(*xyz, hd, params=params, state=state)
        arma = next(k for k in got["armatures"] if k.split(".")[0] == actor_node_name(aid))
        for part in ("pelvis", "head", "r_forearm", "l_shin"):
            head = np.array(got["heads"][f"{arma}/{actor_node_name(aid)}_{part}"])
            worst = max(worst, float(np.linalg.norm(head - want[part][:3, 3])))
    assert worst < 0.002, worst


def test_command_line(tmp_path, capsys):
    from reconstruct import cli
    small = FIXTURES / "plan_small.json"
    glb, script = tmp_path / "s.glb", tmp_path / "setup.py"
    assert cli.main(["export", "--rig", "--plan", str(small), "--from", "5s", "--to", "20s", "--glb", str(glb),
                     "--blender-script", str(script)]) == 0
    g = pygltflib.GLTF2().load(str(glb))
    extras = g.scenes[g.scene].extras
    assert extras["start_s"] == 5.0 and extras["end_s"] == 20.0 and len(g.skins) == 3
    text = script.read_text()
    assert f"'glb': '{glb.resolve()}'" in text and "import bpy" in text and "reconstruct" not in text.split("SETTINGS")[2]
    compile(text, str(script), "exec")
    capsys.readouterr()
    for argv in (["export", "--plan", str(small), "--from", "5s", "--glb", str(tmp_path / "a.glb")],
                 ["export", "--rig", "--plan", str(small), "--from", "nosuch", "--glb", str(tmp_path / "b.glb")],
                 ["export", "--rig", "--plan", str(small), "--from", "30s", "--to", "10s", "--glb", str(tmp_path / "c.glb")],
                 ["export", "--rig", "--static", "--plan", str(small), "--glb", str(tmp_path / "d.glb")]):
        assert cli.main(argv) == 2, argv
        err = capsys.readouterr().err
        assert len(err.strip().splitlines()) == 1 and "Traceback" not in err, err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["s.glb", "setup.py"]
