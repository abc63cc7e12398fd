"""The rite as data: the YAML rite script, loaded, expanded and checked.

``load_rite()`` reads ``assets/rite/rite.yaml`` (and the event files it
includes), expands the templates and loops (the text's 如初, 如三耦, 三耦卒飲,
衆賓繼飲…辯 …) over the cast for the chosen parameters (number of 衆賓 and of
大夫) and interpretive options, locates every event's text in the seed, and
validates names, places, verbs and the ``after`` graph.  Any problem raises
:class:`RiteError` whose message is one line ``file:line: what is wrong``.

The format is documented for historians in ``docs/rite-script.md``.
"""
from __future__ import annotations

import ast
import re
import shlex
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import networkx as nx
import yaml
from pydantic import BaseModel, ConfigDict

from ..resources import RITE, logical_name
from .archery import ArcheryParams
from ..text import seed as seedtext
from ..text.names import NameIndex, simplified
from ..text.placement import DIRECTIONS, PlaceError, parse_place

DEFAULT_SCRIPT = RITE

# The fixed vocabulary of actions; docs/rite-script.md documents each with the Chinese it renders.
VERBS: dict[str, str] = {
    "go": "適 / 進 / 反位 / 復位 / 就席 / 即席 / 退 — walk to a place (place, via, stair)",
    "ascend": "升 — go up a stair (stair; top_step = 盡階不升堂)",
    "descend": "降 — go down a stair (stair)",
    "formation": "立于射位 北上 … — take one's slot in a named formation (place = formation, rank)",
    "exit": "出 — leave through the 門 (place: where outside)",
    "enter": "入 — come in through the 門",
    "face": "X面 — turn to face a direction or a person/place (heading)",
    "turn": "還 — turn on the spot (heading: the new facing)",
    "kneel": "坐 — kneel, sitting back on the heels",
    "rise": "興 — rise from kneeling",
    "stand": "立 — stand (and stay)",
    "bow": "揖 — standing bow (other, count)",
    "kneel_bow": "拜 / 再拜 / 答拜 / 拜受 / 拜送 — kneeling bow (other, count)",
    "step_back": "少退 / 退 — a short step back",
    "step_forward": "進 / 少進 — a short step forward",
    "sidestep": "少右 / 少西 / 辟 — a short step aside (heading = direction)",
    "bare": "袒 — bare the left arm",
    "cover": "襲 — cover the left arm again",
    "gear_on": "決遂 — put on thumb-ring and arm-guard",
    "gear_off": "說決拾 — take them off",
    "take": "取 — pick up a prop (prop; place or other)",
    "put": "奠 / 設 / 委 / 倚 / 釋 — set a prop down (prop, place)",
    "give": "授 — hand a prop over (prop, other)",
    "receive": "受 — receive a prop (prop, other)",
    "hold_bow": "執張弓 / 執弛弓 — hold the bow strung or unstrung (text = strung|unstrung)",
    "tuck_arrows": "搢三挾一個 — three arrows in the belt, one held on the bow",
    "tuck": "搢扑 — stick a prop (the 扑) in the belt (prop)",
    "wash": "洗 — wash a vessel at the 洗 (prop)",
    "pour": "酌 / 實 — fill a vessel (prop)",
    "drink": "飲 / 卒觶 / 卒爵 — drink (prop)",
    "offer": "祭 — make an offering of food or wine (prop, text)",
    "count": "數獲 — count tallies (duration)",
    "announce": "命 / 告 / 曰 / 請 — speak (text = the words, a caption line; other = addressee)",
    "reply": "許諾 / 諾 / 辭 — answer (text)",
    "music": "奏 … — music plays (text = the piece)",
    "shoot": "射 — the pair on their 物 (WHO the 上射, other the 下射) loose their four arrows each by turns to the drum; the 获者 and 释获者 answer each",
    "perform": "any other timed gesture (text = a label, duration)",
    "wait": "俟 — wait (duration, or until the next event releases)",
    "sync": "barrier: every person of the event waits here for the others",
    # the archery and what hands do (plan-format "What hands do")
    "gesture": "a gesture of the vocabulary GESTURES (text = its kind; prop or other = its object; duration)",
    "play": "鼓瑟 / 歌 — play (or sing) until the music ends (text = the instrument)",
    "music_end": "the music stops (卒射): every player stops",
    "hold_arrow": "挾一个 — one arrow held across the bow (prop)",
    "take_arrows": "拾取矢 — with other: the pair take one arrow each in turn, four times; alone: his four together",
    "gather_arrows": "弟子取矢 — take up the arrows lying at the target (text = this one's share, e.g. 1/3)",
    "lay_arrows": "委矢 — lay the arrows one carries on the 楅, nocks north",
    "count_arrows": "乘矢 — count the arrows on the 楅 off in fours",
    "count_tallies": "數獲 — one step of the count (text: 右 | 右余纯 | 右奇 | 左)",
    "take_winning": "取賢獲 — take up the winners' surplus tallies",
    "report_score": "告 — the result (text 胜负) or the count (text 纯数) as the tallies give them (other = addressee)",
    "reset_tallies": "兼斂算，實八算于中，委其餘于中西",
    "lay_spare": "委餘獲于中西 — the tallies left in one's hand laid with the spares",
    "collect_tallies": "退算 — every tally taken up",
    "store_tallies": "the tallies one carries set down where one is",
    "put_arrows": "釋矢 — the arrows one carries laid down together (place, or before him)",
    "give_arrows": "授矢 — the arrows one carries handed over together (other)",
    "lead": "相 — take someone by the hand (other: the one led); until released he walks beside the leader",
    "release": "the hand of the one led let go (other)",
}

