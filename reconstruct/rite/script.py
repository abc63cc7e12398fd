"""The rite script's own sections, read in order: the seed text it performs, its parameters and
interpretive options, the cast and props, the pairs, groups and formations, and everyone's state at
the passage's first character.  :class:`Script` keeps what each section declares for the next one
and for the events (:mod:`reconstruct.rite.events`)."""
from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Iterator

from pydantic import BaseModel, ValidationError

from ..errors import InputError
from ..inputs import read_text
from ..model.defaults import DAFU, DAFU_RANGE, ZHONGBIN, ZHONGBIN_RANGE
from ..model.rite import ArcheryParams, Initial, Person, Prop
from ..model.vocabulary import Posture, PropPosture
from ..resources import data_path, logical_name
from ..text import seed as seedtext
from ..text.names import NameIndex
from ..text.placement import PlaceError, parse_place
from .actions import is_direction
from .errors import RiteError
from .expr import FUNCTIONS, Record
from .templates import RESERVED, Templates
from .yaml_lines import line_of, read_yaml, rel

DEFAULT_TEXT = "../text/xiangshe_li_part2.txt"
MAX_SEED_BYTES = 2_000_000
LIMITS = {"zhongbin": ZHONGBIN_RANGE, "dafu": DAFU_RANGE}    # as the command line's --zhongbin and --dafu
OTHER_PARAMETER = (-10_000, 10_000)
ID = re.compile(r"\w{1,40}")                            # a person's or a prop's id: one word
# what a script may take from another with ``cast: FILE`` (the first half's script takes the passage's cast, so
# that the people, props, groups and options are declared once); ``props`` it may add to
CAST_SECTIONS = ("parameters", "archery", "options", "landmarks", "people", "props", "pairs", "groups", "formations",
                 "tables")


