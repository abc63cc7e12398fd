"""The ritual ground as 3D meshes, built from a resolved :class:`~reconstruct.reading.Reading`.

:func:`build_ground` turns every landmark that has a body (the hall and its roof, columns,
walls and stairs, the courtyard with its wall and gate, the 侯 with its posts and ropes,
the 乏, the 中, the 楅, the 洗 group, the chimes, the wine jars, baskets, mats and the two
物) into :class:`GroundPart` meshes: metres, z up, the reading's own frame (x east,
y north, origin at the middle of the hall's front edge).  Parts are grouped and named by
landmark: ``node`` is an ASCII name (``L_`` + pinyin of the Chinese id, e.g. ``L_xijie``
for 西阶, ``L_hou_zhong`` for the 侯中 panel), ``landmark`` the Chinese id.

Everything that is a number of the text comes from the reading (``reading.params``,
``reading.stairs``, each landmark's ``size`` and ``heading``).  Where the text is silent
(the roof's thickness, the shapes of the 磬, the 壺 and the deer) the shapes here are
illustrative and say so in their labels; they never move or resize a landmark.

The whole ground stays light (well under 40k triangles) since the video renders it on CPU.
"""
from __future__ import annotations

import math
import re
from typing import NamedTuple

import numpy as np
import trimesh

from ..model.reading import Reading, Roof

TRIANGLE_BUDGET = 40_000


class GroundPart(NamedTuple):
    node: str                      # ASCII node name, unique in a ground
    landmark: str                  # the Chinese id of the landmark the part belongs to
    label: str                     # what the part is (Chinese + English)
    mesh: trimesh.Trimesh          # metres, z up, the reading's frame
    color: tuple[float, float, float]  # linear-ish sRGB 0..1, matte


# ---------------------------------------------------------------------------
# Names: pinyin for every landmark id of the shipped readings, a per-character
# table for new ids, and a stable hex fallback for characters outside it.

PINYIN = {
    "堂": "tang", "堂廉": "tanglian", "楣": "mei", "栋": "dong", "后楣": "houmei", "北墉": "beiyong",
    "东序": "dongxu", "西序": "xixu", "东序端": "dongxuduan", "西序端": "xixuduan",
    "东楹": "dongying", "西楹": "xiying", "东荣": "dongrong", "西荣": "xirong",
    "东堂": "dongtang", "西堂": "xitang", "阼阶": "zuojie", "西阶": "xijie",
    "室": "shi", "东房": "dongfang", "西房": "xifang", "户牖间": "huyoujian",
    "门": "men", "门外": "menwai", "庭": "ting",
    "上物": "shangwu", "下物": "xiawu", "侯": "hou", "侯中": "hou_zhong", "左个": "zuoge", "右个": "youge",
    "西植": "xizhi", "东植": "dongzhi", "乏": "fa", "乏南": "fanan", "负侯": "fuhou",
    "洗": "xi", "水": "shui", "篚": "fei", "县": "xuan", "楅": "bi", "中": "zhong",
    "释获者位": "shihuozhewei", "司射位": "sishewei", "司马位": "simawei", "觯位": "zhiwei",
    "阶间": "jiejian", "西阶下": "xijiexia", "阼阶下": "zuojiexia", "阶前": "jieqian", "阶西": "jiexi",
    "堂西": "tangxi", "堂东": "tangdong", "宾席": "binxi", "尊": "zun", "上篚": "shangfei",
    "大夫席": "dafuxi", "众宾席1": "zhongbinxi1", "众宾席2": "zhongbinxi2", "众宾席3": "zhongbinxi3",
    "主人席": "zhurenxi", "工席": "gongxi", "丰位": "fengwei", "丰": "feng", "西阶上": "xijieshang",
    "阼阶上": "zuojieshang", "射位": "shewei", "堂西位": "tangxiwei", "工位": "gongwei", "笙位": "shengwei",
    "立者位": "lizhewei", "阶西位": "jiexiwei", "屋": "wu", "鼓": "gu",
}

