"""The 禮節圖 of the 欽定儀禮義疏 (卷四十五) as steps of the rite (``assets/lijietu.yaml``), and the placements
their notes state measured on a plan.

:func:`load` reads and validates the file: each step's title and page against the 義疏's text that travels with
the package (``assets/sources/…``), each quoted sentence against the note of that title, each measure as a
statement of ``assets/statements.yaml``'s format.  :func:`resolve` ties the steps of one part of the chapter to
a plan: the events named exist, the moment each diagram is drawn, where its paths start, the text it covers and
who acts in it.  :func:`measure` evaluates the measures (``checks/statements.py``, and ``hall_edge``).

>>> lj = load()
>>> [s.title for s in lj.steps][:2]
['設席陳器之圖', '主人迎賔圖']
>>> lj.notes['鄉射請射之圖'].pages
('047-53a', '047-55a')
"""
from __future__ import annotations

import dataclasses
import math
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NoReturn

from ..errors import InputError
from ..inputs import parse_yaml, read_text
from ..model.plan import Event, Plan
from ..resources import ASSETS, data_path, logical_name
from .statements import PARTS, PlanView, Result, Statement, evaluate, parse_statements

LIJIETU = ASSETS / "lijietu.yaml"
CHAPTERS = ("鄉射", "鄉飲酒")
STEP_FIELDS = {"title", "chapter", "page", "title_in_copy", "quote", "part", "from", "at", "in_xiangshe", "measure"}
REQUIRED = ("title", "chapter", "page", "quote", "part", "from", "at")
PAGE = re.compile(r"\d{3}-\d{1,3}[ab]")
HALL_EDGE = "hall_edge"


@dataclass(frozen=True)
class Note:
    """One diagram's note in our copy: the title line (without 右), the page it stands on, the pages the note
    runs over (first, last) and its text with the line ends, indents and page marks taken out."""

    title: str
    page: str
    pages: tuple[str, str]
    text: str


@dataclass(frozen=True)
class Step:
    title: str
    chapter: str
    page: str
    quotes: tuple[str, ...]
    part: str
    start: str                      # the event where the paths start (``from``)
    at: str | dict                  # an event id, or {"section": NAME}
    title_in_copy: str | None = None
    in_xiangshe: str = ""
    measures: tuple[Statement, ...] = ()
    ref_landmark: frozenset = frozenset()    # the measures whose ref is the reading's landmark

    @property
    def copy_title(self) -> str:
        return self.title_in_copy or self.title


@dataclass(frozen=True)
class Lijietu:
    steps: tuple[Step, ...]
    not_used: tuple[dict, ...]
    notes: dict[str, Note]
    source: str

    def of_part(self, part: str) -> list[Step]:
        """The steps a plan of ``part`` draws: the first half's, the passage's, or (whole) both."""
        return [s for s in self.steps if part == "whole" or s.part == part]

    def locator(self, step: Step) -> str:
        a, b = self.notes[step.copy_title].pages
        return f"欽定儀禮義疏 卷四十五 禮節圖一, {a}" + (f"–{b.split('-')[1]}" if b != a else "")


# ---------------------------------------------------------------------------
# the source

def read_notes(text: str) -> dict[str, Note]:
    """Every 右…圖 of the 禮節圖 text and its note (the lines up to the next title)."""
    notes: dict[str, Note] = {}
    page, cur = "", None
    for line in text.split("\n"):
        m = re.match(r"<pb:KR1d0037_WYG_(\d{3}-\d+[ab])>", line)
        if m:
            page = m.group(1)
            continue
        s = line.replace("¶", "").replace("\u3000", "").strip()
        if s.startswith("右") and s.endswith("圖"):
            if cur:
                notes.setdefault(cur["title"], _note(cur))
            cur = {"title": s[1:], "page": page, "last": page, "text": ""}
            continue
        if cur is not None and s:
            cur["text"] += s
            cur["last"] = page
    if cur:
        notes.setdefault(cur["title"], _note(cur))
    return notes


def _note(d: dict) -> Note:
    return Note(d["title"], d["page"], (d["page"], d["last"]), d["text"])


