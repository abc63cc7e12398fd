"""How a figure stands: joint parameters of each posture, blends between them, the gait.

Posture ``phase`` ∈ [0, 1): the gait phase for ``walk`` (one full stride per cycle), the progress
through the gesture for ``bow``/``kneel_bow`` (the bow goes down and comes back up within the
phase), unused for ``stand``/``kneel``.

Poses are first computed as a flat dict of joint parameters (:func:`pose_params`), which can be
blended (:func:`blend_params`) so that a renderer can ease from one posture to the next (rising
from kneeling, …), then turned into local 4x4 transforms (:func:`local_transforms`).
:func:`pose` does both; :func:`world_transforms` places the figure in the world.
"""
from __future__ import annotations

from functools import lru_cache

import math

import numpy as np
import trimesh

from .figures import (HIP_SWING, HIP_Z, JOINT_OFFSET, PARTS, SKIRT_HEM, STRIDE_M, WAIST, _merge, _t, rotations,
                      chain, part_meshes, root_transform)
from ..model.vocabulary import Posture
from .props import CUPS, TWO_HANDED, prop_kind

__all__ = ["POSTURES", "pose_params", "blend_params", "local_transforms", "pose", "world_transforms",
           "gait_phase", "figure_mesh"]

POSTURES: tuple[str, ...] = tuple(Posture)      # (model/vocabulary.py)
KNEEL_BACK = -0.17      # metres the hips go back when one kneels


def _smooth(e0: float, e1: float, x: float) -> float:
    if e1 == e0:
        return float(x >= e1)
    u = min(1.0, max(0.0, (x - e0) / (e1 - e0)))
    return u * u * (3 - 2 * u)


def _envelope(phase: float, attack: float = 0.3, release: float = 0.3) -> float:
    """0 → 1 → 0 over the gesture: down in the first ``attack``, up in the last ``release``."""
    return _smooth(0.0, attack, phase) * (1.0 - _smooth(1.0 - release, 1.0, phase))


# arm parameters: raise (forward, about x), abd (out to the side), yaw (inward, about z), elbow (flex)
_PARAM_KEYS = (
    "pelvis_z", "pelvis_dy", "pelvis_pitch", "torso_pitch", "torso_roll", "torso_yaw", "head_pitch", "head_yaw",
    "skirt_sx", "skirt_sy", "skirt_sz", "skirt_dy", "skirt_pitch", "hem_sy", "hem_pitch",
    "l_raise", "l_abd", "l_yaw", "l_elbow", "r_raise", "r_abd", "r_yaw", "r_elbow",
    "l_hip", "l_knee", "r_hip", "r_knee", "l_hip_abd", "r_hip_abd",
)


def _base() -> dict[str, float]:
    p = dict.fromkeys(_PARAM_KEYS, 0.0)
    p.update(pelvis_z=HIP_Z, skirt_sx=1.0, skirt_sy=1.0, skirt_sz=1.0, hem_sy=1.0)
    return p


def _arms(p: dict, raise_: float, abd: float, yaw: float, elbow: float) -> None:
    for s in "lr":
        p[f"{s}_raise"], p[f"{s}_abd"], p[f"{s}_yaw"], p[f"{s}_elbow"] = raise_, abd, yaw, elbow


def _kneel_base(p: dict) -> None:
    p["pelvis_z"] = 0.27
    # one kneels where one stood: the knees come forward of the feet's place, the seat goes back over
    # the heels (the place stays under the middle of the kneeling figure)
    p["pelvis_dy"] = KNEEL_BACK
    for s in "lr":
        p[f"{s}_hip"] = 68.0
        p[f"{s}_knee"] = -158.0
        p[f"{s}_hip_abd"] = 6.0
    # the robe spreads over the folded legs
    p["skirt_sz"] = (0.27 + WAIST) / (HIP_Z + WAIST - SKIRT_HEM) * 1.02
    p["skirt_sy"] = 1.75
    p["skirt_sx"] = 1.12
    p["skirt_dy"] = 0.17


