"""Catalogue plates: one thing of the rite alone, lit as in a museum's catalogue, with the words of the text
that describe it (``render.py still --object NAME``).

The things are :mod:`reconstruct.scene.objects` (the 侯 from the reading, by :mod:`reconstruct.scene.ground`):

* ``鹿中`` — the deer with its eight 算 standing in the hollow of its back;
* ``翿旌`` — the feathered banner raised (held upright, as the 獲者 raises it: 舉旌以宮);
* ``侯`` — the target with its 丹 ground, the 雲氣 at its sides and its two 正, hit by the arrows given;
* ``楅`` — the rack with two sets of four arrows laid on its 當 (乘矢, 分委於當), nocks north.
"""
from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import trimesh
from PIL import Image

from . import offscreen as O
from .painter import Painter
from ..outputs import atomic_path
from ..scene import objects as OB
from ..scene.props import prop_mesh

__all__ = ["PLATES", "render_plate"]

#: name → (Chinese title, English title, the text's words)
PLATES = {
    "鹿中": ("鹿中", "the tally deer, with its eight tallies",
             "記: 士鹿中 … 鹿中髤，前足跪，鑿背容八算；釋獲者奉之先首 · 箭籌八十，長尺有握，握素"),
    "翿旌": ("翿旌", "the feathered banner, raised",
             "記: 無物則以白羽與朱羽糅，杠長三仞，以鴻脰韜上二尋 · 鄭: 七尺曰仞，八尺曰尋"),
    "侯": ("侯", "the target, hit",
           "記: 鄉侯上个五尋，中十尺 … 倍中以為躬，倍躬以為左右舌，下舌半上舌 · 鄭: 鄉射當張采侯二正 … 丹采其地，畫雲氣於側"),
    "楅": ("楅", "the arrow rack, with arrows",
           "記: 楅長如笴，博三寸，厚寸有半，龍首，其中蛇交，韋當；楅髤 · 鄭: 直心背之衣曰當，以丹韋為之"),
}


def _poly(mesh):
    c = np.asarray(mesh.visual.vertex_colors)[:, :3].astype(np.uint8)
    return O.triangles(np.asarray(mesh.vertices, float), np.asarray(mesh.faces), colors=c)


def _rack_with_arrows() -> object:
    rack = OB.rack_bi()
    arrow = prop_mesh("矢")                      # along +y, its middle at the origin
    out = [rack]
    for g, x0 in enumerate((-0.11, 0.11)):         # two sets of four (乘), on the 當
        for k in range(4):
            a = arrow.copy()
            a.apply_transform(_rz_deg(180.0))         # nocks north (北括): the head south
            a.apply_translation((x0 + (k - 1.5) * 0.016, 0.0, 0.13 + 0.004 * (k % 2)))
            out.append(a)
    return trimesh.util.concatenate(out)


def _scene(name: str, hou_parts=None, hits=()):
    """(meshes [(trimesh, rgb or None)], look-at point, eye) of a plate."""
    if name == "鹿中":
        m = OB.deer_zhong(with_tallies=True)
        return [(m, None)], np.array([0.0, 0.02, 0.34]), np.array([1.25, 0.95, 0.78])
    if name == "翿旌":
        m = OB.feather_banner()                   # raised: held upright (the pole's foot out of the picture)
        top = m.bounds[1]
        return [(m, None)], np.array([0.0, 0.0, top[2] - 0.5]), np.array([1.7, 2.5, -0.25])
    if name == "楅":
        return [(_rack_with_arrows(), None)], np.array([0.0, 0.0, 0.1]), np.array([0.75, -0.85, 0.62])
    if name == "侯":
        meshes = [(p.mesh, p.color) for p in hou_parts]
        arrow = prop_mesh("矢")
        for at in hits:
            a = arrow.copy()                          # along +y, its head at +0.41: turned to fly south,
            a.apply_transform(_rz_deg(180.0 - 6 + 12 * ((at[0] * 7.3) % 1.0)))
            a.apply_translation(at + np.array([0.0, 0.29, 0.0]))  # its head 0.12 m into the cloth, the feathers north

            meshes.append((a, None))
        cz = np.mean([p.mesh.bounds[:, 2] for p in hou_parts])
        cx, cy = (np.mean([p.mesh.bounds[:, k] for p in hou_parts]) for k in (0, 1))
        look = np.array([cx, cy, cz])
        return meshes, look, np.array([6.5, 10.5, 0.6])
    raise ValueError(f"no plate {name!r}: one of {', '.join(PLATES)}")


