"""The events of the rite script: each expanded event node located in the seed, its actions read
and checked against the cast and the places; then the interpretive options applied and the
``after`` graph linked (through dropped events) and checked for cycles."""
from __future__ import annotations

import re
from typing import Any, Iterator

import networkx as nx
from pydantic import ValidationError

from ..model.rite import Action, Event, ProcedureRef
from ..text import seed as seedtext
from .actions import GESTURES, STAIRS, VERBS, parse_action
from .errors import RiteError
from .script import Script, short
from .templates import BEGIN, END, ITER, Templates, as_list
from .yaml_lines import line_of

EVENT_KEYS = {"id", "text", "gloss", "do", "actors", "after", "option", "rule", "at", "from", "footnote", "note",
              "when", "cite", "summary", "section"}
# an event id may name a file (a diagram): letters, digits, CJK, and . _ - inside, at most 100
EVENT_ID = re.compile(r"[^\W_][\w.\-]{0,99}")
MAX_FOOTNOTE = 10_000
MAX_RESOLVE = 1_000_000       # steps to re-route one 'after' through dropped events


def _variants(s: str) -> list[str]:
    """The text as written in YAML, and with 射/交/欲 put back into the seed's pinyin."""
    back = s
    for py, ch in seedtext.PINYIN.items():
        back = back.replace(ch, py)
    return [s] if back == s else [s, back]


