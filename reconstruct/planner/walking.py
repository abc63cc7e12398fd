"""Walking: a walk from where one stands to a goal, the way that meets nobody found among the ways tried
(at once, after a wait, beside one's partner, round the person met, a little aside), written as keys;
walking up to a thing or a person."""
from __future__ import annotations

import math

import numpy as np

from ..model.vocabulary import Posture
from .bodies import Body
from .errors import Blocked
from .geometry import _RING, _bearing
from .moves import Moves
from .occupancy import ASIDE, DELAYS, GAP, LONG_DELAYS, Occupancy
from .pairs import Pairs
from .routes import Routes, Way
from .state import LastWalk, PlanState
from .timing import from_here, time_path
from .walkable import COURT, HALL, STAIR


ABREAST = 0.7       # two walking side by side (並行): their outlines' sides (0.33 m each) and a margin

FOLLOW_ASIDE = 0.45  # a 下射 climbing one empty step behind his 上射 keeps this far to his left


class Walking:
    """Walks planned against everyone already planned (:class:`.Occupancy`), by the corners of
    :class:`.Routes`, pairs walking together as :class:`.Pairs` has them."""

    def __init__(self, state: PlanState, occupancy: Occupancy, routes: Routes, pairs: Pairs,
                 moves: Moves) -> None:
        self.state, self.occupancy, self.routes, self.pairs, self.moves = state, occupancy, routes, pairs, moves
        self.ground, self.pace = state.ground, state.pace

    def walk(self, body: Body, goal: tuple[float, float, str], why: str, stair_name: str | None = None,
             via: list[tuple[float, float, str]] = (), top_step: bool = False,
             first_step_at: float | None = None, behind: float | None = None, aside: bool = False,
             lane: float | None = None, seat: bool = False) -> None:
        """Walk from where the body is to a goal (x, y, level), through via points, by stairs as needed;
        ``first_step_at``: not onto the stair's first step before that time; ``lane``: up the stair on this
        side of its middle (a pair standing side by side at its foot); ``behind``: the time the one
        ahead of him in a file set out (the waits tried start there: he will not pass him); ``aside``: if
        those standing there leave no way to the goal, to the nearest spot round it that can be reached
        (on a crowded hall a place named from a person, 主人之西, may lie past him where nobody can go
        round him); ``seat``: the goal is his mat — stood aside of it, he goes on to it as soon as the way
        opens (:meth:`resume`).

        The ways tried, in turn: beside his partner (并行), or one led by the hand a step behind the one who
        leads him; as routed, after the shortest wait; round the person met; to a spot a little aside; after a
        long wait.  The first that meets nobody is taken.  One who leads another by the hand sets out only
        once the other has come up with him."""
        for led in self.pairs.led_by(body.id):
            body.hold_until(self.state.bodies[led].t)
        t0 = body.t
        w = Way(t0=t0, start=(body.x, body.y), legs=[*via, goal], stair=stair_name, top_step=top_step, why=why,
                 earliest=math.ceil((behind - t0) * 10 - 1e-6) / 10 if behind is not None and behind > t0 else 0.0,
                 # a 下射 following his 上射 up or down a stair (下射從之中等) climbs on his left, nearer the
                 # middle of the stair, so that one empty step between them leaves room for his hands
                 lane_aside=FOLLOW_ASIDE if first_step_at is not None and self.pairs.partner_of(body.id) else 0.0,
                 lane=lane)
        w.plan = self.routes.corners(body, w.legs, w)
        if not w.plan or not time_path(self.pace, body, w.plan, t0):
            return
        w.stays = not top_step and w.legs[-1][2] != STAIR
        if aside and w.stays and self.ground.boxed_in and not self._boxed_in_by_his_leader(body, w):
            if self._aside_of_the_boxed_in(body, w, list(via)) and seat and not via:
                self.state.to_seat[body.id] = (goal, body.heading)
        # one led by the hand a step behind the one who leads him on his very way (右手相), else beside him; a
        # 下射 beside his 上射
        led = w.stays and self.pairs.is_led(body.id)
        found = self.pairs.walk_behind(body, w, first_only=True) if led else None
        if found is None and w.stays:
            found = self._walk_abreast(body, w)
        if found is None and led:
            found = self.pairs.walk_behind(body, w)
        if found is None:
            found = self.occupancy.first_clear(body, w.plan, t0, tail=w.stays, delays=self._first_delays(body, w, first_step_at))
        if found is None:
            found = self._walk_round(body, w)
        if found is None and w.stays and self.occupancy.first_clear(body, w.plan, t0) is not None:
            found = self._walk_aside(body, w)
        if found is None and w.stays:      # a busy way: wait longer for it to clear, the spot staying clear
            found = self.occupancy.first_clear(body, w.plan, t0, tail=True, delays=w.later(LONG_DELAYS))
        if found is None:
            found = self._walk_at_last(body, w)
        self._write_walk(body, w, found)

    def _boxed_in_by_his_leader(self, body: Body, w: "Way") -> bool:
        """One led by the hand (相) comes to his place beside the one who leads him, who stands there already
        (planned first): only he closes the way in, so the one led goes to his own place, not aside of it
        (弟子相工…反坐: each 工 back to his own seat, the junior beside him)."""
        leader = self.pairs.partner_of(body.id) if self.pairs.is_led(body.id) else None
        if leader is None:
            return False
        with self.occupancy.ignoring(self.state.bodies[leader]):
            self.routes.corners(body, w.legs, w)
            free = not self.ground.boxed_in
        self.ground.boxed_in = not free
        return free

    def _aside_of_the_boxed_in(self, body: Body, w: "Way", via: list) -> bool:
        """Those standing there leave no way to the goal: the nearest spot round it that can be reached
        (whether one was found)."""
        gx, gy, glevel = w.legs[-1]
        standing = self.occupancy.standing(body, w.t0, glevel)
        for dx, dy in ASIDE:
            spot = (gx + dx, gy + dy, glevel)
            if not self.occupancy.fits(glevel, spot[0], spot[1], standing) or \
                    not self.occupancy.off_dishes(glevel, np.asarray([spot[:2]]))[0]:
                continue
            alt = self.routes.corners(body, [*via, spot], w)
            if alt and not self.ground.boxed_in and time_path(self.pace, body, alt, w.t0):
                w.plan, w.legs = alt, [*via, spot]
                self.state.explain.append(f"  {body.id} stands {math.hypot(dx, dy):.1f} m aside: those standing "
                                    "there leave no way to the place")
                return True
        return False

    def resume(self, until: float, step: float = 1.0) -> None:
        """Those who stood aside of their mats (:attr:`.PlanState.to_seat`) and have not acted since go on to
        them at the first second up to ``until`` (the end of the phase just planned) when the way is open and
        meets nobody: the one who closed it has moved (the next to be pledged steps up where the last stood)."""
        for who in sorted(self.state.to_seat):
            goal, heading = self.state.to_seat[who]
            body = self.state.bodies[who]
            t = math.ceil(body.t / step) * step
            while t <= until:
                w = Way(t0=t, start=(body.x, body.y), legs=[goal], stair=None, top_step=False,
                        why="on to his mat, the way open again")
                w.plan = self.routes.corners(body, w.legs, w)
                if w.plan and not self.ground.boxed_in and time_path(self.pace, body, w.plan, t):
                    found = self.occupancy.first_clear(body, w.plan, t, tail=True, delays=(0.0,))
                    if found is not None:
                        self._write_walk(body, w, found)
                        self.moves.face(body, heading)
                        del self.state.to_seat[who]
                        break
                t += step

    def _walk_abreast(self, body: Body, w: "Way"):
        """Beside his partner, a little wider if someone stands in the way; through the text's via points too
        (the side way passes beside them: were it to pass on the wrong side of the person named, it would
        come within the gap of him and fail the conflict test)."""
        for apart in (ABREAST, ABREAST + 0.2, ABREAST + 0.4):
            abreast = self.pairs.abreast(body, w.plan, w.legs[-1], apart)
            if abreast is None:
                return None
            side_plan, t_go, join, side = abreast   # set out with him (waiting for him if he is later)
            found = self.occupancy.first_clear(body, side_plan, t_go, quick=True, tail=True)
            if found is None:
                found = self.pairs.delay_pair(body, side_plan, t_go)
            if found is not None:
                found = self.pairs.catch_up(body, side_plan, join, found, t_go)
                w.plan = side_plan
                w.why += f" beside {self.pairs.partner_of(body.id)}, on his {side} (并行)"
                return found[0] + t_go - w.t0, found[1]
        return None

    def _first_delays(self, body: Body, w: "Way", first_step_at: float | None) -> tuple[float, ...] | None:
        """The waits first tried: at the foot until the one ahead is far enough up; not before the one
        ahead in the file set out."""
        delays = None
        if first_step_at is not None:
            step1 = next((t for t, x, y, z, _ in time_path(self.pace, body, w.plan, w.t0)
                          if self.ground.level_at(x, y, z) == STAIR), None)
            if step1 is not None and first_step_at > step1:
                d0 = math.ceil((first_step_at - step1) * 10 - 1e-6) / 10
                delays = tuple(d0 + d for d in DELAYS)
        if w.earliest > (delays or DELAYS)[0]:
            delays = w.later(DELAYS)
        return delays

    def _walk_round(self, body: Body, w: "Way"):
        """Route round the person met, where he is when one would meet him."""
        found = None
        timed = time_path(self.pace, body, w.plan, w.t0)
        c = self.occupancy.conflict(body, from_here(body, w.t0, timed))
        if c is None:
            return None
        ox, oy, oz = self.occupancy.position_at(self.state.bodies[c[0]], c[1])
        with self.occupancy.assuming_standing(ox, oy, self.ground.level_at(ox, oy, oz)):
            replan = self.routes.corners(body, w.legs, w)
            if replan and time_path(self.pace, body, replan, w.t0):
                found = self.occupancy.first_clear(body, replan, w.t0, tail=w.stays, delays=w.later(DELAYS))
                if found is not None:
                    w.plan = replan
                    self.state.explain.append(f"  {body.id} goes round {c[0]}")
        return found

    def _walk_aside(self, body: Body, w: "Way"):
        """Someone will pass through the spot: stand a little aside instead (nearest first) — unless the way
        itself is busy for any short wait, when no spot aside helps (the caller waits for it to clear)."""
        t0 = w.t0
        gx, gy, glevel = w.legs[-1]
        horizon = self.occupancy.tail_end(t0)
        gz = self.state.reading.hall_height if glevel == HALL else 0.0
        for dx, dy in ASIDE:
            if not self.occupancy.fits(glevel, gx + dx, gy + dy) or \
                    not self.occupancy.off_dishes(glevel, np.asarray([[gx + dx, gy + dy]]))[0]:
                continue
            # a spot someone will still pass or stop on after one could possibly be there is no use
            reach = t0 + 3.0 * math.dist((body.x, body.y), (gx + dx, gy + dy)) / self.pace.hall + 60.0
            spot = np.asarray([gx + dx, gy + dy])
            spans = self.occupancy.near_times(body, gx + dx, gy + dy, gz, t0, horizon,
                                     self.occupancy.near_tracks(body, spot, spot, t0, horizon))
            if len(spans) and (spans[:, 1] > reach).any():
                continue
            alt = self.routes.corners(body, [*w.legs[:-1], (gx + dx, gy + dy, glevel)], w)
            if not alt:
                continue
            found = self.occupancy.first_clear(body, alt, t0, tail=True, delays=w.later(DELAYS))
            if found is not None:
                w.plan = alt
                self.state.explain.append(f"  {body.id} stands {math.hypot(dx, dy):.1f} m aside: the spot is on another's path")
                return found
        return None

    def _walk_at_last(self, body: Body, w: "Way"):
        """A clear way there after any wait (a conflict standing there is reported, never silent); or,
        when the way is blocked by people not yet planned to move, let them go first."""
        found = self.occupancy.first_clear(body, w.plan, w.t0, delays=w.later(DELAYS + LONG_DELAYS))
        if found is None and self.state.deferrable:
            raise Blocked(body.id)
        if found is not None and w.stays:
            pts = from_here(body, w.t0 + found[0], found[1])
            c = self.occupancy.standing_conflict(body, pts[-1], self.occupancy.tail_end(pts[-1][0]))
            if c is not None:        # reported, never silent: someone planned earlier passes the spot
                self._report(body, c, " (standing)")
        return found

    def _write_walk(self, body: Body, w: "Way", found) -> None:
        """Write the walk's keys (after its wait), arrive standing, remember it."""
        if found is None:
            timed = time_path(self.pace, body, w.plan, w.t0)
            c = self.occupancy.conflict(body, from_here(body, w.t0, timed))
            delay = 0.0
            if c is not None:
                self._report(body, c)
        else:
            delay, timed = found
            if delay:
                body.waited.append((delay, self.state.event_id))
                self.state.explain.append(f"  {body.id} waits {delay:.1f} s to let others pass")
        n_before = len(body.keys)
        body.hold_until(w.t0 + delay)
        for t, x, y, z, heading in timed:
            body.walked += math.hypot(x - body.x, y - body.y)
            body.x, body.y, body.z, body.heading = x, y, z, heading
            body.key(t, Posture.WALK)
        # arrive: stand
        body.level = self.ground.level_at(body.x, body.y, body.z)
        body.key(timed[-1][0], Posture.STAND)
        body.t = timed[-1][0]
        self.state.explain.append(f"  {body.id}: {w.why}")
        self.state.walks[body.id] = LastWalk(self.state.event_id, w.t0 + delay, w.start, w.plan, n_before)

    def _report(self, body: Body, c: tuple[str, float], what: str = "") -> None:
        """A conflict the planner could not wait out or walk round, kept in the plan's ``conflicts``."""
        self.state.conflicts.append(f"{self.state.event_id or '-'} {body.id} ~ {c[0]} at {c[1]:.1f} s{what}")

    def approach(self, body: Body, x: float, y: float, level: str, within: float, why: str,
                 roomy: bool = True) -> None:
        """Walk up to within a distance of a point on a level, stopping short, facing it (``roomy``: see
        :meth:`.Occupancy.free_spot`)."""
        blevel = body.level if body.level != STAIR else HALL
        if blevel == level and math.hypot(x - body.x, y - body.y) <= within + 0.35:
            return          # within reach: keep the facing the text gave (拜受 北面, 拜送 西面 …)
        if blevel == level:
            d = math.hypot(x - body.x, y - body.y)
            f = (d - within) / d
            gx, gy = body.x + (x - body.x) * f, body.y + (y - body.y) * f
        else:
            gx, gy = x, y - within if level == COURT else y - within
        gx, gy = self.occupancy.free_spot(body, gx, gy, level, body.t, roomy=roomy)
        if blevel == level:
            gx, gy = self._open_side(body, x, y, level, within, (gx, gy))
        self.walk(body, (gx, gy, level), why)
        self.moves.face(body, _bearing(x - body.x, y - body.y))

    def _open_side(self, body: Body, x: float, y: float, level: str, within: float,
                   first: tuple[float, float]) -> tuple[float, float]:
        """Where to stand to reach (x, y): the nearest spot, unless people around box the way to it in;
        then the side of the thing (or person) that can be walked up to."""
        standing = self.occupancy.standing(body, body.t, level)
        sides = [(x + within * math.sin(a), y + within * math.cos(a)) for a in _RING[::2].tolist()]
        sides.sort(key=lambda p: math.dist(p, (body.x, body.y)))       # the near sides first
        for gx, gy in [first, *sides]:
            if not self.ground.is_free(level, gx, gy) or any(math.dist((gx, gy), o) < GAP + 0.05 for o in standing):
                continue
            self.ground.route(level, (body.x, body.y), (gx, gy), standing)
            if not self.ground.boxed_in:
                return gx, gy
        return first
