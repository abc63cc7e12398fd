"""The whole chapter (issue 29): the first half's text extracted exactly from the vendored source, the passage
planned as before, the first half's script covering its sections, planned with no finding of the audit or of the
conservation of things, and the seam between the two halves measured."""
from __future__ import annotations

import hashlib
import json
from functools import lru_cache
from pathlib import Path

import numpy as np
import pytest
import shapely
from conftest import planned, reading_named

from reconstruct.checks.audit import audit
from reconstruct.checks.chapter import seam
from reconstruct.checks.conservation import conservation
from reconstruct.checks.script import check, coverage
from reconstruct.model.plan import Plan
from reconstruct.resources import ASSETS, SEED
from reconstruct.rite import load_rite
from reconstruct.rite.errors import RiteError
from reconstruct.rite.loader import FIRST_SCRIPT, join_rites, load_part
from reconstruct.text import extract

# the modules that need the first half's and the whole chapter's plans (and those with 2 and 3 大夫) on one worker (pytest-xdist --dist loadgroup, .ci/run):
# spread over both, one worker waited while the other planned the plan both needed
pytestmark = pytest.mark.xdist_group("first_half")

ROOT = Path(__file__).resolve().parent.parent
SOURCE = ROOT / "sources" / "yili_juan05_xiangshe_zhengzhu_SBCK.txt"
SHARED = ROOT.parent / "shared" / "sources" / SOURCE.name
PART1 = ASSETS / "text" / "xiangshe_li_part1.txt"
# the default plan of the passage as main made it before the first half was added (c7de9ec): the passage alone
# plans byte-identically (change only with a cited fix of the passage's own).  Changed once since, by the
# evidence (issue 32): the landmarks' bases, the reading's sources and the options each event rests on were
# added to the plan; every track, event time, shot and score stayed the same (compared key by key).  And once by
# 弟子委矢，司马乘之，皆如初 (105), which performs the procedure 委矢乘矢 whose 初 is the first half's first round
# (a procedure written once): its event p13.wei is two steps (p13.wei, p13.cheng) and the default ids after it
# shift by one; every actor's and prop's track is unchanged.  And once by the seam (issue 29): the 获者 waits at
# the passage's first character where every 取矢 (the first half's two, the passage's own p13, 如初) leaves him,
# 負侯 aside of the centre and turned to the 侯 (鄭: 俟弟子取矢，以旌指教之; 義疏: 意必轉而鄉侯始可指示之), not
# 負侯 facing north: only his track changes (he walks the 1.2 m to 負侯 to receive the cup, 獲者負侯北面拜受爵);
# and the 樂正 stands south of the musicians' file (樂正北面立于其南; 鄭: 不與工序也), not inside it (工2–4 were
# pushed out of their places by him).  Scores and every shot unchanged; later events shift in time.  And
# 弟子相工，如其降也 (p18): each junior comes to his 工 where he sits before he leads him up (相: by the hand).
# And once more by the seam: the 笙 stand in their file east of the 磬 (笙入，立于縣中，西面; 鄭: 縣中，磬東立西面;
# 賈: 謂在磬東，當磬之東), not scattered round it; the 主人之贊者 in their file at 堂東 (鄉飲酒記: 主人之贊者，西面
# 北上), not scattered there (赞者2 stood on the 主人袒位, so the 主人 袒決遂 and laid his bow 0.8 m off it).
# Shots (hit, landing point) and scores unchanged; later events shift by up to 7 s; the other paths differ only
# where a walk waits or routes round someone standing elsewhere.
# And once by 樂正反 (p18; 鄭: 樂正反，自西階東，北面; 賈: 知不升者，以正樂畢，上無告請于賓之事，宜與正歌備已後同也):
# the 樂正 no longer goes up to stand west of the 工席 but back to 西階下東一丈 facing north (where f6 has him after
# 正歌備), below among those standing (記 樂正與立者齒), and comes up to receive the 旅 at the 西階上 like them (p18,
# p22).  Compared key by key: score, shots and music the same; 25 of 37 people and 162 of 173 things the same
# places in the same order (later times shift: 31.7 s shorter); the 樂正, and the 司马, 宾, 主人, 大夫, 众宾1–3,
# 举觯者1–2, 赞者1–2 and the cups, 俎 and 羞 they carry take other ways on the hall in the 旅酬 and 無筭爵.
# And by 當楅南 at 拾取矢: the pair 二尺 either side of the 楅's line (four 尺 apart), not 一尺五寸 (a forearm met a
# sleeve as they turned, 皆左還): their stands there and what follows shift; shots and scores unchanged.
# And by 弟子相工，如其降也 (p18) performed by the procedure 相工 whose 初 is the first half's 工入 (a procedure written
# once; 鄭: 降時如初入): the four pairs come to the foot of the 西階 in one file (瑟先), each 工 led by the hand a step
# behind his junior on his very way (右手相), and go up one pair after another; p18.xianggong is now the call's steps
# (p18.xianggong.xiang, .ru, .sheng, .zuo, .shouse, .lezheng: 樂正反).  The 工 sit where they sat (the same seats);
# the junior-to-工 distance while walking is at most 1.7 m (mean under 1 m; 1.9 m before); score, shots and music the
# same; later events shift (the passage 12 s shorter).
# And by 大夫從之降 (p21): the 大夫 follows his 俎 down as soon as the junior has taken it down the west stair (從之, as
# the 賓 follows the 司正: 宾從之降), while the junior takes it on out of the gate (遂出授從者, its own event
# p21.dafuchu, as the 賓's p21.chu), not some 160 s later when the junior is back from the gate; later events shift
# (the passage 1.9 min shorter), nothing else changes its order.
# And by the readings' formations 工席位 and 相者位 (the 工's seats on their mat and the juniors' places by them, where
# the text gives no spacing: declared once in the reading, so that a reading on a short 尺 can keep a seated man's
# room): the plan lists them among its landmarks; every track, event and thing the same.
# And by 相工 written as its 初 (f6 calls it as written; p18's 反坐 overrides the steps from below, cited): the
# plan's procedure records of p18.xianggong.xiang and .sheng carry those overrides; every track, time and thing the same.
# And by 退反位 after each arrow taken up at the 楅 (上射揖進，坐…取一个…興…退反位): one who steps up to arrows beyond
# his reach steps back to where he stood, not a step the other way from the arrows (the step up turned round the
# rack: the 上耦下射 ended the first taking-up of the passage, p8.1.qu, 0.6 m south of his place 楅东三尺五寸);
# later events shift (the passage 13 s shorter).
# And by 阼阶东 on the 東序's line (鄭 on 主人降: 降立阼階東，西面，當東序; the landmark x 當 東序, y the stair's foot,
# as the 賓's 阶西 is 當西序): the 主人 stands 0.23 m further east and 0.70 m further south after 降自阼阶，西面立 (p21)
# and at 反位 after the 賓 and 主人 shoot (p12.bz.fan, procedure 宾主人射) and in p22; at p21 he waits at the stair's foot while the junior takes his 俎 east past that
# place (p21.zhuren 6 s longer, later events shift).
# And by the 获者 waiting at 堂西 after 命获者以旌退 (鄭: 諸所退皆俟堂西; p17.hou): having laid his 旌, 薦 and 俎
# in the row west of the 射器位 he goes to 堂西 (1.2 m from it) instead of standing on at the row's far end, 5.1 m
# off, to the end of the passage; later events shift (p17.hou ends later, the passage 3.7 s longer).
# And by 取 / 奠 before one (handling.TURN_TO_THING): one whose thing lies more than 75° round from his facing turns
# to it before taking it up or setting it down (the 獲者's 旌 at 負侯西, the archers' bows behind them at p2.ming and
# p15.ming, the 爵 from the 篚 behind the 司射 and 司馬); and the 司馬 stands 四尺 east of 負侯 for 西面拜送 (p5, CHOSEN:
# at a step the 獲者 came up 0.7 m face to face and their forearms met); later events shift.
# And by the first half's review of its archery (2026-12-04), whose fixes of shared steps are written in the procedures
# (a procedure written once: the 初 and the passage's 如初 alike): 及階，耦先升 (大夫射 jin: 鄭 在堂如上射之儀; 賈 謂耦先升
# 是如上射先升法 — the 大夫 had gone up 2.4 s before his partner), 大夫升就席 by the mat's east end (大夫射 fan: 鄭 大夫
# 升席由東方) and the 主人 onto his mat from its north (宾主人射 jiuxi: 賈 凡席升由下; 主人升席自北方); in p12 and p16,
# later events shift (the passage 8 s longer).
PASSAGE_PLAN_SHA256 = "2332204f5c32a3ba3bd189404ea9448a34388a5b0df0aca80192b277e4cae72a"
# the first half's non-archery sections (戒賓 … 立司正, 末旅): characters [0, MINE) of part 1
NON_ARCHERY_END = 1672


