"""The moving layer: every figure and prop of a plan as one vertex-coloured mesh, posed in numpy.

Each figure's parts and each prop are parts of one mesh; a frame poses them by writing one 4x4
matrix per part (:meth:`MovingLayer.update`), and the renderer moves the vertices with those
matrices (:meth:`MovingLayer.world_arrays`).  Props carried by someone follow his hands; things
an actor holds that the plan does not track as props ("virtual" items) appear in his hands while
he holds them; every bow has an unstrung twin, one of the two shown at a time.
"""
from __future__ import annotations

import math

import numpy as np
from scipy.spatial.transform import Rotation

from ..scene import figures as F
from ..scene import handling as HD
from ..scene import poses as P
from ..scene import props as PR
from ..scene.sampler import PlanSampler
from ..scene.shots import CameraPose, project
from . import shade as SH

__all__ = ["MovingLayer"]

HIDDEN = np.diag([0.0, 0.0, 0.0, 1.0])      # a part scaled to nothing
def _posed(M: np.ndarray, part_of_vertex: np.ndarray, vertices: np.ndarray, normals: np.ndarray):
    """Vertices and normals moved by their parts' matrices (normals by the cofactor of the linear part,
    so a part scaled to nothing collapses without dividing by zero)."""
    R = M[:, :3, :3]
    cof = np.stack([np.cross(R[:, 1], R[:, 2]), np.cross(R[:, 2], R[:, 0]), np.cross(R[:, 0], R[:, 1])], axis=1)
    V = np.einsum("nij,nj->ni", R[part_of_vertex], vertices) + M[part_of_vertex, :3, 3]
    N = np.einsum("nij,nj->ni", cof[part_of_vertex], normals)
    N /= np.maximum(np.linalg.norm(N, axis=1, keepdims=True), 1e-12)
    return V, N


def _geometry(ident: str, landmarks=None):
    """The geometry of a prop: a strung bow with its string apart (to be drawn), else one part (a thing set out
    at a landmark of the plan at that landmark's size)."""
    if PR.prop_kind(ident) == "弓":
        return HD.bow_geometry()
    size = PR.set_out_size(ident, landmarks) if landmarks else None
    return PR.prop_geometry(ident, True, size) if size else PR.prop_geometry(ident)


