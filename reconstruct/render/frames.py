"""The frame renderer: a cached background per camera pose, the moving layer drawn over it supersampled.

Two persistent off-screen scenes (through :mod:`.offscreen`, the one door to VTK):

* the full frame — the ground, the architecture and everyone (the moving layer "baked" as one
  mesh), with FXAA; rendered once per camera pose (colour + depth) and reused while the camera
  holds, with the people who move left out; people who stopped moving are baked back in now and then;
* the moving layer's own window at ``SS`` times the frame size — only the live items, drawn over
  their screen rectangle (the projection shifted so it matches the full frame), without FXAA; each
  2x2 block is averaged into coverage and colour and blended over the cached frame with a depth
  test against the cached depth (architecture in front of a person still hides him), in one compiled
  pass (:func:`blend_over`, numba).  ``ss=1`` draws the layer at the frame's size instead (about a third
  faster at 1080p; jagged edges and broken bow strings, PSNR about 40 dB against ``ss=2``).

During camera moves a single full pass is drawn instead.  :meth:`FrameRenderer.reset` forgets every
cache, so that what follows is drawn exactly as by a new renderer (chunks of a video start so).
"""
from __future__ import annotations

import math

import numba
import numpy as np

from . import offscreen as O
from . import materials as M
from . import shade as SH
from .layer import MovingLayer
from ..model.defaults import FRAME_SIZE
from ..scene.shots import CameraPose

__all__ = ["FrameRenderer", "ROOF_NODES", "SS", "blend_over", "depth_limit", "SUN_DIR", "SUN_COLOR", "SKY"]

SUN_DIR = tuple(float(v) for v in SH.SUN_DIR)     # towards the sun: south-east, high
SUN_COLOR = "#fff0d6"
_SUN = SUN_COLOR
SKY = ("#c9d3d6", "#8fa6b8")      # the sky's gradient: at the horizon, at the top
_FILL = "#d8e2f0"
# ground nodes hidden in shots of the hall (``CameraPose.cutaway``): the roof, its rafters, the ridge
ROOF_NODES = ("L_wu", "L_dongrong", "L_xirong", "L_wu_chuan", "L_dong", "L_houmei")
SS = 2                  # supersampling of the moving layer (per axis; 2 or 1)
# the layer window's sizes: the frame × ss divided by these per axis, the smallest that holds the layer's box (a
# render costs in proportion to its window, not only to its viewport: 4.9 ms of CPU for a few pixels of a
# 2560x1440 window against 0.6 ms in a quarter of it); it shrinks only after LAYER_SHRINK_AFTER passes that fit
LAYER_WINDOWS = (4, 2, 1)
LAYER_SHRINK_AFTER = 25


def _rgb(rgb):
    """A colour as PyVista takes it: a name or hex string as it is, 0–255 or 0–1 triples as 0–1."""
    return rgb if isinstance(rgb, str) else tuple(float(c) / (255.0 if max(rgb) > 1 else 1.0) for c in rgb)


def _scene(size, fxaa: bool, sky):
    """An off-screen plotter lit by the sun and a soft fill from the camera."""
    pl = O.plotter(size, background=sky, fxaa=fxaa)
    O.add_light(pl, kind="scene light", intensity=0.95, color=_SUN, position=tuple(100 * v for v in SUN_DIR),
                directional=True)
    O.add_light(pl, kind="headlight", intensity=0.28, color=_FILL)
    return pl


def _set_camera(cam, pose: CameraPose) -> None:
    O.set_camera(cam, pose.eye, pose.target, pose.up, pose.view_angle)



def _figures_actor(pl, poly, name: str):
    """The people and props as one vertex-coloured mesh (the baked background's or the live layer's)."""
    return O.add_mesh(pl, poly, scalars="rgb", rgb=True, ambient=0.34, diffuse=0.72, specular=0.0,
                      smooth_shading=True, name=name, reset_camera=False)


def _shown(pl):
    """Open the plotter's window off screen: (renderer, render window, camera)."""
    pl.show(auto_close=False)
    return pl.renderer, pl.ren_win, pl.renderer.GetActiveCamera()

