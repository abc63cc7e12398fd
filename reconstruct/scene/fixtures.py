"""The fixtures of the ground as meshes: the 鹿中 deer, the arrow rack, basin, jars, baskets, chimes,
wine vessels, drum and mats, placed where the reading puts them (:func:`fixture_parts`)."""
from __future__ import annotations

import math

import trimesh

from .ground import C, GroundPart, _rgb, _screen, _wu_mark, box, cat, cyl, ellipsoid, fit, hull, lathe, node_name, placed

__all__ = ["fixture_parts"]


def _deer() -> trimesh.Trimesh:
    """鹿中: a kneeling deer (前足跪), facing +y, hind legs standing, with a slot on its back."""
    parts = [ellipsoid((0, -0.04, 0.30), (0.14, 0.33, 0.14), 2)]
    parts[0].apply_transform(trimesh.transformations.rotation_matrix(math.radians(-10), (1, 0, 0), (0, -0.04, 0.30)))
    for sx in (-1, 1):
        x = sx * 0.085
        parts += [cyl((x, -0.24, 0.30), (x, -0.30, 0.13), 0.05, 8),          # haunch → hock
                  cyl((x, -0.30, 0.13), (x, -0.27, 0.0), 0.03, 8),           # cannon to the ground
                  cyl((x, 0.16, 0.20), (x, 0.19, 0.035), 0.035, 8),          # fore upper leg, folded
                  cyl((x, 0.19, 0.035), (x, 0.38, 0.03), 0.03, 8)]           # forearm lying on the ground (跪)
    parts += [cyl((0, 0.20, 0.33), (0, 0.36, 0.52), 0.06, 8),                # neck
              ellipsoid((0, 0.42, 0.55), (0.055, 0.11, 0.06), 1),            # head
              ellipsoid((0, 0.51, 0.525), (0.035, 0.05, 0.035), 1)]          # muzzle
    for sx in (-1, 1):
        parts += [ellipsoid((sx * 0.055, 0.37, 0.61), (0.015, 0.02, 0.045), 1),       # ears
                  cyl((sx * 0.025, 0.40, 0.60), (sx * 0.07, 0.36, 0.72), 0.012, 5),   # antlers
                  cyl((sx * 0.06, 0.37, 0.69), (sx * 0.10, 0.42, 0.75), 0.009, 5)]
    parts.append(ellipsoid((0, -0.37, 0.38), (0.03, 0.03, 0.05), 1))          # tail
    return cat(parts)


def _rack(l) -> tuple[trimesh.Trimesh, trimesh.Trimesh]:
    """楅: a bar as long as an arrow on two feet, dragon heads at the ends, crossed serpents, 韋當."""
    L, B, Ht = l.size or (0.693, 0.069, 0.231)
    th = 0.035  # 厚寸有半
    zb = Ht * 0.72
    bar = box(-L / 2 + 0.05, L / 2 - 0.05, -B / 2, B / 2, zb - th, zb)
    heads = []
    for s in (-1, 1):
        x = s * (L / 2 - 0.05)
        heads += [hull([(x, -B / 2, zb - th), (x, B / 2, zb - th), (x, -B / 2, zb), (x, B / 2, zb),
                        (s * (L / 2 - 0.01), -B / 3, Ht), (s * (L / 2 - 0.01), B / 3, Ht),
                        (s * (L / 2), -B / 3, Ht - 0.03), (s * (L / 2), B / 3, Ht - 0.03)]),
                  box(s * L / 2 - 0.02 - 0.015, s * L / 2 - 0.02 + 0.015, -B / 2 - 0.008, B / 2 + 0.008, Ht - 0.045, Ht - 0.01)]
    feet = []
    for s in (-1, 1):
        x = s * L * 0.3
        feet += [box(x - 0.02, x + 0.02, -B / 2, B / 2, 0.03, zb - th), box(x - 0.03, x + 0.03, -B * 1.4, B * 1.4, 0, 0.03)]
    snakes = [cyl((-L * 0.28, 0, 0.04), (L * 0.28, 0, zb - th - 0.005), 0.009, 6),
              cyl((L * 0.28, 0, 0.04), (-L * 0.28, 0, zb - th - 0.005), 0.009, 6)]
    wood = cat([bar] + heads + feet + snakes)
    wei = box(-min(0.462, L * 0.66) / 2, min(0.462, L * 0.66) / 2, -B / 2 - 0.004, B / 2 + 0.004, zb - 0.006, zb + 0.004)
    return wood, wei