def test_extraction_is_exact():
    src = SOURCE.read_text(encoding="utf-8")
    assert extract.first_half(src).encode("utf-8") == PART1.read_bytes()
    if SHARED.exists():
        assert SHARED.read_bytes() == SOURCE.read_bytes()


def test_the_cut_loses_and_doubles_nothing():
    """The first half ends just before 扑 of 去扑襲: the 經 is the first half followed by the passage's words."""
    jing = extract.jing(SOURCE.read_text(encoding="utf-8"))
    part1 = PART1.read_text(encoding="utf-8").rstrip("\n")
    assert jing.startswith(part1) and part1.endswith("司射遂適西階西釋弓去")
    assert jing[len(part1):].startswith(extract.PASSAGE_START)
    assert SEED.read_text(encoding="utf-8").startswith("扑，袭。进由中东")
    assert "(" not in part1 and "¶" not in part1 and "<" not in part1 and "鄭氏注" not in part1


def test_extract_refuses_a_file_without_the_title(tmp_path):
    with pytest.raises(ValueError):
        extract.first_half("鄕射之禮主人戒賔\n")
    bad = tmp_path / "x.txt"
    bad.write_text("no title\n", encoding="utf-8")
    assert extract.main([str(bad), str(tmp_path / "out.txt")]) == 2 and not (tmp_path / "out.txt").exists()


def test_passage_plans_byte_identical(plan):
    assert hashlib.sha256(plan.to_json().encode("utf-8")).hexdigest() == PASSAGE_PLAN_SHA256


def test_first_half_covers_its_non_archery_sections():
    rite = load_part("first")
    text = PART1.read_text(encoding="utf-8")
    cov = coverage(rite, text)
    missing = [u for u in cov["uncovered"] if u["span"][0] < NON_ARCHERY_END]
    assert missing == [], missing[:3]
    assert rite.text_file == "assets/text/xiangshe_li_part1.txt"
    assert not check(part="first")["caption_only"]


def test_whole_cites_both_texts():
    rite = load_part("whole")
    firsts = [e for e in rite.events if e.text_file == "assets/text/xiangshe_li_part1.txt"]
    assert firsts and rite.events[:len(firsts)] == firsts
    assert all(e.text_file is None for e in rite.events[len(firsts):])
    assert rite.events[len(firsts)].after == [firsts[-1].id]
    rep = check(part="whole")
    assert set(rep["parts"]) == {"first", "passage"} and rep["parts"]["passage"]["coverage"] == 1.0
    assert rep["content_chars"] == rep["parts"]["first"]["content_chars"] + 2566


def test_first_half_audit_and_conservation(reading):
    p = planned(part="first")
    assert p.text["file"] == "assets/text/xiangshe_li_part1.txt"
    assert audit(p, reading, limit=10_000) == []
    assert conservation(p) == []


def test_seam_measures(plan):
    """The seam check finds nothing between a state and itself, and finds the 司射 moved over the passage."""
    assert seam(plan, plan, t_first=0.0) == []
    found = seam(plan, plan)
    assert any(f.who == "司射" for f in found)


