"""The verb table: how each verb of the rite script is performed, one function per verb.

A verb is a function ``(parts, body, action)`` registered with :func:`verb` under the names it performs;
:func:`act` looks the action's verb up in :data:`VERBS` and calls it.  The functions are the only place
where the planner's parts meet: each asks the parts it needs (:class:`Parts`) — the places, walking, the
bows, the things handled, the archery — and none of the parts knows of the others' verbs.  A new verb is
one function here with its ``@verb("name")`` (and its line in the rite script's vocabulary,
:data:`reconstruct.rite.actions.VERBS`).  Every duration comes from :class:`~.pace.Pace`.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable, NamedTuple

from ..model.rite import Action
from ..text.placement import heading_of
from ..model.vocabulary import GestureKind, LandmarkKind, Posture
from .arrows import Arrows
from .bodies import Body
from .courtesy import Courtesy
from .custody import Custody
from .handling import Handling
from .moves import Moves
from .occupancy import GAP, Occupancy
from .pairs import Pairs
from .places import Places
from .routes import Routes
from .shooting import Shooting
from .state import PlanState
from .tallies import Tallies
from .walkable import COURT, HALL, STAIR
from .walking import Walking


@dataclass(frozen=True)
class Parts:
    """The planner's parts, as the verbs reach them."""

    state: PlanState
    occupancy: Occupancy
    routes: Routes
    moves: Moves
    pairs: Pairs
    walking: Walking
    places: Places
    custody: Custody
    handling: Handling
    courtesy: Courtesy
    tallies: Tallies
    shooting: Shooting
    arrows: Arrows


class Verb(NamedTuple):
    perform: Callable[[Parts, Body, Action], None]
    face_after: bool        # a facing the text states (face=…) is taken after the act


VERBS: dict[str, Verb] = {}


def verb(*names: str, face_after: bool = False):
    """Register a function as the way the named verbs are performed; with ``face_after``, one turns to
    the facing the action states (``face=…``) once it is done."""
    def register(fn):
        for name in names:
            if name in VERBS:
                raise ValueError(f"verb {name} registered twice")
            VERBS[name] = Verb(fn, face_after)
        return fn
    return register


def act(p: Parts, b: Body, a: Action) -> None:
    """Perform one action of the rite script."""
    v = VERBS.get(a.verb)
    if v is None:
        p.state.fail(f"verb {a.verb} cannot be planned")
    p.state.to_seat.pop(b.id, None)         # he acts again: from where he stands
    v.perform(p, b, a)
    heading = _stated_heading(p, b, a) if v.face_after else None
    if heading is not None:
        p.moves.face(b, heading)
        p.state.stated[b.id] = (p.state.event_id, b.heading)
    if b.id in p.state.to_seat:             # stood aside of his mat: the facing he was given there
        p.state.to_seat[b.id] = (p.state.to_seat[b.id][0], b.heading)


def _stated_heading(p: Parts, b: Body, a: Action) -> float | None:
    """The facing an action leaves one in: the one it states (``face=…``), else, for one who goes to his
    mat (即席, 就席) or to a place on it (席末坐啐酒: its lower end), the mat's own: one sits as his mat faces
    (記: 西序之席，北上 — the mats along the 西序 face east), a fact the reading declares once for each mat."""
    if a.heading:
        return p.places.heading_toward(b, a.heading)
    if a.verb == "go" and a.place:          # his mat (even stood aside of it), or the one he now stands on (席末)
        mat = p.state.reading.landmarks[a.place] if _is_mat(p, a.place) else p.places.mat_under(b.x, b.y, b.level)
        return None if mat is None else mat.heading
    return None


