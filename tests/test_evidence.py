"""The evidence in view (issue 32): every element's basis as data, exported; a bad basis refused in one line;
the paradata report and what it computes downstream."""
from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest

from reconstruct.cli import main
from reconstruct.checks.paradata import dependencies, write_report
from reconstruct.checks.statements import load_catalogue
from reconstruct.layout import load_reading, reading_variant
from reconstruct.model.evidence import EVIDENCE_STYLE, Basis, Source, evidence_kind, hex_rgb
from reconstruct.model.plan import Plan
from reconstruct.model.vocabulary import EvidenceKind
from reconstruct.resources import LAYOUTS

ZX = (LAYOUTS / "zheng_xuan.toml").read_text(encoding="utf-8")


def run(argv, capsys):
    rc = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return rc, out, err


def bad_reading(tmp_path: Path, old: str, new: str) -> Path:
    assert old in ZX, old
    p = tmp_path / "bad.toml"
    p.write_text(ZX.replace(old, new, 1), encoding="utf-8")
    return p


# ---------------------------------------------------------------------------
# bad input: one line, exit 2, nothing written

@pytest.mark.parametrize("old,new,said", [
    ('{ source = "郑", at = "注", quote = "縣于洗東北', '{ source = "鄭x", at = "注", quote = "縣于洗東北',
     "landmarks.县.basis: basis [0]: unknown source '鄭x'"),
    ('{ source = "经", at = "seed (96)", quote = "辟設于乏南" }', '{ source = "经", at = "seed (96)", quote = "辟設于乏南", chosen = "x" }',
     "one of the two"),
    ('{ source = "经", at = "seed (96)", quote = "辟設于乏南" }', '{ source = "经", at = "seed (96)" }', "needs the words"),
    ('sishe_xi = { choice = "袭", basis = [{ source = "郑"', 'sishe_xi = { choice = "袭", basis = [{ source = "無"',
     "options.sishe_xi.basis: basis [0]: unknown source '無'"),
    ('"周尺" = { kind = "excavation"', '"周尺" = { kind = "legend"', "sources.周尺.kind"),
])
def test_a_bad_basis_is_one_line_and_exit_2(tmp_path, capsys, old, new, said):
    out = tmp_path / "lm.json"
    rc, _, err = run(["layout", bad_reading(tmp_path, old, new), "--json", out], capsys)
    assert rc == 2 and len(err.strip().splitlines()) == 1 and "Traceback" not in err
    assert "bad.toml" in err and said in err, err
    assert not out.exists()


def test_a_landmark_without_a_basis_is_refused(tmp_path, capsys):
    p = tmp_path / "bad.toml"
    s = re.sub(r'(\[landmarks\."乏南"\]\nlabel_en = [^\n]*\nat = [^\n]*\n)basis = \[\n[^\]]*\]\n', r"\1", ZX, count=1)
    assert s != ZX
    p.write_text(s, encoding="utf-8")
    rc, _, err = run(["layout", p], capsys)
    assert rc == 2 and "landmarks.乏南.basis" in err and "missing" in err


# ---------------------------------------------------------------------------
# the rule and the data

def test_the_evidence_kind_follows_what_fixes_the_place():
    src = {"经": Source("经", EvidenceKind.TEXT, "t"), "郑": Source("郑", EvidenceKind.COMMENTARY, "z")}
    text, zheng = Basis("经", "記", "西五步"), Basis("郑", "注", "去侯北十丈", of="at")
    assert evidence_kind([text], src) == "text"
    assert evidence_kind([text, zheng], src) == "commentary"            # 鄭 fixes the place, the text does not
    assert evidence_kind([text, Basis("郑", "注", "南鄉", of="heading")], src) == "text"   # a heading does not
    assert evidence_kind([text, Basis(chosen="the spacing", of="spacing")], src) == "chosen"
    assert evidence_kind([], src) is None
    assert set(EVIDENCE_STYLE) == set(EvidenceKind)
    cols = [c for _, c in EVIDENCE_STYLE.values()]
    assert len(set(cols)) == len(cols)


