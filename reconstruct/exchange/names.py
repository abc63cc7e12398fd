"""ASCII node names for the glTF scene: pinyin of the Chinese ids (Blender truncates long UTF-8 names;
the Chinese id itself travels in the node's ``extras``)."""
from __future__ import annotations

import re

from ..scene.ground import CHAR_PINYIN

__all__ = ["ascii_name", "actor_node_name", "prop_node_name", "unique_name"]

# pinyin of the characters of actor and prop ids that the ground's table lacks
_EXTRA_PINYIN = dict(zip(
    "举乐从余子师弟执有正耦荐赞酬获得射宾俎觯鼓瑟笙磬钟相士公诸长",
    "ju yue cong yu zi shi di zhi you zheng ou jian zan chou huo de she bin zu zhi gu se sheng qing zhong xiang shi "
    "gong zhu zhang".split()))
_PINYIN = {**CHAR_PINYIN, **_EXTRA_PINYIN}


def ascii_name(ident: str) -> str:
    """Pinyin (no tones) of a Chinese id, ASCII letters and digits kept, else ``uXXXX``."""
    bits = []
    for ch in ident:
        if ch.isascii():
            if ch.isalnum() or ch == "_":
                bits.append(ch)
        elif ch in _PINYIN:
            bits.append(_PINYIN[ch])
        else:
            bits.append(f"u{ord(ch):04x}")
    return re.sub(r"[^A-Za-z0-9_]", "", "".join(bits)) or "x"


def actor_node_name(actor_id: str) -> str:
    """``P_`` + pinyin: 司射 → ``P_sishe``, 众宾2 → ``P_zhongbin2``, 上耦下射 → ``P_shangouxiashe``."""
    return "P_" + ascii_name(actor_id)


def prop_node_name(prop_id: str) -> str:
    """``R_`` + pinyin: 丰 → ``R_feng``, 上耦上射弓 → ``R_shangoushangshegong``."""
    return "R_" + ascii_name(prop_id)


def unique_name(name: str, used: set[str]) -> str:
    """``name``, or ``name_2``, ``name_3`` … the first not in ``used`` (which it joins)."""
    out, k = name, 2
    while out in used:
        out = f"{name}_{k}"
        k += 1
    used.add(out)
    return out
