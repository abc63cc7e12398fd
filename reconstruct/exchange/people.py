"""The people of the animated scene: one node per person with the figure's parts below it, the
root keyed from the plan's track and the parts from the figure's poses (sampled with the video's
:class:`~reconstruct.scene.sampler.PlanSampler`).

* person root: translation + rotation (about the vertical, from the heading), LINEAR, one key per
  plan key (exact duplicates dropped; a key at 0 and at the end so the clip spans the passage);
* figure parts: rotation (pelvis and skirt also translation, the skirt scale), LINEAR, sampled
  where the posture changes (a key at every change and across the short blend the video uses),
  through bows (phases of the gesture) and, while walking, at every quarter stride;
* 袒 and 決遂: STEP scale channels (0 or 1) on ``l_upper_arm`` / ``l_upper_arm_bare`` /
  ``l_guard`` / ``r_ring``, keyed where the plan's ``states`` change.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from ..model.plan import Plan, Track
from ..scene import figures as F
from ..scene.poses import local_transforms_many
from ..scene.sampler import PlanSampler
from .channels import MIN_DT, AnimWriter, heading_quat, quats_of, strictly_increasing
from .frames import Y_UP, to_yup
from .gltf import GltfBuilder
from .names import actor_node_name, ascii_name, unique_name

__all__ = ["gather_people", "PeopleSummary", "track_keys", "BOW_PHASES", "HOLD_BLEND"]

BOW_PHASES = (0.0, 0.15, 0.3, 0.5, 0.7, 0.85, 1.0)
HOLD_BLEND = 0.25       # s: arms change to/from holding something over this time

# parts whose rotation changes with the posture, and those whose translation does
_ROT_PARTS = ("pelvis", "skirt", "torso", "head", "l_upper_arm", "l_forearm", "r_upper_arm", "r_forearm",
              "l_sleeve", "r_sleeve",
              "l_thigh", "l_shin", "r_thigh", "r_shin")
_SHARED_ROT = {"l_upper_arm_bare": "l_upper_arm", "l_forearm_bare": "l_forearm"}
_TRANS_PARTS = ("pelvis", "skirt")
_SCALE_PARTS = ("skirt", "hem")
_VIS_PARTS = ("l_upper_arm", "l_upper_arm_bare", "l_guard", "r_ring", "l_shirt_upper", "l_shirt_fore")


def track_keys(track: Track, duration: float) -> tuple[np.ndarray, np.ndarray, np.ndarray, list]:
    """A track's keys without exact duplicates (a key at the same time and pose as the next gives way to
    it), spanning [0, duration]: (t, xyz, heading, posture)."""
    t, xyz, hd, post = track.t, track.xyz, track.heading, track.posture
    same = (np.abs(np.diff(t)) < 1e-9) & (np.diff(xyz, axis=0) == 0).all(axis=1) & (np.diff(hd) == 0)
    keep = np.r_[~same, True]
    t, xyz, hd, post = t[keep], xyz[keep], hd[keep], list(post[keep])
    if t[0] > 0:
        t, xyz, hd, post = np.r_[0.0, t], np.vstack([xyz[:1], xyz]), np.r_[hd[0], hd], [post[0], *post]
    if t[-1] < duration:
        t, xyz, hd, post = np.r_[t, duration], np.vstack([xyz, xyz[-1:]]), np.r_[hd, hd[-1]], [*post, post[-1]]
    return strictly_increasing(list(t)), xyz, hd, post


def _vis_scale(state: dict) -> dict[str, float]:
    bare, gear = bool(state.get("bare_left_arm")), bool(state.get("gear"))
    shirt = 1.0 if (bare and state.get("undershirt")) else 0.0       # 袒纁襦
    return {"l_upper_arm": 0.0 if bare else 1.0, "l_upper_arm_bare": 1.0 if bare else 0.0,
            "l_guard": 1.0 if (bare and gear) else 0.0, "r_ring": 1.0 if gear else 0.0,
            "l_shirt_upper": shirt, "l_shirt_fore": shirt}


class _PoseCache:
    """Joint parameters → Y-up (translation, quaternion, scale) of every part, memoised; the
    quaternions of all new poses of a batch come from one call to scipy."""

    _VISIBLE = {"bare_left_arm": False, "gear": True}
    _NAMES = [p for p in F.PARTS if p not in ("l_upper_arm_bare", "l_guard", "l_shirt_upper", "l_shirt_fore")]
    _INDEX = [F.PARTS.index(p) for p in _NAMES]

    def __init__(self) -> None:
        self.cache: dict[bytes, dict[str, tuple]] = {}

    @staticmethod
    def _key(params: dict[str, float]) -> bytes:
        return np.round(np.fromiter(params.values(), float, len(params)), 5).tobytes()

    def batch(self, many: list[dict[str, float]]) -> list[dict[str, tuple]]:
        keys = [self._key(p) for p in many]
        new = {k: p for k, p in zip(keys, many) if k not in self.cache}
        if new:
            # every new pose's local transforms in one pass (the same numbers as pose by pose)
            M = local_transforms_many(list(new.values()), [self._VISIBLE] * len(new))[:, self._INDEX]
            A = Y_UP @ M[..., :3, :3] @ Y_UP.T                   # rotation·scale in Y-up
            t = M[..., :3, 3] @ Y_UP.T
            sc = np.linalg.norm(A, axis=-2)                       # column norms = the scale
            q = quats_of((A / np.where(sc > 1e-12, sc, 1.0)[..., None, :]).reshape(-1, 3, 3)).reshape(*sc.shape[:2], 4)
            for j, k in enumerate(new):
                hit = {p: (t[j, i], q[j, i], sc[j, i]) for i, p in enumerate(self._NAMES)}
                hit["l_upper_arm_bare"] = hit["l_upper_arm"]
                for fixed in ("l_guard", "l_shirt_upper", "l_shirt_fore"):     # rigid on their parents
                    hit[fixed] = (np.zeros(3), np.array([0.0, 0, 0, 1]), np.ones(3))
                hit["r_ring"] = (hit["r_ring"][0], hit["r_ring"][1], np.ones(3))
                self.cache[k] = hit
        return [self.cache[k] for k in keys]


def carried_by(plan: Plan) -> dict[str, list[tuple[float, float, str]]]:
    """actor → [(t0, t1, prop id)] while the plan's ``carrier`` says the actor carries the prop."""
    out: dict[str, list] = {}
    for pid, prop in plan.props.items():
        cr = prop.carriers.rows()
        for i, (t0, who) in enumerate(cr):
            if who:
                t1 = cr[i + 1][0] if i + 1 < len(cr) else plan.duration
                out.setdefault(who, []).append((float(t0), float(t1), pid))
    return out


