"""The readings in layouts/: the positions the brief derives, the differences between readings,
names in either character set, and bad input (issue 2: "Readings", "Bad input", "Done when")."""
from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

import pytest

from reconstruct.errors import InputError
from reconstruct.layout.reading import LAYOUTS, load_reading

ROOT = Path(__file__).resolve().parent.parent
CHI = 0.231
CM = 0.005          # "to the centimetre": half a centimetre either way

READINGS = {
    "zheng_xuan": LAYOUTS / "zheng_xuan.toml",
    "ao_jigong": LAYOUTS / "ao_jigong.toml",
    "yishu_1748": LAYOUTS / "yishu_1748.toml",
    "dashe_fa": LAYOUTS / "dashe_fa.toml",
    "zhou_chi_197": LAYOUTS / "zhou_chi_197.toml",
    "zheng_xuan_xiang": LAYOUTS / "zheng_xuan_xiang.toml",
}


@pytest.fixture(scope="module")
def R():
    return {k: load_reading(p) for k, p in READINGS.items()}


def pos(r, name):
    lm = r.find(name)
    assert lm is not None, name
    return lm.position


# ---------------------------------------------------------------------------
# Every reading loads, through the command line too, and cites every placement.

@pytest.mark.parametrize("name", sorted(READINGS))
def test_reading_loads_from_the_command_line(name, tmp_path, capsys):
    out = tmp_path / "lm.json"
    # the default reading through render.py in a fresh interpreter, the others in this process (see _layout_command)
    rc, err = _layout_command(READINGS[name], out, capsys, process=name == "zheng_xuan")
    assert rc == 0, err
    data = json.loads(out.read_text(encoding="utf-8"))
    assert {"乏", "侯中", "中", "楅", "洗", "左个", "右个"} <= set(data["landmarks"])


@pytest.mark.parametrize("name", sorted(READINGS))
def test_every_placement_cites_a_source(name, R):
    """Every landmark and placement has a basis (issue 32), each naming a source of the reading's [sources] or
    the reason it is chosen; every dimension of [building]/[court]/[range]/[units] has one too."""
    from reconstruct.model.vocabulary import EvidenceKind

    r = R[name]
    assert r.bibliography and r.sources
    for ident, lm in r.landmarks.items():
        assert lm.basis, f"{name}: landmark {ident} has no basis"
        assert lm.evidence in set(EvidenceKind), f"{name}: landmark {ident}: evidence {lm.evidence!r}"
        for b in lm.basis:
            assert (b.source in r.bibliography) != (b.chosen is not None), f"{name}: {ident}: {b}"
            assert b.chosen is not None or b.quote.strip(), f"{name}: {ident}: a source with no words quoted"
    for k, d in r.dimensions.items():
        assert d["basis"] and d["evidence"], f"{name}: dimension {k} has no basis"
    assert set(r.option_basis) == set(r.options) and all(r.option_basis.values())


def test_at_least_four_readings():
    assert len(list(LAYOUTS.glob("*.toml"))) >= 4


# ---------------------------------------------------------------------------
# The default reading (鄭玄/賈公彥), to the centimetre.

def test_fa_is_ten_zhang_north_three_zhang_west_of_the_target_centre(R):
    r = R["zheng_xuan"]
    fx, fy, _ = pos(r, "乏")
    hx, hy, _ = pos(r, "侯中")
    assert fy - hy == pytest.approx(23.10, abs=CM)          # 100 尺 × 0.231
    assert hx - fx == pytest.approx(6.93, abs=CM)            # 30 尺: 西五步 from the 正北
    assert r.units.chi_m == CHI


def test_right_side_of_the_target_is_east(R):
    r = R["zheng_xuan"]
    assert pos(r, "右个")[0] > pos(r, "左个")[0]
    assert pos(r, "右个")[0] == pytest.approx(20 * CHI, abs=CM)   # 上个五尋 = 40 尺 wide, centred
    assert pos(r, "左个")[0] == pytest.approx(-20 * CHI, abs=CM)


