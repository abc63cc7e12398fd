"""The Chinese font shipped for labels: Noto Sans CJK SC, subset to the project's characters.

Debian's ``NotoSansCJK-Regular.ttc`` puts the Japanese face first (VTK and PIL take face 0
by default, and the JP glyph forms of e.g. 令, 骨, 直 differ from the Chinese ones).  The
Simplified Chinese face is index 2; :func:`build_subset` extracts it, checks its name table
says SC, and subsets it to:

* every character of the seed text, the readings (``layouts/*.toml``), the rite script
  (``assets/rite/*.yaml``) and the code's own labels (``reconstruct/*.py``), and their
  traditional forms (opencc s2t),
* ASCII, Latin-1, CJK punctuation, a few symbols used in labels (°, →, ×, ·),
* a margin: the 3755 characters of GB2312 level 1 (the common hanzi) and their
  traditional forms, so new labels rarely fall outside the subset.

The result (``assets/fonts/NotoSansCJKsc-Regular-subset.otf``) is about 2–3 MB and is
licensed under the SIL Open Font License 1.1 (``assets/fonts/OFL.txt``).

Rebuild: ``python -m reconstruct.render.fonts [--ttc PATH]``.  Where the font is and which face to use is
:mod:`reconstruct.text.fonts` (the one resolver).
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..resources import data_path
from ..text.fonts import FONT_FILE, SC_INDEX, SYSTEM_TTC, font_face, missing_glyphs  # noqa: F401 (re-exported)

ROOT = data_path()              # the package: its data and its code

EXTRA = "°→←↑↓×·—–…‘’“”「」『』《》〈〉【】〔〕、。，．：；！？（）～　々〇ー"


def common_hanzi() -> str:
    """GB2312 level 1 (3755 common characters): bytes 0xB0A1–0xD7F9."""
    out = []
    for hi in range(0xB0, 0xD8):
        for lo in range(0xA1, 0xFF):
            try:
                out.append(bytes([hi, lo]).decode("gb2312"))
            except UnicodeDecodeError:
                pass
    return "".join(out)


def project_text(root: Path = ROOT) -> str:
    parts = []
    for pattern in ("assets/text/*.txt", "layouts/*.toml", "assets/rite/*.yaml", "assets/rite/*.yml",
                    "**/*.py"):
        for f in sorted(root.glob(pattern)):
            parts.append(f.read_text(encoding="utf-8"))
    return "".join(parts)


def wanted_characters(root: Path = ROOT) -> set[int]:
    import opencc

    base = project_text(root) + common_hanzi() + EXTRA
    s2t, t2s = opencc.OpenCC("s2t"), opencc.OpenCC("t2s")
    text = base + s2t.convert(base) + t2s.convert(base)
    cps = {ord(c) for c in text if ord(c) >= 0x20}
    cps |= set(range(0x20, 0x7F)) | set(range(0xA0, 0x100))
    cps |= set(range(0x3000, 0x3040)) | set(range(0xFF01, 0xFF5F))
    return cps


def build_subset(ttc: Path = SYSTEM_TTC, out: Path = FONT_FILE, root: Path = ROOT) -> Path:
    """Extract the SC face of the collection and subset it; returns the written path."""
    from fontTools import subset
    from fontTools.ttLib import TTCollection

    from ..outputs import atomic_path

    coll = TTCollection(str(ttc))
    font = coll.fonts[SC_INDEX]
    family = font["name"].getDebugName(1) or ""
    if not family.endswith(" SC"):
        raise ValueError(f"face {SC_INDEX} of {ttc} is {family!r}, not the SC face")
    cps = wanted_characters(root)
    opts = subset.Options()
    opts.layout_features = ["*"]
    opts.name_IDs = ["*"]
    opts.name_languages = ["*"]
    opts.notdef_outline = True
    opts.glyph_names = False
    opts.hinting = False          # labels are drawn large; saves a little
    opts.desubroutinize = False
    sub = subset.Subsetter(opts)
    sub.populate(unicodes=sorted(cps))
    sub.subset(font)
    with atomic_path(out) as tmp:
        font.save(str(tmp))
        tmp.chmod(0o644)
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="Rebuild the shipped Noto Sans CJK SC subset")
    ap.add_argument("--ttc", type=Path, default=SYSTEM_TTC)
    ap.add_argument("--out", type=Path, default=FONT_FILE)
    a = ap.parse_args(argv)
    path = build_subset(a.ttc, a.out)
    print(f"wrote {path} ({path.stat().st_size / 1e6:.2f} MB)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
