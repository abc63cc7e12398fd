"""The body in place: turning, taking a posture, holding it, and a short step (少退, 少進, 辟) that keeps
clear of others."""
from __future__ import annotations

import math

import numpy as np

from ..model.vocabulary import Posture
from .bodies import Body
from .geometry import _turn_delta
from .occupancy import Occupancy
from .state import PlanState
from .walkable import HALL, STAIR

SHORT_STAY = 10.0      # s: how long a short step (少退, 辟) is taken to be stood on, for the others already planned


class Moves:
    """What a body does where it stands, each move written as keys of its track."""

    def __init__(self, state: PlanState, occupancy: Occupancy) -> None:
        self.pace, self.ground, self.occupancy = state.pace, state.ground, occupancy

    def face(self, body: Body, heading: float, way: str | None = None) -> None:
        """Turn in place to a heading (compass degrees), at the pace of turning: the shorter way round, or
        ``way`` = 左 (左還: to the left, the heading decreasing) or 右 (右還), through keys no more than a
        quarter turn apart so that the track turns that way."""
        delta = _turn_delta(body.heading, heading)
        if way == "左" and delta > 0:
            delta -= 360.0
        elif way == "右" and delta < 0:
            delta += 360.0
        if abs(delta) < 1.0:
            return
        body.hold_until(body.t)        # the pose held so far ends now: the turn starts here, not at the last key
        steps = max(1, math.ceil(abs(delta) / 90.0 - 1e-9))
        start = body.heading
        for i in range(1, steps + 1):
            body.heading = (start + delta * i / steps) % 360
            body.t += max(0.3 / steps, abs(delta) / steps / self.pace.turn)
            body.key(body.t)

    def posture(self, body: Body, posture: str, dur: float, then: str | None = None) -> None:
        """Take a posture (kneel, bow, kneel_bow …) for ``dur`` seconds, ending in ``then`` (or in it)."""
        body.hold_until(body.t)
        body.key(body.t, posture)
        body.t += dur
        body.key(body.t, then or posture)

    def hold(self, body: Body, dur: float) -> None:
        """Keep the pose for ``dur`` seconds (a timed act done in place)."""
        body.hold_until(body.t + dur)

    def nudge(self, body: Body, direction_deg: float, dist: float) -> None:
        """A short step (少退, 少進, 辟) keeping one's facing; shortened, or not taken, where it would
        bring one too close to someone (now, or later as others are already planned)."""
        body.hold_until(body.t)
        level = body.level if body.level != STAIR else HALL
        a = math.radians(direction_deg)
        z = body.z
        for f in (1.0, 0.5, 0.0):
            nx_, ny_ = body.x + math.sin(a) * dist * f, body.y + math.cos(a) * dist * f
            if f == 0.0:
                break
            if body.level != STAIR and not self.ground.is_free(level, nx_, ny_):
                nx_, ny_ = self.ground.free_point(level, nx_, ny_)
            if body.level != STAIR and dist * f > 0.35 and \
                    not self.occupancy.clear_of_lanes(level, np.asarray([[nx_, ny_]]))[0]:
                continue          # not into the way up or down a stair (a half step may: the timed test keeps it clear)
            path = [(body.t, body.x, body.y, z), (body.t + 0.9, nx_, ny_, z)]
            # a short step is stood on for a short while (少退…進): only those who would come there soon bar it
            # (the audit checks that nobody is there when they come)
            if self.occupancy.conflict(body, path) is None and self.occupancy.standing_conflict(
                    body, path[-1], min(self.occupancy.tail_end(body.t + 0.9), body.t + 0.9 + SHORT_STAY)) is None:
                break
        body.x, body.y = nx_, ny_
        body.t += 0.9
        body.key(body.t, body.posture if body.posture in (Posture.STAND, Posture.KNEEL) else Posture.STAND)