class FrameRenderer:
    """Two persistent off-screen VTK scenes: the full frame (static meshes and everyone, FXAA, cached
    per camera pose) and the moving layer (only what moves, supersampled over its screen box)."""

    def __init__(self, static_meshes, layer: MovingLayer, size=FRAME_SIZE, aa: bool = True,
                 sky=SKY, ss: int = SS):
        self.size = tuple(int(v) for v in size)
        w, h = self.size
        self.aa = aa
        self.materials = True
        self.ss = int(ss) if aa else 1
        if self.ss not in (1, 2):
            raise ValueError(f"supersampling must be 1 or 2, got {ss}")
        self.layer = layer
        self._full_scene(static_meshes, sky)
        self._layer_scene(sky)
        # passes drawn, and pixels (at the frame's size) the layer window drew and the blend went over
        self.stats = {"full": 0, "layer": 0, "background": 0, "reused": 0, "layer_px": 0, "blend_px": 0}
        self.reset()

    def _full_scene(self, static_meshes, sky) -> None:
        """The full frame's scene: every static mesh (the roof's actors kept apart) and the baked layer."""
        pl = _scene(self.size, self.aa, sky)
        self.static_actors, self.roof_actors = [], []
        skins, dark = SH.architecture_shadows(static_meshes, self.layer.sampler.plan.hall)
        for name, mesh, rgb in list(static_meshes) + skins:
            rgb = _rgb(rgb)
            if name in dark and not isinstance(rgb, str):
                rgb = tuple(c * SH.SHADE for c in rgb)
            kind = M.material_of(name) if self.materials and not isinstance(rgb, str) else None
            if kind is not None:
                tm, uv = M.box_uv(mesh, M.REPEAT_M[kind])
                a = O.add_mesh(pl, O.textured(tm, uv), texture=O.texture(M.texture_rgb(kind, rgb)), ambient=0.32,
                               diffuse=0.72, specular=0.0, name=f"static:{name}", smooth_shading=False,
                               reset_camera=False)
            else:
                a = O.add_mesh(pl, mesh, color=rgb, ambient=0.32, diffuse=0.72, specular=0.0, name=f"static:{name}",
                               smooth_shading=False, reset_camera=False)
            self.static_actors.append(a)
            if name in ROOF_NODES:
                self.roof_actors.append(a)
        L = self.layer
        self.poly = O.triangles(L.vertices, L.faces, L.colors, L.normals)
        self.baked_actor = _figures_actor(pl, self.poly, "baked")
        self.pl = pl
        self.ren, self.rw, self.cam = _shown(pl)

    def _layer_scene(self, sky) -> None:
        """The moving layer's own window, ss times the frame, no FXAA, cleared to one colour (its empty
        samples are never shown: the blend takes only what its depth says is drawn)."""
        w, h = self.size
        lpl = _scene((w * self.ss, h * self.ss), False, (sky[0], sky[0]))
        self.lpoly = O.triangles(np.zeros((3, 3)), [[0, 1, 2]], np.zeros((3, 3), np.uint8), np.tile([0, 0, 1.0], (3, 1)))
        self.live_actor = _figures_actor(lpl, self.lpoly, "live")
        self.lpl = lpl
        self.lren, self.lrw, self.lcam = _shown(lpl)
        self.layer_div, self.layer_fits = 1, 0        # the window's size (the frame × ss / layer_div) and for how long
                                                       # a smaller one would have done

    def reset(self) -> None:
        """Forget the cached background and the live set (the next frame is drawn as by a new renderer)."""
        self.live: set[int] = set()              # items drawn per frame (the rest is baked into the background)
        self.live_vidx = np.zeros(0, int)
        self.live_key = None
        self.last_moved: dict[int, float] = {}
        self.bg_key = None
        self.bg_rgb = None
        self.bg_limit = None
        self.bg_age = 0

    # -- low level
    def _upload_baked(self, parts: np.ndarray | None) -> None:
        O.upload(self.poly, *self.layer.world_arrays(parts))

    def _set_live_geometry(self) -> None:
        """Rebuild the live mesh from the live items' parts (when the live set changes)."""
        key = tuple(sorted(self.live))
        if key == self.live_key:
            return
        self.live_key = key
        L = self.layer
        vmask = self.layer.part_mask(self.live)[L.part_of_vertex]
        vidx = np.flatnonzero(vmask)
        self.live_vidx = vidx
        if not len(vidx):
            return
        remap = np.full(len(L.vertices), -1)
        remap[vidx] = np.arange(len(vidx))
        fmask = vmask[L.faces].all(axis=1)
        self.lpoly = O.triangles(L.vertices[vidx], remap[L.faces[fmask]], L.colors[vidx], L.normals[vidx])
        O.set_input(self.live_actor, self.lpoly)

    def _roof(self, pose: CameraPose) -> None:
        for a in self.roof_actors:
            a.SetVisibility(not pose.cutaway)

    # -- passes
    def full(self, pose: CameraPose) -> np.ndarray:
        """One pass with everything (used while the camera moves).  Without FXAA: it costs more than
        the rest of the pass on llvmpipe, and the picture is in motion."""
        _set_camera(self.cam, pose)
        self._roof(pose)
        self._upload_baked(None)
        self.ren.SetUseFXAA(False)
        self.rw.Render()
        self.ren.SetUseFXAA(bool(self.aa))
        self.bg_key = None
        self.stats["full"] += 1
        w, h = self.size
        return O.read_pixels(self.rw, 0, 0, w, h, h, depth=False)[0].copy()

    def background(self, pose: CameraPose, moved: set[int], t: float) -> None:
        """Keep the cached background (architecture + people who stand still) valid for this pose.

        Items that moved join the live set; the background is re-rendered without them
        (colour + depth) when the pose or the live set changes.  Items of the live set
        still for a while are baked back in (at most once a second).
        """
        for k in moved:
            self.last_moved[k] = t
        self.bg_age += 1
        same = self.bg_key == pose.key()
        if same and moved <= self.live:
            stale = {k for k in self.live if t - self.last_moved.get(k, -1e9) > 1.0}
            if not stale or self.bg_age < 25:
                return
            self.live -= stale
        elif same:
            self.live |= moved
        else:
            self.live = set(moved)
        _set_camera(self.cam, pose)
        self._roof(pose)
        self._upload_baked(~self.layer.part_mask(self.live))
        self.rw.Render()
        w, h = self.size
        rgb, d = O.read_pixels(self.rw, 0, 0, w, h, h)
        self.bg_rgb, self.bg_key = rgb.copy(), pose.key()
        self.bg_limit = depth_limit(d)
        self.bg_age = 0
        self.stats["background"] += 1

    def composite(self, pose: CameraPose, moved: set[int], t: float = 0.0) -> np.ndarray:
        """The cached background with the live items drawn over it (supersampled, depth-tested)."""
        self.background(pose, moved, t)
        frame = self.bg_rgb.copy()
        if not self.live:
            return frame
        boxes = self.layer.screen_boxes(pose, self.size, self.live)
        if not boxes:
            return frame
        b = np.array(list(boxes.values()))
        union = (int(b[:, 0].min()), int(b[:, 1].min()), int(b[:, 2].max()), int(b[:, 3].max()))
        self._set_live_geometry()
        if not len(self.live_vidx):
            return frame
        O.upload(self.lpoly, *self.layer.subset_arrays(self.live_vidx))
        self._render_layer(pose, union)
        for cluster in _clusters(list(boxes.values())):
            self._blend(frame, cluster, union)
        return frame

    def _layer_window(self, bw: int, bh: int) -> tuple[int, int]:
        """Size the layer window for a box of bw × bh frame pixels (:data:`LAYER_WINDOWS`): larger at once when the
        box needs it, smaller after :data:`LAYER_SHRINK_AFTER` passes a smaller one would have held.  The
        pictures are the same in any of them (the viewport's pixels and projection are)."""
        w, h = self.size
        s = self.ss
        need = next(d for d in LAYER_WINDOWS if d == 1 or (bw * s <= w * s // d and bh * s <= h * s // d))
        if need < self.layer_div:
            self.layer_div, self.layer_fits = need, 0
        elif need > self.layer_div:
            self.layer_fits += 1
            if self.layer_fits >= LAYER_SHRINK_AFTER:
                self.layer_div, self.layer_fits = need, 0
        else:
            self.layer_fits = 0
        W, H = w * s // self.layer_div, h * s // self.layer_div
        if tuple(self.lrw.GetSize()) != (W, H):
            self.lrw.SetSize(W, H)
        return W, H

    def _render_layer(self, pose: CameraPose, union) -> None:
        """Draw the live items into a viewport of the union box × ss at the layer window's bottom-left,
        with the full frame's projection shifted onto that box."""
        x0, y0, x1, y1 = union
        w, h = self.size
        bw, bh = x1 - x0, y1 - y0
        s = self.ss
        cam = self.lcam
        _set_camera(cam, pose)
        W, H = self._layer_window(bw, bh)
        self.lren.SetViewport(0.0, 0.0, bw * s / W, bh * s / H)
        tan = math.tan(math.radians(pose.view_angle) / 2)
        cam.SetViewAngle(math.degrees(2 * math.atan(tan * bh / h)))
        vy0 = h - y1
        xc = (x0 + bw / 2) / w * 2 - 1
        yc = (vy0 + bh / 2) / h * 2 - 1
        cam.SetWindowCenter(xc * w / bw, yc * h / bh)
        self.lrw.Render()
        self.stats["layer"] += 1
        self.stats["layer_px"] += bw * bh

    def _blend(self, frame: np.ndarray, cluster, union) -> None:
        """Read one cluster of item boxes from the layer window and blend it over ``frame``."""
        cx0, cy0, cx1, cy1 = cluster
        x0, y0, _, y1 = union
        bh = y1 - y0
        s = self.ss
        H = self.lrw.GetSize()[1]
        # window rows/cols of this cluster inside the layer viewport (origin = union's top-left)
        rx0, ry0 = (cx0 - x0) * s, (cy0 - y0) * s
        rx1, ry1 = (cx1 - x0) * s, (cy1 - y0) * s
        rgb, d = O.read_pixels(self.lrw, rx0, H - bh * s + ry0, rx1, H - bh * s + ry1, H)
        self.stats["blend_px"] += (cx1 - cx0) * (cy1 - cy0)
        blend_over(frame[cy0:cy1, cx0:cx1], rgb, d, self.bg_limit[cy0:cy1, cx0:cx1], s)

    def close(self) -> None:
        self.lpl.close()
        self.pl.close()


def depth_limit(depth: np.ndarray) -> np.ndarray:
    """The deepest a live fragment may lie and still be drawn, per pixel of a background's depth: in front of
    what the background shows there (with a tolerance of 2e-6) and not the empty far plane (depth 1)."""
    return np.minimum(depth + np.float32(2e-6), np.nextafter(np.float32(1.0), np.float32(0.0)))


def blend_over(sub: np.ndarray, rgb: np.ndarray, d: np.ndarray, limit: np.ndarray, s: int) -> None:
    """Blend a supersampled block of the layer window over ``sub`` (h, w, 3 uint8, in place).

    ``rgb`` (h·s, w·s, 3) uint8 and ``d`` (h·s, w·s) float32: the layer's colour and depth; ``limit`` (h, w):
    :func:`depth_limit` of the background's depth.  A sample covers where ``d <= limit``; with ``s`` = 2
    each pixel becomes ``(bg·(4 − n) + sum of the n covered samples + 2) >> 2`` in integers, with ``s`` = 1
    a covered sample replaces the background.  One compiled pass over the block (numba): numpy's
    whole-array operations on three-channel pixels cost as much as the layer's rendering."""
    if s not in (1, 2):
        raise ValueError(f"supersampling {s} is not 1 or 2")
    _blend_kernel(sub, rgb, d, limit, s)


@numba.njit(cache=True, nogil=True)
def _blend_kernel(sub, rgb, d, limit, s):          # pragma: no cover — compiled; tested through blend_over
    h, w = limit.shape
    for y in range(h):
        for x in range(w):
            lim = limit[y, x]
            if s == 1:
                if d[y, x] <= lim:
                    sub[y, x, 0] = rgb[y, x, 0]
                    sub[y, x, 1] = rgb[y, x, 1]
                    sub[y, x, 2] = rgb[y, x, 2]
                continue
            n = 0
            c0 = 0
            c1 = 0
            c2 = 0
            for i in range(2):
                for j in range(2):
                    if d[2 * y + i, 2 * x + j] <= lim:
                        n += 1
                        c0 += rgb[2 * y + i, 2 * x + j, 0]
                        c1 += rgb[2 * y + i, 2 * x + j, 1]
                        c2 += rgb[2 * y + i, 2 * x + j, 2]
            if n:
                m = 4 - n
                sub[y, x, 0] = (np.int32(sub[y, x, 0]) * m + c0 + 2) >> 2
                sub[y, x, 1] = (np.int32(sub[y, x, 1]) * m + c1 + 2) >> 2
                sub[y, x, 2] = (np.int32(sub[y, x, 2]) * m + c2 + 2) >> 2


def _clusters(boxes: list[tuple[int, int, int, int]]) -> list[tuple[int, int, int, int]]:
    """Merge overlapping rectangles (x0, y0, x1, y1) until none overlap."""
    rs = [list(b) for b in boxes]
    merged = True
    while merged:
        merged = False
        out: list[list[int]] = []
        for r in rs:
            for q in out:
                if r[0] < q[2] and q[0] < r[2] and r[1] < q[3] and q[1] < r[3]:
                    q[0], q[1], q[2], q[3] = min(q[0], r[0]), min(q[1], r[1]), max(q[2], r[2]), max(q[3], r[3])
                    merged = True
                    break
            else:
                out.append(r)
        rs = out
    return [tuple(r) for r in rs]
