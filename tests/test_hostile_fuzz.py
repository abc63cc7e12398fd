"""Issue 22, property-based: the shipped reading, rite script and a saved plan, mutated as a hostile
user would (numbers, strings, structure, encodings), and random command lines.  Every case ends in
success or in exit 2 with one line on stderr — never a traceback, never an internal error, and
nothing half-written.

The cases are small mutations of real files, generated deterministically (``derandomize``), and
run in-process through :func:`reconstruct.cli.main`.
"""
from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from reconstruct import cli
from reconstruct.resources import LAYOUTS, RITE, SEED, STATEMENTS

pytestmark = pytest.mark.filterwarnings("ignore::hypothesis.errors.HypothesisWarning")

READING = (LAYOUTS / "zheng_xuan.toml").read_text(encoding="utf-8")
RITE_FILES = {f.name: f.read_text(encoding="utf-8") for f in RITE.parent.glob("*.yaml")}

def _settings(n: int) -> settings:
    """``n`` generated cases, the same ones on every run (CI is deterministic), no time limit per case."""
    return settings(max_examples=n, deadline=None, derandomize=True, database=None,
                    suppress_health_check=list(HealthCheck))


# ---------------------------------------------------------------------------
# mutations of a text file

NASTY_NUMBERS = ["nan", "inf", "-inf", "1e308", "-1e308", "1e-320", "0", "-0.0", "-1", "true", "false", "3.0",
                 "99999999999999999999999", "1_000", "0x10", '"abc"', "[]", "{}", '""', "[1, [2, [3]]]",
                 "2024-01-01", ".nan", ".inf", "~", "null", "9" * 400]
NASTY_TEXTS = ["", " ", "一" * 400 + "尺", "九千九百九十九丈", "../../../x", "/etc/passwd", "{x}", "{__import__}",
               "{min.__self__}", "{len}", "{1/0}", "{'a' * 10**9}", "{range(10**9)}", "西北", "中西三步", "上",
               "\\u0000", "\t", "北面", "${HOME}", "%s%s%s", "x" * 3000, "侯北" + "十" * 30 + "丈", "东东东东东",
               "nan尺", "1e308m", "-0尺", "半", "零", "万尺", "二百四十步"]
NASTY_LINES = ["x = [" * 300 + "]" * 300, "[[[[[[[[", "a: &a [b, *a]", "}{", "- - - -", "? [a]\n: b",
               "&x y", "*nope", "!!python/object:os.system", "!!binary AAAA", "\x00", "\ufeff", "key: ::: value",
               "  - {for: k, in: \"1..100000000\", each: \"{k}\"}", "  - \"{zhongbin.__class__}\"",
               "include: [../../../../etc/passwd]", "text: /dev/zero", "text: .", "parameters: {zhongbin: -5}"]
NUMBER = re.compile(r"(?<![\w.\"'])-?\d+(?:\.\d+)?(?![\w.\"'])")
QUOTED = re.compile(r'"[^"\n]*"')


@st.composite
def mutated(draw, text: str) -> bytes:
    """One to three small mutations of ``text``, then perhaps a change of encoding."""
    for _ in range(draw(st.integers(1, 3))):
        kind = draw(st.sampled_from(["number", "string", "line_delete", "line_dup", "line_insert", "line_swap",
                                     "char", "truncate", "indent"]))
        lines = text.split("\n")
        if kind == "number":
            spots = list(NUMBER.finditer(text))
            if spots:
                m = spots[draw(st.integers(0, len(spots) - 1))]
                new = draw(st.sampled_from(NASTY_NUMBERS) | st.integers(-10**6, 10**6).map(str)
                           | st.floats(allow_nan=True, allow_infinity=True).map(repr))
                text = text[:m.start()] + new + text[m.end():]
        elif kind == "string":
            spots = list(QUOTED.finditer(text))
            if spots:
                m = spots[draw(st.integers(0, len(spots) - 1))]
                new = draw(st.sampled_from(NASTY_TEXTS) | st.text(max_size=12))
                text = text[:m.start()] + json.dumps(new, ensure_ascii=False) + text[m.end():]
        elif kind in ("line_delete", "line_dup", "line_swap", "line_insert", "indent"):
            i = draw(st.integers(0, len(lines) - 1))
            if kind == "line_delete":
                del lines[i]
            elif kind == "line_dup":
                lines.insert(i, lines[i])
            elif kind == "line_swap":
                j = draw(st.integers(0, len(lines) - 1))
                lines[i], lines[j] = lines[j], lines[i]
            elif kind == "indent":
                lines[i] = draw(st.sampled_from(["", " ", "    ", "\t"])) + lines[i].lstrip()
            else:
                lines.insert(i, draw(st.sampled_from(NASTY_LINES) | st.text(max_size=20)))
            text = "\n".join(lines)
        elif kind == "char":
            i = draw(st.integers(0, max(0, len(text) - 1)))
            text = text[:i] + draw(st.text(min_size=0, max_size=3)) + text[i + 1:]
        else:
            text = text[:draw(st.integers(0, len(text)))]
    encoding = draw(st.sampled_from(["utf-8"] * 8 + ["utf-16", "latin-1", "utf-8-sig", "gb18030", "bytes"]))
    if encoding == "bytes":
        data = text.encode("utf-8")
        i = draw(st.integers(0, len(data)))
        return data[:i] + draw(st.binary(min_size=1, max_size=4)) + data[i:]
    return text.encode(encoding, errors="replace")


