"""Shot planning for the video: where the camera looks at each moment, chosen from the plan's events.

The camera is deterministic and calm:

* an establishing overview of the hall and the court at the start (:data:`OVERVIEW_S`);
* for whoever acts, a three-quarter *group* shot from the south framing the actors of
  the latest event (and those of other events under way when they fit), close enough
  that people read as people (a figure is at least ~50 px tall at 720p): the camera is
  fitted numerically so feet and heads sit inside the frame above the caption band;
  on the hall the roof is cut away (``CameraPose.cutaway``) and the camera rises;
  near the target it looks south from the north-east;
* a *plan* view — a high oblique across the range, labelled — only when someone walks
  a long way (down the 70 m range and back);
* a shot is kept while its frame still holds the actors; a change happens at an event
  start or, inside a long event, when the actors are about to leave the frame; shots are
  held at least :data:`MIN_HOLD` s; changes are eased moves (smootherstep, 1.5–4 s) and a
  cut only for a long jump at an event start — never mid-gesture.

All positions are plan coordinates (x = east, y = north, z = up, metres).  The
:class:`CameraPath` returned by :func:`plan_shots` answers ``at(t)`` for any plan time.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from ..model.defaults import FRAME_SIZE
from ..model.plan import Plan

__all__ = ["CameraPose", "Shot", "CameraPath", "plan_shots", "camera_path", "project", "view_matrix",
           "MIN_HOLD", "MAX_SPEED", "SAFE", "splice", "CAMERA_FORMAT", "KEY_COLUMNS", "CUT_DT", "MOVE_STEP",
           "keys_at"]

MIN_HOLD = 4.0          # s, the shortest shot
MAX_SPEED = 8.0         # m/s, the fastest the eye may travel in a move
MIN_MOVE = 1.5          # s, the shortest move between shots
MAX_MOVE = 4.0          # s
CUT_OVER = 30.0         # m of eye travel: cut instead (only at an event start)
LONG_WALK = 24.0        # m of extent of one event's actors: a walk, filmed in stretches with the inset map
WALK_AHEAD = 8.0        # s of a long walk one shot of it frames
MAX_TURN = 40.0         # degrees the view may turn in an eased move; more is a cut
MAX_GLIDE = 6.0         # m the eye may travel in an eased move (a gentle re-framing); farther is a cut
CHECK_EVERY = 3.0       # s, how often the frame is checked inside long events
LOOKAHEAD = 15.0        # s of the actors' future positions a new group shot is fitted to
FOV = 38.0              # vertical view angle of ordinary shots, degrees
OVERVIEW_S = 8.0        # s, the establishing shot at the start
MAX_GROUP_DIST = 34.0   # m, farther than this a group shot is not a close shot any more
HEAD = 1.75             # m above the feet counted as the top of a person
# the part of the frame people should be in: (left, top, right, bottom) as fractions;
# the caption band covers the bottom ~20%
SAFE = (0.06, 0.07, 0.94, 0.76)
CAMERA_FORMAT = "xiangshe-camera/1"     # the camera path as data (docs/camera-path.md)
KEY_COLUMNS = ("t", "eye_x", "eye_y", "eye_z", "target_x", "target_y", "target_z", "up_x", "up_y", "up_z", "vfov")
CUT_DT = 0.005          # s: a cut, in the keys, is the old pose held until CUT_DT before the new one
MOVE_STEP = 0.1         # s between the keys of an eased move (linear interpolation between them: within a few cm)


@dataclass(frozen=True)
class CameraPose:
    """Eye, target and up vector (plan coordinates), the vertical view angle in degrees, and
    ``cutaway``: True when the hall's roof is cut away (shots of people on the hall)."""
    eye: tuple[float, float, float]
    target: tuple[float, float, float]
    up: tuple[float, float, float] = (0.0, 0.0, 1.0)
    view_angle: float = FOV
    cutaway: bool = False

    def key(self) -> tuple:
        """A hashable, rounded identity (frames with equal keys see the same picture)."""
        return tuple(round(v, 5) for v in (*self.eye, *self.target, *self.up, self.view_angle)) + (self.cutaway,)