def _basin(l) -> tuple[trimesh.Trimesh, trimesh.Trimesh]:
    W, D, Ht = l.size or (0.462, 0.462, 0.3465)
    r = min(W, D) / 2
    body = lathe([(0, 0), (r * 0.55, 0), (r * 0.55, Ht * 0.25), (r * 0.75, Ht * 0.3), (r, Ht), (r * 0.9, Ht),
                  (r * 0.8, Ht * 0.55), (0, Ht * 0.55)], 20)
    water = lathe([(0, Ht * 0.85), (r * 0.88, Ht * 0.85), (r * 0.88, Ht * 0.86), (0, Ht * 0.86)], 20)
    return body, water


def _jar(W: float, Ht: float, sections: int = 16) -> trimesh.Trimesh:
    r = W / 2
    return lathe([(0, 0), (r * 0.6, 0), (r * 0.95, Ht * 0.35), (r, Ht * 0.5), (r * 0.75, Ht * 0.8), (r * 0.45, Ht * 0.88),
                  (r * 0.5, Ht), (0, Ht)], sections)


def _basket(l) -> trimesh.Trimesh:
    W, D, Ht = l.size or (0.231, 0.693, 0.1155)
    return cat([box(-W / 2, W / 2, -D / 2, D / 2, 0, Ht * 0.8),
                box(-W / 2 - 0.01, W / 2 + 0.01, -D / 2 - 0.01, D / 2 + 0.01, Ht * 0.8, Ht)])


def _chimes(l) -> tuple[trimesh.Trimesh, trimesh.Trimesh]:
    """縣: a frame (two uprights on feet, a beam) with a row of L-shaped 磬 hung from it."""
    W, D, Ht = l.size or (1.848, 0.462, 1.386)
    frame = [box(s * W / 2 - 0.05, s * W / 2 + 0.05, -0.05, 0.05, 0, Ht) for s in (-1, 1)]
    frame += [box(s * W / 2 - 0.06, s * W / 2 + 0.06, -D / 2, D / 2, 0, 0.08) for s in (-1, 1)]
    frame += [box(-W / 2 - 0.12, W / 2 + 0.12, -0.06, 0.06, Ht - 0.12, Ht),
              box(-W / 2 - 0.05, W / 2 + 0.05, -0.04, 0.04, Ht * 0.45, Ht * 0.45 + 0.08)]
    stones, strings = [], []
    n = 8
    for i in range(n):
        x = -W / 2 + W * (i + 0.5) / n
        s = 0.16 - 0.008 * i                    # smaller stones towards one end (illustrative)
        # an obtuse-angled 磬: two arms (股 and 鼓) meeting at the hanging point; shape illustrative
        zc = Ht - 0.35
        arm1 = [(-s, -s * 0.25), (-s, 0.0), (0, s * 0.42), (0, s * 0.12)]
        arm2 = [(0, s * 0.42), (0, s * 0.12), (s * 0.85, -s * 0.32), (s * 0.9, -s * 0.08)]
        st = cat([hull([(x + u, yy, zc + v) for u, v in arm for yy in (-0.0125, 0.0125)]) for arm in (arm1, arm2)])
        stones.append(st)
        strings.append(cyl((x, 0, Ht - 0.12), (x, 0, zc + s * 0.4), 0.004, 4))
    return cat(frame + strings), cat(stones)


def _wine(l) -> tuple[trimesh.Trimesh, trimesh.Trimesh]:
    """尊: two 壺 on a 禁 (stand); 玄酒 on the west; 皆加勺, a ladle in each (lacquered like the stand), its handle
    out over the front (CHOSEN: towards the one who pours, who stands before the 尊: 主人 … 尊南，北面 酌)."""
    W, D, Ht = l.size or (0.924, 0.462, 0.3465)
    jin_h = Ht * 0.25
    ladles = [cat([cyl((sx * W / 4, 0.0, Ht - 0.05), (sx * W / 4, 0.0, Ht - 0.01), 0.035, 10),
                   cyl((sx * W / 4, 0.0, Ht - 0.01), (sx * W / 4, D / 2, Ht + 0.03), 0.008, 6)])
              for sx in (-1, 1)]
    stand = cat([box(-W / 2, W / 2, -D / 2, D / 2, jin_h - 0.04, jin_h)] +
                [box(sx * (W / 2 - 0.05) - 0.04, sx * (W / 2 - 0.05) + 0.04, sy * (D / 2 - 0.05) - 0.04,
                     sy * (D / 2 - 0.05) + 0.04, 0, jin_h - 0.04) for sx in (-1, 1) for sy in (-1, 1)] + ladles)
    r = min(D * 0.8, W / 2 * 0.8)
    jars = []
    for sx in (-1, 1):
        j = _jar(r, Ht - jin_h, 14)
        j.apply_translation((sx * W / 4, 0, jin_h))
        jars.append(j)
    return stand, cat(jars)


