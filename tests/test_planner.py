"""The planner: positions, facings, postures and levels at the end of events, stairs, via constraints,
determinism, the audit of the whole passage, and bad input."""
from __future__ import annotations

import re
import json
import math
import shutil
import subprocess
import sys
from itertools import pairwise
from pathlib import Path

import numpy as np
import pytest
import shapely

from reconstruct.checks.audit import audit, sample
from reconstruct.checks.conservation import conservation
from reconstruct.model.plan import FORMAT, POSTURES, PROP_POSTURES, Plan
from reconstruct.layout.reading import load_reading
from reconstruct.rite.loader import load_rite
from reconstruct.planner.walkable import COURT, HALL, PERSON_GAP, Ground

ROOT = Path(__file__).resolve().parent.parent


def state(plan, who, t):
    """x, y, z, heading, posture of a person at time t (posture of the last key at or before t)."""
    tr = plan.actors[who].track
    x, y, z, h = sample(tr, np.array([t]))[0]
    return x, y, z, h, str(tr.posture_at([t + 1e-6])[0])


def track(plan, who):
    return plan.track(who)


def event(plan, text):
    hits = [e for e in plan.events if text in e.text]
    assert hits, f"no event performs {text!r}"
    return hits[0]


def angle(a, b):
    return abs((a - b + 180) % 360 - 180)


def test_plan_format(plan, reading):
    assert plan.format == FORMAT
    assert plan.duration > 600
    seed = (ROOT / "assets" / "text" / "xiangshe_li_part2.txt").read_text(encoding="utf-8")
    for e in plan.events:
        assert seed[e.span[0]:e.span[1]] == e.text
        assert e.end >= e.start >= 0
    starts = [e.start for e in plan.events]
    assert starts == sorted(starts)
    for ident in [*plan.actors, *plan.props]:
        tr = plan.track(ident)
        assert (np.diff(tr.t) >= 0).all()
        assert set(tr.posture.tolist()) <= {*POSTURES, *PROP_POSTURES}
    assert set(plan.landmarks) >= {"乏", "侯", "中", "楅", "洗", "西阶", "阼阶"}




# (clause, person, relation to a landmark or person, facing, posture, level) checked at the end of the event:
STATEMENTS = [
    ("立于中南，北面视算", "司射", ("south_of", "中"), 0, None, COURT),
    ("释获者东面于中西坐", "释获者", ("west_of", "中"), 90, "kneel", COURT),
    ("尽阶，不升堂", "释获者", ("on_stair", "西阶"), None, None, "stair"),
    ("弟子奉丰升，设于西楹之西", "弟子1", None, None, None, COURT),
    ("北面于三耦之南", "司射", None, 0, None, COURT),
    ("获者负侯，北面拜受爵", "获者", ("north_of", "侯"), 0, None, COURT),
    ("司马西面拜送爵", "司马", ("east_of", "获者"), 270, None, COURT),
    ("获者荐右东面立饮", "获者", None, 90, None, COURT),
    ("释获者荐右东面拜受爵", "释获者", None, 90, None, COURT),
    ("司shè北面拜送爵", "司射", None, 0, None, COURT),
    ("主人降席，立于宾东", "主人", ("east_of", "宾"), None, None, HALL),
    ("宾主人之西北面拜送", "宾", ("west_of", "主人"), 0, None, HALL),
    ("司正退立于西序端，东面", "司马", ("near", "西序端"), 90, None, HALL),
    ("遂立于阶西，东面", "宾", ("west_of", "西阶"), 90, None, COURT),
    ("主人降自阼阶，西面立", "主人", ("near", "阼阶"), 270, None, COURT),
    ("大夫从之降，立于宾南", "大夫", ("south_of", "宾"), None, None, COURT),
]