JSONISH = st.recursive(
    st.none() | st.booleans() | st.integers(-2**70, 2**70) | st.floats() | st.text(max_size=8)
    | st.sampled_from(NASTY_TEXTS) | st.sampled_from([1e308, -1e308, float("nan"), float("inf"), 10**400]),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3),
    max_leaves=6)


def _paths(doc, here=()):
    yield here
    if isinstance(doc, dict):
        for k, v in doc.items():
            yield from _paths(v, (*here, k))
    elif isinstance(doc, list):
        for i, v in enumerate(doc):
            yield from _paths(v, (*here, i))


@st.composite
def tree_mutated(draw, doc, dump):
    """One to three values somewhere in the document (a YAML or JSON tree) replaced, removed or added."""
    doc = json.loads(json.dumps(doc))
    for _ in range(draw(st.integers(1, 3))):
        paths = [p for p in _paths(doc) if p]
        path = paths[draw(st.integers(0, len(paths) - 1))]
        parent = doc
        for k in path[:-1]:
            parent = parent[k]
        kind = draw(st.sampled_from(["replace", "replace", "delete", "add"]))
        if kind == "replace":
            parent[path[-1]] = draw(JSONISH)
        elif kind == "delete":
            del parent[path[-1]]
        elif isinstance(parent, dict):
            parent[draw(st.text(max_size=6) | st.sampled_from(["for", "if", "in", "each", "id", "at", "_x"]))] = \
                draw(JSONISH)
        else:
            parent.insert(path[-1], draw(JSONISH))
    return dump(doc).encode("utf-8")


def answered(argv: list[str], capsys, written: list[Path] = ()) -> int:
    """Run the command; it succeeds, or says what is wrong in one line and exits 2, writing nothing."""
    rc = cli.main([str(a) for a in argv])
    out, err = capsys.readouterr()
    assert "Traceback" not in err and "internal error" not in err, (argv, err)
    assert rc in (0, 1, 2), (rc, err)
    if rc == 2:
        assert len(err.strip().splitlines()) == 1, err
        for p in written:
            assert not p.exists(), p
    return rc


# ---------------------------------------------------------------------------
# readings

@_settings(160)
@given(data=mutated(READING))
def test_a_mutated_reading_is_read_or_refused_in_one_line(tmp_path_factory, capsys, data):
    d = tmp_path_factory.mktemp("reading")
    path, out = d / "r.toml", d / "out.json"
    path.write_bytes(data)
    answered(["layout", path, "--json", out], capsys, [out])


def test_a_few_mutated_readings_through_a_subprocess(tmp_path_factory):
    """As a user runs it: the script render.py in a fresh interpreter, from an empty folder."""
    root = Path(__file__).resolve().parent.parent

    @_settings(4)
    @given(data=mutated(READING))
    def case(data):
        d = tmp_path_factory.mktemp("sub")
        (d / "r.toml").write_bytes(data)
        r = subprocess.run([sys.executable, str(root / "render.py"), "layout", "r.toml", "--json", "o.json"], cwd=d,
                           capture_output=True, text=True, timeout=120)
        assert r.returncode in (0, 2) and "Traceback" not in r.stderr, r.stderr
        if r.returncode == 2:
            assert len(r.stderr.strip().splitlines()) == 1 and not (d / "o.json").exists(), r.stderr

    case()


# ---------------------------------------------------------------------------
# the rite script (its main file and one event file)

@pytest.fixture(scope="module")
def rite_folder(tmp_path_factory):
    d = tmp_path_factory.mktemp("rite")
    for name, text in RITE_FILES.items():
        (d / name).write_text(text.replace("text: ../text/xiangshe_li_part2.txt", f"text: {SEED.name}"),
                              encoding="utf-8")
    (d / SEED.name).write_bytes(SEED.read_bytes())
    return d


