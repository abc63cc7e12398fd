"""The drinking rounds as the text orders them (112–122): 旅酬, 無筭爵, the seeing-off, on the default reading
and with 9 衆賓 (issue 23).  Each exchange goes 拜 → 答拜 → drink → fill → 進 → 拜 → 受 → 拜送 with the one
bowed to there and facing; in 無筭爵 the 宾 and 大夫 drink seated and the cups go round everyone (錯, 辯),
below too; the 工 are led by the hand and sit in a row; the cups lie beside the 薦, not on it; nobody holds
a cup that lies elsewhere; 立者東面北上."""
from __future__ import annotations

import math
from functools import lru_cache

import numpy as np
import pytest

from reconstruct.checks.audit import sample
from reconstruct.layout import load_reading
from reconstruct.model.plan import Plan
from reconstruct.rite import load_rite

BOWS = ("bow", "kneel_bow")
# the 主人之贊者 of the cast (鄭 114: 二人，主人之贊者; 鄉飲酒記: 主人之贊者西面北上)
ZANZHE = ["执爵者", "举觯者1", "举觯者2", "赞者1", "赞者2"]


@pytest.fixture(scope="module", params=[3, 9], ids=["3 衆賓", "9 衆賓"])
def case(request, plan, plan_of):
    return plan if request.param == 3 else plan_of("zheng_xuan", zhongbin=9)


@lru_cache(maxsize=None)
def _rite(zhongbin: int, dafu: int):
    return load_rite(zhongbin=zhongbin, dafu=dafu)


@pytest.fixture(scope="module")
def rite_of():
    """The rite script as loaded for a plan's cast (its groups: 堂下众宾, 三耦, 旅下甲 …)."""
    return lambda p: _rite(p.parameters["zhongbin"], p.parameters["dafu"])


def ev(p, ident):
    e = p.event(ident)
    assert e is not None, f"no event {ident}"
    return e


def where(p, who, t):
    """x, y, z, heading of a person or a prop at time t."""
    return sample(p.track(who), np.array([t]))[0]


def turned_off(p, towards, frm, t):
    """How far (degrees) ``frm`` is from facing ``towards`` at time t."""
    a, b = where(p, towards, t), where(p, frm, t)
    bearing = math.degrees(math.atan2(a[0] - b[0], a[1] - b[1])) % 360
    return abs((bearing - b[3] + 180) % 360 - 180)


def bows_between(p, t0, t1):
    return [(who, g) for who, a in p.actors.items() for g in a.gestures
            if g.kind in BOWS and t0 <= g.t0 <= t1 and g.object in p.actors]


# ------------------------------------------------------------------ 無筭爵 (117–119)
def test_everyone_drinks_in_the_rounds_without_count(case, rite_of):
    """錯 … 辯: every 衆賓 (on the hall and below), the 主人之贊者 (鄭: 衆賓之末飲而酬主人之贊者), the 宾, the
    主人, the 大夫, the 樂正 and the 三耦 drink between 使二人舉觶 and 反奠於賓與大夫."""
    g = rite_of(case).groups
    t0, t1 = ev(case, "p22.ju").start, ev(case, "p22.fandian").start
    everyone = ["宾", "主人", *g["大夫"], *g["众宾"], *ZANZHE, "乐正", *g["三耦"]]
    dry = [who for who in everyone
           if not any(x.kind == "drink" and t0 <= x.t0 <= t1 for x in case.actors[who].gestures)]
    assert not dry, dry


