"""The 義疏's 禮節圖 as steps (assets/lijietu.yaml) and the booklet drawn by them (render.py diagram --all --by step)."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from reconstruct.checks import lijietu
from reconstruct.checks.report import lijietu_booklet
from reconstruct.errors import InputError

# the modules that need the first half's plan on one worker (pytest-xdist --dist loadgroup, .ci/run):
# spread over both, one worker waited while the other planned the plan both needed
pytestmark = pytest.mark.xdist_group("first_half")

ROOT = Path(__file__).resolve().parent.parent


def test_the_steps_load_and_follow_the_yishu():
    lj = lijietu.load()
    titles = [s.title for s in lj.steps]
    # the 鄉射's own diagrams begin at 請射; the drinking before it is the 鄉飲酒's (射必先飲…已見于彼經)
    assert titles.index("鄉射請射之圖") == 10
    assert all(s.chapter == "鄉飲酒" for s in lj.steps[:10])
    assert titles[-1] == "無算爵圖"
    assert {s.part for s in lj.steps[:18]} == {"first"} and {s.part for s in lj.steps[18:]} == {"passage"}
    # the two title lines our copy exchanges: the first round is drawn before the second
    assert titles.index("上耦升去侯及初射之圖") < titles.index("三耦再射釋獲之圖")
    assert lj.notes["三耦再射釋獲之圖"].page == "047-58a"
    # no 介 in the 鄉射: the 鄉飲酒's 獻介 diagrams have no step
    assert {u["title"] for u in lj.not_used} == {"主人獻介圖", "介酢主人圖"}
    assert lj.locator(lj.steps[10]) == "欽定儀禮義疏 卷四十五 禮節圖一, 047-53a–55a"


@pytest.mark.parametrize("part", ["first", "passage"])
def test_every_declared_event_is_in_the_plan_of_its_part(plan_of, part):
    plan = plan_of(part=part)
    lj = lijietu.load()
    ids = {e.id for e in plan.events}
    steps = lj.of_part(part)
    assert steps
    for s in steps:
        assert s.start in ids, (s.title, s.start)
        if isinstance(s.at, str):
            assert s.at in ids, (s.title, s.at)
    drawn = lijietu.resolve(lj, plan, part)
    # the steps share out the part's text in order, and each is drawn after the previous
    assert all(a.span[1] == b.span[0] for a, b in zip(drawn, drawn[1:]))
    assert all(a.t <= b.t for a, b in zip(drawn, drawn[1:]))
    assert all(d.actors and d.since < d.t for d in drawn)
    # every placement a note states is measured on the plan (none left unmeasurable)
    results = [r for rs in lijietu.measure(lj, plan, part).values() for r in rs]
    assert results and all(r.status in ("pass", "fail") for r in results), [r.message for r in results
                                                                              if r.status == "n/a"]


def _write(tmp_path, edit):
    raw = yaml.safe_load(lijietu.LIJIETU.read_text(encoding="utf-8"))
    edit(raw)
    p = tmp_path / "lj.yaml"
    p.write_text(yaml.safe_dump(raw, allow_unicode=True), encoding="utf-8")
    return p


@pytest.mark.parametrize("edit, words", [
    (lambda r: r["steps"][0]["quote"].append("賔在堂中户牖之閒此注以為牖後"), "is not in the note of 右設席陳器之圖"),
    (lambda r: r["steps"][1].update(page="047-39a"), "stands on page 047-38a"),
    (lambda r: r["steps"][2].pop("title_in_copy"), "右主人獻賔圖 stands on page 047-8a"),
    (lambda r: r["steps"][0].update(part="second"), "part is passage or first"),
    (lambda r: r["steps"][2]["measure"][0].update(relation="beside"), "unknown relation"),
])
def test_a_bad_step_is_one_line(tmp_path, edit, words):
    # 主人獻賔圖 without title_in_copy: our copy's 右主人獻賔圖 is the 士冠禮's, on another page
    with pytest.raises(InputError) as e:
        lijietu.load(_write(tmp_path, edit))
    assert words in str(e.value) and "\n" not in str(e.value)


def test_an_event_not_in_the_plan_is_one_line(tmp_path, plan_of):
    lj = lijietu.load(_write(tmp_path, lambda r: r["steps"][3].update(at="f4.nothing")))
    with pytest.raises(InputError, match="at 'f4.nothing' is not an event of the plan's first"):
        lijietu.resolve(lj, plan_of(part="first"), "first")


def test_the_first_half_booklet_has_one_image_per_step(tmp_path, plan_of):
    book = lijietu_booklet(plan_of(part="first"), "first", tmp_path, "t")
    steps = lijietu.load().of_part("first")
    pngs = sorted(tmp_path.glob("t_*.png"))
    assert len(pngs) == len(book["pages"]) == len(steps) == 18
    page = (tmp_path / "t.html").read_text(encoding="utf-8")
    assert page.count("<img ") == 18
    assert "右鄉射請射之圖" in page and "047-53a–55a" in page and "衆弓倚于堂西蓋在堂西堂廉之下" in page
    assert "鄕射之禮主人戒賔" in page          # the text before the first diagram is shown, undrawn
    assert "DIFFERS" in page or "as stated" in page
    from PIL import Image

    assert Image.open(pngs[0]).size[0] > 400
    # the drawings share one cut of the font (the booklet's characters): each still shows every label it writes
    import base64
    import io
    import re
    import xml.etree.ElementTree as ET

    from fontTools.ttLib import TTFont

    svgs = sorted(tmp_path.glob("t_*.svg"))
    cuts = {re.search(r"data:font/woff;base64,([A-Za-z0-9+/=]+)", p.read_text(encoding="utf-8")).group(1)
            for p in svgs}
    assert len(cuts) == 1
    cmap = TTFont(io.BytesIO(base64.b64decode(cuts.pop()))).getBestCmap()
    for p in svgs:
        labels = "".join(t.text or "" for t in ET.parse(p).getroot().iter("{http://www.w3.org/2000/svg}text"))
        assert "右" in labels and not {c for c in labels if not c.isspace() and ord(c) not in cmap}, p.name


def test_paragraphs_are_the_passage_s():
    p = subprocess.run([sys.executable, "render.py", "diagram", "--part", "first", "--all", "--by", "paragraph"],
                       cwd=ROOT, capture_output=True, text=True)
    assert p.returncode == 2 and p.stderr.strip().count("\n") == 0 and "--by step" in p.stderr


def test_the_measures_read_the_plan_s_geometry(plan_of):
    """hall_edge is the distance to the hall's side; ref_landmark measures from the reading's landmark (所設中),
    not from the 中 itself, which is elsewhere until it is set."""
    plan = plan_of(part="first")
    lj = lijietu.load()
    res = {r.statement.id: r for rs in lijietu.measure(lj, plan, "first").values() for r in rs}
    bow = res["lj11a"]
    x = float(plan.track("上耦上射弓").at([bow.time])[0][0, 0])
    west = min(p[0] for p in plan.hall["footprint"])
    assert bow.measured == pytest.approx(west - x, abs=1e-3)
    sishe = res["lj12a"]
    y = float(plan.track("司射").at([sishe.time])[0][0, 1])
    assert sishe.measured == pytest.approx(plan.landmarks["中"].position[1] - y, abs=1e-3)
    zhong = plan.track("中").at([sishe.time])[0][0]
    assert abs(zhong[1] - plan.landmarks["中"].position[1]) > 0.5      # the 中 is not yet at its place


def test_the_vendored_yishu_is_the_shared_copy():
    ours = lijietu.load().source
    from reconstruct.resources import data_path

    shared = ROOT.parent / "shared" / "sources" / Path(ours).name
    if not shared.exists():
        pytest.skip("no shared sources beside the project")
    assert data_path(ours).read_bytes() == shared.read_bytes()
