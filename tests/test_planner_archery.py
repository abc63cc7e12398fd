"""The archery performed (issue: every arrow, flag, tally and cup the text names, in the plan): checked on
the default reading, on 敖繼公's and with 9 衆賓."""
from __future__ import annotations

from collections import Counter

import numpy as np
import pytest


CASES = [("zheng_xuan", 3), ("ao_jigong", 3), ("zheng_xuan", 9)]


@pytest.fixture(scope="module", params=CASES, ids=[f"{n}-{z}" for n, z in CASES])
def case(request, plan_of):
    name, z = request.param
    return plan_of(name, zhongbin=z)


def at(plan, ident, t):
    xyz, h = plan.track(ident).at([t])
    return xyz[0], float(h[0])


def pairs_of(plan):
    seen = []
    for s in plan.shots:
        if not seen or seen[-1][0] != s.archer and len(seen[-1]) < 2 and s.side == "左":
            pass
    ups = [s.archer for s in plan.shots if s.side == "右"]
    downs = [s.archer for s in plan.shots if s.side == "左"]
    return list(dict.fromkeys(zip(ups, downs)))


def test_four_arrows_each_loosed_by_turns_the_upper_archer_first(case):
    shots = [s for s in case.shots if s.round == 3]
    per = Counter(s.archer for s in shots)
    assert per and set(per.values()) == {4}, per
    assert len({s.arrow for s in shots}) == len(shots)             # each a single arrow, loosed once
    for up, down in pairs_of(case):
        mine = sorted((s for s in shots if s.archer in (up, down)), key=lambda s: s.loose)
        assert [s.archer for s in mine] == [up, down] * 4, (up, down)   # 拾发: strictly alternate, 上射 first


def test_every_loose_from_the_archers_mark_and_every_arrow_lands_at_the_target(case, request):
    if case.layout.file.endswith("ao_jigong.toml"):
        request.applymarker(pytest.mark.xfail(strict=False, reason=(
            "known defect (open): in 敖's reading the 物 under the 棟 lies 0.24 m from the 賓's 俎 (宾荐东四尺, CHOSEN), "
            "set before his mat at 戶牖之間; the 下射 stands 1.2 m south of his 物 to keep off it")))
    marks = [case.landmarks["上物"].position, case.landmarks["下物"].position]
    hou = case.landmarks["侯"].position
    for s in case.shots:
        body, heading = at(case, s.archer, s.loose)
        mark = marks[0] if s.side == "右" else marks[1]
        assert np.hypot(body[0] - mark[0], body[1] - mark[1]) < 0.8, (s.archer, body, mark)
        assert abs(body[2] - case.hall_height) < 0.01 and abs((heading - 180 + 180) % 360 - 180) < 30
        x, y, z = s.at
        if s.hit:                                  # in the target's face, at the height of its 正
            assert abs(y - hou[1]) < 0.1 and abs(x - hou[0]) < 0.6 and 1.5 < z < 3.2, s
        else:                                      # on the ground near it, before it
            assert z < 0.05 and 0.0 <= y - hou[1] < 8.0 and abs(x - hou[0]) < 7.0, s
        arrow = case.props[s.arrow]
        k = arrow.track.keys
        flying = k[(k["t"] > s.loose) & (k["t"] < s.land)]
        assert (flying["posture"] == "flight").all() and len(flying) >= (s.land - s.loose) / 0.1 - 1
        xyz, _ = arrow.track.at([s.land + 0.5])
        assert np.allclose(xyz[0], s.at, atol=0.01)


def test_a_tally_for_each_counted_hit_laid_by_the_kneeling_keeper_on_the_right_side(case):
    keeper = case.actors["释获者"]
    lays = [g for g in keeper.gestures if g.kind == "lay_tally"]
    seat = case.landmarks["释获者位"].position if "释获者位" in case.landmarks else case.landmarks["中"].position
    for s in case.shots:
        g = [x for x in lays if s.land < x.t0 < s.land + 6.0 and x.object and x.object.startswith("算")]
        if not s.counted:
            continue
        assert g, f"no tally laid within 6 s of {s.arrow}"
        g = g[0]
        assert keeper.track.posture_at([(g.t0 + g.t1) / 2])[0] == "kneel"
        tally, _ = at(case, g.object, g.t1 + 0.5)
        south = tally[1] < seat[1]
        assert south == (s.side == "右"), (s.arrow, s.side, tally)      # 上射於右 (south), 下射於左 (north)
    counted = sum(s.counted for s in case.shots)
    laid_in_round = [x for x in lays if case.shots[0].loose - 30 < x.t0 < case.shots[-1].land + 30]
    assert len(laid_in_round) == counted
    assert not [s for s in case.shots if s.hit and not s.on_beat and s.counted]      # 不鼓不释