# ---------------------------------------------------------------------------------------------- walking
@verb("go", "enter", "exit", "step_back", "step_forward", face_after=True)
def go(p: Parts, b: Body, a: Action) -> None:
    """go / enter / exit / step_back / step_forward: to a place, or a short step without one."""
    if a.place:
        _go_to(p, b, a)
    elif a.verb in ("go", "step_forward"):
        p.moves.nudge(b, b.heading, p.state.pace.step)
    elif a.verb == "step_back":
        p.moves.nudge(b, b.heading + 180, p.state.pace.step)
    elif a.verb == "exit":
        gate = p.state.reading.landmarks["门"].position
        p.walking.walk(b, (gate[0], gate[1] + 0.6, COURT), "出 by the 门")
        x, y = p.occupancy.free_spot(b, gate[0], gate[1] - 1.5, COURT, b.t)
        p.walking.walk(b, (x, y, COURT), "outside the 门")
    else:                                   # enter
        gate = p.state.reading.landmarks["门"].position
        p.walking.walk(b, (gate[0], gate[1] + 1.5, COURT), "入 by the 门")


def _go_to(p: Parts, b: Body, a: Action) -> None:
    v = a.verb
    x, y, level, fh = p.places.resolve(a.place, b.id)
    via, by_way = _text_via(p, b, a, level)
    if v == "exit" and a.place in ("门", "門"):
        y -= 1.5
    # one's slot when the place is a formation one belongs to (反位, or 門外 as the guests leave)
    slot = p.places.formation_slot(b.id, a.place) if v in ("go", "exit") else None
    if slot is None and v == "go" and a.rank:
        # at a formation one does not belong to: the rank-th place of the row behind its file (the 弟子 and
        # the 有司 waiting behind the archers at 堂西); else an ad-hoc file: 北上 / 東上, one place each
        slot = (p.places.behind_slot(a.place, a.rank)
                or p.places.adhoc_slot(b, a.place, a.rank, a.heading))
    # places on the hall that a reading gives as a row (工席位: the 工's seats; 相者位: the juniors by them) are
    # each one's own place, come to one pair after another as to any named place, not a file walked into in
    # rank order (those are in the court: 射位, 堂西位, 门外位 …)
    row_on_hall = slot is not None and slot[2] == HALL
    if slot is not None:
        x, y, level, fh = slot
    # a pair sent side by side to a stair's foot stands there to go up (others keep the lanes clear)
    foot = _stair_foot(p, a.place) if slot is None and p.pairs.ahead_on_stairs(b.id) is not None else None
    if foot is not None:        # 西階下西一尺五寸: in front of the lowest step, beside the lane, to go up
        y = min(y, p.state.ground.foot(foot)[1])
    x, y = p.occupancy.free_spot(b, x, y, level, b.t, in_lane=foot is not None)
    if v == "exit" and slot is not None:
        # out of the gate, down the lane a metre in front of the file, and into one's place from in
        # front of it (not past the shoulders of those already standing: routed through them, a
        # walk cost as much as the file was long)
        h = math.radians(fh)
        fx, fy = x + 1.0 * math.sin(h), y + 1.0 * math.cos(h)
        lx, ly = fx, p.state.reading.gate[1] - 1.5
        if p.state.ground.is_free(level, fx, fy) and p.state.ground.is_free(level, lx, ly):
            via = [*via, (lx, ly, level), (fx, fy, level)]
    why = f"{v} to {a.place}" + by_way
    if v == "exit":
        why += " (出: through the 门, the only way out)"
    if a.stair:
        why += f" by the {a.stair} (stated)"
    as_file = slot is not None and not row_on_hall
    p.walking.walk(b, (x, y, level), why, a.stair, via=via, behind=p.places.ahead(a.place) if as_file else None,
                   aside=v == "go" and not as_file, seat=v == "go" and slot is None and _is_mat(p, a.place))
    if as_file:
        p.places.set_out(b, a.place)
        if v == "exit" and not a.heading:
            p.moves.face(b, fh)         # in his place in the file outside, facing as the file faces


def _is_mat(p: Parts, place: str) -> bool:
    """Whether a place is a mat itself (宾席, 众宾席3 …): one's seat, which one reaches in the end."""
    lm = p.state.reading.landmarks.get(place)
    return lm is not None and lm.kind == LandmarkKind.MAT