def test_first_half_ends_where_the_passage_begins(plan):
    """The first half (戒賓 … 司射遂適西階西釋弓去) leaves every one and every thing where the passage begins: the
    获者 以旌負侯 turned to the 侯 (as every 取矢 leaves him), the archers at 堂西 in their file and the 弟子 and 有司
    in the row behind it (乃退: 諸所退皆俟堂西), the 工 below in their file with the 樂正 south of it (樂正北面立于
    其南), the 笙 in theirs east of the 磬 (笙入，立于縣中，西面; 鄭: 縣中，磬東立西面), the 主人之贊者 in theirs at
    堂東 (鄉飲酒記: 西面北上) clear of the 主人's 袒 place, where he laid his bow (主人序東…釋弓), the attendants
    outside the gate behind the guests' file, the 算 lying as the count finds them (alike: matched as a set), the
    bows where each was laid (釋弓), the arrows on the 楅."""
    assert seam(planned(part="first"), plan) == []


@pytest.mark.parametrize("dafu", [2, 3])
def test_first_half_offers_every_grandee(reading, dafu):
    """大夫若衆，則辯獻長乃酢 (鄭 on 大夫降洗): with several 大夫 each is offered the cup by the same procedure (獻大夫)
    before the first returns it, each from his own mat, laid by hand east of the wine jars (席於尊東) like every other
    mat, with his dried meat and pickles and his stand (乃薦脯醢…設折俎; 記: 若有尊者則俎其餘體也), carried up from
    where they are kept and still there where the passage begins; planned without a conflict, a finding of the audit
    or of the conservation of things, and the seam exact."""
    p = planned(part="first", dafu=dafu)
    assert p.conflicts == []
    assert audit(p, reading, limit=10_000) == [] and conservation(p) == []
    ev = {e.id: e for e in p.events}
    zuo = min(e.start for e in p.events if e.id.startswith("f5.zx"))
    for k in range(2, dafu + 1):
        d, mat = f"大夫{k}", p.props[f"大夫席{k}"]
        steps = [e for e in p.events if e.procedure and e.procedure["call"].startswith(f"f5.bian.{d}")]
        assert {e.procedure["name"] for e in steps} >= {"獻大夫", "祭"}
        assert ev["f5.xian.da"].end <= min(e.start for e in steps) and max(e.end for e in steps) <= zuo
        assert d in ev[f"f5.bian.{d}.bai"].actors and d in ev[f"f5.bian.{d}.ji.ji"].actors
        laid = p.landmarks[f"大夫席{k}"].position
        assert np.linalg.norm(mat.track.at(np.asarray([0.0]))[0][0][:2] - laid[:2]) > 3.0     # kept aside at first
        assert np.linalg.norm(mat.track.at(np.asarray([ev[f"f5.bian.{d}.xian"].start]))[0][0][:2] - laid[:2]) < 0.05
        for thing in (f"{d}荐", f"{d}俎"):
            q = p.props[thing]
            assert np.linalg.norm(q.track.at(np.asarray([0.0]))[0][0][:2] - laid[:2]) > 3.0
            assert q.carrier(ev[f"f5.bian.{d}.ji.ji"].start) is None
        at_ji = p.props[f"{d}荐"].track.at(np.asarray([ev[f"f5.bian.{d}.ji.ji"].start]))[0][0]
        assert np.linalg.norm(at_ji[:2] - laid[:2]) < 1.5                                    # before his mat
    # the seam: exact (with 2 大夫 the 弟子's row behind the archers, one file deep, had stood on the 大夫袒位, and the
    # first 大夫 laid his bow 1.3 m west of it in f11's 皆釋弓于堂西; the row now keeps clear of the marks)
    assert seam(p, planned(dafu=dafu)) == []


@pytest.mark.parametrize("dafu", [1, 2, 3])
def test_juniors_wait_clear_of_where_the_archers_bare(dafu):
    """The 弟子 wait behind the archers at 堂西 (乃退: 諸所退皆俟堂西), one file deep or two as the count of those
    in the file makes it, but never on the places where the 賓 and the 大夫 bare their arms and lay their bows
    (賓於堂西…皆釋弓, 大夫…皆釋弓于堂西): with 2 大夫 the row one file deep had stood on the 大夫袒位, on the bow."""
    p = planned(dafu=dafu)
    marks = [k for k in p.landmarks if k.endswith("袒位")]
    assert {"宾袒位", "大夫袒位"} <= set(marks)
    for who in ("弟子1", "弟子2", "弟子3", "弟子4"):
        at = p.actors[who].track.at(np.asarray([0.0]))[0][0][:2]
        for k in marks:
            assert np.linalg.norm(at - np.asarray(p.landmarks[k].position[:2])) >= 0.6, (who, k)
    bow = p.props["大夫弓"].track.at(np.asarray([0.0]))[0][0][:2]
    assert np.linalg.norm(bow - np.asarray(p.landmarks["大夫袒位"].position[:2])) < 0.05


def test_whole_refuses_an_event_id_in_both_halves():
    """An event without an id is numbered by its place in its half (e0464): one of the first half's met one of the
    passage's with 2 大夫 and the whole chapter never planned its events; joining the halves names the clash."""
    first, passage = load_part("first", dafu=2), load_rite(dafu=2)
    assert join_rites(first, passage).events
    clash = passage.model_copy(update={"events": [passage.events[0].model_copy(update={"id": first.events[3].id})]
                                       + passage.events[1:]})
    with pytest.raises(RiteError) as ei:
        join_rites(first, clash)
    assert "\n" not in str(ei.value) and first.events[3].id in str(ei.value)


def test_the_tallies_are_matched_as_a_set(plan):
    """The 算 are alike: two ends that lay the same tallies at the same spots under other ids agree; one moved a
    metre does not."""
    first = planned(part="first")
    assert not [f for f in seam(first, plan) if f.who.startswith("算")]
    ids = sorted(k for k, q in plan.props.items() if q.kind == "算" and q.carrier(0.0) is None)
    swapped = Plan.from_dict(plan.to_dict())
    a, b = swapped.props[ids[0]], swapped.props[ids[-1]]
    a.track, b.track = b.track, a.track
    assert not [f for f in seam(swapped, plan, t_first=0.0) if f.who.startswith("算")]
    moved = Plan.from_dict(plan.to_dict())
    moved.props[ids[0]].track.keys["x"] += 1.0          # one tally a metre east of every spot the passage lays one
    assert [f for f in seam(moved, plan, t_first=0.0) if f.who.startswith("算")]


