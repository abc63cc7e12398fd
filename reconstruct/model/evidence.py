"""The evidence an element rests on (issue 32): a reading's sources, each once with its provenance,
and each element's basis — the text itself, 鄭's commentary, 賈's subcommentary, a later reading,
an excavation, or a choice of this project's with its reason.

:class:`Source` and :class:`Basis` are what a reading's ``[sources]`` and ``basis = [...]`` resolve
to; :func:`evidence_kind` is the one rule that gives an element its kind (its colour in the evidence
view); :data:`EVIDENCE_STYLE` declares each kind's label and colour once for every output (the stills
and the video, the report, the page through the plan).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable

from .vocabulary import EvidenceKind

__all__ = ["Source", "Basis", "evidence_kind", "EVIDENCE_STYLE", "PLACEMENT_FIELDS", "basis_text",
           "legend_json", "hex_rgb", "evidence_rgb", "prop_evidence", "PROP_LANDMARK"]

# A basis entry may say which field of its element it fixes (``of``); these fix where the element
# stands, so they decide its kind; a basis of its size or heading alone does not.
PLACEMENT_FIELDS = ("at", "x", "y", "spacing")

# label, colour (sRGB hex): the legend of the evidence view, in the order of the legend.
EVIDENCE_STYLE: dict[EvidenceKind, tuple[str, str]] = {
    EvidenceKind.TEXT: ("the text (經/記)", "#2f6fd0"),
    EvidenceKind.COMMENTARY: ("鄭玄's commentary", "#23a3a0"),
    EvidenceKind.SUBCOMMENTARY: ("賈公彥's subcommentary", "#5cb85c"),
    EvidenceKind.LATER: ("a later reading (義疏, 敖, 朱子, 江永 …)", "#e0a020"),
    EvidenceKind.EXCAVATION: ("an excavation (鳳雛, bronze rulers)", "#a05cc8"),
    EvidenceKind.CHOSEN: ("CHOSEN by this project", "#d8403a"),
}


def hex_rgb(colour: str) -> tuple[float, float, float]:
    """``#rrggbb`` as three floats in 0…1."""
    c = colour.lstrip("#")
    return tuple(int(c[i:i + 2], 16) / 255.0 for i in (0, 2, 4))       # type: ignore[return-value]


def evidence_rgb(kind: str) -> tuple[float, float, float]:
    """The colour of a kind of evidence, three floats in 0…1."""
    return hex_rgb(EVIDENCE_STYLE[EvidenceKind(kind)][1])


# a movable thing set out where a landmark of the reading stands: its place has that landmark's basis
PROP_LANDMARK = {"中": "中", "楅": "楅", "丰": "丰位", "侯": "侯"}


def prop_evidence(kind: str, landmarks: dict) -> EvidenceKind:
    """The evidence of a movable thing (the evidence view's colour of a prop): where the reading sets it out
    at a landmark of its own (the 中, the 楅, the 丰 …), that landmark's; otherwise the text's — every prop
    is a noun of the text (觯, 爵, 弓, 矢, 算, 旌, 荐, 俎, 扑 …), carried where the plan has the text's acts
    carry it."""
    lm = landmarks.get(PROP_LANDMARK.get(kind, ""))
    if lm is not None and getattr(lm, "evidence", ""):
        return EvidenceKind(lm.evidence)
    return EvidenceKind.TEXT


def legend_json() -> dict[str, dict[str, str]]:
    """The legend as the plan carries it (``layout.evidence_legend``): kind → label, colour."""
    return {str(k): {"label": lab, "colour": col} for k, (lab, col) in EVIDENCE_STYLE.items()}


@dataclass(frozen=True)
class Source:
    """A source a reading cites, once: what it is and where the words quoted were read."""

    id: str
    kind: EvidenceKind
    title: str
    edition: str = ""
    transcription: str = ""
    file: str = ""

    def as_plan(self) -> dict[str, Any]:
        return {"kind": str(self.kind), "title": self.title, "edition": self.edition,
                "transcription": self.transcription, "file": self.file}

    def provenance(self) -> str:
        """One line: title, edition, transcription."""
        return ", ".join(x for x in (self.title, self.edition, self.transcription) if x)


@dataclass(frozen=True)
class Basis:
    """One entry of an element's basis: a source with its locator and the words quoted, or a choice
    (``chosen``: the reason) where no source fixes it; ``of`` names the field it fixes, if one."""

    source: str | None = None
    at: str = ""
    quote: str = ""
    chosen: str | None = None
    of: str | None = None

    def as_plan(self) -> dict[str, Any]:
        d: dict[str, Any] = {"source": self.source, "at": self.at, "quote": self.quote} if self.source else \
            {"chosen": self.chosen}
        if self.of:
            d["of"] = self.of
        return d

    @classmethod
    def from_plan(cls, d: dict[str, Any]) -> "Basis":
        return cls(d.get("source"), d.get("at", ""), d.get("quote", ""), d.get("chosen"), d.get("of"))

    def text(self, sources: dict[str, Source] | None = None) -> str:
        if self.source is None:
            return f"CHOSEN: {self.chosen}"
        where = f" {self.at}" if self.at else ""
        return f"{self.source}{where}: {self.quote}"


def evidence_kind(basis: Iterable[Basis], sources: dict[str, Source]) -> EvidenceKind | None:
    """The kind of evidence an element's place rests on: CHOSEN if a choice of this project fixes any part of
    its place; else the kind of the first source that fixes its place (an entry ``of`` at/x/y/spacing),
    else of the first source cited for the element as a whole.  None for no basis."""
    entries = list(basis)
    placing = [b for b in entries if b.of is None or b.of in PLACEMENT_FIELDS]
    if any(b.chosen is not None for b in placing):
        return EvidenceKind.CHOSEN
    for b in [b for b in placing if b.of is not None] + [b for b in placing if b.of is None]:
        if b.source in sources:
            return sources[b.source].kind
    return None


def basis_text(basis: Iterable[Basis]) -> str:
    """The basis as one line (the plan's ``cite``, the labels)."""
    return "; ".join(b.text() for b in basis)
