"""The camera: where it looks at each moment, as shots, and the one camera path of a plan.

:func:`camera_path` is THE path of a plan (the video, the glTF camera, the page's film and
``render.py shots`` all read it); :func:`plan_shots` makes it: an establishing overview at the start, then
the shot grammar of :mod:`.grammar` (establishing shots where the place or the group changes, medium shots
of those acting, close shots of the hands and the thing handled, walkers followed, the 180° rule, no shot
under 2 s), with the shooting's inserts of :mod:`.archery_shots` spliced in by cuts.  A shot holds a
:class:`CameraPose`; an eased move (smootherstep) may start a shot.  :meth:`CameraPath.keys` writes the
path as keys (``xiangshe-camera/1``, docs/camera-path.md).

All positions are plan coordinates (x = east, y = north, z = up, metres).
"""
from __future__ import annotations

import json
import math
import weakref
from dataclasses import dataclass, field

import numpy as np

from ..errors import InputError
from ..model.defaults import FRAME_SIZE
from ..model.plan import Plan

__all__ = ["CameraPose", "Shot", "CameraPath", "plan_shots", "camera_path", "project", "view_matrix",
           "MAX_SPEED", "SAFE", "splice", "CAMERA_FORMAT", "KEY_COLUMNS", "CUT_DT", "MOVE_STEP",
           "keys_at"]

MAX_SPEED = 8.0         # m/s, the fastest the eye may travel in a move
FOV = 38.0              # vertical view angle of ordinary shots, degrees
OVERVIEW_S = 8.0        # s, the establishing shot at the start
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
    """A held camera pose from ``t0`` to ``t1`` (plan seconds); ``kind`` = overview | establish | medium | close | walk |
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
        # exact times (a key rounded to just before a shot's start would carry the shot before into a hold)
        t = np.unique(np.asarray(ts, float))
        t = t[(t >= self.shots[0].t0) & (t <= self.shots[-1].t1)]
        t = t[np.r_[np.diff(t) > 1e-6, True]]             # of near-equal times, the later
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

    @classmethod
    def load(cls, path, plan_duration: float | None = None) -> "CameraPath":
        """Read a camera path written by ``render.py shots --json`` (bad input: :class:`InputError` naming
        the file and the place)."""
        from ..inputs import MAX_PLAN_BYTES, read_text
        text = read_text(path, str(path), what="camera path", max_bytes=MAX_PLAN_BYTES)
        try:
            data = json.loads(text, parse_constant=_no_constant)
        except json.JSONDecodeError as e:
            raise InputError(str(path), f"line {e.lineno}", f"not JSON ({e.msg})") from None
        except (ValueError, RecursionError) as e:
            raise InputError(str(path), "", f"not a camera path: {str(e).splitlines()[0] if str(e) else 'nested too deep'}") from None
        return cls.from_dict(data, str(path))

    @classmethod
    def from_dict(cls, d, file: str = "camera path") -> "CameraPath":
        """The path of a ``xiangshe-camera/1`` document: each shot's pose is the keys' camera once its move is
        over, so :meth:`at` gives back the path the document was written from (to the keys' rounding)."""
        def fail(where, what):
            raise InputError(file, where, what)

        def num(v, where):
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v) or abs(v) > 1e7:
                fail(where, f"not a finite number: {str(v)[:40]!r}")
            return float(v)

        if not isinstance(d, dict) or d.get("format") != CAMERA_FORMAT:
            fail("format", f"not a camera path (format {CAMERA_FORMAT} expected)")
        rows = d.get("keys")
        if not isinstance(rows, list) or not rows or len(rows) > 5_000_000:
            fail("keys", "a non-empty list of keys expected")
        keys = np.empty((len(rows), len(KEY_COLUMNS)))
        for i, r in enumerate(rows):
            if not isinstance(r, list) or len(r) != len(KEY_COLUMNS):
                fail(f"keys[{i}]", f"{len(KEY_COLUMNS)} numbers expected ({', '.join(KEY_COLUMNS)})")
            keys[i] = [num(v, f"keys[{i}]") for v in r]
        if (np.diff(keys[:, 0]) <= 0).any():
            fail("keys", "times must increase")
        if not ((keys[:, 10] > 1.0) & (keys[:, 10] < 170.0)).all():
            fail("keys", "vfov must be between 1 and 170 degrees")
        looks = np.linalg.norm(keys[:, 4:7] - keys[:, 1:4], axis=1)
        ups = np.linalg.norm(np.cross(keys[:, 4:7] - keys[:, 1:4], keys[:, 7:10]), axis=1)
        if (looks < 1e-6).any() or (ups < 1e-9).any():
            fail("keys", "an eye on its target, or an up vector along the line of sight")
        raw = d.get("shots")
        if not isinstance(raw, list) or not raw:
            fail("shots", "a non-empty list of shots expected")
        shots, moves = [], []
        for i, x in enumerate(raw):
            where = f"shots[{i}]"
            if not isinstance(x, dict):
                fail(where, "an object expected")
            a, b = num(x.get("start"), where + ".start"), num(x.get("end"), where + ".end")
            move = num(x.get("move", 0.0), where + ".move")
            if b < a or move < 0 or (shots and a < shots[-1].t0):
                fail(where, "start <= end, move >= 0, and shots in time order expected")
            kind, people, events = x.get("kind"), x.get("people", []), x.get("events", [])
            if not isinstance(kind, str) or not all(isinstance(v, str) for v in [*people, *events]):
                fail(where, "kind, people and events are text")
            k = keys_at(keys, [min(b, a + move) if move > 0 else a])[0]
            pose = CameraPose(tuple(k[1:4]), tuple(k[4:7]), tuple(k[7:10]), float(k[10]), bool(x.get("cutaway", False)))
            shots.append(Shot(a, b, pose, kind, tuple(events), tuple(people)))
            moves.append(move)
        return cls(shots, moves)

    def moving(self, t: float) -> bool:
        """True while the camera is in a move at ``t``."""
        i = self.shot_index(t)
        d = self.moves[i] if i < len(self.moves) else 0.0
        return i > 0 and d > 0 and self.shots[i].t0 <= t < self.shots[i].t0 + d


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


