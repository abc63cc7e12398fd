"""The schema of a reading's TOML file (pydantic): field names are the TOML keys.

Strict: a TOML value must have the type the field wants (``heading = true`` is not 1°, ``steps =
3.0`` is not 3), every number is finite (no ``nan``, no ``inf``) and within a plausible range;
names (landmark, formation and view ids) are single words.  Lengths written as text are read and
bounded by :mod:`reconstruct.layout.reading`."""
from __future__ import annotations

from typing import Literal

from typing import Annotated

import math

from pydantic import BaseModel, ConfigDict, Field, PlainValidator, StringConstraints, field_validator, model_validator

from ..model.defaults import CHI_M, CHI_M_RANGE
from ..model.vocabulary import EvidenceKind, LandmarkKind
from ..text.units import DEFAULT_CHI_PER_UNIT

MAX_NUMBER = 10_000.0          # any plain number in a reading (尺, metres of a view, degrees)
Number = Annotated[float, Field(ge=-MAX_NUMBER, le=MAX_NUMBER)]


def _text_or_number(what: str, limit: float, example: str):
    def check(v):
        if isinstance(v, str):
            if len(v) > 200:
                raise ValueError(f"{what} of {len(v)} characters (at most 200)")
            return v
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            raise ValueError(f"{what}: text such as {example}, or a number, not {type(v).__name__}")
        if not (isinstance(v, int) or math.isfinite(v)) or not abs(v) <= limit:
            raise ValueError(f"{what}: {v!r} is not a finite number between {-limit:g} and {limit:g}")
        return v
    return PlainValidator(check)


LengthText = Annotated[str | float | int, _text_or_number("a length", MAX_NUMBER, "三步")]   # 三步, or 尺
Heading = Annotated[str | float | int, _text_or_number("a heading", 3600, "南")]          # 南, or degrees
Name = Annotated[str, StringConstraints(pattern=r"^\w{1,40}$")]   # a landmark, formation or view id


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, strict=True, allow_inf_nan=False)


class ReadingInfo(_Strict):
    name: str
    name_en: str = ""
    summary: str = ""


Text = Annotated[str, StringConstraints(max_length=1000)]


class SourceSpec(_Strict):
    """A source of the reading, once, with its provenance (``[sources]``)."""
    kind: Literal["text", "commentary", "subcommentary", "later", "excavation"]
    title: Annotated[str, StringConstraints(min_length=1, max_length=300)]
    edition: Text = ""
    transcription: Text = ""        # e.g. kanripo KR1d0026_005
    file: Text = ""


class BasisSpec(_Strict):
    """One entry of a basis: ``{source = "郑", at = "注", quote = "…"}`` or ``{chosen = "the reason"}``;
    ``of`` names the field it fixes (at, x, y, heading, size, spacing), if one."""
    source: Annotated[str, StringConstraints(min_length=1, max_length=40)] | None = None
    at: Text = ""
    quote: Text = ""
    chosen: Annotated[str, StringConstraints(min_length=1, max_length=1000)] | None = None
    of: Literal["at", "x", "y", "heading", "size", "spacing"] | None = None

    @model_validator(mode="after")
    def _one(self):
        if (self.source is None) == (self.chosen is None):
            raise ValueError("a basis names a source (with at and quote) or gives the reason it is chosen, one of the two")
        if self.source is not None and not self.quote:
            raise ValueError(f"a basis in {self.source} needs the words it rests on (quote)")
        return self


Basis = Annotated[list[BasisSpec], Field(min_length=1, max_length=40)]


class UnitsSpec(_Strict):
    chi_m: float = Field(CHI_M, gt=CHI_M_RANGE[0], lt=CHI_M_RANGE[1])
    diagonal: Literal["bearing", "both_axes"] = "bearing"
    chi_per: dict[str, Annotated[float, Field(gt=0, le=MAX_NUMBER)]] = {}
    basis: dict[str, Basis] = {}     # field → basis ("*": the others)

    @field_validator("chi_per")
    @classmethod
    def _known_units(cls, v: dict[str, float]) -> dict[str, float]:
        for u, n in v.items():
            if u not in DEFAULT_CHI_PER_UNIT:
                raise ValueError(f"unknown unit {u!r}; known: {' '.join(DEFAULT_CHI_PER_UNIT)}")
            if n <= 0:
                raise ValueError(f"unit {u} must hold a positive number of 尺")
        return v


