"""People and props while planning: their keys as written so far, and the index of where tracks go."""
from __future__ import annotations

import math
from bisect import bisect_right
from dataclasses import dataclass, field
from functools import lru_cache
from operator import itemgetter

import numpy as np

from ..model import footprint
from ..model.vocabulary import Posture, PropPosture


class TrackIndex:
    """Where each person's track goes, by 10-second buckets (a bounding box per bucket), so that those
    who come near a place during a time window are found for everyone at once."""

    SPAN = 10.0

    def __init__(self, n: int) -> None:
        # bucket, person, (x0, y0, -x1, -y1): a bucket's rows lie together; the far corner negated, so that
        # the least over buckets bounds both corners at once (see :meth:`near`)
        self.box = np.full((64, n, 4), np.inf)
        self._last_t = np.full(n, -np.inf)
        self._last_box = np.zeros((n, 4))     # … as a box of its own (x, y, -x, -y)
        self.version = 0                 # counts changes, so answers derived from the tracks can be kept
        self._latest = (-1, -math.inf)   # (version, when the last of all tracks ends)
        # the same boxes and last times as plain numbers, per person (bucket → [x0, y0, x1, y1]), so that a
        # key added is compared without going through numpy; the arrays are written only when they change
        self._boxes: list[dict[int, list[float]]] = [{} for _ in range(n)]
        self._last: list[float] = [-math.inf] * n
        # where each track ends and how often that has moved, as plain numbers: written into the arrays
        # above when those are read (a walk moves a track's end a dozen times before anyone asks)
        self._ends: list[tuple[float, float, float]] = [(0.0, 0.0, 0.0)] * n
        self._moves: list[int] = [0] * n
        self._moved: set[int] = set()

    def _write_ends(self) -> None:
        """Write the ends moved since into the arrays (each as its plain numbers have it now)."""
        for i in self._moved:
            x, y, _ = self._ends[i]
            self._last_t[i], self._last_box[i] = self._last[i], (x, y, -x, -y)
        self._moved.clear()

    @property
    def last_t(self) -> np.ndarray:
        """(people,): when each track ends (-inf where none yet)."""
        if self._moved:
            self._write_ends()
        return self._last_t

    @property
    def last_xyz(self) -> np.ndarray:
        """(people, 3): where each track ends (an array made of :meth:`ends`; the planner reads those)."""
        return np.asarray(self._ends, float).reshape(-1, 3)

    # the same as plain numbers, for those who read a few dozen people one by one (quicker than from the
    # arrays); lists of the index's own, read only
    def last_times(self) -> list[float]:
        """When each track ends (-inf where none yet), as :attr:`last_t`."""
        return self._last

    def ends(self) -> list[tuple[float, float, float]]:
        """Where each track ends (x, y, z), as :attr:`last_xyz`."""
        return self._ends

    def end_move_counts(self) -> list[int]:
        """How often each track's end has moved (so what is derived from it can be kept)."""
        return self._moves

    def reserve(self, n: int) -> None:
        """Rows for at least n people (new rows empty: no track yet)."""
        more = n - self.box.shape[1]
        if more > 0:
            self._write_ends()
            self.box = np.concatenate([self.box, np.full((len(self.box), more, 4), np.inf)], axis=1)
            self._last_t = np.r_[self._last_t, np.full(more, -np.inf)]
            self._last_box = np.vstack([self._last_box, np.zeros((more, 4))])
            self._boxes += [{} for _ in range(more)]
            self._last += [-math.inf] * more
            self._ends += [(0.0, 0.0, 0.0)] * more
            self._moves += [0] * more

    def add(self, i: int, a, b) -> None:
        """The stretch of person i's track from row a (or None) to row b (t, x, y, z, …: lists of numbers)."""
        self.version += 1
        t, bx, by = b[0], b[1], b[2]
        k1 = int(t // self.SPAN)
        if a is None:
            k0, x0, y0, x1, y1 = k1, bx, by, bx, by
        else:
            k0 = int(a[0] // self.SPAN)
            x0, x1 = min(a[1], bx), max(a[1], bx)
            y0, y1 = min(a[2], by), max(a[2], by)
        if k1 >= len(self.box):
            grow = max(k1 + 1, 2 * len(self.box)) - len(self.box)
            self.box = np.concatenate([self.box, np.full((grow, self.box.shape[1], 4), np.inf)])
        boxes = self._boxes[i]
        new = []                         # the buckets this stretch is the first to reach (one standing a
        for k in range(k0, k1 + 1):      # minute reaches six): their boxes written at once, below
            box = boxes.get(k)
            if box is None:
                boxes[k] = [x0, y0, x1, y1]
                new.append(k)
                continue
            if x0 < box[0] or y0 < box[1]:
                box[0], box[1] = min(box[0], x0), min(box[1], y0)
                self.box[k, i, :2] = box[0], box[1]
            if x1 > box[2] or y1 > box[3]:
                box[2], box[3] = max(box[2], x1), max(box[3], y1)
                self.box[k, i, 2:] = -box[2], -box[3]
        if len(new) == 1:
            self.box[new[0], i] = x0, y0, -x1, -y1
        elif new:
            self.box[new, i] = x0, y0, -x1, -y1
        if t >= self._last[i]:
            self._last[i] = t
            self._ends[i] = (bx, by, b[3])
            self._moves[i] += 1
            self._moved.add(i)

    def latest(self) -> float:
        """When the last of all tracks ends (the last key of anyone), kept while no track changes."""
        if self._latest[0] != self.version:
            self._latest = (self.version, float(self.last_t.max()))
        return self._latest[1]

    def rebuild(self, i: int, rows: np.ndarray) -> None:
        self.version += 1
        self.box[:, i] = np.inf
        self._moves[i] += 1
        self._moved.add(i)
        self._boxes[i], self._last[i] = {}, -math.inf
        rows = rows.tolist()
        for j in range(len(rows)):
            self.add(i, rows[j - 1] if j else None, rows[j])

    def near(self, lo, hi, t0: float, t1: float) -> np.ndarray:
        """Which people's tracks come into the box [lo, hi] between t0 and t1 (standing where they last
        stop from then on).  (The reductions called as the ufuncs' own, which ``min`` and ``all`` call.)"""
        box = self.box
        k0 = max(0, int(t0 // self.SPAN))
        k1 = min(len(box) - 1, int(t1 // self.SPAN))
        if k1 > k0:
            B = np.minimum.reduce(box[k0:k1 + 1], axis=0)
        else:
            B = box[k0].copy() if k1 == k0 else np.full(box.shape[1:], np.inf)
        # those whose tracks end before t1 stand at the end from then on: its box taken in, in place (B is
        # this call's own)
        ended = (self.last_t < t1)[:, None]             # (last_t first: the ends written)
        np.minimum(B, self._last_box, out=B, where=ended)
        # x0 <= hi_x, y0 <= hi_y, and the far corner beyond lo: -x1 <= -lo_x, -y1 <= -lo_y
        return np.logical_and.reduce(B <= np.array((hi[0], hi[1], -lo[0], -lo[1]), float), axis=1)

    @property
    def lo(self) -> np.ndarray:
        """(buckets, people, 2): the near corner (x0, y0) of each bucket's box (inf where none)."""
        return self.box[..., :2]

    @property
    def hi(self) -> np.ndarray:
        """(buckets, people, 2): the far corner (x1, y1) of each bucket's box (-inf where none)."""
        return -self.box[..., 2:]

    def near_one(self, i: int, lo, hi, t0: float, t1: float) -> bool:
        """Whether person i's track comes into the box [lo, hi] between t0 and t1: :meth:`near`'s answer
        for his row alone, from his boxes as plain numbers (the same bounds, compared alike)."""
        k0 = max(0, int(t0 // self.SPAN))
        k1 = min(len(self.box) - 1, int(t1 // self.SPAN))
        x0 = y0 = math.inf
        x1 = y1 = -math.inf
        boxes = self._boxes[i]
        for k in range(k0, k1 + 1):
            box = boxes.get(k)
            if box is not None:
                x0, y0, x1, y1 = min(x0, box[0]), min(y0, box[1]), max(x1, box[2]), max(y1, box[3])
        if self._last[i] < t1:
            x, y = self._ends[i][0], self._ends[i][1]
            x0, y0, x1, y1 = min(x0, x), min(y0, y), max(x1, x), max(y1, y)
        return x1 >= lo[0] and y1 >= lo[1] and x0 <= hi[0] and y0 <= hi[1]


@lru_cache(maxsize=None)
def _beyond_standing(posture: str, held: tuple[str, ...], unstrung: bool) -> float:
    """How much farther an outline reaches in a posture than standing, holding things of the kinds
    ``held`` (see :meth:`Body.beyond`, :attr:`Body.hold`): a pure function, worked out once for each."""
    hold = footprint.hold_of(held, unstrung)
    reach = footprint.reach_max
    return max(0.0, float(reach(footprint.code(posture, hold)) - reach(footprint.code(Posture.STAND, hold))))


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
    gestures: list[list] = field(default_factory=list)      # [t0, t1, kind, object]

    kinds: dict = field(default_factory=dict, repr=False)   # prop id → kind (what he holds shapes his outline)

    # the keys as numbers too (t, x, y, z, walking 1/0, how far he reaches beyond a standing figure), kept
    # in step with ``keys`` for fast queries; stored column by column (Fortran order), so that a column (the
    # times, the x …) is one contiguous array, which searchsorted and interp take as it is (a strided column
    # they would copy whole at every call)
    _buf: np.ndarray = field(default_factory=lambda: np.zeros((64, 6), order="F"), repr=False)
    _n: int = 0
    index: TrackIndex | None = field(default=None, repr=False)
    _last_row: tuple | None = field(default=None, repr=False)   # (i, the numbers of row i) last written
    slot: int = 0                       # this person's row in the index
    _held: tuple | None = field(default=None, repr=False)   # (kinds held, bow unstrung) as his state has them

    def _put_row(self, i: int, row: list) -> None:
        if i >= len(self._buf):
            grown = np.zeros((2 * len(self._buf), 6), order="F")
            grown[:len(self._buf)] = self._buf
            self._buf = grown
        mine = [row[0], row[1], row[2], row[3], 1.0 if row[5] == Posture.WALK else 0.0, self.beyond(row[5])]
        self._buf[i] = mine
        self._n = max(self._n, i + 1)
        if self.index is not None:
            # the row before as it was written (kept, not read back from the buffer), unless shifted since
            last = self._last_row
            before = (last[1] if last is not None and last[0] == i - 1 else self._buf[i - 1].tolist()) if i else None
            self.index.add(self.slot, before, mine)
        self._last_row = (i, mine)

    @property
    def hold(self) -> str:
        """What his hands hold now, as it shapes his outline (see :func:`footprint.hold_of`)."""
        held = [self.kinds.get(h, "") for h in self.state.get("holding", ())]
        return footprint.hold_of(held, self.state.get("bow") == "unstrung")

    def code(self, posture: str | None = None) -> int:
        """The code of his outline (:mod:`reconstruct.model.footprint`) in a posture (his own now, by
        default), as he holds things now."""
        return footprint.code(posture or self.posture, self.hold)

    def beyond(self, posture: str) -> float:
        """How much farther his outline reaches in a posture than standing (a bow's joined hands pushed
        forward, a 拜's head down to the mat): others keep that much more room from him then."""
        held = self._held
        if held is None:        # (the kinds held, kept until his state is set again)
            held = self._held = (tuple(self.kinds.get(h, "") for h in self.state.get("holding", ())),
                                 self.state.get("bow") == "unstrung")
        return _beyond_standing(posture or self.posture, *held)

    def array(self) -> np.ndarray:
        """(n, 6): time, x, y, z, whether walking and how far he reaches beyond a standing figure (see
        :meth:`beyond`), one row per key."""
        return self._buf[:self._n]

    def window(self, t0: float, t1: float) -> np.ndarray:
        """The rows of his keys (:meth:`array`) that cover t0…t1 (the key before t0 to the one after t1;
        the last key when the track ended before), enough to interpolate it anywhere in between.  (Found
        in the list of keys, whose times are those of the rows: bisect there is quicker than numpy's
        search for one time.)"""
        i0 = max(0, bisect_right(self.keys, t0, key=itemgetter(0)) - 1)
        i1 = bisect_right(self.keys, t1, key=itemgetter(0)) + 1
        seg = self._buf[i0:min(i1, self._n)]
        return seg if len(seg) else self._buf[self._n - 1:self._n]

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
        self._last_row = None
        if self.index is not None:
            self.index.rebuild(self.slot, self.array())

    def gesture(self, t0: float, t1: float | None, kind: str, obj: str | None = None) -> list:
        """Record what the hands do from t0 to t1 (None: until closed); returns the record."""
        g = [round(t0, 3), None if t1 is None else round(t1, 3), kind, obj]
        self.gestures.append(g)
        return g

    def set_state(self, t: float, **kw) -> None:
        self.state.update(kw)
        self._held = None
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
    intervals: list[list] = field(default_factory=list)  # [carrier, t0, t1, how]: how = carried | tucked
    how: str = PropPosture.CARRIED      # in the hand, or tucked in the belt (搢)