def test_guest_and_grandee_drink_where_they_sit(case):
    """宾與大夫不興 (鄭: 此坐于席): from 使二人舉觶 until the cups are set back, the 宾 and the 大夫 kneel on their
    mats and do not move; those who drink on the hall drink seated (迭飲於坐)."""
    t0, t1 = ev(case, "p22.ju").start, ev(case, "p22.fandian").end - 0.05
    ts = np.arange(t0, t1, 0.2)
    for who in ("宾", "大夫"):
        tr = case.actors[who].track
        assert set(tr.posture_at(ts).tolist()) == {"kneel"}, who
        xy = sample(tr, ts)[:, :2]
        assert np.ptp(xy, axis=0).max() < 0.05, who
    cuo = ev(case, "p22.cuo")
    sips = [(who, x) for who, a in case.actors.items() for x in a.gestures
            if x.kind == "drink" and cuo.start <= x.t0 <= cuo.end]
    assert len(sips) >= 4
    for who, x in sips:
        assert case.actors[who].track.posture_at([(x.t0 + x.t1) / 2])[0] == "kneel", who


def test_the_cups_cross_and_go_down(case, rite_of):
    """錯: the 宾's cup to the 主人, the 大夫's to the 長 (众宾1); then 辯: the one reaches the 主人之贊者, the
    other the 賓黨 below (the 三耦), each carried by whoever drinks it."""
    g = rite_of(case).groups
    lx = ev(case, "p22.lüxia").start
    end = ev(case, "p22.fandian").start

    def carriers(cup, t0, t1):
        c = case.props[cup].carriers
        return {w for t, w in zip(c.times, c.values) if t0 <= t <= t1}

    assert "主人" in carriers("宾觯", ev(case, "p22.cuo").start, lx)
    assert "众宾1" in carriers("大夫觯", ev(case, "p22.cuo").start, lx)
    below = carriers("宾觯", lx, end) | carriers("大夫觯", lx, end)
    assert set(ZANZHE) <= below and set(g["三耦"]) <= below and "乐正" in below
    assert set(g["堂下众宾"]) <= below


def test_the_last_receiver_holds_the_cup_he_takes_down(case, rite_of):
    """卒受者興以旅在下者 / 卒受者以虛觶降奠于篚: the last on the hall rises with the cup in his hand and takes it
    to the top of the 西階; the last below carries it down the stair and lays it in the 篚."""
    g = rite_of(case).groups
    lx = ev(case, "p22.lüxia")
    cup, pledger = g["旅下甲"][0], g["旅下甲"][1]
    assert all(case.props[cup].carrier(t) == pledger for t in np.arange(lx.start, lx.end, 0.2))
    x, y, *_ = where(case, pledger, lx.end)
    lx_, ly_, _ = case.landmarks["西阶上"].position
    assert math.hypot(x - lx_, y - ly_) < 1.5
    for name in ("甲", "乙"):
        e, round_ = ev(case, f"p22.dian.{name}"), g[f"旅下{name}"]
        cup, who = round_[0], round_[-1]
        ts = np.arange(e.start, e.end, 0.2)
        z = sample(case.actors[who].track, ts)[:, 2]
        on_stair = ts[(z > 0.05) & (z < case.hall_height - 0.05)]
        assert len(on_stair), e.id
        assert all(case.props[cup].carrier(t) == who for t in on_stair), e.id
        bx, by, *_ = where(case, cup, e.end)
        fx, fy, _ = case.landmarks["篚"].position
        assert math.hypot(bx - fx, by - fy) < 1.0, e.id


# ------------------------------------------------------------------ 旅酬 (112–113)
def test_every_bow_of_the_pledging_is_made_to_someone_there(case):
    """A bow is made to one who is there: within 2 m and turned towards the bower (side by side, both facing
    north as the text has them, counts: ≤ 100°); each 答拜 starts once the bow it answers is done."""
    t0, t1 = ev(case, "p18.chou").start, ev(case, "p18.zushou").end
    bows = bows_between(case, t0, t1)
    assert len(bows) >= 30
    for who, g in bows:
        a, b = where(case, who, g.t0), where(case, g.object, g.t0)
        assert math.hypot(a[0] - b[0], a[1] - b[1]) <= 2.0, (who, g)
        assert turned_off(case, who, g.object, g.t0) <= 100.0, (who, g)
        answered = [h for h in case.actors[g.object].gestures
                    if h.kind == "kneel_bow" and h.object == who and g.t0 - 30 <= h.t0 < g.t0]
        if g.kind == "kneel_bow" and answered:
            assert g.t0 >= max(answered, key=lambda h: h.t0).t1 - 1e-6, (who, g)
    # 無筭爵 … 皆不拜, 辯旅皆不拜: from 使二人舉觯 to the cups set back, nobody bows
    assert bows_between(case, ev(case, "p22.ju").start, ev(case, "p22.fandian").end) == []


