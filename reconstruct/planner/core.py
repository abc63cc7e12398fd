"""The movement planner: from the rite's events and a reading to every person's track.

The planner walks the events in the order the ``after`` graph and time allow
(events whose predecessors are done start together), and performs each
person's actions in turn: routes on the walkable ground (:mod:`.walkable`),
climbs stairs one step at a time, turns, kneels, bows, hands things over.
Conflicts between people are resolved by waiting, in rank order of planning
(prioritised planning), never by random steering, so the same inputs give the
same plan byte for byte.  The result is the ``xiangshe-plan/1`` document of
``shared/docs/plan-format.md``; every output reads it and none re-plans.
"""
from __future__ import annotations

import gc
import heapq
from contextlib import contextmanager
from typing import Any

from ..text.names import NameIndex, traditional
from ..layout.reading import Reading
from ..model.plan import FORMAT  # noqa: F401 (re-exported)
from ..model.plan import Plan
from .actions import Actions
from .courtesy import Courtesy
from .shooting import Shooting
from .tallies import Tallies
from .document import Document
from .occupancy import Occupancy
from .state import RITE_FILE, PlanState
from .pairs import Pairs
from .routes import Routes
from .moves import Moves
from .places import Places
from .cast import names_of, place_cast
from .custody import Custody
from .handling import Handling
from .walking import Walking
from .errors import Blocked, PlanError
from .pace import Pace
from .bodies import Body, PropBody, TrackIndex


