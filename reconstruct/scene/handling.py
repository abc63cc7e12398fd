"""Where things go while hands work with them: the bow aimed and its string drawn to the hand, the
arrow on the string, arrows tucked in the belt (搢), a tally laid from the right hand, props lying
(a tally at rest lies along its heading, an arrow in flight points along its arc).

World 4x4 matrices from a posed figure (``world`` from :func:`.poses.world_transforms`) and its
active gestures (``state["gestures"]`` of :meth:`.sampler.PlanSampler.actor_pose`).
"""
from __future__ import annotations

from functools import lru_cache

import numpy as np
from scipy.spatial.transform import Rotation

from .figures import FigureGeometry, _flatten, _rx, _rz, _t, _tube, hand_position
from .props import CUPS, _bow, held_prop_transform, prop_kind

__all__ = ["AIMING", "aiming", "unstrung_bow_matrix", "flag_in_hands", "flag_lean", "FLAG_LOWERED", "bow_geometry", "bow_pose", "string_matrices", "arrow_on_string", "tucked_arrow",
           "tally_in_hand", "resting_prop", "segment_matrix", "acting_on", "held_matrix", "held_reading", "pose_held"]

AIMING = ("nock", "draw", "loose")
BOW_TIP = 0.78           # m, grip to each tip along the bow (local z)
GRIP_Y = 0.16            # the grip's local y on the strung bow (the limbs bend towards +y)
STRING_Y = -0.03         # the braced string's local y
_STRING = (0.85, 0.82, 0.72)


@lru_cache(maxsize=None)
def bow_geometry() -> FigureGeometry:
    """A strung bow as three parts: the bow itself (no string), and the string's upper and lower
    halves as unit segments along z (:func:`segment_matrix` stretches each from a tip to the nock)."""
    body = _bow(True, with_string=False)
    seg = _tube([(0, 0, 0), (0, 0, 1.0)], 0.004, _STRING, 3)
    return _flatten([("弓", body), ("弓:string_hi", seg), ("弓:string_lo", seg.copy())])


def segment_matrix(a, b) -> np.ndarray:
    """A 4x4 taking the unit segment (0,0,0)–(0,0,1) to a–b without thickening it."""
    a, b = np.asarray(a, float), np.asarray(b, float)
    d = b - a
    n = np.linalg.norm(d)
    z = d / n if n > 1e-9 else np.array([0.0, 0.0, 1.0])
    ref = np.array([1.0, 0.0, 0.0]) if abs(z[0]) < 0.9 else np.array([0.0, 1.0, 0.0])
    x = np.cross(ref, z)
    x /= np.linalg.norm(x)
    y = np.cross(z, x)
    M = np.eye(4)
    M[:3, 0], M[:3, 1], M[:3, 2], M[:3, 3] = x, y, d, a
    return M


def aiming(gestures) -> tuple | None:
    """The aiming gesture (nock, draw or loose) that holds the bow up, if one does."""
    for g in reversed(gestures or ()):
        if g[0] in AIMING and g[3] >= 0.5:
            return g
    return None


def acting_on(gestures, kinds) -> str | None:
    """The object of the strongest gesture of the given kinds (weight ≥ 0.5)."""
    for g in reversed(gestures or ()):
        if g[0] in kinds and g[3] >= 0.5:
            return g[1]
    return None


def _frame(forward: np.ndarray) -> np.ndarray:
    """A rotation with local y along ``forward`` (made horizontal-ish) and local z up."""
    f = np.asarray(forward, float)
    f = f / (np.linalg.norm(f) or 1.0)
    x = np.cross(f, [0.0, 0.0, 1.0])
    x /= np.linalg.norm(x) or 1.0
    z = np.cross(x, f)
    return np.column_stack([x, f, z])