# What hands do (shared/docs/plan-format.md); `gesture` accepts these kinds, the planner writes them
GESTURES: dict[str, str] = {
    "nock": "搭矢 — an arrow set on the string", "draw": "the bow drawn", "loose": "the arrow leaves",
    "raise_flag": "舉旌以宮", "lower_flag": "偃旌以商", "call": "獲 — the marker's cry",
    "lay_tally": "釋獲 — one 算 set down", "take_tallies": "算 taken up", "count_tallies": "數獲",
    "drink": "the cup at the mouth", "sacrifice": "祭 — a morsel or a drop set down as an offering",
    "take_lung": "取肺", "pour": "酌", "wash": "洗", "hand_over": "授", "receive": "受",
    "bare": "袒", "cover": "襲", "gear_on": "決遂", "gear_off": "說決拾", "string_bow": "張弓",
    "unstring_bow": "弛弓", "take_arrow": "one arrow taken up", "salute": "揖 (not a posture change)",
    "hold_arrow": "挾 — an arrow across the bow", "tuck_arrows": "搢三挾一個", "lay_arrows": "委矢",
    "count_arrows": "乘矢", "return_tallies": "反委之", "fill_holder": "實八算于中", "take": "取",
    "set_down": "奠 / 設", "announce": "告 (the words in object)", "play": "鼓瑟 / 歌",
    "hold_with_bow": "兼諸弦弣 — arrows held along string and grip", "untie_arrows": "說矢束",
    "untie_rope": "說侯之左下綱", "take_off_shoes": "說屨", "serve": "羞 — dishes carried up",
    "point_arrow": "兼諸弦，面鏃 — the arrow held along the string, point up", "lower_flag_rest": "偃旌 at the 乏",
    "bow": "揖 made to someone (object: the person)", "kneel_bow": "拜 made to someone (object: the person)",
    "lead": "相 — leading someone by the hand (object: the person led)",
}

# The main argument(s) a bare word after the verb fills, per verb (see docs/rite-script.md).
POSITIONAL: dict[str, tuple[str, ...]] = {
    "go": ("place",), "formation": ("place",), "exit": ("place",), "enter": ("place",),
    "step_back": ("place",), "step_forward": ("place",),
    "ascend": ("stair",), "descend": ("stair",),
    "face": ("heading",), "turn": ("heading",), "sidestep": ("heading",),
    "bow": ("other",), "kneel_bow": ("other",),
    "take": ("prop", "place"), "put": ("prop", "place"), "give": ("prop", "other"),
    "receive": ("prop", "other"), "shoot": ("other",), "put_arrows": ("place",), "give_arrows": ("other",), "wash": ("prop",), "pour": ("prop",), "drink": ("prop",),
    "offer": ("prop", "text"), "tuck": ("prop",), "hold_bow": ("text",),
    "announce": ("text",), "reply": ("text",), "music": ("text",), "perform": ("text",),
    "count": ("duration",), "wait": ("duration",),
    "gesture": ("text", "prop"), "play": ("text",), "hold_arrow": ("prop",), "take_arrows": ("other",),
    "gather_arrows": ("text",), "count_tallies": ("text",), "report_score": ("text",),
    "lead": ("other",), "release": ("other",),
}
KEY_ALIASES = {"face": "heading", "to": "other", "from": "other", "slot": "rank", "dur": "duration"}
STAIRS = ("西阶", "阼阶")


class RiteError(ValueError):
    """A problem in the rite script; ``str(e)`` is one line ``file:line: what is wrong``."""

    def __init__(self, file: str | Path, line: int | None, what: str):
        self.file, self.line, self.what = str(file), line, " ".join(str(what).split())
        super().__init__(f"{self.file}:{self.line or 0}: {self.what}")


