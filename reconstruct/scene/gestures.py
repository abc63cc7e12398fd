"""What the hands do: the plan's gestures (nock, draw, loose, raise the flag, lay a tally, drink …) as
arm, torso and head poses laid over a figure's posture.

Each gesture kind has a *target*: where the palms go, given in the torso's own frame (origin at the
waist joint, x = right, y = forward, z = up, after the torso's pitch and yaw), so that one target
serves a standing and a kneeling figure alike, with the torso's pitch and yaw and the head's pitch
and yaw.  The arm angles that put a palm on its target are found once per target by a small inverse
kinematics fit (scipy's least squares on the arm's own chain, with a hint where the elbow goes) and
cached.  A gesture eases in at its start and out after its end; a gesture followed at once by the
next of the same person hands over to it without dropping the arms between (nock → draw → loose).
Gestures whose pose changes as they go (the draw pulls the string back) have targets at a few
steps of their progress.

:func:`apply_gestures` lays the active gestures over joint parameters (:mod:`.poses`); the sampler
calls it, so the video and the glTF agree.
"""
from __future__ import annotations

import bisect
import json
import math
from dataclasses import dataclass, replace
from functools import lru_cache

import numpy as np
from scipy.optimize import least_squares
from scipy.spatial.transform import Rotation

from ..resources import ASSETS
from .figures import FOREARM, HAND, JOINT_OFFSET, UPPER_ARM

__all__ = ["Target", "TARGETS", "target_of", "REACH_KINDS", "arm_angles", "palm_in_torso", "GestureTimeline", "apply_gestures",
           "ATTACK", "RELEASE", "DRAW_PULL", "ARM_POSES", "every_target", "arm_keys", "solve_arm", "solved_table"]

ATTACK = 0.3            # s, the longest ease into a gesture
RELEASE = 0.45          # s, the ease out after it
DRAW_PULL = 0.70        # m, nock to bow hand at full draw
_STEPS = 6              # progress steps of a gesture whose target moves


@dataclass(frozen=True)
class Target:
    """A gesture's pose: palm positions in the torso frame (None: the arm as the posture has it), hints
    where the elbows go, the torso's and the head's pitch and yaw (None: as the posture has them)."""

    l: tuple[float, float, float] | None = None
    r: tuple[float, float, float] | None = None
    l_elbow: tuple[float, float, float] | None = None
    r_elbow: tuple[float, float, float] | None = None
    torso_pitch: float | None = None
    torso_yaw: float | None = None
    head_pitch: float | None = None
    head_yaw: float | None = None


def _lerp(a, b, u):
    if a is None or b is None:
        return b if a is None else a
    return tuple(float(x + (y - x) * u) for x, y in zip(a, b))


# the archer turns his left side to the target (torso yaw -60) and looks at it (head +58): down the
# range is then, in the torso frame, (-sin 60, cos 60)
_AIM = np.array([-math.sin(math.radians(60)), math.cos(math.radians(60)), 0.0])
_L_SHOULDER = np.array([-0.20, 0.0, 0.42])
_BOW_HAND = tuple(_L_SHOULDER + 0.57 * _AIM + [0.0, 0.0, 0.05])
_NOCK_FULL = tuple(np.asarray(_BOW_HAND) - DRAW_PULL * _AIM + [0.0, 0.0, 0.02])
_NOCK_START = tuple(np.asarray(_BOW_HAND) - 0.30 * _AIM)
_DRAW_ELBOW = (0.48, -0.16, 0.50)
_ARCHER = dict(torso_yaw=-60.0, head_yaw=58.0, torso_pitch=2.0, head_pitch=-2.0)

_HANDS_LOW = Target(l=(-0.09, 0.38, 0.02), r=(0.09, 0.38, 0.02), torso_pitch=32.0, head_pitch=12.0)
_HANDS_OUT = Target(l=(-0.08, 0.50, 0.16), r=(0.08, 0.50, 0.16), torso_pitch=6.0, head_pitch=4.0)
# the joined hands held out before the chest (推手: pushed forward) and drawn in to it (引手)
_PUSHED = ((-0.05, 0.54, 0.24), (0.05, 0.54, 0.24))
_DRAWN = ((-0.05, 0.16, 0.32), (0.05, 0.16, 0.32))
_TALLIES = Target(l=(-0.08, 0.40, 0.04), r=(0.08, 0.40, 0.04), torso_pitch=22.0, head_pitch=14.0)

