"""Who stands where and who will pass: free spots, the timed test of a way against everyone already
planned, and the shortest wait after which a way is clear.

:class:`Occupancy` answers these questions from the planning state (the bodies' keys and the index of where
their tracks go); it writes nothing there.  The rules of spacing it applies are the module's constants.

(Its arrays are small and asked about many times: their least and greatest are taken by the ufuncs' own
reductions, ``np.minimum.reduce``, which ``.min()`` calls through a Python wrapper (``.all(axis=…)``:
``np.logical_and.reduce``), and rows of one length are stacked by ``np.array`` of their list (what
``np.stack`` does, through Python); the same numbers.  An array is read item by item only as a list
(``tolist``): through Python's sequence protocol numpy makes an object of each item, slowly.)"""
from __future__ import annotations

import bisect
import math
from contextlib import contextmanager
from functools import lru_cache
from operator import itemgetter

import numpy as np
import shapely

from ..model.vocabulary import Posture
from .bodies import Body
from .geometry import _RING, _RADII, _beyond, _ways, _too_close
from .state import PlanState
from .timing import from_here, time_path
from .walkable import COURT, HALL, LEVELS, PERSON_GAP

# the waits tried before setting out, shortest first
DELAYS = (0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0, 8.0, 11.0, 15.0, 20.0, 30.0, 45.0)

LONG_DELAYS = (60.0, 80.0, 100.0, 130.0, 160.0, 200.0, 250.0, 300.0)   # when a busy way has to clear

# centre to centre, kept between any two people (more from one who bows: see Body.beyond): the gap the
# routes keep round those standing (walkable.PERSON_GAP, from the figures' outlines in
# reconstruct.model.footprint); the centre-distance audit demands 0.45 m
GAP = PERSON_GAP
DISH_GAP = 0.45          # a body's centre keeps this far from a dish lying on the ground (not standing on it)
DISHES = ("荐", "俎", "羞")

# heights apart at which two may still meet: one on a stair two steps (0.46 m) above another still has
# his robe where the other's hands are
SAME_LEVEL = 0.5

BROAD = GAP + 0.35  # no one keeps farther from anyone than this (a bowing figure's reach included)

AISLE = 1.05        # where one may, one stands this far from others, so that people can pass between

AISLE_REACH = 5.2   # … if such a spot lies this near the place (in the court;

AISLE_REACH_HALL = 1.2  # on the hall, whose places the text names closely: 西階上, 西序端)

KEPT = 20000        # answers kept in a cache of Occupancy (lines through stretches of track), at most

STAND_TAIL = 60.0   # at least this long one is assumed to stand where one stops (see Occupancy.tail_end)

# spots a little aside of a place, nearest first: 0.6 m on the four sides, then further round
ASIDE = tuple((round(r * math.sin(a), 3), round(r * math.cos(a), 3))
              for r, n in ((0.6, 4), (0.9, 8), (1.3, 8), (1.8, 12), (2.4, 12), (3.0, 16))
              for a in np.radians(np.arange(n) * 360 / n + 90))


# the rings of spots round a place (:meth:`Occupancy.free_spot`), as offsets east and north, ring after ring
_RINGS_X = np.concatenate([r * np.sin(_RING) for r in _RADII])
_RINGS_Y = np.concatenate([r * np.cos(_RING) for r in _RADII])


@lru_cache(maxsize=512)
def _shifts(delays: tuple[float, ...], step: float) -> list[int]:
    """Each wait as a whole number of steps of the sampling grid (a few tuples of waits recur)."""
    return [round(d / step) for d in delays]


def _nearest(pts: np.ndarray, others: np.ndarray) -> np.ndarray:
    """For each point (n, 2): how far the nearest of the others (m, 2) is."""
    return np.sqrt(np.minimum.reduce((pts[:, None, 0] - others[None, :, 0]) ** 2 + (pts[:, None, 1] - others[None, :, 1]) ** 2, axis=1))


def _least_d2(x: float, y: float, others) -> float:
    """For one point: the least square distance to the others (pairs of numbers, at least one), as
    :func:`_nearest` and the like work it out for arrays (each difference times itself, as numpy squares it,
    the x term first; a root taken of it is then :func:`_nearest`'s), by Python's floats one by one: quicker
    for a single point than making arrays of it."""
    best = math.inf
    for ox, oy in others:
        dx, dy = x - ox, y - oy
        d2 = dx * dx + dy * dy
        if d2 < best:
            best = d2
    return best