@pytest.mark.parametrize("clause,who,rel,facing,posture,level", STATEMENTS, ids=[s[0][:12] for s in STATEMENTS])
def test_statement_at_end_of_event(plan, reading, clause, who, rel, facing, posture, level):
    ev = event(plan, clause)
    x, y, z, h, p = state(plan, who, ev.end)
    g = Ground(reading)
    assert g.level_at(x, y, z) == level, f"{who} is not on the {level}"
    if facing is not None:
        assert angle(h, facing) <= 30, f"{who} faces {h:.0f}°, the text wants {facing}°"
    if posture is not None:
        assert p == posture
    if rel:
        kind, ref = rel
        if ref in plan.actors:
            rx, ry = state(plan, ref, ev.end)[:2]
        else:
            rx, ry = plan.landmarks[ref].position[:2]
        if kind == "south_of":
            assert y < ry - 0.2 and abs(x - rx) < 1.5
        elif kind == "north_of":
            assert y > ry + 0.2
        elif kind == "west_of":
            assert x < rx - 0.2 and abs(y - ry) < 1.5
        elif kind == "east_of":
            assert x > rx + 0.2 and abs(y - ry) < 1.5
        elif kind == "near":
            assert math.hypot(x - rx, y - ry) < 2.0
        elif kind == "on_stair":
            st = reading.stairs[ref]
            assert abs(x - st.x) < st.width / 2 and -st.run < y < 0 and z > reading.hall_height * 0.8


def test_via_east_of_the_zhong(plan):
    """进由中东: the 司射's path to the south of the 中 passes east of it."""
    ev = event(plan, "进由中东")
    zx, zy = plan.landmarks["中"].position[:2]
    ts = np.arange(ev.start, ev.end + 1e-9, 0.1)
    p = sample(plan.actors["司射"].track, ts)
    beside = np.abs(p[:, 1] - zy) < 0.3
    assert beside.any(), "the 司射 never comes level with the 中"
    assert (p[beside, 0] > zx).all()


def test_formation_keeps_the_texts_via(plan):
    """三耦及众射者…进立于射位 by way of 司马之南 (formation … via=司马之南): every archer taking his place on
    the 射位 (SW of the 司马) passes directly south of the 司马 on the way, not straight past his west."""
    ev = next(e for e in plan.events if e.id == "p2.ming.shewei")
    ts = np.arange(ev.start, ev.end + 1e-9, 0.1)
    sima = sample(plan.actors["司马"].track, ts)
    for who in ("上耦上射", "次耦下射", "下耦下射", "众宾3"):
        p = sample(plan.actors[who].track, ts)
        south = (p[:, 1] < sima[:, 1] - 0.3) & (np.abs(p[:, 0] - sima[:, 0]) < 0.3)
        assert south.any(), f"{who} never passes south of the 司马"


def test_stairs_one_step_at_a_time(plan, reading):
    """Whoever goes up or down is on one step at a time: z takes only the step heights on the stair."""
    st = reading.stairs["西阶"]
    heights = {round(k * st.rise, 3) for k in range(0, st.steps + 1)}
    seen = 0
    for a in plan.actors.values():
        for k in a.track.rows():
            if abs(k[1] - st.x) < st.width / 2 and -st.run + 0.05 < k[2] < -0.05:
                assert round(k[3], 3) in heights
                seen += 1
    assert seen > 20


def test_audit_whole_passage(plan, audit_of):
    """Sampled every 0.1 s over the whole passage: no two people closer than 0.45 m at one level, nobody
    inside a fixture, nobody off a level except on a stair, nobody faster than 2 m/s, every track in
    order; and the planner itself reports no conflict left."""
    found = audit_of(plan)                  # audit(plan, reading, limit=10_000), once per run (conftest)
    assert not found, [str(f) for f in found][:5]
    assert plan.conflicts == []


def test_a_thing_blocks_its_place_only_while_it_stands_there(plan, reading):
    """The 中 (and the 楅) are things carried to their places: the audit counts one standing in the 中's place as
    inside a fixture while the 中 stands there, not before it is brought (the whole chapter's first half, before
    設中: 周尺's 工3 walked over its empty place in f6 and was reported inside the 中)."""
    spot = reading.landmarks["中"].position
    raw = plan.to_dict()
    raw["actors"]["司马"]["keys"] = [[0.0, spot[0], spot[1], 0.0, 0.0, "stand"],
                                    [plan.duration, spot[0], spot[1], 0.0, 0.0, "stand"]]
    inside = [f for f in audit(Plan.from_dict(raw), reading, limit=10_000) if f.kind == "fixture"]
    assert [(f.who, f.detail) for f in inside] == [("司马", "inside the 中")]
    raw["props"]["中"]["keys"] = [[k[0], k[1] + 5.0, *k[2:]] for k in raw["props"]["中"]["keys"]]   # elsewhere
    assert not [f for f in audit(Plan.from_dict(raw), reading, limit=10_000) if f.kind == "fixture"]


