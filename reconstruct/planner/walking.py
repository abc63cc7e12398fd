"""Walking: routes on the ground, stairs one step at a time, timing, turns, postures, short steps."""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from .timing import from_here
from .occupancy import ASIDE, DELAYS, GAP, LONG_DELAYS
from .bodies import Body
from .errors import _Blocked
from .geometry import _RING, _bearing, _turn_delta
from .walkable import COURT, HALL, STAIR





@dataclass
class _Way:
    """A walk being planned: when it sets out, through which legs, by which corners (``plan``)."""

    t0: float
    start: tuple[float, float]
    legs: list
    stair: str | None
    top_step: bool
    why: str
    earliest: float = 0.0          # not setting out before the one ahead in a file
    plan: list = field(default_factory=list)
    stays: bool = True             # he stands where he arrives (not on a stair's top step)
    lane_aside: float = 0.0        # how much nearer the stair's middle than its lane he climbs

    def later(self, delays: tuple[float, ...]) -> tuple[float, ...]:
        return tuple(self.earliest + d for d in delays)


class Walking:
    """Walking: routes on the ground, stairs one step at a time, timing, turns, postures, short steps."""

    ABREAST = 0.7       # two walking side by side (並行): their outlines' sides (0.33 m each) and a margin

    FOLLOW_ASIDE = 0.45  # a 下射 climbing one empty step behind his 上射 keeps this far to his left

    def walk(self, body: Body, goal: tuple[float, float, str], why: str, stair_name: str | None = None,
             via: list[tuple[float, float, str]] = (), top_step: bool = False,
             first_step_at: float | None = None, behind: float | None = None, aside: bool = False) -> None:
        """Walk from where the body is to a goal (x, y, level), through via points, by stairs as needed;
        ``first_step_at``: not onto the stair's first step before that time; ``behind``: the time the one
        ahead of him in a file set out (the waits tried start there: he will not pass him); ``aside``: if
        those standing there leave no way to the goal, to the nearest spot round it that can be reached
        (on a crowded hall a place named from a person, 主人之西, may lie past him where nobody can go
        round him).

        The ways tried, in turn: beside his partner (并行), or one led by the hand a step behind the one who
        leads him; as routed, after the shortest wait; round the person met; to a spot a little aside; after a
        long wait.  The first that meets nobody is taken.  One who leads another by the hand sets out only
        once the other has come up with him."""
        for led, _ in self.leading.items():
            if self.partner.get(led) == body.id:
                body.hold_until(self.bodies[led].t)
        t0 = body.t
        w = _Way(t0=t0, start=(body.x, body.y), legs=[*via, goal], stair=stair_name, top_step=top_step, why=why,
                 earliest=math.ceil((behind - t0) * 10 - 1e-6) / 10 if behind is not None and behind > t0 else 0.0,
                 # a 下射 following his 上射 up or down a stair (下射從之中等) climbs on his left, nearer the
                 # middle of the stair, so that one empty step between them leaves room for his hands
                 lane_aside=self.FOLLOW_ASIDE if first_step_at is not None and body.id in self.partner else 0.0)
        w.plan = self._corners(body, w.legs, w)
        if not w.plan or not self._time_path(body, w.plan, t0):
            return
        w.stays = not top_step and w.legs[-1][2] != STAIR
        if aside and w.stays and self.ground.boxed_in:
            self._aside_of_the_boxed_in(body, w, list(via))
        found = self._walk_abreast(body, w) if w.stays else None
        if found is None and w.stays and body.id in self.leading:
            found = self._walk_behind(body, w)
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

    def _aside_of_the_boxed_in(self, body: Body, w: "_Way", via: list) -> None:
        """Those standing there leave no way to the goal: the nearest spot round it that can be reached."""
        gx, gy, glevel = w.legs[-1]
        standing = self.occupancy.standing(body, w.t0, glevel)
        for dx, dy in ASIDE:
            spot = (gx + dx, gy + dy, glevel)
            if not self.occupancy.fits(glevel, spot[0], spot[1], standing):
                continue
            alt = self._corners(body, [*via, spot], w)
            if alt and not self.ground.boxed_in and self._time_path(body, alt, w.t0):
                w.plan, w.legs = alt, [*via, spot]
                self.explain.append(f"  {body.id} stands {math.hypot(dx, dy):.1f} m aside: those standing "
                                    "there leave no way to the place")
                return

    def _walk_abreast(self, body: Body, w: "_Way"):
        """Beside his partner, a little wider if someone stands in the way; through the text's via points too
        (the side way passes beside them: were it to pass on the wrong side of the person named, it would
        come within the gap of him and fail the conflict test)."""
        for apart in (self.ABREAST, self.ABREAST + 0.2, self.ABREAST + 0.4):
            abreast = self._abreast(body, w.plan, w.legs[-1], apart)
            if abreast is None:
                return None
            side_plan, t_go, join = abreast   # set out with him (waiting for him if he is later)
            found = self.occupancy.first_clear(body, side_plan, t_go, quick=True, tail=True)
            if found is None:
                found = self._delay_pair(body, side_plan, t_go)
            if found is not None:
                found = self._catch_up(body, side_plan, join, found, t_go)
                w.plan = side_plan
                w.why += f" beside {self.partner[body.id]}, on his {self._abreast_side} (并行)"
                return found[0] + t_go - w.t0, found[1]
        return None

    def _first_delays(self, body: Body, w: "_Way", first_step_at: float | None) -> tuple[float, ...] | None:
        """The waits first tried: at the foot until the one ahead is far enough up; not before the one
        ahead in the file set out."""
        delays = None
        if first_step_at is not None:
            step1 = next((t for t, x, y, z, _ in self._time_path(body, w.plan, w.t0)
                          if self.ground.level_at(x, y, z) == STAIR), None)
            if step1 is not None and first_step_at > step1:
                d0 = math.ceil((first_step_at - step1) * 10 - 1e-6) / 10
                delays = tuple(d0 + d for d in DELAYS)
        if w.earliest > (delays or DELAYS)[0]:
            delays = w.later(DELAYS)
        return delays

    def _walk_round(self, body: Body, w: "_Way"):
        """Route round the person met, where he is when one would meet him."""
        found = None
        timed = self._time_path(body, w.plan, w.t0)
        c = self.occupancy.conflict(body, from_here(body, w.t0, timed))
        if c is None:
            return None
        ox, oy, oz = self.occupancy.position_at(self.bodies[c[0]], c[1])
        with self.occupancy.assuming_standing(ox, oy, self.ground.level_at(ox, oy, oz)):
            replan = self._corners(body, w.legs, w)
            if replan and self._time_path(body, replan, w.t0):
                found = self.occupancy.first_clear(body, replan, w.t0, tail=w.stays, delays=w.later(DELAYS))
                if found is not None:
                    w.plan = replan
                    self.explain.append(f"  {body.id} goes round {c[0]}")
        return found

    def _walk_aside(self, body: Body, w: "_Way"):
        """Someone will pass through the spot: stand a little aside instead (nearest first) — unless the way
        itself is busy for any short wait, when no spot aside helps (the caller waits for it to clear)."""
        t0 = w.t0
        gx, gy, glevel = w.legs[-1]
        horizon = self.occupancy.tail_end(t0)
        gz = self.reading.hall_height if glevel == HALL else 0.0
        for dx, dy in ASIDE:
            if not self.occupancy.fits(glevel, gx + dx, gy + dy):
                continue
            # a spot someone will still pass or stop on after one could possibly be there is no use
            reach = t0 + 3.0 * math.dist((body.x, body.y), (gx + dx, gy + dy)) / self.pace.hall + 60.0
            spot = np.asarray([gx + dx, gy + dy])
            spans = self.occupancy.near_times(body, gx + dx, gy + dy, gz, t0, horizon,
                                     self.occupancy.near_tracks(body, spot, spot, t0, horizon))
            if len(spans) and (spans[:, 1] > reach).any():
                continue
            alt = self._corners(body, [*w.legs[:-1], (gx + dx, gy + dy, glevel)], w)
            if not alt:
                continue
            found = self.occupancy.first_clear(body, alt, t0, tail=True, delays=w.later(DELAYS))
            if found is not None:
                w.plan = alt
                self.explain.append(f"  {body.id} stands {math.hypot(dx, dy):.1f} m aside: the spot is on another's path")
                return found
        return None

    def _walk_at_last(self, body: Body, w: "_Way"):
        """A clear way there after any wait (a conflict standing there is reported, never silent); or,
        when the way is blocked by people not yet planned to move, let them go first."""
        found = self.occupancy.first_clear(body, w.plan, w.t0, delays=w.later(DELAYS + LONG_DELAYS))
        if found is None and self._deferrable:
            raise _Blocked(body.id)
        if found is not None and w.stays:
            pts = from_here(body, w.t0 + found[0], found[1])
            c = self.occupancy.standing_conflict(body, pts[-1], self.occupancy.tail_end(pts[-1][0]))
            if c is not None:        # reported, never silent: someone planned earlier passes the spot
                self._report(body, c, " (standing)")
        return found

    def _write_walk(self, body: Body, w: "_Way", found) -> None:
        """Write the walk's keys (after its wait), arrive standing, remember it."""
        if found is None:
            timed = self._time_path(body, w.plan, w.t0)
            c = self.occupancy.conflict(body, from_here(body, w.t0, timed))
            delay = 0.0
            if c is not None:
                self._report(body, c)
        else:
            delay, timed = found
            if delay:
                body.waited.append((delay, self.current.id if self.current else ""))
                self.explain.append(f"  {body.id} waits {delay:.1f} s to let others pass")
        n_before = len(body.keys)
        body.hold_until(w.t0 + delay)
        for t, x, y, z, heading in timed:
            body.walked += math.hypot(x - body.x, y - body.y)
            body.x, body.y, body.z, body.heading = x, y, z, heading
            body.key(t, "walk")
        # arrive: stand
        body.level = self.ground.level_at(body.x, body.y, body.z)
        body.key(timed[-1][0], "stand")
        body.t = timed[-1][0]
        self.explain.append(f"  {body.id}: {w.why}")
        self._last_walk[body.id] = (self.current.id if self.current else "", w.t0 + delay, w.start, w.plan, n_before)

    def _report(self, body: Body, c: tuple[str, float], what: str = "") -> None:
        """A conflict the planner could not wait out or walk round, kept in the plan's ``conflicts``."""
        self.conflicts.append(f"{self.current.id if self.current else '-'} {body.id} ~ {c[0]} at {c[1]:.1f} s{what}")

    def _corners(self, body: Body, legs, w: "_Way") -> list[tuple[float, float, float, str]]:
        """Corner points (x, y, z, kind) from where the body is through each leg's end in turn (the stair,
        top step, setting-out time and lane of the walk ``w``)."""
        plan: list[tuple[float, float, float, str]] = []
        cur = (body.x, body.y, body.level)
        for i, (gx, gy, glevel) in enumerate(legs):
            last = i == len(legs) - 1
            top_step = w.top_step and last
            leg = self._leg(body, cur, (gx, gy, glevel), w.stair, top_step, w.t0, w.lane_aside)
            plan.extend(leg)
            cur = (gx, gy, glevel) if not (top_step and leg) else (leg[-1][0], leg[-1][1], STAIR)
        return plan

    def _leg(self, body: Body, cur, goal, stair_name, top_step, t,
             lane_aside: float = 0.0) -> list[tuple[float, float, float, str]]:
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
            lane = self._lane(st, True, lane_aside)
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
            lane = self._lane(st, False, lane_aside)
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

    def _lane(self, st, up: bool, aside: float = 0.0) -> float:
        """The lane of a stair taken going up or down, ``aside`` nearer its middle (one following his partner)."""
        lane = self.ground.lane(st, up)
        return lane - math.copysign(min(aside, abs(lane) + st.width / 2 - 0.35), lane)

    def _route(self, body: Body, level: str, a, b, t) -> list[tuple[float, float]]:
        try:
            return self.ground.route(level, a, b, self.occupancy.standing(body, t, level))
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
            if body.level != STAIR and not self.occupancy.clear_of_lanes(level, np.asarray([[nx_, ny_]]))[0]:
                continue          # not into the way up or down a stair
            path = [(body.t, body.x, body.y, z), (body.t + 0.9, nx_, ny_, z)]
            if self.occupancy.conflict(body, path) is None and self.occupancy.standing_conflict(
                    body, path[-1], self.occupancy.tail_end(body.t + 0.9)) is None:
                break
        body.x, body.y = nx_, ny_
        body.t += 0.9
        body.key(body.t, body.posture if body.posture in ("stand", "kneel") else "stand")

    def approach(self, body: Body, x: float, y: float, level: str, within: float, why: str,
                 roomy: bool = True) -> None:
        """Walk up to within a distance of a point on a level, stopping short, facing it (``roomy``: see
        :meth:`free_spot`)."""
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
        self.face(body, _bearing(x - body.x, y - body.y))

    def _open_side(self, body: Body, x: float, y: float, level: str, within: float,
                   first: tuple[float, float]) -> tuple[float, float]:
        """Where to stand to reach (x, y): the nearest spot, unless people around box the way to it in;
        then the side of the thing (or person) that can be walked up to."""
        standing = self.occupancy.standing(body, body.t, level)
        sides = [(x + within * math.sin(a), y + within * math.cos(a)) for a in _RING[::2]]
        sides.sort(key=lambda p: math.dist(p, (body.x, body.y)))       # the near sides first
        for gx, gy in [first, *sides]:
            if not self.ground.is_free(level, gx, gy) or any(math.dist((gx, gy), o) < GAP + 0.05 for o in standing):
                continue
            self.ground.route(level, (body.x, body.y), (gx, gy), standing)
            if not self.ground.boxed_in:
                return gx, gy
        return first
