"""Drawing on a still with PIL: labels placed clear of each other with leader lines, titles, footers,
a north arrow and scale bars, in the shipped SC font."""
from __future__ import annotations

import math

import numpy as np
from PIL import Image, ImageDraw, ImageFont

from ..text.fonts import pil_font

__all__ = ["Painter"]


class Painter:
    """Draws on an image and remembers the boxes it has filled."""

    def __init__(self, im: Image.Image):
        self.im = im
        self.draw = ImageDraw.Draw(im, "RGBA")
        self.boxes: list[tuple[float, float, float, float]] = []

    def font(self, size: int) -> ImageFont.FreeTypeFont:
        return pil_font(size)

    def text(self, xy, s: str, size: int, fill="#1d1a17", halo: int = 3, anchor: str = "la") -> tuple:
        f = self.font(size)
        self.draw.text(xy, s, font=f, fill=fill, stroke_width=halo, stroke_fill=(255, 255, 255, 235), anchor=anchor)
        return self.draw.textbbox(xy, s, font=f, anchor=anchor, stroke_width=halo)

    def reserve(self, box) -> None:
        self.boxes.append(tuple(box))

    def free(self, box, pad: float = 3) -> bool:
        W, H = self.im.size
        x0, y0, x1, y1 = box
        if x0 < 4 or y0 < 4 or x1 > W - 4 or y1 > H - 4:
            return False
        for a0, b0, a1, b1 in self.boxes:
            if x0 < a1 + pad and x1 > a0 - pad and y0 < b1 + pad and y1 > b0 - pad:
                return False
        return True

    def _crosses(self, a, b) -> bool:
        """Does the segment a–b pass through a placed label box?"""
        for t in np.linspace(0.15, 1.0, 12):
            x, y = a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t
            for x0, y0, x1, y1 in self.boxes:
                if x1 - x0 > 10 and x0 <= x <= x1 and y0 <= y <= y1:
                    return True
        return False

    def label(self, anchor, zh: str, en: str, zh_size: int = 20, en_size: int = 12, dot: bool = True,
              distances=(26, 44, 66, 92, 124)) -> bool:
        """Place a two-line label near an anchor without overlapping earlier ones."""
        f1, f2 = self.font(zh_size), self.font(en_size)
        w1 = self.draw.textlength(zh, font=f1)
        w2 = self.draw.textlength(en, font=f2) if en else 0
        w = max(w1, w2) + 8
        h = zh_size * 1.2 + (en_size * 1.25 if en else 0) + 4
        ax, ay = anchor
        for d in distances:
            for ang in (90, 60, 120, 35, 145, 0, 180, -35, -145, -90, -60, -120):
                a = math.radians(ang)
                ex, ey = ax + d * math.cos(a), ay - d * math.sin(a)
                # the box's edge nearest the anchor sits at (ex, ey)
                bx = ex - w / 2 * (1 - math.cos(a)) if abs(math.cos(a)) > 0.3 else ex - w / 2
                if math.cos(a) > 0.3:
                    bx = ex
                elif math.cos(a) < -0.3:
                    bx = ex - w
                by = ey - h if math.sin(a) > 0.3 else (ey if math.sin(a) < -0.3 else ey - h / 2)
                box = (bx, by, bx + w, by + h)
                if self.free(box) and not self._crosses((ax, ay), (ex, ey)):
                    cx = min(max(ax, box[0] + 4), box[2] - 4)
                    cy = box[3] if by + h <= ay else (box[1] if by >= ay else by + h / 2)
                    if box[0] <= ax <= box[2] and not (box[1] <= ay <= box[3]):
                        cx = ax
                    elif box[2] < ax:
                        cx, cy = box[2], min(max(ay, box[1] + 6), box[3] - 6)
                    elif box[0] > ax:
                        cx, cy = box[0], min(max(ay, box[1] + 6), box[3] - 6)
                    self.draw.line([(ax, ay), (cx, cy)], fill=(255, 255, 255, 200), width=3)
                    self.draw.line([(ax, ay), (cx, cy)], fill=(40, 34, 30, 230), width=1)
                    if dot:
                        self.draw.ellipse([ax - 3, ay - 3, ax + 3, ay + 3], fill=(180, 38, 30, 255),
                                          outline=(255, 255, 255, 255))
                    self.draw.rectangle(box, fill=(255, 255, 255, 150))
                    self.text((box[0] + 4, box[1] + 1), zh, zh_size, halo=2)
                    if en:
                        self.text((box[0] + 4, box[1] + zh_size * 1.2 + 1), en, en_size, fill="#4a443d", halo=2)
                    self.reserve(box)
                    self.reserve((ax - 4, ay - 4, ax + 4, ay + 4))
                    return True
        return False

    def title(self, zh: str, en: str, where=(14, 10)) -> None:
        f1, f2 = self.font(26), self.font(15)
        w = max(self.draw.textlength(zh, font=f1), self.draw.textlength(en, font=f2)) + 24
        box = (where[0], where[1], where[0] + w, where[1] + 62)
        self.draw.rounded_rectangle(box, 6, fill=(255, 255, 255, 205), outline=(120, 105, 90, 160))
        self.draw.text((where[0] + 12, where[1] + 6), zh, font=f1, fill="#1d1a17")
        self.draw.text((where[0] + 12, where[1] + 40), en, font=f2, fill="#4a443d")
        self.reserve(box)

    def footer(self, s: str) -> None:
        f = self.font(12)
        W, H = self.im.size
        w = self.draw.textlength(s, font=f)
        box = (10, H - 24, 22 + w, H - 6)
        self.draw.rounded_rectangle(box, 4, fill=(255, 255, 255, 190))
        self.draw.text((16, H - 22), s, font=f, fill="#4a443d")
        self.reserve(box)

    def north_arrow(self, centre, direction, r: int = 26) -> None:
        cx, cy = centre
        dx, dy = direction
        n = math.hypot(dx, dy) or 1
        dx, dy = dx / n, dy / n
        self.draw.ellipse([cx - r - 6, cy - r - 6, cx + r + 6, cy + r + 6], fill=(255, 255, 255, 200),
                          outline=(120, 105, 90, 160))
        tip = (cx + dx * r * 0.3, cy + dy * r * 0.3)
        tail = (cx - dx * r * 0.85, cy - dy * r * 0.85)
        px, py = -dy, dx
        self.draw.polygon([tip, (tail[0] + px * 8, tail[1] + py * 8), (cx - dx * r * 0.55, cy - dy * r * 0.55),
                           (tail[0] - px * 8, tail[1] - py * 8)], fill=(150, 30, 24, 255))
        self.text((cx + dx * r * 0.68, cy + dy * r * 0.68), "北", 15, anchor="mm", halo=2)
        self.reserve((cx - r - 6, cy - r - 6, cx + r + 6, cy + r + 6))

    def scale_bar(self, origin, px_per_m: float, length_m: float, ticks: int, label: str, tick_label,
                  colour=(40, 34, 30, 255)) -> None:
        x0, y0 = origin
        L = length_m * px_per_m
        box = (x0 - 8, y0 - 30, x0 + L + 60, y0 + 10)
        self.draw.rectangle(box, fill=(255, 255, 255, 170))
        for i in range(ticks):
            a, b = x0 + L * i / ticks, x0 + L * (i + 1) / ticks
            self.draw.rectangle([a, y0 - 5, b, y0], fill=colour if i % 2 == 0 else (255, 255, 255, 255),
                                outline=colour)
        for i in range(ticks + 1):
            if i in (0, ticks) or ticks <= 5:
                self.text((x0 + L * i / ticks, y0 - 7), tick_label(i), 11, anchor="md", halo=2)
        self.text((x0 + L + 8, y0 + 1), label, 12, anchor="ld", halo=2)
        self.reserve(box)
