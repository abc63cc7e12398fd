"""render.py check / compare / diagram on the fixture plan and on the readings."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from reconstruct.checks.report import compare, compare_table, path_stats, pick_event
from reconstruct.layout.reading import load_reading
from reconstruct.model.plan import Plan

ROOT = Path(__file__).resolve().parent.parent
FIXTURE = Path(__file__).parent / "fixtures" / "plan_small.json"


def run(*args):
    return subprocess.run([sys.executable, "render.py", *map(str, args)], cwd=ROOT, capture_output=True, text=True)


def run_here(capsys, *args) -> subprocess.CompletedProcess:
    """The same command through its entry point in this process (reconstruct.cli.main, what render.py calls): the
    first test of each command runs the script in a fresh interpreter, the others need not pay its imports again."""
    from reconstruct import cli

    capsys.readouterr()
    rc = cli.main([str(a) for a in args])
    out, err = capsys.readouterr()
    return subprocess.CompletedProcess(["render.py", *map(str, args)], rc, out, err)


def ground(name):
    return Plan.of_ground(load_reading(name))


def test_check_on_the_fixture_prints_the_table_and_fails_on_unperformed_claims(tmp_path):
    out = tmp_path / "check.json"
    p = run("check", "--plan", FIXTURE, "--json", out)
    assert p.returncode == 1, p.stderr                  # most claimed clauses are not in the small fixture
    assert "s01a" in p.stdout and "进由中东" in p.stdout
    assert "乏 is 6.93 m east–west from 侯中 (5.00 步); the text wants 5 步 = 6.93 m" in p.stdout
    data = json.loads(out.read_text(encoding="utf-8"))
    res = {r["id"]: r for r in data["results"]}
    assert res["s01b"]["status"] == "pass"
    assert "s24a" in data["failed_required"]


def test_check_passes_when_every_claim_is_met(tmp_path, capsys):
    cat = tmp_path / "c.yaml"
    cat.write_text("- {id: a, quote: 立于中南, subject: 司射, relation: south_of, ref: 中, lateral: 0.6, required: true}\n"
                   "- {id: b, quote: 北面视算, subject: 司射, relation: facing, value: 北, required: true}\n"
                   "- {id: c, quote: 先数右获, subject: 获者, relation: facing, value: 北, required: false}\n",
                   encoding="utf-8")
    p = run_here(capsys, "check", "--plan", FIXTURE, "--catalogue", cat)
    assert p.returncode == 0, p.stdout + p.stderr
    assert "claimed and not met: 0" in p.stdout


def test_check_bad_plan_is_one_line(tmp_path, capsys):
    f = tmp_path / "p.json"
    f.write_text("{not json", encoding="utf-8")
    p = run_here(capsys, "check", "--plan", f)
    assert p.returncode == 2
    assert len(p.stderr.strip().splitlines()) == 1 and str(f) in p.stderr


def test_compare_zheng_and_ao_grounds():
    c = compare(ground("zheng_xuan"), ground("ao_jigong"))
    moved = {m["landmark"]: m for m in c["landmarks_moved"]}
    assert moved["乏"]["dx"] == pytest.approx(-20 * 0.231, abs=0.005)
    assert moved["洗"]["dy"] == pytest.approx(6.5 * 0.231, abs=0.005)
    assert {"室", "东房", "户牖间"} <= set(c["only_in_b"])
    ids = {s["id"] for s in c["statements"]}
    assert {"f01", "f20", "s100"} <= ids
    table = compare_table(c)
    assert "乏" in table and "only in B" in table


def test_compare_counts_path_length_and_time():
    st = path_stats(Plan.load(FIXTURE))
    assert st["司射"][0] > 5.0 and st["司射"][1] > 5.0
    assert st["宾"] == (0.0, 0.0)


def test_compare_command_writes_the_overlay(tmp_path):
    out = tmp_path / "cmp.svg"
    p = run("compare", "layouts/zheng_xuan.toml", "layouts/ao_jigong.toml", "--plan-a", FIXTURE,
            "--plan-b", FIXTURE, "--out", out)
    assert p.returncode == 0, p.stderr
    assert out.exists() and out.with_suffix(".png").exists()
    assert "<svg" in out.read_text(encoding="utf-8")


def test_diagram_at_an_event_and_a_footnote(tmp_path):
    plan = Plan.load(FIXTURE)
    assert pick_event(plan, "e3").id == "e3"
    assert pick_event(plan, "84").id == "e5"
    assert pick_event(plan, "自前适左").id == "e5"
    p = run("diagram", "--plan", FIXTURE, "--at", "80", "--out", tmp_path)
    assert p.returncode == 0, p.stderr
    svgs = list(tmp_path.glob("*.svg"))
    assert len(svgs) == 1
    s = svgs[0].read_text(encoding="utf-8")
    assert "释获者" in s and "西阶" in s and "侯" in s
    # well-formed, and its labels in the font cut down to them and embedded: every character it writes has a
    # glyph in the embedded font (a machine without the font shows them, not boxes)
    import base64
    import io
    import re
    import xml.etree.ElementTree as ET

    from fontTools.ttLib import TTFont

    root = ET.fromstring(s.encode("utf-8"))
    labels = "".join(t.text or "" for t in root.iter("{http://www.w3.org/2000/svg}text"))
    woff = re.search(r"data:font/woff;base64,([A-Za-z0-9+/=]+)", s)
    assert woff and "释获者" in labels
    cmap = TTFont(io.BytesIO(base64.b64decode(woff.group(1)))).getBestCmap()
    assert not {c for c in labels if not c.isspace() and ord(c) not in cmap}
    from PIL import Image

    im = Image.open(svgs[0].with_suffix(".png"))
    assert im.size[0] > 400 and im.size[1] > 400


def test_diagram_booklet(tmp_path, capsys):
    p = run_here(capsys, "diagram", "--plan", FIXTURE, "--all", "--out", tmp_path)
    assert p.returncode == 0, p.stderr
    html = next(tmp_path.glob("*.html")).read_text(encoding="utf-8")
    assert "¶1" in html and "<img" in html
    assert list(tmp_path.glob("*_p01.png"))
