"""Render a plan (``xiangshe-plan/1``) to an H.264 video, faster than it plays. Never re-plans.

Design for speed on a 2-core CPU with software GL (llvmpipe), where every full-frame
pass costs, and VTK's FXAA is the biggest full-frame cost:

* **Static background cached per camera pose.**  While the camera holds (most of the
  time), the architecture is rendered once (colour + depth, FXAA) and reused.
* **Only the moving layer is drawn per frame, in a sub-viewport.**  All people and
  props are one vertex-coloured mesh whose vertices are moved in numpy (no per-part
  actors).  Its screen bounding box is drawn alone in a renderer viewport of that size
  (the camera's view angle and window centre are adjusted so the projection is the
  same as the full frame's), over the cached background as a texture, with FXAA.  The
  result is composited into the cached frame with a depth test against the cached
  depth, so architecture in front of a person still hides him.
* **Identical frames are reused.**  When no one moves, nothing is re-rendered (the rite
  has long holds); only captions and the timeline are redrawn.
* During camera moves a single full pass is drawn.
* Frames are streamed to ffmpeg (libx264, yuv420p, High profile, +faststart), which
  encodes in its own process, into a temporary file renamed when complete.
"""
from __future__ import annotations

import math
import os
import time
from dataclasses import dataclass, field
from pathlib import Path

os.environ.setdefault("VTK_DEFAULT_OPENGL_WINDOW", "vtkEGLRenderWindow")

import numpy as np  # noqa: E402

from . import captions as C  # noqa: E402
from . import figures as F  # noqa: E402
from .camera import CameraPath, CameraPose, plan_shots, project  # noqa: E402

__all__ = ["render_video", "PlanSampler", "MovingLayer", "FrameRenderer", "resolve_range", "frame_times",
           "current_event", "TITLE_S", "END_S"]

TITLE_S = 4.0
END_S = 3.0
SUN_DIR = (0.55, -0.45, 0.70)     # towards the sun: south-east, high
_SUN = "#fff0d6"
_FILL = "#d8e2f0"


# ---------------------------------------------------------------------------
# reading the plan

def _smooth(u: float) -> float:
    u = min(1.0, max(0.0, u))
    return u * u * (3 - 2 * u)


@dataclass
class _Track:
    t: np.ndarray           # (k,)
    xyz: np.ndarray         # (k, 3)
    heading: np.ndarray     # (k,)
    posture: list[str]
    cum: np.ndarray         # (k,) path length up to each key
    seg_post: list[str]     # effective posture of each segment (k-1) + the last key
    run0: np.ndarray        # start time of the run of equal posture containing each segment
    run1: np.ndarray        # end time of that run
    states_t: np.ndarray = field(default_factory=lambda: np.zeros(0))
    states: list[dict] = field(default_factory=list)


def _make_track(keys: list) -> _Track:
    k = sorted(keys, key=lambda r: r[0])
    t = np.array([r[0] for r in k], float)
    xyz = np.array([r[1:4] for r in k], float)
    hd = np.array([r[4] if r[4] is not None else 0.0 for r in k], float)
    post = [str(r[5]) if len(r) > 5 else "stand" for r in k]
    d = np.r_[0.0, np.cumsum(np.linalg.norm(np.diff(xyz, axis=0), axis=1))] if len(k) > 1 else np.zeros(1)
    seg = []
    for i in range(len(k)):
        moving = i + 1 < len(k) and d[i + 1] - d[i] > 0.01
        p = post[i]
        if moving and not (p in ("kneel", "kneel_bow") and post[i + 1] in ("kneel", "kneel_bow")):
            p = "walk"
        seg.append(p)
    run0 = np.zeros(len(k))
    run1 = np.zeros(len(k))
    i = 0
    while i < len(k):
        j = i
        while j + 1 < len(k) and seg[j + 1] == seg[i]:
            j += 1
        end = t[j + 1] if j + 1 < len(k) else t[j]
        run0[i:j + 1], run1[i:j + 1] = t[i], end
        i = j + 1
    return _Track(t, xyz, hd, post, d, seg, run0, run1)


