"""The tallies (算) in the 释获者's hands, one by one: eight taken from the 中 and eight put back before each
pair (取中之八算，改实八算于中), one laid for each hit on the beat (上射於右，下射於左), the count (数获:
二算为纯 … 十纯则缩而委之 … 有余纯则横于下 … 奇则又缩诸纯下), the winners' surplus taken up and reported
(取贤获), and all gathered again, eight into the 中 and the rest west of it (实八算于中，委其余于中西).
"""
from __future__ import annotations

import math

import cn2an

from ..model.plan import Score, Shot
from ..model.vocabulary import GestureKind, Posture, PropKind
from .archery import LEFT, RIGHT, Loose, TallyLayout
from .bodies import Body
from .custody import Custody
from .moves import Moves
from .places import Places
from .state import PlanState

REACH = 1.0          # metres: from where he kneels or stands, the tallies he takes lie within this


class Tallies:
    """Where each tally is, and the 释获者's acts with them; the scores reported."""

    def __init__(self, state: PlanState, custody: Custody, moves: Moves, places: Places,
                 layout: TallyLayout) -> None:
        self.state, self.custody, self.moves, self.places = state, custody, moves, places
        self.pace, self.tally_layout = state.pace, layout
        self.round = 2                             # the round whose tallies lie on the ground
        self.scores: list[Score] = []
        self.t_zhong: list[str] = []               # in the 中
        self.t_pile: list[str] = []                # the spares west of it
        self.t_hand: list[str] = []                # in the 释获者's hand (or whoever carries them)
        self.t_away: list[str] = []                # lying elsewhere, together (not yet set out, or put away)
        self.primed = False                        # the eight taken and the 中 refilled, as the text tells it
        self.t_laid: dict[str, list[str]] = {RIGHT: [], LEFT: []}      # laid for hits, by side
        self.t_counted: dict[str, dict[str, list]] = {}
        self.t_win: list[str] = []

    def arrange(self, r2: list[Loose]) -> None:
        """At the start the tallies lie as the second round (its arrows ``r2``) left them: eight in the 中,
        one for each counted hit of the 上射s to the 释获者's right and of the 下射s to his left, the rest west
        of the 中."""
        ids = sorted(pid for pid, pr in self.state.props.items() if pr.kind == PropKind.算)
        zhong = next((pr for pr in self.state.props.values() if pr.kind == PropKind.中), None)
        if zhong is not None and math.dist((zhong.x, zhong.y), (self.tally_layout.cx, self.tally_layout.cy)) > 0.5:
            # the 中 is not set out (the first half, before 請釋獲 … 設中): the tallies lie where the rite's
            # initial state puts them, and nobody has laid any
            self.t_away = ids
            return
        n_r = sum(x.counted for x in r2 if x.side == RIGHT)
        n_l = sum(x.counted for x in r2 if x.side == LEFT)
        if len(ids) < 8 + n_r + n_l:
            self.state.fail(f"{len(ids)} tallies cannot hold the second round's {n_r + n_l} hits and the eight in the 中")
        self.t_zhong, self.t_pile, self.t_hand = ids[:8], ids[8 + n_r + n_l:], []
        self.t_laid = {RIGHT: ids[8:8 + n_r], LEFT: ids[8 + n_r:8 + n_r + n_l]}
        self.t_counted: dict[str, dict[str, list]] = {}
        self.t_win: list[str] = []
        L = self.tally_layout
        for i, tid in enumerate(self.t_zhong):
            self._place_tally(tid, L.in_holder(i), 0.0)
        for side in (RIGHT, LEFT):
            for i, tid in enumerate(self.t_laid[side]):
                self._place_tally(tid, L.laid(side, i), 0.0)
        for i, tid in enumerate(self.t_pile):
            self._place_tally(tid, L.pile(i), 0.0)

    def _place_tally(self, tid: str, where: tuple, t: float) -> None:
        x, y, z, h, posture = where
        pr = self.state.props[tid]
        if t == 0.0 and pr.keys and pr.keys[0][0] == 0.0 and pr.carrier is None:
            pr.x, pr.y, pr.z, pr.heading = x, y, z, h
            pr.keys[0] = [0.0, round(x, 4), round(y, 4), round(z, 4), round(h, 2), posture]
        else:
            self.custody.set_down(tid, x, y, z, t, heading=h, posture=posture)

    def _into_hand(self, b: Body, ids: list[str], t: float) -> None:
        for tid in ids:
            self.custody.carry(tid, b.id, t)
        self.t_hand += [x for x in ids if x not in self.t_hand]

    def _act_with(self, b: Body, kind: str, dur: float, obj: str | None = None) -> float:
        """A gesture of ``dur`` s from now; returns when it ends."""
        t = b.t
        b.gesture(t, t + dur, kind, obj)
        self.moves.hold(b, dur)
        return t + dur

    # ------------------------------------------------------------------ while the pairs shoot
    def ready(self, sh: Body, t_ready: float) -> None:
        """Before a pair shoots: he kneels, puts back what is left in his hand (若有餘算則反委之), takes the
        eight out of the 中, puts eight in again (取中之八算，改實八算于中) and rises holding them (興執而俟)."""
        P, L = self.pace, self.tally_layout
        if self.primed:           # done just before, where the text tells it (釋獲者坐取中之八筭 … 興執而俟)
            self.primed = False
            return
        sh.hold_until(max(sh.t, t_ready - 6.0))
        if sh.posture != Posture.KNEEL:
            self.moves.posture(sh, Posture.KNEEL, P.kneel)
        if self.t_hand:
            t = self._act_with(sh, GestureKind.RETURN_TALLIES, P.lay_tally, self.t_hand[0])
            for tid in self.t_hand:
                self._place_tally(tid, L.pile(len(self.t_pile)), t)
                self.t_pile.append(tid)
            self.t_hand = []
        took = list(self.t_zhong)
        self._into_hand(sh, took, sh.t + 0.3)
        self._act_with(sh, GestureKind.TAKE_TALLIES, P.take_tallies, took[0] if took else None)
        new, self.t_pile = self.t_pile[:8], self.t_pile[8:]
        self._into_hand(sh, new, sh.t + 0.2)
        t = self._act_with(sh, GestureKind.FILL_HOLDER, P.fill_holder, new[0] if new else None)
        for i, tid in enumerate(new):
            self._place_tally(tid, L.in_holder(i), t)
            self.t_hand.remove(tid)
        self.t_zhong = new
        self.moves.posture(sh, Posture.STAND, P.rise)

    def prime(self, sh: Body) -> None:
        """釋獲者坐取中之八筭，改實八筭于中，興執而俟 (first half, before the second round's first pair): told once
        by the text, done now; the next pair's shooting does not do it again."""
        self.primed = False
        self.ready(sh, sh.t)
        self.primed = True

    def lay(self, sh: Body, s: Shot) -> None:
        """释获: kneeling, one tally from his hand for a hit on the beat, to his right for the 上射, to his left
        for the 下射, within a second or two of the 获者's cry."""
        P = self.pace
        sh.hold_until(max(sh.t, s.land + 1.0))
        if sh.posture != Posture.KNEEL:
            self.moves.posture(sh, Posture.KNEEL, P.kneel)
        if not self.t_hand:
            self.state.explain.append(f"  释获者 has no tally left in his hand for {s.arrow} (算八十: 略以十耦为正)")
            return
        tid = self.t_hand.pop(0)
        t = self._act_with(sh, GestureKind.LAY_TALLY, P.lay_tally, tid)
        self._place_tally(tid, self.tally_layout.laid(s.side, len(self.t_laid[s.side])), t)
        self.t_laid[s.side].append(tid)

    def lay_spare(self, b: Body) -> None:
        """委余获于中西: what is left in his hand, laid with the rest west of the 中."""
        if not self.t_hand:
            self.moves.hold(b, self.pace.settle)
            return
        t = self._act_with(b, GestureKind.RETURN_TALLIES, self.pace.lay_tally, self.t_hand[0])
        for tid in self.t_hand:
            self._place_tally(tid, self.tally_layout.pile(len(self.t_pile)), t)
            self.t_pile.append(tid)
        self.t_hand = []

    # ------------------------------------------------------------------ the count
    def count(self, b: Body, step: str | None) -> None:
        """数获, in the text's steps (``text``): 右 — the right side's tallies taken a pair at a time into the
        left hand, each ten pairs laid down lengthwise, apart; 右余纯 — the pairs left over laid crosswise
        below; 右奇 — an odd one lengthwise below them; 左 — all the left side's gathered into the left hand
        and laid down a pair at a time, ten apart, the rest as the right."""
        step = (step or "").strip()
        if step not in ("右", "右余纯", "右奇", "左"):
            self.state.fail(f"count_tallies {step!r}: one of 右, 右余纯, 右奇, 左")
        side = RIGHT if step.startswith("右") else LEFT
        c = self.t_counted.setdefault(side, {"bundle": [], "pairs": [], "odd": []})
        if step == "右":
            self._count_tens(b, side, c, gather=False)
        elif step == "右余纯":
            self._lay_pairs(b, side, c)
        elif step == "右奇":
            self._lay_odd(b, side, c)
        else:
            self._count_tens(b, side, c, gather=True)
            self._lay_pairs(b, side, c)
            self._lay_odd(b, side, c)

    def _count_tens(self, b: Body, side: str, c: dict, gather: bool) -> None:
        P, L = self.pace, self.tally_layout
        laid = self.t_laid[side]
        n_pairs = len(laid) // 2
        if gather:          # 兼敛算，实于左手: all of them, then one pair at a time back to the ground
            self._into_hand(b, laid[:2 * n_pairs], b.t + 0.3)
            self._act_with(b, GestureKind.TAKE_TALLIES, P.gather, laid[0] if laid else None)
        held: list[str] = []
        for j in range(n_pairs):
            pair = laid[2 * j:2 * j + 2]
            if not gather:
                self._into_hand(b, pair, b.t + 0.3)
                self._act_with(b, GestureKind.TAKE_TALLIES, P.take_tallies, pair[0])
            held += pair
            if len(held) == 20:               # 十纯则缩而委之，每委异之
                k = len(c["bundle"])
                t = self._act_with(b, GestureKind.LAY_TALLY, P.bundle, held[0])
                for i, tid in enumerate(held):
                    self._place_tally(tid, L.counted(side, "bundle", k, i), t)
                    self.t_hand.remove(tid)
                c["bundle"].append(held)
                held = []
        c["held"] = held
        self.t_laid[side] = laid[2 * n_pairs:]          # the odd one, if any, still lies

    def _lay_pairs(self, b: Body, side: str, c: dict) -> None:
        """有余纯，则横于下: the pairs left over, crosswise, nearer him."""
        held = c.pop("held", [])
        for j in range(len(held) // 2):
            pair = held[2 * j:2 * j + 2]
            t = self._act_with(b, GestureKind.LAY_TALLY, self.pace.take_tallies, pair[0])
            for i, tid in enumerate(pair):
                self._place_tally(tid, self.tally_layout.counted(side, "pairs", len(c["pairs"]), i), t)
                self.t_hand.remove(tid)
            c["pairs"].append(pair)
        if not held:
            self.moves.hold(b, self.pace.settle)

    def _lay_odd(self, b: Body, side: str, c: dict) -> None:
        """一算为奇，奇则又缩诸纯下: a single one left, lengthwise below the pairs."""
        odd = self.t_laid[side]
        if not odd:
            self.moves.hold(b, self.pace.settle)
            return
        self._into_hand(b, odd, b.t + 0.2)
        t = self._act_with(b, GestureKind.LAY_TALLY, self.pace.take_tallies, odd[0])
        self._place_tally(odd[0], self.tally_layout.counted(side, "odd", 0, 0), t)
        self.t_hand.remove(odd[0])
        c["odd"] = list(odd)
        self.t_laid[side] = []

    def _counted_of(self, side: str) -> list[str]:
        c = self.t_counted.get(side, {})
        return [t for group in c.get("bundle", []) for t in group] + \
            [t for p in c.get("pairs", []) for t in p] + list(c.get("odd", []))

    def take_winning(self, b: Body) -> None:
        """取贤获: the winning side's tallies beyond the loser's count (齐之而取其余), the odd one first; or, if
        the two are even (左右钧), one from each side."""
        right, left = self._counted_of(RIGHT), self._counted_of(LEFT)
        if len(right) == len(left):
            take = right[-1:] + left[-1:]
        else:
            win, lose = (right, left) if len(right) > len(left) else (left, right)
            take = list(reversed(win))[:len(win) - len(lose)]
        if take:                  # 進取: he steps up to where they lie, within reach
            props = self.state.props
            cx = sum(props[t].x for t in take) / len(take)
            cy = sum(props[t].y for t in take) / len(take)
            d = math.hypot(cx - b.x, cy - b.y)
            if d > REACH:
                self.moves.nudge(b, math.degrees(math.atan2(cx - b.x, cy - b.y)), d - REACH + 0.2)
        self._into_hand(b, take, b.t + 0.3)
        self.t_win = take
        self._act_with(b, GestureKind.TAKE_TALLIES, self.pace.take_tallies * 2, take[0] if take else None)

    def score_words(self) -> tuple[int, int, str, str]:
        """(right, left, the result, its count in 纯 and 奇) of the round counted last."""
        n_r, n_l = len(self._counted_of(RIGHT)), len(self._counted_of(LEFT))
        if n_r == n_l:
            return n_r, n_l, "左右钧", ""
        result = "右贤于左" if n_r > n_l else "左贤于右"
        d = abs(n_r - n_l)
        words = (f"{cn2an.an2cn(d // 2)}纯" if d // 2 else "") + ("一奇" if d % 2 else "")
        return n_r, n_l, result, words

    def report_score(self, b: Body, what: str | None, to: str | None) -> None:
        """告于宾: the result (``text`` 胜负) or the count (``text`` 纯数: 以纯数告，若有奇者，亦曰奇), in
        the words the tallies give; the round's score is written with the count."""
        n_r, n_l, result, words = self.score_words()
        said = result if (what or "胜负") == "胜负" else (words or result)
        if (what or "") == "纯数" or result == "左右钧":
            self.scores.append(Score(self.round, n_r, n_l, result, result + ("，" + words if words else "")))
        if to and self.state.stated.get(b.id, ("",))[0] != self.state.event_id:
            self.moves.face(b, self.places.heading_toward(b, to))
        b.gesture(b.t, b.t + self.pace.announce + self.pace.speak_char * len(said), GestureKind.ANNOUNCE, said)
        self.moves.hold(b, self.pace.announce + self.pace.speak_char * len(said))
        self.state.explain.append(f"  释获者 reports round {self.round}: {said} (右 {n_r}, 左 {n_l})")

    def reset(self, b: Body) -> None:
        """兼敛算，实八算于中，委其余于中西: all the tallies taken up together, eight into the 中, the rest laid
        west of it with the spares, crosswise, tips south."""
        P, L = self.pace, self.tally_layout
        counted = self._counted_of(RIGHT) + self._counted_of(LEFT)
        rest_laid = self.t_laid[RIGHT] + self.t_laid[LEFT]
        gathered = [t for t in counted + rest_laid + self.t_hand + self.t_zhong if t]
        gathered = list(dict.fromkeys(gathered))
        self._into_hand(b, gathered, b.t + 0.3)
        self._act_with(b, GestureKind.TAKE_TALLIES, P.gather, gathered[0] if gathered else None)
        eight, rest = gathered[:8], gathered[8:]
        t = self._act_with(b, GestureKind.FILL_HOLDER, P.fill_holder, eight[0] if eight else None)
        for i, tid in enumerate(eight):
            self._place_tally(tid, L.in_holder(i), t)
        t = self._act_with(b, GestureKind.RETURN_TALLIES, P.lay_tally, rest[0] if rest else None)
        for tid in rest:
            self._place_tally(tid, L.pile(len(self.t_pile)), t)
            self.t_pile.append(tid)
        self.t_zhong, self.t_hand, self.t_win = eight, [], []
        self.t_laid = {RIGHT: [], LEFT: []}
        self.t_counted = {}

    def collect(self, b: Body) -> None:
        """退中与算: every tally taken up (those of the 中 with it) to be carried away."""
        every = self.t_zhong + self.t_pile + self.t_hand + self.t_away
        self._into_hand(b, every, b.t + 0.3)
        self._act_with(b, GestureKind.TAKE_TALLIES, self.pace.gather, every[0] if every else None)
        self.t_zhong, self.t_pile, self.t_away = [], [], []

    def store(self, b: Body) -> None:
        """The tallies he carries set down together where he is (at 堂西: 诸所退皆俟堂西, 鄭)."""
        h = math.radians(b.heading)
        x, y = b.x + 0.45 * math.sin(h), b.y + 0.45 * math.cos(h)
        t = self._act_with(b, GestureKind.SET_DOWN, self.pace.handle, self.t_hand[0] if self.t_hand else None)
        for i, tid in enumerate(self.t_hand):
            self.custody.set_down(tid, x + 0.004 * (i % 10), y + 0.004 * (i // 10), 0.005 + 0.005 * (i // 40), t,
                          heading=b.heading)
        self.t_away += self.t_hand
        self.t_hand = []
        b.set_state(b.t, holding=[x for x in b.state.get("holding", []) if not x.startswith(PropKind.算)])

    def hand_over(self, b: Body, other: Body, t: float) -> None:
        """授筭: the tallies he carries pass to ``other`` at ``t`` (釋獲者…興受筭, first half; 鄭: 興，還北面受筭)."""
        for tid in self.t_hand:
            self.custody.carry(tid, other.id, t)
        b.set_state(t, holding=[x for x in b.state.get("holding", []) if not x.startswith(PropKind.算)])