# per-character syllables, for ids a reading adds (e.g. 东夹, 北堂, 碑 …)
CHAR_PINYIN = dict(
    zip("堂廉楣栋后北墉东西南序端楹荣阶阼室房户牖间门外庭上下物侯中左右个植乏负洗水篚县楅释获者位司射马觯前宾尊大夫众席主人工丰笙立夹碑壁内外次俟弓矢算旌扑豆俎爵觚觞壶禁几",
        "tang lian mei dong hou bei yong dong xi nan xu duan ying rong jie zuo shi fang hu you jian men wai ting "
        "shang xia wu hou zhong zuo you ge zhi fa fu xi shui fei xuan bi shi huo zhe wei si she ma zhi qian bin "
        "zun da fu zhong xi zhu ren gong feng sheng li jia bei bi nei wai ci si gong shi suan jing pu dou zu jue "
        "gu shang hu jin ji".split()))


def node_name(ident: str) -> str:
    """A stable ASCII node name for a landmark id: ``L_`` + pinyin (hex code points as a fallback)."""
    if ident in PINYIN:
        stem = PINYIN[ident]
    else:
        bits = []
        for ch in ident:
            if ch.isascii() and (ch.isalnum() or ch == "_"):
                bits.append(ch)
            elif ch in CHAR_PINYIN:
                bits.append(CHAR_PINYIN[ch])
            else:
                bits.append(f"u{ord(ch):04x}")
        stem = "".join(bits)
    stem = re.sub(r"[^A-Za-z0-9_]", "", stem.encode("ascii", "ignore").decode()) or "x"
    return "L_" + stem


# ---------------------------------------------------------------------------
# Colours (matte).

def _rgb(hexs: str) -> tuple[float, float, float]:
    h = hexs.lstrip("#")
    return tuple(int(h[i:i + 2], 16) / 255 for i in (0, 2, 4))  # type: ignore[return-value]


C = {
    "earth": _rgb("#b59a72"),        # rammed earth (platform)
    "court": _rgb("#cdbb96"),        # beaten earth
    "step": _rgb("#a98f69"),
    "timber": _rgb("#6b4a2e"),
    "column": _rgb("#8c3b26"),       # lacquered columns
    "plaster": _rgb("#e4dccb"),      # walls
    "roof": _rgb("#6a625a"),         # tiles
    "wall": _rgb("#b39c78"),         # rammed-earth court wall
    "cap": _rgb("#5c554d"),
    "cloth": _rgb("#eee6d2"),        # undyed 布
    "dan_di": _rgb("#d98a62"),       # the 侯's ground: 丹采其地，丹淺於赤 (鄭)
    "cloud": _rgb("#f2ead8"),        # 雲氣 (colour CHOSEN)
    "zhu": _rgb("#b3261e"),          # 朱
    "lu": _rgb("#3e6b45"),           # 綠
    "rope": _rgb("#8a7352"),
    "post": _rgb("#5a3f27"),
    "leather": _rgb("#5e2418"),      # lacquered ox hide (乏)
    "lacquer": _rgb("#6a2216"),      # 髤 (楅, 中)
    "wei": _rgb("#b5382a"),          # 丹韋
    "bronze": _rgb("#5f6a55"),
    "pottery": _rgb("#8e6b4c"),
    "basket": _rgb("#a88a52"),
    "rush": _rgb("#c9b27a"),         # 蒲筵
    "border": _rgb("#2b2622"),       # 緇布純
    "stone": _rgb("#7c8a86"),        # 磬
    "frame": _rgb("#4a3322"),
    "dan": _rgb("#b3261e"),          # 丹 (the 物 crosses)
    "generic": _rgb("#9a8a70"),
}


# ---------------------------------------------------------------------------
# Primitive helpers (all metres, z up).

def box(x0: float, x1: float, y0: float, y1: float, z0: float, z1: float) -> trimesh.Trimesh:
    ext = (abs(x1 - x0), abs(y1 - y0), abs(z1 - z0))
    m = trimesh.creation.box(extents=ext)
    m.apply_translation(((x0 + x1) / 2, (y0 + y1) / 2, (z0 + z1) / 2))
    return m


def cyl(p0, p1, r: float, sections: int = 12) -> trimesh.Trimesh:
    return trimesh.creation.cylinder(radius=r, segment=np.array([p0, p1], float), sections=sections)


def hull(points) -> trimesh.Trimesh:
    return trimesh.convex.convex_hull(np.asarray(points, float))


def ellipsoid(centre, radii, subdivisions: int = 1) -> trimesh.Trimesh:
    m = trimesh.creation.icosphere(subdivisions=subdivisions)
    m.apply_scale(radii)
    m.apply_translation(centre)
    return m


