"""Render a plan (``xiangshe-plan/1``) to an H.264 video, faster than it plays. Never re-plans.

Design for speed on a 2-core CPU with software GL (llvmpipe), where every full-frame
pass costs, and VTK's FXAA is the biggest full-frame cost:

* **Static background cached per camera pose.**  While the camera holds (most of the
  time), the architecture and everyone standing still are rendered once (colour +
  depth, FXAA) and reused; people who stopped moving are baked back in now and then.
* **Only what moves is drawn per frame, small and supersampled.**  The moving people and
  props are one vertex-coloured mesh (only their parts), posed in numpy, drawn in a
  second off-screen window at twice the resolution over just their screen rectangle
  (the projection shifted so it matches the full frame), without FXAA; each 2x2 block
  is averaged into coverage and colour and blended over the cached frame with a depth
  test against the cached depth (architecture in front of a person still hides him).
  That is 4x supersampling where it matters, at a fraction of a full pass.
* **Identical frames are reused.**  When nothing visible moves, nothing is re-rendered;
  only captions and the timeline are redrawn.  Long holds can be played faster
  (``compress_holds``, on by default: a "≫" marker shows it).
* During camera moves a single full pass is drawn.
* Frames are streamed to ffmpeg (libx264, yuv420p, High profile, +faststart), which
  encodes in its own process, into a temporary file renamed when complete.
"""
from __future__ import annotations

import math
import os
import time
from pathlib import Path

os.environ.setdefault("VTK_DEFAULT_OPENGL_WINDOW", "vtkEGLRenderWindow")

import numpy as np  # noqa: E402

from . import captions as C  # noqa: E402
from ..scene import figures as F  # noqa: E402
from ..model.plan import Plan  # noqa: E402
from ..scene.sampler import PlanSampler  # noqa: E402
from ..scene.shots import CameraPath, CameraPose, plan_shots, project  # noqa: E402

__all__ = ["render_video", "render_frames", "PlanSampler", "MovingLayer", "FrameRenderer", "resolve_range",
           "frame_times", "hold_times", "short_name", "place_labels", "TITLE_S", "END_S",
           "ROOF_NODES", "default_workers"]

TITLE_S = 4.0
END_S = 3.0
SUN_DIR = (0.55, -0.45, 0.70)     # towards the sun: south-east, high
_SUN = "#fff0d6"
_FILL = "#d8e2f0"
# ground nodes hidden in shots of the hall (``CameraPose.cutaway``): the roof, its rafters, the ridge
ROOF_NODES = ("L_wu", "L_dongrong", "L_xirong", "L_wu_chuan", "L_dong", "L_houmei")
SS = 2                  # supersampling of the moving layer (per axis; 2 or 1)


def _across_palms(world: dict, heading: float) -> np.ndarray:
    """World 4x4 of an unstrung bow lying across both palms, its length side to side."""
    both = (F.hand_position(world, "l") + F.hand_position(world, "r")) / 2
    a = math.radians(-heading)
    yaw = np.array([[math.cos(a), -math.sin(a), 0], [math.sin(a), math.cos(a), 0], [0, 0, 1.0]])
    ry = np.array([[0, 0, 1.0], [0, 1.0, 0], [-1.0, 0, 0]])          # +90° about y: the bow's z → x
    M = np.eye(4)
    M[:3, :3] = yaw @ ry
    M[:3, 3] = both + np.array([0, 0, 0.03])
    return M


def resolve_range(plan: Plan, start=None, end=None) -> tuple[float, float]:
    """Plan seconds of an excerpt: ``start``/``end`` as seconds (float), a footnote number (int)
    or an event id (str); None = the beginning / the end."""
    return plan.time_of(start), plan.time_of(end, end=True)


def frame_times(t0: float, t1: float, fps: float, speed: float = 1.0) -> np.ndarray:
    """Plan times of the frames between ``t0`` and ``t1`` (played ``speed`` times faster)."""
    n = max(1, int(round((t1 - t0) / speed * fps)))
    return t0 + np.arange(n) * (speed / fps)


# ---------------------------------------------------------------------------
# the moving layer: every person and prop in one mesh

