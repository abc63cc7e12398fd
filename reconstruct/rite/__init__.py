"""The rite as data: the YAML rite script, loaded, expanded and checked."""
from ..model.rite import Action, Event, Initial, Person, Prop, Rite
from .actions import VERBS
from .errors import RiteError
from .loader import load_rite, load_rite_with_report

__all__ = ["load_rite", "load_rite_with_report", "Rite", "RiteError", "VERBS", "Action", "Event", "Initial",
           "Person", "Prop"]