# ---------------------------------------------------------------------------
# loading

def load(path: str | Path = LIJIETU) -> Lijietu:
    """Read and validate the steps; a bad entry raises :class:`InputError` (file, step, what) on one line."""
    shown = str(path)
    src = read_text(path, shown, what="禮節圖 steps")
    raw = parse_yaml(src, shown)
    if not isinstance(raw, dict) or not isinstance(raw.get("steps"), list) or not raw["steps"]:
        raise InputError(shown, "", "a mapping with `source` and a list of `steps`")
    extra = set(map(str, raw)) - {"source", "steps", "not_used"}
    if extra:
        raise InputError(shown, "", f"unknown field(s) {', '.join(sorted(extra))[:200]}")
    source = raw.get("source")
    if not isinstance(source, str) or not source.startswith("assets/sources/") or ".." in source:
        raise InputError(shown, "source", "the 義疏's text, a file of the package's assets/sources/")
    notes = read_notes(read_text(data_path(source), source, what="the 義疏's 禮節圖 text"))
    steps, titles = [], set()
    for i, d in enumerate(raw["steps"]):
        st = _step(d, i, shown, notes)
        if st.title in titles:
            raise InputError(shown, st.title, "a second step with this title")
        titles.add(st.title)
        steps.append(st)
    not_used = raw.get("not_used") or []
    if not isinstance(not_used, list) or any(not isinstance(d, dict) or set(d) != {"title", "page", "why"}
                                             for d in not_used):
        raise InputError(shown, "not_used", "a list of {title, page, why}")
    for d in not_used:
        n = notes.get(str(d["title"]))
        if n is None or n.page != str(d["page"]):
            raise InputError(shown, str(d["title"])[:40], f"no title line 右{d['title']} on page {d['page']} of the 義疏")
    ids = [m.id for s in steps for m in s.measures]
    dup = {i for i in ids if ids.count(i) > 1}
    if dup:
        raise InputError(shown, sorted(dup)[0], "a measure id used twice")
    return Lijietu(tuple(steps), tuple(not_used), notes, source)


def _step(d: Any, i: int, shown: str, notes: dict[str, Note]) -> Step:
    where = str(d.get("title"))[:40] if isinstance(d, dict) and d.get("title") else f"step {i + 1}"

    def bad(what: str) -> NoReturn:
        raise InputError(shown, where, what)

    if not isinstance(d, dict):
        bad("each step is a mapping")
    extra = set(map(str, d)) - STEP_FIELDS
    if extra:
        bad(f"unknown field(s) {', '.join(sorted(extra))[:200]}")
    for f in REQUIRED:
        if d.get(f) in (None, "", []):
            bad(f"missing field {f}")
    for f in ("title", "chapter", "page", "part", "from", "title_in_copy", "in_xiangshe"):
        if d.get(f) is not None and not isinstance(d[f], str):
            bad(f"{f} is text, not {type(d[f]).__name__}")
    if d["chapter"] not in CHAPTERS:
        bad(f"chapter is {' or '.join(CHAPTERS)}, not {d['chapter'][:40]!r}")
    if d["part"] not in PARTS:
        bad(f"part is {' or '.join(PARTS)}, not {d['part'][:40]!r}")
    if not PAGE.fullmatch(d["page"]):
        bad(f"page is a page of the copy such as 047-53a, not {d['page'][:40]!r}")
    copy_title = d.get("title_in_copy") or d["title"]
    note = notes.get(copy_title)
    if note is None:
        bad(f"the 義疏 has no title line 右{copy_title}")
    if note.page != d["page"]:
        bad(f"右{copy_title} stands on page {note.page} of the 義疏, not {d['page']}")
    quotes = d["quote"] if isinstance(d["quote"], list) else [d["quote"]]
    for q in quotes:
        if not isinstance(q, str) or not q:
            bad("quote is a sentence of the note or a list of them")
        if q not in note.text:
            bad(f"quote {q[:40]!r} is not in the note of 右{copy_title}")
    at = d["at"]
    if isinstance(at, dict):
        if set(at) != {"section"} or not isinstance(at["section"], str) or not at["section"]:
            bad("at is an event id or {section: NAME}")
    elif not isinstance(at, str):
        bad("at is an event id or {section: NAME}")
    raw = d.get("measure") or []
    if not isinstance(raw, list):
        bad("measure is a list of statements")
    measures, landmark_refs = _measures(raw, d["part"], shown, where)
    return Step(title=d["title"], chapter=d["chapter"], page=d["page"], quotes=tuple(quotes), part=d["part"],
                start=d["from"], at=at, title_in_copy=d.get("title_in_copy"), in_xiangshe=d.get("in_xiangshe") or "",
                measures=tuple(measures), ref_landmark=frozenset(landmark_refs))


