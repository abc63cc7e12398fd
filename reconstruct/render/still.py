"""Still pictures of the ground: PyVista off-screen, labels drawn with PIL in the shipped SC font.

``render_still(reading, out, view=…)`` writes a PNG (1280×720 by default):

* ``overview`` — a calm three-quarter view of the whole ground from the south-east;
* ``plan`` — top-down orthographic: the whole ground (the 侯 70 m south of the hall) beside an
  enlargement of the hall and the 洗/楅/中 row, with scale bars in metres and in 尺/步,
  the purlin lines (物當棟) and a north arrow;
* ``hall`` — closer on the hall (the front slope of the roof cut away) and the row in front of it;
* ``range`` — along the range, from behind the 物 on the hall towards the 侯;
* any other name: a camera of ``reading.views`` (``[views.NAME] eye/look``); a reading's
  view of a built-in name is reachable as ``reading:NAME``.

The 3D image is rendered at twice the size and reduced (anti-aliasing on a CPU renderer),
then labels are drawn at the final size: each landmark's anchor is projected to the screen,
skipped if the depth buffer says it is hidden, and its label placed at the first free spot
around it (leader line, white halo).  Labels are the traditional forms of the ids (the text's
own characters), with a short English gloss.
"""
from __future__ import annotations

import math
from pathlib import Path
from typing import Iterable

import numpy as np
from PIL import Image, ImageDraw

from . import offscreen as O
from .painter import Painter as _Painter
from ..model.defaults import FRAME_SIZE, STILL_VIEWS as BUILTIN_VIEWS
from ..scene.ground import FIELD_COLOR, NEUTRAL, GroundPart, build_ground, evidence_parts, field_mesh
from .evidence import draw_legend
from ..text.names import traditional
from ..outputs import atomic_path
from ..model.reading import Reading

# which landmarks each view labels, most important first
LABELS = {
    "overview": ["堂", "侯", "乏", "门", "中", "楅", "洗", "庭", "县"],
    "hall": ["上物", "下物", "楅", "中", "洗", "县", "东楹", "西楹", "阼阶", "西阶", "宾席", "主人席",
             "大夫席", "尊", "工席", "众宾席1", "东序", "西序", "栋", "室", "东房", "水", "篚", "鼓"],
    "range": ["侯", "乏", "上物", "下物", "楅", "中", "洗", "西植", "东植", "县", "门", "西楹", "东楹"],
    "plan_whole": ["堂", "侯", "乏", "门", "中", "楅", "洗", "庭"],
    "plan_inset": ["上物", "下物", "东楹", "西楹", "阼阶", "西阶", "东序", "西序", "楅", "中", "洗", "水", "篚", "县",
                   "宾席", "主人席", "大夫席", "尊", "上篚", "工席", "众宾席1", "众宾席3", "室", "东房",
                   "鼓", "司射位", "司马位", "释获者位", "射位", "工位", "堂西", "堂东", "阶西", "觯位"],
    "custom": ["堂", "侯", "乏", "门", "上物", "下物", "楅", "中", "洗", "县", "阼阶", "西阶", "东楹", "西楹", "尊", "宾席",
               "主人席"],
}

# short English glosses for labels (the reading's label_en is used for anything else)
GLOSS = {
    "堂": "hall", "侯": "target", "乏": "marker's screen", "门": "gate", "阼阶": "east stair", "西阶": "west stair",
    "洗": "basin", "楅": "arrow rack", "中": "tally deer", "县": "chimes", "东序": "east wall", "西序": "west wall",
    "东荣": "eave end", "西荣": "eave end", "庭": "courtyard", "室": "chamber", "东房": "east room",
    "上物": "upper archer's mark", "下物": "lower archer's mark", "水": "water", "篚": "basket", "东楹": "column",
    "西楹": "column", "宾席": "guest", "主人席": "host", "大夫席": "grandee", "尊": "wine jars", "上篚": "basket",
    "工席": "musicians", "众宾席1": "guests", "众宾席2": "guests", "众宾席3": "guests", "栋": "ridge purlin",
    "楣": "front purlin", "后楣": "rear purlin", "堂廉": "hall's edge", "西植": "post", "东植": "post",
    "司射位": "director", "司马位": "master of range", "释获者位": "tally keeper", "射位": "archers wait",
    "工位": "musicians below", "堂西": "west of hall", "堂东": "east of hall", "阶西": "guest below", "觯位": "cup", "鼓": "drum",
}

