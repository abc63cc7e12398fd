"""`check` on real plans: the default reading meets every statement it claims, and the other readings
differ from it where their sources say they do (the 乏, the range, the 物, the way round the 楹)."""
from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import pytest


ROOT = Path(__file__).resolve().parent.parent

# spread over both workers (.ci/run's --dist loadgroup): each reading's plans are made once per run and shared
# (conftest.planned), and measuring a plan's statements is now cheap (`check` reads each track once for all the
# moments: about 1.5 s for the whole chapter), so a worker that meets a reading measures it itself; kept on one
# worker, this module's ~150 s of tests left the other worker idle at the end of the run


@lru_cache(maxsize=None)
def checked(name: str, part: str = "passage") -> list:
    """``render.py check``'s results (run_check: every statement of the shipped catalogue) on a reading's plan of
    a part of the chapter (the passage, or the whole), measured once per process (the default reading's were
    measured twice, by run_check and evaluate_all)."""
    from conftest import planned          # each reading planned once per session

    from reconstruct.checks.report import run_check

    return run_check(planned(name, part=part))


def results(name: str) -> dict[str, str]:
    return {r.statement.id: r.status for r in checked(name)}


def test_default_reading_meets_every_claim(plan):
    from reconstruct.checks.report import check_table

    found = checked("zheng_xuan")
    table = check_table(found, plan)
    assert not [r.statement.id for r in found if r.failed_required], table[-2000:]
    assert "claimed and not met: 0" in table
    passed = sum(v == "pass" for v in results("zheng_xuan").values())
    assert passed >= 150          # of the 197 statements, measured on the plan and the ground


# (reading, statement, status there, status in the default reading, why)
DIFFERENCES = [
    ("ao_jigong", "f01", "fail", "pass", "敖: the 乏 is measured from the target's west edge, not its centre line"),
    ("dashe_fa", "f01", "fail", "pass", "大射: 西十 — six 丈 west, not five 步"),
    ("dashe_fa", "f02", "fail", "pass", "大射: 北十 — six 丈 north, not ten"),
    ("yishu_1748", "f11", "fail", "pass", "義疏: the 侯道 is measured from the 堂, not from the 物"),
    ("yishu_1748", "f21", "pass", "fail", "義疏: 堂西 is at the foot of the west side hall"),
    ("zheng_xuan_xiang", "f10", "fail", "pass", "鄭's 庠: the 物 under the 楣, not the 棟"),
    ("zheng_xuan_xiang", "s51c", "fail", "pass", "庠: the archers pass outside (south of) the 楹 (由楹外)"),
]


@pytest.mark.parametrize("name,sid,there,default,why", DIFFERENCES, ids=[f"{d[0]}-{d[1]}" for d in DIFFERENCES])
def test_readings_differ_where_their_sources_say(name, sid, there, default, why):
    assert results("zheng_xuan")[sid] == default, why
    assert results(name)[sid] == there, why


@pytest.mark.parametrize("name", ["ao_jigong", "yishu_1748", "dashe_fa", "zhou_chi_197", "zheng_xuan_xiang"])
def test_other_readings_keep_the_text_where_they_agree(name):
    """Statements about the rite that no reading disputes hold on every ground (e.g. the 司射's way
    east of the 中, the loser's way south of the 司马, the 获者 with his back to the target)."""
    got = results(name)
    for sid in ("s01a", "s06a", "s18a", "s24a", "s41"):
        assert got.get(sid) == "pass", (name, sid)


# claimed statements a reading still misses without a source for it (to mend, not a difference of readings)
KNOWN_MISSES = {
    ("zhou_chi_197", "d01"): "on this 尺's small hall the 樂正, come up to be pledged at the 西階上, stands aside "
                             "north-west of the spot: one bow 158° off his facing",
    ("zhou_chi_197", "d34"): "門外 (2 m out) lies in the gate's passage, which the planner keeps clear 2.5 m out: "
                             "the 賓 and the 主人 are put aside, 3.5 m apart (門外 3.2 m out mended it, but with 27 "
                             "衆賓 their file outside the gate, 五尺 apart on this 尺, then crossed as it formed, f3.cong)",
}


@pytest.mark.parametrize("name", ["ao_jigong", "yishu_1748", "dashe_fa", "zhou_chi_197", "zheng_xuan_xiang"])
def test_other_readings_miss_a_claim_only_where_their_sources_differ(name):
    """Every statement the default reading claims holds on each other reading too, except where that reading's
    sources say otherwise (DIFFERENCES) and the misses listed as known: 衆賓…北上 on the 義疏's ground, the cup set
    back 薦西 on the shallow halls, the host and guest facing each other across the gate on the short 尺 failed
    here before they were mended."""
    missed = {r.statement.id for r in checked(name) if r.failed_required}
    allowed = {sid for n, sid, there, _, _ in DIFFERENCES if n == name and there == "fail"}
    allowed |= {sid for n, sid in KNOWN_MISSES if n == name}
    assert missed <= allowed, sorted(missed - allowed)