class BuildingSpec(_Strict):
    type: Literal["xu_no_shi", "xu_with_shi"]
    width: LengthText            # between the 東序 and the 西序
    side_hall: LengthText        # 東堂 / 西堂: the platform beyond each 序
    bays: list[LengthText] = Field(min_length=4, max_length=4)  # 庪→楣, 楣→棟, 棟→後楣, 後楣→北墉
    height: LengthText           # of the platform (士: 3 尺)
    steps: int = Field(ge=1, le=12)
    stair_width: LengthText
    stair_x: LengthText          # distance of each stair's centre line from the axis
    column_x: LengthText         # distance of each 楹 from the axis
    column_diameter: LengthText = "一尺"
    eave: LengthText = "四尺"     # roof overhang beyond the platform (the 荣 project this far)
    roof_rise: LengthText = "一丈"  # ridge above the eaves
    eave_height: LengthText = "一丈"  # eaves above the hall floor
    wall_thickness: LengthText = "一尺"
    xu_front: LengthText = "二尺"   # 序端: the 序 walls stop this far north of the 堂廉
    shi_depth: LengthText | None = None  # with 室: depth of the 室/房 block north of the 後楣
    basis: dict[str, Basis]             # field → basis ("*": the fields not named)


class CourtSpec(_Strict):
    south: LengthText            # the courtyard's south wall, south of the 堂廉
    half_width: LengthText
    gate_width: LengthText = "一丈二尺"
    wall_height: LengthText = "一丈"
    basis: dict[str, Basis]


class RangeSpec(_Strict):
    hou_dao: LengthText                       # 侯道 五十弓
    measured_from: Literal["物", "堂廉"]
    wu_under: Literal["栋", "楣"]             # 序則物當棟，堂則物當楣
    wu_gap: LengthText = "六尺"               # 間容弓
    wu_length: LengthText = "三尺"            # 物長如笴
    wu_cross: LengthText = "一尺二寸"         # 距隨長武
    frame: Literal["target", "archer"] = "target"  # 侯以鄉堂為面: 左个 = west
    gang_ground: LengthText = "一尺二寸"      # 下綱不及地武
    gang_beyond: LengthText = "八尺"          # 出舌尋: ropes run this far beyond the 舌
    basis: dict[str, Basis]


class LandmarkSpec(_Strict):
    label_en: str = ""
    kind: LandmarkKind = Field(LandmarkKind.MARK, strict=False)   # a word of the vocabulary
    at: str | None = None
    x: LengthText | None = None
    y: LengthText | None = None
    level: Literal["庭", "堂"] = "庭"
    heading: Heading | None = None
    size: list[LengthText] | None = None      # [east-west, north-south, height] before turning
    aliases: list[str] = []
    basis: Basis
    note: str = ""

    @field_validator("size")
    @classmethod
    def _three(cls, v):
        if v is not None and len(v) != 3:
            raise ValueError("size takes three lengths: [east-west, north-south, height]")
        return v


class FormationSpec(_Strict):
    label_en: str = ""
    at: str                     # the senior (first) slot
    facing: str                 # 东面 …
    senior: str                 # 北上: the senior end is north, the file runs south
    spacing: LengthText = "四尺"
    level: Literal["庭", "堂"] = "庭"
    slots: int | None = Field(default=None, ge=1, le=10_000)   # places the reading gives the file; none: as many as fit
    # when the ground holds no more of the file, the rest stand in a file turned at its end, facing and senior
    # as written here (鄭 on 衆賓繼三耦而立東上: 若有東面者則北上): e.g. "东面北上"
    overflow: str | None = Field(default=None, max_length=8)
    basis: Basis


class ViewSpec(_Strict):
    eye: list[Number] = Field(min_length=3, max_length=3)
    look: list[Number] = Field(min_length=3, max_length=3)
    label_en: str = ""


class OptionChoice(_Strict):
    """The choice a reading makes on one of the rite script's interpretive options, and whose words it
    rests on (the reading's author's)."""
    choice: Annotated[str, StringConstraints(min_length=1, max_length=40)]
    basis: Basis


class ReadingFile(_Strict):
    reading: ReadingInfo
    sources: dict[Annotated[str, StringConstraints(pattern=r"^\w{1,40}$")], SourceSpec] = Field(min_length=1)
    units: UnitsSpec = UnitsSpec()
    lengths: dict[Name, LengthText] = {}
    lengths_basis: dict[Name, Basis] = {}      # each named length's basis
    building: BuildingSpec
    court: CourtSpec
    range: RangeSpec
    landmarks: dict[Name, LandmarkSpec] = {}
    formations: dict[Name, FormationSpec] = {}
    views: dict[Name, ViewSpec] = {}
    options: dict[Name, OptionChoice] = {}     # the rite script's options as this reading's author reads them