HIDE_IN_PLAN = {"L_wu", "L_wu_chuan", "L_dongrong", "L_xirong", "L_mei", "L_dong", "L_houmei", "L_men_wu"}


def _display(ident: str) -> str:
    t = traditional(ident).rstrip("0123456789")
    return t


# ---------------------------------------------------------------------------
# Scene.

def _wrap(mesh):
    return O.triangles(np.asarray(mesh.vertices, float), mesh.faces)


def _extra_parts(extra) -> list[GroundPart]:
    out = []
    for i, e in enumerate(extra or ()):
        if isinstance(e, GroundPart):
            out.append(e)
        elif isinstance(e, tuple):
            mesh, color = e[0], e[1]
            out.append(GroundPart(f"X_{i}", "", "", mesh, tuple(color)))
        else:
            out.append(GroundPart(f"X_{i}", "", "", e, (0.5, 0.5, 0.6)))
    return out


def _split_roof(reading: Reading, part: GroundPart):
    """The roof's south slope (cut away in the hall view) and the rest."""
    y_r = reading.params["y_dong"]
    m = part.mesh
    c = m.triangles_center
    south = c[:, 1] < y_r - 0.2
    return m.submesh([np.where(south)[0]], append=True), m.submesh([np.where(~south)[0]], append=True)


def _add_scene(pl, reading: Reading, parts: list[GroundPart], mode: str) -> None:
    if not any(p.node == "field" for p in parts):       # the evidence view brings its own (neutral) field
        O.add_mesh(pl, field_mesh(reading), color=FIELD_COLOR, ambient=0.35, diffuse=0.7, specular=0.0)
    for p in parts:
        if p.node == "field":
            O.add_mesh(pl, _wrap(p.mesh), color=p.color, ambient=0.35, diffuse=0.7, specular=0.0)
            continue
        if mode == "plan" and p.node in HIDE_IN_PLAN:
            continue
        kw = dict(color=p.color, ambient=0.28, diffuse=0.78, specular=0.04, specular_power=5)
        if p.node.startswith("L_hou_"):
            kw.update(ambient=0.72, diffuse=0.45)   # thin cloth: lit through
        smooth = len(p.mesh.faces) > 60
        if mode == "cutaway" and p.node in ("L_wu", "L_dongrong", "L_xirong", "L_wu_chuan"):
            south, rest = _split_roof(reading, p)
            if len(rest.faces):
                O.add_mesh(pl, _wrap(rest), smooth_shading=False, **kw)
            if len(south.faces) and p.node != "L_wu_chuan":
                O.add_mesh(pl, _wrap(south), style="wireframe", color=p.color, line_width=1, opacity=0.35)
            continue
        O.add_mesh(pl, _wrap(p.mesh), smooth_shading=smooth, split_sharp_edges=smooth, feature_angle=35, **kw)


