"""When a walk reaches each of its corners: turning in place, then walking at the pace of the ground (the
court's 布武, the hall's 接武) or climbing a stair a step at a time.  Pure functions of the pace."""
from __future__ import annotations

import math

from .bodies import Body
from .geometry import _bearing, _turn_delta
from .pace import Pace
from .walkable import HALL

Timed = list[tuple[float, float, float, float, float]]     # (t, x, y, z, heading) at each corner


def time_path(pace: Pace, body: Body, plan, t0: float) -> Timed:
    """A walk from where the body stands through corners (x, y, z, kind), setting out at t0: when he is
    at each (turns in place taking their own time, as keys of their own)."""
    out = []
    t, x, y, z, h = t0, body.x, body.y, body.z, body.heading
    for px, py, pz, kind in plan:
        d = math.hypot(px - x, py - y)
        if d < 1e-6 and abs(pz - z) < 1e-6:
            continue
        if d > 1e-3:
            nh = _bearing(px - x, py - y)
            turn = abs(_turn_delta(h, nh)) / pace.turn
            if turn > 0.05:
                t += turn
                out.append((t, x, y, z, nh))
            h = nh
        if kind == "stair":
            t += pace.stair_step
        else:
            t += d / (pace.hall if kind == HALL else pace.court)
        x, y, z = px, py, pz
        out.append((t, x, y, z, h))
    return out


def from_here(body: Body, t: float, timed) -> list[tuple[float, float, float, float]]:
    """A timed path as (t, x, y, z) points, starting from where the body stands when it sets out."""
    return [(t, body.x, body.y, body.z), *((t, x, y, z) for t, x, y, z, _ in timed)]