class EventBuilder:
    """Turns the flat list of expanded event nodes (with loop markers) into :class:`Event` s."""

    def __init__(self, script: Script) -> None:
        self.s = script
        self.valid_actor = set(script.person_ids) | set(script.prop_ids) | set(script.landmarks) \
            | set(script.formations)

    def build(self, items: list) -> Iterator[tuple[Event, Any, str]]:
        """(event, its node, its file) for every event, in order."""
        prev_start, loop_stack, used_ids, n = 0, [], set(), 0
        self.starts: dict[str, int] = {}
        for item in items:
            if item == BEGIN:
                loop_stack.append(prev_start)
            elif item == ITER:
                prev_start = loop_stack[-1]
            elif item == END:
                loop_stack.pop()
            else:
                node, efile, proc = item
                n += 1
                ev = self.event(node, Templates(efile), n, prev_start, proc)
                if ev.id in used_ids:
                    raise RiteError(efile, line_of(node), f"duplicate event id {ev.id!r}")
                used_ids.add(ev.id)
                prev_start = ev.span[0]
                self.starts[ev.id] = ev.span[0]
                yield ev, node, efile

    def _locate(self, node: dict, t: str, start_from: int, tpl: Templates) -> tuple[tuple[int, int], str]:
        seed = self.s.seed
        if "at" in node:
            at = node["at"]
            if isinstance(at, bool) or not isinstance(at, int) or not 0 <= at <= len(seed):
                raise tpl.err(node, f"at: {str(at)[:40]!r} is not an offset in the seed (0 to {len(seed)})")
            start_from = at
        if "from" in node:        # search again from where an earlier event's words begin (a 如初 for each of several)
            frm = node["from"]
            if not isinstance(frm, str) or frm not in self.starts:
                raise tpl.err(node, f"from: {str(frm)[:60]!r} is not an event before this one")
            start_from = self.starts[frm]
        for cand in _variants(t):
            pos = seed.find(cand, start_from)
            if pos >= 0:
                return (pos, pos + len(cand)), cand
        earlier = any(seed.find(c) >= 0 for c in _variants(t))
        raise tpl.err(node["text"], f"text {t[:80]!r} is not in the seed" + (
            f" after offset {start_from} (it occurs earlier: events must follow the text; use 'at:' for a jump back)"
            if earlier else ""))

    def event(self, node: Any, tpl: Templates, n: int, start_from: int, proc: dict | None = None) -> Event:
        if not isinstance(node, dict) or "text" not in node:
            raise tpl.err(node, "an event needs 'text' (the exact words of the seed it performs)")
        unknown = set(map(str, node)) - EVENT_KEYS
        if unknown:
            raise tpl.err(node, f"unknown event key(s): {', '.join(sorted(unknown))[:200]}")
        if not isinstance(node["text"], str) or not node["text"]:
            raise tpl.err(node, "text: the words of the seed, as text")
        span, found = self._locate(node, str(node["text"]), start_from, tpl)
        eid = node.get("id") or f"e{n:04d}"
        if not isinstance(eid, str) or not EVENT_ID.fullmatch(eid):
            raise tpl.err(node, f"event id {str(eid)[:60]!r}: letters, digits and . _ - (at most 100), "
                                f"beginning with a letter or digit")
        actions = [self.action(a, tpl) for a in as_list(node.get("do"))]
        actors = [str(x) for x in as_list(node.get("actors"))]
        for x in actors:
            if x not in self.valid_actor:
                raise tpl.err(node, f"unknown actor {x[:40]!r}")
        for act in actions:
            if act.who not in actors and act.who != "*":
                actors.append(act.who)
        opt = node.get("option")
        decl_names = list(self.s.opt_decl)
        m = None
        if opt is not None:
            m = re.fullmatch(r"\s*(\w+)\s*=\s*(\S+)\s*", str(opt))
            decl = self.s.opt_decl
            if not m or m.group(1) not in decl or m.group(2) not in map(str, decl[m.group(1)]["choices"]):
                raise tpl.err(node, f"option {str(opt)[:60]!r} is not NAME=CHOICE of a declared option")
        fn = node.get("footnote")
        if fn is not None and (isinstance(fn, bool) or not isinstance(fn, int) or not 0 <= fn <= MAX_FOOTNOTE):
            raise tpl.err(node, f"footnote: {str(fn)[:40]!r} is not a footnote number (0 to {MAX_FOOTNOTE})")
        section = node.get("section", "")
        if not isinstance(section, str) or len(section) > 200:
            raise tpl.err(node, f"section: a title (at most 200 characters), not {str(section)[:40]!r}")
        rule, summary = node.get("rule", False), node.get("summary", False)
        for key, flag in (("rule", rule), ("summary", summary)):
            if not isinstance(flag, bool):
                raise tpl.err(node, f"{key}: true or false, not {str(flag)[:40]!r}")
        rests_on = [m.group(1)] if m else []          # the options the event rests on: its own, and its `when`'s
        when = str(node.get("when") or "")
        rests_on += [k for k in decl_names if k not in rests_on and re.search(rf"(?<!\w){re.escape(k)}(?!\w)", when)]
        return Event(id=eid, text=found, span=span, procedure=ProcedureRef(**proc) if proc else None, options=rests_on,
                     footnote=fn if fn is not None else seedtext.footnote_for(span, self.s.seed),
                     gloss=str(node.get("gloss") or ""), actors=actors,
                     after=[str(x) for x in as_list(node.get("after"))] if "after" in node else ["<prev>"],
                     actions=actions, option=str(opt) if opt is not None else None,
                     rule=rule, summary=summary, source=f"{tpl.file}:{line_of(node)}", section=section.strip())

    def action(self, a: Any, tpl: Templates) -> Action:
        d = parse_action(a, tpl)
        try:
            act = Action(**d)
        except ValidationError as e:
            raise tpl.err(a, f"bad action {str(a)[:80]!r}: {short(e)}") from None
        except TypeError as e:
            raise tpl.err(a, f"bad action {str(a)[:80]!r}: {str(e)[:120]}") from None
        s = self.s
        if act.verb not in VERBS:
            raise tpl.err(a, f"unknown verb {act.verb[:40]!r} (see VERBS in reconstruct/rite/actions.py)")
        if act.who not in s.person_ids and not (act.verb == "sync" and act.who == "*"):
            raise tpl.err(a, f"unknown actor {act.who[:40]!r}")
        if act.place is not None:
            s.check_place(act.place, a, tpl=tpl)
        for v in act.via:
            s.check_place(v, a, "via place", tpl=tpl)
        if act.stair is not None and act.stair not in STAIRS:
            raise tpl.err(a, f"unknown stair {act.stair[:40]!r} (西阶 or 阼阶)")
        if act.heading is not None:
            s.check_heading(act.heading, a, tpl=tpl)
        if act.prop is not None and act.prop not in s.prop_ids:
            raise tpl.err(a, f"unknown prop {act.prop[:40]!r}")
        if act.other is not None and act.other not in s.person_ids and act.other not in s.prop_ids:
            raise tpl.err(a, f"unknown person {act.other[:40]!r} (other)")
        if act.verb == "gesture" and act.text not in GESTURES:
            raise tpl.err(a, f"unknown gesture {str(act.text)[:40]!r} (see GestureKind in reconstruct/model/vocabulary.py)")
        if act.verb == "hold_bow" and act.text not in ("strung", "unstrung"):
            raise tpl.err(a, "hold_bow needs text=strung or text=unstrung")
        return act


