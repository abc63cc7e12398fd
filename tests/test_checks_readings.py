"""`check` on real plans: the default reading meets every statement it claims, and the other readings
differ from it where their sources say they do (the 乏, the range, the 物, the way round the 楹)."""
from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import pytest


ROOT = Path(__file__).resolve().parent.parent

# one worker measures each reading's statements once (results, cached per process; .ci/run's --dist loadgroup):
# spread over both, each measured the readings its tests met
pytestmark = pytest.mark.xdist_group("readings_checked")


@lru_cache(maxsize=None)
def checked(name: str) -> list:
    """``render.py check``'s results (run_check: every statement of the shipped catalogue) on a reading's plan,
    measured once per process (the default reading's were measured twice, by run_check and evaluate_all)."""
    from conftest import planned          # each reading planned once per session

    from reconstruct.checks.report import run_check

    return run_check(planned(name))


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