class PlanSampler:
    """Where each actor and prop is, and how it stands, at any plan time."""

    def __init__(self, plan: dict):
        self.plan = plan
        self.actors: dict[str, _Track] = {}
        for aid, tr in (plan.get("actors") or {}).items():
            if not tr.get("keys"):
                continue
            track = _make_track(tr["keys"])
            st = sorted(tr.get("states") or [], key=lambda r: r[0])
            track.states_t = np.array([r[0] for r in st], float)
            track.states = [dict(r[1] or {}) for r in st]
            self.actors[aid] = track
        self.props: dict[str, _Track] = {}
        self.carrier_t: dict[str, np.ndarray] = {}
        self.carrier: dict[str, list] = {}
        for pid, tr in (plan.get("props") or {}).items():
            if not tr.get("keys"):
                continue
            self.props[pid] = _make_track(tr["keys"])
            cr = sorted(tr.get("carrier") or [], key=lambda r: r[0])
            self.carrier_t[pid] = np.array([r[0] for r in cr], float)
            self.carrier[pid] = [r[1] for r in cr]

    # -- actors
    def state(self, aid: str, t: float) -> dict:
        tr = self.actors[aid]
        if not len(tr.states_t):
            return {}
        i = int(np.searchsorted(tr.states_t, t, side="right")) - 1
        return tr.states[i] if i >= 0 else {}

    def position(self, tr: _Track, t: float) -> tuple[np.ndarray, float, int, float]:
        """(xyz, heading, segment index, fraction) on a track."""
        if t <= tr.t[0] or len(tr.t) == 1:
            return tr.xyz[0], float(tr.heading[0]), 0, 0.0
        if t >= tr.t[-1]:
            return tr.xyz[-1], float(tr.heading[-1]), len(tr.t) - 1, 0.0
        i = int(np.searchsorted(tr.t, t, side="right")) - 1
        dt = tr.t[i + 1] - tr.t[i]
        u = (t - tr.t[i]) / dt if dt > 0 else 1.0
        xyz = tr.xyz[i] + (tr.xyz[i + 1] - tr.xyz[i]) * u
        dh = (tr.heading[i + 1] - tr.heading[i] + 180.0) % 360.0 - 180.0
        return xyz, float(tr.heading[i] + dh * u) % 360.0, i, u

    def _seg_params(self, tr: _Track, i: int, t: float, state: dict) -> dict:
        p = tr.seg_post[i]
        if p == "walk":
            j = min(i + 1, len(tr.t) - 1)
            dt = tr.t[j] - tr.t[i]
            u = 0.0 if dt <= 0 else min(1.0, max(0.0, (t - tr.t[i]) / dt))
            dist = tr.cum[i] + (tr.cum[j] - tr.cum[i]) * u
            return F.pose_params("walk", F.gait_phase(dist), state)
        if p in ("bow", "kneel_bow"):
            dur = tr.run1[i] - tr.run0[i]
            if dur <= 0:
                dur = 1.5
            return F.pose_params(p, min(0.999, max(0.0, (t - tr.run0[i]) / dur)), state)
        return F.pose_params(p, 0.0, state)

    def actor_pose(self, aid: str, t: float, holding: list[str] | None = None):
        """(xyz, heading, joint params, state) of an actor at ``t`` (postures eased across changes)."""
        tr = self.actors[aid]
        state = dict(self.state(aid, t))
        if holding:
            state["holding"] = list(dict.fromkeys(list(state.get("holding") or []) + holding))
        xyz, hd, i, _ = self.position(tr, t)
        params = self._seg_params(tr, i, t, state)
        if i > 0 and tr.seg_post[i - 1] != tr.seg_post[i]:
            a, b = tr.seg_post[i - 1], tr.seg_post[i]
            low = {"kneel", "kneel_bow"}
            ease = 0.8 if (a in low) != (b in low) else 0.35
            w = (t - tr.t[i]) / ease
            if w < 1.0:
                prev = self._seg_params(tr, i - 1, tr.t[i] - 1e-6, state)
                params = F.blend_params(prev, params, _smooth(w))
        return xyz, hd, params, state

    # -- props
    def carrier_of(self, pid: str, t: float) -> str | None:
        ts = self.carrier_t.get(pid)
        if ts is None or not len(ts):
            return None
        i = int(np.searchsorted(ts, t, side="right")) - 1
        return self.carrier[pid][i] if i >= 0 else None