def test_the_host_answers_once_the_guest_has_risen_with_the_cup(case):
    """宾坐奠觯，拜，执觯兴。主人答拜."""
    e = ev(case, "p18.bai")
    guest = [g for g in case.actors["宾"].gestures if g.kind == "kneel_bow" and e.start <= g.t0 <= e.end]
    host = [g for g in case.actors["主人"].gestures if g.kind == "kneel_bow" and e.start <= g.t0 <= e.end]
    assert len(guest) == 1 and len(host) == 1 and host[0].object == "宾"
    took = [g for g in case.actors["宾"].gestures if g.kind == "take" and g.t0 >= guest[0].t1 and g.t0 <= e.end]
    assert took and host[0].t0 >= took[0].t1


def test_cups_pass_at_the_top_of_the_west_stair(case):
    """如賓酬主人之禮 at the 西階上 (主人以觶適西階上酬大夫; 受酬于西階上): from the 主人's pledge to the 大夫 on,
    the cup passes from hand to hand within 1.5 m of the top of the 西階 — not at the 尊."""
    t0, t1 = ev(case, "p18.dafu2").start, ev(case, "p18.zushou").end
    c = case.props["酬觯"].carriers
    lx, ly, _ = case.landmarks["西阶上"].position
    passes = [(t, a, b) for (a, (t, b)) in zip(c.values, list(zip(c.times, c.values))[1:])
              if t0 <= t <= t1 and a in case.actors and b in case.actors]
    assert len(passes) >= 4
    for t, a, b in passes:
        x, y, *_ = where(case, b, t)
        assert math.hypot(x - lx, y - ly) <= 1.5, (a, b, t)


def test_those_below_and_the_music_master_are_pledged(case, rite_of):
    """遂酬在下者 (鄭: 在下謂賓黨也): the 衆賓 below, the 樂正 (記 樂正與立者齒) and the 三耦 (記 鄭: 弟子，賓黨之
    少者也) each receive the 旅 cup and drink it."""
    g = rite_of(case).groups
    t0, t1 = ev(case, "p18.chou").start, ev(case, "p18.zushou").end
    c = case.props["酬觯"].carriers
    got = {w for t, w in zip(c.times, c.values) if t0 <= t <= t1}
    for who in [*g["堂下众宾"], "乐正", *g["三耦"]]:
        assert who in got, who
        assert any(x.kind == "drink" and x.object == "酬觯" and t0 <= x.t0 <= t1
                   for x in case.actors[who].gestures), who


