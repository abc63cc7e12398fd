"""Stylised people and props as light trimesh geometry, shared by the video and the glTF export.

A figure is a small node hierarchy in metres.  Local frame of every figure:
x = its right, y = forward (the way it faces), z = up, feet at z = 0.

    pelvis (root, the hip centre; mesh: the belt/sash)
    ├── skirt            lower robe, a flared cone hanging from the waist
    ├── torso            upper robe + insignia patch; joint at the waist
    │   ├── head         head, hair knot and cap; joint at the neck
    │   ├── l_upper_arm / l_upper_arm_bare   (袒: the bare variant shows)
    │   │   └── l_forearm / l_forearm_bare   forearm, wide sleeve, hand
    │   │                └── l_guard         遂 arm guard (決遂 worn and arm bared)
    │   └── r_upper_arm
    │       └── r_forearm
    │           └── r_ring                   決 thumb ring (決遂 worn)
    ├── l_thigh → l_shin (shin + shoe)
    └── r_thigh → r_shin

Variant parts (bare arm, gear) are always present; :func:`pose` hides the ones not
in use by scaling them to zero, so the hierarchy is the same at every moment and
an animation can switch them (glTF: a STEP scale channel).

Posture ``phase`` ∈ [0, 1): the gait phase for ``walk`` (one full stride per
cycle), the progress through the gesture for ``bow``/``kneel_bow`` (the bow goes
down and comes back up within the phase), unused for ``stand``/``kneel``.

Poses are first computed as a flat dict of joint parameters (:func:`pose_params`),
which can be blended (:func:`blend_params`) so that a renderer can ease from one
posture to the next (rising from kneeling, …), then turned into local 4x4
transforms (:func:`local_transforms`).  :func:`pose` does both.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
import trimesh

__all__ = [
    "PARTS", "PARENT", "JOINT_OFFSET", "POSTURES", "ROLE_STYLE", "PROP_KINDS",
    "role_of", "prop_kind", "part_meshes", "pose_params", "blend_params",
    "local_transforms", "pose", "world_transforms", "root_transform",
    "figure_mesh", "prop_mesh", "held_prop_transform", "hand_position",
    "FigureGeometry", "figure_geometry", "prop_geometry", "gait_phase",
    "STANDING_HEIGHT", "STRIDE_M",
]

# ---------------------------------------------------------------------------
# skeleton

PARTS: tuple[str, ...] = (
    "pelvis", "skirt", "torso", "head",
    "l_upper_arm", "l_forearm", "l_upper_arm_bare", "l_forearm_bare", "l_guard",
    "r_upper_arm", "r_forearm", "r_ring",
    "l_thigh", "l_shin", "r_thigh", "r_shin",
)

PARENT: dict[str, str | None] = {
    "pelvis": None, "skirt": "pelvis", "torso": "pelvis", "head": "torso",
    "l_upper_arm": "torso", "l_forearm": "l_upper_arm",
    "l_upper_arm_bare": "torso", "l_forearm_bare": "l_upper_arm_bare", "l_guard": "l_forearm_bare",
    "r_upper_arm": "torso", "r_forearm": "r_upper_arm", "r_ring": "r_forearm",
    "l_thigh": "pelvis", "l_shin": "l_thigh", "r_thigh": "pelvis", "r_shin": "r_thigh",
}

HIP_Z = 0.87          # standing hip-joint height
WAIST = 0.12          # waist above the hip joint
SHOULDER_Z = 0.42     # shoulder line above the waist
SHOULDER_X = 0.20
NECK_Z = 0.44
UPPER_ARM = 0.29
FOREARM = 0.27        # elbow to the wrist; the hand hangs below
HAND = 0.08
THIGH = 0.42
SHIN = 0.38           # knee to the ankle; the shoe adds 0.07
SKIRT_HEM = 0.17      # hem above the ground when standing
STANDING_HEIGHT = HIP_Z + WAIST + NECK_Z + 0.23   # top of the head, without the cap
STRIDE_M = 1.3        # ground covered by one full gait cycle (two steps)

JOINT_OFFSET: dict[str, np.ndarray] = {k: np.asarray(v, float) for k, v in {
    "pelvis": (0.0, 0.0, HIP_Z),
    "skirt": (0.0, 0.0, WAIST),
    "torso": (0.0, 0.0, WAIST),
    "head": (0.0, 0.0, NECK_Z),
    "l_upper_arm": (-SHOULDER_X, 0.0, SHOULDER_Z),
    "l_forearm": (0.0, 0.0, -UPPER_ARM),
    "l_upper_arm_bare": (-SHOULDER_X, 0.0, SHOULDER_Z),
    "l_forearm_bare": (0.0, 0.0, -UPPER_ARM),
    "l_guard": (0.0, 0.0, 0.0),
    "r_upper_arm": (SHOULDER_X, 0.0, SHOULDER_Z),
    "r_forearm": (0.0, 0.0, -UPPER_ARM),
    "r_ring": (0.0, 0.0, -FOREARM),
    "l_thigh": (-0.09, 0.0, 0.0),
    "l_shin": (0.0, 0.0, -THIGH),
    "r_thigh": (0.09, 0.0, 0.0),
    "r_shin": (0.0, 0.0, -THIGH),
}.items()}

POSTURES: tuple[str, ...] = ("stand", "walk", "kneel", "bow", "kneel_bow")

# ---------------------------------------------------------------------------
# roles and colours

SKIN = (0.86, 0.69, 0.53)
HAIR = (0.08, 0.07, 0.06)
SHOE = (0.10, 0.09, 0.08)
TROUSER = (0.30, 0.26, 0.22)
LEATHER = (0.45, 0.25, 0.12)
IVORY = (0.93, 0.88, 0.72)


def _hex(s: str) -> tuple[float, float, float]:
    s = s.lstrip("#")
    return tuple(int(s[i:i + 2], 16) / 255.0 for i in (0, 2, 4))  # type: ignore[return-value]


def _style(robe: str, skirt: str, sash: str, badge: str, cap: str = "#1a1714") -> dict[str, tuple]:
    return {"robe": _hex(robe), "skirt": _hex(skirt), "sash": _hex(sash),
            "badge": _hex(badge), "cap": _hex(cap)}


#: role -> colours of robe (upper), skirt (lower), sash, badge (chest insignia), cap.
ROLE_STYLE: dict[str, dict[str, tuple]] = {
    "宾": _style("#8c2a1e", "#6e2118", "#d8a93b", "#e8c25a", "#1a1714"),      # oxblood, gold
    "主人": _style("#1f2d4d", "#182440", "#d8a93b", "#e8c25a", "#1a1714"),    # indigo, gold
    "大夫": _style("#4e2a63", "#3d214e", "#9fc7a8", "#b9e0c2", "#1a1714"),    # purple, jade
    "诸公": _style("#5e1f4a", "#4a183a", "#d8a93b", "#e8c25a", "#1a1714"),
    "司射": _style("#2e5a3a", "#24482e", "#b8322a", "#c8382e", "#1a1714"),    # green, red sash
    "司马": _style("#7a6426", "#634f1c", "#2c2c2c", "#202020", "#1a1714"),    # ochre, black
    "获者": _style("#c49a2c", "#a8831f", "#b8322a", "#f0f0f0", "#3a2a1a"),    # yellow (the flag man)
    "释获者": _style("#56707e", "#465c68", "#e0dccc", "#f2efe2", "#1a1714"),  # slate blue, white
    "上耦": _style("#d2c3a0", "#b9aa88", "#b8322a", "#b8322a", "#1a1714"),    # archers: undyed, pair colour
    "次耦": _style("#d2c3a0", "#b9aa88", "#2f5f9e", "#2f5f9e", "#1a1714"),
    "下耦": _style("#d2c3a0", "#b9aa88", "#3f8a4a", "#3f8a4a", "#1a1714"),
    "众宾": _style("#6b4e36", "#573f2b", "#2a211a", "#c9b48a", "#1a1714"),    # brown
    "弟子": _style("#a49a82", "#8c836d", "#6b5a45", "#6b5a45", "#3a2a1a"),    # plain hemp
    "工": _style("#2b2b2e", "#222225", "#e6e1d0", "#e6e1d0", "#1a1714"),      # musicians: black, white
    "大师": _style("#2b2b2e", "#222225", "#d8a93b", "#e8c25a", "#1a1714"),
    "乐正": _style("#3b3b52", "#2f2f42", "#e6e1d0", "#d8a93b", "#1a1714"),
    "笙": _style("#2b2b2e", "#222225", "#9fc7a8", "#9fc7a8", "#1a1714"),
    "执爵者": _style("#7d6b57", "#685847", "#c0a070", "#c0a070", "#1a1714"),  # servers: taupe
    "举觯者": _style("#7d6b57", "#685847", "#8c2a1e", "#8c2a1e", "#1a1714"),
    "相": _style("#5f5a52", "#4d4943", "#c0a070", "#c0a070", "#1a1714"),
    "default": _style("#7a7468", "#66614f", "#3a3530", "#3a3530", "#1a1714"),
}

_ROLE_PREFIXES: tuple[tuple[str, str], ...] = (
    ("释获者", "释获者"), ("釋獲者", "释获者"), ("获者", "获者"), ("獲者", "获者"),
    ("司射", "司射"), ("司马", "司马"), ("司馬", "司马"), ("司正", "司马"),
    ("主人", "主人"), ("宾", "宾"), ("賓", "宾"), ("众宾", "众宾"), ("衆賓", "众宾"), ("眾賓", "众宾"),
    ("大夫", "大夫"), ("诸公", "诸公"), ("諸公", "诸公"), ("公士", "宾"),
    ("上耦", "上耦"), ("次耦", "次耦"), ("下耦", "下耦"), ("众耦", "众宾"),
    ("弟子", "弟子"), ("有司", "弟子"), ("相者", "弟子"),
    ("工", "工"), ("大师", "大师"), ("大師", "大师"), ("乐正", "乐正"), ("樂正", "乐正"), ("笙", "笙"),
    ("执爵者", "执爵者"), ("執爵者", "执爵者"), ("举觯者", "举觯者"), ("舉觶者", "举觯者"),
    ("主人之赞者", "执爵者"), ("赞者", "执爵者"), ("相", "相"),
)


def role_of(actor_id: str) -> str:
    """The style role of an actor id (众宾3 → 众宾, 上耦下射 → 上耦, 工1 → 工, 司正 → 司马).

    The longest matching prefix wins; unknown ids give ``"default"``.
    """
    best, best_len = "default", 0
    for prefix, role in _ROLE_PREFIXES:
        if actor_id.startswith(prefix) and len(prefix) > best_len:
            best, best_len = role, len(prefix)
    return best


# ---------------------------------------------------------------------------
# mesh primitives (vertex-coloured; caps get their own vertices so normals stay crisp)

def _colored(mesh: trimesh.Trimesh, rgb) -> trimesh.Trimesh:
    c = np.clip(np.asarray(rgb, float) * 255, 0, 255).astype(np.uint8)
    mesh.visual = trimesh.visual.ColorVisuals(mesh, vertex_colors=np.tile(np.r_[c, 255], (len(mesh.vertices), 1)))
    return mesh


def _frustum(z0: float, z1: float, r0, r1, n: int = 10, rgb=(0.5, 0.5, 0.5), cap0=True, cap1=True,
             center0=(0.0, 0.0), center1=(0.0, 0.0)) -> trimesh.Trimesh:
    """A (possibly elliptic, possibly sheared) truncated cone along z. r = scalar or (rx, ry)."""
    r0 = np.broadcast_to(np.asarray(r0, float), (2,))
    r1 = np.broadcast_to(np.asarray(r1, float), (2,))
    a = np.linspace(0, 2 * np.pi, n, endpoint=False)
    ca, sa = np.cos(a), np.sin(a)
    ring0 = np.c_[center0[0] + r0[0] * ca, center0[1] + r0[1] * sa, np.full(n, z0)]
    ring1 = np.c_[center1[0] + r1[0] * ca, center1[1] + r1[1] * sa, np.full(n, z1)]
    verts = [ring0, ring1]
    faces = []
    i = np.arange(n)
    j = (i + 1) % n
    faces.append(np.c_[i, j, n + j])
    faces.append(np.c_[i, n + j, n + i])
    base = 2 * n
    if cap0:
        verts += [ring0, [[center0[0], center0[1], z0]]]
        faces.append(np.c_[np.full(n, base + n), base + j, base + i])
        base += n + 1
    if cap1:
        verts += [ring1, [[center1[0], center1[1], z1]]]
        faces.append(np.c_[np.full(n, base + n), base + i, base + j])
    v = np.vstack(verts)
    f = np.vstack(faces)
    if z1 < z0:
        f = f[:, ::-1]
    return _colored(trimesh.Trimesh(v, f, process=False), rgb)


def _box(lo, hi, rgb) -> trimesh.Trimesh:
    lo, hi = np.asarray(lo, float), np.asarray(hi, float)
    m = trimesh.creation.box(extents=hi - lo)
    m.apply_translation((lo + hi) / 2)
    m = trimesh.Trimesh(m.vertices[m.faces].reshape(-1, 3), np.arange(len(m.faces) * 3).reshape(-1, 3), process=False)
    return _colored(m, rgb)


def _ellipsoid(center, radii, rgb, subdiv: int = 1) -> trimesh.Trimesh:
    m = trimesh.creation.icosphere(subdivisions=subdiv)
    m = trimesh.Trimesh(m.vertices * np.asarray(radii, float) + np.asarray(center, float), m.faces, process=False)
    return _colored(m, rgb)


def _tube(points, radius: float, rgb, n: int = 4) -> trimesh.Trimesh:
    """A thin tube along a polyline (for bows, poles): n-sided, no caps."""
    p = np.asarray(points, float)
    t = np.gradient(p, axis=0)
    t /= np.linalg.norm(t, axis=1, keepdims=True)
    ref = np.array([1.0, 0, 0]) if abs(t[0] @ [1.0, 0, 0]) < 0.9 else np.array([0, 1.0, 0])
    u = np.cross(t, ref)
    u /= np.linalg.norm(u, axis=1, keepdims=True)
    w = np.cross(t, u)
    a = np.linspace(0, 2 * np.pi, n, endpoint=False)
    rings = p[:, None, :] + radius * (np.cos(a)[None, :, None] * u[:, None, :] + np.sin(a)[None, :, None] * w[:, None, :])
    v = rings.reshape(-1, 3)
    faces = []
    for k in range(len(p) - 1):
        for i in range(n):
            j = (i + 1) % n
            a0, a1, b0, b1 = k * n + i, k * n + j, (k + 1) * n + i, (k + 1) * n + j
            faces += [(a0, a1, b1), (a0, b1, b0)]
    return _colored(trimesh.Trimesh(v, np.array(faces), process=False), rgb)


def _merge(meshes) -> trimesh.Trimesh:
    m = trimesh.util.concatenate([x for x in meshes if x is not None])
    return m


def _mix(a, b, w: float):
    return tuple(float(x) * (1 - w) + float(y) * w for x, y in zip(a, b))


# ---------------------------------------------------------------------------
# figure parts

@lru_cache(maxsize=None)
def _part_meshes_cached(role: str) -> tuple[tuple[str, trimesh.Trimesh], ...]:
    st = ROLE_STYLE.get(role, ROLE_STYLE["default"])
    robe, skirt_c, sash, badge, cap = st["robe"], st["skirt"], st["sash"], st["badge"], st["cap"]
    collar = _mix(robe, (0.95, 0.92, 0.85), 0.65)
    sleeve_lining = _mix(robe, (0.0, 0.0, 0.0), 0.25)
    parts: dict[str, trimesh.Trimesh] = {}

    # pelvis: the sash/belt around the waist, with two hanging ends in front
    parts["pelvis"] = _merge([
        _frustum(WAIST - 0.03, WAIST + 0.05, (0.165, 0.125), (0.16, 0.12), 10, sash),
        _box((-0.05, 0.11, -0.28), (-0.01, 0.13, WAIST), sash),
        _box((0.01, 0.11, -0.22), (0.05, 0.13, WAIST), sash),
    ])
    # skirt: from the waist to the hem, open at the bottom
    hem = -(HIP_Z + WAIST - SKIRT_HEM)
    parts["skirt"] = _frustum(0.0, hem, (0.16, 0.125), (0.29, 0.24), 12, skirt_c, cap0=False, cap1=False)
    # torso: chest widening to the shoulders; a light cross collar (交领) and the badge on the chest
    parts["torso"] = _merge([
        _frustum(0.0, SHOULDER_Z, (0.16, 0.125), (0.215, 0.13), 10, robe, cap0=False),
        _frustum(SHOULDER_Z, NECK_Z + 0.005, (0.12, 0.09), (0.055, 0.05), 8, robe, cap0=False, cap1=False),
        _tube([(-0.10, 0.095, SHOULDER_Z + 0.01), (0.0, 0.13, SHOULDER_Z - 0.16), (0.09, 0.13, SHOULDER_Z - 0.24)],
              0.018, collar, 4),
        _tube([(0.10, 0.095, SHOULDER_Z + 0.01), (0.02, 0.128, SHOULDER_Z - 0.10)], 0.016, collar, 4),
        _box((-0.07, 0.125, 0.12), (0.04, 0.145, 0.22), badge),
        _box((-0.08, -0.145, 0.16), (0.08, -0.125, 0.32), badge),      # the same badge on the back
    ])
    # head: skin ellipsoid with the back half dark (hair), a knot and a cap with a ridge
    head = _ellipsoid((0, 0.005, 0.115), (0.088, 0.10, 0.115), SKIN, subdiv=1)
    vc = head.visual.vertex_colors.copy()
    back = head.vertices[:, 1] < -0.015
    upper = head.vertices[:, 2] > 0.17
    vc[back | upper, :3] = (np.asarray(HAIR) * 255).astype(np.uint8)
    head.visual = trimesh.visual.ColorVisuals(head, vertex_colors=vc)
    nose = _box((-0.012, 0.095, 0.09), (0.012, 0.118, 0.125), SKIN)
    parts["head"] = _merge([
        head, nose,
        _frustum(0.19, 0.245, (0.06, 0.075), (0.035, 0.06), 6, cap),               # cap crown
        _box((-0.02, -0.085, 0.2), (0.02, 0.085, 0.275), cap),                      # ridge front-to-back
        _box((-0.006, -0.01, 0.205), (0.006, 0.01, 0.205 + 0.001), cap),
    ])

    def arm(side: str, bare: bool) -> tuple[trimesh.Trimesh, trimesh.Trimesh]:
        if bare:
            up = _frustum(0.02, -UPPER_ARM, 0.05, 0.04, 8, SKIN)
            fo = _merge([_frustum(0.0, -FOREARM, 0.04, 0.032, 8, SKIN),
                         _box((-0.025, -0.035, -FOREARM - HAND), (0.025, 0.04, -FOREARM + 0.005), SKIN)])
            return up, fo
        up = _frustum(0.03, -UPPER_ARM, 0.07, 0.075, 8, robe)
        fo = _merge([
            _frustum(0.0, -FOREARM + 0.02, 0.075, (0.12, 0.14), 8, robe, cap1=False),  # wide sleeve (袂)
            _frustum(-FOREARM + 0.02, -FOREARM + 0.03, (0.12, 0.14), (0.05, 0.05), 8, sleeve_lining,
                     cap0=False, cap1=False),
            _box((-0.025, -0.035, -FOREARM - HAND + 0.01), (0.025, 0.04, -FOREARM + 0.02), SKIN),
        ])
        return up, fo

    parts["l_upper_arm"], parts["l_forearm"] = arm("l", False)
    parts["r_upper_arm"], parts["r_forearm"] = arm("r", False)
    parts["l_upper_arm_bare"], parts["l_forearm_bare"] = arm("l", True)
    parts["l_guard"] = _frustum(-0.06, -0.22, 0.048, 0.042, 8, LEATHER)
    parts["r_ring"] = _merge([_frustum(-0.03, -0.065, 0.032, 0.032, 6, IVORY),
                              _box((-0.035, -0.02, -0.07), (0.0, 0.05, -0.03), IVORY)])

    def leg() -> tuple[trimesh.Trimesh, trimesh.Trimesh]:
        th = _frustum(0.03, -THIGH, 0.075, 0.058, 6, TROUSER)
        sh = _merge([_frustum(0.0, -SHIN, 0.055, 0.045, 6, TROUSER),
                     _box((-0.045, -0.06, -SHIN - 0.07), (0.045, 0.17, -SHIN), SHOE)])
        return th, sh

    parts["l_thigh"], parts["l_shin"] = leg()
    parts["r_thigh"], parts["r_shin"] = leg()
    return tuple((p, parts[p]) for p in PARTS)


def part_meshes(role: str) -> dict[str, trimesh.Trimesh]:
    """The meshes of a figure of ``role`` (a role name or any actor id), one per part.

    Each mesh is in its joint's local frame (see :data:`JOINT_OFFSET`), vertex-coloured.
    Copies: callers may modify them.
    """
    if role not in ROLE_STYLE:
        role = role_of(role)
    return {p: m.copy() for p, m in _part_meshes_cached(role)}


# ---------------------------------------------------------------------------
# poses

def _rx(a: float) -> np.ndarray:
    c, s = math.cos(math.radians(a)), math.sin(math.radians(a))
    return np.array([[1, 0, 0, 0], [0, c, -s, 0], [0, s, c, 0], [0, 0, 0, 1.0]])


def _ry(a: float) -> np.ndarray:
    c, s = math.cos(math.radians(a)), math.sin(math.radians(a))
    return np.array([[c, 0, s, 0], [0, 1, 0, 0], [-s, 0, c, 0], [0, 0, 0, 1.0]])


def _rz(a: float) -> np.ndarray:
    c, s = math.cos(math.radians(a)), math.sin(math.radians(a))
    return np.array([[c, -s, 0, 0], [s, c, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1.0]])


def _t(v) -> np.ndarray:
    m = np.eye(4)
    m[:3, 3] = v
    return m


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
    "pelvis_z", "pelvis_pitch", "torso_pitch", "torso_roll", "head_pitch",
    "skirt_sx", "skirt_sy", "skirt_sz", "skirt_dy", "skirt_pitch",
    "l_raise", "l_abd", "l_yaw", "l_elbow", "r_raise", "r_abd", "r_yaw", "r_elbow",
    "l_hip", "l_knee", "r_hip", "r_knee", "l_hip_abd", "r_hip_abd",
)


def _base() -> dict[str, float]:
    p = dict.fromkeys(_PARAM_KEYS, 0.0)
    p.update(pelvis_z=HIP_Z, skirt_sx=1.0, skirt_sy=1.0, skirt_sz=1.0)
    return p


def _arms(p: dict, raise_: float, abd: float, yaw: float, elbow: float) -> None:
    for s in "lr":
        p[f"{s}_raise"], p[f"{s}_abd"], p[f"{s}_yaw"], p[f"{s}_elbow"] = raise_, abd, yaw, elbow


def _kneel_base(p: dict) -> None:
    p["pelvis_z"] = 0.27
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
    or dish is held before the chest with both hands.
    """
    state = state or {}
    phase = float(phase) % 1.0
    p = _base()
    holding = [prop_kind(h) for h in state.get("holding") or ()]
    two_handed = any(k in _TWO_HANDED for k in holding)
    if posture == "walk":
        w = 2 * math.pi * phase
        swing = math.sin(w)
        p["pelvis_z"] = HIP_Z - 0.025 * (1 - abs(math.cos(w)))
        p["l_hip"], p["r_hip"] = 24 * swing, -24 * swing
        p["l_knee"] = -(6 + 40 * max(0.0, math.cos(w)))
        p["r_knee"] = -(6 + 40 * max(0.0, -math.cos(w)))
        p["skirt_sy"] = 1.0 + 0.18 * abs(swing)
        p["skirt_pitch"] = 3.0 * math.sin(2 * w)
        p["torso_roll"] = 2.0 * swing
        p["torso_pitch"] = 3.0
        # arms swing against the legs, sleeves loose
        p["l_raise"], p["r_raise"] = 8 - 16 * swing, 8 + 16 * swing
        p["l_elbow"], p["r_elbow"] = 20 + 8 * max(0.0, -swing), 20 + 8 * max(0.0, swing)
        p["l_abd"] = p["r_abd"] = 9.0
    elif posture == "kneel":
        _kneel_base(p)
        _arms(p, 22, 12, 26, 52)                   # hands resting joined on the lap
    elif posture == "bow":
        e = _envelope(phase)
        p["torso_pitch"] = 3 + 19 * e
        p["head_pitch"] = 5 + 10 * e
        p["pelvis_pitch"] = 4 * e
        _arms(p, 38 + 30 * e, 10, 31 + 2 * e, 52 - 34 * e)  # joined hands pushed forward (推手)
    elif posture == "kneel_bow":
        _kneel_base(p)
        e = _envelope(phase, 0.35, 0.35)
        p["pelvis_z"] = 0.27 + 0.03 * e
        p["pelvis_pitch"] = 10 * e
        p["torso_pitch"] = 8 + 62 * e
        p["head_pitch"] = 6 + 28 * e
        _arms(p, 40 + 25 * e, 14, 24, 48 - 30 * e)      # hands go down to the mat, the head to the hands
    else:  # stand
        _arms(p, 24, 10, 31, 62)                   # 拱: hands joined before the body, sleeves hanging
    if posture in ("stand", "walk", "kneel"):
        if two_handed:
            for s in "lr":
                p[f"{s}_raise"], p[f"{s}_abd"], p[f"{s}_yaw"], p[f"{s}_elbow"] = 28, 10, 30, 72
        elif "弓" in holding:
            p["l_raise"], p["l_abd"], p["l_yaw"], p["l_elbow"] = 16, 14, 6, 60
    return p


