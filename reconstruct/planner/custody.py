"""Who holds each prop, and where it lies when nobody does: the props' carriers and rest keys, and what
each person's hands hold (a state that shapes his outline)."""
from __future__ import annotations

from .bodies import Body
from .state import PlanState


class Custody:
    """Props taken up, handed over and set down (the state's props; a person's ``holding``)."""

    def __init__(self, state: PlanState) -> None:
        self.state = state

    def carry(self, prop_id: str, who: str | None, t: float, how: str = "carried") -> None:
        """From time t the prop is in someone's hand (or, ``how="tucked"``, in his belt), or nobody's."""
        pr = self.state.props.get(prop_id)
        if pr is None:
            self.state.fail(f"unknown prop {prop_id}")
        if pr.carrier == who and (who is None or pr.how == how):
            return
        if pr.carrier is not None and pr.intervals and pr.intervals[-1][2] is None:
            pr.intervals[-1][2] = t
        if pr.carrier != who:
            pr.carriers.append([round(t, 3), who])
        pr.carrier, pr.how = who, how
        if who is not None:
            pr.intervals.append([who, t, None, how])

    def set_down(self, prop_id: str, x: float, y: float, z: float, t: float, heading: float | None = None,
                 posture: str = "rest") -> None:
        """The prop lies (or, ``posture="upright"``, stands) at (x, y, z) from time t, turned to ``heading``."""
        pr = self.state.props[prop_id]
        self.carry(prop_id, None, t)
        pr.x, pr.y, pr.z = x, y, z
        if heading is not None:
            pr.heading = heading % 360
        pr.keys.append([round(t, 3), round(x, 4), round(y, 4), round(z, 4), round(pr.heading, 2), posture])

    @staticmethod
    def hold_things(b: Body, t: float, add: str | None = None, remove: str | None = None) -> None:
        """What one holds from time t: ``add`` taken into the hand, ``remove`` set down or handed over."""
        held = set(b.state.get("holding", []))
        if add:
            held.add(add)
        if remove:
            held.discard(remove)
        b.set_state(t, holding=sorted(held))