@dataclass(frozen=True)
class Shot:
    """A held camera pose from ``t0`` to ``t1`` (plan seconds); ``kind`` = overview | group | walk | plan |
    archery:archer | archery:target | archery:tally."""
    t0: float
    t1: float
    pose: CameraPose
    kind: str
    events: tuple[str, ...] = ()
    people: tuple[str, ...] = ()        # whom it frames (plan actor ids; empty for views of things)


@dataclass
class CameraPath:
    """The shots, and the eased moves between them (a move of ``move_s`` seconds starts each shot)."""
    shots: list[Shot]
    moves: list[float] = field(default_factory=list)   # move duration at the start of each shot (0 = cut)

    def __post_init__(self):
        self._starts = np.array([s.t0 for s in self.shots], float)

    def shot_index(self, t: float) -> int:
        if len(self._starts) != len(self.shots):
            self._starts = np.array([s.t0 for s in self.shots], float)
        return max(0, int(np.searchsorted(self._starts, t, side="right")) - 1)

    def shot_at(self, t: float) -> Shot:
        return self.shots[self.shot_index(t)]

    def at(self, t: float) -> CameraPose:
        """The camera pose at plan time ``t``."""
        i = self.shot_index(t)
        s = self.shots[i]
        d = self.moves[i] if i < len(self.moves) else 0.0
        if i == 0 or d <= 0 or t >= s.t0 + d:
            return s.pose
        u = (t - s.t0) / d
        u = u * u * u * (u * (u * 6 - 15) + 10)          # smootherstep: no jolt at either end
        return _lerp_pose(self.shots[i - 1].pose, s.pose, u)

    def starting_at(self, t: float) -> "CameraPath":
        """The path from ``t`` on, its first shot held from ``t`` (no move left over from before: an
        excerpt opens on a still camera)."""
        i = self.shot_index(t)
        s = self.shots[i]
        first = Shot(min(t, s.t0) if i == 0 else t, s.t1, s.pose, s.kind, s.events, s.people)
        return CameraPath([first] + self.shots[i + 1:], [0.0] + list(self.moves[i + 1:]))

    def keys(self) -> np.ndarray:
        """The path as keys (n, 11): ``KEY_COLUMNS`` = t, eye, target, up, vfov (plan frame), which linear
        interpolation reproduces: a hold is its first and last key, an eased move is sampled every
        :data:`MOVE_STEP` s, a cut is the old pose until :data:`CUT_DT` s before the new one."""
        if not self.shots:
            return np.zeros((0, len(KEY_COLUMNS)))
        ts: list[float] = [self.shots[0].t0, self.shots[-1].t1]
        for i, s in enumerate(self.shots):
            d = self.moves[i] if i < len(self.moves) else 0.0
            ts.append(s.t0)
            if i > 0:
                ts.append(s.t0 - CUT_DT)
            if i > 0 and d > 0:
                n = max(2, int(math.ceil(d / MOVE_STEP)) + 1)
                ts += list(s.t0 + np.linspace(0.0, d, n))
        t = np.unique(np.round(ts, 6))
        t = t[(t >= self.shots[0].t0) & (t <= self.shots[-1].t1)]
        rows = []
        for x in t:
            p = self.at(float(x))
            rows.append((float(x), *p.eye, *p.target, *p.up, p.view_angle))
        return np.asarray(rows, float)

    def to_dict(self, size: tuple[int, int]) -> dict:
        """The camera path as data (``xiangshe-camera/1``, docs/camera-path.md): the shots and the keys."""
        keys = self.keys()
        return {
            "format": CAMERA_FORMAT,
            "frame": "plan: metres, x east, y north, z up",
            "size": [int(size[0]), int(size[1])],
            "start": round(float(self.shots[0].t0), 4) if self.shots else 0.0,
            "end": round(float(self.shots[-1].t1), 4) if self.shots else 0.0,
            "shots": [{"start": round(s.t0, 4), "end": round(s.t1, 4), "kind": s.kind, "people": list(s.people),
                       "events": list(s.events), "cutaway": bool(s.pose.cutaway),
                       "move": round(float(self.moves[i]) if i < len(self.moves) else 0.0, 4)}
                      for i, s in enumerate(self.shots)],
            "key_columns": list(KEY_COLUMNS),
            "keys": [[round(float(v), 4) for v in row] for row in keys],
        }

    def moving(self, t: float) -> bool:
        """True while the camera is in a move at ``t``."""
        i = self.shot_index(t)
        d = self.moves[i] if i < len(self.moves) else 0.0
        return i > 0 and d > 0 and self.shots[i].t0 <= t < self.shots[i].t0 + d