def pose_params(posture: str, phase: float = 0.0, state: dict | None = None) -> dict[str, float]:
    """Joint parameters (degrees, metres) of a posture at ``phase``; see the module doc.

    ``state`` may change the arms: ``holding`` a bow raises the left forearm, a cup
    or dish is held before the chest with both hands, a 瑟 carried standing or walking is up on the left
    shoulder (左何瑟).
    """
    state = state or {}
    phase = float(phase) % 1.0
    p = _base()
    holding = [prop_kind(h) for h in state.get("holding") or ()]
    two_handed = any(k in TWO_HANDED for k in holding)
    if posture == "walk":
        w = 2 * math.pi * phase
        swing = math.sin(w)
        p["pelvis_z"] = HIP_Z - 0.025 * (1 - abs(math.cos(w)))
        p["l_hip"], p["r_hip"] = HIP_SWING * swing, -HIP_SWING * swing
        p["l_knee"] = -(6 + 16 * max(0.0, math.cos(w)))
        p["r_knee"] = -(6 + 16 * max(0.0, -math.cos(w)))
        p["skirt_sy"] = 1.0 + 0.06 * abs(swing)
        p["skirt_pitch"] = 1.5 * math.sin(2 * w)
        # the hem opens with the stride and swings with the leading leg, so the legs stay inside it
        p["hem_sy"] = 1.0 + 0.32 * abs(swing)
        p["torso_roll"] = 2.0 * swing
        p["torso_pitch"] = 3.0
        _arms(p, 0, 6, 30, 100)
    elif posture == "kneel":
        _kneel_base(p)
        _arms(p, 22, 12, 26, 52)                   # hands resting joined on the lap
    elif posture == "bow":
        e = _envelope(phase)
        p["torso_pitch"] = 3 + 19 * e
        p["head_pitch"] = 5 + 10 * e
        p["pelvis_pitch"] = 4 * e
        _arms(p, 38 + 18 * e, 10, 31 + 2 * e, 52 - 22 * e)  # joined hands pushed forward (推手)
    elif posture == "kneel_bow":
        _kneel_base(p)
        e = _envelope(phase, 0.35, 0.35)
        p["pelvis_z"] = 0.27 + 0.03 * e
        p["pelvis_pitch"] = 10 * e
        p["torso_pitch"] = 8 + 62 * e
        p["head_pitch"] = 6 + 28 * e
        _arms(p, 40 + 25 * e, 14, 24, 48 - 30 * e)      # hands go down to the mat, the head to the hands
    else:  # stand
        _arms(p, 0, 6, 30, 100)                    # 拱: hands joined before the chest, elbows at the sides
    if posture in ("stand", "walk", "kneel"):
        if "弓" in holding and any(k in CUPS for k in holding):
            # a cup with the bow: 右手執觶，左手執弓 (鄭 on 立卒觶) — the cup before the chest in the right
            # hand; the strung bow upright at the left side, the unstrung one lying across the left palm
            # before the body as it was carried (卻左手…執弣)
            if state.get("bow") == "unstrung":
                p["l_raise"], p["l_abd"], p["l_yaw"], p["l_elbow"] = 10, 8, 20, 70     # lower, at the waist
            else:
                p["l_raise"], p["l_abd"], p["l_yaw"], p["l_elbow"] = 5, 8, 10, 45
            p["r_raise"], p["r_abd"], p["r_yaw"], p["r_elbow"] = 8, 6, 30, 95
        elif "瑟" in holding and posture in ("stand", "walk"):
            # 相者皆左何瑟，面鼓，執越，內弦，右手相 (鄭: 執越內弦，右手相，由便也): the 瑟 on the left shoulder, the
            # left hand up at it holding the 越 beneath, the right hand free to lead the 工
            p["l_raise"], p["l_abd"], p["l_yaw"], p["l_elbow"] = 50, 20, -20, 150
        elif two_handed:
            for s in "lr":
                p[f"{s}_raise"], p[f"{s}_abd"], p[f"{s}_yaw"], p[f"{s}_elbow"] = 8, 6, 30, 95   # close to the chest
        elif "弓" in holding:
            p["l_raise"], p["l_abd"], p["l_yaw"], p["l_elbow"] = 5, 8, 10, 45     # the bow upright at the left side
    return p


def blend_params(a: dict[str, float], b: dict[str, float], w: float) -> dict[str, float]:
    """Linear blend of two parameter sets: ``w`` = 0 gives ``a``, 1 gives ``b``."""
    w = float(min(1.0, max(0.0, w)))
    return {k: a[k] * (1 - w) + b[k] * w for k in a}