def test_the_readings_place_the_fa_on_different_evidence():
    zx, ao = load_reading("zheng_xuan"), load_reading("ao_jigong")
    assert zx.landmarks["乏"].evidence == "commentary"        # 鄭: 去侯北十丈，西三丈
    assert ao.landmarks["乏"].evidence == "later"             # 敖: 西五步 from the 左个
    assert zx.landmarks["洗"].evidence == "text" and zx.landmarks["觯位"].evidence == "chosen"
    assert zx.dimensions["building.width"]["evidence"] == "chosen"
    assert zx.dimensions["units.chi_m"]["evidence"] == "excavation"
    assert load_reading("zhou_chi_197").dimensions["units.chi_m"]["evidence"] == "chosen"


def test_the_plan_carries_the_basis_and_reads_it_back(plan):
    d = plan.to_dict()
    lay = d["layout"]
    assert lay["bibliography"]["郑"]["transcription"] == "kanripo KR1d0026_005"
    assert set(lay["evidence_legend"]) == set(EvidenceKind)
    assert lay["dimensions"]["range.hou_dao"]["basis"][0]["quote"].startswith("侯道五十弓")
    assert lay["option_basis"]["zhong_path"]["basis"][0]["source"] == "郑"
    fa = d["landmarks"]["乏"]
    assert fa["evidence"] == "commentary" and {"source": "郑", "at": "注", "quote": "去侯北十丈，西三丈", "of": "at"} in fa["basis"]
    for ident, lm in d["landmarks"].items():
        assert lm["basis"] and lm["evidence"] in set(EvidenceKind), ident
        assert all(b.get("source") in lay["bibliography"] or b.get("chosen") for b in lm["basis"]), ident
    rests = {e["id"]: e["options"] for e in d["events"] if e.get("options")}
    assert rests["p1.shiyu"] == ["zhong_path=中东"] and rests["p5.jian"] == ["huozhe_jianzu=位"]
    assert rests["p1.gao.zuo"] == ["victor=右"]         # the clause the option left a rule rests on it too
    text = plan.to_json()
    assert Plan.from_json(text).to_json() == text


def test_a_plan_with_a_basis_of_neither_kind_is_refused():
    d = json.loads(Plan.of_ground(load_reading("zheng_xuan")).to_json())
    d["landmarks"]["乏"]["basis"][0] = {"at": "注", "quote": "…"}
    with pytest.raises(Exception, match=r"landmarks\.乏\.basis\[0\]"):
        Plan.from_dict(d, "p.json")


# ---------------------------------------------------------------------------
# what a choice changes downstream

def _deps(layout, keys):
    return {d["dimension"]: d for d in dependencies(layout, load_reading(layout), load_catalogue(), keys=keys)}


def test_changing_the_hou_dao_moves_the_target_and_the_fa_and_not_the_hall():
    d = _deps("zheng_xuan", ("range.hou_dao", "lengths.堂深"))
    hou = dict(d["range.hou_dao"]["moved"])
    assert hou["侯"] == pytest.approx(0.05 * 50 * 6 * 0.231, abs=0.01)      # 5 % of 五十弓
    assert "乏" in hou and "洗" not in hou and "堂" not in hou
    assert "f11" in {s["id"] for s in d["range.hou_dao"]["statements"]}        # 侯道五十弓: its margin changes
    tangshen = dict(d["lengths.堂深"]["moved"])
    assert {"洗", "楅", "中"} <= set(tangshen) and "侯" not in tangshen


def test_the_dependency_list_changes_when_a_placement_changes(tmp_path):
    """Placed from the 侯, the 乏 moves with the 侯道; placed from the 堂廉, it no longer does."""
    p = tmp_path / "r.toml"
    p.write_text(ZX.replace('at = "侯北十丈西三丈"', 'at = "南四十丈西三丈"', 1), encoding="utf-8")
    before = dict(_deps("zheng_xuan", ("range.hou_dao",))["range.hou_dao"]["moved"])
    after = dict(_deps(p, ("range.hou_dao",))["range.hou_dao"]["moved"])
    assert "乏" in before and "乏" not in after and "侯" in after


def test_a_word_choice_is_tried_against_its_alternative():
    d = _deps("zheng_xuan", ("range.measured_from",))["range.measured_from"]
    assert d["change"] == "→ 堂廉"
    ref = reading_variant("zheng_xuan", {"range.measured_from": "堂廉"})
    assert dict(d["moved"])["侯"] == pytest.approx(abs(ref.landmarks["侯"].position[1]
                                                       - load_reading("zheng_xuan").landmarks["侯"].position[1]), abs=1e-3)


