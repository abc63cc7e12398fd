"""The rite script: loads, covers the whole text, expresses the brief's §5 spatial statements,
expands repetition over the cast, and rejects bad input with one-line file:line messages."""
import re
import shutil
from pathlib import Path

import networkx as nx
import pytest

from reconstruct.text import seed as T
from reconstruct.rite.loader import DEFAULT_SCRIPT, VERBS, RiteError, load_rite
from reconstruct.checks.script import check, coverage
from reconstruct.model.vocabulary import LandmarkKind
from reconstruct.text.placement import heading_of
from reconstruct.cli import main as cli_main

SEED = T.load()


@pytest.fixture(scope="module")
def rite():
    return load_rite()


def test_hash_matches_seed(rite):
    assert rite.text_sha256 == T.sha256() == "bc43abb7cb2187c1cc1faaa69bb66368095251b8cc51d9e01b1aa9f1a4836860"


def test_every_event_text_is_its_span(rite):
    assert rite.events[0].after == []
    for e in rite.events:
        assert SEED[e.span[0]:e.span[1]] == e.text
        assert e.gloss
        for a in e.actions:
            assert a.verb in VERBS


@pytest.mark.parametrize("kw", [
    {}, {"zhongbin": 9}, {"zhongbin": 9, "dafu": 2}, {"dafu": 0}, {"zhongbin": 1, "dafu": 0}, {"zhongbin": 4},
    {"options": {"victor": "左", "zhong_path": "中西", "dizi_fanwei": "堂西", "huozhe_jianzu": "位", "sishe_xi": "衍"}},
])
def test_coverage_is_complete(kw):
    r = load_rite(**kw)
    cov = coverage(r)
    assert cov["uncovered"] == [], cov["uncovered"][:3]
    assert cov["share"] == 1.0


def test_every_person_and_prop_has_an_initial_state(rite):
    ids = [p.id for p in rite.people] + [p.id for p in rite.props]
    assert sorted(rite.initial) == sorted(ids)
    assert rite.initial["司射"].at == "西阶西" and rite.initial["司射"].bare and "扑" in rite.initial["司射"].holds
    # 以旌負侯而俟 as every 取矢 leaves him: aside of the 侯's centre, turned to it (義疏: 意必轉而鄉侯始可指示之)
    assert rite.initial["获者"].at == "负侯西五尺" and rite.initial["获者"].heading == "南"
    assert rite.initial["旌"].held_by == "获者"
    assert rite.initial["释获者"].heading == "东"


def test_cast_ids_follow_plan_format(rite):
    ids = {p.id for p in rite.people}
    for i in ("司射", "司马", "获者", "释获者", "宾", "主人", "大夫", "众宾1", "上耦上射", "下耦下射",
              "弟子1", "执爵者", "举觯者1", "举觯者2", "乐正", "大师", "笙1", "从者"):
        assert i in ids
    assert "司正" in next(p for p in rite.people if p.id == "司马").aliases