def _posture_change_times(track, i: int, nxt: float) -> list[float]:
    """Samples across the blend into a new posture, through a walk's quarter strides and a bow's phases."""
    t, post, ts = track.t, track.seg_post[i], []
    if i > 0 and track.seg_post[i - 1] != post:
        low = {"kneel", "kneel_bow"}
        ease = 0.8 if (track.seg_post[i - 1] in low) != (post in low) else 0.35
        ts += [t[i] + ease * f for f in (0.33, 0.67, 1.0) if t[i] + ease * f < nxt]
    if post == "walk" and i + 1 < len(t) and nxt > t[i]:
        d0, d1 = track.cum[i], track.cum[i + 1]
        q = F.STRIDE_M / 4
        k0, k1 = math.floor(d0 / q) + 1, math.ceil(d1 / q) - 1
        if k1 >= k0:
            d = np.arange(k0, k1 + 1) * q
            ts += list(t[i] + (d - d0) / (d1 - d0) * (nxt - t[i]))
        ts.append(nxt - 1e-3)
    if post in ("bow", "kneel_bow") and (i == 0 or track.seg_post[i - 1] != post):
        dur = track.run1[i] - track.run0[i]
        dur = dur if dur > 0 else 1.5
        ts += [track.run0[i] + min(0.999, ph) * dur for ph in BOW_PHASES]
    return ts


def pose_times(track, state_times: list[float], carried: list, duration: float, fps_hint: float,
               gestures=()) -> np.ndarray:
    """When a figure's pose is sampled: key times, blends, gestures (in, held, out; the draw in its
    steps), quarter strides, hold changes; no two samples closer than half a frame."""
    from ..scene.gestures import RELEASE, GestureTimeline, target_of
    t = track.t
    ts: list[float] = [0.0, duration, *t]
    for g in gestures:
        if target_of(g.kind) is None:
            continue
        a = GestureTimeline.attack(g)
        steps = np.linspace(g.t0, g.t1, 5)[1:-1].tolist() if g.kind == "draw" else []
        ts += [g.t0, g.t0 + a, *steps, g.t1, g.t1 + RELEASE]
    for i in range(len(t)):
        ts += _posture_change_times(track, i, t[i + 1] if i + 1 < len(t) else duration)
    # holding something changes the arms: a short blend before each change
    for c in list(state_times) + [c for a, b, _ in carried for c in (a, b)]:
        ts += [c - HOLD_BLEND, c]
    ts = np.unique(np.clip(np.asarray(ts, float), 0.0, duration))
    keep = [ts[0]]
    gap = max(MIN_DT, 0.5 / max(1.0, fps_hint))
    for x in ts[1:]:
        if x - keep[-1] >= gap:
            keep.append(x)
    if keep[-1] < duration:
        if duration - keep[-1] < gap:
            keep[-1] = duration
        else:
            keep.append(duration)
    return np.asarray(keep)