# ------------------------------------------------------------------ 弟子相工 (112)
def test_musicians_led_by_the_hand_and_seated_in_a_row(case):
    """弟子相工，如其降也 (first half: 相者 … 右手相): each 工 walks with his junior's hand in his, never more than a
    couple of steps from him: led by the junior up to the head of the 西階, then along the hall's edge ahead of him
    to his seat (one abreast there, the 薦 before the seats); the 工 sit in a row on their mat, facing north, the
    大師 east."""
    # the procedure 相工 performed again (p18.xianggong.xiang … .sheng: each sits as he comes)
    start, end = ev(case, "p18.xianggong.xiang").start, ev(case, "p18.xianggong.sheng").end
    ts = np.arange(start, end, 0.1)
    seats = []
    for i, (g, d) in enumerate(zip(("大师", "工2", "工3", "工4"), ("弟子1", "弟子2", "弟子3", "弟子4"))):
        held = [x for x in case.actors[d].gestures if x.kind == "lead" and x.object == g] + \
               [x for x in case.actors[g].gestures if x.kind == "lead" and x.object == d]
        assert len(held) == 2, g
        walking = ts[case.actors[g].track.posture_at(ts) == "walk"]
        assert len(walking) > 50
        inside = np.zeros(len(walking), bool)
        for x in held:
            inside |= (walking >= x.t0) & (walking <= x.t1)
        assert inside.all(), g                         # he walks only with the hand held
        a, b = sample(case.actors[g].track, walking), sample(case.actors[d].track, walking)
        gap = np.hypot(a[:, 0] - b[:, 0], a[:, 1] - b[:, 1])
        assert gap.max() <= 1.9 and gap.mean() <= 1.1 and gap.min() > 0.5, (g, gap.max(), gap.mean())   # a step
        x, y, z, h = where(case, g, end)
        assert case.actors[g].track.posture_at([end])[0] == "kneel"
        assert abs(z - case.hall_height) < 0.01 and abs((h + 180) % 360 - 180) <= 20
        seats.append((x, y))
    xs, ys = np.array(seats).T
    assert np.ptp(ys) < 0.05 and (np.diff(xs) < -0.55).all()          # one row, the senior east
    mat = case.landmarks["工席"].position
    assert abs(ys.mean() - mat[1]) < 0.1 and abs(xs.mean() - mat[0]) < 0.3


# ------------------------------------------------------------------ props
def test_cups_lie_beside_the_dishes_not_on_them(case):
    """記 凡奠者於左，將舉者於右: the 旅 cup west of the 宾's 薦 (賈: 奠于薦西), the 主人's cup not to be raised
    east of it (酬酒不舉), the raised cups set back west of the 薦 — beside, never on it."""
    def off(cup, dish, t):
        c, d = where(case, cup, t), where(case, dish, t)
        return c[0] - d[0], c[1] - d[1]

    dx, dy = off("酬觯", "宾荐", 0.0)
    assert dx <= -0.3 and abs(dy) <= 0.3
    for t in (0.0, case.duration):
        dx, dy = off("奠觯", "宾荐", t)
        assert dx >= 0.3 and abs(dy) <= 0.3
    for t in (ev(case, "p19.dian").end, ev(case, "p22.fandian").end):
        for cup, dish in (("宾觯", "宾荐"), ("大夫觯", "大夫荐")):
            dx, dy = off(cup, dish, t)
            assert dx <= -0.3 and abs(dy) <= 0.3, (cup, t)


def test_nobody_holds_a_cup_that_lies_elsewhere(case):
    """A cup set down or handed over is no longer held: whatever cup one holds is in one's hand."""
    wrong = []
    for who, a in case.actors.items():
        st = a.states
        for i, (t, v) in enumerate(zip(st.times, st.values)):
            t_next = st.times[i + 1] if i + 1 < len(st.times) else case.duration
            for prop in (v or {}).get("holding") or []:
                if case.props[prop].kind not in ("觯", "爵"):
                    continue
                for tt in (t + 1e-3, (t + t_next) / 2, t_next - 1e-3):
                    if case.props[prop].carrier(tt) != who:
                        wrong.append((who, prop, round(tt, 1)))
                        break
    assert not wrong, wrong[:5]


def test_delicacies_are_carried_up_and_set_before_each_seat(case, rite_of):
    """乃羞 (鄭: 所進者狗胾醢也): the 主人之贊者 carry a dish up the 西階 for each who sits on the hall and set it
    before him; when the cups go round each has his dish."""
    g = rite_of(case).groups
    t = ev(case, "p22.ju").start
    for who in ["宾", "主人", *g["大夫"], *g["堂上众宾"]]:
        dish = f"{who}羞"
        carriers = set(case.props[dish].carriers.values) - {None}
        assert carriers and carriers <= {"赞者1", "赞者2"}, dish
        x, y, z, _ = where(case, dish, t)
        sx, sy, *_ = where(case, who, t)
        assert abs(z - case.hall_height) < 0.01 and math.hypot(x - sx, y - sy) < 1.8, dish