def link_events(events_all: list[tuple[Event, Any, str]], chosen: dict[str, str]) -> list[Event]:
    """The events of the chosen options, each ``after`` re-routed through the dropped events; a
    cycle in ``after`` is an error."""
    kept: list[tuple[Event, Any, str]] = []
    dropped_after: dict[str, list[str]] = {}
    prev_id: str | None = None
    for ev, node, efile in events_all:
        after = [prev_id if a == "<prev>" else a for a in ev.after]
        after = [a for a in after if a is not None]
        if ev.option is not None:
            name, val = [x.strip() for x in ev.option.split("=", 1)]
            if chosen.get(name) != val:
                dropped_after[ev.id] = after
                prev_id = ev.id
                continue
        kept.append((ev.model_copy(update={"after": after}), node, efile))
        prev_id = ev.id
    all_ids = {ev.id for ev, _, _ in events_all}
    kept_ids = {ev.id for ev, _, _ in kept}

    def resolve(a: str) -> list[str]:
        """The kept events an 'after' stands for: itself if kept, else (depth first, in order) what
        the dropped event came after."""
        out, stack, steps = [], [(a, frozenset())], 0
        while stack:
            x, seen = stack.pop()
            steps += 1
            if steps > MAX_RESOLVE:
                node, efile = next((n, f) for e, n, f in events_all if e.id == a)
                raise RiteError(efile, line_of(node), f"'after' through dropped events branches too much ({a!r})")
            if x in kept_ids:
                out.append(x)
            elif x in dropped_after and x not in seen:
                stack.extend((b, seen | {x}) for b in reversed(dropped_after[x]))
        return out

    events: list[Event] = []
    g = nx.DiGraph()
    for ev, node, efile in kept:
        for a in ev.after:
            if a not in all_ids:
                raise RiteError(efile, line_of(node.get("after", node)),
                                f"event {ev.id!r}: 'after' names unknown event {a[:60]!r}")
        after = list(dict.fromkeys(x for a in ev.after for x in resolve(a)))
        ev = ev.model_copy(update={"after": after})
        events.append(ev)
        g.add_node(ev.id)
        for a in after:
            g.add_edge(a, ev.id)
    _refuse_cycles(g, kept)
    return events


def _refuse_cycles(g: nx.DiGraph, kept: list[tuple[Event, Any, str]]) -> None:
    try:
        cyc = nx.find_cycle(g)
    except nx.NetworkXNoCycle:
        return
    first = cyc[0][1]
    node, efile = next((n, f) for e, n, f in kept if e.id == first)
    raise RiteError(efile, line_of(node.get("after", node)),
                    "cycle in 'after': " + " → ".join([c[0] for c in cyc] + [cyc[0][0]]))