def lathe(profile, sections: int = 16) -> trimesh.Trimesh:
    """Revolve (radius, z) points about the z axis (closed at both ends when radius 0)."""
    return trimesh.creation.revolve(np.asarray(profile, float), sections=sections)


def cat(meshes) -> trimesh.Trimesh:
    meshes = [m for m in meshes if m is not None and len(m.faces)]
    return trimesh.util.concatenate(meshes)


def placed(mesh: trimesh.Trimesh, position, heading: float | None) -> trimesh.Trimesh:
    """Turn a mesh built facing north (+y = forward, +x = right) to a compass heading, then move it."""
    m = mesh.copy()
    if heading:
        m.apply_transform(trimesh.transformations.rotation_matrix(-math.radians(heading), (0, 0, 1)))
    m.apply_translation(position)
    return m


def fit(mesh: trimesh.Trimesh, size) -> trimesh.Trimesh:
    """Scale a mesh built facing north, base at z = 0, centred on x/y, to [across, along, height]."""
    lo, hi = mesh.bounds
    ext = hi - lo
    m = mesh.copy()
    m.apply_translation((-(lo[0] + hi[0]) / 2, -(lo[1] + hi[1]) / 2, -lo[2]))
    m.apply_scale(np.asarray(size, float) / np.where(ext > 0, ext, 1.0))
    return m


# ---------------------------------------------------------------------------
# The hall.

class _Roof(Roof):
    """The gable roof (:class:`~reconstruct.model.reading.Roof`) and its slopes as meshes."""

    def slope(self, x0: float, x1: float, south: bool) -> trimesh.Trimesh:
        ya, yb = (self.ys, self.yr) if south else (self.yr, self.yn)
        pts = []
        for x in (x0, x1):
            for y in (ya, yb):
                z = self.z(y)
                pts += [(x, y, z), (x, y, z + self.t)]
        return hull(pts)


def _hall(r: Reading) -> list[GroundPart]:
    """The hall: platform and its edge, roof, purlins and columns, walls, stairs and rooms."""
    p = r.params
    H, half, depth = r.hall_height, p["half_width"], p["depth"]
    roof = _Roof(r)
    parts: list[GroundPart] = []
    add = lambda *a: parts.append(GroundPart(*a))  # noqa: E731

    # platform of rammed earth with a timber edge (廉) all round
    add(node_name("堂"), "堂", "堂 hall platform (rammed earth)", box(-half, half, 0, depth, 0, H), C["earth"])
    e, h = 0.14, 0.22
    edge = cat([box(-half - 0.02, half + 0.02, -0.02, e, H - h, H + 0.012),
                box(-half - 0.02, half + 0.02, depth - e, depth + 0.02, H - h, H + 0.012),
                box(-half - 0.02, -half + e, e, depth - e, H - h, H + 0.012),
                box(half - e, half + 0.02, e, depth - e, H - h, H + 0.012)])
    add(node_name("堂廉"), "堂廉", "堂廉 timber edge of the hall", edge, C["timber"])
    parts += _roof_parts(r, roof) + _purlins_and_columns(r, roof) + _hall_walls(r, roof) + _stairs(r)
    # rooms (室, 房) where the reading has them
    for ident, l in r.landmarks.items():
        if l.kind == "room" and l.footprint:
            parts.extend(_room(r, l, roof))
    return parts


def _roof_parts(r: Reading, roof: _Roof) -> list[GroundPart]:
    """The roof's slopes and ridge, the gable eave ends (荣) and the rafters under them."""
    p = r.params
    half, eave = p["half_width"], p["eave"]
    lm = r.landmarks
    parts: list[GroundPart] = []
    add = lambda *a: parts.append(GroundPart(*a))  # noqa: E731
    # roof: the main slopes over the platform, the 荣 projecting beyond it at both gable ends
    xr = half + eave
    main = cat([roof.slope(-half, half, True), roof.slope(-half, half, False),
                box(-xr, xr, roof.yr - 0.16, roof.yr + 0.16, roof.zr + roof.t - 0.05, roof.zr + roof.t + 0.16)])
    add(node_name("屋"), "屋", "屋 roof (夏屋, 兩下: a gable roof)", main, C["roof"])
    for name, sgn in (("东荣", 1), ("西荣", -1)):
        if name in lm:
            a, b = sorted((sgn * half, sgn * xr))
            add(node_name(name), name, f"{name} gable eave end (榮, 屋翼)",
                cat([roof.slope(a, b, True), roof.slope(a, b, False)]), C["roof"])
    # rafters (椽) under the slopes, visible from below
    rafters = []
    n = max(4, int(2 * half / 0.9))
    for i in range(n + 1):
        x = -half + 2 * half * i / n
        for ya, yb in ((roof.ys + 0.05, roof.yr), (roof.yr, roof.yn - 0.05)):
            za, zb = roof.z(ya) - 0.05, roof.z(yb) - 0.05
            rafters.append(hull([(x - 0.035, ya, za - 0.035), (x + 0.035, ya, za - 0.035), (x - 0.035, ya, za + 0.035),
                                 (x + 0.035, ya, za + 0.035), (x - 0.035, yb, zb - 0.035), (x + 0.035, yb, zb - 0.035),
                                 (x - 0.035, yb, zb + 0.035), (x + 0.035, yb, zb + 0.035)]))
    add("L_wu_chuan", "屋", "椽 rafters", cat(rafters), C["timber"])

    return parts