def test_more_guests(plan_of, audit_of):
    """The same with 9 衆賓 (the rite's loops grow with them)."""
    p = plan_of(zhongbin=9)
    assert "众宾9" in p.actors
    found = audit_of(p)
    assert not found, [str(f) for f in found][:5]


# the three readings with a shallow hall in front of the mats (a 室: 敖, 義疏; 鄭's 庠) were a known defect until the
# 樂正 stayed below after the 正歌 (樂正反，自西階東，北面): standing 2.4 m aside of the 工席 he was in the way of
# every pledge at the 西階上, the 羞 and the going out
# 周尺 (0.197 m): the 工席's seats three 尺 apart were 0.59 m, under the gap kept between two people (0.6 m), and 工4
# passed within 0.44 m of the 大师 and of two juniors (p18.xianggong); the seats and the juniors' places are now the
# reading's (工席位, 相者位), which on this 尺 keeps a seated man's room in metres (CHOSEN: the text gives no spacing),
# and the audit is clean (test_short_chi_passage_audit).  With the 工 in their seats 一丈 north of the stair's head the
# hall of this 尺 was tight (three conflicts reported, p19.xi and p22.shi, between the 工's row and the 衆賓's
# dishes); with the 工席 at the hall's front edge (堂廉, before the 楹) none is left
# on the worker that checks the readings' statements (tests/test_checks_readings.py): the same five plans, made
# once there rather than waited for by the other worker (its tests took 13-32 s wall for 3 s CPU in the suite)
@pytest.mark.xdist_group("readings_checked")
@pytest.mark.parametrize("layout", ["ao_jigong", "yishu_1748", "dashe_fa",
                                    "zhou_chi_197",
                                    "zheng_xuan_xiang"])
def test_other_readings(layout, plan_of, audit_of):
    """The same on every other reading that ships: 敖繼公's ground, the 義疏's, the 大射 乏, the smaller
    hall of a 0.197 m 尺, and 鄭's 庠; and no conflict left reported."""
    p = plan_of(layout)
    found = audit_of(p, layout)
    assert not found, [str(f) for f in found][:5]
    assert p.conflicts == []


@pytest.mark.xdist_group("readings_checked")
def test_short_chi_passage_audit(plan_of, audit_of):
    """On the 0.197 m 尺 the passage's audit is clean: the 工 sit in their seats on the 工席 (the reading's 工席位,
    0.66 m apart, CHOSEN in metres), the juniors stand behind them (相者位) until they hand the 瑟 and go down,
    and nobody passes within the audit's gap of anyone (it was 4 overlaps and 3 dishes stood on: 工4 within
    0.44 m of the 大师 and two juniors, the 工 pushed off their seats onto the 衆賓's 羞)."""
    r = load_reading("zhou_chi_197")
    p = plan_of("zhou_chi_197")
    assert not audit_of(p, "zhou_chi_197")
    assert not conservation(p)
    t = next(e.end for e in p.events if e.id == "p18.xianggong.lezheng")        # seated again (反坐)
    seats = [p.actors[g].track.at(np.array([t]))[0][0][:2] for g in ("大师", "工2", "工3", "工4")]
    slot = [r.formations["工席位"].slot(k)[:2] for k in range(1, 5)]
    assert np.allclose(seats, slot, atol=0.05)


def test_way_out_of_a_crowd_in_the_open_court(reading):
    """A 衆賓 in the back row at 堂西, with people standing east, south and south-east of him and no
    fixture near, finds his way to his place outside the gate round them (it was taken as boxed in, and
    he waited more than a minute for the rows in front to clear)."""
    g = Ground(reading)
    start, goal = (-15.939, 3.993), (-6.655, -75.92)
    standing = [(-14.784, 2.893), (-15.939, 2.893), (-14.784, 3.993)]
    path = g.route(COURT, start, goal, standing)
    assert not g.boxed_in
    assert path[0] == pytest.approx(start) and path[-1] == pytest.approx(goal)
    line = np.asarray(path)
    for p in standing:
        a, b = line[:-1], line[1:]
        t = np.clip(((p - a) * (b - a)).sum(1) / ((b - a) ** 2).sum(1), 0, 1)
        assert np.hypot(*(a + t[:, None] * (b - a) - p).T).min() >= PERSON_GAP - 1e-6
    assert shapely.covers(g.levels[COURT].prepared, shapely.LineString(path))   # round walls and fixtures