# ---------------------------------------------------------------- models
class _M(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class Person(_M):
    id: str
    label_en: str
    side: str = ""          # "宾党" | "主党" | ""
    role: str = ""
    aliases: list[str] = []


class Prop(_M):
    id: str
    kind: str               # the trailing noun: 觯, 爵, 丰, 荐, 俎, 弓, 矢, 扑, 算, 旌, 中, 楅 …


class Initial(_M):
    at: str
    heading: str | None = None
    posture: str = "stand"
    held_by: str | None = None
    holds: list[str] = []
    bare: bool = False
    gear: bool = False
    bow: str | None = None


class Action(_M):
    who: str
    verb: str
    place: str | None = None
    via: list[str] = []
    stair: str | None = None
    top_step: bool = False
    heading: str | None = None
    prop: str | None = None
    other: str | None = None
    count: int = 1
    text: str | None = None
    duration: float | None = None
    rank: int | None = None


class Event(_M):
    id: str
    text: str
    span: tuple[int, int]
    footnote: int | None
    gloss: str
    actors: list[str]
    after: list[str]
    actions: list[Action]
    option: str | None = None
    rule: bool = False
    summary: bool = False       # the clause sums up what the events before it performed (三耦卒饮)
    source: str = ""            # file:line of the event in the rite script, for error messages


class Rite(_M):
    text_sha256: str
    parameters: dict[str, int]
    options: dict[str, str]
    people: list[Person]
    props: list[Prop]
    initial: dict[str, Initial]
    groups: dict[str, list[str]]
    formations: dict[str, list[str]]
    events: list[Event]
    archery: ArcheryParams = ArcheryParams()


# ---------------------------------------------------------------- YAML with line numbers
class LStr(str):
    line: int = 0


class LDict(dict):
    line: int = 0


class LList(list):
    line: int = 0


class _Loader(yaml.SafeLoader):
    pass


def _mark(obj, node):
    obj.line = node.start_mark.line + 1
    return obj


def _c_map(loader, node):
    loader.flatten_mapping(node)
    d = LDict()
    _mark(d, node)
    for k, v in node.value:
        key = loader.construct_object(k, deep=True)
        if key in d:
            raise yaml.MarkedYAMLError(problem=f"duplicate key {key!r}", problem_mark=k.start_mark)
        d[key] = loader.construct_object(v, deep=True)
    return d


def _c_seq(loader, node):
    return _mark(LList(loader.construct_object(v, deep=True) for v in node.value), node)


def _c_str(loader, node):
    return _mark(LStr(loader.construct_scalar(node)), node)


_Loader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _c_map)
_Loader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_SEQUENCE_TAG, _c_seq)
_Loader.add_constructor("tag:yaml.org,2002:str", _c_str)


def _rel(path: Path) -> str:
    return logical_name(path)


def read_yaml(path: Path) -> Any:
    try:
        src = path.read_text(encoding="utf-8")
    except OSError as e:
        raise RiteError(_rel(path), 0, f"cannot read: {e.strerror}") from None
    try:
        return yaml.load(src, Loader=_Loader)
    except yaml.MarkedYAMLError as e:
        mark = e.problem_mark or e.context_mark
        raise RiteError(_rel(path), mark.line + 1 if mark else 0,
                        f"YAML error: {e.problem or e.context}") from None
    except yaml.YAMLError as e:
        raise RiteError(_rel(path), 0, f"YAML error: {e}") from None


def _line(node: Any, default: int = 0) -> int:
    return getattr(node, "line", default) or default


# ---------------------------------------------------------------- templates
_SUB = re.compile(r"\{([^{}]+)\}")
_SAFE_NODES = (ast.Expression, ast.BoolOp, ast.BinOp, ast.UnaryOp, ast.Compare, ast.IfExp, ast.Name,
               ast.Load, ast.Constant, ast.Attribute, ast.Subscript, ast.And, ast.Or, ast.Not, ast.Eq,
               ast.NotEq, ast.Lt, ast.LtE, ast.Gt, ast.GtE, ast.In, ast.NotIn, ast.Is, ast.IsNot,
               ast.Add, ast.Sub, ast.Mult, ast.FloorDiv, ast.Mod, ast.USub, ast.Tuple, ast.List,
               ast.Call, ast.keyword, ast.ListComp, ast.comprehension, ast.Store, ast.Slice, ast.Dict)
_METHODS = {"startswith", "endswith", "removeprefix", "removesuffix"}
_FUNCS = {"len": len, "range": range, "str": str, "int": int, "min": min, "max": max}