def test_overseer_stands_south_of_his_dish_and_cup(case):
    """記 司正既舉觶而薦諸其位 (鄭: 薦於觶南; 賈: 觶南位北): his cup, then his 薦, then he, from north to south."""
    cup = case.landmarks["觯位"].position
    dish = where(case, "司正荐", 0.0)
    me = where(case, "司马", ev(case, "p18.sizheng").end)
    assert abs(dish[0] - cup[0]) < 0.3 and 0.2 < cup[1] - dish[1] < 0.8
    assert abs(me[0] - dish[0]) < 0.6 and me[1] < dish[1] - 0.4


@pytest.mark.parametrize("name", ["zheng_xuan", "ao_jigong", "yishu_1748", "dashe_fa", "zhou_chi_197",
                                  "zheng_xuan_xiang"])
def test_host_mat_lies_north_of_the_stair_head(name):
    """主人降席自南方，阼階上北面 (115): the spot at the top of the 阼階 lies off the host's mat, to its south."""
    r = load_reading(name)
    mat, spot = r.landmarks["主人席"], r.landmarks["阼阶上"].position
    length = mat.size[0]                  # 七尺 across the way he faces (west): north–south
    assert mat.position[1] - length / 2 >= spot[1] + 0.3


def test_host_steps_off_his_mat_to_the_stair_head(case):
    e = ev(case, "p21.jiangxi")
    x, y, *_ = where(case, "主人", e.end)
    mat = case.landmarks["主人席"]
    assert y < mat.position[1] - mat.size[0] / 2 if mat.size else y < mat.position[1] - 0.8


