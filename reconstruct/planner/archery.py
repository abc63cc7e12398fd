"""The archery that the text rules but does not tell: which arrows hit, where they fly, where tallies and
arrows lie.  Pure functions and small records, no planning state.

* :func:`shooting_order`, :func:`rounds_of` — the pairs in shooting order, the arrows of the rounds.
* :func:`outcomes` — hits and misses of every arrow of a round from a seeded, deterministic model (a hit
  rate per archer), resampled until the tallies agree with the rite's ``victor`` option; in the round shot
  to music some looses fall off the drum's 节 and earn no tally (不鼓不释, 鄭).
* :func:`flight` — an arrow's arc from the archer's hand to where it lands, sampled every 0.05 s.
* :class:`TallyLayout` — where the 算 lie: eight upright in the 中 (實八算于中), the rest crosswise west
  of it, tips south (橫委其餘于中西，南末), those laid for hits to the 释获者's right (上射) and left (下射),
  and the counted bundles (十纯則縮而委之 … 有餘純則橫於下 … 奇則又縮諸純下).
* :class:`RackLayout` — the arrows on the 楅, nocks north (北括), four by four (乘矢).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..model.reading import Reading
from ..model.vocabulary import PropPosture

G = 9.81
RIGHT, LEFT = "右", "左"
PAIR_LISTS = ("三耦", "宾主人", "大夫耦", "众耦")     # the rite's pair lists, in shooting order


@dataclass(frozen=True)
class Loose:
    """One arrow of a round as the model decides it."""

    round: int
    pair: int              # index of the pair in shooting order
    archer: str
    side: str              # 右 (上射) | 左 (下射)
    k: int                 # 1…4: which of his 乘矢
    hit: bool
    on_beat: bool          # loosed on the drum's 节 (always, in a round without music)
    u: float               # a number in [0, 1) fixing where the arrow lands

    @property
    def counted(self) -> bool:
        return self.hit and self.on_beat


def outcomes(pairs: list[tuple[str, str]], rate, seed: int, rnd: int, victor: str | None, music: bool,
             off_beat: float, attempts: int = 2000) -> list[Loose]:
    """Every arrow of a round, pair by pair and 拾发 (上射, 下射, four times): a hit with the archer's rate,
    off the beat with ``off_beat`` in a round with music (an early 上射 never follows a late 下射: the
    looses alternate).  The draw is repeated (seed, round, attempt) until the side named by ``victor``
    has strictly more tallies; ValueError if no attempt gives it.  ``victor`` None: a round nobody wins
    (the first, 獲而未釋獲): the first draw."""
    for attempt in range(attempts):
        rng = np.random.default_rng([seed, rnd, attempt])
        out: list[Loose] = []
        for i, (up, down) in enumerate(pairs):
            late = False
            for k in range(1, 5):
                for who, side in ((up, RIGHT), (down, LEFT)):
                    hit = bool(rng.random() < rate(who))
                    off = bool(music and rng.random() < off_beat)
                    if off and side == RIGHT and late:
                        off = False               # he cannot loose before a partner who loosed late
                    late = off and side == LEFT
                    out.append(Loose(rnd, i, who, side, k, hit, not off, float(rng.random())))
        right = sum(x.counted for x in out if x.side == RIGHT)
        left = sum(x.counted for x in out if x.side == LEFT)
        if victor is None or ((right > left) if victor == RIGHT else (left > right)):
            return out
    raise ValueError(f"the archery parameters never let the {victor} side win round {rnd} "
                     f"in {attempts} draws (hit rates too low?)")


def shooting_order(groups: dict[str, list[str]]) -> list[tuple[str, str]]:
    """The pairs (上射, 下射) in shooting order, from the rite's pair lists (each listed 上射, 下射 in rank
    order)."""
    return [(up, down) for name in PAIR_LISTS
            for up, down in zip(groups.get(name, [])[0::2], groups.get(name, [])[1::2])]


def rounds_of(order: list[tuple[str, str]], archery, groups: dict[str, list[str]],
              victor: str) -> dict[int, list[Loose]]:
    """The arrows of round 1 (the 三耦 alone, 不釋獲: nobody wins it), round 2 (with tallies, its count at
    80) and round 3 (shot to music), from the rite's archery parameters (hit rates, seed, how often off the
    beat); each round its own draws (seed, round, attempt), so that one round's arrows never change
    another's.  ValueError when the side named by ``victor`` never wins."""
    def rate(who: str) -> float:
        return archery.rate(who, groups)
    return {1: outcomes(order, rate, archery.seed, 1, None, False, archery.off_beat),
            2: outcomes(order, rate, archery.seed, 2, victor, False, archery.off_beat),
            3: outcomes(order, rate, archery.seed, 3, victor, True, archery.off_beat)}


DEMONSTRATION = 0      # the 司射's 誘射 (before the first round): its arrows are drawn as "round 0"


def demonstration(who: str, rate: float, seed: int) -> list[Loose]:
    """The 司射's 誘射: his four arrows alone (將乘矢), each a hit with his rate, from the draw (seed, 0);
    he shoots from the 左物 (當左物北面揖; 鄭: 左物，下物也), so they would count to the left, but none is
    counted: 不去旌，以其不獲 (鄭) — the marker does not call them."""
    rng = np.random.default_rng([seed, DEMONSTRATION, 0])
    out = []
    for k in range(1, 5):
        hit = bool(rng.random() < rate)
        out.append(Loose(DEMONSTRATION, -1, who, LEFT, k, hit, True, float(rng.random())))
    return out