def test_basin_rack_and_tally_holder_share_one_latitude(R):
    r = R["zheng_xuan"]
    ys = [pos(r, n)[1] for n in ("洗", "楅", "中")]
    assert max(ys) - min(ys) < 0.01
    assert ys[0] == pytest.approx(-26 * CHI, abs=CM)          # one 堂深 (26 尺, CHOSEN) south of the 堂廉


def test_tally_holder_on_the_line_of_the_west_wall(R):
    r = R["zheng_xuan"]
    assert pos(r, "中")[0] == pytest.approx(pos(r, "西序")[0], abs=0.01)   # 西當西序: x equal only
    assert pos(r, "中")[1] != pytest.approx(pos(r, "西序")[1], abs=1.0)


def test_basin_under_the_east_eave_and_rack_on_the_axis(R):
    r = R["zheng_xuan"]
    assert pos(r, "洗")[0] == pytest.approx(pos(r, "东荣")[0], abs=0.01)
    assert pos(r, "楅")[0] == pytest.approx(0.0, abs=0.01)


def test_marks_under_the_ridge(R):
    r = R["zheng_xuan"]
    for m in ("上物", "下物"):
        assert pos(r, m)[1] == pytest.approx(pos(r, "栋")[1], abs=0.01)
    assert pos(r, "下物")[0] - pos(r, "上物")[0] == pytest.approx(6 * CHI, abs=CM)   # 間容弓
    assert pos(r, "上物")[0] < 0 < pos(r, "下物")[0]          # 上射 on the west (右物)


def test_target_is_fifty_bow_lengths_south_of_the_marks(R):
    r = R["zheng_xuan"]
    assert pos(r, "上物")[1] - pos(r, "侯")[1] == pytest.approx(69.30, abs=CM)


def test_target_centre_is_ten_chi_square_derived_from_the_range(R):
    r = R["zheng_xuan"]
    lm = r.find("侯中")
    assert lm.size[0] == pytest.approx(10 * CHI, abs=0.001)
    assert lm.size[2] == pytest.approx(10 * CHI, abs=0.001)
    p = r.params
    assert p["hou_gong"] == pytest.approx(20 * CHI, abs=0.001)     # 倍中以為躬
    assert p["hou_upper"] == pytest.approx(40 * CHI, abs=0.001)    # 倍躬以為左右舌
    assert p["hou_lower"] == pytest.approx(30 * CHI, abs=0.001)    # 下舌半上舌
    assert p["hou_bottom"] == pytest.approx(1.2 * CHI, abs=0.001)  # 下綱不及地武
    assert p["hou_top"] == pytest.approx(19.2 * CHI, abs=0.001)    # 義疏: 鄉侯高一丈九尺二寸


def test_default_has_no_chamber(R):
    r = R["zheng_xuan"]
    assert r.building_type == "xu_no_shi"
    assert r.find("室") is None and r.find("户牖间") is None


# ---------------------------------------------------------------------------
# 敖繼公 against 鄭.

def test_ao_has_a_chamber_and_an_east_room(R):
    r = R["ao_jigong"]
    assert r.building_type == "xu_with_shi"
    for n in ("室", "东房", "户牖间"):
        assert r.find(n) is not None, n
    assert pos(r, "宾席")[:2] == pytest.approx(pos(r, "户牖间")[:2], abs=0.01)
    assert pos(r, "宾席")[0] == pytest.approx(0.0, abs=0.01)
    assert pos(R["zheng_xuan"], "宾席")[0] != pytest.approx(0.0, abs=0.1)


def test_ao_fa_is_measured_from_the_west_edge(R):
    r = R["ao_jigong"]
    fx, fy, _ = pos(r, "乏")
    assert fx == pytest.approx(-(20 + 30) * CHI, abs=CM)        # 左个 20 尺 + 西五步 30 尺
    assert fy - pos(r, "侯中")[1] == pytest.approx(23.10, abs=CM)
    assert fx - pos(R["zheng_xuan"], "乏")[0] == pytest.approx(-20 * CHI, abs=CM)