def _purlins_and_columns(r: Reading, roof: _Roof) -> list[GroundPart]:
    """The purlins (楣, 棟, 後楣) under the roof and the two 楹 on their bases."""
    p = r.params
    H, xr = r.hall_height, p["half_width"] + p["eave"]
    lm = r.landmarks
    parts: list[GroundPart] = []
    add = lambda *a: parts.append(GroundPart(*a))  # noqa: E731
    # purlins (楣, 棟, 後楣) and the eave purlins, resting under the roof
    pr = 0.11
    for name in ("楣", "栋", "后楣"):
        if name in lm:
            y = lm[name].position[1]
            z = roof.z(y) - pr
            add(node_name(name), name, f"{name} purlin", cyl((-xr + 0.15, y, z), (xr - 0.15, y, z), pr, 10), C["timber"])

    # the two 楹 under the front 楣, on stone bases
    for name in ("东楹", "西楹"):
        if name in lm:
            x, y, _ = lm[name].position
            d = p["column_d"]
            top = roof.z(y) - 2 * pr
            col = cat([cyl((x, y, H), (x, y, top), d / 2, 16), box(x - d * 0.7, x + d * 0.7, y - d * 0.7, y + d * 0.7, H, H + 0.06)])
            add(node_name(name), name, f"{name} column (楹)", col, C["column"])

    return parts


def _hall_walls(r: Reading, roof: _Roof) -> list[GroundPart]:
    """The 序 walls and the back wall, their tops following the roof."""
    p = r.params
    H, half, wt = r.hall_height, p["half_width"], r.wall_thickness
    lm = r.landmarks
    parts: list[GroundPart] = []
    add = lambda *a: parts.append(GroundPart(*a))  # noqa: E731
    # 序 walls: from the 序端 to the back, their tops following the roof
    for name in ("东序", "西序"):
        if name not in lm:
            continue
        fp = np.array(lm[name].footprint)
        x0, x1 = fp[:, 0].min(), fp[:, 0].max()
        y0, y1 = fp[:, 1].min(), fp[:, 1].max()
        prof = [(y0, H), (y1, H), (y1, roof.z(y1) - 0.02)]
        if y0 < roof.yr < y1:
            prof.append((roof.yr, roof.z(roof.yr) - 0.02))
        prof.append((y0, roof.z(y0) - 0.02))
        wall = hull([(x, y, z) for x in (x0, x1) for y, z in prof])   # the profile is convex
        add(node_name(name), name, f"{name} wall (序)", wall, C["plaster"])
    if "北墉" in lm:
        y = lm["北墉"].position[1]
        add(node_name("北墉"), "北墉", "北墉 back wall", box(-half, half, y - wt, y, H, roof.z(y - wt) - 0.02), C["plaster"])

    return parts


def _stairs(r: Reading) -> list[GroundPart]:
    """The stairs, step by step, with their side walls."""
    H = r.hall_height
    parts: list[GroundPart] = []
    add = lambda *a: parts.append(GroundPart(*a))  # noqa: E731
    # stairs: real steps, reading.stairs (steps, rise, tread), running south from y = 0
    for name, st in r.stairs.items():
        x0, x1 = st.x - st.width / 2, st.x + st.width / 2
        blocks = [box(x0, x1, -st.run + (k - 1) * st.tread, -st.run + k * st.tread, 0, k * st.rise)
                  for k in range(1, st.steps + 1)]
        cheek = []
        for xa, xb in ((x0 - 0.12, x0), (x1, x1 + 0.12)):
            pts = []
            for xx in (xa, xb):
                pts += [(xx, -st.run - 0.05, 0), (xx, 0, 0), (xx, 0, H + 0.06), (xx, -st.run - 0.05, 0.1),
                        (xx, -st.tread * 0.5, H + 0.06)]
            cheek.append(hull(pts))
        add(node_name(name), name, f"{name} stair, {st.steps} steps of {st.rise * 100:.0f} cm", cat(blocks), C["step"])
        add(node_name(name) + "_cheek", name, f"{name} side walls", cat(cheek), C["timber"])

    return parts