class Script:
    """One rite script being read: its file, its raw YAML and what its sections declare so far."""

    def __init__(self, path: Path, raw: Any) -> None:
        self.path, self.file, self.raw = path, rel(path), raw
        self.tpl = Templates(self.file)
        if not isinstance(raw, dict):
            raise RiteError(self.file, line_of(raw, 1),
                            "the rite script must be a mapping (text, parameters, options, people …)")
        if "cast" in raw:
            self._read_cast_file(raw["cast"])
        for key in ("people", "props", "initial"):
            if key not in self.raw:
                raise RiteError(self.file, line_of(raw, 1), f"missing section {key!r}")

    def err(self, node: Any, what: str) -> RiteError:
        return self.tpl.err(node, what)

    def _read_cast_file(self, name: Any) -> None:
        """``cast: FILE``: the sections of CAST_SECTIONS taken from another script beside this one (its own
        ``props`` are added to the other's; any other of those sections it declares itself is an error)."""
        other = read_yaml(self.confined(name, name, "cast"))
        if not isinstance(other, dict):
            raise self.err(name, "cast: the file must be a rite script (a mapping)")
        merged = type(self.raw)(self.raw)
        merged.line = getattr(self.raw, "line", 1)
        for key in CAST_SECTIONS:
            if key not in other:
                continue
            if key == "props" and key in self.raw:
                own = self.raw["props"]
                if not isinstance(own, list) or not isinstance(other["props"], list):
                    raise self.err(own, "props: a list")
                both = type(own)([*other["props"], *own])
                both.line = getattr(own, "line", 0)
                merged["props"] = both
            elif key in self.raw:
                raise self.err(self.raw[key], f"{key}: declared by the cast file {name!s:.60}, not here")
            else:
                merged[key] = other[key]
        merged.pop("cast")
        self.raw = merged

    # -- files
    def confined(self, name: Any, node: Any, key: str, *, text: bool = False) -> Path:
        """The file ``name`` names, which must lie in the script's folder — or, for the seed text
        (``text``), in the ``text`` folder beside it (as in the package: ``assets/rite``,
        ``assets/text``) or in the package's own data."""
        if not isinstance(name, str) or not name.strip() or "\0" in name:
            raise self.err(node, f"{key}: a file name, not {str(name)[:60]!r}")
        folder = self.path.parent.resolve()
        target = (folder / name).resolve()
        inside = [folder] + ([folder.parent / "text", data_path().resolve()] if text else [])
        if not any(d in target.parents for d in inside):
            where = "the rite script's folder" + (" or the text folder beside it" if text else "")
            raise self.err(node, f"{key}: {name[:80]!r} is outside {where} (a script reads only files beside it)")
        return target

    def read_seed(self) -> None:
        node = self.raw.get("text", DEFAULT_TEXT)
        path = self.confined(node, node, "text", text=True)
        try:
            self.seed = read_text(path, rel(path), what="seed text", max_bytes=MAX_SEED_BYTES)
        except InputError as e:
            raise self.err(node, f"text: {e.file}: {e.what}") from None
        self.text_sha256 = seedtext.sha256(path)
        self.text_file = logical_name(path)

    # -- parameters and options
    def read_parameters(self, zhongbin: int | None, dafu: int | None) -> None:
        decl = self.raw.get("parameters") or {}
        if not isinstance(decl, dict):
            raise self.err(decl, "parameters: a mapping of names to whole numbers (zhongbin: 3)")
        params: dict[str, int] = {}
        for k, v in decl.items():
            self._name(k, decl, "parameter")
            lo, hi = LIMITS.get(k, OTHER_PARAMETER)
            if isinstance(v, bool) or not isinstance(v, int) or not lo <= v <= hi:
                raise self.err(decl, f"parameter {k}: {str(v)[:40]!r} is not a whole number from {lo} to {hi}")
            params[k] = v
        params.setdefault("zhongbin", ZHONGBIN)
        params.setdefault("dafu", DAFU)
        for k, v in (("zhongbin", zhongbin), ("dafu", dafu)):
            if v is not None:
                lo, hi = LIMITS[k]
                if isinstance(v, bool) or not isinstance(v, int) or not lo <= v <= hi:
                    raise RiteError(self.file, line_of(decl, 1), f"{k} must be a whole number from {lo} to {hi}")
                params[k] = v
        self.params = params

    def read_options(self, options: dict[str, str], defaults: dict[str, str] | None = None,
                     defaults_file: str = "reading") -> None:
        """The options chosen: the script's defaults, under a reading's own choices (``defaults``, named by
        ``defaults_file`` in errors), under those asked for explicitly."""
        decl = self.raw.get("options") or {}
        if not isinstance(decl, dict):
            raise self.err(decl, "options: a mapping of option names to {default, choices}")
        chosen: dict[str, str] = {}
        for name, d in decl.items():
            self._name(name, decl, "option")
            if not isinstance(d, dict) or "default" not in d or not isinstance(d.get("choices"), (dict, list)):
                raise RiteError(self.file, line_of(d, line_of(decl)), f"option {name!r} needs 'default' and 'choices'")
            if str(d["default"]) not in map(str, d["choices"]):
                raise RiteError(self.file, line_of(d, line_of(decl)), f"option {name!r}: the default is not a choice")
            chosen[name] = str(d["default"])
        for name, value in (defaults or {}).items():
            if name not in decl:
                raise RiteError(defaults_file, "options", f"unknown option {str(name)[:40]!r}; the rite script's: "
                                                          f"{', '.join(decl)}")
            choices = [str(c) for c in decl[name]["choices"]]
            if str(value) not in choices:
                raise RiteError(defaults_file, f"options.{name}", f"{str(value)[:40]!r} is not one of {', '.join(choices)}")
            chosen[name] = str(value)
        for name, value in options.items():
            if name not in decl:
                raise RiteError(self.file, line_of(decl, 1), f"unknown option {str(name)[:40]!r}; known: {', '.join(decl)}")
            choices = [str(c) for c in decl[name]["choices"]]
            if str(value) not in choices:
                raise RiteError(self.file, line_of(decl[name], 1),
                                f"option {name}={str(value)[:40]!r} is not one of {', '.join(choices)}")
            chosen[name] = str(value)
        self.opt_decl, self.chosen = decl, chosen
        clash = set(self.params) & set(chosen)
        if clash:
            raise self.err(decl, f"{', '.join(sorted(clash))}: both a parameter and an option")
        self.read_archery()
        self.env: dict[str, Any] = {**self.params, **chosen, "archery_tallies": self.archery.tallies,
                                    "GROUPS": {}, "PAIRS": {}}

    def read_archery(self) -> None:
        decl = self.raw.get("archery") or {}
        if not isinstance(decl, dict):
            raise self.err(decl, "archery: a mapping of the archery's parameters (hit_rate: 0.45 …)")
        try:
            self.archery = ArcheryParams.model_validate(dict(decl))
        except ValidationError as e:
            raise RiteError(self.file, line_of(decl, 1), f"bad archery parameters: {short(e)}") from None

    def _name(self, k: Any, node: Any, what: str) -> None:
        if not isinstance(k, str) or not k.isidentifier() or k.startswith("_") or k in FUNCTIONS or k in RESERVED:
            raise self.err(node, f"{what} {str(k)[:40]!r}: a name (letters, digits, _), not beginning with _ "
                                 f"and not one of {', '.join((*FUNCTIONS, *RESERVED))}")

    # -- cast
    def _build(self, model: type[BaseModel], what: str, section: str) -> tuple[list, list]:
        nodes = self.tpl.expand(self.raw[section], self.env)
        if not isinstance(nodes, list):
            raise self.err(self.raw[section], f"{section}: a list")
        out, seen = [], set()
        for p in nodes:
            if not isinstance(p, dict):
                raise self.err(p if hasattr(p, "line") else nodes, f"bad {what}: a mapping with id …")
            try:
                item = model(**{str(k): v for k, v in p.items()})
            except ValidationError as e:
                raise self.err(p, f"bad {what}: {short(e)}") from None
            if not ID.fullmatch(item.id):
                raise self.err(p, f"bad {what} id {item.id[:60]!r}: one word of at most 40 letters or digits")
            if item.id in seen:
                raise self.err(p, f"duplicate {what} id {item.id!r}")
            seen.add(item.id)
            out.append(item)
        return out, nodes

    def read_cast(self) -> None:
        self.people, _ = self._build(Person, "person", "people")
        self.props, _ = self._build(Prop, "prop", "props")
        self.person_ids = [p.id for p in self.people]
        self.prop_ids = [p.id for p in self.props]
        self.carried: dict[str, Initial] = {}
        self.env["PROPS"] = self.prop_ids          # the things of the ceremony, for ``if: "'瑟1' in PROPS"``
        self.env["PEOPLE"] = self.person_ids       # and its people
        landmarks = self.tpl.expand(self.raw.get("landmarks") or [], self.env)
        if not isinstance(landmarks, list) or not all(isinstance(x, str) for x in landmarks):
            raise self.err(self.raw.get("landmarks"), "landmarks: a list of names")
        self.landmarks = [str(x) for x in landmarks]

    def read_carried(self, before) -> None:
        """The things of the part performed before this one in the same ceremony (``before``, a Rite: the whole
        chapter's first half) that this script does not declare (the 瑟 the 相者 carry, 相者皆左何瑟): its events
        may name them where a 如初 performs what the part before did with them, under ``if: "'瑟1' in PROPS"``
        (the script alone has no such thing).  Where they are at this part's first character is where the part
        before leaves them (``join_rites``), not declared here."""
        own = set(self.prop_ids)
        for p in before.props:
            if p.id not in own:
                self.props.append(p)
                self.prop_ids.append(p.id)
                self.carried[p.id] = before.initial[p.id]

    # -- pairs, groups, formations
    def read_ensembles(self) -> None:
        self._read_pairs()
        self.groups: dict[str, list[str]] = {k: list(v) for k, v in self.env["GROUPS"].items()}
        for name, members, node in self._lists("groups"):
            for m in members:
                if m not in self.person_ids and m not in self.prop_ids:
                    raise self.err(node, f"group {name!r}: unknown member {m[:40]!r}")
            self.groups[name] = members
            self.env["GROUPS"][name] = members
        self.formations: dict[str, list[str]] = {}
        for name, members, node in self._lists("formations"):
            for m in members:
                if m not in self.person_ids:
                    raise self.err(node, f"formation {name!r}: unknown person {m[:40]!r}")
            self.formations[name] = members
        self._read_tables()
        self.known_places = NameIndex()
        for n in (*self.landmarks, *self.formations, *self.person_ids, *self.prop_ids):
            self.known_places.add(n)
        for p in self.people:
            self.known_places.add(p.id, p.aliases)

    def _read_tables(self) -> None:
        """``tables``: a name for a value worked out once from the cast, the groups and the parameters (a rule
        the events of several files follow, declared once: where each goes back to, 反位): ``NAME: "expression"``,
        evaluated in turn (a table may use those before it), then a name the events' expressions read."""
        decl = self.raw.get("tables") or {}
        if not isinstance(decl, dict):
            raise self.err(decl, "tables: a mapping of names to expressions")
        for name, expr in decl.items():
            where = name if hasattr(name, "line") else decl        # the line of the name (a key read as text)
            self._name(name, where, "table")
            if name in self.env:
                raise self.err(where, f"table {name!r}: already the name of a parameter or an option")
            if not isinstance(expr, str):
                raise self.err(expr if hasattr(expr, "line") else decl, f"table {name!r}: an expression (a string)")
            self.env[name] = self.tpl.eval(expr, self.env, expr)

    def _lists(self, section: str) -> Iterator[tuple[str, list[str], Any]]:
        decl = self.raw.get(section) or {}
        if not isinstance(decl, dict):
            raise self.err(decl, f"{section}: a mapping of names to lists")
        for name, lst in decl.items():       # one by one: a group may use the groups before it
            members = self.tpl.expand(lst, self.env)
            if not isinstance(members, list) or not all(isinstance(m, (str, int)) for m in members):
                raise self.err(lst if hasattr(lst, "line") else decl, f"{section[:-1]} {str(name)[:40]!r}: a list of names")
            yield str(name), [str(x) for x in members], lst

    def _read_pairs(self) -> None:
        decl = self.raw.get("pairs") or {}
        if not isinstance(decl, dict):
            raise self.err(decl, "pairs: a mapping of names to lists of [上射, 下射]")
        right_wins = self.env.get("victor", "右") == "右"
        for name, lst in decl.items():
            items = self.tpl.expand(lst, self.env)
            if not isinstance(items, list):
                raise self.err(lst if hasattr(lst, "line") else decl, f"pair list {str(name)[:40]!r}: a list of pairs")
            recs = []
            for it in items:
                if not (isinstance(it, list) and len(it) == 2):
                    raise self.err(it if hasattr(it, "line") else lst, f"pair list {name!r}: each pair is [上射, 下射]")
                up, down = str(it[0]), str(it[1])
                for who in (up, down):
                    if who not in self.person_ids:
                        raise self.err(it, f"pair list {name!r}: unknown person {who[:40]!r}")
                recs.append(Record({"上射": up, "下射": down, "胜者": up if right_wins else down,
                                    "不胜者": down if right_wins else up}))
            for i, r in enumerate(recs):
                r["i"] = i + 1
                r["next"] = Record({k: v for k, v in recs[i + 1].items() if k in ("上射", "下射", "胜者", "不胜者")}) \
                    if i + 1 < len(recs) else None
            self.env["PAIRS"][str(name)] = recs
            self.env["GROUPS"][str(name)] = [x for r in recs for x in (r["上射"], r["下射"])]

    # -- names of places
    def check_place(self, s: Any, node: Any, what: str = "place", tpl: Templates | None = None) -> str:
        s = str(s)
        try:
            parse_place(s, self.known_places)
        except PlaceError as e:
            raise (tpl or self.tpl).err(node, f"unknown {what} {s[:60]!r}: {e}") from None
        return s

    def check_heading(self, s: Any, node: Any, tpl: Templates | None = None) -> str:
        s = str(s)
        if is_direction(s) or s in self.known_places:
            return s
        try:
            parse_place(s, self.known_places)
            return s
        except PlaceError:
            raise (tpl or self.tpl).err(node, f"unknown heading {s[:60]!r}: a direction word (北, 东南 …) "
                                              f"or a person/place") from None

    # -- the state at the first character
    def read_initial(self) -> None:
        raw = self.tpl.expand(self.raw["initial"], self.env)
        if not isinstance(raw, dict):
            raise self.err(self.raw["initial"], "initial: a mapping of ids to states")
        initial: dict[str, Initial] = {}
        for k, v in raw.items():
            k = str(k)
            if k not in self.person_ids and k not in self.prop_ids:
                raise self.err(v if hasattr(v, "line") else raw, f"initial state for unknown person or prop {k[:40]!r}")
            if not isinstance(v, dict):
                raise self.err(raw, f"initial state of {k!r} must be a mapping")
            try:
                st = Initial(**{str(a): b for a, b in v.items()})
            except ValidationError as e:
                raise self.err(v, f"bad initial state of {k!r}: {short(e)}") from None
            self._check_initial(k, st, v)
            initial[k] = st
        initial.update({k: v for k, v in self.carried.items() if k not in initial})
        missing = [i for i in (*self.person_ids, *self.prop_ids) if i not in initial]
        if missing:
            raise self.err(self.raw["initial"], f"no initial state for: {', '.join(missing)}")
        self.initial = initial

    def _check_initial(self, k: str, st: Initial, node: Any) -> None:
        self.check_place(st.at, node)
        if st.heading is not None:
            self.check_heading(st.heading, node)
        for h in st.holds:
            if h not in self.prop_ids:
                raise self.err(node, f"{k!r} holds unknown prop {h[:40]!r}")
        if st.held_by is not None and st.held_by not in self.person_ids:
            raise self.err(node, f"{k!r} held by unknown person {st.held_by[:40]!r}")
        postures = Posture if k in self.person_ids else PropPosture
        if st.posture not in set(postures):
            raise self.err(node, f"{k!r}: posture {str(st.posture)!r} is not one of {', '.join(postures)}")


def short(e: ValidationError) -> str:
    """A pydantic error in one short line: ``field: what``; …"""
    return "; ".join(f"{'.'.join(map(str, x['loc']))}: {x['msg']}" for x in e.errors()[:3])[:300]