# ---------------------------------------------------------------------------
# Brief §5, clause by clause: (statement, seed substring, actor, verb, place, heading, other checks)
S5 = [
    (1, "进由中东，立于中南，北面视算", "司射", "go", "中南", "北", {"via": ["中东"]}),
    (2, "释获者东面于中西坐", "释获者", "go", "释获者位", "东", {}),
    (2, "释获者东面于中西坐", "释获者", "kneel", None, None, {}),
    (3, "先数右获", "释获者", "sidestep", None, "南", {}),
    (4, "十纯则缩而委之", "释获者", "count_tallies", None, None, {"text": "右"}),
    (6, "兴，自前适左，东面", "释获者", "go", "释获者位北", "东", {"via": ["中南", "中东"]}),
    (7, "尽阶，不升堂", "释获者", "ascend", None, None, {"stair": "西阶", "top_step": True}),
    (8, "委其余于中西", "释获者", "reset_tallies", None, None, {}),
    (9, "司shè适堂西，命弟子设丰", "司射", "go", "堂西", None, {}),
    (10, "设于西楹之西", "弟子1", "put", "丰位", None, {"prop": "丰"}),
    # 勝者之弟子 (鄭: 其少者也; 賈: 固在射賓中): the youngest winner of the 三耦, here 下耦上射 (the right wins)
    (11, "南面坐奠于丰上", "下耦上射", "go", "丰北", "南", {}),
    (11, "南面坐奠于丰上", "下耦上射", "put", "丰", None, {"prop": "觯"}),
    (12, "北面于三耦之南", "司射", "go", "堂西南", "北", {}),
    (13, "进立于shè位，北上", "上耦上射", "formation", "射位", "东", {}),
    (14, "胜者先升堂，少右", "上耦上射", "sidestep", None, "东", {}),
    (15, "北面坐取丰上之觯", "上耦下射", "go", "丰南", "北", {}),
    (15, "北面坐取丰上之觯", "上耦下射", "kneel", None, None, {}),
    (16, "兴，少退，立卒觯", "上耦下射", "step_back", None, None, {}),
    (16, "进，坐奠于丰下", "上耦下射", "put", "丰下", None, {"prop": "觯"}),
    (17, "与升饮者相左", "上耦下射", "go", "阶前西七尺", "东", {}),
    (17, "与升饮者相左", "上耦下射", "bow", None, None, {"other": "次耦上射"}),
    (17, "与升饮者相左", "次耦上射", "bow", None, None, {"other": "上耦下射"}),
    (18, "出于司马之南，遂适堂西", "上耦下射", "go", "堂西", None, {"via": ["司马之南"]}),
    (19, "有执爵者", "执爵者", "go", "西序端", "东", {}),
    (20, "以授于席前", "执爵者", "give", None, None, {"other": "主人"}),
    (20, "以适西阶上北面立饮", "主人", "go", "西阶上", "北", {}),
    (22, "乃彻丰与觯", "弟子1", "take", "丰位", None, {"prop": "丰"}),
    (23, "献获者于侯", "司马", "go", "负侯东四尺", "西", {}),     # east of him, a bow's room off (p5: at a step their arms met)
    (24, "北面拜受爵", "获者", "kneel_bow", None, None, {"other": "司马"}),
    (24, "北面拜受爵", "获者", "face", None, "北", {}),
    (25, "司马西面拜送爵", "司马", "face", None, "西", {}),
    (26, "适右个，设荐俎", "获者", "go", "右个北七尺", "南", {}),
    # 鄭: 俎當其北 — the 俎 north of the 薦 at the target
    (26, "适右个，设荐俎", "赞者2", "put", "右个北四尺五寸", None, {"prop": "获者俎"}),
    (27, "获者南面坐", "获者", "kneel", None, None, {}),
    (28, "适左个、中，亦如之", "获者", "go", "左个北七尺", "南", {}),
    (28, "适左个、中，亦如之", "获者", "go", "侯中北七尺", "南", {}),
    (28, "适左个、中，亦如之", "获者", "gesture", None, None, {"text": "take_lung"}),
    (29, "左个之西北三步，东面设荐俎", "赞者1", "put", "左个之西北三步", None, {"prop": "获者荐"}),
    (30, "获者荐右东面立饮", "获者", "go", "获者荐南", "东", {}),
    (31, "司马受爵", "司马", "face", None, "北", {}),
    # 鄭: 不使當位，辟舉旌偃旌也。設于南，右之也 — beyond his spot at the 乏 (乏南), to the south
    (32, "辟设于乏南", "获者", "put", "乏南一丈", None, {"prop": "获者荐"}),
    (33, "获者负侯而俟", "获者", "go", "负侯", "北", {}),
    (34, "适洗，洗爵", "司射", "go", "洗", None, {}),
    (35, "献释获者于其位，少南", "司射", "go", "释获者位南八尺东三尺", "北", {}),
    (35, "荐脯醢，折俎，有祭", "赞者1", "put", "释获者位南三尺", None, {"prop": "释获者荐"}),
    (36, "释获者荐右东面拜受爵", "释获者", "go", "释获者荐南", "东", {}),
    (36, "释获者荐右东面拜受爵", "释获者", "kneel_bow", None, None, {}),
    (37, "司shè北面拜送爵", "司射", "face", None, "北", {}),
    (38, "司shè之西北面立饮", "释获者", "go", "司射之西", "北", {}),
    # 鄭: 辟薦少西之…亦辟俎 — he moves the dish (and the stand) a little west
    (39, "释获者少西辟荐", "释获者", "put", "释获者位南三尺西六尺", None, {"prop": "释获者荐"}),
    (40, "取弓于阶西", "司射", "take", "西阶西", None, {"prop": "司射弓"}),
    (41, "由司马之南适堂西", "司射", "go", "堂西南", "北", {"via": ["司马之南"]}),
    (42, "反于shè位", "上耦上射", "formation", "射位", "东", {}),
    (43, "主人堂东，宾堂西", "主人", "go", "主人袒位", None, {}),
    (43, "主人堂东，宾堂西", "宾", "go", "宾袒位", None, {}),
    (44, "阶前揖，及楅揖", "主人", "bow", None, None, {"other": "宾"}),
    (44, "阶前揖，及楅揖", "宾", "bow", None, None, {"other": "主人"}),
    (45, "拾取矢如三耦", "宾", "go", "楅西三尺五寸", "东", {}),
    (45, "拾取矢如三耦", "主人", "go", "楅东三尺五寸", "西", {}),
    (46, "北面搢三挟一个，揖退", "宾", "go", "楅南三尺西二尺", "北", {}),
    (46, "北面搢三挟一个，揖退", "主人", "tuck_arrows", None, None, {}),
    (47, "及阶揖，升堂揖，就席", "宾", "go", "宾席", "南", {}),
    (48, "耦东面，大夫西面", "众宾1", "go", "楅西三尺五寸", "东", {}),
    (48, "耦东面，大夫西面", "大夫", "go", "楅东三尺五寸", "西", {}),
    (49, "大夫进坐，说矢束", "大夫", "kneel", None, None, {}),
    (50, "大夫遂适序西", "大夫", "go", "大夫袒位", None, {}),
    (51, "司马升，命去侯", "司马", "go", "上物东三尺北二尺", "西南", {"via": ["钩楹"]}),   # 立于物間
    (52, "司shè与司马jiāo于阶前", "司射", "go", "阶前", None, {"other": "司马"}),
    (53, "东面命乐正", "司射", "go", "阶前", "东", {}),
    (54, "适阶间，堂下北面命曰", "司射", "go", "阶间西", "北", {}),
    (55, "乐正东面命大师", "乐正", "go", "大师西四尺", "东", {}),     # 鄭: 進還鄉大師 (before him, west of him)
    (56, "释获者执余获，升告", "释获者", "ascend", None, None, {"top_step": True}),
    (57, "弟子委矢，司马乘之", "司马", "go", "楅南", "北", {}),
    (57, "弟子委矢，司马乘之", "司马", "kneel", None, None, {}),
    (58, "司shè释弓视算", "司射", "go", "中南", "北", {"via": ["中东"]}),
    (59, "设丰、实觯如初", "弟子1", "put", "丰位", None, {"prop": "丰"}),
    (60, "适堂西，以命拾取矢", "司射", "go", "堂西南", "北", {}),
    (61, "遂授有司于堂西", "上耦上射", "give", None, None, {"other": "有司"}),
    (62, "辩拾取矢，揖，皆升就席", "宾", "go", "宾席", "南", {}),
    (63, "说侯之左下纲", "弟子1", "go", "左个", None, {}),
    (64, "命获者以旌退", "获者", "go", "堂西", None, {}),
    (65, "退中与算", "释获者", "put", "射器位西八尺", None, {"prop": "中"}),   # 諸所退皆俟堂西
    (66, "退复觯南而立", "司马", "go", "觯位南五尺", "北", {}),      # south of his 薦 (記; 鄭 薦於觶南)
    (67, "升自西阶，反坐", "大师", "go", "工席", "北", {}),   # his seat, the east end of the row (the reading's 工席位)
    (67, "升自西阶，反坐", "大师", "kneel", None, None, {}),
    (68, "阼阶上北面酬主人", "宾", "go", "阼阶上西三尺北一尺", "北", {}),
    (69, "主人降席，立于宾东", "主人", "go", "宾东", "北", {}),
    (70, "实之，进东南面", "宾", "go", "主人西北", "东南", {}),
    (71, "宾主人之西北面拜送", "宾", "go", "主人之西", "北", {}),
    (72, "大夫降席，立于主人之西", "大夫", "go", "西阶上北一尺", "北", {}),   # the 主人 east of him
    (73, "司正退立于西序端，东面", "司马", "go", "西序端", "东", {}),
    (75, "卒受者以觯降，奠于篚", "下耦下射", "put", "篚", None, {"prop": "酬觯"}),   # the last of those below
    (76, "西阶上北面皆坐奠觯", "举觯者1", "formation", "西阶上", "北", {}),
    (76, "西阶上北面皆坐奠觯", "举觯者2", "kneel", None, None, {}),
    (77, "宾与大夫皆席末答拜", "宾", "go", "宾席西", "南", {}),
    (77, "宾与大夫皆席末答拜", "大夫", "kneel_bow", None, None, {}),
    (78, "皆立于西阶上，北面东上", "举觯者1", "go", "西阶东上", "北", {}),
    (79, "坐奠于荐右", "举觯者1", "put", "宾荐西", None, {"prop": "宾觯"}),
    (80, "北面请坐于宾", "司马", "go", "西阶上", "北", {}),
    (81, "阶前命弟子俟彻俎", "司马", "go", "阶前", "西", {}),
    (82, "司正升立于序端", "司马", "go", "西序端", "东", {}),
    (83, "宾降席，北面", "宾", "go", "宾席南", "北", {}),
    (84, "主人降席自南方，阼阶上北面", "主人", "go", "阼阶上", "北", {}),
    (85, "大夫降席，席东南面", "大夫", "go", "大夫席东", "南", {}),
    (86, "遂立于阶西，东面", "宾", "go", "阶西", "东", {}),
    (87, "司正以俎出，授从者", "司马", "exit", "门外", None, {}),
    (88, "降自西阶以东", "弟子1", "go", "堂东北一丈东一丈二尺", None, {}),
    (89, "主人降自阼阶，西面立", "主人", "go", "阼阶东", "西", {}),
    (90, "大夫从之降，立于宾南", "大夫", "go", "宾南", "东", {}),
    (91, "立于大夫之南，少退，北上", "众宾1", "go", "大夫南西", "东", {"rank": 1}),
    (92, "说屦，乃升", "宾", "gesture", None, None, {"text": "take_off_shoes"}),
    (93, "以旅在下者于西阶上", "众宾2", "go", "西阶上东三尺北一尺", "北", {}),   # the last to drink the 宾's cup
    (94, "反奠于宾与大夫", "举觯者1", "put", "宾荐西", None, {"prop": "宾觯"}),
    (95, "宾降及阶", "宾", "descend", None, None, {"stair": "西阶"}),
    (96, "主人送于门外，再拜", "主人", "kneel_bow", None, None, {"count": 2}),
    (96, "宾出，众宾皆出", "主人", "exit", "门外东", None, {}),          # he goes out right after the 宾
    (97, "宾朝服以拜赐于门外", "宾", "go", "门外", "北", {}),
]


