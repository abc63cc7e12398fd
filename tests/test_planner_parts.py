"""The planner's parts one at a time, each made with a small planning state on a tiny ground (a court, a
hall with two stairs, a gate) and a few people placed by hand, without the rite."""
from __future__ import annotations

import math
import types

import numpy as np
import pytest

from reconstruct.model.reading import Landmark, Reading, Stair
from reconstruct.planner import actions
from reconstruct.planner.bodies import Body, PropBody
from reconstruct.planner.courtesy import Courtesy
from reconstruct.planner.custody import Custody
from reconstruct.planner.errors import PlanError
from reconstruct.planner.handling import Handling
from reconstruct.planner.moves import Moves
from reconstruct.planner.occupancy import GAP, Occupancy
from reconstruct.planner.pairs import Pairs
from reconstruct.planner.places import Places
from reconstruct.planner.routes import Routes
from reconstruct.planner.state import PlanState
from reconstruct.planner.walkable import COURT, HALL
from reconstruct.planner.walking import Walking
from reconstruct.text.names import NameIndex
from reconstruct.text.units import Units

H = 0.69        # the hall's height: three steps of 0.23 m


def tiny_reading() -> Reading:
    """A walled court 16 m wide, a hall 10 m wide and 5 m deep north of it (its front edge at y = 0), a
    stair of three steps at each side of its front, a gate in the south wall."""
    stairs = {name: Stair(name, x, 1.2, 3, 0.23, 0.3) for name, x in (("西阶", -3.0), ("阼阶", 3.0))}
    landmarks = {
        "西阶": Landmark("西阶", (-3.0, -0.45, 0.0), kind="stair"),
        "阼阶": Landmark("阼阶", (3.0, -0.45, 0.0), kind="stair"),
        "门": Landmark("门", (0.0, -14.0, 0.0), kind="gate"),
        "洗": Landmark("洗", (2.0, -6.0, 0.0), kind="basin", size=(0.5, 0.5, 0.4)),
    }
    names = NameIndex()
    for lm in landmarks:
        names.add(lm)
    return Reading(
        name="tiny", name_en="tiny", file="tiny.toml", summary="", sources=(), units=Units(),
        diagonal="bearing", building_type="xu_no_shi", hall_height=H,
        hall_footprint=((-5.0, 0.0), (5.0, 0.0), (5.0, 5.0), (-5.0, 5.0)),
        court_footprint=((-8.0, -14.0), (8.0, -14.0), (8.0, 5.0), (-8.0, 5.0)),
        gate=(0.0, -14.0, 0.0), gate_width=1.6, wall_height=2.0, wall_thickness=0.3,
        stairs=stairs, landmarks=landmarks, formations={}, views={}, names=names)


@pytest.fixture(scope="module")
def reading():
    return tiny_reading()


def person(state: PlanState, who: str, x: float, y: float, heading: float = 0.0, level: str = COURT,
           t: float = 0.0) -> Body:
    """Someone standing at (x, y) from time t (his first key)."""
    b = state.add_body(Body(who, x, y, H if level == HALL else 0.0, heading, "stand", level))
    state.bodies[who] = b
    b.key(t)
    b.t = t
    return b


def walk_keys(b: Body, pts: list[tuple[float, float, float]]) -> None:
    """Keys of a walk through (t, x, y), standing at the end."""
    for t, x, y in pts:
        b.x, b.y = x, y
        b.key(t, "walk")
    b.key(pts[-1][0], "stand")
    b.t = pts[-1][0]


def walking_parts(state: PlanState):
    occupancy = Occupancy(state)
    routes = Routes(state, occupancy)
    moves = Moves(state, occupancy)
    pairs = Pairs(state, occupancy, routes)
    return occupancy, routes, moves, pairs, Walking(state, occupancy, routes, pairs, moves)