def flight(start: np.ndarray, end: np.ndarray, speed: float, step: float = 0.05) -> tuple[np.ndarray, np.ndarray]:
    """An arrow's arc from ``start`` to ``end`` (x, y, z) at a horizontal speed: (times from the loose,
    points (n, 3)), sampled every ``step`` s and at the landing."""
    d = float(np.hypot(*(end[:2] - start[:2])))
    T = max(d / speed, 0.05)
    vz = (end[2] - start[2] + G * T * T / 2) / T
    ts = np.r_[np.arange(0.0, T, step), T]
    f = ts / T
    pts = start[None, :] + (end - start)[None, :] * f[:, None]
    pts[:, 2] = start[2] + vz * ts - G * ts * ts / 2
    pts[-1] = end
    return ts, pts


def landing(reading: Reading, loose: Loose, rng_u: float) -> tuple[np.ndarray, str]:
    """Where an arrow comes down: in the 正 of the 侯 (a hit, stuck in the target's face) or on the ground
    short of it or beside it (a miss; 不貫不釋); and how it lies there (``stuck`` or ``ground``)."""
    hx, hy, hz = reading.landmarks["侯中"].position
    side_w = reading.units.metres("十尺") / 3            # the 正: a third of the 侯中 (義疏)
    a = 2 * math.pi * rng_u
    r = math.sqrt((rng_u * 7.31) % 1.0)
    if loose.hit:
        return np.array([hx + 0.45 * side_w * r * math.cos(a), hy + 0.04, hz + 0.45 * side_w * r * math.sin(a)]), \
            "stuck"
    # short of the target or wide of the 正, on the ground before the 侯 (never behind it), within its span
    across = 3.6 * (2.0 * ((rng_u * 3.7) % 1.0) - 1.0)
    if rng_u < 0.5:
        return np.array([hx + 0.6 * across, hy + 1.0 + 4.0 * rng_u, 0.02]), "ground"
    return np.array([hx + across, hy + 0.8 + 1.5 * rng_u, 0.02]), "ground"


class TallyLayout:
    """Where tallies lie, as (x, y, z, heading, posture); around the 中 and the 释获者's place."""

    LENGTHWISE, CROSSWISE = 90.0, 180.0       # 縮 (east–west, for one facing east) and 橫 (north–south)

    def __init__(self, reading: Reading) -> None:
        self.cx, self.cy = reading.landmarks["中"].position[:2]
        sx, sy = (reading.landmarks["释获者位"].position[:2] if "释获者位" in reading.landmarks
                  else (self.cx - 0.69, self.cy))
        self.sx, self.sy = sx, sy

    def in_holder(self, i: int) -> tuple[float, float, float, float, str]:
        """The i-th (0…7) of the eight standing in the deer's back (鑿背容八算)."""
        return self.cx + 0.05 - 0.025 * (i % 4), self.cy - 0.02 + 0.04 * (i // 4), 0.30, 0.0, PropPosture.UPRIGHT

    def pile(self, i: int) -> tuple[float, float, float, float, str]:
        """The i-th of the spare ones west of the 中, laid crosswise, tips south (橫委其餘于中西，南末)."""
        return (self.cx - 0.42 - 0.012 * (i % 6), self.cy - 0.06 + 0.024 * ((i // 6) % 6),
                0.005 + 0.008 * (i // 36), self.CROSSWISE, PropPosture.REST)

    def laid(self, side: str, i: int) -> tuple[float, float, float, float, str]:
        """The i-th laid for a hit: to his right (south) for the 上射, to his left (north) for the 下射."""
        s = -1.0 if side == RIGHT else 1.0
        return (self.sx + 0.30 + 0.05 * (i // 12), self.sy + s * (0.42 + 0.022 * (i % 12)), 0.005,
                self.LENGTHWISE, PropPosture.REST)

    def counted(self, side: str, where: str, j: int, i: int) -> tuple[float, float, float, float, str]:
        """Counted: tally i of the j-th bundle of ten pairs (lengthwise, each bundle apart), of the pairs
        left over (crosswise, below: nearer him), or the odd one (lengthwise, below those)."""
        s = -1.0 if side == RIGHT else 1.0
        base = self.sy + s * 0.55
        if where == "bundle":
            return self.sx + 0.52, base + s * 0.16 * j + 0.004 * (i % 4), 0.005 + 0.006 * (i // 4), \
                self.LENGTHWISE, PropPosture.REST
        if where == "pairs":
            return self.sx + 0.34 - 0.03 * j, base + 0.01 * (i % 2), 0.005, self.CROSSWISE, PropPosture.REST
        return self.sx + 0.18, base, 0.005, self.LENGTHWISE, PropPosture.REST      # the odd one


class RackLayout:
    """The arrows on the 楅, nocks north (北括), in fours (乘): group g of G, arrow k of four."""

    def __init__(self, reading: Reading, groups: int) -> None:
        self.fx, self.fy = reading.landmarks["楅"].position[:2]
        self.groups = max(1, groups)

    def slot(self, g: int, k: int) -> tuple[float, float, float, float]:
        width = 1.3
        gap = width / self.groups
        x = self.fx - width / 2 + gap * (g + 0.5) + (k - 2.5) * min(0.018, gap / 5)
        return x, self.fy, 0.13, 180.0

    def heap(self, i: int) -> tuple[float, float, float, float]:
        """The i-th arrow as the juniors lay them down, before they are counted off in fours."""
        return self.fx - 0.6 + 0.011 * (i % 110), self.fy + 0.02 * ((i // 110) % 3), 0.13, 180.0
