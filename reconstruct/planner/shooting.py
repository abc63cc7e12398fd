"""The shooting performed: a pair on their 物 looses 拾发 to the drum, each arrow flies and lands, the 获者
calls and raises his flag for each hit, the 释获者 lays a tally for each hit on the beat (:mod:`.tallies`);
the music shot to.  The arrows' other handling is in :mod:`.arrows`.  Rules:
``shared/docs/archery-rules.md`` (first half of 鄉射禮, SBCK lines cited there).
"""
from __future__ import annotations

import math

import numpy as np

from ..model.plan import Music, Piece, Shot
from ..model.vocabulary import GestureKind, Posture, PropPosture, Role
from .archery import RIGHT, Loose, demonstration, flight, landing
from .bodies import Body
from .custody import Custody
from .moves import Moves
from .state import PlanState
from .tallies import Tallies


class Shooting:
    """The archery performed: shots, flights, the marker's flag; the music and its beat."""

    def __init__(self, state: PlanState, custody: Custody, moves: Moves, tallies: Tallies,
                 order: list[tuple[str, str]], rounds: dict[int, list[Loose]], archery) -> None:
        """``order``: the pairs (上射, 下射) in shooting order; ``rounds``: every arrow of each round as the
        model decides it (:func:`.archery.outcomes`); ``archery``: the rite's archery parameters (the
        drum's beat, the arrows' speed)."""
        self.state, self.custody, self.moves, self.tallies = state, custody, moves, tallies
        self.pace, self.order, self.rounds, self.archery = state.pace, order, rounds, archery
        self.shots: list[Shot] = []
        self._music: tuple[str, float] | None = None      # the piece shot to, and when it began
        self._music_end: float | None = None
        self.played: list[list] = []                       # every piece: [piece, start, end or None]

    # ------------------------------------------------------------------ the round shot to music
    def music_begins(self, piece: str | None, t: float) -> None:
        """奏 …: the music begins (the 驺虞's 节 are the beat the archers shoot to)."""
        if self._music is None and piece and "驺虞" in piece:
            self._music = (piece, t)
        if piece:
            self.played.append([piece.strip("《》"), t, None])

    def music_ends(self, b: Body) -> None:
        """The music ends: every instrument still playing stops."""
        if self._music is not None and self._music_end is None:
            self._music_end = b.t
        for p in self.played:
            if p[2] is None:
                p[2] = b.t
        for body in self.state.bodies.values():
            for g in body.gestures:
                if g[1] is None and g[2] == "play":
                    g[1] = round(max(g[0], b.t), 3)
        self.moves.hold(b, self.pace.settle)

    def play(self, b: Body, instrument: str | None) -> None:
        """鼓瑟 / 歌: he plays (or sings) until the music ends."""
        self.moves.hold(b, self.pace.settle)
        b.gesture(b.t, None, GestureKind.PLAY, instrument or None)

    def music_played(self, duration: float) -> Music | None:
        """The 驺虞 and its 节, evenly spaced (间若一), from when it began to when it ended."""
        if self._music is None:
            return None
        piece, t0 = self._music
        t1 = self._music_end if self._music_end is not None else duration
        beat = self.archery.beat_s
        n = int(math.floor((t1 - t0) / beat + 1e-9))
        return Music(piece.strip("《》"), tuple(round(t0 + i * beat, 3) for i in range(n + 1)))

    # the drum of the 陔: 鄭 陔夏者，天子諸侯以鍾鼓，大夫士鼓而已 — a slow steady beat (CHOSEN: one every 3 s)
    GAI_BEAT = 3.0

    def pieces_played(self, duration: float) -> list[Piece]:
        """Every piece played, in order, with the drum's 节 where a drum keeps it (the 驺虞, the 陔)."""
        out = []
        for piece, t0, t1 in self.played:
            t1 = duration if t1 is None else t1
            if "驺虞" in piece and self._music is not None:
                m = self.music_played(duration)
                beats = m.beats if m else ()
            elif "陔" in piece:
                beats = tuple(round(t0 + i * self.GAI_BEAT, 3) for i in range(int((t1 - t0) // self.GAI_BEAT) + 1))
            else:
                beats = ()
            out.append(Piece(piece, round(t0, 3), round(t1, 3), beats))
        return out

    def _beats(self, t: float) -> list[float]:
        """The six 节 a pair shoots in from time t: the first to listen, four for the four 拾 (one arrow each
        per 节, 一节之间当拾发, 鄭), and the end."""
        beat = self.archery.beat_s
        if self._music is None:
            b0 = t
        else:
            t0 = self._music[1]
            b0 = t0 + beat * math.ceil((t - t0) / beat - 1e-9)
        return [b0 + k * beat for k in range(6)]

    # ------------------------------------------------------------------ one pair's shooting
    def round_now(self, tallied: bool) -> int:
        """Which round a pair shoots in, from what the text rules for it: the first 不釋獲 (獲而未釋獲: no
        tally), the second with tallies and no music (請釋獲 … 不貫不釋), the third to the 驺虞 (不鼓不釋)."""
        if not tallied:
            return 1
        return 3 if self._music is not None else 2

    def shoot(self, up: Body, other: str | None, retire: bool = False, tallied: bool = True) -> None:
        """射: the 上射 and his partner (``other``) shoot their four arrows each, alternately (拾发以将乘矢),
        standing on their 物; the 获者 and the 释获者 answer each arrow.  ``retire``: the 上射 steps back a
        little from his 物 each time he has loosed and up to it again for his next arrow (記: 耦少退于物,
        鄭: 下大夫也，既發則然 — the 大夫's partner).  ``tallied`` False: the first round, 獲而未釋獲 (鄭: 但大言
        獲，未釋其筭) — the 获者 calls and raises his flag for each hit, the 释获者 (who has not set out the 中
        yet) lays nothing."""
        if other is None or other not in self.state.bodies:
            self.state.fail("shoot needs the partner: WHO shoot other=PARTNER (the pair loose by turns)")
        down = self.state.bodies[other]
        pair = next((i for i, p in enumerate(self.order) if p == (up.id, down.id)), None)
        if pair is None:
            self.state.fail(f"{up.id} and {down.id} are not a pair of the rite's pair lists")
        rnd = self.round_now(tallied)
        looses = [x for x in self.rounds[rnd] if x.pair == pair]
        sh, hz = self.state.bodies[Role.释获者], self.state.bodies[Role.获者]
        t_ready = max(up.t, down.t)
        if tallied:
            self.tallies.ready(sh, t_ready)
            beats = self._beats(max(t_ready, sh.t))
        else:
            beats = self._beats(t_ready)
        beat = self.archery.beat_s
        landed = []
        for x in looses:
            body = up if x.side == RIGHT else down
            B = beats[x.k]
            if x.side == RIGHT:
                t_loose = B + 0.375 * beat if x.on_beat else B - 0.09 * beat
            else:
                t_loose = B + 0.75 * beat if x.on_beat else B + 1.075 * beat
            landed.append(self._loose(body, x, t_loose, beats))
        end = max([beats[5]] + [s.land for s in landed]) + 0.5
        for s in sorted(landed, key=lambda s: s.land):
            if s.hit:
                self._call_hit(hz, s)
            if s.counted and tallied:
                self.tallies.lay(sh, s)
        for who in ((hz, sh) if tallied else (hz,)):
            if who.posture == Posture.KNEEL and who.t <= end + 10:
                who.hold_until(max(who.t, end))
                self.moves.posture(who, Posture.STAND, self.pace.rise)
        if retire:
            self._retire(up, sorted(s.loose for s in landed if s.archer == up.id))
        for body in (up, down):        # on their marks until the last arrow lands (卒射: the rite's next step
            body.hold_until(end)       # bows, 南面揖, with gestures; not bowed here a second time)
        self.shots += landed
        if tallied:
            self.tallies.round = rnd
        self.state.explain.append(f"  {up.id} and {down.id} shoot by turns (拾发), the 节 from {beats[0]:.1f} s "
                            f"(the first for listening)")
        for s, x in zip(landed, looses):
            self.state.explain.append("    " + self._why_counted(s, x))

    def shoot_alone(self, b: Body) -> None:
        """誘射，將乘矢: he alone, on his 物, looses his four arrows one after another (將，行也: 行四矢), each
        nocked from those in his belt and across the bow, drawn and loosed; nobody calls them (不去旌，以其不獲,
        鄭).  Which hit is drawn by :func:`.archery.demonstration` with his rate."""
        P = self.pace
        looses = demonstration(b.id, self.archery.rate(b.id, {}), self.archery.seed)
        t = b.t + P.settle
        landed = []
        for x in looses:
            t_loose = t + P.nock + P.draw
            landed.append(self._loose(b, x, t_loose, []))
            t = t_loose + P.hold_arrow + 1.0
        b.hold_until(max([t] + [s.land for s in landed]))
        self.shots += landed
        self.state.explain.append(f"  {b.id} shoots his four arrows alone (誘射): "
                                  + ", ".join(f"{s.arrow} {'hits' if s.hit else 'misses'}" for s in landed)
                                  + "; nobody calls them (不去旌，以其不獲)")

    RETIRE = 0.3      # metres: 少退于物

    def _retire(self, up: Body, looses: list[float]) -> None:
        """耦少退于物: after each of his arrows he steps back a little, and up to his 物 again to nock the next."""
        P = self.pace
        for i, t in enumerate(looses):
            up.hold_until(t + 0.3)
            self.moves.nudge(up, up.heading + 180.0, self.RETIRE)
            if i + 1 < len(looses):
                up.hold_until(max(up.t, looses[i + 1] - P.draw - P.nock - 1.0))
                self.moves.nudge(up, up.heading, self.RETIRE)
        self.state.explain.append(f"  {up.id} steps back a little from his 物 after each arrow (記: 耦少退于物)")

    @staticmethod
    def _why_counted(s: Shot, x: Loose) -> str:
        """One line for --explain: who loosed which arrow on which 节, hit or miss, counted or not and why."""
        beat = "on the drum's 节" if s.on_beat else "off the drum's 节"
        what = "hits the 正" if s.hit else "misses (不贯不释: no tally)"
        if s.counted:
            why = f"counted: a tally to the 释获者's {'right' if s.side == '右' else 'left'}"
        elif s.hit:
            why = "not counted: 不鼓不释"
        else:
            why = "not counted"
        return f"{s.archer} looses {s.arrow} at {s.loose:.1f} s, {x.k}{'st' if x.k == 1 else 'nd' if x.k == 2 else 'rd' if x.k == 3 else 'th'} 拾 ({beat}): {what}; {why}"

    def _loose(self, b: Body, x: Loose, t_loose: float, beats: list[float]) -> Shot:
        """One arrow: nocked, drawn, loosed at t_loose; it flies to where the model lands it; then he takes
        the next arrow from his belt across the bow (挟), ready for his next turn."""
        P = self.pace
        arrow = f"{b.id}矢{x.k}"
        if arrow not in self.state.props:
            self.state.fail(f"{b.id} has no arrow {arrow} to shoot")
        t_nock = t_loose - P.draw - P.nock
        if self.state.props[arrow].carrier != b.id:
            self.custody.carry(arrow, b.id, t_nock)          # (an arrow not taken up before: from the belt)
        b.gesture(t_nock, t_nock + P.nock, GestureKind.NOCK, arrow)
        b.gesture(t_loose - P.draw, t_loose, GestureKind.DRAW, arrow)
        b.gesture(t_loose - 0.05, t_loose, GestureKind.LOOSE, arrow)
        nxt = f"{b.id}矢{x.k + 1}"
        if x.k < 4 and nxt in self.state.props:
            self.custody.carry(nxt, b.id, t_loose + 0.3, PropPosture.CARRIED)
            b.gesture(t_loose + 0.3, t_loose + 0.3 + P.hold_arrow, GestureKind.HOLD_ARROW, nxt)
        h = math.radians(b.heading)
        start = np.array([b.x + 0.3 * math.sin(h), b.y + 0.3 * math.cos(h), b.z + 1.45])
        end, lie = landing(self.state.reading, x, x.u)
        ts, pts = flight(start, end, self.archery.arrow_speed)
        pr = self.state.props[arrow]
        self.custody.carry(arrow, None, t_loose)
        b.set_state(t_loose, holding=[h for h in b.state.get("holding", []) if h != arrow])
        bearing = math.degrees(math.atan2(end[0] - start[0], end[1] - start[1])) % 360
        pr.heading = bearing
        for tt, p in zip(ts[:-1], pts[:-1]):
            pr.keys.append([round(t_loose + tt, 3), round(p[0], 4), round(p[1], 4), round(p[2], 4),
                            round(bearing, 2), PropPosture.FLIGHT])
        land = t_loose + float(ts[-1])
        self.custody.set_down(arrow, *end, land, heading=bearing)
        on = not self._music or x.on_beat
        counted = x.hit and on and x.round > 1          # 獲而未釋獲 in the first round; none in the 誘射
        return Shot(b.id, arrow, x.round, round(t_loose, 3), round(land, 3), x.hit, x.side, on, counted,
                    tuple(round(float(c), 4) for c in end))

    def _call_hit(self, hz: Body, s: Shot) -> None:
        """获者坐而获，举旌以宫，偃旌以商: kneeling, he cries 获, raises the flag and lowers it."""
        P = self.pace
        t = max(s.land + 0.2, hz.t)
        hz.hold_until(t)
        if hz.posture != Posture.KNEEL:
            self.moves.posture(hz, Posture.KNEEL, P.kneel)
        t = hz.t
        hz.gesture(t, t + P.call, GestureKind.CALL, s.arrow)
        hz.gesture(t, t + P.raise_flag, GestureKind.RAISE_FLAG, "旌")
        hz.gesture(t + P.raise_flag, t + P.raise_flag + P.lower_flag, GestureKind.LOWER_FLAG, "旌")
        self.moves.hold(hz, P.raise_flag + P.lower_flag)