TARGETS: dict[str, Target] = {
    "nock": Target(l=tuple(_L_SHOULDER + 0.45 * _AIM + [0.05, 0.0, -0.12]),
                   r=tuple(_L_SHOULDER + 0.20 * _AIM + [0.16, 0.04, -0.10]), r_elbow=(0.30, 0.10, 0.15),
                   **_ARCHER),
    "draw": Target(l=_BOW_HAND, r=_NOCK_FULL, r_elbow=_DRAW_ELBOW, **_ARCHER),
    "loose": Target(l=_BOW_HAND, r=tuple(np.asarray(_NOCK_FULL) + [0.16, -0.10, 0.02]), r_elbow=(0.50, -0.22, 0.48),
                    **_ARCHER),
    "hold_arrow": Target(l=(-0.16, 0.30, 0.10), r=(0.02, 0.30, 0.16)),
    "hold_with_bow": Target(l=(-0.16, 0.30, 0.12), r=(0.0, 0.30, 0.16)),
    "take_arrow": Target(r=(0.12, 0.40, -0.02), torso_pitch=16.0, head_pitch=10.0),
    "tuck_arrows": Target(r=(0.14, 0.16, -0.02), head_pitch=10.0),
    "point_arrow": Target(r=(0.16, 0.52, 0.30), head_pitch=-4.0),
    "raise_flag": Target(l=(-0.07, 0.14, 0.97), r=(0.02, 0.18, 0.76), torso_pitch=-4.0, head_pitch=-14.0),
    "lower_flag": Target(l=(-0.04, 0.34, 0.10), r=(0.04, 0.34, 0.0), torso_pitch=8.0, head_pitch=6.0),
    "call": Target(head_pitch=-12.0),
    "announce": Target(r=(0.18, 0.40, 0.30), head_pitch=-6.0),
    "lay_tally": Target(r=(0.16, 0.40, 0.0), torso_pitch=34.0, head_pitch=18.0),
    "take_tallies": _TALLIES, "fill_holder": _TALLIES, "return_tallies": _TALLIES,
    "count_arrows": _HANDS_LOW, "lay_arrows": _HANDS_LOW, "take": _HANDS_LOW, "set_down": _HANDS_LOW,
    "take_lung": _HANDS_LOW, "untie_arrows": _HANDS_LOW, "untie_rope": _HANDS_LOW, "tie_rope": _HANDS_LOW, "bind_arrows": _HANDS_LOW,
    "take_off_shoes": Target(l=(-0.10, 0.25, 0.0), r=(0.10, 0.25, 0.0), torso_pitch=50.0, head_pitch=14.0),
    "hand_over": _HANDS_OUT, "receive": _HANDS_OUT,
    "drink": Target(l=(-0.03, 0.17, 0.50), r=(0.03, 0.17, 0.50), l_elbow=(-0.26, 0.18, 0.30),
                    r_elbow=(0.26, 0.18, 0.30), head_pitch=-22.0, torso_pitch=-3.0),
    "sacrifice": Target(l=(-0.06, 0.32, 0.08), r=(0.12, 0.42, 0.05), torso_pitch=35.0, head_pitch=16.0),
    "pour": Target(l=(-0.06, 0.36, 0.04), r=(0.08, 0.40, 0.10), torso_pitch=10.0, head_pitch=12.0),
    "wash": Target(l=(-0.06, 0.38, 0.04), r=(0.06, 0.38, 0.04), torso_pitch=28.0, head_pitch=14.0),
    "bare": Target(r=(-0.16, 0.10, 0.36), head_pitch=8.0),
    "cover": Target(r=(-0.16, 0.10, 0.36), head_pitch=8.0),
    "gear_on": Target(l=(-0.10, 0.32, 0.10), r=(-0.06, 0.30, 0.14), head_pitch=14.0),
    "gear_off": Target(l=(-0.10, 0.32, 0.10), r=(-0.06, 0.30, 0.14), head_pitch=14.0),
    "string_bow": Target(l=(-0.22, 0.36, -0.02), r=(0.20, 0.36, 0.14), torso_pitch=14.0, head_pitch=10.0),
    "unstring_bow": Target(l=(-0.22, 0.36, -0.02), r=(0.20, 0.36, 0.14), torso_pitch=14.0, head_pitch=10.0),
    # 相工: the one who leads a blind musician holds him by the hand with his right, a step behind him
    "lead": Target(r=(0.30, -0.12, 0.04), r_elbow=(0.30, -0.02, 0.20)),
    "play": Target(l=(-0.16, 0.36, -0.04), r=(0.16, 0.38, -0.02), torso_pitch=12.0, head_pitch=10.0),
    # 揖 made as a gesture, not a posture (賈: 推手曰揖): the joined hands pushed forward, the head inclined
    "salute": Target(l=_PUSHED[0], r=_PUSHED[1], torso_pitch=10.0, head_pitch=8.0),
}

