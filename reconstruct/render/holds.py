"""Which plan moment each video frame shows: plain frame times, and long holds played faster.

A hold is a stretch in which nothing in the frame moves and the camera holds; longer than
``hold_after`` seconds, its middle plays ``hold_speed`` times faster (the video marks it "»").
"""
from __future__ import annotations

import numpy as np

from ..model.defaults import FRAME_SIZE
from ..model.plan import Plan
from ..scene.sampler import PlanSampler
from ..scene.shots import CameraPath, project

__all__ = ["frame_times", "hold_times", "hold_rates", "times_from_rates", "STEP"]

STEP = 0.2          # plan seconds between the samples at which a hold is looked for


def frame_times(t0: float, t1: float, fps: float, speed: float = 1.0) -> np.ndarray:
    """Plan times of the frames between ``t0`` and ``t1`` (played ``speed`` times faster)."""
    n = max(1, int(round((t1 - t0) / speed * fps)))
    return t0 + np.arange(n) * (speed / fps)


def hold_times(plan: Plan, path: CameraPath | None, t0: float, t1: float, fps: float, speed: float = 1.0,
               hold_after: float | None = 6.0, hold_speed: float = 8.0, size=FRAME_SIZE,
               sampler: "PlanSampler | None" = None) -> tuple[np.ndarray, np.ndarray]:
    """Plan times of the video frames between ``t0`` and ``t1``, and how much faster each plays.

    Frames advance ``speed/fps`` plan seconds; in a hold — nobody in the frame moves, the camera
    holds — longer than ``hold_after`` s, the middle of it (after 1.5 s, before the last 1 s, and
    never in the first 3 s of an event, so captions can be read) advances ``hold_speed`` times
    faster.  ``hold_after=None``: no compression (= :func:`frame_times`).
    """
    base = frame_times(t0, t1, fps, speed)
    if hold_after is None or hold_speed <= 1.0 or t1 - t0 <= hold_after:
        return base, np.ones(len(base))
    fast = hold_rates(plan, path, t0, t1, hold_after, size, sampler)
    return times_from_rates(t0, t1, speed / fps, fast, hold_speed)


def hold_rates(plan: Plan, path: CameraPath | None, t0: float, t1: float, hold_after: float, size,
               sampler: PlanSampler | None = None) -> np.ndarray:
    """Whether each :data:`STEP` of plan time from ``t0`` lies in the fast middle of a long hold."""
    sampler = sampler or PlanSampler(plan)
    ts = np.arange(t0, t1 + STEP, STEP)
    busy = _busy(plan, path, sampler, ts, size)
    # fast stretches: the middle of idle runs longer than hold_after
    n = len(ts)
    fast = np.zeros(n, bool)
    i = 0
    while i < n:
        if busy[i]:
            i += 1
            continue
        j = i
        while j < n and not busy[j]:
            j += 1
        if (j - i) * STEP > hold_after:
            fast[i + int(round(1.5 / STEP)):j - int(round(1.0 / STEP))] = True
        i = j
    return fast


def times_from_rates(t0: float, t1: float, dt: float, fast: np.ndarray, hold_speed: float,
                     origin: float | None = None):
    """Frame times from ``t0`` up to ``t1`` advancing ``dt``, ``hold_speed`` times that where ``fast``
    (sampled every :data:`STEP` from ``origin``, default ``t0``); and the rate of each frame."""
    origin = t0 if origin is None else origin
    n = len(fast)
    times, rate = [], []
    t = t0
    while t < t1 - 1e-9:
        k = min(n - 1, int((t - origin) / STEP))
        r = hold_speed if fast[k] else 1.0
        times.append(t)
        rate.append(r)
        t += dt * r
    return np.array(times), np.array(rate)


def _activity(sampler: PlanSampler, ts: np.ndarray) -> dict[str, np.ndarray]:
    """For each actor who moves at all: at which samples he moves."""
    act = {}
    for aid in sampler.actors:
        a = np.zeros(len(ts), bool)
        for u0, u1 in sampler.active_intervals(aid):
            a[np.searchsorted(ts, u0 - STEP):np.searchsorted(ts, u1 + STEP)] = True
        if a.any():
            act[aid] = a
    return act


def _busy(plan: Plan, path: CameraPath | None, sampler: PlanSampler, ts: np.ndarray, size) -> np.ndarray:
    """Samples at which something visible moves, the camera moves or an event has just begun."""
    act = _activity(sampler, ts)
    busy = np.zeros(len(ts), bool)          # (props move only in someone's hands: their carriers count)
    for e in plan.events:
        busy[np.searchsorted(ts, e.start - STEP):np.searchsorted(ts, e.start + 3.0)] = True
    w, h = size
    for i, t in enumerate(ts):
        if busy[i]:
            continue
        movers = [a for a in act if act[a][i]]
        if not movers:
            continue
        if path is None or path.moving(float(t)):
            busy[i] = True
            continue
        P = np.array([sampler.position(sampler.actors[a], float(t))[0] for a in movers])
        px, _ = project(path.at(float(t)), np.vstack([P, P + [0, 0, 1.7]]), size)
        inside = (~np.isnan(px[:, 0])) & (px[:, 0] > -20) & (px[:, 0] < w + 20) & (px[:, 1] > -20) & (px[:, 1] < h + 20)
        busy[i] = bool(inside.any())
    if path is not None:
        for k, s in enumerate(path.shots):
            d = path.moves[k] if k < len(path.moves) else 0.0
            busy[np.searchsorted(ts, s.t0 - STEP):np.searchsorted(ts, s.t0 + max(d, 0.0) + STEP)] = True
    return busy
