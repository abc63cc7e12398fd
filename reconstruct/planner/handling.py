"""Things handled: taken up where they lie or received from someone, set down (on a stand or at its foot),
handed over; the hand-over itself (two come within arm's reach, facing as the text says)."""
from __future__ import annotations

import math

from ..model.vocabulary import SET_OUT, GestureKind, Posture, PropKind
from .bodies import Body
from .custody import Custody
from .geometry import _bearing, _turn_delta
from .moves import Moves
from .places import Places
from .state import PlanState
from .walkable import COURT, HALL, STAIR
from .walking import Walking

# how far one kneeling reaches without getting up (leaning forward from the heels)
KNEEL_REACH = 1.25
# how far apart two stand to hand something over: face to face, both holding a thing before the
# chest, their outlines just clear; the arms reach halfway across
HAND_REACH = 0.8
# how far from his feet one takes up or sets down a thing; two who hand something over stand no further apart
REACH = 1.1
SHORT_OF = 0.25     # a thing set down further than this short of its place: he first comes up closer
# one takes up or sets down a thing before him, the hands reaching forward: one whose thing lies further round
# than this from the way he faces turns to it first (the 獲者 laying his 旌 west of him while facing east)
TURN_TO_THING = 75.0
HAND_GAP = 1.5
# the farthest apart two standing may be as a thing passes from hand to hand: each holds it out at arm's length
# (the arm some 0.6 m from the shoulder), the rest of the way the other comes
HANDS_MEET = 1.2
# the height of the top of a stand one sets things on (丰: 形蓋似豆而卑, 鄭; its top 0.47 m up)
TOPS = {PropKind.丰: 0.47}