# gestures whose target moves as they go: progress u → target
_MOVING = {
    "draw": lambda u: Target(l=_BOW_HAND, r=_lerp(_NOCK_START, _NOCK_FULL, u), r_elbow=_DRAW_ELBOW, **_ARCHER),
    "draw_in": lambda u: _drawn_in(max(0.0, 1.5 * u - 0.5)),     # held out for the first third, then drawn in
}


def _drawn_in(w: float) -> Target:
    """厭 (鄭: 引手曰厭; 賈: 推手曰揖，引手曰厭), ``w`` of the way: the joined hands drawn from held out towards the
    breast, the body straightening, the head inclined to the ones bidden."""
    return Target(l=_lerp(_PUSHED[0], _DRAWN[0], w), r=_lerp(_PUSHED[1], _DRAWN[1], w),
                  torso_pitch=8.0 - 8.0 * w, head_pitch=8.0)


REACH_KINDS = ("hand_over", "receive")
# done with the right hand alone while the left holds a bow (鄭 on 立卒觶: 右手執觶，左手執弓)
RIGHT_HAND_WITH_BOW = frozenset({"drink"})


@lru_cache(maxsize=None)
def _reaching(reach: float, angle: float) -> Target:
    """Both hands held out ``reach`` m from the body towards ``angle`` degrees right of straight ahead
    (a hand-over: they meet the other's halfway)."""
    a = math.radians(angle)
    d = np.array([math.sin(a), math.cos(a)])
    side = np.array([d[1], -d[0]]) * 0.07
    l, r = d * reach - side, d * reach + side
    return Target(l=(float(l[0]), float(l[1]), 0.16), r=(float(r[0]), float(r[1]), 0.16), torso_pitch=6.0,
                  head_pitch=4.0)


def target_of(kind: str, u: float = 1.0, reach: tuple[float, float] | None = None) -> Target | None:
    """The target of a gesture kind at progress ``u`` (None for a kind that moves no limb); a hand-over
    to someone (``reach``: half the distance between the two, and his bearing from straight ahead in
    degrees) holds the hands out that far towards him."""
    if reach is not None and kind in REACH_KINDS:
        dist, angle = reach
        return _reaching(round(min(0.5, max(0.2, dist)) * 20) / 20, round(min(70.0, max(-70.0, angle)) / 10) * 10)
    if kind in _MOVING:
        return _moving_target(kind, round(min(1.0, max(0.0, u)) * _STEPS) / _STEPS)
    return TARGETS.get(kind)


@lru_cache(maxsize=None)
def _moving_target(kind: str, u: float) -> Target:
    return _MOVING[kind](u)


# ---------------------------------------------------------------------------
# the arm's chain in the torso frame (as :func:`.poses.local_transforms` builds it)

def _arm_points(side: str, angles) -> tuple[np.ndarray, np.ndarray]:
    """Palm and elbow of one arm in the torso frame for (raise, abd, yaw, elbow) in degrees."""
    raise_, abd, yaw, elbow = angles
    sign = -1.0 if side == "l" else 1.0
    R = Rotation.from_euler("ZXY", [sign * yaw, raise_, -sign * abd], degrees=True).as_matrix()
    E = Rotation.from_euler("x", elbow, degrees=True).as_matrix()
    shoulder = JOINT_OFFSET[f"{side}_upper_arm"]
    elbow_p = shoulder + R @ np.array([0.0, 0.0, -UPPER_ARM])
    palm = elbow_p + R @ E @ np.array([0.0, 0.02, -FOREARM - HAND / 2])
    return palm, elbow_p


