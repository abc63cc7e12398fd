"""The first half of 鄉射禮 as data: the 經 (the text outside the commentary) of the 四部叢刊 transcription
(kanripo KR1d0026, ``sources/yili_juan05_xiangshe_zhengzhu_SBCK.txt`` at the repository's root), up to the
character before the one where our passage (``assets/text/xiangshe_li_part2.txt``) begins.

What is removed: the file's org header (``#`` lines), page-break marks ``<pb:…>``, the line-end marks ``¶``
and the line breaks, 鄭玄's commentary in parentheses ``(…)``, and the book's title block (``儀禮卷第五`` and
``鄕射禮第五　儀禮　鄭氏注``, the lines before the first line of the 經).  Every other character is kept as the
source writes it (traditional, the transcription's normalised forms: 賔, 靣, 鄕 …).  The source has no
punctuation and none is added: the rite script's spans are offsets into this text and find their words by
exact search, which needs none.

Where the first half ends.  The passage begins ``扑，袭。进由中东…``: the end of the clause
``司射遂適西階西釋弓去扑襲`` of the source.  The cut is made before ``扑`` (the first occurrence of
``扑襲進由中東`` in the 經), so the first half ends ``…司射遂適西階西釋弓去`` and no character is lost or
counted twice: the passage's first event performs ``扑，袭`` (laying down the 扑, covering the arm), the first
half's last event ``司射遂適西階西釋弓去`` (going west of the 西階, laying down the bow, taking the 扑 from the
belt).

Run as ``python -m reconstruct.text.extract SOURCE OUT`` to write the text (atomically).
"""
from __future__ import annotations

import re
import sys
from pathlib import Path

from ..errors import InputError
from ..inputs import read_text
from ..outputs import atomic_path

# the passage's first words as the source writes them (扑，袭。进由中东 in the seed's simplified characters)
PASSAGE_START = "扑襲進由中東"
TITLE_END = "鄭氏注"          # the last line of the title block: 鄕射禮第五　儀禮　鄭氏注
MAX_SOURCE_BYTES = 2_000_000

_PB = re.compile(r"<pb:[^>]*>")
_NOTE = re.compile(r"\([^()]*\)")


def jing(source: str) -> str:
    """The 經 of the source: every line after the title block with page breaks, line marks and commentary
    removed, joined (the line breaks are the print's, not the text's)."""
    lines = [ln for ln in source.split("\n") if not ln.startswith("#")]
    body = [_PB.sub("", ln).replace("¶", "").strip() for ln in lines]
    start = next((i for i, ln in enumerate(body) if TITLE_END in ln), None)
    if start is None:
        raise ValueError(f"no title line ending with {TITLE_END} (not the SBCK 鄕射禮 file?)")
    text = "".join(body[start + 1:])
    if "(" in _NOTE.sub("", text) or ")" in _NOTE.sub("", text):
        raise ValueError("unbalanced parentheses in the source")
    return _NOTE.sub("", text)


def first_half(source: str) -> str:
    """The 經 up to the character before the passage's first (扑), with a final line break."""
    text = jing(source)
    cut = text.find(PASSAGE_START)
    if cut < 0 or text.find(PASSAGE_START, cut + 1) >= 0:
        raise ValueError(f"{PASSAGE_START} is not found exactly once in the 經")
    return text[:cut] + "\n"


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 2:
        print("usage: python -m reconstruct.text.extract SOURCE OUT", file=sys.stderr)
        return 2
    try:
        src = read_text(args[0], what="source", max_bytes=MAX_SOURCE_BYTES)
        out = first_half(src)
    except (InputError, ValueError) as e:
        print(f"{args[0]}: {e}", file=sys.stderr)
        return 2
    with atomic_path(Path(args[1])) as tmp:
        Path(tmp).write_text(out, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
