"""The pace of the etiquette: every speed and duration the planner uses."""
from __future__ import annotations

from dataclasses import dataclass

@dataclass(frozen=True)
class Pace:
    """Speeds and durations of the etiquette (seconds, metres per second)."""

    court: float = 1.0          # 堂下布武
    hall: float = 0.6           # 堂上接武
    stair_step: float = 0.9     # one 等, both feet meeting on it (聚足)
    turn: float = 240.0         # degrees per second when turning in place
    kneel: float = 1.2
    rise: float = 1.0
    bow: float = 1.4            # 揖
    kneel_bow: float = 2.6      # 拜, each
    handle: float = 1.2         # take / put down
    hand_over: float = 1.5
    wash: float = 4.0
    pour: float = 3.0
    drink: float = 3.0
    offer: float = 3.0
    dress: float = 3.0          # 袒/襲/決遂
    speak_char: float = 0.18    # per character of a command
    step: float = 0.35          # 少退 / 少進 / 辟: metres
    settle: float = 0.5         # 立: coming to stand
    hold_bow: float = 1.0       # 執張弓 / 執弛弓
    tuck: float = 1.0           # 搢扑
    tuck_arrows: float = 2.0    # 搢三挾一個
    count: float = 6.0          # 數獲, when the script gives no duration
    perform: float = 3.0        # any other gesture, when the script gives no duration
    reply: float = 1.5          # 許諾 / 諾
    music: float = 12.0         # 奏 …
    wait: float = 0.0           # 俟: until the next event releases him
    announce: float = 1.0       # 命 / 告 / 曰, besides speak_char per character
    gesture: float = 1.5        # a gesture the script names without a duration
    # the archery
    nock: float = 1.0           # an arrow set on the string
    draw: float = 1.5           # drawn to the full
    hold_arrow: float = 0.8     # 挾: the next arrow from the belt across the bow
    take_arrow: float = 0.9     # 拾取矢: one arrow from the 楅
    call: float = 0.7           # the 获者's cry, 获
    raise_flag: float = 1.0     # 舉旌以宮
    lower_flag: float = 0.8     # 偃旌以商
    lay_tally: float = 0.8      # 釋獲: one 算 set down
    take_tallies: float = 0.6   # a pair (纯) of 算 into the left hand, or the eight from the 中
    fill_holder: float = 1.5    # 實八算于中
    bundle: float = 1.0         # ten pairs laid down together (十纯則縮而委之)
    gather: float = 2.0         # 兼斂算: all of a side's tallies into the left hand
    count_arrows: float = 1.2   # 乘矢: four arrows counted off

    def duration_of(self, verb: str, text: str | None = None) -> float:
        """How long a timed act lasts (the verb's own duration; speech by its length)."""
        if verb == "announce":
            return self.announce + self.speak_char * len(text or "")
        return getattr(self, verb)