def _stair_foot(p: Parts, place: str):
    """The stair whose foot a place is named beside (西階下西一尺五寸, 西階下東), else None: one sent there
    stands in front of its lowest step, in the way of those going up and down, as the text puts him."""
    for name, st in p.state.reading.stairs.items():
        if place.startswith(name + "下") and place != name + "下":
            return st
    return None


def _text_via(p: Parts, b: Body, a: Action, level: str) -> tuple[list, str]:
    """The via points the text names for an action (由X之南 …), and the words that explain them."""
    via = [pt for pt in (p.places.via_point(name, b, level) for name in a.via) if pt is not None]
    return via, (f" by way of {', '.join(a.via)} (the text's via)" if a.via else "")


@verb("formation", face_after=True)
def formation(p: Parts, b: Body, a: Action) -> None:
    """立于射位 北上 …: to one's slot in a named formation, in rank order, facing as it faces."""
    slot = p.places.formation_slot(b.id, a.place, a.rank) or p.places.adhoc_slot(b, a.place, a.rank, a.heading)
    x, y, level, fh = slot
    x, y = p.occupancy.free_spot(b, x, y, level, b.t)
    via, by_way = _text_via(p, b, a, level)
    p.walking.walk(b, (x, y, level), f"to his slot in {a.place} (rank order)" + by_way, a.stair, via=via,
                   behind=p.places.ahead(a.place))
    p.places.set_out(b, a.place)
    p.moves.face(b, fh)


@verb("ascend", face_after=True)
def ascend(p: Parts, b: Body, a: Action) -> None:
    """升: up a stair to the hall (a 下射 a step behind his 上射), or to its top step (盡階不升堂)."""
    ground = p.state.ground
    st = p.state.reading.stairs.get(a.stair or "") or p.routes.conventional_stair(b)
    if a.top_step:
        p.walking.walk(b, (st.x + ground.lane(st, True), st.step_y(st.steps), HALL),
                       f"up the {st.id} to the top step (盡階不升堂)", st.id, top_step=True)
        p.moves.face(b, 0.0)
        return
    # one pace onto the hall from the head of the lane going up, clear of the stair's head
    hx, hy = ground.head(st, ground.lane(st, True))
    hx, hy = p.occupancy.free_spot(b, hx, hy + GAP + 0.05, HALL, b.t)
    after = p.pairs.partner_third_step(b, st)
    if a.other:     # 主人升一等，賓升 (鄭: 不俱升者，賓客之道進宜難也; 賈: 此先升一等，禮之常): he steps onto his first
        after = p.pairs.stepped_onto(a.other, 2)        # step as the other, going up first, steps onto his second
    lane = p.pairs.lane_at_foot(b, st)
    if lane is not None:            # 並 at the foot: up the middle, one after the other
        hx, hy = ground.head(st, lane)
        hx, hy = p.occupancy.free_spot(b, hx, hy + GAP + 0.05, HALL, b.t)
    why = f"升 by the {st.id}"
    if after is not None:
        why += (f", a step behind {a.other} (升一等)" if a.other
                else f", a step behind {p.pairs.ahead_on_stairs(b.id)} (上射先升三等，下射從之中等)")
    p.walking.walk(b, (hx, hy, HALL), why, st.id, first_step_at=after, lane=lane)


@verb("descend", face_after=True)
def descend(p: Parts, b: Body, a: Action) -> None:
    """降: down a stair to its foot (a 下射 a step behind his 上射)."""
    st = p.state.reading.stairs.get(a.stair or "") or p.routes.conventional_stair(b)
    fx, fy = p.state.ground.foot(st)
    fx, fy = p.occupancy.free_spot(b, fx, fy, COURT, b.t)
    after = p.pairs.partner_third_step(b, st, down=True)
    why = f"降 by the {st.id}"
    if after is not None:
        why += f", a step behind {p.pairs.partner_of(b.id)} (上射降三等，下射從之中等)"
    p.walking.walk(b, (fx, fy, COURT), why, st.id, first_step_at=after)