def _room(r: Reading, l, roof: _Roof) -> list[GroundPart]:
    H, wt = r.hall_height, r.wall_thickness
    fp = np.array(l.footprint)
    x0, x1 = fp[:, 0].min(), fp[:, 0].max()
    y0, y1 = fp[:, 1].min(), fp[:, 1].max()
    top = H + min(l.size[2] if l.size else r.params["eave_height"], roof.z(y1) - H - 0.05)
    walls = [box(x0, x1, y1 - wt, y1, H, top),          # north (the 北墉 side)
             box(x0, x0 + wt, y0, y1, H, top), box(x1 - wt, x1, y0, y1, H, top)]
    door_w, win_w = 0.9, 0.9
    if l.id == "室":
        dx = x1 - 0.35 - door_w          # 戶 at the east end of the south wall, 牖 to the west
        wx = x0 + (x1 - x0) * 0.3
        segs = [(x0, wx - win_w / 2), (wx + win_w / 2, dx), (dx + door_w, x1)]
        walls += [box(wx - win_w / 2, wx + win_w / 2, y0, y0 + wt, H, H + 0.8),
                  box(wx - win_w / 2, wx + win_w / 2, y0, y0 + wt, H + 1.7, top)]
    else:
        dx = (x0 + x1) / 2 - door_w / 2
        segs = [(x0, dx), (dx + door_w, x1)]
    walls += [box(a, b, y0, y0 + wt, H, top) for a, b in segs if b - a > 0.05]
    walls.append(box(dx, dx + door_w, y0, y0 + wt, H + 1.9, top))   # lintel over the door
    return [GroundPart(node_name(l.id), l.id, f"{l.id} {l.label_en or 'room'}", cat(walls), C["plaster"])]


# ---------------------------------------------------------------------------
# The courtyard, its wall and gate.

def _court(r: Reading) -> list[GroundPart]:
    fp = np.array(r.court_footprint)
    x0, x1 = fp[:, 0].min(), fp[:, 0].max()
    y0, y1 = fp[:, 1].min(), fp[:, 1].max()
    parts = [GroundPart(node_name("庭"), "庭", "庭 courtyard (beaten earth)", box(x0, x1, y0, y1, -0.06, 0.0), C["court"])]
    t = max(0.45, 2 * r.wall_thickness)
    hgt = r.wall_height
    gx, gy, _ = r.gate
    gw = r.gate_width
    pier = 0.7
    segs = [box(x0 - t, x1 + t, y1, y1 + t, 0, hgt),                     # north
            box(x0 - t, x0, y0 - t, y1 + t, 0, hgt), box(x1, x1 + t, y0 - t, y1 + t, 0, hgt),
            box(x0, gx - gw / 2 - pier, y0 - t, y0, 0, hgt), box(gx + gw / 2 + pier, x1, y0 - t, y0, 0, hgt)]
    caps = []
    for s in segs:
        (a, b, c), (d, e, f) = s.bounds
        caps.append(box(a - 0.12, d + 0.12, b - 0.12, e + 0.12, hgt, hgt + 0.14))
    parts.append(GroundPart("L_ting_qiang", "庭", "墙 courtyard wall (rammed earth)", cat(segs), C["wall"]))
    parts.append(GroundPart("L_ting_qiangding", "庭", "墙 wall coping", cat(caps), C["cap"]))
    # 门: a gatehouse with two piers, a lintel and a small gable roof
    ph = hgt + 0.5
    gate = [box(gx - gw / 2 - pier, gx - gw / 2, y0 - t - 0.3, y0 + 0.3, 0, ph),
            box(gx + gw / 2, gx + gw / 2 + pier, y0 - t - 0.3, y0 + 0.3, 0, ph),
            box(gx - gw / 2, gx + gw / 2, y0 - t - 0.1, y0 + 0.1, ph - 0.35, ph)]
    ya, yb, ym = y0 - t - 1.1, y0 + 1.1, y0 - t / 2
    xa, xb = gx - gw / 2 - pier - 0.6, gx + gw / 2 + pier + 0.6
    rise = 1.0
    groof = cat([hull([(xa, ya, ph), (xb, ya, ph), (xa, ym, ph + rise), (xb, ym, ph + rise),
                       (xa, ya, ph + 0.12), (xb, ya, ph + 0.12), (xa, ym, ph + rise + 0.12), (xb, ym, ph + rise + 0.12)]),
                 hull([(xa, yb, ph), (xb, yb, ph), (xa, ym, ph + rise), (xb, ym, ph + rise),
                       (xa, yb, ph + 0.12), (xb, yb, ph + 0.12), (xa, ym, ph + rise + 0.12), (xb, ym, ph + rise + 0.12)])])
    parts.append(GroundPart(node_name("门"), "门", "门 gate", cat(gate), C["timber"]))
    parts.append(GroundPart("L_men_wu", "门", "门 gate roof", groof, C["roof"]))
    return parts


