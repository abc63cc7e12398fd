"""The plan's reader: the one format check of a saved plan (``xiangshe-plan/1``, ``docs/plan-format.md``).

:meth:`.Plan.from_dict` hands the decoded JSON to :class:`PlanReader`, which builds the :class:`.Plan` and
refuses anything malformed with one line naming the file and the place in it."""
from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..errors import InputError
from .defaults import CHI_M_RANGE
from .plan import (GESTURE_KINDS, POSTURES, PROP_POSTURES, Actor, Event, Gesture, LayoutRef, Music, Piece, Plan,
                   Prop, Score, Shot)
from .reading import Landmark
from .track import Steps, Track
from .evidence import Basis
from .vocabulary import EvidenceKind, LandmarkKind

__all__ = ["PlanReader", "MAX_ABS", "KNOWN"]

MAX_ABS = 1e7      # seconds and metres of a plan: a passage of under four months, a ground under 10,000 km
KNOWN = ("format", "layout", "text", "measures", "parameters", "options", "hall", "landmarks", "actors", "props",
         "events", "duration", "conflicts", "shots", "music", "score", "pieces")


def _keys_well_formed(rows: list, postures: frozenset[str]) -> bool:
    """Whether every key is ``[t, x, y, z, heading, posture]`` with finite numbers in time order and a known
    posture: the keys of a plan the planner wrote, checked column by column (a plan holds some 70,000 keys,
    which :meth:`PlanReader.track` otherwise checks number by number).  False sends them to the check key by key,
    which names the first at fault (and accepts a null heading)."""
    if not all(type(r) is list and len(r) == 6 for r in rows):
        return False
    cols = list(zip(*rows))
    if not {type(v) for c in cols[:5] for v in c} <= {int, float}:      # not bool, not None, not text
        return False
    try:
        if not all(p in postures for p in cols[5]):
            return False
    except TypeError:                   # a list or mapping where the posture is
        return False
    a = np.array(cols[:5], float)
    return bool((np.abs(a) <= MAX_ABS).all() and (a[0, 1:] >= a[0, :-1]).all())   # NaN fails both


