"""The vocabulary of the rite script: its verbs, the bare words each takes, the key aliases, and
the reading of one action (``"WHO VERB arg … key=value"`` or a mapping) into its fields.

Every verb is documented for historians in ``docs/rite-script.md`` with the Chinese it renders.
"""
from __future__ import annotations

import re
import shlex
from functools import lru_cache
from typing import Any

from ..model.vocabulary import GESTURES  # noqa: F401 (re-exported: `gesture` accepts these kinds)
from ..text.names import simplified
from ..text.placement import DIRECTIONS

# The fixed vocabulary of actions; docs/rite-script.md documents each with the Chinese it renders.
VERBS: dict[str, str] = {
    "go": "適 / 進 / 反位 / 復位 / 就席 / 即席 / 退 — walk to a place (place, via, stair)",
    "ascend": "升 — go up a stair (stair; top_step = 盡階不升堂; other = the one a step ahead on the other stair: 主人升一等，賓升)",
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
    "shoot": "射 — the pair on their 物 (WHO the 上射, other the 下射) loose their four arrows each by turns to the drum; the 获者 and 释获者 answer each (text 不释获: the first round, no tallies; 诱射: the 司射 alone, no partner; 耦少退: the 大夫's partner)",
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
    "collect_tallies": "退算 — every tally taken up (those not yet set out too: 執筭)",
    "give_tallies": "授筭 — the tallies one carries handed over (other)",
    "ready_tallies": "取中之八筭，改實八筭于中，興執而俟 — where the text tells it (the shooting does it before each other pair)",
    "store_tallies": "the tallies one carries set down where one is",
    "put_arrows": "釋矢 — the arrows one carries laid down together (place, or before him)",
    "give_arrows": "授矢 — the arrows one carries handed over together (other)",
    "lead": "相 — take someone by the hand (other: the one led); until released he walks beside the leader",
    "release": "the hand of the one led let go (other)",
}

# What hands do: the vocabulary's gestures (reconstruct/model/vocabulary.py), re-exported for the loader

# The main argument(s) a bare word after the verb fills, per verb (see docs/rite-script.md).
POSITIONAL: dict[str, tuple[str, ...]] = {
    "go": ("place",), "formation": ("place",), "exit": ("place",), "enter": ("place",),
    "step_back": ("place",), "step_forward": ("place",),
    "ascend": ("stair",), "descend": ("stair",),
    "face": ("heading",), "turn": ("heading",), "sidestep": ("heading",),
    "bow": ("other",), "kneel_bow": ("other",),
    "take": ("prop", "place"), "put": ("prop", "place"), "give": ("prop", "other"),
    "receive": ("prop", "other"), "shoot": ("other",), "put_arrows": ("place",), "give_arrows": ("other",), "give_tallies": ("other",), "wash": ("prop",), "pour": ("prop",), "drink": ("prop",),
    "offer": ("prop", "text"), "tuck": ("prop",), "hold_bow": ("text",),
    "announce": ("text",), "reply": ("text",), "music": ("text",), "perform": ("text",),
    "count": ("duration",), "wait": ("duration",),
    "gesture": ("text", "prop"), "play": ("text",), "hold_arrow": ("prop",), "take_arrows": ("other",),
    "gather_arrows": ("text",), "count_tallies": ("text",), "report_score": ("text",),
    "lead": ("other",), "release": ("other",),
}
KEY_ALIASES = {"face": "heading", "to": "other", "from": "other", "slot": "rank", "dur": "duration"}
STAIRS = ("西阶", "阼阶")
FLAGS = ("top_step",)          # true/false keys (key=true in the compact form)


def is_direction(word: str) -> bool:
    return simplified(str(word)).removesuffix("面") in DIRECTIONS


def parse_action(node: Any, ctx: Any) -> dict:
    """An action from its compact string ``"WHO VERB arg … key=value"`` or a mapping; ``ctx.err(node,
    what)`` makes the error for a malformed one."""
    if isinstance(node, dict):
        d = {KEY_ALIASES.get(str(k), str(k)): v for k, v in node.items()}
        if "via" in d and isinstance(d["via"], str):
            d["via"] = [x for x in re.split(r"[,，]", d["via"]) if x]
        return d
    if not isinstance(node, str):
        raise ctx.err(node, f"an action must be a string or a mapping, not {type(node).__name__}")
    d = _read_compact(str(node))
    if isinstance(d, str):
        raise ctx.err(node, d)
    return {k: list(v) if isinstance(v, list) else v for k, v in d.items()}


@lru_cache(maxsize=8192)
def _read_compact(node: str) -> dict[str, Any] | str:
    """The fields of a compact action, or what is wrong with it (a text); cached, as the same actions
    recur in every load of the script."""
    try:
        words = shlex.split(node)
    except ValueError as e:
        return f"cannot read action {node[:80]!r}: {e}"
    if words == ["sync"]:
        return {"who": "*", "verb": "sync"}
    if len(words) < 2:
        return f"an action needs at least WHO and VERB: {node[:80]!r}"
    d: dict[str, Any] = {"who": words[0], "verb": words[1]}
    slots = list(POSITIONAL.get(words[1], ()))
    for w in words[2:]:
        if "=" in w:
            k, v = w.split("=", 1)
            k = KEY_ALIASES.get(k, k)
            if k == "via":
                d.setdefault("via", []).extend(x for x in re.split(r"[,，]", v) if x)
            elif k in FLAGS and v in ("true", "false"):
                d[k] = v == "true"
            else:
                d[k] = v
        elif w in ("top", "top_step"):
            d["top_step"] = True
        elif re.fullmatch(r"x\d+", w):
            if len(w) > 4:
                return f"{w[:12]!r}: too many times (x1 … x100)"
            d["count"] = int(w[1:])
        elif not slots:
            return (f"too many words in action {node[:80]!r} (verb {words[1][:40]!r} takes "
                    f"{' '.join(POSITIONAL.get(words[1], ())) or 'no bare words'}; use key=value)")
        else:
            d[slots.pop(0)] = w
    return d