def _events_over(rite, sub):
    pos = SEED.find(sub)
    assert pos >= 0, sub
    end = pos + len(sub)
    return [e for e in rite.events if e.span[0] < end and pos < e.span[1]]


@pytest.mark.parametrize("n,sub,who,verb,place,heading,more", S5, ids=[f"{r[0]}-{r[1][:8]}" for r in S5])
def test_spatial_statement_is_expressed(rite, reading, n, sub, who, verb, place, heading, more):
    evs = _events_over(rite, sub)
    assert evs, f"§5.{n}: no event covers {sub}"
    acts = [a for e in evs for a in e.actions if a.who == who and a.verb == verb]
    assert acts, f"§5.{n}: no {who} {verb} in {[e.id for e in evs]}"

    def faces(a) -> bool:       # as stated, or (one going to his mat, nothing stated) as the mat faces
        if a.heading is not None or a.verb != "go" or a.place not in reading.landmarks:
            return a.heading == heading
        lm = reading.landmarks[a.place]
        return lm.kind == LandmarkKind.MAT and lm.heading == heading_of(heading)

    ok = [a for a in acts
          if (place is None or a.place == place) and (heading is None or faces(a))
          and all(getattr(a, k) == v for k, v in more.items())]
    assert ok, f"§5.{n}: {who} {verb} place={place} heading={heading} {more}; have {acts}"