@verb("sidestep")
def sidestep(p: Parts, b: Body, a: Action) -> None:
    """少右 / 辟: a short step aside (the way ``heading`` names, else to his right)."""
    p.moves.nudge(b, heading_of(a.heading) if a.heading else b.heading + 90, p.state.pace.step)


# ---------------------------------------------------------------------------------------------- the body
@verb("face", "turn")
def face(p: Parts, b: Body, a: Action) -> None:
    """X面 / 還: turn to a direction, a person or a place; the text's facing, kept for this event.  ``text``
    左 or 右: which way round (左還, 右還)."""
    if a.heading:
        p.moves.face(b, p.places.heading_toward(b, a.heading), a.text if a.text in ("左", "右") else None)
        p.state.stated[b.id] = (p.state.event_id, b.heading)


@verb("kneel", face_after=True)
def kneel(p: Parts, b: Body, a: Action) -> None:
    p.moves.posture(b, Posture.KNEEL, p.state.pace.kneel)


@verb("rise", face_after=True)
def rise(p: Parts, b: Body, a: Action) -> None:
    p.moves.posture(b, Posture.STAND, p.state.pace.rise)


@verb("stand", face_after=True)
def stand(p: Parts, b: Body, a: Action) -> None:
    p.moves.posture(b, Posture.STAND, p.state.pace.settle)


DRESS = {"bare": ("bare_left_arm", True), "cover": ("bare_left_arm", False),
         "gear_on": ("gear", True), "gear_off": ("gear", False)}


# what a bared arm shows: flesh, or an undershirt (記: 大夫與士射，袒纁襦 — 鄭: 不肉袒，殊於耦)
UNDERSHIRTS = ("纁襦", "朱襦")


@verb(*DRESS)
def dress(p: Parts, b: Body, a: Action) -> None:
    """袒 / 襲 / 決遂 / 說決拾; ``bare text=纁襦``: the arm bared over a red undershirt, not to the flesh."""
    key, value = DRESS[a.verb]
    if a.verb == "bare" and a.text and a.text not in UNDERSHIRTS:
        p.state.fail(f"bare: {a.text!r} is not an undershirt the text names ({', '.join(UNDERSHIRTS)})")
    b.gesture(b.t, b.t + p.state.pace.dress, GestureKind(a.verb), None)
    p.moves.hold(b, p.state.pace.dress)
    extra = {}
    if a.verb == "bare":
        extra = {"undershirt": a.text} if a.text else ({"undershirt": None} if b.state.get("undershirt") else {})
    b.set_state(b.t, **{key: value}, **extra)


@verb("hold_bow")
def hold_bow(p: Parts, b: Body, a: Action) -> None:
    """執張弓 / 執弛弓: the bow held strung, or unstrung across the palms (stringing or unstringing it if it
    was the other way)."""
    # a bow taken up for the first time in the passage is strung: the passage begins after the second round,
    # each bow laid down as it was shot with (卒射…釋弓), to be unstrung by the losers (執弛弓) at 88
    was, now = b.state.get("bow") or "strung", a.text or "strung"
    if was is not None and was != now:
        b.gesture(b.t, b.t + p.state.pace.hold_bow, GestureKind.STRING_BOW if now == "strung" else GestureKind.UNSTRING_BOW, None)
    p.moves.hold(b, p.state.pace.hold_bow)
    b.set_state(b.t, bow=a.text or "strung")


# what the hands do in the timed acts (plan-format "What hands do")
GESTURE_OF = {"drink": GestureKind.DRINK, "offer": GestureKind.SACRIFICE, "wash": GestureKind.WASH,
              "pour": GestureKind.POUR, "count": GestureKind.COUNT_TALLIES}


