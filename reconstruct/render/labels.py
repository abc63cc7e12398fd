"""Name tags over heads: short names, greedy placement with leader lines (numpy, no PIL)."""
from __future__ import annotations

import math

import numpy as np

from . import captions as C

__all__ = ["short_name", "place_labels"]

_SHORTEN = ((" of the body of guests", ""), ("first pair, ", "pair 1, "), ("second pair, ", "pair 2, "),
            ("third pair, ", "pair 3, "), ("mouth-organ player", "mouth-organ"))


def short_name(aid: str, label: str | None = None) -> str:
    """A short tag for an actor: its id (Chinese) and the English label without parentheses."""
    en = (label or "").split(" (")[0].strip()
    for a, b in _SHORTEN:
        en = en.replace(a, b)
    if not en or en == aid:
        return aid
    return f"{aid} {en}"


def place_labels(frame: np.ndarray, anchors: list[tuple[str, float, float, float]], font_px: int,
                 bottom: int | None = None, avoid: list[tuple[float, float, float, float]] = ()) -> list:
    """Greedy label placement: each anchor ``(text, x, y, priority)`` (x, y: the top of a head) gets a
    tag at the first free spot among a few candidates around and above it, inside the frame and
    above ``bottom``; a leader line joins tag and head when the tag sits away from it.  Tags that
    find no room are dropped.  Returns the placed rectangles [(x0, y0, x1, y1, text)]."""
    h, w = frame.shape[:2]
    bottom = h if bottom is None else bottom
    placed: list[tuple[float, float, float, float]] = list(avoid)
    heads = [(x, y) for _, x, y, _ in anchors]
    out = []
    for text, x, y, _ in sorted(anchors, key=lambda a: -a[3]):
        if not (0 <= x < w and 0 <= y < bottom):
            continue
        spr = C.label_sprite(text, font_px)
        sh, sw = spr.shape[:2]
        g = max(4, font_px // 2)
        cands = [(x - sw / 2, y - g - sh), (x + g, y - g - sh), (x - sw - g, y - g - sh),
                 (x - sw / 2, y - 2.6 * g - 2 * sh), (x + g, y - 2.6 * g - 2 * sh), (x - sw - g, y - 2.6 * g - 2 * sh),
                 (x + 2 * g, y - sh / 2), (x - sw - 2 * g, y - sh / 2),
                 (x - sw / 2, y - 4 * g - 3 * sh)]
        for cx, cy in cands:
            r = (cx, cy, cx + sw, cy + sh)
            if r[0] < 2 or r[1] < 2 or r[2] > w - 2 or r[3] > bottom - 2:
                continue
            if any(r[0] < q[2] + 3 and q[0] < r[2] + 3 and r[1] < q[3] + 3 and q[1] < r[3] + 3 for q in placed):
                continue
            # do not cover another person's head
            if any(r[0] - 2 < hx < r[2] + 2 and r[1] - 2 < hy < r[3] + 6 and (hx, hy) != (x, y) for hx, hy in heads):
                continue
            placed.append(r)
            # leader from the head to the tag's nearest point
            nx = min(max(x, r[0]), r[2])
            ny = min(max(y, r[1]), r[3])
            if math.hypot(nx - x, ny - y) > g * 0.9:
                _line(frame, x, y - 1, nx, ny)
            C.blit_rgba(frame, spr, (r[0] + r[2]) / 2, r[3])
            out.append((*r, text))
            break
    return out


def _line(frame: np.ndarray, x0: float, y0: float, x1: float, y1: float, color=(250, 244, 230)) -> None:
    """A thin light leader line with a dark edge (numpy, no PIL)."""
    n = int(max(abs(x1 - x0), abs(y1 - y0))) + 1
    xs = np.linspace(x0, x1, n)
    ys = np.linspace(y0, y1, n)
    h, w = frame.shape[:2]
    for dx, dy, col in ((1, 1, (25, 20, 15)), (0, 0, color)):
        xi = np.clip(np.round(xs + dx).astype(int), 0, w - 1)
        yi = np.clip(np.round(ys + dy).astype(int), 0, h - 1)
        frame[yi, xi] = col
    # a dot on the head
    yi, xi = int(round(y0)), int(round(x0))
    frame[max(0, yi - 1):yi + 2, max(0, xi - 1):xi + 2] = color