class _Ctx:
    def __init__(self, file: str):
        self.file = file

    def err(self, node: Any, what: str) -> RiteError:
        return RiteError(self.file, _line(node), what)

    def eval(self, expr: str, env: dict, node: Any) -> Any:
        try:
            tree = ast.parse(expr.strip(), mode="eval")
            for n in ast.walk(tree):
                if not isinstance(n, _SAFE_NODES):
                    raise ValueError(f"{type(n).__name__} not allowed")
                if isinstance(n, ast.Call) and not (
                        (isinstance(n.func, ast.Name) and n.func.id in _FUNCS)
                        or (isinstance(n.func, ast.Attribute) and n.func.attr in _METHODS)):
                    raise ValueError("only len/range/str/int/min/max and str.startswith/endswith may be called")
            return eval(compile(tree, "<rite>", "eval"), {"__builtins__": {}, **_FUNCS, **env})
        except Exception as e:  # noqa: BLE001 - any template failure is the script's error
            raise self.err(node, f"cannot evaluate {{{expr}}}: {type(e).__name__}: {e}") from None

    def sub(self, s: Any, env: dict) -> Any:
        if not isinstance(s, str):
            return s
        if "{" not in s:
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
            out.line = _line(s)
        return out

    def values(self, node: dict, env: dict) -> list[tuple[Any, dict]]:
        """The iterations of a ``for`` node: a list of (value, extra variables)."""
        name = str(node["for"])
        if "pairs" in node:
            pairs = env["PAIRS"].get(str(node["pairs"]))
            if pairs is None:
                raise self.err(node, f"unknown pair list {node['pairs']!r}")
            items = [SimpleNamespace(**p) for p in pairs]
        elif "group" in node:
            g = self.sub(node["group"], env)
            items = env["GROUPS"].get(str(g))
            if items is None:
                raise self.err(node, f"unknown group {g!r}")
            items = list(items)
        elif "in" in node:
            spec = node["in"]
            if isinstance(spec, str) and ".." in spec:
                a, b = spec.split("..", 1)
                lo, hi = int(self.eval(a, env, node)), int(self.eval(b, env, node))
                items = list(range(lo, hi + 1))
            elif isinstance(spec, str):
                items = list(self.eval(spec, env, node))
            else:
                items = [self.sub(x, env) for x in spec]
        else:
            raise self.err(node, "a 'for' needs one of: in, group, pairs")
        out = []
        for i, v in enumerate(items):
            extra = {name: v, f"{name}_i": i + 1, f"{name}_n": len(items),
                     f"{name}_first": i == 0, f"{name}_last": i == len(items) - 1,
                     f"{name}_prev": items[i - 1] if i else None,
                     f"{name}_next": items[i + 1] if i + 1 < len(items) else None}
            out.append((v, extra))
        return out

    def expand(self, node: Any, env: dict) -> Any:
        """Expand ``for``/``if`` blocks and ``{…}`` templates everywhere below node."""
        if isinstance(node, list):
            out = LList()
            out.line = _line(node)
            for item in node:
                if isinstance(item, dict) and ("for" in item or "if" in item) and "text" not in item:
                    out.extend(self._block(item, env, list))
                else:
                    out.append(self.expand(item, env))
            return out
        if isinstance(node, dict) and "if" in node and set(node) <= {"if", "then", "else"}:
            cond = self.eval(str(node["if"]), env, node)
            body = node.get("then") if cond else node.get("else")
            return self.expand(body, env) if body is not None else LDict()
        if isinstance(node, dict):
            out = LDict()
            out.line = _line(node)
            for k, v in node.items():
                if isinstance(k, str) and k.startswith("_") and isinstance(v, dict) and ("for" in v or "if" in v):
                    for part in self._block(v, env, dict):
                        out.update(part)
                    continue
                out[self.sub(k, env)] = self.expand(v, env)
            return out
        return self.sub(node, env)

    def _block(self, node: dict, env: dict, kind) -> list:
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


# ---------------------------------------------------------------- actions
def _is_direction(word: str) -> bool:
    return simplified(str(word)).removesuffix("面") in DIRECTIONS


def parse_action(node: Any, ctx: _Ctx) -> dict:
    """An action from its compact string ``"WHO VERB arg … key=value"`` or a mapping."""
    if isinstance(node, dict):
        d = {KEY_ALIASES.get(str(k), str(k)): v for k, v in node.items()}
        if "via" in d and isinstance(d["via"], str):
            d["via"] = [x for x in re.split(r"[,，]", d["via"]) if x]
        return d
    if not isinstance(node, str):
        raise ctx.err(node, f"an action must be a string or a mapping, not {type(node).__name__}")
    try:
        words = shlex.split(str(node))
    except ValueError as e:
        raise ctx.err(node, f"cannot read action {node!r}: {e}") from None
    if words == ["sync"]:
        return {"who": "*", "verb": "sync"}
    if len(words) < 2:
        raise ctx.err(node, f"an action needs at least WHO and VERB: {node!r}")
    d: dict[str, Any] = {"who": words[0], "verb": words[1]}
    slots = list(POSITIONAL.get(words[1], ()))
    for w in words[2:]:
        if "=" in w:
            k, v = w.split("=", 1)
            k = KEY_ALIASES.get(k, k)
            if k == "via":
                d.setdefault("via", []).extend(x for x in re.split(r"[,，]", v) if x)
            else:
                d[k] = v
        elif w in ("top", "top_step"):
            d["top_step"] = True
        elif re.fullmatch(r"x\d+", w):
            d["count"] = int(w[1:])
        elif not slots:
            raise ctx.err(node, f"too many words in action {node!r} (verb {words[1]!r} takes "
                                f"{' '.join(POSITIONAL.get(words[1], ())) or 'no bare words'}; use key=value)")
        else:
            d[slots.pop(0)] = w
    return d