# -- occupancy
def test_occupancy_answers_whether_a_spot_is_free(reading):
    state = PlanState(reading)
    a = person(state, "甲", 0.0, -6.0)
    b = person(state, "乙", -4.0, -10.0)
    occ = Occupancy(state)
    assert occ.standing(b, 0.0, COURT) == [(0.0, -6.0)]
    assert occ.standing(b, 0.0, HALL) == []
    assert not occ.fits(COURT, 0.2, -6.0, occ.standing(b, 0.0, COURT))
    assert occ.fits(COURT, 2.0, -8.0, occ.standing(b, 0.0, COURT))
    # the place itself when free; beside it, a body's gap from him, when he stands there
    assert occ.free_spot(b, -2.0, -9.0, COURT, 0.0) == (-2.0, -9.0)
    x, y = occ.free_spot(b, 0.0, -6.0, COURT, 0.0)
    assert math.dist((x, y), (a.x, a.y)) >= GAP
    # a way straight through him meets him; one wide of him does not
    assert occ.conflict(b, [(0.0, -4.0, -6.0, 0.0), (8.0, 4.0, -6.0, 0.0)])[0] == "甲"
    assert occ.conflict(b, [(0.0, -4.0, -8.0, 0.0), (8.0, 4.0, -8.0, 0.0)]) is None


def test_occupancy_waits_for_one_passing(reading):
    """The shortest wait after which a way is clear: one crossing it first is let through."""
    state = PlanState(reading)
    c = person(state, "丙", 0.0, -3.0)
    walk_keys(c, [(0.0, 0.0, -3.0), (8.0, 0.0, -11.0)])          # walks south through the crossing
    b = person(state, "乙", -4.0, -7.0, heading=90.0)
    occ = Occupancy(state)
    corners = [(4.0, -7.0, 0.0, COURT)]
    delay, timed = occ.first_clear(b, corners, 0.0)
    assert delay > 0.0
    assert occ.first_clear(b, corners, 20.0)[0] == 0.0       # later the way is free
    # someone assumed standing (a walk going round him) counts only inside the block
    with occ.assuming_standing(-1.0, -12.0, COURT):
        assert (-1.0, -12.0) in occ.standing(b, 0.0, COURT)
    assert (-1.0, -12.0) not in occ.standing(b, 0.0, COURT)


# -- walking
def test_walking_climbs_a_stair_on_a_tiny_ground(reading):
    state = PlanState(reading)
    b = person(state, "甲", -3.0, -8.0)
    *_, walking = walking_parts(state)
    walking.walk(b, (-3.0, 2.5, HALL), "up to the hall", "西阶")
    k = np.asarray([r[:4] for r in b.keys])
    assert b.level == HALL and math.isclose(b.z, H) and b.keys[-1][5] == "stand"
    assert (np.diff(k[:, 0]) >= 0).all() and (np.diff(k[:, 3]) >= -1e-9).all()     # only ever up
    on_steps = sorted({round(z, 2) for z in k[:, 3]} - {0.0, H})
    assert on_steps == [0.23, 0.46]                  # one step at a time (the third is the hall's floor)
    assert state.walks["甲"].first_key == 1 and b.walked > 10.0


def test_walking_goes_round_one_standing(reading):
    state = PlanState(reading)
    a = person(state, "甲", 0.0, -7.0)
    b = person(state, "乙", -5.0, -7.0, heading=90.0)
    *_, walking = walking_parts(state)
    walking.walk(b, (5.0, -7.0, COURT), "east")
    ts = np.arange(0.0, b.t, 0.05)
    xy = np.c_[np.interp(ts, [r[0] for r in b.keys], [r[1] for r in b.keys]),
               np.interp(ts, [r[0] for r in b.keys], [r[2] for r in b.keys])]
    assert np.hypot(xy[:, 0] - a.x, xy[:, 1] - a.y).min() >= GAP - 1e-6
    assert (b.x, b.y) == (5.0, -7.0)


# -- courtesy
def test_courtesy_waits_for_the_one_bowed_to(reading):
    """拜 to someone still walking up: the bow waits until he stands within reach, turned to the bower."""
    state = PlanState(reading)
    a = person(state, "甲", 0.0, -5.0, heading=180.0)
    b = person(state, "乙", 0.0, -11.0)
    walk_keys(b, [(0.0, 0.0, -11.0), (5.0, 0.0, -6.5)])
    occupancy, routes, moves, pairs, walking = walking_parts(state)
    names = NameIndex()
    names.add("甲")
    names.add("乙")
    places = Places(state, occupancy, names)
    custody = Custody(state)
    courtesy = Courtesy(state, occupancy, moves, places, pairs, Handling(state, walking, moves, custody, places))
    courtesy.kneel_bow(a, "乙")
    (t0, t1, kind, to), = a.gestures
    assert (kind, to) == ("kneel_bow", "乙")
    assert t0 >= 5.0 and t1 - t0 == pytest.approx(state.pace.kneel_bow)
    assert any("waits" in line for line in state.explain)