def _measures(raw: list, part: str, shown: str, where: str) -> tuple[list[Statement], set[str]]:
    """The step's measures as statements (their clause in the step's part); ``hall_edge`` is validated as a
    distance to the 堂 and measured by :func:`_hall_edge`; ``ref_landmark`` marks a ref that is a landmark."""
    plain, edges, landmark_refs = [], set(), set()
    for d in raw:
        if not isinstance(d, dict):
            raise InputError(shown, where, "each measure is a mapping")
        d = dict(d)
        sid = str(d.get("id", "?"))
        if d.get("part", part) != part:
            raise InputError(shown, sid, f"a measure of a step of the {part} quotes the {part}'s text")
        d["part"] = part
        ref_landmark = d.pop("ref_landmark", False)
        if not isinstance(ref_landmark, bool):
            raise InputError(shown, sid, "ref_landmark is true or false")
        if ref_landmark:
            landmark_refs.add(sid)
        if d.get("relation") == HALL_EDGE:
            if d.get("side") not in ("west", "east"):
                raise InputError(shown, sid, "hall_edge needs side: west or east")
            edges.add(sid)
            d.pop("side")
            d.update(relation="distance", ref="堂", unit="m")
        plain.append(d)
    out = parse_statements(plain, shown)
    sides = {str(d.get("id")): r.get("side") for d, r in zip(plain, raw) if isinstance(r, dict)}
    return [dataclasses.replace(s, relation=HALL_EDGE, ref=None, side=sides[s.id]) if s.id in edges else s
            for s in out], landmark_refs


# ---------------------------------------------------------------------------
# a plan's steps

@dataclass
class Drawn:
    """One step on a plan: the moment drawn (``t``, the end of ``at``), where the paths start (``since``),
    the text it covers (``text_file``, ``span``: up to the next step's), the events in it and who acts."""

    step: Step
    at: Event
    start: Event
    t: float
    since: float
    text_file: str
    span: tuple[int, int]
    events: list[Event] = field(default_factory=list)
    actors: set[str] = field(default_factory=set)


def _file(plan: Plan, e: Event) -> str:
    return e.text_file or plan.text.get("file") or logical_name(PARTS["passage"])


def part_file(part: str) -> str:
    return logical_name(PARTS[part])


