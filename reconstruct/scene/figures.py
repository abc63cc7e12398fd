"""Stylised people and props as light trimesh geometry, shared by the video and the glTF export.

A figure is a small node hierarchy in metres.  Local frame of every figure:
x = its right, y = forward (the way it faces), z = up, feet at z = 0.

    pelvis (root, the hip centre; mesh: the belt/sash)
    ├── skirt            lower robe from the waist to mid-thigh
    │   └── hem          the robe below, widening with the stride so the legs stay inside
    ├── torso            upper robe + insignia patch; joint at the waist
    │   ├── head         head, hair knot and cap; joint at the neck
    │   ├── l_upper_arm / l_upper_arm_bare   (袒: the bare variant shows)
    │   │   └── l_forearm / l_forearm_bare   forearm, sleeve, hand
    │   │       ├── l_sleeve                 the sleeve's hanging fold (袂), kept hanging down
    │   │       └── l_guard (of the bare one) 遂 arm guard (決遂 worn and arm bared)
    │   └── r_upper_arm
    │       └── r_forearm
    │           ├── r_sleeve
    │           └── r_ring                   決 thumb ring (決遂 worn)
    ├── l_thigh → l_shin (shin + shoe)
    └── r_thigh → r_shin

Variant parts (bare arm, gear) are always present; :func:`pose` hides the ones not
in use by scaling them to zero, so the hierarchy is the same at every moment and
an animation can switch them (glTF: a STEP scale channel).

Posture ``phase`` ∈ [0, 1): the gait phase for ``walk`` (one full stride per
cycle), the progress through the gesture for ``bow``/``kneel_bow`` (the bow goes
down and comes back up within the phase), unused for ``stand``/``kneel``.

Poses (joint parameters, postures, gait) are in :mod:`.poses`, props and how they are held in
:mod:`.props`; their public names can also be read from this module.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np
import trimesh
from scipy.spatial.transform import Rotation

__all__ = [
    "PARTS", "PARENT", "JOINT_OFFSET", "ROLE_STYLE", "role_of", "part_meshes", "root_transform",
    "hand_position", "rotations", "FigureGeometry", "figure_geometry", "STANDING_HEIGHT", "STRIDE_M", "HIP_SWING",
]

# ---------------------------------------------------------------------------
# skeleton

PARTS: tuple[str, ...] = (
    "pelvis", "skirt", "hem", "torso", "head",
    "l_upper_arm", "l_forearm", "l_sleeve", "l_upper_arm_bare", "l_forearm_bare", "l_guard",
    "r_upper_arm", "r_forearm", "r_sleeve", "r_ring",
    "l_thigh", "l_shin", "r_thigh", "r_shin",
    "l_shirt_upper", "l_shirt_fore",
)

PARENT: dict[str, str | None] = {
    "pelvis": None, "skirt": "pelvis", "hem": "skirt", "torso": "pelvis", "head": "torso",
    "l_upper_arm": "torso", "l_forearm": "l_upper_arm", "l_sleeve": "l_forearm", "r_sleeve": "r_forearm",
    "l_upper_arm_bare": "torso", "l_forearm_bare": "l_upper_arm_bare", "l_guard": "l_forearm_bare",
    "r_upper_arm": "torso", "r_forearm": "r_upper_arm", "r_ring": "r_forearm",
    "l_thigh": "pelvis", "l_shin": "l_thigh", "r_thigh": "pelvis", "r_shin": "r_thigh",
    # 纁襦: the red undershirt's sleeve over the bared arm (記: 大夫與士射，袒纁襦; shown only then)
    "l_shirt_upper": "l_upper_arm_bare", "l_shirt_fore": "l_forearm_bare",
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
SLEEVE_AT = 0.16      # the sleeve's fold hangs from this far down the forearm
HEM_JOIN = 0.36       # the hem part hangs from this far below the waist
SKIRT_TOP = (0.16, 0.125)     # the robe's radii at the waist (x, y)
SKIRT_BOTTOM = (0.235, 0.19)  # and at the hem: 0.47 m across
STANDING_HEIGHT = HIP_Z + WAIST + NECK_Z + 0.23   # top of the head, without the cap
HIP_SWING = 12.0      # degrees the thigh swings either way: short steps in the robe (趨; 接武 on the hall)
STRIDE_M = 0.72       # ground covered by one full gait cycle (two steps of 2 · 0.87 m · sin 12°)

JOINT_OFFSET: dict[str, np.ndarray] = {k: np.asarray(v, float) for k, v in {
    "pelvis": (0.0, 0.0, HIP_Z),
    "skirt": (0.0, 0.0, WAIST),
    "hem": (0.0, 0.0, -HEM_JOIN),
    "torso": (0.0, 0.0, WAIST),
    "head": (0.0, 0.0, NECK_Z),
    "l_upper_arm": (-SHOULDER_X, 0.0, SHOULDER_Z),
    "l_forearm": (0.0, 0.0, -UPPER_ARM),
    "l_upper_arm_bare": (-SHOULDER_X, 0.0, SHOULDER_Z),
    "l_forearm_bare": (0.0, 0.0, -UPPER_ARM),
    "l_guard": (0.0, 0.0, 0.0),
    "l_shirt_upper": (0.0, 0.0, 0.0),
    "l_shirt_fore": (0.0, 0.0, 0.0),
    "r_upper_arm": (SHOULDER_X, 0.0, SHOULDER_Z),
    "r_forearm": (0.0, 0.0, -UPPER_ARM),
    "l_sleeve": (0.0, 0.0, -SLEEVE_AT),
    "r_sleeve": (0.0, 0.0, -SLEEVE_AT),
    "r_ring": (0.0, 0.0, -FOREARM),
    "l_thigh": (-0.09, 0.0, 0.0),
    "l_shin": (0.0, 0.0, -THIGH),
    "r_thigh": (0.09, 0.0, 0.0),
    "r_shin": (0.0, 0.0, -THIGH),
}.items()}

# ---------------------------------------------------------------------------
# roles and colours

SKIN = (0.86, 0.69, 0.53)
HAIR = (0.08, 0.07, 0.06)
SHOE = (0.10, 0.09, 0.08)
TROUSER = (0.30, 0.26, 0.22)
LEATHER = (0.45, 0.25, 0.12)
IVORY = (0.93, 0.88, 0.72)
XUN = (0.80, 0.36, 0.30)          # 纁: 三染謂之纁 (爾雅), a light red


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

#: the cap of a role: "high" (大夫, 诸公: a taller 玄冠 with red cords), "guan" (玄冠 with a ridge, a
#: pin and cords tied under the chin: the guests, the host, the officers), "cloth" (a small 缁布冠:
#: the young men, servants and musicians).  Elders (宾, 主人, 大夫, 诸公, 众宾, the music masters) wear
#: beards.
CAP_OF_ROLE: dict[str, str] = {"大夫": "high", "诸公": "high", "宾": "guan", "主人": "guan", "众宾": "guan",
                               "司射": "guan", "司马": "guan", "乐正": "guan", "大师": "guan", "相": "guan",
                               "上耦": "guan", "次耦": "guan", "下耦": "guan", "default": "guan"}
BEARDED = {"宾", "主人", "大夫", "诸公", "众宾", "大师", "乐正", "司马"}

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


def _globe(center, radii, rgb, n_lon: int = 12, n_lat: int = 9) -> trimesh.Trimesh:
    """An ellipsoid as a latitude–longitude grid (fewer triangles than an icosphere as round)."""
    lat = np.linspace(0, np.pi, n_lat)[1:-1]
    lon = np.linspace(0, 2 * np.pi, n_lon, endpoint=False)
    ring = np.stack(np.meshgrid(lat, lon, indexing="ij"), -1).reshape(-1, 2)
    v = np.c_[np.sin(ring[:, 0]) * np.cos(ring[:, 1]), np.sin(ring[:, 0]) * np.sin(ring[:, 1]), np.cos(ring[:, 0])]
    v = np.vstack([[0, 0, 1.0], v, [0, 0, -1.0]]) * np.asarray(radii, float) + np.asarray(center, float)
    k = len(lat)
    faces = []
    for j in range(n_lon):
        j2 = (j + 1) % n_lon
        faces.append((0, 1 + j, 1 + j2))
        for i in range(k - 1):
            a, b = 1 + i * n_lon + j, 1 + i * n_lon + j2
            c, d = a + n_lon, b + n_lon
            faces += [(a, c, d), (a, d, b)]
        last = 1 + (k - 1) * n_lon
        faces.append((len(v) - 1, last + j2, last + j))
    return _colored(trimesh.Trimesh(v, np.array(faces), process=False), rgb)


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

def _head(role: str, cap_rgb) -> trimesh.Trimesh:
    """Head and face (eyes, brows, nose, mouth, ears; a beard on elders), hair and the cap of the role."""
    head = _globe((0, 0.005, 0.115), (0.088, 0.10, 0.115), SKIN, 12, 9)
    vc = head.visual.vertex_colors.copy()
    v = head.vertices
    hair = (v[:, 1] < -0.02) | (v[:, 2] > 0.175) | ((v[:, 2] > 0.155) & (np.abs(v[:, 0]) > 0.06))
    vc[hair, :3] = (np.asarray(HAIR) * 255).astype(np.uint8)
    head.visual = trimesh.visual.ColorVisuals(head, vertex_colors=vc)
    brow_rgb = _mix(HAIR, SKIN, 0.15)
    lip = (0.62, 0.36, 0.32)
    parts = [head,
             _frustum(0.085, 0.13, (0.012, 0.008), (0.008, 0.004), 6, _mix(SKIN, (0.7, 0.5, 0.4), 0.2),
                      center0=(0.0, 0.112), center1=(0.0, 0.100), cap1=False),          # nose (its top in the head)
             _box((-0.019, 0.093, 0.072), (0.019, 0.101, 0.079), lip)]                    # mouth
    for sx in (-1.0, 1.0):
        parts += [_ellipsoid((sx * 0.033, 0.093, 0.126), (0.013, 0.006, 0.0075), (0.10, 0.08, 0.07), 0),   # eye
                  _box((min(sx * 0.014, sx * 0.054), 0.087, 0.143), (max(sx * 0.014, sx * 0.054), 0.098, 0.151),
                       brow_rgb),                                                       # brow
                  _ellipsoid((sx * 0.088, 0.0, 0.112), (0.012, 0.02, 0.03), SKIN, 0)]  # ear
    if role in BEARDED:
        grey = (0.30, 0.28, 0.26) if role in ("宾", "大师", "乐正") else HAIR
        parts += [_frustum(0.066, -0.05, (0.045, 0.03), (0.012, 0.012), 8, grey, center0=(0.0, 0.075),
                           center1=(0.0, 0.085), cap0=False),                              # beard (its top in the face)
                  _box((-0.028, 0.096, 0.081), (0.028, 0.106, 0.088), grey)]               # moustache
    parts += _cap(CAP_OF_ROLE.get(role, "cloth"), cap_rgb)
    return _merge(parts)


def _cap(kind: str, rgb) -> list[trimesh.Trimesh]:
    """玄冠 (guan), the taller one of the 大夫 (high), or the small cloth cap (cloth)."""
    knot = _ellipsoid((0.0, -0.02, 0.225), (0.035, 0.04, 0.04), HAIR, 0)
    if kind == "cloth":
        return [knot, _frustum(0.19, 0.25, (0.045, 0.05), (0.035, 0.04), 8, rgb, center0=(0, -0.02), center1=(0, -0.02))]
    tall = 0.30 if kind == "high" else 0.265
    cords = (0.62, 0.12, 0.10) if kind == "high" else _mix(rgb, (0.5, 0.5, 0.5), 0.3)
    out = [knot,
           _frustum(0.18, 0.215, (0.07, 0.085), (0.065, 0.08), 10, rgb),                       # the band (武)
           _box((-0.025, -0.10, 0.205), (0.025, 0.10, tall), rgb),                              # the ridge (梁)
           _tube([(-0.075, -0.02, 0.24), (0.075, -0.02, 0.24)], 0.005, (0.80, 0.74, 0.58), 4)]  # the pin (笄)
    for sx in (-1.0, 1.0):                                                                     # cords (纓) to the chin
        out.append(_tube([(sx * 0.07, 0.0, 0.19), (sx * 0.075, 0.03, 0.10), (sx * 0.03, 0.07, 0.015),
                          (sx * 0.012, 0.085, -0.05)], 0.004, cords, 3))
    return out


def _hand(rgb) -> trimesh.Trimesh:
    """A hand hanging from the wrist: a palm with the fingers together and a thumb forward."""
    return _merge([_frustum(-FOREARM + 0.005, -FOREARM - 0.05, (0.017, 0.03), (0.019, 0.036), 7, rgb, cap0=False,
                            center0=(0.0, 0.004), center1=(0.0, 0.008)),
                   _frustum(-FOREARM - 0.05, -FOREARM - 0.095, (0.019, 0.036), (0.008, 0.02), 7, rgb, cap0=False,
                            center0=(0.0, 0.008), center1=(0.0, 0.01)),                 # the fingers together
                   _ellipsoid((0.0, 0.036, -FOREARM - 0.022), (0.011, 0.013, 0.026), rgb, 0)])


@lru_cache(maxsize=None)
def _part_meshes_cached(role: str) -> tuple[tuple[str, trimesh.Trimesh], ...]:
    st = ROLE_STYLE.get(role, ROLE_STYLE["default"])
    robe, skirt_c, sash, badge, cap = st["robe"], st["skirt"], st["sash"], st["badge"], st["cap"]
    collar = _mix(robe, (0.95, 0.92, 0.85), 0.65)
    sleeve_lining = _mix(robe, (0.0, 0.0, 0.0), 0.25)
    parts: dict[str, trimesh.Trimesh] = {}

    # pelvis: the sash/belt around the waist, with two hanging ends in front
    parts["pelvis"] = _merge([
        _frustum(WAIST - 0.03, WAIST + 0.05, (0.165, 0.13), (0.16, 0.125), 12, sash),
        _box((-0.05, 0.12, -0.28), (-0.01, 0.135, WAIST), sash),
        _box((0.01, 0.12, -0.22), (0.05, 0.135, WAIST), sash),
    ])
    # skirt: from the waist to mid-thigh; the hem part below it (the legs stay inside it in a stride)
    hem_z = -(HIP_Z + WAIST - SKIRT_HEM)
    u = HEM_JOIN / -hem_z
    mid = tuple(a + (b - a) * u for a, b in zip(SKIRT_TOP, SKIRT_BOTTOM))
    parts["skirt"] = _frustum(0.0, -HEM_JOIN - 0.02, SKIRT_TOP, tuple(m + 0.004 for m in mid), 20, skirt_c,
                              cap0=False, cap1=False)
    parts["hem"] = _merge([_frustum(0.0, hem_z + HEM_JOIN, tuple(m - 0.006 for m in mid), SKIRT_BOTTOM, 20,
                                    skirt_c, cap0=False, cap1=False),
                           _frustum(hem_z + HEM_JOIN + 0.03, hem_z + HEM_JOIN, SKIRT_BOTTOM, SKIRT_BOTTOM, 20,
                                    _mix(skirt_c, collar, 0.45), cap0=False, cap1=False)])   # the hem's border
    # torso: chest widening to the shoulders; a light cross collar (交领) and the badge on the chest
    parts["torso"] = _merge([
        _frustum(0.0, SHOULDER_Z, (0.16, 0.125), (0.215, 0.13), 16, robe, cap0=False),
        _frustum(SHOULDER_Z, NECK_Z + 0.005, (0.12, 0.09), (0.055, 0.05), 12, robe, cap0=False, cap1=False),
        _tube([(-0.10, 0.095, SHOULDER_Z + 0.01), (0.0, 0.13, SHOULDER_Z - 0.16), (0.09, 0.13, SHOULDER_Z - 0.24)],
              0.018, collar, 4),
        _tube([(0.10, 0.095, SHOULDER_Z + 0.01), (0.02, 0.128, SHOULDER_Z - 0.10)], 0.016, collar, 4),
        _box((-0.07, 0.125, 0.12), (0.04, 0.145, 0.22), badge),
        _box((-0.08, -0.145, 0.16), (0.08, -0.125, 0.32), badge),      # the same badge on the back
    ])
    parts["head"] = _head(role, cap)

    def arm(bare: bool) -> tuple[trimesh.Trimesh, trimesh.Trimesh]:
        if bare:
            up = _frustum(0.02, -UPPER_ARM, 0.05, 0.04, 10, SKIN, cap0=False)    # its top is inside the torso
            fo = _merge([_frustum(0.0, -FOREARM, 0.04, 0.03, 10, SKIN), _hand(SKIN)])
            return up, fo
        up = _frustum(0.03, -UPPER_ARM, 0.07, 0.075, 12, robe)
        fo = _merge([
            _frustum(0.0, -FOREARM + 0.02, 0.07, 0.085, 12, robe, cap1=False),           # the sleeve round the arm
            _frustum(-FOREARM + 0.02, -FOREARM + 0.03, 0.085, 0.05, 12, sleeve_lining, cap0=False, cap1=False),
            _hand(SKIN),
        ])
        return up, fo

    # 袂: the wide sleeve's fold, hanging straight down from the forearm whatever the arm does
    # (its frame keeps the torso's orientation: :func:`.poses.local_transforms` undoes the arm's turn)
    fold = _merge([_frustum(0.06, -0.20, (0.06, 0.11), (0.05, 0.15), 10, robe, cap0=False, cap1=False,
                            center0=(0.0, 0.0), center1=(0.0, -0.02)),
                   _frustum(-0.20, -0.21, (0.05, 0.15), (0.02, 0.03), 10, sleeve_lining, cap0=False, cap1=False,
                            center0=(0.0, -0.02), center1=(0.0, -0.02))])
    parts["l_sleeve"], parts["r_sleeve"] = fold, fold.copy()
    parts["l_upper_arm"], parts["l_forearm"] = arm(False)
    parts["r_upper_arm"], parts["r_forearm"] = arm(False)
    parts["l_upper_arm_bare"], parts["l_forearm_bare"] = arm(True)
    # the undershirt's sleeve, a little wider than the bare arm it covers, to the wrist
    # (open tubes: their ends are inside the shoulder, the elbow and the hand; 8 sides keep the figure
    # within its budget of triangles, test_triangle_budget)
    parts["l_shirt_upper"] = _frustum(0.025, -UPPER_ARM, 0.056, 0.047, 8, XUN, cap0=False, cap1=False)
    parts["l_shirt_fore"] = _frustum(0.005, -FOREARM + 0.01, 0.047, 0.037, 8, XUN, cap0=False, cap1=False)
    # 遂: a leather guard on the bared left forearm; 決: an ivory ring on the right thumb
    parts["l_guard"] = _merge([_frustum(-0.04, -0.23, 0.047, 0.04, 8, LEATHER, cap0=False, cap1=False),
                               _frustum(-0.10, -0.12, 0.049, 0.048, 8, _mix(LEATHER, (0, 0, 0), 0.4), cap0=False,
                                        cap1=False)])
    parts["r_ring"] = _merge([_frustum(-0.010, -0.036, 0.0155, 0.0155, 8, IVORY, center0=(0.0, 0.036),
                                       center1=(0.0, 0.036)),
                              _box((-0.012, 0.044, -0.034), (0.012, 0.056, -0.012), IVORY)])

    def leg() -> tuple[trimesh.Trimesh, trimesh.Trimesh]:
        th = _frustum(0.03, -THIGH, 0.075, 0.058, 8, TROUSER)
        sh = _merge([_frustum(0.0, -SHIN, 0.055, 0.045, 8, TROUSER),
                     _frustum(-SHIN, -SHIN - 0.07, (0.045, 0.06), (0.048, 0.11), 8, SHOE,
                              center0=(0.0, 0.0), center1=(0.0, 0.055)),                    # the shoe (屨)
                     _box((-0.03, 0.11, -SHIN - 0.07), (0.03, 0.17, -SHIN - 0.035), SHOE)])  # its upturned toe
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
# transforms

def _t(v) -> np.ndarray:
    """4x4 translation."""
    m = np.eye(4)
    m[:3, 3] = v
    return m


def rotations(axes: str, angles) -> np.ndarray:
    """(n, 4, 4) rotations about the given axes in turn, each about the axes the one before left (``"ZXY"``:
    about z, then the new x, then the new y), one per row of ``angles`` (degrees), in one scipy call."""
    a = np.asarray(angles, float).reshape(len(angles), len(axes))
    m = np.zeros((len(a), 4, 4))
    m[:, :3, :3] = Rotation.from_euler(axes, a, degrees=True).as_matrix()
    m[:, 3, 3] = 1.0
    return m


def _rot(axes: str, *degrees: float) -> np.ndarray:
    """4x4 of rotations about the given axes in turn (:func:`rotations`), in degrees: the same matrix each time
    for the same angles (a copy: callers may modify it), made once (one scipy call costs ~40 µs and a frame asks
    for the same few headings and tilts of everyone standing still again and again)."""
    return _rot_made(axes, np.asarray(degrees, float).tobytes()).copy()   # the bits: -0.0 is not 0.0


@lru_cache(maxsize=65536)
def _rot_made(axes: str, degrees: bytes) -> np.ndarray:
    return rotations(axes, [np.frombuffer(degrees)])[0]


def _rx(a: float) -> np.ndarray:
    return _rot("x", a)


def _rz(a: float) -> np.ndarray:
    return _rot("z", a)


def root_transform(x: float, y: float, z: float, heading_deg: float) -> np.ndarray:
    """World transform of a figure's ground origin: heading 0 faces +y (north), 90 faces +x (east)."""
    return _t((x, y, z)) @ _rz(-heading_deg)