# ------------------------------------------------------------------ 徹俎 (115)
def grandees_stands_cleared(p, rite) -> list[str]:
    """What is wrong with the clearing of the 大夫's stands in plan p (empty: nothing): 大夫取俎，還授弟子，弟子以降
    自西階，遂出授從者。大夫從之降，立于賓南 — for every 大夫 (each has his 俎: 記 若有尊者則俎其餘體也), by events citing
    those words; he takes his own 俎 on the hall and hands it to a junior (弟子, 賓黨: 鄭 on 命弟子俟徹俎), who hands it
    to the 大夫's own attendant outside the gate (鄭 on the 賓's: 授賓家從來者也), who keeps it to the end; the 大夫
    comes down after it and stands south of the guest, each further one south of the one before; the dish brought
    up for him (乃羞) lies where his 俎 stood, the 俎 gone."""
    g, out = rite.groups, []
    gate_y, hall = p.landmarks["门"].position[1], p.hall_height
    t_stand = ev(p, "p21.zhongbin").start
    first = ev(p, "p21.dafu")
    south_of = "宾"
    for d, attendant in zip(g["大夫"], g["大夫从者"]):
        sfx = "" if d == "大夫" else f".{d}"
        e, out_, down = p.event(f"p21.dafu{sfx}"), p.event(f"p21.dafuchu{sfx}"), p.event(f"p21.dafujiang{sfx}")
        if e is None or out_ is None or down is None:
            out.append(f"{d}: no event p21.dafu{sfx} / p21.dafuchu{sfx} / p21.dafujiang{sfx}")
            continue
        if e.span != first.span or d not in e.actors:
            out.append(f"{d}: p21.dafu{sfx} does not cite 大夫取俎… as the first's ({e.span}, {first.span})")
        zu = p.props[f"{d}俎"]
        rows = [(t, c) for t, c in zu.carriers.rows() if c is not None and t >= ev(p, "p21.qing").start]
        if [c for _, c in rows] != [d, "弟子3", attendant]:
            out.append(f"{d}俎 carried by {[c for _, c in rows]}, not {d} → 弟子3 → {attendant}")
            continue
        (t_take, _), (t_junior, _), (t_out, _) = rows
        if not e.start <= t_take < t_junior <= e.end or not out_.start <= t_out <= out_.end:
            out.append(f"{d}俎 not taken and handed on within p21.dafu{sfx}, handed out within p21.dafuchu{sfx}")
        if abs(where(p, d, t_junior)[2] - hall) > 0.01:
            out.append(f"{d} hands his 俎 over off the hall")
        if where(p, attendant, t_out)[1] > gate_y:
            out.append(f"{d}俎 handed to {attendant} inside the gate")
        for t in (out_.end, ev(p, "p22.ju").start, p.duration):
            x, y, z, _ = where(p, f"{d}俎", t)
            if zu.carrier(t) != attendant or y > gate_y:
                out.append(f"{d}俎 at {t:.0f} s: held by {zu.carrier(t)}, y {y:.1f} (the gate {gate_y:.1f})")
        me, other = where(p, d, t_stand), where(p, south_of, t_stand)
        # 從之降: after the junior has gone down with it (as the 賓 after the 司正), not once it is out of the gate
        ts = np.arange(down.start, down.end + 0.05, 0.1)
        down_at = ts[np.argmax(sample(p.track(d), ts)[:, 2] < 0.01)]
        if not t_junior < down_at < t_out or me[2] > 0.01 or not 0.3 < other[1] - me[1] < 1.5 or abs(other[0] - me[0]) > 0.5:
            out.append(f"{d} not come down after his 俎 to stand south of {south_of} ({me[:3]}, {other[:3]})")
        stood = where(p, f"{d}俎", ev(p, "p21.qing").start)
        dish = where(p, f"{d}羞", ev(p, "p22.ju").start)
        if math.dist(stood[:2], dish[:2]) > 0.3 or abs(dish[2] - stood[2]) > 0.01:
            out.append(f"{d}羞 not where his 俎 stood")
        south_of = d
    return out


def test_every_grandee_clears_his_own_stand(plan, plan_of, rite_of):
    """With 2 大夫 each takes his own 俎, turns and hands it to the junior, who takes it down and out of the gate to
    that 大夫's own attendant; each comes down after it and stands south of the guest (the second south of the
    first); the delicacies are set where the stands stood.  Before, the second's 俎 stayed on the hall beside his
    dish, and he on his mat: the check finds that when the plan is made so."""
    p = plan_of("zheng_xuan", dafu=2)
    rite = rite_of(p)
    assert rite.groups["大夫从者"] == ["从者2", "从者3"]
    assert grandees_stands_cleared(p, rite) == [] and grandees_stands_cleared(plan, rite_of(plan)) == []
    raw = p.to_dict()
    raw["props"]["大夫2俎"]["carrier"] = []
    raw["props"]["大夫2俎"]["keys"] = raw["props"]["大夫2俎"]["keys"][:1]     # left where it stood
    raw["actors"]["大夫2"]["keys"] = raw["actors"]["大夫2"]["keys"][:1]       # and he on his mat
    found = grandees_stands_cleared(Plan.from_dict(raw), rite)
    assert any(f.startswith("大夫2俎 carried by []") for f in found), found
    assert not any(f.startswith("大夫俎") or f.startswith("大夫 ") for f in found), found
    raw = p.to_dict()
    raw["actors"]["大夫2"]["keys"] = raw["actors"]["大夫2"]["keys"][:1]       # his 俎 carried off, he on his mat
    assert [f.split(" (")[0] for f in grandees_stands_cleared(Plan.from_dict(raw), rite)] == [
        "大夫2 not come down after his 俎 to stand south of 大夫"]


