"""The rite as data: the YAML rite script, loaded, expanded and checked."""
from .loader import VERBS, Rite, RiteError, load_rite, load_rite_with_report

__all__ = ["load_rite", "load_rite_with_report", "Rite", "RiteError", "VERBS"]
