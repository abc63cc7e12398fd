"""The text's spatial statements (``assets/statements.yaml``) and their evaluation against a plan.

A statement says where someone or something is, relative to a place or a person, when the
clause it quotes has been performed: 立于中南 (south of the 中), 北面 (facing north), 尽阶不升堂
(on the stair, not the hall), 西五步 (a distance in the text's units), 进由中东 (the path passes
east of the 中); or what is done during a clause (:mod:`.acts`: who drinks, bows made to one who is
there, what one holds, where a cup changes hands), from the clause through the one ``until`` names.
:func:`load_catalogue` reads and validates the catalogue — every quote must be
an exact substring of the seed, so its span can be located; :func:`evaluate` measures one
statement on an ``xiangshe-plan/1`` document (plan-format.md) and returns a :class:`Result`
with the measured value, what the text wants, pass/fail and the margin.

>>> cat = load_catalogue()
>>> len(cat) > 103
True
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, NoReturn, Sequence

import numpy as np

from ..errors import InputError
from ..inputs import parse_yaml, read_text
from ..model.defaults import CHI_M
from ..model.plan import Event, Plan, Track
from ..model.vocabulary import LandmarkKind, Posture
from ..resources import STATEMENTS
from ..text.names import NameIndex, simplified, traditional
from ..text.placement import HEADINGS
from ..resources import logical_name
from ..text.seed import SEED
from ..resources import ASSETS

FIRST_TEXT = ASSETS / "text" / "xiangshe_li_part1.txt"
from ..text.units import DEFAULT_CHI_PER_UNIT, UNIT_ALIASES
from .acts import ACT_RELATIONS, evaluate_act

CATALOGUE = STATEMENTS

RELATIONS = ("west_of", "east_of", "south_of", "north_of", "aligned_x", "aligned_y", "facing", "posture",
             "level", "distance", "path_side", "near", *ACT_RELATIONS)
POSTURES = tuple(Posture)
LEVELS = ("hall", "stair", "court")
SIDES = {"east": (1.0, 0.0), "west": (-1.0, 0.0), "north": (0.0, 1.0), "south": (0.0, -1.0)}
DIRECTIONAL = {"west_of": "west", "east_of": "east", "south_of": "south", "north_of": "north"}
SOURCES = ("text", "鄭", "賈", "義疏", "敖", "記", "brief", "楊復", "朱子")


@dataclass(frozen=True)
class Statement:
    id: str
    n: int | None
    quote: str | None
    span: tuple[int, int] | None
    fn: int | None
    subject: str
    relation: str
    ref: str | None = None
    value: Any = None
    unit: str | None = None
    axis: str = "xy"
    side: str | None = None
    tol: float | None = None
    min: float = 0.05
    lateral: float | None = None
    when: str = "end"
    required: bool = False
    source: str = "text"
    text: str | None = None      # words of the statement when the quote is not in the seed
    note: str = ""
    until: str | None = None     # a later clause: the statement holds from ``quote`` through its end
    until_span: tuple[int, int] | None = None
    part: str = "passage"        # the text the quote is in: the passage (the seed) or the first half

    @property
    def words(self) -> str:
        return self.quote or self.text or ""


@dataclass
class Result:
    statement: Statement
    status: str                  # pass | fail | n/a
    measured: float | str | None = None
    wanted: str = ""
    margin: float | None = None  # positive: inside the tolerance by this much (m or °)
    message: str = ""
    event: str | None = None
    time: float | None = None

    @property
    def ok(self) -> bool:
        return self.status == "pass"

    @property
    def failed_required(self) -> bool:
        return self.statement.required and self.status != "pass"

    def as_json(self) -> dict[str, Any]:
        s = self.statement
        return {"id": s.id, "n": s.n, "quote": s.quote, "text": s.text, "span": list(s.span) if s.span else None,
                "footnote": s.fn, "subject": s.subject, "relation": s.relation, "ref": s.ref,
                "required": s.required, "source": s.source, "status": self.status,
                "measured": self.measured, "wanted": self.wanted,
                "margin": None if self.margin is None else round(self.margin, 4),
                "message": self.message, "event": self.event, "time": self.time}


# ---------------------------------------------------------------------------
# Loading.

def _unit_chi(unit: str) -> float:
    u = UNIT_ALIASES.get(unit, traditional(unit) if traditional(unit) in DEFAULT_CHI_PER_UNIT else unit)
    if u not in DEFAULT_CHI_PER_UNIT:
        raise KeyError(unit)
    return DEFAULT_CHI_PER_UNIT[u]


def load_catalogue(path: str | Path = CATALOGUE, seed: str | Path = SEED) -> list[Statement]:
    """Read and validate the catalogue; bad entries raise :class:`InputError` (file, id, what)."""
    shown = str(path)
    return parse_statements(_read_catalogue(Path(path), shown), shown, seed)


def parse_statements(raw: list, shown: str, seed: str | Path = SEED) -> list[Statement]:
    """Statements from their mappings as the catalogue writes them (``shown``: the file named in errors), each
    validated: :class:`InputError` on the first bad one."""
    texts = {"passage": read_text(seed, str(seed), what="seed text")}
    out: list[Statement] = []
    seen: set[str] = set()
    for i, d in enumerate(raw):
        sid = _statement_id(d, i)

        def bad(what: str) -> NoReturn:
            raise InputError(shown, sid[:80], what)

        if not isinstance(d, dict):
            bad("each statement is a mapping")
        _check_fields(d, bad)
        if sid in seen:
            bad("duplicate id")
        seen.add(sid)
        part = d.get("part", "passage")
        if part not in PARTS:
            bad(f"part is {' or '.join(PARTS)}, not {str(part)[:40]!r}")
        if part not in texts:
            texts[part] = read_text(PARTS[part], str(PARTS[part]), what="text of the first half")
        text = texts[part]
        span = _locate_quote(d, text, bad)
        until_span = _locate_until(d, span, text, bad)
        _check_values(d, bad)
        out.append(_statement(d, sid, span, bad, until_span))
    return out


def _read_catalogue(path: Path, shown: str) -> list:
    src = read_text(path, shown, what="catalogue")
    raw = parse_yaml(src, shown)
    if not isinstance(raw, list):
        raise InputError(shown, "", "the catalogue is a list of statements")
    return raw


def _statement_id(d: Any, i: int) -> str:
    if isinstance(d, dict) and isinstance(d.get("id"), (str, int)) and not isinstance(d.get("id"), bool):
        return str(d["id"])
    return f"#{i + 1}"


KNOWN_FIELDS = {f for f in Statement.__dataclass_fields__} - {"span", "until_span"} | {"occurrence", "until_occurrence"}
TEXT_FIELDS = ("quote", "subject", "ref", "text", "note", "unit", "side", "axis", "when", "source", "until", "part")
# the texts a quote may be in: the passage (the seed, its shè/jiāo spellings) and the first half of the chapter
# (assets/text/xiangshe_li_part1.txt: the source's traditional characters, unpunctuated)
PARTS = {"passage": SEED, "first": FIRST_TEXT}
NUMBER_FIELDS = {"tol": (0.0, 1000.0), "min": (0.0, 1000.0), "lateral": (0.0, 1000.0)}
WHOLE_FIELDS = {"n": (0, 100_000), "fn": (0, 10_000), "occurrence": (1, 10_000), "until_occurrence": (1, 10_000)}


def _check_fields(d: dict, bad: Callable[[str], NoReturn]) -> None:
    extra = {str(k) for k in d} - KNOWN_FIELDS
    if extra:
        bad(f"unknown field(s) {', '.join(sorted(extra))[:200]}")
    for f in ("id", "subject", "relation"):
        if not d.get(f):
            bad(f"missing field {f}")
    for f in TEXT_FIELDS:
        if d.get(f) is not None and not isinstance(d[f], str):
            bad(f"{f} is text, not {type(d[f]).__name__}")
    for f, (lo, hi) in {**NUMBER_FIELDS, **WHOLE_FIELDS}.items():
        v = d.get(f)
        if v is None:
            continue
        whole = f in WHOLE_FIELDS
        if isinstance(v, bool) or not isinstance(v, int if whole else (int, float)) or not lo <= v <= hi:
            bad(f"{f} is {'a whole number' if whole else 'a number'} from {lo:g} to {hi:g}, not {str(v)[:40]!r}")
    if d.get("required") is not None and not isinstance(d["required"], bool):
        bad("required is true or false")


def _locate_quote(d: dict, text: str, bad: Callable[[str], NoReturn]) -> tuple[int, int] | None:
    quote = d.get("quote")
    if quote is None:
        if not d.get("text"):
            bad("a statement without a seed quote needs `text` (the words it tests)")
        return None
    if not quote:
        bad("an empty quote")
    occ = d.get("occurrence", 1)
    pos = -1
    for _ in range(occ):
        pos = text.find(quote, pos + 1)
        if pos < 0:
            bad(f"quote {quote[:60]!r} (occurrence {occ}) is not in the {'seed' if d.get('part', 'passage') == 'passage' else 'first half'}'s text")
    if "occurrence" not in d and text.find(quote, pos + 1) >= 0:
        bad(f"quote {quote[:60]!r} occurs more than once in the seed: give `occurrence`")
    return pos, pos + len(quote)


def _locate_until(d: dict, span: tuple[int, int] | None, text: str,
                  bad: Callable[[str], NoReturn]) -> tuple[int, int] | None:
    """Where the clause ``until`` names lies: after the quote, its ``until_occurrence``-th time there."""
    until = d.get("until")
    if until is None:
        return None
    if span is None:
        bad("`until` needs a quote to start from")
    if not until:
        bad("an empty until")
    pos = span[0] - 1
    for _ in range(d.get("until_occurrence", 1)):
        pos = text.find(until, pos + 1)
        if pos < 0:
            bad(f"until {until[:60]!r} is not in the seed after the quote")
    return pos, pos + len(until)


def _check_values(d: dict, bad: Callable[[str], NoReturn]) -> None:
    rel = d["relation"]
    if rel not in RELATIONS:
        bad(f"unknown relation {str(rel)[:40]!r}; one of {', '.join(RELATIONS)}")
    if rel in ACT_RELATIONS and d.get("quote") is None:
        bad(f"{rel} is measured on the acts of a clause: it needs a quote")
    if rel == "hands_over" and not d.get("ref"):
        bad("hands_over needs a ref (where the thing changes hands)")
    if rel in ("west_of", "east_of", "south_of", "north_of", "aligned_x", "aligned_y", "distance",
               "path_side", "near") and not d.get("ref"):
        bad(f"{rel} needs a ref")
    v = d.get("value")
    if isinstance(v, float) and not math.isfinite(v):
        bad("value must be finite")
    if rel == "facing":
        if isinstance(v, bool) or not (isinstance(v, (int, float)) or simplified(str(v)).removesuffix("面") in HEADINGS):
            bad(f"facing value {str(v)[:40]!r} is not a direction")
    if rel == "posture":
        vs = v if isinstance(v, list) else [v]
        if any(not isinstance(x, str) or x not in POSTURES for x in vs):
            bad(f"posture value {str(v)[:40]!r}; one of {', '.join(POSTURES)}")
    if rel == "level" and v not in LEVELS:
        bad(f"level value {str(v)[:40]!r}; one of {', '.join(LEVELS)}")
    if rel == "distance" and (isinstance(v, bool) or not isinstance(v, (int, float)) or not 0 <= v <= 10_000):
        bad("distance needs a value (a number from 0 to 10000) and a unit")
    if d.get("unit") not in (None, "m", HALL_DEPTH):
        try:
            _unit_chi(d["unit"])
        except KeyError:
            bad(f"unknown unit {d['unit'][:20]!r}")
    if rel == "path_side" and d.get("side") not in SIDES:
        bad(f"path_side needs side: one of {', '.join(SIDES)}")
    if d.get("axis", "xy") not in ("x", "y", "xy"):
        bad("axis is x, y or xy")
    if d.get("when", "end") not in ("end", "any", "all"):
        bad("when is end, any or all")
    if d.get("source", "text") not in SOURCES:
        bad(f"unknown source {str(d.get('source'))[:40]!r}; one of {', '.join(SOURCES)}")


def _statement(d: dict, sid: str, span: tuple[int, int] | None, bad: Callable[[str], NoReturn],
               until_span: tuple[int, int] | None = None) -> Statement:
    return Statement(
        id=sid, n=d.get("n"), quote=d.get("quote"), span=span, fn=d.get("fn"),
        subject=simplified(str(d["subject"])), relation=d["relation"],
        ref=simplified(str(d["ref"])) if d.get("ref") else None, value=d.get("value"),
        unit=d.get("unit"), axis=d.get("axis", "xy"), side=d.get("side"),
        tol=float(d["tol"]) if d.get("tol") is not None else None,
        min=float(d.get("min", 0.05)), lateral=float(d["lateral"]) if d.get("lateral") is not None else None,
        when=d.get("when", "end"), required=bool(d.get("required", False)), source=d.get("source", "text"),
        text=d.get("text"), note=d.get("note", ""), until=d.get("until"), until_span=until_span,
        part=d.get("part", "passage"))


# ---------------------------------------------------------------------------
# Sampling a plan.

class PlanView:
    """Look-ups on an ``xiangshe-plan/1`` document: names, positions at a time, events of a span."""

    def __init__(self, plan: Plan) -> None:
        self.plan = plan
        self.names = NameIndex()
        self.kinds = {"actors": plan.actors, "props": plan.props, "landmarks": plan.landmarks}
        for coll in self.kinds.values():
            for ident, item in coll.items():
                self.names.add(ident, [traditional(ident), *item.aliases])
        self.chi_m = float(plan.measures.get("chi_m", CHI_M))
        self.hall_h = plan.hall_height
        ys = [float(p[1]) for p in (plan.hall.get("footprint") or [])] if isinstance(plan.hall, dict) else []
        # 堂深 (鄭: 從堂廉北至房室之壁): to the back wall of a hall with no 室 (鄭's 序: 凡屋無室曰榭), to the south
        # wall of the 室 and 房 where the reading builds them (敖, the 義疏, a 庠): the rooms' footprints' front
        rooms = [float(p[1]) for lm in plan.landmarks.values() if lm.kind == LandmarkKind.ROOM and lm.footprint
                 for p in lm.footprint]
        self.hall_depth = (min(rooms) if rooms else max(ys)) - min(ys) if ys else None
        self.stairs = [lm.footprint for lm in plan.landmarks.values() if lm.kind == LandmarkKind.STAIR and lm.footprint]
        # a statement quotes the passage or the first half (``part``): the events that cite that text
        passage = logical_name(SEED)
        names = {part: logical_name(path) for part, path in PARTS.items()}
        self.by_part = {part: [e for e in plan.events if (e.text_file or plan.text.get("file") or passage) == name]
                        for part, name in names.items()}
        self.events = self.by_part["passage"]
        self.duration = plan.duration

    def resolve(self, name: str, static: bool = False) -> tuple[str, str] | None:
        """(kind, id) of a name; moving things first unless ``static``."""
        order = ("landmarks",) if static else ("actors", "props", "landmarks")
        for kind in order:
            if name in self.kinds[kind]:
                return kind, name
        ident = self.names.get(name)
        if ident is None:
            return None
        for kind in order:
            if ident in self.kinds[kind]:
                return kind, ident
        return None

    def track(self, kind: str, ident: str) -> Track | None:
        return None if kind == "landmarks" else self.plan.track(ident)

    def state(self, kind: str, ident: str, t: float | None) -> tuple[float, float, float, float | None, str | None]:
        """(x, y, z, heading, posture) at time t (a landmark's place, with no posture)."""
        return self.states(kind, ident, [t])[0]

    def states(self, kind: str, ident: str, times: Sequence[float | None]) -> list[tuple]:
        """:meth:`state` at each of the times, the track read once for them all (a clause measured ``any`` or
        ``all`` of its moments asks at a hundred times or more)."""
        if kind == "landmarks":
            lm = self.plan.landmarks[ident]
            return [(*lm.position, lm.heading, None)] * len(times)
        tr = self.plan.track(ident)
        tt = np.array([0.0 if t is None else t for t in times], float)
        xyz, h = tr.at(tt)
        postures = tr.posture_at(tt).tolist()
        return [(x, y, z, hh, str(p)) for (x, y, z), hh, p in zip(xyz.tolist(), h.tolist(), postures)]

    def events_for(self, span: tuple[int, int], part: str = "passage") -> list[Event]:
        """The events that perform a span (of the passage, or of the first half: ``part``): those whose span
        overlaps it, in time order, taking the first performance only (a clause repeated for later pairs,
        升饮者如初, is not the same moment)."""
        a, b = span
        hits = sorted((e for e in self.by_part[part] if e.span[0] < b and a < e.span[1]),
                      key=lambda e: (e.start, e.end))
        out: list[Event] = []
        # a span performed several times: the events of its first performance (the steps of the first call of a
        # procedure, or the first event), and those that follow it by the same people (適左个、中，亦如之: one
        # man at two places; 適堂西…搢扑以反位: one clause in three acts); the same clause by others is a later
        # performance (三耦拾取矢如初: the next pair)
        first: dict[tuple[int, int], tuple[str, frozenset]] = {}
        for e in hits:
            call = e.procedure.get("call") if e.procedure else None
            people = frozenset(e.actors)
            span = tuple(e.span)
            if span in first:
                c0, p0 = first[span]
                if (call is not None and call == c0) or people == p0:
                    out.append(e)
                continue
            if out and e.span[0] < out[-1].span[0]:
                continue
            first[span] = (call or e.id, people)
            out.append(e)
        return out

    def level(self, z: float, x: float | None = None, y: float | None = None) -> str:
        """hall, stair or court.  Off the ground and inside a stair's footprint is the stair, even on its
        top step, which is flush with the hall (盡階不升堂: on the top step, not on the hall)."""
        if x is not None and y is not None and z > 0.03:
            for poly in self.stairs:
                if _inside(poly, x, y):
                    return "stair"
        if z >= self.hall_h - 0.03:
            return "hall"
        if z <= 0.03:
            return "court"
        return "stair"


# ---------------------------------------------------------------------------
# Evaluation.

def _inside(poly, x: float, y: float) -> bool:
    """Point in polygon (even-odd rule) for a footprint [[x, y], …]."""
    inside = False
    n = len(poly)
    for i in range(n):
        (x1, y1), (x2, y2) = poly[i], poly[(i + 1) % n]
        if (y1 > y) != (y2 > y) and x < x1 + (y - y1) * (x2 - x1) / (y2 - y1):
            inside = not inside
    return inside


# a length the text gives by the building rather than by a measure: 堂深, the depth of the hall (鄭 on 南北以堂深:
# 堂深，謂從堂廉北至房室之壁 — the hall's north–south extent, 堂廉 to 北墉, or to the 室's wall where there is one)
HALL_DEPTH = "堂深"


def wanted_metres(s: Statement, chi_m: float, hall_depth: float | None = None) -> tuple[float, str]:
    """The length a statement wants, in metres, and how the text says it."""
    v = float(s.value)
    if s.unit in (None, "m"):
        return v, f"{v:g} m"
    if s.unit == HALL_DEPTH:
        d = (hall_depth or 0.0) * v
        return d, f"{'' if v == 1 else _cn(v)}堂深 = {d:.2f} m"
    chi = _unit_chi(s.unit) * v
    return chi * chi_m, f"{_cn(v)}{s.unit} = {chi * chi_m:.2f} m"


def _cn(v: float) -> str:
    return f"{v:g} "


def _heading_value(v: Any) -> float:
    if isinstance(v, (int, float)):
        return float(v) % 360
    return HEADINGS[simplified(str(v)).removesuffix("面")]


def _angle(a: float, b: float) -> float:
    return abs((a - b + 180.0) % 360.0 - 180.0)


def _times(t0: float, t1: float, track: Track | None = None, step: float = 0.2) -> list[float]:
    n = max(1, int(math.ceil((t1 - t0) / step)))
    ts = [t0 + (t1 - t0) * i / n for i in range(n + 1)]
    if track is not None:
        ts += [k for k in track.t.tolist() if t0 <= k <= t1]
    return sorted(set(ts))


def evaluate(s: Statement, view: PlanView) -> Result:
    """Measure one statement on a plan."""
    if s.relation in ACT_RELATIONS:
        return evaluate_act(s, view)
    static = s.quote is None
    subj = view.resolve(s.subject, static=static)
    if subj is None:
        return Result(s, "n/a", message=f"{s.subject} is not in the plan")
    ref = None
    if s.ref:
        ref = view.resolve(s.ref, static=static)
        if ref is None:
            return Result(s, "n/a", message=f"{s.ref} is not in the plan")
    moving = subj[0] != "landmarks" or (ref is not None and ref[0] != "landmarks")
    if static or not moving and s.relation != "path_side":
        evs = view.events_for(s.span, s.part) if s.span else []
        t_end = evs[-1].end if evs else None
        return _measure(s, view, subj, ref, [t_end], evs[-1].id if evs else None)
    evs = view.events_for(s.span, s.part)
    if not evs:
        return Result(s, "n/a", message="no event of the plan performs this clause")
    t0, t1 = evs[0].start, evs[-1].end
    ev_id = evs[-1].id if len(evs) == 1 else f"{evs[0].id}…{evs[-1].id}"
    if s.until_span is not None:
        later = view.events_for(s.until_span, s.part)
        if not later:
            return Result(s, "n/a", message="no event of the plan performs the clause it holds until")
        t1, ev_id = max(e.end for e in later), f"{evs[0].id}…{max(later, key=lambda e: e.end).id}"
    if s.relation == "path_side":
        return _path_side(s, view, subj, ref, t0, t1, ev_id)
    if s.when == "all":         # throughout: the instants it starts and ends (a rise at the next clause) aside
        return _measure(s, view, subj, ref, _times(t0 + 0.05, t1 - 0.05, view.track(*subj)), ev_id, any_time="all")
    if s.when == "any":
        return _measure(s, view, subj, ref, _times(t0, t1, view.track(*subj)), ev_id, any_time=True)
    return _measure(s, view, subj, ref, [t1], ev_id)


def _label(view: PlanView, who: tuple[str, str]) -> str:
    return who[1]


def _measure(s: Statement, view: PlanView, subj, ref, times: list[float | None], ev_id: str | None,
             any_time: bool | str = False) -> Result:
    """At the first time; or (``any``) the best moment of them, or (``all``) the worst."""
    best: Result | None = None
    worst = any_time == "all"
    if not any_time:
        times = times[:1]
    subj_at = view.states(*subj, times)
    ref_at = view.states(*ref, times) if ref is not None else [None] * len(times)
    for t, here, there in zip(times, subj_at, ref_at):
        r = _measure_at(s, view, subj, ref, here, there)
        r.event, r.time = ev_id, None if t is None else round(t, 3)
        if best is None or (r.margin is not None and (best.margin is None or (r.margin < best.margin if worst
                                                                               else r.margin > best.margin))):
            best = r
        if not any_time:
            break
    assert best is not None
    if any_time:
        best.message += " (the worst moment of the clause)" if worst else " (best moment of the event)"
    return best


def _measure_at(s: Statement, view: PlanView, subj, ref, here: tuple, there: tuple | None) -> Result:
    """One moment: ``here`` the subject's state then (:meth:`PlanView.state`), ``there`` the reference's."""
    x, y, z, h, posture = here
    who = subj[1]
    rel = s.relation
    if ref is not None:
        rx, ry, rz, _, _ = there
        dx, dy = x - rx, y - ry
        rname = ref[1]
    if rel in DIRECTIONAL:
        ux, uy = SIDES[DIRECTIONAL[rel]]
        along = dx * ux + dy * uy
        across = abs(dx * uy - dy * ux)
        word = DIRECTIONAL[rel]
        # min in the text's units when a unit is given (降席，席西也: past the mat's end, half of its 七尺, on
        # the reading's own 尺), else in metres
        least = s.min * _unit_chi(s.unit) * view.chi_m if s.unit not in (None, "m", HALL_DEPTH) else s.min
        margin = along - least
        msg = f"{who} is {along:.2f} m {word} of {rname}"
        wanted = f"{word} of {rname} (≥ {least:.2f} m{f' = {s.min:g} {s.unit}' if least != s.min else ''})"
        if s.lateral is not None:
            msg += f", {across:.2f} m off its line"
            wanted += f", within {s.lateral:.2f} m of its line"
            margin = min(margin, s.lateral - across)
        return Result(s, "pass" if margin >= 0 else "fail", round(along, 4), wanted, margin, msg)
    if rel in ("aligned_x", "aligned_y"):
        d = dx if rel == "aligned_x" else dy
        tol = s.tol if s.tol is not None else 0.15
        coord = "x (east–west)" if rel == "aligned_x" else "y (north–south)"
        msg = f"{who} is {abs(d):.2f} m off {rname}'s {coord}"
        return Result(s, "pass" if abs(d) <= tol else "fail", round(d, 4), f"當 {rname}: same {coord} ±{tol:.2f} m",
                      tol - abs(d), msg)
    if rel == "facing":
        want = _heading_value(s.value)
        tol = s.tol if s.tol is not None else 30.0
        if h is None:
            return Result(s, "n/a", None, f"facing {s.value}", None, f"{who} has no heading")
        err = _angle(h, want)
        return Result(s, "pass" if err <= tol else "fail", round(h, 1), f"{s.value}面 = {want:.0f}° ±{tol:.0f}°",
                      tol - err, f"{who} faces {h:.0f}°, {err:.0f}° from {s.value}面")
    if rel == "posture":
        want = s.value if isinstance(s.value, list) else [s.value]
        ok = posture in want
        return Result(s, "pass" if ok else "fail", posture, " or ".join(want), 1.0 if ok else -1.0,
                      f"{who} is in posture {posture}")
    if rel == "level":
        lv = view.level(z, x, y)
        ok = lv == s.value
        return Result(s, "pass" if ok else "fail", lv, s.value, 1.0 if ok else -1.0,
                      f"{who} is on the {lv} (z = {z:.2f} m)")
    if rel == "distance":
        want, said = wanted_metres(s, view.chi_m, view.hall_depth)
        d = abs(dx) if s.axis == "x" else abs(dy) if s.axis == "y" else math.hypot(dx, dy)
        tol = s.tol if s.tol is not None else 0.05
        axis = {"x": " east–west", "y": " north–south", "xy": ""}[s.axis]
        in_units = (d / (_unit_chi(s.unit) * view.chi_m) if s.unit not in (None, "m", HALL_DEPTH) else
                    d / view.hall_depth if s.unit == HALL_DEPTH and view.hall_depth else None)
        msg = f"{who} is {d:.2f} m{axis} from {rname}"
        if in_units is not None:
            msg += f" ({in_units:.2f} {s.unit})"
        msg += f"; the text wants {said}"
        return Result(s, "pass" if abs(d - want) <= tol else "fail", round(d, 4), f"{said} ±{tol:.2f} m",
                      tol - abs(d - want), msg)
    if rel == "near":
        want, said = wanted_metres(s, view.chi_m, view.hall_depth) if s.value is not None else (1.0, "1 m")
        d = math.hypot(dx, dy)
        return Result(s, "pass" if d <= want else "fail", round(d, 4), f"within {said}", want - d,
                      f"{who} is {d:.2f} m from {rname}")
    raise AssertionError(rel)


PASS_NEAR = 2.5     # metres: crossings of a reference's line farther than this are not passing it
ON_LINE = 1e-3      # metres: one this near a reference's line stands on it (one who sets out from his place 司射位
                    # starts on its line; unrounded, 0.05 mm east of it, he was found to pass it, rounded not)


def _path_side(s: Statement, view: PlanView, subj, ref, t0: float, t1: float, ev_id: str) -> Result:
    """Which side of ``ref`` the subject passes during the event.

    Where the track crosses the ref's line across the side (its latitude for east/west, its
    meridian for north/south), the crossing must lie on the named side; where it never crosses,
    the closest approach decides.  Start and end points on the other side do not count: 自前适左
    starts and ends west of the 中 and passes round its east.
    """
    ts = _times(t0, t1, view.track(*subj), step=0.1)
    ux, uy = SIDES[s.side]
    crossings, closest, prev = [], None, None
    for t, here, there in zip(ts, view.states(*subj, ts), view.states(*ref, ts)):
        x, y, *_ = here
        rx, ry, *_ = there
        dx, dy = x - rx, y - ry
        off = dx * ux + dy * uy               # along the side
        across = dx * uy - dy * ux            # across it (signed)
        if abs(across) < ON_LINE:             # on the line: neither side (a plan as written rounds to 0.1 mm)
            across = 0.0
        if prev is not None and (prev[1] < 0 <= across or prev[1] > 0 >= across) and prev[1] != across:
            f = prev[1] / (prev[1] - across)
            crossings.append(prev[0] + (off - prev[0]) * f)
        prev = (off, across)
        dist = math.hypot(dx, dy)
        if closest is None or dist < closest[0]:
            closest = (dist, off, t)
    # passing X means crossing its line near it: a crossing far off (leaving one's place on X's
    # line to go round it) is not where one passes it
    near = [c for c in crossings if abs(c) <= PASS_NEAR]
    crossings = near or ([] if closest is not None and closest[0] <= PASS_NEAR else crossings)
    if crossings:
        worst = min(crossings)
        how = f"crosses {ref[1]}'s line {len(crossings)}× , {worst:.2f} m to its {s.side} at the least"
    else:
        assert closest is not None
        worst = closest[1]
        how = f"never crosses {ref[1]}'s line; at the closest approach ({closest[0]:.2f} m) it is {worst:.2f} m to its {s.side}"
    margin = worst - s.min
    return Result(s, "pass" if margin >= 0 else "fail", round(worst, 4), f"passes {s.side} of {ref[1]}", margin,
                  f"{subj[1]}'s path {how}", ev_id, round(t1, 3))


def evaluate_all(plan: Plan, catalogue: list[Statement] | None = None) -> list[Result]:
    """Every statement measured on the plan; those that quote a part of the chapter the plan does not perform
    (the first half's clauses on a plan of the passage alone, the passage's on a plan of the first half) are
    left out."""
    view = PlanView(plan)
    cat = catalogue if catalogue is not None else load_catalogue()
    performed = {part for part, evs in view.by_part.items() if evs} or {"passage"}     # a ground alone: as the passage
    return [evaluate(s, view) for s in cat if s.quote is None or s.part in performed]