@lru_cache(maxsize=None)
def _conserved_whole() -> tuple:
    """``conservation(planned(part="whole"))``, once for the module's two tests that hold the whole chapter to it
    (the whole chapter's conservation was computed twice: about 1.2 s CPU each)."""
    return tuple(conservation(planned(part="whole")))


def test_whole_begins_the_passage_where_the_first_half_ends(reading):
    """--part whole: the passage starts from the first half's end (its own initial state is not used), so the
    whole chapter up to the seam is the first half, and nobody and nothing moves across the seam unless carried:
    the conservation of things finds nothing within a minute either side of it."""
    first, whole = planned(part="first"), planned(part="whole")
    t = first.duration
    assert seam(first, whole, t_first=t, t_passage=t, tol=0.05) == []
    found = [f for f in _conserved_whole() if abs(f.t - t) < 60.0]
    assert found == []


def test_whole_audit_and_conservation(reading):
    """The whole chapter on the default reading: no finding of the audit or of the conservation of things
    (the other readings and counts: bench/whole_matrix.py, too slow for the suite)."""
    whole = planned(part="whole")
    assert audit(whole, reading, limit=10_000) == [] and _conserved_whole() == ()


def test_the_host_goes_up_a_step_ahead_of_the_guest():
    """主人升一等，賓升 (f3; 鄭: 三讓而主人先升者…不俱升者，賓客之道進宜難也; 賈: 此先升一等，禮之常): the host
    steps onto the first step of the 阼階 first; the guest steps onto the 西階 as the host steps onto his second,
    and so climbs a step behind him — at the welcome and each time they go up together after bowing and yielding
    (揖讓升), in both halves."""
    whole = planned(part="whole")
    rise = reading_named().stairs["西阶"].rise

    def onto(who, k, ev):
        keys = whole.actors[who].track.keys
        sel = (keys["t"] >= ev.start) & (keys["t"] <= ev.end) & (keys["y"] < 0) & (np.abs(keys["z"] - k * rise) < 1e-3)
        return float(keys["t"][sel][0])

    for eid in ("f3.sheng", "f4.zuguan", "f4.cxi", "f4.yirang", "f5.sheng2", "p16.jiuxi", "p22.shenglü"):
        ev = whole.event(eid)
        host1, host2, guest1 = onto("主人", 1, ev), onto("主人", 2, ev), onto("宾", 1, ev)
        assert host2 - 0.05 <= guest1 <= host2 + 0.6 and host1 < guest1, (eid, host1, host2, guest1)


def test_the_musicians_go_back_up_to_their_own_places_with_their_zithers():
    """弟子相工，如其降也，升自西階，反坐 (p18; 鄭: 降時如初入): in the whole chapter each 工 sits again where he sat
    before the 遷樂 (f6: his own place on the 工席), and the 瑟 the juniors carried down (相者皆左何瑟) go up with
    their players and are handed to them (相者坐授瑟); the passage alone has no 瑟."""
    whole = planned(part="whole")
    ev = {e.id: e for e in whole.events}
    # the procedure 相工 (f6.gong: its 初; f8.gong: 如初入，降; p18.xianggong: 如其降也，升)
    t0, t1 = ev["p18.xianggong.xiang"].start, ev["p18.xianggong.sheng"].end
    for who in ("大师", "工2", "工3", "工4"):
        before = whole.actors[who].track.at(np.array([ev["f6.gong.zuo"].end]))[0][0]
        after = whole.actors[who].track.at(np.array([t1]))[0][0]
        assert abs(before - after).max() < 0.05, (who, before, after)
    for se, player in (("瑟1", "大师"), ("瑟2", "工2")):
        assert whole.props[se].carrier(t1) == player
        assert whole.props[se].carrier(t0) is None      # lying below beside him (f8)
    assert "瑟1" not in planned().props


def test_the_musicians_sit_at_the_front_edge_and_the_overseer_passes_behind_the_pillars():
    """席工于西階上少東 (鄉飲酒禮: 設席于堂廉，東上; 賈: 鄉飲酒工位與此同): the 工's mat lies along the hall's front
    edge, south of the 楹, a little east of the 西階; so the 司正's way 由楹內 (鄭: 楹北) is open on every reading,
    the shallow halls with a 室 too (敖's: before, the seated row north of the 楹 and the dishes before it and
    before the 衆賓 closed it, and he went round south of the 西楹).  Each 工 sits on his place of the mat at the
    初 and again after 反坐 (p18), his junior a step behind him at most, never closer than 0.5 m to him."""
    from reconstruct.checks.statements import evaluate_all, load_catalogue
    whole = planned(part="whole")
    r = reading_named()
    mat = r.landmarks["工席"]
    ys = [y for _, y in mat.footprint]
    assert min(ys) >= 0.0 and max(ys) < r.landmarks["西楹"].position[1] - 0.3
    stair = r.stairs["西阶"]
    assert min(x for x, _ in mat.footprint) > stair.x + stair.width / 2
    seats = r.formations["工席位"]
    ev = {e.id: e for e in whole.events}
    for at in (ev["f6.gong.shouse"].end, ev["p18.xianggong.sheng"].end):
        for k, who in enumerate(("大师", "工2", "工3", "工4"), start=1):
            xy = whole.actors[who].track.at(np.array([at]))[0][0][:2]
            assert np.hypot(*(xy - np.asarray(seats.slot(k)[:2]))) < 0.05, (who, at, xy)
    ts = np.arange(ev["p18.xianggong.sheng"].start, ev["p18.xianggong.sheng"].end, 0.1)
    for g, d in (("大师", "弟子1"), ("工2", "弟子2"), ("工3", "弟子3"), ("工4", "弟子4")):
        a, b = whole.actors[g].track.at(ts)[0], whole.actors[d].track.at(ts)[0]
        same = np.abs(a[:, 2] - b[:, 2]) < 0.3
        assert np.hypot(*(a[same, :2] - b[same, :2]).T).min() > 0.5, (g, d)
    cat = [s for s in load_catalogue() if s.id in ("g28", "g29")]
    for plan in (planned(part="first"), planned("ao_jigong", part="first")):
        assert {(x.statement.id, x.status) for x in evaluate_all(plan, cat)} == {("g28", "pass"), ("g29", "pass")}