def test_a_way_round_people_weighs_each_link_once(reading):
    """The links of the way-graph are summed by the sparse matrix when listed twice: someone met twice (his
    disc given again) made the links round him weigh double, and the way went round the far side of the next
    person (6.94 m against 6.16 m). Each link counts once, whoever is met again."""
    g = Ground(reading)
    lv = g.levels[COURT]
    start, goal = (-3.0, -10.0), (3.0, -10.4)
    a, b = ((0.0, -10.2), PERSON_GAP), ((0.4, -9.2), PERSON_GAP)
    once = g._route_with_uncached(lv, start, goal, [a, b], True)
    again = g._route_with_uncached(lv, start, goal, [a, b, a], True)
    assert again == once
    assert sum(math.dist(p, q) for p, q in zip(once, once[1:])) == pytest.approx(6.1565, abs=1e-3)


def test_way_round_long_files_standing_across_it():
    """大射法 with 27 衆賓, the last to drink below going from the 篚 back to his place at 堂西 (p22: 卒受者以虛觶降
    奠于篚): the 立者 (東面北上, three 尺 apart) stand in a file 16 m long west of the court and the archers'
    file (射位) runs 21 m south beside it.  He goes round their ends, not through them (five ways round, each
    round the few it met and their neighbours, still met the next of a file: he walked through the 司射 and
    the 立者, 0.36 m from them)."""
    g = Ground(load_reading("dashe_fa"))
    start, goal = (8.891, -6.452), (-19.404, 0.693)
    standing = ([(-11.319, -1.617 - 0.693 * k) for k in range(24)]            # 立者位
                + [(-6.006, -7.854 - 0.924 * k) for k in range(24)]           # the archers' file (射位)
                + [(-12.474 - 1.386 * k, 0.693) for k in range(5)]            # the 三耦 at 堂西
                + [(-7.91, -6.986), (0.0, -4.62), (0.0, -3.927), (-3.234, -1.155), (-21.853, -6.844),
                   (-12.474, 1.893), (-12.474, -0.507), (-13.605, -0.438), (-17.11, 5.573), (-18.961, 5.545),
                   (-16.17, 4.158), (-17.097, 4.473), (-18.018, 4.158), (-18.946, 4.445), (14.091, 3.003),
                   (14.531, 3.241), (-2.481, -76.278), (-2.455, -77.075)]
                + [(11.319, 0.693 - 0.693 * k) for k in range(5)]
                + [(x, -3.333 - 0.693 * k) for x in (14.107, 13.414) for k in range(4)])
    path = g.route(COURT, start, goal, standing)
    assert not g.boxed_in
    line = np.asarray(path)
    for p in standing:
        a, b = line[:-1], line[1:]
        t = np.clip(((p - a) * (b - a)).sum(1) / ((b - a) ** 2).sum(1), 0, 1)
        assert np.hypot(*(a + t[:, None] * (b - a) - p).T).min() >= PERSON_GAP - 1e-6, p
    assert shapely.covers(g.levels[COURT].prepared, shapely.LineString(path))


