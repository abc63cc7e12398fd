"""Procedures: a rite's repeated acts written once and performed by calls (the text's 如初, 如三耦, 亦如之).

A procedure is a named list of steps, each an event with its own key, the words of the text that tell it
at its first performance (its 初), a gloss and its actions, written over the procedure's parameters (the
people and things the procedure is performed with)::

    升饮:
      about: "The forfeit cup drunk by one pair below (88–90)."
      params: [上射, 下射, 胜者, 不胜者]          # bound by every call
      flags: {同升: true}                         # defaults a call may change only with a cited override
      steps:
        - key: jin
          text: 一耦进，揖如升shè，及阶
          gloss: "…"
          do: ["{上射} go 阶前 face=北", …]

A call performs the procedure with its own people, in the place of an event::

    - call: 升饮
      id: "p3.{p_i}"                 # the steps' events are p3.1.jin, p3.1.sheng …
      with: {上射: "{p.上射}", …}
      text: 升饮者如初               # the words this performance cites (a 如初); without it each step its own
      texts: {jiang: 降复位}          # or per step
      after: {jin: [p2.zuo]}         # extra 'after' for steps (a list: for the first step)
      override:                      # what differs from the first performance, each with its reason
        - {flag: 同升, value: false, cite: "若大夫之耦不勝…特升飲 (91)"}
        - {step: jiang, do: [...], cite: "…"}          # the step's actions replaced
        - {step: reset, drop: true, cite: "…"}         # the step left out
        - {after: qu, insert: {key: …, text: …, do: […]}, cite: "…"}   # a step added

A step whose words are on a page our copy of the text lacks (the 注疏 reads them there) writes those words
as its ``text`` and names with ``lacuna`` the words of our copy the missing page follows, which its event
cites (unless the call gives words of its own)::

        - key: xian
          text: 主人實爵席前獻于大夫          # the 注疏 (文淵閣), on the page the 四部叢刊 lacks
          lacuna: 主人降                      # cited in our copy; the plan records the 注疏's words beside it

Inside a step, ``{ID}`` is the call's id, and an ``after`` entry ``.key`` names another step of the same
call.  The steps see the script's parameters, options and groups, the call's bindings and flags, never
the caller's loop variables: what a performance does follows from who performs it and the cited
overrides only.  Every expanded event records the procedure, the call, the step and the overrides that
touched it (``Event.procedure``), for ``plan --explain`` and for the tests that hold each 如初 to its 初.
"""
from __future__ import annotations

import re
from typing import Any

from .templates import Templates
from .yaml_lines import LDict, LList, line_of

PROC_KEYS = {"about", "params", "flags", "steps", "cite"}
STEP_KEYS = {"key", "text", "gloss", "do", "actors", "after", "option", "rule", "footnote", "note", "when",
             "cite", "summary", "at", "lacuna"}
CALL_KEYS = {"call", "id", "with", "text", "texts", "gloss", "after", "override", "note", "cite", "footnote", "from"}
OVERRIDE_KEYS = {"flag", "value", "step", "do", "drop", "after", "before", "insert", "cite", "text", "gloss", "when"}
NAME = re.compile(r"[^\W\d_]\w{0,39}")
KEY = re.compile(r"[A-Za-z][\w]{0,39}")
MAX_PROCEDURES = 500
MAX_STEPS = 500