def test_the_musicians_are_led_by_one_procedure_three_times():
    """相工 is written once (procedures.yaml): the first half's 工入 (its 初), the 遷樂 (弟子相工如初入，降自西階) and
    p18 (弟子相工，如其降也，升自西階，反坐) are its three performances, each repeat doing what the 初 did except where a
    cited override says otherwise.  At the 初 the four pairs come in from the gate in one file (瑟先), each 工 a
    step behind the junior who leads him by the hand (右手相): the file takes about as long as one pair's walk."""
    from test_rite_procedures import _differences, _performances
    whole = planned(part="whole")
    perfs = _performances(whole)["相工"]
    assert [p[0].procedure["call"] for p in perfs] == ["f6.gong", "f8.gong", "p18.xianggong"]
    assert not [d for d in _differences(whole) if d.startswith("相工")]
    ru = whole.event("f6.gong.ru")
    ts = np.arange(ru.start, ru.end, 0.1)
    walks = []
    for g, d in (("大师", "弟子1"), ("工2", "弟子2"), ("工3", "弟子3"), ("工4", "弟子4")):
        walking = ts[whole.actors[g].track.posture_at(ts) == "walk"]
        a, b = whole.actors[g].track.at(walking)[0], whole.actors[d].track.at(walking)[0]
        gap = np.hypot(a[:, 0] - b[:, 0], a[:, 1] - b[:, 1])
        assert gap.max() <= 1.6, (g, gap.max())
        walks.append(walking[-1] - walking[0])
    assert ru.end - ru.start < 1.25 * max(walks)          # one file, not one pair after another


def test_the_music_master_stays_below_when_the_musicians_go_back_up(plan):
    """樂正反 (p18; 鄭: 樂正反，自西階東，北面; 賈: 知不升者 … 宜與正歌備已後同也): the 樂正 does not go up with the
    musicians; he stands below east of the 西階, facing north, where he stood after 正歌備 (f6), and goes up only
    to receive the 旅 at the top of the 西階 (皆升，受酬于西階上)."""
    ev = {e.id: e for e in plan.events}
    t = ev["p18.xianggong.lezheng"].end
    x, y, z = plan.actors["乐正"].track.at(np.array([t]))[0][0]
    stair = plan.landmarks["西阶"].position
    assert z < 0.05 and y < stair[1] and x > stair[0] + 1.5, (x, y, z)     # below, east of the 西階
    up = plan.actors["乐正"].track.at(np.arange(ev["p18.chou"].start, ev["p18.zushou"].end, 1.0))[0]
    assert (up[:, 2] > 0.5).any()                                          # he goes up to receive the 旅


def test_first_half_has_its_glyphs():
    """Every character of the first half's text and of its events' glosses is in the shipped font subset."""
    from reconstruct.render.captions import simplified
    from reconstruct.text.fonts import missing_glyphs
    rite = load_part("first")
    texts = [PART1.read_text(encoding="utf-8")] + [e.gloss for e in rite.events] + [e.section for e in rite.events]
    texts += ["全篇上半篇", "、".join(simplified(e.section) for e in rite.events if e.section)]     # the title card
    assert not {t[:20]: missing_glyphs(t) for t in texts if missing_glyphs(t)}


def test_first_half_leaves_the_hall_as_the_passage_finds_it(plan):
    """What the non-archery sections settle is where the passage has it: the 賓, the 主人 and the 大夫 on their
    mats; the 酬 cup east of the 賓's 薦 (奠觶), the raised cup west of it (酬觶), the dishes and stands of the
    three, the 司正's cup and 薦 at the 觶位, the other cups in the 篚 (measured by the seam check)."""
    settled = {"宾", "主人", "大夫", "奠觯", "酬觯", "宾荐", "宾俎", "主人荐", "主人俎", "大夫荐", "大夫俎", "司正觯",
               "司正荐", "觯", "宾觯", "大夫觯", "爵", "侯"}
    found = [f for f in seam(planned(part="first"), plan) if f.who in settled]
    assert found == []


def test_cast_file_is_confined_and_declared_once(tmp_path):
    """``cast:`` names a script beside this one; a section it declares may not be declared again (props added)."""
    from reconstruct.rite.errors import RiteError
    from reconstruct.rite.loader import load_rite
    rite_dir = FIRST_SCRIPT.parent
    for name in ("rite.yaml", "procedures.yaml"):
        (tmp_path / name).write_text((rite_dir / name).read_text(encoding="utf-8"), encoding="utf-8")
    base = "text: " + str(SEED) + "\ninitial: {}\n"
    (tmp_path / "a.yaml").write_text(base + "cast: ../elsewhere.yaml\n", encoding="utf-8")
    with pytest.raises(RiteError, match="outside"):
        load_rite(tmp_path / "a.yaml")
    (tmp_path / "b.yaml").write_text(base + "cast: rite.yaml\npeople: []\n", encoding="utf-8")
    with pytest.raises(RiteError, match="declared by the cast file"):
        load_rite(tmp_path / "b.yaml")
    (tmp_path / "c.yaml").write_text(base + "cast: rite.yaml\n", encoding="utf-8")
    with pytest.raises(RiteError, match="no initial state"):
        load_rite(tmp_path / "c.yaml")