def _turn(a: CameraPose, b: CameraPose) -> float:
    """The angle in degrees between the directions two poses look in."""
    da = np.subtract(a.target, a.eye)
    db = np.subtract(b.target, b.eye)
    c = float(np.dot(da, db) / (np.linalg.norm(da) * np.linalg.norm(db) or 1.0))
    return math.degrees(math.acos(min(1.0, max(-1.0, c))))


def _lerp_pose(a: CameraPose, b: CameraPose, u: float) -> CameraPose:
    ea, eb = np.asarray(a.eye), np.asarray(b.eye)
    ta, tb = np.asarray(a.target), np.asarray(b.target)
    # lift the eye a little in the middle of long moves so it never skims the ground
    lift = 0.12 * np.linalg.norm(eb - ea) * math.sin(math.pi * u)
    e = ea + (eb - ea) * u + np.array([0, 0, lift])
    tg = ta + (tb - ta) * u
    up = np.asarray(a.up) * (1 - u) + np.asarray(b.up) * u
    up = up / (np.linalg.norm(up) or 1.0)
    return CameraPose(tuple(map(float, e)), tuple(map(float, tg)), tuple(map(float, up)),
                      a.view_angle + (b.view_angle - a.view_angle) * u, a.cutaway or b.cutaway)


# ---------------------------------------------------------------------------
# projection

def view_matrix(pose: CameraPose) -> np.ndarray:
    """World → camera (OpenGL convention: camera looks down −z, y up) 4x4."""
    e, t = np.asarray(pose.eye, float), np.asarray(pose.target, float)
    f = t - e
    f /= np.linalg.norm(f)
    r = np.cross(f, np.asarray(pose.up, float))
    r /= np.linalg.norm(r)
    u = np.cross(r, f)
    m = np.eye(4)
    m[0, :3], m[1, :3], m[2, :3] = r, u, -f
    m[:3, 3] = -m[:3, :3] @ e
    return m


def project(pose: CameraPose, points, size: tuple[int, int]) -> tuple[np.ndarray, np.ndarray]:
    """Pixel coordinates (x right, y down, origin top-left) and camera distance of world points.

    Points behind the camera get NaN pixel coordinates.
    """
    p = np.atleast_2d(np.asarray(points, float))
    w, h = size
    c = (view_matrix(pose) @ np.c_[p, np.ones(len(p))].T).T
    depth = -c[:, 2]
    t = math.tan(math.radians(pose.view_angle) / 2)
    with np.errstate(divide="ignore", invalid="ignore"):
        ndc_x = c[:, 0] / (depth * t * (w / h))
        ndc_y = c[:, 1] / (depth * t)
    px = np.c_[(ndc_x + 1) / 2 * w, (1 - ndc_y) / 2 * h]
    px[depth <= 1e-6] = np.nan
    return px, depth


# ---------------------------------------------------------------------------
# plan access

class _Tracks:
    """Position look-ups on the plan's actor tracks."""

    def __init__(self, plan: Plan):
        self.tracks = {aid: a.track for aid, a in plan.actors.items()}
        self.k = self.tracks            # who has a track

    def at(self, aid: str, t: float) -> np.ndarray:
        return self.tracks[aid].at([t])[0][0]

    def points(self, aid: str, t0: float, t1: float) -> np.ndarray:
        tr = self.tracks[aid]
        inside = tr.xyz[(tr.t > t0) & (tr.t < t1)]
        return np.vstack([tr.at([t0])[0], inside, tr.at([t1])[0]])


def _path_length(pts: np.ndarray) -> float:
    return float(np.linalg.norm(np.diff(pts[:, :2], axis=0), axis=1).sum()) if len(pts) > 1 else 0.0