def test_ao_hall_depth_ends_at_the_chamber_wall(R):
    ao, zx = R["ao_jigong"], R["zheng_xuan"]
    ys = [pos(ao, n)[1] for n in ("洗", "楅", "中")]
    assert max(ys) - min(ys) < 0.01                             # still one latitude
    assert ys[0] == pytest.approx(-pos(ao, "后楣")[1], abs=CM)  # 堂深 = to the 室 wall at the 後楣
    assert ys[0] - pos(zx, "洗")[1] == pytest.approx(6.5 * CHI, abs=CM)   # one bay further north
    assert pos(ao, "中")[0] == pytest.approx(pos(ao, "西序")[0], abs=0.01)


def test_ao_keeps_the_marks_under_the_ridge_and_the_range_from_the_marks(R):
    ao = R["ao_jigong"]
    assert pos(ao, "上物")[1] == pytest.approx(pos(ao, "栋")[1], abs=0.01)
    assert pos(ao, "侯")[1] == pytest.approx(pos(R["zheng_xuan"], "侯")[1], abs=0.01)


def test_ao_has_a_drum_south_of_the_chimes(R):
    ao = R["ao_jigong"]
    assert pos(ao, "鼓")[1] < pos(ao, "县")[1]
    assert R["zheng_xuan"].find("鼓") is None


# ---------------------------------------------------------------------------
# The other readings: at least six differences pinned.

def test_yishu_measures_the_range_from_the_hall(R):
    ys = R["yishu_1748"]
    assert pos(ys, "侯")[1] == pytest.approx(-300 * CHI, abs=CM)              # 去堂三十丈
    assert pos(R["zheng_xuan"], "侯")[1] == pytest.approx(pos(R["zheng_xuan"], "栋")[1] - 300 * CHI, abs=CM)
    assert pos(ys, "乏")[1] - pos(ys, "侯中")[1] == pytest.approx(23.10, abs=CM)
    assert pos(ys, "乏")[0] == pytest.approx(-30 * CHI, abs=CM)               # 鄭's numbers, not 敖's edge


def test_yishu_west_of_the_hall_is_under_the_west_side_hall(R):
    ys, zx = R["yishu_1748"], R["zheng_xuan"]
    assert pos(ys, "堂西")[0] == pytest.approx(pos(ys, "西堂")[0], abs=0.01)
    assert pos(zx, "堂西")[0] < pos(zx, "西荣")[0]                           # 鄭 default: beyond the 榮
    assert pos(ys, "堂西")[0] > pos(ys, "西荣")[0]
    assert ys.building_type == "xu_with_shi"


def test_dashe_fa_is_six_zhang_west_and_north(R):
    r = R["dashe_fa"]
    fx, fy, _ = pos(r, "乏")
    hx, hy, _ = pos(r, "侯中")
    assert fy - hy == pytest.approx(60 * CHI, abs=CM) == pytest.approx(13.86, abs=CM)
    assert hx - fx == pytest.approx(13.86, abs=CM)
    for n in ("洗", "中", "侯", "上物"):                                     # everything else as 鄭
        assert pos(r, n) == pytest.approx(pos(R["zheng_xuan"], n), abs=0.001)


def test_short_chi_shrinks_the_range(R):
    r = R["zhou_chi_197"]
    assert r.units.chi_m == 0.197
    assert pos(r, "上物")[1] - pos(r, "侯")[1] == pytest.approx(59.10, abs=CM)
    assert pos(r, "乏")[1] - pos(r, "侯中")[1] == pytest.approx(19.70, abs=CM)
    assert pos(r, "侯中")[0] - pos(r, "乏")[0] == pytest.approx(5.91, abs=CM)
    assert r.find("侯中").size[0] == pytest.approx(1.97, abs=0.001)