def palm_in_torso(side: str, angles) -> np.ndarray:
    """Where a palm is in the torso frame for the arm angles (raise, abd, yaw, elbow)."""
    return _arm_points(side, angles)[0]


_LO = np.array([-60.0, -30.0, -120.0, 0.0])
_HI = np.array([185.0, 130.0, 120.0, 155.0])
_REST = np.array([24.0, 10.0, 31.0, 62.0])


@lru_cache(maxsize=None)
def arm_angles(side: str, palm: tuple, elbow_hint: tuple | None = None) -> tuple[float, float, float, float]:
    """(raise, abd, yaw, elbow) that put a palm at ``palm`` (torso frame), the elbow near ``elbow_hint``: read
    from the shipped table of every target's solution (:data:`ARM_POSES`), solved for any other palm."""
    key = (side, tuple(float(v) for v in palm), None if elbow_hint is None else tuple(float(v) for v in elbow_hint))
    known = _table().get(key)
    return known if known is not None else solve_arm(side, palm, elbow_hint)


def solve_arm(side: str, palm: tuple, elbow_hint: tuple | None = None) -> tuple[float, float, float, float]:
    """The inverse kinematics fit itself (least squares from three starts, the best kept)."""
    goal = np.asarray(palm, float)
    hint = None if elbow_hint is None else np.asarray(elbow_hint, float)

    def residual(x):
        p, e = _arm_points(side, x)
        r = [(p - goal) * 20.0, (x - _REST) / 400.0]
        if hint is not None:
            r.append((e - hint) * 3.0)
        return np.concatenate(r)

    best = None
    for x0 in (_REST, np.array([80.0, 20.0, 0.0, 30.0]), np.array([60.0, 60.0, -60.0, 110.0])):
        res = least_squares(residual, np.clip(x0, _LO + 1e-6, _HI - 1e-6), bounds=(_LO, _HI), xtol=1e-8)
        if best is None or res.cost < best.cost:
            best = res
    return tuple(float(v) for v in best.x)


# every target's arm angles, solved once by ``tools/make_arm_poses.py`` (solved_table) and shipped with the code:
# each process used to solve them again (about 300 fits, a third of a GLB export); tests/test_scene_gestures.py
# checks that the table holds exactly the keys of :func:`every_target` and agrees with a fresh fit
ARM_POSES = ASSETS / "arm_poses.json"


@lru_cache(maxsize=1)
def _table() -> dict[tuple, tuple[float, float, float, float]]:
    try:
        rows = json.loads(ARM_POSES.read_text(encoding="utf-8"))["poses"]
    except FileNotFoundError:
        return {}
    return {(side, tuple(palm), None if hint is None else tuple(hint)): tuple(angles)
            for side, palm, hint, angles in rows}


def every_target() -> list[Target]:
    """Every target :func:`target_of` can give: the fixed ones, the moving ones at each step, the hand-overs at
    each rounded reach and bearing (left-hand-free variants only drop the left arm)."""
    out = list(TARGETS.values())
    out += [_moving_target(kind, k / _STEPS) for kind in _MOVING for k in range(_STEPS + 1)]
    out += [_reaching(k / 20, a) for k in range(4, 11) for a in range(-70, 71, 10)]
    return out


def arm_keys(target: Target) -> list[tuple[str, tuple, tuple | None]]:
    """The (side, palm, elbow hint) fits a target asks :func:`arm_angles` for (the palm rounded to 0.1 mm)."""
    return [(side, tuple(round(float(v), 4) for v in getattr(target, side)), getattr(target, f"{side}_elbow"))
            for side in "lr" if getattr(target, side) is not None]