def _scene_bounds(plan: Plan) -> np.ndarray:
    pts = [(x, y, plan.hall_height) for x, y in plan.hall.get("footprint") or []]
    pts += [lm.position for lm in plan.landmarks.values()]
    p = np.vstack([np.asarray(pts, float).reshape(-1, 3)] + [a.track.xyz for a in plan.actors.values()])
    if not len(p):
        p = np.asarray([(-10, -10, 0), (10, 10, 0)], float)
    return np.array([p.min(0), p.max(0)])


# ---------------------------------------------------------------------------
# framing

def _direction(azimuth: float, elevation: float) -> np.ndarray:
    """Unit vector from the subject towards the camera (``azimuth``: compass bearing of the camera)."""
    az, el = math.radians(azimuth), math.radians(elevation)
    return np.array([math.sin(az) * math.cos(el), math.cos(az) * math.cos(el), math.sin(el)])


def _people_box(pts: np.ndarray, pad: float = 0.7) -> np.ndarray:
    """Feet and heads of people at ``pts``, padded sideways by ``pad`` m (bodies, sleeves, bows)."""
    pts = np.asarray(pts, float)
    out = []
    for dx, dy in ((-pad, 0), (pad, 0), (0, -pad), (0, pad)):
        q = pts + [dx, dy, 0]
        out += [q, q + [0, 0, HEAD]]
    return np.vstack(out)


def fit_pose(pts: np.ndarray, size: tuple[int, int], azimuth: float, elevation: float,
             fov: float = FOV, safe=SAFE, min_dist: float = 6.0, cutaway: bool = False) -> tuple[CameraPose, float]:
    """The closest pose seen from (``azimuth``, ``elevation``) with every point inside the ``safe``
    part of the frame, and its eye distance.  Numeric: distance by bisection, aim re-centred."""
    pts = np.asarray(pts, float)
    d = _direction(azimuth, elevation)
    c = (pts.min(0) + pts.max(0)) / 2
    sl, st, sr, sb = safe
    w, h = size

    def pose_at(dist, aim):
        return CameraPose(tuple(map(float, aim + d * dist)), tuple(map(float, aim)), (0.0, 0.0, 1.0), fov, cutaway)

    aim = c.copy()
    dist = min_dist
    for _ in range(3):
        lo, hi = min_dist * 0.5, 400.0
        for _ in range(26):
            mid = (lo + hi) / 2
            px, dep = project(pose_at(mid, aim), pts, size)
            ok = (not np.isnan(px).any() and (dep > 0.3).all()
                  and np.ptp(px[:, 0]) <= (sr - sl) * w and np.ptp(px[:, 1]) <= (sb - st) * h)
            if ok:
                hi = mid
            else:
                lo = mid
        dist = max(hi, min_dist)
        # re-centre: move the aim so the projected box sits in the middle of the safe rectangle
        pose = pose_at(dist, aim)
        px, dep = project(pose, pts, size)
        cx = (px[:, 0].min() + px[:, 0].max()) / 2 - (sl + sr) / 2 * w
        cy = (px[:, 1].min() + px[:, 1].max()) / 2 - (st + sb) / 2 * h
        vm = view_matrix(pose)
        right, up = vm[0, :3], vm[1, :3]
        t = math.tan(math.radians(fov) / 2)
        scale = 2 * dist * t / h                         # metres per pixel at the aim's depth
        aim = aim + right * cx * scale - up * cy * scale
    return pose_at(dist, aim), dist


def _fits(pose: CameraPose, pts: np.ndarray, size: tuple[int, int], slack: float = 0.0) -> bool:
    """Do the people at ``pts`` (feet) stand inside the safe part of the frame of ``pose``?"""
    px, depth = project(pose, _people_box(pts, 0.4), size)
    if np.isnan(px).any() or (depth <= 0.3).any():
        return False
    w, h = size
    sl, st, sr, sb = SAFE
    return bool(((px[:, 0] >= (sl - slack) * w) & (px[:, 0] <= (sr + slack) * w)
                 & (px[:, 1] >= (st - slack) * h) & (px[:, 1] <= (sb + slack) * h)).all())