class MovingLayer:
    """All figures and props of a plan as one vertex-coloured mesh, posed per frame in numpy."""

    def __init__(self, sampler: PlanSampler):
        self.sampler = sampler
        self.items: list[tuple[str, str]] = []          # (kind "actor"/"prop"/"virtual", id)
        geoms = []
        self.virtual: dict[tuple[str, str], int] = {}   # (actor, held kind) → item index
        for aid in sampler.actors:
            self.items.append(("actor", aid))
            geoms.append(F.figure_geometry(aid))
        for pid in sampler.props:
            self.items.append(("prop", pid))
            geoms.append(F.prop_geometry(pid))
        # things held according to the actors' states that the plan does not track as props
        for aid in sampler.actors:
            for st in sampler.states(aid):
                for h in st.get("holding") or []:
                    if h not in sampler.props and (aid, h) not in self.virtual:
                        self.virtual[(aid, h)] = len(self.items)
                        self.items.append(("virtual", f"{aid}:{h}"))
                        geoms.append(F.prop_geometry(h))
        # every bow also has its unstrung shape; one of the two is shown at a time
        self.unstrung: dict[int, int] = {}              # item index of a bow → item index of its unstrung twin
        for k, (kind, ident) in list(enumerate(self.items)):
            if kind != "actor" and F.prop_kind(ident.split(":")[-1]) == "弓":
                self.unstrung[k] = len(self.items)
                self.items.append(("unstrung", ident))
                geoms.append(F.prop_geometry(ident.split(":")[-1], strung=False))
        self.part_start = np.cumsum([0] + [len(g.parts) for g in geoms])
        vs, ns, cs, fs, gi = [], [], [], [], []
        off = 0
        for k, g in enumerate(geoms):
            vs.append(g.vertices)
            ns.append(g.normals)
            cs.append(g.colors)
            fs.append(g.faces + off)
            gi.append(g.part_index + self.part_start[k])
            off += len(g.vertices)
        self.vertices = np.vstack(vs)
        self.normals = np.vstack(ns)
        self.colors = np.vstack(cs)
        self.faces = np.vstack(fs)
        self.part_of_vertex = np.concatenate(gi)
        self.n_parts = int(self.part_start[-1])
        self.item_of_part = np.repeat(np.arange(len(self.items)), np.diff(self.part_start))
        # tall things reach far beyond their origin: (item, [local points]) for the screen boxes
        self.reach = {k: np.array([[0, 0, 5.6, 1.0], [0, 0, -0.8, 1.0]]) for k, (kind, ident) in enumerate(self.items)
                      if kind != "actor" and F.prop_kind(ident.split(":")[-1]) in ("旌", "侯")}
        self.matrices = np.zeros((self.n_parts, 4, 4))
        self._cache: dict[str, tuple] = {}
        self.heads: dict[str, np.ndarray] = {}

    def update(self, t: float) -> set[int]:
        """Pose everything at plan time ``t``; returns the indices of the items that moved since the last call."""
        s = self.sampler
        carried: dict[str, list[str]] = {}
        carrier_of: dict[str, str] = {}
        for pid in s.props:
            c = s.carrier_of(pid, t)
            if c in s.actors:
                carried.setdefault(c, []).append(pid)
                carrier_of[pid] = c
        changed: set[int] = set()
        worlds: dict[str, dict] = {}
        headings: dict[str, float] = {}
        holding_of: dict[str, list[str]] = {}
        for k, (kind, ident) in enumerate(self.items):
            if kind != "actor":
                continue
            xyz, hd, params, state = s.actor_pose(ident, t, carried.get(ident))
            holding = list(state.get("holding") or [])
            for pid in holding:
                if pid in s.props and pid not in carrier_of:
                    carrier_of[pid] = ident
            sig = (tuple(np.round(xyz, 4)), round(hd, 3), tuple(round(v, 4) for v in params.values()),
                   bool(state.get("bare_left_arm")), bool(state.get("gear")), tuple(holding))
            cached = self._cache.get(ident)
            if cached is None or cached[0] != sig:
                w = F.world_transforms(*xyz, hd, params=params, state=state)
                arr = np.stack([w[p] for p in F.PARTS])
                self.matrices[self.part_start[k]:self.part_start[k + 1]] = arr
                self._cache[ident] = (sig, w)
                self.heads[ident] = (w["head"] @ np.array([0, 0, 0.3, 1.0]))[:3]
                changed.add(k)
            worlds[ident] = self._cache[ident][1]
            headings[ident] = hd
            holding_of[ident] = holding
        zero = np.diag([0.0, 0.0, 0.0, 1.0])
        alt_m: dict[int, np.ndarray] = {}
        for k, (kind, ident) in enumerate(self.items):
            if kind == "actor":
                continue
            if kind == "unstrung":
                M = alt_m.get(k, zero)
            else:
                holder = None
                if kind == "prop":
                    c = carrier_of.get(ident)
                    if c is not None:
                        holder = c
                        M = F.held_prop_transform(ident, worlds[c], headings[c],
                                                  holding_of.get(c, []) + carried.get(c, []))
                    else:
                        xyz, hd, _, _ = s.position(s.props[ident], t)
                        M = F.root_transform(*xyz, hd)
                else:
                    aid, h = ident.split(":", 1)
                    held = h in holding_of.get(aid, [])
                    holder = aid if held else None
                    M = F.held_prop_transform(h, worlds[aid], headings[aid], holding_of[aid]) if held else zero
                if k in self.unstrung:
                    if holder is not None and s.state(holder, t).get("bow") == "unstrung":
                        alt_m[self.unstrung[k]] = _across_palms(worlds[holder], headings[holder])
                        M = zero
                    else:
                        alt_m[self.unstrung[k]] = zero
            j = self.part_start[k]
            if not np.array_equal(self.matrices[j], M):
                self.matrices[j] = M
                changed.add(k)
        return changed

    def screen_boxes(self, pose: CameraPose, size, items) -> dict[int, tuple[int, int, int, int]]:
        """Screen rectangles (x0, y0, x1, y1), clipped to the frame, of the given items; items off
        screen or hidden are left out."""
        items = [k for k in items if k < len(self.items)]
        if not items:
            return {}
        mask = self.part_mask(items)
        M = self.matrices[mask]
        own = self.item_of_part[mask]
        vis = np.abs(M[:, :3, :3]).sum(axis=(1, 2)) > 1e-9
        M, own = M[vis], own[vis]
        pts = [M[:, :3, 3]]
        owners = [own]
        for k in items:
            if k in self.reach:
                Mk = self.matrices[self.part_start[k]]
                if np.abs(Mk[:3, :3]).sum() > 1e-9:
                    pts.append((Mk @ self.reach[k].T).T[:, :3])
                    owners.append(np.full(len(self.reach[k]), k))
        P = np.vstack(pts)
        O = np.concatenate(owners)
        if not len(P):
            return {}
        px, depth = project(pose, P, size)
        w, h = size
        f = (h / 2) / math.tan(math.radians(pose.view_angle) / 2)
        r = f * 0.55 / np.maximum(depth, 0.5) + 3               # a part reaches < 0.55 m from its joint
        out = {}
        ok = ~np.isnan(px[:, 0]) & (depth > 0.2)
        for k in np.unique(O):
            sel = (O == k) & ok
            if not sel.any():
                continue
            x0 = int(np.floor((px[sel, 0] - r[sel]).min()))
            x1 = int(np.ceil((px[sel, 0] + r[sel]).max()))
            y0 = int(np.floor((px[sel, 1] - r[sel]).min()))
            y1 = int(np.ceil((px[sel, 1] + r[sel]).max()))
            x0, y0, x1, y1 = max(0, x0), max(0, y0), min(w, x1), min(h, y1)
            if x1 - x0 >= 1 and y1 - y0 >= 1:
                out[int(k)] = (x0, y0, x1, y1)
        return out

    def part_mask(self, items) -> np.ndarray:
        """Boolean mask over parts of the given item indices."""
        m = np.zeros(self.n_parts, bool)
        for k in items:
            m[self.part_start[k]:self.part_start[k + 1]] = True
        return m

    def world_arrays(self, parts: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        """Posed vertices and normals (n, 3) from the current matrices; parts outside the mask collapse."""
        M = self.matrices
        if parts is not None:
            M = M.copy()
            M[~parts] = 0.0
        R = M[:, :3, :3]
        cof = np.stack([np.cross(R[:, 1], R[:, 2]), np.cross(R[:, 2], R[:, 0]), np.cross(R[:, 0], R[:, 1])], axis=1)
        pv_ = self.part_of_vertex
        V = np.einsum("nij,nj->ni", R[pv_], self.vertices) + M[pv_, :3, 3]
        N = np.einsum("nij,nj->ni", cof[pv_], self.normals)
        N /= np.maximum(np.linalg.norm(N, axis=1, keepdims=True), 1e-12)
        return V, N

    def subset_arrays(self, vidx: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Posed vertices and normals of the vertices ``vidx`` only."""
        M = self.matrices
        R = M[:, :3, :3]
        pv_ = self.part_of_vertex[vidx]
        V = np.einsum("nij,nj->ni", R[pv_], self.vertices[vidx]) + M[pv_, :3, 3]
        cof = np.stack([np.cross(R[:, 1], R[:, 2]), np.cross(R[:, 2], R[:, 0]), np.cross(R[:, 0], R[:, 1])], axis=1)
        N = np.einsum("nij,nj->ni", cof[pv_], self.normals[vidx])
        N /= np.maximum(np.linalg.norm(N, axis=1, keepdims=True), 1e-12)
        return V, N


# ---------------------------------------------------------------------------
# the renderer

class FrameRenderer:
    """Two persistent off-screen VTK scenes: the full frame (static meshes and everyone, FXAA, cached
    per camera pose) and the moving layer (only what moves, supersampled over its screen box)."""

    def __init__(self, static_meshes, layer: MovingLayer, size=(1280, 720), aa: bool = True,
                 sky=("#c9d3d6", "#8fa6b8")):
        import pyvista as pv
        import vtk
        from vtk.util.numpy_support import vtk_to_numpy
        self._pv, self._vtk, self._v2n = pv, vtk, vtk_to_numpy
        self.size = tuple(int(v) for v in size)
        w, h = self.size
        self.aa = aa
        self.ss = SS if aa else 1

        def plotter(win, fxaa):
            pl = pv.Plotter(off_screen=True, window_size=win, lighting="none")
            pl.disable_anti_aliasing()
            pl.renderer.SetUseFXAA(bool(fxaa))
            pl.set_background(sky[0], top=sky[1])
            sun = pv.Light(light_type="scene light", intensity=0.95, color=_SUN)
            sun.positional = False
            sun.position = tuple(100 * v for v in SUN_DIR)
            sun.focal_point = (0, 0, 0)
            pl.add_light(sun)
            pl.add_light(pv.Light(light_type="headlight", intensity=0.28, color=_FILL))
            return pl

        pl = plotter(self.size, aa)
        self.static_actors, self.roof_actors = [], []
        for name, mesh, rgb in static_meshes:
            pm = pv.wrap(mesh) if not isinstance(mesh, pv.DataSet) else mesh
            col = rgb if isinstance(rgb, str) else tuple(float(c) / (255.0 if max(rgb) > 1 else 1.0) for c in rgb)
            a = pl.add_mesh(pm, color=col, ambient=0.32, diffuse=0.72, specular=0.0, name=f"static:{name}",
                            smooth_shading=False, reset_camera=False)
            self.static_actors.append(a)
            if name in ROOF_NODES:
                self.roof_actors.append(a)
        self.layer = layer
        self.poly = pv.PolyData(layer.vertices.copy(), np.c_[np.full(len(layer.faces), 3), layer.faces].ravel())
        self.poly.point_data["rgb"] = layer.colors
        self.poly.point_data["Normals"] = layer.normals.copy()
        self.poly.point_data.active_normals_name = "Normals"
        self.baked_actor = pl.add_mesh(self.poly, scalars="rgb", rgb=True, ambient=0.34, diffuse=0.72, specular=0.0,
                                       smooth_shading=True, name="baked", reset_camera=False)
        self.pl = pl
        pl.show(auto_close=False)
        self.ren, self.rw = pl.renderer, pl.ren_win
        self.cam = pl.renderer.GetActiveCamera()
        # the moving layer's own window, ss times the frame, no FXAA
        lpl = plotter((w * self.ss, h * self.ss), False)
        self.lpoly = pv.PolyData(np.zeros((3, 3)), np.array([3, 0, 1, 2]))
        self.lpoly.point_data["rgb"] = np.zeros((3, 3), np.uint8)
        self.lpoly.point_data["Normals"] = np.tile([0, 0, 1.0], (3, 1))
        self.lpoly.point_data.active_normals_name = "Normals"
        self.live_actor = lpl.add_mesh(self.lpoly, scalars="rgb", rgb=True, ambient=0.34, diffuse=0.72,
                                       specular=0.0, smooth_shading=True, name="live", reset_camera=False)
        self.lpl = lpl
        lpl.show(auto_close=False)
        self.lren, self.lrw = lpl.renderer, lpl.ren_win
        self.lcam = lpl.renderer.GetActiveCamera()
        self.live: set[int] = set()              # items drawn per frame (the rest is baked into the background)
        self.live_vidx = np.zeros(0, int)
        self.live_key = None
        self.last_moved: dict[int, float] = {}
        self.bg_key = None
        self.bg_rgb = None
        self.bg_depth = None
        self.bg_age = 0
        self.stats = {"full": 0, "layer": 0, "background": 0, "reused": 0}

    # -- low level
    @staticmethod
    def _camera(cam, pose: CameraPose, near=0.5, far=600.0) -> None:
        cam.SetPosition(*pose.eye)
        cam.SetFocalPoint(*pose.target)
        cam.SetViewUp(*pose.up)
        cam.SetViewAngle(pose.view_angle)
        cam.SetWindowCenter(0.0, 0.0)
        cam.SetClippingRange(near, far)

    def _read(self, rw, x0, y0, x1, y1, win_h, depth=True):
        """RGB (and depth) of a window rectangle given in top-left pixel coordinates [x0, x1) × [y0, y1)."""
        vx0, vy0, vx1, vy1 = x0, win_h - y1, x1 - 1, win_h - y0 - 1
        arr = self._vtk.vtkUnsignedCharArray()
        rw.GetPixelData(vx0, vy0, vx1, vy1, 0, arr, 0)
        rgb = self._v2n(arr).reshape(y1 - y0, x1 - x0, 3)[::-1]
        if not depth:
            return rgb, None
        z = self._vtk.vtkFloatArray()
        rw.GetZbufferData(vx0, vy0, vx1, vy1, z)
        return rgb, self._v2n(z).reshape(y1 - y0, x1 - x0)[::-1]

    def _upload_baked(self, parts: np.ndarray | None) -> None:
        _upload(self.poly, *self.layer.world_arrays(parts))

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
        faces = remap[L.faces[fmask]]
        pv = self._pv
        poly = pv.PolyData(L.vertices[vidx].copy(), np.c_[np.full(len(faces), 3), faces].ravel())
        poly.point_data["rgb"] = L.colors[vidx]
        poly.point_data["Normals"] = L.normals[vidx].copy()
        poly.point_data.active_normals_name = "Normals"
        self.lpoly = poly
        self.live_actor.mapper.SetInputData(poly)

    def _roof(self, pose: CameraPose) -> None:
        for a in self.roof_actors:
            a.SetVisibility(not pose.cutaway)

    # -- passes
    def full(self, pose: CameraPose) -> np.ndarray:
        """One pass with everything (used while the camera moves).  Without FXAA: it costs more than
        the rest of the pass on llvmpipe, and the picture is in motion."""
        self._camera(self.cam, pose)
        self._roof(pose)
        self._upload_baked(None)
        self.ren.SetUseFXAA(False)
        self.rw.Render()
        self.ren.SetUseFXAA(bool(self.aa))
        self.bg_key = None
        self.stats["full"] += 1
        w, h = self.size
        return self._read(self.rw, 0, 0, w, h, h, depth=False)[0].copy()

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
        self._camera(self.cam, pose)
        self._roof(pose)
        self._upload_baked(~self.layer.part_mask(self.live))
        self.rw.Render()
        w, h = self.size
        rgb, d = self._read(self.rw, 0, 0, w, h, h)
        self.bg_rgb, self.bg_depth, self.bg_key = rgb.copy(), d.copy(), pose.key()
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
        x0, y0 = int(b[:, 0].min()), int(b[:, 1].min())
        x1, y1 = int(b[:, 2].max()), int(b[:, 3].max())
        w, h = self.size
        bw, bh = x1 - x0, y1 - y0
        s = self.ss
        self._set_live_geometry()
        if not len(self.live_vidx):
            return frame
        _upload(self.lpoly, *self.layer.subset_arrays(self.live_vidx))
        # a viewport of bw*s × bh*s at the window's bottom-left, with the full frame's projection
        cam = self.lcam
        self._camera(cam, pose)
        W, H = w * s, h * s
        self.lren.SetViewport(0.0, 0.0, bw * s / W, bh * s / H)
        tan = math.tan(math.radians(pose.view_angle) / 2)
        cam.SetViewAngle(math.degrees(2 * math.atan(tan * bh / h)))
        vy0 = h - y1
        xc = (x0 + bw / 2) / w * 2 - 1
        yc = (vy0 + bh / 2) / h * 2 - 1
        cam.SetWindowCenter(xc * w / bw, yc * h / bh)
        self.lrw.Render()
        self.stats["layer"] += 1
        # read and blend only the clusters of item boxes (the union is mostly empty)
        for cx0, cy0, cx1, cy1 in _clusters(list(boxes.values())):
            # window rows/cols of this cluster inside the layer viewport (origin = union's top-left)
            rx0, ry0 = (cx0 - x0) * s, (cy0 - y0) * s
            rx1, ry1 = (cx1 - x0) * s, (cy1 - y0) * s
            rgb, d = self._read(self.lrw, rx0, H - bh * s + ry0, rx1, H - bh * s + ry1, H)
            bgd = self.bg_depth[cy0:cy1, cx0:cx1]
            if s > 1:
                bgd = np.repeat(np.repeat(bgd, s, axis=0), s, axis=1)
            cov = (d < 1.0) & (d <= bgd + 2e-6)
            if not cov.any():
                continue
            sub = frame[cy0:cy1, cx0:cx1]
            if s == 2:
                # 2x2 blocks → coverage count n (0..4) and the sum of covered colours; then
                # out = bg·(1 − n/4) + sum/4, in integers
                c16 = cov.astype(np.uint16)
                prem = rgb.astype(np.uint16) * c16[..., None]
                csum = prem[0::2, 0::2] + prem[1::2, 0::2] + prem[0::2, 1::2] + prem[1::2, 1::2]
                n = c16[0::2, 0::2] + c16[1::2, 0::2] + c16[0::2, 1::2] + c16[1::2, 1::2]
                sub[:] = ((sub.astype(np.uint16) * (4 - n)[..., None] + csum + 2) >> 2).astype(np.uint8)
            else:
                sub[cov] = rgb[cov]
        return frame

    def close(self) -> None:
        self.lpl.close()
        self.pl.close()


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


# ---------------------------------------------------------------------------
# labels

_SHORTEN = ((" of the body of guests", ""), ("first pair, ", "pair 1, "), ("second pair, ", "pair 2, "),
            ("third pair, ", "pair 3, "), ("mouth-organ player", "mouth-organ"))


def short_name(aid: str, label: str | None = None) -> str:
    """A short tag for an actor: its id (Chinese) and the English label without parentheses."""
    en = (label or "").split(" (")[0].strip()
    for a, b in _SHORTEN:
        en = en.replace(a, b)
    if not en or en == aid:
        return aid
    return f"{aid} {en}"


def place_labels(frame: np.ndarray, anchors: list[tuple[str, float, float, float]], font_px: int,
                 bottom: int | None = None, avoid: list[tuple[float, float, float, float]] = ()) -> list:
    """Greedy label placement: each anchor ``(text, x, y, priority)`` (x, y: the top of a head) gets a
    tag at the first free spot among a few candidates around and above it, inside the frame and
    above ``bottom``; a leader line joins tag and head when the tag sits away from it.  Tags that
    find no room are dropped.  Returns the placed rectangles [(x0, y0, x1, y1, text)]."""
    h, w = frame.shape[:2]
    bottom = h if bottom is None else bottom
    placed: list[tuple[float, float, float, float]] = list(avoid)
    heads = [(x, y) for _, x, y, _ in anchors]
    out = []
    for text, x, y, _ in sorted(anchors, key=lambda a: -a[3]):
        if not (0 <= x < w and 0 <= y < bottom):
            continue
        spr = C.label_sprite(text, font_px)
        sh, sw = spr.shape[:2]
        g = max(4, font_px // 2)
        cands = [(x - sw / 2, y - g - sh), (x + g, y - g - sh), (x - sw - g, y - g - sh),
                 (x - sw / 2, y - 2.6 * g - 2 * sh), (x + g, y - 2.6 * g - 2 * sh), (x - sw - g, y - 2.6 * g - 2 * sh),
                 (x + 2 * g, y - sh / 2), (x - sw - 2 * g, y - sh / 2),
                 (x - sw / 2, y - 4 * g - 3 * sh)]
        for cx, cy in cands:
            r = (cx, cy, cx + sw, cy + sh)
            if r[0] < 2 or r[1] < 2 or r[2] > w - 2 or r[3] > bottom - 2:
                continue
            if any(r[0] < q[2] + 3 and q[0] < r[2] + 3 and r[1] < q[3] + 3 and q[1] < r[3] + 3 for q in placed):
                continue
            # do not cover another person's head
            if any(r[0] - 2 < hx < r[2] + 2 and r[1] - 2 < hy < r[3] + 6 and (hx, hy) != (x, y) for hx, hy in heads):
                continue
            placed.append(r)
            # leader from the head to the tag's nearest point
            nx = min(max(x, r[0]), r[2])
            ny = min(max(y, r[1]), r[3])
            if math.hypot(nx - x, ny - y) > g * 0.9:
                _line(frame, x, y - 1, nx, ny)
            C.blit_rgba(frame, spr, (r[0] + r[2]) / 2, r[3])
            out.append((*r, text))
            break
    return out


def _line(frame: np.ndarray, x0: float, y0: float, x1: float, y1: float, color=(250, 244, 230)) -> None:
    """A thin light leader line with a dark edge (numpy, no PIL)."""
    n = int(max(abs(x1 - x0), abs(y1 - y0))) + 1
    xs = np.linspace(x0, x1, n)
    ys = np.linspace(y0, y1, n)
    h, w = frame.shape[:2]
    for dx, dy, col in ((1, 1, (25, 20, 15)), (0, 0, color)):
        xi = np.clip(np.round(xs + dx).astype(int), 0, w - 1)
        yi = np.clip(np.round(ys + dy).astype(int), 0, h - 1)
        frame[yi, xi] = col
    # a dot on the head
    yi, xi = int(round(y0)), int(round(x0))
    frame[max(0, yi - 1):yi + 2, max(0, xi - 1):xi + 2] = color


# ---------------------------------------------------------------------------
# long holds

def hold_times(plan: Plan, path: CameraPath | None, t0: float, t1: float, fps: float, speed: float = 1.0,
               hold_after: float | None = 6.0, hold_speed: float = 8.0, size=(1280, 720),
               sampler: "PlanSampler | None" = None) -> tuple[np.ndarray, np.ndarray]:
    """Plan times of the video frames between ``t0`` and ``t1``, and how much faster each plays.

    Frames advance ``speed/fps`` plan seconds; in a hold — nobody in the frame moves, the camera
    holds — longer than ``hold_after`` s, the middle of it (after 1.5 s, before the last 1 s, and
    never in the first 3 s of an event, so captions can be read) advances ``hold_speed`` times
    faster.  ``hold_after=None``: no compression (= :func:`frame_times`).
    """
    base = frame_times(t0, t1, fps, speed)
    if hold_after is None or hold_speed <= 1.0 or t1 - t0 <= hold_after:
        return base, np.ones(len(base))
    sampler = sampler or PlanSampler(plan)
    step = 0.2
    ts = np.arange(t0, t1 + step, step)
    n = len(ts)
    # who moves when
    act = {}
    for aid in sampler.actors:
        a = np.zeros(n, bool)
        for u0, u1 in sampler.active_intervals(aid):
            i0, i1 = np.searchsorted(ts, u0 - step), np.searchsorted(ts, u1 + step)
            a[i0:i1] = True
        if a.any():
            act[aid] = a
    busy = np.zeros(n, bool)          # (props move only in someone's hands: their carriers count)
    for e in plan.events:
        busy[np.searchsorted(ts, e.start - step):np.searchsorted(ts, e.start + 3.0)] = True
    ids = list(act)
    for i, t in enumerate(ts):
        if busy[i]:
            continue
        movers = [a for a in ids if act[a][i]]
        if not movers:
            continue
        if path is None:
            busy[i] = True
            continue
        if path.moving(float(t)):
            busy[i] = True
            continue
        pose = path.at(float(t))
        P = np.array([sampler.position(sampler.actors[a], float(t))[0] for a in movers])
        px, depth = project(pose, np.vstack([P, P + [0, 0, 1.7]]), size)
        w, h = size
        inside = (~np.isnan(px[:, 0])) & (px[:, 0] > -20) & (px[:, 0] < w + 20) & (px[:, 1] > -20) & (px[:, 1] < h + 20)
        busy[i] = bool(inside.any())
    if path is not None:
        for k, s in enumerate(path.shots):
            d = path.moves[k] if k < len(path.moves) else 0.0
            busy[np.searchsorted(ts, s.t0 - step):np.searchsorted(ts, s.t0 + max(d, 0.0) + step)] = True
    # fast stretches: the middle of idle runs longer than hold_after
    fast = np.zeros(n, bool)
    i = 0
    while i < n:
        if busy[i]:
            i += 1
            continue
        j = i
        while j < n and not busy[j]:
            j += 1
        if (j - i) * step > hold_after:
            a = i + int(round(1.5 / step))
            b = j - int(round(1.0 / step))
            fast[a:b] = True
        i = j
    times, rate = [], []
    t = t0
    dt = speed / fps
    while t < t1 - 1e-9:
        k = min(n - 1, int((t - t0) / step))
        r = hold_speed if fast[k] else 1.0
        times.append(t)
        rate.append(r)
        t += dt * r
    return np.array(times), np.array(rate)


# ---------------------------------------------------------------------------
# the video

class _Pipeline:
    """Everything that turns a plan time into a finished frame: camera, renderer, labels, captions."""

    def __init__(self, plan, static_meshes, size, path, labels, glosses, aa, t0, t1):
        self.plan = plan
        self.size = size
        self.path = path
        self.labels = labels
        self.glosses = glosses or {}
        self.t0, self.t1 = t0, t1
        self.events = plan.events_by_start()
        self.sampler = PlanSampler(plan)
        self.layer = MovingLayer(self.sampler)
        self.names = {aid: short_name(aid, a.label) for aid, a in plan.actors.items()}
        self.renderer = FrameRenderer(static_meshes, self.layer, size, aa=aa)
        self.bands: dict = {}
        self.last3d, self.last_key = None, None
        self.layer_primed = False
        self.band_top = size[1] - int(size[1] * 0.2)

    def prime(self, t: float) -> None:
        self.layer.update(t)
        self.layer_primed = True

    def frame(self, t: float, t_next: float, rate: float = 1.0) -> np.ndarray:
        pose = self.path.at(t)
        moved = self.layer.update(t)
        key = pose.key()
        r = self.renderer
        if moved and self.last3d is not None and key == self.last_key:
            # movers off screen do not change the picture
            boxes = self.layer.screen_boxes(pose, self.size, moved)
            if not boxes:
                r.last_moved.update({k: t for k in moved})
                moved = set()
        if self.last3d is not None and not moved and key == self.last_key:
            img = self.last3d
            r.stats["reused"] += 1
        else:
            nxt = self.path.at(t_next).key()
            img = r.composite(pose, moved, t) if nxt == key else r.full(pose)
            self.last3d, self.last_key = img, key
        frame = img.copy()
        shot = self.path.shot_at(t)
        acting = self._acting(t)
        if self.labels or shot.kind == "plan":
            self._draw_labels(frame, pose, None, acting)
        else:
            self._draw_labels(frame, pose, acting, acting)
        ev = self.plan.current_event(t, events=self.events)
        if ev is not None:
            bk = ev.id
            if bk not in self.bands:
                if len(self.bands) > 32:
                    self.bands.clear()
                self.bands[bk] = C.CaptionBand.draw(self.size, ev.text, self.glosses.get(ev.id) or ev.gloss, ev.footnote)
            self.bands[bk].apply(frame)
        C.draw_timeline(frame, (t - self.t0) / max(1e-9, self.t1 - self.t0))
        if rate > 1.0:
            C.draw_fast_marker(frame, rate)
        return frame

    def _acting(self, t: float) -> list[str]:
        out = []
        for e in self.events:
            if e.start > t:
                break
            if t < e.end + 0.5:
                out += [a for a in e.actors if a in self.layer.heads]
        return list(dict.fromkeys(out))

    def _draw_labels(self, frame, pose, only, acting) -> None:
        ids = [a for a in self.layer.heads if only is None or a in only]
        if not ids:
            return
        px, depth = project(pose, np.array([self.layer.heads[i] for i in ids]), self.size)
        h = self.size[1]
        fs = max(9, int(round(h * (0.021 if only is None else 0.025))))
        anchors = []
        for k, aid in enumerate(ids):
            if np.isnan(px[k, 0]) or depth[k] <= 0:
                continue
            pri = (2.0 if aid in acting else 1.0) - depth[k] * 1e-3
            anchors.append((self.names.get(aid, aid), float(px[k, 0]), float(px[k, 1]), pri))
        place_labels(frame, anchors, fs, bottom=self.band_top)

    def close(self):
        self.renderer.close()


def _open_writer(path, fps, crf, preset, size):
    import imageio.v2 as imageio
    w, h = size
    mbs = 8 if (w % 8 == 0 and h % 8 == 0) else 2
    return imageio.get_writer(
        str(path), format="FFMPEG", mode="I", fps=fps, codec="libx264", quality=None, macro_block_size=mbs,
        pixelformat="yuv420p", ffmpeg_log_level="error",
        ffmpeg_params=["-profile:v", "high", "-crf", str(int(crf)), "-preset", preset, "-movflags", "+faststart"])


def _render_chunk(plan, static_meshes, out, size, fps, crf, preset, path, labels, glosses, aa, t0, t1, times, rates,
                  speed, title: bool, end: bool, frames_dir, frame0: int, report=None) -> dict:
    """Render frames ``times`` (with the title card before / end card after when asked) to ``out``.
    ``report(n)`` is called with the number of frames written since the last call."""
    import imageio.v2 as imageio
    writer = _open_writer(out, fps, crf, preset, size)
    pipe = None
    k_out = frame0
    pending = 0

    def emit(frame: np.ndarray) -> None:
        nonlocal k_out, pending
        writer.append_data(frame)
        if frames_dir is not None:
            imageio.imwrite(Path(frames_dir) / f"frame_{k_out:06d}.png", frame)
        k_out += 1
        pending += 1
        if report is not None and pending >= 10:
            report(pending)
            pending = 0

    try:
        if title:
            card = C.title_card(size, plan)
            for _ in range(int(round(TITLE_S * fps))):
                emit(card)
        if len(times):
            pipe = _Pipeline(plan, static_meshes, size, path, labels, glosses, aa, t0, t1)
            pipe.prime(float(times[0]) - speed / fps)      # the first frame's "moved" is then real
            for i, t in enumerate(times):
                t_next = float(times[i + 1]) if i + 1 < len(times) else float(t) + speed / fps
                emit(pipe.frame(float(t), t_next, float(rates[i])))
        if end:
            card = C.end_card(size, plan)
            for _ in range(int(round(END_S * fps))):
                emit(card)
        writer.close()
        writer = None
    finally:
        if writer is not None:
            try:
                writer.close()
            except Exception:
                pass
        if report is not None and pending:
            report(pending)
        stats = dict(pipe.renderer.stats) if pipe is not None else {}
        if pipe is not None:
            pipe.close()
    return stats


def _chunk_worker(args, queue) -> None:
    """A worker process: render one chunk, report progress and the result through ``queue``."""
    try:
        st = _render_chunk(*args, report=lambda n: queue.put(("n", n)))
        queue.put(("done", st))
    except BaseException as e:                     # noqa: BLE001 — passed on to the parent
        queue.put(("error", f"{type(e).__name__}: {e}"))


def _concat(parts: list[Path], out: Path) -> None:
    """Join mp4 chunks (same encoder settings) without re-encoding, +faststart."""
    import subprocess

    import imageio_ffmpeg
    lst = out.with_name(out.name + ".txt")
    lst.write_text("".join(f"file '{p.resolve()}'\n" for p in parts), encoding="utf-8")
    try:
        subprocess.run([imageio_ffmpeg.get_ffmpeg_exe(), "-v", "error", "-y", "-f", "concat", "-safe", "0", "-i", str(lst),
                        "-c", "copy", "-movflags", "+faststart", "-f", "mp4", str(out)], check=True)
    finally:
        lst.unlink(missing_ok=True)


def default_workers(n_frames: int) -> int:
    """Parallel render processes: one per core (at most 2 — the encoders need CPU too), and only
    for renders long enough to pay for the set-up."""
    return max(1, min(2, os.cpu_count() or 1)) if n_frames >= 300 else 1


def _upload(poly, V: np.ndarray, N: np.ndarray) -> None:
    """Write new vertex positions and normals into a polydata in place and mark it changed."""
    poly.points[:] = V
    poly.GetPoints().Modified()
    poly.point_data["Normals"][:] = N
    poly.GetPointData().GetNormals().Modified()
    poly.Modified()


def render_video(plan: Plan, static_meshes, out_path, *, size=(1280, 720), fps: int = 25, crf: int = 18,
                 start=None, end=None, speed: float = 1.0, frames_dir=None, labels: bool = False,
                 progress: bool = True, text: str | None = None, glosses: dict | None = None,
                 cards: bool = True, preset: str = "veryfast", aa: bool = True,
                 camera: CameraPath | None = None, compress_holds: float | None = 6.0,
                 hold_speed: float = 8.0, workers: int | None = None) -> dict:
    """Render ``plan`` to ``out_path`` (mp4, H.264 yuv420p High, +faststart) plus WebVTT sidecars.

    ``static_meshes``: [(name, trimesh.Trimesh, rgb)] — the ground and architecture.
    ``start``/``end``: plan seconds (float), a footnote number (int) or an event id (str).
    ``speed``: plan seconds per video second.  ``frames_dir``: also write PNGs there.
    ``labels``: name tags over everyone's head in every shot (plan views always label everyone,
    other shots label whoever acts).  ``text``: the seed text, used for nothing but a check that
    event texts are its substrings when given.  ``glosses``: English gloss per event id (else
    ``event["gloss"]``).  ``cards``: title and end cards.  ``camera``: a shot plan to use instead
    of :func:`plan_shots`.  ``compress_holds``: holds in which nothing in the frame moves for
    longer than this many seconds play ``hold_speed`` times faster, marked "≫ 8×" (None: off).
    ``workers``: render processes (default :func:`default_workers`); their chunks are joined
    without re-encoding.

    Returns statistics (frames, seconds, passes).  The file appears only when complete.
    """
    from tqdm import tqdm

    w, h = (int(size[0]), int(size[1]))
    if w % 2 or h % 2:
        raise ValueError(f"frame size must be even for yuv420p, got {w}x{h}")
    size = (w, h)
    out_path = Path(out_path)
    out_path.parent.mkdir(parents=True, exist_ok=True)
    t0, t1 = resolve_range(plan, start, end)
    events = plan.events_by_start()
    if text is not None:
        for e in events:
            if text[e.span[0]:e.span[1]] != e.text:
                raise ValueError(f"event {e.id}: text does not match its span in the seed")
    t_wall = time.perf_counter()
    path = camera or plan_shots(plan, size)      # the whole passage: excerpts show what the full video shows
    times, rates = hold_times(plan, path, t0, t1, fps, speed, compress_holds, hold_speed, size)
    n_title = int(round(TITLE_S * fps)) if cards else 0
    n_end = int(round(END_S * fps)) if cards else 0
    total = n_title + len(times) + n_end
    if frames_dir is not None:
        frames_dir = Path(frames_dir)
        frames_dir.mkdir(parents=True, exist_ok=True)
    n_work = max(1, int(workers)) if workers else default_workers(len(times))
    n_work = min(n_work, max(1, len(times) // 50))

    tmp = out_path.with_name(f".{out_path.stem}.partial{out_path.suffix or '.mp4'}")
    parts = [out_path.with_name(f".{out_path.stem}.part{i}.mp4") for i in range(n_work)] if n_work > 1 else [tmp]
    stats = {"frames": total, "plan_start": t0, "plan_end": t1, "workers": n_work}
    bar = tqdm(total=total, unit="frame", disable=not progress, desc=out_path.name, smoothing=0.05)
    bounds = np.linspace(0, len(times), n_work + 1).round().astype(int)
    jobs = []
    for i in range(n_work):
        a, b = bounds[i], bounds[i + 1]
        frame0 = (n_title if i else 0) + int(a)
        jobs.append((plan, static_meshes, parts[i], size, fps, crf, preset, path, labels, glosses, aa, t0, t1,
                     times[a:b], rates[a:b], speed, bool(n_title) and i == 0, bool(n_end) and i == n_work - 1,
                     frames_dir, frame0))
    procs = []
    try:
        if n_work == 1:
            st = _render_chunk(*jobs[0], report=bar.update)
            for k, v in st.items():
                stats[k] = stats.get(k, 0) + v
        else:
            import multiprocessing as mp
            ctx = mp.get_context("fork" if "fork" in mp.get_all_start_methods() else "spawn")
            queue = ctx.Queue()
            for job in jobs:
                pr = ctx.Process(target=_chunk_worker, args=(job, queue), daemon=True)
                pr.start()
                procs.append(pr)
            done = 0
            while done < n_work:
                kind, val = queue.get()
                if kind == "n":
                    bar.update(val)
                elif kind == "done":
                    done += 1
                    for k, v in val.items():
                        stats[k] = stats.get(k, 0) + v
                else:
                    raise RuntimeError(f"render worker failed: {val}")
            for pr in procs:
                pr.join()
            _concat(parts, tmp)
        os.replace(tmp, out_path)
    except BaseException:
        for pr in procs:
            if pr.is_alive():
                pr.terminate()
                pr.join(5)
        if tmp.exists():
            tmp.unlink()
        raise
    finally:
        bar.close()
        if n_work > 1:
            for p_ in parts:
                p_.unlink(missing_ok=True)
    # sidecars: cue times in video seconds (through the hold compression's time map)
    off = n_title / fps
    vt = np.arange(len(times)) / fps

    def to_video(pt: float) -> float:
        if pt >= times[-1]:
            return off + float(vt[-1] + (pt - times[-1]) / speed)
        return off + float(np.interp(pt, times, vt))

    cues_zh, cues_en = [], []
    for e in events:
        if e.end <= t0 or e.start >= t1:
            continue
        a = to_video(max(e.start, t0))
        b = to_video(min(e.end, t1))
        cues_zh.append((a, b, C.display_text(e.text) + (f" ({e.footnote})" if e.footnote else "")))
        en = (glosses or {}).get(e.id) or e.gloss
        if en:
            cues_en.append((a, b, en))
    C.write_vtt(out_path.with_suffix(".zh.vtt"), cues_zh)
    C.write_vtt(out_path.with_suffix(".en.vtt"), cues_en)
    stats["seconds"] = time.perf_counter() - t_wall
    stats["video_seconds"] = total / fps
    stats["compressed_frames"] = int((rates > 1).sum())
    return stats


def render_frames(plan: Plan, static_meshes, times, out_dir=None, *, size=(1280, 720), labels: bool = False,
                  glosses: dict | None = None, aa: bool = True, camera: CameraPath | None = None,
                  start=None, end=None) -> list[np.ndarray]:
    """Single frames at the given plan ``times``, exactly as the video shows them (camera, labels,
    captions, timeline over ``start``–``end``), without encoding; written as PNG to ``out_dir``
    when given (``frame_<plan seconds>.png``).  For contact sheets and checks."""
    import imageio.v2 as imageio
    size = (int(size[0]), int(size[1]))
    t0, t1 = resolve_range(plan, start, end)
    path = camera or plan_shots(plan, size)
    pipe = _Pipeline(plan, static_meshes, size, path, labels, glosses, aa, t0, t1)
    out = []
    try:
        for t in times:
            t = float(t)
            pipe.last3d = None
            pipe.renderer.bg_key = None
            pipe.prime(t - 0.04)
            img = pipe.frame(t, t + 0.04)
            out.append(img)
            if out_dir is not None:
                Path(out_dir).mkdir(parents=True, exist_ok=True)
                imageio.imwrite(Path(out_dir) / f"frame_{t:08.2f}.png", img)
    finally:
        pipe.close()
    return out
