"""The things of the rite as the 記 and 鄭玄 describe them, as light vertex-coloured meshes (z up, the base
at the origin, the object's front towards +y, its length along x).

Every number the text gives is written here with its words; what no text fixes is marked CHOSEN.
Lengths are in 尺 of :data:`CHI_M` (the default reading's 尺: the props do not depend on a reading).
The quotations are from the 記 of the 鄉射禮 and 鄭玄's notes (``/work/shared/sources``,
``yili_juan05_xiangshe_zhengzhu_SBCK.txt``).

* :func:`deer_zhong` — 鹿中: 士鹿中 … 鹿中髤，前足跪，鑿背容八算 (a lacquered deer kneeling on its forelegs,
  its back hollowed to hold the eight tallies);
* :func:`tally` — 算: 箭籌八十，長尺有握，握素;
* :func:`feather_banner` — 翿旌: 無物則以白羽與朱羽糅，杠長三仞，以鴻脰韜上二尋;
* :func:`rack_bi` — 楅: 楅長如笴，博三寸，厚寸有半，龍首，其中蛇交，韋當; 楅髤;
* :func:`rod_pu` — 扑: 楚扑長如笴，刋本尺;
* :func:`cup_zhi` and :func:`cup_jue` — the 觶 and the 爵, two different vessels;
* :func:`stand_feng` — 豐: 形蓋似豆而卑 (鄭);
* :func:`screen_fa` — 乏 (容): the marker's screen, 舊圖: 從廣七尺，以牛革鞔漆之.

The 侯 is built from the reading's sizes by :mod:`.ground` (its 丹 ground, 雲氣 and two 正 included).
Every object stays within :data:`TRIANGLES` triangles (``tests/test_scene_figures.py``): the video poses
all of them on a CPU.
"""
from __future__ import annotations

import math

import numpy as np
import trimesh

from .figures import _box, _ellipsoid, _frustum, _globe, _merge, _rx, _rz, _t, _tube

__all__ = ["CHI_M", "CUN_M", "TRIANGLES", "LACQUER", "deer_zhong", "tally", "feather_banner", "rack_bi", "rod_pu",
           "cup_zhi", "cup_jue", "stand_feng", "screen_fa", "ZHONG_BACK_Z", "HOLLOW", "TALLY_LEN"]

CHI_M = 0.231                 # the default reading's 尺 (zheng_xuan.toml); CHOSEN for the props
CUN_M = CHI_M / 10
TRIANGLES = 600               # the most an object may have

LACQUER = (0.33, 0.08, 0.06)      # 髤: 赤黑 (鄭 on 楅髤: 髤，赤黑漆也)
DAN = (0.78, 0.22, 0.14)          # 丹韋 (鄭: 以丹韋為之)
BAMBOO = (0.74, 0.64, 0.40)       # 箭: 篠 (鄭: 箭，篠也)
PARED = (0.93, 0.88, 0.74)        # 素: 刋之 (pared, bare wood)
BRONZE = (0.42, 0.40, 0.26)
WOOD = (0.45, 0.30, 0.17)
THORN = (0.30, 0.22, 0.15)        # 楚: a thorn wood, its bark
WHITE_FEATHER = (0.94, 0.93, 0.88)
RED_FEATHER = (0.80, 0.12, 0.09)  # 朱羽
GOOSE = (0.62, 0.60, 0.55)        # 鴻脰: the wild goose's neck, grey

TALLY_LEN = 1.4 * CHI_M       # 長尺有握: a 尺 and a 握 (四寸: four fingers) — 0.323 m
TALLY_GRIP = 0.4 * CHI_M      # 握素: the 握 (鄭: 本所持處) pared
ZHONG_BACK_Z = 0.36           # CHOSEN: the deer's back, over the planner's tallies (they stand from z 0.30)
HOLLOW = 0.08                 # CHOSEN: the depth of the hollow (鑿背), the tallies standing in it