def test_deterministic_and_the_cli_plan_json(plan, tmp_path):
    """Planned again (in a fresh process, by the command line), the passage is the same byte for byte, and
    the command writes it in the plan format (one plan made for both: planning is the slow part)."""
    out = tmp_path / "plan.json"
    r = subprocess.run([sys.executable, "render.py", "plan", "--json", str(out)], cwd=ROOT,
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert "conflicts left" in r.stdout
    text = out.read_text(encoding="utf-8")
    assert json.loads(text)["format"] == FORMAT
    assert text == plan.to_json()


def test_cli_plan_unreachable(tmp_path):
    """A place nobody can reach: exit 2, one line naming the event and the person, no output."""
    bad = tmp_path / "bad.toml"
    src = (ROOT / "layouts" / "zheng_xuan.toml").read_text(encoding="utf-8")
    # put the 乏 far south of the courtyard's wall, beyond the ground outside the gate: the 获者 cannot
    # get there
    src = src.replace('at = "侯北十丈西三丈"', 'at = "侯南三十丈西三丈"')
    bad.write_text(src, encoding="utf-8")
    out = tmp_path / "plan.json"
    r = subprocess.run([sys.executable, "render.py", "plan", str(bad), "--json", str(out)], cwd=ROOT,
                       capture_output=True, text=True)
    assert r.returncode == 2, r.stdout + r.stderr
    assert "Traceback" not in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1
    assert "event" in r.stderr
    assert not out.exists()


def _plan_fails(args, tmp_path, capsys):
    """``render.py plan ARGS --json out`` through the command's entry point in this process (reconstruct.cli.main,
    what render.py calls; test_cli_plan_unreachable runs the script in a fresh interpreter): exit 2, one line on
    stderr (warnings a fresh interpreter would print counted), no output."""
    import warnings

    from reconstruct import cli

    out = tmp_path / "plan.json"
    capsys.readouterr()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("default")
        rc = cli.main(["plan", *map(str, args), "--json", str(out)])
    err = capsys.readouterr().err + "".join(
        f"{w.category.__name__}: {w.message}\n" for w in caught
        if not issubclass(w.category, (DeprecationWarning, PendingDeprecationWarning, ImportWarning, ResourceWarning)))
    assert rc == 2, err
    assert "Traceback" not in err
    assert len(err.strip().splitlines()) == 1, err
    assert not out.exists()
    return err.strip()


def test_cli_plan_formation_too_small(tmp_path, capsys):
    """A file the reading gives fewer places than the rite puts people in: exit 2, naming the event,
    the first person without a place and the file."""
    bad = tmp_path / "small.toml"
    src = (ROOT / "layouts" / "zheng_xuan.toml").read_text(encoding="utf-8")
    head = '[formations."射位"]\n'
    assert head in src
    bad.write_text(src.replace(head, head + "slots = 4\n"), encoding="utf-8")
    err = _plan_fails([bad], tmp_path, capsys)
    assert "event" in err and "射位" in err and "4 places" in err
    # the first to find no place: the 下耦上射, fifth in rank (the 勝者之弟子 is one of the archers, 賈: 此弟子
    # 由堂西固在射賓中矣, so the file holds the 三耦 and the 衆賓 only)
    assert "下耦上射" in err and "9 people" in err


def test_cli_plan_via_cannot_be_met(tmp_path, capsys):
    """A via the walk cannot pass (a place up on the hall for a walk across the court): exit 2, naming
    the rite file and line, the event with its span, and the person."""
    shutil.copytree(ROOT / "assets" / "rite", tmp_path / "rite")
    shutil.copytree(ROOT / "assets" / "text", tmp_path / "text")
    f = tmp_path / "rite" / "p5_offerings.yaml"
    src = f.read_text(encoding="utf-8")
    line = "    - 司射 go 堂西南 via=司马之南 face=北\n"
    assert line in src
    f.write_text(src.replace(line, line.replace("via=司马之南", "via=宾席")), encoding="utf-8")
    err = _plan_fails(["--rite", tmp_path / "rite" / "rite.yaml"], tmp_path, capsys)
    assert "p5_offerings.yaml:" in err and "p7.jiang" in err and "[" in err
    assert "司射" in err and "宾席" in err


def _pair_walks(plan, up_id, down_id, prefix):
    """(median gap, median offset to the 上射's right) for each event of a pair where both walk at once."""
    out = []
    for ev in plan.events:
        if not re.match(prefix, ev.id) or ev.end - ev.start < 1.0 or not {up_id, down_id} <= set(ev.actors):
            continue
        ts = np.arange(ev.start, ev.end, 0.2)
        up, down = sample(plan.actors[up_id].track, ts), sample(plan.actors[down_id].track, ts)
        walking = [i for i, t in enumerate(ts) if state(plan, up_id, t)[4] == "walk"
                   and state(plan, down_id, t)[4] == "walk"]
        if len(walking) < 5:
            continue
        gaps, rights = [], []
        for i in walking[len(walking) // 4: 3 * len(walking) // 4]:
            dx, dy = down[i, 0] - up[i, 0], down[i, 1] - up[i, 1]
            h = math.radians(up[i, 3])
            gaps.append(math.hypot(dx, dy))
            rights.append(dx * math.cos(h) - dy * math.sin(h))   # along the 上射's right hand
        out.append((ev.id, float(np.median(gaps)), float(np.median(rights)), max(rights)))
    return out


@pytest.mark.xfail(strict=False, reason=(
    "known defect (open): 7 of 12 pair walks are abreast; the next pair going to the 楅 (當楅) while the one before "
    "comes back (交, 與進者相左) files one behind the other (4.9 m), and a 下射 held back by the crossing trails his 上射 "
    "by 2.6 m on the way back to the 射位"))
def test_pairs_walk_abreast(plan):
    """耦…並行: where a pair set out together they walk together, the 下射 beside the 上射 (a metre or so,
    a little behind: he first steps to his side) on the side of his own place: back to the 射位
    (東面北上) walking west, on the 上射's left (south), never crossing to his right.  Where someone
    stands in the way of the side path the pair may file instead, but most walks are abreast."""
    walks = [w for up, down in (("上耦上射", "上耦下射"), ("次耦上射", "次耦下射"), ("下耦上射", "下耦下射"))
             for prefix in (r"p8\.\d\.dang", r"p8\.\d\.fan", r"p1[02]\.ou\d\.jin", r"p2\.ou\d\.jin") for w in _pair_walks(plan, up, down, prefix)]
    assert len(walks) >= 8
    abreast = [w for w in walks if 0.45 <= w[1] <= 1.5]
    assert len(abreast) * 3 >= len(walks) * 2, walks
    back = [w for w in abreast if re.match(r"p8\.\d\.fan", w[0])]
    assert back
    for ev, gap, right, top in back:                    # back to the 射位: the 下射 on the left, beside
        assert right < 0.0 and top < 0.3, (ev, gap, right, top)
        assert gap <= 1.0, (ev, gap)                    # him, not trailing (he catches up to his side)


def _last_set_out(plan, who, ev):
    """When someone sets off on his last walk in an event (None if he does not walk in it)."""
    keys = plan.actors[who].track.rows()
    out = None
    for k0, k1 in pairwise(keys):
        if ev.start - 1e-6 <= k0[0] < ev.end - 1e-6 and k0[5] != "walk" and k1[5] == "walk":    # set out within it
            out = k0[0]
    return out


@pytest.mark.parametrize("clause,file", [("宾出，众宾皆出", "门外"), ("反于shè位", "射位")])
def test_a_file_walks_to_its_places_in_rank_order(plan, clause, file):
    """Those who walk to their places in one file in one event set out in rank order, none before the
    one ahead of him (the guests follow the 宾 out of the gate; the archers go back to the 射位 in turn)."""
    ev = event(plan, clause)
    members = load_rite().formations[file]
    times = [(who, _last_set_out(plan, who, ev)) for who in members]
    times = [(who, t) for who, t in times if t is not None]
    assert len(times) >= 4, times
    assert all(a[1] <= b[1] + 1e-6 for a, b in pairwise(times)), times


# the two tests of the 33-衆賓 passage on one worker (--dist loadgroup): on two, one waited for the other to plan
# it (test_many_guests_meet_nobody: 47.6 s wall for 8.6 s CPU in the suite's run)
@pytest.mark.xdist_group("many_guests")
def test_guests_leave_to_one_file_outside_the_gate(reading, plan_of):
    """宾出，众宾皆出 (33 衆賓): outside the gate the guests stand in one file west of it, facing east
    towards where the 主人 will see them off, seniors to the north; each comes down the lane in front of
    the file and steps into his place, passing no one already standing there (with 33, the file was
    longer than the ground outside: it folded, and three met those in front)."""
    rite = load_rite(zhongbin=33)
    p = plan_of(zhongbin=33)
    ev = event(p, "宾出，众宾皆出")
    assert [c for c in p.conflicts if c.split()[0].startswith(ev.id)] == []
    gx, gy = reading.gate[0], reading.gate[1]
    # 記: 大夫後出 (鄭: 下鄉人，不干其賓主之禮): the 大夫 waits west of the stair and goes out after the guests
    order = [who for who in rite.formations["门外"] if not who.startswith("大夫")]
    assert state(p, "大夫", ev.end)[1] > gy + 10.0
    places = [state(p, who, ev.end) for who in order]
    xs, ys = np.array([s[0] for s in places]), np.array([s[1] for s in places])
    assert np.ptp(xs) < 0.05 and xs.mean() < gx - 0.5                  # one file, west of the gate
    assert (ys < gy).all() and (np.diff(ys) < -0.9).all()               # outside, seniors north
    assert all(angle(s[3], 90) <= 30 for s in places)                   # facing east
    ts = np.arange(ev.start, ev.end, 0.1)
    for i, who in enumerate(order):
        pos = sample(p.actors[who].track, ts)[:, :2]
        # outside the gate, until within a step of his place, he keeps half a metre or more east of the
        # file's line: down the lane in front of it, not past the shoulders of those standing in it
        coming = (pos[:, 1] < gy - 1.0) & (np.hypot(*(pos - [xs[i], ys[i]]).T) > 1.05)
        assert (pos[coming, 0] > xs[i] + 0.5).all(), who


@pytest.mark.xdist_group("many_guests")
def test_many_guests_meet_nobody(reading, plan_of):
    """With 33 衆賓 and people kept 0.6 m apart, no conflict is left anywhere in the passage and the
    audit finds nothing (the 宾 going up past the long file below the 西階 used to be boxed in)."""
    p = plan_of(zhongbin=33)
    assert p.conflicts == []
    assert audit(p, reading, limit=10_000) == []


def test_guests_leave_round_the_near_end_of_the_target(plan, reading):
    """宾出，众宾皆出: from the 西階 every guest, the 大夫 last, goes round the west end of the 侯 (左个)
    to the gate; walking behind those ahead of him, he waits for them to move on rather than going round
    them as if they stood still (the 大夫 used to go round the east end, 右个, a longer way)."""
    ev = event(plan, "宾出，众宾皆出")
    hou = plan.landmarks["侯"].position
    # 記: 大夫後出: the 大夫 goes out after the guests, when the 主人 has seen them off
    later = next(e for e in plan.events if e.start >= ev.end and "大夫" in e.actors and e.text == "主人送于门外，再拜")
    for who in ("宾", "众宾1", "众宾2", "众宾3", "大夫"):
        walk = later if who == "大夫" else ev
        ts = np.arange(walk.start, walk.end + 1e-9, 0.1)
        pos = sample(plan.actors[who].track, ts)[:, :2]
        level = np.abs(pos[:, 1] - hou[1]) < 0.5
        assert level.any(), who
        assert (pos[level, 0] < hou[0]).all(), (who, pos[level, 0].max())


@pytest.mark.bench          # plans 27 衆賓 for this test alone and, a non-strict xfail, cannot fail: -m bench
@pytest.mark.xfail(strict=False, reason=(
    "known defect (open): with 27 衆賓 the 堂西 row folds into a second row behind the first, over the spots where "
    "the 大夫 and the 賓 bare their arms (袒位, CHOSEN 堂西北五尺); the one whose place a 大夫 stands on comes back "
    "to a spot aside, and one of those (衆賓5) is still 2.6 m from his place at the end"))
def test_archers_wait_in_their_places_at_tangxi_after_handing_over(reading, plan_of):
    """不反位，遂授有司于堂西 … 辩拾取矢 (27 衆賓): having handed bow and arrows to the 有司, each archer
    waits in his own place in the 堂西 row (相俟堂西, 鄭), so that when all have done so the row stands
    as it stood at the start, 南面東上 (they stood about the 有司 where the next pairs came to hand
    over theirs, and those coming back found their places taken: six stood up to 5 m away)."""
    rite = load_rite(zhongbin=27)
    p = plan_of(zhongbin=27)
    ev = event(p, "辩拾取矢，揖，皆升就席")
    for who in rite.formations["堂西"]:
        if who in rite.groups["堂上众宾"]:
            continue            # the three senior 衆賓 go up to their mats
        x0, y0, *_ = state(p, who, 0.0)
        x, y, _, heading, _ = state(p, who, ev.end)
        assert math.hypot(x - x0, y - y0) < 0.3, (who, (x0, y0), (x, y))
        assert angle(heading, 180) <= 30, who


def test_archers_bows_lie_at_their_places(plan):
    """釋弓…俟于堂西: each archer at 堂西 has his bow lying in front of his feet at his place, and takes it
    up there without walking through the file (33 people converged on one point before)."""
    archers = ["上耦上射", "上耦下射", "次耦上射", "次耦下射", "下耦上射", "下耦下射", "众宾1", "众宾2", "众宾3"]
    take = event(plan, "三耦及众shè者皆与其耦进立于shè位")
    for who in archers:
        bows = plan.props[who + "弓"].track.rows()
        bow = bows[0]
        x, y, _, h, _ = state(plan, who, 0.0)
        ahead = (bow[1] - x) * math.sin(math.radians(h)) + (bow[2] - y) * math.cos(math.radians(h))
        assert 0.3 < ahead < 0.6 and math.hypot(bow[1] - x, bow[2] - y) < 0.6, (who, bow, (x, y, h))
        # he takes it up where he stands (it leaves the ground for his hand), having moved less than a step
        t_hand = next(b[0] for a, b in zip(bows, bows[1:])
                      if a[5] == "rest" and b[5] == "carried" and b[0] >= take.start - 1e-6)
        x1, y1, *_ = state(plan, who, t_hand)
        assert math.hypot(x1 - x, y1 - y) < 0.8, (who, (x, y), (x1, y1))


def test_nobody_walks_faster_than_one_and_a_half_metres_a_second(plan, reading):
    """The fastest anyone walks is a 下射 catching up with his 上射, at most 1.5 m/s (the audit's limit is
    2 m/s); between two keys of the plan (rounded to the millimetre and millisecond)."""
    fastest = 0.0
    for actor in plan.actors.values():
        k = actor.track.rows()
        for a, b in zip(k, k[1:]):
            if b[0] - a[0] > 0.05:
                fastest = max(fastest, math.hypot(b[1] - a[1], b[2] - a[2]) / (b[0] - a[0]))
    assert 1.0 <= fastest <= 1.52, fastest


def test_props_stay_where_they_are_set_down(plan):
    """Between two rest keys a prop does not move; it leaves its place only in someone's hand."""
    for pid, prop in plan.props.items():
        k = prop.track.rows()
        for a, b in zip(k, k[1:]):
            if a[5] == "rest" and b[5] == "rest":
                assert a[1:4] == b[1:4], (pid, a, b)


def test_shot_arrows_are_gathered_at_the_target_and_laid_on_the_rack(plan, reading):
    """射 … 弟子委矢: each arrow lies where it came down (stuck in the 侯, or on the ground before it) until
    a junior takes it up there — nobody walks round behind the target to do so — and lays it on the 楅,
    where the 司马 counts them off in fours (乘矢): each archer's four together."""
    ev = {e.id: e for e in plan.events}
    hou = reading.landmarks["侯"].position
    fu = reading.landmarks["楅"].position
    wei, cheng = ev["p13.wei"], ev["p13.cheng"]
    for s in plan.shots:
        tr = plan.props[s.arrow].track
        x, y, z = tr.at([wei.start])[0][0]
        assert np.allclose((x, y, z), s.at, atol=0.01), s.arrow              # untouched until gathered
        x, y, z = tr.at([wei.end])[0][0]
        assert math.hypot(x - fu[0], y - fu[1]) < 1.0 and z > 0.05, s.arrow  # on the rack
        assert plan.props[s.arrow].carrier(wei.end) is None
    ts = np.arange(wei.start, wei.end, 0.5)
    for d in ("弟子1", "弟子3", "弟子4"):
        assert (sample(plan.actors[d].track, ts)[:, 1] > hou[1] - 0.3).all(), d    # never behind the 侯
    for who in ("上耦上射", "宾"):           # 乘: his four side by side, apart from the next archer's
        xs = sorted(plan.props[f"{who}矢{k}"].track.at([cheng.end])[0][0][0] for k in range(1, 5))
        assert max(xs) - min(xs) < 0.1


def test_pairs_climb_one_step_apart(plan, reading):
    """上射先升三等，下射從之中等 (勝者先升 at the forfeit, 揖如升射): a pair going up the 西階 together
    climbs with one empty step between them — the first two steps above the other whenever both are on the stair (the step heights are whole;
    in between two treads a sample may read three)."""
    st = reading.stairs["西阶"]
    pairs = (("上耦上射", "上耦下射"), ("次耦上射", "次耦下射"), ("下耦上射", "下耦下射"))
    seen = 0
    for ev in plan.events:
        if not re.fullmatch(r"p(2|15)\.ou\d\.sheng", ev.id):
            continue
        ts = np.arange(ev.start, ev.end, 0.1)
        for up_id, down_id in pairs:
            up, down = sample(plan.actors[up_id].track, ts), sample(plan.actors[down_id].track, ts)

            def on(p):
                return (np.abs(p[:, 0] - st.x) < st.width / 2) & (p[:, 1] < -0.01) & (p[:, 1] > -st.run) & (
                    p[:, 2] > 0.01)
            both = on(up) & on(down)
            if not both.any():
                continue
            # the first up two steps above the other (at the forfeit the winner goes first: either)
            gap = np.abs(np.round(up[both, 2] / st.rise) - np.round(down[both, 2] / st.rise))
            assert (gap >= 2).all(), (ev.id, up_id, gap)
            assert (gap == 2).mean() >= 0.75, (ev.id, up_id, gap)
            seen += 1
    assert seen >= 5
