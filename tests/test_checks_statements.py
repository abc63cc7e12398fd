"""The statements catalogue and its evaluation, on the hand-made fixture plan (tests/fixtures)."""
from __future__ import annotations

import collections
import copy
import json
from pathlib import Path

import pytest

from reconstruct.errors import InputError
from reconstruct.checks.statements import RELATIONS, evaluate_all, load_catalogue
from reconstruct.model.plan import Plan
from reconstruct.text.seed import load

FIXTURE = Path(__file__).parent / "fixtures" / "plan_small.json"


@pytest.fixture(scope="module")
def cat():
    return load_catalogue()


@pytest.fixture()
def plan():
    return json.loads(FIXTURE.read_text(encoding="utf-8"))


def by_id(results):
    return {r.statement.id: r for r in results}


def test_catalogue_covers_all_103_statements_of_the_brief(cat):
    assert {s.n for s in cat if s.n} == set(range(1, 104))
    assert len({s.id for s in cat}) == len(cat)


def test_catalogue_has_the_ji_rules(cat):
    quotes = {s.quote for s in cat}
    for rule in ("西序之席，北上", "立者东面北上", "凡奠者于左，将举者于右"):
        assert rule in quotes


def test_every_quote_is_an_exact_substring_of_the_seed(cat):
    """… of the seed, or (``part: first``) of the first half's text."""
    from reconstruct.checks.statements import FIRST_TEXT
    texts = {"passage": load(), "first": FIRST_TEXT.read_text(encoding="utf-8")}
    for s in cat:
        if s.quote is not None:
            assert texts[s.part][s.span[0]:s.span[1]] == s.quote, s.id
        else:
            assert s.text, s.id


def test_every_relation_kind_is_used(cat):
    used = collections.Counter(s.relation for s in cat)
    assert set(used) == set(RELATIONS)


def test_bad_catalogue_entries_are_refused(tmp_path):
    def bad(entry: str, what: str):
        f = tmp_path / "c.yaml"
        f.write_text(entry, encoding="utf-8")
        with pytest.raises(InputError, match=what):
            load_catalogue(f)

    bad("- {id: x, quote: 不在文中, subject: 司射, relation: facing, value: 北}", "not in the seed")
    bad("- {id: x, quote: 如初, subject: 司射, relation: facing, value: 北}", "more than once")
    bad("- {id: x, quote: 先数右获, subject: 司射, relation: behind, ref: 中}", "unknown relation")
    bad("- {id: x, quote: 先数右获, subject: 司射, relation: facing, value: 上}", "not a direction")
    bad("- {id: x, quote: 先数右获, subject: 司射, relation: distance, ref: 中, value: 3, unit: 里}", "unknown unit")
    bad("- {id: x, quote: 先数右获, subject: 司射, relation: near}", "needs a ref")
    bad("- {id: x, quote: 先数右获, subject: 司射, relation: level, value: roof}", "level value")
    bad("- {id: x, quote: 先数右获, subject: 司射, relation: facing, value: 北, colour: red}", "unknown field")




def test_fixture_follows_plan_format(plan):
    p = Plan.from_dict(plan)          # the format check passes
    text = load()
    assert p.format == "xiangshe-plan/1"
    for e in p.events:
        assert text[e.span[0]:e.span[1]] == e.text
    for ident in [*p.actors, *p.props]:
        assert (p.track(ident).t[1:] >= p.track(ident).t[:-1]).all()


def test_fixture_passes_what_it_performs(plan, cat):
    r = by_id(evaluate_all(Plan.from_dict(plan), cat))
    for sid in ("s01a", "s01b", "s01c", "s02a", "s02b", "s02c", "s03", "s06a", "s06b", "s06c", "s07a", "s07b"):
        assert r[sid].status == "pass", (sid, r[sid].message)


def test_margin_message_in_the_texts_units(plan, cat):
    r = by_id(evaluate_all(Plan.from_dict(plan), cat))
    assert r["f01"].status == "pass"
    assert r["f01"].message == "乏 is 6.93 m east–west from 侯中 (5.00 步); the text wants 5 步 = 6.93 m"
    assert r["f11"].measured == pytest.approx(69.30, abs=0.005)


def test_clauses_the_fixture_does_not_perform_are_not_evaluable(plan, cat):
    r = by_id(evaluate_all(Plan.from_dict(plan), cat))
    assert r["s24a"].status == "n/a"
    assert r["s24a"].failed_required


def test_wrong_facing_fails_with_the_angle(plan, cat):
    p = copy.deepcopy(plan)
    for k in p["actors"]["司射"]["keys"]:
        if k[0] >= 10.5:
            k[4] = 90.0                        # faces east instead of north
    r = by_id(evaluate_all(Plan.from_dict(p), cat))
    assert r["s01c"].status == "fail"
    assert r["s01c"].margin == pytest.approx(30.0 - 90.0)
    assert "90° from 北面" in r["s01c"].message


def test_path_on_the_wrong_side_fails(plan, cat):
    p = copy.deepcopy(plan)
    zx = p["landmarks"]["中"]["position"][0]
    for k in p["actors"]["司射"]["keys"]:
        if 3.5 < k[0] < 10.0:
            k[1] = zx - (k[1] - zx)            # mirror the detour to the west of the 中
    r = by_id(evaluate_all(Plan.from_dict(p), cat))
    assert r["s01a"].status == "fail"
    assert r["s01a"].measured < 0


def test_stair_versus_hall(plan, cat):
    p = copy.deepcopy(plan)
    H = p["hall"]["height_m"]
    keys = p["actors"]["释获者"]["keys"]
    keys[:] = [k for k in keys if k[0] < 37.0] + [[37.0, -5.54, 0.5, H, 0.0, "stand"]]
    p["events"][-1]["end"] = 38.0
    r = by_id(evaluate_all(Plan.from_dict(p), cat))
    assert r["s07a"].status == "fail" and r["s07a"].measured == "hall"   # 不升堂


def test_static_statements_change_with_the_reading(cat):
    from reconstruct.layout.reading import load_reading

    out = {}
    for name in ("zheng_xuan", "ao_jigong", "yishu_1748", "dashe_fa", "zheng_xuan_xiang"):
        out[name] = by_id(evaluate_all(Plan.of_ground(load_reading(name)), [s for s in cat if s.quote is None or s.id in ("s100",)]))
    assert out["zheng_xuan"]["f01"].ok and not out["ao_jigong"]["f01"].ok          # 乏 西五步 from the axis / the edge
    assert out["zheng_xuan"]["f02"].ok and not out["dashe_fa"]["f02"].ok           # 北十丈 / 北六丈
    assert out["zheng_xuan"]["f10"].ok and not out["zheng_xuan_xiang"]["f10"].ok   # 物 under the 棟 / 楣
    assert out["zheng_xuan"]["f11"].ok and not out["yishu_1748"]["f11"].ok         # 侯道 from the 物 / the 堂
    assert out["ao_jigong"]["f20"].ok and out["zheng_xuan"]["f20"].status == "n/a"  # 戶牖之間 needs a 室
    assert out["yishu_1748"]["f21"].ok and not out["zheng_xuan"]["f21"].ok         # 堂西 = 西堂下
    assert out["ao_jigong"]["s100"].ok and out["zheng_xuan"]["s100"].status == "n/a"  # 東房