def _span(pose: CameraPose, pts: np.ndarray, size: tuple[int, int]) -> float:
    """How much of the frame the people at ``pts`` fill (the larger of width and height fractions)."""
    px, _ = project(pose, _people_box(pts, 0.4), size)
    if np.isnan(px).any():
        return 0.0
    return float(max(np.ptp(px[:, 0]) / size[0], np.ptp(px[:, 1]) / size[1]))


def _on_hall(pts: np.ndarray, hall_h: float) -> bool:
    return bool(hall_h > 0 and (pts[:, 2] > hall_h * 0.6).mean() >= 0.3)


def _occluders(pose: CameraPose, subjects: np.ndarray, others: np.ndarray, size) -> float:
    """How badly people not framed stand between the camera and the subjects (0 = not at all)."""
    if not len(others):
        return 0.0
    _, ds = project(pose, subjects + [0, 0, 1.0], size)
    near = float(ds.min()) - 0.8
    px, d = project(pose, others + [0, 0, 1.0], size)
    w, h = size
    ok = ~np.isnan(px[:, 0]) & (d < near) & (px[:, 0] > -0.05 * w) & (px[:, 0] < 1.05 * w) & (px[:, 1] > -0.1 * h)
    # a person near the camera blocks more of the frame
    return float((near / np.maximum(d[ok], 0.5)).sum())


WALL_H = 2.6            # m: lines of sight lower than this where they cross the court's edge are blocked


def _wall_blocked(eye, pts: np.ndarray, court: np.ndarray | None) -> float:
    """Fraction of the lines of sight from ``eye`` to ``pts`` (at chest height) that cross the edge of
    the court (``court`` = [[xmin, ymin], [xmax, ymax]]: the walls) lower than :data:`WALL_H`."""
    if court is None:
        return 0.0
    e = np.asarray(eye, float)
    (x0, y0), (x1, y1) = court
    if x0 < e[0] < x1 and y0 < e[1] < y1:
        return 0.0
    blocked = 0
    for p in np.asarray(pts, float) + [0, 0, 1.2]:
        hit = False
        for axis, v in ((0, x0), (0, x1), (1, y0), (1, y1)):
            den = p[axis] - e[axis]
            if abs(den) < 1e-9:
                continue
            u = (v - e[axis]) / den
            if 0 < u < 1:
                q = e + (p - e) * u
                other = q[1 - axis]
                lo, hi = (y0, y1) if axis == 0 else (x0, x1)
                if lo <= other <= hi and q[2] < WALL_H:
                    hit = True
        blocked += hit
    return blocked / max(1, len(pts))


def _group_pose(pts: np.ndarray, size, hall_h: float, range_y: float,
                others: np.ndarray | None = None, gate_y: float | None = None,
                court: np.ndarray | None = None) -> tuple[CameraPose, float]:
    """A 3/4 close shot of the people at ``pts`` (feet), from the side where nobody else stands in
    front of them (``others``: where the rest stand)."""
    box = _people_box(pts)
    if _on_hall(pts, hall_h):                   # on the hall: roof cut away, the camera a little higher
        views, el, cut = (218.0, 175.0, 245.0), 30.0, True
    elif gate_y is not None and float(np.mean(pts[:, 1])) < gate_y + 0.5:   # at or outside the gate: from outside
        views, el, cut = (180.0, 205.0, 155.0), 18.0, False
    elif float(np.mean(pts[:, 1])) < range_y:   # down by the target: look south, the target behind them
        views, el, cut = (25.0, 335.0, 60.0), 20.0, False
    else:
        views, el, cut = (200.0, 160.0, 235.0, 125.0), 25.0, False
    outside = court is not None and float(np.mean(pts[:, 1])) < court[0][1]
    best = None
    for i, (az, e_) in enumerate([(a, el) for a in views] + [(a, el + 22.0) for a in views]):
        pose, dist = fit_pose(box, size, az, e_, cutaway=cut)
        score = (_occluders(pose, pts, others, size) if others is not None else 0.0) + 0.15 * i
        if not outside:
            score += 6.0 * _wall_blocked(pose.eye, pts, court)
        if best is None or score < best[0] - 1e-9:
            best = (score, pose, dist)
        if best[0] < 0.2:
            break
    return best[1], best[2]


