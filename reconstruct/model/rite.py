"""The rite as the planner reads it: the cast, the props, the state of everyone at the passage's
first character, the groups and formations, and the events with their actions — the loaded,
expanded and checked rite script (made by :mod:`reconstruct.rite`)."""
from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field, StrictBool


class _M(BaseModel):
    # numbers finite, true/false only from true/false (never from 1 or "yes")
    model_config = ConfigDict(frozen=True, extra="forbid", allow_inf_nan=False)


class Person(_M):
    id: str
    label_en: str
    side: str = ""          # "宾党" | "主党" | ""
    role: str = ""
    aliases: list[str] = []


class Prop(_M):
    id: str
    kind: str               # the trailing noun: 觯, 爵, 丰, 荐, 俎, 弓, 矢, 扑, 算, 旌, 中, 楅 …


class Initial(_M):
    at: str
    heading: str | None = None
    posture: str = "stand"
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
    rule: StrictBool = False
    source: str = ""            # file:line of the event in the rite script, for error messages


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
