"""The two YAML loaders build the same documents: libyaml's (PyYAML's C parser and composer, used where PyYAML
has it) and the pure-Python one — on every shipped YAML file, with the same line on every string, list and
mapping of the rite script — and refuse the same input with the same one line (``file:line: what``): a document
nested too deep, too many aliases, an alias bomb, an alias that holds itself, a key given twice, a tab."""
from __future__ import annotations

import math
import re

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from reconstruct import inputs
from reconstruct.errors import InputError
from reconstruct.resources import ASSETS, RITE
from reconstruct.rite import yaml_lines as Y
from reconstruct.rite.errors import RiteError

LIBYAML = inputs.C_SAFE_LOADER is not None
needs_libyaml = pytest.mark.skipif(not LIBYAML, reason="PyYAML built without libyaml")
RITE_FILES = sorted(RITE.parent.glob("*.yaml"))
DATA_FILES = [ASSETS / "statements.yaml", ASSETS / "lijietu.yaml"]


def shape(x):
    """The document as nested tuples: every value with its type and, on the rite's LStr/LDict/LList, its line."""
    line = getattr(x, "line", None)
    if isinstance(x, dict):
        return "dict", type(x).__name__, line, [(shape(k), shape(v)) for k, v in x.items()]
    if isinstance(x, list):
        return "list", type(x).__name__, line, [shape(v) for v in x]
    if isinstance(x, float) and math.isnan(x):
        return "nan", line
    return type(x).__name__, line, x


class _Refused(yaml.SafeLoader):
    def __init__(self, stream):
        raise AssertionError("the pure-Python loader was used")


def test_the_shipped_files_need_no_fallback():
    """Every shipped file is one libyaml reads as PyYAML does (no tab, no tag), so the speed-up applies to them."""
    for f in RITE_FILES + DATA_FILES:
        assert inputs.libyaml_reads_alike(f.read_text(encoding="utf-8")), f.name


@needs_libyaml
@pytest.mark.parametrize("path", RITE_FILES, ids=lambda p: p.name)
def test_both_loaders_read_each_rite_file_alike_line_for_line(path, monkeypatch):
    src = path.read_text(encoding="utf-8")
    by_python = shape(yaml.load(src, Loader=Y._Loader))
    monkeypatch.setattr(Y, "_Loader", _Refused)         # the document below is libyaml's, not a fallback's
    by_c = shape(Y._load(src))
    assert by_c == by_python
    lines = {int(n) for n in re.findall(r"'(?:LStr|LDict|LList)', (\d+)", repr(by_c))}
    assert lines and min(lines) >= 1 and max(lines) <= src.count("\n")


@needs_libyaml
@pytest.mark.parametrize("path", DATA_FILES, ids=lambda p: p.name)
def test_both_loaders_read_each_data_file_alike(path, monkeypatch):
    src = path.read_text(encoding="utf-8")
    by_python = shape(yaml.safe_load(src))
    monkeypatch.setattr(inputs, "SafeLoader", _Refused)
    assert shape(inputs._safe_load(src, path.name)) == by_python


def outcome(src: str, libyaml: bool, monkeypatch) -> str:
    """What the rite's reader makes of ``src``: its document (with lines) or its one-line error."""
    with monkeypatch.context() as m:
        if not libyaml:
            m.setattr(Y, "C_SAFE_LOADER", None)
        Y._parse.cache_clear()
        try:
            return repr(shape(Y._parse(src, "f.yaml")))
        except RiteError as e:
            assert "\n" not in str(e)
            return str(e)
        finally:
            Y._parse.cache_clear()


def refused_alike(src: str, monkeypatch) -> str:
    """The one line both loaders give (the same, or libyaml is not there to compare)."""
    by_python = outcome(src, False, monkeypatch)
    if LIBYAML:
        assert outcome(src, True, monkeypatch) == by_python
    assert by_python.startswith("f.yaml:"), by_python
    return by_python


def nested(n: int, leaf: str = "") -> str:
    """A value ``n`` lists deep in block style, one a line (line k + 2 opens the k-th list)."""
    return "x: 1\ndeep:\n" + "".join("  " * k + "-\n" for k in range(1, n)) + "  " * n + f"- {leaf or '[]'}\n"