def _lights(pl, focus, sun_az: float = 125.0, sun_el: float = 48.0, scale: float = 1.0) -> None:
    """A warm sun (az compass degrees the light comes from) and a soft cool fill from the camera."""
    pl.remove_all_lights()
    a, e = math.radians(sun_az), math.radians(sun_el)
    d = np.array([math.sin(a) * math.cos(e), math.cos(a) * math.cos(e), math.sin(e)])
    focus = np.asarray(focus, float)
    O.add_light(pl, position=focus + 200 * d, focal_point=focus, color=(1.0, 0.93, 0.80), intensity=0.95 * scale)
    O.add_light(pl, kind="headlight", color=(0.82, 0.88, 1.0), intensity=0.32 * scale)
    O.add_light(pl, position=focus + (0, 0, 200), focal_point=focus, color=(0.9, 0.93, 1.0), intensity=0.15 * scale)
    O.add_light(pl, position=focus + (-60, 40, -200), focal_point=focus, color=(1.0, 0.9, 0.75),
                intensity=0.28 * scale)                                          # light off the ground


def _plotter(size, supersample: int):
    return O.plotter((size[0] * supersample, size[1] * supersample), background=("#f3eee4", "#c9d8e6"), fxaa=True)


def _grab(pl, size) -> tuple[Image.Image, np.ndarray]:
    img, depth = O.screenshot(pl)
    return Image.fromarray(img).resize(size, Image.LANCZOS), depth


class _Projector:
    """World → final-image pixels for the camera of a plotter (and a depth test)."""

    def __init__(self, pl, supersample: int, depth: np.ndarray | None):
        self.pl, self.ss, self.depth = pl, supersample, depth
        self.display = O.WorldToDisplay(pl)
        self.H = pl.window_size[1]
        cam = pl.camera
        self.eye = np.array(cam.position)
        self.parallel = bool(cam.parallel_projection)
        self.dir = np.array(cam.focal_point) - self.eye
        self.dir /= np.linalg.norm(self.dir)

    def __call__(self, p) -> tuple[float, float]:
        x, y = self.display(p)
        return x / self.ss, (self.H - y) / self.ss

    def visible(self, p, tol: float = 0.6) -> bool:
        if self.depth is None:
            return True
        x, y = self(p)
        ix, iy = int(round(x * self.ss)), int(round(y * self.ss))
        h, w = self.depth.shape
        if not (0 <= ix < w and 0 <= iy < h):
            return False
        d = self.depth[max(0, iy - 2):iy + 3, max(0, ix - 2):ix + 3]
        d = d[np.isfinite(d)]
        if not len(d):
            return True
        dist = float(np.dot(np.asarray(p, float) - self.eye, self.dir))
        return dist <= float(np.max(np.abs(d))) + tol


# ---------------------------------------------------------------------------
# Anchors.

def _anchors(reading: Reading, parts: list[GroundPart]) -> dict[str, np.ndarray]:
    """A point to label for every landmark: the top centre of its parts, or its position."""
    by: dict[str, list] = {}
    for p in parts:
        if p.landmark:
            by.setdefault(p.landmark, []).append(p.mesh.bounds)
    out = {}
    for ident, lm in reading.landmarks.items():
        if ident in by:
            b = np.array(by[ident])
            lo, hi = b[:, 0].min(axis=0), b[:, 1].max(axis=0)
            out[ident] = np.array([(lo[0] + hi[0]) / 2, (lo[1] + hi[1]) / 2, hi[2]])
        else:
            out[ident] = np.array(lm.position, float)
    p = reading.params
    if "堂" in out:
        out["堂"] = np.array([-p["w_xu"] * 0.55, p["depth"] * 0.3, reading.hall_height])
    if "侯" in reading.landmarks:
        out["侯"] = np.array([0.0, p["hou_y"], p["hou_top"]])
    if "庭" in out:
        out["庭"] = np.array([p["court_half"] * 0.55, p["court_south"] * 0.45, 0.0])
    for k in ("东序", "西序"):
        if k in reading.landmarks:
            x, y, z = reading.landmarks[k].position
            out[k] = np.array([x, y + 1.0, z + p["eave_height"] * 0.6])
    return out


def _gloss(reading: Reading, ident: str) -> str:
    if ident in GLOSS:
        return GLOSS[ident]
    en = reading.landmarks[ident].label_en if ident in reading.landmarks else ""
    return en.split("(")[0].strip()[:28]


