"""The first half's archery (issue 29 part B: 三耦俟于堂西 … 司射遂適西階西釋弓去, offsets 1672–3601 of part 1):
covered clause by clause, the 誘射 the 司射's four arrows alone and uncalled, the first round without a tally,
every arrow of the first round carried back to the 楅, and the first half's performances of the written-once
procedures holding their repeats to them (the same check as the passage's 如初)."""
from __future__ import annotations

import math

import pytest
from conftest import planned
from test_rite_procedures import _differences

from reconstruct.checks.script import coverage
from reconstruct.resources import ASSETS
from reconstruct.rite.loader import load_part

# the modules that need the first half's and the whole chapter's plans on one worker (pytest-xdist --dist loadgroup, .ci/run):
# spread over both, one worker waited while the other planned the plan both needed
pytestmark = pytest.mark.xdist_group("first_half")

PART1 = ASSETS / "text" / "xiangshe_li_part1.txt"
ARCHERY = (1672, 3601)          # 三耦俟于堂西 … 司射遂適西階西釋弓去
SANOU = ["上耦上射", "上耦下射", "次耦上射", "次耦下射", "下耦上射", "下耦下射"]


@pytest.fixture(scope="module")
def first():
    return planned(part="first")


def _end(plan, eid: str) -> float:
    return next(e.end for e in plan.events if e.id == eid)


def _start(plan, eid: str) -> float:
    return next(e.start for e in plan.events if e.id == eid)


def test_the_archery_sections_are_covered():
    rite = load_part("first")
    cov = coverage(rite, PART1.read_text(encoding="utf-8"))
    missing = [u for u in cov["uncovered"] if u["span"][1] > ARCHERY[0]]
    assert missing == [], missing[:3]
    mine = [e for e in rite.events if e.span[0] >= ARCHERY[0]]
    assert mine and all(e.span[1] <= ARCHERY[1] for e in mine)


def test_the_demonstration_is_the_sishe_alone_and_nobody_calls(first):
    yu = [s for s in first.shots if s.round == 0]
    assert [s.archer for s in yu] == ["司射"] * 4
    assert sorted(s.arrow for s in yu) == [f"司射矢{k}" for k in range(1, 5)]
    assert not any(s.counted for s in yu)
    t0, t1 = _start(first, "f9.youshe"), _end(first, "f9.youshe")
    calls = [g for g in first.actors["获者"].gestures if g.kind == "call" and t0 <= g.t0 <= t1 + 5]
    assert calls == []          # 不去旌，以其不獲


def test_the_first_round_is_the_three_pairs_without_a_tally(first):
    r1 = [s for s in first.shots if s.round == 1]
    assert sorted({s.archer for s in r1}) == sorted(SANOU) and len(r1) == 24
    assert not any(s.counted for s in r1)
    t1 = max(s.land for s in r1) + 30
    laid = [g for g in first.actors["释获者"].gestures if g.kind in ("lay_tally", "take_tallies", "fill_holder")
            and g.t0 < t1]
    assert laid == []           # 獲而未釋獲
    hits = sum(s.hit for s in r1)
    calls = [g for g in first.actors["获者"].gestures if g.kind == "call" and g.t0 < t1]
    assert len(calls) == hits   # 獲者坐而獲: one cry for each hit


def test_the_second_round_lays_a_tally_for_every_counted_hit(first):
    r2 = [s for s in first.shots if s.round == 2]
    archers = {s.archer for s in r2}
    assert set(SANOU) <= archers and {"宾", "主人", "大夫"} <= archers
    lays = [g for g in first.actors["释获者"].gestures if g.kind == "lay_tally"]
    assert len(lays) == sum(s.counted for s in r2) > 0


def test_every_arrow_of_the_first_round_is_carried_back_to_the_rack(first):
    t = _end(first, "f10.wq.cheng")
    fx, fy, _ = first.landmarks["楅"].position
    for a in SANOU + ["司射"]:
        for k in range(1, 5):
            pid = f"{a}矢{k}"
            pr = first.props[pid]
            row = [r for r in pr.track.rows() if r[0] <= t][-1]
            assert pr.carrier(t) is None and math.hypot(row[1] - fx, row[2] - fy) < 0.8, (pid, row)
            # nothing moved unless carried: between the landing and the rack, someone held it
            assert any(c[1] and c[1].startswith("弟子") for c in pr.carriers.rows()), pid


def test_at_the_end_the_shot_arrows_are_on_the_rack(first):
    fx, fy, _ = first.landmarks["楅"].position
    T = max(e.end for e in first.events)
    for s in {s.arrow for s in first.shots if s.round == 2}:
        pr = first.props[s]
        row = pr.track.rows()[-1]
        assert pr.carrier(T) is None and math.hypot(row[1] - fx, row[2] - fy) < 0.8, (s, row)


def test_the_first_halfs_repeats_hold_to_their_first_performances(first):
    """拾取矢 (f11.sq1 its 初, f11.sq2–3 亦如之), 射 (the pairs of both rounds): each repeat performs its first
    performance person for person except where a cited override says otherwise."""
    assert _differences(first) == []


def test_the_passages_repeats_hold_to_their_first_performances_in_the_first_half():
    """In the whole chapter the 初 of 拾取矢, 射, 宾主人射, 大夫射, 降揖 and 司马命 is in the first half: the
    passage's 如初 are held to it (one plan of the whole chapter, shared with the other tests that need it)."""
    whole = planned(part="whole")
    from test_rite_procedures import _performances
    perfs = _performances(whole)
    for name, first in (("射", "f10.ou1a"), ("拾取矢", "f11.sq1"), ("宾主人射", "f11.bz"), ("大夫射", "f11.dafu1"),
                        ("司马命", "f10.qu"), ("委矢乘矢", "f10.wq")):
        assert perfs[name][0][0].procedure["call"] == first, name
        assert len(perfs[name]) >= 2, name
    assert _differences(whole) == []
