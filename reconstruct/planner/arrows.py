"""The arrows handled besides the shooting: taken up by a pair in turn (拾取矢), three tucked in the belt and
one held on the bow (搢三挟一个), gathered at the target by the juniors (弟子取矢), laid on the 楅 nocks north
(委矢于楅) and counted off in fours (乘矢), laid down or handed over together (釋矢, 授矢).  Rules:
``shared/docs/archery-rules.md``."""
from __future__ import annotations

import math

from ..model.vocabulary import GestureKind, Posture, PropKind, PropPosture
from .archery import RackLayout
from .bodies import Body
from .custody import Custody
from .handling import Handling
from .moves import Moves
from .occupancy import Occupancy
from .places import Places
from .state import PlanState
from .walkable import COURT
from .walking import Walking


ARM = 1.1        # metres: how far from his feet one takes up or lays down an arrow
CELL = 1.0       # the arrows he takes from one spot lie within a square this wide


class Arrows:
    """Each archer's four arrows (``WHO矢1`` … ``WHO矢4``) handled one by one."""

    def __init__(self, state: PlanState, custody: Custody, moves: Moves, walking: Walking, handling: Handling,
                 occupancy: Occupancy, places: Places, archers: list[str], rack: RackLayout) -> None:
        self.state, self.custody, self.moves, self.walking = state, custody, moves, walking
        self.handling, self.occupancy, self.places = handling, occupancy, places
        self.pace, self.archers, self.rack = state.pace, archers, rack
        self._field_ids: list[str] = []        # the arrows of the gathering under way (see _field)

    def mine(self, who: str) -> list[str]:
        """His four arrows (矢1 … 矢4), those the rite has."""
        return [f"{who}矢{k}" for k in range(1, 5) if f"{who}矢{k}" in self.state.props]

    def take(self, b: Body, other: str | None = None) -> None:
        """拾取矢: with ``other`` the pair take one arrow each in turn, kneeling, four times (上射 first); alone
        he takes his four together (兼取乘矢: the 大夫 and his partner)."""
        takers = [b] if other is None else [b, self.state.body(other)]
        t = max(x.t for x in takers)
        for x in takers:
            x.hold_until(t)
        if other is None:
            self._kneel_take(b, self.mine(b.id))
            return
        for k in range(4):
            for x in takers:
                x.hold_until(max(x.t, max(y.t for y in takers)))
                arrows = self.mine(x.id)
                if k < len(arrows):
                    self._kneel_take(x, [arrows[k]])
        for x in takers:
            x.hold_until(max(y.t for y in takers))

    def _kneel_take(self, b: Body, arrows: list[str]) -> None:
        """Kneeling, he takes up arrows and rises holding them; where they lie beyond his reach he steps up to
        them first and back afterwards (上射揖進，坐…退反位)."""
        P = self.pace
        props = self.state.props
        cx = sum(props[a].x for a in arrows) / len(arrows)
        cy = sum(props[a].y for a in arrows) / len(arrows)
        d = math.hypot(cx - b.x, cy - b.y)
        step = d - ARM + 0.3 if d > ARM else 0.0
        x0, y0 = b.x, b.y
        if step:
            h = b.heading
            self.moves.nudge(b, math.degrees(math.atan2(cx - b.x, cy - b.y)), step)
            self.moves.face(b, h)
        self.moves.posture(b, Posture.KNEEL, P.kneel)
        b.gesture(b.t, b.t + P.take_arrow, GestureKind.TAKE_ARROW, arrows[0] if len(arrows) == 1 else None)
        for ar in arrows:
            self.custody.carry(ar, b.id, b.t + 0.3)
        self.moves.hold(b, P.take_arrow)
        self.moves.posture(b, Posture.STAND, P.rise)
        if step:
            # back to where he stood (退反位), not a step the other way from the arrows: the step up may have been
            # shortened or turned aside (round the 楅 itself, or round one standing near); undone as taken, he does
            # not drift a little further off his place with each arrow (with 9 衆賓 on the shallow halls, onto the
            # 司正's 薦 north of the rack)
            back = math.hypot(x0 - b.x, y0 - b.y)
            if back > 1e-9:
                self.moves.nudge(b, math.degrees(math.atan2(x0 - b.x, y0 - b.y)), back)
        b.set_state(b.t, holding=sorted({*b.state.get("holding", []), *arrows}))

    def tuck(self, b: Body) -> None:
        """搢三挟一个: three arrows in the belt, one held across the bow."""
        arrows = [ar for ar in self.mine(b.id) if self.state.props[ar].carrier == b.id]
        b.gesture(b.t, b.t + self.pace.tuck_arrows, GestureKind.TUCK_ARROWS, None)
        for i, ar in enumerate(arrows):
            self.custody.carry(ar, b.id, b.t + 0.5, PropPosture.CARRIED if i == 0 else PropPosture.TUCKED)
        self.moves.hold(b, self.pace.tuck_arrows)

    def gather(self, b: Body, share: str | None) -> None:
        """弟子取矢 at the target (``text`` = part/parts: this junior's share): every arrow of the round lying or
        stuck at the target, wherever it fell (before the 侯 or past it), is someone's share — the shares are
        drawn from all of them in a fixed order (west to east), whoever has already taken his; he walks from
        group to group, standing on the side of the hall, and takes each within arm's reach."""
        part, parts = (int(v) for v in (share or "1/1").split("/"))
        hy = self.state.reading.landmarks["侯"].position[1]
        field = self._field(hy)
        mine = [pr for pr in field[part - 1::parts] if pr.carrier is None]
        cells: dict[tuple, list] = {}
        for pr in mine:
            cells.setdefault((round(pr.x / CELL), round(pr.y / CELL)), []).append(pr)
        for key in sorted(cells):
            group = cells[key]
            gx = sum(p.x for p in group) / len(group)
            gy = sum(p.y for p in group) / len(group)
            # north of them (the side of the hall) where they lie before the 侯 or stick in it (a hit lies in
            # the target's face, within a few centimetres of its plane); past it, beside them
            before = gy >= hy - 0.15
            sy = max(gy, hy) + 0.5 if before else gy
            sx = gx if before else gx + (0.6 if gx >= 0 else -0.6)
            if before:          # on the hall's side of the target's frame, never round behind it
                sy = next((sy + d for d in (0.0, 0.3, 0.6, 0.9) if self.state.ground.is_free(COURT, sx, sy + d)), sy)
            x, y = self.occupancy.free_spot(b, sx, sy, COURT, b.t)
            if before and y < hy:
                x, y = sx, sy
            self.walking.walk(b, (x, y, COURT), "to the arrows at the 侯")
            for pr in group:
                if math.hypot(pr.x - b.x, pr.y - b.y) > ARM:
                    self.walking.approach(b, pr.x, pr.y, COURT, ARM - 0.4, f"within reach of {pr.id}")
                if math.hypot(pr.x - b.x, pr.y - b.y) > ARM:        # others stand round it: closer still
                    self.walking.approach(b, pr.x, pr.y, COURT, ARM - 0.4, f"within reach of {pr.id}", False)
                self.moves.face(b, math.degrees(math.atan2(pr.x - b.x, pr.y - b.y)) % 360)
                b.gesture(b.t, b.t + self.pace.take_arrow, GestureKind.TAKE_ARROW, pr.id)
                self.custody.carry(pr.id, b.id, b.t + 0.3)
                self.moves.hold(b, self.pace.take_arrow)
            b.set_state(b.t, holding=sorted({*b.state.get("holding", []), *(pr.id for pr in group)}))

    def _field(self, hy: float) -> list:
        """The arrows of the round at the target, in the fixed order the shares are drawn from: the same list for
        every junior of one gathering (while any of it still lies there), so that one who has already laid his
        share on the 楅 does not shift the others' shares."""
        props = self.state.props
        field = sorted((pr for pr in props.values() if pr.kind == PropKind.矢 and self._at_target(pr, hy)),
                       key=lambda pr: (round(self._lay(pr)[0], 3), pr.id))
        lying = {pr.id for pr in field if pr.carrier is None}
        if lying and lying <= set(self._field_ids):      # the same gathering: some of its arrows already taken
            return [props[a] for a in self._field_ids]
        self._field_ids = [pr.id for pr in field]
        return field

    @staticmethod
    def _lay(pr) -> tuple[float, float]:
        """Where an arrow last lay (its last key at rest): the target's field, for the shares."""
        for k in reversed(pr.keys):
            if k[5] == PropPosture.REST:
                return k[1], k[2]
        return pr.x, pr.y

    def _at_target(self, pr, hy: float) -> bool:
        """An arrow of the round still at the target, or taken from there by another junior just now."""
        x, y = self._lay(pr)
        if abs(y - hy) >= 12.0:
            return False
        return pr.carrier is None or pr.carrier not in self.archers

    def lay(self, b: Body) -> None:
        """委矢于楅: kneeling south of the rack facing north, he lays the arrows he carries on it, nocks north."""
        mine = sorted(pr.id for pr in self.state.props.values() if pr.kind == PropKind.矢 and pr.carrier == b.id)
        if not mine:
            return
        n0 = sum(1 for pr in self.state.props.values() if pr.kind == PropKind.矢 and pr.carrier is None
                 and abs(pr.y - self.rack.fy) < 0.1 and abs(pr.x - self.rack.fx) < 1.0)
        hx, hy, _, _ = self.rack.heap(n0 + len(mine) // 2)
        if math.hypot(hx - b.x, hy - b.y) > ARM:          # within reach of where they go on the rack
            self.walking.approach(b, hx, hy - 0.5, COURT, 0.3, "within reach of the 楅", False)
            self.moves.face(b, 0.0)
        if math.hypot(hx - b.x, hy - b.y) > ARM:
            # the junior before him still kneels there laying his: he has stood aside of him, and steps up to the
            # rack once that one has gone (he lays them from within reach, not from where he waited)
            self.walking.walk(b, (hx, hy - 0.8, COURT), "up to the 楅 once the one before him has gone")
            self.moves.face(b, 0.0)
        spots = [self.rack.heap(n0 + i)[:2] for i in range(len(mine))]
        if max(math.hypot(x - b.x, y - b.y) for x, y in spots) > ARM:
            # many arrows (27 衆賓): his share runs past the rack's end and on from its west end behind; he kneels
            # before the middle of the rack's length they take, within reach of both ends
            xs = [x for x, _ in spots]
            cx, cy = (min(xs) + max(xs)) / 2, max(y for _, y in spots)
            self.walking.approach(b, cx, cy - 0.5, COURT, 0.2, "within reach of both ends of his share on the 楅",
                                  False)
            self.moves.face(b, 0.0)
        self.moves.posture(b, Posture.KNEEL, self.pace.kneel)
        b.gesture(b.t, b.t + self.pace.handle, GestureKind.LAY_ARROWS, None)
        for i, ar in enumerate(mine):
            x, y, z, h = self.rack.heap(n0 + i)
            self.custody.set_down(ar, x, y, z, b.t + self.pace.handle, heading=h)
        self.moves.hold(b, self.pace.handle)
        b.set_state(b.t, holding=[h for h in b.state.get("holding", []) if h not in mine])
        self.moves.posture(b, Posture.STAND, self.pace.rise)

    def count(self, b: Body) -> None:
        """司马乘之: kneeling south of the 楅, he counts the arrows off in fours with both hands (左右抚矢而
        乘之), each archer's four laid together."""
        for g, who in enumerate(self.archers):
            arrows = [ar for ar in self.mine(who) if self.state.props[ar].carrier is None and self.on_rack(ar)]
            if not arrows:
                continue
            t = b.t
            b.gesture(t, t + self.pace.count_arrows, GestureKind.COUNT_ARROWS, arrows[0])
            for k, ar in enumerate(arrows, 1):          # each moved by hand to its group
                x, y, z, h = self.rack.slot(g, k)
                self.custody.carry(ar, b.id, t + 0.3)
                self.custody.set_down(ar, x, y, z, t + self.pace.count_arrows, heading=h)
            self.moves.hold(b, self.pace.count_arrows)

    def on_rack(self, arrow: str) -> bool:
        """Whether an arrow lies on the 楅 (laid there in the heap or counted off in fours), not elsewhere: the
        arrows of those who did not shoot (the 賓's against the 西序 in the first round) are not counted."""
        pr = self.state.props[arrow]
        return abs(pr.x - self.rack.fx) < 0.75 and abs(pr.y - self.rack.fy) < 0.1

    def arrange_on_rack(self) -> None:
        """At the start every arrow lies on the 楅, counted off in fours (司马乘矢如初, before the passage)."""
        for g, who in enumerate(self.archers):
            for k, ar in enumerate(self.mine(who), 1):
                pr = self.state.props[ar]
                if pr.carrier is None and pr.keys and pr.keys[0][0] == 0.0 and \
                        math.dist((pr.x, pr.y), (self.rack.fx, self.rack.fy)) < 1.0:
                    x, y, z, h = self.rack.slot(g, k)
                    pr.x, pr.y, pr.z, pr.heading = x, y, z, h
                    pr.keys[0] = [0.0, round(x, 4), round(y, 4), round(z, 4), round(h, 2), PropPosture.REST]

    def put(self, b: Body, place: str | None = None) -> None:
        """釋矢: the arrows one carries laid down together, at the place named or half a metre before him."""
        mine = [ar for ar in self.mine(b.id) if self.state.props[ar].carrier == b.id]
        if place:
            x, y, level, _ = self.places.resolve(place, b.id)
            self.walking.approach(b, x, y, level, 0.6, f"to lay his arrows at {place}")
        h = math.radians(b.heading)
        x, y = b.x + 0.5 * math.sin(h), b.y + 0.5 * math.cos(h)
        z = self.state.reading.hall_height if b.level == "hall" else 0.0
        b.gesture(b.t, b.t + self.pace.handle, GestureKind.SET_DOWN, mine[0] if mine else None)
        self.moves.hold(b, self.pace.handle)
        for i, ar in enumerate(mine):
            self.custody.set_down(ar, x + 0.03 * (i - 1.5) * math.cos(h), y - 0.03 * (i - 1.5) * math.sin(h), z + 0.01, b.t,
                          heading=b.heading)
        b.set_state(b.t, holding=[p for p in b.state.get("holding", []) if p not in mine])

    def give(self, b: Body, other: str | None) -> None:
        """授矢: the arrows one carries handed over together (to the 有司 at 堂西)."""
        if other is None:
            self.state.fail("give_arrows needs the one who receives them (other)")
        other = self.state.body(other)
        mine = [ar for ar in self.mine(b.id) if self.state.props[ar].carrier == b.id]
        self.handling.meet(b, other, f"to hand his arrows to {other.id}")
        b.gesture(b.t - self.pace.hand_over, b.t, GestureKind.HAND_OVER, other.id)
        other.gesture(b.t - self.pace.hand_over, b.t, GestureKind.RECEIVE, mine[0] if mine else None)
        for ar in mine:
            self.custody.carry(ar, other.id, b.t)
        other.hold_until(b.t)
        b.set_state(b.t, holding=[p for p in b.state.get("holding", []) if p not in mine])
        other.set_state(b.t, holding=sorted({*other.state.get("holding", []), *mine}))