def test_pairs_lead_by_the_hand_and_let_go(reading):
    state = PlanState(reading)
    person(state, "相", 0.0, -5.0)
    person(state, "工", 1.0, -5.0)
    occupancy = Occupancy(state)
    pairs = Pairs(state, occupancy, Routes(state, occupancy), {"下射": "上射"})
    g = [0.0, None, "lead", "工"]
    pairs.take_by_hand("相", "工", g)
    assert pairs.partner_of("工") == "相" and pairs.is_led("工") and pairs.led_by("相") == ["工"]
    with pytest.raises(PlanError, match="already walking with"):
        pairs.take_by_hand("下射", "工", [0.0, None, "lead", "工"])
    assert pairs.let_go("相", "工") is g
    assert pairs.partner_of("工") is None and pairs.partner_of("下射") == "上射"
    with pytest.raises(PlanError, match="does not lead"):
        pairs.let_go("相", "工")


# -- custody
def test_custody_keeps_who_holds_a_prop(reading):
    state = PlanState(reading)
    b = person(state, "甲", 0.0, -5.0)
    state.props["觯"] = PropBody("觯", "觯", 1.0, -5.0, 0.0, 0.0)
    custody = Custody(state)
    custody.carry("觯", "甲", 2.0)
    custody.hold_things(b, 2.0, add="觯")
    custody.set_down("觯", 0.5, -5.5, 0.0, 6.0)
    pr = state.props["觯"]
    assert pr.carriers == [[2.0, "甲"], [6.0, None]]
    assert pr.intervals == [["甲", 2.0, 6.0, "carried"]]
    assert pr.keys[-1] == [6.0, 0.5, -5.5, 0.0, 0.0, "rest"]
    assert b.state["holding"] == ["觯"]
    with pytest.raises(PlanError, match="unknown prop"):
        custody.carry("爵", "甲", 1.0)


# -- the verb table
def test_every_verb_of_the_script_has_one_function():
    from reconstruct.rite.actions import VERBS as SCRIPT_VERBS
    assert set(actions.VERBS) == set(SCRIPT_VERBS) - {"sync"}
    with pytest.raises(ValueError, match="registered twice"):
        actions.verb("bow")(lambda p, b, a: None)


# -- places: a file the ground does not hold
def test_a_full_row_turns_as_the_reading_writes_it(reading):
    """衆賓繼三耦而立東上 … 若有東面者則北上: a row facing south running west, the ground holding six of it;
    without an overflow the rest fold into a second row behind (north of) the first; with 东面北上 they stand
    in a file at its west end facing east, running south, a spacing apart."""
    from dataclasses import replace
    from reconstruct.model.reading import Formation
    from reconstruct.planner.places import FILE_BEHIND
    row = Formation("堂西位", (-2.0, -3.0, 0.0), 180.0, (-1.0, 0.0))
    members = [f"甲{k}" for k in range(1, 10)]
    for overflow, expect in ((None, [(-2.0 - k, round(-3.0 + FILE_BEHIND, 2), 180.0) for k in range(3)]),
                             ((90.0, (0.0, -1.0)), [(-7.0, -4.0 - k, 90.0) for k in range(3)])):
        f = replace(row, overflow=overflow)
        state = PlanState(replace(reading, formations={f.id: f}))
        places = Places(state, Occupancy(state), NameIndex(), {f.id: members})
        firsts = [places.formation_slot(m, f.id)[:2] for m in members[:6]]
        assert firsts == [(-2.0 - k, -3.0) for k in range(6)]      # the row: as far as the court's west wall
        rest = [places.formation_slot(m, f.id) for m in members[6:]]
        assert [(round(x, 2), round(y, 2), h) for x, y, _, h in rest] == expect