class Planner(Actions, Shooting, Tallies, Document):
    """Plan a rite on a reading.  ``Planner(reading, rite).run()`` returns the plan document."""

    def __init__(self, reading: Reading, rite, pace: Pace = Pace()) -> None:
        self.rite = rite
        self.state = st = PlanState(reading, pace, source=getattr(rite, "file", "") or RITE_FILE,
                                    track_index=TrackIndex(len(rite.people)),
                                    aliases={a: p.id for p in rite.people for a in p.aliases},
                                    prop_kinds={p.id: p.kind for p in rite.props})
        self.reading, self.pace, self.ground = reading, pace, st.ground
        self.bodies, self.props, self.explain, self.conflicts = st.bodies, st.props, st.explain, st.conflicts
        self.event_times = st.event_times
        self.aliases, self.prop_kinds, self.stated = st.aliases, st.prop_kinds, st.stated
        self.occupancy = Occupancy(st)
        self.routes = Routes(st, self.occupancy)
        self.moves = Moves(st, self.occupancy)
        self.pairs = Pairs(st, self.occupancy, self.routes, Pairs.of_groups(rite.groups))
        self.walking = Walking(st, self.occupancy, self.routes, self.pairs, self.moves)
        self.custody = Custody(st)
        self.places = Places(st, self.occupancy, names_of(reading, rite), rite.formations)
        self.handling = Handling(st, self.walking, self.moves, self.custody, self.places)
        self.courtesy = Courtesy(st, self.occupancy, self.moves, self.places, self.pairs, self.handling)
        self._init_archery()

    current = property(lambda self: self.state.current, lambda self, v: setattr(self.state, "current", v))
    current_who = property(lambda self: self.state.current_who,
                           lambda self, v: setattr(self.state, "current_who", v))
    _deferrable = property(lambda self: self.state.deferrable, lambda self, v: setattr(self.state, "deferrable", v))

    def fail(self, what: str) -> None:
        self.state.fail(what)

    def run(self) -> Plan:
        with _without_cyclic_gc():
            return self._run()

    def _run(self) -> Plan:
        place_cast(self.state, self.rite, self.places, self.occupancy, self.custody)
        self.arrange_arrows_on_rack()
        self.arrange_tallies()
        events = self.rite.events
        index = {e.id: i for i, e in enumerate(events)}
        ends: dict[str, float] = {}
        waiting = {e.id: set(e.after) for e in events}
        dependents: dict[str, list[str]] = {}
        for e in events:
            for a in e.after:
                dependents.setdefault(a, []).append(e.id)
        ready = [(0.0, index[e.id], e.id) for e in events if not e.after]
        heapq.heapify(ready)
        done = 0
        while ready:
            start, _, eid = heapq.heappop(ready)
            ev = events[index[eid]]
            end = self.perform(ev, start)
            ends[eid] = end
            self.event_times[eid] = (start, end)
            done += 1
            for d in dependents.get(eid, []):
                waiting[d].discard(eid)
                if not waiting[d]:
                    s = max(ends[a] for a in events[index[d]].after)
                    heapq.heappush(ready, (s, index[d], d))
        if done != len(events):
            stuck = [e.id for e in events if e.id not in ends][:3]
            raise PlanError(self.state.source, "events", f"events never become ready (missing or cyclic `after`): {stuck}")
        return self.document()

    def perform(self, ev, start: float) -> float:
        self.current = ev
        self.explain.append(f"{ev.id} [{ev.span[0]}:{ev.span[1]}] {ev.text}")
        if ev.rule or not ev.actions:
            return start
        phases: list[list] = [[]]
        for a in ev.actions:
            if a.verb == "sync":
                phases.append([])
            else:
                phases[-1].append(a)
        t = start
        for phase in phases:
            people = {self.aliases.get(a.who, a.who) for a in phase}
            for pid in sorted(people):
                b = self._body(pid)
                if b.t < t:
                    b.hold_until(t)
            self._perform_phase(phase)
            self.current_who = ""
            t = max([t, *[self._body(p).t for p in people]])
        return t

    def _perform_phase(self, phase: list) -> None:
        """The actions of one phase in order; someone whose way is blocked by people who have not yet
        been planned to move (they move later in the phase) is planned after them instead, when nothing
        the others do in the phase depends on him."""
        queue = list(phase)
        deferred: dict[str, int] = {}      # who → how many actions had been done when he was put back
        done = 0
        i = 0
        while i < len(queue):
            a = queue[i]
            who = self.aliases.get(a.who, a.who)
            self.current_who = a.who
            self._deferrable = deferred.get(who, -1) < done and self._independent(who, queue[i:])
            try:
                self.act(self._body(a.who), a)
                done += 1
            except Blocked:
                deferred[who] = done
                mine = [x for x in queue[i:] if self.aliases.get(x.who, x.who) == who]
                queue = queue[:i] + [x for x in queue[i:] if self.aliases.get(x.who, x.who) != who] + mine
                self.explain.append(f"  {who} lets the others in this step go first: his way is blocked")
                continue
            i += 1
        self._deferrable = False

    def _independent(self, who: str, rest: list) -> bool:
        """Whether the others' remaining actions could run before his: no hand-over with him, nothing
        placed relative to him, none of the things he holds or handles, and others still to move."""
        b = self.bodies[who]
        names = {who, *(a for a, p in self.aliases.items() if p == who)}
        mine = [x for x in rest if self.aliases.get(x.who, x.who) == who]
        theirs = [x for x in rest if self.aliases.get(x.who, x.who) != who]
        if not theirs or any(x.other for x in mine):
            return False
        props = set(b.state.get("holding", [])) | {x.prop for x in mine if x.prop}
        for x in theirs:
            if x.prop in props:
                return False
            fields = [x.other or "", x.place or "", x.heading or "", *x.via]
            if any(n in f for n in names for f in fields):
                return False
        return True

    def _body(self, who: str) -> Body:
        who = self.aliases.get(who, who)
        if who not in self.bodies:
            self.fail(f"unknown person {who}")
        return self.bodies[who]




@contextmanager
def _without_cyclic_gc():
    """Planning keeps tens of thousands of small lists (every key of every track) until the plan is
    written; Python's cycle collector would scan all of them again at each of its full passes, which
    come more often the more is allocated, so the cost grows with the square of the plan.  Planning makes
    no reference cycles worth collecting before it ends: the collector is paused meanwhile (and left as
    it was found).  Memory is still freed by reference counting."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


def make_plan(reading: Reading, rite, pace: Pace = Pace()) -> Plan:
    """Plan a rite on a reading; returns the :class:`~reconstruct.model.plan.Plan`."""
    return Planner(reading, rite, pace).run()


def summary(plan: Plan) -> str:
    lines = [f"{plan.layout.name}: {len(plan.events)} events, {len(plan.actors)} people, "
             f"{len(plan.props)} props; the passage lasts {plan.duration / 60:.1f} min ({plan.duration:.0f} s)"]
    walked = sorted(((a.walked_m, k) for k, a in plan.actors.items()), reverse=True)
    lines.append("walking: " + ", ".join(f"{k} {w:.0f} m" for w, k in walked[:8]))
    lines.append(f"conflicts left: {len(plan.conflicts)}")
    return "\n".join(lines)
