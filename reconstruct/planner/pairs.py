"""The pairs who walk together: the archers' pairs (耦: the 下射 walks abreast of his 上射, catches up with him,
and climbs a step behind him, 上射先升三等，下射從之中等), and one led by the hand (弟子相工), who walks beside
the one who leads him, or a step behind him."""
from __future__ import annotations

import math

import numpy as np
import shapely
from shapely.geometry import LineString

from ..model.vocabulary import Posture
from .bodies import Body
from .geometry import _too_close
from .occupancy import DELAYS, GAP, SAME_LEVEL, Occupancy
from .routes import Routes, Way
from .state import LastWalk, PlanState
from .timing import from_here, time_path
from .walkable import COURT, HALL

LEAD_STEP = 0.9         # seconds: one led by the hand a step behind the one who leads him
SIDE_BY_SIDE = 1.6      # m: a pair standing this near (in the file, at their marks) set out abreast


class Pairs:
    """Who walks with whom (the 下射 → his 上射; one led by the hand → the one who leads him), and the ways
    a pair walk together, timed against everyone else (:class:`.Occupancy`)."""

    def __init__(self, state: PlanState, occupancy: Occupancy, routes: Routes,
                 partner: dict[str, str] | None = None) -> None:
        self.state, self.occupancy, self.routes = state, occupancy, routes
        self.partner: dict[str, str] = dict(partner or {})    # who walks with whom → the one he follows
        self.leading: dict[str, list] = {}      # who is led by the hand → the open ``lead`` gesture

    # -- who walks with whom
    def partner_of(self, who: str) -> str | None:
        """The one he walks with (his 上射, or the one who leads him by the hand), or None."""
        return self.partner.get(who)

    def is_led(self, who: str) -> bool:
        """Whether he is led by the hand now."""
        return who in self.leading

    def led_by(self, who: str) -> list[str]:
        """Those he leads by the hand now."""
        return [led for led in self.leading if self.partner.get(led) == who]

    def take_by_hand(self, leader: str, led: str, gesture: list) -> None:
        """From now the one led walks with the leader (``gesture``: the leader's open ``lead`` record)."""
        if self.partner.get(led) not in (None, leader):
            self.state.fail(f"{led} is already walking with {self.partner[led]}")
        self.partner[led] = leader
        self.leading[led] = gesture

    def let_go(self, leader: str, led: str) -> list:
        """The hand let go: he walks on his own again; returns the leader's ``lead`` record (to be closed)."""
        g = self.leading.pop(led, None)
        if g is None or self.partner.get(led) != leader:
            self.state.fail(f"{leader} does not lead {led}")
        del self.partner[led]
        return g

    # -- walking together
    def catch_up(self, body: Body, side_plan, j: int, found, t_go: float):
        """A 下射 setting out beside his 上射 comes to his side when the 上射 passes there: the way to
        the side is walked a little faster (up to 1.5 m/s) when he would otherwise trail behind, if that
        meets nobody.  Returns ``found`` (delay, timed), adjusted or as it was."""
        delay, timed = found
        jx, jy = side_plan[j][0], side_plan[j][1]
        k = next((i for i, p in enumerate(timed) if abs(p[1] - jx) < 1e-6 and abs(p[2] - jy) < 1e-6), None)
        walk0 = next((i for i, p in enumerate(timed) if math.hypot(p[1] - body.x, p[2] - body.y) > 1e-6), None)
        if k is None or walk0 is None or k < walk0:
            return found
        up = self.state.bodies[self.partner[body.id]]
        ts = np.arange(t_go, timed[-1][0] + 0.05, 0.1)
        u = np.asarray([self.occupancy.position_at(up, t) for t in ts])
        t_up = float(ts[int(np.argmin(np.hypot(u[:, 0] - jx, u[:, 1] - jy)))])
        late = timed[k][0] - t_up
        t_a = timed[walk0 - 1][0] if walk0 else t_go + delay
        steps = [(math.dist(timed[i - 1][1:3] if i else (body.x, body.y), timed[i][1:3]),
                  timed[i][0] - (timed[i - 1][0] if i else t_a)) for i in range(walk0, k + 1)]   # (metres, s)
        length = sum(d for d, _ in steps)
        span = timed[k][0] - t_a
        if late < 0.2 or span <= 0 or length <= 0:
            return found
        # no stretch faster than 1.5 m/s (turns in place are shortened too, so the average is not enough)
        fastest = max((d / dt for d, dt in steps if dt > 1e-9), default=0.0)
        new_span = max(span - late, length / 1.5, span * fastest / 1.5)
        if new_span >= span - 1e-6:
            return found
        f = new_span / span
        shift = span - new_span
        adj = [((t_a + (t - t_a) * f) if i <= k and t > t_a else (t - shift if i > k else t), x, y, z, h)
               for i, (t, x, y, z, h) in enumerate(timed)]
        pts = from_here(body, t_go + delay, adj)
        if self.occupancy.conflict(body, pts) or self.occupancy.standing_conflict(body, pts[-1], self.occupancy.tail_end(pts[-1][0])):
            return found
        return delay, adj

    def ahead_on_stairs(self, who: str) -> str | None:
        """Whom he follows up or down a stair: his 上射 (下射從之), or, an 上射 whose 下射 goes first
        (勝者先升 at the forfeit, the 下射 having won: 揖如升射, and the loser follows him up), that 下射."""
        up = self.partner.get(who)
        if up is not None:
            return up
        downs = [d for d, u in self.partner.items() if u == who and d not in self.leading]
        return downs[0] if len(downs) == 1 else None

    def partner_walk(self, b: Body, up: str | None = None) -> LastWalk | None:
        """The last walk of a 下射's 上射 (or of ``up``) if it belongs to the event being planned (event,
        set-out time, start, corners, index of its first key), else None."""
        up = up or self.partner.get(b.id)
        last = self.state.walks.get(up) if up else None
        if last is None or self.state.current is None or last.event != self.state.current.id:
            return None
        return last

    def lane_at_foot(self, b: Body, st) -> float | None:
        """A pair standing side by side at a stair's foot (及階揖, then 升): the lane on this one's side of
        the stair's middle (the 上射 on the left, west), so that neither crosses in front of the other going
        up, one step empty between them (下射從之中等), and the 上射, up first, steps a little left (少左)
        for the 下射 to come up on his right (並行).  None when he does not stand there with his partner."""
        g = self.state.ground
        fy = g.foot(st)[1]
        if not (abs(b.x - st.x) < st.width / 2 and fy - 0.6 <= b.y <= -st.run):
            return None
        mates = [m for m in (self.partner.get(b.id), *[d for d, u in self.partner.items() if u == b.id])
                 if m is not None and m not in self.leading]
        for m in mates:
            # where he stood as this one is to go up, or as he set out himself, gone up ahead of him
            last = self.partner_walk(b, m)
            t = min(b.t, last[1]) if last is not None else b.t
            ox, oy, oz = self.occupancy.position_at(self.state.bodies[m], t)[:3]
            if oz < 0.05 and abs(ox - st.x) < st.width / 2 and fy - 0.6 <= oy <= -st.run \
                    and math.dist((ox, oy), (b.x, b.y)) < 1.2:
                return math.copysign(abs(g.lane(st, True)), b.x - ox)
        return None

    def partner_third_step(self, b: Body, st, down: bool = False) -> float | None:
        """When a 下射's 上射 (or the one who goes up first) has just gone up (or down) this stair in this
        event: the time the 上射 stepped onto his third step (上射先升三等 / 降三等), so that the 下射 steps
        onto his first then, one step between them (下射從之中等).  None otherwise."""
        up = self.ahead_on_stairs(b.id)
        if up is None:
            return None
        # he steps onto his first step as the one ahead reaches his third: one empty step between them
        # (鄭: 中猶間也)
        k = min(3, st.steps)
        return self.stepped_onto(up, st.steps - k + 1 if down else k, (st,))

    def stepped_onto(self, who: str, k: int, stairs=None) -> float | None:
        """When ``who``, gone up (or down) a stair in the event being planned, stepped onto its k-th step from
        the foot (of ``stairs``; any stair by default: the host goes up the 阼階 as the guest the 西階), or None
        if he has not."""
        last = self.partner_walk(self.state.bodies[who], who)
        if last is None:
            return None
        for key in self.state.bodies[who].keys[last[4]:]:
            for st in stairs or self.state.reading.stairs.values():
                if abs(key[1] - st.x) <= st.width / 2 and key[2] < 0 and abs(key[3] - k * st.rise) < 1e-3:
                    return key[0]
        return None

    def too_near(self, mine, his) -> bool:
        """Whether two timed ways [(t, x, y, z)] (a pair's, walking together) come within the gap of each
        other: beside each other they keep it; stepping into their places one must not cut past the other."""
        a, b = np.asarray(mine, float), np.asarray(his, float)
        t0, t1 = max(a[0, 0], b[0, 0]), min(a[-1, 0], b[-1, 0])
        if t1 <= t0:
            t0 = t1 = max(a[-1, 0], b[-1, 0])
        ts = np.arange(t0, t1 + 1e-9, 0.1) if t1 > t0 else np.asarray([t0])
        ts = np.r_[ts, max(a[-1, 0], b[-1, 0])]          # and where both stand in the end
        ax, ay, az = (np.interp(ts, a[:, 0], a[:, j]) for j in (1, 2, 3))
        bx, by, bz = (np.interp(ts, b[:, 0], b[:, j]) for j in (1, 2, 3))
        return bool(_too_close(ax - bx, ay - by, np.abs(az - bz) < SAME_LEVEL, GAP).any())

    def delay_pair(self, body: Body, side_plan, t_go: float):
        """Plan a pair together: when the 下射 cannot set out beside his 上射 as the 上射 was planned, both
        set out a little later, if nothing else the 上射 did since depends on the time (he only walked,
        turned or stood).  Returns (delay, timed) for the 下射 from t_go, or None."""
        up = self.state.bodies[self.partner[body.id]]
        ev, t_up, start, up_plan, n = self.state.walks[up.id]
        later = up.keys[n:]
        walked = [i for i, k in enumerate(later) if k[5] == Posture.WALK]
        if (n < 1 or not walked or (up.states and up.states[-1][0] >= t_up - 1e-6)
                or any(k[1:4] != later[-1][1:4] for k in later[walked[-1] + 1:])):
            return None
        xy = np.asarray([(x, y) for x, y, *_ in [*up_plan, *side_plan]] + [(body.x, body.y), start])
        among = [b for b in self.occupancy.near_tracks(body, xy.min(0), xy.max(0), t_go, self.occupancy.tail_end(t_go + 30.0))
                 if b is not up]
        delays = DELAYS[1:12]
        # who can meet either of them on the way, over every wait tried (the walks only shift in time)
        up_way = np.asarray([k[1:3] for k in up.keys[n - 1:]], float)
        up_meet = [b for b, _ in self.occupancy.may_meet(up, up_way, among, up.keys[n - 1][0] - 1.0,
                                                later[-1][0] + delays[-1] + 1.0)]
        now = time_path(self.state.pace, body, side_plan, t_go)          # setting out at once
        my_way = np.asarray([p[1:3] for p in from_here(body, t_go, now)], float)
        my_meet = [b for b, _ in self.occupancy.may_meet(body, my_way, among, t_go + delays[0] - 1.0,
                                                now[-1][0] + delays[-1] + 1.0)]
        for delay in delays:
            up_pts = [(up.keys[n - 1][0], *up.keys[n - 1][1:4])] + [(k[0] + delay, *k[1:4]) for k in later]
            if self.occupancy.conflict(up, up_pts, up_meet) or self.occupancy.standing_conflict(
                    up, up_pts[-1], self.occupancy.tail_end(up_pts[-1][0]), among):
                continue
            timed = time_path(self.state.pace, body, side_plan, t_go + delay)
            pts = from_here(body, t_go + delay, timed)
            if self.occupancy.conflict(body, pts, my_meet) or self.occupancy.standing_conflict(
                    body, pts[-1], self.occupancy.tail_end(pts[-1][0]), among) or self.too_near(pts, up_pts):
                continue
            up.shift(n, delay)
            up.t += delay
            self.state.walks[up.id] = LastWalk(ev, t_up + delay, start, up_plan, n)
            self.state.explain.append(f"  {up.id} sets out {delay:.1f} s later, with {body.id}")
            return delay, timed
        return None

    def abreast(self, body: Body, plan, goal, apart: float = 0.6) -> tuple[list, float, int, str] | None:
        """A 下射 walking with his 上射 (耦…並行): the 上射's way, 0.6 m to its right, when both set out
        together from side by side to places side by side on one level."""
        last = self.partner_walk(body)
        if last is None:
            return None
        _, t_up, up_start, up_plan, _ = last
        if abs(t_up - body.t) > 3.0 or not up_plan or any(k not in (COURT, HALL) for *_, k in up_plan):
            return None
        end = up_plan[-1]
        level = up_plan[-1][3]
        # side by side when they set out (at their marks, in the file): not from across the 楅 or a stair
        if body.level != level or math.dist(up_start, (body.x, body.y)) > SIDE_BY_SIDE or math.dist(end[:2], goal[:2]) > 2.5:
            return None

        line = LineString([up_start] + [(x, y) for x, y, _, _ in up_plan])
        # on the side where his own place lies: walking north to the 物 the 下射 is on the right
        # (the 上射 on the left, to the west); walking west to the 射位 (北上) he is on the left
        prev = up_plan[-2][:2] if len(up_plan) > 1 else up_start
        fx, fy = end[0] - prev[0], end[1] - prev[1]
        right = (goal[0] - end[0]) * fy - (goal[1] - end[1]) * fx
        which = "right" if right >= 0 else "left"
        side = line.offset_curve(-apart if right >= 0 else apart, join_style="mitre", mitre_limit=2.0)
        if side.is_empty or side.geom_type != "LineString":
            return None
        # join him at his side where he will be when one gets there (both walk at one pace), keep
        # beside him, then step to one's own place
        along = np.linspace(0.0, min(side.length, 6.0), 61)
        at = shapely.get_coordinates(shapely.line_interpolate_point(side, along)).tolist()   # (side.interpolate, all at once)
        join = along[min(range(len(along)), key=lambda k: abs(math.dist((body.x, body.y), at[k]) - along[k]))]
        rest = [c for c in side.coords if side.project(shapely.Point(c)) > join + 1e-6]
        pts = [side.interpolate(join).coords[0], *rest]
        way = LineString([(body.x, body.y), *pts, goal[:2]])
        if not shapely.covers(self.state.ground.levels[level].prepared, way):
            return None                # the side way runs into a wall or a fixture
        if self.occupancy.crosses_dishes(level, way.coords):
            return None                # … or over a dish lying there (義疏, f4.yirang: 众宾3 beside 众宾2 over his 薦)
        # to his side round anyone standing near (not through them)
        lead = self.routes.route(body, level, (body.x, body.y), pts[0], body.t)[1:-1]
        pts = [*lead, *pts]
        z = plan[-1][2]
        # the way, when to set out, the index of the point where he comes beside him, and on which side
        return ([(x, y, z, level) for x, y in pts] + [(goal[0], goal[1], z, level)], max(body.t, t_up), len(lead),
                which)

    def walk_behind(self, b: Body, w: Way, first_only: bool = False):
        """One led by the hand (相工; tried first for his own place, then beside the leader, then a step behind
        him): a step behind the one who leads him on his very way, setting out as he has gone a step,
        to his own place, or where that lies past the leader, to a step behind him (``first_only``: not the
        other if the first cannot be reached).  Returns (delay from when he could set out, timed way), or None."""
        last = self.partner_walk(b)
        if last is None:
            return None
        _, t_up, up_start, up_plan, _ = last
        if not up_plan or math.dist(up_start, (b.x, b.y)) > 2.5 or math.dist(up_plan[-1][:2], w.legs[-1][:2]) > 2.5:
            return None
        gx, gy, glevel = w.legs[-1]
        if up_plan[-1][3] != glevel:
            # the leader's last way ends on another level than this one (he has come up to the stair's head and
            # not yet gone down it): no way of his to follow
            return None
        level = b.level if b.level in (COURT, HALL) else glevel
        way = [(up_start[0], up_start[1], b.z, level), *up_plan[:-1]]
        # a step behind him on his way: he sets out for the leader's first spot as the leader leaves it, so as
        # to be there a step after him (右手相: the hand held), not a step after him plus the way to it
        leg = math.dist((b.x, b.y), up_start) / (self.state.pace.hall if b.level == HALL else self.state.pace.court)
        t_go = max(w.t0, t_up + LEAD_STEP - leg)
        goals = [(gx, gy), self.step_behind(up_start, up_plan)]
        prev = up_plan[-2][:2] if len(up_plan) > 1 else up_start
        on_his_way = LineString([prev, up_plan[-1][:2]]).distance(shapely.Point(gx, gy)) < 0.3
        if math.dist((gx, gy), up_plan[-1][:2]) > 1.2 and not on_his_way:
            goals.reverse()             # his own place lies away from the leader's: stay a step behind him
            # (unless it lies on the leader's last stretch, short of where he stops: the 工's place in the file
            # below, the junior going on to stand behind it, 弟子相工如初入…西面北上)
        if first_only:
            goals = goals[:1]
        for goal in goals:
            # his own goal as the verb chose it, or a step behind the leader; up or down a stair either may lie in
            # its lane (one pace onto the hall from its head, or on its top step behind the one who leads him)
            if goal is None or not (self.state.ground.is_free(glevel, goal[0], goal[1]) if goal == (gx, gy) or w.stair
                                    else self.occupancy.fits(glevel, goal[0], goal[1])):
                continue
            plan = [*way, (goal[0], goal[1], up_plan[-1][2], glevel)]
            found = self.occupancy.first_clear(b, plan, t_go, tail=True, delays=DELAYS[:8])
            if found is not None:
                w.plan = plan
                w.why += f", a step behind {self.partner[b.id]}, led by the hand"
                return found[0] + t_go - w.t0, found[1]
        return None

    @staticmethod
    def step_behind(start, plan, step: float = 0.8):
        """The point a step back from the end of a way (start, then corners (x, y, z, kind)), on the way."""
        pts = [tuple(start[:2]), *[(p[0], p[1]) for p in plan]]
        left = step
        for (ax, ay), (bx, by) in zip(reversed(pts[:-1]), reversed(pts[1:])):
            d = math.hypot(bx - ax, by - ay)
            if d >= left:
                f = left / d
                return bx + (ax - bx) * f, by + (ay - by) * f
            left -= d
        return None
