"""The plan model: one loader and one format check, tracks interpolated as the format says, JSON
written back byte for byte."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from reconstruct import cli
from reconstruct.errors import InputError
from reconstruct.model.plan import Plan, Steps, Track

FIXTURES = Path(__file__).parent / "fixtures"


def test_golden_plan_reads_and_writes_back_byte_for_byte():
    raw = (FIXTURES / "golden_plan.json").read_bytes()
    assert Plan.load(FIXTURES / "golden_plan.json").to_json().encode("utf-8") == raw


def test_the_planner_writes_what_the_model_reads(plan, tmp_path):
    out = plan.save(tmp_path / "p.json")
    assert Plan.load(out).to_json() == plan.to_json()


def test_track_interpolates_straight_and_turns_the_short_way():
    tr = Track.from_rows([[0.0, 0.0, 0.0, 0.0, 350.0, "stand"], [2.0, 2.0, 4.0, 0.0, 30.0, "walk"]])
    xyz, h = tr.at([1.0])
    assert xyz[0].tolist() == [1.0, 2.0, 0.0]
    assert h[0] == pytest.approx(10.0)             # 350 → 30 through north, not back through south
    assert tr.posture_at([1.0])[0] == "stand" and tr.posture_at([5.0])[0] == "walk"


def test_track_is_clamped_at_its_ends_and_vectorised():
    tr = Track.from_rows([[1.0, 1.0, 0.0, 0.0, 90.0, "stand"], [3.0, 3.0, 0.0, 0.0, 90.0, "walk"]])
    xyz, h = tr.at(np.array([[0.0, 1.0], [2.0, 9.0]]))
    assert xyz.shape == (2, 2, 3) and h.shape == (2, 2)
    assert xyz[..., 0].tolist() == [[1.0, 1.0], [2.0, 3.0]]


def test_a_missing_heading_keeps_the_one_before():
    tr = Track.from_rows([[0, 0, 0, 0, None, "stand"], [1, 0, 0, 0, 45, "stand"], [2, 0, 0, 0, None, "stand"]])
    assert tr.heading.tolist() == [0.0, 45.0, 45.0]


def test_steps_hold_from_one_time_to_the_next():
    s = Steps.from_rows([[5.0, "b"], [0.0, "a"]])
    assert (s.at(-1.0), s.at(0.0), s.at(4.9), s.at(5.0)) == (None, "a", "a", "b")


@pytest.mark.parametrize("mutate,where", [
    (lambda p: p.update(format="other/1"), "format"),
    (lambda p: p["actors"]["司射"]["keys"].reverse(), "actors.司射.keys"),
    (lambda p: p["actors"]["司射"]["keys"][0].__setitem__(1, "x"), "actors.司射.keys[0]"),
    (lambda p: p["actors"]["司射"].update(keys=[]), "actors.司射.keys"),
    (lambda p: p.update(duration=float("nan")), "duration"),
    (lambda p: p["events"][0].pop("start"), "events[0]"),
    (lambda p: p.update(events={}), "events"),
])
def test_a_malformed_plan_is_one_line_naming_the_place(mutate, where):
    raw = json.loads((FIXTURES / "golden_plan.json").read_text(encoding="utf-8"))
    mutate(raw)
    with pytest.raises(InputError) as e:
        Plan.from_dict(raw, "p.json")
    assert str(e.value).startswith(f"p.json:{where}") and "\n" not in str(e.value)


def test_time_of_a_point_of_the_passage(plan):
    first = plan.events_by_start()[0]
    assert plan.time_of(None) == 0.0 and plan.time_of(None, end=True) == plan.duration
    assert plan.time_of(first.id) == first.start and plan.time_of(12.5) == 12.5
    assert plan.time_of(first.id, end=True) == first.end
    assert plan.time_of(80) == min(e.start for e in plan.events if e.footnote == 80)
    with pytest.raises(ValueError):
        plan.time_of("no-such-event")


def test_plan_of_a_saved_file_on_the_command_line(tmp_path, capsys):
    bad = tmp_path / "p.json"
    bad.write_text("[]", encoding="utf-8")
    # through render.py's entry point in this process (tests/test_checks_report.py runs check in a fresh one)
    capsys.readouterr()
    rc = cli.main(["check", "--plan", str(bad)])
    err = capsys.readouterr().err
    assert rc == 2 and len(err.strip().splitlines()) == 1, err


# ---------------------------------------------------------------------------
# a track's keys: checked column by column when well formed, key by key to name the one at fault

GOOD_KEYS = [[0.0, 1.0, 2.0, 0.0, 90.0, "stand"], [1.5, 1.5, 2.0, 0.0, 90.0, "stand"], [3, 2, 2, 0, 180, "kneel"]]


@pytest.mark.parametrize("i, key, what", [
    (1, [1.5, 1.5, 2.0, 0.0, 90.0, "fly"], r"keys\[1\]: posture 'fly'"),
    (2, [1.0, 2, 2, 0, 180, "kneel"], r"keys\[2\]: keys out of time order"),
    (1, [1.5, float("nan"), 2.0, 0.0, 90.0, "stand"], r"keys\[1\]: expected a finite number"),
    (2, [3, 2, 2, 1e8, 180, "kneel"], r"keys\[2\]: expected a finite number"),
    (0, [True, 1.0, 2.0, 0.0, 90.0, "stand"], r"keys\[0\]: expected a finite number"),
    (1, [1.5, "1.5", 2.0, 0.0, 90.0, "stand"], r"keys\[1\]: expected a finite number"),
    (1, [1.5, 1.5, 2.0, 0.0, 90.0, ["stand"]], r"keys\[1\]: the posture is a word"),
    (2, [3, 2, 2], r"keys\[2\]: a key is"),
])
def test_a_track_key_at_fault_is_named(i, key, what):
    from reconstruct.model.plan_reader import PlanReader
    rows = [list(k) for k in GOOD_KEYS]
    rows[i] = key
    with pytest.raises(InputError, match=what):
        PlanReader("p.json").track(rows, "keys")


def test_well_formed_keys_read_as_key_by_key():
    """The column-by-column check lets through what the key-by-key one does, and the same track comes out;
    a null heading (kept from the key before) goes key by key."""
    from reconstruct.model.plan_reader import PlanReader, _keys_well_formed
    from reconstruct.model.plan import POSTURES
    assert _keys_well_formed(GOOD_KEYS, frozenset(POSTURES))
    tr = PlanReader("p.json").track([list(k) for k in GOOD_KEYS], "keys")
    assert tr.keys.tolist() == Track.from_rows(GOOD_KEYS).keys.tolist()
    nulled = [list(k) for k in GOOD_KEYS]
    nulled[1][4] = None
    assert not _keys_well_formed(nulled, frozenset(POSTURES))
    assert PlanReader("p.json").track(nulled, "keys").heading.tolist() == [90.0, 90.0, 180.0]