def test_xiang_puts_the_marks_under_the_front_purlin(R):
    r = R["zheng_xuan_xiang"]
    for m in ("上物", "下物"):
        assert pos(r, m)[1] == pytest.approx(pos(r, "楣")[1], abs=0.01)
    # the 楹 stand under the 楣 too: an archer reaches his mark by the south (由楹外), not 鉤楹內
    assert pos(r, "西楹")[1] == pytest.approx(pos(r, "上物")[1], abs=0.01)
    assert pos(R["zheng_xuan"], "上物")[1] > pos(R["zheng_xuan"], "西楹")[1]
    assert pos(r, "上物")[1] - pos(r, "侯")[1] == pytest.approx(69.30, abs=CM)
    assert r.building_type == "xu_with_shi"


def test_left_side_of_the_target_is_west_in_every_reading(R):
    for name, r in R.items():
        assert pos(r, "左个")[0] < 0 < pos(r, "右个")[0], name


def test_archer_frame_flips_the_sides(tmp_path):
    src = (LAYOUTS / "zheng_xuan.toml").read_text(encoding="utf-8")
    f = tmp_path / "archer.toml"
    f.write_text(src.replace('frame = "target"', 'frame = "archer"'), encoding="utf-8")
    r = load_reading(f)
    assert pos(r, "左个")[0] > 0 > pos(r, "右个")[0]


def test_readings_differ_where_they_say(R):
    """A summary of the pinned differences: each line is one reading against the default."""
    zx = R["zheng_xuan"]
    diffs = {
        "ao 乏 x": pos(R["ao_jigong"], "乏")[0] - pos(zx, "乏")[0],
        "ao 洗 y": pos(R["ao_jigong"], "洗")[1] - pos(zx, "洗")[1],
        "yishu 侯 y": pos(R["yishu_1748"], "侯")[1] - pos(zx, "侯")[1],
        "dashe 乏 y": pos(R["dashe_fa"], "乏")[1] - pos(zx, "乏")[1],
        "short 侯 y": pos(R["zhou_chi_197"], "侯")[1] - pos(zx, "侯")[1],
        "xiang 物 y": pos(R["zheng_xuan_xiang"], "上物")[1] - pos(zx, "上物")[1],
    }
    for k, v in diffs.items():
        assert abs(v) > 0.5, k


# ---------------------------------------------------------------------------
# Names: traditional and simplified alike; Chinese numerals.

def test_traditional_and_simplified_names_meet(R):
    r = R["zheng_xuan"]
    assert r.find("左個") is r.find("左个")
    assert r.find("西階") is r.find("西阶")
    assert r.find("縣") is r.find("县")
    assert r.find("東榮") is r.find("东荣")


def test_traditional_placement_resolves_like_simplified(tmp_path):
    src = (LAYOUTS / "zheng_xuan.toml").read_text(encoding="utf-8")
    f = tmp_path / "trad.toml"
    f.write_text(src.replace('at = "侯北十丈西三丈"', 'at = "侯北十丈西三丈"'.replace("侯", "矦"))
                 .replace('x = "东荣"', 'x = "東榮"'), encoding="utf-8")
    # 矦 is a variant opencc does not fold: it must be refused as an unknown name, not guessed
    with pytest.raises(InputError):
        load_reading(f)
    f.write_text(src.replace('x = "东荣"', 'x = "東榮"').replace('at = "洗西三尺"', 'at = "洗之西三尺"'),
                 encoding="utf-8")
    r = load_reading(f)
    assert pos(r, "洗") == pytest.approx(pos(load_reading(READINGS["zheng_xuan"]), "洗"))


@pytest.mark.parametrize("text,chi", [("三步", 18), ("十丈", 100), ("五十弓", 300), ("尺有二寸", 1.2),
                                      ("一丈九尺五寸", 19.5), ("三笴", 9), ("二尋", 16), ("十二尺", 12)])
def test_chinese_numerals_and_units(text, chi):
    from reconstruct.text.units import Units, parse_length

    assert parse_length(text).chi(Units()) == pytest.approx(chi)