def _draw_labels(painter: _Painter, reading: Reading, proj: _Projector, anchors, idents, *, zh_size=20,
                 en=True, depth_test=True) -> list[str]:
    done = []
    for ident in idents:
        if ident not in anchors or ident not in reading.landmarks:
            continue
        a = anchors[ident]
        x, y = proj(a)
        W, H = painter.im.size
        if not (6 < x < W - 6 and 6 < y < H - 6):
            continue
        if depth_test and not proj.visible(a):
            continue
        if painter.label((x, y), _display(ident), _gloss(reading, ident) if en else "", zh_size=zh_size):
            done.append(ident)
    return done


# ---------------------------------------------------------------------------
# Cameras.

def _camera(reading: Reading, view: str):
    """(eye, look, view angle, mode) for a perspective view."""
    p = reading.params
    if view.startswith("reading:") or (view not in BUILTIN_VIEWS and view in reading.views):
        name = view.removeprefix("reading:")
        if name not in reading.views:
            raise ValueError(f"no view {name!r} in the reading; it has: {', '.join(reading.views) or 'none'}")
        eye, look = reading.views[name]
        return np.array(eye), np.array(look), 35.0, "cutaway", name
    if view == "overview":
        # a distant camera with a long lens: the ground reads like a model, the hall not dwarfed by perspective
        fp = np.array(reading.court_footprint)
        look = np.array([fp[:, 0].mean(), fp[:, 1].mean() + 2.0, 0.0])
        span = max(np.ptp(fp[:, 0]), np.ptp(fp[:, 1]))
        a, e = math.radians(130), math.radians(32)
        dist = span * 2.75
        eye = look + dist * np.array([math.sin(a) * math.cos(e), math.cos(a) * math.cos(e), math.sin(e)])
        return eye, look, 15.5, "whole", "overview from the south-east"
    if view == "hall":
        look = np.array([0.0, -2.6, 0.4])
        eye = np.array([13.0, -21.0, 9.5])
        return eye, look, 42.0, "cutaway", "the hall and the row of 洗, 楅 and 中"
    if view == "range":
        y_wu = p["y_wu"]
        H = reading.hall_height
        eye = np.array([0.0, y_wu + 1.2, H + 1.55])
        look = np.array([0.0, p["hou_y"], 1.2])
        return eye, look, 26.0, "whole", "along the range, from behind the 物 towards the 侯"
    raise ValueError(f"unknown view {view!r}: use {', '.join(BUILTIN_VIEWS)} or one of the reading's "
                     f"views ({', '.join(reading.views) or 'none'})")


# ---------------------------------------------------------------------------
# Public.

def render_still(reading: Reading, out: str | Path, view: str = "overview", size=FRAME_SIZE, labels: bool = True,
                 extra_meshes: Iterable | None = None, supersample: int = 2, evidence: bool = False,
                 anchors_out: dict | None = None) -> Path:
    """Render one still of the ground to a PNG (written atomically); returns the path.

    ``evidence``: the evidence view (issue 32) — every part in the colour of its landmark's evidence
    (:func:`reconstruct.scene.ground.evidence_parts`) with the legend.  ``anchors_out``: filled with the
    pixel (x, y) of every landmark's anchor that the camera sees unhidden (perspective views)."""
    size = (int(size[0]), int(size[1]))
    parts = build_ground(reading)
    if evidence:
        parts = [GroundPart("field", "", "field", field_mesh(reading), NEUTRAL)] + evidence_parts(parts, reading)
    parts = parts + _extra_parts(extra_meshes)
    if view == "plan":
        im = _render_plan(reading, parts, size, labels, supersample)
    else:
        im = _render_perspective(reading, parts, view, size, labels, supersample, anchors_out)
    if evidence:
        arr = np.asarray(im.convert("RGB")).copy()
        draw_legend(arr)
        im = Image.fromarray(arr)
    out = Path(out)
    with atomic_path(out, suffix=".png") as tmp:
        im.save(tmp, format="PNG", optimize=True)
        tmp.chmod(0o644)
    return out


