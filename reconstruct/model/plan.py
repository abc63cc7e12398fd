"""The plan: the planner's whole result, the one hand-off to every output (``xiangshe-plan/1``).

Where every landmark stands, where every person and prop is at every moment and which clause of
the text each moment performs (format: ``docs/plan-format.md``).  The planner makes a
:class:`Plan`; the video, the glTF, the diagrams, the checks and the audit read it only through
this module, and :meth:`Plan.load` / :meth:`Plan.from_json` is the one loader of a saved plan,
with the one format check.  :meth:`Plan.to_json` writes exactly what was read (byte for byte for a
file this module wrote).

A :class:`~reconstruct.model.track.Track` keeps its keyframes as one numpy structured array (fields
``t x y z heading posture``); :meth:`Track.at` interpolates all asked times at once.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from ..errors import InputError
from ..inputs import MAX_PLAN_BYTES, read_text
from ..outputs import atomic_path
from .evidence import legend_json
from .reading import Landmark, Reading
from .track import KEY_DTYPE, Steps, Track  # noqa: F401 (the plan's tracks; KEY_DTYPE re-exported)
from .vocabulary import GestureKind, Posture, PropPosture

FORMAT = "xiangshe-plan/1"

POSTURES = tuple(Posture)               # of people (model/vocabulary.py)
PROP_POSTURES = tuple(PropPosture)      # of props: tucked = in the belt (搢)
GESTURE_KINDS = frozenset(GestureKind)


@dataclass(frozen=True)
class Gesture:
    """What the hands do over [t0, t1] (``kind``, see the plan format's "What hands do"), with a prop
    or another person (``object``) or nothing."""

    t0: float
    t1: float
    kind: str
    object: str | None = None

    def row(self) -> list:
        return [self.t0, self.t1, self.kind, self.object]


@dataclass(eq=False)
class Actor:
    """A person: label, side, track, states (bared arm, gear, bow, what he holds), gestures."""

    id: str
    label: str
    track: Track
    aliases: list[str] = field(default_factory=list)
    side: str = ""
    states: Steps = field(default_factory=Steps)
    walked_m: float = 0.0
    gestures: list[Gesture] = field(default_factory=list)

    def state(self, t: float) -> dict:
        return self.states.at(t, {}) or {}

    def to_dict(self) -> dict[str, Any]:
        d = {"label": self.label, "aliases": list(self.aliases), "side": self.side, "keys": self.track.rows(),
             "states": self.states.rows(), "walked_m": self.walked_m}
        if self.gestures:
            d["gestures"] = [g.row() for g in self.gestures]
        return d


@dataclass(eq=False)
class Prop:
    """A movable thing: its kind (the text's noun: 觯, 弓, 矢, 算 …), track, and who carries it when."""

    id: str
    kind: str
    track: Track
    label: str = ""
    aliases: list[str] = field(default_factory=list)
    carriers: Steps = field(default_factory=Steps)

    def carrier(self, t: float) -> str | None:
        return self.carriers.at(t)

    def to_dict(self) -> dict[str, Any]:
        return {"label": self.label, "aliases": list(self.aliases), "kind": self.kind, "keys": self.track.rows(),
                "carrier": self.carriers.rows()}


@dataclass(frozen=True)
class Event:
    """One clause (or a few) of the text performed between ``start`` and ``end``."""

    id: str
    text: str
    span: tuple[int, int]
    footnote: int | None
    actors: tuple[str, ...]
    start: float
    end: float
    gloss: str = ""
    rule: bool = False
    # the step of a procedure this event performs (name, call, step, repeat, overrides, people), if any
    procedure: dict | None = None
    # the text the span is in when it is not the plan's ``text`` (the whole chapter: the first half's events)
    text_file: str | None = None
    # the interpretive options the event rests on, as NAME=CHOICE (its basis beside its clause)
    options: tuple[str, ...] = ()
    # the title of the section of the chapter this event begins (the first half's chapter marks), if any
    section: str = ""

    def to_dict(self) -> dict[str, Any]:
        d = {"id": self.id, "text": self.text, "span": list(self.span), "footnote": self.footnote,
             "actors": list(self.actors), "start": self.start, "end": self.end, "gloss": self.gloss}
        if self.rule:
            d["rule"] = True
        if self.procedure:
            d["procedure"] = self.procedure
        if self.text_file:
            d["text_file"] = self.text_file
        if self.options:
            d["options"] = list(self.options)
        if self.section:
            d["section"] = self.section
        return d


@dataclass(frozen=True)
class Shot:
    """One arrow loosed: who, which arrow, in which round, when it left the string and landed, whether it
    hit, on which side it counts (上射 右, 下射 左, as the 释获者 counts them), whether it was loosed on
    the drum's beat, whether a tally was laid for it (a hit, and in the round with music only on the
    beat: 不鼓不释), and where it landed."""

    archer: str
    arrow: str
    round: int
    loose: float
    land: float
    hit: bool
    side: str
    on_beat: bool
    counted: bool
    at: tuple[float, float, float]

    def to_dict(self) -> dict[str, Any]:
        return {"archer": self.archer, "arrow": self.arrow, "round": self.round, "loose": self.loose,
                "land": self.land, "hit": self.hit, "side": self.side, "on_beat": self.on_beat,
                "counted": self.counted, "at": list(self.at)}


@dataclass(frozen=True)
class Music:
    """The piece a round is shot to, and the times of the drum's 节 (间若一: evenly spaced)."""

    piece: str
    beats: tuple[float, ...]

    def to_dict(self) -> dict[str, Any]:
        return {"piece": self.piece, "beats": list(self.beats)}


@dataclass(frozen=True)
class Piece:
    """A piece of music played, from ``start`` to ``end`` (plan seconds): the 驺虞 the third round is shot to,
    the 無筭樂 (鄉樂 without count), the 陔 drummed as the guest leaves; ``beats``: its drum's 节, if any."""

    piece: str
    start: float
    end: float
    beats: tuple[float, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {"piece": self.piece, "start": self.start, "end": self.end, "beats": list(self.beats)}


@dataclass(frozen=True)
class Score:
    """A round as the tallies count it: the tallies of each side, the result and the words of the report."""

    round: int
    right: int
    left: int
    result: str                 # 右贤于左 | 左贤于右 | 左右钧
    announced: str

    def to_dict(self) -> dict[str, Any]:
        return {"round": self.round, "右": self.right, "左": self.left, "result": self.result,
                "announced": self.announced}


@dataclass(frozen=True)
class LayoutRef:
    """The reading a plan was made on: its name, file and sources; and the evidence (issue 32): its sources
    once with their provenance (``bibliography``), every dimension it sets with its basis (``dimensions``),
    the basis of each option it chooses (``option_basis``) and the evidence view's legend."""

    name: str
    name_en: str = ""
    file: str = ""
    sources: tuple[str, ...] = ()
    bibliography: dict[str, Any] = field(default_factory=dict)      # id → kind, title, edition, transcription, file
    dimensions: dict[str, Any] = field(default_factory=dict)        # "building.width" → value, basis, evidence
    option_basis: dict[str, Any] = field(default_factory=dict)      # option → choice, basis
    evidence_legend: dict[str, Any] = field(default_factory=dict)   # kind → label, colour

    @classmethod
    def of(cls, reading: Reading) -> "LayoutRef":
        return cls(reading.name, reading.name_en, reading.file, tuple(reading.sources),
                   {k: v.as_plan() for k, v in reading.bibliography.items()}, dict(reading.dimensions),
                   {k: {"choice": reading.options[k][0], "basis": [b.as_plan() for b in v]}
                    for k, v in reading.option_basis.items()},
                   legend_json() if reading.bibliography else {})

    def to_dict(self) -> dict[str, Any]:
        d = {"name": self.name, "name_en": self.name_en, "file": self.file, "sources": list(self.sources)}
        for k in ("bibliography", "dimensions", "option_basis", "evidence_legend"):
            if getattr(self, k):
                d[k] = getattr(self, k)
        return d


# ---------------------------------------------------------------------------
# the plan

@dataclass(eq=False)
class Plan:
    """The whole plan (``xiangshe-plan/1``)."""

    layout: LayoutRef
    text: dict[str, str]
    measures: dict[str, float]
    hall: dict[str, Any]
    landmarks: dict[str, Landmark]
    actors: dict[str, Actor]
    props: dict[str, Prop]
    events: list[Event]
    duration: float
    parameters: dict[str, Any] = field(default_factory=dict)
    options: dict[str, Any] = field(default_factory=dict)
    conflicts: list[str] = field(default_factory=list)
    shots: list[Shot] = field(default_factory=list)
    music: Music | None = None
    score: list[Score] = field(default_factory=list)
    pieces: list[Piece] = field(default_factory=list)        # every piece of music played, in order
    extra: dict[str, Any] = field(default_factory=dict)      # fields this version does not know, kept as read
    format: str = FORMAT

    @classmethod
    def of_ground(cls, reading: Reading) -> "Plan":
        """A plan of the ground alone (its landmarks, nobody on it): for what a reading says by itself."""
        return cls(layout=LayoutRef.of(reading), text={},
                   measures={"chi_m": reading.units.chi_m, "bu_m": round(reading.units.bu_m, 6)},
                   hall={"height_m": reading.hall_height, "footprint": [list(p) for p in reading.hall_footprint]},
                   landmarks=dict(reading.landmarks), actors={}, props={}, events=[], duration=0.0)

    # -- look-ups
    def track(self, ident: str) -> Track:
        """The track of a person or a prop."""
        if ident in self.actors:
            return self.actors[ident].track
        return self.props[ident].track

    @property
    def hall_height(self) -> float:
        return float(self.hall.get("height_m") or 0.0)

    def events_by_start(self) -> list[Event]:
        return sorted(self.events, key=lambda e: e.start)

    def event(self, ident: str) -> Event | None:
        return next((e for e in self.events if e.id == ident), None)

    def current_event(self, t: float, linger: float = 1.5, events: Sequence[Event] | None = None) -> Event | None:
        """The event performed at t (the latest started), or the last one for ``linger`` s after its end."""
        cur = last = None
        for e in events if events is not None else self.events_by_start():
            if e.start > t:
                break
            if t < e.end:
                cur = e
            last = e
        if cur is not None:
            return cur
        if last is not None and t - last.end < linger:
            return last
        return None

    def time_of(self, point: float | int | str | None, end: bool = False) -> float:
        """Plan seconds of a point of the passage: seconds (float), a footnote number (int), an event id
        (str); None = the beginning (or, with ``end``, the end).  ValueError if there is no such point."""
        if point is None:
            return self.duration if end else 0.0
        if isinstance(point, str) and point.strip().lstrip("-").isdigit():
            point = int(point)
        if isinstance(point, bool):
            raise ValueError(f"not a point of the passage: {point!r}")
        if isinstance(point, int):
            hits = [e for e in self.events if e.footnote == point]
            if not hits:
                raise ValueError(f"no event with footnote {point}")
            return max(e.end for e in hits) if end else min(e.start for e in hits)
        if isinstance(point, str):
            hit = self.event(point)
            if hit is None:
                raise ValueError(f"no event {point!r}")
            return hit.end if end else hit.start
        return float(point)

    def positions(self, times, ids: Sequence[str] | None = None) -> tuple[list[str], np.ndarray]:
        """Everyone's (or the given people's) positions at the times: (ids, array (n, len(times), 3))."""
        ids = list(self.actors) if ids is None else list(ids)
        ts = np.asarray(times, float)
        if not ids:
            return ids, np.zeros((0, len(ts), 3))
        return ids, np.stack([self.track(i).at(ts)[0] for i in ids])

    # -- JSON
    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {
            "format": self.format,
            "layout": self.layout.to_dict(),
            "text": dict(self.text),
            "measures": dict(self.measures),
            "parameters": dict(self.parameters), "options": dict(self.options),
            "hall": dict(self.hall),
            "landmarks": {k: v.as_plan() for k, v in self.landmarks.items()},
            "actors": {k: a.to_dict() for k, a in self.actors.items()},
            "props": {k: p.to_dict() for k, p in self.props.items()},
            "events": [e.to_dict() for e in self.events],
            "duration": self.duration,
            "conflicts": list(self.conflicts),
        }
        if self.shots or self.music or self.score:
            d["shots"] = [x.to_dict() for x in self.shots]
            d["music"] = self.music.to_dict() if self.music else None
            d["score"] = [x.to_dict() for x in self.score]
        if self.pieces:
            d["pieces"] = [x.to_dict() for x in self.pieces]
        d.update(self.extra)
        return d

    def to_json(self) -> str:
        """The plan as JSON text (UTF-8, one space indent, keys in the format's order)."""
        return json.dumps(self.to_dict(), ensure_ascii=False, indent=1, sort_keys=False, allow_nan=False) + "\n"

    def save(self, path: str | Path) -> Path:
        """Write the plan; the file appears only when complete."""
        with atomic_path(path) as tmp:
            tmp.write_text(self.to_json(), encoding="utf-8")
        return Path(path)

    @classmethod
    def from_json(cls, text: str, file: str = "plan") -> "Plan":
        """Read a plan from JSON text; a malformed one raises :class:`InputError` naming the place.
        Strict JSON: ``NaN`` and ``Infinity`` are refused, as are numbers of more than 4300 digits
        and nesting deeper than Python can follow."""
        try:
            data = json.loads(text, parse_constant=no_constant)
        except json.JSONDecodeError as e:
            raise InputError(file, f"line {e.lineno}", f"not JSON ({e.msg})") from None
        except ValueError as e:
            raise InputError(file, "", f"not a plan: {str(e).splitlines()[0]}") from None
        except RecursionError:
            raise InputError(file, "", "not a plan: JSON nested too deep") from None
        try:
            return cls.from_dict(data, file)
        except RecursionError:
            raise InputError(file, "", "not a plan: nested too deep") from None

    @classmethod
    def load(cls, path: str | Path) -> "Plan":
        """Read a saved plan file (bad input: :class:`InputError`)."""
        return cls.from_json(read_text(path, str(path), what="plan file", max_bytes=MAX_PLAN_BYTES), str(path))

    @classmethod
    def from_dict(cls, data: Any, file: str = "plan") -> "Plan":
        from .plan_reader import PlanReader        # the format check, one module of its own
        return PlanReader(file).plan(data)


def no_constant(name: str) -> None:
    """JSON's NaN and Infinity are not numbers a plan allows (``json.loads(parse_constant=...)``)."""
    raise ValueError(f"{name} is not a number JSON allows")
