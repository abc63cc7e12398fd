"""The little expression language of the rite script's templates (``{…}``, ``if:``, ``when:``,
``for: … in:``), evaluated here — never by Python's ``eval``.

An expression is parsed with :mod:`ast` and walked by :func:`evaluate`, which knows exactly these
forms, the ones the shipped script uses:

* names of the parameters, options, loop variables and ``GROUPS``; constants (text, whole numbers,
  decimals, true/false, None); lists and tuples; ``[… for x in … if …]``;
* ``+ - * // %`` on numbers (``+`` also joins texts and lists), ``-x``, comparisons
  (``== != < <= > >= in not in is is not``), ``and or not``, ``a if cond else b``;
* ``x[i]``, ``x[i:j]``, and ``p.name`` on a pair record (``p.上射``, ``p.next.胜者``, ``p.i``);
* calls of ``len range str int min max`` and the text methods ``startswith endswith removeprefix
  removesuffix`` — resolved by the evaluator itself, so a variable can never stand in for them.

There is no other attribute access, no name beginning with ``_``, and bounds on the work one
expression may do, the length of a range and the size of a value, so a hostile script can neither
reach Python's internals nor exhaust the machine.
"""
from __future__ import annotations

import ast
from collections.abc import Mapping
from functools import lru_cache
from typing import Any, Callable

MAX_SOURCE = 2_000          # characters in one expression
MAX_STEPS = 1_000_000       # nodes evaluated by one expression
MAX_ITEMS = 100_000         # items in a list, characters in a text made by an expression
MAX_RANGE = 100_000         # numbers in a range()
MAX_INT = 10 ** 15          # largest whole number an expression may make


class ExprError(ValueError):
    """An expression that cannot be evaluated; the message says why (one line)."""


class Record(dict):
    """A record of named fields a template reads as ``p.field`` (a pair: 上射, 下射, 胜者 …)."""

    __slots__ = ()


def _len(x: Any) -> int:
    if not isinstance(x, (str, list, tuple, dict)):
        raise ExprError(f"len() of {_kind(x)}")
    return len(x)


def _range(*args: Any) -> list[int]:
    if not 1 <= len(args) <= 3 or not all(_is_int(a) for a in args):
        raise ExprError("range() takes one to three whole numbers")
    r = range(*args)
    if len(r) > MAX_RANGE:
        raise ExprError(f"range() of {len(r):,} numbers (at most {MAX_RANGE:,})")
    return list(r)


def _str(x: Any = "") -> str:
    if not isinstance(x, (str, int, float, bool)) and x is not None:
        raise ExprError(f"str() of {_kind(x)}")
    return str(x)


def _int(x: Any) -> int:
    if isinstance(x, str):
        s = x.strip()
        if not (s.lstrip("+-").isascii() and s.lstrip("+-").isdigit()) or len(s) > 16:
            raise ExprError(f"int() of {x[:40]!r}")
        return int(s)
    if isinstance(x, bool) or not isinstance(x, (int, float)) or x != x or abs(x) > MAX_INT:
        raise ExprError(f"int() of {_kind(x)}")
    return int(x)


def _minmax(f: Callable) -> Callable:
    def call(*args: Any) -> Any:
        items = list(args[0]) if len(args) == 1 and isinstance(args[0], (list, tuple)) else list(args)
        if not items:
            raise ExprError(f"{f.__name__}() of nothing")
        kinds = {type(x) for x in items}
        if not (kinds <= {int, float, bool} or kinds == {str}):
            raise ExprError(f"{f.__name__}() of values that cannot be compared")
        return f(items)
    return call


FUNCTIONS: dict[str, Callable] = {"len": _len, "range": _range, "str": _str, "int": _int,
                                  "min": _minmax(min), "max": _minmax(max)}
TEXT_METHODS = ("startswith", "endswith", "removeprefix", "removesuffix")

_COMPARE = {ast.Eq: lambda a, b: a == b, ast.NotEq: lambda a, b: a != b, ast.Lt: lambda a, b: a < b,
            ast.LtE: lambda a, b: a <= b, ast.Gt: lambda a, b: a > b, ast.GtE: lambda a, b: a >= b,
            ast.In: lambda a, b: _contains(b, a), ast.NotIn: lambda a, b: not _contains(b, a),
            ast.Is: lambda a, b: a is b, ast.IsNot: lambda a, b: a is not b}


def _kind(x: Any) -> str:
    return {str: "a text", int: "a number", float: "a number", bool: "true/false", list: "a list",
            tuple: "a tuple", Record: "a record", dict: "a mapping", type(None): "None"}.get(type(x), type(x).__name__)


def _is_int(x: Any) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


def _is_num(x: Any) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool)


def _contains(container: Any, item: Any) -> bool:
    if isinstance(container, str):
        if not isinstance(item, str):
            raise ExprError(f"'in' a text needs a text, not {_kind(item)}")
        return item in container
    if not isinstance(container, (list, tuple, dict)):
        raise ExprError(f"'in' needs a list, a tuple, a mapping or a text, not {_kind(container)}")
    return item in container