def _title(reading: Reading, what_zh: str, what_en: str) -> tuple[str, str]:
    return (f"鄉射禮 · {reading.name} · {what_zh}", f"Village Archery — {reading.name_en or reading.name}: {what_en}")


def _footer(reading: Reading) -> str:
    u = reading.units
    return (f"1 尺 = {u.chi_m:.3f} m · 1 步 = 6 尺 = {u.bu_m:.3f} m · {Path(reading.file).name} · "
            "labels in the text's (traditional) characters")


def _render_perspective(reading, parts, view, size, labels, ss, anchors_out: dict | None = None) -> Image.Image:
    eye, look, angle, mode, desc = _camera(reading, view)
    pl = _plotter(size, ss)
    try:
        _add_scene(pl, reading, parts, "cutaway" if mode == "cutaway" else "whole")
        _lights(pl, look)
        pl.camera_position = [tuple(eye), tuple(look), (0, 0, 1)]
        pl.camera.view_angle = angle
        pl.renderer.ResetCameraClippingRange()
        im, depth = _grab(pl, size)
        proj = _Projector(pl, ss, depth)
        painter = _Painter(im)
        zh = {"overview": "全景", "hall": "堂與庭", "range": "侯道"}.get(view, view.removeprefix("reading:"))
        painter.title(*_title(reading, zh, desc))
        painter.footer(_footer(reading))
        # north arrow: the screen direction of north at the point looked at
        a, b = proj(look), proj(look + np.array([0, 5.0, 0]))
        W, H = size
        painter.north_arrow((W - 46, H - 46), (b[0] - a[0], b[1] - a[1]))
        if anchors_out is not None:
            W, H = size
            for ident, a in _anchors(reading, parts).items():
                x, y = proj(a)
                if 0 <= x < W and 0 <= y < H and proj.visible(a):
                    anchors_out[ident] = (x, y)
        if labels:
            key = view if view in LABELS else "custom"
            _draw_labels(painter, reading, proj, _anchors(reading, parts), LABELS[key])
    finally:
        pl.close()
    return im


def _ortho(reading, parts, panel_size, centre, half_height, ss, labels, label_key, zh_size, en):
    """One top-down orthographic panel: (image, projector as a function, px per metre)."""
    pl = _plotter(panel_size, ss)
    try:
        _add_scene(pl, reading, parts, "plan")
        _lights(pl, (centre[0], centre[1], 0), sun_az=150, sun_el=55, scale=0.72)
        pl.camera_position = [(centre[0], centre[1], 300.0), (centre[0], centre[1], 0.0), (0, 1, 0)]
        pl.camera.parallel_projection = True
        pl.camera.parallel_scale = half_height
        pl.renderer.ResetCameraClippingRange()
        im, _ = _grab(pl, panel_size)
        ppm = panel_size[1] / (2 * half_height)
        w, h = panel_size

        def proj(pt):
            return (w / 2 + (pt[0] - centre[0]) * ppm, h / 2 - (pt[1] - centre[1]) * ppm)

        return im, proj, ppm, None
    finally:
        pl.close()


def _render_plan(reading: Reading, parts, size, labels, ss) -> Image.Image:
    """The plan: the whole ground (left) beside the hall and the court enlarged (right)."""
    W, H = size
    pn = _PlanPanels(reading, parts, size, ss, labels)
    canvas = Image.new("RGB", size, "white")
    canvas.paste(pn.im_l, (0, 0))
    canvas.paste(pn.im_r, (pn.left_w, 0))
    painter = _Painter(canvas)
    painter.draw.line([(pn.left_w, 0), (pn.left_w, H)], fill=(90, 80, 70, 255), width=2)
    _plan_hall_lines(painter, reading, pn)
    _plan_target(painter, canvas, reading, pn)
    painter.title(*_title(reading, "平面圖", "plan of the ground (left) and of the hall and court (right)"))
    painter.footer(_footer(reading))
    painter.north_arrow((W - 46, 52), (0, -1))
    _plan_scale_bars(painter, reading, pn)
    if labels:
        _plan_labels(painter, reading, parts, pn)
    return canvas