def blend_params(a: dict[str, float], b: dict[str, float], w: float) -> dict[str, float]:
    """Linear blend of two parameter sets: ``w`` = 0 gives ``a``, 1 gives ``b``."""
    w = float(min(1.0, max(0.0, w)))
    return {k: a[k] * (1 - w) + b[k] * w for k in a}


def local_transforms(p: dict[str, float], state: dict | None = None) -> dict[str, np.ndarray]:
    """Local 4x4 transforms (relative to the parent part) from joint parameters."""
    state = state or {}
    bare = bool(state.get("bare_left_arm"))
    gear = bool(state.get("gear"))
    off = JOINT_OFFSET
    L: dict[str, np.ndarray] = {}
    L["pelvis"] = _t((0, 0, p["pelvis_z"])) @ _rx(-p["pelvis_pitch"])
    sk = np.diag([p["skirt_sx"], p["skirt_sy"], p["skirt_sz"], 1.0])
    L["skirt"] = _t(off["skirt"] + (0, p["skirt_dy"], 0)) @ _rx(-p["skirt_pitch"]) @ sk
    L["torso"] = _t(off["torso"]) @ _ry(p["torso_roll"]) @ _rx(-p["torso_pitch"])
    L["head"] = _t(off["head"]) @ _rx(-p["head_pitch"])
    for s, sign in (("l", -1.0), ("r", 1.0)):
        sh = _rz(sign * p[f"{s}_yaw"]) @ _rx(p[f"{s}_raise"]) @ _ry(-sign * p[f"{s}_abd"])
        el = _rx(p[f"{s}_elbow"])
        L[f"{s}_upper_arm"] = _t(off[f"{s}_upper_arm"]) @ sh
        L[f"{s}_forearm"] = _t(off[f"{s}_forearm"]) @ el
        L[f"{s}_thigh"] = _t(off[f"{s}_thigh"]) @ _rx(p[f"{s}_hip"]) @ _ry(-sign * p[f"{s}_hip_abd"])
        L[f"{s}_shin"] = _t(off[f"{s}_shin"]) @ _rx(p[f"{s}_knee"])
    L["l_upper_arm_bare"] = L["l_upper_arm"].copy()
    L["l_forearm_bare"] = L["l_forearm"].copy()
    L["l_guard"] = np.eye(4)
    L["r_ring"] = _t(off["r_ring"])
    zero = np.diag([0.0, 0.0, 0.0, 1.0])
    if bare:
        L["l_upper_arm"] = L["l_upper_arm"] @ zero
    else:
        L["l_upper_arm_bare"] = L["l_upper_arm_bare"] @ zero
    if not (gear and bare):
        L["l_guard"] = zero.copy()
    if not gear:
        L["r_ring"] = L["r_ring"] @ zero
    return {k: L[k] for k in PARTS}


