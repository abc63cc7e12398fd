"""The evidence view's overlays (issue 32): the legend of the colours (``model/evidence.py``, declared there once)
and the tag that marks an act resting on an interpretive option, for the stills and the video.

Both are RGBA sprites drawn once with PIL (in the shipped font) and blended per frame
(:func:`reconstruct.render.captions.blit_rgba`)."""
from __future__ import annotations

from functools import lru_cache

import numpy as np
from PIL import Image, ImageDraw

from ..model.evidence import EVIDENCE_STYLE
from ..text.fonts import pil_font
from .captions import blit_rgba

__all__ = ["legend_sprite", "draw_legend", "option_tag_sprite", "draw_option_tag", "option_words"]

BG = (24, 22, 20, 178)
INK = (246, 241, 230, 255)


@lru_cache(maxsize=8)
def legend_sprite(px: int) -> np.ndarray:
    """The legend: a swatch and a label for each kind of evidence, on a dark translucent panel."""
    font = pil_font(px)
    rows = [(label, col) for label, col in EVIDENCE_STYLE.values()]
    head = "evidence · 依據"
    probe = ImageDraw.Draw(Image.new("RGBA", (4, 4)))
    w = int(max(probe.textlength(t, font=font) for t in [head] + [r[0] for r in rows]) + px * 2.6)
    lh = int(px * 1.45)
    h = lh * (len(rows) + 1) + px // 2
    im = Image.new("RGBA", (w, h), BG)
    d = ImageDraw.Draw(im)
    d.text((px * 0.5, px * 0.25), head, font=font, fill=(214, 168, 74, 255))
    for i, (label, col) in enumerate(rows, 1):
        y = px * 0.25 + i * lh
        d.rectangle([px * 0.5, y + px * 0.15, px * 1.5, y + px * 1.05], fill=col, outline=(255, 255, 255, 200))
        d.text((px * 2.0, y), label, font=font, fill=INK)
    return np.asarray(im)


def draw_legend(frame: np.ndarray, top: float | None = None) -> None:
    """The legend at the top left of a frame (an (h, w, 3) uint8 array, changed in place)."""
    h, w = frame.shape[:2]
    spr = legend_sprite(max(9, int(h * 0.022)))
    m = int(w * 0.03)
    y0 = int(h * 0.12) if top is None else int(top)
    blit_rgba(frame, spr, m + spr.shape[1] / 2, y0 + spr.shape[0])


def option_words(options, option_basis: dict) -> str:
    """The tag's words: each option an act rests on, with the source its choice rests on
    (``zhong_path=中东 (郑 注 on seed (84), 四部叢刊)``, the first of its basis; an option the reading does not choose:
    ``(the script's default)``)."""
    parts = []
    for o in options:
        name = o.split("=", 1)[0]
        basis = (option_basis.get(name) or {}).get("basis") or []
        if not basis:
            parts.append(f"{o} (the script's default)")
            continue
        first = basis[0]
        why = f"{first['source']} {first.get('at', '')}".strip() if first.get("source") else "CHOSEN"
        parts.append(f"{o} ({why})")
    return "rests on an option: " + "; ".join(parts)


@lru_cache(maxsize=64)
def option_tag_sprite(text: str, px: int) -> np.ndarray:
    """A small tag: the option(s) the act being performed rests on, red-edged (the colour of a choice)."""
    from ..model.evidence import EvidenceKind

    font = pil_font(px)
    probe = ImageDraw.Draw(Image.new("RGBA", (4, 4)))
    w, h = int(probe.textlength(text, font=font) + px * 1.2), int(px * 1.75)
    im = Image.new("RGBA", (w, h), BG)
    d = ImageDraw.Draw(im)
    edge = EVIDENCE_STYLE[EvidenceKind.CHOSEN][1]
    d.rectangle([0, 0, w - 1, h - 1], outline=edge, width=max(1, px // 7))
    d.text((px * 0.6, h / 2), text, font=font, fill=INK, anchor="lm")
    return np.asarray(im)


def draw_option_tag(frame: np.ndarray, text: str, bottom: float) -> None:
    """The tag, centred, its bottom edge at row ``bottom`` (above the caption band)."""
    h, w = frame.shape[:2]
    spr = option_tag_sprite(text, max(9, int(h * 0.024)))
    blit_rgba(frame, spr, w / 2, bottom)
