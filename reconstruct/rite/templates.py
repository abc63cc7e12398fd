"""Templates and loops of the rite script: ``{…}`` substitutions, ``for``/``if`` blocks over the cast,
and the flattening of event loops (the text's 如初, 如三耦, 衆賓繼飲…辯 …).

Expressions are evaluated by :mod:`reconstruct.rite.expr`.  Expansion is bounded: a loop runs over
at most :data:`MAX_LOOP` items, and one script expands to at most :data:`MAX_EXPANDED` values.
"""
from __future__ import annotations

import re
from typing import Any

from .errors import RiteError
from .expr import FUNCTIONS, ExprError, Record, evaluate
from .yaml_lines import LDict, LList, LStr, line_of

_SUB = re.compile(r"\{([^{}]+)\}")
MAX_LOOP = 10_000             # items of one loop (the shipped script: at most the number of 衆賓)
MAX_EXPANDED = 5_000_000      # values made by expanding one script (the shipped one, 3 衆賓: about 60,000)
RESERVED = ("GROUPS", "PAIRS", "PROPS", "PEOPLE")

# markers in the flat list of events: a loop begins, one of its iterations begins, the loop ends
BEGIN, ITER, END = "BEGIN", "ITER", "END"


class Templates:
    """Expands the templates of one file of the rite script (``file`` names it in errors)."""

    def __init__(self, file: str, budget: list[int] | None = None):
        self.file = file
        self.budget = budget if budget is not None else [MAX_EXPANDED]   # shared by the files of a script

    def err(self, node: Any, what: str) -> RiteError:
        return RiteError(self.file, line_of(node), what)

    def spend(self, node: Any, n: int = 1) -> None:
        self.budget[0] -= n
        if self.budget[0] < 0:
            raise self.err(node, f"the script expands to more than {MAX_EXPANDED:,} values (loops too long?)")

    def eval(self, expr: str, env: dict, node: Any) -> Any:
        try:
            return evaluate(expr, env)
        except ExprError as e:
            shown = expr if len(expr) <= 80 else expr[:77] + "…"
            raise self.err(node, f"cannot evaluate {{{shown}}}: {e}") from None

    def sub(self, s: Any, env: dict) -> Any:
        if not isinstance(s, str) or "{" not in s:
            return s

        def one(m):
            v = self.eval(m.group(1), env, s)
            return "" if v is None else str(v)
        whole = _SUB.fullmatch(s)
        if whole:      # a whole-string template keeps its value's type (a number, a list …)
            v = self.eval(whole.group(1), env, s)
            out = v if not isinstance(v, str) else LStr(v)
        else:
            out = LStr(_SUB.sub(one, s))
        if isinstance(out, LStr):
            out.line = line_of(s)
        return out

    def values(self, node: dict, env: dict) -> list[tuple[Any, dict]]:
        """The iterations of a ``for`` node: a list of (value, extra variables)."""
        name = node["for"]
        if not isinstance(name, str) or not name.isidentifier() or name.startswith("_") \
                or name in FUNCTIONS or name in RESERVED:
            raise self.err(node, f"'for: {str(name)[:40]}': the loop variable must be a name, not beginning "
                                 f"with _ and not one of {', '.join((*FUNCTIONS, *RESERVED))}")
        items = self._items(node, env)
        if len(items) > MAX_LOOP:
            raise self.err(node, f"a loop over {len(items):,} items (at most {MAX_LOOP:,})")
        self.spend(node, len(items))
        out = []
        for i, v in enumerate(items):
            extra = {name: v, f"{name}_i": i + 1, f"{name}_n": len(items),
                     f"{name}_first": i == 0, f"{name}_last": i == len(items) - 1,
                     f"{name}_prev": items[i - 1] if i else None,
                     f"{name}_next": items[i + 1] if i + 1 < len(items) else None}
            out.append((v, extra))
        return out

    def _items(self, node: dict, env: dict) -> list:
        if "pairs" in node:
            pairs = env["PAIRS"].get(str(node["pairs"]))
            if pairs is None:
                raise self.err(node, f"unknown pair list {str(node['pairs'])[:60]!r}")
            return [Record(p) for p in pairs]
        if "group" in node:
            g = self.sub(node["group"], env)
            items = env["GROUPS"].get(g) if isinstance(g, str) else None
            if items is None:
                raise self.err(node, f"unknown group {str(g)[:60]!r}")
            return list(items)
        if "in" in node:
            spec = node["in"]
            if isinstance(spec, str) and ".." in spec:
                return self._span(spec, env, node)
            if isinstance(spec, str):
                items = self.eval(spec, env, node)
                if not isinstance(items, (list, tuple)):
                    raise self.err(node, f"'in: {spec[:60]}' gives {type(items).__name__}, not a list")
                return list(items)
            if isinstance(spec, list):
                return [self.sub(x, env) for x in spec]
            raise self.err(node, "'in' is a list, an expression giving a list, or FROM..TO")
        raise self.err(node, "a 'for' needs one of: in, group, pairs")

    def _span(self, spec: str, env: dict, node: Any) -> list[int]:
        a, b = spec.split("..", 1)
        lo, hi = self.eval(a, env, node), self.eval(b, env, node)
        if not all(isinstance(x, int) and not isinstance(x, bool) for x in (lo, hi)):
            raise self.err(node, f"'in: {spec[:60]}': FROM..TO takes whole numbers")
        if hi - lo + 1 > MAX_LOOP:
            raise self.err(node, f"'in: {spec[:60]}' is a loop over {hi - lo + 1:,} numbers (at most {MAX_LOOP:,})")
        return list(range(lo, hi + 1))

    def expand(self, node: Any, env: dict) -> Any:
        """Expand ``for``/``if`` blocks and ``{…}`` templates everywhere below node."""
        self.spend(node)
        if isinstance(node, list):
            out = LList()
            out.line = line_of(node)
            for item in node:
                if isinstance(item, dict) and ("for" in item or "if" in item) and "text" not in item:
                    out.extend(self.block(item, env, list))
                else:
                    out.append(self.expand(item, env))
            return out
        if isinstance(node, dict) and "if" in node and set(node) <= {"if", "then", "else"}:
            cond = self.eval(str(node["if"]), env, node)
            body = node.get("then") if cond else node.get("else")
            return self.expand(body, env) if body is not None else LDict()
        if isinstance(node, dict):
            out = LDict()
            out.line = line_of(node)
            for k, v in node.items():
                if isinstance(k, str) and k.startswith("_") and isinstance(v, dict) and ("for" in v or "if" in v):
                    for part in self.block(v, env, dict):
                        if not isinstance(part, dict):
                            raise self.err(v, f"{k}: each item of this block must be a mapping")
                        out.update(part)
                    continue
                key = self.sub(k, env)
                if not isinstance(key, (str, int, float, bool)) and key is not None:
                    raise self.err(node, f"the key {str(k)[:60]!r} gives {type(key).__name__}, not a word")
                out[key] = self.expand(v, env)
            return out
        return self.sub(node, env)

    def block(self, node: dict, env: dict, kind) -> list:
        """A ``for``/``if`` block: ``each`` gives one item per iteration, ``items`` a list spliced in."""
        splice = "items" in node
        if "if" in node:
            cond = self.eval(str(node["if"]), env, node)
            body = node.get("then", node.get("each", node.get("items"))) if cond else node.get("else")
            runs = [(body, env)] if body is not None else []
            splice = splice or isinstance(body, list)
        else:
            body = node.get("items", node.get("each"))
            if body is None:
                raise self.err(node, "a 'for' block needs 'each' (one item per iteration) or 'items' (a list)")
            runs = [(body, {**env, **extra}) for _, extra in self.values(node, env)]
        out = []
        for b, e in runs:
            x = self.expand(b, e)
            if splice and isinstance(x, list):
                out.extend(x)
            else:
                out.append(x)
        return out