@verb("wash", "pour", "drink", "offer", "count", "perform", "wait", face_after=True)
@verb("reply", "announce")
def timed(p: Parts, b: Body, a: Action) -> None:
    """A timed act in place (wash, pour, drink, offer, count, perform, reply, announce, music, wait):
    at the 洗 or the 尊 where it is done there, facing whom one speaks to."""
    dur = a.duration if a.duration is not None else p.state.pace.duration_of(a.verb, a.text)
    if a.verb == "wash":
        _near_fixture(p, b, "洗", 1.2)
    if a.verb == "pour" and b.level == HALL:
        _near_fixture(p, b, "尊", 1.0)
    if a.verb in ("announce", "reply") and a.other and p.state.stated.get(b.id, ("",))[0] != p.state.event_id:
        p.moves.face(b, p.places.heading_toward(b, a.other))   # unless the text gave his facing
    if a.verb in GESTURE_OF:
        b.gesture(b.t, b.t + dur, GESTURE_OF[a.verb], a.prop)
    p.moves.hold(b, dur)


def _near_fixture(p: Parts, b: Body, name: str, within: float) -> None:
    """Go to a fixture (the 洗, the 尊) unless already there."""
    reading = p.state.reading
    lm = reading.landmarks.get(name)
    if lm is None:
        return
    level = HALL if lm.position[2] > reading.hall_height / 2 else COURT
    if (b.level if b.level != STAIR else HALL) != level or math.hypot(lm.position[0] - b.x, lm.position[1] - b.y) > within + 0.8:
        p.walking.approach(b, lm.position[0], lm.position[1], level, within + 0.3, f"to the {name}")


@verb("gesture")
def gesture(p: Parts, b: Body, a: Action) -> None:
    """A gesture of the vocabulary (``text`` = its kind) with a prop or nobody, for its duration."""
    dur = a.duration if a.duration is not None else p.state.pace.gesture
    b.gesture(b.t, b.t + dur, a.text, a.prop or a.other)
    p.moves.hold(b, dur)


# ---------------------------------------------------------------------------------------------- things
@verb("take", "receive", face_after=True)
def take(p: Parts, b: Body, a: Action) -> None:
    p.handling.take(b, a.prop)


@verb("put", face_after=True)
def put(p: Parts, b: Body, a: Action) -> None:
    p.handling.put(b, a.prop, a.place)


@verb("give", face_after=True)
def give(p: Parts, b: Body, a: Action) -> None:
    p.handling.give(b, a.other, a.prop)


@verb("tuck")
def tuck(p: Parts, b: Body, a: Action) -> None:
    """搢扑: stick it in the belt, taking it up first if it lies where he left it."""
    props = p.state.props
    if a.prop and a.prop in props and props[a.prop].carrier != b.id:
        p.handling.take(b, a.prop)
        p.moves.hold(b, p.state.pace.tuck)
    else:
        timed(p, b, a)


# ---------------------------------------------------------------------------------------------- courtesies
@verb("bow")
def bow(p: Parts, b: Body, a: Action) -> None:
    p.courtesy.bow(b, a.other, a.count, a.heading)


@verb("kneel_bow", face_after=True)
def kneel_bow(p: Parts, b: Body, a: Action) -> None:
    p.courtesy.kneel_bow(b, a.other, a.count)


@verb("lead")
def lead(p: Parts, b: Body, a: Action) -> None:
    p.courtesy.lead(b, a.other)


@verb("release")
def release(p: Parts, b: Body, a: Action) -> None:
    p.courtesy.release(b, a.other)


# ---------------------------------------------------------------------------------------------- the archery
@verb("music")
def music(p: Parts, b: Body, a: Action) -> None:
    """奏 …: the music begins (its 节 are the beat the archers shoot to)."""
    p.shooting.music_begins(a.text, b.t)
    timed(p, b, a)


@verb("music_end")
def music_end(p: Parts, b: Body, a: Action) -> None:
    p.shooting.music_ends(b)


@verb("play")
def play(p: Parts, b: Body, a: Action) -> None:
    p.shooting.play(b, a.text)


SHOOT_TEXTS = ("耦少退", "不释获", "诱射")


