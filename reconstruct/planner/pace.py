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

    def duration_of(self, verb: str, text: str | None = None) -> float:
        """How long a timed act lasts (the verb's own duration; speech by its length)."""
        if verb == "announce":
            return self.announce + self.speak_char * len(text or "")
        return getattr(self, verb)

