"""Props: their kinds (from the text's nouns), their meshes, and where a figure holds them."""
from __future__ import annotations

import math
import re
from functools import lru_cache

import numpy as np
import trimesh

from ..model import footprint
from . import objects as OB
from .figures import (FigureGeometry, _box, _colored, _ellipsoid, _flatten, _frustum, _merge, _rot, _rx, _rz, _t, _tube,
                      hand_position)

__all__ = ["PROP_KINDS", "TWO_HANDED", "CUPS", "prop_kind", "prop_mesh", "prop_geometry", "set_out_size",
           "held_prop_transform"]

PROP_KINDS: tuple[str, ...] = ("弓", "矢", "扑", "觯", "爵", "丰", "荐", "俎", "算", "旌", "瑟", "中", "楅", "侯",
                               "笙", "幂", "席", "尊", "篚", "乏", "洗", "水", "县")
_TRAD = {"觶": "觯", "豐": "丰", "薦": "荐", "筭": "算", "撲": "扑", "朴": "扑", "鹿中": "中", "福": "楅", "冪": "幂"}
TWO_HANDED = footprint.TWO_HANDED      # held before the chest in both hands (the outlines of the planner agree)
CUPS = footprint.CUPS
_BRONZE = (0.42, 0.38, 0.24)
_WOOD = (0.45, 0.30, 0.17)
_LACQUER = (0.35, 0.09, 0.06)
_BAMBOO = (0.76, 0.66, 0.42)
_HEMP = (0.80, 0.76, 0.64)       # undyed coarse hemp cloth (綌)
_SHAFT = (0.55, 0.42, 0.22)      # an arrow's shaft: darker than the 侯's cloth, so a hit shows


@lru_cache(maxsize=4096)
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


def _bow(strung: bool, with_string: bool = True) -> trimesh.Trimesh:
    """A bow in the local y-z plane, grip at the origin, limbs bending toward +y (without its string
    when ``with_string`` is False: the video draws the string apart, to pull it)."""
    z = np.linspace(-0.78, 0.78, 13)
    u = z / 0.78
    if strung:
        y = 0.16 * (1 - u ** 2) - 0.03 * u ** 4
        tips = np.array([[0, y[0], z[0]], [0, y[-1], z[-1]]])
        string = _tube([tips[0], tips[1]], 0.004, (0.85, 0.82, 0.72), 3) if with_string else None
    else:  # unstrung: the limbs relax into a shallow reversed curve
        y = -0.10 * u ** 2
        string = None
    limb = _tube(np.c_[np.zeros_like(z), y, z], 0.016, _LACQUER, 4)
    grip = _frustum(-0.07, 0.07, 0.022, 0.022, 6, (0.15, 0.10, 0.07))
    grip.apply_translation((0, y[6], 0))
    return _merge([limb, string, grip])


def _arrow() -> trimesh.Trimesh:
    """An arrow along +y, its middle at the origin."""
    shaft = _tube([(0, -0.36, 0), (0, 0.36, 0)], 0.0065, _SHAFT, 4)
    head = _frustum(0.0, 0.05, 0.009, 0.0005, 4, (0.25, 0.25, 0.27), cap1=False)
    head.apply_transform(_t((0, 0.36, 0)) @ _rx(-90))
    fl = _box((-0.022, -0.36, -0.001), (0.022, -0.24, 0.001), (0.25, 0.22, 0.20))     # dark feathers
    fl2 = _box((-0.001, -0.36, -0.022), (0.001, -0.24, 0.022), (0.25, 0.22, 0.20))
    return _merge([shaft, head, fl, fl2])


def prop_mesh(kind: str, strung: bool = True) -> trimesh.Trimesh:
    """A vertex-coloured mesh of a prop kind (or a prop id), base or grip at the origin, z up.

    Kinds: 弓 (``strung=False`` for the unstrung bow), 矢, 扑, 觯, 爵, 丰, 荐 (a 豆 dish),
    俎, 算 (one tally), 旌 (the 翿旌), 瑟, 中 (the 鹿中), 楅, 侯, 乏 — the things the 記 describes are built
    by :mod:`.objects`, with the text's dimensions; anything else is a small box.
    """
    return _prop_mesh_cached(prop_kind(kind), bool(strung)).copy()


@lru_cache(maxsize=None)
def _prop_mesh_cached(k: str, strung: bool) -> trimesh.Trimesh:
    if k == "弓":
        return _bow(strung)
    if k == "矢":
        return _arrow()
    if k == "扑":        # 楚扑長如笴，刋本尺 (objects.rod_pu)
        return OB.rod_pu()
    if k == "觯":        # a round-bellied cup on a ring foot (objects.cup_zhi)
        return OB.cup_zhi()
    if k == "爵":        # three legs, spout, tail, two posts, handle (objects.cup_jue)
        return OB.cup_jue()
    if k == "丰":        # 形蓋似豆而卑 (objects.stand_feng)
        return OB.stand_feng()
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
    if k == "算":        # one tally: 長尺有握，握素 (objects.tally)
        return OB.tally()
    if k == "旌":        # 翿旌: 白羽與朱羽糅，杠長三仞，以鴻脰韜上二尋 (objects.feather_banner)
        return OB.feather_banner()
    if k == "瑟":
        body = _box((-0.2, -0.8, 0.0), (0.2, 0.8, 0.1), (0.30, 0.12, 0.07))
        strings = _box((-0.16, -0.7, 0.1), (0.16, 0.7, 0.105), (0.85, 0.80, 0.62))
        return _merge([body, strings])
    if k == "笙":
        return _merge([_frustum(0.0, 0.08, 0.05, 0.05, 8, _LACQUER),
                       _frustum(0.08, 0.4, 0.045, 0.03, 8, _BAMBOO)])
    if k == "幂":        # 尊綌冪 (記): a cloth of coarse hemp laid over the two jars' mouths
        return _box((-0.30, -0.13, 0.0), (0.30, 0.13, 0.012), _HEMP)
    if k == "中":        # 鹿中髤，前足跪，鑿背容八算 (objects.deer_zhong)
        return OB.deer_zhong()
    if k == "楅":        # 楅長如笴，博三寸，厚寸有半，龍首，其中蛇交，韋當 (objects.rack_bi)
        return OB.rack_bi()
    if k == "侯":
        return _merge([_box((-2.5, -0.02, 0.0), (2.5, 0.02, 3.0), (0.85, 0.80, 0.68)),
                       _box((-0.6, -0.03, 0.9), (0.6, 0.03, 2.1), (0.55, 0.12, 0.09))])
    if k == "乏":        # the marker's screen of ox hide (objects.screen_fa)
        return OB.screen_fa()
    if k in _SET_OUT_LANDMARK:   # a thing set out (宾席, 尊, 洗 …): the body the ground gives that fixture
        return _set_out_mesh(k, None)
    return _box((-0.1, -0.1, 0.0), (0.1, 0.1, 0.2), _WOOD)