def resolve_range(plan: dict, start=None, end=None) -> tuple[float, float]:
    """Plan seconds of an excerpt: ``start``/``end`` as seconds (float), a footnote number (int)
    or an event id (str); None = the beginning / the end."""
    events = plan.get("events") or []

    def pick(v, is_end: bool) -> float | None:
        if v is None:
            return None
        if isinstance(v, str) and v.strip().lstrip("-").isdigit():
            v = int(v)
        if isinstance(v, bool):
            raise ValueError(v)
        if isinstance(v, int):
            hits = [e for e in events if e.get("footnote") == v]
            if not hits:
                raise ValueError(f"no event with footnote {v}")
            return max(e["end"] for e in hits) if is_end else min(e["start"] for e in hits)
        if isinstance(v, str):
            hits = [e for e in events if e.get("id") == v]
            if not hits:
                raise ValueError(f"no event {v!r}")
            return hits[0]["end"] if is_end else hits[0]["start"]
        return float(v)

    t0 = pick(start, False)
    t1 = pick(end, True)
    return (0.0 if t0 is None else t0), (float(plan.get("duration", 0.0)) if t1 is None else t1)


def frame_times(t0: float, t1: float, fps: float, speed: float = 1.0) -> np.ndarray:
    """Plan times of the frames between ``t0`` and ``t1`` (played ``speed`` times faster)."""
    n = max(1, int(round((t1 - t0) / speed * fps)))
    return t0 + np.arange(n) * (speed / fps)


def current_event(events: list[dict], t: float, linger: float = 1.5) -> dict | None:
    """The event performed at ``t`` (the latest started), or the last one for ``linger`` s after its end."""
    cur, last = None, None
    for e in events:
        if e["start"] > t:
            break
        if t < e["end"]:
            cur = e
        last = e
    if cur is not None:
        return cur
    if last is not None and t - last["end"] < linger:
        return last
    return None


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
        for aid, tr in sampler.actors.items():
            for st in tr.states:
                for h in st.get("holding") or []:
                    if h not in sampler.props and (aid, h) not in self.virtual:
                        self.virtual[(aid, h)] = len(self.items)
                        self.items.append(("virtual", f"{aid}:{h}"))
                        geoms.append(F.prop_geometry(h))
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
        for k, (kind, ident) in enumerate(self.items):
            if kind == "actor":
                continue
            if kind == "prop":
                c = carrier_of.get(ident)
                if c is not None:
                    M = F.held_prop_transform(ident, worlds[c], headings[c], holding_of.get(c, []) + carried.get(c, []))
                else:
                    xyz, hd, _, _ = s.position(s.props[ident], t)
                    M = F.root_transform(*xyz, hd)
            else:
                aid, h = ident.split(":", 1)
                held = h in holding_of.get(aid, [])
                M = F.held_prop_transform(h, worlds[aid], headings[aid], holding_of[aid]) if held else zero
            j = self.part_start[k]
            if not np.array_equal(self.matrices[j], M):
                self.matrices[j] = M
                changed.add(k)
        return changed

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


# ---------------------------------------------------------------------------
# the renderer

