"""Small geometric helpers of the planner: bearings, turns, rings of spots, the ground a track covers,
when two timed tracks come too close."""
from __future__ import annotations

import math

import numpy as np
import shapely

_RING = np.radians(180 + 22.5 * np.arange(16))

_RADII = (0.6, 0.9, 1.2, 1.6, 2.0, 2.6, 3.2, 3.8, 4.5, 5.2)


def _ways(xys: list[np.ndarray], known: dict[bytes, object] | None = None) -> np.ndarray:
    """The ground each track covers (its points (n, 2)), as lines made all at once; a track that stays
    put is a line whose points all coincide (as far from anything as the point itself).  ``known``: lines
    already made, by their points' bytes, taken from there (and those made added to it): the same stretch
    of a track (one standing still) is asked about again and again."""
    if known is not None:
        out = np.empty(len(xys), object)
        for k, c in enumerate(xys):
            key = c.tobytes()
            line = known.get(key)
            if line is None:
                line = known[key] = _way(c)
            out[k] = line
        return out
    xy = [c if len(c) > 1 else np.repeat(c, 2, axis=0) for c in xys]
    if len(xy) <= 3:        # a few (the usual case): one by one is quicker than a batch with indices
        out = np.empty(len(xy), object)
        for k, c in enumerate(xy):
            out[k] = shapely.linestrings(c)
        return out
    idx = np.repeat(np.arange(len(xy)), [len(c) for c in xy])
    return shapely.linestrings(np.concatenate(xy), indices=idx)


def _way(xy: np.ndarray):
    """The ground one track covers (its points (n, 2)), as :func:`_ways` makes it for each of several."""
    return shapely.linestrings(xy if len(xy) > 1 else np.repeat(xy, 2, axis=0))


def _too_close(dx: np.ndarray, dy: np.ndarray, same_level: np.ndarray, gap) -> np.ndarray:
    """For two tracks sampled at the same times (dx, dy: their difference), whether they come closer
    than ``gap`` (a distance, or one per sample) between each sample and the next (the motion in between
    taken as straight, the larger of the two gaps kept), so a pass between two samples is not missed.
    Indexed like the samples; the last flags the last sample."""
    gap = np.asarray(gap, float)
    if gap.shape != dx.shape:        # (a distance for all: made one per sample, as a view)
        gap = np.broadcast_to(gap, dx.shape)
    if dx.shape[-1] < 2:
        return (np.hypot(dx, dy) < gap) & same_level
    ux, uy = dx[..., 1:] - dx[..., :-1], dy[..., 1:] - dy[..., :-1]
    uu = np.maximum(ux * ux + uy * uy, 1e-12)
    s = np.minimum(np.maximum(-(dx[..., :-1] * ux + dy[..., :-1] * uy) / uu, 0.0), 1.0)
    near = np.hypot(dx[..., :-1] + s * ux, dy[..., :-1] + s * uy) < np.maximum(gap[..., :-1], gap[..., 1:])
    out = np.empty(dx.shape, bool)
    out[..., :-1] = near & (same_level[..., :-1] | same_level[..., 1:])
    out[..., -1] = (np.hypot(dx[..., -1], dy[..., -1]) < gap[..., -1]) & same_level[..., -1]
    return out


def _beyond(k: np.ndarray, ts: np.ndarray) -> np.ndarray:
    """How far beyond a standing figure a track's person reaches at times ``ts`` (column 5 of its key rows:
    the larger of the keys before and after each time, so a bow counts from its first key to its last)."""
    i = np.maximum(np.searchsorted(k[:, 0], ts, side="right") - 1, 0)       # (never past the last row)
    return np.maximum(k[i, 5], k[np.minimum(i + 1, len(k) - 1), 5])


def _bearing(dx: float, dy: float) -> float:
    return math.degrees(math.atan2(dx, dy)) % 360


def _turn_delta(a: float, b: float) -> float:
    return (b - a + 180) % 360 - 180

