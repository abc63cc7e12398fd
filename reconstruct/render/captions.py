"""Burned-in captions, the timeline bar, title and end cards (drawn with PIL), and WebVTT sidecars.

The caption band sits at the bottom of the frame: the clause being performed (in
display form, with the pinyin placeholders of the data restored: shè → 射, jiāo → 交,
yù → 欲), its English gloss, the footnote number, and a slim timeline showing where in
the passage we are.  Bands are drawn once per event and cached as premultiplied RGBA;
per frame only the blend and the timeline are computed in numpy.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np
from PIL import Image, ImageDraw, ImageFont
import webvtt

from ..model.plan import Plan
from ..text.fonts import pil_font
from ..text.seed import display

__all__ = ["display_text", "caption_font", "CaptionBand", "draw_timeline", "title_card", "end_card",
           "label_sprite", "blit_rgba", "write_vtt", "vtt_time", "draw_fast_marker", "simplified", "video_title",
           "card_texts", "write_srt", "srt_time", "TITLE_SAFE", "cut_card"]


TITLE_SAFE = 0.05        # the title-safe area: 90 % of the frame, 5 % clear at each edge
INK = (244, 238, 224)
DIM = (206, 196, 176)
ACCENT = (214, 168, 74)
CARD_BG = (28, 24, 20)


def display_text(text: str) -> str:
    """The clause as shown: pinyin placeholders turned back into characters (:func:`text.seed.display`)."""
    return display(text)


def caption_font(size: float, bold: bool = False) -> ImageFont.FreeTypeFont:
    """The caption font at ``size`` pixels (at least 6): :func:`reconstruct.text.fonts.pil_font` (the shipped
    font has one weight: ``bold`` draws the same face)."""
    return pil_font(max(6, int(size)))


def _wrap(draw: ImageDraw.ImageDraw, text: str, font, width: float, cjk: bool) -> list[str]:
    """Greedy wrap: by character for Chinese, by word otherwise."""
    tokens = list(text) if cjk else text.split(" ")
    sep = "" if cjk else " "
    lines, cur = [], ""
    for tok in tokens:
        cand = (cur + sep + tok) if cur else tok
        if draw.textlength(cand, font=font) <= width or not cur:
            cur = cand
        else:
            lines.append(cur)
            cur = tok
    if cur:
        lines.append(cur)
    return lines


def _shrink_to_fit(draw, text, size, width, max_lines, cjk, bold=False):
    s = size
    while True:
        font = caption_font(s, bold)
        lines = _wrap(draw, text, font, width, cjk)
        if len(lines) <= max_lines or s <= 8:
            return font, lines[:max_lines]
        s = int(s * 0.9)


@dataclass
class CaptionBand:
    """A bottom band for one event: ``rgb``/``alpha`` arrays (premultiplied), placed at row ``y0``."""
    y0: int
    rgb: np.ndarray     # (h, w, 3) uint16, premultiplied by alpha/255
    inv: np.ndarray     # (h, w, 1) uint16, 255 - alpha

    @classmethod
    def draw(cls, size: tuple[int, int], zh: str, en: str | None, footnote=None, heading: str | None = None,
             safe: bool = False) -> "CaptionBand":
        """Draw the band for frame ``size`` with the Chinese clause ``zh``, gloss ``en``, ``footnote``;
        ``safe``: every letter inside the 90 % title-safe area (:data:`TITLE_SAFE` of each edge clear)."""
        w, h = size
        band_h = max(24, int(h * 0.2))
        img = Image.new("RGBA", (w, band_h), (0, 0, 0, 0))
        # a soft dark gradient, stronger at the bottom
        grad = np.linspace(0, 1, band_h) ** 0.6
        a = (grad * 200).astype(np.uint8)
        base = np.zeros((band_h, w, 4), np.uint8)
        base[..., :3] = (16, 13, 10)
        base[..., 3] = a[:, None]
        img = Image.fromarray(base, "RGBA")
        d = ImageDraw.Draw(img)
        margin = int(w * (TITLE_SAFE + 0.01)) if safe else int(w * 0.05)
        bottom = int(h * (TITLE_SAFE + 0.012)) if safe else int(h * 0.035)
        text_w = w - 2 * margin - int(w * 0.08)
        zh_size = max(9, int(h * 0.046))
        en_size = max(8, int(h * 0.028))
        while True:
            zh_font, zh_lines = _shrink_to_fit(d, display_text(zh), zh_size, text_w, 2, True)
            en_font, en_lines = (None, [])
            if en:
                en_font, en_lines = _shrink_to_fit(d, en, en_size, text_w, 2, False)
            line_h_zh = int(zh_font.size * 1.3)
            line_h_en = int(en_font.size * 1.3) if en_font else 0
            total = line_h_zh * len(zh_lines) + line_h_en * len(en_lines)
            if not safe or total <= band_h - bottom - 4 or zh_size <= 9:
                break
            zh_size, en_size = int(zh_size * 0.92), max(8, int(en_size * 0.92))   # all of it within the safe area
        y = band_h - bottom - total
        y = max(2, y)
        if safe:        # dark behind every line: 4.5:1 (WCAG AA) over a sunlit court, measured on the frames
            rows = np.arange(band_h)
            top = max(0, y - int(h * 0.03))
            base[..., 3] = (np.clip((rows - top + int(h * 0.02)) / max(1, int(h * 0.02)), 0, 1) * 232
                            ).astype(np.uint8)[:, None]
            img = Image.fromarray(base, "RGBA")
            d = ImageDraw.Draw(img)
        for ln in zh_lines:
            d.text((margin + 1, y + 1), ln, font=zh_font, fill=(0, 0, 0, 200))
            d.text((margin, y), ln, font=zh_font, fill=INK + (255,))
            y += line_h_zh
        for ln in en_lines:
            d.text((margin, y), ln, font=en_font, fill=DIM + (255,))
            y += line_h_en
        if footnote is not None:
            # the footnote number: bold, bright, on a dark tab at the right end of the Chinese line
            fn_font = caption_font(max(9, int(h * 0.036)), True)
            label = f"注 {footnote}"
            tw = d.textlength(label, font=fn_font)
            y_fn = band_h - bottom - total
            pad = max(3, int(h * 0.008))
            x_fn = w - margin - tw - (pad if safe else 0)
            d.rounded_rectangle((x_fn - pad, y_fn - pad // 2, x_fn + tw + pad, y_fn + fn_font.size * 1.25 + pad // 2),
                                radius=pad, fill=(12, 10, 8, 215), outline=ACCENT + (255,), width=1)
            d.text((x_fn, y_fn), label, font=fn_font, fill=(250, 214, 128, 255))
        if heading:
            hf = caption_font(max(8, int(h * 0.022)))
            d.text((margin, max(0, band_h - bottom - total - int(h * 0.035))), heading, font=hf,
                   fill=ACCENT + (230,))
        arr = np.asarray(img).astype(np.uint16)
        alpha = arr[..., 3:4]
        return cls(h - band_h, (arr[..., :3] * alpha) // 255, 255 - alpha)

    def apply(self, frame: np.ndarray) -> None:
        """Blend the band onto ``frame`` (h, w, 3) uint8 in place."""
        region = frame[self.y0:self.y0 + self.rgb.shape[0]]
        region[:] = ((region.astype(np.uint16) * self.inv) // 255 + self.rgb).astype(np.uint8)


def draw_timeline(frame: np.ndarray, progress: float, marks: list[float] | None = None) -> None:
    """A slim bar along the bottom edge: the passage's length, filled up to ``progress`` ∈ [0, 1]."""
    h, w = frame.shape[:2]
    th = max(2, int(h * 0.006))
    margin = int(w * 0.05)
    y1 = h - max(3, int(h * 0.012))
    y0 = y1 - th
    x1 = w - margin
    fill = margin + int(round((x1 - margin) * min(1.0, max(0.0, progress))))
    frame[y0:y1, margin:x1] = (frame[y0:y1, margin:x1] // 2 + np.array((60, 55, 48), np.uint8) // 2)
    frame[y0:y1, margin:fill] = ACCENT
    for m in marks or ():
        x = margin + int(round((x1 - margin) * m))
        frame[y0 - 1:y1 + 1, max(margin, x - 0):x + 1] = DIM


@lru_cache(maxsize=8)
def _fast_sprite(text: str, px: int) -> np.ndarray:
    return label_sprite(text, px)


def draw_fast_marker(frame: np.ndarray, rate: float) -> None:
    """A "» 8×" tag at the top right while a long hold plays faster than real time."""
    h, w = frame.shape[:2]
    spr = _fast_sprite(f"» {rate:g}×", max(9, int(h * 0.03)))
    blit_rgba(frame, spr, w - int(w * 0.03) - spr.shape[1] / 2, int(h * 0.03) + spr.shape[0])


def _card(size: tuple[int, int], lines: list[tuple[str, float, tuple, bool]]) -> np.ndarray:
    w, h = size
    y_grad = np.linspace(0, 1, h)[:, None, None]
    base = (np.array(CARD_BG) * (1 - 0.35 * y_grad) + np.array((60, 42, 26)) * 0.35 * (1 - y_grad))
    img = Image.fromarray(np.broadcast_to(base, (h, w, 3)).astype(np.uint8), "RGB")
    d = ImageDraw.Draw(img)
    sizes = [max(8, int(h * rel)) for _, rel, _, _ in lines]
    heights = [int(s * 1.55) for s in sizes]
    y = (h - sum(heights)) // 2
    for (text, rel, color, bold), s, lh in zip(lines, sizes, heights):
        font, wrapped = _shrink_to_fit(d, text, s, w * 0.86, 1, any(ord(c) > 0x2e80 for c in text), bold)
        tw = d.textlength(wrapped[0], font=font) if wrapped else 0
        if wrapped:
            d.text(((w - tw) / 2, y), wrapped[0], font=font, fill=color)
        y += lh
    # a thin rule under the title
    arr = np.asarray(img).copy()
    return arr


def simplified(text: str) -> str:
    """Text in simplified characters (opencc), so that a card or a title is in one script: the
    captions are in simplified characters, the readings' names and sources in traditional ones."""
    return _t2s().convert(text)


@lru_cache(maxsize=1)
def _t2s():
    import opencc
    return opencc.OpenCC("t2s")


def video_title(plan: Plan) -> str:
    """The video's title (its metadata and its title card), in one script."""
    name = simplified(plan.layout.name) if plan.layout.name else ""
    return f"乡射礼 · {name}" if name else "乡射礼"


def title_card(size: tuple[int, int], plan: Plan) -> np.ndarray:
    """The opening card: title, the reading's name and its sources (from the plan's layout), and what
    the 注 tab of the captions means."""
    return _card(size, _title_lines(plan))


def _title_lines(plan: Plan) -> list:
    lay = plan.layout
    lines = [("乡射礼", 0.11, INK, True), ("The Village Archery Ceremony · Yili", 0.04, DIM, False),
             ("", 0.03, DIM, False)]
    if lay.name:
        reading = simplified(lay.name) + (f" ({lay.name_en})" if lay.name_en else "")
        lines.append((f"Reading: {reading}", 0.034, ACCENT, False))
    for s in list(lay.sources)[:4]:
        lines.append((simplified(str(s)), 0.026, DIM, False))
    lines += _part_lines(plan)
    lines += [("", 0.02, DIM, False),
              ("注 N, at the right of each caption: the paragraph of the text being performed (its note number)",
               0.026, ACCENT, False)]
    return lines


def _part_lines(plan: Plan) -> list:
    """Which part of the chapter the plan performs, when it is not the passage alone: the whole chapter (the
    first half's sections, then the passage's paragraphs) or the first half; and its sections."""
    sections = [simplified(e.section.split(" · ")[0]) for e in plan.events_by_start() if e.section]
    if not sections:
        return []
    passage = any(e.footnote is not None for e in plan.events)
    head = ("全篇 · The whole chapter, from the guest's invitation to the end of the rite" if passage else
            "上半篇 · The first half of the chapter, from the guest's invitation to the second round")
    return [("", 0.02, DIM, False), (head, 0.034, ACCENT, False),
            ("、".join(sections) + ("、射 …" if passage else ""), 0.026, DIM, False)]


def cut_card(size: tuple[int, int], plan: Plan, title: str, subtitle: str = "") -> np.ndarray:
    """The card a cut opens on and ends by dissolving into: its title, its subtitle, the reading."""
    lines = [(simplified(title), 0.11, INK, True), (subtitle, 0.036, DIM, False), ("", 0.03, DIM, False)]
    if plan.layout.name:
        reading = simplified(plan.layout.name) + (f" ({plan.layout.name_en})" if plan.layout.name_en else "")
        lines.append((f"Reading: {reading} · a reconstruction from the text: every position is an interpretation",
                      0.026, ACCENT, False))
    return _card(size, lines)


def end_card(size: tuple[int, int], plan: Plan, t0: float | None = None, t1: float | None = None) -> np.ndarray:
    """The closing card: "the rite is complete" after the whole passage; after an excerpt, which
    paragraphs it showed."""
    return _card(size, _end_lines(plan, t0, t1))


def card_texts(plan: Plan, t0: float | None = None, t1: float | None = None) -> list[str]:
    """Every text the title and end cards draw."""
    return [text for text, *_ in _title_lines(plan) + _end_lines(plan, t0, t1) if text]


def _end_lines(plan: Plan, t0: float | None, t1: float | None) -> list:
    txt = plan.text
    whole = (t0 is None or t0 <= 1e-6) and (t1 is None or t1 >= plan.duration - 1e-6)
    if whole:
        head = [("礼成", 0.09, INK, True), ("The rite is complete", 0.036, DIM, False)]
    else:
        notes = sorted({e.footnote for e in plan.events if e.footnote is not None and e.end > t0 and e.start < t1})
        span = (f"注 {notes[0]}" + (f"–{notes[-1]}" if notes[-1] != notes[0] else "")) if notes else ""
        head = [("节选终", 0.09, INK, True),
                (f"End of the excerpt{': ' + span if span else ''} · the rite goes on", 0.036, DIM, False)]
    lines = head + [("", 0.03, DIM, False),
                    ("Text: 仪礼·乡射礼" + (f" ({Path(txt['file']).name})" if txt.get("file") else ""), 0.026, DIM, False),
                    (f"Reading: {simplified(plan.layout.name) or '—'} · reconstruction from the text; "
                     "every position is an interpretation", 0.024, ACCENT, False)]
    return lines


@lru_cache(maxsize=256)
def label_sprite(text: str, px: int) -> np.ndarray:
    """A small RGBA name tag (dark pill, light text)."""
    font = caption_font(px)
    d = ImageDraw.Draw(Image.new("RGBA", (4, 4)))
    tw = int(d.textlength(text, font=font)) + 1
    pad = max(2, px // 4)
    img = Image.new("RGBA", (tw + 2 * pad, int(px * 1.45) + pad), (0, 0, 0, 0))
    d = ImageDraw.Draw(img)
    d.rounded_rectangle((0, 0, img.width - 1, img.height - 1), radius=pad + 1, fill=(20, 16, 12, 205))
    d.text((pad, pad // 2), text, font=font, fill=INK + (255,))
    return np.asarray(img)


def blit_rgba(frame: np.ndarray, sprite: np.ndarray, cx: float, bottom: float) -> None:
    """Alpha-blend ``sprite`` onto ``frame`` centred at x = ``cx`` with its bottom edge at y = ``bottom``."""
    h, w = frame.shape[:2]
    sh, sw = sprite.shape[:2]
    x0, y0 = int(round(cx - sw / 2)), int(round(bottom - sh))
    xa, ya, xb, yb = max(0, x0), max(0, y0), min(w, x0 + sw), min(h, y0 + sh)
    if xa >= xb or ya >= yb:
        return
    s = sprite[ya - y0:yb - y0, xa - x0:xb - x0].astype(np.uint16)
    a = s[..., 3:4]
    region = frame[ya:yb, xa:xb]
    region[:] = ((region.astype(np.uint16) * (255 - a) + s[..., :3] * a) // 255).astype(np.uint8)


def vtt_time(seconds: float) -> str:
    """hh:mm:ss.mmm of a time in video seconds (negative times clamp to 0), rounded to the millisecond."""
    return str(webvtt.models.Timestamp.from_seconds(max(0.0, float(seconds))))


def srt_time(seconds: float) -> str:
    return vtt_time(seconds).replace(".", ",")


def _cues(cues: list[tuple[float, float, str]]) -> webvtt.WebVTT:
    """The cues as webvtt-py captions, numbered from 1: empty or zero-length cues dropped, "-->" (which a cue's
    text may not hold) written as an arrow, blank lines closed up."""
    doc = webvtt.WebVTT()
    for a, b, text in cues:
        text = "\n".join(line for line in (text or "").replace("-->", "→").splitlines() if line.strip())
        if b <= a or not text:
            continue
        doc.captions.append(webvtt.Caption(start=vtt_time(a), end=vtt_time(b), text=text,
                                           identifier=str(len(doc.captions) + 1)))
    return doc


def write_vtt(path: str | Path, cues: list[tuple[float, float, str]]) -> None:
    """Write a WebVTT file of (start, end, text) cues in video seconds (webvtt-py)."""
    with open(path, "w", encoding="utf-8") as f:
        _cues(cues).write(f, format="vtt")


def write_srt(path: str | Path, cues: list[tuple[float, float, str]]) -> None:
    """Write a SubRip file of (start, end, text) cues in video seconds (UTF-8, numbered from 1; webvtt-py)."""
    with open(path, "w", encoding="utf-8") as f:
        _cues(cues).write(f, format="srt")
        f.write("\n")