@dataclass
class PeopleSummary:
    roots: list[int] = field(default_factory=list)
    animated: int = 0
    role_meshes: dict[str, dict[str, int]] = field(default_factory=dict)
    poses: _PoseCache = field(default_factory=_PoseCache)


def _part_nodes(b: GltfBuilder, name: str, meshes: dict[str, int], first: dict, vis0: dict) -> dict[str, int]:
    """The figure's part nodes (children before parents so indices exist); rest TRS = the pose at t = 0."""
    idx: dict[str, int] = {}
    for part in reversed(F.PARTS):
        kids = [idx[c] for c in F.PARTS if F.PARENT[c] == part]
        tt, q, s = first[part]
        n = b.node(f"{name}_{part}", mesh=meshes[part], translation=tt, rotation=q, children=kids)
        sc = s * (vis0[part] if part in _VIS_PARTS else 1.0)
        if not np.allclose(sc, 1.0):
            b.gltf.nodes[n].scale = [float(x) for x in sc]
        idx[part] = n
    return idx


def _pose_channels(anim: AnimWriter, idx: dict[str, int], times, samples, vis_t, vis) -> None:
    for part in _ROT_PARTS:
        anim.channel(idx[part], "rotation", times, np.array([s[part][1] for s in samples]))
    for part, src in _SHARED_ROT.items():
        anim.channel(idx[part], "rotation", times, np.array([s[src][1] for s in samples]))
    for part in _TRANS_PARTS:
        anim.channel(idx[part], "translation", times, np.array([s[part][0] for s in samples]))
    for part in _SCALE_PARTS:
        anim.channel(idx[part], "scale", times, np.array([s[part][2] for s in samples]))
    for part in _VIS_PARTS:                                     # 袒 / 決遂: STEP scale
        anim.channel(idx[part], "scale", vis_t, np.array([[d[part]] * 3 for d in vis]), step=True)


def gather_person(b: GltfBuilder, anim: AnimWriter, sampler: PlanSampler, plan: Plan, aid: str, used: set[str],
                  carried: list, fps_hint: float, out: PeopleSummary) -> int:
    """One person: root node keyed from the plan's track, the figure's parts keyed from the poses."""
    duration = plan.duration
    actor = plan.actors[aid]
    role = F.role_of(aid)
    if role not in out.role_meshes:
        rn = ascii_name(role) if role != "default" else "default"
        out.role_meshes[role] = {p: b.coloured_mesh(f"fig_{rn}_{p}", m) for p, m in F.part_meshes(role).items()}
    name = unique_name(actor_node_name(aid), used)
    state_times = np.asarray(sampler.state_times(aid), float)
    times = pose_times(sampler.actors[aid], list(state_times), carried, duration, fps_hint, actor.gestures)
    samples = out.poses.batch([sampler.actor_pose(aid, float(t), [p for a, e, p in carried if a <= t < e] or None)[2]
                               for t in times])
    vis_t = np.unique(np.r_[0.0, state_times[(state_times >= 0) & (state_times <= duration)]])
    vis = [_vis_scale(sampler.state(aid, float(t))) for t in vis_t]
    idx = _part_nodes(b, name, out.role_meshes[role], samples[0], vis[0])
    kt, xyz, hd, _ = track_keys(actor.track, duration)
    root = b.node(name, translation=to_yup(xyz[0]), rotation=heading_quat(hd[0]), children=[idx["pelvis"]],
                  extras={"actor": aid, "label": actor.label or aid, "role": role, "aliases": list(actor.aliases)})
    moved = anim.channel(root, "translation", kt, to_yup(xyz)) | anim.channel(root, "rotation", kt, heading_quat(hd))
    _pose_channels(anim, idx, times, samples, vis_t, vis)
    if not moved:           # someone who never moves still gets his place keyed over the passage
        anim.channel(root, "translation", [0.0, max(duration, MIN_DT)], to_yup([xyz[0], xyz[0]]), prune=False)
    out.animated += moved
    return root


def gather_people(b: GltfBuilder, anim: AnimWriter, plan: Plan, sampler: PlanSampler, used: set[str],
                  fps_hint: float) -> PeopleSummary:
    """Every person of the plan (meshes shared per role and part)."""
    out = PeopleSummary()
    carried = carried_by(plan)
    for aid in plan.actors:
        out.roots.append(gather_person(b, anim, sampler, plan, aid, used, carried.get(aid, []), fps_hint, out))
    return out