@verb("shoot")
def shoot(p: Parts, b: Body, a: Action) -> None:
    """射: the pair loose by turns; text 耦少退 (記: 耦少退于物), 不释获 (the first round: 獲而未釋獲), 诱射 (the
    司射 alone, no partner: 誘射，將乘矢)."""
    if a.text not in (None, *SHOOT_TEXTS):
        p.state.fail(f"shoot: text={a.text!r}; one of {', '.join(SHOOT_TEXTS)}")
    if a.text == "诱射":
        if a.other:
            p.state.fail("shoot text=诱射 is the 司射 alone: no partner (other)")
        p.shooting.shoot_alone(b)
        return
    p.shooting.shoot(b, a.other, retire=a.text == "耦少退", tallied=a.text != "不释获")


@verb("hold_arrow")
def hold_arrow(p: Parts, b: Body, a: Action) -> None:
    """挟一个: one arrow held across the bow (taken up first where it lies)."""
    if a.prop and p.state.props[a.prop].carrier != b.id:
        p.handling.take(b, a.prop)
    b.gesture(b.t, b.t + p.state.pace.hold_arrow, GestureKind.HOLD_ARROW, a.prop)
    p.moves.hold(b, p.state.pace.hold_arrow)


@verb("take_arrows")
def take_arrows(p: Parts, b: Body, a: Action) -> None:
    p.arrows.take(b, a.other)


@verb("tuck_arrows")
def tuck_arrows(p: Parts, b: Body, a: Action) -> None:
    p.arrows.tuck(b)


@verb("gather_arrows")
def gather_arrows(p: Parts, b: Body, a: Action) -> None:
    p.arrows.gather(b, a.text)


@verb("lay_arrows")
def lay_arrows(p: Parts, b: Body, a: Action) -> None:
    p.arrows.lay(b)


@verb("count_arrows")
def count_arrows(p: Parts, b: Body, a: Action) -> None:
    p.arrows.count(b)


@verb("put_arrows")
def put_arrows(p: Parts, b: Body, a: Action) -> None:
    p.arrows.put(b, a.place)


@verb("give_arrows")
def give_arrows(p: Parts, b: Body, a: Action) -> None:
    p.arrows.give(b, a.other)


@verb("count_tallies")
def count_tallies(p: Parts, b: Body, a: Action) -> None:
    p.tallies.count(b, a.text)


@verb("take_winning")
def take_winning(p: Parts, b: Body, a: Action) -> None:
    p.tallies.take_winning(b)


@verb("report_score")
def report_score(p: Parts, b: Body, a: Action) -> None:
    p.tallies.report_score(b, a.text, a.other)


@verb("reset_tallies")
def reset_tallies(p: Parts, b: Body, a: Action) -> None:
    p.tallies.reset(b)


@verb("lay_spare")
def lay_spare(p: Parts, b: Body, a: Action) -> None:
    p.tallies.lay_spare(b)


@verb("ready_tallies")
def ready_tallies(p: Parts, b: Body, a: Action) -> None:
    """取中之八筭，改實八筭于中，興執而俟: where the text tells it before a pair shoots (the shooting does it
    itself before every other pair)."""
    p.tallies.prime(b)


@verb("give_tallies")
def give_tallies(p: Parts, b: Body, a: Action) -> None:
    """授筭: the tallies he carries handed to ``other`` (一人執筭以從之 … 興受筭)."""
    if not a.other or a.other not in p.state.bodies:
        p.state.fail("give_tallies needs the one who receives them (other)")
    other = p.state.bodies[a.other]
    p.handling.meet(b, other, f"to hand the tallies to {other.id}")
    P = p.state.pace
    b.gesture(b.t - P.hand_over, b.t, GestureKind.HAND_OVER, other.id)
    other.gesture(b.t - P.hand_over, b.t, GestureKind.RECEIVE, p.tallies.t_hand[0] if p.tallies.t_hand else None)
    other.hold_until(b.t)
    p.tallies.hand_over(b, other, b.t)


@verb("collect_tallies")
def collect_tallies(p: Parts, b: Body, a: Action) -> None:
    p.tallies.collect(b)


@verb("store_tallies")
def store_tallies(p: Parts, b: Body, a: Action) -> None:
    p.tallies.store(b)