# ---------------------------------------------------------------- loader
def _as_list(x) -> list:
    if x is None:
        return []
    return list(x) if isinstance(x, list) else [x]


def _variants(s: str) -> list[str]:
    """The text as written in YAML, and with 射/交/欲 put back into the seed's pinyin."""
    back = s
    for py, ch in seedtext.PINYIN.items():
        back = back.replace(ch, py)
    return [s] if back == s else [s, back]


def load_rite(path: str | Path | None = None, *, zhongbin: int | None = None, dafu: int | None = None,
              options: dict[str, str] | None = None) -> Rite:
    """Load, expand and validate the rite script (see the module docstring); ``zhongbin``/``dafu``
    override the script's own parameters when given."""
    return _load(path, zhongbin=zhongbin, dafu=dafu, options=options)[0]


def load_rite_with_report(path: str | Path | None = None, **kw) -> tuple[Rite, dict]:
    """As :func:`load_rite`, also returning loader facts used by ``script --check``."""
    return _load(path, **kw)


def _load(path, *, zhongbin: int | None = None, dafu: int | None = None, options: dict[str, str] | None = None):
    path = Path(path or DEFAULT_SCRIPT)
    file = _rel(path)
    ctx = _Ctx(file)
    raw = read_yaml(path)
    if not isinstance(raw, dict):
        raise RiteError(file, _line(raw, 1), "the rite script must be a mapping (text, parameters, options, people …)")
    for key in ("people", "props", "initial"):
        if key not in raw:
            raise RiteError(file, _line(raw, 1), f"missing section {key!r}")

    # -- text
    text_path = (path.parent / str(raw.get("text", "../text/xiangshe_li_part2.txt"))).resolve()
    seed = seedtext.load(text_path)

    # -- parameters and options
    params = {str(k): int(v) for k, v in (raw.get("parameters") or {}).items()}
    params.setdefault("zhongbin", 3)
    params.setdefault("dafu", 1)
    if zhongbin is not None:
        params["zhongbin"] = int(zhongbin)
    if dafu is not None:
        params["dafu"] = int(dafu)
    if params["zhongbin"] < 1 or params["dafu"] < 0:
        raise RiteError(file, _line(raw.get("parameters"), 1), "zhongbin must be ≥ 1 and dafu ≥ 0")
    opt_decl = raw.get("options") or {}
    chosen: dict[str, str] = {}
    for name, decl in opt_decl.items():
        if not isinstance(decl, dict) or "default" not in decl or "choices" not in decl:
            raise RiteError(file, _line(decl, _line(opt_decl)), f"option {name!r} needs 'default' and 'choices'")
        chosen[str(name)] = str(decl["default"])
    for name, value in (options or {}).items():
        if name not in opt_decl:
            raise RiteError(file, _line(opt_decl, 1), f"unknown option {name!r}; known: {', '.join(opt_decl)}")
        if str(value) not in opt_decl[name]["choices"]:
            raise RiteError(file, _line(opt_decl[name], 1),
                            f"option {name}={value!r} is not one of {', '.join(map(str, opt_decl[name]['choices']))}")
        chosen[name] = str(value)
    try:
        archery = ArcheryParams.model_validate(dict(raw.get("archery") or {}))
    except Exception as e:  # noqa: BLE001
        raise RiteError(file, _line(raw.get("archery"), 1), f"bad archery parameters: {_short(e)}") from None
    env: dict[str, Any] = {**params, **chosen, "archery_tallies": archery.tallies, "GROUPS": {}, "PAIRS": {}}

    # -- cast
    def build(model, what: str, nodes: list) -> list:
        out = []
        for p in nodes:
            try:
                out.append(model(**{str(k): v for k, v in p.items()}))
            except Exception as e:  # noqa: BLE001
                raise ctx.err(p, f"bad {what}: {_short(e)}") from None
        return out

    people_raw = ctx.expand(raw["people"], env)
    people: list[Person] = build(Person, "person", people_raw)
    props_raw = ctx.expand(raw["props"], env)
    props: list[Prop] = build(Prop, "prop", props_raw)
    person_ids = [p.id for p in people]
    prop_ids = [p.id for p in props]
    for ids, what, nodes in ((person_ids, "person", people_raw), (prop_ids, "prop", props_raw)):
        seen = set()
        for i, n in zip(ids, nodes):
            if i in seen:
                raise ctx.err(n, f"duplicate {what} id {i!r}")
            seen.add(i)
    landmarks = [str(x) for x in ctx.expand(raw.get("landmarks") or [], env)]

    names = NameIndex()
    for p in people:
        names.add(p.id, p.aliases)
    for i in prop_ids:
        names.add(i)

    # -- pairs, groups, formations
    pairs: dict[str, list[dict]] = {}
    for name, lst in (raw.get("pairs") or {}).items():
        items = ctx.expand(lst, env)
        recs = []
        for it in items:
            if not (isinstance(it, list) and len(it) == 2):
                raise ctx.err(it if hasattr(it, "line") else lst, f"pair list {name!r}: each pair is [上射, 下射]")
            up, down = str(it[0]), str(it[1])
            for who in (up, down):
                if who not in person_ids:
                    raise ctx.err(it, f"pair list {name!r}: unknown person {who!r}")
            right_wins = env.get("victor", "右") == "右"
            recs.append({"上射": up, "下射": down, "胜者": up if right_wins else down,
                         "不胜者": down if right_wins else up})
        for i, r in enumerate(recs):
            r["i"] = i + 1
            r["next"] = SimpleNamespace(**{k: v for k, v in recs[i + 1].items() if k in ("上射", "下射", "胜者", "不胜者")}) if i + 1 < len(recs) else None
        pairs[str(name)] = recs
        env["GROUPS"][str(name)] = [x for r in recs for x in (r["上射"], r["下射"])]
    env["PAIRS"] = pairs
    groups: dict[str, list[str]] = {k: list(v) for k, v in env["GROUPS"].items()}
    for name, lst in (raw.get("groups") or {}).items():
        members = [str(x) for x in ctx.expand(lst, env)]
        for m in members:
            if m not in person_ids and m not in prop_ids:
                raise ctx.err(lst, f"group {name!r}: unknown member {m!r}")
        groups[str(name)] = members
        env["GROUPS"][str(name)] = members
    formations: dict[str, list[str]] = {}
    for name, lst in (raw.get("formations") or {}).items():
        members = [str(x) for x in ctx.expand(lst, env)]
        for m in members:
            if m not in person_ids:
                raise ctx.err(lst, f"formation {name!r}: unknown person {m!r}")
        formations[str(name)] = members
    known_places = NameIndex()
    for n in (*landmarks, *formations, *person_ids, *prop_ids):
        known_places.add(n)
    for p in people:
        known_places.add(p.id, p.aliases)

    def check_place(s: Any, node: Any, what: str = "place", c: _Ctx = ctx) -> str:
        s = str(s)
        try:
            parse_place(s, known_places)
        except PlaceError as e:
            raise c.err(node, f"unknown {what} {s!r}: {e}") from None
        return s

    def check_heading(s: Any, node: Any, c: _Ctx = ctx) -> str:
        s = str(s)
        if _is_direction(s) or s in known_places:
            return s
        try:
            parse_place(s, known_places)
            return s
        except PlaceError:
            raise c.err(node, f"unknown heading {s!r}: a direction word (北, 东南 …) or a person/place") from None

    # -- initial state
    initial_raw = ctx.expand(raw["initial"], env)
    initial: dict[str, Initial] = {}
    for k, v in initial_raw.items():
        k = str(k)
        if k not in person_ids and k not in prop_ids:
            raise ctx.err(v, f"initial state for unknown person or prop {k!r}")
        if not isinstance(v, dict):
            raise ctx.err(initial_raw, f"initial state of {k!r} must be a mapping")
        try:
            st = Initial(**{str(a): b for a, b in v.items()})
        except Exception as e:  # noqa: BLE001
            raise ctx.err(v, f"bad initial state of {k!r}: {_short(e)}") from None
        check_place(st.at, v)
        if st.heading is not None:
            check_heading(st.heading, v)
        for h in st.holds:
            if h not in prop_ids:
                raise ctx.err(v, f"{k!r} holds unknown prop {h!r}")
        if st.held_by is not None and st.held_by not in person_ids:
            raise ctx.err(v, f"{k!r} held by unknown person {st.held_by!r}")
        initial[k] = st
    missing = [i for i in (*person_ids, *prop_ids) if i not in initial]
    if missing:
        raise ctx.err(raw["initial"], f"no initial state for: {', '.join(missing)}")

    # -- events: includes, expansion
    event_nodes: list = []      # (expanded node, file) and loop markers
    for inc in _as_list(raw.get("include")):
        ipath = path.parent / str(inc)
        ifile = _rel(ipath)
        lst = read_yaml(ipath)
        if not isinstance(lst, list):
            raise RiteError(ifile, _line(lst, 1), "an event file must be a list of events")
        ictx = _Ctx(ifile)
        event_nodes.extend(_expand_events(lst, env, ictx))
    event_nodes.extend(_expand_events(raw.get("events") or [], env, ctx))

    # -- events: build, locate, validate
    valid_actor = set(person_ids) | set(prop_ids) | set(landmarks) | set(formations)
    events_all: list[tuple[Event, Any, str]] = []
    prev_start = 0
    loop_stack: list[int] = []
    used_ids: set[str] = set()
    n = 0
    for item in event_nodes:
        if item == _BEGIN:
            loop_stack.append(prev_start)
            continue
        if item == _ITER:
            prev_start = loop_stack[-1]
            continue
        if item == _END:
            loop_stack.pop()
            continue
        node, efile = item
        n += 1
        ectx = _Ctx(efile)
        if not isinstance(node, dict) or "text" not in node:
            raise ectx.err(node, "an event needs 'text' (the exact words of the seed it performs)")
        unknown = set(map(str, node)) - {"id", "text", "gloss", "do", "actors", "after", "option", "rule",
                                         "at", "footnote", "note", "when", "cite", "summary"}
        if unknown:
            raise ectx.err(node, f"unknown event key(s): {', '.join(sorted(unknown))}")
        t = str(node["text"])
        start_from = prev_start
        if "at" in node:
            start_from = int(node["at"])
        pos, found = -1, t
        for cand in _variants(t):
            pos = seed.find(cand, start_from)
            if pos >= 0:
                found = cand
                break
        if pos < 0:
            earlier = any(seed.find(c) >= 0 for c in _variants(t))
            raise ectx.err(node["text"], f"text {t!r} is not in the seed" + (
                f" after offset {start_from} (it occurs earlier: events must follow the text; use 'at:' for a jump back)"
                if earlier else ""))
        span = (pos, pos + len(found))
        prev_start = pos
        eid = str(node.get("id") or f"e{n:04d}")
        if eid in used_ids:
            raise ectx.err(node, f"duplicate event id {eid!r}")
        used_ids.add(eid)
        actions: list[Action] = []
        for a in _as_list(node.get("do")):
            d = parse_action(a, ectx)
            try:
                act = Action(**d)
            except Exception as e:  # noqa: BLE001
                raise ectx.err(a, f"bad action {str(a)!r}: {_short(e)}") from None
            if act.verb not in VERBS:
                raise ectx.err(a, f"unknown verb {act.verb!r} (see VERBS in reconstruct/rite.py)")
            if act.who not in person_ids and not (act.verb == "sync" and act.who == "*"):
                raise ectx.err(a, f"unknown actor {act.who!r}")
            if act.place is not None:
                check_place(act.place, a, c=ectx)
            for v in act.via:
                check_place(v, a, "via place", c=ectx)
            if act.stair is not None and act.stair not in STAIRS:
                raise ectx.err(a, f"unknown stair {act.stair!r} (西阶 or 阼阶)")
            if act.heading is not None:
                check_heading(act.heading, a, c=ectx)
            if act.prop is not None and act.prop not in prop_ids:
                raise ectx.err(a, f"unknown prop {act.prop!r}")
            if act.other is not None and act.other not in person_ids and act.other not in prop_ids:
                raise ectx.err(a, f"unknown person {act.other!r} (other)")
            if act.verb == "gesture" and act.text not in GESTURES:
                raise ectx.err(a, f"unknown gesture {act.text!r} (see GESTURES in reconstruct/rite/loader.py)")
            if act.verb == "hold_bow" and act.text not in ("strung", "unstrung"):
                raise ectx.err(a, "hold_bow needs text=strung or text=unstrung")
            actions.append(act)
        actors = [str(x) for x in _as_list(node.get("actors"))]
        for x in actors:
            if x not in valid_actor:
                raise ectx.err(node, f"unknown actor {x!r}")
        for act in actions:
            if act.who not in actors and act.who != "*":
                actors.append(act.who)
        opt = node.get("option")
        if opt is not None:
            m = re.fullmatch(r"\s*(\w+)\s*=\s*(\S+)\s*", str(opt))
            if not m or m.group(1) not in opt_decl or m.group(2) not in opt_decl[m.group(1)]["choices"]:
                raise ectx.err(node, f"option {opt!r} is not NAME=CHOICE of a declared option")
        fn = node.get("footnote")
        ev = Event(id=eid, text=found, span=span,
                   footnote=int(fn) if fn is not None else seedtext.footnote_for(span, seed),
                   gloss=str(node.get("gloss") or ""), actors=actors,
                   after=[str(x) for x in _as_list(node.get("after"))] if "after" in node else ["<prev>"],
                   actions=actions, option=str(opt) if opt is not None else None,
                   rule=bool(node.get("rule", False)), summary=bool(node.get("summary", False)),
                   source=f"{efile}:{_line(node)}")
        events_all.append((ev, node, efile))

    # -- options: keep the chosen; re-route 'after' through dropped events
    kept: list[tuple[Event, Any, str]] = []
    dropped_after: dict[str, list[str]] = {}
    prev_id: str | None = None
    for ev, node, efile in events_all:
        after = [prev_id] if ev.after == ["<prev>"] else list(ev.after)
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

    def resolve(a: str, seen=()) -> list[str]:
        if a in kept_ids:
            return [a]
        if a in dropped_after and a not in seen:
            return [x for b in dropped_after[a] for x in resolve(b, (*seen, a))]
        return []

    events: list[Event] = []
    g = nx.DiGraph()
    for ev, node, efile in kept:
        for a in ev.after:
            if a not in all_ids:
                raise RiteError(efile, _line(node.get("after", node)), f"event {ev.id!r}: 'after' names unknown event {a!r}")
        after = list(dict.fromkeys(x for a in ev.after for x in resolve(a)))
        ev = ev.model_copy(update={"after": after})
        events.append(ev)
        g.add_node(ev.id)
        for a in after:
            g.add_edge(a, ev.id)
    try:
        cyc = nx.find_cycle(g)
    except nx.NetworkXNoCycle:
        cyc = None
    if cyc:
        first = cyc[0][1]
        node, efile = next((n, f) for e, n, f in kept if e.id == first)
        raise RiteError(efile, _line(node.get("after", node)),
                        "cycle in 'after': " + " → ".join([c[0] for c in cyc] + [cyc[0][0]]))

    rite = Rite(text_sha256=seedtext.sha256(text_path), parameters=params, options=chosen, people=people, archery=archery,
                props=props, initial=initial, groups=groups, formations=formations, events=events)
    report = {"file": file, "seed": seed, "landmarks": landmarks, "all_events": [e for e, _, _ in events_all],
              "event_lines": {e.id: (f, _line(n)) for e, n, f in events_all}, "option_decl": opt_decl}
    return rite, report


