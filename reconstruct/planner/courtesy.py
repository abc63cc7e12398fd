"""Courtesies between two people: bows made to someone (揖, 拜, 答拜, 拜送), and leading someone by the hand
(弟子相工).

A bow is made to someone who is there: one who bows to another (``other``) waits until the other stands
within reach (2 m) turned towards him — facing him, or beside him facing the way the text says both face
(賓主人之西北面拜送: both face north, side by side) — and an answering bow (答拜) waits until the bow it
answers is done.  Where the text itself places the two apart (賓與大夫皆席末答拜 to the cup raisers at the
top of the 西階), the other is already standing where he stays and the bow is made there and then.
"""
from __future__ import annotations

import bisect
import math
from operator import itemgetter

import numpy as np

from ..model import footprint
from ..model.vocabulary import GestureKind, Posture
from .bodies import Body
from .geometry import _bearing
from .handling import Handling
from .moves import Moves
from .occupancy import DELAYS, Occupancy
from .pairs import Pairs
from .places import Places
from .state import PlanState
from .walkable import STAIR


BOW_REACH = 2.0         # metres: one bows to someone this near …
BOW_FACING = 100.0      # … turned towards him: the bower lies within this of the way he faces
ROOM_STEPS = (0.1, 0.2, 0.3, 0.4, 0.5, 0.6)    # how far one may step to have room to bow
ROOM_WAYS = (180.0, 135.0, 225.0, 90.0, 270.0)   # which way, from his facing: back, back and aside, aside
ROOM_MARGIN = 0.03                               # kept between the bowing figure and anyone near