def test_the_ground_is_set_out_by_hand(reading):
    """乃席賔 … 乏參侯道: each thing set out is carried from where it is kept by the one who sets it and laid at
    its landmark (its heading too), not there before; the outputs leave the landmark to the prop."""
    from reconstruct.model.vocabulary import SET_OUT
    from reconstruct.scene.ground import ground_meshes
    from reconstruct.scene.props import prop_kind
    plan = planned(part="first")
    p = json.loads(plan.to_json())
    setter = {"宾席": "赞者1", "尊": "赞者1", "洗": "赞者1", "水": "赞者1", "县": "赞者1", "主人席": "赞者2",
              "上篚": "赞者2", "篚": "赞者2", "工席": "赞者2", "大夫席": "赞者2", "乏": "弟子2"}
    for pid, who in setter.items():
        assert prop_kind(pid) in SET_OUT
        keys, lm = p["props"][pid]["keys"], reading.landmarks[pid]
        first, last = keys[0], keys[-1]
        assert abs(first[1] - lm.position[0]) + abs(first[2] - lm.position[1]) > 1.0, pid    # kept elsewhere
        assert abs(last[1] - lm.position[0]) + abs(last[2] - lm.position[1]) < 1e-3, pid     # laid at its place
        assert last[4] == round((lm.heading or 0.0) % 360, 2), pid
        assert "carried" in {k[5] for k in keys}, pid
        acts = [(g[2], g[0]) for g in p["actors"][who]["gestures"] if g[3] == pid]
        assert [a for a, _ in acts][:1] == ["take"] and acts[-1][0] == "set_down", (pid, acts)
        assert abs(acts[-1][1] + 1.2 - last[0]) < 0.5, pid          # laid when he sets it down
    for basket, cups in (("上篚", ("爵", "爵2", "爵3", "奠觯")), ("篚", ("酬觯", "司正觯", "觯", "宾觯", "大夫觯"))):
        laid = [k for k in p["props"][basket]["keys"] if k[5] == "rest"][-1][0]
        for c in cups:                       # kept with the basket, carried with it, set in it once it is laid
            keys = p["props"][c]["keys"]
            assert keys[0][1:3] == p["props"][basket]["keys"][0][1:3], c
            put = next(k for k in keys if k[0] >= laid and k[5] == "rest")
            lm = reading.landmarks[basket].position
            assert abs(put[1] - lm[0]) + abs(put[2] - lm[1]) < 0.3 and "carried" in {k[5] for k in keys if k[0] <= laid}
    from reconstruct.scene.ground import set_out_fixtures
    assert set_out_fixtures(reading, plan.props) == set(setter) | {"众宾席1", "众宾席2", "众宾席3"}
    assert set_out_fixtures(reading, planned().props) == set()          # the passage: the ground as before
    drawn = {n for n, _, _ in ground_meshes(reading, list(plan.props))}
    whole = {n for n, _, _ in ground_meshes(reading, [])}
    assert len(drawn) < len(whole) and drawn < whole


def test_the_wine_s_cover_lies_on_the_jars_until_the_guest_comes(reading):
    """記 尊綌冪，賓至，徹之: the cover is carried up with the 尊 and lies over the jars' mouths (at the 尊's height,
    turned as it is) from when the 尊 is set out until the guests come to the gate, when one takes it off by hand
    and puts it away; and 羮定 (then 速賓) only once everything is set out (賈: 預前設)."""
    plan = planned(part="first")
    p = json.loads(plan.to_json())
    ev = {e["id"]: e for e in p["events"]}
    keys = p["props"]["幂"]["keys"]
    lm = reading.landmarks["尊"]
    on = [k for k in keys if k[5] == "rest" and abs(k[1] - lm.position[0]) + abs(k[2] - lm.position[1]) < 1e-3]
    assert on, keys
    assert abs(on[0][3] - (lm.position[2] + lm.size[2])) < 1e-3 and on[0][4] == round((lm.heading or 0.0) % 360, 2)
    laid, lifted = on[0][0], on[-1][0]
    assert ev["f2.zun"]["start"] <= laid <= ev["f2.zun"]["end"]
    assert ev["f3.cong"]["start"] <= lifted <= ev["f3.cong"]["end"]
    carriers = {c for _, c in p["props"]["幂"]["carrier"] if c}
    assert carriers == {"赞者1"}
    acts = [g[2] for g in p["actors"]["赞者1"]["gestures"] if g[3] == "幂"]
    assert acts.count("set_down") == 2 and acts[-1] == "set_down", acts
    assert keys[-1][3] == 0.0 and abs(keys[-1][0] - lifted) > 5         # put away on the ground, later
    set_out = [e for i, e in ev.items() if i.startswith("f2.") and i != "f2.gengding"]
    assert ev["f2.gengding"]["start"] >= max(e["end"] for e in set_out) <= ev["f3.su"]["start"]


def test_first_half_sections_are_chapters_and_on_the_title_card():
    """A chapter mark per section of the first half (the events that begin one carry its title); the title card
    says which part of the chapter the film performs and lists its sections."""
    import numpy as np

    from reconstruct.render import captions as C
    from reconstruct.render.chunks import Chunk
    from reconstruct.render.video import chapter_marks
    p = planned(part="first")
    sections = [e.section for e in p.events_by_start() if e.section]
    assert sections[0].startswith("戒賓") and sections[1].startswith("陳設") and sections[-1].startswith("立司正")
    chunk = Chunk(0, "plan", 0, int(p.duration), times=np.arange(0.0, int(p.duration)), rates=np.ones(int(p.duration)))
    marks = chapter_marks(p, [chunk], 0.0, p.duration, 1.0, 1.0)
    assert [m[2] for m in marks] == sections and marks[0][0] == 0.0
    assert all(a < b for a, b, _ in marks) and all(marks[k][1] == marks[k + 1][0] for k in range(len(marks) - 1))
    # an excerpt that starts inside a section (after its first event began, before the next section) opens with it
    starts = sorted(e.start for e in p.events if e.section)
    t = (starts[1] + starts[2]) / 2
    assert chapter_marks(p, [chunk], t, starts[2] + 30, 1.0, 1.0)[0][2] == sections[1]
    texts = C.card_texts(p)
    assert any(t.startswith("上半篇") for t in texts) and any("陈设" in t for t in texts)


