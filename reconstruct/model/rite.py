"""The rite as the planner reads it: the cast, the props, the state of everyone at the passage's
first character, the groups and formations, and the events with their actions — the loaded,
expanded and checked rite script (made by :mod:`reconstruct.rite`)."""
from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field, StrictBool

from .vocabulary import Posture, PropKind, PropPosture, Side


class _M(BaseModel):
    # numbers finite, true/false only from true/false (never from 1 or "yes")
    model_config = ConfigDict(frozen=True, extra="forbid", allow_inf_nan=False)


class Person(_M):
    id: str
    label_en: str
    side: Side = Side.NONE
    role: str = ""
    aliases: list[str] = []


class Prop(_M):
    id: str
    kind: PropKind          # the trailing noun: 觯, 爵, 丰, 荐, 俎, 弓, 矢, 扑, 算, 旌, 中, 楅 …


class Initial(_M):
    at: str
    heading: str | None = None
    posture: Posture | PropPosture = Posture.STAND     # a person's posture, or a prop's
    held_by: str | None = None
    holds: list[str] = []
    bare: StrictBool = False
    gear: StrictBool = False
    bow: str | None = None


class Action(_M):
    who: str
    verb: str
    place: str | None = None
    via: list[str] = []
    stair: str | None = None
    top_step: StrictBool = False
    heading: str | None = None
    prop: str | None = None
    other: str | None = None
    count: int = Field(1, ge=1, le=100)                     # bows: 再拜 = 2
    text: str | None = None
    duration: float | None = Field(None, ge=0, le=3600)     # seconds
    rank: int | None = Field(None, ge=1, le=10_000)         # slot in a formation, 1 = senior


class ArcheryParams(BaseModel):
    """The archery model's parameters (all optional; the defaults are the shipped script's), strict: whole
    numbers are whole, chances lie in 0…1, every number finite."""

    model_config = ConfigDict(frozen=True, extra="forbid", strict=True, allow_inf_nan=False)

    seed: int = Field(1, ge=0, le=2**31)
    hit_rate: float = Field(0.45, ge=0.0, le=1.0, allow_inf_nan=False)        # every archer's, unless named
    hit_rates: dict[str, Annotated[float, Field(ge=0.0, le=1.0)]] = {}    # person id (or 三耦, 众宾 …) → his chance of hitting the 正
    off_beat: float = Field(0.08, ge=0.0, le=1.0, allow_inf_nan=False)       # a loose off the drum's 节
    beat_s: float = Field(8.0, gt=1.0, le=60.0, allow_inf_nan=False)         # one 节 of the 驺虞 (间若一)
    arrow_speed: float = Field(55.0, gt=10.0, le=150.0, allow_inf_nan=False)  # m/s as the arrow leaves
    tallies: int = Field(80, ge=8, le=400)                                   # 箭筹八十 (記)

    def rate(self, who: str, groups: dict[str, list[str]]) -> float:
        """The chance that an arrow of ``who`` hits: his own rate, else his group's, else the default."""
        if who in self.hit_rates:
            return self.hit_rates[who]
        for name, members in groups.items():
            if name in self.hit_rates and who in members:
                return self.hit_rates[name]
        return self.hit_rate


class ProcedureRef(_M):
    """Which procedure an event performs a step of (``reconstruct.rite.procedures``): the procedure, the
    call (one performance, with its own people), the step, whether the call repeats an earlier one (a
    如初), and the cited overrides by which this performance differs from the procedure as written."""

    name: str
    call: str
    step: str
    repeat: StrictBool = False
    overrides: list[str] = []
    people: dict[str, str] = {}     # the call's bindings that name someone or something (param → id)
    # the words of the step on a page our copy of the text lacks (the 注疏's), when its event cites the words
    # that page follows in our copy instead (``lacuna`` in the procedure)
    lacuna: str = ""


class Event(_M):
    id: str
    text: str
    span: tuple[int, int]
    footnote: int | None
    gloss: str
    actors: list[str]
    after: list[str]
    actions: list[Action]
    option: str | None = None
    options: list[str] = []     # the names of the interpretive options it rests on (its `option`, its `when`)
    rule: StrictBool = False
    summary: StrictBool = False  # the clause sums up what the events before it performed (三耦卒饮)
    source: str = ""            # file:line of the event in the rite script, for error messages
    procedure: ProcedureRef | None = None     # the step of a procedure this event performs, if any
    # the text the span is in (its logical name), when it is not the rite's own ``text_file`` (the whole
    # chapter: the first half's events cite assets/text/xiangshe_li_part1.txt, the passage's the seed)
    text_file: str | None = None
    # the title of the section of the chapter that begins with this event (the first half, which has no
    # footnote numbers: 戒賓 · Inviting the guest …): a chapter mark of the video
    section: str = ""


class Rite(_M):
    text_sha256: str
    parameters: dict[str, int]
    options: dict[str, str]
    people: list[Person]
    props: list[Prop]
    initial: dict[str, Initial]
    groups: dict[str, list[str]]
    formations: dict[str, list[str]]
    events: list[Event]
    archery: ArcheryParams = ArcheryParams()
    text_file: str = "assets/text/xiangshe_li_part2.txt"   # the text the events' spans are offsets into