def _plan_pose(pts: np.ndarray, size) -> CameraPose:
    """A high oblique across the range (camera to the east, looking west: north on the right), the
    hall's roof cut away so the people on the hall show too."""
    pose, _ = fit_pose(_people_box(pts, 2.5), size, 90.0, 45.0, safe=(0.04, 0.06, 0.96, 0.78), min_dist=20.0,
                       cutaway=True)
    return pose


def _overview_pose(bounds: np.ndarray, size, hall_h: float) -> CameraPose:
    lo, hi = bounds
    # the hall, the stairs and the near court; the range runs away behind the camera's left
    ymax = max(hi[1], 6.0)
    pts = np.array([[-12.0, ymax, 0.0], [12.0, ymax, 0.0], [-12.0, -9.0, 0.0], [12.0, -9.0, 0.0],
                    [0.0, ymax * 0.5, hall_h + 4.5]])
    pose, _ = fit_pose(pts, size, 155.0, 24.0, safe=(0.02, 0.04, 0.98, 0.80))
    return pose


def keys_at(keys, times) -> np.ndarray:
    """The camera of ``keys`` (rows of :data:`KEY_COLUMNS`, as exported) at ``times``, by linear
    interpolation of each column: (n, 11) rows, time first (what the glTF camera and the page do)."""
    k = np.asarray(keys, float)
    ts = np.atleast_1d(np.asarray(times, float))
    return np.column_stack([ts] + [np.interp(ts, k[:, 0], k[:, c]) for c in range(1, k.shape[1])])


_PATHS: "weakref.WeakKeyDictionary" = None  # type: ignore[assignment]


def camera_path(plan: Plan, size: tuple[int, int] = FRAME_SIZE) -> CameraPath:
    """THE camera path of the whole passage at ``size``: what the video, the glTF camera, the page's
    film and ``render.py shots`` all show (planned once per plan and size; the plan is not to be changed
    after)."""
    global _PATHS
    import weakref
    if _PATHS is None:
        _PATHS = weakref.WeakKeyDictionary()
    per = _PATHS.setdefault(plan, {})
    key = (int(size[0]), int(size[1]))
    if key not in per:
        per[key] = plan_shots(plan, key)
    return per[key]


def plan_shots(plan: Plan, size: tuple[int, int] = FRAME_SIZE, start: float | None = None,
               end: float | None = None, overview_s: float = OVERVIEW_S) -> CameraPath:
    """Choose the shots for the plan between ``start`` and ``end`` (plan seconds); while arrows fly the
    shooting is filmed by :mod:`.archery_shots` (cuts between the archer, the target and the tally)."""
    from .archery_shots import archery_shots
    t0 = 0.0 if start is None else float(start)
    t1 = plan.duration if end is None else float(end)
    path = _ShotPlanner(plan, size, t0, t1, overview_s).run()
    return splice(path, archery_shots(plan, size, t0, t1, Shot, CameraPose, fit_pose, _occluders))


def splice(path: CameraPath, inserts: list[Shot]) -> CameraPath:
    """``path`` with ``inserts`` (shots reached and left by cuts) in place of what it showed then."""
    if not inserts:
        return path
    spans: list[list[float]] = []
    for s in sorted(inserts, key=lambda s: s.t0):
        if spans and s.t0 <= spans[-1][1] + 1e-6:
            spans[-1][1] = max(spans[-1][1], s.t1)
        else:
            spans.append([s.t0, s.t1])
    rows: list[tuple[Shot, float]] = []
    for i, s in enumerate(path.shots):
        pieces = [(s.t0, s.t1)]
        for a, b in spans:
            pieces = [q for p0, p1 in pieces for q in ((p0, min(p1, a)), (max(p0, b), p1)) if q[1] - q[0] > 1e-6]
        for a, b in pieces:
            move = path.moves[i] if i < len(path.moves) and abs(a - s.t0) < 1e-9 else 0.0
            rows.append((Shot(a, b, s.pose, s.kind, s.events, s.people), move))
    rows += [(s, 0.0) for s in inserts]
    rows.sort(key=lambda r: r[0].t0)
    shots, moves = [], []
    for k, (s, m) in enumerate(rows):
        if k and rows[k - 1][0].kind.startswith("archery"):
            m = 0.0                                   # out of the shooting by a cut
        shots.append(s)
        moves.append(m if k else 0.0)
    return CameraPath(shots, moves)