def test_one_boxed_out_of_his_mat_goes_on_when_the_way_opens(reading):
    """Going back to his mat (席) with those standing round it leaving no way in, he stands aside; once one of
    them has gone (the next to be pledged steps up where the last stood), he goes on to it, facing as told."""
    state = PlanState(reading)
    me = person(state, "甲", 0.0, -3.0, heading=90.0)
    ring = {n: person(state, n, x, y) for n, x, y in (("乙", 0.0, -7.2), ("丙", 0.8, -8.0), ("丁", -0.8, -8.0),
                                                      ("戊", 0.0, -8.8))}
    ring["乙"].hold_until(20.0)                                                  # he leaves at 20 s
    walk_keys(ring["乙"], [(21.0, 1.5, -6.5), (24.0, 3.0, -5.0)])
    occupancy, routes, moves, pairs, walking = walking_parts(state)
    for b in ring.values():
        b.t = 0.0
    walking.walk(me, (0.0, -8.0, COURT), "to his mat", aside=True, seat=True)
    assert math.dist((me.x, me.y), (0.0, -8.0)) > 0.5 and "甲" in state.to_seat    # aside, still to go
    walking.resume(10.0)
    assert "甲" in state.to_seat                          # the way still closed until then
    walking.resume(60.0)
    assert "甲" not in state.to_seat and (me.x, me.y) == pytest.approx((0.0, -8.0))
    assert me.keys[-1][0] >= 20.0


def test_one_led_by_the_hand_goes_down_the_stair_not_off_the_hall(reading):
    """弟子相工…降自西階 on a shallow hall: the junior has come to the stair's head on the hall and not yet gone
    down (his way down is planned after his 工's); the 工 led by the hand does not follow that way of his on the
    hall to a goal below (straight off the hall's edge, at the hall's height: 義疏's reading, f8, 3 findings), he
    goes down the steps."""
    state = PlanState(reading)
    lead = person(state, "相", -3.0, 1.5, level=HALL)
    led = person(state, "工", -2.0, 2.5, level=HALL)
    occupancy, routes, moves, pairs, walking = walking_parts(state)
    pairs.take_by_hand("相", "工", [0.0, None, "lead", "工"])
    state.current = types.SimpleNamespace(id="f8.gong.ru")        # both walks of one event (as partner_walk asks)
    walking.walk(lead, (-3.8, 0.6, HALL), "to the stair's head")
    walking.walk(led, (-3.0, -1.6, COURT), "down, led by the hand", "西阶")
    k = np.asarray([r[:4] for r in led.keys])
    t = np.linspace(k[0, 0], k[-1, 0], 400)
    x, y, z = (np.interp(t, k[:, 0], k[:, i]) for i in (1, 2, 3))
    off = y <= -0.45                                      # past the stair's first tread south of the hall's edge
    assert off.any() and led.level == COURT and led.z == 0.0 and k[-1, 3] == 0.0
    assert (z[off] <= H - 0.23 + 1e-6).all()             # a step down or more there, never in the air
    on_run = off & (y > -0.9)                             # over the stair's run (3 treads of 0.3 m)
    assert (np.abs(x[on_run] + 3.0) <= 0.6 + 1e-6).all()  # within the stair's width


# -- arrows
def test_a_junior_lays_his_arrows_on_the_rack_from_within_reach(reading):
    """弟子…北面坐委于楅: one coming up while the junior before him still kneels at the rack stands aside of him;
    once that one has gone, he steps up and lays his arrows from within reach (鄭's 庠: 1.39 m away, f10)."""
    from dataclasses import replace
    from reconstruct.planner.archery import RackLayout
    from reconstruct.planner.arrows import ARM, Arrows
    rack = Landmark("楅", (0.0, -6.0, 0.0), kind="mark")
    state = PlanState(replace(reading, landmarks={**reading.landmarks, "楅": rack}))
    before = person(state, "甲", -0.589, -6.8)                 # on the spot, laying his, until 12 s
    before.hold_until(12.0)
    walk_keys(before, [(13.0, -2.0, -7.5), (15.0, -4.0, -8.0)])
    before.t = 0.0
    me = person(state, "乙", -0.589, -10.0)
    custody = Custody(state)
    for k in (1, 2):
        state.props[f"乙矢{k}"] = PropBody(f"乙矢{k}", "矢", me.x, me.y, 1.0, 0.0)
        custody.carry(f"乙矢{k}", "乙", 0.0)
    occupancy, routes, moves, pairs, walking = walking_parts(state)
    places = Places(state, occupancy, NameIndex())
    arrows = Arrows(state, custody, moves, walking, Handling(state, walking, moves, custody, places), occupancy,
                    places, ["乙"], RackLayout(state.reading, 1))
    arrows.lay(me)
    for k in (1, 2):
        pr = state.props[f"乙矢{k}"]
        assert pr.carrier is None and abs(pr.y + 6.0) < 0.1
        assert math.dist((me.x, me.y), (pr.x, pr.y)) <= ARM
    assert me.keys[-1][0] > 12.0