@pytest.mark.parametrize("name", ["rite.yaml", "p1_count.yaml"])
def test_a_mutated_rite_script_is_read_or_refused_in_one_line(rite_folder, capsys, name):
    original = (rite_folder / name).read_bytes()

    tree = yaml.safe_load(original)
    dump = lambda d: yaml.safe_dump(d, allow_unicode=True, sort_keys=False)  # noqa: E731

    @_settings(80)
    @given(data=mutated(original.decode("utf-8")) | tree_mutated(tree, dump))
    def case(data):
        (rite_folder / name).write_bytes(data)
        answered(["script", "--check", "--rite", rite_folder / "rite.yaml"], capsys)

    try:
        case()
    finally:
        (rite_folder / name).write_bytes(original)


# ---------------------------------------------------------------------------
# a saved plan (trimmed to a few people and events, so the check over it is quick)

@pytest.fixture(scope="module")
def small_plan(plan):
    d = json.loads(plan.to_json())
    d["landmarks"] = {k: v for k, v in d["landmarks"].items() if k in ("堂", "西阶", "阼阶", "中", "侯", "庭")}
    d["actors"] = {k: {**v, "keys": v["keys"][:8], "states": v["states"][:3]} for k, v in d["actors"].items()
                   if k in ("司射", "释获者")}
    d["props"] = {k: {**v, "keys": v["keys"][:5], "carrier": v["carrier"][:2]} for k, v in d["props"].items()
                  if k in ("扑", "中")}
    d["events"] = d["events"][:4]
    d["duration"] = d["events"][-1]["end"]
    return json.dumps(d, ensure_ascii=False, indent=1)


def test_a_mutated_plan_is_read_or_refused_in_one_line(small_plan, tmp_path_factory, capsys):
    d = tmp_path_factory.mktemp("plan")

    @_settings(60)
    @given(data=mutated(small_plan) | tree_mutated(json.loads(small_plan), lambda d: json.dumps(d, allow_nan=True)))
    def case(data):
        path, out = d / "p.json", d / "out.json"
        path.write_bytes(data)
        answered(["check", "--plan", path, "--json", out], capsys, [out])
        out.unlink(missing_ok=True)

    case()


def test_a_mutated_statements_catalogue_is_read_or_refused_in_one_line(small_plan, tmp_path_factory, capsys):
    d = tmp_path_factory.mktemp("catalogue")
    (d / "p.json").write_text(small_plan, encoding="utf-8")
    text = STATEMENTS.read_text(encoding="utf-8")
    tree = yaml.safe_load(text)[:40]
    dump = lambda x: yaml.safe_dump(x, allow_unicode=True, sort_keys=False)  # noqa: E731

    @_settings(40)
    @given(data=mutated(dump(tree)) | tree_mutated(tree, dump))
    def case(data):
        (d / "c.yaml").write_bytes(data)
        out = d / "out.json"
        answered(["check", "--plan", d / "p.json", "--catalogue", d / "c.yaml", "--json", out], capsys, [out])
        out.unlink(missing_ok=True)

    case()


# ---------------------------------------------------------------------------
# command lines: every argument type answers in one line (the work itself is not run)

WORDS = ["0", "-1", "1", "25", "nan", "inf", "1e308", "0x0", "16x16", "321x180", "7680x4320", "99999x2",
         "12.5", "12.5s", "-3s", "88", "p1.qupu", "", " ", "../../x", "victor=左", "victor", "=", "a=b",
         "中", "abc", "--", "-", "overview", "nowhere", "9" * 40]
FLAGS = {"video": ["--fps", "--speed", "--size", "--crf", "--from", "--to", "--zhongbin", "--dafu", "--option"],
         "still": ["--view", "--size"], "plan": ["--zhongbin", "--dafu", "--option"],
         "check": ["--zhongbin", "--option"], "diagram": ["--at", "--zhongbin"], "layout": ["--list"],
         "export": ["--dafu", "--from", "--to", "--blender-script"], "compare": ["--zhongbin"], "script": ["--dafu", "--option"], "web": ["--out"]}


@_settings(100)
@given(st.data())
def test_random_arguments_are_parsed_or_refused_in_one_line(monkeypatch, capsys, data):
    seen = []
    for name in ("layout", "still", "export", "web", "script", "plan", "video", "check", "compare", "diagram"):
        monkeypatch.setattr(cli, f"cmd_{name}", lambda a, seen=seen: seen.append(a) or 0)
    cmd = data.draw(st.sampled_from(sorted(FLAGS) + ["nonsense", ""]))
    argv = [cmd] if cmd else []
    for _ in range(data.draw(st.integers(0, 4))):
        argv.append(data.draw(st.sampled_from(FLAGS.get(cmd, ["--x"]) + ["--debug", "--help"])))
        argv.append(data.draw(st.sampled_from(WORDS) | st.text(max_size=6)))
    argv = [a for a in argv if "\x00" not in a]
    rc = cli.main(argv)
    out, err = capsys.readouterr()
    assert "Traceback" not in err and rc in (0, 2), (argv, rc, err)
    if rc == 2:
        assert len(err.strip().splitlines()) == 1, (argv, err)