def bow_pose(world: dict, heading_deg: float, gestures) -> tuple[np.ndarray, np.ndarray]:
    """World 4x4 of a strung bow in the left hand and where its string is pulled to (its middle).

    Aiming (nock, draw, loose), the bow stands upright in the plane of the shot, the grip in the
    hand; at the draw the string's middle is in the right hand.  Otherwise the bow hangs at the
    left side as :func:`.props.held_prop_transform` holds it, the string braced.
    """
    lh, rh = hand_position(world, "l"), hand_position(world, "r")
    yaw = _rz(-heading_deg)
    g = aiming(gestures)
    if g is None:
        M = _t(lh) @ yaw @ _rz(90)
        return M, (M @ np.array([0.0, STRING_Y, 0.0, 1.0]))[:3]
    forward = lh - rh if g[0] == "draw" else yaw[:3, :3] @ np.array([0.0, 1.0, 0.0])
    forward = forward * [1.0, 1.0, 0.3]
    R = _frame(forward)
    M = np.eye(4)
    M[:3, :3] = R
    M[:3, 3] = lh - R[:, 1] * GRIP_Y
    rest = (M @ np.array([0.0, STRING_Y, 0.0, 1.0]))[:3]
    if g[0] == "draw" and np.dot(rh - rest, R[:, 1]) < 0:
        return M, rh
    return M, rest


def string_matrices(M_bow: np.ndarray, mid) -> tuple[np.ndarray, np.ndarray]:
    """The two halves of the string from the bow's tips to ``mid``."""
    hi = (M_bow @ np.array([0.0, STRING_Y, BOW_TIP, 1.0]))[:3]
    lo = (M_bow @ np.array([0.0, STRING_Y, -BOW_TIP, 1.0]))[:3]
    return segment_matrix(hi, mid), segment_matrix(lo, mid)


def arrow_on_string(M_bow: np.ndarray, mid) -> np.ndarray:
    """An arrow nocked on the string at ``mid``, along the bow's plane past the grip."""
    f = M_bow[:3, 1]
    grip = M_bow[:3, 3] + f * GRIP_Y
    d = grip - np.asarray(mid, float)
    d = d / (np.linalg.norm(d) or 1.0)
    M = np.eye(4)
    M[:3, :3] = _frame(d)
    M[:3, 3] = np.asarray(mid, float) + d * 0.36
    return M


def tucked_arrow(world: dict, index: int) -> np.ndarray:
    """An arrow in the belt at the right hip (搢), slanting up behind the right shoulder."""
    return world["pelvis"] @ _t((0.15 + 0.012 * index, 0.02 - 0.015 * index, 0.30)) @ _rz(12) @ _rx(72)


FLAG_LOWERED = 55.0     # degrees the flag leans forward when lowered (偃旌)


def flag_in_hands(world: dict, heading_deg: float, lean: float) -> np.ndarray:
    """The 旌 gripped a metre up its pole in both hands, leaning ``lean`` degrees forward."""
    both = (hand_position(world, "l") + hand_position(world, "r")) / 2
    return _t(both) @ _rz(-heading_deg) @ _rx(-lean) @ _t((0.0, 0.0, -1.0))


def flag_lean(last, t: float) -> float:
    """How far the flag leans at ``t`` after the last raise or lower (``last``: that gesture or None):
    upright once raised (举旌), leaning forward as it is lowered and after (偃旌)."""
    if last is None:
        return 0.0
    if last.kind == "raise_flag":
        return FLAG_LOWERED * (1.0 - min(1.0, max(0.0, (t - last.t0) / max(1e-6, last.t1 - last.t0))))
    u = min(1.0, max(0.0, (t - last.t0) / max(1e-6, last.t1 - last.t0)))
    return FLAG_LOWERED * u * u * (3 - 2 * u)


def tally_in_hand(world: dict, heading_deg: float) -> np.ndarray:
    """A tally held in the right hand, lying along the way the figure faces (as it will be laid)."""
    return _t(hand_position(world, "r")) @ _rz(-heading_deg) @ _rx(-90) @ _t((0.0, 0.0, -0.15))


def resting_prop(pid: str, motion, t: float, xyz, heading_deg: float, i: int | None = None) -> np.ndarray:
    """World 4x4 of a prop nobody carries: a tally at rest lies along its heading (90 = east–west),
    an arrow in flight points along its arc; anything else stands as it is placed.  ``i``: the key
    ``t`` follows on the prop's track (found when not given)."""
    k = prop_kind(pid)
    M = _t(xyz) @ _rz(-heading_deg)
    if k not in ("算", "矢"):
        return M
    if i is None:
        i = int(motion.track.segment([t])[0][0])
    post = str(motion.track.posture[i])
    if k == "算":
        if post != "upright":
            return M @ _t((0.0, 0.0, 0.006)) @ _rx(-90) @ _t((0.0, 0.0, -0.15))
        return M
    if post == "flight":
        a, _, _, _ = motion.position(t - 0.02)
        b, _, _, _ = motion.position(t + 0.02)
        d = b - a
        if np.linalg.norm(d) > 1e-6:
            M = np.eye(4)
            M[:3, :3] = _frame(d)
            M[:3, 3] = xyz
    return M


