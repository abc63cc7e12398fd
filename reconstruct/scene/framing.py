"""Measured framing: how tall the people of the current act stand on the screen.

For plan times ``t`` and a camera at each (eye, target, up, vertical field of view, aspect), the
on-screen height of each person named by the event(s) performed at ``t`` is the vertical extent, as a
fraction of the frame's height, of the segment from his feet to the top of his head (his height in his
posture: :data:`POSTURE_HEIGHT`), clipped to the frame; 0 when he is behind the camera or outside the
frame sideways.  Everything is vectorised over the times (numpy): the shot planner and the tests measure
thousands of samples at once.

Plan coordinates (x east, y north, z up, metres), as everywhere in :mod:`reconstruct.scene`.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..model.plan import Event, Plan
from ..model.vocabulary import Posture
from .figures import STANDING_HEIGHT

__all__ = ["POSTURE_HEIGHT", "Framing", "act_events", "act_people", "screen_heights", "measure",
           "MEDIUM", "WIDE"]

# the top of the head above the feet in each posture (m): standing = the figures' own height
POSTURE_HEIGHT = {Posture.STAND: STANDING_HEIGHT, Posture.WALK: STANDING_HEIGHT, Posture.BOW: STANDING_HEIGHT - 0.15,
                  Posture.KNEEL: 1.18, Posture.KNEEL_BOW: 0.95}
MEDIUM = 0.40           # a person at least this fraction of the frame's height: a medium shot or closer
WIDE = 0.10             # under this: too small to read hands


def act_events(plan: Plan, t: float, events=None) -> list[Event]:
    """The events performed at ``t`` that name someone with a track, the latest started first."""
    evs = events if events is not None else plan.events
    live = [e for e in evs if e.start <= t < e.end and any(a in plan.actors for a in e.actors)]
    return sorted(live, key=lambda e: (-e.start, e.id))


def act_people(plan: Plan, t: float, events=None) -> tuple[str, ...]:
    """The people of the current act at ``t``: those named by the latest-started event(s) under way
    (several events that began together all count)."""
    live = act_events(plan, t, events)
    if not live:
        return ()
    first = live[0].start
    return tuple(dict.fromkeys(a for e in live if e.start == first for a in e.actors if a in plan.actors))


@dataclass(frozen=True)
class Framing:
    """The measured framing at ``times``: ``fraction[i, k]`` is person ``ids[k]``'s on-screen height at
    ``times[i]`` (NaN where he is not of the act then)."""

    times: np.ndarray
    ids: tuple[str, ...]
    fraction: np.ndarray

    def tallest(self) -> np.ndarray:
        """The tallest person of the act at each time (NaN where the act names nobody)."""
        f = self.fraction
        out = np.full(len(self.times), np.nan)
        has = ~np.isnan(f).all(axis=1) if f.size else np.zeros(len(self.times), bool)
        if has.any():
            out[has] = np.nanmax(f[has], axis=1)
        return out


def _camera_basis(eye, target, up) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Right, true-up and forward unit vectors (n, 3) of cameras (OpenGL: looking down −z)."""
    f = target - eye
    f = f / np.linalg.norm(f, axis=-1, keepdims=True)
    r = np.cross(f, up)
    r = r / np.linalg.norm(r, axis=-1, keepdims=True)
    u = np.cross(r, f)
    return r, u, f


def screen_heights(feet, heights, eye, target, up, vfov, aspect) -> np.ndarray:
    """On-screen height fractions (n, m) of m people (feet (n, m, 3), heights (n, m) in metres) seen
    by n cameras (eye, target, up (n, 3); vfov (n,) degrees; aspect = width / height)."""
    feet = np.asarray(feet, float)
    n = feet.shape[0]
    eye, target = (np.broadcast_to(np.asarray(v, float), (n, 3)) for v in (eye, target))
    up = np.broadcast_to(np.asarray(up, float), (n, 3))
    vfov = np.broadcast_to(np.asarray(vfov, float), (n,))
    heights = np.asarray(heights, float)
    r, u, f = _camera_basis(eye, target, up)
    tan = np.tan(np.radians(vfov) / 2)[:, None]
    head = feet.copy()
    head[..., 2] += heights

    def ndc(p):
        d = p - eye[:, None, :]
        depth = np.einsum("nmk,nk->nm", d, f)
        with np.errstate(divide="ignore", invalid="ignore"):
            x = np.einsum("nmk,nk->nm", d, r) / (depth * tan * aspect)
            y = np.einsum("nmk,nk->nm", d, u) / (depth * tan)
        return x, y, depth

    xf, yf, df = ndc(feet)
    xh, yh, dh = ndc(head)
    lo = np.clip(np.minimum(yf, yh), -1.0, 1.0)
    hi = np.clip(np.maximum(yf, yh), -1.0, 1.0)
    frac = (hi - lo) / 2
    xm = (xf + xh) / 2
    seen = (df > 0.05) & (dh > 0.05) & (np.abs(xm) <= 1.0)
    return np.where(seen, frac, 0.0)


def measure(plan: Plan, times, eye, target, up, vfov, aspect: float) -> Framing:
    """The on-screen height of each person of the current act (:func:`act_people`) at each time, seen
    by the camera at that time (eye, target, up (n, 3) or (3,); vfov (n,) or a number, degrees)."""
    ts = np.atleast_1d(np.asarray(times, float))
    evs = plan.events_by_start()
    acts = [act_people(plan, float(t), evs) for t in ts]
    ids = tuple(dict.fromkeys(a for act in acts for a in act))
    if not ids:
        return Framing(ts, ids, np.full((len(ts), 0), np.nan))
    _, pos = plan.positions(ts, ids)                          # (m, n, 3)
    feet = np.transpose(pos, (1, 0, 2))
    hmap = {str(k): v for k, v in POSTURE_HEIGHT.items()}
    heights = np.stack([np.vectorize(lambda p: hmap.get(str(p), STANDING_HEIGHT), otypes=[float])(
        plan.track(i).posture_at(ts)) for i in ids], axis=1)
    frac = screen_heights(feet, heights, eye, target, up, vfov, aspect)
    col = {a: k for k, a in enumerate(ids)}
    mask = np.zeros(frac.shape, bool)
    for i, act in enumerate(acts):
        mask[i, [col[a] for a in act]] = True
    return Framing(ts, ids, np.where(mask, frac, np.nan))
