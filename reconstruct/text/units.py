"""The text's units of length and Chinese numerals.

Every length in the rite is written in the Zhou units 尺, 寸, 丈, 步, 弓, 尋, 武, 笴
(and 仞, 筵, 握).  A reading declares how long its 尺 is in metres and may
override how many 尺 each larger unit holds; everything else is derived here.

>>> Units().metres(parse_length("十丈"))
23.1
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass, field

# How many 尺 each unit holds by default (brief §2).  寸 is a tenth, 武 the
# "中人之迹" of 鄭's note on 下綱不及地武, 笴 an arrow shaft, 步 = 弓 = 6 尺.
DEFAULT_CHI_PER_UNIT: dict[str, float] = {
    "尺": 1.0,
    "寸": 0.1,
    "丈": 10.0,
    "步": 6.0,
    "弓": 6.0,
    "尋": 8.0,
    "武": 1.2,
    "笴": 3.0,
    "仞": 7.0,
    "筵": 9.0,
    "握": 0.4,
}

# Simplified and variant spellings of the unit names, mapped to the key above.
UNIT_ALIASES: dict[str, str] = {"寻": "尋", "簳": "笴", "箭": "笴"}

DIGITS = {"〇": 0, "零": 0, "一": 1, "二": 2, "两": 2, "兩": 2, "三": 3, "四": 4,
          "五": 5, "六": 6, "七": 7, "八": 8, "九": 9}
MULTIPLIERS = {"十": 10, "百": 100, "千": 1000}
NUMERAL_CHARS = "".join(DIGITS) + "".join(MULTIPLIERS) + "半"
# Bounds: no length of the rite needs more (the longest, the 侯道, is 五十弓 or 三十丈).
MAX_NUMERAL_CHARS = 12         # 九千九百九十九 has 7
MAX_NUMBER = 100_000.0         # any number in a length


class UnitError(ValueError):
    """A length or numeral that cannot be read."""


def parse_chinese_integer(text: str) -> int:
    """Read a Chinese integer: 三 → 3, 十二 → 12, 五十 → 50, 二百四十 → 240.

    >>> parse_chinese_integer("五十")
    50
    """
    text = text.strip()
    if not text:
        raise UnitError("empty numeral")
    if len(text) > MAX_NUMERAL_CHARS:
        raise UnitError(f"numeral {text[:20]!r}… is too long (at most {MAX_NUMERAL_CHARS} characters)")
    if text.isascii() and text.isdigit():
        return int(text)
    total, current = 0, 0
    for ch in text:
        if ch in DIGITS:
            current = current * 10 + DIGITS[ch]
        elif ch in MULTIPLIERS:
            total += (current or 1) * MULTIPLIERS[ch]
            current = 0
        else:
            raise UnitError(f"not a Chinese numeral: {text!r}")
    return total + current


def parse_number(text: str) -> float:
    """A Chinese or Arabic number, allowing 有/又 ("and") and 半 (a half): 尺有二寸 style
    compounds are handled by :func:`parse_length`; here 三 → 3, 1.5 → 1.5, 一半 → 0.5."""
    text = text.strip()
    if re.fullmatch(r"[0-9]+(\.[0-9]*)?|\.[0-9]+", text):
        v = float(text)
    elif text == "半":
        v = 0.5
    elif text.endswith("半"):
        v = parse_chinese_integer(text[:-1]) + 0.5
    else:
        v = float(parse_chinese_integer(text))
    if not v <= MAX_NUMBER:
        raise UnitError(f"number {text[:20]!r} is too big (at most {MAX_NUMBER:,.0f})")
    return v


_UNIT_CHARS = "".join(DEFAULT_CHI_PER_UNIT) + "".join(UNIT_ALIASES)
_TERM = re.compile(rf"([0-9.]+|[{NUMERAL_CHARS}]+)\s*([{_UNIT_CHARS}])")
_METRES = re.compile(r"^\s*(-?[0-9]+(?:\.[0-9]+)?)\s*(m|米)\s*$")


@dataclass(frozen=True)
class Length:
    """A length as the text writes it: a sum of (number, unit) terms, or metres."""

    terms: tuple[tuple[float, str], ...] = ()
    metres: float = 0.0

    def chi(self, units: "Units") -> float:
        return sum(n * units.chi_per(u) for n, u in self.terms) + self.metres / units.chi_m


def parse_length(text: str | float | int) -> Length:
    """Read a length: ``"三步"``, ``"十丈"``, ``"尺有二寸"``, ``"6.1m"``; a bare number is 尺.

    >>> parse_length("尺有二寸").terms
    ((1.0, '尺'), (2.0, '寸'))
    """
    if isinstance(text, bool):
        raise UnitError(f"not a length: {text!r}")
    if isinstance(text, (int, float)):
        if not abs(text) <= MAX_NUMBER:
            raise UnitError(f"not a plausible length: {text!r} (at most {MAX_NUMBER:,.0f} 尺)")
        return Length(((float(text), "尺"),))
    s = str(text).strip()
    if len(s) > 200:
        raise UnitError(f"not a length: {s[:20]!r}… ({len(s)} characters)")
    m = _METRES.match(s)
    if m:
        metres = float(m.group(1))
        if not abs(metres) <= MAX_NUMBER:
            raise UnitError(f"not a plausible length: {s[:20]!r} (at most {MAX_NUMBER:,.0f} m)")
        return Length(metres=metres)
    # "尺有二寸": a unit with no number before it means one of it.
    s = re.sub(rf"(^|[有又])([{_UNIT_CHARS}])", r"\1一\2", s)
    pos, terms = 0, []
    for m in _TERM.finditer(s):
        gap = s[pos:m.start()].strip()
        if gap not in ("", "有", "又"):
            raise UnitError(f"cannot read {gap!r} in length {text!r}")
        unit = UNIT_ALIASES.get(m.group(2), m.group(2))
        terms.append((parse_number(m.group(1)), unit))
        pos = m.end()
    rest = s[pos:].strip()
    if not terms or rest:
        raise UnitError(f"not a length: {text!r} (write e.g. 三步, 十丈, 尺有二寸, 26尺 or 6.1m)")
    return Length(tuple(terms))


# the 尺 in metres when a reading does not say (周尺: the Warring-States/Qin standard from bronze rulers),
# and the range a reading may give it (exclusive): the bounds of every 尺 proposed for the Zhou, with room
CHI_M = 0.231
CHI_M_RANGE = (0.1, 0.4)


@dataclass(frozen=True)
class Units:
    """How long the 尺 is, and how many 尺 each named unit holds."""

    chi_m: float = CHI_M
    chi_per_unit: dict[str, float] = field(default_factory=lambda: dict(DEFAULT_CHI_PER_UNIT))

    def chi_per(self, unit: str) -> float:
        unit = UNIT_ALIASES.get(unit, unit)
        try:
            return self.chi_per_unit[unit]
        except KeyError:
            raise UnitError(f"unknown unit {unit!r}; known: {' '.join(self.chi_per_unit)}") from None

    def metres(self, length: Length | str | float) -> float:
        if not isinstance(length, Length):
            length = parse_length(length)
        metres = round(length.chi(self) * self.chi_m, 9)
        if not math.isfinite(metres):
            raise UnitError("the length is not a finite number of metres")
        return metres

    @property
    def bu_m(self) -> float:
        return self.chi_per("步") * self.chi_m