# ---------------------------------------------------------------------------------------------------------------
# The whole chapter (--part whole): the first half's statements as well, on each reading's own plan of the whole.

# the first half's statements a reading's sources answer otherwise (the twins of DIFFERENCES above, and the 庠's
# way to the marks): (reading, statement, why)
WHOLE_DIFFERENCES = [
    ("ao_jigong", "g21", "敖: the 乏 is measured from the target's west edge (as f01)"),
    ("dashe_fa", "g21", "大射: 西十 — six 丈 west, not five 步 (as f01)"),
    ("dashe_fa", "g22", "大射: 北十 — six 丈 north, not ten (as f02)"),
    ("zheng_xuan_xiang", "g396", "記 堂則物當楣: in the 庠 the 物 lies under the 楣, not the 棟 (as f10)"),
    ("zheng_xuan_xiang", "g231", "豫則鉤楹內，堂則由楹外 (the text itself): in the 庠 the 司射 passes south of the 楹 "
                                 "(鄭: 庠之制有堂有室也; 賈: 堂則物當楣，物近南，故過由楹南也)"),
]

# claimed statements of the whole chapter a reading still misses without a source for it, each with its cause as
# measured (to mend: not differences of the readings)
WHOLE_KNOWN_MISSES = {
    # a hall with a 室 (敖, 義疏) keeps 鄭's bays (CHOSEN), and the 賓's mat at 戶牖之間 lies 0.9 m north of the 物
    # under the 棟: his 薦 and 俎 (0.45 m before the mat) lie on the 物's line, the 俎 0.24 m from the 下物
    **{(name, sid): "the 賓's 俎 lies 0.24 m from the 下物 (戶牖之間, 0.9 m north of the 物): the archer on it stands "
                    "1.2 m south, the dishes kept as a body (0.65 m)" for name in ("ao_jigong", "yishu_1748")
       for sid in ("g234", "g252", "g391")},
    **{(name, "g402"): "物間 (上物东三尺北二尺) is at the 賓's mat's front edge, his 薦 0.39 m from it: the 司馬 is put "
                       "aside north-west, 0.42 m west of the 上物" for name in ("ao_jigong", "yishu_1748")},
    # the 義疏's 堂西 is 西堂下, at the foot of the platform, where the archers' row begins (堂西位): the places of
    # the gear (射器位, 6.5 m off, CHOSEN clear of the row and the platform) and of baring (宾袒位, 大夫袒位) lie
    # beyond what the statements allow, and those going there are put aside by the juniors waiting by them
    **{("yishu_1748", sid): "the 義疏's 堂西 (西堂下) is the head of the archers' row; the gear, the 賓's and the "
                            "大夫's places for baring lie 2–7 m from it" for sid in
       ("s43b", "g190", "g238", "g346", "g383", "g384", "g385", "g390")},
    ("yishu_1748", "g276"): "the 扑 leaned 0.70 m from 西阶西 (0.6 m allowed): a junior stands at the spot",
    ("yishu_1748", "g379"): "樂正適西方: 堂西东 taken, he stands at the foot of the 西階, 0.01 m west of its line",
    **{("zhou_chi_197", sid): "on this 尺's hall the 賓's 薦 lies 0.54 m from the 上物 and the planner keeps a dish "
                              "0.65 m (as a body): the 上射 stands 0.6 m south of his 物" for sid in ("g251", "g392")},
    ("zhou_chi_197", "g258"): "物間 (上物东三尺北二尺) falls on the 賓's 俎 on this 尺's hall: the 司馬 is put aside "
                              "west of the 上物",
    ("zhou_chi_197", "g308"): "the row west of the hall holds seven on this 尺's court (十丈 half-width, spacing 1.4 m "
                              "in metres): 众宾2 and 众宾3 are folded into a file behind, east of 众宾1",
}


@pytest.mark.parametrize("name", ["ao_jigong", "yishu_1748", "dashe_fa", "zhou_chi_197", "zheng_xuan_xiang"])
def test_whole_chapter_misses_a_claim_only_where_listed(name):
    """On each reading's plan of the whole chapter, the claimed statements not met are exactly its sources'
    differences (DIFFERENCES, WHOLE_DIFFERENCES) and the misses listed as known (KNOWN_MISSES, WHOLE_KNOWN_MISSES):
    none may be added silently, and one mended is struck from the lists."""
    missed = {r.statement.id for r in checked(name, part="whole") if r.failed_required}
    differ = {sid for n, sid, there, _, _ in DIFFERENCES if n == name and there == "fail"}
    differ |= {sid for n, sid, _ in WHOLE_DIFFERENCES if n == name}
    known = {sid for n, sid in KNOWN_MISSES if n == name} | {sid for n, sid in WHOLE_KNOWN_MISSES if n == name}
    assert differ <= missed, ("a difference of the sources no longer shows", sorted(differ - missed))
    assert missed <= differ | known, ("claimed and not met, not listed", sorted(missed - differ - known))
    assert known <= missed, ("listed as a known miss but met: strike it from the list", sorted(known - missed))