def resolve(lj: Lijietu, plan: Plan, part: str, shown: str = str(LIJIETU)) -> list[Drawn]:
    """The steps of ``part`` on ``plan``: every event named must be in the plan and cite the step's text."""
    by_id = {e.id: e for e in plan.events}
    steps = lj.of_part(part)
    out: list[Drawn] = []
    for st in steps:
        name = part_file(st.part)
        evs = [e for e in plan.events if _file(plan, e) == name]

        def ev(i: str, what: str) -> Event:
            e = by_id.get(i)
            if e is None or _file(plan, e) != name:
                raise InputError(shown, st.title, f"{what} {i!r} is not an event of the plan's {st.part}")
            return e

        start = ev(st.start, "from")
        at = ev(st.at, "at") if isinstance(st.at, str) else _section_end(evs, st.at["section"], shown, st.title)
        if at.end < start.start:
            raise InputError(shown, st.title, f"at {at.id!r} ends before from {start.id!r} starts")
        out.append(Drawn(st, at, start, at.end, start.start, name, (start.span[0], start.span[0])))
    lengths = {}
    for i, d in enumerate(out):
        nxt = next((o for o in out[i + 1:] if o.text_file == d.text_file), None)
        if nxt is not None and nxt.start.span[0] <= d.start.span[0]:
            raise InputError(shown, nxt.step.title, "its from comes before the previous step's in the text")
        if nxt is None and d.text_file not in lengths:
            lengths[d.text_file] = len(data_path(d.text_file).read_text(encoding="utf-8"))
        d.span = (d.start.span[0], nxt.start.span[0] if nxt else lengths[d.text_file])
        if i:                           # nothing moves undrawn between two diagrams (nor, whole, between the halves)
            d.since = min(d.since, out[i - 1].t)
        a, b = d.span
        d.events = [e for e in plan.events if _file(plan, e) == d.text_file and a <= e.span[0] < b]
        d.actors = {x for e in d.events if e.start < d.t and e.end > d.since - 1e-6 for x in e.actors}
    return out


def _section_end(evs: list[Event], name: str, shown: str, title: str) -> Event:
    """The last event to end of a section: its clauses from the event that begins it to the next section's."""
    starts = sorted((e.span[0], e.section.split("·")[0].strip()) for e in evs if e.section)
    hit = [i for i, (_, s) in enumerate(starts) if s == name]
    if not hit:
        raise InputError(shown, title, f"no section {name!r} in the plan ({', '.join(s for _, s in starts)[:200]})")
    a = starts[hit[0]][0]
    b = starts[hit[0] + 1][0] if hit[0] + 1 < len(starts) else math.inf
    return max((e for e in evs if a <= e.span[0] < b), key=lambda e: (e.end, e.span[0]))


# ---------------------------------------------------------------------------
# measuring

class _LandmarkRef(PlanView):
    """A view in which one name is the reading's landmark (所設中: where the 中 will be set, not the 中)."""

    def __init__(self, plan: Plan, name: str) -> None:
        super().__init__(plan)
        self._name = name

    def resolve(self, name: str, static: bool = False):
        return super().resolve(name, static=static or name == self._name)


def measure(lj: Lijietu, plan: Plan, part: str) -> dict[str, list[Result]]:
    """The measures of each step of ``part`` on the plan, by title."""
    view = PlanView(plan)
    out: dict[str, list[Result]] = {}
    for st in lj.of_part(part):
        rs = []
        for s in st.measures:
            if s.relation == HALL_EDGE:
                rs.append(_hall_edge(s, view))
            elif s.id in st.ref_landmark:
                rs.append(evaluate(s, _LandmarkRef(plan, s.ref or "")))
            else:
                rs.append(evaluate(s, view))
        out[st.title] = rs
    return out


def _hall_edge(s: Statement, view: PlanView) -> Result:
    """The subject's distance east–west from the hall's west (or east) edge at the end of the clause."""
    evs = view.events_for(s.span, s.part) if s.span else []
    if not evs:
        return Result(s, "n/a", message="no event of the plan performs this clause")
    subj = view.resolve(s.subject)
    if subj is None:
        return Result(s, "n/a", message=f"{s.subject} is not in the plan")
    fp = view.plan.hall.get("footprint") if isinstance(view.plan.hall, dict) else None
    if not fp:
        return Result(s, "n/a", message="the plan has no hall footprint")
    t = evs[-1].end
    x = view.state(*subj, t)[0]
    edge = min(p[0] for p in fp) if s.side == "west" else max(p[0] for p in fp)
    d = (edge - x) if s.side == "west" else (x - edge)
    want, tol = float(s.value), s.tol if s.tol is not None else 0.5
    word = "outside" if d >= 0 else "inside"
    return Result(s, "pass" if abs(d - want) <= tol else "fail", round(d, 4),
                  f"{want:g} m from the hall's {s.side} edge ±{tol:.2f} m", tol - abs(d - want),
                  f"{subj[1]} is {abs(d):.2f} m {word} the hall's {s.side} edge", evs[-1].id, round(t, 3))
