"""The shot grammar: how the camera tells the rite, chosen from the plan.

The passage is cut into *acts* (the people named by the event(s) performed, :mod:`.framing`), and each
act asks for screen time, as a documentary of a ceremony would film it:

* an **establishing** shot (``establish``) only where the place (the hall, the court, the range, outside
  the gate) or the group acting changes: the people of the act where they stand, from higher up;
* **medium** shots (``medium``) of those acting: full figure to waist, from the side that shows their
  faces (a three-quarter view);
* **close** shots (``close``) of the hands and the thing handled wherever a clause names one (the plan's
  gestures: a cup taken, filled, drunk; a tally laid; an arrow nocked; a bow handed over; the hands drawn in
  to bid others come (厭) — :data:`HANDLED`),
  the other party's hands too when something passes between two people;
* **walkers followed** (``walk``): whoever walks is framed over the next few seconds of his way from beside
  it, at a distance that keeps him readable, by a held camera he walks through; the next stretch is reached by
  a cut to another angle on the same side of his way (coming towards the camera, then going from it), not by
  a pan: a calm camera, and a moving camera re-draws the whole court every frame (twice the renderer's cost
  over a walk); the video draws the inset map over these shots;
* two people facing each other are filmed from one side of the line between them, and the side is kept
  across cuts (the 180° rule); walkers from one side of their way;
* no shot under :data:`MIN_SHOT` s; no cut into a shot of the same people and kind from nearly the same
  angle (:data:`SAME_ANGLE`): the shot is held instead, or the angle changes;
* columns, walls, the 乏 and people not filmed are kept out of the line of sight, as far as a view allows.

The shooting's inserts (:mod:`.archery_shots`) are spliced in by :func:`.shots.plan_shots`.
Framing is solved exactly (:func:`fit_views`: the nearest camera from a direction that holds given points in
the safe part of the frame, a small linear programme solved in closed form), vectorised over the candidate
directions, so the whole passage is filmed in a few seconds.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..model.plan import Plan
from ..model.vocabulary import GestureKind as G
from .framing import POSTURE_HEIGHT
from .figures import STANDING_HEIGHT

__all__ = ["HANDLED", "MIN_SHOT", "SAME_ANGLE", "fit_views", "film", "Piece"]

HANDLED = frozenset({G.TAKE, G.SET_DOWN, G.HAND_OVER, G.RECEIVE, G.POUR, G.DRINK, G.WASH, G.SACRIFICE,
                     G.TAKE_LUNG, G.LAY_TALLY, G.TAKE_TALLIES, G.COUNT_TALLIES, G.NOCK, G.HOLD_ARROW,
                     G.TAKE_ARROW, G.TUCK_ARROWS, G.COUNT_ARROWS, G.HOLD_WITH_BOW, G.STRING_BOW,
                     G.UNSTRING_BOW, G.FILL_HOLDER, G.RETURN_TALLIES, G.LAY_ARROWS, G.UNTIE_ARROWS,
                     G.POINT_ARROW, G.SERVE, G.DRAW_IN})
ADDRESSED = frozenset({G.BOW, G.KNEEL_BOW, G.SALUTE, G.HAND_OVER, G.RECEIVE, G.LEAD, G.DRAW_IN})
MIN_SHOT = 2.0          # s: the shortest shot
SAME_ANGLE = 30.0       # degrees: a cut between shots of the same people and kind turns at least this much
WALK_CUT = 45.0         # degrees: a walk's next stretch is seen from at least this much another way (cut, not panned)
ESTABLISH_S = 3.5       # s of an establishing shot
CLOSE_LEAD = 0.5        # s a close shot starts before the hands move
CLOSE_TAIL = 0.6        # s it stays after
CLOSE_AT_ONCE = 0.5     # s: the hands of two acts that start within this are filmed in one close shot …
CLOSE_TOGETHER = 8.0    # m: … when the people stand at most this far apart
CLOSE_RARE = 0.1        # the close shots of a clause with n handled gestures rank CLOSE_RARE / n above the others
WALK_PIECE = 4.0        # s of a walk one stretch frames
WALK_MIN = 2.0          # m: people moving more than this over a shot are filmed walking
MEDIUM_SPREAD = 5.0     # m: people of an act farther than this from its principal are left to the wide shots
GRID = 0.25             # s: the plan is sampled this often for the camera's choices
FOV = 38.0
SAFE = (0.06, 0.07, 0.94, 0.76)          # the frame's part people should be in (the captions below)
ELEVATION = {"medium": 9.0, "close": 22.0, "walk": 12.0, "establish": 27.0}
MIN_DIST = {"medium": 2.6, "close": 1.5, "walk": 3.5, "establish": 7.0}
PRIORITY = {"medium": 1.0, "walk": 1.0, "establish": 2.0, "overview": 2.5, "close": 3.0}
COLUMN_R = 0.3          # m: the radius of a column (楹) for the line of sight
OBSTACLES = ("东楹", "西楹", "东序", "西序", "北墉", "乏", "门", "侯")   # the 侯: a cloth 3 m and more high


@dataclass(frozen=True)
class Piece:
    """Screen time given to one view: [t0, t1], its kind, the people it frames, the events it films and
    (for close shots) where the hands are; ``key`` identifies the request (pieces of one request join)."""

    t0: float
    t1: float
    kind: str
    people: tuple[str, ...]
    events: tuple[str, ...]
    priority: float
    key: tuple = ()


# ---------------------------------------------------------------------------
# framing solved exactly

def _basis(dirs: np.ndarray):
    f = -dirs
    r = np.cross(f, [0.0, 0.0, 1.0])
    r /= np.linalg.norm(r, axis=1, keepdims=True)
    u = np.cross(r, f)
    return r, u, f


def fit_views(pts, dirs, size, fov: float = FOV, safe=SAFE, min_dist: float = 2.0, basis=None):
    """For each direction of ``dirs`` (k, 3: unit vectors from the subject towards the camera), the nearest
    camera (looking along −dir, z up) that holds every point of ``pts`` (m, 3) inside the ``safe`` part of the
    frame: eyes (k, 3), targets (k, 3) and the distance from the eye to the points' middle (k,).  ``basis``:
    the cameras' right, up and forward vectors when already known (:func:`_basis` of ``dirs``)."""
    pts = np.asarray(pts, float)
    dirs = np.asarray(dirs, float)
    r, u, f = _basis(dirs) if basis is None else basis
    w, h = size
    tan = math.tan(math.radians(fov) / 2)
    sl, st, sr, sb = safe
    lx, hx = (2 * sl - 1) * tan * w / h, (2 * sr - 1) * tan * w / h
    ly, hy = (1 - 2 * sb) * tan, (1 - 2 * st) * tan
    pr, pu, pf = pts @ r.T, pts @ u.T, pts @ f.T                    # (m, k)
    c = pts.mean(0)
    cf = c @ f.T
    ef = np.minimum.reduce([((pr - lx * pf).min(0) - (pr - hx * pf).max(0)) / (hx - lx),
                            ((pu - ly * pf).min(0) - (pu - hy * pf).max(0)) / (hy - ly),
                            cf - min_dist])
    er = ((pr - hx * pf).max(0) + hx * ef + (pr - lx * pf).min(0) + lx * ef) / 2
    eu = ((pu - hy * pf).max(0) + hy * ef + (pu - ly * pf).min(0) + ly * ef) / 2
    eyes = er[:, None] * r + eu[:, None] * u + ef[:, None] * f
    dist = cf - ef
    return eyes, eyes + f * dist[:, None], dist