def expand_events(lst: Any, env: dict, tpl: Templates, procedures=None) -> list:
    """Expand event loops into a flat list of (event node, file) and loop markers.

    Each iteration of a loop locates its texts again from where the loop began (the locator keeps
    a stack of loop start offsets), so an iteration may repeat the words of the one before
    (升飲者如初 for every pair)."""
    out: list = []
    _walk_events(lst, env, tpl, out, procedures)
    return out


def _walk_events(lst: Any, env: dict, tpl: Templates, out: list, procs=None) -> None:
    for item in as_list(lst):
        if isinstance(item, dict) and "call" in item:
            if procs is None:
                raise tpl.err(item, "a call of a procedure, but the script declares no procedures")
            for kind, node, senv, ref in procs.expand(item, env, tpl):
                stpl = Templates(ref["file"], tpl.budget)
                if kind == "block":
                    _walk_events([node], senv, stpl, out, procs)
                else:
                    _event_node(node, senv, stpl, out, {k: v for k, v in ref.items() if k != "file"})
            continue
        if isinstance(item, dict) and ("for" in item or "if" in item) and "text" not in item:
            if "if" in item:
                body = item.get("then", item.get("each")) if tpl.eval(str(item["if"]), env, item) else item.get("else")
                if body is not None:
                    _walk_events(body, env, tpl, out, procs)
                continue
            if "each" not in item:
                raise tpl.err(item, "a 'for' block needs 'each'")
            out.append(BEGIN)
            for _, extra in tpl.values(item, env):
                out.append(ITER)
                _walk_events(item["each"], {**env, **extra}, tpl, out, procs)
            out.append(END)
            continue
        if not isinstance(item, dict):
            raise tpl.err(item if hasattr(item, "line") else lst, "an event must be a mapping with 'text'")
        _event_node(item, env, tpl, out)


def _event_node(item: dict, env: dict, tpl: Templates, out: list, procedure: dict | None = None) -> None:
    """One event node expanded into ``out`` (a clause whose ``when`` fails: kept as a rule, no actions)."""
    if "when" in item and not tpl.eval(str(item["when"]), env, item):
        e = tpl.expand(_sub_dict(item, ("do", "when")), env)
        e["rule"] = True
    else:
        e = tpl.expand(_sub_dict(item, ("when",)), env)
    conds = _conditions(item)
    if conds:
        e["when"] = " ; ".join(conds)       # as written: the options the event rests on are read from them
    out.append((e, tpl.file, procedure))


def _conditions(node: Any) -> list[str]:
    """The conditions an event node is written under, as written: its ``when``, the ``if`` of its actions and
    the ``{…}`` expressions in it (where an interpretive option can decide what it does)."""
    out: list[str] = []
    if isinstance(node, dict):
        for k, v in node.items():
            if k in ("when", "if") and not isinstance(v, (dict, list)):
                out.append(str(v))
            else:
                out.extend(_conditions(v))
    elif isinstance(node, list):
        for v in node:
            out.extend(_conditions(v))
    elif isinstance(node, str) and "{" in node:
        out.append(node)
    return out


def _sub_dict(d: dict, drop: tuple[str, ...]) -> LDict:
    out = LDict((k, v) for k, v in d.items() if k not in drop)
    out.line = line_of(d)
    return out


def as_list(x: Any) -> list:
    if x is None:
        return []
    return list(x) if isinstance(x, list) else [x]
