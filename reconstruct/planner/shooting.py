"""The shooting performed: a pair on their 物 looses 拾发 to the drum, each arrow flies and lands, the 获者
calls and raises his flag for each hit, the 释获者 lays a tally for each hit on the beat.  The arrows'
other handling (拾取矢, 搢三挟一个, gathered at the target, laid on the 楅 and counted off in fours) is
here too.  Rules: ``shared/docs/archery-rules.md`` (first half of 鄉射禮, SBCK lines cited there).
"""
from __future__ import annotations

import math

import numpy as np

from ..model.plan import Music, Shot
from .archery import RIGHT, Loose, RackLayout, TallyLayout, flight, landing, outcomes
from .bodies import Body
from .walkable import COURT


class Shooting:
    """The archery performed: shots, flights, the marker's flag, arrows handled one by one."""

    def _init_archery(self) -> None:
        """The pairs in shooting order, the outcome of rounds 2 (before the passage: its tallies are counted at
        80) and 3 (shot to music in the passage), and where tallies and arrows lie."""
        g = self.rite.groups
        self.order = [(up, down) for name in ("三耦", "宾主人", "大夫耦", "众耦")
                      for up, down in zip(g.get(name, [])[0::2], g.get(name, [])[1::2])]
        self.archers = [a for p in self.order for a in p]
        prm = self.rite.archery
        victor = self.rite.options.get("victor", RIGHT)
        rate = lambda who: prm.rate(who, g)  # noqa: E731
        try:
            self.rounds = {2: outcomes(self.order, rate, prm.seed, 2, victor, False, prm.off_beat),
                           3: outcomes(self.order, rate, prm.seed, 3, victor, True, prm.off_beat)}
        except ValueError as e:
            self.fail(str(e))
        self.tally_layout = TallyLayout(self.reading)
        self.rack = RackLayout(self.reading, len(self.archers))
        self.shots: list[Shot] = []
        self.scores: list = []
        self._music: tuple[str, float] | None = None      # the piece shot to, and when it began
        self._music_end: float | None = None
        self._shot_pairs = 0
        self._tally_round = 2                             # the round whose tallies lie on the ground

    # ------------------------------------------------------------------ the round shot to music
    def _music_verb(self, b: Body, a) -> None:
        """奏 …: the music begins (its 节 are the beat the archers shoot to)."""
        if self._music is None and a.text and "驺虞" in a.text:
            self._music = (a.text, b.t)
        self._timed(b, a)

    def _music_end_verb(self, b: Body, a) -> None:
        """The music ends: every instrument still playing stops."""
        self._music_end = b.t
        for body in self.bodies.values():
            for g in body.gestures:
                if g[1] is None and g[2] == "play":
                    g[1] = round(max(g[0], b.t), 3)
        self.moves.hold(b, self.pace.settle)

    def _play(self, b: Body, a) -> None:
        """鼓瑟 / 歌: he plays (or sings) until the music ends."""
        self.moves.hold(b, self.pace.settle)
        b.gesture(b.t, None, "play", a.text or None)

    def music_played(self, duration: float) -> Music | None:
        """The 驺虞 and its 节, evenly spaced (间若一), from when it began to when it ended."""
        if self._music is None:
            return None
        piece, t0 = self._music
        t1 = self._music_end if self._music_end is not None else duration
        beat = self.rite.archery.beat_s
        n = int(math.floor((t1 - t0) / beat + 1e-9))
        return Music(piece.strip("《》"), tuple(round(t0 + i * beat, 3) for i in range(n + 1)))

    def _beats(self, t: float) -> list[float]:
        """The six 节 a pair shoots in from time t: the first to listen, four for the four 拾 (one arrow each
        per 节, 一节之间当拾发, 鄭), and the end."""
        beat = self.rite.archery.beat_s
        if self._music is None:
            b0 = t
        else:
            t0 = self._music[1]
            b0 = t0 + beat * math.ceil((t - t0) / beat - 1e-9)
        return [b0 + k * beat for k in range(6)]

    # ------------------------------------------------------------------ one pair's shooting
    def _shoot(self, up: Body, a) -> None:
        """射: the 上射 and his partner (``other``) shoot their four arrows each, alternately (拾发以将乘矢),
        standing on their 物; the 获者 and the 释获者 answer each arrow."""
        if a.other is None or a.other not in self.bodies:
            self.fail("shoot needs the partner: WHO shoot other=PARTNER (the pair loose by turns)")
        down = self.bodies[a.other]
        pair = next((i for i, p in enumerate(self.order) if p == (up.id, down.id)), None)
        if pair is None:
            self.fail(f"{up.id} and {down.id} are not a pair of the rite's pair lists")
        rnd = 3
        looses = [x for x in self.rounds[rnd] if x.pair == pair]
        sh, hz = self.bodies["释获者"], self.bodies["获者"]
        t_ready = max(up.t, down.t)
        self._ready_tallies(sh, t_ready)
        beats = self._beats(max(t_ready, sh.t))
        beat = self.rite.archery.beat_s
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
            if s.counted:
                self._lay_tally(sh, s)
        for who in (hz, sh):
            if who.posture == "kneel" and who.t <= end + 10:
                who.hold_until(max(who.t, end))
                self.moves.posture(who, "stand", self.pace.rise)
        for body in (up, down):                  # 卒射，南面揖
            body.hold_until(end)
        self.moves.posture(up, "bow", self.pace.bow, "stand")
        self.moves.posture(down, "bow", self.pace.bow, "stand")
        self.shots += landed
        self._shot_pairs += 1
        self._tally_round = rnd
        self.explain.append(f"  {up.id} and {down.id} shoot by turns (拾发), the 节 from {beats[0]:.1f} s "
                            f"(the first for listening)")
        for s, x in zip(landed, looses):
            self.explain.append("    " + self._why_counted(s, x))

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
        if arrow not in self.props:
            self.fail(f"{b.id} has no arrow {arrow} to shoot")
        t_nock = t_loose - P.draw - P.nock
        if self.props[arrow].carrier != b.id:
            self.custody.carry(arrow, b.id, t_nock)          # (an arrow not taken up before: from the belt)
        b.gesture(t_nock, t_nock + P.nock, "nock", arrow)
        b.gesture(t_loose - P.draw, t_loose, "draw", arrow)
        b.gesture(t_loose - 0.05, t_loose, "loose", arrow)
        nxt = f"{b.id}矢{x.k + 1}"
        if x.k < 4 and nxt in self.props:
            self.custody.carry(nxt, b.id, t_loose + 0.3, "carried")
            b.gesture(t_loose + 0.3, t_loose + 0.3 + P.hold_arrow, "hold_arrow", nxt)
        h = math.radians(b.heading)
        start = np.array([b.x + 0.3 * math.sin(h), b.y + 0.3 * math.cos(h), b.z + 1.45])
        end, lie = landing(self.reading, x, x.u)
        ts, pts = flight(start, end, self.rite.archery.arrow_speed)
        pr = self.props[arrow]
        self.custody.carry(arrow, None, t_loose)
        b.set_state(t_loose, holding=[h for h in b.state.get("holding", []) if h != arrow])
        bearing = math.degrees(math.atan2(end[0] - start[0], end[1] - start[1])) % 360
        pr.heading = bearing
        for tt, p in zip(ts[:-1], pts[:-1]):
            pr.keys.append([round(t_loose + tt, 3), round(p[0], 4), round(p[1], 4), round(p[2], 4),
                            round(bearing, 2), "flight"])
        land = t_loose + float(ts[-1])
        self.custody.set_down(arrow, *end, land, heading=bearing)
        on = not self._music or x.on_beat
        return Shot(b.id, arrow, x.round, round(t_loose, 3), round(land, 3), x.hit, x.side, on, x.hit and on,
                    tuple(round(float(c), 4) for c in end))

    def _call_hit(self, hz: Body, s: Shot) -> None:
        """获者坐而获，举旌以宫，偃旌以商: kneeling, he cries 获, raises the flag and lowers it."""
        P = self.pace
        t = max(s.land + 0.2, hz.t)
        hz.hold_until(t)
        if hz.posture != "kneel":
            self.moves.posture(hz, "kneel", P.kneel)
        t = hz.t
        hz.gesture(t, t + P.call, "call", s.arrow)
        hz.gesture(t, t + P.raise_flag, "raise_flag", "旌")
        hz.gesture(t + P.raise_flag, t + P.raise_flag + P.lower_flag, "lower_flag", "旌")
        self.moves.hold(hz, P.raise_flag + P.lower_flag)

    # ------------------------------------------------------------------ the arrows handled
    def _my_arrows(self, who: str) -> list[str]:
        return [f"{who}矢{k}" for k in range(1, 5) if f"{who}矢{k}" in self.props]

    def _take_arrows(self, b: Body, a) -> None:
        """拾取矢: with ``other`` the pair take one arrow each in turn, kneeling, four times (上射 first); alone
        (``all``) he takes his four together (兼取乘矢: the 大夫 and his partner)."""
        P = self.pace
        takers = [b] if a.other is None else [b, self._body(a.other)]
        t = max(x.t for x in takers)
        for x in takers:
            x.hold_until(t)
        if a.other is None:
            self._kneel_take(b, self._my_arrows(b.id))
            return
        for k in range(4):
            for x in takers:
                x.hold_until(max(x.t, max(y.t for y in takers)))
                arrows = self._my_arrows(x.id)
                if k < len(arrows):
                    self._kneel_take(x, [arrows[k]])
        for x in takers:
            x.hold_until(max(y.t for y in takers))
        _ = P

    def _kneel_take(self, b: Body, arrows: list[str]) -> None:
        P = self.pace
        self.moves.posture(b, "kneel", P.kneel)
        b.gesture(b.t, b.t + P.take_arrow, "take_arrow", arrows[0] if len(arrows) == 1 else None)
        for ar in arrows:
            self.custody.carry(ar, b.id, b.t + 0.3)
        self.moves.hold(b, P.take_arrow)
        self.moves.posture(b, "stand", P.rise)
        b.set_state(b.t, holding=sorted({*b.state.get("holding", []), *arrows}))

    def _tuck_arrows(self, b: Body, a) -> None:
        """搢三挟一个: three arrows in the belt, one held across the bow."""
        arrows = [ar for ar in self._my_arrows(b.id) if self.props[ar].carrier == b.id]
        b.gesture(b.t, b.t + self.pace.tuck_arrows, "tuck_arrows", None)
        for i, ar in enumerate(arrows):
            self.custody.carry(ar, b.id, b.t + 0.5, "carried" if i == 0 else "tucked")
        self.moves.hold(b, self.pace.tuck_arrows)

    def _gather_arrows(self, b: Body, a) -> None:
        """弟子取矢 at the target (``text`` = part/parts: this junior's share): walks from spot to spot in
        front of the 侯, never behind it, and takes up each arrow lying or stuck there."""
        part, parts = (int(v) for v in (a.text or "1/1").split("/"))
        hy = self.reading.landmarks["侯"].position[1]
        lying = sorted((pr for pr in self.props.values() if pr.kind == "矢" and pr.carrier is None
                        and abs(pr.y - hy) < 12.0 and pr.keys and pr.keys[-1][5] == "rest"),
                       key=lambda pr: (pr.x, pr.id))
        mine = lying[part - 1::parts]
        cells: dict[tuple, list] = {}
        for pr in mine:
            cells.setdefault((round(pr.x / 1.5), round(max(pr.y, hy + 0.6) / 1.5)), []).append(pr)
        for key in sorted(cells):
            group = cells[key]
            gx = sum(p.x for p in group) / len(group)
            gy = max(max(p.y for p in group), hy + 0.35)
            # he stands north of them (on the side of the hall), within reach
            self.walking.walk(b, (*self.occupancy.free_spot(b, gx, gy + 0.6, COURT, b.t), COURT), "to the arrows before the 侯")
            self.moves.face(b, 180.0)
            for pr in group:
                b.gesture(b.t, b.t + self.pace.take_arrow, "take_arrow", pr.id)
                self.custody.carry(pr.id, b.id, b.t + 0.3)
                self.moves.hold(b, self.pace.take_arrow)
            b.set_state(b.t, holding=sorted({*b.state.get("holding", []), *(pr.id for pr in group)}))

    def _lay_arrows(self, b: Body, a) -> None:
        """委矢于楅: kneeling south of the rack facing north, he lays the arrows he carries on it, nocks north."""
        mine = sorted(pr.id for pr in self.props.values() if pr.kind == "矢" and pr.carrier == b.id)
        if not mine:
            return
        self.moves.posture(b, "kneel", self.pace.kneel)
        n0 = sum(1 for pr in self.props.values() if pr.kind == "矢" and pr.carrier is None
                 and abs(pr.y - self.rack.fy) < 0.1 and abs(pr.x - self.rack.fx) < 1.0)
        b.gesture(b.t, b.t + self.pace.handle, "lay_arrows", None)
        for i, ar in enumerate(mine):
            x, y, z, h = self.rack.heap(n0 + i)
            self.custody.set_down(ar, x, y, z, b.t + self.pace.handle, heading=h)
        self.moves.hold(b, self.pace.handle)
        b.set_state(b.t, holding=[h for h in b.state.get("holding", []) if h not in mine])
        self.moves.posture(b, "stand", self.pace.rise)

    def _count_arrows(self, b: Body, a) -> None:
        """司马乘之: kneeling south of the 楅, he counts the arrows off in fours with both hands (左右抚矢而
        乘之), each archer's four laid together."""
        for g, who in enumerate(self.archers):
            arrows = [ar for ar in self._my_arrows(who) if self.props[ar].carrier is None]
            if not arrows:
                continue
            t = b.t
            b.gesture(t, t + self.pace.count_arrows, "count_arrows", arrows[0])
            for k, ar in enumerate(arrows, 1):          # each moved by hand to its group
                x, y, z, h = self.rack.slot(g, k)
                self.custody.carry(ar, b.id, t + 0.3)
                self.custody.set_down(ar, x, y, z, t + self.pace.count_arrows, heading=h)
            self.moves.hold(b, self.pace.count_arrows)

    def arrange_arrows_on_rack(self) -> None:
        """At the start every arrow lies on the 楅, counted off in fours (司马乘矢如初, before the passage)."""
        for g, who in enumerate(self.archers):
            for k, ar in enumerate(self._my_arrows(who), 1):
                pr = self.props[ar]
                if pr.carrier is None and pr.keys and pr.keys[0][0] == 0.0 and \
                        math.dist((pr.x, pr.y), (self.rack.fx, self.rack.fy)) < 1.0:
                    x, y, z, h = self.rack.slot(g, k)
                    pr.x, pr.y, pr.z, pr.heading = x, y, z, h
                    pr.keys[0] = [0.0, round(x, 4), round(y, 4), round(z, 4), round(h, 2), "rest"]

    def _put_arrows(self, b: Body, a) -> None:
        """釋矢: the arrows one carries laid down together, at the place named or half a metre before him."""
        mine = [ar for ar in self._my_arrows(b.id) if self.props[ar].carrier == b.id]
        if a.place:
            x, y, level, _ = self.places.resolve(a.place, b.id)
            self.walking.approach(b, x, y, level, 0.6, f"to lay his arrows at {a.place}")
        h = math.radians(b.heading)
        x, y = b.x + 0.5 * math.sin(h), b.y + 0.5 * math.cos(h)
        z = self.reading.hall_height if b.level == "hall" else 0.0
        b.gesture(b.t, b.t + self.pace.handle, "set_down", mine[0] if mine else None)
        self.moves.hold(b, self.pace.handle)
        for i, ar in enumerate(mine):
            self.custody.set_down(ar, x + 0.03 * (i - 1.5) * math.cos(h), y - 0.03 * (i - 1.5) * math.sin(h), z + 0.01, b.t,
                          heading=b.heading)
        b.set_state(b.t, holding=[p for p in b.state.get("holding", []) if p not in mine])

    def _give_arrows(self, b: Body, a) -> None:
        """授矢: the arrows one carries handed over together (to the 有司 at 堂西)."""
        if a.other is None:
            self.fail("give_arrows needs the one who receives them (other)")
        other = self._body(a.other)
        mine = [ar for ar in self._my_arrows(b.id) if self.props[ar].carrier == b.id]
        self.handling.meet(b, other, f"to hand his arrows to {other.id}")
        b.gesture(b.t - self.pace.hand_over, b.t, "hand_over", other.id)
        other.gesture(b.t - self.pace.hand_over, b.t, "receive", mine[0] if mine else None)
        for ar in mine:
            self.custody.carry(ar, other.id, b.t)
        other.hold_until(b.t)
        b.set_state(b.t, holding=[p for p in b.state.get("holding", []) if p not in mine])
        other.set_state(b.t, holding=sorted({*other.state.get("holding", []), *mine}))