def test_at_least_60_statements_checked():
    assert len({r[0] for r in S5}) >= 60


def test_record_clauses_are_rule_events(rite):
    for sub, governs in (("西序之席，北上", "西序"), ("立者东面北上", "堂西"), ("其笙，则献诸西阶上", "西阶"),
                         ("亨于堂东北", "堂东北"), ("乐正与立者齿", "乐正")):
        evs = _events_over(rite, sub)
        assert any(e.rule and governs in e.actors for e in evs), sub


# ---------------------------------------------------------------------------
# Repetition
def _losers(r):
    return [e.actions for e in r.events if re.fullmatch(r"p3\.yin\.\d+", e.id)]


@pytest.mark.parametrize("zb", [3, 9])
def test_forfeit_expands_over_pairs_in_rank_order(zb):
    r = load_rite(zhongbin=zb)
    drinkers = [a.who for e in r.events for a in e.actions if a.verb == "drink" and a.prop == "觯"]
    assert drinkers[:3] == ["上耦下射", "次耦下射", "下耦下射"]            # 右 wins: the 下射s drink
    assert drinkers[3:5] == ["主人", "大夫"]                                 # 以授于席前
    n_pairs = (zb - 1) // 2
    assert len(r.groups["众耦"]) == 2 * n_pairs
    assert drinkers[5:5 + n_pairs] == r.groups["众耦"][1::2]
    # the winner goes up first and steps right; the loser goes down first and passes the next pair 相左
    for i, (up, nxt) in enumerate([("上耦", "次耦"), ("次耦", "下耦")], 1):
        sheng = next(e for e in r.events if e.id == f"p2.ou{i}.sheng")
        assert [(a.who, a.verb) for a in sheng.actions][:2] == [(f"{up}上射", "ascend"), (f"{up}上射", "sidestep")]
        jiang = next(e for e in r.events if e.id == f"p2.ou{i}.jiang")
        assert (jiang.actions[0].who, jiang.actions[0].verb) == (f"{up}下射", "descend")
        assert any(a.other == f"{nxt}上射" for a in jiang.actions)                 # 相揖: both ways
        assert any(a.who == f"{nxt}上射" and a.other == f"{up}下射" for a in jiang.actions)
        # the loser crosses the next pair only once it is planned to stand in front of the stair
        assert f"p2.ou{i + 1}.jin" in jiang.after
    # the next pair starts up while the loser comes down (parallel), and goes up after the refill
    assert next(e for e in r.events if e.id == "p2.ou2.jin").after == ["p2.ou1.yi", "p2.youzhijue"]
    assert set(next(e for e in r.events if e.id == "p2.ou2.sheng").after) == {"p2.ou2.jijie", "p2.shi1.shi"}
    # 众宾继饮…辩 and 旅酬 scale with the parameter
    assert len({e.id.split(".")[1] for e in r.events if e.id.startswith("p2.zh")}) == n_pairs
    assert len([e for e in r.events if e.id.startswith("p18.lü.")]) == min(zb, 3)
    # below: the 衆賓 standing there, the 樂正 and the six of the 三耦 (遂酬在下者; 記 樂正與立者齒)
    assert len([e for e in r.events if e.id.startswith("p18.xia.")]) == max(0, zb - 3) + 7
    assert len(r.formations["射位"]) == 6 + 1 + 2 * n_pairs