def _dirs(azimuths, elevation: float) -> np.ndarray:
    az = np.radians(np.asarray(azimuths, float))
    el = math.radians(elevation)
    return np.c_[np.sin(az) * math.cos(el), np.cos(az) * math.cos(el), np.full(len(az), math.sin(el))]


def _figure_box(feet: np.ndarray, heights: np.ndarray, pad: float = 0.35) -> np.ndarray:
    """Feet and heads of people, padded sideways (bodies, sleeves)."""
    out = []
    for dx, dy in ((-pad, 0), (pad, 0), (0, -pad), (0, pad)):
        q = feet + [dx, dy, 0.0]
        out += [q, q + np.c_[np.zeros((len(q), 2)), heights]]
    return np.vstack(out)


# ---------------------------------------------------------------------------
# the plan, sampled once

class _Sampled:
    """Everyone's position, heading and height on a grid of times (the camera's choices read these)."""

    def __init__(self, plan: Plan, t0: float, t1: float):
        self.ids = list(plan.actors)
        self.col = {a: i for i, a in enumerate(self.ids)}
        self.t = np.arange(t0, t1 + GRID, GRID)
        xyz, hd, ht = [], [], []
        hmap = {str(k): v for k, v in POSTURE_HEIGHT.items()}
        for a in self.ids:
            tr = plan.actors[a].track
            p, h = tr.at(self.t)
            xyz.append(p)
            hd.append(h)
            kinds, which = np.unique(tr.posture_at(self.t).astype(str), return_inverse=True)
            ht.append(np.array([hmap.get(str(x), STANDING_HEIGHT) for x in kinds])[which])
        self.xyz = np.stack(xyz) if xyz else np.zeros((0, len(self.t), 3))
        self.heading = np.stack(hd) if hd else np.zeros((0, len(self.t)))
        self.height = np.asarray(ht, float).reshape(len(self.ids), len(self.t))

    def idx(self, t0: float, t1: float) -> np.ndarray:
        a = int(np.clip(np.searchsorted(self.t, t0), 0, len(self.t) - 1))
        b = int(np.clip(np.searchsorted(self.t, t1, side="right"), a + 1, len(self.t)))
        return np.arange(a, b)

    def at(self, who, ii) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        k = np.array([self.col[a] for a in who], int)
        ix = np.ix_(k, np.asarray(ii, int))
        return self.xyz[ix], self.heading[ix], self.height[ix]


