"""The planning state: what every part of the planner reads and writes while a rite is planned.

One :class:`PlanState` holds the ground, the pace, the people and props as planned so far (their keys),
the index of where tracks go, the event being planned (for error messages), what the planner explains and
the conflicts it could not resolve.  The parts (:mod:`.occupancy`, :mod:`.walking`, :mod:`.courtesy` …) are
each given the state and the few other parts they call; none of them holds another's state.  A state can be
made for a reading alone, with a few bodies added by hand, to try one part without the rite.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, NamedTuple, NoReturn

from ..model.reading import Reading
from .bodies import Body, PropBody, TrackIndex
from .errors import PlanError
from .pace import Pace
from .walkable import Ground

RITE_FILE = "assets/rite/rite.yaml"       # named in errors when the rite came from nowhere in particular


class LastWalk(NamedTuple):
    """Someone's last walk, as the walking part wrote it: the event it belongs to, when he set out, from
    where, by which corners (x, y, z, kind), and the index of the first of its keys in his track."""

    event: str
    set_out: float
    start: tuple[float, float]
    corners: list
    first_key: int


@dataclass(eq=False)
class PlanState:
    """Everything the planner's parts share while a rite is planned (see the module's docstring)."""

    reading: Reading
    pace: Pace = field(default_factory=Pace)
    source: str = RITE_FILE                   # the rite script's file, named in errors
    ground: Ground | None = None              # made from the reading when not given
    bodies: dict[str, Body] = field(default_factory=dict)
    props: dict[str, PropBody] = field(default_factory=dict)
    by_slot: list[Body] = field(default_factory=list)       # bodies by their row in the track index
    track_index: TrackIndex = field(default_factory=lambda: TrackIndex(0))
    aliases: dict[str, str] = field(default_factory=dict)   # another name of a person → his id
    prop_kinds: dict[str, str] = field(default_factory=dict)
    explain: list[str] = field(default_factory=list)         # why each path goes where it goes (--explain)
    conflicts: list[str] = field(default_factory=list)       # what no wait or way round resolved
    event_times: dict[str, tuple[float, float]] = field(default_factory=dict)
    stated: dict[str, tuple[str, float]] = field(default_factory=dict)   # the facing the text gave someone
    walks: dict[str, LastWalk] = field(default_factory=dict)             # each person's last walk
    current: Any = None               # the event being planned, for error messages
    current_who: str = ""             # … and the person
    deferrable: bool = False          # whether a blocked walk may be put back after the others' in its step
    # one going back to his mat whom those standing left no way there, stood aside: who → (the mat's spot,
    # the facing he was given); he goes on as soon as the way opens (Walking.resume), unless he acts first
    to_seat: dict[str, tuple[tuple[float, float, str], float]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.ground is None:
            self.ground = Ground(self.reading)

    @property
    def event_id(self) -> str:
        """The id of the event being planned ('' before the first)."""
        return self.current.id if self.current else ""

    def fail(self, what: str) -> NoReturn:
        """Stop planning: one line naming the event, the person and what is wrong."""
        ev = self.current
        where = f"event {ev.id} “{ev.text}” [{ev.span[0]}:{ev.span[1]}]" if ev else "initial state"
        who = f" ({self.current_who})" if self.current_who else ""
        raise PlanError(ev.source if ev is not None and ev.source else self.source, where + who, what)

    def body(self, who: str) -> Body:
        """The body of a person named by his id or one of his other names."""
        who = self.aliases.get(who, who)
        if who not in self.bodies:
            self.fail(f"unknown person {who}")
        return self.bodies[who]

    def add_body(self, b: Body) -> Body:
        """Add a person: he gets the next row of the track index (grown when full) and his keys go into it."""
        slot = len(self.by_slot)
        self.track_index.reserve(slot + 1)
        b.index, b.slot = self.track_index, slot
        self.by_slot.append(b)
        return b
