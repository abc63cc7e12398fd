"""Routes: the corners a walk passes from where one stands to a goal, on the walkable ground round those
standing there, and up or down a stair one step at a time (going up in its east lane, down in its west:
相左)."""
from __future__ import annotations

import math
from dataclasses import dataclass, field

from ..model.vocabulary import Role
from .bodies import Body
from .occupancy import Occupancy
from .state import PlanState
from .walkable import COURT, HALL, STAIR


@dataclass
class Way:
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
    lane: float | None = None      # the lane he climbs in, if not the stair's way up (a pair side by side)

    def later(self, delays: tuple[float, ...]) -> tuple[float, ...]:
        return tuple(self.earliest + d for d in delays)


class Routes:
    """The corners of a walk: routes on each level (round those standing, from :class:`.Occupancy`) and the
    stairs between them."""

    def __init__(self, state: PlanState, occupancy: Occupancy) -> None:
        self.state, self.occupancy = state, occupancy
        self.reading, self.ground = state.reading, state.ground

    def corners(self, body: Body, legs, w: "Way") -> list[tuple[float, float, float, str]]:
        """Corner points (x, y, z, kind) from where the body is through each leg's end in turn (the stair,
        top step, setting-out time and lane of the walk ``w``)."""
        plan: list[tuple[float, float, float, str]] = []
        cur = (body.x, body.y, body.level)
        for i, (gx, gy, glevel) in enumerate(legs):
            last = i == len(legs) - 1
            top_step = w.top_step and last
            leg = self.leg(body, cur, (gx, gy, glevel), w.stair, top_step, w.t0, w.lane_aside, w.lane)
            plan.extend(leg)
            cur = (gx, gy, glevel) if not (top_step and leg) else (leg[-1][0], leg[-1][1], STAIR)
        return plan

    def leg(self, body: Body, cur, goal, stair_name, top_step, t,
            lane_aside: float = 0.0, own_lane: float | None = None) -> list[tuple[float, float, float, str]]:
        """Corner points (x, y, z, kind) from cur to goal; a stair is climbed one step at a time, going up
        in its east lane and down in its west lane (相左: those who meet keep each other on the left), or
        going up in ``own_lane`` (a pair side by side at its foot, each on his own side)."""
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
            st = self.stair_at(cx)
            k_now = self.step_index(st, cy)
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
            for x, y in self.route(body, clevel, (cx, cy), (gx, gy), t)[1:]:
                out.append((x, y, H if clevel == HALL else 0.0, clevel))
            return out
        st = self.reading.stairs.get(stair_name or "") or self.conventional_stair(body)
        if clevel == COURT:
            lane = self.lane(st, True, lane_aside) if own_lane is None else own_lane
            fx, fy = g.foot(st, lane)
            for x, y in self.route(body, COURT, (cx, cy), (fx, fy), t)[1:]:
                out.append((x, y, 0.0, COURT))
            out.append((st.x + lane, -st.run + 0.02, 0.0, "stair"))
            climb(st, 1, st.steps, lane)
            if top_step:
                return out
            hx, hy = g.head(st, lane)
            out.append((hx, hy, H, "stair"))
            for x, y in self.route(body, HALL, (hx, hy), (gx, gy), t)[1:]:
                out.append((x, y, H, HALL))
        else:  # hall → court
            lane = self.lane(st, False, lane_aside)
            hx, hy = g.head(st, lane)
            for x, y in self.route(body, HALL, (cx, cy), (hx, hy), t)[1:]:
                out.append((x, y, H, HALL))
            climb(st, st.steps, 1, lane)
            out.append((st.x + lane, -st.run + 0.02, 0.0, "stair"))
            fx, fy = g.foot(st, lane)
            out.append((fx, fy, 0.0, "stair"))
            if glevel == COURT:
                for x, y in self.route(body, COURT, (fx, fy), (gx, gy), t)[1:]:
                    out.append((x, y, 0.0, COURT))
        return out

    def lane(self, st, up: bool, aside: float = 0.0) -> float:
        """The lane of a stair taken going up or down, ``aside`` nearer its middle (one following his partner)."""
        lane = self.ground.lane(st, up)
        return lane - math.copysign(min(aside, abs(lane) + st.width / 2 - 0.35), lane)

    def route(self, body: Body, level: str, a, b, t) -> list[tuple[float, float]]:
        try:
            return self.ground.route(level, a, b, self.occupancy.standing(body, t, level))
        except ValueError as e:
            self.state.fail(f"{body.id} cannot get there: {e}")
        raise AssertionError

    def stair_at(self, x: float):
        return min(self.reading.stairs.values(), key=lambda s: abs(s.x - x))

    @staticmethod
    def step_index(st, y: float) -> int:
        return int(min(st.steps, max(1, round((y + st.run) / st.tread + 0.5))))

    def conventional_stair(self, body: Body):
        """賓 and his party use the 西階, the 主人 the 阼階 (first half; brief §4)."""
        if body.id == Role.主人:
            return self.reading.stairs["阼阶"]
        return self.reading.stairs["西阶"]
