"""The resolved reading: the ground in metres (landmarks, formations, stairs), as the planner,
the renderers and the plan's ``landmarks`` see it.  Made by :mod:`reconstruct.layout` from a
reading's TOML file."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..text.names import NameIndex
from .evidence import Basis, Source
from .vocabulary import LandmarkKind
from ..text.units import Units



@dataclass(frozen=True)
class Landmark:
    """A named place of the ground, in metres."""

    id: str
    position: tuple[float, float, float]
    heading: float | None = None
    footprint: tuple[tuple[float, float], ...] | None = None
    kind: str = LandmarkKind.MARK
    size: tuple[float, float, float] | None = None
    label_en: str = ""
    aliases: tuple[str, ...] = ()
    cite: str = ""
    placed_by: str = ""        # the placement as written, or how it was derived
    basis: tuple[Basis, ...] = ()   # what it rests on (issue 32): sources with their words, or choices
    evidence: str = ""         # the kind of evidence its place rests on (EvidenceKind), "" if none given

    def as_plan(self) -> dict[str, Any]:
        d = {
            "position": [round(v, 4) for v in self.position],
            "heading": self.heading,
            "footprint": [[round(x, 4), round(y, 4)] for x, y in self.footprint] if self.footprint else None,
            "aliases": list(self.aliases),
            "kind": self.kind,
            "label_en": self.label_en,
            "placed_by": self.placed_by,
            "cite": self.cite,
        }
        if self.basis:
            d["basis"] = [b.as_plan() for b in self.basis]
            d["evidence"] = self.evidence
        return d


@dataclass(frozen=True)
class Formation:
    """A file of standing places, senior first (e.g. 射位: 东面北上)."""

    id: str
    origin: tuple[float, float, float]
    heading: float
    step: tuple[float, float]        # from one slot to the next (junior) one
    label_en: str = ""
    cite: str = ""
    slots: int | None = None         # how many places the reading gives it (None: as many as the ground holds)
    # the file turned at its end for those the ground does not hold in it (若有東面者則北上): (heading, step)
    overflow: tuple[float, tuple[float, float]] | None = None

    def slot(self, rank: int) -> tuple[float, float, float]:
        """Position of the rank-th place (1 = senior)."""
        x, y, z = self.origin
        return (x + (rank - 1) * self.step[0], y + (rank - 1) * self.step[1], z)


@dataclass(frozen=True)
class Stair:
    id: str
    x: float              # centre line
    width: float
    steps: int
    rise: float
    tread: float

    @property
    def run(self) -> float:
        return self.steps * self.tread

    def step_y(self, k: int) -> float:
        """y of the centre of the k-th step from the bottom (1..steps); the hall is step steps+1."""
        return -self.run + (k - 0.5) * self.tread


class Roof:
    """The hall's gable roof (夏屋 兩下) as a reading derives it: eaves ``eave_height`` above the floor
    at ``ys`` (south) and ``yn`` (north), the ridge over the 棟 at ``yr``; :meth:`z` is its underside."""

    def __init__(self, r: "Reading") -> None:
        p = r.params
        self.H = r.hall_height
        self.ys = -p["eave"]
        self.yn = p["depth"] + p["eave"]
        self.yr = p["y_dong"]
        self.ze = self.H + p["eave_height"]
        self.zr = self.ze + p["roof_rise"]
        self.t = 0.16                   # the roof's thickness

    def z(self, y: float) -> float:
        """Underside of the roof above a latitude y."""
        if y <= self.yr:
            f = (y - self.ys) / (self.yr - self.ys)
        else:
            f = (self.yn - y) / (self.yn - self.yr)
        return self.ze + (self.zr - self.ze) * max(0.0, min(1.0, f))


@dataclass(frozen=True)
class Reading:
    """A resolved reading: the ground in metres, ready for the planner and the renderers."""

    name: str
    name_en: str
    file: str
    summary: str
    sources: tuple[str, ...]
    units: Units
    diagonal: str
    building_type: str
    hall_height: float
    hall_footprint: tuple[tuple[float, float], ...]
    court_footprint: tuple[tuple[float, float], ...]
    gate: tuple[float, float, float]
    gate_width: float
    wall_height: float
    wall_thickness: float
    stairs: dict[str, Stair]
    landmarks: dict[str, Landmark]
    formations: dict[str, Formation]
    views: dict[str, tuple[tuple[float, float, float], tuple[float, float, float]]]
    params: dict[str, float] = field(default_factory=dict)   # derived dimensions in metres (for meshes)
    # the rite script's interpretive options as the reading's author reads them: name → (choice, cite)
    options: dict[str, tuple[str, str]] = field(default_factory=dict)
    bibliography: dict[str, Source] = field(default_factory=dict)          # the reading's sources, once
    dimensions: dict[str, dict[str, Any]] = field(default_factory=dict)   # "building.width" → value, basis, evidence
    option_basis: dict[str, tuple[Basis, ...]] = field(default_factory=dict)
    names: NameIndex = field(default_factory=NameIndex, repr=False, compare=False)

    def find(self, name: str) -> Landmark | None:
        ident = self.names.get(name)
        return self.landmarks.get(ident) if ident else None

    def landmarks_json(self) -> dict[str, Any]:
        return {k: v.as_plan() for k, v in self.landmarks.items()}