def test_diagonal_is_read_along_the_bearing(R):
    r = R["zheng_xuan"]
    a, b = pos(r, "中"), pos(r, "司射位")
    assert math.hypot(b[0] - a[0], b[1] - a[1]) == pytest.approx(6 * CHI, abs=CM)   # 西南一步, 45°


# ---------------------------------------------------------------------------
# Bad input: exit 2, one line naming the file, the line or key path, what is wrong; no output.

BAD = {
    "toml_syntax": ('name = "鄭玄、賈公彥"', 'name = "鄭玄、賈公彥', ["TOML"]),
    "missing_field": ('hou_dao = "五十弓"       # 記: 侯道五十弓\n', "", ["range.hou_dao", "missing"]),
    "misspelt_key": ('eave_height = "一丈"', 'eave_hieght = "一丈"', ["eave_hieght", "unknown field"]),
    "misspelt_required_key": ('stair_width = "七尺"', 'stair_widht = "七尺"', ["building.stair_width", "missing"]),
    "unknown_unit": ('width = "六丈"', 'width = "六里"', ["building.width"]),
    "unknown_unit_declared": ('diagonal = "bearing"', 'chi_per = {"里" = 1800}\ndiagonal = "bearing"', ["units.chi_per", "unknown unit"]),
    "unknown_landmark": ('at = "侯北十丈西三丈"', 'at = "猴北十丈西三丈"', ["乏", "猴"]),
    "negative_size": ('size = ["七尺", "一尺", "七尺"]', 'size = ["七尺", -1, "七尺"]', ["乏", "size", "positive"]),
    "unparsable_placement": ('at = "乏南五尺"', 'at = "乏南五尺上下左"', ["乏南"]),
    "cycle": ('y = "洗"                 # 南當洗', 'y = "中"                 # 南當洗', ["cycle", "楅", "中"]),
    "wrong_type": ("steps = 3", 'steps = "三"', ["building.steps"]),
}


# the command as a user runs it (render.py in a fresh interpreter) for one case; the others through the same
# entry point in this process (reconstruct.cli.main, what render.py calls), about a second less each: what a fresh
# process adds (the interpreter's exit code, anything printed on start-up) does not depend on the case
IN_A_PROCESS = "unknown_landmark"


def _layout_command(f: Path, out: Path, capsys, process: bool) -> tuple[int, str]:
    """(exit code, stderr) of ``render.py layout f --json out``."""
    if process:
        p = subprocess.run([sys.executable, "render.py", "layout", str(f), "--json", str(out)],
                           cwd=ROOT, capture_output=True, text=True)
        return p.returncode, p.stderr
    import warnings

    from reconstruct import cli

    capsys.readouterr()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("default")              # what a fresh interpreter would print on stderr
        rc = cli.main(["layout", str(f), "--json", str(out)])
    err = capsys.readouterr().err
    shown = [w for w in caught if not issubclass(w.category, (DeprecationWarning, PendingDeprecationWarning,
                                                               ImportWarning, ResourceWarning))]
    return rc, err + "".join(f"{w.category.__name__}: {w.message}\n" for w in shown)


@pytest.mark.parametrize("case", sorted(BAD))
def test_bad_reading_exits_2_with_one_line(case, tmp_path, capsys):
    old, new, must = BAD[case]
    src = (LAYOUTS / "zheng_xuan.toml").read_text(encoding="utf-8")
    assert old in src, f"fixture out of date: {old!r}"
    f = tmp_path / f"{case}.toml"
    f.write_text(src.replace(old, new, 1), encoding="utf-8")
    out = tmp_path / "out.json"
    rc, err = _layout_command(f, out, capsys, process=case == IN_A_PROCESS)
    assert rc == 2, err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    line = lines[0]
    assert "Traceback" not in err
    assert str(f) in line
    assert any(ch.isdigit() for ch in line.split(str(f), 1)[1].split(":")[1]) or "." in line  # line or key path
    for m in must:
        assert m in line, (m, line)
    assert not out.exists()
    assert not list(tmp_path.glob(".out.json*"))