def test_the_flag_raised_for_each_hit(case):
    marker = case.actors["获者"]
    raises = [g for g in marker.gestures if g.kind == "raise_flag"]
    for s in case.shots:
        near = [g for g in raises if s.land <= g.t0 < s.land + 5.0]
        if s.hit:
            assert near, f"no flag raised for {s.arrow}"
            assert marker.track.posture_at([near[0].t0 + 0.1])[0] == "kneel"     # 获者坐而获
    assert len(raises) == sum(s.hit for s in case.shots)
    assert any(g.kind == "lower_flag" for g in marker.gestures)


def test_the_drum_beats_evenly_and_counted_hits_fall_on_them(case):
    beats = np.asarray(case.music.beats)
    assert case.music.piece == "驺虞" and len(beats) >= 5 * len(pairs_of(case))
    assert np.allclose(np.diff(beats), np.diff(beats)[0])                         # 间若一
    first = [s for s in case.shots if s.on_beat]
    assert first and all(beats[0] <= s.loose <= beats[-1] + 10 for s in first)


def test_eighty_tallies_eight_in_the_holder_and_seventy_two_west_of_it(case):
    tallies = sorted(k for k in case.props if case.props[k].kind == "算")
    assert tallies == [f"算{k:02d}" for k in range(1, 81)]
    zx, zy = case.landmarks["中"].position[:2]
    # 106 降復位 only (override): no 實八算于中 after the last count — there is no more shooting
    ev3 = case.event("p14.gao.jiang")
    lying = [k for k in tallies if case.props[k].carrier(ev3.start + 0.01) is None]   # not the 賢獲 he holds
    assert len(lying) < len(tallies)
    a = np.array([at(case, k, ev3.start)[0] for k in lying])
    b = np.array([at(case, k, ev3.end + 0.1)[0] for k in lying])
    assert np.allclose(a, b, atol=0.01)
    for ev in ("p1.gao.jiang",):
        t = case.event(ev).end + 0.1
        pos = np.array([at(case, k, t)[0] for k in tallies])
        post = [case.props[k].track.posture_at([t])[0] for k in tallies]
        in_holder = np.hypot(pos[:, 0] - zx, pos[:, 1] - zy) < 0.15
        assert in_holder.sum() == 8 and all(post[i] == "upright" for i in np.flatnonzero(in_holder)), ev
        west = (pos[:, 0] < zx - 0.3) & (np.abs(pos[:, 1] - zy) < 0.3) & ~in_holder
        assert west.sum() == 72, ev                                                # 委其余于中西


def test_score_is_what_the_tallies_say_and_agrees_with_the_victor(case):
    rounds = {s.round: s for s in case.score}
    assert set(rounds) == {2, 3}
    third = rounds[3]
    assert third.right == sum(s.counted for s in case.shots if s.side == "右")
    assert third.left == sum(s.counted for s in case.shots if s.side == "左")
    victor = case.options.get("victor", "右")
    for s in rounds.values():
        assert (s.right > s.left) == (victor == "右") and s.result == f"{victor}贤于{'左' if victor == '右' else '右'}"
        assert s.announced.startswith(s.result)
    # the count at 80 is of the tallies laid in the second round: as many as lie there at the start
    seat = case.landmarks["中"].position
    start = [at(case, k, 0.0)[0] for k in case.props if k.startswith("算")]
    laid = [p for p in start if np.hypot(p[0] - seat[0], p[1] - seat[1]) > 0.5]
    assert len(laid) == rounds[2].right + rounds[2].left


def test_the_principals_bared_geared_and_holding_bows_when_they_shoot(case):
    for who in ["宾", "主人", *[a for a in case.actors if a.startswith("大夫")]]:
        mine = [s for s in case.shots if s.archer == who]
        assert len(mine) == 4, who
        st = case.actors[who].state(mine[0].loose)
        assert st.get("bare_left_arm") and st.get("gear") and st.get("bow") == "strung", (who, st)
        assert f"{who}弓" in (st.get("holding") or []), (who, st)
        assert case.props[f"{who}弓"].carrier(mine[0].loose) == who


