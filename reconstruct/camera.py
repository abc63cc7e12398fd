"""Shot planning for the video: where the camera looks at each moment, chosen from the plan's events.

The camera is deterministic and calm:

* an establishing overview of the whole ground at the start;
* for each event, a three-quarter view from the south that frames whoever acts in it
  (their positions over the event, read from the plan's keys);
* a near-top-down *plan view* when someone walks a long way in the event (down the
  range to the target and back, say), so the path can be followed;
* a shot is kept while its frame still holds the new actors (no needless cuts), and is
  held at least :data:`MIN_HOLD` seconds; a change starts at an event boundary (never
  mid-gesture) and is an eased move whose length grows with the distance travelled
  (camera speed limited to :data:`MAX_SPEED` m/s).

All positions are plan coordinates (x = east, y = north, z = up, metres).  The
:class:`CameraPath` returned by :func:`plan_shots` answers ``at(t)`` for any plan time.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

__all__ = ["CameraPose", "Shot", "CameraPath", "plan_shots", "project", "view_matrix",
           "track_position", "MIN_HOLD", "MAX_SPEED"]

MIN_HOLD = 4.0          # s, the shortest shot
MAX_SPEED = 9.0         # m/s, the fastest the eye may travel in a move
MIN_MOVE = 1.2          # s, the shortest move between shots
MAX_MOVE = 3.0          # s
CUT_OVER = 30.0         # m of eye travel: cut instead (only at an event boundary)
LONG_WALK = 14.0        # m walked by one actor in one event: use a plan view
FOV = 38.0              # vertical view angle of ordinary shots, degrees


@dataclass(frozen=True)
class CameraPose:
    """Eye, target and up vector (plan coordinates) and the vertical view angle in degrees."""
    eye: tuple[float, float, float]
    target: tuple[float, float, float]
    up: tuple[float, float, float] = (0.0, 0.0, 1.0)
    view_angle: float = FOV

    def key(self) -> tuple:
        """A hashable, rounded identity (frames with equal keys see the same picture)."""
        return tuple(round(v, 5) for v in (*self.eye, *self.target, *self.up, self.view_angle))


@dataclass(frozen=True)
class Shot:
    """A held camera pose from ``t0`` to ``t1`` (plan seconds); ``kind`` = overview | group | plan."""
    t0: float
    t1: float
    pose: CameraPose
    kind: str
    events: tuple[str, ...] = ()


@dataclass
class CameraPath:
    """The shots, and the eased moves between them (a move of ``move_s`` seconds starts each shot)."""
    shots: list[Shot]
    moves: list[float] = field(default_factory=list)   # move duration at the start of each shot (0 = cut)

    def shot_index(self, t: float) -> int:
        starts = [s.t0 for s in self.shots]
        return max(0, int(np.searchsorted(starts, t, side="right")) - 1)

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

    def moving(self, t: float) -> bool:
        """True while the camera is in a move at ``t``."""
        i = self.shot_index(t)
        d = self.moves[i] if i < len(self.moves) else 0.0
        return i > 0 and d > 0 and self.shots[i].t0 <= t < self.shots[i].t0 + d


def _lerp_pose(a: CameraPose, b: CameraPose, u: float) -> CameraPose:
    ea, eb = np.asarray(a.eye), np.asarray(b.eye)
    ta, tb = np.asarray(a.target), np.asarray(b.target)
    # lift the eye a little in the middle of long moves so it never skims the ground
    lift = 0.15 * np.linalg.norm(eb - ea) * math.sin(math.pi * u)
    e = ea + (eb - ea) * u + np.array([0, 0, lift])
    tg = ta + (tb - ta) * u
    up = np.asarray(a.up) * (1 - u) + np.asarray(b.up) * u
    up = up / (np.linalg.norm(up) or 1.0)
    return CameraPose(tuple(map(float, e)), tuple(map(float, tg)), tuple(map(float, up)),
                      a.view_angle + (b.view_angle - a.view_angle) * u)


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

def track_position(keys, t: float) -> np.ndarray:
    """(x, y, z) of a plan track (``keys`` = [[t, x, y, z, heading, posture], …]) at time ``t``."""
    k = np.asarray([row[:4] for row in keys], float)
    if t <= k[0, 0]:
        return k[0, 1:4].copy()
    if t >= k[-1, 0]:
        return k[-1, 1:4].copy()
    return np.array([np.interp(t, k[:, 0], k[:, j]) for j in (1, 2, 3)])


def _track_points(keys, t0: float, t1: float) -> np.ndarray:
    pts = [track_position(keys, t0), track_position(keys, t1)]
    pts += [row[1:4] for row in keys if t0 < row[0] < t1]
    return np.asarray(pts, float)


def _path_length(pts: np.ndarray) -> float:
    return float(np.linalg.norm(np.diff(pts[:, :2], axis=0), axis=1).sum()) if len(pts) > 1 else 0.0


def _scene_bounds(plan: dict) -> np.ndarray:
    pts = []
    hall = plan.get("hall") or {}
    pts += [(x, y, hall.get("height_m", 0.0)) for x, y in hall.get("footprint") or []]
    for lm in (plan.get("landmarks") or {}).values():
        if lm.get("position"):
            pts.append(lm["position"])
    for tr in (plan.get("actors") or {}).values():
        pts += [row[1:4] for row in tr["keys"]]
    if not pts:
        pts = [(-10, -10, 0), (10, 10, 0)]
    p = np.asarray(pts, float)
    return np.array([p.min(0), p.max(0)])


# ---------------------------------------------------------------------------
# framing

def _group_pose(pts: np.ndarray, aspect: float, azimuth: float = 200.0, elevation: float = 24.0) -> CameraPose:
    """A 3/4 view from the south (``azimuth``: compass direction the camera sits in, seen from the group)."""
    lo, hi = pts.min(0), pts.max(0)
    c = (lo + hi) / 2
    c[2] = lo[2] + 0.8
    half_w = max((hi[0] - lo[0]) / 2, (hi[1] - lo[1]) / 2 * 0.6) + 1.2
    half_h = max((hi[1] - lo[1]) / 2 * math.sin(math.radians(elevation)) + 1.1, 1.3)
    t = math.tan(math.radians(FOV) / 2)
    dist = max(half_h / t, half_w / (t * aspect)) + (hi[1] - lo[1]) / 2 * math.cos(math.radians(elevation))
    dist = max(dist * 1.15, 8.0)
    az, el = math.radians(azimuth), math.radians(elevation)
    d = np.array([math.sin(az) * math.cos(el), math.cos(az) * math.cos(el), math.sin(el)])
    eye = c + d * dist
    # the caption band covers the bottom fifth: aim below the group so it sits in the upper part
    up_cam = np.array([-d[0] * math.sin(el), -d[1] * math.sin(el), math.cos(el)])
    aim = c - up_cam * 0.12 * 2 * dist * t
    return CameraPose(tuple(map(float, eye)), tuple(map(float, aim)), (0.0, 0.0, 1.0), FOV)


def _plan_pose(pts: np.ndarray, aspect: float) -> CameraPose:
    """A near-vertical view (80° down, north up on screen) holding ``pts``."""
    lo, hi = pts.min(0), pts.max(0)
    c = (lo + hi) / 2
    c[2] = 0.0
    half_w = (hi[0] - lo[0]) / 2 + 4.0
    half_h = (hi[1] - lo[1]) / 2 + 4.0
    t = math.tan(math.radians(FOV) / 2)
    h = max(half_h / t, half_w / (t * aspect), 15.0)
    pitch = math.radians(80.0)
    d = np.array([0.0, -math.cos(pitch), math.sin(pitch)])
    return CameraPose(tuple(map(float, c + d * h)), tuple(map(float, c)), (0.0, 0.0, 1.0), FOV)


def _overview_pose(bounds: np.ndarray, aspect: float) -> CameraPose:
    lo, hi = bounds
    # look at the hall end and the courtyard; the range's far end may run off the frame
    ymin = max(lo[1], hi[1] - 30.0)
    x0, x1 = max(lo[0], -14.0), min(hi[0], 14.0)
    pts = np.array([[x0, ymin, 0.0], [x1, hi[1], 3.0]])
    return _group_pose(pts, aspect, azimuth=165.0, elevation=30.0)


def _fits(pose: CameraPose, pts: np.ndarray, size: tuple[int, int], margin: float = 0.1) -> bool:
    px, depth = project(pose, np.vstack([pts, pts + [0, 0, 1.7]]), size)
    if np.isnan(px).any():
        return False
    w, h = size
    ok = (px[:, 0] > margin * w) & (px[:, 0] < (1 - margin) * w) & (px[:, 1] > margin * h) & (px[:, 1] < (1 - margin) * h)
    if not ok.all():
        return False
    # not absurdly small either: the group should fill a reasonable part of the frame
    span = max(np.ptp(px[:, 0]) / w, np.ptp(px[:, 1]) / h)
    return span > 0.12


def plan_shots(plan: dict, size: tuple[int, int] = (1280, 720), start: float | None = None,
               end: float | None = None, overview_s: float = 6.0) -> CameraPath:
    """Choose the shots for the plan between ``start`` and ``end`` (plan seconds)."""
    t_start = 0.0 if start is None else float(start)
    t_end = float(plan.get("duration", 0.0)) if end is None else float(end)
    aspect = size[0] / size[1]
    actors = plan.get("actors") or {}
    bounds = _scene_bounds(plan)
    shots: list[Shot] = [Shot(t_start, t_end, _overview_pose(bounds, aspect), "overview")]
    moves: list[float] = [0.0]
    for ev in plan.get("events") or []:
        e0, e1 = float(ev["start"]), float(ev["end"])
        if e1 < t_start or e0 >= t_end:
            continue
        cur = shots[-1]
        # a shot is held at least MIN_HOLD: a change wanted sooner waits (as a smooth move, not a cut)
        tc = max(e0, cur.t0 + (overview_s if cur.kind == "overview" else MIN_HOLD))
        if tc >= e1 - 1.0:
            shots[-1] = Shot(cur.t0, cur.t1, cur.pose, cur.kind, cur.events + (ev["id"],))
            continue
        who = [a for a in ev.get("actors") or [] if a in actors]
        if not who:
            continue
        pts_list = [_track_points(actors[a]["keys"], tc, e1) for a in who]
        pts = np.vstack(pts_list)
        walk = max(_path_length(p) for p in pts_list)
        extent = float(np.linalg.norm(np.ptp(pts[:, :2], axis=0)))
        if walk > LONG_WALK or extent > 28.0:
            pose, kind = _plan_pose(pts, aspect), "plan"
        else:
            if cur.kind == "group" and _fits(cur.pose, pts, size):
                shots[-1] = Shot(cur.t0, cur.t1, cur.pose, cur.kind, cur.events + (ev["id"],))
                continue
            pose, kind = _group_pose(pts, aspect), "group"
        if cur.kind == kind == "plan" and _fits(cur.pose, pts, size, 0.05):
            shots[-1] = Shot(cur.t0, cur.t1, cur.pose, cur.kind, cur.events + (ev["id"],))
            continue
        dist = float(np.linalg.norm(np.subtract(pose.eye, cur.pose.eye)))
        move = min(MAX_MOVE, max(MIN_MOVE, dist / MAX_SPEED))
        if dist > CUT_OVER and tc == e0:
            move = 0.0                                   # a clean cut between events, never mid-gesture
        shots[-1] = Shot(cur.t0, tc, cur.pose, cur.kind, cur.events)
        shots.append(Shot(tc, t_end, pose, kind, (ev["id"],)))
        moves.append(move)
    return CameraPath(shots, moves)