def test_a_document_nested_beyond_the_bound_is_refused_with_its_line(monkeypatch):
    # the root mapping is level 1, the value of deep: level 2 …: with the innermost list at level 51, refused
    # where the 51st level begins; one fewer is read
    assert refused_alike(nested(Y.MAX_DEPTH - 1), monkeypatch) == \
        f"f.yaml:{Y.MAX_DEPTH + 1}: YAML error: lists and mappings nested more than {Y.MAX_DEPTH} deep"
    ok = nested(Y.MAX_DEPTH - 2)
    assert outcome(ok, False, monkeypatch).startswith("(") and outcome(ok, True, monkeypatch) == \
        outcome(ok, False, monkeypatch)
    # a scalar counts as a level, an alias too
    assert "nested more than" in refused_alike(nested(Y.MAX_DEPTH - 1, "x"), monkeypatch)
    assert outcome(nested(Y.MAX_DEPTH - 2, "x"), True, monkeypatch).startswith("(")
    assert refused_alike("a: &a 1\n" + nested(Y.MAX_DEPTH - 1, "*a"), monkeypatch).startswith(f"f.yaml:{Y.MAX_DEPTH + 2}:")
    assert outcome("a: &a 1\n" + nested(Y.MAX_DEPTH - 2, "*a"), True, monkeypatch).startswith("(")
    assert "nested more than" in refused_alike("deep: " + "[" * 5000 + "]" * 5000 + "\n", monkeypatch)
    assert "nested more than" in refused_alike("deep: " + "[" * 100_000, monkeypatch)


def test_more_than_the_aliases_allowed_are_refused_with_the_line(monkeypatch):
    many = lambda n: "a: &a x\nb:\n" + "  - *a\n" * n          # noqa: E731
    assert refused_alike(many(Y.MAX_ALIASES + 1), monkeypatch) == \
        f"f.yaml:{Y.MAX_ALIASES + 3}: YAML error: more than {Y.MAX_ALIASES} aliases (*name)"
    assert outcome(many(Y.MAX_ALIASES), True, monkeypatch) == outcome(many(Y.MAX_ALIASES), False, monkeypatch)
    assert "'LStr', 1, 'x'" in outcome(many(Y.MAX_ALIASES), True, monkeypatch)


@pytest.mark.parametrize("levels,what", [(9, "more than 1,000,000 values"), (12, "aliases (*name)")])
def test_an_alias_bomb_is_refused(monkeypatch, levels, what):
    bomb = ["b0: &b0 [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]"]
    bomb += [f"b{i}: &b{i} [{', '.join([f'*b{i - 1}'] * 10)}]" for i in range(1, levels)]
    assert what in refused_alike("\n".join(bomb) + "\n", monkeypatch)


@pytest.mark.parametrize("src,line", [("x: 1\na: &a [b, *a]\n", 2), ("x: 1\na: &a {b: *a}\n", 2),
                                      ("x: 1\na: &a\n  - b\n  - c: *a\n", 2)])
def test_an_alias_that_holds_itself_is_refused(monkeypatch, src, line):
    assert refused_alike(src, monkeypatch) == f"f.yaml:{line}: YAML error: found unconstructable recursive node"


def test_a_key_given_twice_is_refused_with_its_line(monkeypatch):
    assert refused_alike("a: 1\nb:\n  c: 2\n  d: 3\n  c: 4\n", monkeypatch) == "f.yaml:5: YAML error: duplicate key 'c'"


@pytest.mark.parametrize("src,what", [
    ("a: 1\n  gloss: [unclosed\n", "mapping values are not allowed here"),      # libyaml: "… in this context"
    ("a:\tb\n", "found character '\\t' that cannot start any token"),             # libyaml reads it
    ("a: 1\n\ufeff", "could not find expected ':'"),                              # libyaml skips the mark
    ("a: [!!str, 1]\n", "could not determine a constructor for the tag"),         # libyaml: ['', 1]
    ("a: &x 1\nb: &x 2\n", "second occurrence"),
    ("a: " + "9" * 5000 + "\n", "Exceeds the limit (4300 digits)"),
])
def test_the_pure_python_loaders_messages_are_kept(monkeypatch, src, what):
    assert what in refused_alike(src, monkeypatch)


@pytest.mark.parametrize("value", ["!!int", "!!float", "!!bool x", "!!timestamp x", "!!seq x", "!!map [1]"])
def test_a_value_its_tag_cannot_be_made_of_is_refused_at_its_line(monkeypatch, value):
    """PyYAML's constructors raise an IndexError, KeyError, AttributeError or TypeError on these (an internal error
    before); the safe loader's own !!seq and !!map say what they expected, the rite's constructors did not."""
    tag = value.split()[0]
    assert refused_alike(f"a: 1\nb: {value}\n", monkeypatch).startswith(f"f.yaml:2: YAML error: {tag} cannot be made of")
    if tag in ("!!seq", "!!map"):
        return
    for libyaml in (True, False):
        with monkeypatch.context() as m:
            if not libyaml:
                m.setattr(inputs, "C_SAFE_LOADER", None)
            with pytest.raises(InputError, match=f"^c.yaml:3: YAML syntax: {tag} cannot be made of"):
                inputs._safe_load(f"- a: 1\n- b: 2\n- {value}\n", "c.yaml")


