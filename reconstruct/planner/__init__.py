"""The movement planner: from the rite's events and a reading to every person's track (a Plan)."""
from .core import Pace, PlanError, Planner, make_plan, summary

__all__ = ["make_plan", "Planner", "Pace", "PlanError", "summary"]
