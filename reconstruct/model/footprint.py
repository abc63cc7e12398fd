"""How much ground a person takes: the footprint of each posture, as the figures are drawn.

A person's footprint is the outline, seen from above, of his figure posed in a posture at every
phase of it (the gait's strides, the bow's way down and up), bared arm and archer's gear or not, by
what his hands hold: nothing (or a 扑), a thing before the chest in both hands (a cup, a dish, the
旌), or a bow in the left hand (it reaches out forward and to the left).  The outlines are convex
polygons in the person's own frame: x to his right, y forward, metres, centred where the plan puts him.  They are
measured from the figures of :mod:`reconstruct.scene.figures`, every role at once, and
``tests/test_model_footprint.py`` fails (printing the new outlines) when a figure pokes out of them.

How the planner uses them: two standing side by side need 0.64 m between centres (:func:`clearance`),
one behind the other 0.62 m, face to face with their hands joined before them 0.82 m, and a kneeling
musician's narrow back lets one pass 0.51 m behind him.  The planner keeps one gap between any two
people (``Occupancy.GAP`` = 0.6 m: side by side less the outlines' 0.022 m margin on each side), plus how
far a bowing figure reaches beyond a standing one (``Body.beyond``); before a bow (揖, 拜) it steps back
or aside until the bowing outline clears the outlines of those near (``Courtesy._room_to_bow``).
"""
from __future__ import annotations

import numpy as np

from .vocabulary import Posture, PropKind

__all__ = ["POSTURES", "HOLDS", "TWO_HANDED", "CUPS", "OUTLINES", "code", "hold_of", "reach", "clearance", "reach_max"]

POSTURES: tuple[str, ...] = tuple(Posture)
# what the hands hold, as it changes the outline: nothing (or a small thing in one hand: a 扑, arrows),
# a thing held before the chest in both hands, a bow in the left hand
HOLDS: tuple[str, ...] = ("plain", "both_hands", "bow")
# the kinds of things held in both hands (the figures hold them before the chest)
K = PropKind
TWO_HANDED = frozenset({K.觯, K.爵, K.丰, K.荐, K.俎, K.瑟, K.旌, K.算, K.幂})
# the cups: held in both hands, or in the right alone while the left holds a bow (鄭 on 立卒觶)
CUPS = frozenset({K.觯, K.爵})
del K

# (posture, what the hands hold) → the outline's corners (x to the right, y forward), clockwise
OUTLINES: dict[tuple[str, str], tuple[tuple[float, float], ...]] = {
    ("stand", "plain"): ((+0.00, -0.21), (-0.15, -0.17), (-0.31, -0.04), (-0.32, +0.01), (-0.19, +0.28), (-0.05, +0.35), (+0.05, +0.35), (+0.18, +0.29), (+0.32, +0.02), (+0.31, -0.04), (+0.15, -0.17)),
    ("walk", "plain"): ((-0.09, -0.33), (-0.14, -0.29), (-0.33, +0.03), (-0.19, +0.30), (-0.06, +0.36), (+0.06, +0.36), (+0.20, +0.29), (+0.33, +0.02), (+0.10, -0.33)),
    ("kneel", "plain"): ((+0.00, -0.35), (-0.09, -0.34), (-0.27, -0.24), (-0.30, -0.06), (-0.23, +0.23), (-0.09, +0.33), (-0.00, +0.35), (+0.09, +0.33), (+0.23, +0.23), (+0.30, -0.06), (+0.27, -0.24)),
    ("bow", "plain"): ((+0.00, -0.26), (-0.15, -0.22), (-0.21, -0.17), (-0.29, -0.00), (-0.30, +0.18), (-0.06, +0.64), (+0.04, +0.65), (+0.29, +0.22), (+0.30, +0.01), (+0.20, -0.18)),
    ("kneel_bow", "plain"): ((+0.00, -0.40), (-0.17, -0.33), (-0.29, -0.14), (-0.29, +0.29), (-0.02, +0.62), (+0.04, +0.61), (+0.29, +0.28), (+0.29, -0.15), (+0.17, -0.33)),
    ("stand", "both_hands"): ((+0.00, -0.21), (-0.08, -0.20), (-0.20, -0.13), (-0.28, -0.05), (-0.30, +0.05), (-0.18, +0.31), (-0.04, +0.38), (+0.03, +0.38), (+0.18, +0.31), (+0.30, +0.04), (+0.28, -0.05), (+0.20, -0.13)),
    ("walk", "both_hands"): ((-0.09, -0.33), (-0.14, -0.29), (-0.29, -0.03), (-0.31, +0.06), (-0.17, +0.33), (-0.05, +0.39), (+0.04, +0.39), (+0.18, +0.32), (+0.30, +0.10), (+0.31, +0.01), (+0.14, -0.30), (+0.09, -0.33)),
    ("kneel", "both_hands"): ((+0.00, -0.35), (-0.25, -0.25), (-0.30, -0.12), (-0.23, +0.21), (-0.09, +0.33), (-0.00, +0.35), (+0.09, +0.33), (+0.23, +0.21), (+0.30, -0.12), (+0.25, -0.25)),
    ("bow", "both_hands"): ((+0.00, -0.26), (-0.15, -0.22), (-0.21, -0.17), (-0.29, -0.00), (-0.30, +0.18), (-0.06, +0.64), (+0.04, +0.65), (+0.29, +0.22), (+0.30, +0.01), (+0.20, -0.18)),
    ("kneel_bow", "both_hands"): ((+0.00, -0.40), (-0.17, -0.33), (-0.29, -0.14), (-0.29, +0.29), (-0.02, +0.62), (+0.04, +0.61), (+0.29, +0.28), (+0.29, -0.15), (+0.17, -0.33)),
    ("stand", "bow"): ((+0.00, -0.21), (-0.15, -0.17), (-0.32, -0.01), (-0.33, +0.24), (-0.23, +0.35), (+0.05, +0.35), (+0.18, +0.29), (+0.31, +0.06), (+0.32, +0.01), (+0.28, -0.07), (+0.15, -0.17)),
    ("walk", "bow"): ((-0.09, -0.33), (-0.33, +0.00), (-0.33, +0.24), (-0.22, +0.35), (+0.06, +0.36), (+0.20, +0.29), (+0.33, +0.02), (+0.10, -0.33)),
    ("kneel", "bow"): ((+0.00, -0.35), (-0.09, -0.34), (-0.25, -0.24), (-0.32, -0.18), (-0.33, -0.13), (-0.33, +0.08), (-0.17, +0.29), (-0.00, +0.35), (+0.09, +0.33), (+0.23, +0.23), (+0.30, -0.06), (+0.27, -0.24)),
    ("bow", "bow"): ((+0.00, -0.26), (-0.15, -0.22), (-0.21, -0.17), (-0.29, -0.00), (-0.30, +0.18), (-0.06, +0.64), (+0.04, +0.65), (+0.29, +0.22), (+0.30, +0.01), (+0.20, -0.18)),
    ("kneel_bow", "bow"): ((+0.00, -0.40), (-0.17, -0.33), (-0.29, -0.14), (-0.29, +0.29), (-0.02, +0.62), (+0.04, +0.61), (+0.29, +0.28), (+0.29, -0.15), (+0.17, -0.33)),
}