def keepout_of(reading, ground) -> list[tuple[float, float, str]]:
    """Points nobody stops near: where the stairs' lanes meet the court and the hall (others must pass
    there), and the gate's passage, inside and out (those who leave or come in pass there)."""
    out: list[tuple[float, float, str]] = []
    for st in reading.stairs.values():
        for up in (True, False):
            lane = ground.lane(st, up)
            out += [(*ground.foot(st, lane), COURT), (st.x + lane, -st.run - 0.1, COURT),
                    (*ground.head(st, lane), HALL)]
    gx, gy = reading.gate[0], reading.gate[1]
    half = max(0.3, reading.gate_width / 2)
    out += [(gx + dx, gy + dy, COURT) for dx in np.linspace(-half, half, max(3, int(2 * half / 0.4) + 1))
            for dy in (1.5, 0.5, -0.5, -1.5, -2.5)]
    return out


class Occupancy:
    """Who stands where and who will pass, as planned so far: free spots, the timed test of a way against
    everyone already planned, and the shortest wait after which a way is clear.  Reads the state's bodies,
    track index and ground; keeps only caches of its own answers."""

    def __init__(self, state: PlanState) -> None:
        self.state = state
        self.ground = state.ground
        self.keepout = keepout_of(state.reading, state.ground)
        self._extra: list[tuple[float, float, str]] = []     # someone assumed standing (see assuming_standing)
        self._ignored: tuple[int, ...] = ()                    # slots not counted as standing (see ignoring)
        self._standing_memo: tuple = (None, [])
        self._end_levels: tuple = (None, None)    # (the index's count of each end's moves, the level there)
        self._lanes: dict[str, tuple] = {}        # the points of self.keepout on each level (see _lanes_of)
        self._ends_memo: tuple = (None, [], None)  # ((index version, people), where tracks end, the levels there)
        self._spots: dict[tuple, tuple] = {}      # candidate spots round a place, and which the ground allows
        self._dish_props: tuple = (-1, [])        # (how many props there were, the dishes among them)
        self._dish_pts: dict[str, tuple] = {}     # per level: where the dishes lay when asked last (see _dishes_now)
        self._lines: dict[bytes, object] = {}    # the lines through stretches of track, by their points (_apart)

    @contextmanager
    def assuming_standing(self, x: float, y: float, level: str):
        """Within the block, someone is taken to stand at (x, y) on a level (routes go round him)."""
        self._extra.append((x, y, level))
        try:
            yield
        finally:
            self._extra.clear()

    @contextmanager
    def ignoring(self, *bodies: Body):
        """Within the block, these are not taken to stand anywhere (routes go through them)."""
        self._ignored = tuple(b.slot for b in bodies)
        try:
            yield
        finally:
            self._ignored = ()

    def position_at(self, body: Body, t: float) -> tuple[float, float, float]:
        k = body.keys
        if not k:
            return body.x, body.y, body.z
        if t <= k[0][0]:
            return k[0][1], k[0][2], k[0][3]
        if t >= k[-1][0]:
            return k[-1][1], k[-1][2], k[-1][3]
        i = bisect.bisect_right(k, t, key=itemgetter(0)) - 1
        a, b = k[i], k[i + 1]
        f = (t - a[0]) / (b[0] - a[0]) if b[0] > a[0] else 1.0
        return a[1] + (b[1] - a[1]) * f, a[2] + (b[2] - a[2]) * f, a[3] + (b[3] - a[3]) * f

    @staticmethod
    def walking_at(b: Body, t: float) -> bool:
        """Whether someone is on his way somewhere at time t (between two keys that differ in place; the
        keys found as :meth:`position_at` finds them)."""
        k = b.keys
        i = bisect.bisect_right(k, t, key=itemgetter(0))
        return 0 < i < len(k) and (k[i][1], k[i][2]) != (k[i - 1][1], k[i - 1][2])

    def standing(self, me: Body, t: float, level: str) -> list[tuple[float, float]]:
        """Where others stand at time t on a level, and where those still moving will stop (remembered
        while nobody's track changes: a walk asks several times before it is written)."""
        dishes, dish_points = self._dishes_now(level)
        key = (me.id, t, level, self.state.track_index.version, tuple(self._extra), self._ignored, dishes.tobytes())
        if self._standing_memo[0] == key:
            return list(self._standing_memo[1])
        # the dishes served lying on the ground are gone round and not stood on, as a body is
        out = self._standing(me, t, level) + dish_points
        self._standing_memo = (key, out)
        return list(out)

    def _standing(self, me: Body, t: float, level: str) -> list[tuple[float, float]]:
        out = [(x, y) for x, y, lv in self._extra if lv == level]
        # where everyone's track ends, and on which level, from the index (all at once); those whose track
        # has ended by t stand there, the others will stop there, and stand where they are at t unless they
        # are on their way then: one walking behind them is kept from them by the timed test (he waits for
        # them to move on), not sent round them as if they stood there (宾出: the 大夫, last of the file,
        # went round the far end of the 侯)
        ti, bodies = self.state.track_index, self.state.by_slot
        n = len(bodies)
        stops, levels = self._ends_now(n)
        # (a few dozen people: read from the index's plain numbers one by one, quicker than as arrays)
        here, last_t, ignored = LEVELS.index(level), ti.last_times(), self._ignored
        for i in range(n):
            ended = last_t[i] <= t
            there = levels[i] == here
            if (ended and not there) or i == me.slot or i in ignored:
                continue
            b = bodies[i]
            if not b.keys:
                continue
            if ended:
                out.append(stops[i])
                continue
            x, y, z = self.position_at(b, t)
            if self.ground.level_at(x, y, z) == level and not self.walking_at(b, t):
                out.append((x, y))
            if there and stops[i] != (x, y):
                out.append(stops[i])
        return out

    def _ends_now(self, n: int) -> tuple[list[tuple[float, float]], list[int]]:
        """Where each of the n tracks ends, (x, y), and the level there (see :meth:`_end_levels_now`),
        kept while no track changes (the index's version; a person added changes n)."""
        ti = self.state.track_index
        if self._ends_memo[0] != (ti.version, n):
            ends = ti.ends()[:n]
            self._ends_memo = ((ti.version, n), [(x, y) for x, y, _ in ends], self._end_levels_now(ends))
        return self._ends_memo[1], self._ends_memo[2]

    def _end_levels_now(self, ends: list[tuple[float, float, float]]) -> list[int]:
        """The level of where each track ends (``ends``: (x, y, z) each, from the index; each level's index
        in LEVELS), found again only for the tracks whose end has moved since asked last (the index counts
        the moves)."""
        moves = self.state.track_index.end_move_counts()[:len(ends)]     # (a copy: kept as known below)
        known, levels = self._end_levels
        if known is None or len(known) != len(ends):
            levels = [LEVELS.index(self.ground.level_at(*e)) for e in ends]
        else:
            moved = [i for i, (m, k) in enumerate(zip(moves, known)) if m != k]
            if moved:
                levels = list(levels)
                for i in moved:
                    levels[i] = LEVELS.index(self.ground.level_at(*ends[i]))
        self._end_levels = (moves, levels)
        return levels

    def free_spot(self, me: Body, x: float, y: float, level: str, t: float,
                  roomy: bool = True, in_lane: bool = False) -> tuple[float, float]:
        """The place itself, or the nearest spot beside it that nobody occupies and a body fits in; with
        ``roomy``, rather a spot a little further that leaves room to pass between (not when one comes up
        to someone to hand him a thing or take his hand: he stands within reach).  ``in_lane``: the place
        is named at a stair's foot (西階下西一尺五寸: a pair about to go up side by side), so it may be
        stood on although the lanes are otherwise kept clear of those who stop."""
        others = self.standing(me, t, level) + self._stops_after(me, t, level)

        # the place itself when it is free (most often): the first spot allowed, as below, found without the
        # rings round it (which the ground and the lanes allow is worked out only for a place where they are
        # needed: two in three places asked for the first time are free)
        if (bool(self.ground.is_free(level, x, y)) if in_lane else self.fits(level, x, y)) \
                and self.off_dishes_at(level, x, y) \
                and (not others or math.sqrt(_least_d2(x, y, others)) >= PERSON_GAP + 0.05):
            return float(x), float(y)
        # the place, then rings of candidates round it (starting south, turning anticlockwise); which of
        # them the ground and the lanes allow, and which lie near enough the place for an aisle to be sought
        # there, is remembered per place (places are named again and again)
        reach = AISLE_REACH if level == COURT else AISLE_REACH_HALL
        if (level, x, y) not in self._spots:
            cand = np.vstack([[x, y], np.column_stack((x + _RINGS_X, y + _RINGS_Y))])
            allowed = self.ground.are_free(level, cand) & self.clear_of_lanes(level, cand)
            self._spots[(level, x, y)] = (cand, allowed, np.hypot(cand[:, 0] - x, cand[:, 1] - y) <= reach)
        cand, allowed, within_reach = self._spots[(level, x, y)]
        ok = allowed.copy()
        if in_lane:
            ok[0] = bool(self.ground.is_free(level, x, y))
        # nobody stands on the dishes served (薦, 俎, 羞 lying on the ground): tested only where still allowed
        ok[ok] = self.off_dishes(level, cand[ok])
        if others:
            o = np.asarray(others)
            # how far the nearest other stands, worked out only for the spots still allowed (both tests below
            # are and-ed with that; 0 elsewhere)
            live = np.flatnonzero(ok)
            near = np.zeros(len(cand))
            near[live] = _nearest(cand[live], o)
            # room for someone to pass between (an aisle) near the place, else at least a body's gap
            spacious = ok & (near >= AISLE) & within_reach
            ok &= near >= PERSON_GAP + 0.05
            if roomy and spacious.any() and not ok[0]:   # the place itself when free, else a roomy spot near it
                ok = spacious
        if ok.any():
            k = int(np.argmax(ok))
            return float(cand[k, 0]), float(cand[k, 1])
        fx, fy = self.ground.free_point(level, x, y)
        if math.hypot(fx - x, fy - y) > 3.0:
            self.state.fail(f"{me.id} cannot reach ({x:.2f}, {y:.2f}) on the {level}: the nearest free ground is "
                      f"{math.hypot(fx - x, fy - y):.1f} m away")
        return fx, fy

    def off_dishes(self, level: str, pts: np.ndarray) -> np.ndarray:
        """For each point (n, 2): whether one standing there keeps ``DISH_GAP`` from every dish lying on the level."""
        dishes = self._dishes(level)
        if not len(dishes):
            return np.ones(len(pts), bool)
        # the root of the least square distance (the least distance: sqrt is monotone), one root per point
        d2 = (pts[:, None, 0] - dishes[None, :, 0]) ** 2 + (pts[:, None, 1] - dishes[None, :, 1]) ** 2
        return np.sqrt(np.minimum.reduce(d2, axis=1)) >= DISH_GAP

    def off_dishes_at(self, level: str, x: float, y: float) -> bool:
        """:meth:`off_dishes` for one point (x, y)."""
        dishes = self._dishes_now(level)[1]        # (as numbers: see _least_d2)
        return not dishes or math.sqrt(_least_d2(x, y, dishes)) >= DISH_GAP

    def crosses_dishes(self, level: str, pts) -> bool:
        """Whether a way through the points (n, 2) on a level passes closer than ``DISH_GAP`` to a dish lying
        there (one who is not routed round them, walking beside his partner, steps over them)."""
        dishes = self._dishes(level)
        if not len(dishes) or len(pts) < 2:
            return False
        return bool((shapely.distance(shapely.linestrings(np.asarray(pts, float)[:, :2]),
                                      shapely.points(dishes)) < DISH_GAP).any())

    def _dishes(self, level: str) -> np.ndarray:
        """Where the dishes lie on a level now (n, 2): 薦, 俎 and 羞 set down, not in anyone's hands."""
        return self._dishes_now(level)[0]

    def _dishes_now(self, level: str) -> tuple[np.ndarray, list[tuple[float, float]]]:
        """Where the dishes lie on a level now, as :meth:`_dishes` has them and as pairs of numbers (read only)."""
        hall = level != COURT
        h = self.state.reading.hall_height / 2
        props = self.state.props
        if self._dish_props[0] != len(props):       # the dishes among the props (props are only added)
            self._dish_props = (len(props), [pr for pr in props.values() if self.state.prop_kinds.get(pr.id) in DISHES])
        pts = [(pr.x, pr.y) for pr in self._dish_props[1] if pr.carrier is None and (pr.z > h) == hall]
        # the array kept while they lie where they lay when asked last (they are asked for far more often
        # than they are moved); read only
        kept = self._dish_pts.get(level)
        if kept is None or kept[0] != pts:
            arr = np.asarray(pts, float).reshape(-1, 2)
            arr.flags.writeable = False
            kept = self._dish_pts[level] = (pts, arr, [tuple(d) for d in arr.tolist()])
        return kept[1], kept[2]

    def fits(self, level: str, x: float, y: float, others: list[tuple[float, float]] = ()) -> bool:
        """Whether a body may stand at (x, y): on free ground, out of the lanes, clear of ``others``."""
        return (self.ground.is_free(level, x, y) and self._clear_of_lanes_at(level, x, y)
                and all(math.dist((x, y), o) >= PERSON_GAP + 0.05 for o in others))

    def clear_of_lanes(self, level: str, pts: np.ndarray) -> np.ndarray:
        """Which points (n, 2) keep the gap from the ways up and down the stairs and through the gate."""
        lanes = self._lanes_of(level)[0]
        d2 = (pts[:, None, 0] - lanes[None, :, 0]) ** 2 + (pts[:, None, 1] - lanes[None, :, 1]) ** 2
        return np.logical_and.reduce(d2 >= GAP ** 2, axis=1)

    def _clear_of_lanes_at(self, level: str, x: float, y: float) -> bool:
        """:meth:`clear_of_lanes` for one point (x, y)."""
        lanes = self._lanes_of(level)[1]
        return not lanes or _least_d2(x, y, lanes) >= GAP ** 2

    def _lanes_of(self, level: str) -> tuple[np.ndarray, list]:
        """The points of ``keepout`` on a level, (n, 2), and as pairs of numbers (fixed by the reading: made once)."""
        lanes = self._lanes.get(level)
        if lanes is None:
            arr = np.asarray([(kx, ky) for kx, ky, kl in self.keepout if kl == level]).reshape(-1, 2)
            lanes = self._lanes[level] = (arr, arr.tolist())
        return lanes

    def _stops_after(self, me: Body, t: float, level: str, horizon: float = 180.0) -> list[tuple[float, float]]:
        """Where others are already planned to stop between t and t + horizon (so nobody takes the spot)."""
        out = []
        n = len(self.state.by_slot)
        last_t = self.state.track_index.last_times()
        for j in [i for i in range(n) if last_t[i] >= t]:     # whose tracks go on after t
            b = self.state.by_slot[j]
            keys = b.keys
            if b is me or not keys:
                continue
            # his keys from t to t + horizon (found in the list of keys, as Body.window finds them), and
            # those among them where he stops walking (a few dozen keys: read as they are, not as arrays)
            i0 = max(1, bisect.bisect_left(keys, t, key=itemgetter(0)))
            i1 = bisect.bisect_right(keys, t + horizon, key=itemgetter(0))
            walked = keys[i0 - 1][5] == Posture.WALK
            for k in keys[i0:i1]:
                walks = k[5] == Posture.WALK
                if walked and not walks and self.ground.level_at(k[1], k[2], k[3]) == level:
                    out.append((k[1], k[2]))
                walked = walks
        return out

    def near_tracks(self, me: Body, xy_lo, xy_hi, t0: float, t1: float) -> list[Body]:
        """Others whose tracks come into a box (grown by as far as anyone keeps from anyone) during a time
        window."""
        lo = (float(xy_lo[0]) - BROAD, float(xy_lo[1]) - BROAD)      # (as numbers: a pair of them is
        hi = (float(xy_hi[0]) + BROAD, float(xy_hi[1]) + BROAD)      # quicker so than as arrays)
        near = self.state.track_index.near(lo, hi, t0, t1)
        bodies = self.state.by_slot
        return [bodies[i] for i in near.nonzero()[0].tolist() if bodies[i] is not me]

    def conflict(self, me: Body, pts: list[tuple[float, float, float, float]],
                 among: list[Body] | None = None, extra: float = 0.0) -> tuple[str, float] | None:
        """First other person closer than the gap (and ``extra``, how far one reaches beyond a standing
        figure) at about the same height along a timed path [(t, x, y, z)], or None.  ``among`` narrows the
        search to people already found near (see :meth:`near_tracks`)."""
        if len(pts) < 2:
            return None
        arr = np.asarray(pts)
        t0, t1 = arr[0, 0], arr[-1, 0]
        ts = np.arange(t0, t1 + 1e-9, 0.1)
        if among is None:       # only those whose tracks come near, from the index
            among = self.near_tracks(me, np.minimum.reduce(arr[:, 1:3]), np.maximum.reduce(arr[:, 1:3]), t0, t1)
        met = self.may_meet(me, arr[:, 1:3], among, t0, t1, extra)
        if not met:
            return None
        # everyone met sampled on the same grid (met, samples), tested all at once
        mine = [np.interp(ts, arr[:, 0], arr[:, j]) for j in (1, 2, 3)]
        bx, by, bz = (np.array([np.interp(ts, k[:, 0], k[:, j]) for _, k in met]) for j in (1, 2, 3))
        gap = GAP + extra + np.array([_beyond(k, ts) for _, k in met])
        bad = _too_close(mine[0] - bx, mine[1] - by, np.abs(mine[2] - bz) < SAME_LEVEL, gap)
        hit = bad.any(axis=1)
        if not hit.any():
            return None
        when = np.where(hit, bad.argmax(axis=1), len(ts))     # each one's first sample too close
        i = int(np.argmin(when))                   # the earliest; of those met at once, the first in order
        return met[i][0].id, float(ts[when[i]])

    def first_wait_to_stand(self, me: Body, at: tuple[float, float, float], t: float, dur: float,
                            delays: tuple[float, ...], extra: float = 0.0) -> float | None:
        """The first of the waits (``delays``) after which standing at ``at`` = (x, y, z) from t + wait for
        dur meets nobody, as :meth:`conflict` finds for that standing, wait after wait; None if none does.
        Where someone is in the way, the later waits are first tested against him alone, all at once (one
        in the way is enough to rule a wait out): one who stands close by (a bow's partner beside him) would
        otherwise be found again, wait after wait, by the whole test."""
        x, y, z = at
        ruled_out = np.zeros(len(delays), bool)
        for i, delay in enumerate(delays):
            if ruled_out[i]:
                continue
            s = t + delay
            hit = self.conflict(me, [(s, x, y, z), (s + dur, x, y, z)], extra=extra)
            if hit is None:
                return delay
            ruled_out[i + 1:] |= self._in_the_way(me, self.state.bodies[hit[0]], at,
                                                  [t + d for d in delays[i + 1:]], dur, extra)
        return None

    def _in_the_way(self, me: Body, who: Body, at: tuple[float, float, float], starts: list[float], dur: float,
                    extra: float = 0.0) -> np.ndarray:
        """For each start s: whether :meth:`conflict` of one standing at ``at`` from s to s + dur finds
        ``who`` too close, the same steps taken for him alone: his track comes near the spot in the index
        (:meth:`near_tracks`), its stretch then comes within reach of the spot (:meth:`may_meet`), and
        sampled every 0.1 s it comes closer than the gap (the samples of every start tested at once)."""
        out = np.zeros(len(starts), bool)
        k = who.array()
        if who is me or not who.keys or not starts:
            return out
        x, y, z = at
        lo, hi = (x - BROAD, y - BROAD), (x + BROAD, y + BROAD)
        ends = [s + dur for s in starts]
        times = k[:, 0]
        i0 = np.maximum(np.searchsorted(times, starts, side="right") - 1, 0).tolist()     # as Body.window finds them
        i1 = (np.searchsorted(times, ends, side="right") + 1).tolist()
        # the starts whose windows the index lets through, by the stretch of his track each covers (the
        # later waits of one standing still mostly cover the same: each stretch is tested once)
        by_stretch: dict[tuple[int, int], list[int]] = {}
        for j, (s, e, a, b) in enumerate(zip(starts, ends, i0, i1)):
            if self.state.track_index.near_one(who.slot, lo, hi, s, e):
                by_stretch.setdefault((a, b) if b > a else (len(k) - 1, len(k)), []).append(j)
        stretches = []
        for a, b in by_stretch:
            seg = k[a:b]
            s_lo, s_hi = np.minimum.reduce(seg[:, 1:3]), np.maximum.reduce(seg[:, 1:3])
            if not (s_hi[0] < lo[0] or s_lo[0] > hi[0] or s_hi[1] < lo[1] or s_lo[1] > hi[1]):
                stretches.append(((a, b), seg))
        if not stretches:
            return out
        far = self._apart(np.asarray([[x, y], [x, y]], float), [seg for _, seg in stretches], extra)
        # each start's samples in a block of its own, the blocks end to end (a stretch's together), tested at
        # once: the last sample of a block is then tested as the last (not as leading into the next block)
        met, blocks, parts = [], [], []
        for (ab, seg), f in zip(stretches, far.tolist()):
            if f:
                continue
            mine = [np.arange(starts[j], ends[j] + 1e-9, 0.1) for j in by_stretch[ab]]
            ts = np.concatenate(mine)
            parts.append([np.interp(ts, seg[:, 0], seg[:, c]) for c in (1, 2, 3)] + [GAP + extra + _beyond(seg, ts)])
            met += by_stretch[ab]
            blocks += mine
        if not met:
            return out
        bx, by, bz, gap = (np.concatenate([p[c] for p in parts]) for c in range(4))
        dx, dy, same = x - bx, y - by, np.abs(z - bz) < SAME_LEVEL
        bad = _too_close(dx, dy, same, gap)
        last = np.cumsum([len(b) for b in blocks]) - 1
        bad[last] = (np.hypot(dx[last], dy[last]) < gap[last]) & same[last]
        out[met] = np.logical_or.reduceat(bad, last - [len(b) - 1 for b in blocks])
        return out

    def may_meet(self, me: Body, way: np.ndarray, among: list[Body], t0: float, t1: float, extra: float = 0.0):
        """Those of ``among`` whose tracks between t0 and t1 come within the gap of a way (points (n, 2)),
        with that part of each track: (body, keys).  Who is left out for a time window is left out for any
        window inside it too (his track there is part of this one)."""
        lo, hi = (np.minimum.reduce(way) - BROAD).tolist(), (np.maximum.reduce(way) + BROAD).tolist()
        near = []
        for b in among:
            if b is me or not b.keys:
                continue
            seg = b.window(t0, t1)    # only this part of his track can meet me
            # (its box, by the reductions .min / .max call, asked directly: a few rows, many people)
            (s_x0, s_y0), (s_x1, s_y1) = np.minimum.reduce(seg[:, 1:3]).tolist(), np.maximum.reduce(seg[:, 1:3]).tolist()
            if s_x1 < lo[0] or s_x0 > hi[0] or s_y1 < lo[1] or s_y0 > hi[1]:
                continue
            near.append((b, seg))
        apart = self._apart(way, [seg for _, seg in near], extra)
        return [bs for bs, far in zip(near, apart.tolist()) if not far]

    def _apart(self, way: np.ndarray, segs: list[np.ndarray], extra: float = 0.0) -> np.ndarray:
        """Which of the stretches of track (rows t, x, y, …) never come within the gap of a way (points
        (n, 2)) anywhere: where the two ways do not meet in space, they cannot in time either."""
        if not segs:
            return np.zeros(0, bool)
        reach = GAP + extra + np.array([max(s[:, 5].tolist()) for s in segs])     # (a few rows each)
        if len(self._lines) > KEPT:
            self._lines.clear()
        mine, theirs = _ways([way], self._lines)[0], _ways([s[:, 1:3] for s in segs], self._lines)
        return shapely.distance(mine, theirs) >= reach

    def standing_conflict(self, me: Body, at: tuple[float, float, float, float], t1: float,
                          among: list[Body] | None = None) -> tuple[str, float] | None:
        """First other person who comes closer than the gap to someone standing still at ``at`` = (t, x, y, z)
        until t1, or None (from :meth:`_near_times`)."""
        t0, x, y, z = at
        if among is None:       # only those whose tracks come near the spot, from the index
            among = self.near_tracks(me, (x, y), (x, y), t0, t1)
        others = [b for b in among if b is not me]
        spans, who = self.near_times(me, x, y, z, t0, t1, others, with_who=True)
        hit = np.flatnonzero((spans[:, 1] > t0) & (spans[:, 0] < t1)) if len(spans) else []
        if not len(hit):
            return None
        i = hit[int(np.argmin(spans[hit, 0]))]
        return who[i], float(max(t0, spans[i, 0]))

    def tail_end(self, t: float) -> float:
        """Until when standing at a spot from t must meet nobody already planned."""
        return max(t + STAND_TAIL, self.state.track_index.latest())   # the last key of anyone

    def first_clear(self, body: Body, plan, t0: float, quick: bool = False, tail: bool = False,
                     delays: tuple[float, ...] | None = None):
        """The shortest wait (from DELAYS) after which the path meets nobody: (delay, timed) or None.
        With ``tail``, standing at the end for a while must meet nobody either (others already planned
        may pass there later).  Everyone near is sampled once on a 0.1 s grid covering every wait tried;
        a wait shifts one's own samples along that grid."""
        if delays is None:
            delays = DELAYS[:6] if quick else DELAYS
        first = time_path(self.state.pace, body, plan, t0)
        if not first:
            return None
        pts = np.asarray(from_here(body, t0, first))          # (t, x, y, z) setting out at once
        span = float(pts[-1, 0] - t0)
        lo, hi = np.minimum.reduce(pts[:, 1:3]), np.maximum.reduce(pts[:, 1:3])
        among = self.near_tracks(body, lo, hi, t0, t0 + delays[-1] + span + 0.1)   # met on the way
        end = pts[-1]
        windows = None
        if tail:        # who comes by the end while one stands there, until the horizon
            spot, horizon = end[1:3], self.tail_end(t0 + delays[-1] + span)
            windows = self.near_times(body, end[1], end[2], end[3], t0 + span, horizon,
                                       self.near_tracks(body, spot, spot, t0 + span, horizon))
        if not among and (windows is None or not len(windows)):
            return delays[0], self._timed_after(body, plan, t0, delays[0], first)
        step = 0.1
        J = math.ceil(span / step - 1e-9) + 1
        rel = np.arange(J) * step
        shifts = _shifts(tuple(delays), step)
        grid = t0 + np.arange(J + max(shifts)) * step
        others = []
        g0, g1 = grid[0], grid[-1]
        segs = [b.window(g0, g1) for b in among]
        # where his way over every wait tried never comes within the gap of mine, no wait meets him
        for seg, far in zip(segs, self._apart(pts[:, 1:3], segs).tolist()):
            if not far:
                others.append([*(np.interp(grid, seg[:, 0], seg[:, j]) for j in (1, 2, 3)), GAP + _beyond(seg, grid)])
        if others:
            OX, OY, OZ, OG = (np.array([o[j] for o in others]) for j in range(4))    # (bodies, grid)
            mine = [np.interp(t0 + rel, pts[:, 0], pts[:, j]) for j in (1, 2, 3)]
        for delay, m in zip(delays, shifts):
            if windows is not None and len(windows):      # (the cheaper test first)
                arrive = t0 + delay + span
                until = self.tail_end(arrive)
                if ((windows[:, 1] > arrive) & (windows[:, 0] < until)).any():
                    continue
            if others:
                dx, dy = mine[0][None, :] - OX[:, m:m + J], mine[1][None, :] - OY[:, m:m + J]
                same = np.abs(mine[2][None, :] - OZ[:, m:m + J]) < SAME_LEVEL
                if _too_close(dx, dy, same, OG[:, m:m + J]).any():
                    continue
            return delay, self._timed_after(body, plan, t0, delay, first)
        return None

    def _timed_after(self, body: Body, plan, t0: float, delay: float, first):
        """The walk timed setting out after a wait (``first``: as timed setting out at t0, the same when
        there is no wait)."""
        return first if delay == 0.0 else time_path(self.state.pace, body, plan, t0 + delay)

    def near_times(self, me: Body, x: float, y: float, z: float, t0: float, t1: float,
                    among: list[Body], with_who: bool = False):
        """(n, 2) time spans during which others, as planned, come closer than the gap to the point
        (x, y, z) between t0 and t1: exact, from each stretch of their tracks (all at once).  With
        ``with_who``, also the person of each span."""
        G2 = GAP ** 2
        spans: list[tuple[float, float]] = []
        names: list[str] = []
        heads, tails, owners = [], [], []
        for b in among:
            k = b.array()
            if not len(k):
                continue
            if k[-1, 0] > t0:       # (the rows found by bisect in his keys, whose times are the rows')
                i0 = max(0, bisect.bisect_right(b.keys, t0, key=itemgetter(0)) - 1)
                i1 = min(len(k), bisect.bisect_left(b.keys, t1, key=itemgetter(0)) + 1)
                if i1 - i0 >= 2:
                    heads.append(k[i0:i1 - 1])
                    tails.append(k[i0 + 1:i1])
                    owners += [b.id] * (i1 - 1 - i0)
            last = k[-1]       # where he stops last, he stays
            if last[0] < t1 and (last[1] - x) ** 2 + (last[2] - y) ** 2 < G2 and abs(last[3] - z) < 0.3:
                spans.append((max(t0, last[0]), math.inf))
                names.append(b.id)
        if heads:
            A, B = np.concatenate(heads), np.concatenate(tails)
            ax, ay = A[:, 1] - x, A[:, 2] - y
            ux, uy = B[:, 1] - A[:, 1], B[:, 2] - A[:, 2]
            level = (np.abs(A[:, 3] - z) < 0.3) | (np.abs(B[:, 3] - z) < 0.3)
            a = ux * ux + uy * uy
            bq = 2 * (ax * ux + ay * uy)
            c = ax * ax + ay * ay - G2
            moving = a > 1e-12
            disc = bq * bq - 4 * a * c
            root = np.sqrt(np.maximum(disc, 0.0))
            a_safe = np.where(moving, a, 1.0)
            s0 = np.minimum(np.maximum(np.where(moving, (-bq - root) / (2 * a_safe), 0.0), 0.0), 1.0)
            s1 = np.minimum(np.maximum(np.where(moving, (-bq + root) / (2 * a_safe), 1.0), 0.0), 1.0)
            hit = level & np.where(moving, disc > 0, c < 0) & (s1 > s0 + 1e-9)
            dt = B[:, 0] - A[:, 0]
            for i in np.flatnonzero(hit).tolist():
                spans.append((A[i, 0] + s0[i] * dt[i], A[i, 0] + s1[i] * dt[i]))
                names.append(owners[i])
        out = np.asarray(spans, dtype=float).reshape(-1, 2)
        return (out, names) if with_who else out