_BEGIN, _ITER, _END = "BEGIN", "ITER", "END"


def _expand_events(lst: list, env: dict, ctx: _Ctx) -> list:
    """Expand event loops into a flat list of event nodes and loop markers.

    Each iteration of a loop locates its texts again from where the loop began (the
    locator keeps a stack of loop start offsets), so an iteration may repeat the words
    of the one before (升飲者如初 for every pair)."""
    out: list = []
    _walk_events(lst, env, ctx, out)
    return out


def _walk_events(lst: Any, env: dict, ctx: _Ctx, out: list) -> None:
    for item in _as_list(lst):
        if isinstance(item, dict) and ("for" in item or "if" in item) and "text" not in item:
            if "if" in item:
                body = item.get("then", item.get("each")) if ctx.eval(str(item["if"]), env, item) else item.get("else")
                if body is not None:
                    _walk_events(body, env, ctx, out)
                continue
            if "each" not in item:
                raise ctx.err(item, "a 'for' block needs 'each'")
            out.append(_BEGIN)
            for _, extra in ctx.values(item, env):
                out.append(_ITER)
                _walk_events(item["each"], {**env, **extra}, ctx, out)
            out.append(_END)
            continue
        if not isinstance(item, dict):
            raise ctx.err(item if hasattr(item, "line") else lst, "an event must be a mapping with 'text'")
        if "when" in item and not ctx.eval(str(item["when"]), env, item):
            # a clause whose condition does not hold under the chosen parameters/options: kept as a rule
            e = ctx.expand(_sub_dict(item, ("do", "when")), env)
            e["rule"] = True
            out.append((e, ctx.file))
            continue
        e = ctx.expand(_sub_dict(item, ("when",)), env)
        out.append((e, ctx.file))


def _sub_dict(d: dict, drop: tuple[str, ...]) -> LDict:
    out = LDict((k, v) for k, v in d.items() if k not in drop)
    out.line = _line(d)
    return out


def _short(e: Exception) -> str:
    s = str(e)
    if hasattr(e, "errors"):
        try:
            errs = e.errors()
            return "; ".join(f"{'.'.join(map(str, x['loc']))}: {x['msg']}" for x in errs)
        except Exception:  # noqa: BLE001
            pass
    return s.splitlines()[0] if s else type(e).__name__
