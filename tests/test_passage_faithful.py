"""The passage as 鄭 and 賈 read it, act by act (issues of the 如初, the 記 and (80)–(99)): each test names the
words it holds the plan to, and reads the plan only."""
from __future__ import annotations

import math

import numpy as np
import pytest

from reconstruct.checks.conservation import conservation
from reconstruct.layout import load_reading
from reconstruct.layout.reading import list_readings

CASES = [dict(), dict(zhongbin=9), dict(dafu=0), dict(dafu=2), dict(options=(("victor", "左"),))]


def _ev(plan, eid):
    e = plan.event(eid)
    assert e is not None, eid
    return e


def _at(plan, who, t):
    xyz, h = plan.actors[who].track.at(t)
    return np.asarray(xyz), float(h)


def _facing(plan, who, other, t, within=100.0) -> bool:
    """Whether ``who`` at time t faces ``other`` (the other lies within ``within`` degrees of his heading)."""
    a, h = _at(plan, who, t)
    b, _ = _at(plan, other, t)
    bearing = math.degrees(math.atan2(b[0] - a[0], b[1] - a[1])) % 360
    return abs((bearing - h + 180) % 360 - 180) <= within


def _gestures(plan, who, kind, t0, t1, obj=None):
    return [g for g in plan.actors[who].gestures if g.kind == kind and t0 - 1e-6 <= g.t0 <= t1 + 1e-6
            and (obj is None or g.object == obj)]


# ------------------------------------------------------------------ the audits, on every cast and option
@pytest.mark.parametrize("case", CASES, ids=["default", "zhongbin9", "dafu0", "dafu2", "victor左"])
def test_nothing_moves_unless_carried_and_nobody_overlaps(plan_of, audit_of, case):
    """Nothing moves unless someone carries it (or it flies); nothing changes hands at a distance; nobody
    drinks, pours, washes or hands over what he does not hold, nor takes his arrows without his bow; nobody
    stands on a dish served; nobody overlaps anybody, a fixture or a level."""
    plan = plan_of(**case)
    assert conservation(plan) == []
    assert "name" not in case                          # every case is on 鄭's reading, the audit's default
    assert audit_of(plan) == []             # audit(plan, reading, limit=10_000), once per run (conftest)


# ------------------------------------------------------------------ (80)–(87) the count watched
def test_the_director_watches_the_whole_count(plan):
    """進由中東，立于中南，北面視筭 … 其餘如右獲。司射復位: he stands south of the 中 facing north from before the
    釋獲者 sits until the left's tallies are laid, and only then goes back to his place."""
    watch, left, back = _ev(plan, "p1.shisuan"), _ev(plan, "p1.zuohuo"), _ev(plan, "p1.fuwei")
    assert back.start >= left.end - 1e-6
    zhong = np.asarray(plan.landmarks["中"].position[:2])
    for t in np.linspace(watch.end, left.end, 12):
        p, h = _at(plan, "司射", t)
        assert p[1] < zhong[1] and abs(p[0] - zhong[0]) < 0.6 and min(h, 360 - h) < 30, (t, p, h)


# ------------------------------------------------------------------ (88)–(91) the forfeit
def test_the_winners_junior_is_the_youngest_winning_archer(plan):
    """勝者之弟子 (鄭: 其少者也; 賈: 此弟子由堂西，固在射賓中矣): an archer of the winning side, who fills the cup
    and goes back to his own place on the archers' line (反位, 鄭: 執弓反射位)."""
    ev = _ev(plan, "p2.feng.zhuo")
    filler = [a for a in ev.actors if a != "司射"]
    assert filler == ["下耦上射"]
    assert any(s.archer == "下耦上射" for s in plan.shots)
    back = _ev(plan, "p2.feng.fanwei")
    st = plan.actors["下耦上射"].state(back.end)
    assert st.get("bare_left_arm") and "下耦上射弓" in st.get("holding", [])