class _ShotPlanner:
    """The shots, chosen in order: at each event start and every CHECK_EVERY seconds, keep the shot
    while it still holds the people acting, else fit a new one and move or cut to it."""

    def __init__(self, plan: Plan, size, t_start: float, t_end: float, overview_s: float):
        self.size, self.t_end, self.overview_s = size, t_end, overview_s
        self.tracks = _Tracks(plan)
        self.hall_h = plan.hall_height
        lms = plan.landmarks
        self.range_y = float(lms["侯"].position[1]) * 0.55 if "侯" in lms else -30.0
        self.gate_y = float(lms["门"].position[1]) if "门" in lms else None
        self.court = None
        if self.gate_y is not None:                     # the walls: the gate's line and the people's extent
            xy = np.vstack([a.track.xyz for a in plan.actors.values()])
            xs = np.abs(xy[xy[:, 1] > self.gate_y, 0])
            self.court = (np.array([[-xs.max() - 0.3, self.gate_y], [xs.max() + 0.3, _scene_bounds(plan)[1][1] + 2.0]])
                          if len(xs) else None)
        self.shots: list[Shot] = [Shot(t_start, t_end, _overview_pose(_scene_bounds(plan), size, self.hall_h),
                                       "overview")]
        self.moves: list[float] = [0.0]
        k = self.tracks.k
        self.events = sorted((e for e in plan.events if [a for a in e.actors if a in k]), key=lambda e: (e.start, e.end))
        self.starts = {round(float(e.start), 6) for e in self.events}
        cands = sorted(self.starts | set(np.round(np.arange(t_start, t_end, CHECK_EVERY), 6)))
        self.cands = [t for t in cands if t_start <= t < t_end]

    def run(self) -> CameraPath:
        for tc in self.cands:
            self._at(tc)
        return CameraPath(self.shots, self.moves)

    def _extend(self, ev_ids=()) -> None:
        cur = self.shots[-1]
        self.shots[-1] = Shot(cur.t0, cur.t1, cur.pose, cur.kind,
                              cur.events + tuple(e for e in ev_ids if e not in cur.events), cur.people)

    def _at(self, tc: float) -> None:
        """Keep, or change, the shot at candidate time ``tc``."""
        cur, tracks, size = self.shots[-1], self.tracks, self.size
        hold = self.overview_s if cur.kind == "overview" else MIN_HOLD
        if tc < cur.t0 + hold:
            return
        active = [e for e in self.events if e.start <= tc < e.end]
        if not active:
            return
        latest = max(e.start for e in active)
        primary = [e for e in active if e.start == latest]
        ids = [e.id for e in primary]
        boundary = round(tc, 6) in self.starts
        who = list(dict.fromkeys(a for e in primary for a in e.actors if a in tracks.k))
        e1 = max(e.end for e in primary)
        p_soon = np.vstack([tracks.points(a, tc, min(e1, tc + CHECK_EVERY + 1.0)) for a in who])
        ahead = min(e1, tc + LOOKAHEAD)
        p_ahead = np.vstack([tracks.points(a, tc, ahead) for a in who])
        ext = float(np.linalg.norm(np.ptp(p_ahead[:, :2], axis=0)))
        # one going out of the gate is filmed from outside, with those he goes out to
        leaving = (self.gate_y is not None and float(p_soon[:, 1].min()) < self.gate_y - 0.5
                   and float(cur.pose.eye[1]) > self.gate_y)
        # keep the current shot while it holds the acting people over the next seconds
        # (a plan view only while the long walk goes on)
        if cur.kind == "group" and not leaving and _fits(cur.pose, p_soon, size, 0.02):
            if not boundary or _span(cur.pose, p_soon, size) > 0.22:
                return self._extend(ids)
        if cur.kind == "walk" and ext > LONG_WALK and _fits(cur.pose, p_soon, size, 0.02):
            return self._extend(ids)
        if ext > LONG_WALK:
            # a long walk: the walkers close over the next stretch of their way; an inset map (drawn
            # by the video) shows where on the ground they are
            pose, kind = self._walk_pose(tc, who, e1), "walk"
        else:
            others = [e for e in active if e.start != latest]
            pose, kind = self._group_shot(tc, who, others, p_ahead, ahead, e1)
        self._change(tc, pose, kind, ids, boundary, hold, e1, tuple(who))

    def _group_shot(self, tc, who, others, p_ahead, ahead, e1) -> tuple[CameraPose, str]:
        """A group shot of ``who`` (and of others acting when they fit), or a plan view when too far."""
        tracks, size = self.tracks, self.size
        fit = (self.hall_h, self.range_y)
        rest = [a for a in tracks.k if a not in who]
        p_rest = np.array([tracks.at(a, tc + 1.0) for a in rest]) if rest else np.zeros((0, 3))
        if self.gate_y is not None and len(rest) and float(p_ahead[:, 1].min()) < self.gate_y:
            # going out of the gate (主人送于門外): frame those waiting outside too, from outside
            out = p_rest[:, 1] < self.gate_y - 0.5
            if out.any():
                p_ahead = np.vstack([p_ahead, p_rest[out]])
                p_rest = p_rest[~out]
        pose, dist = _group_pose(p_ahead, size, *fit, p_rest, self.gate_y, self.court)
        # take in the people of other events under way when they fit
        extra = list(dict.fromkeys(a for e in others for a in e.actors if a in tracks.k and a not in who))
        if extra:
            p_all = np.vstack([p_ahead] + [tracks.points(a, tc, min(ahead, tc + 6.0)) for a in extra])
            if float(np.linalg.norm(np.ptp(p_all[:, :2], axis=0))) < 18.0:
                rest2 = [a for a in rest if a not in extra]
                p_rest2 = np.array([tracks.at(a, tc + 1.0) for a in rest2]) if rest2 else np.zeros((0, 3))
                pose2, dist2 = _group_pose(p_all, size, *fit, p_rest2, self.gate_y, self.court)
                if dist2 < min(MAX_GROUP_DIST, dist * 1.6):
                    pose, dist = pose2, dist2
        if dist > MAX_GROUP_DIST * 1.5:
            return self._walk_pose(tc, who, e1), "walk"
        return pose, "group"

    def _walk_pose(self, tc, who, e1) -> CameraPose:
        """Those who walk far, framed over the next :data:`WALK_AHEAD` seconds of their way."""
        p = np.vstack([self.tracks.points(a, tc, min(e1, tc + WALK_AHEAD)) for a in who])
        return _group_pose(p, self.size, self.hall_h, self.range_y, None, self.gate_y, self.court)[0]

    def _change(self, tc, pose, kind, ids, boundary, hold, e1, who=()) -> None:
        """Move (or cut) to ``pose`` unless it is where the camera already is."""
        cur = self.shots[-1]
        d_eye = float(np.linalg.norm(np.subtract(pose.eye, cur.pose.eye)))
        if d_eye < 0.3 and pose.cutaway == cur.pose.cutaway:
            return self._extend(ids)
        move = min(MAX_MOVE, max(MIN_MOVE, d_eye / MAX_SPEED))
        ts = tc
        if "walk" in (kind, cur.kind) or d_eye > MAX_GLIDE or _turn(cur.pose, pose) > MAX_TURN:
            move = 0.0                               # a cut rather than a fast pan
        elif boundary and (d_eye > CUT_OVER or (d_eye > 8.0 and move > 0.5 * (e1 - tc))):
            # a clean cut at an event start (never mid-gesture): a long jump, or a move that would
            # last through most of a short gesture
            move = 0.0
        elif boundary:
            # anticipate: the move starts a little before the event so the camera arrives as it begins
            ts = max(cur.t0 + hold, tc - 0.7 * move, self.shots[-1].t0 + 0.5)
        self.shots[-1] = Shot(cur.t0, ts, cur.pose, cur.kind, cur.events, cur.people)
        self.shots.append(Shot(ts, self.t_end, pose, kind, tuple(ids), who))
        self.moves.append(move)
