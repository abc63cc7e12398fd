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
from ..scene import poses as P
from ..scene import props as PR
from ..scene.sampler import PlanSampler
from ..scene.shots import CameraPose, project

__all__ = ["MovingLayer"]

HIDDEN = np.diag([0.0, 0.0, 0.0, 1.0])      # a part scaled to nothing
# the bow's length (local z) along the figure's side-to-side axis: +90° about y
_BOW_ACROSS = Rotation.from_euler("y", 90, degrees=True)


def _across_palms(world: dict, heading: float) -> np.ndarray:
    """World 4x4 of an unstrung bow lying across both palms, its length side to side."""
    both = (F.hand_position(world, "l") + F.hand_position(world, "r")) / 2
    M = np.eye(4)
    M[:3, :3] = (Rotation.from_euler("z", -heading, degrees=True) * _BOW_ACROSS).as_matrix()
    M[:3, 3] = both + np.array([0, 0, 0.03])
    return M


def _posed(M: np.ndarray, part_of_vertex: np.ndarray, vertices: np.ndarray, normals: np.ndarray):
    """Vertices and normals moved by their parts' matrices (normals by the cofactor of the linear part,
    so a part scaled to nothing collapses without dividing by zero)."""
    R = M[:, :3, :3]
    cof = np.stack([np.cross(R[:, 1], R[:, 2]), np.cross(R[:, 2], R[:, 0]), np.cross(R[:, 0], R[:, 1])], axis=1)
    V = np.einsum("nij,nj->ni", R[part_of_vertex], vertices) + M[part_of_vertex, :3, 3]
    N = np.einsum("nij,nj->ni", cof[part_of_vertex], normals)
    N /= np.maximum(np.linalg.norm(N, axis=1, keepdims=True), 1e-12)
    return V, N


class MovingLayer:
    """All figures and props of a plan as one vertex-coloured mesh, posed per frame in numpy."""

    def __init__(self, sampler: PlanSampler):
        self.sampler = sampler
        self.items: list[tuple[str, str]] = []          # (kind "actor"/"prop"/"virtual"/"unstrung", id)
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
                      if kind != "actor" and PR.prop_kind(ident.split(":")[-1]) in ("旌", "侯")}
        self.reset()

    def _collect_items(self) -> list:
        """Fill ``items``, ``virtual`` and ``unstrung``; the geometry of each item in order."""
        s = self.sampler
        geoms = []
        for aid in s.actors:
            self.items.append(("actor", aid))
            geoms.append(F.figure_geometry(aid))
        for pid in s.props:
            self.items.append(("prop", pid))
            geoms.append(PR.prop_geometry(pid))
        # things held according to the actors' states that the plan does not track as props
        for aid in s.actors:
            for st in s.states(aid):
                for h in st.get("holding") or []:
                    if h not in s.props and (aid, h) not in self.virtual:
                        self.virtual[(aid, h)] = len(self.items)
                        self.items.append(("virtual", f"{aid}:{h}"))
                        geoms.append(PR.prop_geometry(h))
        # every bow also has its unstrung shape; one of the two is shown at a time
        for k, (kind, ident) in list(enumerate(self.items)):
            if kind != "actor" and PR.prop_kind(ident.split(":")[-1]) == "弓":
                self.unstrung[k] = len(self.items)
                self.items.append(("unstrung", ident))
                geoms.append(PR.prop_geometry(ident.split(":")[-1], strung=False))
        return geoms

    def reset(self) -> None:
        """Forget every pose: the next :meth:`update` poses everything afresh, as a new layer would."""
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
            for pid in holding:
                if pid in s.props and pid not in carrier_of:
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
            bodies[ident] = (self._cache[ident][1], hd, holding)
        return bodies

    def _pose_things(self, t, bodies, carried, carrier_of, changed) -> None:
        """Pose props, virtual held things and unstrung bows (after the figures that carry them)."""
        s = self.sampler
        alt_m: dict[int, np.ndarray] = {}
        for k, (kind, ident) in enumerate(self.items):
            if kind == "actor":
                continue
            if kind == "unstrung":
                M = alt_m.get(k, HIDDEN)
            else:
                holder = carrier_of.get(ident) if kind == "prop" else None
                if kind == "prop" and holder is not None:
                    w, hd, holding = bodies[holder]
                    M = PR.held_prop_transform(ident, w, hd, holding + carried.get(holder, []))
                elif kind == "prop":
                    xyz, hd, _, _ = s.position(s.props[ident], t)
                    M = F.root_transform(*xyz, hd)
                else:
                    aid, h = ident.split(":", 1)
                    w, hd, holding = bodies[aid]
                    holder = aid if h in holding else None
                    M = PR.held_prop_transform(h, w, hd, holding) if holder else HIDDEN
                if k in self.unstrung:
                    unstrung = holder is not None and s.state(holder, t).get("bow") == "unstrung"
                    alt_m[self.unstrung[k]] = _across_palms(*bodies[holder][:2]) if unstrung else HIDDEN
                    M = HIDDEN if unstrung else M
            j = self.part_start[k]
            if not np.array_equal(self.matrices[j], M):
                self.matrices[j] = M
                changed.add(k)

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