@pytest.mark.parametrize("case", [dict(zhongbin=9), dict(options=(("victor", "左"),))], ids=["zhongbin9", "victor左"])
def test_dress_follows_each_pairs_result(plan_of, case):
    """勝者皆袒決遂，執張弓；不勝者皆襲，說決拾，執弛弓 — by each pair's result, for every pair below (with the
    大夫's partner in the list, the others' parity must not shift)."""
    plan = plan_of(**case)
    t = _ev(plan, "p2.ming.shewei").end
    right_wins = dict(case.get("options", ())).get("victor", "右") == "右"
    for pair in ("上耦", "次耦", "下耦"):
        win, lose = (f"{pair}上射", f"{pair}下射") if right_wins else (f"{pair}下射", f"{pair}上射")
        sw, sl = plan.actors[win].state(t), plan.actors[lose].state(t)
        assert sw["bare_left_arm"] and sw["gear"] and sw["bow"] == "strung", (win, sw)
        assert not sl["bare_left_arm"] and not sl["gear"] and sl["bow"] == "unstrung", (lose, sl)
    n = case.get("zhongbin", 3)
    for j in range(1, (n - 1) // 2 + 1):        # the 衆賓 pairs after the 大夫's partner
        up, down = f"众宾{2 * j}", f"众宾{2 * j + 1}"
        win, lose = (up, down) if right_wins else (down, up)
        assert plan.actors[win].state(t)["bow"] == "strung" and plan.actors[lose].state(t)["bow"] == "unstrung"


def test_a_pair_comes_to_the_stair_abreast_and_bows_with_those_it_passes(plan):
    """一耦進，揖如升射 (並行，當階北面揖): abreast, facing north, side by side as they will stand to drink — the
    winner on the east, the loser on the west (CHOSEN after 賈: 相飲者皆北面於西階，授者在東，飲者在西; 鄭: 少右…
    亦相飲之位), each going up on his own side; 不勝者先降，與升飲者相左，交于階前，相揖: the loser and the next
    pair bow to each other, the loser on the west."""
    jin = _ev(plan, "p2.ou2.jin")
    loser = "次耦下射" if plan.options.get("victor", "右") == "右" else "次耦上射"
    winner = "次耦上射" if loser == "次耦下射" else "次耦下射"
    w, hw = _at(plan, winner, jin.end)
    lo, hl = _at(plan, loser, jin.end)
    assert lo[0] < w[0] and abs(w[1] - lo[1]) < 0.2 and 0.5 < w[0] - lo[0] < 1.0
    assert abs((hw + 180) % 360 - 180) < 30 and abs((hl + 180) % 360 - 180) < 30
    jiang = _ev(plan, "p2.ou1.jiang")
    a = _gestures(plan, "上耦下射", "bow", jiang.start, jiang.end, "次耦上射")
    b = _gestures(plan, "次耦上射", "bow", jiang.start, jiang.end, "上耦下射")
    assert a and b and abs(a[0].t0 - b[0].t0) < 6.0
    loser, _ = _at(plan, "上耦下射", a[0].t0)
    nxt, _ = _at(plan, "次耦上射", a[0].t0)
    assert loser[0] < nxt[0] and np.hypot(*(loser - nxt)[:2]) < 2.0


@pytest.mark.parametrize("step,upper,lower", [("p12.ou1.zu.jiang", "上耦上射", "上耦下射"),
                                               ("p12.zh1.zu.jiang", "众宾2", "众宾3"),
                                               ("p12.dafu1.zu.jiang", "众宾1", "大夫")])
def test_after_shooting_a_pair_bows_at_the_head_and_the_foot_of_the_stair(plan, step, upper, lower):
    """卒射皆執弓不挾，南面揖，揖如升射 (the 大夫 and his partner: 卒射，揖如升射，耦先降): where they bowed going
    up they bow coming down — the 上射 (or the partner) at the stair's head, as he did after going up, and both
    at its foot, as at 及階 (the text spells it out for the 賓 and 主人: 卒南面揖，皆由其階，階上揖，降階揖; 義疏:
    前所揖處皆揖，上下亦各三揖)."""
    ev = _ev(plan, step)
    head = np.asarray(plan.landmarks["西阶上"].position)
    foot = np.asarray(plan.landmarks["西阶下"].position)
    ups = _gestures(plan, upper, "bow", ev.start, ev.end, lower)
    assert len(ups) >= 3, ups                  # 南面揖 at the mark, 階上揖, 降階揖
    at_head = [g for g in ups if np.hypot(*(_at(plan, upper, g.t0)[0] - head)[:2]) < 1.5
               and _at(plan, upper, g.t0)[0][2] > 0.5 * plan.hall_height]
    at_foot = [g for g in ups if np.hypot(*(_at(plan, upper, g.t0)[0] - foot)[:2]) < 1.5
               and _at(plan, upper, g.t0)[0][2] < 0.05]
    assert at_head and at_foot, [(g.t0, _at(plan, upper, g.t0)[0]) for g in ups]
    down = [g for g in _gestures(plan, lower, "bow", ev.start, ev.end, upper)
            if abs(g.t0 - at_foot[0].t0) < 4.0]
    assert down and _at(plan, lower, down[0].t0)[0][2] < 0.05
    assert at_head[0].t0 < at_foot[0].t0


def test_the_loser_steps_back_to_drink_and_forward_to_set_the_cup_down(plan):
    """不勝者進，北面坐取豐上之觶，興，少退，立卒觶，進，坐奠于豐下: back is south, forward north."""
    qu, yin, dian = _ev(plan, "p2.ou1.qu"), _ev(plan, "p2.ou1.yin"), _ev(plan, "p2.ou1.dian")
    a, _ = _at(plan, "上耦下射", qu.end)
    b, _ = _at(plan, "上耦下射", yin.end)
    c, _ = _at(plan, "上耦下射", dian.end)
    assert b[1] < a[1] - 0.2 and c[1] > b[1] + 0.2


def test_those_who_drink_at_their_mats_drink_a_washed_cup_and_hand_it_back_where_they_drank(plan):
    """執爵者取觶降洗，升實之，以授于席前 … 受觶，以適西階上北面立飲。卒觶，授執爵者: washed and filled for each;
    handed back at the top of the 西階."""
    for i, who in enumerate(("主人", "大夫"), 1):
        shou, fan = _ev(plan, f"p2.xi{i}.shou"), _ev(plan, f"p2.xi{i}.fan")
        assert _gestures(plan, "执爵者", "wash", shou.start, shou.end, "觯")
        assert _gestures(plan, "执爵者", "pour", shou.start, shou.end, "觯")
        give = [g for g in plan.actors[who].gestures if g.kind == "hand_over" and fan.start <= g.t0 <= fan.end]
        assert give
        p, _ = _at(plan, who, give[0].t1)
        xi = np.asarray(plan.landmarks["西阶上"].position[:2])
        assert np.hypot(*(p[:2] - xi)) < 1.5


# ------------------------------------------------------------------ (92)–(97) the offerings
def test_the_marker_offers_at_each_part_of_the_target_with_the_stand_north_of_the_dish(plan):
    """適右个…適左个、中，亦如之: at each, 取肺 and the offering, the 俎 north of the 薦 (鄭: 俎當其北), the dishes
    not taken up while he offers."""
    for call in ("p5.you", "p5.zuo", "p5.zhong"):
        ji = _ev(plan, f"{call}.ji")
        assert _gestures(plan, "获者", "take_lung", ji.start, ji.end)
        mid = (ji.start + ji.end) / 2
        jian, _ = plan.props["获者荐"].track.at(mid)
        zu, _ = plan.props["获者俎"].track.at(mid)
        assert zu[1] > jian[1] + 0.3 and abs(zu[0] - jian[0]) < 0.2
        for t in np.linspace(ji.start, ji.end, 6):
            assert plan.props["获者荐"].carrier(t) is None and plan.props["获者俎"].carrier(t) is None


def test_the_master_of_the_range_is_near_and_facing_north_as_the_marker_drinks(plan):
    """立飲薦右，近司馬，於是司馬北面 (鄭)."""
    yin = _ev(plan, "p5.yin")
    t = (yin.start + yin.end) / 2
    hz, _ = _at(plan, "获者", t)
    sm, h = _at(plan, "司马", t)
    assert np.hypot(*(hz - sm)[:2]) < 1.6
    assert min(h, 360 - h) < 30 and _facing(plan, "司马", "获者", t)


def test_the_dishes_at_the_screen_are_not_on_the_markers_spot(plan):
    """辟設于乏南 (鄭: 不使當位，辟舉旌偃旌也。設于南，右之也): the 薦 and 俎 lie south of his spot at the 乏, clear of
    it while he kneels there through the third round."""
    third = [s for s in plan.shots if s.round == 3]
    t = third[len(third) // 2].loose
    hz, _ = _at(plan, "获者", t)
    for dish in ("获者荐", "获者俎"):
        d, _ = plan.props[dish].track.at(t)
        assert np.hypot(*(d - hz)[:2]) > 0.6 and d[1] < hz[1]


def test_the_director_hands_the_cup_to_the_tally_keeper_facing_him(plan):
    """釋獲者薦右東面拜受爵，司射北面拜送爵; 辟薦少西 (鄭: 為復射妨司射視筭也，亦辟俎)."""
    bai = _ev(plan, "p6.bai")
    bows = _gestures(plan, "司射", "kneel_bow", bai.start, bai.end)
    assert bows
    t = (bows[0].t0 + bows[0].t1) / 2
    _, h = _at(plan, "司射", t)
    assert min(h, 360 - h) < 30 and _facing(plan, "司射", "释获者", t)
    watch = _ev(plan, "p14.shisuan")
    sishe, _ = _at(plan, "司射", watch.end)
    for dish in ("释获者荐", "释获者俎"):
        d, _ = plan.props[dish].track.at(watch.end)
        assert np.hypot(*(d - sishe)[:2]) > 0.5


# ------------------------------------------------------------------ (98)–(100) taking up the arrows
def test_both_of_a_pair_bow_before_and_at_the_rack(plan):
    """當楅北面揖，及楅揖 — the 下射 bows as well as the 上射."""
    for step in ("p8.2.dang.dang", "p8.2.jibi.ji"):
        ev = _ev(plan, step)
        for who in ("次耦上射", "次耦下射"):
            assert _gestures(plan, who, "bow", ev.start, ev.end), (step, who)


def test_the_guest_and_host_bow_to_each_other_and_take_arrows_across_the_rack(plan):
    """階前揖，及楅揖 … 主人西面，賓東面 (鄭): the 主人 returns every bow; the 宾 west of the 楅 facing east."""
    for step in ("p9.yi", "p9.jibi.ji", "p9.zu"):
        ev = _ev(plan, step)
        assert _gestures(plan, "宾", "bow", ev.start, ev.end, "主人")
        assert _gestures(plan, "主人", "bow", ev.start, ev.end, "宾")
    ev = _ev(plan, "p9.jibi.ji")
    rack = np.asarray(plan.landmarks["楅"].position[:2])
    b, hb = _at(plan, "宾", ev.end)
    z, hz = _at(plan, "主人", ev.end)
    assert b[0] < rack[0] < z[0] and abs(hb - 90) < 30 and abs(hz - 270) < 30


def test_the_principals_bows_lie_below_and_they_bare_before_taking_them(plan):
    """賓序西，主人序東，皆釋弓 (鄭: 或言堂或言序…互言也): their bows lie below; 袒決遂，執弓 — bared first."""
    for bow in ("宾弓", "主人弓", "大夫弓"):
        assert plan.props[bow].track.keys["z"][0] < 0.1, bow
    ev = _ev(plan, "p9.tan.tan")
    bare = _gestures(plan, "宾", "bare", ev.start, ev.end)
    take = _gestures(plan, "宾", "take", ev.start, ev.end, "宾弓")
    assert bare and take and bare[0].t0 < take[0].t0


def test_the_grandee_and_his_partner_take_four_together(plan):
    """說矢束 … 兼取乘矢 (鄭: 尊大夫不敢與之拾也), at 99 and again at 108 (如初)."""
    for call in ("p9.dafu.1", "p16.dafu1"):
        ou, qu = _ev(plan, f"{call}.ou"), _ev(plan, f"{call}.qu")
        assert len(_gestures(plan, "众宾1", "take_arrow", ou.start, ou.end)) == 1
        assert len(_gestures(plan, "大夫", "take_arrow", qu.start, qu.end)) == 1
        assert _gestures(plan, "大夫", "untie_arrows", _ev(plan, f"{call}.shu").start, _ev(plan, f"{call}.shu").end)


def test_the_last_taking_up_hands_bows_and_arrows_in_at_the_west_of_the_hall(plan):
    """矢不挾，兼諸弦弣以退，不反位，遂授有司于堂西: bow in hand, held along string and grip, handed to the 有司."""
    for who in ("上耦上射", "宾", "主人", "大夫"):
        takes = [g for g in plan.actors[who].gestures if g.kind == "take_arrow" and g.t0 > _ev(plan, "p16.qu").start]
        assert takes
        for g in takes:
            assert f"{who}弓" in plan.actors[who].state(g.t0 + 0.1)["holding"]
        assert plan.props[f"{who}弓"].carrier(plan.duration - 1) == "有司"


# ------------------------------------------------------------------ the 記
def test_the_grandee_bares_over_a_red_undershirt(plan):
    """記: 大夫與士射，袒纁襦 (鄭: 不肉袒，殊於耦)."""
    ev = _ev(plan, "p12.dafu1.she")
    st = plan.actors["大夫"].state((ev.start + ev.end) / 2)
    assert st["bare_left_arm"] and st.get("undershirt") == "纁襦"
    assert not plan.actors["众宾1"].state((ev.start + ev.end) / 2).get("undershirt")


def test_the_grandees_partner_steps_back_from_his_mark_after_each_arrow(plan):
    """記: 耦少退于物 (鄭: 下大夫也，既發則然)."""
    mine = sorted(s.loose for s in plan.shots if s.archer == "众宾1" and s.round == 3)
    wu = np.asarray(plan.landmarks["上物"].position[:2])
    p0, _ = _at(plan, "众宾1", mine[0] - 0.5)
    p1, _ = _at(plan, "众宾1", mine[0] + 2.0)
    assert np.hypot(*(p0[:2] - wu)) < 0.2 and p1[1] > p0[1] + 0.2


def test_the_director_attends_the_guest_and_host_going_up_and_down(plan):
    """記: 賓主人射則司射擯升降，卒射即席而反位."""
    up = _ev(plan, "p12.bz.sheng.sheng")
    down = _ev(plan, "p12.bz.jiang")
    jian = np.asarray(plan.landmarks["阶间"].position[:2])
    for t in (up.start + 0.5, (up.start + up.end) / 2, (down.start + down.end) / 2):
        p, _ = _at(plan, "司射", t)
        assert np.hypot(*(p[:2] - jian)) < 1.0, t


def test_the_grandee_goes_out_after_the_guests_and_is_seen_off_on_his_own(plan):
    """記: 大夫後出，主人送于門外再拜 (鄭: 主人送賓還入門，揖大夫，乃出送拜之)."""
    song, dafu = _ev(plan, "p23.song"), _ev(plan, "p23.dafu")
    assert dafu.start >= song.end - 1e-6
    gate_y = plan.landmarks["门"].position[1]
    p, _ = _at(plan, "大夫", song.end)
    assert p[1] > gate_y + 1.0                      # still inside while the guest is seen off
    assert _gestures(plan, "主人", "bow", dafu.start, dafu.end, "大夫")
    assert _gestures(plan, "主人", "kneel_bow", dafu.start, dafu.end, "大夫")


def test_the_music_without_count_and_the_gai_are_played(plan):
    """無筭樂 (鄭: 合鄉樂無次數) and 陔作 (鄭: 大夫士鼓而已): pieces of the plan, with the 工 playing."""
    pieces = {p.piece: p for p in plan.pieces}
    assert {"驺虞", "无算乐", "陔"} <= set(pieces)
    wu = pieces["无算乐"]
    assert wu.end - wu.start > 60 and not wu.beats
    assert any(g.kind == "play" and g.t0 <= wu.start + 5 and g.t1 >= wu.end - 5 for g in plan.actors["工2"].gestures)
    assert len(pieces["陔"].beats) >= 3


# ------------------------------------------------------------------ the readings and the cast
def test_each_readings_options_cite_its_own_author():
    """The options' defaults per reading follow that reading's author: 鄭's readings cite 鄭 (or 賈), 敖's 敖,
    the 義疏's the 義疏; the default reading sets the 獲者's dishes at his place (鄭: 薦之於位)."""
    author = {"ao_jigong": {"敖"}, "yishu_1748": {"义疏"}}      # the sources of the readings' [sources]
    for path in list_readings():
        r = load_reading(path)
        assert r.options, path.name
        who = author.get(path.stem, {"郑", "贾"})
        for name in r.options:
            first = r.option_basis[name][0].source            # the basis the choice rests on first (issue 32)
            assert first in who, (path.name, name, r.options[name][1])
    assert load_reading("zheng_xuan").options["huozhe_jianzu"][0] == "位"
    assert load_reading("ao_jigong").options["huozhe_jianzu"][0] == "侯"


def test_the_plan_follows_its_readings_options(plan, plan_of):
    assert plan.options["huozhe_jianzu"] == "位"
    assert plan_of("ao_jigong").options["huozhe_jianzu"] == "侯"


@pytest.mark.parametrize("dafu", [0, 2])
def test_any_number_of_grandees_each_with_his_partner(plan_of, dafu):
    """大夫雖衆，皆與士為耦 (first half), 大夫為下射; their mats 西上 east of the 尊 (賈)."""
    plan = plan_of(dafu=dafu)
    names = ["大夫" if k == 1 else f"大夫{k}" for k in range(1, dafu + 1)]
    assert [a for a in plan.actors if a.startswith("大夫")] == names
    for k, d in enumerate(names, 1):
        shot = [s for s in plan.shots if s.archer == d]
        assert shot and all(s.side == "左" for s in shot)
        assert any(s.archer == f"众宾{k}" and s.side == "右" for s in plan.shots)
    if dafu == 2:
        assert plan.landmarks["大夫席2"].position[0] > plan.landmarks["大夫席"].position[0]


def test_each_archer_goes_back_to_his_place_at_the_rack_after_each_arrow(plan):
    """上射揖進，坐…取一个…興…退反位 … 下射進…其他如上射: a step up to the arrows where they lie beyond reach, and back
    to where he stood beside the 楅 after each one, not a little further off with every arrow (the steps up turned
    round the rack itself: the 上耦下射 had ended his taking-up 0.6 m south of his place)."""
    for eid in ("p8.1.qu", "p8.2.qu", "p8.3.qu", "p9.qu", "p9.zhong.1.qu", "p16.1.qu", "p16.zh1.qu"):
        ev = _ev(plan, eid)
        for who in ev.actors:
            start, _ = _at(plan, who, ev.start)
            ends = [g.t1 + 2.0 for g in plan.actors[who].gestures if g.kind == "take_arrow" and ev.start <= g.t0 < ev.end]
            assert ends, (eid, who)
            for t in [*ends, ev.end]:
                here, _ = _at(plan, who, min(t, ev.end))
                assert math.dist(here, start) < 0.05, (eid, who, t, here, start)