def test_heyue_heard_as_six_songs_of_strings_and_reeds():
    """合樂 (周南關雎 … 召南采蘋) in the soundtrack: the 瑟's plucked strings and the 笙's drone through each of
    the six songs, a silence between songs; no other sound kind (no melody, no voice)."""
    from reconstruct.render import sound as S
    p = planned(part="first")
    (pc,) = [x for x in p.pieces if x.piece.startswith("合樂")]
    assert S.songs_of(pc.piece) == ["周南關雎", "葛覃", "卷耳", "召南鵲巢", "采蘩", "采蘋"]
    assert S.songs_of("无算乐") == ["无算乐"]
    cues = [c for c in S.cues_of(p, lambda t: t, pc.start - 5, pc.end + 5) if pc.start - 5 <= c.t <= pc.end + 5]
    assert {c.kind for c in cues} == {"se_low", "se_high", "sheng"}
    part = (pc.end - pc.start) / 6
    for j in range(6):
        s0, s1 = pc.start + j * part, pc.start + (j + 1) * part
        inside = [c for c in cues if s0 - 1e-6 <= c.t < s1]
        assert inside and inside[0].kind == "se_low" and abs(inside[0].t - s0) < 1e-6
        assert all(c.t <= s1 - S.SONG_GAP for c in inside if c.kind != "sheng")
        assert all(c.t + 4.5 <= s1 - S.SONG_GAP + 1e-6 for c in inside if c.kind == "sheng")


# the first half's clauses the plan misses, not claimed (required: false), each with its reason in the catalogue:
# g256 鉤楹由上射之後 and g281 自右物之後 — the 司馬 reaches the 物間 round the front of the 上物 (the 賓's 薦俎 lie 0.67 m
# behind the 物 line).  (g262 反由司射之南 met since the 司射 and 司馬 pass before the stair, 584793f: 賈 相左之時在
# 西階之西.)  Exactly these: a listed miss now met fails the test, so the list stays true
KNOWN_FIRST_HALF_MISSES = {"g256", "g281"}


def test_first_half_spatial_clauses_measured(plan, tmp_path):
    """The first half's setting-out clauses (乃席賔南面東上 … 乏參侯道居侯黨之一西五歩, 席工于西階上少東) measured
    on the things as the plan lays them, at the end of the events citing them; a plan of the passage leaves
    them out; a quote not in the first half is refused."""
    from reconstruct.checks.statements import PlanView, evaluate_all, load_catalogue
    from reconstruct.errors import InputError
    cat = [s for s in load_catalogue() if s.part == "first"]
    assert len(cat) >= 25 and {"洗", "水", "篚", "县", "尊", "上篚", "乏", "宾席", "主人席", "工席"} <= {s.subject for s in cat}
    results = evaluate_all(planned(part="first"), cat)
    assert [(r.statement.id, r.message) for r in results if r.failed_required] == []
    # the clauses the plan does not meet and the reading does not claim, each for a reason its note gives
    assert {r.statement.id for r in results if r.status != "pass"} == KNOWN_FIRST_HALF_MISSES
    assert all(r.event and r.event.startswith("f") for r in results)
    # 由楹內 (鄭: 楹北): the 司正's way passes both pillars on their north (the musicians sit before the 楹, at
    # the hall's edge: test_the_musicians_sit_at_the_front_edge_and_the_overseer_passes_behind_the_pillars)
    assert {"g28", "g29"} <= {r.statement.id for r in results if r.event and r.event.startswith("f7.")}
    g13 = next(r for r in results if r.statement.id == "g13")            # 南北以堂深
    assert abs(g13.measured - 6.006) < 0.01
    assert PlanView(plan).by_part["first"] == [] and evaluate_all(plan, cat) == []
    # and a plan of the first half leaves out the passage's clauses (they were reported as claimed and not met)
    every = evaluate_all(planned(part="first"))
    assert every and all(r.statement.part == "first" or r.statement.quote is None for r in every)
    bad = tmp_path / "statements.yaml"
    bad.write_text("- {id: x1, part: first, quote: 進由中東, subject: 洗, relation: level, value: court}\n",
                   encoding="utf-8")
    with pytest.raises(InputError, match="first half"):
        load_catalogue(bad)


def test_set_out_things_drawn_at_their_landmarks_size():
    """A thing set out is drawn at the size of the landmark it is laid at (the plan's footprint): the 上篚 laid
    out east–west (東肆), the 篚 north–south (南肆), the musicians' mat as long as the reading's."""
    import numpy as np

    from reconstruct.scene import props as PR
    p = planned(part="first")
    ext = {}
    for k in ("上篚", "篚", "工席", "宾席"):
        v = PR.prop_geometry(k, True, PR.set_out_size(k, p.landmarks)).vertices
        ext[k] = v.max(0) - v.min(0)
    assert ext["上篚"][0] > 2 * ext["上篚"][1] and ext["篚"][1] > 2 * ext["篚"][0]
    assert abs(ext["工席"][0] - PR.set_out_size("工席", p.landmarks)[0]) < 0.05 and ext["工席"][0] > ext["宾席"][0] + 1
    assert PR.set_out_size("爵", p.landmarks) is None and np.isfinite(ext["宾席"]).all()


def test_one_who_goes_to_his_mat_faces_as_it_faces():
    """就席: one sent to a mat with no facing stated sits as the mat faces (the reading declares each mat's
    heading once; 記: 西序之席，北上 — 衆賓3's mat along the 西序 faces east, the others south)."""
    reading = reading_named()
    whole = planned(part="whole")
    ev = {e.id: e for e in whole.events}
    rite = load_part("whole", zhongbin=3, dafu=1, reading=reading)
    seen = set()
    for e in rite.events:
        last = {}
        for a in e.actions:
            last[a.who] = a
        for who, a in last.items():
            lm = reading.landmarks.get(a.place or "")
            if a.verb != "go" or a.heading or lm is None or lm.kind != "mat" or e.id not in ev:
                continue
            h = float(whole.actors[who].track.at(np.array([ev[e.id].end]))[1][0])
            assert abs((h - lm.heading + 180.0) % 360.0 - 180.0) < 1.0, (e.id, who, a.place, h)
            seen.add(a.place)
    assert {"宾席", "主人席", "众宾席1", "众宾席3", "大夫席"} <= seen, seen