def _overview_pose(bounds: np.ndarray, size, hall_h: float) -> CameraPose:
    lo, hi = bounds
    # the hall, the stairs and the near court; the range runs away behind the camera's left
    ymax = max(hi[1], 6.0)
    pts = np.array([[-12.0, ymax, 0.0], [12.0, ymax, 0.0], [-12.0, -9.0, 0.0], [12.0, -9.0, 0.0],
                    [0.0, ymax * 0.5, hall_h + 4.5]])
    pose, _ = fit_pose(pts, size, 155.0, 24.0, safe=(0.02, 0.04, 0.98, 0.80))
    return pose


def _no_constant(name: str) -> None:
    raise ValueError(f"{name} is not a number JSON allows")


def keys_at(keys, times) -> np.ndarray:
    """The camera of ``keys`` (rows of :data:`KEY_COLUMNS`, as exported) at ``times``, by linear
    interpolation of each column: (n, 11) rows, time first (what the glTF camera and the page do)."""
    k = np.asarray(keys, float)
    ts = np.atleast_1d(np.asarray(times, float))
    return np.column_stack([ts] + [np.interp(ts, k[:, 0], k[:, c]) for c in range(1, k.shape[1])])


# THE path per plan and size, kept while the plan lives
_PATHS: "weakref.WeakKeyDictionary[Plan, dict]" = weakref.WeakKeyDictionary()


def camera_path(plan: Plan, size: tuple[int, int] = FRAME_SIZE) -> CameraPath:
    """THE camera path of the whole passage at ``size``: what the video, the glTF camera, the page's
    film and ``render.py shots`` all show (planned once per plan and size; the plan is not to be changed
    after)."""
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
    from .grammar import film
    t0 = 0.0 if start is None else float(start)
    t1 = plan.duration if end is None else float(end)
    path = film(plan, size, t0, t1, overview_s if t0 <= 1e-9 else 0.0,
                _overview_pose(_scene_bounds(plan), size, plan.hall_height), Shot, CameraPose, CameraPath)
    return _absorb_short(splice(path, archery_shots(plan, size, t0, t1, Shot, CameraPose, fit_pose, _occluders)))


def _absorb_short(path: CameraPath) -> CameraPath:
    """Pieces of the grammar's shots left shorter than its MIN_SHOT beside the shooting's inserts join
    the shot before them (the inserts keep their own rhythm, :data:`.archery_shots.MIN_CUT`)."""
    from .grammar import MIN_SHOT
    shots, moves = list(path.shots), list(path.moves)
    i = 0
    while i < len(shots):
        s = shots[i]
        if len(shots) > 1 and s.t1 - s.t0 < MIN_SHOT - 1e-6 and not s.kind.startswith("archery"):
            if i > 0:
                p = shots[i - 1]
                shots[i - 1] = Shot(p.t0, s.t1, p.pose, p.kind, p.events, p.people)
            else:
                n = shots[1]
                shots[1] = Shot(s.t0, n.t1, n.pose, n.kind, n.events, n.people)
                moves[1] = 0.0
            del shots[i], moves[i]
            continue
        i += 1
    # a pan goes on only from one stretch of a walk to the next; anything else is reached by a cut
    moves = [m if k and shots[k - 1].kind == shots[k].kind == "walk" else 0.0 for k, m in enumerate(moves)]
    return CameraPath(shots, moves)


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