class _PlanPanels:
    """The two top-down panels of the plan and their projections (plan metres → canvas pixels)."""

    def __init__(self, reading: Reading, parts, size, ss, labels):
        W, H = size
        p = reading.params
        fp = np.array(reading.court_footprint)
        x0, x1 = fp[:, 0].min() - 1.5, fp[:, 0].max() + 1.5
        y0, y1 = fp[:, 1].min() - 2.5, fp[:, 1].max() + 1.5
        # left panel: the whole ground, north up; its width follows the ground's proportions
        top, bottom = min(84.0, H * 84 / 720), min(104.0, H * 104 / 720)   # the title's and the footer's room
        avail = H - top - bottom
        ppm_whole = avail / (y1 - y0)
        left_w = int(min(W * 0.36, (x1 - x0) * ppm_whole + 150))
        half_h = (H / 2) / ppm_whole
        cy = (y0 + y1) / 2 + (top - bottom) / 2 / ppm_whole
        whole_centre = ((x0 + x1) / 2 + 40 / ppm_whole, cy)
        self.im_l, self.proj_l, _, _ = _ortho(reading, parts, (left_w, H), whole_centre, half_h, ss, labels, None, 0,
                                              False)
        # right panel: the hall and the row in front of it
        right_w = W - left_w
        ix0 = -(p["court_half"] if p["court_half"] < 16 else max(p["half_width"] + p["eave"] + 5.0, 15.0))
        ix1 = -ix0
        iy1 = p["depth"] + p["eave"] + 1.5
        row_y = reading.landmarks["楅"].position[1] if "楅" in reading.landmarks else -p["depth"]
        iy0 = min(row_y, -p["depth"]) - 5.5
        ppm_in = min(max(right_w - 40, right_w / 2) / (ix1 - ix0), (H - top - bottom) / (iy1 - iy0))
        half_in = (H / 2) / ppm_in
        in_centre = (0.0, (iy0 + iy1) / 2 + (top - bottom) / 2 / ppm_in)
        self.im_r, self.proj_r, _, _ = _ortho(reading, parts, (right_w, H), in_centre, half_in, ss, labels, None, 0,
                                              False)
        self.size, self.left_w, self.x1 = size, left_w, x1
        self.ppm_whole, self.ppm_in = ppm_whole, ppm_in
        self.inset = (ix0, ix1, iy0, iy1)

    def L(self, pt):
        return self.proj_l(pt)

    def R(self, pt):
        x, y = self.proj_r(pt)
        return x + self.left_w, y


def _plan_hall_lines(painter: _Painter, reading: Reading, pn: _PlanPanels) -> None:
    """The inset's frame on the whole plan; on the enlargement the eaves, the purlin lines and the rooms."""
    d, p, L, R = painter.draw, reading.params, pn.L, pn.R
    ix0, ix1, iy0, iy1 = pn.inset
    (ax, ay), (bx, by) = L((ix0, iy1, 0)), L((ix1, iy0, 0))
    d.rectangle([ax, ay, bx, by], outline=(150, 30, 24, 255), width=2)

    # eaves outline and the purlin lines on the enlargement
    eave_box = [R((-(p["half_width"] + p["eave"]), p["depth"] + p["eave"], 0)),
                R(((p["half_width"] + p["eave"]), -p["eave"], 0))]
    _dashed_rect(d, eave_box, (70, 65, 60, 220))
    for ident, zh in (("楣", "楣"), ("栋", "棟"), ("后楣", "後楣")):
        if ident in reading.landmarks:
            y = reading.landmarks[ident].position[1]
            a, b = R((-(p["half_width"] + p["eave"]), y, 0)), R(((p["half_width"] + p["eave"]), y, 0))
            _dashed_line(d, a, b, (70, 65, 60, 200), dash=(14, 5, 3, 5))
            painter.text((b[0] + 4, b[1]), zh, 15, anchor="lm", halo=2)
            painter.reserve((b[0] + 2, b[1] - 10, b[0] + 40, b[1] + 10))
    for lm in reading.landmarks.values():           # rooms (室, 房) outlined: their walls are thin from above
        if lm.kind == "room" and lm.footprint:
            d.polygon([R((x, y, 0)) for x, y in lm.footprint], outline=(90, 60, 40, 255), width=3)
    ee = R(((p["half_width"] + p["eave"]), p["depth"] + p["eave"], 0))
    painter.text((ee[0] + 4, ee[1] + 2), "屋檐 eaves", 11, fill="#4a443d", anchor="la", halo=2)