# the bow's length (local z) along the figure's side-to-side axis: +90° about y
_BOW_ACROSS = Rotation.from_euler("y", 90, degrees=True)


def unstrung_bow_matrix(world: dict, heading_deg: float, holding=()) -> np.ndarray:
    """World 4x4 of an unstrung bow, its length side to side: lying across both palms as it is carried
    (卻左手，右加弛弓于其上，遂以執弣), or across the left palm alone while the right hand holds a cup
    (鄭 on 立卒觶: 右手執觶，左手執弓)."""
    lh = hand_position(world, "l")
    with_cup = any(prop_kind(h) in CUPS for h in holding)
    at = lh if with_cup else (lh + hand_position(world, "r")) / 2
    M = np.eye(4)
    M[:3, :3] = (Rotation.from_euler("z", -heading_deg, degrees=True) * _BOW_ACROSS).as_matrix()
    M[:3, 3] = at + np.array([0, 0, 0.03])
    return M


def held_reading(sampler, ident: str, holder: str, gestures, tucked: dict, t: float, is_prop: bool = True):
    """What the pose of a thing in ``holder``'s hands reads of the time ``t`` beyond his pose and gestures:
    for an arrow tucked in the belt its place among his tucked arrows (counted in ``tucked``, the holder's
    tucked arrows posed so far at ``t``), for the flag its lean; else None."""
    name = ident.split(":")[-1]
    pk = prop_kind(name)
    if pk == "矢" and is_prop and acting_on(gestures, ("nock", "draw")) != name \
            and str(sampler.props[ident].track.posture_at([t])[0]) == "tucked":
        tucked[holder] = tucked.get(holder, -1) + 1
        return tucked[holder]
    if pk == "旌":
        return flag_lean(sampler.last_gesture(holder, t, ("raise_flag", "lower_flag")), t)
    return None


def pose_held(ident: str, world: dict, heading_deg: float, gestures, others, reading, is_prop: bool = True,
              strings: bool = True) -> tuple[np.ndarray, tuple | None]:
    """(world 4x4, the string's halves or None) of a thing held, from the holder's pose, his gestures, what
    else he holds and :func:`held_reading` (``reading``)."""
    name = ident.split(":")[-1]
    pk = prop_kind(name)
    if pk == "弓":
        M, mid = bow_pose(world, heading_deg, gestures)
        return M, string_matrices(M, mid) if strings else None
    if pk == "矢":
        if acting_on(gestures, ("nock", "draw")) == name:
            return arrow_on_string(*bow_pose(world, heading_deg, gestures)), None
        if reading is not None:
            return tucked_arrow(world, reading), None
    if pk == "旌":
        return flag_in_hands(world, heading_deg, reading), None
    if pk == "算" and acting_on(gestures, ("lay_tally",)) == name:
        return tally_in_hand(world, heading_deg), None
    return held_prop_transform(ident if is_prop else name, world, heading_deg, others), None


def held_matrix(sampler, ident: str, holder: str, world: dict, heading_deg: float, gestures, others, tucked: dict,
                t: float, is_prop: bool = True, strings: bool = True) -> tuple[np.ndarray, tuple | None]:
    """(world 4x4, the string's halves or None) of a thing in ``holder``'s hands at ``t``, as the video and
    the rigged GLB pose it: the bow aimed or at the left side, the arrow on the string while nocked and
    drawn, tucked in the belt (``tucked`` counts the holder's tucked arrows posed so far at ``t``), the
    flag raised or lowered, the tally being laid, anything else as :func:`.props.held_prop_transform`
    holds it.  ``ident``: a prop id, or ``"actor:thing"`` for a thing held by state (``is_prop`` False);
    ``others``: what else the holder holds; ``gestures``: his active gestures (``state["gestures"]``);
    ``strings``: False leaves the string's halves out (None)."""
    reading = held_reading(sampler, ident, holder, gestures, tucked, t, is_prop)
    return pose_held(ident, world, heading_deg, gestures, others, reading, is_prop, strings)
