"""Walkable space in 2.5D: the courtyard and the hall as two levels joined only by the stairs.

Each level is a shapely polygon of free space for a body centre (obstacles inflated
by the body radius).  Routes are shortest paths on a visibility graph (shapely +
scipy), kept to the tangent links between corners (the only ones a shortest way
uses); people standing still are added as discs when a route would cross them.
"""
from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field
from functools import lru_cache
from typing import NamedTuple

import numpy as np
import shapely
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import connected_components, dijkstra
from shapely.geometry import Point, Polygon, box
from shapely.ops import nearest_points

from ..model.reading import Reading, Stair
from ..model.vocabulary import BLOCKING, LandmarkKind

BODY_RADIUS = 0.25          # half a shoulder width, metres
CLEARANCE = 0.05            # extra room kept from walls and fixtures
PERSON_GAP = 0.6            # centre to centre, kept between any two people: two figures side by side
                            # need 0.64 m (model.footprint), less the outlines' 0.022 m margin each side
NEIGHBOURS = 2 * PERSON_GAP  # two standing closer than this leave no way between them (1.2 m)
END_REACH = 1.5             # corners round people this near the start or goal link to every other corner
ROUTE_MARGIN = 0.03         # routes keep a little more, so a way round someone is not at the gap exactly


COURT, STAIR, HALL = "court", "stair", "hall"
LEVELS = (COURT, STAIR, HALL)


@dataclass
class Level:
    name: str
    z: float
    area: Polygon                        # where a body centre may be
    nodes: np.ndarray = field(default_factory=lambda: np.zeros((0, 2)))
    edges: np.ndarray = field(default_factory=lambda: np.zeros((0, 2), int))
    weights: np.ndarray = field(default_factory=lambda: np.zeros(0))
    prepared: object = None
    dist: np.ndarray = field(default_factory=lambda: np.zeros((0, 0)))   # between corners
    pred: np.ndarray = field(default_factory=lambda: np.zeros((0, 0), int))
    edge_box: tuple = ()                 # (lo, hi) corners of each edge's bounding box
    prev: np.ndarray = field(default_factory=lambda: np.zeros((0, 2)))   # each corner's ring neighbours
    next: np.ndarray = field(default_factory=lambda: np.zeros((0, 2)))


class _Disc(NamedTuple):
    """A way round someone standing, with what never changes about it (see :meth:`Ground._disc`)."""
    centre: np.ndarray           # where he stands
    radius: float                # how far from him a way keeps
    corners: np.ndarray          # (m, 2) its corners that the ground allows
    static_number: np.ndarray    # its links to the fixtures' corners: which of its corners (their numbers below) …
    static_node: np.ndarray      # … to which fixture corner
    cuts: np.ndarray             # the fixtures' links (their numbers) that come closer to him than the radius
    first: int                   # the number of its first corner among the corners of all discs seen
    numbers: np.ndarray          # the numbers of its corners among the corners of all discs seen


class _Round(NamedTuple):
    """What a way round some people standing has whatever its start and goal (see :meth:`Ground._round_people`)."""
    people: "_Discs"             # the people, as discs
    extra: np.ndarray            # (m, 2) the corners round them that are kept
    pts: np.ndarray              # the fixtures' corners, then those: the nodes of a way round them but its ends
    known_a: np.ndarray          # the links known among those nodes that keep clear of them all …
    known_b: np.ndarray
    known_w: np.ndarray          # … and their lengths
    static_clear: np.ndarray     # which of the fixtures' links keep clear of them all
    lo: np.ndarray               # the box of their centres
    hi: np.ndarray
    far_pairs: np.ndarray        # (m + 2, m + 2): the pairs i < j of the corners round them, the start and the
                                 # goal (last) that are not among the links known (two corners near each other)


# the corners of a unit octagon whose sides touch the unit circle: the corners of a way round someone
_A = np.arange(8) * math.pi / 4 + math.pi / 8
_RING = np.c_[np.cos(_A) / math.cos(math.pi / 8), np.sin(_A) / math.cos(math.pi / 8)]


CACHE_SIZE = 20000          # answers a ground remembers of each kind before it forgets them all


def _remembered(cache: dict, key, compute):
    """``compute()`` remembered under ``key`` (the planner asks the same ways, points and corners again and
    again); a ValueError it raises (no way) is remembered too and raised again.  The cache forgets everything
    once it holds CACHE_SIZE answers."""
    hit = cache.get(key)
    if hit is None:
        try:
            hit = compute()
        except ValueError as e:
            hit = e
        if len(cache) > CACHE_SIZE:
            cache.clear()
        cache[key] = hit
    if isinstance(hit, ValueError):
        raise hit
    return hit