# -- handling
def test_one_kneeling_leans_to_take_up_what_lies_within_his_reach(reading):
    """坐奠觶，拜，執觶興: the cup set down before him, a step back to bow, kneeling still he takes it up again,
    leaning to it (within KNEEL_REACH), not getting up to walk to it (周尺's 舉觶者2 at p19.xi walked off round
    the seated 工 and took it from 2.7 m)."""
    from reconstruct.planner.handling import KNEEL_REACH, REACH
    state = PlanState(reading)
    me = person(state, "甲", 0.0, -5.0)
    state.props["觯"] = PropBody("觯", "觯", 0.0, -5.0 + (REACH + KNEEL_REACH) / 2, 0.0, 0.0)
    occupancy, routes, moves, pairs, walking = walking_parts(state)
    custody = Custody(state)
    handling = Handling(state, walking, moves, custody, Places(state, occupancy, NameIndex()))
    moves.posture(me, "kneel", 1.0)
    handling.take(me, "觯")
    assert (me.x, me.y) == (0.0, -5.0) and me.posture == "kneel"
    assert state.props["觯"].carrier == "甲"


def test_a_step_back_for_room_to_bow_does_not_land_on_a_dish(reading):
    """One with another too close in front steps back, or aside, to have room to bow: not onto a dish lying
    behind him (周尺, p18.dafu2: the 主人 stepped onto the 大師's 薦)."""
    from reconstruct.planner.occupancy import DISH_GAP
    state = PlanState(reading)
    me = person(state, "甲", 0.0, -5.0, heading=0.0)
    person(state, "乙", 0.0, -4.3, heading=180.0)                # 0.7 m before him: he needs 0.3 m more
    state.props["荐"] = PropBody("荐", "荐", 0.0, -5.5, 0.0, 0.0)
    state.prop_kinds["荐"] = "荐"
    occupancy, routes, moves, pairs, walking = walking_parts(state)
    places = Places(state, occupancy, NameIndex())
    custody = Custody(state)
    courtesy = Courtesy(state, occupancy, moves, places, pairs, Handling(state, walking, moves, custody, places))
    courtesy.kneel_bow(me)
    assert any("to have room to bow" in line for line in state.explain)
    assert math.dist((me.x, me.y), (0.0, -5.5)) >= DISH_GAP


def test_one_walking_beside_his_partner_does_not_step_over_a_dish(reading):
    """A 下射 walks beside his 上射 (並行) on the 上射's way 0.7 m to its side, which is not routed round the dishes
    lying there: where it would pass over one, he goes his own way round it (義疏, f4.yirang: 众宾3 went up to his
    mat beside 众宾2 over 众宾2's 薦)."""
    from reconstruct.planner.occupancy import DISH_GAP
    state = PlanState(reading)
    up = person(state, "上", 0.0, -10.0)
    down = person(state, "下", 0.7, -10.0)
    state.props["荐"] = PropBody("荐", "荐", 0.7, -6.5, 0.0, 0.0)
    state.prop_kinds["荐"] = "荐"
    occupancy = Occupancy(state)
    routes = Routes(state, occupancy)
    moves = Moves(state, occupancy)
    pairs = Pairs(state, occupancy, routes, {"下": "上"})
    walking = Walking(state, occupancy, routes, pairs, moves)
    state.current = types.SimpleNamespace(id="e1")           # both walk in one event
    walking.walk(up, (0.0, -3.0, COURT), "north")
    walking.walk(down, (0.7, -3.0, COURT), "north")
    k = np.asarray([r[:3] for r in down.keys])
    ts = np.linspace(k[0, 0], k[-1, 0], 400)
    xy = np.c_[np.interp(ts, k[:, 0], k[:, 1]), np.interp(ts, k[:, 0], k[:, 2])]
    assert np.hypot(xy[:, 0] - 0.7, xy[:, 1] + 6.5).min() >= DISH_GAP
    assert (down.x, down.y) == pytest.approx((0.7, -3.0))