class Handling:
    """Taking, setting down and handing over props, each with the walk and the wait it needs."""

    def __init__(self, state: PlanState, walking: Walking, moves: Moves, custody: Custody,
                 places: Places) -> None:
        self.state, self.walking, self.moves, self.custody, self.places = state, walking, moves, custody, places
        self.pace = state.pace

    def take(self, b: Body, prop: str | None) -> None:
        """取 / 受: take a prop up where it lies (walking up to it, or leaning to it kneeling), or receive it
        from the one who holds it (a hand-over); without a prop, a moment's handling."""
        P = self.pace
        if prop is None:
            self.moves.hold(b, P.handle)
            return
        pr = self.state.props.get(prop)
        if pr is None:
            self.state.fail(f"unknown prop {prop}")
        if pr.carrier == b.id:
            self.moves.hold(b, 0.3)
            return
        if pr.carrier is not None:
            giver = self.state.bodies[pr.carrier]
            self.meet(b, giver, f"to receive the {prop} from {pr.carrier}")
            b.gesture(b.t - P.hand_over, b.t, GestureKind.RECEIVE, prop)
            giver.gesture(b.t - P.hand_over, b.t, GestureKind.HAND_OVER, b.id)
            giver.hold_until(b.t)
            self.custody.hold_things(giver, b.t, remove=prop)
        else:
            level = self.state.ground.level_of_height(pr.z)
            self.reach(b, pr.x, pr.y, level, 0.6, f"to take the {prop}")
            if not self._leaning(b, pr.x, pr.y, level) and math.hypot(pr.x - b.x, pr.y - b.y) > REACH:
                # the spot beside it was taken: closer still (not one kneeling who leans to it: the 舉觶者 who set
                # his cup down before him, stepped back to bow and takes it up again, 奠觶，拜，執觶興)
                self.walking.approach(b, pr.x, pr.y, level, 0.6, f"within reach of the {prop}", False)
            self._turn_to(b, pr.x, pr.y)
            b.gesture(b.t, b.t + P.handle, GestureKind.TAKE, prop)
            self.moves.hold(b, P.handle)
        self.custody.carry(prop, b.id, b.t)
        self.custody.hold_things(b, b.t, add=prop)

    def _turn_to(self, b: Body, x: float, y: float) -> None:
        """Turn to a thing about to be taken up or set down when it lies behind or beside him (further round
        than ``TURN_TO_THING``): the hands reach forward to it, not back through the body."""
        dx, dy = x - b.x, y - b.y
        if math.hypot(dx, dy) < 0.2:
            return
        stated = self._stated_now(b)
        if stated is not None and abs(_turn_delta(stated, b.heading)) < 1.0:
            return      # the text says how he faces as he does it (北面坐取): he keeps that facing
        bearing = _bearing(dx, dy)
        if abs(_turn_delta(b.heading, bearing)) > TURN_TO_THING:
            self.moves.face(b, bearing)

    def _stated_now(self, b: Body) -> float | None:
        """The facing the text gives him in the event being planned (北面拜受, 北面坐取), or None."""
        ev, h = self.state.stated.get(b.id, ("", None))
        return h if self.state.current is not None and ev == self.state.current.id else None

    def reach(self, b: Body, x: float, y: float, level: str, within: float, why: str) -> None:
        """Come within reach of a spot: kneeling (坐取, 坐奠, 不興), one leans to it without rising when it
        lies within ``KNEEL_REACH``; otherwise one walks up to it."""
        if not self._leaning(b, x, y, level):
            self.walking.approach(b, x, y, level, within, why)

    @staticmethod
    def _leaning(b: Body, x: float, y: float, level: str) -> bool:
        """Whether one kneeling reaches a spot by leaning to it, without rising (within ``KNEEL_REACH``)."""
        blevel = b.level if b.level != STAIR else HALL
        return b.posture == Posture.KNEEL and blevel == level and math.hypot(x - b.x, y - b.y) <= KNEEL_REACH

    def put(self, b: Body, prop: str | None, place: str | None = None) -> None:
        """奠 / 設: set a prop down at a place (on a stand's top, or at its foot: 丰上, 丰下), or half a
        metre before him; one sets down only what one has: he takes it up (or receives it) first."""
        P = self.pace
        if prop is None:
            self.moves.hold(b, P.handle)
            return
        if prop not in self.state.props:
            self.state.fail(f"unknown prop {prop}")
        if self.state.props[prop].carrier != b.id:
            self.take(b, prop)        # one sets down only what one has: pick it up (or receive it) first
        on = 0.0
        own = self.state.reading.landmarks.get(prop) if place == prop else None
        if place:
            if own is not None:       # its own place: the landmark, not where it is now (in his hands)
                x, y = float(own.position[0]), float(own.position[1])
                level = HALL if abs(own.position[2] - self.state.reading.hall_height) < 0.05 else COURT
            else:
                x, y, level, _ = self.places.resolve(place, b.id)
                x, y, on = self.on_or_below(place, x, y, b)
            self.reach(b, x, y, level, 0.6, f"to set the {prop} at {place}")
            d = math.hypot(x - b.x, y - b.y)
            if d > REACH + SHORT_OF and own is None and b.posture != Posture.KNEEL and level == HALL:
                # on the hall, where the text names places closely (the cup set back 薦西: 反奠于賓), the roomy
                # spot he came to (one leaving an aisle) leaves the place well out of his reach: he comes up
                # closer, within reach, as one does to hand a thing over
                self.walking.approach(b, x, y, level, 0.6, f"to set the {prop} at {place}", roomy=False)
                d = math.hypot(x - b.x, y - b.y)
            if d > REACH and own is None:             # those standing there leave him no nearer: it is set down within reach
                x, y = b.x + (x - b.x) * REACH / d, b.y + (y - b.y) * REACH / d
                self.state.explain.append(f"  {b.id} sets the {prop} down {d - REACH:.1f} m short of {place}: "
                                          "no nearer spot is free")
        else:
            h = math.radians(b.heading)
            x, y = b.x + 0.5 * math.sin(h), b.y + 0.5 * math.cos(h)
            level = b.level if b.level != STAIR else HALL
        heading = None
        if own is not None:           # a thing laid at its own place (乃席賓, 設洗 …): there it is the fixture
            x, y, heading = float(own.position[0]), float(own.position[1]), own.heading or 0.0
        elif on:                      # on a thing set out at its landmark (the 冪 over the 尊): lying as it lies
            under = self.state.reading.landmarks.get(place.removesuffix("上"))
            if under is not None and self.state.props[place.removesuffix("上")].kind in SET_OUT:
                heading = under.heading or 0.0
        self._turn_to(b, x, y)
        b.gesture(b.t, b.t + P.handle, GestureKind.SET_DOWN, prop)
        self.moves.hold(b, P.handle)
        z = (self.state.reading.hall_height if level == HALL else 0.0) + on
        self.custody.set_down(prop, x, y, z, b.t, heading)
        self.custody.hold_things(b, b.t, remove=prop)

    def on_or_below(self, place: str, x: float, y: float, b: Body) -> tuple[float, float, float]:
        """Setting a thing at a stand (a prop such as the 丰): on its top (丰上, or the stand named alone),
        or at its foot on the side of the one who sets it down (丰下); (x, y, height above the floor)."""
        base = place[:-1] if place.endswith(("上", "下")) else place
        pr = self.state.props.get(base)
        top = None if pr is None or pr.carrier is not None else self.top_of(base)
        if top is None:
            return x, y, 0.0
        if place.endswith("下"):
            d = math.hypot(b.x - pr.x, b.y - pr.y) or 1.0
            return pr.x + 0.28 * (b.x - pr.x) / d, pr.y + 0.28 * (b.y - pr.y) / d, 0.0
        return pr.x, pr.y, top

    def top_of(self, prop: str) -> float | None:
        """How high above the floor a thing set on the prop lies: a stand's top (TOPS), or the top of a thing
        set out at its landmark (the 尊: its 冪 laid over the jars' mouths) at the height the reading gives it."""
        pr = self.state.props[prop]
        if pr.kind in TOPS:
            return TOPS[pr.kind]
        lm = self.state.reading.landmarks.get(prop) if pr.kind in SET_OUT else None
        return float(lm.size[2]) if lm is not None and lm.size is not None else None

    def keep_stated_facing(self, b: Body) -> None:
        """Hand-overs are done facing the way the text says (北面拜受, 西面拜送), not face to face."""
        h = self._stated_now(b)
        if h is not None:
            self.moves.face(b, h)

    def meet(self, b: Body, other: Body, why: str, roomy: bool = True) -> None:
        """A hand-over: come within arm's reach (``HAND_REACH``) of the other, wait for him, hand over.
        One who kneels (迭飲於坐) reaches from where he kneels to one who has come up to him.  ``roomy``:
        where the spot within reach is taken, one a little further that leaves room to pass (see
        :meth:`.Occupancy.free_spot`); else the nearest free spot, as one who takes another by the hand must."""
        if self._over_the_stair_head(b, other, why):
            self.keep_stated_facing(b)
            self.moves.hold(b, self.pace.hand_over)
            return
        level = other.level if other.level != STAIR else HALL
        if not (b.posture == Posture.KNEEL and math.hypot(other.x - b.x, other.y - b.y) <= KNEEL_REACH):
            self.walking.approach(b, other.x, other.y, level, HAND_REACH, why, roomy)
            if roomy and other.posture == Posture.KNEEL and math.hypot(other.x - b.x, other.y - b.y) > HAND_GAP:
                # the roomy spot lies beyond the reach of one who kneels and does not rise to him (迭飲於坐,
                # the dishes before his mat): the nearest free spot within reach instead
                self.walking.approach(b, other.x, other.y, level, HAND_REACH, why, False)
        b.hold_until(max(b.t, other.t))
        if math.hypot(other.x - b.x, other.y - b.y) > HANDS_MEET and other.posture != Posture.KNEEL:
            # no free spot within reach of him: he comes the rest of the way (the hands must meet)
            self.walking.approach(other, b.x, b.y, level, HAND_REACH, f"to meet {b.id}'s hand-over", False)
            b.hold_until(max(b.t, other.t))
        self.keep_stated_facing(b)
        self.moves.hold(b, self.pace.hand_over)

    def _over_the_stair_head(self, b: Body, other: Body, why: str) -> bool:
        """One of the two stands on a stair's top step and does not step onto the hall (笙一人…盡階不升堂受爵;
        記: 其笙，則獻諸西階上): the one on the hall comes to the stair's head right above him, where the lane
        he came up by meets the hall, and the thing passes over the hall's edge; the one on the stair stays
        there.  (The head of a stair is otherwise kept clear of those who stop: here the stair is his.)
        False when neither, or both, stand on a stair."""
        up, on_hall = (other, b) if other.level == STAIR else (b, other) if b.level == STAIR else (None, None)
        if up is None or on_hall.level != HALL:
            return False
        st = min(self.state.reading.stairs.values(), key=lambda s: abs(s.x - up.x))
        hx, hy = self.state.ground.head(st, up.x - st.x)
        if math.hypot(hx - on_hall.x, hy - on_hall.y) > 0.05:
            on_hall.hold_until(up.t)        # once he is up: the head is the top of the lane he climbs by
            self.walking.walk(on_hall, (hx, hy, HALL), f"to the head of the {st.id}, above {up.id} on its top step")
        self.moves.face(on_hall, _bearing(up.x - on_hall.x, up.y - on_hall.y))
        b.hold_until(max(b.t, other.t))
        if math.hypot(up.x - on_hall.x, up.y - on_hall.y) > HANDS_MEET:
            self.state.fail(f"{on_hall.id} cannot come within reach of {up.id} on the {st.id}: "
                            f"{math.hypot(up.x - on_hall.x, up.y - on_hall.y):.2f} m apart")
        return True

    def give(self, b: Body, other_name: str | None, prop: str | None) -> None:
        """授: hand a prop (or nothing in particular) to another, who receives it."""
        if other_name is None:
            self.state.fail("give needs the person who receives")
        other = self.state.body(other_name)
        if prop and prop not in self.state.props:
            self.state.fail(f"unknown prop {prop}")
        if prop and self.state.props[prop].carrier == other.id:
            b.hold_until(other.t)          # he has received it already (受, written before 授): one hand-over
            return
        self.meet(b, other, f"to hand over to {other.id}")
        b.gesture(b.t - self.pace.hand_over, b.t, GestureKind.HAND_OVER, other.id)
        if prop:
            other.gesture(b.t - self.pace.hand_over, b.t, GestureKind.RECEIVE, prop)
            self.custody.carry(prop, other.id, b.t)
            self.custody.hold_things(b, b.t, remove=prop)
            other.hold_until(b.t)
            self.custody.hold_things(other, b.t, add=prop)