# ---------------------------------------------------------------------------
# The range: the 侯, its posts and ropes; the 乏; the 物.

def hou_panels(r: Reading) -> dict[str, tuple[float, float, float]]:
    """The 侯's cloth panels: name → (width, z bottom, z top), from the reading's derived sizes."""
    p = r.params
    c, b = p["hou_cloth"], p["hou_bottom"]
    z = [b, b + c, b + 2 * c, b + 2 * c + p["hou_zhong"], b + 3 * c + p["hou_zhong"], b + 4 * c + p["hou_zhong"]]
    return {"下舌": (p["hou_lower"], z[0], z[1]), "下躬": (p["hou_gong"], z[1], z[2]),
            "中": (p["hou_zhong"], z[2], z[3]), "上躬": (p["hou_gong"], z[3], z[4]),
            "上舌": (p["hou_upper"], z[4], z[5])}


def _target(r: Reading) -> list[GroundPart]:
    lm = r.landmarks
    if "侯" not in lm:
        return []
    p = r.params
    hx, hy, _ = lm["侯"].position
    hd = lm["侯"].heading or 0.0
    th = 0.02
    parts = []
    names = {"下舌": ("L_hou_xiashe", "下舌 lower tongue"), "下躬": ("L_hou_xiagong", "下躬 lower body strip"),
             "中": ("L_hou_zhong", "侯中 centre (10 尺 square)"), "上躬": ("L_hou_shanggong", "上躬 upper body strip"),
             "上舌": ("L_hou_shangshe", "上舌 upper tongue (上个)")}
    for key, (w, z0, z1) in hou_panels(r).items():
        node, label = names[key]
        owner = "侯中" if key == "中" and "侯中" in lm else "侯"
        parts.append(GroundPart(node, owner, label, placed(box(-w / 2, w / 2, -th / 2, th / 2, z0, z1), (hx, hy, 0), hd),
                                C["dan_di"]))
    # 雲氣 painted at the sides (鄭 on 凡畫者丹質: 賓射之侯 … 皆畫雲氣於側以為飾，必先以丹采其地; the 鄉射 sets
    # up the 采侯 of the 賓射, 鄭 on 凡侯): scrolls on the 躬 and the 舌 beyond the 中 (number and shape CHOSEN)
    pn = hou_panels(r)
    clouds = []
    for key in ("上躬", "下躬", "上舌", "下舌"):
        w, z0, z1 = pn[key]
        zc, rr = (z0 + z1) / 2, (z1 - z0) * 0.3
        inner = p["hou_zhong"] / 2 + rr * 2.2
        for sgn in (-1, 1):
            for x in np.arange(inner, w / 2 - rr * 2, rr * 5.5):
                for dx, dz, k in ((0.0, 0.0, 1.0), (rr * 1.1, rr * 0.35, 0.75), (-rr * 1.0, rr * 0.3, 0.7)):
                    clouds.append(cyl((sgn * (x + dx), th / 2, zc + dz), (sgn * (x + dx), th / 2 + 0.003, zc + dz),
                                      rr * k, 10))
    if clouds:
        parts.append(GroundPart("L_hou_yunqi", "侯", "雲氣 painted at the sides (鄭)", placed(cat(clouds), (hx, hy, 0), hd),
                                C["cloud"]))
    # the 正 painted on the 中: 采侯二正 (鄭), ⅓ of the 侯中 (義疏); 綠 outside, 朱 inside (order CHOSEN)
    zc = (hou_panels(r)["中"][1] + hou_panels(r)["中"][2]) / 2
    s = p["hou_zhong"] / 3
    outer = box(-s / 2, s / 2, th / 2, th / 2 + 0.004, zc - s / 2, zc + s / 2)
    inner = box(-s / 4, s / 4, th / 2 + 0.004, th / 2 + 0.008, zc - s / 4, zc + s / 4)
    owner = "侯中" if "侯中" in lm else "侯"
    parts.append(GroundPart("L_hou_zheng_lu", owner, "正 (綠), ⅓ of the 侯中", placed(outer, (hx, hy, 0), hd), C["lu"]))
    parts.append(GroundPart("L_hou_zheng_zhu", owner, "正 (朱)", placed(inner, (hx, hy, 0), hd), C["zhu"]))
    # posts (植), splayed: the upper rope spans wider than the lower; ropes (綱) run 8 尺 beyond the 舌
    xt, xb = p["hou_post_top"], p["hou_post_bottom"]
    zt, zb = p["hou_top"], p["hou_bottom"]
    slope = (xt - xb) / (zt - zb)
    pr = 0.06
    for name, sgn in (("西植", -1), ("东植", 1)):
        foot = xb - slope * zb
        headz = zt + 0.25
        post = cyl((sgn * foot, 0, 0), (sgn * (xb + slope * (headz - zb)), 0, headz), pr, 10)
        owner = name if name in lm else "侯"
        parts.append(GroundPart(node_name(name), owner, f"{name} target post (植), splayed", placed(post, (hx, hy, 0), hd),
                                C["post"]))
    rr = 0.018
    ropes = cat([cyl((-xt, 0, zt), (xt, 0, zt), rr, 6), cyl((-xb, 0, zb), (xb, 0, zb), rr, 6)])
    parts.append(GroundPart("L_hou_gang", "侯", "綱 upper and lower ropes (出舌尋)", placed(ropes, (hx, hy, 0), hd), C["rope"]))
    return parts


