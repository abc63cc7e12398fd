"""Checks of a finished plan that every user relies on, sampled in time.

Over the whole passage, sampled every 0.1 s: nobody overlaps anyone else at the
same level (centres closer than 0.45 m), nobody stands inside a column, wall or
fixture, nobody changes level except on a stair, nobody moves faster than 2 m/s,
and every track is continuous.  Reads the plan only.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import shapely
from shapely.geometry import Point, Polygon

from ..model.plan import Plan, Track
from ..model.reading import Reading, Roof
from ..model.vocabulary import BLOCKING, LandmarkKind, PropPosture

MIN_GAP = 0.45
MAX_SPEED = 2.0
STEP = 0.1


@dataclass(frozen=True)
class Finding:
    kind: str        # overlap | fixture | level | speed | jump
    who: str
    t: float
    detail: str

    def __str__(self) -> str:
        return f"{self.kind:8s} {self.t:8.1f} s  {self.who}: {self.detail}"


def sample(track: Track, ts: np.ndarray) -> np.ndarray:
    """(len(ts), 4) array of x, y, z, heading at the sample times."""
    xyz, heading = track.at(ts)
    return np.c_[xyz, heading]


PLACED = 0.3        # m: a thing this near its landmark stands in its place


def audit(plan: Plan, reading: Reading, step: float = STEP, limit: int = 50) -> list[Finding]:
    """Every problem found, earliest first per kind (at most ``limit`` of each kind)."""
    ts = np.arange(0.0, plan.duration + 1e-9, step)
    ids = sorted(plan.actors)
    pos = {a: sample(plan.actors[a].track, ts) for a in ids}
    found: dict[str, list[Finding]] = {}

    def add(f: Finding) -> None:
        lst = found.setdefault(f.kind, [])
        if len(lst) < limit:
            lst.append(f)

    H = reading.hall_height
    # overlaps: all pairs, screened by blocks of samples (most people stand still most of the time)
    P = np.stack([pos[a] for a in ids])                     # (n, T, 4)
    for i, j, k, d in _overlaps(P):
        add(Finding("overlap", f"{ids[i]}~{ids[j]}", float(ts[k]), f"{d:.2f} m apart"))
    # fixtures, walls, columns
    shapes = []
    for lm in reading.landmarks.values():
        if lm.kind not in BLOCKING:
            continue
        if lm.footprint:
            shapes.append((lm.id, Polygon(lm.footprint), lm.position[2] > H / 2))
        elif lm.size:
            shapes.append((lm.id, Point(lm.position[:2]).buffer(max(lm.size[:2]) / 2, 8), lm.position[2] > H / 2))
    hall = Polygon(reading.hall_footprint)
    stairs = [Polygon(((s.x - s.width / 2, -s.run), (s.x + s.width / 2, -s.run), (s.x + s.width / 2, 0.0),
                       (s.x - s.width / 2, 0.0))).buffer(0.05) for s in reading.stairs.values()]
    shapely.prepare([hall, *stairs, *(sh for _, sh, _ in shapes)])
    # a fixture that is a thing of the plan (the 中 set in the first half's 設中, the 楅 laid at 設楅) blocks its place
    # only while it stands there: before it is brought and after it is taken away the ground is free
    placed = {}
    for name, _, _ in shapes:
        if name in plan.props:
            xy = plan.props[name].track.at(ts)[0][:, :2]
            placed[name] = np.hypot(*(xy - np.asarray(reading.landmarks[name].position[:2])).T) < PLACED

    for a in ids:
        p = P[ids.index(a)]
        px, py = p[:, 0], p[:, 1]
        on_hall = p[:, 2] > H - 1e-3
        for name, shape, up in shapes:
            x0, y0, x1, y1 = shape.bounds
            near = np.flatnonzero((px >= x0) & (px <= x1) & (py >= y0) & (py <= y1) & (on_hall == up))
            if name in placed:                  # a thing carried to its place (the 中, the 楅): there only when set
                near = near[placed[name][near]]
            inside = near[shapely.contains_xy(shape, px[near], py[near])]
            if len(inside):
                add(Finding("fixture", a, float(ts[inside[0]]), f"inside the {name}"))
        # level: being above the court but off the hall means being on a stair
        raised = (p[:, 2] > 1e-3)
        in_hall = shapely.intersects_xy(hall, px, py)
        in_stair = np.zeros(len(ts), bool)
        for st in stairs:
            in_stair |= shapely.intersects_xy(st, px, py)
        bad = raised & ~in_hall & ~in_stair
        if bad.any():
            k = int(np.argmax(bad))
            add(Finding("level", a, float(ts[k]), f"raised {p[k, 2]:.2f} m off the hall and off the stairs"))
        low_in_hall = ~raised & in_hall & ~in_stair
        if low_in_hall.any():
            k = int(np.argmax(low_in_hall))
            add(Finding("level", a, float(ts[k]), "at court level inside the hall's footprint"))
        v = np.hypot(np.diff(p[:, 0]), np.diff(p[:, 1])) / step
        fast = np.flatnonzero(v > MAX_SPEED)
        if len(fast):
            add(Finding("speed", a, float(ts[fast[0]]), f"{v[fast[0]]:.2f} m/s"))
        if (np.diff(plan.actors[a].track.t) < 0).any():
            add(Finding("jump", a, 0.0, "keys out of order"))
    for f in flights(plan, reading):
        add(f)
    return [f for kind in sorted(found) for f in found[kind]]


def _overlaps(P: np.ndarray, block: int = 100):
    """(i, j, sample, distance) of each pair i < j the first time their centres come closer than MIN_GAP
    at the same level, in the order i, then j.  Pairs are first screened by the bounds of blocks of
    ``block`` samples; only blocks where two people's bounds come that close are measured."""
    n, T = P.shape[:2]
    nb = -(-T // block)
    Pb = np.concatenate([P, np.repeat(P[:, -1:], nb * block - T, axis=1)], axis=1).reshape(n, nb, block, -1)
    lo, hi = Pb[..., :3].min(2), Pb[..., :3].max(2)                  # (n, nb, 3)
    reach = np.array([MIN_GAP, MIN_GAP, 0.3])
    for i in range(n - 1):
        cand = ((lo[i + 1:] < hi[i] + reach) & (lo[i] < hi[i + 1:] + reach)).all(-1)     # (n-i-1, nb)
        js, bs = np.nonzero(cand)
        if not len(js):
            continue
        first = {}
        for c0 in range(0, len(js), 4096):                              # (j, block) in order, in chunks
            jc, bc = js[c0:c0 + 4096], bs[c0:c0 + 4096]
            a, b = Pb[i, bc], Pb[i + 1 + jc, bc]                        # (m, block, 4)
            d = np.hypot(a[..., 0] - b[..., 0], a[..., 1] - b[..., 1])
            k = bc[:, None] * block + np.arange(block)
            bad = (d < MIN_GAP) & (np.abs(a[..., 2] - b[..., 2]) < 0.3) & (k < T)
            for m in np.flatnonzero(bad.any(1)):                        # blocks in time order per j
                j = int(jc[m])
                if j not in first:
                    c = int(np.argmax(bad[m]))
                    first[j] = (int(k[m, c]), float(d[m, c]))
        for j in sorted(first):
            yield i, i + 1 + j, first[j][0], first[j][1]


def flights(plan: Plan, reading: Reading) -> list[Finding]:
    """Arrows in flight: exempt from the speed limit for people, not from walls and the hall — every
    sampled point of a flight stays above the ground, under the hall's roof while under it, above its
    floor, and out of columns, walls and fixtures (the target where a hit ends excepted)."""
    roof = Roof(reading)
    hall = Polygon(reading.hall_footprint)
    H = reading.hall_height
    solid = [(lm.id, Polygon(lm.footprint), lm.kind) for lm in reading.landmarks.values()
             if lm.kind in BLOCKING and lm.footprint and lm.kind not in (LandmarkKind.TARGET, LandmarkKind.POST)]
    out = []
    for pid, prop in plan.props.items():
        k = prop.track.keys
        fly = np.flatnonzero(k["posture"] == PropPosture.FLIGHT)
        if not len(fly):
            continue
        pts = np.c_[k["x"][fly], k["y"][fly], k["z"][fly]]
        over_hall = shapely.intersects_xy(hall, pts[:, 0], pts[:, 1])
        under = over_hall | ((pts[:, 1] > roof.ys) & (pts[:, 1] < roof.yn)
                                                                    & (np.abs(pts[:, 0]) < hall.bounds[2]))
        roof_z = np.array([roof.z(y) for y in pts[:, 1]])
        bad = (pts[:, 2] < -0.05) | (under & (pts[:, 2] > roof_z - 0.05)) | (
            over_hall & (pts[:, 2] < H))
        for name, shape, kind in solid:
            high = reading.wall_height if kind == LandmarkKind.WALL else (roof.zr if kind == LandmarkKind.COLUMN else 1.5)
            bad |= shapely.contains_xy(shape, pts[:, 0], pts[:, 1]) & (pts[:, 2] < high)
        if bad.any():
            i = fly[int(np.argmax(bad))]
            out.append(Finding("flight", pid, float(k["t"][i]), f"an arrow in flight passes through the ground, "
                               f"the hall or a fixture at ({k['x'][i]:.2f}, {k['y'][i]:.2f}, {k['z'][i]:.2f})"))
    return out


def speeds(plan: Plan) -> dict[str, float]:
    """Top speed of each person between consecutive keys (m/s)."""
    out = {}
    for a, actor in plan.actors.items():
        k = actor.track.keys
        dt = np.diff(k["t"])
        d = np.hypot(np.diff(k["x"]), np.diff(k["y"]))
        ok = dt > 1e-9
        out[a] = float((d[ok] / dt[ok]).max()) if ok.any() else 0.0
    return out
