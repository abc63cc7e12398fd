"""The rite as data: the YAML rite script, loaded, expanded and checked.

``load_rite()`` reads ``assets/rite/rite.yaml`` (and the event files it
includes), expands the templates and loops (the text's 如初, 如三耦, 三耦卒飲,
衆賓繼飲…辯 …) over the cast for the chosen parameters (number of 衆賓 and of
大夫) and interpretive options, locates every event's text in the seed, and
validates names, places, verbs and the ``after`` graph.  Any problem raises
:class:`RiteError` whose message is one line ``file:line: what is wrong``.

The files a script reads (``text:``, ``include:``) must lie in the script's own folder (or be the
shipped seed text); the script's numbers are checked to be finite and in range.

The format is documented for historians in ``docs/rite-script.md``.
"""
from __future__ import annotations

from pathlib import Path

from ..model.defaults import PART, PARTS
from ..resources import RITE
from ..model.rite import Action, Event, Initial, Person, Prop, Rite  # noqa: F401 (re-exported)
from .actions import GESTURES, KEY_ALIASES, POSITIONAL, STAIRS, VERBS, parse_action  # noqa: F401 (re-exported)
from .errors import RiteError
from .events import EventBuilder, link_events
from .procedures import read_procedures
from .script import Script
from .templates import Templates, as_list, expand_events
from .yaml_lines import line_of, read_yaml, rel

DEFAULT_SCRIPT = RITE
FIRST_SCRIPT = RITE.parent / "first.yaml"      # the first half of the chapter (戒賓 … up to the passage)


def load_rite(path: str | Path | None = None, *, zhongbin: int | None = None, dafu: int | None = None,
              options: dict[str, str] | None = None, reading=None, before: Rite | None = None) -> Rite:
    """Load, expand and validate the rite script (see the module docstring); ``zhongbin``/``dafu``
    override the script's own parameters when given; a ``reading``'s own choices of the interpretive
    options stand under ``options``; ``before``: the rite performed before it in one ceremony (the whole
    chapter's first half), whose things its events may name too (``Script.read_carried``)."""
    return _load(path, zhongbin=zhongbin, dafu=dafu, options=options, reading=reading, before=before)[0]


def load_rite_with_report(path: str | Path | None = None, **kw) -> tuple[Rite, dict]:
    """As :func:`load_rite`, also returning loader facts used by ``script --check``."""
    return _load(path, **kw)


def _load(path, *, zhongbin: int | None = None, dafu: int | None = None, options: dict[str, str] | None = None,
          reading=None, before: Rite | None = None):
    path = Path(path or DEFAULT_SCRIPT)
    s = Script(path, read_yaml(path))
    s.read_seed()
    s.read_parameters(zhongbin, dafu)
    s.read_options(options or {}, {k: c for k, (c, _) in reading.options.items()} if reading is not None else None,
                   getattr(reading, "file", "reading"))
    s.read_cast()
    if before is not None:
        s.read_carried(before)
    s.read_ensembles()
    s.read_initial()
    nodes = _event_nodes(s, path)
    builder = EventBuilder(s)
    events_all = [built for built in builder.build(nodes)]
    events = link_events(events_all, s.chosen)
    rite = Rite(text_sha256=s.text_sha256, parameters=s.params, options=s.chosen, people=s.people, archery=s.archery,
                props=s.props, initial=s.initial, groups=s.groups, formations=s.formations, events=events,
                text_file=s.text_file)
    report = {"file": s.file, "seed": s.seed, "landmarks": s.landmarks, "all_events": [e for e, _, _ in events_all],
              "event_lines": {e.id: (f, line_of(n)) for e, n, f in events_all}, "option_decl": s.opt_decl}
    return rite, report


def _event_nodes(s: Script, path: Path) -> list:
    """The events of the included files, then of the script itself, expanded (with loop markers)."""
    nodes: list = []
    procs = read_procedures(s, read_yaml, rel)
    for inc in as_list(s.raw.get("include")):
        ipath = s.confined(inc, s.raw.get("include"), "include")
        ifile = rel(ipath)
        lst = read_yaml(ipath)
        if not isinstance(lst, list):
            raise RiteError(ifile, line_of(lst, 1), "an event file must be a list of events")
        nodes.extend(expand_events(lst, s.env, Templates(ifile, s.tpl.budget), procs))
    nodes.extend(expand_events(s.raw.get("events") or [], s.env, s.tpl, procs))
    return nodes


def load_part(part: str = PART, path: str | Path | None = None, **kw) -> Rite:
    """The rite of a part of the chapter: ``passage`` (the seed passage, as :func:`load_rite`; ``path`` its
    script), ``first`` (the first half, ``first.yaml``) or ``whole`` (both, as one ceremony: see
    :func:`join_rites`)."""
    if part == "passage":
        return load_rite(path, **kw)
    if part == "first":
        return load_rite(FIRST_SCRIPT, **kw)
    if part == "whole":
        first = load_rite(FIRST_SCRIPT, **kw)
        return join_rites(first, load_rite(path, before=first, **kw))
    raise ValueError(f"part {part!r}: one of {', '.join(PARTS)}")


def join_rites(first: Rite, passage: Rite) -> Rite:
    """The whole chapter as one rite: the first half's cast, props and state before 戒賓, its events (their
    spans in the first half's text, named on each event), then the passage's events, the first of them (and
    any that follow no event) after the first half's last.  The passage's own initial state is not used: it is
    what the first half's end must agree with (``tests/test_chapter.py``)."""
    missing = sorted({p.id for p in passage.people} - {p.id for p in first.people}
                     | {p.id for p in passage.props} - {p.id for p in first.props})
    if missing:
        raise RiteError("first.yaml", 1, f"the first half lacks the passage's {', '.join(missing[:5])}")
    mine = {e.id: e for e in first.events}
    both = next((e for e in passage.events if e.id in mine), None)
    if both is not None:      # an id numbered by its place in each half (e0464) can meet: name it, in one line
        f, _, ln = mine[both.id].source.rpartition(":")
        raise RiteError(f or "first.yaml", int(ln) if ln.isdigit() else 0,
                        f"event id {both.id!r} is also the passage's ({both.source}): give one of them its own id")
    last = first.events[-1].id if first.events else None
    firsts = [e.model_copy(update={"text_file": first.text_file}) for e in first.events]
    rest = [e if e.after or last is None else e.model_copy(update={"after": [last]}) for e in passage.events]
    return first.model_copy(update={"events": firsts + rest, "text_file": passage.text_file,
                                    "text_sha256": passage.text_sha256})