# ------------------------------------------------------------------ 立者東面北上 (記 128)
def test_those_standing_below_face_east_seniors_north(plan_of):
    """With 9 衆賓, 衆賓4–9 stand below: from the pledging on they stand in one file facing east, the senior
    north (記 立者東面北上; 賈: 與堂下衆賓齒，東面北上而立) — each time they are not walking to drink."""
    p = plan_of("zheng_xuan", zhongbin=9)
    who = [f"众宾{k}" for k in range(4, 10)]
    for t in (ev(p, "p18.zhuren").start, ev(p, "p22.ju").start, ev(p, "p22.lüxia").start,
              ev(p, "p23.gai").start):
        at = np.array([where(p, w, t) for w in who])
        assert (at[:, 2] < 0.01).all()
        assert all(abs((h - 90 + 180) % 360 - 180) <= 30 for h in at[:, 3]), t
        assert (np.diff(at[:, 1]) < -0.4).all() and np.ptp(at[:, 0]) < 0.3, t


# ------------------------------------------------------------------ the seeing-off (120)
def test_host_sees_the_guests_off_without_keeping_them_waiting(case):
    """主人送于門外，再拜 (鄭: 拜送賓于門東西面): the host rises and goes down as the guest goes, goes out of the
    gate right after him and stands east of it as the others come out, and bows to the 宾 as soon as they
    all are out: nobody waits for him."""
    down, out = ev(case, "p23.zuo"), ev(case, "p23.chu")
    ts = np.arange(out.start, out.end + 0.05, 0.1)
    host = case.actors["主人"].track
    assert sample(host, np.array([out.start]))[0, 2] < 0.01           # he came down as the guest did
    guest = ts[case.actors["宾"].track.posture_at(ts) == "walk"]
    mine = ts[host.posture_at(ts) == "walk"]
    assert mine[-1] - guest[-1] <= 10.0, (mine[-1], guest[-1])       # out as the 宾 is
    assert mine[0] < guest[-1] and down.start < mine[0] + 60
    bow = [g for g in case.actors["主人"].gestures if g.kind == "kneel_bow" and g.object == "宾" and g.t0 >= out.start]
    assert bow and bow[0].t0 - out.end <= 5.0
    x, y, *_ = where(case, "主人", bow[0].t0)
    gate = case.landmarks["门"].position
    assert y < gate[1] and x > gate[0]


# ------------------------------------------------------------------ render.py check: the statements of these acts
def test_check_measures_the_acts_and_can_fail(plan):
    """The catalogue's act statements (drinks, bows, holds, hands_over) pass on the plan, and fail where the
    plan is made wrong: the 主人 taken 3 m away while the 宾 bows to him, a cup left in a hand it has left."""
    from reconstruct.checks.statements import evaluate_all, load_catalogue
    from reconstruct.model.plan import Plan

    cat = [s for s in load_catalogue() if s.id in ("d01", "d02", "d13", "d22", "d26")]
    assert {r.statement.id: r.status for r in evaluate_all(plan, cat)} == dict.fromkeys(
        ("d01", "d02", "d13", "d22", "d26"), "pass")
    raw = plan.to_dict()
    bow = next(g for g in plan.actors["宾"].gestures if g.kind == "kneel_bow" and g.object == "主人")
    for k in raw["actors"]["主人"]["keys"]:
        if bow.t0 - 20 <= k[0] <= bow.t1 + 20:
            k[1] += 3.0
    cup_gone = ev(plan, "p18.jiuxi").start
    raw["actors"]["宾"]["states"].append([cup_gone, {**plan.actors["宾"].state(cup_gone), "holding": ["酬觯"]}])
    bad = Plan.from_dict(raw)
    got = {r.statement.id: r for r in evaluate_all(bad, cat)}
    assert got["d01"].status == "fail" and "宾 bows to 主人" in got["d01"].message
    assert got["d13"].status == "fail" and "宾 holds 酬觯" in got["d13"].message