def test_victor_option_swaps_drinkers():
    r = load_rite(options={"victor": "左"})
    drinkers = [a.who for e in r.events for a in e.actions if a.verb == "drink" and a.prop == "觯"]
    assert drinkers[:4] == ["上耦上射", "次耦上射", "下耦上射", "宾"]
    assert "众宾1" in drinkers          # 若大夫之耦不胜 … 特升饮


def test_options_keep_only_the_chosen_reading():
    a = load_rite()
    b = load_rite(options={"zhong_path": "中西"})
    ea = next(e for e in a.events if e.text == "兴，自前适左，东面")
    eb = next(e for e in b.events if e.text == "兴，自前适左，东面")
    assert ea.actions[1].via == ["中南", "中东"] and eb.actions[1].via == ["中西"]
    assert ea.option == "zhong_path=中东"
    assert sum(e.text == "兴，自前适左，东面" for e in a.events) == 1
    c = load_rite(options={"sishe_xi": "衍"})
    assert not any(a.verb == "cover" and a.who == "司射" for e in c.events if e.id.startswith("p10.xi") for a in e.actions)


def test_each_goes_back_to_his_place_by_one_table(rite):
    """反位, declared once in rite.yaml (tables) and read by the 旅酬's and the 無筭爵's events: one who has drunk goes
    back to his mat on the hall, or to his place below (the 樂正 西階東 北面, the 衆賓 standing below 立者位, the
    三耦 堂西, the 主人之贊者 堂東)."""
    from reconstruct.rite.script import Script
    from reconstruct.rite.yaml_lines import read_yaml

    s = Script(DEFAULT_SCRIPT, read_yaml(DEFAULT_SCRIPT))
    s.read_seed(); s.read_parameters(9, 2); s.read_options({}); s.read_cast(); s.read_ensembles()
    home = {row[0]: tuple(row[1:]) for row in s.env["反位"]}
    assert set(home) == set(s.person_ids)
    assert home["主人"] == ("主人席", "", False) and home["大夫2"] == ("大夫席2", "", False)
    assert home["众宾3"] == ("众宾席3", "", False) and home["众宾4"] == ("立者位", "东", True)
    assert home["乐正"] == ("西阶下东一丈", "北", True) and home["上耦上射"] == ("堂西", "南", True)
    assert home["执爵者"] == ("堂东", "西", True)
    # the events go there: the 樂正, pledged at the 西階上 in the 旅酬 and the 無筭爵 (以旅在下者), goes down and
    # back to his place; the 衆賓 on the hall back to their mats (the 旅酬's chain: 衆賓3 after 衆賓2)
    def goes(prefix: str, who: str) -> list[tuple[str | None, str | None]]:
        return [(a.place, a.heading) for e in rite.events if e.id.startswith(prefix)
                for a in e.actions if a.who == who and a.verb == "go"]
    for prefix in ("p18.", "p22."):
        assert ("西阶下东一丈", "北") in goes(prefix, "乐正"), prefix
        assert ("众宾席3", None) in goes(prefix, "众宾3"), prefix