def pose(posture: str, phase: float = 0.0, state: dict | None = None) -> dict[str, np.ndarray]:
    """Local 4x4 transform of every part (relative to its parent) for a posture.

    ``posture`` ∈ :data:`POSTURES` (unknown ones are drawn standing); ``state`` keys:
    ``bare_left_arm`` (袒), ``gear`` (決遂 worn), ``holding`` (prop ids or kinds).
    Hidden variant parts get a zero scale.
    """
    return local_transforms(pose_params(posture, phase, state), state)


def root_transform(x: float, y: float, z: float, heading_deg: float) -> np.ndarray:
    """World transform of a figure's ground origin: heading 0 faces +y (north), 90 faces +x (east)."""
    return _t((x, y, z)) @ _rz(-heading_deg)


def _chain(root: np.ndarray, local: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    out: dict[str, np.ndarray] = {}
    for part in PARTS:                       # PARTS lists parents before children
        parent = PARENT[part]
        out[part] = (root if parent is None else out[parent]) @ local[part]
    return out


def world_transforms(x: float, y: float, z: float, heading_deg: float, posture: str = "stand",
                     phase: float = 0.0, state: dict | None = None,
                     params: dict[str, float] | None = None) -> dict[str, np.ndarray]:
    """World 4x4 transform of every part of a figure standing at (x, y, z) facing ``heading_deg``.

    ``params`` (from :func:`pose_params`/:func:`blend_params`) overrides ``posture``/``phase``.
    """
    p = params if params is not None else pose_params(posture, phase, state)
    return _chain(root_transform(x, y, z, heading_deg), local_transforms(p, state))


def hand_position(world: dict[str, np.ndarray], side: str = "l") -> np.ndarray:
    """World position (3,) of a hand's palm, from :func:`world_transforms` output."""
    part = f"{side}_forearm"
    if side == "l" and abs(np.linalg.det(world["l_forearm"][:3, :3])) < 1e-9:
        part = "l_forearm_bare"
    return (world[part] @ np.array([0.0, 0.02, -FOREARM - HAND / 2, 1.0]))[:3]


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


# ---------------------------------------------------------------------------
# props

PROP_KINDS: tuple[str, ...] = ("弓", "矢", "扑", "觯", "爵", "丰", "荐", "俎", "算", "旌", "瑟", "中", "楅", "侯",
                               "笙", "席", "尊", "篚", "乏")
_TRAD = {"觶": "觯", "豐": "丰", "薦": "荐", "筭": "算", "撲": "扑", "朴": "扑", "鹿中": "中", "福": "楅"}
_TWO_HANDED = {"觯", "爵", "丰", "荐", "俎", "瑟", "旌", "算"}
_BRONZE = (0.42, 0.38, 0.24)
_WOOD = (0.45, 0.30, 0.17)
_LACQUER = (0.35, 0.09, 0.06)
_BAMBOO = (0.76, 0.66, 0.42)


def prop_kind(prop_id: str) -> str:
    """The kind of a prop from its id: the trailing noun (获者荐 → 荐, 觯2 → 觯, 上耦上射弓 → 弓).

    Unknown ids are returned without their trailing digits.
    """
    s = re.sub(r"[\d０-９_\-\s]+$", "", prop_id)
    for t, k in _TRAD.items():
        if s.endswith(t):
            return k
    for k in sorted(PROP_KINDS, key=len, reverse=True):
        if s.endswith(k):
            return k
    if s.endswith("弛弓") or s.endswith("张弓"):
        return "弓"
    return s


def _bow(strung: bool) -> trimesh.Trimesh:
    """A bow in the local y-z plane, grip at the origin, limbs bending toward +y."""
    z = np.linspace(-0.78, 0.78, 13)
    u = z / 0.78
    if strung:
        y = 0.16 * (1 - u ** 2) - 0.03 * u ** 4
        tips = np.array([[0, y[0], z[0]], [0, y[-1], z[-1]]])
        string = _tube([tips[0], tips[1]], 0.004, (0.85, 0.82, 0.72), 3)
    else:  # unstrung: the limbs relax into a shallow reversed curve
        y = -0.10 * u ** 2
        string = None
    limb = _tube(np.c_[np.zeros_like(z), y, z], 0.016, _LACQUER, 4)
    grip = _frustum(-0.07, 0.07, 0.022, 0.022, 6, (0.15, 0.10, 0.07))
    grip.apply_translation((0, y[6], 0))
    return _merge([limb, string, grip])


def _arrow() -> trimesh.Trimesh:
    """An arrow along +y, its middle at the origin."""
    shaft = _tube([(0, -0.36, 0), (0, 0.36, 0)], 0.005, _BAMBOO, 3)
    head = _frustum(0.0, 0.05, 0.009, 0.0005, 4, (0.25, 0.25, 0.27), cap1=False)
    head.apply_transform(_t((0, 0.36, 0)) @ _rx(-90))
    fl = _box((-0.02, -0.36, -0.001), (0.02, -0.24, 0.001), (0.9, 0.9, 0.88))
    fl2 = _box((-0.001, -0.36, -0.02), (0.001, -0.24, 0.02), (0.9, 0.9, 0.88))
    return _merge([shaft, head, fl, fl2])


def prop_mesh(kind: str, strung: bool = True) -> trimesh.Trimesh:
    """A vertex-coloured mesh of a prop kind (or a prop id), base or grip at the origin, z up.

    Kinds: 弓 (``strung=False`` for the unstrung bow), 矢, 扑, 觯, 爵, 丰, 荐 (a 豆 dish),
    俎, 算 (a tally bundle), 旌 (flag on a 3-仞 pole), 瑟, 中, 楅, 侯; anything else is a small box.
    """
    return _prop_mesh_cached(prop_kind(kind), bool(strung)).copy()


@lru_cache(maxsize=None)
def _prop_mesh_cached(k: str, strung: bool) -> trimesh.Trimesh:
    if k == "弓":
        return _bow(strung)
    if k == "矢":
        return _arrow()
    if k == "扑":
        return _tube([(0, 0, 0), (0, 0, 0.69)], 0.012, (0.40, 0.27, 0.14), 4)
    if k == "觯":
        return _merge([_frustum(0.0, 0.02, 0.03, 0.025, 8, _BRONZE),
                       _frustum(0.02, 0.13, 0.03, 0.042, 8, _BRONZE, cap1=False)])
    if k == "爵":
        legs = [_tube([(0.03 * math.cos(a), 0.03 * math.sin(a), 0.0), (0.025 * math.cos(a), 0.025 * math.sin(a), 0.07)],
                      0.005, _BRONZE, 3) for a in (0.5, 2.6, 4.7)]
        return _merge(legs + [_frustum(0.07, 0.17, 0.035, 0.045, 8, _BRONZE, cap1=False),
                              _box((-0.012, 0.02, 0.155), (0.012, 0.11, 0.17), _BRONZE)])
    if k == "丰":
        return _merge([_frustum(0.0, 0.04, 0.16, 0.13, 10, _WOOD),
                       _frustum(0.04, 0.42, 0.035, 0.03, 6, _WOOD, cap0=False, cap1=False),
                       _frustum(0.42, 0.47, 0.06, 0.15, 10, _LACQUER)])
    if k == "荐":
        return _merge([_frustum(0.0, 0.02, 0.09, 0.08, 8, _LACQUER),
                       _frustum(0.02, 0.16, 0.025, 0.025, 6, _LACQUER, cap0=False, cap1=False),
                       _frustum(0.16, 0.24, 0.05, 0.12, 10, _LACQUER),
                       _ellipsoid((0, 0, 0.24), (0.09, 0.09, 0.035), (0.55, 0.42, 0.25), 1)])
    if k == "俎":
        legs = [_box((sx * 0.22 - 0.025, sy * 0.09 - 0.02, 0.0), (sx * 0.22 + 0.025, sy * 0.09 + 0.02, 0.33), _LACQUER)
                for sx in (-1, 1) for sy in (-1, 1)]
        return _merge(legs + [_box((-0.28, -0.13, 0.33), (0.28, 0.13, 0.37), _LACQUER),
                              _box((-0.18, -0.08, 0.37), (0.18, 0.08, 0.43), (0.62, 0.45, 0.32))])
    if k == "算":
        sticks = [_tube([(0.012 * math.cos(a), 0.012 * math.sin(a), 0.0), (0.012 * math.cos(a), 0.012 * math.sin(a), 0.32)],
                        0.004, _BAMBOO, 3) for a in np.linspace(0, 2 * math.pi, 6, endpoint=False)]
        return _merge(sticks + [_frustum(0.12, 0.15, 0.02, 0.02, 6, _LACQUER)])
    if k == "旌":
        h = 5.5                                   # 三仞 ≈ 24 尺 × 0.231 m
        pole = _tube([(0, 0, 0), (0, 0, h)], 0.022, (0.25, 0.17, 0.1), 5)
        flag = _box((0.0, -0.006, h - 1.3), (0.75, 0.006, h - 0.05), (0.78, 0.13, 0.10))
        band = _box((0.0, -0.008, h - 0.75), (0.75, 0.008, h - 0.55), (0.95, 0.95, 0.92))
        top = _ellipsoid((0, 0, h + 0.05), (0.05, 0.05, 0.08), (0.95, 0.95, 0.92), 1)
        return _merge([pole, flag, band, top])
    if k == "瑟":
        body = _box((-0.2, -0.8, 0.0), (0.2, 0.8, 0.1), (0.30, 0.12, 0.07))
        strings = _box((-0.16, -0.7, 0.1), (0.16, 0.7, 0.105), (0.85, 0.80, 0.62))
        return _merge([body, strings])
    if k == "笙":
        return _merge([_frustum(0.0, 0.08, 0.05, 0.05, 8, _LACQUER),
                       _frustum(0.08, 0.4, 0.045, 0.03, 8, _BAMBOO)])
    if k == "中":       # the tally holder: a crouching deer with a cup on its back (鹿中)
        return _merge([_box((-0.12, -0.3, 0.0), (0.12, 0.3, 0.25), _LACQUER),
                       _box((-0.07, 0.22, 0.2), (0.07, 0.38, 0.42), _LACQUER),
                       _frustum(0.25, 0.36, 0.07, 0.08, 8, _BRONZE)])
    if k == "楅":       # the arrow rack
        return _merge([_box((-0.6, -0.08, 0.0), (0.6, 0.08, 0.12), _LACQUER),
                       _box((-0.75, -0.06, 0.05), (-0.6, 0.06, 0.25), _LACQUER),
                       _box((0.6, -0.06, 0.05), (0.75, 0.06, 0.25), _LACQUER)])
    if k == "侯":
        return _merge([_box((-2.5, -0.02, 0.0), (2.5, 0.02, 3.0), (0.85, 0.80, 0.68)),
                       _box((-0.6, -0.03, 0.9), (0.6, 0.03, 2.1), (0.55, 0.12, 0.09))])
    return _box((-0.1, -0.1, 0.0), (0.1, 0.1, 0.2), _WOOD)


def held_prop_transform(kind: str, world: dict[str, np.ndarray], heading_deg: float,
                        others: list[str] | tuple[str, ...] = ()) -> np.ndarray:
    """World 4x4 of a prop carried by a posed figure (``world`` from :func:`world_transforms`).

    Bows are held upright in the left hand, arrows across the bow (挟) or in the right hand,
    the 扑 in the right hand, cups, dishes, 俎, 丰, 瑟 and tallies before the chest in both
    hands, the 旌 upright in both hands.  Props stay upright and turn with the body.
    """
    k = prop_kind(kind)
    others_k = [prop_kind(o) for o in others]
    lh, rh = hand_position(world, "l"), hand_position(world, "r")
    yaw = _rz(-heading_deg)
    if k == "弓":
        return _t(lh) @ yaw @ _rz(90)
    if k == "矢":
        if "弓" in others_k:
            return _t(lh + yaw[:3, :3] @ np.array([0.0, 0.04, 0.05])) @ yaw @ _rz(-90)
        return _t(rh) @ yaw @ _rx(80)
    if k == "扑":
        return _t(rh + np.array([0, 0, -0.35])) @ yaw
    both = (lh + rh) / 2
    if k == "旌":
        return _t(both + np.array([0, 0, -1.0])) @ yaw
    if k == "瑟":
        return _t(both + yaw[:3, :3] @ np.array([0.0, 0.05, -0.05])) @ yaw @ _rz(90)
    if k == "俎":
        return _t(both + yaw[:3, :3] @ np.array([0.0, 0.1, -0.36])) @ yaw @ _rz(90)
    if k in ("丰", "荐"):
        return _t(both + np.array([0, 0, -0.05 if k == "荐" else -0.3])) @ yaw
    return _t(both + np.array([0, 0, -0.02])) @ yaw


# ---------------------------------------------------------------------------
# flattened arrays for fast renderers

@dataclass(frozen=True)
class FigureGeometry:
    """All parts of a figure (or one prop) as flat arrays, for renderers that move vertices in numpy.

    ``vertices``/``normals`` are in each part's local frame; ``part_index[i]`` says which
    entry of ``parts`` vertex i belongs to; ``colors`` are uint8 RGB; ``faces`` index the
    vertices.
    """
    parts: tuple[str, ...]
    vertices: np.ndarray    # (n, 3) float
    normals: np.ndarray     # (n, 3) float
    colors: np.ndarray      # (n, 3) uint8
    faces: np.ndarray       # (m, 3) int
    part_index: np.ndarray  # (n,) int

    @property
    def n_triangles(self) -> int:
        return len(self.faces)


def _flatten(items: list[tuple[str, trimesh.Trimesh]]) -> FigureGeometry:
    vs, ns, cs, fs, pi = [], [], [], [], []
    off = 0
    for i, (_, m) in enumerate(items):
        vs.append(np.asarray(m.vertices, float))
        ns.append(np.asarray(m.vertex_normals, float))
        cs.append(np.asarray(m.visual.vertex_colors)[:, :3].astype(np.uint8))
        fs.append(np.asarray(m.faces) + off)
        pi.append(np.full(len(m.vertices), i))
        off += len(m.vertices)
    return FigureGeometry(tuple(p for p, _ in items), np.vstack(vs), np.vstack(ns), np.vstack(cs),
                          np.vstack(fs), np.concatenate(pi))


@lru_cache(maxsize=None)
def figure_geometry(role: str) -> FigureGeometry:
    """Flattened parts of a figure of ``role`` (role name or actor id); parts in :data:`PARTS` order."""
    if role not in ROLE_STYLE:
        role = role_of(role)
    return _flatten(list(_part_meshes_cached(role)))


@lru_cache(maxsize=None)
def prop_geometry(kind: str, strung: bool = True) -> FigureGeometry:
    """Flattened single-part geometry of a prop kind."""
    return _flatten([(prop_kind(kind), _prop_mesh_cached(prop_kind(kind), bool(strung)))])