# the things set out (model.vocabulary.SET_OUT) as the landmark kinds :mod:`.fixtures` builds
_SET_OUT_LANDMARK = {"席": "mat", "尊": "wine", "篚": "basket", "洗": "basin", "水": "jar", "县": "chimes"}


@lru_cache(maxsize=64)
def _set_out_mesh(k: str, size: tuple[float, float] | None) -> trimesh.Trimesh:
    """A thing set out as the fixture it becomes, vertex-coloured: at ``size`` (its width and depth: the
    footprint of the landmark it is laid at, from the plan), else at the sizes the ground's builders default to;
    its height always theirs."""
    from types import SimpleNamespace

    from .fixtures import fixture_parts
    full = None
    if size is not None:
        ht = float(_set_out_mesh(k, None).bounds[1][2])
        full = (float(size[0]), float(size[1]), ht)
    l = SimpleNamespace(kind=_SET_OUT_LANDMARK[k], position=(0.0, 0.0, 0.0), heading=0.0, size=full,
                        id=k, label_en="")
    parts = []
    for gp in fixture_parts(l):
        m = trimesh.Trimesh(gp.mesh.vertices[gp.mesh.faces].reshape(-1, 3),
                            np.arange(len(gp.mesh.faces) * 3).reshape(-1, 3), process=False)
        parts.append(_colored(m, tuple(float(c) for c in gp.color)))
    return _merge(parts)


def held_prop_transform(kind: str, world: dict[str, np.ndarray], heading_deg: float,
                        others: list[str] | tuple[str, ...] = ()) -> np.ndarray:
    """World 4x4 of a prop carried by a posed figure (``world`` from :func:`world_transforms`).

    Bows are held upright in the left hand, arrows across the bow (挟) or in the right hand,
    the 扑 in the right hand, cups, dishes, 俎, 丰, 瑟 and tallies before the chest in both
    hands (the 瑟 on the left shoulder when the left hand is raised to it: 左何瑟), the 旌 upright in both hands.  Props stay upright and turn with the body.
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
    if k in CUPS and "弓" in others_k:         # 右手執觶，左手執弓 (鄭 on 立卒觶)
        return _t(rh + np.array([0, 0, -0.02])) @ yaw
    both = (lh + rh) / 2
    if k == "旌":
        return _t(both + np.array([0, 0, -1.0])) @ yaw
    if k == "瑟":
        if lh[2] > world["l_upper_arm"][2, 3]:
            # the left hand raised to the shoulder (poses: 左何瑟): the 瑟 lies on the left shoulder, its head
            # forward (面鼓) and tilted up a little, turned on its side with the strings towards the head (內弦)
            return _t(lh + yaw[:3, :3] @ np.array([-0.08, 0.02, 0.12])) @ yaw @ _rx(6) @ _rot("y", 90)
        return _t(both + yaw[:3, :3] @ np.array([0.0, 0.05, -0.05])) @ yaw @ _rz(90)
    if k == "俎":
        return _t(both + yaw[:3, :3] @ np.array([0.0, 0.1, -0.36])) @ yaw @ _rz(90)
    if k in ("丰", "荐"):
        return _t(both + np.array([0, 0, -0.05 if k == "荐" else -0.3])) @ yaw
    return _t(both + np.array([0, 0, -0.02])) @ yaw


@lru_cache(maxsize=None)
def prop_geometry(kind: str, strung: bool = True, size: tuple[float, float] | None = None) -> FigureGeometry:
    """Flattened single-part geometry of a prop kind (``size``: a thing set out at a landmark, its width
    and depth there — :func:`set_out_size`)."""
    k = prop_kind(kind)
    if size is not None and k in _SET_OUT_LANDMARK:
        return _flatten([(k, _set_out_mesh(k, tuple(size)))])
    return _flatten([(k, _prop_mesh_cached(k, bool(strung)))])


def set_out_size(prop_id: str, landmarks) -> tuple[float, float] | None:
    """Width and depth of the landmark a thing set out is named as (from the plan's ``landmarks``: the first two
    edges of its footprint), or None (not such a thing, or no footprint)."""
    lm = landmarks.get(prop_id) if prop_kind(prop_id) in _SET_OUT_LANDMARK else None
    fp = getattr(lm, "footprint", None) if lm is not None else None
    if not fp or len(fp) < 3:
        return None
    (x0, y0), (x1, y1), (x2, y2) = fp[0][:2], fp[1][:2], fp[2][:2]
    return round(math.hypot(x1 - x0, y1 - y0), 4), round(math.hypot(x2 - x1, y2 - y1), 4)
