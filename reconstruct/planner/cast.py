"""The rite's people and props where the rite script places them when the passage begins: every person a
body on the ground (people given one spot spread round it), every prop lying where it is placed (props
placed relative to another prop after it) or in the hand of the one who holds it."""
from __future__ import annotations

from ..model.vocabulary import Posture, PropPosture
from ..text.names import NameIndex, traditional
from ..text.placement import heading_of, parse_place
from .bodies import Body, PropBody
from .custody import Custody
from .occupancy import Occupancy
from .places import Places
from .state import PlanState
from .walkable import HALL


def names_of(reading, rite) -> NameIndex:
    """The names a place expression may use: the reading's landmarks (with their traditional forms and
    aliases), the rite's people (with theirs) and props."""
    names = NameIndex()
    for lm in reading.landmarks.values():
        names.add(lm.id, [traditional(lm.id), *lm.aliases])
    for p in rite.people:
        names.add(p.id, p.aliases)
    for p in rite.props:
        names.add(p.id)
    return names


def place_cast(state: PlanState, rite, places: Places, occupancy: Occupancy, custody: Custody) -> None:
    """Put everyone and everything where the rite script's initial state has them, at time 0."""
    H = state.reading.hall_height
    for p in rite.people:
        if p.id not in rite.initial:
            state.fail(f"{p.id} has no initial place")
    for p in rite.people:
        ini = rite.initial[p.id]
        state.current_who = p.id
        x, y, level, fh = places.initial_place(p.id, ini.at)
        heading = heading_of(ini.heading) if ini.heading else (fh if fh is not None else 0.0)
        b = state.add_body(Body(p.id, x, y, H if level == HALL else 0.0, heading, ini.posture or Posture.STAND,
                                level, kinds=state.prop_kinds))
        # spread people given the same spot (e.g. the 弟子 at 堂西)
        x2, y2 = occupancy.free_spot(b, x, y, level, 0.0)
        b.x, b.y = x2, y2
        state.bodies[p.id] = b
        b.key(0.0)
        b.set_state(0.0, bare_left_arm=ini.bare, gear=ini.gear, bow=ini.bow, holding=list(ini.holds))
    state.current_who = ""
    pending = list(rite.props)
    while pending:
        later = []
        for pr in pending:
            ini = rite.initial.get(pr.id)
            if ini is None:
                state.fail(f"prop {pr.id} has no initial place")
            base = None if ini.held_by else parse_place(ini.at, places.names).base
            if base and base not in state.reading.landmarks and base not in state.bodies and base not in state.props:
                later.append(pr)       # placed relative to a prop not placed yet
                continue
            _place_prop(state, places, custody, pr, ini)
        if len(later) == len(pending):
            state.fail(f"props placed relative to each other in a cycle: {', '.join(p.id for p in later)}")
        pending = later


def _place_prop(state: PlanState, places: Places, custody: Custody, pr, ini) -> None:
    H = state.reading.hall_height
    heading = heading_of(ini.heading) if ini.heading else 0.0
    if ini.held_by:
        b = state.bodies[ini.held_by]
        state.props[pr.id] = PropBody(pr.id, pr.kind, b.x, b.y, b.z + 1.0, heading)
        custody.carry(pr.id, ini.held_by, 0.0)
    else:
        x, y, level, _ = places.resolve(ini.at)
        z = H if level == HALL else 0.0
        state.props[pr.id] = PropBody(pr.id, pr.kind, x, y, z, heading)
        state.props[pr.id].keys.append([0.0, round(x, 4), round(y, 4), round(z, 4), round(heading, 2), PropPosture.REST])