def _screen(l) -> trimesh.Trimesh:
    """乏: a folding screen of three leaves, the wings turned forward (open side towards the heading)."""
    W, D, Ht = l.size or (1.617, 0.231, 1.617)
    ang = math.radians(25)
    a = W / (1 + 2 * math.cos(ang))
    depth = a * math.sin(ang)
    th = 0.03
    leaves = [box(-a / 2, a / 2, -depth / 2 - th / 2, -depth / 2 + th / 2, 0.06, Ht)]
    for sgn in (-1, 1):
        leaf = box(0, a, -th / 2, th / 2, 0.06, Ht) if sgn > 0 else box(-a, 0, -th / 2, th / 2, 0.06, Ht)
        leaf.apply_transform(trimesh.transformations.rotation_matrix(sgn * ang, (0, 0, 1)))
        leaf.apply_translation((sgn * a / 2, -depth / 2, 0))
        leaves.append(leaf)
    feet = [box(x - 0.04, x + 0.04, -depth / 2 - 0.12, -depth / 2 + 0.12, 0, 0.06) for x in (-a / 2, a / 2)]
    return cat(leaves + feet)


def _wu_mark(l) -> trimesh.Trimesh:
    """物: a cross drawn on the floor, 從 stroke as long as an arrow (3 尺), 橫 stroke 1 武 (距隨)."""
    across, along = (l.size or (0.277, 0.693, 0))[:2]
    w, t = 0.03, 0.004
    return cat([box(-w / 2, w / 2, -along / 2, along / 2, 0.001, 0.001 + t),
                box(-across / 2, across / 2, -w / 2, w / 2, 0.001, 0.001 + t)])


# kinds drawn by _hall/_court/_target rather than fixtures.fixture_parts
STRUCTURAL = {"hall", "edge", "purlin", "wall", "column", "eave", "stair", "room", "gate", "court", "target", "post"}
NO_GEOMETRY = {"mark", "formation"}


FIELD_COLOR = "#a3a27c"


