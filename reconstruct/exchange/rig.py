"""Rigged people for Blender and other DCC tools: each person one skinned mesh bound to a skeleton whose
joints are the figure's parts (:data:`reconstruct.scene.figures.PARTS`), and one animation per person.

* **Skeleton.** ``P_<id>`` (not a joint: the skin's ``skeleton``; Blender makes it the armature
  object) carries the plan's track (translation + rotation about the vertical, LINEAR, one key per
  plan key); below it one joint per part, parented as :data:`~reconstruct.scene.figures.PARENT`
  (``P_<id>_pelvis`` → ``_torso`` → ``_head`` …), keyed from the video's poses (the
  :class:`~reconstruct.scene.sampler.PlanSampler`, sampled where :func:`.people.pose_times` says).
  The joints' local TRS are exactly the unrigged export's part nodes, so the pose is the same.
* **Skin.** One mesh per role (shared by the people of that role), every vertex weighted 1 to the
  part it belongs to, in the bind pose of :func:`bind_pose` (standing, everything shown, at the
  origin facing north); one inverse-bind-matrix accessor shared by all skins.  The skinned mesh node
  ``M_<id>`` is a root of the scene without a transform of its own (glTF ignores it: the joints
  place the mesh).
* **袒, 決遂, 纁襦** are STEP scale channels (0 hides, 1 shows) of the variant joints
  (``l_upper_arm`` / ``l_upper_arm_bare`` / ``l_guard`` / ``r_ring`` / ``l_shirt_*``), as in the
  unrigged export; a hidden joint's vertices collapse onto it (and its children's with it).
* **One animation per person**, named with the person's ASCII id (``sishe``) and carrying the
  Chinese id, label and role in its ``extras``; Blender's importer gives each an action on the
  person's armature.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pygltflib as g

from ..model.defaults import FPS, FRAME_SIZE
from ..model.plan import Plan
from ..outputs import atomic_path
from ..scene import figures as F
from ..scene.ground import build_ground, set_out_fixtures
from ..scene.handling import held_matrix, resting_prop
from ..scene.poses import local_transforms
from ..scene.sampler import PlanSampler
from ..scene.shots import camera_path
from .animation import _look_quat, gather_events, prop_kind_mesh
from .channels import MIN_DT, AnimWriter, heading_quat, quats_of
from .frames import Y_UP, to_yup
from .gltf import ARRAY_BUFFER, ELEMENT_ARRAY_BUFFER, GltfBuilder, gltf_from_parts, write_gltf
from .names import actor_node_name, ascii_name, prop_node_name, unique_name
from .people import _PoseCache, _pose_channels, _vis_scale, _VIS_PARTS, carried_by, pose_times, track_keys

__all__ = ["JOINTS", "carried_spans", "RiggedPeople", "gather_rigged_people", "gather_rigged_props", "gather_film_camera", "HeldPoses",
           "prop_matrices", "build_rigged", "export_rigged", "bind_pose", "trs_matrix", "person_animation_name"]

#: the joints of every skeleton, in the order of every skin's ``joints`` (the JOINTS_0 indices)
JOINTS: tuple[str, ...] = F.PARTS


def trs_matrix(t, q, s) -> np.ndarray:
    """4x4 of a glTF TRS (quaternion xyzw)."""
    x, y, z, w = np.asarray(q, float)
    R = np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
                  [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
                  [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)]])
    M = np.eye(4)
    M[:3, :3] = R * np.asarray(s, float)
    M[:3, 3] = t
    return M


def bind_pose(cache: _PoseCache) -> dict[str, np.ndarray]:
    """The bind pose (glTF Y-up, in the person's own frame): each joint's 4x4 when the figure stands
    at the origin facing north with every variant part shown (scale 1)."""
    local = cache.batch([F.pose_params("stand")])[0]
    out: dict[str, np.ndarray] = {}
    for part in JOINTS:                                   # parents before children
        L = trs_matrix(local[part][0], local[part][1], np.ones(3))
        parent = F.PARENT[part]
        out[part] = L if parent is None else out[parent] @ L
    return out


def person_animation_name(aid: str) -> str:
    """The animation of a person: his ASCII id (司射 → ``sishe``)."""
    return ascii_name(aid)


@dataclass
class RiggedPeople:
    roots: list[int] = field(default_factory=list)          # the P_ nodes (armatures), under "people"
    skinned: list[int] = field(default_factory=list)        # the M_ nodes (scene roots)
    writers: list[AnimWriter] = field(default_factory=list)
    role_meshes: dict[str, int] = field(default_factory=dict)
    poses: _PoseCache = field(default_factory=_PoseCache)
    ibm: int | None = None
    bind: dict[str, np.ndarray] = field(default_factory=dict)
    held: "HeldPoses | None" = None                         # what their hands hold at their pose times


def _skinned_mesh(b: GltfBuilder, role: str, bind: dict[str, np.ndarray]) -> int:
    """One mesh of a role's figure in the bind pose, a primitive per colour, each vertex weighted 1 to its part."""
    V, N, C, J, Fc = [], [], [], [], []
    off = 0
    for part, m in F.part_meshes(role).items():
        if part not in JOINTS:
            continue
        B = bind[part]
        v = to_yup(np.asarray(m.vertices, float)) @ B[:3, :3].T + B[:3, 3]
        n = np.asarray(m.vertex_normals, float)
        ln = np.linalg.norm(n, axis=1, keepdims=True)
        n = np.where(ln > 1e-9, n / np.where(ln > 1e-9, ln, 1.0), [0.0, 0.0, 1.0])
        n = to_yup(n) @ B[:3, :3].T
        V.append(v)
        N.append(n)
        C.append(np.asarray(m.visual.vertex_colors)[:, :3])
        J.append(np.full(len(v), JOINTS.index(part)))
        Fc.append(np.asarray(m.faces) + off)
        off += len(v)
    V, N, C, J, Fc = np.vstack(V), np.vstack(N), np.vstack(C), np.concatenate(J), np.vstack(Fc)
    fc = C[Fc[:, 0]]
    prims = []
    for col in np.unique(fc, axis=0):
        sel = Fc[np.all(fc == col, axis=1)]
        used, inv = np.unique(sel.reshape(-1), return_inverse=True)
        joints = np.zeros((len(used), 4), np.uint8)
        joints[:, 0] = J[used]
        weights = np.zeros((len(used), 4), np.float32)
        weights[:, 0] = 1.0
        attrs = g.Attributes(
            POSITION=b.accessor(V[used], kind="VEC3", target=ARRAY_BUFFER, minmax=True),
            NORMAL=b.accessor(N[used], kind="VEC3", target=ARRAY_BUFFER),
            JOINTS_0=b.accessor(joints, kind="VEC4", target=ARRAY_BUFFER),
            WEIGHTS_0=b.accessor(weights, kind="VEC4", target=ARRAY_BUFFER))
        prims.append(g.Primitive(attributes=attrs, material=b.material(tuple(float(c) / 255 for c in col)),
                                 indices=b.accessor(inv.reshape(-1), kind="SCALAR", target=ELEMENT_ARRAY_BUFFER)))
    b.gltf.meshes.append(g.Mesh(name=f"rig_{ascii_name(role) if role != 'default' else 'default'}", primitives=prims))
    return len(b.gltf.meshes) - 1


def carried_spans(plan: Plan) -> dict[str, list[tuple[float, float, str]]]:
    """actor → [(t0, t1, prop)] while he carries it (t0 ≤ t < t1), as ``sampler.carrier_of`` says: what is
    carried at the end of the passage is still carried at its last moment."""
    end = float("inf")
    return {who: [(a, end if e >= plan.duration else e, p) for a, e, p in rows]
            for who, rows in carried_by(plan).items()}


def _window_times(times: np.ndarray, window: tuple[float, float] | None) -> np.ndarray:
    if window is None:
        return times
    t0, t1 = window
    inside = times[(times > t0 + MIN_DT) & (times < t1 - MIN_DT)]
    return np.r_[t0, inside, t1]


def gather_rigged_person(b: GltfBuilder, sampler: PlanSampler, plan: Plan, aid: str, used: set[str], carried: list,
                         fps_hint: float, out: RiggedPeople, window: tuple[float, float] | None = None) -> None:
    duration = plan.duration
    actor = plan.actors[aid]
    role = F.role_of(aid)
    if role not in out.role_meshes:
        out.role_meshes[role] = _skinned_mesh(b, role, out.bind)
    name = unique_name(actor_node_name(aid), used)
    extras = {"actor": aid, "label": actor.label or aid, "role": role, "aliases": list(actor.aliases)}
    anim = AnimWriter(b, name=person_animation_name(aid), extras=extras, window=window)
    state_times = np.asarray(sampler.state_times(aid), float)
    times = _window_times(pose_times(sampler.actors[aid], list(state_times), carried, duration, fps_hint,
                                     actor.gestures), window)
    params = []
    for t in times:
        held = [p for a, e, p in carried if a <= t < e]
        pose = sampler.actor_pose(aid, float(t), held or None)
        params.append(pose[2])
        if held and out.held is not None:          # the things in his hands at this pose, for the props
            out.held.at(aid, float(t), pose)
    samples = out.poses.batch(params)
    vis_t = np.unique(np.r_[0.0, state_times[(state_times >= 0) & (state_times <= duration)]])
    vis = [_vis_scale(sampler.state(aid, float(t))) for t in vis_t]
    w0 = 0.0 if window is None else window[0]
    vis0 = _vis_scale(sampler.state(aid, w0))
    first = samples[0]
    idx: dict[str, int] = {}
    for part in reversed(JOINTS):                               # children first, so their indices exist
        kids = [idx[c] for c in JOINTS if F.PARENT[c] == part]
        t, q, s = first[part]
        n = b.node(f"{name}_{part}", translation=t, rotation=q, children=kids)
        sc = s * (vis0[part] if part in _VIS_PARTS else 1.0)
        if not np.allclose(sc, 1.0):
            b.gltf.nodes[n].scale = [float(x) for x in sc]
        idx[part] = n
    kt, xyz, hd, _ = track_keys(actor.track, duration)
    if window is not None:
        p0, h0, _, _ = sampler.actors[aid].position(w0)
    else:
        p0, h0 = xyz[0], hd[0]
    root = b.node(name, translation=to_yup(p0), rotation=heading_quat(h0), children=[idx["pelvis"]], extras=extras)
    anim.channel(root, "translation", kt, to_yup(xyz), prune=False)      # every person has his action
    anim.channel(root, "rotation", kt, heading_quat(hd))
    _pose_channels(anim, idx, times, samples, vis_t, vis)
    b.gltf.skins.append(g.Skin(name=name, inverseBindMatrices=out.ibm, skeleton=root,
                               joints=[idx[p] for p in JOINTS]))
    mesh_node = b.node(f"M_{name[2:]}", mesh=out.role_meshes[role], extras={"actor": aid, "skin_of": name})
    b.gltf.nodes[mesh_node].skin = len(b.gltf.skins) - 1
    anim.finish()
    out.roots.append(root)
    out.skinned.append(mesh_node)
    out.writers.append(anim)


def gather_rigged_people(b: GltfBuilder, plan: Plan, sampler: PlanSampler, used: set[str], fps_hint: float,
                         window: tuple[float, float] | None = None) -> RiggedPeople:
    """Every person of the plan rigged, with his own animation (see the module doc)."""
    out = RiggedPeople()
    out.bind = bind_pose(out.poses)
    ibm = np.stack([np.linalg.inv(out.bind[p]).T.reshape(16) for p in JOINTS])    # column-major MAT4
    ibm[:, [3, 7, 11]] = 0.0
    ibm[:, 15] = 1.0
    out.ibm = b.accessor(ibm, kind="MAT4", target=None)
    out.held = HeldPoses(plan, sampler)
    carried = out.held.carried
    for aid in plan.actors:
        gather_rigged_person(b, sampler, plan, aid, used, carried.get(aid, []), fps_hint, out, window)
    return out



# ---------------------------------------------------------------------------
# the props: keyed in world space, in the hands as the video holds them

#: a bow at rest lies flat: its limbs (local z) along its local x, as the unrigged export lays it
LIE_FLAT = np.array([[0.0, 0, 1, 0], [0, 1, 0, 0], [-1, 0, 0, 0], [0, 0, 0, 1]])


class HeldPoses:
    """World 4x4 of every prop a person carries at a time, as the video poses them
    (:func:`reconstruct.scene.handling.held_matrix`, the same figures and gestures), memoised by (person, time)."""

    def __init__(self, plan: Plan, sampler: PlanSampler):
        self.plan, self.sampler = plan, sampler
        self.carried = carried_spans(plan)                 # actor → [(t0, t1, prop)] in the plan's prop order
        self.cache: dict[tuple[str, float], dict[str, np.ndarray]] = {}
        self._times: dict[str, np.ndarray] = {}
        self._local: dict[tuple, dict[str, np.ndarray]] = {}

    def carrying(self, holder: str, t: float) -> list[str]:
        return [p for a, e, p in self.carried.get(holder, []) if a <= t < e]

    def at(self, holder: str, t: float, pose: tuple | None = None) -> dict[str, np.ndarray]:
        """{prop: world 4x4} of what ``holder`` carries at ``t`` (``pose``: his ``actor_pose`` at t, when known)."""
        key = (holder, t)
        hit = self.cache.get(key)
        if hit is None:
            held = self.carrying(holder, t)
            xyz, hd, params, state = pose if pose is not None else self.sampler.actor_pose(holder, t, held or None)
            lk = (np.round(np.fromiter(params.values(), float, len(params)), 6).tobytes(),
                  bool(state.get("bare_left_arm")), bool(state.get("gear")), bool(state.get("undershirt")))
            local = self._local.get(lk)
            if local is None:                      # most poses repeat (standing, holding): one local set each
                local = self._local[lk] = local_transforms(params, state)
            holding = list(state.get("holding") or [])
            gestures = state.get("gestures") or ()
            w = F.chain(F.root_transform(*xyz, hd), local)
            tucked: dict[str, int] = {}
            hit = {p: held_matrix(self.sampler, p, holder, w, hd, gestures, holding + held, tucked, t,
                                  strings=False)[0] for p in held}
            self.cache[key] = hit
        return hit

    def pose_times(self, holder: str, fps_hint: float) -> np.ndarray:
        if holder not in self._times:
            a = self.plan.actors[holder]
            self._times[holder] = pose_times(self.sampler.actors[holder], self.sampler.state_times(holder),
                                             self.carried.get(holder, []), self.plan.duration, fps_hint, a.gestures)
        return self._times[holder]


def prop_matrices(plan: Plan, sampler: PlanSampler, held: HeldPoses, pid: str, fps_hint: float,
                  window: tuple[float, float] | None = None) -> tuple[np.ndarray, np.ndarray]:
    """(times, world 4x4s) of a prop: at its plan keys while nobody carries it (lying as the video lays it:
    :func:`reconstruct.scene.handling.resting_prop`, but a bow flat on the floor), and while carried at the carrier's pose times, in
    his hands.  Times within ``window`` (and its ends) when given."""
    prop = plan.props[pid]
    motion = sampler.props[pid]
    lying = F.prop_kind(prop.kind or pid) == "弓"
    t0, t1 = window if window is not None else (0.0, plan.duration)
    spans = [(a, e, who) for who, rows in held.carried.items() for a, e, p in rows if p == pid and who in plan.actors]
    ts = [float(x) for x in prop.track.t] + [t0, t1]
    for a, e, who in spans:
        pt = held.pose_times(who, fps_hint)
        ts += [a, max(a, min(e, plan.duration) - MIN_DT), *pt[(pt > a) & (pt < e)]]
    ts = np.unique(np.clip(np.asarray(ts, float), t0, t1))
    ts = ts[np.r_[True, np.diff(ts) >= MIN_DT / 2]]
    out = np.empty((len(ts), 4, 4))
    for i, t in enumerate(ts):
        who = sampler.carrier_of(pid, float(t))
        if who in plan.actors:
            out[i] = held.at(who, float(t))[pid]
        else:
            xyz, hd, k, _ = motion.position(float(t))
            out[i] = resting_prop(pid, motion, float(t), xyz, hd, k)
            if lying:                       # a bow set down lies on the floor (the video stands it on its grip)
                out[i] = out[i] @ LIE_FLAT
    return ts, out


def gather_rigged_props(b: GltfBuilder, anim: AnimWriter, plan: Plan, sampler: PlanSampler, used: set[str],
                        fps_hint: float, window: tuple[float, float] | None = None,
                        held: "HeldPoses | None" = None) -> tuple[list[int], int]:
    """Every prop as a node keyed in world space (translation + rotation, LINEAR): at rest where the plan
    lays it, carried in the carrier's hands as the video draws it.  Returns (nodes, how many move)."""
    held = held if held is not None else HeldPoses(plan, sampler)
    kind_meshes: dict[str, int] = {}
    nodes, moving = [], 0
    for pid, prop in plan.props.items():
        kind, mesh = prop_kind_mesh(b, kind_meshes, pid, prop)
        ts, M = prop_matrices(plan, sampler, held, pid, fps_hint, window)
        u, _, vt = np.linalg.svd(M[:, :3, :3])
        R = u @ vt                                          # the rotation (the held matrices are rigid)
        T = to_yup(M[:, :3, 3])
        Q = quats_of(Y_UP @ R @ Y_UP.T)
        n = b.node(unique_name(prop_node_name(pid), used), mesh=mesh, translation=T[0], rotation=Q[0],
                   extras={"prop": pid, "kind": kind, "label": prop.label or pid})
        moved = anim.channel(n, "translation", ts, T) | anim.channel(n, "rotation", ts, Q)
        if kind == "侯":                # the ground draws the 侯 where the reading hangs it: shown only while carried
            shown = np.array([[float(sampler.carrier_of(pid, float(t)) in plan.actors)] * 3 for t in ts])
            if not shown[0, 0]:
                b.gltf.nodes[n].scale = [0.0, 0.0, 0.0]
            moved |= anim.channel(n, "scale", ts, shown, step=True)
        moving += moved
        nodes.append(n)
    return nodes, moving


# ---------------------------------------------------------------------------
# the film's camera, the scene

def gather_film_camera(b: GltfBuilder, anim: AnimWriter, plan: Plan, window: tuple[float, float],
                       fps: float) -> tuple[int, list[dict]] | None:
    """The video's camera (:func:`reconstruct.scene.shots.camera_path`, as ``render.py video`` films
    the same range) as one camera node keyed with STEP: a key where each shot is reached by a cut and,
    through an eased move, one key a quarter of a frame before every frame (so that Blender, at each
    frame, shows what the video shows).  Returns (node, the shots within the window)."""
    t0, t1 = window
    path = camera_path(plan, FRAME_SIZE).starting_at(t0)
    if not path.shots:
        return None
    ts: list[float] = []
    vals: list[float] = []
    shots: list[dict] = []
    early = 0.25 / fps
    for i, s in enumerate(path.shots):
        if s.t0 >= t1 or s.t1 <= t0:
            continue
        a = max(s.t0, t0)
        d = path.moves[i] if i < len(path.moves) else 0.0
        shots.append({"t0": round(a, 4), "t1": round(min(s.t1, t1), 4), "kind": s.kind, "cut": bool(i > 0 and d <= 0),
                      "move_s": round(float(d), 3), "yfov_deg": s.pose.view_angle, "cutaway": s.pose.cutaway,
                      "events": list(s.events)})
        if d > 0 and i > 0:
            k0, k1 = int(np.ceil(a * fps - 1e-9)), int(np.floor((s.t0 + d) * fps))
            frames = [k / fps for k in range(k0, k1 + 1) if t0 <= k / fps < t1]
            ts += [max(a, f - early) if j == 0 else f - early for j, f in enumerate(frames)]
            vals += frames
            end = s.t0 + d
            if end < t1 and (not frames or end > frames[-1]):
                ts.append(end)
                vals.append(end)
        else:
            ts.append(a)
            vals.append(a)
    order = np.r_[True, np.diff(ts) > MIN_DT / 2]
    ts = list(np.asarray(ts)[order])
    vals = list(np.asarray(vals)[order])
    poses = [path.at(float(t)) for t in vals]
    T = to_yup(np.array([p.eye for p in poses], float))
    Q = np.array([_look_quat(p.eye, p.target, p.up) for p in poses])
    b.gltf.cameras.append(g.Camera(type="perspective", name="film", perspective=g.Perspective(
        aspectRatio=FRAME_SIZE[0] / FRAME_SIZE[1], yfov=float(np.radians(path.shots[0].pose.view_angle)),
        znear=0.1, zfar=500.0)))
    n = b.node("camera", translation=T[0], rotation=Q[0],
               extras={"follows": "reconstruct.scene.shots.camera_path (the video's shots)",
                       "cuts": [s["t0"] for s in shots if s["cut"]]})
    b.gltf.nodes[n].camera = len(b.gltf.cameras) - 1
    anim.channel(n, "translation", ts, T, step=True, prune=False)
    anim.channel(n, "rotation", ts, Q, step=True, prune=False)
    return n, shots


def build_rigged(reading, plan: Plan, *, fps: float | None = None, window: tuple[float, float] | None = None,
                 ground_parts=None) -> tuple[g.GLTF2, dict]:
    """The rigged scene: the ground, every person rigged with his own animation, the props (one
    animation, ``props``), the film's camera (one animation, ``camera``); ``window`` (plan seconds)
    keeps only that range of the passage (plan times are kept: an event at 120 s is at 120 s).
    Returns the GLTF2 and a summary."""
    fps = float(fps or FPS)
    t0, t1 = window if window is not None else (0.0, plan.duration)
    parts = ground_parts if ground_parts is not None else build_ground(reading)
    laid = set_out_fixtures(reading, plan.props)      # the first half's things set out: drawn as its props
    parts = [p for p in parts if p.landmark not in laid]
    b, ground_root = gltf_from_parts(parts, reading, finish=False)
    used: set[str] = {n.name for n in b.gltf.nodes}
    sampler = PlanSampler(plan)
    people = gather_rigged_people(b, plan, sampler, used, fps, window)
    props_anim = AnimWriter(b, name="props", extras={"what": "every prop, keyed in world space"}, window=window)
    props, moving = gather_rigged_props(b, props_anim, plan, sampler, used, fps, window, people.held)
    props_anim.finish()
    cam_anim = AnimWriter(b, name="camera", extras={"what": "the film's camera: STEP keys, cuts and eased moves"},
                          window=window)
    cam = gather_film_camera(b, cam_anim, plan, (t0, t1), fps)
    cam_anim.finish()
    roots = [ground_root,
             b.node("people", children=people.roots, extras={"count": len(people.roots)}),
             b.node("props", children=props, extras={"count": len(props)})]
    shots = []
    if cam is not None:
        roots.append(cam[0])
        shots = cam[1]
    roots += people.skinned
    events = [e for e in gather_events(plan) if e["end"] >= t0 and e["start"] <= t1]
    scene_extras = {
        "frame": "glTF Y-up: x east, y up, z south (plan (east, north, up) → (x, z, -y)); metres",
        "time_base": "plan seconds; one animation per person (his ASCII id), 'props' and 'camera'",
        "rigged": True, "start_s": t0, "end_s": t1,
        "duration_s": plan.duration, "fps_hint": fps, "plan_format": plan.format,
        "layout": plan.layout.to_dict(), "text": dict(plan.text), "reading": reading.name,
        "events": events, "shots": shots,
    }
    gltf = b.finish(roots, scene_extras=scene_extras)
    gltf.scenes[0].name = "xiangshe"
    writers = people.writers + [props_anim, cam_anim]
    summary = {"people": len(people.roots), "props": len(props), "moving_props": moving,
               "animations": len(gltf.animations), "channels": sum(len(w.channels) for w in writers),
               "keys": sum(w.keys for w in writers), "joints": len(people.roots) * len(JOINTS),
               "shots": len(shots), "cuts": sum(s["cut"] for s in shots), "events": len(events)}
    return gltf, summary


def export_rigged(reading, plan: Plan, target, fmt: str = "glb", fps: float | None = None,
                  window: tuple[float, float] | None = None) -> dict:
    """Write the rigged scene (GLB or glTF); the file appears only when complete.  Returns the summary."""
    fmt = fmt.lower()
    if fmt not in ("glb", "gltf"):
        raise ValueError(f"unknown format {fmt!r}: the rigged export writes glb or gltf")
    gltf, summary = build_rigged(reading, plan, fps=fps, window=window)
    with atomic_path(Path(target)) as tmp:
        write_gltf(gltf, tmp, binary=fmt == "glb")
        tmp.chmod(0o644)
    return summary