class FrameRenderer:
    """A persistent off-screen VTK scene: static meshes, the moving layer, cached backgrounds."""

    def __init__(self, static_meshes, layer: MovingLayer, size=(1280, 720), aa: bool = True,
                 sky=("#c9d3d6", "#8fa6b8")):
        import pyvista as pv
        import vtk
        from vtk.util.numpy_support import numpy_to_vtk, vtk_to_numpy
        self._pv, self._vtk, self._n2v, self._v2n = pv, vtk, numpy_to_vtk, vtk_to_numpy
        self.size = tuple(int(v) for v in size)
        w, h = self.size
        pl = pv.Plotter(off_screen=True, window_size=self.size, lighting="none")
        pl.disable_anti_aliasing()
        self.aa = aa
        pl.renderer.SetUseFXAA(bool(aa))
        pl.set_background(sky[0], top=sky[1])
        sun = pv.Light(light_type="scene light", intensity=0.95, color=_SUN)
        sun.positional = False
        sun.position = tuple(100 * v for v in SUN_DIR)
        sun.focal_point = (0, 0, 0)
        pl.add_light(sun)
        pl.add_light(pv.Light(light_type="headlight", intensity=0.28, color=_FILL))
        self.static_actors = []
        for name, mesh, rgb in static_meshes:
            pm = pv.wrap(mesh) if not isinstance(mesh, pv.DataSet) else mesh
            col = rgb if isinstance(rgb, str) else tuple(float(c) / (255.0 if max(rgb) > 1 else 1.0) for c in rgb)
            a = pl.add_mesh(pm, color=col, ambient=0.32, diffuse=0.72, specular=0.0, name=f"static:{name}",
                            smooth_shading=False, reset_camera=False)
            self.static_actors.append(a)
        self.layer = layer
        self.polys, self.layer_actors = [], []
        for name in ("baked", "live"):
            poly = pv.PolyData(layer.vertices.copy(), np.c_[np.full(len(layer.faces), 3), layer.faces].ravel())
            poly.point_data["rgb"] = layer.colors
            poly.point_data["Normals"] = layer.normals.copy()
            poly.point_data.active_normals_name = "Normals"
            self.polys.append(poly)
            self.layer_actors.append(pl.add_mesh(poly, scalars="rgb", rgb=True, ambient=0.34, diffuse=0.72,
                                                 specular=0.0, smooth_shading=True, name=name, reset_camera=False))
        self.baked_actor, self.live_actor = self.layer_actors
        self.live: set[int] = set()              # items drawn per frame (the rest is baked into the background)
        self.bg_matrices = None
        self.pl = pl
        pl.show(auto_close=False)
        self.ren, self.rw = pl.renderer, pl.ren_win
        self.cam = pl.renderer.GetActiveCamera()
        self.bg_key = None
        self.bg_rgb = None
        self.bg_depth = None
        self.tex = vtk.vtkTexture()
        self.tex.InterpolateOff()
        self.stats = {"full": 0, "layer": 0, "background": 0, "reused": 0}

    # -- low level
    def _set_camera(self, pose: CameraPose, near=0.5, far=600.0) -> None:
        c = self.cam
        c.SetPosition(*pose.eye)
        c.SetFocalPoint(*pose.target)
        c.SetViewUp(*pose.up)
        c.SetViewAngle(pose.view_angle)
        c.SetWindowCenter(0.0, 0.0)
        c.SetClippingRange(near, far)
        self.ren.SetViewport(0.0, 0.0, 1.0, 1.0)

    def _read(self, x0=0, y0=0, x1=None, y1=None, depth=True):
        """RGB (and depth) of a window rectangle given in top-left pixel coordinates [x0, x1) × [y0, y1)."""
        w, h = self.size
        x1 = w if x1 is None else x1
        y1 = h if y1 is None else y1
        vx0, vy0, vx1, vy1 = x0, h - y1, x1 - 1, h - y0 - 1
        arr = self._vtk.vtkUnsignedCharArray()
        self.rw.GetPixelData(vx0, vy0, vx1, vy1, 0, arr, 0)
        rgb = self._v2n(arr).reshape(y1 - y0, x1 - x0, 3)[::-1]
        if not depth:
            return rgb, None
        z = self._vtk.vtkFloatArray()
        self.rw.GetZbufferData(vx0, vy0, vx1, vy1, z)
        return rgb, self._v2n(z).reshape(y1 - y0, x1 - x0)[::-1]

    def _upload(self, which: int, parts: np.ndarray | None) -> None:
        V, N = self.layer.world_arrays(parts)
        poly = self.polys[which]
        poly.points[:] = V
        poly.GetPoints().Modified()
        poly.point_data["Normals"][:] = N
        poly.GetPointData().GetNormals().Modified()
        poly.Modified()

    def _static_visible(self, on: bool) -> None:
        for a in self.static_actors:
            a.SetVisibility(on)

    # -- passes
    def full(self, pose: CameraPose) -> np.ndarray:
        """One pass with everything (used while the camera moves)."""
        self._set_camera(pose)
        self._static_visible(True)
        self._upload(0, None)
        self.baked_actor.SetVisibility(True)
        self.live_actor.SetVisibility(False)
        self.ren.SetTexturedBackground(False)
        self.rw.Render()
        self.bg_key = None
        self.stats["full"] += 1
        return self._read(depth=False)[0].copy()

    def background(self, pose: CameraPose, moved: set[int]) -> None:
        """Keep the cached background (architecture + people who stand still) valid for this pose.

        Items that moved and are not yet drawn live join the live set; the background is
        re-rendered without them (colour + depth) when the pose or the live set changes.
        """
        if self.bg_key == pose.key() and moved <= self.live:
            return
        self.live = set(moved) if self.bg_key != pose.key() else self.live | moved
        self._set_camera(pose)
        self._static_visible(True)
        self._upload(0, ~self.layer.part_mask(self.live))
        self.baked_actor.SetVisibility(True)
        self.live_actor.SetVisibility(False)
        self.ren.SetTexturedBackground(False)
        self.rw.Render()
        rgb, d = self._read()
        self.bg_rgb, self.bg_depth, self.bg_key = rgb.copy(), d.copy(), pose.key()
        self.stats["background"] += 1

    def layer_bbox(self, pose: CameraPose, pad: int = 6):
        """Screen rectangle (x0, y0, x1, y1) holding the live items, or None when off screen."""
        M = self.layer.matrices[self.layer.part_mask(self.live)]
        scale = np.abs(M[:, :3, :3]).sum(axis=(1, 2))
        pts = M[scale > 1e-9, :3, 3]
        if not len(pts):
            return None
        # part origins plus a generous radius cover the posed parts
        px, depth = project(pose, pts, self.size)
        ok = ~np.isnan(px[:, 0])
        if not ok.any():
            return None
        w, h = self.size
        f = (h / 2) / math.tan(math.radians(pose.view_angle) / 2)
        r = f * 0.6 / np.maximum(depth[ok], 0.5) + pad          # a part reaches < 0.6 m from its joint
        big = np.zeros(ok.sum(), bool)
        # tall props (the flag) reach far from their origin
        x0 = int(max(0, np.floor((px[ok, 0] - r).min())))
        x1 = int(min(w, np.ceil((px[ok, 0] + r).max())))
        y0 = int(max(0, np.floor((px[ok, 1] - r - big * 0).min())))
        y1 = int(min(h, np.ceil((px[ok, 1] + r).max())))
        V = self._layer_extent_points()
        if V is not None:
            pv_, dv = project(pose, V, self.size)
            okv = ~np.isnan(pv_[:, 0])
            if okv.any():
                x0 = int(max(0, min(x0, np.floor(pv_[okv, 0].min()) - pad)))
                x1 = int(min(w, max(x1, np.ceil(pv_[okv, 0].max()) + pad)))
                y0 = int(max(0, min(y0, np.floor(pv_[okv, 1].min()) - pad)))
                y1 = int(min(h, max(y1, np.ceil(pv_[okv, 1].max()) + pad)))
        if x1 - x0 < 2 or y1 - y0 < 2:
            return None
        return x0, y0, x1, y1

    def _layer_extent_points(self):
        """Tops of tall props (flag poles), which reach beyond the part-radius estimate."""
        out = []
        for k, (kind, ident) in enumerate(self.layer.items):
            if kind == "actor" or k not in self.live:
                continue
            if F.prop_kind(ident.split(":")[-1]) in ("旌", "侯", "弓"):
                M = self.layer.matrices[self.layer.part_start[k]]
                if abs(M[:3, :3]).sum() > 1e-9:
                    out.append((M @ np.array([0, 0, 5.6, 1.0]))[:3])
                    out.append((M @ np.array([0, 0, -0.8, 1.0]))[:3])
        return np.asarray(out) if out else None

    def composite(self, pose: CameraPose, moved: set[int]) -> np.ndarray:
        """The cached background with the live items drawn over it (depth-tested)."""
        self.background(pose, moved)
        frame = self.bg_rgb.copy()
        if not self.live:
            return frame
        box = self.layer_bbox(pose)
        if box is None:
            return frame
        x0, y0, x1, y1 = box
        w, h = self.size
        bw, bh = x1 - x0, y1 - y0
        cam = self.cam
        self._set_camera(pose)
        # sub-viewport with the same projection as the full frame
        vy0 = h - y1
        self.ren.SetViewport(x0 / w, vy0 / h, x1 / w, (vy0 + bh) / h)
        t = math.tan(math.radians(pose.view_angle) / 2)
        cam.SetViewAngle(math.degrees(2 * math.atan(t * bh / h)))
        xc = (x0 + bw / 2) / w * 2 - 1
        yc = (vy0 + bh / 2) / h * 2 - 1
        cam.SetWindowCenter(xc * w / bw, yc * h / bh)
        crop = np.ascontiguousarray(self.bg_rgb[y0:y1, x0:x1][::-1])
        img = self._vtk.vtkImageData()
        img.SetDimensions(bw, bh, 1)
        arr = self._n2v(crop.reshape(-1, 3), deep=True)
        img.GetPointData().SetScalars(arr)
        self.tex.SetInputData(img)
        self.ren.SetBackgroundTexture(self.tex)
        self.ren.SetTexturedBackground(True)
        self._static_visible(False)
        self._upload(1, self.layer.part_mask(self.live))
        self.baked_actor.SetVisibility(False)
        self.live_actor.SetVisibility(True)
        self.rw.Render()
        rgb, d = self._read(x0, y0, x1, y1)
        self.ren.SetTexturedBackground(False)
        self.ren.SetViewport(0.0, 0.0, 1.0, 1.0)
        cam.SetWindowCenter(0.0, 0.0)
        cam.SetViewAngle(pose.view_angle)
        self.stats["layer"] += 1
        bgd = self.bg_depth[y0:y1, x0:x1]
        cov = d < 1.0
        occl = cov & (d > bgd + 2e-6)
        take = _dilate(cov, 2) & ~_dilate(occl, 1)
        sub = frame[y0:y1, x0:x1]
        sub[take] = rgb[take]
        return frame

    def close(self) -> None:
        self.pl.close()