def _plan_target(painter: _Painter, canvas: Image.Image, reading: Reading, pn: _PlanPanels) -> None:
    """The 侯 (its 上舌 as a bar, the 侯中 in red, the posts) and the 侯道 dimension line."""
    d, p, L, x1 = painter.draw, reading.params, pn.L, pn.x1
    # the 侯 (a cloth 2 cm thick is invisible from above): its 上舌 as a bar, the posts as dots
    if "侯" in reading.landmarks:
        a, b = L((-p["hou_upper"] / 2, p["hou_y"], 0)), L((p["hou_upper"] / 2, p["hou_y"], 0))
        d.line([a, b], fill=(60, 50, 40, 255), width=3)
        a, b = L((-p["hou_zhong"] / 2, p["hou_y"], 0)), L((p["hou_zhong"] / 2, p["hou_y"], 0))
        d.line([a, b], fill=(179, 38, 30, 255), width=5)
        for sgn in (-1, 1):
            q = L((sgn * p["hou_post_bottom"], p["hou_y"], 0))
            d.ellipse([q[0] - 2.5, q[1] - 2.5, q[0] + 2.5, q[1] + 2.5], fill=(60, 50, 40, 255))
    # dimension line: the 侯道
    if "侯" in reading.landmarks:
        xd = x1 - 4.0
        a, b = L((xd, p["y_wu"], 0)), L((xd, p["hou_y"], 0))
        d.line([a, b], fill=(150, 30, 24, 255), width=2)
        for q in (a, b):
            d.line([(q[0] - 6, q[1]), (q[0] + 6, q[1])], fill=(150, 30, 24, 255), width=2)
        dao = p.get("hou_dao", p["y_wu"] - p["hou_y"])
        mid = ((a[0] + b[0]) / 2, (a[1] + b[1]) / 2)
        f = painter.font(13)
        lab = f"侯道 {dao / reading.units.metres('一弓'):.0f} 弓 = {dao:.1f} m"
        tl = Image.new("RGBA", (int(d.textlength(lab, font=f)) + 10, 22), (255, 255, 255, 0))
        ImageDraw.Draw(tl).text((5, 2), lab, font=f, fill=(150, 30, 24, 255), stroke_width=2,
                                stroke_fill=(255, 255, 255, 230))
        tl = tl.rotate(90, expand=True)
        canvas.paste(tl, (int(mid[0] - tl.size[0] - 3), int(mid[1] - tl.size[1] / 2)), tl)
        painter.reserve((mid[0] - tl.size[0] - 3, mid[1] - tl.size[1] / 2, mid[0], mid[1] + tl.size[1] / 2))



