"""The inset map: a small plan of the ground in a corner of the frame, with a dot for every person,
shown while someone walks a long way (instead of a distant plan view of the whole ground).

North is up.  The map's background (the hall, the gate, the range with the 侯, the 乏 and the 中) is
drawn once with PIL; per frame only the dots are drawn, in numpy.  Those who act are drawn larger
and ringed in the accent colour.
"""
from __future__ import annotations

import numpy as np
from PIL import Image, ImageDraw

from . import captions as C
from ..model.plan import Plan

__all__ = ["InsetMap"]

_PAPER = (34, 29, 24, 215)
_LINE = (206, 196, 176, 255)
_FAINT = (150, 140, 122, 255)


class InsetMap:
    """A plan of ``plan``'s ground for frames of ``size``, placed in the top-right corner."""

    def __init__(self, plan: Plan, size: tuple[int, int], colours: dict[str, tuple[int, int, int]]):
        w, h = size
        lms = plan.landmarks
        pts = [lm.position[:2] for lm in lms.values()] + [tuple(p) for p in plan.hall.get("footprint") or []]
        xy = np.asarray(pts, float)
        lo, hi = xy.min(0) - 3.0, xy.max(0) + 3.0
        self.lo, self.span = lo, hi - lo
        self.h = max(40, int(h * 0.42))
        self.scale = (self.h - 12) / self.span[1]
        self.w = int(self.span[0] * self.scale) + 12
        self.x0, self.y0 = w - self.w - int(w * 0.02), int(h * 0.03)
        self.colours = colours
        self.sprite = self._background(plan)

    def to_px(self, xy) -> np.ndarray:
        """Plan metres (x east, y north) → pixels inside the map."""
        xy = np.atleast_2d(np.asarray(xy, float))[:, :2]
        return np.c_[6 + (xy[:, 0] - self.lo[0]) * self.scale, 6 + (self.lo[1] + self.span[1] - xy[:, 1]) * self.scale]

    def _background(self, plan: Plan) -> np.ndarray:
        img = Image.new("RGBA", (self.w, self.h), (0, 0, 0, 0))
        d = ImageDraw.Draw(img)
        d.rounded_rectangle((0, 0, self.w - 1, self.h - 1), radius=6, fill=_PAPER, outline=C.ACCENT + (200,))
        fp = plan.hall.get("footprint")
        if fp:
            d.polygon([tuple(p) for p in self.to_px(fp)], outline=_LINE, fill=(80, 62, 46, 230))
        lms = plan.landmarks
        if "侯" in lms and "堂廉" in lms:                 # the range: the arrows' way
            a, b = self.to_px([lms["堂廉"].position, lms["侯"].position])
            d.line([tuple(a), tuple(b)], fill=_FAINT, width=1)
        for name, r in (("侯", 3), ("乏", 2), ("中", 2), ("门", 3)):
            if name in lms:
                (x, y), = self.to_px(lms[name].position)
                d.rectangle((x - r, y - 1, x + r, y + 1), fill=_LINE)
        font_px = max(8, int(self.h * 0.045))
        for name in ("侯", "门"):
            if name in lms:
                (x, y), = self.to_px(lms[name].position)
                d.text((x + 4, y - font_px), name, font=C.caption_font(font_px), fill=_LINE)
        return np.asarray(img)

    def draw(self, frame: np.ndarray, positions: dict[str, np.ndarray], acting: set[str]) -> None:
        """The map with a dot per person (``positions``: id → plan xyz) onto ``frame`` in place."""
        C.blit_rgba(frame, self.sprite, self.x0 + self.w / 2, self.y0 + self.h)
        if not positions:
            return
        ids = list(positions)
        px = self.to_px(np.array([positions[i] for i in ids])) + [self.x0, self.y0]
        order = sorted(range(len(ids)), key=lambda k: ids[k] in acting)
        H, W = frame.shape[:2]
        for k in order:
            big = ids[k] in acting
            r = 3 if big else 2
            x, y = int(round(px[k, 0])), int(round(px[k, 1]))
            ys, xs = slice(max(0, y - r), min(H, y + r + 1)), slice(max(0, x - r), min(W, x + r + 1))
            if big:
                frame[max(0, y - r - 1):min(H, y + r + 2), max(0, x - r - 1):min(W, x + r + 2)] = C.ACCENT
            frame[ys, xs] = self.colours.get(ids[k], (200, 200, 200))