class MovingLayer:
    """All figures and props of a plan as one vertex-coloured mesh, posed per frame in numpy."""

    def __init__(self, sampler: PlanSampler):
        self.sampler = sampler
        self.items: list[tuple[str, str]] = []          # (kind "actor"/"shadow"/"shadow_floor"/"prop"/"virtual"/"unstrung", id)
        self.virtual: dict[tuple[str, str], int] = {}   # (actor, held kind) → item index
        self.unstrung: dict[int, int] = {}              # item index of a bow → item index of its unstrung twin
        geoms = self._collect_items()
        self.part_start = np.cumsum([0] + [len(g.parts) for g in geoms])
        offsets = np.cumsum([0] + [len(g.vertices) for g in geoms])[:-1]
        self.vertices = np.vstack([g.vertices for g in geoms])
        self.normals = np.vstack([g.normals for g in geoms])
        self.colors = np.vstack([g.colors for g in geoms])
        self.faces = np.vstack([g.faces + off for g, off in zip(geoms, offsets)])
        self.part_of_vertex = np.concatenate([g.part_index + self.part_start[k] for k, g in enumerate(geoms)])
        self.n_parts = int(self.part_start[-1])
        self.item_of_part = np.repeat(np.arange(len(self.items)), np.diff(self.part_start))
        # tall things reach far beyond their origin: (item, [local points]) for the screen boxes
        self.reach = {k: np.array([[0, 0, 5.6, 1.0], [0, 0, -0.8, 1.0]]) for k, (kind, ident) in enumerate(self.items)
                      if kind not in ("actor", "shadow", "shadow_floor")
                      and PR.prop_kind(ident.split(":")[-1]) in ("旌", "侯")}
        fp = np.asarray(sampler.plan.hall.get("footprint") or [[0.0, 0.0]], float)
        self.roof = (fp.min(0) - 0.9, fp.max(0) + 0.9) if len(fp) >= 3 else None   # under the eaves
        self.reset()

    def _collect_items(self) -> list:
        """Fill ``items``, ``virtual`` and ``unstrung``; the geometry of each item in order."""
        s = self.sampler
        geoms = []
        for aid in s.actors:
            self.items.append(("actor", aid))
            geoms.append(F.figure_geometry(aid))
        # every person's shadow: on the court (cast and contact) and on the hall's floor (contact only)
        self.shadows: dict[str, tuple[int, int]] = {}
        for aid in s.actors:
            self.shadows[aid] = (len(self.items), len(self.items) + 1)
            self.items += [("shadow", aid), ("shadow_floor", aid)]
            geoms += [SH.shadow_geometry(SH.COURT_RGB), SH.shadow_geometry(SH.FLOOR_SHADED)]
        for pid in s.props:
            self.items.append(("prop", pid))
            geoms.append(_geometry(pid, s.plan.landmarks))
        # things held according to the actors' states that the plan does not track as props
        for aid in s.actors:
            for st in s.states(aid):
                for h in st.get("holding") or []:
                    if h not in s.props and (aid, h) not in self.virtual:
                        self.virtual[(aid, h)] = len(self.items)
                        self.items.append(("virtual", f"{aid}:{h}"))
                        geoms.append(_geometry(h))
        # every bow also has its unstrung shape; one of the two is shown at a time
        for k, (kind, ident) in list(enumerate(self.items)):
            if kind in ("prop", "virtual") and PR.prop_kind(ident.split(":")[-1]) == "弓":
                self.unstrung[k] = len(self.items)
                self.items.append(("unstrung", ident))
                geoms.append(PR.prop_geometry(ident.split(":")[-1], strung=False))
        return geoms

    def recolour_things(self, colour_of) -> None:
        """Paint every thing (prop, thing held, unstrung bow) in ``colour_of(prop id or held kind)`` (an RGB of
        floats 0…1, or None to leave it), three quarters of the colour over a quarter of its own: the evidence
        view (issue 32).  Before a renderer takes the layer's colours."""
        item_of_vertex = self.item_of_part[self.part_of_vertex]
        for k, (kind, ident) in enumerate(self.items):
            if kind not in ("prop", "virtual", "unstrung"):
                continue
            rgb = colour_of(ident.split(":")[-1])
            if rgb is None:
                continue
            sel = item_of_vertex == k
            mixed = 0.75 * np.asarray(rgb, float) * 255 + 0.25 * self.colors[sel].astype(float)
            self.colors[sel] = np.clip(np.round(mixed), 0, 255).astype(self.colors.dtype)

    def reset(self) -> None:
        """Forget every pose: the next :meth:`update` poses everything afresh, as a new layer would."""
        self.matrices = np.zeros((self.n_parts, 4, 4))
        self._cache: dict[str, tuple] = {}
        self._resting_cache: dict[str, tuple] = {}
        self._held_cache: dict[str, tuple] = {}
        self._written: dict[int, tuple] = {}         # item → the (matrix, strings) objects last written for it
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
        bodies = self._pose_actors(t, carried, carrier_of, changed)
        self._pose_things(t, bodies, carried, carrier_of, changed)
        return changed

    def _pose_actors(self, t, carried, carrier_of, changed) -> dict[str, tuple[dict, float, list]]:
        """Pose the figures (only those whose pose changed); (world transforms, heading, holding) by actor."""
        s = self.sampler
        bodies = {}
        for k, (kind, ident) in enumerate(self.items):
            if kind != "actor":
                continue
            xyz, hd, params, state = s.actor_pose(ident, t, carried.get(ident))
            holding = list(state.get("holding") or [])
            for pid in holding:               # a prop in his hands by his state, unless its own carriers say otherwise
                if pid in s.props and pid not in carrier_of and not len(s.plan.props[pid].carriers):
                    carrier_of[pid] = ident
            sig = (tuple(np.round(xyz, 4)), round(hd, 3), tuple(round(v, 4) for v in params.values()),
                   bool(state.get("bare_left_arm")), bool(state.get("gear")), tuple(holding))
            cached = self._cache.get(ident)
            if cached is None or cached[0] != sig:
                w = P.world_transforms(*xyz, hd, params=params, state=state)
                self.matrices[self.part_start[k]:self.part_start[k + 1]] = np.stack([w[p] for p in F.PARTS])
                self._cache[ident] = (sig, w)
                self.heads[ident] = (w["head"] @ np.array([0, 0, 0.3, 1.0]))[:3]
                changed.add(k)
                changed.update(self._pose_shadow(ident, xyz, hd, w))
            bodies[ident] = (self._cache[ident][1], hd, holding, state.get("gestures") or ())
        return bodies

    def _pose_shadow(self, aid: str, xyz, heading: float, w: dict) -> tuple[int, int]:
        """Pose a person's shadow items: cast on the court and a contact disc, or under the roof only
        the disc on the floor (the other item hidden)."""
        court, floor = self.shadows[aid]
        disc = F.root_transform(*xyz, heading)
        under = self.roof is not None and bool(np.all((xyz[:2] > self.roof[0]) & (xyz[:2] < self.roof[1])))
        n = len(F.PARTS)
        for k in (court, floor):
            self.matrices[self.part_start[k]:self.part_start[k + 1]] = HIDDEN
        if under:
            self.matrices[self.part_start[floor] + n] = disc
        else:
            proj = SH.projection_onto(float(xyz[2]))
            j = self.part_start[court]
            self.matrices[j:j + n] = proj @ np.stack([w[p] for p in F.PARTS])
            self.matrices[j + n] = disc
        return court, floor

    def _pose_things(self, t, bodies, carried, carrier_of, changed) -> None:
        """Pose props, virtual held things and unstrung bows (after the figures that carry them)."""
        s = self.sampler
        alt_m: dict[int, np.ndarray] = {}
        tucked: dict[str, int] = {}
        for k, (kind, ident) in enumerate(self.items):
            if kind in ("actor", "shadow", "shadow_floor"):
                continue
            strings = None
            if kind == "unstrung":
                M = alt_m.get(k, HIDDEN)
            else:
                pk = PR.prop_kind(ident.split(":")[-1])
                holder = carrier_of.get(ident) if kind == "prop" else None
                if kind == "virtual":
                    aid, h = ident.split(":", 1)
                    holder = aid if h in bodies[aid][2] else None
                if holder is not None:
                    M, strings = self._held(ident, kind, holder, bodies, carried, tucked, t)
                elif kind == "prop" and pk == "侯":
                    M = HIDDEN                    # the ground draws the 侯 as the reading builds it, 正 and all
                elif kind == "prop":
                    M = self._resting(ident, t)
                else:
                    M = HIDDEN
                if k in self.unstrung:
                    unstrung = holder is not None and s.state(holder, t).get("bow") == "unstrung"
                    alt_m[self.unstrung[k]] = (HD.unstrung_bow_matrix(*bodies[holder][:2], bodies[holder][2]) if unstrung
                                                else HIDDEN)
                    M = HIDDEN if unstrung else M
            last = self._written.get(k)
            if last is not None and last[0] is M and last[1] is strings:
                continue                          # the very matrices written before (cached: nothing changed)
            self._written[k] = (M, strings)
            j0, j1 = self.part_start[k], self.part_start[k + 1]
            new = np.stack([M] + ([HIDDEN] * (j1 - j0 - 1) if strings is None or M is HIDDEN else list(strings)))
            if not np.array_equal(self.matrices[j0:j1], new):
                self.matrices[j0:j1] = new
                changed.add(k)

    def _resting(self, pid: str, t: float) -> np.ndarray:
        """A prop nobody carries, its matrix kept while it lies still (most of the tallies, most of the time)."""
        m = self.sampler.props[pid]
        xyz, hd, i, u = m.position(t)
        key = (i, tuple(xyz), hd)
        hit = self._resting_cache.get(pid)
        if hit is not None and hit[0] == key and str(m.track.posture[i]) != "flight":
            return hit[1]
        M = HD.resting_prop(pid, m, t, xyz, hd, i)
        self._resting_cache[pid] = (key, M)
        return M

    def _held(self, ident, kind, holder, bodies, carried, tucked, t):
        """(world 4x4, string halves or None) of a thing in ``holder``'s hands (:func:`.handling.held_matrix`),
        the same objects as the frame before while nothing it depends on changed: the holder's pose (his
        signature in ``_cache``), his gestures, what else he holds, and what it reads of ``t``
        (:func:`.handling.held_reading`)."""
        w, hd, holding, gestures = bodies[holder]
        others = holding + carried.get(holder, []) if kind == "prop" else holding
        reading = HD.held_reading(self.sampler, ident, holder, gestures, tucked, t, is_prop=kind == "prop")
        key = (holder, self._cache[holder][0], tuple(gestures), tuple(others), reading)
        hit = self._held_cache.get(ident)
        if hit is not None and hit[0] == key:
            return hit[1]
        out = HD.pose_held(ident, w, hd, gestures, others, reading, is_prop=kind == "prop")
        self._held_cache[ident] = (key, out)
        return out

    def screen_boxes(self, pose: CameraPose, size, items) -> dict[int, tuple[int, int, int, int]]:
        """Screen rectangles (x0, y0, x1, y1), clipped to the frame, of the given items; items off
        screen or hidden are left out."""
        items = [k for k in items if k < len(self.items)]
        if not items:
            return {}
        P_, O = self._anchor_points(items)
        if not len(P_):
            return {}
        px, depth = project(pose, P_, size)
        w, h = size
        f = (h / 2) / math.tan(math.radians(pose.view_angle) / 2)
        r = f * 0.55 / np.maximum(depth, 0.5) + 3               # a part reaches < 0.55 m from its joint
        out = {}
        ok = ~np.isnan(px[:, 0]) & (depth > 0.2)
        for k in np.unique(O):
            sel = (O == k) & ok
            if not sel.any():
                continue
            x0 = max(0, int(np.floor((px[sel, 0] - r[sel]).min())))
            x1 = min(w, int(np.ceil((px[sel, 0] + r[sel]).max())))
            y0 = max(0, int(np.floor((px[sel, 1] - r[sel]).min())))
            y1 = min(h, int(np.ceil((px[sel, 1] + r[sel]).max())))
            if x1 - x0 >= 1 and y1 - y0 >= 1:
                out[int(k)] = (x0, y0, x1, y1)
        return out

    def _anchor_points(self, items) -> tuple[np.ndarray, np.ndarray]:
        """World points that bound the given items (their visible joints, the reach of tall things)
        and the item each belongs to."""
        mask = self.part_mask(items)
        M = self.matrices[mask]
        own = self.item_of_part[mask]
        vis = np.abs(M[:, :3, :3]).sum(axis=(1, 2)) > 1e-9
        pts, owners = [M[vis][:, :3, 3]], [own[vis]]
        for k in items:
            if k in self.reach:
                Mk = self.matrices[self.part_start[k]]
                if np.abs(Mk[:3, :3]).sum() > 1e-9:
                    pts.append((Mk @ self.reach[k].T).T[:, :3])
                    owners.append(np.full(len(self.reach[k]), k))
        return np.vstack(pts), np.concatenate(owners)

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
        return _posed(M, self.part_of_vertex, self.vertices, self.normals)

    def subset_arrays(self, vidx: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Posed vertices and normals of the vertices ``vidx`` only."""
        return _posed(self.matrices, self.part_of_vertex[vidx], self.vertices[vidx], self.normals[vidx])