def _plan_scale_bars(painter: _Painter, reading: Reading, pn: _PlanPanels) -> None:
    """Scale bars in metres and in 尺/步 on each panel."""
    H, left_w, ppm_whole, ppm_in = pn.size[1], pn.left_w, pn.ppm_whole, pn.ppm_in
    u = reading.units
    bu = u.bu_m
    painter.scale_bar((16, H - 60), ppm_whole, 20, 2, "m", lambda i: f"{i * 10}")
    painter.scale_bar((16, H - 96), ppm_whole, bu * 10, 2, "步", lambda i: f"{i * 5}")
    painter.scale_bar((left_w + 20, H - 40), ppm_in, 10, 5, "m", lambda i: f"{i * 2}")
    zhang = u.chi_m * 10
    painter.scale_bar((left_w + 340, H - 40), ppm_in, zhang * 4, 4, "丈 (10 尺)", lambda i: f"{i}")
    painter.scale_bar((left_w + 340, H - 76), ppm_in, bu * 5, 5, "步 (6 尺)", lambda i: f"{i}")


def _plan_labels(painter: _Painter, reading: Reading, parts, pn: _PlanPanels) -> None:
    """One-character labels on the whole plan; standing places and labels on the enlargement."""
    d, L, R, left_w = painter.draw, pn.L, pn.R, pn.left_w
    W, H = pn.size
    anchors = _anchors(reading, parts)
    # the whole plan: one character labels
    for ident in LABELS["plan_whole"]:
        if ident in anchors and ident in reading.landmarks:
            x, y = L(anchors[ident])
            if 0 < x < left_w and 0 < y < H:
                _label_clipped(painter, (x, y), _display(ident), _gloss(reading, ident), left_w, 0, zh=16)
    # standing places (dots) on the enlargement
    for ident in LABELS["plan_inset"]:
        lm = reading.landmarks.get(ident)
        if lm and lm.kind in ("mark", "formation"):
            x, y = R(lm.position)
            d.ellipse([x - 4, y - 4, x + 4, y + 4], fill=(40, 80, 150, 255), outline=(255, 255, 255, 255))
            if lm.heading is not None:
                h = math.radians(lm.heading)
                d.line([(x, y), (x + 11 * math.sin(h), y - 11 * math.cos(h))], fill=(40, 80, 150, 255), width=2)
    for ident in LABELS["plan_inset"]:
        if ident in anchors and ident in reading.landmarks:
            x, y = R(anchors[ident])
            if left_w < x < W and 0 < y < H:
                _label_clipped(painter, (x, y), _display(ident), _gloss(reading, ident), W, left_w, zh=17)


def _label_clipped(painter: _Painter, xy, text, en, x_max, x_min, zh=18) -> bool:
    """A label that must stay within one panel [x_min, x_max]."""
    guard = [(0, 0, x_min + 2, painter.im.size[1])] if x_min > 0 else []
    guard += [(x_max - 2, 0, painter.im.size[0], painter.im.size[1])] if x_max < painter.im.size[0] else []
    for g in guard:
        painter.reserve(g)
    ok = painter.label(xy, text, en, zh_size=zh, en_size=11, distances=(18, 30, 46, 64, 88, 116))
    for g in guard:
        painter.boxes.remove(g)
    return ok


def _dashed_line(d, a, b, fill, dash=(8, 6), width=1) -> None:
    ax, ay = a
    bx, by = b
    L = math.hypot(bx - ax, by - ay)
    if L == 0:
        return
    ux, uy = (bx - ax) / L, (by - ay) / L
    t, i, on = 0.0, 0, True
    while t < L:
        seg = dash[i % len(dash)]
        t1 = min(L, t + seg)
        if on:
            d.line([(ax + ux * t, ay + uy * t), (ax + ux * t1, ay + uy * t1)], fill=fill, width=width)
        t, i, on = t1, i + 1, not on


def _dashed_rect(d, corners, fill) -> None:
    (x0, y0), (x1, y1) = corners
    for a, b in (((x0, y0), (x1, y0)), ((x1, y0), (x1, y1)), ((x1, y1), (x0, y1)), ((x0, y1), (x0, y0))):
        _dashed_line(d, a, b, fill)