class Courtesy:
    """Bows made to someone, and leading someone by the hand."""

    def __init__(self, state: PlanState, occupancy: Occupancy, moves: Moves, places: Places, pairs: Pairs,
                 handling: Handling) -> None:
        self.state, self.occupancy, self.moves, self.places = state, occupancy, moves, places
        self.pairs, self.handling = pairs, handling
        self.pace = state.pace

    # -- bows
    def bow(self, b: Body, to: str | None = None, count: int = 1, facing: str | None = None) -> None:
        """揖: a standing bow (``count`` of them), turned to the one bowed to (``to``: a person, or a
        place or direction to face) — or facing the way the text says (``facing``: 當階北面揖, 南面揖 —
        a pair side by side bows facing the same way, not turned to each other)."""
        other = self._bowee(to)
        if other is not None:
            self._await_bowee(b, other, answer=False)
        if facing or to:
            self.moves.face(b, self.places.heading_toward(b, facing or to))
        self._room_to_bow(b, Posture.BOW, self.pace.bow * count, other)
        t0 = b.t
        self.moves.posture(b, Posture.BOW, self.pace.bow * count, Posture.STAND)
        b.gesture(t0, b.t, GestureKind.BOW, other.id if other is not None else None)

    def kneel_bow(self, b: Body, to: str | None = None, count: int = 1) -> None:
        """拜 / 再拜 / 答拜 / 拜受 / 拜送: a kneeling bow (``count`` of them, 再拜 two), facing as the text
        says, to someone (``to``) or to nobody in particular."""
        other = self._bowee(to)
        if other is not None:
            self._await_bowee(b, other, answer=True)
        back = Posture.KNEEL if b.posture == Posture.KNEEL else Posture.STAND
        self._room_to_bow(b, Posture.KNEEL_BOW, self.pace.kneel_bow * count, other)
        t0 = b.t
        self.moves.posture(b, Posture.KNEEL_BOW, self.pace.kneel_bow * count, back)
        b.gesture(t0, b.t, GestureKind.KNEEL_BOW, other.id if other is not None else None)

    def _room_to_bow(self, b: Body, posture: str, dur: float, bowee: Body | None = None) -> None:
        """Room for the bow: where the bowing figure (the joined hands pushed forward, or the head down to
        the mat) would reach into someone beside or before him while he bows (their outlines as planned,
        :mod:`reconstruct.model.footprint`), he first steps back (or back and aside, or aside, where
        something stands behind him), keeping his facing, as little as gives room (at most 0.6 m: the step
        is the planner's, not the text's, and is explained).  Bowing to one beside him, he steps aside
        away from him first: a step back would leave the other bowing to him over his shoulder."""
        near = self._people_near(b, b.t, b.t + dur)
        if near:
            self._step_for_room(b, posture, near, self._ways_for_room(b, bowee))
        self._let_pass(b, posture, dur)

    def _let_pass(self, b: Body, posture: str, dur: float) -> None:
        """Before bowing, let those already planned to pass close by go past (a short wait)."""
        delay = self.occupancy.first_wait_to_stand(b, (b.x, b.y, b.z), b.t, dur, DELAYS[:10], extra=b.beyond(posture))
        if delay:
            self.state.explain.append(f"  {b.id} waits {delay:.1f} s for those passing before he bows")
            b.hold_until(b.t + delay)

    def _ways_for_room(self, b: Body, bowee: Body | None) -> tuple[float, ...]:
        """The ways to step for room, from his facing: away from the one bowed to where he stands beside
        him (more than 45° to a side), else back first."""
        if bowee is None or (bowee.x, bowee.y) == (b.x, b.y):
            return ROOM_WAYS
        side = (_bearing(bowee.x - b.x, bowee.y - b.y) - b.heading) % 360.0
        if 45.0 < side < 135.0:          # he is on the right: step to the left
            return (270.0, 225.0, 180.0, 135.0, 90.0)
        if 225.0 < side < 315.0:         # on the left: step to the right
            return (90.0, 135.0, 180.0, 225.0, 270.0)
        return ROOM_WAYS

    def _step_for_room(self, b: Body, posture: str, near: list, ways: tuple[float, ...] | None = None) -> None:
        """Step back (or aside) from those standing near, far enough for the bowing figure."""
        code, h = b.code(posture), b.heading
        o = np.asarray(near, float)

        def room(x: float, y: float) -> float:
            dx, dy = o[:, 0] - x, o[:, 1] - y
            need = footprint.clearance(code, h, o[:, 2].astype(int), o[:, 3], dx, dy) + ROOM_MARGIN
            return float((np.hypot(dx, dy) - need).min())

        if room(b.x, b.y) >= 0.0 or b.level == STAIR:
            return
        level = b.level
        for d in ROOM_STEPS:
            for way in ways or ROOM_WAYS:
                a = math.radians(h + way)
                x, y = b.x + math.sin(a) * d, b.y + math.cos(a) * d
                spot = np.asarray([[x, y]])
                # not onto a dish lying there (周尺, p18.dafu2: the 主人 stepped 0.6 m onto the 大師's 薦)
                if self.state.ground.is_free(level, x, y) and self.occupancy.clear_of_lanes(level, spot)[0] \
                        and self.occupancy.off_dishes(level, spot)[0] and room(x, y) >= 0.0:
                    self.state.explain.append(f"  {b.id} steps {d:.1f} m {'back' if way == 180.0 else 'aside'} "
                                        "to have room to bow")
                    self.moves.nudge(b, h + way, d)
                    return

    def _people_near(self, b: Body, t0: float, t1: float) -> list[tuple[float, float, int, float]]:
        """Those who stand, kneel or bow (not walking) between t0 and t1 within two metres of someone, on
        his level, as planned so far: where, the code of their outline, their heading (each way he stands
        in that time)."""
        out = []
        for o in self.occupancy.near_tracks(b, (b.x - 2.0, b.y - 2.0), (b.x + 2.0, b.y + 2.0), t0, t1):
            if not o.keys:
                continue
            i0 = max(0, bisect.bisect_right(o.keys, t0, key=itemgetter(0)) - 1)
            i1 = bisect.bisect_right(o.keys, t1, key=itemgetter(0))
            for i in range(i0, max(i1, i0 + 1)):
                k = o.keys[i]
                nxt = o.keys[i + 1] if i + 1 < len(o.keys) else k
                if (nxt[1], nxt[2]) != (k[1], k[2]):
                    continue             # on his way: the timed tests keep walkers clear
                if abs(k[3] - b.z) >= 0.3 or math.dist((k[1], k[2]), (b.x, b.y)) >= 2.0:
                    continue
                out.append((k[1], k[2], o.code(k[5]), float(k[4])))
        return out

    def _bowee(self, to: str | None) -> Body | None:
        """The person a bow is made to (None when it is made to nobody in particular, or to a place)."""
        if not to:
            return None
        return self.state.bodies.get(self.state.aliases.get(to, to))

    def _await_bowee(self, b: Body, other: Body, answer: bool) -> None:
        """Wait until the one bowed to is there (come to a stop within reach, turned towards the bower) as far
        as he is planned so far; and, for a 拜, until a bow of his to the bower that it answers is done.  Where
        he stops elsewhere (the text places them apart), wait at least until he has stopped."""
        if other is b:
            return
        t = b.t
        if answer:
            last = next((g for g in reversed(other.gestures) if g[2] in (GestureKind.BOW, GestureKind.KNEEL_BOW)), None)
            if last is not None and last[3] == b.id and last[1] is not None and last[1] > t:
                t = last[1]
        ready, there = self._there_from(b, other, t)
        if not there:
            d = math.dist((b.x, b.y), (other.x, other.y))
            how = f"{d:.1f} m away" if d > BOW_REACH else "not turned to him"
            self.state.explain.append(f"  {b.id} bows to {other.id} {how}, as the text places them")
        if ready > t + 1e-6:
            self.state.explain.append(f"  {b.id} waits {ready - b.t:.1f} s for {other.id} to be there before bowing")
            t = ready
        if t > b.t + 1e-6:
            b.hold_until(t)

    def _there_from(self, b: Body, other: Body, t: float) -> tuple[float, bool]:
        """From when on (at or after t) the other has come to a stop within reach of the bower, turned towards
        him, up to where he is planned so far: (that time, True); or, if he is not there even then, (when he
        stops walking, False)."""
        k = other.array()
        if not len(k):
            return t, False
        walked = np.flatnonzero(k[:, 4] > 0.5)
        stopped = max(t, float(k[min(walked[-1] + 1, len(k) - 1), 0])) if len(walked) else t
        end = max(t, other.t, float(k[-1, 0]))     # (key times are rounded to the millisecond)
        ts = np.arange(t, end + 1e-9, 0.1) if end > t else np.asarray([t])
        ts[-1] = end
        x = np.interp(ts, k[:, 0], k[:, 1])
        y = np.interp(ts, k[:, 0], k[:, 2])
        z = np.interp(ts, k[:, 0], k[:, 3])
        i = np.minimum(np.maximum(np.searchsorted(k[:, 0], ts, side="right") - 1, 0), len(k) - 1)
        heading = np.asarray([other.keys[j][4] for j in i.tolist()], float)
        bearing = np.degrees(np.arctan2(b.x - x, b.y - y)) % 360
        turned = np.abs((bearing - heading + 180.0) % 360.0 - 180.0) <= BOW_FACING
        near = (np.hypot(b.x - x, b.y - y) <= BOW_REACH) & (np.abs(z - b.z) < 0.3)
        ok = turned & near
        if not ok[-1]:
            return stopped, False
        bad = np.flatnonzero(~ok)
        return max(float(ts[bad[-1] + 1]) if len(bad) else float(ts[0]), stopped), True

    # -- leading by the hand
    def lead(self, b: Body, other: str | None) -> None:
        """相: take the other by the hand; until released he walks beside (and on a stair a step behind) the
        one who leads him, as a 下射 walks with his 上射."""
        if other is None:
            self.state.fail("lead needs the person led (other)")
        led = self.state.body(other)
        self.handling.meet(b, led, f"to take {led.id} by the hand", roomy=False)
        self.pairs.take_by_hand(b.id, led.id, b.gesture(b.t - self.pace.hand_over, None, GestureKind.LEAD, led.id))
        led.hold_until(b.t)

    def release(self, b: Body, other: str | None) -> None:
        """The hand let go: the one led walks on his own again."""
        if other is None:
            self.state.fail("release needs the person let go (other)")
        led = self.state.body(other)
        g = self.pairs.let_go(b.id, led.id)
        b.hold_until(max(b.t, led.t))
        g[1] = round(b.t, 3)
