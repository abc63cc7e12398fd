"""The one font resolver: where the Chinese font is, which face of it, and the PIL font at a size.

The package ships Noto Sans CJK SC subset to the project's characters (``assets/fonts``; built by
:mod:`reconstruct.render.fonts`).  Only if that file is missing is Debian's collection used, and then its
Simplified Chinese face (index 2: face 0 is the Japanese one, whose glyph forms of e.g. 令, 骨, 直 differ).
Every caption, label, still, diagram and the web page's embedded font come from :func:`font_face`.
"""
from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from ..resources import FONTS

FONT_FILE = FONTS / "NotoSansCJKsc-Regular-subset.otf"
SYSTEM_TTC = Path("/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc")
SC_INDEX = 2                # the Simplified Chinese face of the system collection


def font_face() -> tuple[Path, int]:
    """(file, face index) of the Chinese font: the shipped subset, else the system collection's SC face."""
    if FONT_FILE.exists():
        return FONT_FILE, 0
    if SYSTEM_TTC.exists():  # pragma: no cover - the asset ships with the package
        return SYSTEM_TTC, SC_INDEX
    raise FileNotFoundError(f"{FONT_FILE} is missing; run `python -m reconstruct.render.fonts`")


@lru_cache(maxsize=128)
def pil_font(size: int):
    """The Chinese font as a PIL font of ``size`` pixels."""
    from PIL import ImageFont

    path, index = font_face()
    return ImageFont.truetype(str(path), size=int(size), index=index)


def missing_glyphs(text: str, path: Path | None = None) -> set[str]:
    """The characters of ``text`` the font has no glyph for (whitespace aside)."""
    return {c for c in set(text) if not c.isspace() and ord(c) not in _cmap(str(path or font_face()[0]))}


@lru_cache(maxsize=8)
def _cmap(path: str) -> frozenset[int]:
    from fontTools.ttLib import TTFont

    font = TTFont(path, fontNumber=SC_INDEX if path.endswith(".ttc") else -1, lazy=True)
    return frozenset(font.getBestCmap())


def font_subset_woff(text: str) -> bytes:
    """The Chinese font of :func:`font_face` cut down to the characters of ``text`` (and ASCII), as WOFF: for a
    self-contained document (the web page, the paradata report) that must show its Chinese on a machine
    without the font."""
    import io

    from fontTools import subset
    from fontTools.ttLib import TTFont

    path, index = font_face()
    font = TTFont(str(path), fontNumber=index if path.suffix == ".ttc" else -1)
    opts = subset.Options()
    opts.flavor = "woff"
    opts.layout_features = ["*"]
    opts.name_IDs = ["*"]
    opts.notdef_outline = True
    sub = subset.Subsetter(opts)
    sub.populate(unicodes=sorted({ord(c) for c in text if ord(c) > 32} | set(range(32, 127))))
    sub.subset(font)
    out = io.BytesIO()
    font.flavor = "woff"
    font.save(out)
    return out.getvalue()
