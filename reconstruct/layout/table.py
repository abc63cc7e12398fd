"""A reading's resolved coordinates as a table for the terminal."""
from __future__ import annotations

import unicodedata

from ..model.reading import Reading


def _width(text: str) -> int:
    """Display width in a terminal: CJK characters take two columns."""
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)


def layout_table(reading: Reading) -> str:
    """A readable table of the resolved landmarks."""
    rows = [f"{reading.name} ({reading.name_en}) — {reading.file}",
            f"1 尺 = {reading.units.chi_m} m, 1 步 = {reading.units.bu_m:.3f} m; building: {reading.building_type}; "
            f"hall {reading.hall_height:.2f} m high",
            "",
            f"{'landmark':<10}{'x east':>8} {'y north':>9} {'z':>6} {'facing':>6}  placed by",
            "-" * 78]
    for lm in reading.landmarks.values():
        x, y, z = lm.position
        facing = "" if lm.heading is None else f"{lm.heading:.0f}°"
        name = lm.id + " " * max(1, 10 - _width(lm.id))
        rows.append(f"{name}{x:8.2f} {y:9.2f} {z:6.2f} {facing:>6}  {lm.placed_by}")
    return "\n".join(rows)
