"""The compare page (``render.py web --compare A B``, issue 32): both plans on one timeline, A solid and B a
ghost at B's time of the same act, and the differences of ``compare`` listed, each a link to its moment.

A cheap pair: the small fixture plan as A, and as B the same plan slowed down by a quarter (every time × 1.25),
its 司射 standing 1.5 m further east and its landmark 中 moved 2 m north — so what moves, by how much and
when is known beforehand.  The browser test skips without chromium."""
import json
from pathlib import Path

import numpy as np
import pytest

from reconstruct.checks.report import compare
from reconstruct.model.plan import Plan
from reconstruct.scene.sampler import PlanSampler
from reconstruct.web.browser import open_page, why_no_browser
from reconstruct.web.compare import build_compare_page, compare_data, ghost_times, timeline_warp

FIXTURES = Path(__file__).parent / "fixtures"
SLOW, EAST, NORTH = 1.25, 1.5, 2.0


# one worker builds this module's expensive fixtures once (pytest-xdist --dist loadgroup, .ci/run)
pytestmark = pytest.mark.xdist_group("compare_page")


def _slowed(d: dict) -> dict:
    d = json.loads(json.dumps(d))
    for group in ("actors", "props"):
        for ident, x in d[group].items():
            for rows in (x.get("keys", []), x.get("states", []), x.get("carrier", [])):
                for r in rows:
                    r[0] = r[0] * SLOW
            if ident == "司射":
                for r in x["keys"]:
                    r[1] += EAST
    for e in d["events"]:
        e["start"], e["end"] = e["start"] * SLOW, e["end"] * SLOW
    d["duration"] *= SLOW
    d["landmarks"]["中"]["position"][1] += NORTH
    d["layout"] = {**d["layout"], "name": "B (slowed, moved)"}
    return d


@pytest.fixture(scope="module")
def pair():
    d = json.loads((FIXTURES / "plan_small.json").read_text(encoding="utf-8"))
    return Plan.from_dict(d), Plan.from_dict(_slowed(d))


@pytest.fixture(scope="module")
def report(pair):
    return compare(*pair)


def test_the_timeline_pairs_the_same_acts(pair):
    a, b = pair
    w = timeline_warp(a, b)
    assert np.all(np.diff(w, axis=0) > 0)
    eb = {e.id: e for e in b.events}
    starts = [e.start for e in a.events]
    assert np.allclose(ghost_times(w, starts), [eb[e.id].start for e in a.events])
    assert np.allclose(ghost_times(w, [a.duration / 3]), [a.duration / 3 * SLOW])


def test_the_differences_say_what_moves_by_how_much_and_when(pair, report):
    a, b = pair
    diffs = compare_data(a, b, report)["compare"]["differences"]
    zhong = next(d for d in diffs if d["kind"] == "landmark" and d["label"] == "中")
    assert "2.00 m" in zhong["detail"] and zhong["at"] == pytest.approx(list(a.landmarks["中"].position))
    sishe = next(d for d in diffs if d["kind"] == "person" and d["label"] == "司射")
    assert sishe["size"] == pytest.approx(EAST, abs=0.01) and 0 <= sishe["moment"] <= a.duration
    assert not any(d["label"] == "宾" for d in diffs)                      # he does not move: not listed
    for s in report["statements"]:                                       # every change of verdict is listed
        assert any(d["kind"] == "statement" and d["label"].startswith(s["id"] + " ") for d in diffs)


@pytest.fixture(scope="module")
def compare_page(reading, pair, report, tmp_path_factory):
    why = why_no_browser()
    if why:
        pytest.skip(why)
    html, _ = build_compare_page((reading, pair[0]), (reading, pair[1]), report)
    path = tmp_path_factory.mktemp("webcmp") / "compare.html"
    path.write_text(html, encoding="utf-8")
    with open_page(path) as p:
        yield p


