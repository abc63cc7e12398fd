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


def load_rite(path: str | Path | None = None, *, zhongbin: int | None = None, dafu: int | None = None,
              options: dict[str, str] | None = None, reading=None) -> Rite:
    """Load, expand and validate the rite script (see the module docstring); ``zhongbin``/``dafu``
    override the script's own parameters when given; a ``reading``'s own choices of the interpretive
    options stand under ``options``."""
    return _load(path, zhongbin=zhongbin, dafu=dafu, options=options, reading=reading)[0]


def load_rite_with_report(path: str | Path | None = None, **kw) -> tuple[Rite, dict]:
    """As :func:`load_rite`, also returning loader facts used by ``script --check``."""
    return _load(path, **kw)


def _load(path, *, zhongbin: int | None = None, dafu: int | None = None, options: dict[str, str] | None = None,
          reading=None):
    path = Path(path or DEFAULT_SCRIPT)
    s = Script(path, read_yaml(path))
    s.read_seed()
    s.read_parameters(zhongbin, dafu)
    s.read_options(options or {}, {k: c for k, (c, _) in reading.options.items()} if reading is not None else None,
                   getattr(reading, "file", "reading"))
    s.read_cast()
    s.read_ensembles()
    s.read_initial()
    nodes = _event_nodes(s, path)
    builder = EventBuilder(s)
    events_all = [built for built in builder.build(nodes)]
    events = link_events(events_all, s.chosen)
    rite = Rite(text_sha256=s.text_sha256, parameters=s.params, options=s.chosen, people=s.people, archery=s.archery,
                props=s.props, initial=s.initial, groups=s.groups, formations=s.formations, events=events)
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