def _drum(l) -> tuple[trimesh.Trimesh, trimesh.Trimesh]:
    """A barrel drum on a stand, its heads facing across (the shape is illustrative)."""
    W, D, Ht = l.size or (0.693, 0.693, 1.155)
    r = min(D, Ht) * 0.42
    L = W * 0.8
    barrel = lathe([(0, -L / 2), (r * 0.88, -L / 2), (r, 0), (r * 0.88, L / 2), (0, L / 2)], 18)
    barrel.apply_transform(trimesh.transformations.rotation_matrix(math.pi / 2, (0, 1, 0)))
    zc = Ht - r
    barrel.apply_translation((0, 0, zc))
    frame = [box(s * L / 2 * 0.6 - 0.03, s * L / 2 * 0.6 + 0.03, -0.03, 0.03, 0, zc - r * 0.7) for s in (-1, 1)]
    frame += [box(-W / 2, W / 2, -D / 2 * 0.6, D / 2 * 0.6, 0, 0.05)]
    return barrel, cat(frame)


def _mat(l) -> tuple[trimesh.Trimesh, trimesh.Trimesh]:
    W, D, Ht = l.size or (1.617, 0.762, 0.023)
    t = max(0.012, min(Ht, 0.03))
    b = 0.035
    return box(-W / 2 + b, W / 2 - b, -D / 2 + b, D / 2 - b, 0, t + 0.002), box(-W / 2, W / 2, -D / 2, D / 2, 0, t)


def fixture_parts(l) -> list[GroundPart]:
    """Geometry for a courtyard/hall fixture, by kind; empty for kinds without a body."""
    k = l.kind
    pos, hd = l.position, l.heading or 0.0
    node, lab = node_name(l.id), f"{l.id} {l.label_en}".strip()
    out = []
    P = lambda m: placed(m, pos, hd)  # noqa: E731
    if k == "screen":
        out.append(GroundPart(node, l.id, lab, P(_screen(l)), C["leather"]))
    elif k == "deer":
        deer = fit(_deer(), l.size or (0.1155, 0.2772, 0.1617))
        out.append(GroundPart(node, l.id, lab, P(deer), C["lacquer"]))
    elif k == "rack":
        wood, wei = _rack(l)
        out += [GroundPart(node, l.id, lab, P(wood), C["lacquer"]),
                GroundPart(node + "_weidang", l.id, f"{l.id} 韋當 (red leather)", P(wei), C["wei"])]
    elif k == "basin":
        body, water = _basin(l)
        out += [GroundPart(node, l.id, lab, P(body), C["bronze"]),
                GroundPart(node + "_water", l.id, f"{l.id} water", P(water), _rgb("#4d6f7a"))]
    elif k == "jar":
        W, D, Ht = l.size or (0.3465, 0.3465, 0.462)
        out.append(GroundPart(node, l.id, lab, P(_jar(min(W, D), Ht)), C["pottery"]))
    elif k == "basket":
        out.append(GroundPart(node, l.id, lab, P(_basket(l)), C["basket"]))
    elif k == "chimes":
        frame, stones = _chimes(l)
        out += [GroundPart(node, l.id, lab, P(frame), C["frame"]),
                GroundPart(node + "_qing", l.id, f"{l.id} 磬 chime stones", P(stones), C["stone"])]
    elif k == "wine":
        stand, jars = _wine(l)
        out += [GroundPart(node, l.id, f"{l.id} 禁 stand", P(stand), C["lacquer"]),
                GroundPart(node + "_hu", l.id, f"{l.id} 兩壺 two jars (玄酒 west)", P(jars), C["pottery"])]
    elif k == "mat":
        rush, border = _mat(l)
        out += [GroundPart(node, l.id, lab, P(rush), C["rush"]),
                GroundPart(node + "_chun", l.id, f"{l.id} 緇布純 black border", P(border), C["border"])]
    elif k == "wu":
        out.append(GroundPart(node, l.id, lab, P(_wu_mark(l)), C["dan"]))
    elif k == "drum":
        body, frame = _drum(l)
        out += [GroundPart(node, l.id, lab, P(body), C["leather"]),
                GroundPart(node + "_jia", l.id, f"{l.id} stand", P(frame), C["frame"])]
    elif k not in ("mark", "formation") and l.size and min(l.size) > 0:
        W, D, Ht = l.size          # a kind this module does not know: a plain block of the stated size
        out.append(GroundPart(node, l.id, lab, P(box(-W / 2, W / 2, -D / 2, D / 2, 0, Ht)), C["generic"]))
    return out