def test_both_plans_play_where_they_say(compare_page, pair):
    """At sampled times each person of A stands where A says at that time and each ghost where B says at B's
    time of the same act (1 cm), read from the scene's objects in the page."""
    a, b = pair
    p = compare_page
    assert p.errors == [] and p.blocked == []
    assert sorted(p.evaluate("xiangshe.ghostPeople()")) == sorted(b.actors)
    sa, sb = PlanSampler(a), PlanSampler(b)
    w = timeline_warp(a, b)
    for t in np.linspace(0.5, a.duration - 0.5, 7):
        got = p.evaluate("(t) => { xiangshe.setTime(t); return {tb: xiangshe.ghostTime(), a: Object.fromEntries("
                         "xiangshe.people().map((x) => [x, xiangshe.worldPosition(x)])), b: Object.fromEntries("
                         "xiangshe.ghostPeople().map((x) => [x, xiangshe.ghostPosition(x)]))}; }", float(t))
        tb = float(ghost_times(w, [t])[0])
        assert got["tb"] == pytest.approx(tb, abs=1e-6)
        for aid, track in sa.actors.items():
            assert np.linalg.norm(np.array(got["a"][aid]) - sa.position(track, t)[0]) < 0.01, (aid, t)
        for aid, track in sb.actors.items():
            assert np.linalg.norm(np.array(got["b"][aid]) - sb.position(track, tb)[0]) < 0.01, (aid, t)
        # the 司射 and his ghost are apart by what B adds (his ghost 1.5 m east)
        assert got["b"]["司射"][0] - got["a"]["司射"][0] == pytest.approx(EAST, abs=0.01)


def test_the_differences_are_listed_and_jump_to_their_moment(compare_page, pair, report):
    a, b = pair
    p = compare_page
    want = compare_data(a, b, report)["compare"]["differences"]
    shown = p.evaluate("xiangshe.differences()")
    assert len(shown) == len(want) >= 2 and all(d["visible"] for d in shown)
    assert any("中" in d["text"] and "2.00 m" in d["text"] for d in shown)
    for i, d in enumerate(want):
        p.locator(f"#diffs li[data-index='{i}']").click()
        assert p.evaluate("xiangshe.time()") == pytest.approx(d["moment"], abs=1e-3)
        if d.get("at"):
            assert np.allclose(p.evaluate("xiangshe.camera()")["target"], d["at"], atol=1e-3)


def test_the_command_writes_the_page_and_refuses_bad_input(pair, tmp_path, capsys):
    """``render.py web --compare A B`` with two saved plans writes one page (both scenes, the differences);
    a plan that is not there, or a cut that is not there, is one line and exit 2, writing nothing."""
    import base64
    import gzip
    import re

    from reconstruct import cli
    a = FIXTURES / "plan_small.json"
    b = tmp_path / "b.json"
    pair[1].save(b)
    out = tmp_path / "cmp.html"
    assert cli.main(["web", "--compare", str(a), str(b), "--out", str(out)]) == 0
    html = out.read_text(encoding="utf-8")
    ghost = re.search(r'id="xs-ghost">([^<]+)<', html).group(1)
    assert gzip.decompress(base64.b64decode(ghost))[:4] == b"glTF"
    data = json.loads(re.search(r'id="xs-data">(.*?)</script>', html, re.S).group(1).replace("<\\/", "</"))
    assert data["compare"]["b"]["name"] == "B (slowed, moved)" and data["compare"]["differences"]
    capsys.readouterr()
    for argv in (["web", "--compare", str(a), str(tmp_path / "none.json"), "--out", str(tmp_path / "x.html")],
                 ["web", "--plan", str(a), "--attract", "no_such_cut", "--out", str(tmp_path / "y.html")]):
        assert cli.main(argv) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and "Traceback" not in err[0], err
    assert not (tmp_path / "x.html").exists() and not (tmp_path / "y.html").exists()