def test_the_report_is_one_page_with_every_section(tmp_path):
    reading = load_reading("zheng_xuan")
    out = tmp_path / "r.html"
    d = write_report("zheng_xuan", Plan.of_ground(reading), out)
    page = out.read_text(encoding="utf-8")
    for anchor in ("sources", "choices", "downstream", "options", "landmarks", "checks", "diagrams"):
        assert f"id='{anchor}'" in page
    assert "<svg" in page and "data:font/woff;base64," in page
    assert not re.search(r"""(src|href)=["']?(https?:)?//""", page)        # nothing fetched
    assert "kanripo KR1d0026_005" in page and "去侯北十丈，西三丈" in page
    assert {x["dimension"] for x in d["dimensions"]} == set(reading.dimensions)
    assert d["dimensions"][0]["alternatives"].keys() == {p.stem for p in LAYOUTS.glob("*.toml")}


# ---------------------------------------------------------------------------
# the evidence view: the colours in the picture are the bases'

BODIES = ("洗", "水", "篚", "县", "宾席", "主人席", "众宾席1", "工席", "大夫席", "上篚")


def _kind_of(rgb) -> str:
    """The kind whose colour has the chromaticity nearest a pixel's (shading scales the brightness)."""
    c = rgb / max(float(rgb.sum()), 1e-6)
    chroma = {str(k): np.array(hex_rgb(col)) / sum(hex_rgb(col)) for k, (_, col) in EVIDENCE_STYLE.items()}
    return min(chroma, key=lambda k: float(((c - chroma[k]) ** 2).sum()))


@pytest.mark.parametrize("name", ["zheng_xuan", "ao_jigong"])
def test_the_evidence_colours_in_a_still_are_the_landmarks_bases(tmp_path, name):
    from PIL import Image

    from reconstruct.render.still import render_still

    r = load_reading(name)
    anchors: dict = {}
    out = render_still(r, tmp_path / "e.png", view="hall", size=(480, 270), labels=False, supersample=1,
                       evidence=True, anchors_out=anchors)
    im = np.asarray(Image.open(out).convert("RGB")).astype(float)
    seen = {}
    for ident in BODIES:
        if ident not in anchors:
            continue
        x, y = (int(round(v)) for v in anchors[ident])
        votes = [_kind_of(im[j, i]) for j in range(y - 1, y + 2) for i in range(x - 1, x + 2)]
        seen[ident] = max(set(votes), key=votes.count)
    assert len(seen) >= 7, seen                                    # the hall view sees most of them
    assert seen == {k: r.landmarks[k].evidence for k in seen}
    assert {"text", "chosen"} <= set(seen.values())


def test_things_are_painted_by_their_evidence_and_acts_on_options_tagged(plan):
    from reconstruct.model.evidence import evidence_rgb, prop_evidence
    from reconstruct.render.evidence import option_words
    from reconstruct.render.layer import MovingLayer
    from reconstruct.scene.sampler import PlanSampler

    assert prop_evidence("中", plan.landmarks) == plan.landmarks["中"].evidence == "text"
    assert prop_evidence("觯", plan.landmarks) == "text"
    layer = MovingLayer(PlanSampler(plan))
    before = layer.colors.copy()
    layer.recolour_things(lambda ident: evidence_rgb("chosen") if ident == "中" else None)
    k = next(i for i, it in enumerate(layer.items) if it == ("prop", "中"))
    sel = layer.item_of_part[layer.part_of_vertex] == k
    want = 0.75 * np.array(evidence_rgb("chosen")) * 255 + 0.25 * before[sel]
    assert np.abs(layer.colors[sel] - want).max() <= 1.0
    assert (layer.colors[~sel] == before[~sel]).all()
    ev = next(e for e in plan.events if e.id == "p1.shiyu")
    assert option_words(ev.options, plan.layout.option_basis) == \
        "rests on an option: zhong_path=中东 (郑 注 on seed (84), 四部叢刊)"
    assert option_words(["victor=右"], plan.layout.option_basis) == "rests on an option: victor=右 (the script's default)"