def test_the_bounds_are_counted_on_libyamls_document_as_the_pure_python_loader_counts_them():
    compose = lambda s: yaml.compose(s, Loader=inputs.C_SAFE_LOADER or yaml.SafeLoader)    # noqa: E731
    within = lambda s: inputs.composed_within(compose(s), Y.MAX_DEPTH, Y.MAX_ALIASES)        # noqa: E731
    assert within(nested(Y.MAX_DEPTH - 2)) and not within(nested(Y.MAX_DEPTH - 1))
    assert within(nested(Y.MAX_DEPTH - 2, "x")) and not within(nested(Y.MAX_DEPTH - 1, "x"))
    # an anchor near the root, its alias deep: what it holds counts from the anchor, not again from the alias
    assert within("a: &a " + "[" * 40 + "]" * 40 + "\nb: " + "[" * 40 + "*a" + "]" * 40 + "\n")
    many = lambda n: "a: &a [x]\nb: [" + ", ".join(["*a"] * n) + "]\n"                      # noqa: E731
    assert within(many(Y.MAX_ALIASES)) and not within(many(Y.MAX_ALIASES + 1))
    assert within("a: &a [b, *a]\n")                 # one alias: refused later, when it is built
    assert inputs.composed_within(compose("a: &a [b, *a]\n"), 3) and not inputs.composed_within(compose("a: [[b]]"), 3)


def test_a_catalogue_keeps_its_messages_and_deep_documents_go_to_the_pure_python_loader(monkeypatch):
    def read(src: str, libyaml: bool) -> str:
        with monkeypatch.context() as m:
            if not libyaml:
                m.setattr(inputs, "C_SAFE_LOADER", None)
            try:
                return repr(shape(inputs._safe_load(src, "c.yaml")))
            except InputError as e:
                assert "\n" not in str(e)
                return str(e)

    for src in ["- a: 1\n  b: [1, 2\n", "- a:\tb\n", "- " + "[" * 200 + "]" * 200 + "\n", "- " + "[" * 2000 + "\n",
                "- {a: 1, a: 2}\n"]:
        assert read(src, True) == read(src, False), src
    with monkeypatch.context() as m:             # the safe loader builds a list that holds itself, both alike
        by_c = inputs._safe_load("- &a [*a]\n", "c.yaml")
        m.setattr(inputs, "C_SAFE_LOADER", None)
        by_python = inputs._safe_load("- &a [*a]\n", "c.yaml")
        assert len(by_c) == len(by_python) == 1 and by_c[0][0] is by_c[0] and by_python[0][0] is by_python[0]
    assert read("- a: 1\n  b: [1, 2\n", True).startswith("c.yaml:3: YAML syntax: ")
    # within the depth libyaml's document is kept at, it is libyaml's
    deep = "- " + "[" * (inputs.C_YAML_DEPTH - 1) + "]" * (inputs.C_YAML_DEPTH - 1) + "\n"     # its [] at 100
    deeper = "- " + "[" * inputs.C_YAML_DEPTH + "]" * inputs.C_YAML_DEPTH + "\n"
    if LIBYAML:
        by_python = read(deep, False)
        monkeypatch.setattr(inputs, "SafeLoader", _Refused)
        assert read(deep, True) == by_python
        with pytest.raises(AssertionError, match="pure-Python"):
            read(deeper, True)


ALPHABET = " -:?[]{},&*!|>'\"#%@`\n\t\ufeff\x85\u2028ab1.~=\\"


@st.composite
def edited(draw, text: str) -> str:
    """One to four short runs of YAML's own characters written over the text."""
    for _ in range(draw(st.integers(1, 4))):
        i = draw(st.integers(0, len(text)))
        j = min(len(text), i + draw(st.integers(0, 3)))
        text = text[:i] + draw(st.text(alphabet=ALPHABET, max_size=8)) + text[j:]
    return text


@needs_libyaml
def test_edited_rite_files_are_read_or_refused_alike(monkeypatch):
    """Verifies on damaged texts (deterministic, 120 cases) that libyaml's reading and its fallback give what the
    pure-Python loader gives: the same document and lines, or the same one line."""
    text = (RITE.parent / "p5_offerings.yaml").read_text(encoding="utf-8")[:5000]

    @settings(max_examples=120, deadline=None, derandomize=True, database=None,
              suppress_health_check=list(HealthCheck))
    @given(src=edited(text))
    def case(src):
        assert outcome(src, True, monkeypatch) == outcome(src, False, monkeypatch)

    case()