class Procedures:
    """The procedures of one rite script, read from the files its ``procedures:`` section lists."""

    def __init__(self, base_env: dict | None = None) -> None:
        self.base = base_env or {}                         # the script's parameters, options, groups, pairs
        self.defs: dict[str, tuple[dict, str]] = {}       # name → (definition node, file)
        self.calls: dict[str, int] = {}                   # name → how many times it has been called

    def add_file(self, raw: Any, file: str) -> None:
        tpl = Templates(file)
        if not isinstance(raw, dict):
            raise tpl.err(raw, "a procedures file is a mapping of procedure names to {params, steps}")
        for name, d in raw.items():
            if not isinstance(name, str) or not NAME.fullmatch(name):
                raise tpl.err(d if hasattr(d, "line") else raw, f"procedure name {str(name)[:40]!r}: one word")
            if name in self.defs:
                raise tpl.err(d if hasattr(d, "line") else raw, f"procedure {name!r} is defined twice")
            if len(self.defs) >= MAX_PROCEDURES:
                raise tpl.err(raw, f"more than {MAX_PROCEDURES} procedures")
            self._check(name, d, tpl)
            self.defs[name] = (d, file)

    def _check(self, name: str, d: Any, tpl: Templates) -> None:
        if not isinstance(d, dict) or not isinstance(d.get("steps"), list) or not d["steps"]:
            raise tpl.err(d, f"procedure {name!r}: a mapping with 'steps' (a list of events with 'key')")
        unknown = set(map(str, d)) - PROC_KEYS
        if unknown:
            raise tpl.err(d, f"procedure {name!r}: unknown key(s) {', '.join(sorted(unknown))}")
        params = d.get("params") or []
        if not isinstance(params, list) or not all(isinstance(p, str) and NAME.fullmatch(p) for p in params):
            raise tpl.err(d, f"procedure {name!r}: params is a list of names")
        flags = d.get("flags") or {}
        if not isinstance(flags, dict) or not all(isinstance(k, str) and NAME.fullmatch(k) for k in flags):
            raise tpl.err(d, f"procedure {name!r}: flags is a mapping of names to default values")
        if set(params) & set(flags):
            raise tpl.err(d, f"procedure {name!r}: {', '.join(sorted(set(params) & set(flags)))} both a param and a flag")
        if len(d["steps"]) > MAX_STEPS:
            raise tpl.err(d, f"procedure {name!r}: more than {MAX_STEPS} steps")
        keys = set()
        for st in d["steps"]:
            self._check_step(name, st, tpl, keys)

    def _check_step(self, name: str, st: Any, tpl: Templates, keys: set) -> None:
        if isinstance(st, dict) and ("call" in st or (("for" in st or "if" in st) and "key" not in st)):
            # a block of the procedure: calls of other procedures (a call may carry a key: the words a performance
            # cites for it, and overrides, name it so), loops, conditions
            if "key" in st:
                if not isinstance(st["key"], str) or not KEY.fullmatch(st["key"]) or st["key"] in keys:
                    raise tpl.err(st, f"procedure {name!r}: bad or repeated key {str(st['key'])[:40]!r}")
                keys.add(st["key"])
            return
        if not isinstance(st, dict) or not isinstance(st.get("key"), str) or not KEY.fullmatch(st["key"]):
            raise tpl.err(st if hasattr(st, "line") else None, f"procedure {name!r}: every step needs a 'key' "
                                                                f"(letters, digits, _), or is a call/for/if block")
        unknown = set(map(str, st)) - STEP_KEYS
        if unknown:
            raise tpl.err(st, f"procedure {name!r}, step {st['key']!r}: unknown key(s) {', '.join(sorted(unknown))}")
        if "text" not in st or not isinstance(st["text"], str) or not st["text"]:
            raise tpl.err(st, f"procedure {name!r}, step {st['key']!r}: 'text', the words that tell it at its 初")
        if "lacuna" in st and (not isinstance(st["lacuna"], str) or not st["lacuna"].strip()):
            raise tpl.err(st, f"procedure {name!r}, step {st['key']!r}: lacuna: the words of our copy the missing "
                              f"page follows (the event cites them), as text")
        if st["key"] in keys:
            raise tpl.err(st, f"procedure {name!r}: step key {st['key']!r} used twice")
        keys.add(st["key"])

    # -- a call
    def expand(self, call: dict, env: dict, tpl: Templates) -> list[tuple[str, Any, dict, dict]]:
        """What a call performs, in order: ``("event", node, env, ref)`` for a step (the node not yet expanded:
        the caller expands it in ``env``) and ``("block", node, env, ref)`` for a block of the procedure (calls
        of other procedures, loops) to be walked in ``env``; ``ref`` says which procedure, call and step."""
        unknown = set(map(str, call)) - CALL_KEYS
        if unknown:
            raise tpl.err(call, f"unknown key(s) of a call: {', '.join(sorted(unknown))}")
        name = tpl.sub(call["call"], env)
        if not isinstance(name, str) or name not in self.defs:
            raise tpl.err(call, f"unknown procedure {str(name)[:40]!r}; known: {', '.join(sorted(self.defs))[:200]}")
        proc, pfile = self.defs[name]
        cid = tpl.sub(call.get("id"), env)
        if not isinstance(cid, str) or not cid:
            raise tpl.err(call, f"a call of {name!r} needs an 'id' (its steps are named ID.key)")
        bound = self._bindings(name, proc, call, env, tpl)
        overrides = call.get("override") or []
        if not isinstance(overrides, list):
            raise tpl.err(call, "override: a list of {flag|step …, cite}")
        flags = dict(proc.get("flags") or {})
        steps = [dict(s) for s in proc["steps"]]
        touched: dict[str, list[str]] = {}
        general: list[str] = []
        own_text: set[str] = set()         # steps an override inserted or gave words: they cite their own
        for ov in overrides:
            steps = self._override(name, ov, steps, flags, touched, general, tpl, env, own_text)
        # a changed flag touches the steps whose acts read it
        flagged = {f: c for f, c in (g.split("=", 1) for g in general)}
        for st in steps:
            if "key" in st:
                said = str(st.get("do", ""))
                for f, c in flagged.items():
                    if f in said:
                        touched.setdefault(st["key"], []).append(f"{f}={c}")
        for k, v in bound.items():
            if k in flags:
                raise tpl.err(call, f"call of {name!r}: {k} is a flag: change it with an override that cites why")
        self.calls[name] = self.calls.get(name, 0) + 1
        repeat = self.calls[name] > 1
        texts = call.get("texts") or {}
        if not isinstance(texts, dict):
            raise tpl.err(call, "texts: a mapping of step keys to the words each performs")
        skeys = [s["key"] for s in steps if "key" in s]
        proc_keys = {x["key"] for x in proc["steps"] if "key" in x}
        for k, v in texts.items():
            if not isinstance(v, str):
                raise tpl.err(call, f"texts: the words of step {str(k)[:40]!r} are text, not {type(v).__name__}")
            if not isinstance(k, str) or (k not in skeys and k not in proc_keys):
                raise tpl.err(call, f"texts: {str(k)[:40]!r} is not a step of {name!r} ({', '.join(skeys)})")
        extra_after = call.get("after")
        if isinstance(extra_after, (list, str)):
            extra_after = {skeys[0]: extra_after} if skeys else {}
        if extra_after is not None and not isinstance(extra_after, dict):
            raise tpl.err(call, "after: a list (for the first step) or a mapping of step keys to lists of event ids")
        for k in ("text", "gloss", "from"):
            if call.get(k) is not None and not isinstance(call[k], str):
                raise tpl.err(call, f"{k}: text, not {type(call[k]).__name__}")
        written = [x["key"] for x in proc["steps"] if "key" in x] + [k for k in skeys if k not in proc_keys]
        for k in extra_after or {}:
            if k not in written:
                raise tpl.err(call, f"after: {str(k)[:40]!r} is not a step of {name!r} ({', '.join(written)})")
            if k not in skeys and self._ids(extra_after[k], env, tpl, call):
                raise tpl.err(call, f"after: step {k!r} of {name!r} is left out by an override")
        senv = dict(self.base)
        senv.update(bound)
        senv.update(flags)
        senv["ID"] = cid
        out: list[tuple[str, Any, dict, dict]] = []
        prev_key = None
        for st in steps:
            ref = {"name": name, "call": cid, "step": st.get("key", ""), "repeat": repeat,
                   "overrides": touched.get(st.get("key", ""), []), "file": pfile,
                   "people": {k: str(v) for k, v in {**bound, **flags}.items()
                              if isinstance(v, (str, bool, int)) and v not in ("", None)}}
            if "key" not in st or "call" in st:
                blk = LDict((k, v) for k, v in st.items() if k != "key")
                blk.line = line_of(st)
                if not out and call.get("from") is not None and "call" in st:
                    blk["from"] = tpl.sub(call["from"], env)        # the first act searches from there
                if "call" in st:
                    said = texts.get(st.get("key"), call.get("text"))
                    said = tpl.sub(said, env) if said is not None else None
                    if said is not None:
                        blk["text"] = said                          # the words the outer performance cites
                out.append(("block", blk, senv, ref))
                continue
            node = LDict((k, v) for k, v in st.items() if k not in ("key", "lacuna"))
            node.line = line_of(st)
            key = st["key"]
            node["id"] = f"{cid}.{key}"
            said = texts.get(key, None if key in own_text else call.get("text"))
            said = tpl.sub(said, env) if said is not None else None
            if said is not None:
                node["text"] = said
                if call.get("gloss") is not None:
                    node["gloss"] = tpl.sub(call["gloss"], env)
            if "lacuna" in st:
                # its words are on the page our copy lacks: the event cites the words that page follows, and the
                # plan keeps the 注疏's words it performs
                ref["lacuna"] = str(tpl.sub(st["text"], senv))
                if said is None:
                    node["text"] = tpl.sub(st["lacuna"], senv)
            if call.get("footnote") is not None:
                node["footnote"] = call["footnote"]
            if call.get("from") is not None and not out:
                node["from"] = tpl.sub(call["from"], env)
            own = st.get("after")
            after = [f"{cid}.{a[1:]}" if isinstance(a, str) and a.startswith(".") else a
                     for a in (own if isinstance(own, list) else [own] if own is not None else [])]
            more = self._ids(extra_after.get(key) if extra_after else None, env, tpl, call)
            if more or own is not None:
                if own is None and (prev_key is not None or out):
                    # after the step before (the last event of a procedure it calls, when it is a call: <prev>,
                    # not that call's own id, which names no event), and what the call adds
                    after = ["<prev>"]
                elif own is None:
                    after = []                            # the first step: what the call says replaces <prev>
                node["after"] = LList(after + more)
                node["after"].line = line_of(st)
            prev_key = key
            out.append(("event", node, senv, ref))
        return out

    def _ids(self, v: Any, env: dict, tpl: Templates, node: Any) -> list[str]:
        """Event ids from a call's ``after`` entry: a list of ids or templates, or one template giving a list
        (or nothing: None, an empty text)."""
        if v is None:
            return []
        items = v if isinstance(v, list) else [v]
        out: list[str] = []
        for it in items:
            x = tpl.sub(it, env)
            for y in (x if isinstance(x, list) else [x]):
                if y is None or y == "":
                    continue
                if not isinstance(y, str):
                    raise tpl.err(node, f"after: {str(y)[:40]!r} is not an event id")
                out.append(y)
        return out

    def _bindings(self, name: str, proc: dict, call: dict, env: dict, tpl: Templates) -> dict:
        params = list(proc.get("params") or [])
        given = call.get("with") or {}
        if not isinstance(given, dict):
            raise tpl.err(call, "with: a mapping of the procedure's params to people or things")
        bound = {}
        for k, v in given.items():
            if not isinstance(k, str) or (k not in params and k not in (proc.get("flags") or {})):
                raise tpl.err(call, f"call of {name!r}: {str(k)[:40]!r} is not one of its params ({', '.join(params)})")
            bound[str(k)] = tpl.expand(v, env)
        missing = [p for p in params if p not in bound]
        if missing:
            raise tpl.err(call, f"call of {name!r}: no value for {', '.join(missing)}")
        return bound

    def _override(self, name: str, ov: Any, steps: list, flags: dict, touched: dict, general: list,
                  tpl: Templates, env: dict, own_text: set | None = None) -> list:
        """One override applied to the steps.  A step it inserts, or whose words it gives (``text``), cites those
        words in this performance, not the call's (``own_text``)."""
        own_text = set() if own_text is None else own_text
        if not isinstance(ov, dict):
            raise tpl.err(ov if hasattr(ov, "line") else None, "an override is a mapping with 'cite'")
        unknown = set(map(str, ov)) - OVERRIDE_KEYS
        if unknown:
            raise tpl.err(ov, f"unknown key(s) of an override: {', '.join(sorted(unknown))}")
        cite = ov.get("cite")
        if not isinstance(cite, str) or not cite.strip():
            raise tpl.err(ov, "an override must cite why this performance differs (cite: the text or commentary)")
        if "when" in ov and not tpl.eval(str(ov["when"]), env, ov):
            return steps          # this performance is not the one the override is for
        keys = [s["key"] for s in steps]
        if "flag" in ov:
            f = ov["flag"]
            if not isinstance(f, str) or f not in flags:
                raise tpl.err(ov, f"override: {str(f)[:40]!r} is not a flag of {name!r} ({', '.join(flags) or 'none'})")
            if "value" not in ov:
                raise tpl.err(ov, "override of a flag needs 'value'")
            flags[f] = tpl.expand(ov["value"], env)
            general.append(f"{f}={flags[f]}: {cite}")
            return steps
        if "insert" in ov:
            where = ov.get("after", ov.get("before"))
            if not isinstance(where, str) or where not in keys:
                raise tpl.err(ov, f"override insert: 'after' or 'before' names a step of {name!r} ({', '.join(keys)})")
            new = ov["insert"]
            if not isinstance(new, dict):
                raise tpl.err(ov, "override insert: one step (a mapping with key, text, do)")
            self._check_step(name, new, tpl, set(keys))
            i = keys.index(where) + (1 if "after" in ov else 0)
            touched.setdefault(new["key"], []).append(cite)
            own_text.add(new["key"])
            return steps[:i] + [dict(new)] + steps[i:]
        st = ov.get("step")
        if not isinstance(st, str) or st not in keys:
            raise tpl.err(ov, f"override: 'step' names a step of {name!r} ({', '.join(keys)})")
        touched.setdefault(st, []).append(cite)
        if ov.get("drop") is True:
            return [s for s in steps if s["key"] != st]
        i = keys.index(st)
        new = dict(steps[i])
        changed = False
        for k in ("do", "text", "gloss"):
            if k in ov:
                new[k] = ov[k]
                changed = True
        if "text" in ov:
            own_text.add(st)
        if not changed:
            raise tpl.err(ov, "override of a step: 'do' (its actions replaced), 'drop: true', or 'text'/'gloss'")
        return steps[:i] + [new] + steps[i + 1:]


def read_procedures(script, read_yaml, rel) -> Procedures:
    """The procedures of a script: the files its ``procedures:`` section lists (beside it)."""
    procs = Procedures(script.env)
    files = script.raw.get("procedures")
    if files is None:
        return procs
    lst = files if isinstance(files, list) else [files]
    for f in lst:
        p = script.confined(f, files, "procedures")
        procs.add_file(read_yaml(p), rel(p))
    return procs