def test_the_sheng_receive_and_give_back_the_cup_on_the_top_step():
    """笙一人拜于下，盡階不升堂，受爵 (記: 其笙，則獻諸西階上): each 笙 takes the cup from the 主人 and hands it back
    standing on the 西階's top step, never on the hall; the 主人 reaches it to him from the stair's head, on the
    hall, within the reach of two hands (handling: a hand-over across a stair's head)."""
    from reconstruct.planner.handling import HANDS_MEET
    p = planned(part="first")
    hall, (lo, hi) = p.hall_height, (min(e.start for e in p.events if e.id == "f6.shengbai"),
                                     max(e.end for e in p.events if e.id == "f6.zhongsheng"))
    sheng = [a for a in p.actors if a.startswith("笙")]
    passes = [(g.t1, a, g.object) for a in ["主人", *sheng] for g in p.actors[a].gestures
              if g.kind == "hand_over" and lo <= g.t1 <= hi]
    assert {a for _, a, _ in passes} == {"主人", *sheng} and len(passes) == 2 * len(sheng)
    for t, giver, taker in passes:
        s = taker if giver == "主人" else giver
        (sx, sy, sz), (hx, hy, hz) = p.track(s).at([t])[0][0], p.track("主人").at([t])[0][0]
        assert sy < 0 and abs(sz - hall) < 0.05, (s, t, sy, sz)             # on the top step, below the hall's edge
        assert hy > 0 and abs(hz - hall) < 0.05, (t, hy, hz)                 # the 主人 on the hall
        assert np.hypot(sx - hx, sy - hy) <= HANDS_MEET


def test_things_are_taken_up_and_set_down_before_one():
    """取 / 奠: the hands reach forward to a thing taken up or set down, so one whose thing lies behind or beside
    him turns to it first (the 獲者 laid his 旌 west of him facing east, the archers took up bows lying behind
    them): at the start of every take and set-down of the whole chapter the thing lies within TURN_TO_THING of
    the way he faces, unless the text gives his facing for the act (北面坐取) — a few, each within reach."""
    from reconstruct.planner.handling import TURN_TO_THING
    from reconstruct.text.placement import PlaceError, heading_of
    whole = planned(part="whole")
    rite = load_part("whole", zhongbin=3, dafu=1, reading=reading_named())
    stated = {}                 # (event, person) → the facings the text gives him in it (北面坐取: he keeps it)
    for e in rite.events:
        for a in e.actions:
            try:
                stated.setdefault((e.id, a.who), []).append(heading_of(a.heading)) if a.heading else None
            except PlaceError:  # facing a person or a place
                pass
    seen = kept = 0
    for aid, a in whole.actors.items():
        for g in a.gestures:
            if g.kind not in ("take", "set_down") or g.object not in whole.props:
                continue
            xyz, h = a.track.at(np.array([g.t0]))
            at, _ = whole.props[g.object].track.at(np.array([g.t1 if g.kind == "set_down" else g.t0]))
            v = at[0][:2] - xyz[0][:2]
            if np.hypot(*v) < 0.25:
                continue
            off = abs((np.degrees(np.arctan2(v[0], v[1])) - h[0] + 180.0) % 360.0 - 180.0)
            seen += 1
            if off <= TURN_TO_THING + 1.0:
                continue
            says = [x for e in whole.events if e.start <= g.t0 <= e.end for x in stated.get((e.id, aid), [])]
            assert any(abs((h[0] - x + 180.0) % 360.0 - 180.0) < 1.0 for x in says), (aid, g.row(), round(float(off)))
            kept += 1
    assert seen > 300 and kept <= 3, (seen, kept)


def test_the_sip_at_the_mat_s_lower_end_faces_as_the_mat():
    """席末坐啐酒: the 賓 sips on his mat's west end (乃席賔南面東上: the west is its lower end; 升席自西方), the 主人 at
    the 酢 on his mat's north end (席主人於阼階上西面; 主人升席自北方; 賈: 主人受酢爵時禮盛，故主人降席自北方，啐酒於
    席末亦然), each kneeling on the mat and facing as it faces, and each comes off it at that end (降席)."""
    reading = reading_named()
    whole = planned(part="whole")
    ev = {e.id: e for e in whole.events}
    for who, mat, step, along in (("宾", "宾席", "f4.ji", (-1.0, 0.0)), ("主人", "主人席", "f4.zji", (0.0, 1.0))):
        lm = reading.landmarks[mat]
        cui = ev[f"{step}.cui"]
        t = np.linspace(cui.start, cui.end, 40)
        track = whole.actors[who].track
        kneel = track.posture_at(t).astype(str) == "kneel"
        assert kneel.any(), (who, step)
        xyz, h = track.at(t[kneel])
        rel = xyz[:, :2] - np.asarray(lm.position[:2])
        out = rel @ np.asarray(along)                              # how far towards the lower end
        assert (out > 0.4).all(), (who, out)                       # at the lower end …
        assert (np.abs((h - lm.heading + 180.0) % 360.0 - 180.0) < 1.0).all(), (who, h)   # … facing as the mat
        assert shapely.contains_xy(shapely.Polygon(lm.footprint), xyz[:, 0], xyz[:, 1]).all(), who   # on it
        zhi = ev[f"{step}.zhi"]
        xyz, _ = track.at(np.array([zhi.end - 0.1]))
        assert not shapely.contains_xy(shapely.Polygon(lm.footprint), xyz[0, 0], xyz[0, 1]), who   # off it (降席)
        assert (xyz[0, :2] - np.asarray(lm.position[:2])) @ np.asarray(along) > 0.8, who             # at that end