def _tilt(deg: float) -> np.ndarray:
    c, s = math.cos(math.radians(deg)), math.sin(math.radians(deg))
    return np.array([[1, 0, 0, 0], [0, c, s, 0], [0, -s, c, 0], [0, 0, 0, 1.0]])


def _rz_deg(deg: float) -> np.ndarray:
    c, s = math.cos(math.radians(deg)), math.sin(math.radians(deg))
    return np.array([[c, -s, 0, 0], [s, c, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1.0]])


def render_plate(name: str, out: str | Path, size=(1920, 1080), *, hou_parts=None, hits=(), footer: str = "",
                 supersample: int = 2) -> Path:
    """Render the plate ``name`` (:data:`PLATES`) to a PNG (written atomically); returns the path.

    ``hou_parts``: the 侯's ground parts (:func:`reconstruct.scene.ground.build_ground`, landmark 侯/侯中)
    for the 侯; ``hits``: where arrows stand in it ([x, y, z] of the plan's shots)."""
    zh, en, words = PLATES[name]
    meshes, look, eye_off = _scene(name, hou_parts, hits)
    W, H = int(size[0]), int(size[1])
    pl = O.plotter((W * supersample, H * supersample), background=("#d9d2c4", "#f4efe6"), fxaa=True)
    try:
        lo = np.min([m.bounds[0] for m, _ in meshes], axis=0)
        hi = np.max([m.bounds[1] for m, _ in meshes], axis=0)
        floor = _plinth(lo, hi)
        O.add_mesh(pl, floor, color=(0.80, 0.77, 0.71), ambient=0.45, diffuse=0.6, specular=0.0)
        for m, rgb in meshes:
            if rgb is None:
                O.add_mesh(pl, _poly(m), scalars="rgb", rgb=True, ambient=0.32, diffuse=0.75, specular=0.18,
                           specular_power=18, smooth_shading=False)
            else:
                O.add_mesh(pl, O.wrap(m), color=rgb, ambient=0.55, diffuse=0.55, specular=0.03)
        eye = look + eye_off
        O.add_light(pl, position=look + np.array([3.0, -2.0, 5.0]) * 10, focal_point=look, color=(1.0, 0.95, 0.86),
                    intensity=0.9)
        O.add_light(pl, kind="headlight", color=(0.85, 0.9, 1.0), intensity=0.35)
        O.add_light(pl, position=look + np.array([-4.0, 3.0, 2.0]) * 10, focal_point=look, color=(0.9, 0.93, 1.0),
                    intensity=0.3)
        pl.camera_position = [tuple(eye), tuple(look), (0, 0, 1)]
        pl.camera.view_angle = 30.0
        pl.renderer.ResetCameraClippingRange()
        img, _ = O.screenshot(pl)
    finally:
        pl.close()
    im = Image.fromarray(img).resize((W, H), Image.LANCZOS)
    p = Painter(im)
    p.title(zh + " · 鄉射禮", en)
    p.footer(words + (f" · {footer}" if footer else ""))
    out = Path(out)
    with atomic_path(out, suffix=".png") as tmp:
        im.save(tmp, format="PNG", optimize=True)
        tmp.chmod(0o644)
    return out


def _plinth(lo, hi):
    c = (lo + hi) / 2
    r = max(hi[0] - lo[0], hi[1] - lo[1]) * 1.6 + 0.3
    m = trimesh.creation.cylinder(radius=r, height=0.02, sections=48)
    m.apply_translation((c[0], c[1], min(lo[2], 0.0) - 0.011))
    return m