class PlanReader:
    """The format check: each problem is one line naming the file and the place in it."""

    def __init__(self, file: str) -> None:
        self.file = file

    def fail(self, where: str, what: str):
        raise InputError(self.file, where, what)

    def mapping(self, v: Any, where: str) -> dict:
        if not isinstance(v, dict):
            self.fail(where, f"expected an object, found {type(v).__name__}")
        return v

    def number(self, v: Any, where: str) -> float:
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not abs(v) <= MAX_ABS:   # NaN fails too
            self.fail(where, f"expected a finite number (at most {MAX_ABS:g} either way), found {str(v)[:40]}")
        return v

    def whole(self, v: Any, where: str, lo: int = 0, hi: int = 10_000_000) -> int:
        if isinstance(v, bool) or not isinstance(v, int) or not lo <= v <= hi:
            self.fail(where, f"expected a whole number from {lo} to {hi}, found {str(v)[:40]}")
        return v

    def text(self, v: Any, where: str, default: str = "") -> str:
        if v is None:
            return default
        if not isinstance(v, str):
            self.fail(where, f"expected text, found {type(v).__name__}")
        return v

    def texts(self, v: Any, where: str) -> list[str]:
        if v is None:
            return []
        if not isinstance(v, list) or not all(isinstance(x, str) for x in v):
            self.fail(where, "expected a list of texts")
        return list(v)

    def points(self, v: Any, where: str) -> list:
        if not isinstance(v, list) or not all(isinstance(p, list) and len(p) == 2 for p in v):
            self.fail(where, "expected a list of points [x, y]")
        for p in v:
            self.number(p[0], where)
            self.number(p[1], where)
        return v

    def measures_and_hall(self, d: dict) -> tuple[dict, dict]:
        m, hall = self.mapping(d.get("measures", {}), "measures"), self.mapping(d.get("hall", {}), "hall")
        for k, v in m.items():
            self.number(v, f"measures.{k}")
        if "chi_m" in m and not CHI_M_RANGE[0] < m["chi_m"] < CHI_M_RANGE[1]:
            self.fail("measures.chi_m", f"the 尺 is a length in metres between {CHI_M_RANGE[0]} and {CHI_M_RANGE[1]}")
        if hall.get("height_m") is not None:
            self.number(hall["height_m"], "hall.height_m")
        if hall.get("footprint") is not None:
            self.points(hall["footprint"], "hall.footprint")
        return dict(m), dict(hall)

    def plan(self, d: Any) -> Plan:
        d = self.mapping(d, "top level")
        fmt = d.get("format")
        if not isinstance(fmt, str) or not fmt.startswith("xiangshe-plan/"):
            self.fail("format", f"not a xiangshe-plan document (format {fmt!r})"[:200])
        lay = self.mapping(d.get("layout", {}), "layout")
        name, name_en, file = (self.text(lay.get(k), f"layout.{k}") for k in ("name", "name_en", "file"))
        measures, hall = self.measures_and_hall(d)
        conflicts = d.get("conflicts") or []
        if not isinstance(conflicts, list):
            self.fail("conflicts", "expected a list")
        actors = {str(k): self.actor(str(k), v) for k, v in self.mapping(d.get("actors", {}), "actors").items()}
        props = {str(k): self.prop(str(k), v) for k, v in self.mapping(d.get("props", {}), "props").items()}
        events = d.get("events", [])
        if not isinstance(events, list):
            self.fail("events", "expected a list")
        lms = self.mapping(d.get("landmarks", {}), "landmarks")
        return Plan(
            format=fmt,
            layout=LayoutRef(name, name_en, file, tuple(self.texts(lay.get("sources"), "layout.sources")),
                             *(dict(self.mapping(lay.get(k) or {}, f"layout.{k}"))
                               for k in ("bibliography", "dimensions", "option_basis", "evidence_legend"))),
            text=dict(self.mapping(d.get("text", {}), "text")),
            measures=measures,
            parameters=dict(self.mapping(d.get("parameters", {}), "parameters")),
            options=dict(self.mapping(d.get("options", {}), "options")),
            hall=hall,
            landmarks={str(k): self.landmark(str(k), v) for k, v in lms.items()},
            actors=actors, props=props,
            events=[self.event(i, e) for i, e in enumerate(events)],
            duration=self.number(d.get("duration", 0.0), "duration"),
            conflicts=[str(c) for c in conflicts],
            shots=[self.shot(i, x) for i, x in enumerate(self.items(d, "shots"))],
            music=self.music(d.get("music")),
            score=[self.score(i, x) for i, x in enumerate(self.items(d, "score"))],
            pieces=[self.piece(i, x) for i, x in enumerate(self.items(d, "pieces"))],
            extra={k: v for k, v in d.items() if k not in KNOWN},
        )

    def items(self, d: dict, key: str) -> list:
        v = d.get(key) or []
        if not isinstance(v, list):
            self.fail(key, "expected a list")
        return v

    def flag(self, v: Any, where: str, default: bool) -> bool:
        if v is None:
            return default
        if not isinstance(v, bool):
            self.fail(where, "expected true or false")
        return v

    def shot(self, i: int, x: Any) -> Shot:
        w = f"shots[{i}]"
        x = self.mapping(x, w)
        at = x.get("at") or [0.0, 0.0, 0.0]
        if not isinstance(at, list) or len(at) != 3:
            self.fail(f"{w}.at", "expected [x, y, z]")
        return Shot(self.text(x.get("archer"), f"{w}.archer"), self.text(x.get("arrow"), f"{w}.arrow"),
                    self.whole(x.get("round", 0), f"{w}.round", 0, 1000),
                    self.number(x.get("loose", 0.0), w), self.number(x.get("land", 0.0), w),
                    self.flag(x.get("hit"), f"{w}.hit", False), self.text(x.get("side"), f"{w}.side"),
                    self.flag(x.get("on_beat"), f"{w}.on_beat", True), self.flag(x.get("counted"), f"{w}.counted", False),
                    tuple(self.number(c, w) for c in at))

    def piece(self, i: int, x: Any) -> Piece:
        w = f"pieces[{i}]"
        x = self.mapping(x, w)
        beats = x.get("beats") or []
        if not isinstance(beats, list):
            self.fail(f"{w}.beats", "expected a list of times")
        start, end = self.number(x.get("start"), f"{w}.start"), self.number(x.get("end"), f"{w}.end")
        if end < start:
            self.fail(w, "the piece ends before it starts")
        return Piece(self.text(x.get("piece"), f"{w}.piece"), start, end,
                     tuple(self.number(b, f"{w}.beats") for b in beats))

    def music(self, x: Any) -> Music | None:
        if x is None:
            return None
        x = self.mapping(x, "music")
        beats = x.get("beats") or []
        if not isinstance(beats, list):
            self.fail("music.beats", "expected a list of times")
        return Music(self.text(x.get("piece"), "music.piece"), tuple(self.number(b, "music.beats") for b in beats))

    def score(self, i: int, x: Any) -> Score:
        w = f"score[{i}]"
        x = self.mapping(x, w)
        return Score(self.whole(x.get("round", 0), f"{w}.round", 0, 1000), self.whole(x.get("右", 0), f"{w}.右"),
                     self.whole(x.get("左", 0), f"{w}.左"), self.text(x.get("result"), f"{w}.result"),
                     self.text(x.get("announced"), f"{w}.announced"))

    def track(self, rows: Any, where: str, postures: frozenset[str] = frozenset(POSTURES)) -> Track:
        if not isinstance(rows, list) or not rows:
            self.fail(where, "a track needs a list of keys [t, x, y, z, heading, posture]")
        if _keys_well_formed(rows, postures):
            return Track.from_rows(rows)
        # something is wrong (or a heading is null): key by key, to name the first key at fault
        prev = -math.inf
        for i, r in enumerate(rows):
            w = f"{where}[{i}]"
            if not isinstance(r, list) or len(r) < 4:
                self.fail(w, "a key is [t, x, y, z, heading, posture]")
            for j in range(4):
                self.number(r[j], w)
            if len(r) > 4 and r[4] is not None:
                self.number(r[4], w)
            if len(r) > 5 and not isinstance(r[5], str):
                self.fail(w, "the posture is a word")
            if len(r) > 5 and r[5] not in postures:
                self.fail(w, f"posture {r[5][:40]!r}; one of {', '.join(sorted(postures))}")
            if r[0] < prev:
                self.fail(w, "keys out of time order")
            prev = r[0]
        return Track.from_rows(rows)

    def actor(self, ident: str, v: Any) -> Actor:
        w = f"actors.{ident}"
        v = self.mapping(v, w)
        gestures = []
        gs = v.get("gestures") or []
        if not isinstance(gs, list):
            self.fail(f"{w}.gestures", "expected a list")
        for i, g in enumerate(gs):
            if not isinstance(g, list) or len(g) < 3 or not isinstance(g[2], str) or (
                    len(g) > 3 and g[3] is not None and not isinstance(g[3], str)):
                self.fail(f"{w}.gestures[{i}]", "a gesture is [t0, t1, kind, object]")
            if g[2] not in GESTURE_KINDS:
                self.fail(f"{w}.gestures[{i}]", f"unknown gesture {g[2][:40]!r} (see GestureKind in "
                                                "reconstruct/model/vocabulary.py)")
            gestures.append(Gesture(self.number(g[0], f"{w}.gestures[{i}]"), self.number(g[1], f"{w}.gestures[{i}]"),
                                    str(g[2]), g[3] if len(g) > 3 else None))
        states = self.steps(v.get("states"), f"{w}.states")
        for r in states:
            self._state(r[1], f"{w}.states")
        return Actor(ident, self.text(v.get("label"), f"{w}.label"), self.track(v.get("keys"), f"{w}.keys"),
                     aliases=self.texts(v.get("aliases"), f"{w}.aliases"), side=self.text(v.get("side"), f"{w}.side"),
                     states=Steps.from_rows(states),
                     walked_m=self.number(v.get("walked_m", 0.0), f"{w}.walked_m"), gestures=gestures)

    def _state(self, st: Any, where: str) -> None:
        if st is None:
            return
        st = self.mapping(st, where)
        for k in ("bare_left_arm", "gear"):
            if st.get(k) is not None and not isinstance(st[k], bool):
                self.fail(where, f"{k} is true or false")
        if st.get("bow") is not None and not isinstance(st["bow"], str):
            self.fail(where, "bow is a word or null")
        if st.get("undershirt") is not None and not isinstance(st["undershirt"], str):
            self.fail(where, "undershirt is a word or null")
        self.texts(st.get("holding"), where)

    def prop(self, ident: str, v: Any) -> Prop:
        w = f"props.{ident}"
        v = self.mapping(v, w)
        carriers = self.steps(v.get("carrier"), f"{w}.carrier")
        for r in carriers:
            if r[1] is not None and not isinstance(r[1], str):
                self.fail(f"{w}.carrier", "a carrier is a person's id or null")
        label = self.text(v.get("label"), f"{w}.label")
        return Prop(ident, self.text(v.get("kind"), f"{w}.kind", label),
                    self.track(v.get("keys"), f"{w}.keys", frozenset(PROP_POSTURES)),
                    label=label, aliases=self.texts(v.get("aliases"), f"{w}.aliases"),
                    carriers=Steps.from_rows(carriers))

    def steps(self, rows: Any, where: str) -> list:
        rows = rows or []
        if not isinstance(rows, list) or any(not isinstance(r, list) or len(r) != 2 for r in rows):
            self.fail(where, "expected a list of [t, value]")
        for r in rows:
            self.number(r[0], where)
        return rows

    def landmark(self, ident: str, v: Any) -> Landmark:
        w = f"landmarks.{ident}"
        v = self.mapping(v, w)
        pos = v.get("position")
        if not isinstance(pos, list) or len(pos) != 3:
            self.fail(w, "a landmark needs a position [x, y, z]")
        for c in pos:
            self.number(c, w)
        fp = v.get("footprint")
        if fp:
            self.points(fp, f"{w}.footprint")
        if v.get("heading") is not None:
            self.number(v["heading"], f"{w}.heading")
        basis = v.get("basis") or []
        if not isinstance(basis, list) or not all(isinstance(b, dict) for b in basis):
            self.fail(f"{w}.basis", "expected a list of objects (source, at, quote; or chosen)")
        for i, b in enumerate(basis):
            for k in ("source", "at", "quote", "chosen", "of"):
                self.text(b.get(k), f"{w}.basis[{i}].{k}")
            if (b.get("source") is None) == (b.get("chosen") is None):
                self.fail(f"{w}.basis[{i}]", "a basis names a source or gives the reason it is chosen, one of the two")
        evidence = self.text(v.get("evidence"), f"{w}.evidence")
        if evidence and evidence not in set(EvidenceKind):
            self.fail(f"{w}.evidence", f"{evidence[:40]!r} is not one of {', '.join(EvidenceKind)}")
        return Landmark(ident, tuple(pos), heading=v.get("heading"), basis=tuple(Basis.from_plan(b) for b in basis),
                        evidence=evidence,
                        footprint=tuple(tuple(p) for p in fp) if fp else None,
                        kind=self.text(v.get("kind"), f"{w}.kind", LandmarkKind.MARK),
                        label_en=self.text(v.get("label_en"), f"{w}.label_en"),
                        aliases=tuple(self.texts(v.get("aliases"), f"{w}.aliases")),
                        cite=self.text(v.get("cite"), f"{w}.cite"), placed_by=self.text(v.get("placed_by"), f"{w}.placed_by"))

    def event(self, i: int, e: Any) -> Event:
        w = f"events[{i}]"
        e = self.mapping(e, w)
        for k in ("id", "text", "start", "end"):
            if k not in e:
                self.fail(w, f"an event needs {k!r}")
        span = e.get("span") or [0, 0]
        if not isinstance(span, list) or len(span) != 2:
            self.fail(f"{w}.span", "a span is [start, end] in the seed")
        a, b = self.whole(span[0], f"{w}.span"), self.whole(span[1], f"{w}.span")
        if e.get("footnote") is not None:
            self.whole(e["footnote"], f"{w}.footnote", 0, 10_000)
        if not isinstance(e.get("rule", False), bool):
            self.fail(f"{w}.rule", "rule is true or false")
        start, end = self.number(e["start"], w), self.number(e["end"], w)
        if end < start:
            self.fail(w, f"the event ends ({end}) before it starts ({start})")
        proc = e.get("procedure")
        if proc is not None:
            proc = self.mapping(proc, f"{w}.procedure")
            for k in ("name", "call", "step"):
                self.text(proc.get(k), f"{w}.procedure.{k}")
            self.texts(proc.get("overrides"), f"{w}.procedure.overrides")
            people = self.mapping(proc.get("people") or {}, f"{w}.procedure.people")
            self.texts(list(people.values()), f"{w}.procedure.people")
            self.flag(proc.get("repeat", False), f"{w}.procedure.repeat", False)
        return Event(self.text(e["id"], f"{w}.id"), self.text(e["text"], f"{w}.text"), (a, b), e.get("footnote"),
                     tuple(self.texts(e.get("actors"), f"{w}.actors")), start, end,
                     self.text(e.get("gloss"), f"{w}.gloss"), e.get("rule", False), proc,
                     self.text(e["text_file"], f"{w}.text_file") if e.get("text_file") is not None else None,
                     tuple(self.texts(e.get("options"), f"{w}.options")),
                     self.text(e["section"], f"{w}.section") if e.get("section") is not None else "")
