"""What the planner raises."""
from __future__ import annotations

from ..errors import InputError


class Blocked(Exception):
    """A walk that no wait makes clear while people in its way have yet to be planned to move."""


class PlanError(InputError):
    """A rite that cannot be performed on a reading: one line naming the event and the person."""