def _one_link_each(r: np.ndarray, c: np.ndarray, w: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The links between corners, each pair once (the shortest, whichever way round it was listed): a sparse
    matrix adds up the weights of a link listed twice, and the links round one person were listed again for
    each time he was met, so a way past him weighed two to six times its length."""
    if not len(r):
        return r, c, w
    a, b = np.minimum(r, c), np.maximum(r, c)
    order = np.lexsort((w, b, a))
    a, b, w = a[order], b[order], w[order]
    first = np.ones(len(a), bool)
    first[1:] = (a[1:] != a[:-1]) | (b[1:] != b[:-1])
    return a[first], b[first], w[first]


class Ground:
    """The two walkable levels of a reading and how to route across them."""

    def __init__(self, reading: Reading, radius: float = BODY_RADIUS) -> None:
        self.reading = reading
        self.radius = radius
        H = reading.hall_height
        hall = Polygon(reading.hall_footprint)
        # the walled court, the gate's passage and an apron of ground outside it (门外), deep enough for
        # the guests' file as they leave (门外位) to stand in one line up to 45 衆賓 (folded into files
        # behind each other, those going to the back files had to thread through the front ones)
        gx, gy = reading.gate[0], reading.gate[1]
        gw = reading.gate_width
        court = shapely.union_all([Polygon(reading.court_footprint),
                                   box(gx - gw / 2, gy - 1.0, gx + gw / 2, gy + 1.0),
                                   box(gx - 12.0, gy - 60.0, gx + 12.0, gy - reading.wall_thickness / 2 - 0.01)])
        stairs = [Polygon(self.stair_footprint(s)) for s in reading.stairs.values()]
        hall_obs, court_obs = [], []
        for lm in reading.landmarks.values():
            if lm.kind not in BLOCKING:
                continue
            if lm.footprint:
                shape = Polygon(lm.footprint)
            elif lm.size:
                shape = Point(lm.position[:2]).buffer(max(lm.size[0], lm.size[1]) / 2, 8)
            elif lm.kind == LandmarkKind.POST:
                shape = Point(lm.position[:2]).buffer(0.1, 8)
            else:
                continue
            (hall_obs if lm.position[2] > H / 2 else court_obs).append(shape)
        # The hall's side and back edges are its edge; keep a body's width from them.
        inflate = radius + CLEARANCE
        hall_free = hall.buffer(-inflate, join_style="mitre")
        if hall_obs:
            hall_free = hall_free.difference(shapely.union_all(hall_obs).buffer(inflate, 2))
        court_free = court.buffer(-inflate, join_style="mitre")
        blocked = shapely.union_all([hall, *stairs, *court_obs]).buffer(inflate, 2)
        court_free = court_free.difference(blocked)
        self._vis_cache: dict[tuple, np.ndarray] = {}
        self._route_cache: dict[tuple, object] = {}
        self._static_cache: dict[tuple, object] = {}     # see _route_static
        self._free_cache: dict[tuple, object] = {}       # see free_point
        self._is_free_cache: dict[tuple, bool] = {}      # see is_free
        self._way_cache: dict[tuple, object] = {}        # see route
        self._round_cache: dict[tuple, object] = {}      # see _round_people
        self._disc_ids: dict[tuple, int] = {}    # ways round people standing (see _disc)
        self._discs: list[_Disc] = []
        self._link_cache: dict[tuple[int, int], tuple[np.ndarray, np.ndarray]] = {}
        self._n_corners = 0                      # corners of all discs seen, numbered in that order
        # each of them by its number: where it is, and the centre and radius of its disc (rows past
        # _n_corners unused: the arrays grow by doubling)
        self._corner_xy, self._corner_centre = np.zeros((64, 2)), np.zeros((64, 2))
        self._corner_radius = np.zeros(64)
        self.boxed_in = False          # whether the last route had to pass too close to someone
        self.levels = {HALL: Level(HALL, H, _largest(hall_free)), COURT: Level(COURT, 0.0, _largest(court_free))}
        for level in self.levels.values():
            self._build_graph(level)

    # -- geometry ----------------------------------------------------------
    @staticmethod
    def stair_footprint(s: Stair) -> tuple[tuple[float, float], ...]:
        return ((s.x - s.width / 2, -s.run), (s.x + s.width / 2, -s.run), (s.x + s.width / 2, 0.0),
                (s.x - s.width / 2, 0.0))

    def level_at(self, x: float, y: float, z: float) -> str:
        """hall, stair or court for a point (z decides between hall and court).  Only a point south of the
        hall's edge and above the court can be on a stair (:func:`_on_stair`): most points asked are not."""
        if y < -1e-6 and z > 1e-3:
            for s in self.reading.stairs.values():
                if _on_stair(s, x, y, z):
                    return STAIR
        return self.level_of_height(z)

    def level_of_height(self, z: float) -> str:
        """hall or court for a height alone (above half the hall's height: the hall)."""
        return HALL if z > self.reading.hall_height / 2 else COURT

    def foot(self, stair: Stair, lane: float = 0.0) -> tuple[float, float]:
        """Where one stands in the court to climb: in front of the lowest step (lane: east offset)."""
        return stair.x + lane, -stair.run - self.radius - CLEARANCE - 0.15

    def head(self, stair: Stair, lane: float = 0.0) -> tuple[float, float]:
        """Where one arrives on the hall at the head of the stair."""
        return stair.x + lane, self.radius + CLEARANCE + 0.15

    @staticmethod
    def lane(stair: Stair, up: bool) -> float:
        """Going up keep to the east half, going down to the west (相左: each keeps the other on his left)."""
        return (1 if up else -1) * min(0.4, stair.width / 4)

    def free_point(self, level: str, x: float, y: float) -> tuple[float, float]:
        """The point itself if a body centre may stand there, else the nearest one that may (remembered per
        point: routes start and end where people stand, again and again)."""
        def nearest() -> tuple[float, float]:
            p = shapely.points((x, y))
            if shapely.covers(self.levels[level].prepared, p):
                return x, y
            q = nearest_points(self.levels[level].area.buffer(-1e-3), p)[0]
            return q.x, q.y

        return _remembered(self._free_cache, (level, x, y), nearest)

    def is_free(self, level: str, x: float, y: float) -> bool:
        """Whether a body centre may stand at the point (remembered per point: the planner asks the same
        spots again and again, over half of its questions in the passage)."""
        return _remembered(self._is_free_cache, (level, x, y),
                           lambda: bool(shapely.covers(self.levels[level].prepared, shapely.points((x, y)))))

    def are_free(self, level: str, pts: np.ndarray) -> np.ndarray:
        """Which of the points (n, 2) a body centre may stand on."""
        return shapely.covers(self.levels[level].prepared, shapely.points(np.asarray(pts)))

    # -- routing -----------------------------------------------------------
    def _build_graph(self, level: Level) -> None:
        area = level.area
        rings = [np.asarray(r.coords)[:-1] for r in (area.exterior, *area.interiors)]
        pts, inv = np.unique(np.vstack(rings), axis=0, return_inverse=True)
        inv = inv.reshape(-1)
        # each corner's neighbours along its ring: a shortest way turns at a corner only along a line
        # that keeps both of them on one side (a tangent); other links are never used
        level.prev, level.next = np.empty_like(pts), np.empty_like(pts)
        k = 0
        for ring in rings:
            idx = inv[k:k + len(ring)]
            level.prev[idx], level.next[idx] = np.roll(ring, 1, axis=0), np.roll(ring, -1, axis=0)
            k += len(ring)
        level.nodes = pts
        level.prepared = area.buffer(1e-6)
        shapely.prepare(level.prepared)
        i, j = np.triu_indices(len(pts), 1)
        tangent = _tangent(level, i, pts[j]) & _tangent(level, j, pts[i])
        i, j = i[tangent], j[tangent]
        segs = shapely.linestrings(np.stack([pts[i], pts[j]], axis=1))
        ok = shapely.covers(level.prepared, segs)
        level.edges = np.stack([i[ok], j[ok]], axis=1)
        level.weights = _lengths(pts[i[ok]] - pts[j[ok]])
        # shortest ways between all corners, once: a route nobody stands in the way of is read off these
        m = csr_matrix((np.maximum(level.weights, 1e-9), (level.edges[:, 0], level.edges[:, 1])),
                       shape=(len(pts), len(pts)))
        level.dist, level.pred = dijkstra(m, directed=False, return_predecessors=True)
        a, b = pts[level.edges[:, 0]], pts[level.edges[:, 1]]
        level.edge_box = (np.minimum(a, b), np.maximum(a, b))

    def route(self, level: str, start: tuple[float, float], goal: tuple[float, float],
              standing: list[tuple[float, float]] = ()) -> list[tuple[float, float]]:
        """Shortest path for a body centre on one level, around fixtures and people standing still.

        Returns the corner points from ``start`` to ``goal``; raises ValueError if unreachable.
        """
        start = self.free_point(level, *start)
        goal = self.free_point(level, *goal)
        self.boxed_in = False
        # the same way round the same people is asked for again and again (a walk, then its side way or
        # its spot aside): the answer remembered, with whether it was boxed in
        path, self.boxed_in = _remembered(self._way_cache, (level, start, goal, tuple(map(tuple, standing))),
                                          lambda: self._route_round(level, start, goal, standing))
        return list(path)

    def _route_round(self, level: str, start: tuple[float, float], goal: tuple[float, float],
                     standing) -> tuple[list[tuple[float, float]], bool]:
        """:meth:`route` from free points: the corners, and whether the way still passes too close to
        someone (no way round those standing there)."""
        lv = self.levels[level]
        # A person standing closer than PERSON_GAP to the start or the goal is kept at the distance
        # he already is (or will be) from it; everyone else at PERSON_GAP.
        sp = _pairs_array(standing)
        sx, sy = sp[:, 0], sp[:, 1]
        radii = np.minimum(PERSON_GAP + ROUTE_MARGIN, np.minimum(np.hypot(sx - start[0], sy - start[1]),
                                                                 np.hypot(sx - goal[0], sy - goal[1])) - 0.01)
        keep = radii >= 0.45
        centres, radii = sp[keep], radii[keep]
        xy, rr = centres.tolist(), radii.tolist()

        def other(i: int) -> tuple[tuple[float, float], float]:     # a person as a disc: (centre, radius)
            return (xy[i][0], xy[i][1]), rr[i]

        discs: list[tuple[tuple[float, float], float]] = []
        path = self._route_static(lv, start, goal)

        def hits(path) -> list[int]:
            if len(path) < 2 or not len(centres):
                return []
            # only those nearer the way's box than their radius can come near the way itself (the box is
            # never farther than the way: the 1e-3 the test below keeps is far more than any rounding)
            xs, ys = zip(*path)        # the box from the corners as they are (a few: no array made of them)
            cx, cy = centres[:, 0], centres[:, 1]
            off_x = np.maximum(np.maximum(min(xs) - cx, cx - max(xs)), 0.0)
            off_y = np.maximum(np.maximum(min(ys) - cy, cy - max(ys)), 0.0)
            cand = np.nonzero(np.hypot(off_x, off_y) < radii)[0]
            if not len(cand):
                return []
            # how far they are from the way worked out here (a few corners, a few people: quicker than making
            # shapely's lines and points); one whose distance is within 1e-9 of his limit (far more than both
            # ways of working it out can differ) is asked of shapely, so that every answer is shapely's
            lim = (radii[cand] - 1e-3).tolist()
            inside, unsure = [], []
            for k, ((x, y), limit) in enumerate(zip(centres[cand].tolist(), lim)):
                d = _from_way(path, x, y)
                if abs(d - limit) <= 1e-9:
                    unsure.append(k)
                inside.append(d < limit)
            if unsure:
                d = shapely.distance(shapely.linestrings(path), shapely.points(centres[cand[unsure]]))
                for k, v in zip(unsure, (d < np.asarray(lim)[unsure]).tolist()):
                    inside[k] = v
            return [i for i, v in zip(cand.tolist(), inside) if v]

        chains = None
        for attempt in range(10):
            idx = hits(path)
            if idx and attempt < 5:   # those standing next to the ones hit are in the way of any way round them too
                near = np.minimum.reduce(np.hypot(centres[:, None, 0] - centres[None, idx, 0],
                                                  centres[:, None, 1] - centres[None, idx, 1]), axis=1) < NEIGHBOURS
                idx = sorted(set(idx) | set(np.flatnonzero(near).tolist()))
            elif idx:     # five ways round still meet someone: a long file or row (24 衆賓 standing three 尺 apart).
                # Nobody passes between two standing closer than NEIGHBOURS, so the whole chain of those
                # hit, neighbour to neighbour, is one wall: go round all of it
                if chains is None:
                    chains = _chains(centres, NEIGHBOURS)
                idx = sorted(np.flatnonzero(np.isin(chains, chains[idx])).tolist())
            hit = [other(i) for i in idx if other(i) not in discs]
            if not hit:
                return path, False
            try:
                path = self._route_with(lv, start, goal, discs + hit)
                discs.extend(hit)
            except ValueError:          # no way round the people standing there: keep the path; the planner
                return path, True       # waits them out or tries another side
        return path, bool(hits(path))

    def _route_static(self, lv: Level, start, goal) -> list[tuple[float, float]]:
        """Shortest path round the fixtures only: straight if the way is clear, else through the corners
        each end sees, joined by the corners' shortest ways computed once (the corners between remembered
        per start and goal: the same ways are asked for again and again)."""
        between = _remembered(self._static_cache, (lv.name, tuple(start), tuple(goal)),
                              lambda: self._static_between(lv, start, goal))
        return [start, *between, goal]

    def _static_between(self, lv: Level, start, goal) -> tuple[tuple[float, float], ...]:
        """The corners of :meth:`_route_static` between its start and its goal."""
        if math.dist(start, goal) < 1e-6 or shapely.covers(lv.prepared, shapely.linestrings([start, goal])):
            return ()
        s_xy, g_xy = np.asarray(start, float), np.asarray(goal, float)
        vs, vg = self._visible(lv, s_xy), self._visible(lv, g_xy)
        if not len(vs) or not len(vg):
            raise ValueError(f"no way from ({start[0]:.2f}, {start[1]:.2f}) to ({goal[0]:.2f}, {goal[1]:.2f})")
        ds = _lengths(lv.nodes[vs] - s_xy)
        dg = _lengths(lv.nodes[vg] - g_xy)
        total = ds[:, None] + lv.dist[np.ix_(vs, vg)] + dg[None, :]
        i, j = np.unravel_index(int(np.argmin(total)), total.shape)
        if not np.isfinite(total[i, j]):
            raise ValueError(f"no way from ({start[0]:.2f}, {start[1]:.2f}) to ({goal[0]:.2f}, {goal[1]:.2f})")
        a, b = int(vs[i]), int(vg[j])
        way = [b]
        while way[-1] != a:
            way.append(int(lv.pred[a, way[-1]]))
        return tuple(map(tuple, lv.nodes[way[::-1]].tolist()))

    def _visible(self, lv: Level, p: np.ndarray) -> np.ndarray:
        """Indices of the static nodes visible from a point (cached: people stand on the same spots)."""
        def seen() -> np.ndarray:
            turn = np.flatnonzero(_tangent(lv, np.arange(len(lv.nodes)), np.repeat(p[None], len(lv.nodes), 0)))
            segs = shapely.linestrings(np.stack([np.repeat(p[None], len(turn), 0), lv.nodes[turn]], axis=1))
            return turn[shapely.covers(lv.prepared, segs)]       # only corners one turns at, and sees

        return _remembered(self._vis_cache, (lv.name, round(float(p[0]), 3), round(float(p[1]), 3)), seen)

    def _route_with(self, lv: Level, start, goal, discs, local: bool = True,
                    extent: str = "near") -> list[tuple[float, float]]:
        """Visibility-graph shortest path on a level, avoiding discs of radius PERSON_GAP (remembered: the
        planner asks the same way round the same people again when it tries waits and spots aside).
        ``local``: only the fixtures' corners near the way.  ``extent``: which links are made from the
        corners round people: "near" ones (within reach; those next to the start and the goal also to every
        corner round people); if no way is found, "ends": those next to the start and the goal to every
        fixture's corner they see too; last, "all": every corner round people to every other and to every
        fixture's corner it sees (one hemmed in where no fixture is near gets out round those beside him).
        Asked only when the straight way is blocked, by a fixture or by one of these people (:meth:`_route_round`
        asks once its way came within a radius less 1e-3 of someone, who is among the discs from then on), so
        the straight way is not tried again."""
        return list(_remembered(self._route_cache, (lv.name, tuple(start), tuple(goal), tuple(discs), local, extent),
                                lambda: self._route_with_uncached(lv, start, goal, discs, local, extent)))

    def _route_with_uncached(self, lv: Level, start, goal, discs, local: bool,
                             extent: str = "near") -> list[tuple[float, float]]:
        s_xy, g_xy = np.asarray(start, float), np.asarray(goal, float)
        if math.dist(start, goal) < 1e-6:
            return [start, goal]
        nb = len(lv.nodes)
        rp = _remembered(self._round_cache, (lv.name, tuple(discs)), lambda: self._round_people(lv, discs))
        pts = np.concatenate([rp.pts, s_xy[None], g_xy[None]])
        n = len(pts)
        s_i, g_i = n - 2, n - 1
        static = self._static_links(lv, s_xy, g_xy, rp, local)
        a_idx, b_idx = self._new_links(lv, rp, pts, extent)
        ok = rp.people.clear(pts[a_idx], pts[b_idx])
        # on the ground is known for the links round people and for those to the fixtures' corners seen;
        # the rest is checked here
        need = ok & (b_idx >= nb)
        if need.any():
            # (each link's two points side by side, as np.stack(…, axis=1) makes them without its Python steps)
            segs = shapely.linestrings(np.concatenate([pts[a_idx[need]], pts[b_idx[need]]], axis=1).reshape(-1, 2, 2))
            ok[np.flatnonzero(need)] = shapely.covers(lv.prepared, segs)
        a_idx, b_idx = a_idx[ok], b_idx[ok]
        known = (rp.known_a, rp.known_b, rp.known_w) if extent != "all" else (_NONE, _NONE, _NONE_W)
        r, c, w = _one_link_each(np.concatenate([lv.edges[static, 0], known[0], a_idx]),
                                 np.concatenate([lv.edges[static, 1], known[1], b_idx]),
                                 np.concatenate([lv.weights[static], known[2], _lengths(pts[a_idx] - pts[b_idx])]))
        dist, pred = dijkstra(_way_graph(r, c, np.maximum(w, 1e-9), n), indices=s_i, return_predecessors=True)
        if not np.isfinite(dist[g_i]):
            if local:
                return self._route_with(lv, start, goal, discs, local=False)
            if extent != "all":
                return self._route_with(lv, start, goal, discs, local=False,
                                        extent="ends" if extent == "near" else "all")
            raise ValueError(f"no way from ({start[0]:.2f}, {start[1]:.2f}) to ({goal[0]:.2f}, {goal[1]:.2f})")
        idx = [g_i]
        while idx[-1] != s_i:
            idx.append(int(pred[idx[-1]]))
        return [tuple(p) for p in pts[idx[::-1]].tolist()]

    def _round_people(self, lv: Level, discs) -> _Round:
        """What a way round these people has whatever its start and goal, as a :class:`_Round` (remembered
        per level and people: many walk round the same people standing): the corners round them, the links
        known among them and to the fixtures' corners that keep clear of them all (as node numbers: the
        fixtures' corners first, then these), which of the fixtures' links keep clear of them all (see
        :meth:`_static_links`), and which links between new nodes are to be tried for each way (see
        :meth:`_new_links`)."""
        people = _Discs(discs)
        ids, info, numbers, keep, new_index, extra = self._corners_round(lv, discs, people)
        pts = np.vstack([lv.nodes, extra])
        known_a = known_b = np.zeros(0, int)
        if len(info):
            known_a, known_b = self._known_links(lv, ids, info, numbers, keep, new_index, people)
            if len(known_a):
                ok = people.clear(pts[known_a], pts[known_b])
                known_a, known_b = known_a[ok], known_b[ok]
        known_w = _lengths(pts[known_a] - pts[known_b])
        static_clear = np.ones(len(lv.edges), bool)   # the fixtures' links that keep clear of them all
        if info:
            static_clear[np.concatenate([d.cuts for d in info])] = False
        # pairs of new nodes: the corners round people, then the start and the goal; those of two corners
        # nearer each other than the reach are known (above)
        m = len(extra)
        near = np.zeros((m + 2, m + 2), bool)
        near[:m, :m] = np.hypot(extra[:, None, 0] - extra[None, :, 0], extra[:, None, 1] - extra[None, :, 1]) < 4.0
        far_pairs = _upper(m + 2) & ~near
        lo, hi = (people.centres.min(0), people.centres.max(0)) if len(discs) else (np.full(2, np.inf), np.full(2, -np.inf))
        out = _Round(people, extra, pts, known_a, known_b, known_w, static_clear, lo, hi, far_pairs)
        for x in out[1:]:
            x.flags.writeable = False
        return out

    def _corners_round(self, lv: Level, discs, people: "_Discs"):
        """The corners round each person that the ground allows and nobody else's disc covers: (disc ids,
        their records, their corners' numbers among those of all discs, which corners are kept, a kept
        corner's node number, the kept corners)."""
        nb = len(lv.nodes)
        ids = [self._disc(lv, c, r) for c, r in discs]
        info = [self._discs[i] for i in ids]
        numbers = np.concatenate([d.numbers for d in info]) if info else np.zeros(0, int)
        extra = self._corner_xy[numbers]
        keep = np.ones(len(extra), bool)
        if len(extra):
            keep = (np.hypot(extra[:, None, 0] - people.centres[None, :, 0],
                             extra[:, None, 1] - people.centres[None, :, 1]) >= people.radii[None, :]).all(axis=1)
        new_index = np.cumsum(keep) - 1 + nb          # a kept corner's node number
        return ids, info, numbers, keep, new_index, extra[keep]

    @staticmethod
    def _static_links(lv: Level, s_xy, g_xy, rp: _Round, local: bool) -> np.ndarray:
        """Which of the fixtures' links are still clear of the people (``rp.static_clear``, worked out once for
        them) and within reach of the way: both ends within 6 m of the box of its ends and the people, i.e.
        the link's box within that (a detour round people is local; the whole ground again if no way is found
        there)."""
        if not local:
            return rp.static_clear
        lo_b = np.minimum(np.minimum(s_xy, g_xy), rp.lo) - 6.0
        hi_b = np.maximum(np.maximum(s_xy, g_xy), rp.hi) + 6.0
        lo, hi = lv.edge_box
        return rp.static_clear & np.logical_and.reduce(lo >= lo_b, axis=1) & np.logical_and.reduce(hi <= hi_b, axis=1)

    def _known_links(self, lv: Level, ids, info, numbers, keep, new_index,
                     people: "_Discs") -> tuple[np.ndarray, np.ndarray]:
        """Links known on the ground already (worked out once per person's disc and pair of discs): from the
        corners round people to the fixtures' corners near, and among corners round people near each
        other; they are only tested against the other discs by the caller."""
        centres, radii = people.centres, people.radii
        local_of = np.full(self._n_corners, -1)
        local_of[numbers] = np.where(keep, new_index, -1)
        ga = np.concatenate([d.static_number for d in info])
        sb = np.concatenate([d.static_node for d in info])
        la = local_of[ga]
        known_a, known_b = [la[la >= 0]], [sb[la >= 0]]
        cr = (radii + 0.03) / math.cos(math.pi / 8)        # how far a disc's corners lie from its centre
        pi, qi = _pairs(len(info), 0)
        reach = _lengths(centres[pi] - centres[qi]) < 4.0 + cr[pi] + cr[qi] + 1e-6
        ida, idb = np.asarray(ids)[pi[reach]], np.asarray(ids)[qi[reach]]
        lo_id, hi_id = np.minimum(ida, idb).tolist(), np.maximum(ida, idb).tolist()
        links = self._disc_links(lv, list(zip(lo_id, hi_id)))
        ga = np.concatenate([x[0] for x in links])
        gb = np.concatenate([x[1] for x in links])
        la, lb = local_of[ga], local_of[gb]
        sel = (la >= 0) & (lb >= 0)
        la, lb = la[sel], lb[sel]
        known_a.append(np.minimum(la, lb))
        known_b.append(np.maximum(la, lb))
        return np.concatenate(known_a), np.concatenate(known_b)

    def _new_links(self, lv: Level, rp: _Round, pts, extent: str) -> tuple[np.ndarray, np.ndarray]:
        """The links worked out for this way: from the start and the goal to the fixtures' corners they see
        (cached per point), and from the start, the goal and the corners next to them to every other new
        node however far (with near links only, a goal just past the end of a file could be reached only
        where a straight line to it happened to be clear: from the far side of the court).  The caller tests
        them all against the people (one from a corner round someone that cuts into him among them: testing
        those against him alone first, to spare the full test, cost more than it spared)."""
        nb, n_extra, n = len(lv.nodes), len(rp.extra), len(pts)
        s_i, g_i = n - 2, n - 1
        s_xy, g_xy = pts[s_i], pts[g_i]
        vs, vg = self._visible(lv, s_xy), self._visible(lv, g_xy)
        pairs_a, pairs_b = [np.full(len(vs), s_i), np.full(len(vg), g_i)], [vs, vg]
        new_pts = pts[nb:]
        is_end = np.minimum(_lengths(new_pts - s_xy), _lengths(new_pts - g_xy)) < END_REACH
        if extent == "all":
            is_end[:] = True
        if extent != "near":      # to the fixtures' corners they see, however far (cached per point)
            ends = np.flatnonzero(is_end)
            for k in ends[ends < n_extra] + nb:
                vis = self._visible(lv, pts[k])
                pairs_a.append(np.full(len(vis), k))
                pairs_b.append(vis)
        # each pair of new nodes once, one of them an end (the start and the goal always are); those known
        # already (two corners round people near each other) only with "all"
        ni, nj = np.nonzero((is_end[:, None] | is_end[None, :])
                            & (rp.far_pairs if extent != "all" else _upper(len(new_pts))))
        pairs_a.append(nb + ni)
        pairs_b.append(nb + nj)
        return np.concatenate(pairs_a), np.concatenate(pairs_b)

    def _disc(self, lv: Level, centre: tuple[float, float], r: float) -> int:
        """The id of a way round someone standing (a disc), with what never changes about it worked out
        once: its corners the ground allows, and its links to the fixtures' corners (near, tangent at the
        fixture's corner, on the ground, clear of him).  People stand on the same spots for minutes and
        the planner routes round them again and again."""
        key = (lv.name, centre, r)
        i = self._disc_ids.get(key)
        if i is not None:
            return i
        c = np.asarray(centre, float)
        ring = c + _RING * (r + 0.03)
        ring = ring[shapely.covers(lv.prepared, shapely.points(ring))]
        base = lv.nodes
        d = np.hypot(ring[:, None, 0] - base[None, :, 0], ring[:, None, 1] - base[None, :, 1])
        ei, bj = np.nonzero(d < 4.0)
        turn = _tangent(lv, bj, ring[ei])
        ei, bj = ei[turn], bj[turn]
        ok = ~_cuts(ring[ei], base[bj], np.broadcast_to(c, (len(ei), 2)), np.full(len(ei), r))
        ei, bj = ei[ok], bj[ok]
        ok = shapely.covers(lv.prepared, shapely.linestrings(np.stack([ring[ei], base[bj]], axis=1)))
        i = len(self._disc_ids)
        self._disc_ids[key] = i
        first, last = self._n_corners, self._n_corners + len(ring)
        numbers = np.arange(first, last)
        self._discs.append(_Disc(c, r, ring, first + ei[ok], bj[ok], _cut_links(lv, c, r), first, numbers))
        if last > len(self._corner_radius):
            grow = max(last, 2 * len(self._corner_radius)) - len(self._corner_radius)
            self._corner_xy = np.vstack([self._corner_xy, np.zeros((grow, 2))])
            self._corner_centre = np.vstack([self._corner_centre, np.zeros((grow, 2))])
            self._corner_radius = np.concatenate([self._corner_radius, np.zeros(grow)])
        self._corner_xy[first:last] = ring
        self._corner_centre[first:last] = c
        self._corner_radius[first:last] = r
        self._n_corners = last
        return i

    def _disc_links(self, lv: Level, pairs: list[tuple[int, int]]) -> list[tuple[np.ndarray, np.ndarray]]:
        """For pairs of ways round people (p <= q by id; p == q: among one's own corners): the links
        between their corners shorter than the reach, clear of both and on the ground, as (corners of p,
        corners of q) numbered among the corners of all discs seen (worked out once per pair, the new
        pairs of a route all at once)."""
        cache = self._link_cache
        out = [cache.get(pq) for pq in pairs]
        todo = [k for k, hit in enumerate(out) if hit is None]
        if not todo:
            return out
        # every corner of p with every one of q (with his own: each pair once), all new pairs at once: the
        # corners by their numbers, each link's ends and their discs read from them
        ii, jj, first_p, first_q, counts = [], [], [], [], []
        for k in todo:
            p, q = pairs[k]
            dp, dq = self._discs[p], self._discs[q]
            i, j = _pairs(len(dp.corners), 1) if p == q else _all_pairs(len(dp.corners), len(dq.corners))
            ii.append(i)
            jj.append(j)
            first_p.append(dp.first)
            first_q.append(dq.first)
            counts.append(len(i))
        ga = np.concatenate(ii) + np.repeat(first_p, counts)
        gb = np.concatenate(jj) + np.repeat(first_q, counts)
        a, b = self._corner_xy[ga], self._corner_xy[gb]
        ok = _lengths(a - b) < 4.0
        ga_, gb_ = ga[ok], gb[ok]
        ok[ok] = ~(_cuts(a[ok], b[ok], self._corner_centre[ga_], self._corner_radius[ga_])
                   | _cuts(b[ok], a[ok], self._corner_centre[gb_], self._corner_radius[gb_]))
        if ok.any():
            ok[ok] = shapely.covers(lv.prepared, shapely.linestrings(np.stack([a[ok], b[ok]], axis=1)))
        ga, gb = ga[ok], gb[ok]
        kept = np.concatenate([[0], np.cumsum(ok)])[np.cumsum([0, *counts])].tolist()   # each pair's share
        for k, lo, hi in zip(todo, kept, kept[1:]):
            out[k] = cache[pairs[k]] = (ga[lo:hi], gb[lo:hi])
        return out


def _way_graph(r: np.ndarray, c: np.ndarray, w: np.ndarray, n: int) -> csr_matrix:
    """The (n, n) sparse matrix of the links both ways, for a directed search, from links listed by row, by
    column within a row, each once (as :func:`_one_link_each` gives them): row i holds i's links to later
    corners, then those to earlier ones, each in the order listed.  That is the order in which scipy's
    undirected dijkstra reads a row of the matrix and then the row of its transpose, so the directed search
    relaxes the same links in the same order and finds the same ways (ties too), without transposing the
    matrix on each call as the undirected one does (a route round people builds one each time)."""
    rows = np.concatenate([r, c])
    order = np.argsort(rows, kind="stable")
    indptr = np.zeros(n + 1, np.int32)
    np.cumsum(np.bincount(rows, minlength=n), out=indptr[1:])
    return csr_matrix((np.concatenate([w, w])[order], np.concatenate([c, r]).astype(np.int32)[order], indptr),
                      shape=(n, n))


def _pairs_array(pairs) -> np.ndarray:
    """Pairs of numbers (x, y) as an (n, 2) array of floats, as ``np.asarray(pairs, float)`` makes it, read
    as one flat run of numbers (numpy then does not have to find out the nesting of a list of tuples, half
    the time for the few dozen people standing that every route is given)."""
    return np.fromiter(itertools.chain.from_iterable(pairs), float, 2 * len(pairs)).reshape(-1, 2)


def _lengths(d: np.ndarray) -> np.ndarray:
    """The length of each vector (n, 2): numpy's hypot of its columns, taken as slices (unpacking the
    transposed array, ``np.hypot(*d.T)``, gives the same numbers, but goes through Python's sequence protocol,
    which is slow for numpy arrays)."""
    return np.hypot(d[:, 0], d[:, 1])


def _from_way(path, x: float, y: float) -> float:
    """How far the point (x, y) is from a way (its corners, two or more), the least over its stretches of the
    distance to the nearest point of each (worked out in floats: within a few 1e-15 m of GEOS's distance)."""
    best = math.inf
    for (ax, ay), (bx, by) in zip(path, path[1:]):
        dx, dy = bx - ax, by - ay
        px, py = x - ax, y - ay
        length2 = dx * dx + dy * dy
        t = min(max((px * dx + py * dy) / length2, 0.0), 1.0) if length2 > 0.0 else 0.0
        ex, ey = px - t * dx, py - t * dy
        best = min(best, math.sqrt(ex * ex + ey * ey))
    return best


def _chains(centres: np.ndarray, gap: float) -> np.ndarray:
    """A label per person standing: the same for those joined by a chain of neighbours closer than ``gap``."""
    d = np.hypot(centres[:, None, 0] - centres[None, :, 0], centres[:, None, 1] - centres[None, :, 1])
    return connected_components(csr_matrix(d < gap), directed=False)[1]


class _Discs:
    """The people a way must keep clear of: discs (centre, radius)."""

    def __init__(self, discs) -> None:
        self.centres = np.asarray([c for c, _ in discs], dtype=float).reshape(-1, 2)
        self.radii = np.asarray([r for _, r in discs], dtype=float)
        self.lo, self.hi = self.centres - self.radii[:, None], self.centres + self.radii[:, None]

    def clear(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        """Segments a→b (n, 2) that keep each disc's radius from its centre."""
        out = np.ones(len(a), bool)
        if not len(self.centres) or not len(a):
            return out
        # only a disc whose box meets the segment's box can cut it: test those pairs exactly
        lo, hi = np.minimum(a, b), np.maximum(a, b)
        d_lo, d_hi = self.lo, self.hi
        ei, di = np.nonzero((lo[:, None, 0] <= d_hi[None, :, 0]) & (hi[:, None, 0] >= d_lo[None, :, 0])
                            & (lo[:, None, 1] <= d_hi[None, :, 1]) & (hi[:, None, 1] >= d_lo[None, :, 1]))
        if not len(ei):
            return out
        out[ei[_cuts(a[ei], b[ei], self.centres[di], self.radii[di])]] = False
        return out


@lru_cache(maxsize=256)
def _pairs(n: int, k: int) -> tuple[np.ndarray, np.ndarray]:
    """np.triu_indices(n, k), worked out once for each n (the numbers of people routed round recur); the
    arrays are read only."""
    i, j = np.triu_indices(n, k)
    i.flags.writeable = j.flags.writeable = False
    return i, j


_NONE, _NONE_W = np.zeros(0, int), np.zeros(0)     # no links


@lru_cache(maxsize=256)
def _upper(n: int) -> np.ndarray:
    """(n, n): whether i < j, worked out once for each n; read only."""
    out = np.triu(np.ones((n, n), bool), 1)
    out.flags.writeable = False
    return out


@lru_cache(maxsize=256)
def _all_pairs(n: int, m: int) -> tuple[np.ndarray, np.ndarray]:
    """Every one of n things with every one of m (i, j), worked out once for each n and m; read only."""
    i, j = np.repeat(np.arange(n), m), np.tile(np.arange(m), n)
    i.flags.writeable = j.flags.writeable = False
    return i, j


def _cut_links(lv: Level, c: np.ndarray, r: float) -> np.ndarray:
    """The numbers of the fixtures' links that come closer than r to c: those whose box meets the disc's
    box, tested exactly (as :meth:`_Discs.clear` tests each link against each disc)."""
    lo, hi = lv.edge_box
    d_lo, d_hi = c - r, c + r
    near = np.flatnonzero((lo[:, 0] <= d_hi[0]) & (hi[:, 0] >= d_lo[0]) & (lo[:, 1] <= d_hi[1]) & (hi[:, 1] >= d_lo[1]))
    e = lv.edges[near]
    return near[_cuts(lv.nodes[e[:, 0]], lv.nodes[e[:, 1]], np.broadcast_to(c, (len(near), 2)), np.full(len(near), r))]


def _on_stair(s: Stair, x, y, z):
    """Whether points (numbers or arrays) are on a stair: over its treads, above the court."""
    return (abs(x - s.x) <= s.width / 2 + 1e-6) & (-s.run - 1e-6 <= y) & (y < -1e-6) & (z > 1e-3)


def _cuts(a: np.ndarray, b: np.ndarray, c: np.ndarray, r: np.ndarray) -> np.ndarray:
    """Whether segments a→b (n, 2) come closer than r (n,) to points c (n, 2), one disc per segment."""
    abx, aby = b[:, 0] - a[:, 0], b[:, 1] - a[:, 1]
    L2 = np.maximum(abx * abx + aby * aby, 1e-12)
    cax, cay = c[:, 0] - a[:, 0], c[:, 1] - a[:, 1]
    t = np.minimum(np.maximum((cax * abx + cay * aby) / L2, 0.0), 1.0)
    dx, dy = cax - abx * t, cay - aby * t
    return (dx * dx + dy * dy) < (r - 1e-6) ** 2


def _tangent(lv: Level, i: np.ndarray, q: np.ndarray) -> np.ndarray:
    """Whether the lines from corners i of a level to points q (n, 2) leave both ring neighbours of the
    corner on one side (or on the line)."""
    p = lv.nodes[i]
    d = q - p
    a, b = lv.prev[i] - p, lv.next[i] - p
    c1 = d[:, 0] * a[:, 1] - d[:, 1] * a[:, 0]
    c2 = d[:, 0] * b[:, 1] - d[:, 1] * b[:, 0]
    return c1 * c2 >= -1e-9


def _largest(geom) -> Polygon:
    if isinstance(geom, Polygon):
        return geom
    parts = list(getattr(geom, "geoms", []))
    return max(parts, key=lambda p: p.area) if parts else Polygon()