def test_after_graph_is_acyclic_and_refers_to_kept_events(rite):
    ids = [e.id for e in rite.events]
    assert len(ids) == len(set(ids))
    g = nx.DiGraph()
    g.add_nodes_from(ids)
    for e in rite.events:
        for a in e.after:
            assert a in g, (e.id, a)
            g.add_edge(a, e.id)
    assert nx.is_directed_acyclic_graph(g)


# ---------------------------------------------------------------------------
# Bad input: one line "file:line: what"
@pytest.fixture
def scratch(tmp_path):
    src = DEFAULT_SCRIPT.parent
    for f in src.glob("*.yaml"):
        shutil.copy(f, tmp_path / f.name)
    main = tmp_path / "rite.yaml"
    main.write_text(main.read_text(encoding="utf-8").replace(
        "text: ../text/xiangshe_li_part2.txt", f"text: {T.SEED}"), encoding="utf-8")
    return tmp_path


def _break(path: Path, old: str, new: str, count: int = 1):
    s = path.read_text(encoding="utf-8")
    assert old in s, old
    path.write_text(s.replace(old, new, count), encoding="utf-8")
    return s[:s.index(old)].count("\n") + 1


@pytest.mark.parametrize("fname,old,new,what", [
    ("p5_offerings.yaml", "    - 司射 gear_off\n", "    - 司射 dance\n", "unknown verb 'dance'"),
    ("p5_offerings.yaml", "    - 司射 gear_off\n", "    - 司空 gear_off\n", "unknown actor '司空'"),
    ("p5_offerings.yaml", "    - 司射 put 扑 西阶西\n", "    - 司射 put 扑 月台\n", "unknown place '月台'"),
    ("p5_offerings.yaml", "    - 司射 put 扑 西阶西\n", "    - 司射 put 鼓 西阶西\n", "unknown prop '鼓'"),
    ("p5_offerings.yaml", "  text: 荐脯醢，折俎，有祭\n", "  text: 荐脯醢，折俎，无祭\n", "is not in the seed"),
    ("p5_offerings.yaml", "- id: p6.xi\n", "- id: p6.xi\n  after: [p6.yin]\n", "cycle in 'after'"),
    ("p5_offerings.yaml", "  after: [p6.xi]\n", "  after: [p6.nowhere]\n", "unknown event 'p6.nowhere'"),
    ("p5_offerings.yaml", "  gloss: \"Dried meat and pickles, a stand of jointed meat, with offering portions.\"\n",
     "  gloss: [unclosed\n", "YAML error"),
    # in a procedure: the error names the procedures file and the step's line
    ("procedures.yaml", "        - 司射 cover\n", "        - 司射 dance\n", "unknown verb 'dance'"),
    ("procedures.yaml", "      text: 先数右获\n", "      text: 先数左获\n", "is not in the seed"),
    # a table: its expression evaluated once, where it is declared; its name a new one
    ("rite.yaml", "  反位: \"[(p, '主人席'", "  反位: \"[(q, '主人席'", "cannot evaluate"),
    ("rite.yaml", "  反位: \"[(p, '主人席'", "  GROUPS: \"[(p, '主人席'", "table 'GROUPS'"),
])
def test_bad_input_gives_one_line_with_file_and_line(scratch, fname, old, new, what):
    line = _break(scratch / fname, old, new)
    with pytest.raises(RiteError) as ei:
        load_rite(scratch / "rite.yaml")
    msg = str(ei.value)
    assert "\n" not in msg
    m = re.match(r"(.+?):(\d+): (.*)", msg)
    assert m, msg
    assert m.group(1).endswith(fname)
    assert what in m.group(3)
    if what not in ("cycle in 'after'",):
        assert abs(int(m.group(2)) - line) <= 3, (msg, line)


def test_check_cli_exit_codes(scratch, capsys):
    assert cli_main(["script", "--check"]) == 0
    _break(scratch / "p5_offerings.yaml", "    - 司射 gear_off\n", "    - 司射 dance\n")
    assert cli_main(["script", "--check", "--rite", str(scratch / "rite.yaml")]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "p5_offerings.yaml:" in err


def test_check_json():
    rep = check()
    assert rep["coverage"] == 1.0 and rep["unresolved"] == [] and rep["uncovered"] == []
