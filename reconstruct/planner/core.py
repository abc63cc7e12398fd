"""The movement planner: from the rite's events and a reading to every person's track.

The planner walks the events in the order the ``after`` graph and time allow
(events whose predecessors are done start together), and performs each
person's actions in turn: routes on the walkable ground (:mod:`.walkable`),
climbs stairs one step at a time, turns, kneels, bows, hands things over.
Conflicts between people are resolved by waiting, in rank order of planning
(prioritised planning), never by random steering, so the same inputs give the
same plan byte for byte.  The result is the ``xiangshe-plan/1`` document of
``shared/docs/plan-format.md``; every output reads it and none re-plans.
"""
from __future__ import annotations

import bisect
import gc
import hashlib
import heapq
import math
from contextlib import contextmanager
from dataclasses import dataclass, field
from operator import itemgetter
from typing import Any

import numpy as np
import shapely
from shapely.geometry import LineString

from ..errors import InputError
from ..text.names import NameIndex, traditional
from ..text.placement import PlaceError, heading_of, parse_place, unit_vector
from ..layout.reading import Reading
from ..model.plan import FORMAT  # noqa: F401 (re-exported)
from ..model.plan import Actor, Event, LayoutRef, Plan, Prop, Steps, Track
from ..resources import SEED, logical_name
from ..planner.walkable import COURT, HALL, LEVELS, PERSON_GAP, STAIR, Ground



class _Blocked(Exception):
    """A walk that no wait makes clear while people in its way have yet to be planned to move."""


class PlanError(InputError):
    """A rite that cannot be performed on a reading: one line naming the event and the person."""


@dataclass(frozen=True)
class Pace:
    """Speeds and durations of the etiquette (seconds, metres per second)."""

    court: float = 1.0          # 堂下布武
    hall: float = 0.6           # 堂上接武
    stair_step: float = 0.9     # one 等, both feet meeting on it (聚足)
    turn: float = 240.0         # degrees per second when turning in place
    kneel: float = 1.2
    rise: float = 1.0
    bow: float = 1.4            # 揖
    kneel_bow: float = 2.6      # 拜, each
    handle: float = 1.2         # take / put down
    hand_over: float = 1.5
    wash: float = 4.0
    pour: float = 3.0
    drink: float = 3.0
    offer: float = 3.0
    dress: float = 3.0          # 袒/襲/決遂
    speak_char: float = 0.18    # per character of a command
    step: float = 0.35          # 少退 / 少進 / 辟: metres