@lru_cache(maxsize=4096)
def parse(source: str) -> ast.Expression:
    """The parsed expression (:class:`ExprError` if it is not one, or too long); the tree is shared
    by every evaluation of the same text and never changed."""
    if len(source) > MAX_SOURCE:
        raise ExprError(f"expression of {len(source):,} characters (at most {MAX_SOURCE:,})")
    try:
        return ast.parse(source.strip(), mode="eval")
    except SyntaxError as e:
        raise ExprError(f"not an expression ({e.msg})") from None
    except (ValueError, RecursionError, MemoryError):
        raise ExprError("not an expression (nested too deep, or a null character)") from None


def evaluate(source: str, names: Mapping[str, Any]) -> Any:
    """The value of the expression ``source`` with the variables ``names``."""
    tree = parse(source)
    try:
        return _Evaluator(names).eval(tree.body)
    except RecursionError:
        raise ExprError("nested too deep") from None
    except (TypeError, ValueError, ZeroDivisionError, IndexError, KeyError, OverflowError) as e:
        if isinstance(e, ExprError):
            raise
        what = {IndexError: "index out of range", KeyError: f"no key {e}"}.get(type(e), str(e).splitlines()[0][:160])
        raise ExprError(f"{type(e).__name__}: {what}") from None


class _Evaluator:
    def __init__(self, names: Mapping[str, Any]) -> None:
        self.scopes: list[Mapping[str, Any]] = [names]
        self.steps = 0

    def eval(self, node: ast.AST) -> Any:
        self.steps += 1
        if self.steps > MAX_STEPS:
            raise ExprError(f"too much work (more than {MAX_STEPS:,} steps)")
        method = getattr(self, "_" + type(node).__name__, None)
        if method is None:
            raise ExprError(f"{type(node).__name__} is not allowed in a rite expression")
        return _bounded(method(node))

    # -- leaves
    def _Constant(self, node: ast.Constant) -> Any:
        if node.value is not None and not isinstance(node.value, (str, int, float, bool)):
            raise ExprError(f"a constant of type {type(node.value).__name__}")
        return node.value

    def _Name(self, node: ast.Name) -> Any:
        if node.id.startswith("_"):
            raise ExprError(f"name {node.id!r}: names beginning with _ are not allowed")
        for scope in reversed(self.scopes):
            if node.id in scope:
                return scope[node.id]
        if node.id in FUNCTIONS:
            raise ExprError(f"{node.id} can only be called: {node.id}(…)")
        raise ExprError(f"unknown name {node.id!r}")

    def _List(self, node: ast.List) -> list:
        return [self.eval(e) for e in node.elts]

    def _Tuple(self, node: ast.Tuple) -> tuple:
        return tuple(self.eval(e) for e in node.elts)

    # -- operators
    def _BinOp(self, node: ast.BinOp) -> Any:
        a, b = self.eval(node.left), self.eval(node.right)
        op = type(node.op)
        if op is ast.Add:
            if _is_num(a) and _is_num(b):
                return a + b
            for kind in (str, list, tuple):       # (the loader's line-keeping subclasses count as their kind)
                if isinstance(a, kind) and isinstance(b, kind):
                    return kind(a) + kind(b)
            raise ExprError(f"cannot add {_kind(b)} to {_kind(a)}")
        if not (_is_num(a) and _is_num(b)):
            raise ExprError(f"arithmetic on {_kind(a)} and {_kind(b)}")
        if op is ast.Sub:
            return a - b
        if op is ast.Mult:
            return a * b
        if op in (ast.FloorDiv, ast.Mod):
            if b == 0:
                raise ExprError("division by zero")
            return a // b if op is ast.FloorDiv else a % b
        raise ExprError(f"operator {op.__name__} is not allowed")

    def _UnaryOp(self, node: ast.UnaryOp) -> Any:
        v = self.eval(node.operand)
        if isinstance(node.op, ast.Not):
            return not v
        if isinstance(node.op, (ast.USub, ast.UAdd)) and _is_num(v):
            return -v if isinstance(node.op, ast.USub) else v
        raise ExprError(f"{type(node.op).__name__} of {_kind(v)}")

    def _BoolOp(self, node: ast.BoolOp) -> Any:
        v: Any = None
        for e in node.values:
            v = self.eval(e)
            if isinstance(node.op, ast.And) and not v or isinstance(node.op, ast.Or) and v:
                return v
        return v

    def _Compare(self, node: ast.Compare) -> bool:
        left = self.eval(node.left)
        for op, right_node in zip(node.ops, node.comparators):
            right = self.eval(right_node)
            if type(op) in (ast.Lt, ast.LtE, ast.Gt, ast.GtE) and not (
                    (_is_num(left) and _is_num(right)) or isinstance(left, str) and isinstance(right, str)):
                raise ExprError(f"cannot order {_kind(left)} and {_kind(right)}")
            if not _COMPARE[type(op)](left, right):
                return False
            left = right
        return True

    def _IfExp(self, node: ast.IfExp) -> Any:
        return self.eval(node.body) if self.eval(node.test) else self.eval(node.orelse)

    # -- access
    def _Subscript(self, node: ast.Subscript) -> Any:
        v = self.eval(node.value)
        if isinstance(node.slice, ast.Slice):
            if not isinstance(v, (str, list, tuple)):
                raise ExprError(f"cannot slice {_kind(v)}")
            parts = [None if p is None else self.eval(p) for p in (node.slice.lower, node.slice.upper, node.slice.step)]
            if not all(p is None or _is_int(p) for p in parts) or parts[2] == 0:
                raise ExprError("a slice takes whole numbers (and a step other than 0)")
            return v[slice(*parts)]
        key = self.eval(node.slice)
        if isinstance(v, dict):
            if not isinstance(key, str):
                raise ExprError(f"a mapping is indexed by a text, not {_kind(key)}")
            return v[key]
        if not isinstance(v, (str, list, tuple)):
            raise ExprError(f"cannot index {_kind(v)}")
        if not _is_int(key):
            raise ExprError(f"an index is a whole number, not {_kind(key)}")
        return v[key]

    def _Attribute(self, node: ast.Attribute) -> Any:
        if node.attr.startswith("_"):
            raise ExprError(f"field {node.attr!r}: names beginning with _ are not allowed")
        v = self.eval(node.value)
        if not isinstance(v, Record):
            raise ExprError(f".{node.attr}: only a pair record has fields, not {_kind(v)}"
                            + (f" (call it: x.{node.attr}(…))" if node.attr in TEXT_METHODS else ""))
        if node.attr not in v:
            raise ExprError(f"a pair record has no field {node.attr!r} (it has: {', '.join(v)})")
        return v[node.attr]

    def _Call(self, node: ast.Call) -> Any:
        if node.keywords or any(isinstance(a, ast.Starred) for a in node.args):
            raise ExprError("calls take plain arguments only (no name=value, no *)")
        if isinstance(node.func, ast.Name) and node.func.id in FUNCTIONS:
            return FUNCTIONS[node.func.id](*[self.eval(a) for a in node.args])
        if isinstance(node.func, ast.Attribute) and node.func.attr in TEXT_METHODS:
            target = self.eval(node.func.value)
            args = [self.eval(a) for a in node.args]
            if not isinstance(target, str) or len(args) != 1 or not isinstance(args[0], (str, tuple)) or (
                    isinstance(args[0], tuple) and not all(isinstance(x, str) for x in args[0])):
                raise ExprError(f".{node.func.attr}() is a method of a text and takes one text")
            if isinstance(args[0], tuple) and node.func.attr.startswith("remove"):
                raise ExprError(f".{node.func.attr}() takes one text")
            return getattr(str, node.func.attr)(target, args[0])
        raise ExprError(f"only {', '.join(FUNCTIONS)} and the text methods {', '.join(TEXT_METHODS)} may be called")

    def _ListComp(self, node: ast.ListComp) -> list:
        out: list = []
        self._generate(node, 0, {}, out)
        return out

    def _generate(self, node: ast.ListComp, k: int, bound: dict[str, Any], out: list) -> None:
        if k == len(node.generators):
            self.scopes.append(bound)
            try:
                out.append(self.eval(node.elt))
            finally:
                self.scopes.pop()
            if len(out) > MAX_ITEMS:
                raise ExprError(f"a list of more than {MAX_ITEMS:,} items")
            return
        gen = node.generators[k]
        if gen.is_async:
            raise ExprError("async is not allowed")
        self.scopes.append(bound)
        try:
            items = self.eval(gen.iter)
        finally:
            self.scopes.pop()
        if not isinstance(items, (list, tuple, str)):
            raise ExprError(f"cannot loop over {_kind(items)}")
        for item in items:
            inner = {**bound, **self._bind(gen.target, item)}
            self.scopes.append(inner)
            try:
                keep = all(self.eval(c) for c in gen.ifs)
            finally:
                self.scopes.pop()
            if keep:
                self._generate(node, k + 1, inner, out)

    def _bind(self, target: ast.AST, value: Any) -> dict[str, Any]:
        if isinstance(target, ast.Name):
            if target.id.startswith("_") or target.id in FUNCTIONS:
                raise ExprError(f"a loop variable may not be called {target.id!r}")
            return {target.id: value}
        if isinstance(target, ast.Tuple) and isinstance(value, (list, tuple)) and len(value) == len(target.elts):
            out: dict[str, Any] = {}
            for t, v in zip(target.elts, value):
                out.update(self._bind(t, v))
            return out
        raise ExprError("a loop variable is a name (or a tuple of names matching the items)")


def _bounded(v: Any) -> Any:
    if isinstance(v, (str, list, tuple)) and len(v) > MAX_ITEMS:
        raise ExprError(f"a value of more than {MAX_ITEMS:,} items")
    if _is_int(v) and abs(v) > MAX_INT:
        raise ExprError(f"a number beyond ±{MAX_INT:.0e}")
    if isinstance(v, float) and not abs(v) <= 1e15:
        raise ExprError("a number that is not finite or beyond ±1e15")
    return v
