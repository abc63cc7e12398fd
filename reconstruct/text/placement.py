"""Places written the way the text writes them.

One small grammar serves the readings (``at = "左个之西北三步"``,
``at = "侯北十丈西三丈"``) and the rite script (``中西``, ``宾东``, ``西阶上``,
``主人之西``, ``阶前``):

    place   := [base [之]] offset* [modifier]
    base    := a known name (landmark, person or prop), longest match first
    offset  := direction [length]
    direction := 东 西 南 北 东北 东南 西北 西南 (either character set)
    modifier  := 上 (top: of a stair, on the hall) | 下 (foot) | 前 (in front) | 间 (between)

With no base the offsets start at the origin (the middle of the 堂廉).  An
offset without a length means "beside": the resolver picks a distance.

>>> from reconstruct.text.names import NameIndex
>>> idx = NameIndex(); idx.add("左个")
>>> p = parse_place("左个之西北三步", idx); p.base, p.offsets[0][0]
('左个', '西北')
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from ..text.names import NameIndex, simplified
from ..text.units import Length, UnitError, Units, parse_length

# Unit vectors (east, north) of the eight directions, in simplified characters.
DIRECTIONS: dict[str, tuple[float, float]] = {
    "东": (1.0, 0.0), "西": (-1.0, 0.0), "南": (0.0, -1.0), "北": (0.0, 1.0),
    "东北": (1.0, 1.0), "东南": (1.0, -1.0), "西北": (-1.0, 1.0), "西南": (-1.0, -1.0),
}
# Compass headings of the directions: 北面 = facing north = 0°.
HEADINGS: dict[str, float] = {"北": 0.0, "东北": 45.0, "东": 90.0, "东南": 135.0,
                              "南": 180.0, "西南": 225.0, "西": 270.0, "西北": 315.0}
MODIFIERS = ("上", "下", "前", "间")
MAX_OFFSET_CHI = 2_000.0        # a place is at most this far from what it is placed by (200 丈, ~460 m)
_UNITS = Units()
_DIR_CHARS = set("东西南北東")


class PlaceError(ValueError):
    """A place expression that cannot be read."""


@dataclass(frozen=True)
class Place:
    """A parsed place: a base name (or None for the origin), offsets, a modifier."""

    text: str
    base: str | None
    offsets: tuple[tuple[str, Length | None], ...] = ()
    modifier: str | None = None

    @property
    def references(self) -> tuple[str, ...]:
        return (self.base,) if self.base else ()


def heading_of(direction: str) -> float:
    """Compass heading of a direction word (北 → 0, 东 → 90 …); also takes '东面'."""
    d = simplified(direction).removesuffix("面")
    if d not in HEADINGS:
        raise PlaceError(f"not a direction: {direction!r}")
    return HEADINGS[d]


def unit_vector(direction: str, diagonal: str = "bearing") -> tuple[float, float]:
    """(east, north) of a step of one unit in a direction.

    ``diagonal="bearing"`` walks the distance along the 45° bearing;
    ``"both_axes"`` goes that far east-west *and* north-south (a reading says which).
    """
    ex, ny = DIRECTIONS[simplified(direction)]
    if ex and ny and diagonal == "bearing":
        return ex / math.sqrt(2.0), ny / math.sqrt(2.0)
    return ex, ny


def _read_direction(s: str, i: int) -> tuple[str, int] | None:
    two = simplified(s[i:i + 2])
    if len(two) == 2 and two in DIRECTIONS:
        return two, i + 2
    one = simplified(s[i:i + 1])
    if one in DIRECTIONS:
        return one, i + 1
    return None


def parse_place(text: str, names: NameIndex, lengths: dict[str, Length] | None = None) -> Place:
    """Parse a place expression against the known names (see the module docstring).

    ``lengths`` are named lengths a reading declares (e.g. ``堂深``), usable after a direction.
    """
    s = str(text).strip()
    if not s:
        raise PlaceError("empty place")
    lengths = lengths or {}
    # Try the longest name first; a shorter one (or none) when the rest does not read:
    # 乏南五尺 is 乏 + 南五尺 even where a landmark is called 乏南.
    first_error: PlaceError | None = None
    for base, i in [*names.prefixes(s), (None, 0)]:
        try:
            return _parse_rest(s, base, i, lengths)
        except PlaceError as e:
            first_error = first_error or e
    raise first_error  # type: ignore[misc]


def _parse_rest(s: str, base: str | None, i: int, lengths: dict[str, Length]) -> Place:
    if base is not None and s[i:i + 1] == "之":
        i += 1
    offsets: list[tuple[str, Length | None]] = []
    modifier = None
    while i < len(s):
        d = _read_direction(s, i)
        if d is None:
            ch = simplified(s[i])
            if ch in MODIFIERS and i == len(s) - 1:
                modifier = ch
                i += 1
                continue
            what = "an unknown name" if base is None and not offsets else "not a direction, length or 上/下/前/间"
            raise PlaceError(f"cannot read {s[i:]!r} in place {s!r}: {what}")
        direction, i = d
        # the length runs up to the next direction character or the end
        j = i
        while j < len(s) and s[j] not in _DIR_CHARS and simplified(s[j]) not in "东西南北" and not (
                simplified(s[j]) in MODIFIERS and j == len(s) - 1):
            j += 1
        raw = s[i:j]
        length: Length | None = None
        if raw:
            if raw in lengths:
                length = lengths[raw]
            else:
                try:
                    length = parse_length(raw)
                except UnitError as e:
                    raise PlaceError(f"in place {s[:60]!r}: {e}") from None
            if not abs(length.chi(_UNITS)) <= MAX_OFFSET_CHI:
                raise PlaceError(f"in place {s[:60]!r}: {raw[:20]!r} is too far (at most {MAX_OFFSET_CHI:g} 尺)")
        offsets.append((direction, length))
        i = j
    if base is None and not offsets:
        raise PlaceError(f"place {s!r} names nothing known")
    return Place(s, base, tuple(offsets), modifier)