def local_transforms(p: dict[str, float], state: dict | None = None) -> dict[str, np.ndarray]:
    """Local 4x4 transforms (relative to the parent part) from joint parameters: the one-pose case of
    :func:`local_transforms_many`, where the joints are written once.  A pose asked for again (everyone standing
    still from frame to frame, one pose for every role) is made once: the same numbers, copied (callers may
    modify them); keyed by the parameters' bits and the three states the joints read."""
    s = state or {}
    m = _local_made(tuple(p), np.fromiter(p.values(), float, len(p)).tobytes(),
                    bool(s.get("bare_left_arm")), bool(s.get("gear")), bool(s.get("undershirt"))).copy()
    return {k: m[i] for i, k in enumerate(PARTS)}


@lru_cache(maxsize=4096)                 # ~4 KB each
def _local_made(names: tuple[str, ...], values: bytes, bare: bool, gear: bool, undershirt: bool) -> np.ndarray:
    p = dict(zip(names, np.frombuffer(values).tolist()))
    return local_transforms_many([p], [{"bare_left_arm": bare, "gear": gear, "undershirt": undershirt}])[0]


def pose(posture: str, phase: float = 0.0, state: dict | None = None) -> dict[str, np.ndarray]:
    """Local 4x4 transform of every part (relative to its parent) for a posture.

    ``posture`` ∈ :data:`POSTURES` (unknown ones are drawn standing); ``state`` keys:
    ``bare_left_arm`` (袒), ``undershirt`` (纁襦: the arm bared over it), ``gear`` (決遂 worn), ``holding``
    (prop ids or kinds).
    Hidden variant parts get a zero scale.
    """
    return local_transforms(pose_params(posture, phase, state), state)


def world_transforms(x: float, y: float, z: float, heading_deg: float, posture: str = "stand",
                     phase: float = 0.0, state: dict | None = None,
                     params: dict[str, float] | None = None) -> dict[str, np.ndarray]:
    """World 4x4 transform of every part of a figure standing at (x, y, z) facing ``heading_deg``.

    ``params`` (from :func:`pose_params`/:func:`blend_params`) overrides ``posture``/``phase``.
    """
    p = params if params is not None else pose_params(posture, phase, state)
    return chain(root_transform(x, y, z, heading_deg), local_transforms(p, state))


def gait_phase(distance_m: float) -> float:
    """The gait phase after walking ``distance_m`` metres (one cycle per :data:`STRIDE_M`)."""
    return (distance_m / STRIDE_M) % 1.0


def figure_mesh(role: str, x: float = 0.0, y: float = 0.0, z: float = 0.0, heading_deg: float = 0.0,
                posture: str = "stand", phase: float = 0.0, state: dict | None = None) -> trimesh.Trimesh:
    """One merged, vertex-coloured mesh of a posed figure in world coordinates (tests, stills)."""
    world = world_transforms(x, y, z, heading_deg, posture, phase, state)
    meshes = []
    for part, m in part_meshes(role).items():
        M = world[part]
        if abs(np.linalg.det(M[:3, :3])) < 1e-12:
            continue
        m.apply_transform(M)
        meshes.append(m)
    return _merge(meshes)


def _t_many(v: np.ndarray) -> np.ndarray:
    """(n, 4, 4) translations, one per row of ``v`` (n, 3)."""
    m = np.zeros((len(v), 4, 4))
    m[:, [0, 1, 2, 3], [0, 1, 2, 3]] = 1.0
    m[:, :3, 3] = v
    return m


def _diag_many(d: np.ndarray) -> np.ndarray:
    """(n, 4, 4) diagonal matrices, one per row of ``d`` (n, 4)."""
    m = np.zeros((len(d), 4, 4))
    m[:, [0, 1, 2, 3], [0, 1, 2, 3]] = d
    return m