def solved_table() -> dict:
    """The table of :data:`ARM_POSES`, solved afresh: every key of every target, in a stable order."""
    keys = sorted({k for tg in every_target() for k in arm_keys(tg)}, key=repr)
    return {"about": "arm angles (raise, abd, yaw, elbow; degrees) of every gesture target, by side, palm (torso "
                     "frame, m) and elbow hint; made by tools/make_arm_poses.py from reconstruct.scene.gestures",
            "poses": [[side, list(palm), None if hint is None else list(hint), list(solve_arm(side, palm, hint))]
                      for side, palm, hint in keys]}


def target_params(target: Target) -> dict[str, float]:
    """The joint parameters a target sets (only those)."""
    out: dict[str, float] = {}
    for side, palm, hint in arm_keys(target):
        for k, v in zip(("raise", "abd", "yaw", "elbow"), arm_angles(side, palm, hint)):
            out[f"{side}_{k}"] = v
    for k in ("torso_pitch", "torso_yaw", "head_pitch", "head_yaw"):
        v = getattr(target, k)
        if v is not None:
            out[k] = float(v)
    return out


# ---------------------------------------------------------------------------
# timing

def _smooth(u: float) -> float:
    u = min(1.0, max(0.0, u))
    return u * u * (3 - 2 * u)


class GestureTimeline:
    """One person's gestures, for looking up which act at a time and how strongly."""

    def __init__(self, gestures):
        self.g = sorted(gestures, key=lambda g: (g.t0, g.t1))
        self.t0 = [g.t0 for g in self.g]
        self.longest = max((g.t1 - g.t0 for g in self.g), default=0.0)

    @staticmethod
    def attack(g) -> float:
        return max(0.02, min(ATTACK, 0.4 * (g.t1 - g.t0)))

    def active(self, t: float) -> list[tuple[object, float, float]]:
        """[(gesture, progress u, weight w)] acting at ``t``, in order of their start."""
        if not self.g:
            return []
        hi = bisect.bisect_right(self.t0, t)
        lo = bisect.bisect_left(self.t0, t - self.longest - RELEASE - 2 * ATTACK)
        out = []
        for i in range(lo, hi):
            g = self.g[i]
            w = self._weight(i, t)
            if w > 0.0:
                dur = g.t1 - g.t0
                out.append((g, 1.0 if dur <= 0 else min(1.0, (t - g.t0) / dur), w))
        return out

    def _weight(self, i: int, t: float) -> float:
        g = self.g[i]
        w_in = _smooth((t - g.t0) / self.attack(g))
        if t <= g.t1:
            return w_in
        # the next gesture of the same person that starts soon after this one ends takes over from it
        nxt = next((h for h in self.g[i + 1:] if h.t0 >= g.t1 - 1e-6 and h.t0 > g.t0 and target_of(h.kind)), None)
        if nxt is not None and nxt.t0 <= g.t1 + RELEASE:
            if t <= nxt.t0:
                return w_in
            return w_in * (1.0 - _smooth((t - nxt.t0) / self.attack(nxt)))
        return w_in * (1.0 - _smooth((t - g.t1) / RELEASE))


def apply_gestures(params: dict[str, float], active, reach: dict | None = None,
                   left_busy: bool = False) -> dict[str, float]:
    """``params`` with the active gestures ([(gesture, u, w)] from :meth:`GestureTimeline.active`) laid
    over them, each blended in by its weight, later ones over earlier ones (``reach``: gesture → how far
    the hands go out to meet another's, for hand-overs).  ``left_busy``: the left hand holds a bow, so a
    cup is drunk from the right hand alone (鄭 on 立卒觶: 右手執觶，左手執弓)."""
    if not active:
        return params
    p = dict(params)
    for g, u, w in active:
        tg = target_of(g.kind, u, (reach or {}).get(g))
        if tg is None:
            continue
        for k, v in _target_params_of(tg, left_busy and g.kind in RIGHT_HAND_WITH_BOW).items():
            p[k] = p[k] * (1.0 - w) + v * w
    return p


@lru_cache(maxsize=4096)
def _target_params_of(tg: Target, right_hand_only: bool) -> dict[str, float]:
    """:func:`target_params` of a target (without its left arm: ``right_hand_only``), worked out once per target
    (read only: the same dict is returned each time)."""
    return target_params(replace(tg, l=None, l_elbow=None) if right_hand_only else tg)