def _feather(p0, p1, w: float, rgb) -> trimesh.Trimesh:
    """A feather: a thin flat vane from ``p0`` to ``p1``, ``w`` wide (a flat box, seen from both sides)."""
    p0, p1 = np.asarray(p0, float), np.asarray(p1, float)
    d = p1 - p0
    L = float(np.linalg.norm(d))
    m = _box((-w / 2, -0.002, 0.0), (w / 2, 0.002, L), rgb)
    z = d / L
    x = np.cross([0.0, 0.0, 1.0], z) if abs(z[2]) < 0.99 else np.array([1.0, 0.0, 0.0])
    x /= np.linalg.norm(x)
    y = np.cross(z, x)
    M = np.eye(4)
    M[:3, 0], M[:3, 1], M[:3, 2], M[:3, 3] = x, y, z, p0
    return m.apply_transform(M)


# ---------------------------------------------------------------------------
# 鹿中 and 算

def tally() -> trimesh.Trimesh:
    """算 (箭籌): a slip of bamboo 長尺有握 (1 尺 4 寸), its 握 pared bare (握素), standing on its other end.

    The 握 is the end one holds (鄭: 握，本所持處也): upward, as it stands in the 中 to be taken."""
    w, d = 0.011, 0.006                           # CHOSEN section: a slip of 篠 bamboo
    return _merge([_box((-w / 2, -d / 2, 0.0), (w / 2, d / 2, TALLY_LEN - TALLY_GRIP), BAMBOO),
                   _box((-w / 2 + 0.0005, -d / 2 + 0.0005, TALLY_LEN - TALLY_GRIP), (w / 2 - 0.0005, d / 2 - 0.0005,
                                                                                      TALLY_LEN), PARED)])