# ---------------------------------------------------------------------------
# the grammar

class _Grammar:
    def __init__(self, plan: Plan, size, t_start: float, t_end: float):
        self.plan, self.size, self.t0, self.t1 = plan, size, t_start, t_end
        self.s = _Sampled(plan, t_start, t_end)
        lms = plan.landmarks
        self.hall_h = plan.hall_height
        self.range_y = float(lms["侯"].position[1]) * 0.55 if "侯" in lms else -30.0
        self.gate_y = float(lms["门"].position[1]) if "门" in lms else None
        # in the plan's order by start, as the captions take them (Plan.current_event)
        self.events = [e for e in plan.events_by_start() if any(a in plan.actors for a in e.actors)]
        self.obstacles = self._obstacles()
        self.court = self._court()
        self.sides: dict[tuple, float] = {}          # the side of a line of action, kept across cuts

    # -- the ground
    def _obstacles(self) -> list[tuple[np.ndarray, np.ndarray, float]]:
        """Axis-aligned boxes (lo xy, hi xy, top z) that block a line of sight."""
        out = []
        hall = np.asarray(self.plan.hall.get("footprint") or [], float)
        for name in OBSTACLES:
            lm = self.plan.landmarks.get(name)
            if lm is None:
                continue
            p = np.asarray(lm.position, float)
            if lm.footprint:
                fp = np.asarray(lm.footprint, float)
                lo, hi = fp.min(0), fp.max(0)
                top = p[2] + (1.2 if name == "乏" else 3.5)
            elif name in ("东楹", "西楹"):
                lo, hi, top = p[:2] - COLUMN_R, p[:2] + COLUMN_R, p[2] + 3.5
            elif name == "北墉" and len(hall):
                lo, hi = np.array([hall[:, 0].min(), p[1] - 0.15]), np.array([hall[:, 0].max(), p[1] + 0.15])
                top = p[2] + 3.5
            else:
                continue
            out.append((lo, hi, top))
        return out

    def _court(self):
        if self.gate_y is None:
            return None
        xy = self.s.xyz.reshape(-1, 3)
        xs = np.abs(xy[xy[:, 1] > self.gate_y, 0])
        if not len(xs):
            return None
        return np.array([[-xs.max() - 0.3, self.gate_y], [xs.max() + 0.3, xy[:, 1].max() + 2.0]])

    def zone(self, p: np.ndarray) -> str:
        c = p.reshape(-1, 3).mean(0)
        if self.gate_y is not None and c[1] < self.gate_y - 0.5:
            return "outside"
        if self.hall_h > 0 and c[2] > self.hall_h * 0.6:
            return "hall"
        return "range" if c[1] < self.range_y else "court"

    # -- the requests
    def requests(self) -> list[Piece]:
        out: list[Piece] = []
        # the acts: between consecutive event boundaries the latest-started events under way
        marks = sorted({self.t0, self.t1} | {float(x) for e in self.events for x in (e.start, e.end)
                                              if self.t0 < x < self.t1})
        acts: list[list] = []
        for a, b in zip(marks, marks[1:]):
            live = [e for e in self.events if e.start <= a < e.end]
            if not live:
                continue
            first = max(e.start for e in live)
            # of acts begun at once, the one the caption shows (the last in the plan: Plan.current_event) first:
            # its people are the shot's principal
            prim = [e for e in reversed(live) if e.start == first]
            who = tuple(dict.fromkeys(x for e in prim for x in e.actors if x in self.s.col))
            ids = tuple(e.id for e in prim)
            if acts and acts[-1][2] == who and acts[-1][1] >= a - 1e-9:
                acts[-1][1] = b
                acts[-1][3] = tuple(dict.fromkeys(acts[-1][3] + ids))
            else:
                acts.append([a, b, who, ids])
        prev_zone, prev_group = None, frozenset()
        for a, b, who, ids in acts:
            ii = self.s.idx(a, min(b, a + 2.0))
            feet, _, _ = self.s.at(who, ii)
            z = self.zone(feet)
            group = frozenset(who)
            if (z != prev_zone or not (group & prev_group)) and b - a >= ESTABLISH_S + MIN_SHOT:
                out.append(Piece(a, a + ESTABLISH_S, "establish", who, ids, PRIORITY["establish"], ("est", a)))
            prev_zone, prev_group = z, group
            out.append(Piece(a, b, "medium", who + self._addressed(who, a, b), ids, PRIORITY["medium"], ("act", a)))
        # the hands: every handled gesture of the people of an event, while the event goes on.  Where the
        # hands of concurrent acts move at once, the clause with the fewest handled gestures has the screen
        # first (it has no other chance to be seen), then the gesture under way longest: a cut between the
        # acts instead of one act's hands twice while the other's go unseen
        handled = [(e, aid, g) for e in self.events for aid in e.actors if aid in self.plan.actors
                   for g in self.plan.actors[aid].gestures
                   if g.kind in HANDLED and e.start - 0.05 <= g.t0 < e.end and self.t0 <= g.t0 < self.t1]
        per_event: dict[str, int] = {}
        for e, _, _ in handled:
            per_event[e.id] = per_event.get(e.id, 0) + 1
        closes = []
        for e, aid, g in handled:
            other = self._other_party(aid, g)
            rank = PRIORITY["close"] + CLOSE_RARE / per_event[e.id] - g.t0 * 1e-8
            closes.append(Piece(max(self.t0, g.t0 - CLOSE_LEAD), max(g.t1 + CLOSE_TAIL, g.t0 - CLOSE_LEAD + MIN_SHOT),
                                "close", (aid,) + other, (e.id,), rank,
                                ("close", aid, g.object if isinstance(g.object, str) else "")))
        out += self._join_closes(closes)
        return out

    def _addressed(self, who, a: float, b: float) -> tuple[str, ...]:
        """Those the people of an act bow to, hand something to or lead (the gesture's ``object``): the
        other side of the exchange is framed with them."""
        out = []
        for aid in who:
            for g in self.plan.actors[aid].gestures:
                if (g.kind in ADDRESSED and a - 0.05 <= g.t0 < b and isinstance(g.object, str)
                        and g.object in self.s.col and g.object not in who):
                    out.append(g.object)
        return tuple(dict.fromkeys(out))

    def _other_party(self, aid: str, g) -> tuple[str, ...]:
        """Who takes or gives the thing in a hand-over (the other's hands are framed too)."""
        if g.kind not in (G.HAND_OVER, G.RECEIVE):
            return ()
        if isinstance(g.object, str) and g.object in self.plan.actors and g.object != aid:
            return (g.object,)
        want = G.RECEIVE if g.kind == G.HAND_OVER else G.HAND_OVER
        for bid, b in self.plan.actors.items():
            if bid != aid and any(h.kind == want and abs(h.t0 - g.t0) < 1.0 and h.object == g.object
                                  for h in b.gestures):
                return (bid,)
        return ()

    def _join_closes(self, closes: list[Piece]) -> list[Piece]:
        """One close shot for the gestures of the same hands that follow each other closely, and one for the
        hands of different people that move at the same moment (within :data:`CLOSE_AT_ONCE` s) a few
        metres apart (:data:`CLOSE_TOGETHER`): no cut could show both (a shot lasts at least MIN_SHOT)."""
        out: list[Piece] = []
        for c in sorted(closes, key=lambda c: (c.t0, c.people)):
            same = [i for i, o in enumerate(out) if (set(o.people) & set(c.people) and c.t0 <= o.t1 + MIN_SHOT)
                    or (abs(c.t0 - o.t0) <= CLOSE_AT_ONCE and self._apart(o.people + c.people, c.t0, c.t1)
                        <= CLOSE_TOGETHER)]
            if same:
                i = same[-1]
                o = out[i]
                out[i] = Piece(o.t0, max(o.t1, c.t1), "close", tuple(dict.fromkeys(o.people + c.people)),
                               tuple(dict.fromkeys(o.events + c.events)), max(o.priority, c.priority), o.key)
            else:
                out.append(c)
        return out

    def _apart(self, who, t0: float, t1: float) -> float:
        """The largest distance between two of ``who`` over [t0, t1] (m)."""
        feet = self.s.at(tuple(dict.fromkeys(who)), self.s.idx(t0, t1))[0]
        d = np.linalg.norm(feet[:, None] - feet[None, :], axis=-1)
        return float(d.max())

    # -- who has the screen
    def schedule(self, reqs: list[Piece]) -> list[Piece]:
        """Sweep the time: the request of the highest priority under way has the screen, never less than
        :data:`MIN_SHOT` s; a request that starts within MIN_SHOT of a cut lengthens the shot before it."""
        reqs = sorted(reqs, key=lambda r: (r.t0, -r.priority))
        starts = np.array([r.t0 for r in reqs])
        out: list[list] = []
        t = self.t0
        while t < self.t1 - 1e-6:
            lo = int(np.searchsorted(starts, t - 4000.0))
            hi = int(np.searchsorted(starts, t + 1e-6, side="right"))
            live = [r for r in reqs[lo:hi] if r.t1 - t >= 0.5 and r.t0 <= t + 1e-6]
            if not live:
                nxt = reqs[hi].t0 if hi < len(reqs) else self.t1
                if out:
                    out[-1][1] = nxt
                t = max(nxt, t + 1e-3) if not out else nxt
                continue
            r = max(live, key=lambda x: (x.priority, x.t0))
            end = max(r.t1, t + MIN_SHOT)
            for v in reqs[hi:]:
                if v.t0 >= end:
                    break
                if v.priority > r.priority and v.t0 > t:
                    if v.t0 < t + MIN_SHOT and out:          # too soon to cut twice: the shot before holds on
                        end = None
                        out[-1][1] = v.t0
                        t = v.t0
                        break
                    end = max(v.t0, t + MIN_SHOT)
                    break
            if end is None:
                continue
            end = min(end, self.t1)
            if out and out[-1][2].key == r.key:
                out[-1][1] = end
            else:
                out.append([t, end, r])
            t = end
        pieces = [Piece(a, b, r.kind, r.people, r.events, r.priority, r.key) for a, b, r in out if b > a + 1e-6]
        # a last piece shorter than MIN_SHOT joins the one before
        if len(pieces) > 1 and pieces[-1].t1 - pieces[-1].t0 < MIN_SHOT:
            p = pieces.pop()
            q = pieces[-1]
            pieces[-1] = Piece(q.t0, p.t1, q.kind, q.people, q.events, q.priority, q.key)
        return pieces


def film(plan: Plan, size, t_start: float, t_end: float, overview_s: float, overview_pose, Shot, CameraPose,
         CameraPath):
    """The shots of [t_start, t_end] by the grammar (``Shot``, ``CameraPose``, ``CameraPath`` of
    :mod:`.shots`; ``overview_pose``: the establishing view of the whole ground that opens the passage)."""
    from .grammar_views import Director
    g = _Grammar(plan, size, t_start, t_end)
    reqs = g.requests()
    if overview_s > 0:              # the whole ground opens the passage (the hands first, if a clause asks)
        reqs.append(Piece(t_start, t_start + overview_s, "overview", (), (), PRIORITY["overview"], ("overview",)))
    pieces = g.schedule(reqs)
    return Director(g, Shot, CameraPose, CameraPath).shoot(pieces, overview_pose)
