"""Readings: one scholar's layout of the ritual ground, a TOML file resolved to coordinates."""
from .reading import alternative_places, list_readings, load_reading, reading_path, reading_variant

__all__ = ["load_reading", "list_readings", "reading_path", "reading_variant", "alternative_places"]
