"""The movement planner: from the rite's events and a reading to every person's track.

The planner walks the events in the order the ``after`` graph and time allow
(events whose predecessors are done start together), and performs each
person's actions in turn: routes on the walkable ground (:mod:`.walkable`),
climbs stairs one step at a time, turns, kneels, bows, hands things over.
Conflicts between people are resolved by waiting, in rank order of planning
(prioritised planning), never by random steering, so the same inputs give the
same plan byte for byte.  The result is the ``xiangshe-plan/1`` document of
``shared/docs/plan-format.md``; every output reads it and none re-plans.

:class:`Planner` holds the planning state (:class:`.state.PlanState`) and the parts that act on it, each
made with the state and the few other parts it calls (:func:`build_parts`); the verb table
(:mod:`.actions`) performs each action with them.
"""
from __future__ import annotations

import gc
import heapq
from contextlib import contextmanager

from ..model.reading import Reading
from ..model.plan import FORMAT  # noqa: F401 (re-exported)
from ..model.plan import Plan
from .actions import Parts, act
from .archery import RIGHT, RackLayout, TallyLayout, rounds_of, shooting_order
from .arrows import Arrows
from .bodies import Body, TrackIndex
from .cast import names_of, place_cast
from .courtesy import Courtesy
from .custody import Custody
from .document import Document
from .errors import Blocked, PlanError
from .handling import Handling
from .moves import Moves
from .occupancy import Occupancy
from .pace import Pace
from .pairs import Pairs
from .places import Places
from .routes import Routes
from .shooting import Shooting
from .state import RITE_FILE, PlanState
from .tallies import Tallies
from .walking import Walking


def build_parts(state: PlanState, rite) -> Parts:
    """The planner's parts for a rite, each made with the state and the parts it calls (in that order:
    none calls a part made after it)."""
    reading = state.reading
    order = shooting_order(rite.groups)
    occupancy = Occupancy(state)
    routes = Routes(state, occupancy)
    moves = Moves(state, occupancy)
    pairs = Pairs(state, occupancy, routes, {down: up for up, down in order})
    walking = Walking(state, occupancy, routes, pairs, moves)
    custody = Custody(state)
    places = Places(state, occupancy, names_of(reading, rite), rite.formations)
    handling = Handling(state, walking, moves, custody, places)
    courtesy = Courtesy(state, occupancy, moves, places, pairs, handling)
    try:
        rounds = rounds_of(order, rite.archery, rite.groups, rite.options.get("victor", RIGHT))
    except ValueError as e:
        state.fail(str(e))
    tallies = Tallies(state, custody, moves, places, TallyLayout(reading))
    archers = [a for pair in order for a in pair]
    shooting = Shooting(state, custody, moves, tallies, order, rounds, rite.archery)
    arrows = Arrows(state, custody, moves, walking, handling, occupancy, places, archers,
                    RackLayout(reading, len(archers)))
    return Parts(state, occupancy, routes, moves, pairs, walking, places, custody, handling, courtesy, tallies,
                 shooting, arrows)


class Planner:
    """Plan a rite on a reading.  ``Planner(reading, rite).run()`` returns the plan document."""

    def __init__(self, reading: Reading, rite, pace: Pace = Pace()) -> None:
        self.rite = rite
        self.state = PlanState(reading, pace, source=getattr(rite, "file", "") or RITE_FILE,
                               track_index=TrackIndex(len(rite.people)),
                               aliases={a: p.id for p in rite.people for a in p.aliases},
                               prop_kinds={p.id: p.kind for p in rite.props})
        self.parts = build_parts(self.state, rite)

    @property
    def bodies(self) -> dict[str, Body]:
        """Everyone as planned (their keys, how long each waited)."""
        return self.state.bodies

    @property
    def explain(self) -> list[str]:
        """Why each path goes where it goes, line by line (``--explain``)."""
        return self.state.explain

    def run(self) -> Plan:
        with _without_cyclic_gc():
            return self._run()

    def _run(self) -> Plan:
        p = self.parts
        place_cast(self.state, self.rite, p.places, p.occupancy, p.custody)
        p.arrows.arrange_on_rack()
        p.tallies.arrange(p.shooting.rounds[2])
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
            self.state.event_times[eid] = (start, end)
            done += 1
            for d in dependents.get(eid, []):
                waiting[d].discard(eid)
                if not waiting[d]:
                    s = max(ends[a] for a in events[index[d]].after)
                    heapq.heappush(ready, (s, index[d], d))
        if done != len(events):
            stuck = [e.id for e in events if e.id not in ends][:3]
            raise PlanError(self.state.source, "events", f"events never become ready (missing or cyclic `after`): {stuck}")
        return Document(self.state, self.rite).plan(self.parts.shooting, self.parts.tallies)

    def perform(self, ev, start: float) -> float:
        """Perform an event from time ``start``, its phases (split by ``sync``) one after another; returns
        when it ends."""
        st = self.state
        st.current = ev
        st.explain.append(f"{ev.id} [{ev.span[0]}:{ev.span[1]}] {ev.text}")
        pr = ev.procedure
        if pr is not None:
            who = ", ".join(f"{k}={v}" for k, v in pr.people.items())
            st.explain.append(f"  procedure {pr.name}, step {pr.step}, performed by {pr.call}"
                              + (f" ({who})" if who else "") + (" — a repeat (如初)" if pr.repeat else ""))
            if pr.lacuna:
                st.explain.append(f"  on the page our copy lacks, the 注疏 reads: {pr.lacuna}")
            for o in pr.overrides:
                st.explain.append(f"    override: {o}")
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
            people = {st.aliases.get(a.who, a.who) for a in phase}
            for pid in sorted(people):
                b = st.body(pid)
                if b.t < t:
                    b.hold_until(t)
            self._perform_phase(phase)
            st.current_who = ""
            t = max([t, *[st.body(p).t for p in people]])
            if st.to_seat:          # one who stood aside of his mat goes on once the way opens
                self.parts.walking.resume(t)
        return t

    def _perform_phase(self, phase: list) -> None:
        """The actions of one phase in order; someone whose way is blocked by people who have not yet
        been planned to move (they move later in the phase) is planned after them instead, when nothing
        the others do in the phase depends on him."""
        st = self.state
        queue = list(phase)
        deferred: dict[str, int] = {}      # who → how many actions had been done when he was put back
        done = 0
        i = 0
        while i < len(queue):
            a = queue[i]
            who = st.aliases.get(a.who, a.who)
            st.current_who = a.who
            st.deferrable = deferred.get(who, -1) < done and self._independent(who, queue[i:])
            try:
                act(self.parts, st.body(a.who), a)
                done += 1
            except Blocked:
                deferred[who] = done
                mine = [x for x in queue[i:] if st.aliases.get(x.who, x.who) == who]
                queue = queue[:i] + [x for x in queue[i:] if st.aliases.get(x.who, x.who) != who] + mine
                st.explain.append(f"  {who} lets the others in this step go first: his way is blocked")
                continue
            i += 1
        st.deferrable = False

    def _independent(self, who: str, rest: list) -> bool:
        """Whether the others' remaining actions could run before his: no hand-over with him, nothing
        placed relative to him, none of the things he holds or handles, and others still to move."""
        aliases = self.state.aliases
        b = self.state.bodies[who]
        names = {who, *(a for a, p in aliases.items() if p == who)}
        mine = [x for x in rest if aliases.get(x.who, x.who) == who]
        theirs = [x for x in rest if aliases.get(x.who, x.who) != who]
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