class TrackIndex:
    """Where each person's track goes, by 10-second buckets (a bounding box per bucket), so that those
    who come near a place during a time window are found for everyone at once."""

    SPAN = 10.0

    def __init__(self, n: int) -> None:
        self.lo = np.full((64, n, 2), np.inf)     # bucket, person, (x, y): a bucket's rows lie together
        self.hi = np.full((64, n, 2), -np.inf)
        self.last_t = np.full(n, -np.inf)
        self.last_xyz = np.zeros((n, 3))      # where each track ends
        self.version = 0                 # counts changes, so answers derived from the tracks can be kept

    def add(self, i: int, a, b) -> None:
        """The stretch of person i's track from row a (or None) to row b (t, x, y, …)."""
        self.version += 1
        k0, k1 = int((a if a is not None else b)[0] // self.SPAN), int(b[0] // self.SPAN)
        if k1 >= len(self.lo):
            grow = max(k1 + 1, 2 * len(self.lo)) - len(self.lo)
            n = self.lo.shape[1]
            self.lo = np.concatenate([self.lo, np.full((grow, n, 2), np.inf)])
            self.hi = np.concatenate([self.hi, np.full((grow, n, 2), -np.inf)])
        xs = (b[1],) if a is None else (a[1], b[1])
        ys = (b[2],) if a is None else (a[2], b[2])
        self.lo[k0:k1 + 1, i] = np.minimum(self.lo[k0:k1 + 1, i], (min(xs), min(ys)))
        self.hi[k0:k1 + 1, i] = np.maximum(self.hi[k0:k1 + 1, i], (max(xs), max(ys)))
        if b[0] >= self.last_t[i]:
            self.last_t[i], self.last_xyz[i] = b[0], (b[1], b[2], b[3])

    def rebuild(self, i: int, rows: np.ndarray) -> None:
        self.version += 1
        self.lo[:, i], self.hi[:, i], self.last_t[i] = np.inf, -np.inf, -np.inf
        for j in range(len(rows)):
            self.add(i, rows[j - 1] if j else None, rows[j])

    def near(self, lo, hi, t0: float, t1: float) -> np.ndarray:
        """Which people's tracks come into the box [lo, hi] between t0 and t1 (standing where they last
        stop from then on)."""
        k0 = max(0, int(t0 // self.SPAN))
        k1 = min(len(self.lo) - 1, int(t1 // self.SPAN))
        n = self.lo.shape[1]
        L = self.lo[k0:k1 + 1].min(axis=0) if k1 >= k0 else np.full((n, 2), np.inf)
        H = self.hi[k0:k1 + 1].max(axis=0) if k1 >= k0 else np.full((n, 2), -np.inf)
        after = (self.last_t < t1)[:, None]
        L = np.where(after, np.minimum(L, self.last_xyz[:, :2]), L)
        H = np.where(after, np.maximum(H, self.last_xyz[:, :2]), H)
        return ((H >= lo) & (L <= hi)).all(axis=1)


@dataclass
class Body:
    """A person while planning: current pose and the keys written so far."""

    id: str
    x: float
    y: float
    z: float
    heading: float
    posture: str
    level: str
    t: float = 0.0                      # free from this time on
    keys: list[list] = field(default_factory=list)
    states: list[list] = field(default_factory=list)
    state: dict = field(default_factory=dict)
    walked: float = 0.0
    waited: list[tuple[float, str]] = field(default_factory=list)

    # the keys as numbers too (t, x, y, z, walking 1/0), kept in step with ``keys`` for fast queries
    _buf: np.ndarray = field(default_factory=lambda: np.zeros((64, 5)), repr=False)
    _n: int = 0
    index: TrackIndex | None = field(default=None, repr=False)
    slot: int = 0                       # this person's row in the index

    def _put_row(self, i: int, row: list) -> None:
        if i >= len(self._buf):
            self._buf = np.vstack([self._buf, np.zeros_like(self._buf)])
        self._buf[i] = (row[0], row[1], row[2], row[3], 1.0 if row[5] == "walk" else 0.0)
        self._n = max(self._n, i + 1)
        if self.index is not None:
            self.index.add(self.slot, self._buf[i - 1] if i else None, self._buf[i])

    def array(self) -> np.ndarray:
        """(n, 5): time, x, y, z and whether walking, one row per key."""
        return self._buf[:self._n]

    def key(self, t: float, posture: str | None = None) -> None:
        if posture is not None:
            self.posture = posture
        row = [round(t, 3), round(self.x, 4), round(self.y, 4), round(self.z, 4), round(self.heading % 360, 2),
               self.posture]
        if self.keys and self.keys[-1][0] == row[0]:
            self.keys[-1] = row
            self._put_row(len(self.keys) - 1, row)
        elif not self.keys or self.keys[-1][1:] != row[1:]:
            self.keys.append(row)
            self._put_row(len(self.keys) - 1, row)

    def hold_until(self, t: float) -> None:
        """Write a key that keeps the current pose up to time t (so the next move starts at t)."""
        if self.keys and t > self.keys[-1][0] + 1e-6:
            self.keys.append([round(t, 3), *self.keys[-1][1:]])
            self._put_row(len(self.keys) - 1, self.keys[-1])
        self.t = max(self.t, t)

    def shift(self, start: int, dt: float) -> None:
        """Move the keys from index ``start`` on later by dt."""
        for i in range(start, len(self.keys)):
            self.keys[i][0] = round(self.keys[i][0] + dt, 3)
            self._buf[i, 0] = self.keys[i][0]
        if self.index is not None:
            self.index.rebuild(self.slot, self.array())

    def set_state(self, t: float, **kw) -> None:
        self.state.update(kw)
        row = [round(t, 3), dict(self.state)]
        if self.states and self.states[-1][0] == row[0]:
            self.states[-1] = row
        else:
            self.states.append(row)


@dataclass
class PropBody:
    id: str
    kind: str
    x: float
    y: float
    z: float
    heading: float
    carrier: str | None = None
    keys: list[list] = field(default_factory=list)
    carriers: list[list] = field(default_factory=list)
    intervals: list[list] = field(default_factory=list)  # [carrier, t0, t1]


_RING = np.radians(180 + 22.5 * np.arange(16))
_RADII = (0.6, 0.9, 1.2, 1.6, 2.0, 2.6, 3.2, 3.8, 4.5, 5.2)


def _ways(xys: list[np.ndarray]) -> np.ndarray:
    """The ground each track covers (its points (n, 2)), as lines made all at once; a track that stays
    put is a line whose points all coincide (as far from anything as the point itself)."""
    xy = [c if len(c) > 1 else np.repeat(c, 2, axis=0) for c in xys]
    idx = np.repeat(np.arange(len(xy)), [len(c) for c in xy])
    return shapely.linestrings(np.concatenate(xy), indices=idx)


def _too_close(dx: np.ndarray, dy: np.ndarray, same_level: np.ndarray, gap: float) -> np.ndarray:
    """For two tracks sampled at the same times (dx, dy: their difference), whether they come closer
    than ``gap`` between each sample and the next (the motion in between taken as straight), so a
    pass between two samples is not missed.  Indexed like the samples; the last flags the last sample."""
    if dx.shape[-1] < 2:
        return (np.hypot(dx, dy) < gap) & same_level
    ux, uy = np.diff(dx, axis=-1), np.diff(dy, axis=-1)
    uu = np.maximum(ux * ux + uy * uy, 1e-12)
    s = np.clip(-(dx[..., :-1] * ux + dy[..., :-1] * uy) / uu, 0.0, 1.0)
    near = np.hypot(dx[..., :-1] + s * ux, dy[..., :-1] + s * uy) < gap
    out = np.empty(dx.shape, bool)
    out[..., :-1] = near & (same_level[..., :-1] | same_level[..., 1:])
    out[..., -1] = (np.hypot(dx[..., -1], dy[..., -1]) < gap) & same_level[..., -1]
    return out


def _window(k: np.ndarray, t0: float, t1: float) -> np.ndarray:
    """The rows of a track's keys that cover t0…t1 (the key before t0 to the one after t1; the last key
    when the track ended before), enough to interpolate it anywhere in between."""
    i0 = max(0, int(np.searchsorted(k[:, 0], t0, side="right")) - 1)
    i1 = int(np.searchsorted(k[:, 0], t1, side="right")) + 1
    seg = k[i0:i1]
    return seg if len(seg) else k[-1:]


def _bearing(dx: float, dy: float) -> float:
    return math.degrees(math.atan2(dx, dy)) % 360


def _turn_delta(a: float, b: float) -> float:
    return (b - a + 180) % 360 - 180


class Planner:
    """Plan a rite on a reading.  ``Planner(reading, rite).run()`` returns the plan document."""

    def __init__(self, reading: Reading, rite, pace: Pace = Pace()) -> None:
        self.reading, self.rite, self.pace = reading, rite, pace
        self.ground = Ground(reading)
        self.bodies: dict[str, Body] = {}
        self.props: dict[str, PropBody] = {}
        self.explain: list[str] = []
        self.conflicts: list[str] = []
        self._deferrable = False
        self.event_times: dict[str, tuple[float, float]] = {}
        self.names = NameIndex()
        for lm in reading.landmarks.values():
            self.names.add(lm.id, [traditional(lm.id), *lm.aliases])
        for p in rite.people:
            self.names.add(p.id, p.aliases)
        for p in rite.props:
            self.names.add(p.id)
        self.person_ids = {p.id for p in rite.people}
        self.track_index = TrackIndex(len(rite.people))
        self._standing_memo: tuple = (None, [])
        self._end_levels: tuple = (None, None)     # (index version, level of where each track ends)
        self._spots: dict[tuple, tuple] = {}      # candidate spots round a place, and which the ground allows
        self._by_slot: list[Body] = []
        self.aliases = {a: p.id for p in rite.people for a in p.aliases}
        self._extra_standing: list[tuple[float, float, str]] = []
        self._last_walk: dict[str, tuple[str, float, list]] = {}
        # the 下射 of each pair → his 上射 (pairs are listed 上射, 下射 in rank order)
        self.partner: dict[str, str] = {}
        for name in ("三耦", "宾主人", "大夫耦", "众耦"):
            g = rite.groups.get(name, [])
            for up, down in zip(g[0::2], g[1::2]):
                self.partner[down] = up
        self._behind: dict[str, int] = {}
        self._file_length: dict[str, int] = {}
        self._procession: dict[tuple[str, str], float] = {}   # (event, file) → when the last one set out
        # nobody stops where the stairs' lanes meet the court or the hall: others must pass there
        self.keepout: list[tuple[float, float, str]] = []
        for st in reading.stairs.values():
            for up in (True, False):
                lane = self.ground.lane(st, up)
                self.keepout += [(*self.ground.foot(st, lane), COURT), (st.x + lane, -st.run - 0.1, COURT),
                                 (*self.ground.head(st, lane), HALL)]
        # … nor in the gate's passage, inside or out (those who leave or come in pass there)
        gx, gy = reading.gate[0], reading.gate[1]
        half = max(0.3, reading.gate_width / 2)
        self.keepout += [(gx + dx, gy + dy, COURT) for dx in np.linspace(-half, half, max(3, int(2 * half / 0.4) + 1))
                         for dy in (1.5, 0.5, -0.5, -1.5, -2.5)]
        self.stated: dict[str, tuple[str, float]] = {}   # the facing the text gave someone in this event
        self.current: Any = None       # the event being planned, for error messages
        self.current_who = ""

    # ------------------------------------------------------------------ errors
    def fail(self, what: str) -> None:
        ev = self.current
        where = f"event {ev.id} “{ev.text}” [{ev.span[0]}:{ev.span[1]}]" if ev else "initial state"
        who = f" ({self.current_who})" if self.current_who else ""
        raise PlanError(ev.source if ev is not None and ev.source else self.rite_file, where + who, what)

    @property
    def rite_file(self) -> str:
        return getattr(self.rite, "file", "") or "assets/rite/rite.yaml"

    # ------------------------------------------------------------------ places
    def resolve(self, text: str, who: str | None = None) -> tuple[float, float, str, float | None]:
        """A place expression → (x, y, level, heading-or-None), against the ground and current positions."""
        try:
            place = parse_place(text, self.names)
        except PlaceError as e:
            self.fail(str(e))
        base = place.base
        heading = None
        if base is None:
            x, y, level = 0.0, 0.0, COURT
            extent = lambda d: 0.0  # noqa: E731
        elif base in self.bodies or base in self.aliases:
            b = self.bodies[self.aliases.get(base, base)]
            x, y, level = b.x, b.y, b.level if b.level != STAIR else HALL
            extent = lambda d: 0.8  # noqa: E731
        elif base in self.props:
            pr = self.props[base]
            x, y = pr.x, pr.y
            level = HALL if abs(pr.z - self.reading.hall_height) < 0.05 else COURT
            extent = lambda d: 0.5  # noqa: E731
        else:
            lm = self.reading.landmarks[base]
            x, y = lm.position[0], lm.position[1]
            # on the hall only if it stands at the hall's floor (the 侯中 is high but in the court)
            level = HALL if abs(lm.position[2] - self.reading.hall_height) < 0.05 else COURT
            heading = lm.heading
            if lm.kind == "stair":
                st = self.reading.stairs[base]
                if place.offsets and not place.modifier:   # 西阶西, 阼阶东: beside the stair, below
                    level, y = COURT, -st.run / 2
                else:                   # the stair itself: its head on the hall
                    level = HALL
                    x, y = self.ground.head(st)
            if lm.kind == "formation":
                heading = self.reading.formations[base].heading

            def extent(d: str, lm=lm) -> float:
                if lm.footprint:
                    ux, uy = unit_vector(d)
                    pts = np.asarray(lm.footprint) - np.asarray(lm.position[:2])
                    return float(max(pts @ np.array([ux, uy]))) + 0.45
                if lm.size:
                    # half the size along the direction, the size turned to the landmark's heading
                    ux, uy = unit_vector(d)
                    h = math.radians(lm.heading or 0.0)
                    fwd, right = (math.sin(h), math.cos(h)), (math.cos(h), -math.sin(h))
                    half = (abs(ux * right[0] + uy * right[1]) * lm.size[0] / 2
                            + abs(ux * fwd[0] + uy * fwd[1]) * lm.size[1] / 2)
                    return half + 0.45
                return 0.7
        # the modifier first (西阶东上 is east of the head of the 西阶), then the offsets
        if place.modifier and base is not None:
            lm = self.reading.landmarks.get(base)
            stair = self.reading.stairs.get(base) if lm else None
            if place.modifier == "上" and stair:
                x, y = self.ground.head(stair)
                level = HALL
            elif place.modifier == "下" and stair:
                x, y = self.ground.foot(stair)
                level = COURT
            elif place.modifier == "前":
                h = (lm.heading if lm and lm.heading is not None else 180.0) if lm else 180.0
                if base in self.bodies:
                    h = self.bodies[base].heading
                if stair:
                    x, y = self.ground.foot(stair)
                    level = COURT
                    y -= 0.8
                else:
                    d = extent("南") if lm else 0.8
                    x, y = x + math.sin(math.radians(h)) * d, y + math.cos(math.radians(h)) * d
        for direction, length in place.offsets:
            ux, uy = unit_vector(direction, self.reading.diagonal)
            if length is not None:
                d = self.reading.units.metres(length)
            else:   # beside: clear of the thing itself, or a body's width from a point such as a stair's head
                d = 1.0 if place.modifier else extent(direction)
            x, y = x + ux * d, y + uy * d
        return x, y, level, heading

    def _via_point(self, text: str, b: Body, goal_level: str) -> tuple[float, float, str] | None:
        """A place the text says one passes (由司馬之南): on free ground, and where someone stands on it, a
        little further the same way (still south of the 司馬).  Passing by a person binds only while he
        stands on one's way (the 司馬 up on the hall as 司正 is not passed in the court): None then.
        A via nobody can pass is an error."""
        x, y, level, _ = self.resolve(text, b.id)
        place = parse_place(text, self.names)
        mine = {b.level if b.level != STAIR else HALL, goal_level}
        if level not in mine:
            base = place.base
            if base in self.bodies or base in self.aliases:
                self.explain.append(f"  {b.id}: {text} does not bind: {base} is on the {level}")
                return None
            self.fail(f"{b.id} cannot pass by way of {text}: it is on the {level}, he walks on the "
                      f"{' and '.join(sorted(mine))}")
        if not self.ground.is_free(level, x, y):
            fx, fy = self.ground.free_point(level, x, y)
            if math.hypot(fx - x, fy - y) > 1.0:
                self.fail(f"{b.id} cannot pass by way of {text}: it lies {math.hypot(fx - x, fy - y):.1f} m "
                          f"inside walls or fixtures")
            x, y = fx, fy
        if not place.offsets:
            return x, y, level
        ux, uy = unit_vector(place.offsets[-1][0], self.reading.diagonal)
        others = self.standing(b, b.t, level)
        for push in (0.0, 0.3, 0.6, 0.9, 1.2, 1.5):
            px, py = x + ux * push, y + uy * push
            if self.ground.is_free(level, px, py) and all(math.dist((px, py), o) >= self.GAP + 0.1 for o in others):
                return px, py, level
        return x, y, level

    def heading_toward(self, body: Body, text: str) -> float:
        try:
            return heading_of(text)
        except PlaceError:
            pass
        x, y, _, _ = self.resolve(text, body.id)
        if math.hypot(x - body.x, y - body.y) < 1e-3:
            return body.heading
        return _bearing(x - body.x, y - body.y)

    # ------------------------------------------------------------------ occupancy
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
    def _walking_at(b: Body, t: float) -> bool:
        """Whether someone is on his way somewhere at time t (between two keys that differ in place; the
        keys found as :meth:`position_at` finds them)."""
        k = b.keys
        i = bisect.bisect_right(k, t, key=itemgetter(0))
        return 0 < i < len(k) and (k[i][1], k[i][2]) != (k[i - 1][1], k[i - 1][2])

    def standing(self, me: Body, t: float, level: str) -> list[tuple[float, float]]:
        """Where others stand at time t on a level, and where those still moving will stop (remembered
        while nobody's track changes: a walk asks several times before it is written)."""
        key = (me.id, t, level, self.track_index.version, tuple(self._extra_standing))
        if self._standing_memo[0] == key:
            return list(self._standing_memo[1])
        out = self._standing(me, t, level)
        self._standing_memo = (key, out)
        return list(out)

    def _standing(self, me: Body, t: float, level: str) -> list[tuple[float, float]]:
        out = [(x, y) for x, y, lv in self._extra_standing if lv == level]
        # where everyone's track ends, and on which level, from the index (all at once); those whose track
        # has ended by t stand there, the others will stop there, and stand where they are at t unless they
        # are on their way then: one walking behind them is kept from them by the timed test (he waits for
        # them to move on), not sent round them as if they stood there (宾出: the 大夫, last of the file,
        # went round the far end of the 侯)
        ti, n = self.track_index, len(self._by_slot)
        ends = ti.last_xyz[:n]
        if self._end_levels[0] != (ti.version, n):
            self._end_levels = ((ti.version, n), self.ground.levels_at(ends[:, 0], ends[:, 1], ends[:, 2]))
        there = self._end_levels[1] == LEVELS.index(level)
        ended = ti.last_t[:n] <= t
        mask = (there & ended) | ~ended
        mask[me.slot] = False
        stops = ends[:, :2].tolist()
        for i in np.flatnonzero(mask).tolist():
            b = self._by_slot[i]
            if not b.keys:
                continue
            if ended[i]:
                out.append(tuple(stops[i]))
                continue
            x, y, z = self.position_at(b, t)
            if self.ground.level_at(x, y, z) == level and not self._walking_at(b, t):
                out.append((x, y))
            if there[i] and tuple(stops[i]) != (x, y):
                out.append(tuple(stops[i]))
        return out

    def free_spot(self, me: Body, x: float, y: float, level: str, t: float) -> tuple[float, float]:
        """The place itself, or the nearest spot beside it that nobody occupies and a body fits in."""
        others = self.standing(me, t, level) + self._stops_after(me, t, level)

        # the place, then rings of candidates round it (starting south, turning anticlockwise); which of
        # them the ground and the lanes allow is remembered per place (places are named again and again)
        if (level, x, y) not in self._spots:
            cand = np.vstack([[x, y], *[np.c_[x + r * np.sin(_RING), y + r * np.cos(_RING)] for r in _RADII]])
            allowed = self.ground.are_free(level, cand) & self.clear_of_lanes(level, cand)
            self._spots[(level, x, y)] = (cand, allowed)
        cand, allowed = self._spots[(level, x, y)]
        ok = allowed.copy()
        if others:
            o = np.asarray(others)
            near = np.sqrt(((cand[:, None, 0] - o[None, :, 0]) ** 2 + (cand[:, None, 1] - o[None, :, 1]) ** 2).min(axis=1))
            # room for someone to pass between (an aisle) near the place, else at least a body's gap
            reach = self.AISLE_REACH if level == COURT else self.AISLE_REACH_HALL
            roomy = ok & (near >= self.AISLE) & (np.hypot(cand[:, 0] - x, cand[:, 1] - y) <= reach)
            ok &= near >= PERSON_GAP + 0.05
            if roomy.any() and not ok[0]:      # the place itself when free, else a roomy spot near it
                ok = roomy
        if ok.any():
            k = int(np.argmax(ok))
            return float(cand[k, 0]), float(cand[k, 1])
        fx, fy = self.ground.free_point(level, x, y)
        if math.hypot(fx - x, fy - y) > 3.0:
            self.fail(f"{me.id} cannot reach ({x:.2f}, {y:.2f}) on the {level}: the nearest free ground is "
                      f"{math.hypot(fx - x, fy - y):.1f} m away")
        return fx, fy

    def _fits(self, level: str, x: float, y: float, others: list[tuple[float, float]] = ()) -> bool:
        """Whether a body may stand at (x, y): on free ground, out of the lanes, clear of ``others``."""
        return (self.ground.is_free(level, x, y) and bool(self.clear_of_lanes(level, np.asarray([[x, y]]))[0])
                and all(math.dist((x, y), o) >= PERSON_GAP + 0.05 for o in others))

    def clear_of_lanes(self, level: str, pts: np.ndarray) -> np.ndarray:
        """Which points (n, 2) keep the gap from the ways up and down the stairs and through the gate."""
        lanes = np.asarray([(kx, ky) for kx, ky, kl in self.keepout if kl == level]).reshape(-1, 2)
        d2 = (pts[:, None, 0] - lanes[None, :, 0]) ** 2 + (pts[:, None, 1] - lanes[None, :, 1]) ** 2
        return (d2 >= self.GAP ** 2).all(axis=1)

    def _stops_after(self, me: Body, t: float, level: str, horizon: float = 180.0) -> list[tuple[float, float]]:
        """Where others are already planned to stop between t and t + horizon (so nobody takes the spot)."""
        out = []
        n = len(self._by_slot)
        for j in np.flatnonzero(self.track_index.last_t[:n] >= t).tolist():   # whose tracks go on after t
            b = self._by_slot[j]
            k = b.array()
            if b is me or not len(k):
                continue
            i0 = max(1, int(np.searchsorted(k[:, 0], t, side="left")))
            i1 = int(np.searchsorted(k[:, 0], t + horizon, side="right"))
            if i1 <= i0:
                continue
            stops = np.flatnonzero((k[i0 - 1:i1 - 1, 4] > 0.5) & (k[i0:i1, 4] < 0.5)) + i0
            for i in stops:
                if self.ground.level_at(k[i, 1], k[i, 2], k[i, 3]) == level:
                    out.append((float(k[i, 1]), float(k[i, 2])))
        return out

    def near_tracks(self, me: Body, xy_lo, xy_hi, t0: float, t1: float) -> list[Body]:
        """Others whose tracks come into a box (grown by half a metre) during a time window."""
        lo, hi = np.asarray(xy_lo) - 0.5, np.asarray(xy_hi) + 0.5
        near = self.track_index.near(lo, hi, t0, t1)
        return [self._by_slot[i] for i in np.flatnonzero(near) if self._by_slot[i] is not me]

    def conflict(self, me: Body, pts: list[tuple[float, float, float, float]],
                 among: list[Body] | None = None) -> tuple[str, float] | None:
        """First other person closer than 0.45 m (same level) along a timed path [(t, x, y, z)], or None.
        ``among`` narrows the search to people already found near (see :meth:`near_tracks`)."""
        if len(pts) < 2:
            return None
        arr = np.asarray(pts)
        t0, t1 = arr[0, 0], arr[-1, 0]
        ts = np.arange(t0, t1 + 1e-9, 0.1)
        mine = None
        first: tuple[str, float] | None = None
        if among is None:       # only those whose tracks come near, from the index
            among = self.near_tracks(me, arr[:, 1:3].min(0), arr[:, 1:3].max(0), t0, t1)
        for b, k in self._may_meet(me, arr[:, 1:3], among, t0, t1):
            if mine is None:
                mine = [np.interp(ts, arr[:, 0], arr[:, j]) for j in (1, 2, 3)]
            bx, by, bz = (np.interp(ts, k[:, 0], k[:, j]) for j in (1, 2, 3))
            bad = np.flatnonzero(_too_close(mine[0] - bx, mine[1] - by, np.abs(mine[2] - bz) < 0.3, self.GAP))
            if len(bad) and (first is None or ts[bad[0]] < first[1]):
                first = (b.id, float(ts[bad[0]]))
        return first

    def _may_meet(self, me: Body, way: np.ndarray, among: list[Body], t0: float, t1: float):
        """Those of ``among`` whose tracks between t0 and t1 come within the gap of a way (points (n, 2)),
        with that part of each track: (body, keys).  Who is left out for a time window is left out for any
        window inside it too (his track there is part of this one)."""
        lo, hi = way.min(0) - 0.5, way.max(0) + 0.5
        near = []
        for b in among:
            if b is me or not b.keys:
                continue
            seg = _window(b.array(), t0, t1)    # only this part of his track can meet me
            if (seg[:, 1].max() < lo[0] or seg[:, 1].min() > hi[0] or seg[:, 2].max() < lo[1]
                    or seg[:, 2].min() > hi[1]):
                continue
            near.append((b, seg))
        apart = self._apart(way, [seg for _, seg in near])
        return [bs for bs, far in zip(near, apart) if not far]

    def _apart(self, way: np.ndarray, segs: list[np.ndarray]) -> np.ndarray:
        """Which of the stretches of track (rows t, x, y, …) never come within the gap of a way (points
        (n, 2)) anywhere: where the two ways do not meet in space, they cannot in time either."""
        if not segs:
            return np.zeros(0, bool)
        return shapely.distance(_ways([way])[0], _ways([s[:, 1:3] for s in segs])) >= self.GAP

    def standing_conflict(self, me: Body, at: tuple[float, float, float, float], t1: float,
                          among: list[Body] | None = None) -> tuple[str, float] | None:
        """First other person who comes closer than the gap to someone standing still at ``at`` = (t, x, y, z)
        until t1, or None (from :meth:`_near_times`)."""
        t0, x, y, z = at
        if among is None:       # only those whose tracks come near the spot, from the index
            among = self.near_tracks(me, (x, y), (x, y), t0, t1)
        others = [b for b in among if b is not me]
        spans, who = self._near_times(me, x, y, z, t0, t1, others, with_who=True)
        hit = np.flatnonzero((spans[:, 1] > t0) & (spans[:, 0] < t1)) if len(spans) else []
        if not len(hit):
            return None
        i = hit[int(np.argmin(spans[hit, 0]))]
        return who[i], float(max(t0, spans[i, 0]))

    # ------------------------------------------------------------------ motion
    def walk(self, body: Body, goal: tuple[float, float, str], why: str, stair_name: str | None = None,
             via: list[tuple[float, float, str]] = (), top_step: bool = False,
             first_step_at: float | None = None, behind: float | None = None, aside: bool = False) -> None:
        """Walk from where the body is to a goal (x, y, level), through via points, by stairs as needed;
        ``first_step_at``: not onto the stair's first step before that time; ``behind``: the time the one
        ahead of him in a file set out (the waits tried start there: he will not pass him); ``aside``: if
        those standing there leave no way to the goal, to the nearest spot round it that can be reached
        (on a crowded hall a place named from a person, 主人之西, may lie past him where nobody can go
        round him)."""
        t0 = body.t
        start_xy = (body.x, body.y)
        legs = [*via, goal]
        earliest = math.ceil((behind - t0) * 10 - 1e-6) / 10 if behind is not None and behind > t0 else 0.0

        def later(delays: tuple[float, ...]) -> tuple[float, ...]:      # not setting out before ``behind``
            return tuple(earliest + d for d in delays)

        plan = self._corners(body, legs, stair_name, top_step, t0)
        if not plan:
            return
        if not self._time_path(body, plan, t0):
            return
        stays = not top_step and legs[-1][2] != STAIR
        if aside and stays and self.ground.boxed_in:
            gx, gy, glevel = goal
            standing = self.standing(body, t0, glevel)
            for dx, dy in self._ASIDE:
                spot = (gx + dx, gy + dy, glevel)
                if not self._fits(glevel, spot[0], spot[1], standing):
                    continue
                alt = self._corners(body, [*via, spot], stair_name, top_step, t0)
                if alt and not self.ground.boxed_in and self._time_path(body, alt, t0):
                    plan, goal, legs = alt, spot, [*via, spot]
                    self.explain.append(f"  {body.id} stands {math.hypot(dx, dy):.1f} m aside: those standing "
                                        "there leave no way to the place")
                    break
        found = None
        # beside him, a little wider if someone stands in the way; through the text's via points too (the
        # side way passes beside them: were it to pass on the wrong side of the person named, it would
        # come within the gap of him and fail the conflict test)
        for apart in (0.6, 0.8, 1.0):
            abreast = self._abreast(body, plan, goal, apart) if stays else None
            if abreast is None:
                break
            side_plan, t_go, join = abreast   # set out with him (waiting for him if he is later)
            found = self._first_clear(body, side_plan, t_go, quick=True, tail=True)
            if found is None:
                found = self._delay_pair(body, side_plan, t_go)
            if found is not None:
                found = self._catch_up(body, side_plan, join, found, t_go)
                plan, found = side_plan, (found[0] + t_go - t0, found[1])
                why += f" beside {self.partner[body.id]}, on his {self._abreast_side} (并行)"
                break
        if found is None:
            delays = None
            if first_step_at is not None:     # wait at the foot until the one ahead is far enough up
                step1 = next((t for t, x, y, z, _ in self._time_path(body, plan, t0)
                              if self.ground.level_at(x, y, z) == STAIR), None)
                if step1 is not None and first_step_at > step1:
                    d0 = math.ceil((first_step_at - step1) * 10 - 1e-6) / 10
                    delays = tuple(d0 + d for d in self.DELAYS)
            if earliest > (delays or self.DELAYS)[0]:
                delays = later(self.DELAYS)
            found = self._first_clear(body, plan, t0, tail=stays, delays=delays)
        tries = 0
        while found is None and tries < 1:
            # route round the person met, where he is when we would meet him
            tries += 1
            timed = self._time_path(body, plan, t0)
            c = self.conflict(body, self._from_here(body, t0, timed))
            if c is None:
                break
            ox, oy, oz = self.position_at(self.bodies[c[0]], c[1])
            self._extra_standing.append((ox, oy, self.ground.level_at(ox, oy, oz)))
            replan = self._corners(body, legs, stair_name, top_step, t0)
            if replan and self._time_path(body, replan, t0):
                alt = self._first_clear(body, replan, t0, tail=stays, delays=later(self.DELAYS))
                if alt is not None:
                    plan, found = replan, alt
                    self.explain.append(f"  {body.id} goes round {c[0]}")
        self._extra_standing.clear()
        # someone will pass through the spot: stand a little aside instead (nearest first) — unless the way
        # itself is busy for any short wait, when no spot aside helps: then wait for the way to clear
        if found is None and stays and self._first_clear(body, plan, t0) is not None:
            gx, gy, glevel = legs[-1]
            horizon = self._tail_end(t0)
            gz = self.reading.hall_height if glevel == HALL else 0.0
            for dx, dy in self._ASIDE:
                if not self._fits(glevel, gx + dx, gy + dy):
                    continue
                # a spot someone will still pass or stop on after one could possibly be there is no use
                reach = t0 + 3.0 * math.dist((body.x, body.y), (gx + dx, gy + dy)) / self.pace.hall + 60.0
                spot = np.asarray([gx + dx, gy + dy])
                spans = self._near_times(body, gx + dx, gy + dy, gz, t0, horizon,
                                         self.near_tracks(body, spot, spot, t0, horizon))
                if len(spans) and (spans[:, 1] > reach).any():
                    continue
                alt = self._corners(body, [*legs[:-1], (gx + dx, gy + dy, glevel)], stair_name, top_step, t0)
                if not alt:
                    continue
                found = self._first_clear(body, alt, t0, tail=True, delays=later(self.DELAYS))
                if found is not None:
                    plan = alt
                    self.explain.append(f"  {body.id} stands {math.hypot(dx, dy):.1f} m aside: the spot is on another's path")
                    break
        if found is None and stays:      # a busy way: wait longer for it to clear, the spot staying clear
            found = self._first_clear(body, plan, t0, tail=True, delays=later(self.LONG_DELAYS))
        if found is None:
            found = self._first_clear(body, plan, t0, delays=later(self.DELAYS + self.LONG_DELAYS))  # a clear way there
            if found is None and self._deferrable:
                raise _Blocked(body.id)
            if found is not None and stays:
                pts = self._from_here(body, t0 + found[0], found[1])
                c = self.standing_conflict(body, pts[-1], self._tail_end(pts[-1][0]))
                if c is not None:        # reported, never silent: someone planned earlier passes the spot
                    self._report(body, c, " (standing)")
        if found is None:
            timed = self._time_path(body, plan, t0)
            c = self.conflict(body, self._from_here(body, t0, timed))
            delay = 0.0
            if c is not None:
                self._report(body, c)
        else:
            delay, timed = found
            if delay:
                body.waited.append((delay, self.current.id if self.current else ""))
                self.explain.append(f"  {body.id} waits {delay:.1f} s to let others pass")
        n_before = len(body.keys)
        body.hold_until(t0 + delay)
        for t, x, y, z, heading in timed:
            body.walked += math.hypot(x - body.x, y - body.y)
            body.x, body.y, body.z, body.heading = x, y, z, heading
            body.key(t, "walk")
        # arrive: stand
        body.level = self.ground.level_at(body.x, body.y, body.z)
        body.key(timed[-1][0], "stand")
        body.t = timed[-1][0]
        self.explain.append(f"  {body.id}: {why}")
        self._last_walk[body.id] = (self.current.id if self.current else "", t0 + delay, start_xy, plan, n_before)

    def _report(self, body: Body, c: tuple[str, float], what: str = "") -> None:
        """A conflict the planner could not wait out or walk round, kept in the plan's ``conflicts``."""
        self.conflicts.append(f"{self.current.id if self.current else '-'} {body.id} ~ {c[0]} at {c[1]:.1f} s{what}")

    def _catch_up(self, body: Body, side_plan, j: int, found, t_go: float):
        """A 下射 setting out beside his 上射 comes to his side when the 上射 passes there: the way to
        the side is walked a little faster (up to 1.5 m/s) when he would otherwise trail behind, if that
        meets nobody.  Returns ``found`` (delay, timed), adjusted or as it was."""
        delay, timed = found
        jx, jy = side_plan[j][0], side_plan[j][1]
        k = next((i for i, p in enumerate(timed) if abs(p[1] - jx) < 1e-6 and abs(p[2] - jy) < 1e-6), None)
        walk0 = next((i for i, p in enumerate(timed) if math.hypot(p[1] - body.x, p[2] - body.y) > 1e-6), None)
        if k is None or walk0 is None or k < walk0:
            return found
        up = self.bodies[self.partner[body.id]]
        ts = np.arange(t_go, timed[-1][0] + 0.05, 0.1)
        u = np.asarray([self.position_at(up, t) for t in ts])
        t_up = float(ts[int(np.argmin(np.hypot(u[:, 0] - jx, u[:, 1] - jy)))])
        late = timed[k][0] - t_up
        t_a = timed[walk0 - 1][0] if walk0 else t_go + delay
        steps = [(math.dist(timed[i - 1][1:3] if i else (body.x, body.y), timed[i][1:3]),
                  timed[i][0] - (timed[i - 1][0] if i else t_a)) for i in range(walk0, k + 1)]   # (metres, s)
        length = sum(d for d, _ in steps)
        span = timed[k][0] - t_a
        if late < 0.2 or span <= 0 or length <= 0:
            return found
        # no stretch faster than 1.5 m/s (turns in place are shortened too, so the average is not enough)
        fastest = max((d / dt for d, dt in steps if dt > 1e-9), default=0.0)
        new_span = max(span - late, length / 1.5, span * fastest / 1.5)
        if new_span >= span - 1e-6:
            return found
        f = new_span / span
        shift = span - new_span
        adj = [((t_a + (t - t_a) * f) if i <= k and t > t_a else (t - shift if i > k else t), x, y, z, h)
               for i, (t, x, y, z, h) in enumerate(timed)]
        pts = self._from_here(body, t_go + delay, adj)
        if self.conflict(body, pts) or self.standing_conflict(body, pts[-1], self._tail_end(pts[-1][0])):
            return found
        return delay, adj

    def _partner_walk(self, b: Body) -> tuple | None:
        """The last walk of a 下射's 上射 if it belongs to the event being planned (event, set-out time,
        start, corners, index of its first key), else None."""
        up = self.partner.get(b.id)
        last = self._last_walk.get(up) if up else None
        if last is None or self.current is None or last[0] != self.current.id:
            return None
        return last

    def _partner_third_step(self, b: Body, st, down: bool = False) -> float | None:
        """When a 下射's 上射 has just gone up (or down) this stair in this event: the time the 上射
        stepped onto his third step (上射先升三等 / 降三等), so that the 下射 steps onto his first then,
        one step between them (下射從之中等).  None otherwise."""
        last = self._partner_walk(b)
        if last is None:
            return None
        up = self.partner[b.id]
        k = min(3, st.steps)
        step = st.steps - k + 1 if down else k
        for key in self.bodies[up].keys[last[4]:]:
            if abs(key[1] - st.x) <= st.width / 2 and key[2] < 0 and abs(key[3] - step * st.rise) < 1e-3:
                return key[0]
        return None

    def _delay_pair(self, body: Body, side_plan, t_go: float):
        """Plan a pair together: when the 下射 cannot set out beside his 上射 as the 上射 was planned, both
        set out a little later, if nothing else the 上射 did since depends on the time (he only walked,
        turned or stood).  Returns (delay, timed) for the 下射 from t_go, or None."""
        up = self.bodies[self.partner[body.id]]
        ev, t_up, start, up_plan, n = self._last_walk[up.id]
        later = up.keys[n:]
        walked = [i for i, k in enumerate(later) if k[5] == "walk"]
        if (n < 1 or not walked or (up.states and up.states[-1][0] >= t_up - 1e-6)
                or any(k[1:4] != later[-1][1:4] for k in later[walked[-1] + 1:])):
            return None
        xy = np.asarray([(x, y) for x, y, *_ in [*up_plan, *side_plan]] + [(body.x, body.y), start])
        among = [b for b in self.near_tracks(body, xy.min(0), xy.max(0), t_go, self._tail_end(t_go + 30.0))
                 if b is not up]
        delays = self.DELAYS[1:12]
        # who can meet either of them on the way, over every wait tried (the walks only shift in time)
        up_way = np.asarray([k[1:3] for k in up.keys[n - 1:]], float)
        up_meet = [b for b, _ in self._may_meet(up, up_way, among, up.keys[n - 1][0] - 1.0,
                                                later[-1][0] + delays[-1] + 1.0)]
        now = self._time_path(body, side_plan, t_go)          # setting out at once
        my_way = np.asarray([p[1:3] for p in self._from_here(body, t_go, now)], float)
        my_meet = [b for b, _ in self._may_meet(body, my_way, among, t_go + delays[0] - 1.0,
                                                now[-1][0] + delays[-1] + 1.0)]
        for delay in delays:
            up_pts = [(up.keys[n - 1][0], *up.keys[n - 1][1:4])] + [(k[0] + delay, *k[1:4]) for k in later]
            if self.conflict(up, up_pts, up_meet) or self.standing_conflict(
                    up, up_pts[-1], self._tail_end(up_pts[-1][0]), among):
                continue
            timed = self._time_path(body, side_plan, t_go + delay)
            pts = self._from_here(body, t_go + delay, timed)
            if self.conflict(body, pts, my_meet) or self.standing_conflict(
                    body, pts[-1], self._tail_end(pts[-1][0]), among):
                continue
            up.shift(n, delay)
            up.t += delay
            self._last_walk[up.id] = (ev, t_up + delay, start, up_plan, n)
            self.explain.append(f"  {up.id} sets out {delay:.1f} s later, with {body.id}")
            return delay, timed
        return None

    # spots a little aside of a place, nearest first: 0.6 m on the four sides, then further round
    _ASIDE = tuple((round(r * math.sin(a), 3), round(r * math.cos(a), 3))
                   for r, n in ((0.6, 4), (0.9, 8), (1.3, 8), (1.8, 12), (2.4, 12), (3.0, 16)) for a in np.radians(np.arange(n) * 360 / n + 90))

    def _abreast(self, body: Body, plan, goal, apart: float = 0.6) -> tuple[list, float, int] | None:
        """A 下射 walking with his 上射 (耦…並行): the 上射's way, 0.6 m to its right, when both set out
        together from side by side to places side by side on one level."""
        last = self._partner_walk(body)
        if last is None:
            return None
        _, t_up, up_start, up_plan, _ = last
        if abs(t_up - body.t) > 3.0 or not up_plan or any(k not in (COURT, HALL) for *_, k in up_plan):
            return None
        end = up_plan[-1]
        level = up_plan[-1][3]
        if body.level != level or math.dist(up_start, (body.x, body.y)) > 2.5 or math.dist(end[:2], goal[:2]) > 2.5:
            return None

        line = LineString([up_start] + [(x, y) for x, y, _, _ in up_plan])
        # on the side where his own place lies: walking north to the 物 the 下射 is on the right
        # (the 上射 on the left, to the west); walking west to the 射位 (北上) he is on the left
        prev = up_plan[-2][:2] if len(up_plan) > 1 else up_start
        fx, fy = end[0] - prev[0], end[1] - prev[1]
        right = (goal[0] - end[0]) * fy - (goal[1] - end[1]) * fx
        self._abreast_side = "right" if right >= 0 else "left"
        side = line.offset_curve(-apart if right >= 0 else apart, join_style="mitre", mitre_limit=2.0)
        if side.is_empty or side.geom_type != "LineString":
            return None
        # join him at his side where he will be when one gets there (both walk at one pace), keep
        # beside him, then step to one's own place
        along = np.linspace(0.0, min(side.length, 6.0), 61)
        join = min(along, key=lambda d: abs(math.dist((body.x, body.y), side.interpolate(d).coords[0]) - d))
        rest = [c for c in side.coords if side.project(shapely.Point(c)) > join + 1e-6]
        pts = [side.interpolate(join).coords[0], *rest]
        way = LineString([(body.x, body.y), *pts, goal[:2]])
        if not shapely.covers(self.ground.levels[level].prepared, way):
            return None                # the side way runs into a wall or a fixture
        # to his side round anyone standing near (not through them)
        lead = self._route(body, level, (body.x, body.y), pts[0], body.t)[1:-1]
        pts = [*lead, *pts]
        z = plan[-1][2]
        # the way, when to set out, and the index of the point where he comes beside him
        return [(x, y, z, level) for x, y in pts] + [(goal[0], goal[1], z, level)], max(body.t, t_up), len(lead)

    def _corners(self, body: Body, legs, stair_name, top_step: bool, t0: float) -> list[tuple[float, float, float, str]]:
        """Corner points (x, y, z, kind) from where the body is through each leg's end in turn."""
        plan: list[tuple[float, float, float, str]] = []
        cur = (body.x, body.y, body.level)
        for i, (gx, gy, glevel) in enumerate(legs):
            last = i == len(legs) - 1
            leg = self._leg(body, cur, (gx, gy, glevel), stair_name, top_step and last, t0)
            plan.extend(leg)
            cur = (gx, gy, glevel) if not (top_step and last and leg) else (leg[-1][0], leg[-1][1], STAIR)
        return plan

    DELAYS = (0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0, 8.0, 11.0, 15.0, 20.0, 30.0, 45.0)
    LONG_DELAYS = (60.0, 80.0, 100.0, 130.0, 160.0, 200.0, 250.0, 300.0)   # when a busy way has to clear

    GAP = 0.5           # planned with a margin over the 0.45 m the audit demands
    AISLE = 1.05        # where one may, one stands this far from others, so that people can pass between
    AISLE_REACH = 5.2   # … if such a spot lies this near the place (in the court;
    AISLE_REACH_HALL = 1.2  # on the hall, whose places the text names closely: 西階上, 西序端)
    STAND_TAIL = 60.0   # at least this long one is assumed to stand where one stops, and as far as
                        # others' tracks are already planned

    def _tail_end(self, t: float) -> float:
        """Until when standing at a spot from t must meet nobody already planned."""
        return max(t + self.STAND_TAIL, float(self.track_index.last_t.max()))   # the last key of anyone

    def _first_clear(self, body: Body, plan, t0: float, quick: bool = False, tail: bool = False,
                     delays: tuple[float, ...] | None = None):
        """The shortest wait (from DELAYS) after which the path meets nobody: (delay, timed) or None.
        With ``tail``, standing at the end for a while must meet nobody either (others already planned
        may pass there later).  Everyone near is sampled once on a 0.1 s grid covering every wait tried;
        a wait shifts one's own samples along that grid."""
        if delays is None:
            delays = self.DELAYS[:6] if quick else self.DELAYS
        first = self._time_path(body, plan, t0)
        if not first:
            return None
        pts = np.asarray(self._from_here(body, t0, first))          # (t, x, y, z) setting out at once
        span = float(pts[-1, 0] - t0)
        lo, hi = pts[:, 1:3].min(0), pts[:, 1:3].max(0)
        horizon = self._tail_end(t0 + delays[-1] + span)
        among = self.near_tracks(body, lo, hi, t0, t0 + delays[-1] + span + 0.1)   # met on the way
        end = pts[-1]
        windows = None
        if tail:        # who comes by the end while one stands there, until the horizon
            spot = end[1:3]
            windows = self._near_times(body, end[1], end[2], end[3], t0 + span, horizon,
                                       self.near_tracks(body, spot, spot, t0 + span, horizon))
        if not among and (windows is None or not len(windows)):
            return delays[0], self._time_path(body, plan, t0 + delays[0])
        step = 0.1
        J = math.ceil(span / step - 1e-9) + 1
        rel = np.arange(J) * step
        mine = [np.interp(t0 + rel, pts[:, 0], pts[:, j]) for j in (1, 2, 3)]
        shifts = [round(d / step) for d in delays]
        grid = t0 + np.arange(J + max(shifts)) * step
        others = []
        segs = [_window(b.array(), grid[0], grid[-1]) for b in among]
        # where his way over every wait tried never comes within the gap of mine, no wait meets him
        for seg, far in zip(segs, self._apart(pts[:, 1:3], segs)):
            if not far:
                others.append([np.interp(grid, seg[:, 0], seg[:, j]) for j in (1, 2, 3)])
        if others:
            OX, OY, OZ = (np.stack([o[j] for o in others]) for j in range(3))    # (bodies, grid)
        for delay, m in zip(delays, shifts):
            if windows is not None and len(windows):      # (the cheaper test first)
                arrive = t0 + delay + span
                until = self._tail_end(arrive)
                if ((windows[:, 1] > arrive) & (windows[:, 0] < until)).any():
                    continue
            if others:
                dx, dy = mine[0][None, :] - OX[:, m:m + J], mine[1][None, :] - OY[:, m:m + J]
                same = np.abs(mine[2][None, :] - OZ[:, m:m + J]) < 0.3
                if _too_close(dx, dy, same, self.GAP).any():
                    continue
            return delay, self._time_path(body, plan, t0 + delay)
        return None

    def _near_times(self, me: Body, x: float, y: float, z: float, t0: float, t1: float,
                    among: list[Body], with_who: bool = False):
        """(n, 2) time spans during which others, as planned, come closer than the gap to the point
        (x, y, z) between t0 and t1: exact, from each stretch of their tracks (all at once).  With
        ``with_who``, also the person of each span."""
        G2 = self.GAP ** 2
        spans: list[tuple[float, float]] = []
        names: list[str] = []
        heads, tails, owners = [], [], []
        for b in among:
            k = b.array()
            if not len(k):
                continue
            if k[-1, 0] > t0:
                i0 = max(0, int(np.searchsorted(k[:, 0], t0, side="right")) - 1)
                i1 = min(len(k), int(np.searchsorted(k[:, 0], t1, side="left")) + 1)
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
            s0 = np.clip(np.where(moving, (-bq - root) / (2 * a_safe), 0.0), 0.0, 1.0)
            s1 = np.clip(np.where(moving, (-bq + root) / (2 * a_safe), 1.0), 0.0, 1.0)
            hit = level & np.where(moving, disc > 0, c < 0) & (s1 > s0 + 1e-9)
            dt = B[:, 0] - A[:, 0]
            for i in np.flatnonzero(hit):
                spans.append((A[i, 0] + s0[i] * dt[i], A[i, 0] + s1[i] * dt[i]))
                names.append(owners[i])
        out = np.asarray(spans, dtype=float).reshape(-1, 2)
        return (out, names) if with_who else out

    @staticmethod
    def _from_here(body: Body, t: float, timed) -> list[tuple[float, float, float, float]]:
        """A timed path as (t, x, y, z) points, starting from where the body stands when it sets out."""
        return [(t, body.x, body.y, body.z), *((t, x, y, z) for t, x, y, z, _ in timed)]

    def _leg(self, body: Body, cur, goal, stair_name, top_step, t) -> list[tuple[float, float, float, str]]:
        """Corner points (x, y, z, kind) from cur to goal; a stair is climbed one step at a time, going up
        in its east lane and down in its west lane (相左: those who meet keep each other on the left)."""
        (cx, cy, clevel), (gx, gy, glevel) = cur, goal
        H = self.reading.hall_height
        g = self.ground
        out: list[tuple[float, float, float, str]] = []

        def climb(st, k_from: int, k_to: int, lane: float) -> None:
            step = 1 if k_to >= k_from else -1
            for k in range(k_from, k_to + step, step):
                if 1 <= k <= st.steps:
                    out.append((st.x + lane, st.step_y(k), k * st.rise, "stair"))

        if clevel == STAIR:
            st = self._stair_at(cx)
            k_now = self._step_index(st, cy)
            if glevel == HALL:
                lane = cx - st.x
                climb(st, k_now + 1, st.steps, lane)
                hx, hy = g.head(st, lane)
                out.append((hx, hy, H, "stair"))
                cx, cy, clevel = hx, hy, HALL
            else:
                lane = g.lane(st, up=False)
                climb(st, k_now - 1, 1, lane)
                out.append((st.x + lane, -st.run + 0.02, 0.0, "stair"))
                fx, fy = g.foot(st, lane)
                out.append((fx, fy, 0.0, "stair"))
                cx, cy, clevel = fx, fy, COURT
        if clevel == glevel and not top_step:
            for x, y in self._route(body, clevel, (cx, cy), (gx, gy), t)[1:]:
                out.append((x, y, H if clevel == HALL else 0.0, clevel))
            return out
        st = self.reading.stairs.get(stair_name or "") or self._conventional_stair(body)
        if clevel == COURT:
            lane = g.lane(st, up=True)
            fx, fy = g.foot(st, lane)
            for x, y in self._route(body, COURT, (cx, cy), (fx, fy), t)[1:]:
                out.append((x, y, 0.0, COURT))
            out.append((st.x + lane, -st.run + 0.02, 0.0, "stair"))
            climb(st, 1, st.steps, lane)
            if top_step:
                return out
            hx, hy = g.head(st, lane)
            out.append((hx, hy, H, "stair"))
            for x, y in self._route(body, HALL, (hx, hy), (gx, gy), t)[1:]:
                out.append((x, y, H, HALL))
        else:  # hall → court
            lane = g.lane(st, up=False)
            hx, hy = g.head(st, lane)
            for x, y in self._route(body, HALL, (cx, cy), (hx, hy), t)[1:]:
                out.append((x, y, H, HALL))
            climb(st, st.steps, 1, lane)
            out.append((st.x + lane, -st.run + 0.02, 0.0, "stair"))
            fx, fy = g.foot(st, lane)
            out.append((fx, fy, 0.0, "stair"))
            if glevel == COURT:
                for x, y in self._route(body, COURT, (fx, fy), (gx, gy), t)[1:]:
                    out.append((x, y, 0.0, COURT))
        return out

    def _route(self, body: Body, level: str, a, b, t) -> list[tuple[float, float]]:
        try:
            return self.ground.route(level, a, b, self.standing(body, t, level))
        except ValueError as e:
            self.fail(f"{body.id} cannot get there: {e}")
        raise AssertionError

    def _stair_at(self, x: float):
        return min(self.reading.stairs.values(), key=lambda s: abs(s.x - x))

    @staticmethod
    def _step_index(st, y: float) -> int:
        return int(min(st.steps, max(1, round((y + st.run) / st.tread + 0.5))))

    def _conventional_stair(self, body: Body):
        """賓 and his party use the 西階, the 主人 the 阼階 (first half; brief §4)."""
        if body.id == "主人":
            return self.reading.stairs["阼阶"]
        return self.reading.stairs["西阶"]

    def _time_path(self, body: Body, plan, t0: float) -> list[tuple[float, float, float, float, float]]:
        out = []
        t, x, y, z, h = t0, body.x, body.y, body.z, body.heading
        for px, py, pz, kind in plan:
            d = math.hypot(px - x, py - y)
            if d < 1e-6 and abs(pz - z) < 1e-6:
                continue
            if d > 1e-3:
                nh = _bearing(px - x, py - y)
                turn = abs(_turn_delta(h, nh)) / self.pace.turn
                if turn > 0.05:
                    t += turn
                    out.append((t, x, y, z, nh))
                h = nh
            if kind == "stair":
                t += self.pace.stair_step
            else:
                t += d / (self.pace.hall if kind == HALL else self.pace.court)
            x, y, z = px, py, pz
            out.append((t, x, y, z, h))
        return out

    def face(self, body: Body, heading: float) -> None:
        d = abs(_turn_delta(body.heading, heading))
        if d < 1.0:
            return
        body.key(body.t)
        body.heading = heading % 360
        body.t += max(0.3, d / self.pace.turn)
        body.key(body.t)

    def posture(self, body: Body, posture: str, dur: float, then: str | None = None) -> None:
        body.key(body.t)
        body.key(body.t, posture)
        body.t += dur
        body.key(body.t, then or posture)

    def hold(self, body: Body, dur: float) -> None:
        body.key(body.t)
        body.t += dur
        body.key(body.t)

    def nudge(self, body: Body, direction_deg: float, dist: float) -> None:
        """A short step (少退, 少進, 辟) keeping one's facing; shortened, or not taken, where it would
        bring one too close to someone (now, or later as others are already planned)."""
        body.key(body.t)
        level = body.level if body.level != STAIR else HALL
        a = math.radians(direction_deg)
        z = body.z
        for f in (1.0, 0.5, 0.0):
            nx_, ny_ = body.x + math.sin(a) * dist * f, body.y + math.cos(a) * dist * f
            if f == 0.0:
                break
            if body.level != STAIR and not self.ground.is_free(level, nx_, ny_):
                nx_, ny_ = self.ground.free_point(level, nx_, ny_)
            if body.level != STAIR and not self.clear_of_lanes(level, np.asarray([[nx_, ny_]]))[0]:
                continue          # not into the way up or down a stair
            path = [(body.t, body.x, body.y, z), (body.t + 0.9, nx_, ny_, z)]
            if self.conflict(body, path) is None and self.standing_conflict(
                    body, path[-1], self._tail_end(body.t + 0.9)) is None:
                break
        body.x, body.y = nx_, ny_
        body.t += 0.9
        body.key(body.t, body.posture if body.posture in ("stand", "kneel") else "stand")

    # ------------------------------------------------------------------ props
    def carry(self, prop_id: str, who: str | None, t: float) -> None:
        pr = self.props.get(prop_id)
        if pr is None:
            self.fail(f"unknown prop {prop_id}")
        if pr.carrier == who:
            return
        if pr.carrier is not None and pr.intervals and pr.intervals[-1][2] is None:
            pr.intervals[-1][2] = t
        pr.carrier = who
        pr.carriers.append([round(t, 3), who])
        if who is not None:
            pr.intervals.append([who, t, None])

    def set_down(self, prop_id: str, x: float, y: float, z: float, t: float) -> None:
        pr = self.props[prop_id]
        self.carry(prop_id, None, t)
        pr.x, pr.y, pr.z = x, y, z
        pr.keys.append([round(t, 3), round(x, 4), round(y, 4), round(z, 4), round(pr.heading, 2), "rest"])

    def approach(self, body: Body, x: float, y: float, level: str, within: float, why: str) -> None:
        """Walk up to within a distance of a point on a level, stopping short, facing it."""
        blevel = body.level if body.level != STAIR else HALL
        if blevel == level and math.hypot(x - body.x, y - body.y) <= within + 0.35:
            return          # within reach: keep the facing the text gave (拜受 北面, 拜送 西面 …)
        if blevel == level:
            d = math.hypot(x - body.x, y - body.y)
            f = (d - within) / d
            gx, gy = body.x + (x - body.x) * f, body.y + (y - body.y) * f
        else:
            gx, gy = x, y - within if level == COURT else y - within
        gx, gy = self.free_spot(body, gx, gy, level, body.t)
        if blevel == level:
            gx, gy = self._open_side(body, x, y, level, within, (gx, gy))
        self.walk(body, (gx, gy, level), why)
        self.face(body, _bearing(x - body.x, y - body.y))

    def _open_side(self, body: Body, x: float, y: float, level: str, within: float,
                   first: tuple[float, float]) -> tuple[float, float]:
        """Where to stand to reach (x, y): the nearest spot, unless people around box the way to it in;
        then the side of the thing (or person) that can be walked up to."""
        standing = self.standing(body, body.t, level)
        sides = [(x + within * math.sin(a), y + within * math.cos(a)) for a in _RING[::2]]
        sides.sort(key=lambda p: math.dist(p, (body.x, body.y)))       # the near sides first
        for gx, gy in [first, *sides]:
            if not self.ground.is_free(level, gx, gy) or any(math.dist((gx, gy), o) < self.GAP + 0.05 for o in standing):
                continue
            self.ground.route(level, (body.x, body.y), (gx, gy), standing)
            if not self.ground.boxed_in:
                return gx, gy
        return first

    # ------------------------------------------------------------------ setup
    def initial(self) -> None:
        H = self.reading.hall_height
        for p in self.rite.people:
            if p.id not in self.rite.initial:
                self.fail(f"{p.id} has no initial place")
        for p in self.rite.people:
            ini = self.rite.initial[p.id]
            self.current_who = p.id
            x, y, level, fh = self._initial_place(p.id, ini.at)
            heading = heading_of(ini.heading) if ini.heading else (fh if fh is not None else 0.0)
            b = Body(p.id, x, y, H if level == HALL else 0.0, heading, ini.posture or "stand", level,
                     index=self.track_index, slot=len(self._by_slot))
            self._by_slot.append(b)
            # spread people given the same spot (e.g. the 弟子 at 堂西)
            x2, y2 = self.free_spot(b, x, y, level, 0.0)
            b.x, b.y = x2, y2
            self.bodies[p.id] = b
            b.key(0.0)
            b.set_state(0.0, bare_left_arm=ini.bare, gear=ini.gear, bow=ini.bow, holding=list(ini.holds))
        self.current_who = ""
        pending = list(self.rite.props)
        while pending:
            later = []
            for pr in pending:
                ini = self.rite.initial.get(pr.id)
                if ini is None:
                    self.fail(f"prop {pr.id} has no initial place")
                base = None if ini.held_by else parse_place(ini.at, self.names).base
                if base and base not in self.reading.landmarks and base not in self.bodies and base not in self.props:
                    later.append(pr)       # placed relative to a prop not placed yet
                    continue
                self._place_prop(pr, ini)
            if len(later) == len(pending):
                self.fail(f"props placed relative to each other in a cycle: {', '.join(p.id for p in later)}")
            pending = later

    def _place_prop(self, pr, ini) -> None:
        H = self.reading.hall_height
        heading = heading_of(ini.heading) if ini.heading else 0.0
        if ini.held_by:
            b = self.bodies[ini.held_by]
            self.props[pr.id] = PropBody(pr.id, pr.kind, b.x, b.y, b.z + 1.0, heading)
            self.carry(pr.id, ini.held_by, 0.0)
        else:
            x, y, level, _ = self.resolve(ini.at)
            z = H if level == HALL else 0.0
            self.props[pr.id] = PropBody(pr.id, pr.kind, x, y, z, heading)
            self.props[pr.id].keys.append([0.0, round(x, 4), round(y, 4), round(z, 4), round(heading, 2), "rest"])

    def _initial_place(self, who: str, at: str) -> tuple[float, float, str, float | None]:
        """An initial place; a formation's name gives the person's slot in it.  Others given a formation's
        place wait in a second row behind its file (the 弟子 and the 有司 behind the archers at 堂西)."""
        slot = self._formation_slot(who, at)
        if slot is not None:
            return slot
        f = self.reading.formations.get(at) or self.reading.formations.get(at + "位")
        if f is not None and (self.rite.formations.get(at) or self.rite.formations.get(at + "位")):
            k = self._behind.get(f.id, 0) + 1
            self._behind[f.id] = k
            members = self.rite.formations.get(at) or self.rite.formations.get(at + "位") or []
            # behind the last file the members fill
            self._file_slot(f, 1)                      # measures how many fit in one file
            files = -(-len(members) // self._file_length[f.id])
            x, y, level = self._file_slot(f, k, behind=1.1 * max(1, files))
            return x, y, level, f.heading
        return self.resolve(at, who)

    def _formation_slot(self, who: str, name: str, rank: int | None = None):
        members = self.rite.formations.get(name)
        f = self.reading.formations.get(name) or self.reading.formations.get(name + "位")
        if f is None or (members is None and rank is None):
            return None
        if rank is None:
            if who not in members:
                return None
            rank = members.index(who) + 1
        if f.slots is not None and rank > f.slots:
            self.fail(f"{who} has no place in {f.id}: the reading gives it {f.slots} places and the rite puts "
                      f"{max(rank, len(members or []))} people in it")
        x, y, level = self._file_slot(f, rank)
        if not self.ground.is_free(level, x, y) and math.dist((x, y), self.ground.free_point(level, x, y)) > 1.0:
            self.fail(f"{who} has no place in {f.id}: place {rank} of the file, folded as the ground allows, "
                      f"lies at ({x:.1f}, {y:.1f}) inside walls or fixtures")
        return x, y, level, f.heading

    def _file_slot(self, f, rank: int, behind: float = 0.0) -> tuple[float, float, str]:
        """The rank-th place of a file; a file longer than the ground allows folds into further files
        behind the first (若衆則…: the text turns a long row into a file), each 1.1 m further back."""
        z = f.origin[2]
        level = HALL if z > self.reading.hall_height / 2 else COURT
        length = self._file_length.get(f.id)
        if length is None:
            length = 1
            while length < 400:
                x, y, _ = f.slot(length + 1)
                if not self.ground.is_free(level, x, y):
                    break
                length += 1
            self._file_length[f.id] = length
        file_no, k = divmod(rank - 1, length)
        x, y, _ = f.slot(k + 1)
        back = math.radians(f.heading + 180)
        d = behind + 1.1 * file_no
        return x + d * math.sin(back), y + d * math.cos(back), level

    def _ahead(self, place: str) -> float | None:
        """When the one ahead in a file set out, if he walked to his place in it in this event (those
        walking to one file in one event go in rank order: 宾出，众宾皆出; 反于射位)."""
        return self._procession.get((self.current.id if self.current else "", place))

    def _set_out(self, b: Body, place: str) -> None:
        """Remember when the one who just walked to his place in a file set out (see :meth:`_ahead`)."""
        last = self._last_walk.get(b.id)
        ev = self.current.id if self.current else ""
        if last is not None and last[0] == ev:
            self._procession[(ev, place)] = max(last[1], self._procession.get((ev, place), last[1]))

    def _adhoc_slot(self, b: Body, a):
        """A file at a named place that the reading does not define as a formation: the senior at the
        place, the others westward (東上 facing north or south) or southward (北上 facing east or west)."""
        members = self.rite.formations.get(a.place) or []
        rank = a.rank or (members.index(b.id) + 1 if b.id in members else 1)
        x, y, level, h = self.resolve(a.place, b.id)
        heading = heading_of(a.heading) if a.heading else (h if h is not None else 0.0)
        along = (-0.9, 0.0) if round(heading) % 180 == 0 else (0.0, -0.9)
        return x + along[0] * (rank - 1), y + along[1] * (rank - 1), level, heading

    # ------------------------------------------------------------------ events
    def run(self) -> Plan:
        with _without_cyclic_gc():
            return self._run()

    def _run(self) -> Plan:
        self.initial()
        events = self.rite.events
        index = {e.id: i for i, e in enumerate(events)}
        ends: dict[str, float] = {}
        waiting = {e.id: set(e.after) for e in events}
        dependents: dict[str, list[str]] = {}
        for e in events:
            for a in e.after:
                dependents.setdefault(a, []).append(e.id)
        ready = [(0.0, index[e.id], e.id) for e in events if not e.after]
        heapq.heapify(ready)
        done = 0
        while ready:
            start, _, eid = heapq.heappop(ready)
            ev = events[index[eid]]
            end = self.perform(ev, start)
            ends[eid] = end
            self.event_times[eid] = (start, end)
            done += 1
            for d in dependents.get(eid, []):
                waiting[d].discard(eid)
                if not waiting[d]:
                    s = max(ends[a] for a in events[index[d]].after)
                    heapq.heappush(ready, (s, index[d], d))
        if done != len(events):
            stuck = [e.id for e in events if e.id not in ends][:3]
            raise PlanError(self.rite_file, "events", f"events never become ready (missing or cyclic `after`): {stuck}")
        return self.document()

    def perform(self, ev, start: float) -> float:
        self.current = ev
        self.explain.append(f"{ev.id} [{ev.span[0]}:{ev.span[1]}] {ev.text}")
        if ev.rule or not ev.actions:
            return start
        phases: list[list] = [[]]
        for a in ev.actions:
            if a.verb == "sync":
                phases.append([])
            else:
                phases[-1].append(a)
        t = start
        for phase in phases:
            people = {self.aliases.get(a.who, a.who) for a in phase}
            for pid in sorted(people):
                b = self._body(pid)
                if b.t < t:
                    b.hold_until(t)
            self._perform_phase(phase)
            self.current_who = ""
            t = max([t, *[self._body(p).t for p in people]])
        return t

    def _perform_phase(self, phase: list) -> None:
        """The actions of one phase in order; someone whose way is blocked by people who have not yet
        been planned to move (they move later in the phase) is planned after them instead, when nothing
        the others do in the phase depends on him."""
        queue = list(phase)
        deferred: dict[str, int] = {}      # who → how many actions had been done when he was put back
        done = 0
        i = 0
        while i < len(queue):
            a = queue[i]
            who = self.aliases.get(a.who, a.who)
            self.current_who = a.who
            self._deferrable = deferred.get(who, -1) < done and self._independent(who, queue[i:])
            try:
                self.act(self._body(a.who), a)
                done += 1
            except _Blocked:
                deferred[who] = done
                mine = [x for x in queue[i:] if self.aliases.get(x.who, x.who) == who]
                queue = queue[:i] + [x for x in queue[i:] if self.aliases.get(x.who, x.who) != who] + mine
                self.explain.append(f"  {who} lets the others in this step go first: his way is blocked")
                continue
            i += 1
        self._deferrable = False

    def _independent(self, who: str, rest: list) -> bool:
        """Whether the others' remaining actions could run before his: no hand-over with him, nothing
        placed relative to him, none of the things he holds or handles, and others still to move."""
        b = self.bodies[who]
        names = {who, *(a for a, p in self.aliases.items() if p == who)}
        mine = [x for x in rest if self.aliases.get(x.who, x.who) == who]
        theirs = [x for x in rest if self.aliases.get(x.who, x.who) != who]
        if not theirs or any(x.other for x in mine):
            return False
        props = set(b.state.get("holding", [])) | {x.prop for x in mine if x.prop}
        for x in theirs:
            if x.prop in props:
                return False
            fields = [x.other or "", x.place or "", x.heading or "", *x.via]
            if any(n in f for n in names for f in fields):
                return False
        return True

    def _body(self, who: str) -> Body:
        who = self.aliases.get(who, who)
        if who not in self.bodies:
            self.fail(f"unknown person {who}")
        return self.bodies[who]

    def act(self, b: Body, a) -> None:  # noqa: C901 — one branch per verb of the vocabulary
        P, v = self.pace, a.verb
        if v in ("go", "enter", "exit", "step_back", "step_forward") and a.place:
            x, y, level, fh = self.resolve(a.place, b.id)
            via, by_way = self._text_via(b, a, level)
            if v == "exit" and a.place in ("门", "門"):
                y -= 1.5
            # one's slot when the place is a formation one belongs to (反位, or 門外 as the guests leave)
            slot = self._formation_slot(b.id, a.place) if v in ("go", "exit") else None
            if slot is None and v == "go" and a.rank:
                slot = self._adhoc_slot(b, a)      # 北上 / 東上: one place each, in rank order
            if slot is not None:
                x, y, level, fh = slot
            x, y = self.free_spot(b, x, y, level, b.t)
            if v == "exit" and slot is not None:
                # out of the gate, down the lane a metre in front of the file, and into one's place from in
                # front of it (not past the shoulders of those already standing: routed through them, a
                # walk cost as much as the file was long)
                h = math.radians(fh)
                fx, fy = x + 1.0 * math.sin(h), y + 1.0 * math.cos(h)
                lx, ly = fx, self.reading.gate[1] - 1.5
                if self.ground.is_free(level, fx, fy) and self.ground.is_free(level, lx, ly):
                    via = [*via, (lx, ly, level), (fx, fy, level)]
            why = f"{v} to {a.place}" + by_way
            if v == "exit":
                why += " (出: through the 门, the only way out)"
            if a.stair:
                why += f" by the {a.stair} (stated)"
            self.walk(b, (x, y, level), why, a.stair, via=via, behind=self._ahead(a.place) if slot else None,
                      aside=v == "go" and slot is None)
            if slot is not None:
                self._set_out(b, a.place)
                if v == "exit" and not a.heading:
                    self.face(b, fh)         # in his place in the file outside, facing as the file faces
        elif v == "go" or v == "step_forward":
            self.nudge(b, b.heading, P.step)
        elif v == "step_back":
            self.nudge(b, b.heading + 180, P.step)
        elif v == "exit":
            gate = self.reading.landmarks["门"].position
            self.walk(b, (gate[0], gate[1] + 0.6, COURT), "出 by the 门")
            x, y = self.free_spot(b, gate[0], gate[1] - 1.5, COURT, b.t)
            self.walk(b, (x, y, COURT), "outside the 门")
        elif v == "enter":
            gate = self.reading.landmarks["门"].position
            self.walk(b, (gate[0], gate[1] + 1.5, COURT), "入 by the 门")
        elif v == "formation":
            slot = self._formation_slot(b.id, a.place, a.rank) or self._adhoc_slot(b, a)
            x, y, level, fh = slot
            x, y = self.free_spot(b, x, y, level, b.t)
            via, by_way = self._text_via(b, a, level)
            self.walk(b, (x, y, level), f"to his slot in {a.place} (rank order)" + by_way, a.stair, via=via,
                      behind=self._ahead(a.place))
            self._set_out(b, a.place)
            self.face(b, fh)
        elif v == "ascend":
            st = self.reading.stairs.get(a.stair or "") or self._conventional_stair(b)
            if a.top_step:
                self.walk(b, (st.x + self.ground.lane(st, True), st.step_y(st.steps), HALL),
                          f"up the {st.id} to the top step (盡階不升堂)",
                          st.id, top_step=True)
                self.face(b, 0.0)
            else:   # one pace onto the hall from the head of the lane going up, clear of the stair's head
                hx, hy = self.ground.head(st, self.ground.lane(st, True))
                hx, hy = self.free_spot(b, hx, hy + self.GAP + 0.05, HALL, b.t)
                after = self._partner_third_step(b, st)
                why = f"升 by the {st.id}"
                if after is not None:
                    why += f", a step behind {self.partner[b.id]} (上射先升三等，下射從之中等)"
                self.walk(b, (hx, hy, HALL), why, st.id, first_step_at=after)
        elif v == "descend":
            st = self.reading.stairs.get(a.stair or "") or self._conventional_stair(b)
            fx, fy = self.ground.foot(st)
            fx, fy = self.free_spot(b, fx, fy, COURT, b.t)
            after = self._partner_third_step(b, st, down=True)
            why = f"降 by the {st.id}"
            if after is not None:
                why += f", a step behind {self.partner[b.id]} (上射降三等，下射從之中等)"
            self.walk(b, (fx, fy, COURT), why, st.id, first_step_at=after)
        elif v in ("face", "turn"):
            if a.heading:
                self.face(b, self.heading_toward(b, a.heading))
                self.stated[b.id] = (self.current.id if self.current else "", b.heading)
        elif v == "kneel":
            self.posture(b, "kneel", P.kneel)
        elif v == "rise":
            self.posture(b, "stand", P.rise)
        elif v == "stand":
            self.posture(b, "stand", 0.5)
        elif v == "bow":
            if a.other:
                self.face(b, self.heading_toward(b, a.other))
            self.posture(b, "bow", P.bow * a.count, "stand")
        elif v == "kneel_bow":
            back = "kneel" if b.posture == "kneel" else "stand"
            self.posture(b, "kneel_bow", P.kneel_bow * a.count, back)
        elif v == "sidestep":
            d = heading_of(a.heading) if a.heading else b.heading + 90
            self.nudge(b, d, P.step)
        elif v in ("bare", "cover", "gear_on", "gear_off"):
            key = {"bare": ("bare_left_arm", True), "cover": ("bare_left_arm", False),
                   "gear_on": ("gear", True), "gear_off": ("gear", False)}[v]
            self.hold(b, P.dress)
            b.set_state(b.t, **{key[0]: key[1]})
        elif v == "hold_bow":
            self.hold(b, 1.0)
            b.set_state(b.t, bow=a.text or "strung")
        elif v in ("take", "receive"):
            self._take(b, a)
        elif v == "put":
            self._put(b, a)
        elif v == "give":
            self._give(b, a)
        elif v == "shoot":
            self._shoot(b, a)
        elif v == "tuck" and a.prop and a.prop in self.props and self.props[a.prop].carrier != b.id:
            self._take(b, a)        # 搢扑: take it up first if it lies where he left it
            self.hold(b, 1.0)
        elif v in ("wash", "pour", "drink", "offer", "tuck_arrows", "tuck", "count", "perform", "reply",
                   "announce", "music", "wait"):
            dur = a.duration
            if dur is None:
                dur = {"wash": P.wash, "pour": P.pour, "drink": P.drink, "offer": P.offer, "tuck_arrows": 2.0,
                       "tuck": 1.0, "count": 6.0, "perform": 3.0, "reply": 1.5, "music": 12.0, "wait": 0.0,
                       "announce": 1.0 + P.speak_char * len(a.text or "")}[v]
            if v == "wash":
                self._near_fixture(b, "洗", 1.2)
            if v == "pour" and b.level == HALL:
                self._near_fixture(b, "尊", 1.0)
            if v in ("announce", "reply") and a.other and self.stated.get(b.id, ("",))[0] != (
                    self.current.id if self.current else ""):
                self.face(b, self.heading_toward(b, a.other))   # unless the text gave his facing
            self.hold(b, dur)
        else:
            self.fail(f"verb {v} cannot be planned")
        if a.heading and v in ("go", "formation", "ascend", "descend", "enter", "exit", "step_back",
                               "step_forward", "take", "put", "give", "receive", "kneel", "rise", "stand",
                               "kneel_bow", "wash", "pour", "drink", "offer", "count", "perform", "wait"):
            self.face(b, self.heading_toward(b, a.heading))
            self.stated[b.id] = (self.current.id if self.current else "", b.heading)

    def _text_via(self, b: Body, a, level: str) -> tuple[list, str]:
        """The via points the text names for an action (由X之南 …), and the words that explain them."""
        via = [p for p in (self._via_point(name, b, level) for name in a.via) if p is not None]
        return via, (f" by way of {', '.join(a.via)} (the text's via)" if a.via else "")

    def _near_fixture(self, b: Body, name: str, within: float) -> None:
        lm = self.reading.landmarks.get(name)
        if lm is None:
            return
        level = HALL if lm.position[2] > self.reading.hall_height / 2 else COURT
        if (b.level if b.level != STAIR else HALL) != level or math.hypot(lm.position[0] - b.x, lm.position[1] - b.y) > within + 0.8:
            self.approach(b, lm.position[0], lm.position[1], level, within + 0.3, f"to the {name}")

    def _take(self, b: Body, a) -> None:
        P = self.pace
        if a.prop is None:
            self.hold(b, P.handle)
            return
        pr = self.props.get(a.prop)
        if pr is None:
            self.fail(f"unknown prop {a.prop}")
        if pr.carrier == b.id:
            self.hold(b, 0.3)
            return
        if pr.carrier is not None:
            self._meet(b, self.bodies[pr.carrier], f"to receive the {a.prop} from {pr.carrier}")
        else:
            level = HALL if pr.z > self.reading.hall_height / 2 else COURT
            self.approach(b, pr.x, pr.y, level, 0.6, f"to take the {a.prop}")
            self.hold(b, P.handle)
        self.carry(a.prop, b.id, b.t)
        b.set_state(b.t, holding=sorted({*b.state.get("holding", []), a.prop}))

    def _put(self, b: Body, a) -> None:
        P = self.pace
        if a.prop is None:
            self.hold(b, P.handle)
            return
        if a.prop not in self.props:
            self.fail(f"unknown prop {a.prop}")
        if self.props[a.prop].carrier != b.id:
            self._take(b, a)        # one sets down only what one has: pick it up (or receive it) first
        if a.place:
            x, y, level, _ = self.resolve(a.place, b.id)
            self.approach(b, x, y, level, 0.6, f"to set the {a.prop} at {a.place}")
        else:
            h = math.radians(b.heading)
            x, y = b.x + 0.5 * math.sin(h), b.y + 0.5 * math.cos(h)
            level = b.level if b.level != STAIR else HALL
        self.hold(b, P.handle)
        z = self.reading.hall_height if level == HALL else 0.0
        self.set_down(a.prop, x, y, z, b.t)
        b.set_state(b.t, holding=sorted(set(b.state.get("holding", [])) - {a.prop}))

    def _shoot(self, b: Body, a) -> None:
        """射: one shoots the arrows one holds, standing where one is; they come to rest at the target
        (spread along its front, each bundle in its own place), where the juniors gather them (取矢)."""
        if a.prop is None or a.prop not in self.props:
            self.fail(f"shoot needs the arrows one holds (prop), not {a.prop!r}")
        if self.props[a.prop].carrier != b.id:
            self.fail(f"{b.id} cannot shoot the {a.prop}: he does not hold them")
        self.hold(b, a.duration if a.duration is not None else 8.0)
        x, y, level, _ = self.resolve(a.place or "侯北一步", b.id)
        shot = sorted(self.props).index(a.prop)
        x += ((shot % 7) - 3) * 0.3                  # side by side along the target's foot …
        y += (shot // 7 % 3) * 0.3                   # … in rows
        self.set_down(a.prop, x, y, self.reading.hall_height if level == HALL else 0.0, b.t)
        b.set_state(b.t, holding=sorted(set(b.state.get("holding", [])) - {a.prop}))

    def _keep_stated_facing(self, b: Body) -> None:
        """Hand-overs are done facing the way the text says (北面拜受, 西面拜送), not face to face."""
        ev, h = self.stated.get(b.id, ("", None))
        if h is not None and self.current is not None and ev == self.current.id:
            self.face(b, h)

    def _meet(self, b: Body, other: Body, why: str) -> None:
        """A hand-over: come within arm's reach (0.75 m) of the other, wait for him, hand over."""
        self.approach(b, other.x, other.y, other.level if other.level != STAIR else HALL, 0.75, why)
        b.hold_until(max(b.t, other.t))
        self._keep_stated_facing(b)
        self.hold(b, self.pace.hand_over)

    def _give(self, b: Body, a) -> None:
        if a.other is None:
            self.fail("give needs the person who receives")
        other = self._body(a.other)
        self._meet(b, other, f"to hand over to {other.id}")
        if a.prop:
            if a.prop not in self.props:
                self.fail(f"unknown prop {a.prop}")
            self.carry(a.prop, other.id, b.t)
            b.set_state(b.t, holding=sorted(set(b.state.get("holding", [])) - {a.prop}))
            other.hold_until(b.t)
            other.set_state(b.t, holding=sorted({*other.state.get("holding", []), a.prop}))

    # ------------------------------------------------------------------ output
    def _hands(self, b: Body, ts) -> list[list]:
        """Where a carried prop is at times ts: in the right hand, a little forward and to the right, at
        waist height (lower when kneeling), from the carrier's interpolated pose (all times at once)."""
        keys, k = b.keys, b.array()
        ts = np.asarray(ts, float)
        n = len(k)
        i = np.maximum(0, np.searchsorted(k[:, 0], ts, side="right") - 1)
        j = np.minimum(i + 1, n - 1)
        # the pose between key i and the next (as position_at: the first key before, the last after)
        t0, t1 = k[i, 0], k[j, 0]
        moving = t1 > t0
        along = (ts - t0) / np.where(moving, t1 - t0, 1.0)
        xyz = k[i, 1:4] + (k[j, 1:4] - k[i, 1:4]) * np.where(moving, along, 1.0)[:, None]
        xyz = np.where((ts <= k[0, 0])[:, None], k[0, 1:4], np.where((ts >= k[-1, 0])[:, None], k[-1, 1:4], xyz))
        g = np.where(moving, np.clip(along, 0.0, 1.0), 0.0)
        head = np.asarray([key[4] for key in keys], float)
        h0, h1 = head[i], head[j]
        heading = (h0 + ((h1 - h0 + 180) % 360 - 180) * g) % 360
        out = []
        for t, (x, y, z), hd, ii in zip(ts.tolist(), xyz.tolist(), heading.tolist(), i.tolist()):
            h = math.radians(hd)
            hx = x + 0.25 * math.sin(h) + 0.2 * math.cos(h)
            hy = y + 0.25 * math.cos(h) - 0.2 * math.sin(h)
            out.append([round(t, 3), round(hx, 4), round(hy, 4), round(z + (0.5 if keys[ii][5] == "kneel" else 0.95), 4),
                        round(hd, 2), "carried"])
        return out

    def prop_track(self, pr: PropBody, end: float) -> list[list]:
        """A prop's keys: where it rests, and in its carrier's hand while carried.  It stays where it lies
        until it is picked up (a rest key just before), so nothing drifts between keys."""
        keys = list(pr.keys)
        for who, t0, t1 in pr.intervals:
            b = self.bodies[who]
            t1 = end if t1 is None else t1
            lying = [k for k in pr.keys if k[0] <= t0 + 1e-9]
            handed = any(a <= t0 - 0.3 <= (end if e is None else e) for _, a, e in pr.intervals)
            if lying and t0 - 0.3 > lying[-1][0] and not handed:
                keys.append([round(t0 - 0.3, 3), *lying[-1][1:5], "rest"])
            times = b.array()[:, 0]
            i0, i1 = np.searchsorted(times, t0 - 1e-6, side="left"), np.searchsorted(times, t1 + 1e-6, side="right")
            keys += self._hands(b, [*times[i0:i1], t0, t1])
        keys.sort(key=lambda k: (k[0], k[5] != "carried"))
        out: list[list] = []
        for k in keys:
            if out and abs(out[-1][0] - k[0]) < 1e-9:
                out[-1] = k
            else:
                out.append(k)
        return out

    def document(self) -> Plan:
        """The plan: every track, state, carrier and event as the planner wrote them."""
        duration = max([b.t for b in self.bodies.values()] + [e for _, e in self.event_times.values()] + [0.0])
        for b in self.bodies.values():
            b.hold_until(duration)
        people = {p.id: p for p in self.rite.people}
        actors = {}
        for pid, b in self.bodies.items():
            p = people[pid]
            actors[pid] = Actor(pid, p.label_en, Track.from_rows(b.keys), aliases=list(p.aliases), side=p.side,
                                states=Steps.from_rows(b.states), walked_m=round(b.walked, 2))
        props = {pid: Prop(pid, pr.kind, Track.from_rows(self.prop_track(pr, duration)), label=pr.kind,
                           carriers=Steps.from_rows(pr.carriers))
                 for pid, pr in self.props.items()}
        events = []
        for e in self.rite.events:
            s, t = self.event_times.get(e.id, (0.0, 0.0))
            events.append(Event(e.id, e.text, tuple(e.span), e.footnote, tuple(e.actors), round(s, 3), round(t, 3),
                                e.gloss, e.rule))
        events.sort(key=lambda ev: (ev.start, ev.span[0]))
        r = self.reading
        return Plan(
            layout=LayoutRef(r.name, r.name_en, r.file, tuple(r.sources)),
            text={"file": logical_name(SEED), "sha256": hashlib.sha256(SEED.read_bytes()).hexdigest()},
            measures={"chi_m": r.units.chi_m, "bu_m": round(r.units.bu_m, 6)},
            parameters=dict(self.rite.parameters), options=dict(self.rite.options),
            hall={"height_m": r.hall_height, "footprint": [list(p) for p in r.hall_footprint]},
            landmarks=dict(r.landmarks), actors=actors, props=props, events=events,
            duration=round(duration, 3), conflicts=list(self.conflicts))


@contextmanager
def _without_cyclic_gc():
    """Planning keeps tens of thousands of small lists (every key of every track) until the plan is
    written; Python's cycle collector would scan all of them again at each of its full passes, which
    come more often the more is allocated, so the cost grows with the square of the plan.  Planning makes
    no reference cycles worth collecting before it ends: the collector is paused meanwhile (and left as
    it was found).  Memory is still freed by reference counting."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


def make_plan(reading: Reading, rite, pace: Pace = Pace()) -> Plan:
    """Plan a rite on a reading; returns the :class:`~reconstruct.model.plan.Plan`."""
    return Planner(reading, rite, pace).run()


def summary(plan: Plan) -> str:
    lines = [f"{plan.layout.name}: {len(plan.events)} events, {len(plan.actors)} people, "
             f"{len(plan.props)} props; the passage lasts {plan.duration / 60:.1f} min ({plan.duration:.0f} s)"]
    walked = sorted(((a.walked_m, k) for k, a in plan.actors.items()), reverse=True)
    lines.append("walking: " + ", ".join(f"{k} {w:.0f} m" for w, k in walked[:8]))
    lines.append(f"conflicts left: {len(plan.conflicts)}")
    return "\n".join(lines)