# -- the other acts read against 鄭/賈 --------------------------------------------------------------

def test_the_cup_is_set_on_the_stand_and_beside_it_below(case):
    """南面坐奠于丰上: the 觯 on the 丰's top (0.3 m and more above the floor); 坐奠于丰下: on the floor at its
    foot."""
    feng = case.props["丰"]
    on = case.event("p2.feng.zhuo").end + 0.5
    cup, _ = at(case, "觯", on)
    base, _ = at(case, "丰", on)
    assert np.hypot(cup[0] - base[0], cup[1] - base[1]) < 0.05 and cup[2] - base[2] >= 0.3
    below = case.event("p2.ou1.dian").end + 0.5
    cup, _ = at(case, "觯", below)
    base, _ = at(case, "丰", below)
    assert abs(cup[2] - base[2]) < 0.01 and 0.1 < np.hypot(cup[0] - base[0], cup[1] - base[1]) < 0.6
    assert feng.carrier(on) is None


def test_the_cup_is_on_the_stand_before_the_director_commands(case):
    """胜者之弟子…奠于丰上。降…反位。司射遂袒执弓…命三耦: 遂 — after the cup is set."""
    assert case.event("p2.feng.zhuo").end <= case.event("p2.ming.sishe").start


def test_the_marker_and_tally_keeper_take_only_the_lung(case):
    """取肺，坐祭: the lung only; the stand (俎) stays where it was set, in nobody's hand."""
    for who in ("获者", "释获者"):
        ev = [g for g in case.actors[who].gestures if g.kind == "take_lung"]
        assert ev, who
        zu = case.props[f"{who}俎"]
        assert zu.carrier(ev[0].t1 + 1.0) != who


def test_the_dishes_are_set_before_whom_they_are_offered_to(case):
    """凡他薦俎皆當其位之前 (鄭): the 荐 lies in front of the 释获者 kneeling at it, not under him."""
    ev = case.event("p6.ji")
    t = ev.end - 0.5
    me, heading = at(case, "释获者", t)
    dish, _ = at(case, "释获者荐", t)
    ahead = (dish[0] - me[0]) * np.sin(np.radians(heading)) + (dish[1] - me[1]) * np.cos(np.radians(heading))
    assert 0.3 < ahead < 1.2 and np.hypot(dish[0] - me[0], dish[1] - me[1]) < 1.2


def test_the_dishes_withdrawn_at_the_end_of_the_shooting(case):
    """獲者釋獲者亦退其薦俎 (鄭 at 111: 諸所退皆俟堂西): by the 旅酬 they lie on the ground west of the hall,
    in the row of the gear put away (射器位, CHOSEN north of 堂西), in nobody's hand."""
    gear = case.landmarks["射器位"].position
    west = case.landmarks["堂西"].position
    t = max(case.event("p17.hou").end, case.event("p17.zhong").end) + 0.5
    for k in ("获者荐", "获者俎", "释获者荐", "释获者俎"):
        p, _ = at(case, k, t)
        assert case.props[k].carrier(t) is None and p[2] < 0.05, k
        assert p[0] < west[0] + 0.5 and abs(p[1] - gear[1]) < 0.5 and np.hypot(p[0] - gear[0], p[1] - gear[1]) < 7.0, k


def test_next_day_the_host_does_not_come_out(case):
    """明日，宾朝服以拜赐于门外，主人不见: the guest bows outside the gate; the host stays within."""
    ev = case.event("p24.baici")
    gate_y = case.landmarks["门"].position[1]
    guest, _ = at(case, "宾", ev.end - 0.5)
    host, _ = at(case, "主人", ev.end - 0.5)
    assert guest[1] < gate_y and host[1] > gate_y + 20.0
    assert case.actors["宾"].track.posture_at([ev.end - 1.0])[0] == "kneel_bow"
    for who in [a for a in case.actors if a.startswith(("众宾", "大夫"))]:   # the other guests have gone
        p, _ = at(case, who, ev.end - 0.5)
        assert p[1] < gate_y - 30.0, who