def local_transforms_many(ps: list[dict[str, float]], states: list[dict | None]) -> np.ndarray:
    """:func:`local_transforms` of many poses at once, as (n, len(PARTS), 4, 4) in :data:`PARTS` order: the
    same numbers, pose by pose (the same scipy rotations and 4x4 products, made over the whole batch in one
    call each instead of one pose at a time)."""
    n = len(ps)
    st = [s or {} for s in states]
    bare = np.array([bool(s.get("bare_left_arm")) for s in st], bool)
    gear = np.array([bool(s.get("gear")) for s in st], bool)
    shirt = bare & np.array([bool(s.get("undershirt")) for s in st], bool)
    keys = ps[0].keys() if n else ()
    c = {k: np.array([p[k] for p in ps], float) for k in keys}
    z = np.zeros(n)
    off = JOINT_OFFSET
    rows = np.stack([np.stack(r, axis=1) for r in (
        (z, -c["pelvis_pitch"], z), (z, -c["skirt_pitch"], z), (z, -c["hem_pitch"], z), (z, c["l_elbow"], z),
        (z, c["r_elbow"], z), (z, c["l_knee"], z), (z, c["r_knee"], z),
        (-c["l_yaw"], c["l_raise"], c["l_abd"]), (c["r_yaw"], c["r_raise"], -c["r_abd"]),
        (z, c["l_hip"], c["l_hip_abd"]), (z, c["r_hip"], -c["r_hip_abd"]), (c["head_yaw"], -c["head_pitch"], z))],
        axis=1)                                                                          # (n, 12, 3)
    R = rotations("ZXY", rows.reshape(-1, 3)).reshape(n, 12, 4, 4)
    x, sh, hip, head = R[:, :7], R[:, 7:9], R[:, 9:11], R[:, 11]
    torso = rotations("ZYX", np.stack([c["torso_yaw"], c["torso_roll"], -c["torso_pitch"]], axis=1))
    one = np.ones(n)

    def at(name, extra=None):
        v = np.broadcast_to(np.asarray(off[name], float), (n, 3))
        return _t_many(v if extra is None else v + extra)

    L: dict[str, np.ndarray] = {}
    L["pelvis"] = _t_many(np.stack([z, c["pelvis_dy"], c["pelvis_z"]], axis=1)) @ x[:, 0]
    sk = _diag_many(np.stack([c["skirt_sx"], c["skirt_sy"], c["skirt_sz"], one], axis=1))
    L["skirt"] = at("skirt", np.stack([z, c["skirt_dy"], z], axis=1)) @ x[:, 1] @ sk
    L["hem"] = at("hem") @ x[:, 2] @ _diag_many(np.stack([one, c["hem_sy"], one, one], axis=1))
    L["torso"] = at("torso") @ torso
    L["head"] = at("head") @ head
    for i, s in enumerate("lr"):
        el = x[:, 3 + i]
        L[f"{s}_upper_arm"] = at(f"{s}_upper_arm") @ sh[:, i]
        L[f"{s}_forearm"] = at(f"{s}_forearm") @ el
        hang = _diag_many(np.ones((n, 4)))
        hang[:, :3, :3] = (sh[:, i, :3, :3] @ el[:, :3, :3]).transpose(0, 2, 1)
        L[f"{s}_sleeve"] = at(f"{s}_sleeve") @ hang
        L[f"{s}_thigh"] = at(f"{s}_thigh") @ hip[:, i]
        L[f"{s}_shin"] = at(f"{s}_shin") @ x[:, 5 + i]
    eye = _diag_many(np.ones((n, 4)))
    zero = _diag_many(np.tile([0.0, 0.0, 0.0, 1.0], (n, 1)))
    L["l_upper_arm_bare"] = L["l_upper_arm"].copy()
    L["l_forearm_bare"] = L["l_forearm"].copy()
    L["r_ring"] = at("r_ring")
    L["l_shirt_upper"] = np.where(shirt[:, None, None], eye, zero)
    L["l_shirt_fore"] = L["l_shirt_upper"].copy()
    L["l_upper_arm"] = np.where(bare[:, None, None], L["l_upper_arm"] @ zero, L["l_upper_arm"])
    L["l_upper_arm_bare"] = np.where(bare[:, None, None], L["l_upper_arm_bare"], L["l_upper_arm_bare"] @ zero)
    L["l_guard"] = np.where((gear & bare)[:, None, None], eye, zero)
    L["r_ring"] = np.where(gear[:, None, None], L["r_ring"], L["r_ring"] @ zero)
    return np.stack([L[k] for k in PARTS], axis=1)


def world_transforms_many(xyz: np.ndarray, heading_deg: np.ndarray, params: list[dict[str, float]],
                          states: list[dict | None]) -> np.ndarray:
    """:func:`world_transforms` of many poses at once (each given its params and state), as
    (n, len(PARTS), 4, 4) in :data:`PARTS` order, the same numbers pose by pose."""
    local = local_transforms_many(params, states)
    root = _t_many(np.asarray(xyz, float).reshape(-1, 3)) @ rotations("z", -np.asarray(heading_deg, float).reshape(-1, 1))
    world = chain(root, {p: local[:, i] for i, p in enumerate(PARTS)})
    return np.stack([world[p] for p in PARTS], axis=1)