def field_mesh(reading: Reading, size: float = 600.0) -> trimesh.Trimesh:
    """The fields outside the court wall: a square of ground round the court, a little below it, so that
    whoever stands outside the gate (门外) stands on something."""
    fp = np.asarray(reading.court_footprint)
    cx, cy = fp[:, 0].mean(), fp[:, 1].mean()
    h = size / 2
    v = np.array([[cx - h, cy - h, -0.08], [cx + h, cy - h, -0.08], [cx + h, cy + h, -0.08], [cx - h, cy + h, -0.08]])
    return trimesh.Trimesh(v, np.array([[0, 1, 2], [0, 2, 3]]), process=False)


def build_ground(reading: Reading) -> list[GroundPart]:
    """All the parts of the ground, grouped and named by landmark (node names unique, ASCII)."""
    from .fixtures import fixture_parts

    parts = _hall(reading) + _court(reading) + _target(reading)
    for l in reading.landmarks.values():
        if l.kind not in STRUCTURAL:
            parts += fixture_parts(l)
    seen: dict[str, int] = {}
    out = []
    for p in parts:
        name = p.node
        if name in seen:
            seen[name] += 1
            name = f"{name}_{seen[p.node]}"
        else:
            seen[name] = 0
        m = p.mesh
        m.remove_unreferenced_vertices()
        out.append(p._replace(node=name, mesh=m))
    return out


def triangle_count(parts: list[GroundPart]) -> int:
    return int(sum(len(p.mesh.faces) for p in parts))


def bounds(parts: list[GroundPart]) -> np.ndarray:
    """(2, 3) bounds of the whole ground."""
    b = np.array([p.mesh.bounds for p in parts])
    return np.array([b[:, 0].min(axis=0), b[:, 1].max(axis=0)])


MOVABLE_FIXTURES = ("中", "楅")      # set out and taken away in the rite: a plan carries them as props


def set_out_fixtures(reading, props) -> set[str]:
    """The landmarks a plan sets out as things (the first half: 宾席, 尊, 洗 … — props of the kinds
    ``model.vocabulary.SET_OUT`` named as their landmarks): drawn as those props, where and when the plan
    has them, never as ground (nothing is there before it is carried in)."""
    from ..model.vocabulary import SET_OUT
    from .props import prop_kind
    return {k for k in props if k in reading.landmarks and prop_kind(k) in SET_OUT}


def ground_meshes(reading, props=(), evidence: bool = False) -> list[tuple[str, object, tuple[float, float, float] | str]]:
    """The ground as the ``(name, mesh, rgb)`` tuples :func:`render_video` expects, with the fields
    outside the wall (as the stills draw them) for those who stand outside the gate.  ``props``: the
    plan's prop ids — the fixtures of :data:`MOVABLE_FIXTURES` among them, and those the plan sets out
    (:func:`set_out_fixtures`), are left out (the video draws them where the plan has them, as
    :mod:`.objects` builds them, not twice).  ``evidence``: every part in the colour of its landmark's
    evidence (:func:`evidence_parts`), the field outside the wall neutral."""
    skip = {k for k in MOVABLE_FIXTURES if k in set(props)} | set_out_fixtures(reading, props)
    parts = build_ground(reading)
    if evidence:
        parts = evidence_parts(parts, reading)
    return [("field", field_mesh(reading), NEUTRAL if evidence else FIELD_COLOR),
            *((p.node, p.mesh, tuple(float(c) for c in p.color)) for p in parts
              if p.landmark not in skip)]


NEUTRAL = (0.80, 0.79, 0.76)       # the evidence view: what belongs to no landmark (the field outside the wall)
# the evidence view: the wide surfaces keep some of their neutral (the court, its walls) so that the fixtures read
EVIDENCE_TINT = {"庭": 0.3, "门": 0.8}


def evidence_parts(parts: list[GroundPart], reading: Reading) -> list[GroundPart]:
    """The ground in the evidence view (issue 32): each part in the colour of its landmark's evidence (the colours of
    ``model/evidence.py``, declared there once); the court tinted only, a part of no landmark neutral."""
    from ..model.evidence import evidence_rgb

    out = []
    for p in parts:
        lm = reading.landmarks.get(p.landmark)
        if lm is None or not lm.evidence:
            out.append(p._replace(color=NEUTRAL))
            continue
        c = np.array(evidence_rgb(lm.evidence))
        w = EVIDENCE_TINT.get(p.landmark, 1.0)
        out.append(p._replace(color=tuple(float(v) for v in w * c + (1 - w) * np.array(NEUTRAL))))
    return out