def deer_zhong(with_tallies: bool = False) -> trimesh.Trimesh:
    """鹿中: a deer kneeling on its forelegs (前足跪: 鄭, 象教擾之獸受負也 — a tamed beast kneeling to take
    its load), lacquered 赤黑 (髤), its back hollowed (鑿背) to hold the eight tallies (容八算).

    It faces +y (its head: 奉之先首 — carried head first).  The text gives no size; CHOSEN: 0.56 m from
    chest to tail, the back at :data:`ZHONG_BACK_Z` so that the eight tallies the plan stands in it
    (from z 0.30) sink into the hollow.  ``with_tallies``: the eight 算 standing in it, as the plan puts
    them (two rows of four), for stills.
    """
    L = LACQUER
    dark = (0.08, 0.03, 0.02)
    back = ZHONG_BACK_Z
    body = _globe((0.0, -0.03, back - 0.14), (0.125, 0.27, 0.14), L, 10, 7)
    body.apply_transform(_t((0.0, -0.03, back - 0.14)) @ _rx(-8) @ _t((0.0, 0.03, -(back - 0.14))))  # chest lower
    parts = [body]
    for sx in (-1.0, 1.0):
        x = sx * 0.08
        # hind legs: the haunch, bent at the hock, standing (only the forelegs kneel)
        parts += [_ellipsoid((x * 1.1, -0.17, back - 0.15), (0.05, 0.09, 0.1), L, 0),                   # the haunch
                  _tube([(x, -0.2, back - 0.2), (x, -0.27, 0.1), (x, -0.25, 0.0)], 0.024, L, 6),
                  _ellipsoid((x, -0.245, 0.012), (0.022, 0.03, 0.014), dark, 0),
                  # forelegs folded under (跪): the upper leg forward and down to the knee on the ground, the
                  # cannon folded back under the chest, the hoof turned up behind it
                  _tube([(x * 0.9, 0.13, back - 0.2), (x * 0.9, 0.21, 0.022), (x * 0.9, 0.06, 0.026)], 0.027, L, 6),
                  _ellipsoid((x * 0.9, 0.045, 0.03), (0.02, 0.03, 0.02), dark, 0)]             # the hoof
    # neck and head, held up; ears; short antlers (a stag: CHOSEN); the muzzle dark
    parts += [_frustum(0.0, 0.2, (0.07, 0.075), (0.045, 0.05), 8, L, cap0=False, cap1=False),
              _globe((0.0, 0.0, 0.0), (0.055, 0.095, 0.058), L, 7, 6),
              _ellipsoid((0.0, 0.0, 0.0), (0.024, 0.03, 0.024), dark, 0)]
    neck, head, muzzle = parts[-3], parts[-2], parts[-1]
    neck.apply_transform(_t((0.0, 0.17, back - 0.1)) @ _rx(-30))
    head.apply_transform(_t((0.0, 0.31, back + 0.095)) @ _rx(20))
    muzzle.apply_translation((0.0, 0.395, back + 0.07))
    for sx in (-1.0, 1.0):
        parts += [_ellipsoid((sx * 0.05, 0.27, back + 0.15), (0.012, 0.02, 0.04), L, 0),
                  _tube([(sx * 0.02, 0.29, back + 0.14), (sx * 0.045, 0.28, back + 0.22), (sx * 0.08, 0.30, back + 0.27)],
                        0.007, (0.55, 0.45, 0.30), 3),
                  _tube([(sx * 0.04, 0.283, back + 0.2), (sx * 0.065, 0.33, back + 0.23)], 0.005, (0.55, 0.45, 0.30), 3),
                  _ellipsoid((sx * 0.038, 0.36, back + 0.11), (0.008, 0.006, 0.008), (0.9, 0.8, 0.6), 0)]   # eyes
    parts.append(_ellipsoid((0.0, -0.30, back - 0.06), (0.025, 0.025, 0.04), L, 0))   # tail
    # 鑿背: the hollow in the back, an opening (dark) rimmed, over the tallies' two rows of four
    # (the plan stands them 4 along the deer, 2 across, about 0.0125 m before the middle: TallyLayout.in_holder
    # with the deer facing east; a figure's or a prop's +y is its heading, its +x its right hand)
    parts += [_frustum(back - HOLLOW, back + 0.012, (0.045, 0.065), (0.05, 0.07), 10, L, cap0=False, cap1=False,
                       center0=(0.0, 0.0125), center1=(0.0, 0.0125)),
              _frustum(back - HOLLOW, back + 0.004, (0.04, 0.06), (0.04, 0.06), 10, dark, cap0=True, cap1=False,
                       center0=(0.0, 0.0125), center1=(0.0, 0.0125))]
    if with_tallies:
        t = tally()
        for i in range(8):
            parts.append(t.copy().apply_translation((0.02 - 0.04 * (i // 4), 0.05 - 0.025 * (i % 4), 0.30)))
    return _merge(parts)


# ---------------------------------------------------------------------------
# 翿旌

def feather_banner() -> trimesh.Trimesh:
    """翿旌: the banner of one who has no 物 — white and red feathers mixed (白羽與朱羽糅) on a pole
    三仞 long (杠長三仞; 鄭: 七尺曰仞 → 21 尺), its upper 二尋 sheathed in a wild goose's neck
    (以鴻脰韜上二尋; 鄭: 八尺曰尋 → 16 尺).  The feathers hang from the top as a plume (翿: 羽葆,
    CHOSEN shape: 18 feathers, 0.55 m), white and red in turn."""
    pole_h = 21 * CHI_M                      # 三仞
    sheath = 16 * CHI_M                      # 上二尋
    parts = [_tube([(0, 0, 0), (0, 0, pole_h - sheath)], 0.02, (0.25, 0.17, 0.10), 6),
             _tube([(0, 0, pole_h - sheath), (0, 0, pole_h)], 0.026, GOOSE, 6),
             _ellipsoid((0, 0, pole_h + 0.02), (0.04, 0.04, 0.05), RED_FEATHER, 1)]
    top = np.array([0.0, 0.0, pole_h])
    n = 18
    for i in range(n):
        a = 2 * math.pi * i / n
        hang = 0.55 - 0.07 * (i % 3)
        p0 = top + (0.03 * math.cos(a), 0.03 * math.sin(a), -0.01)
        p1 = top + (0.14 * math.cos(a), 0.14 * math.sin(a), -hang)
        parts.append(_feather(p0, p1, 0.04, WHITE_FEATHER if i % 2 == 0 else RED_FEATHER))
    return _merge(parts)


# ---------------------------------------------------------------------------
# 楅

def rack_bi() -> trimesh.Trimesh:
    """楅: 長如笴 (鄭: 笴，矢幹也，長三尺), 博三寸, 厚寸有半; 龍首 (鄭: 兩端為龍首), 其中蛇交 (中央為蛇身
    相交), 韋當 (鄭: 直心背之衣曰當，以丹韋為之 — the red leather on its middle, where the arrows are laid:
    分委於當), lacquered (楅髤).  Along x, its middle at the origin.

    The text says nothing of how it stands: CHOSEN, on the two snakes' coils and the dragons' chins, its
    top at 0.125 m (the plan lays the arrows on it at 0.13 m)."""
    L, B, T = 3 * CHI_M, 3 * CUN_M, 1.5 * CUN_M
    top = 0.125
    z0 = top - T
    end = L / 2 - 0.125                     # where each dragon's neck rises: its snout ends at the 楅's length
    parts = [_box((-end - 0.02, -B / 2, z0), (end + 0.02, B / 2, top), LACQUER)]      # the bar: 博三寸，厚寸有半
    # 韋當: the red leather over the middle (CHOSEN: a third of its length), a little proud of the bar
    parts.append(_box((-L / 6, -B / 2 - 0.003, top - 0.006), (L / 6, B / 2 + 0.003, top + 0.004), DAN))
    # 龍首 at both ends: the neck rising from the bar's end, the head turned outward, jaws and horns
    gold = (0.72, 0.55, 0.25)
    for s in (-1.0, 1.0):
        x = s * end
        parts += [_tube([(x, 0, z0 + T / 2), (x + s * 0.03, 0, top + 0.03), (x + s * 0.05, 0, top + 0.08)], 0.022,
                        LACQUER, 6),
                  _frustum(0.0, 0.07, (0.028, 0.024), (0.014, 0.012), 6, LACQUER),                        # the snout
                  _box((-0.01, -0.004, 0.0), (0.01, 0.004, 0.05), LACQUER),                                 # lower jaw
                  _tube([(x + s * 0.04, -0.012, top + 0.10), (x + s * 0.01, -0.02, top + 0.15)], 0.005, gold, 3),
                  _tube([(x + s * 0.04, 0.012, top + 0.10), (x + s * 0.01, 0.02, top + 0.15)], 0.005, gold, 3),
                  _ellipsoid((x + s * 0.065, -0.018, top + 0.095), (0.006, 0.004, 0.006), gold, 0),
                  _ellipsoid((x + s * 0.065, 0.018, top + 0.095), (0.006, 0.004, 0.006), gold, 0)]
        snout, jaw = parts[-6], parts[-5]
        snout.apply_transform(_t((x + s * 0.05, 0, top + 0.085)) @ _rot_y(s * 80))
        jaw.apply_transform(_t((x + s * 0.06, 0, top + 0.055)) @ _rot_y(s * 100))
    # 其中蛇交: under the bar, two snakes' bodies crossing each other along its length (their coils its feet)
    xs = np.linspace(-end, end, 13)
    for ph in (0.0, math.pi):
        pts = np.c_[xs, 0.022 * np.sin(2 * math.pi * (xs - xs[0]) / (xs[-1] - xs[0]) + ph),
                    (z0 - 0.004) * (0.5 + 0.5 * np.cos(2 * math.pi * (xs - xs[0]) / (xs[-1] - xs[0]) * 1.5 + ph))
                    + 0.012]
        parts.append(_tube(pts, 0.011, (0.24, 0.07, 0.05) if ph else LACQUER, 5))
    return _merge(parts)


def _rot_y(a: float) -> np.ndarray:
    c, s = math.cos(math.radians(a)), math.sin(math.radians(a))
    M = np.eye(4)
    M[0, 0], M[0, 2], M[2, 0], M[2, 2] = c, s, -s, c
    return M


# ---------------------------------------------------------------------------
# 扑, 觶, 爵, 豐, 乏

def rod_pu() -> trimesh.Trimesh:
    """扑: a rod of 楚 (thorn) 長如笴 (3 尺), 刋本尺: its lower 尺, where it is held, pared bare (鄭: 刋其
    可持處)."""
    L = 3 * CHI_M
    return _merge([_tube([(0, 0, 0), (0, 0, CHI_M)], 0.011, PARED, 6),
                   _tube([(0, 0, CHI_M), (0, 0, L)], 0.010, THORN, 6),
                   _frustum(L, L + 0.012, 0.010, 0.004, 6, THORN, cap0=False)])


def cup_zhi() -> trimesh.Trimesh:
    """觶: a round-bellied cup with a flaring mouth on a ring foot, without legs or spout (CHOSEN shape and
    size, after the bronze 觶: 0.14 m; 韓詩說 觶受三升)."""
    return _merge([_frustum(0.0, 0.018, 0.036, 0.032, 12, BRONZE),                         # the ring foot
                   _frustum(0.018, 0.06, 0.030, 0.046, 12, BRONZE, cap1=False),            # the belly
                   _frustum(0.06, 0.10, 0.046, 0.038, 12, BRONZE, cap0=False, cap1=False),  # the neck
                   _frustum(0.10, 0.14, 0.038, 0.047, 12, BRONZE, cap0=False, cap1=False),  # the flaring mouth
                   _frustum(0.135, 0.136, 0.044, 0.0, 12, (0.30, 0.20, 0.12), cap0=False, cap1=False)])  # the wine


def cup_jue() -> trimesh.Trimesh:
    """爵: three blade legs, a deep body, a spout (流) in front, a tail (尾) behind, two posts (柱) on the
    rim and a handle (鋬) at the side (CHOSEN shape and size, after the bronze 爵: 0.2 m; 韓詩說 一升)."""
    legs = [_frustum(0.0, 0.08, (0.004, 0.010), (0.006, 0.012), 4, BRONZE).apply_transform(
        _t((0.03 * math.cos(a), 0.03 * math.sin(a), 0.0)) @ _rz(math.degrees(a))) for a in (math.pi / 2, 3.8, 5.6)]
    body = _frustum(0.075, 0.16, 0.028, 0.036, 10, BRONZE)
    spout = _box((-0.012, 0.03, 0.15), (0.012, 0.10, 0.162), BRONZE)            # 流
    tail = _box((-0.010, -0.075, 0.153), (0.010, -0.03, 0.162), BRONZE)          # 尾
    posts = [_tube([(sx, 0.02, 0.16), (sx, 0.02, 0.19)], 0.004, BRONZE, 4) for sx in (-0.02, 0.02)]
    caps = [_ellipsoid((sx, 0.02, 0.195), (0.007, 0.007, 0.007), BRONZE, 0) for sx in (-0.02, 0.02)]
    handle = _tube([(0.034, -0.01, 0.14), (0.055, -0.01, 0.12), (0.034, -0.01, 0.095)], 0.005, BRONZE, 4)   # 鋬
    return _merge(legs + [body, spout, tail, handle] + posts + caps)


def stand_feng() -> trimesh.Trimesh:
    """豐: 形蓋似豆而卑 (鄭: shaped like a 豆, lower) — a foot, a stem and a wide flat top on which the
    cup is set.  Its top at 0.47 m: where the plan sets the cup (planner.handling.TOPS).  The 豆 of the
    dishes here stands 0.24 m: the plan's height makes the 豐 the higher of the two, against 鄭's 卑 —
    left to the planner (noted for the lead)."""
    return _merge([_frustum(0.0, 0.04, 0.16, 0.13, 12, WOOD),
                   _frustum(0.04, 0.42, 0.035, 0.03, 8, WOOD, cap0=False, cap1=False),
                   _frustum(0.42, 0.45, 0.05, 0.16, 12, LACQUER, cap0=True, cap1=False),
                   _frustum(0.45, 0.47, 0.16, 0.16, 12, LACQUER, cap0=False)])


def screen_fa() -> trimesh.Trimesh:
    """乏 (容): the marker's screen against arrows — 舊圖: 從廣七尺，以牛革鞔漆之 (7 尺 each way, ox hide
    lacquered); three leaves, the wings turned forward (CHOSEN, as :mod:`.fixtures` draws the reading's)."""
    W = Ht = 7 * CHI_M
    ang = math.radians(25)
    a = W / (1 + 2 * math.cos(ang))
    depth = a * math.sin(ang)
    hide = (0.37, 0.14, 0.09)
    leaves = [_box((-a / 2, -depth / 2 - 0.015, 0.06), (a / 2, -depth / 2 + 0.015, Ht), hide)]
    for sgn in (-1, 1):
        leaf = _box((0, -0.015, 0.06), (a, 0.015, Ht), hide) if sgn > 0 else _box((-a, -0.015, 0.06), (0, 0.015, Ht), hide)
        leaf.apply_transform(_t((sgn * a / 2, -depth / 2, 0)) @ _rz(sgn * math.degrees(ang)))
        leaves.append(leaf)
    feet = [_box((x - 0.04, -depth / 2 - 0.12, 0), (x + 0.04, -depth / 2 + 0.12, 0.06), WOOD) for x in (-a / 2, a / 2)]
    return _merge(leaves + feet)