_K = max(len(v) for v in OUTLINES.values())
# (code, corner, xy): each outline padded with its first corner to the same number of corners
_CORNERS = np.array([list(OUTLINES[(p, h)]) + [OUTLINES[(p, h)][0]] * (_K - len(OUTLINES[(p, h)]))
                     for h in HOLDS for p in POSTURES], float)
_REACH_MAX = np.hypot(_CORNERS[..., 0], _CORNERS[..., 1]).max(axis=1)
N = len(POSTURES)             # codes: posture + N · hold


def hold_of(kinds, unstrung: bool = False) -> str:
    """What the hands hold, from the kinds of the things held, as the figures pose it: a thing in both
    hands before all (an unstrung bow lies across both palms), else a bow, else nothing."""
    kinds = set(kinds)
    if kinds & TWO_HANDED or (PropKind.弓 in kinds and unstrung):
        return "both_hands"
    return "bow" if PropKind.弓 in kinds else "plain"


def code(posture: str, hold: str = "plain") -> int:
    """The number of an outline: a posture (postures not drawn apart stand) and what the hands hold."""
    i = POSTURES.index(posture) if posture in POSTURES else 0
    return i + N * HOLDS.index(hold)


def reach(codes, headings, ux, uy) -> np.ndarray:
    """How far each person's outline reaches from his centre towards the unit direction (ux, uy): the
    support of the outline (arrays broadcast together; headings in compass degrees)."""
    codes = np.asarray(codes, int)
    h = np.radians(np.asarray(headings, float))
    sh, ch = np.sin(h), np.cos(h)
    # the direction in his own frame: to his right (east when he faces north), forward
    right = ux * ch - uy * sh
    fwd = ux * sh + uy * ch
    c = _CORNERS[codes]                                   # (..., K, 2)
    return (c[..., 0] * np.asarray(right)[..., None] + c[..., 1] * np.asarray(fwd)[..., None]).max(axis=-1)


def clearance(code_a, heading_a, code_b, heading_b, dx, dy) -> np.ndarray:
    """The distance between two people's centres at which their outlines just touch along the line from
    a to b = a + (dx, dy): more than this apart, they are clear of each other (the outlines' shadows on
    that line do not overlap).  Where the centres coincide, the larger of the two reaches."""
    dx, dy = np.asarray(dx, float), np.asarray(dy, float)
    d = np.hypot(dx, dy)
    safe = np.where(d > 1e-9, d, 1.0)
    ux, uy = np.where(d > 1e-9, dx / safe, 1.0), np.where(d > 1e-9, dy / safe, 0.0)
    return reach(code_a, heading_a, ux, uy) + reach(code_b, heading_b, -ux, -uy)


def reach_max(codes) -> np.ndarray:
    """The farthest any point of each outline lies from its centre (whichever way he faces)."""
    return _REACH_MAX[np.asarray(codes, int)]
