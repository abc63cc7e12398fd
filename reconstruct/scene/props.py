"""Props: their kinds (from the text's nouns), their meshes, and where a figure holds them."""
from __future__ import annotations

import math
import re
from functools import lru_cache

import numpy as np
import trimesh

from ..model import footprint
from .figures import (FigureGeometry, _box, _ellipsoid, _flatten, _frustum, _merge, _rx, _rz, _t, _tube,
                      hand_position)

__all__ = ["PROP_KINDS", "TWO_HANDED", "prop_kind", "prop_mesh", "prop_geometry", "held_prop_transform"]

PROP_KINDS: tuple[str, ...] = ("弓", "矢", "扑", "觯", "爵", "丰", "荐", "俎", "算", "旌", "瑟", "中", "楅", "侯",
                               "笙", "席", "尊", "篚", "乏")
_TRAD = {"觶": "觯", "豐": "丰", "薦": "荐", "筭": "算", "撲": "扑", "朴": "扑", "鹿中": "中", "福": "楅"}
TWO_HANDED = footprint.TWO_HANDED      # held before the chest in both hands (the outlines of the planner agree)
_BRONZE = (0.42, 0.38, 0.24)
_WOOD = (0.45, 0.30, 0.17)
_LACQUER = (0.35, 0.09, 0.06)
_BAMBOO = (0.76, 0.66, 0.42)
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
    if k == "算":       # one tally (箭筹): a slip of bamboo 尺有握 long, its top lacquered
        return _merge([_box((-0.006, -0.004, 0.0), (0.006, 0.004, 0.28), _BAMBOO),
                       _box((-0.0065, -0.0045, 0.28), (0.0065, 0.0045, 0.32), _LACQUER)])
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


@lru_cache(maxsize=None)
def prop_geometry(kind: str, strung: bool = True) -> FigureGeometry:
    """Flattened single-part geometry of a prop kind."""
    return _flatten([(prop_kind(kind), _prop_mesh_cached(prop_kind(kind), bool(strung)))])