def _dilate(m: np.ndarray, r: int) -> np.ndarray:
    out = m.copy()
    for _ in range(r):
        o = out.copy()
        o[1:] |= out[:-1]
        o[:-1] |= out[1:]
        o[:, 1:] |= out[:, :-1]
        o[:, :-1] |= out[:, 1:]
        out = o
    return out


# ---------------------------------------------------------------------------
# the video

def _labels(frame: np.ndarray, layer: MovingLayer, pose: CameraPose, size, names: dict[str, str]) -> None:
    if not layer.heads:
        return
    ids = list(layer.heads)
    px, depth = project(pose, np.array([layer.heads[i] for i in ids]), size)
    h = size[1]
    order = np.argsort(-depth)
    for k in order:
        if np.isnan(px[k, 0]) or depth[k] <= 0:
            continue
        fs = int(max(9, min(h * 0.028, h * 0.9 / depth[k])))
        spr = C.label_sprite(names.get(ids[k], ids[k]), fs)
        C.blit_rgba(frame, spr, px[k, 0], px[k, 1] - 2)


def render_video(plan: dict, static_meshes, out_path, *, size=(1280, 720), fps: int = 25, crf: int = 18,
                 start=None, end=None, speed: float = 1.0, frames_dir=None, labels: bool = False,
                 progress: bool = True, text: str | None = None, glosses: dict | None = None,
                 cards: bool = True, preset: str = "medium", aa: bool = True,
                 camera: CameraPath | None = None) -> dict:
    """Render ``plan`` to ``out_path`` (mp4, H.264 yuv420p High, +faststart) plus WebVTT sidecars.

    ``static_meshes``: [(name, trimesh.Trimesh, rgb)] — the ground and architecture.
    ``start``/``end``: plan seconds (float), a footnote number (int) or an event id (str).
    ``speed``: plan seconds per video second.  ``frames_dir``: also write PNGs there.
    ``labels``: name tags over heads (always on in plan-view shots).  ``text``: the seed text,
    used for nothing but a check that event texts are its substrings when given.
    ``glosses``: English gloss per event id (else ``event["gloss"]``).  ``cards``: title and
    end cards.  ``camera``: a shot plan to use instead of :func:`plan_shots`.

    Returns statistics (frames, seconds, passes).  The file appears only when complete.
    """
    import imageio.v2 as imageio
    from tqdm import tqdm

    w, h = (int(size[0]), int(size[1]))
    if w % 2 or h % 2:
        raise ValueError(f"frame size must be even for yuv420p, got {w}x{h}")
    size = (w, h)
    out_path = Path(out_path)
    out_path.parent.mkdir(parents=True, exist_ok=True)
    t0, t1 = resolve_range(plan, start, end)
    times = frame_times(t0, t1, fps, speed)
    events = sorted(plan.get("events") or [], key=lambda e: e["start"])
    glosses = glosses or {}
    if text is not None:
        for e in events:
            s = e.get("span")
            if s and text[s[0]:s[1]] != e["text"]:
                raise ValueError(f"event {e['id']}: text does not match its span in the seed")
    path = camera or plan_shots(plan, size)      # the whole passage: excerpts show what the full video shows
    sampler = PlanSampler(plan)
    layer = MovingLayer(sampler)
    names = {aid: (tr.get("label") or aid) for aid, tr in (plan.get("actors") or {}).items()}
    n_title = int(round(TITLE_S * fps)) if cards else 0
    n_end = int(round(END_S * fps)) if cards else 0
    total = n_title + len(times) + n_end
    if frames_dir is not None:
        frames_dir = Path(frames_dir)
        frames_dir.mkdir(parents=True, exist_ok=True)

    tmp = out_path.with_name(f".{out_path.stem}.partial{out_path.suffix or '.mp4'}")
    mbs = 8 if (w % 8 == 0 and h % 8 == 0) else 2
    writer = imageio.get_writer(
        str(tmp), format="FFMPEG", mode="I", fps=fps, codec="libx264", quality=None, macro_block_size=mbs,
        pixelformat="yuv420p", ffmpeg_log_level="error",
        ffmpeg_params=["-profile:v", "high", "-crf", str(int(crf)), "-preset", preset, "-movflags", "+faststart"])
    renderer = None
    stats = {"frames": total, "plan_start": t0, "plan_end": t1}
    t_wall = time.perf_counter()
    bar = tqdm(total=total, unit="frame", disable=not progress, desc=out_path.name, smoothing=0.05)
    k_out = 0

    def emit(frame: np.ndarray) -> None:
        nonlocal k_out
        writer.append_data(frame)
        if frames_dir is not None:
            imageio.imwrite(frames_dir / f"frame_{k_out:06d}.png", frame)
        k_out += 1
        bar.update(1)

    try:
        if n_title:
            card = C.title_card(size, plan)
            for _ in range(n_title):
                emit(card)
        renderer = FrameRenderer(static_meshes, layer, size, aa=aa)
        bands: dict = {}
        last3d, last_key = None, None
        layer.update(float(times[0]) - speed / fps)      # prime: the first frame's "moved" is then real
        for i, t in enumerate(times):
            pose = path.at(float(t))
            moved = layer.update(float(t))
            key = pose.key()
            if last3d is not None and not moved and key == last_key:
                img = last3d
                renderer.stats["reused"] += 1
            else:
                nxt = path.at(float(t) + speed / fps).key()
                img = renderer.composite(pose, moved) if nxt == key else renderer.full(pose)
                last3d, last_key = img, key
            frame = img.copy()
            shot = path.shot_at(float(t))
            if labels or shot.kind == "plan":
                _labels(frame, layer, pose, size, names)
            ev = current_event(events, float(t))
            if ev is not None:
                bk = ev["id"]
                if bk not in bands:
                    if len(bands) > 32:
                        bands.clear()
                    bands[bk] = C.CaptionBand.draw(size, ev["text"], glosses.get(ev["id"]) or ev.get("gloss"),
                                                   ev.get("footnote"))
                bands[bk].apply(frame)
            C.draw_timeline(frame, (float(t) - t0) / max(1e-9, t1 - t0))
            emit(frame)
        if n_end:
            card = C.end_card(size, plan)
            for _ in range(n_end):
                emit(card)
        writer.close()
        writer = None
        os.replace(tmp, out_path)
    except BaseException:
        if writer is not None:
            try:
                writer.close()
            except Exception:
                pass
        if tmp.exists():
            tmp.unlink()
        raise
    finally:
        bar.close()
        if renderer is not None:
            stats.update(renderer.stats)
            renderer.close()
    # sidecars: cue times in video seconds
    off = n_title / fps
    cues_zh, cues_en = [], []
    for e in events:
        if e["end"] <= t0 or e["start"] >= t1:
            continue
        a = off + (max(e["start"], t0) - t0) / speed
        b = off + (min(e["end"], t1) - t0) / speed
        cues_zh.append((a, b, C.display_text(e["text"]) + (f" ({e['footnote']})" if e.get("footnote") else "")))
        en = glosses.get(e["id"]) or e.get("gloss")
        if en:
            cues_en.append((a, b, en))
    C.write_vtt(out_path.with_suffix(".zh.vtt"), cues_zh)
    C.write_vtt(out_path.with_suffix(".en.vtt"), cues_en)
    stats["seconds"] = time.perf_counter() - t_wall
    stats["video_seconds"] = total / fps
    return stats