def chain(root: np.ndarray, local: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    out: dict[str, np.ndarray] = {}
    for part in PARTS:                       # PARTS lists parents before children
        parent = PARENT[part]
        out[part] = (root if parent is None else out[parent]) @ local[part]
    return out


def hand_position(world: dict[str, np.ndarray], side: str = "l") -> np.ndarray:
    """World position (3,) of a hand's palm, from :func:`world_transforms` output."""
    part = f"{side}_forearm"
    if side == "l" and abs(np.linalg.det(world["l_forearm"][:3, :3])) < 1e-9:
        part = "l_forearm_bare"
    return (world[part] @ np.array([0.0, 0.02, -FOREARM - HAND / 2, 1.0]))[:3]


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


# the names of the poses and props modules, readable from here as before they moved there
_MOVED = {"poses": ("POSTURES", "pose_params", "blend_params", "local_transforms", "pose", "world_transforms",
                    "gait_phase", "figure_mesh"),
          "props": ("PROP_KINDS", "prop_kind", "prop_mesh", "prop_geometry", "held_prop_transform")}


def __getattr__(name: str):
    for module, names in _MOVED.items():
        if name in names:
            import importlib
            return getattr(importlib.import_module(f"{__name__.rsplit('.', 1)[0]}.{module}"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
