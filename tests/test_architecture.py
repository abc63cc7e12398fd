"""The architecture's rules (docs/architecture.md) hold: the contracts of ``[tool.importlinter]`` in
pyproject.toml (the stages import only those below them; the outputs read the Plan and never the planner;
the planner's parts call only the parts below them), checked with import-linter; and no module imports a
private name (``_x``) from another package of ``reconstruct``."""
from __future__ import annotations

import ast
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "reconstruct"

pytest.importorskip("importlinter")


def test_the_contracts_are_kept(capsys):
    from importlinter.cli import lint_imports

    code = lint_imports(config_filename=str(ROOT / "pyproject.toml"), no_cache=True, no_logo=True)
    out = capsys.readouterr().out
    assert code == 0, out
    assert "4 kept, 0 broken" in out


def _lint_copy(tmp_path: Path, probe: dict[str, str]) -> subprocess.CompletedProcess:
    """Lint a copy of the package's code with extra modules (path → source) added to it."""
    for f in PACKAGE.rglob("*.py"):
        dest = tmp_path / f.relative_to(ROOT)
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(f, dest)
    shutil.copyfile(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    for rel, src in probe.items():
        (tmp_path / rel).write_text(src, encoding="utf-8")
    code = ("import sys; from importlinter.cli import lint_imports; "
            "sys.exit(lint_imports(config_filename='pyproject.toml', no_cache=True, no_logo=True))")
    return subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True,
                          env={"PYTHONPATH": str(tmp_path), "PATH": "/usr/bin:/bin"})


@pytest.mark.parametrize("probe, broken", [
    ({"reconstruct/scene/probe.py": "from ..planner import core\n"}, "the outputs read the Plan"),
    ({"reconstruct/model/probe.py": "from ..render import still\n"}, "the stages"),
    ({"reconstruct/planner/occupancy_probe.py": "from . import walking\n"}, "the planner's parts"),
])
def test_a_forbidden_import_breaks_a_contract(tmp_path, probe, broken):
    r = _lint_copy(tmp_path, probe)
    assert r.returncode == 1, r.stdout + r.stderr
    assert f"{broken}" in r.stdout and "BROKEN" in r.stdout


def test_the_copy_of_the_package_alone_is_kept(tmp_path):
    """(the copy the probes are added to is itself clean: a probe, not the copying, breaks it)"""
    r = _lint_copy(tmp_path, {})
    assert r.returncode == 0, r.stdout + r.stderr


def _package_of(path: Path) -> str:
    parts = path.relative_to(PACKAGE).parts
    return parts[0] if len(parts) > 1 else ""


def test_no_private_name_is_imported_from_another_package():
    bad = []
    for f in sorted(PACKAGE.rglob("*.py")):
        here = list(f.relative_to(PACKAGE).parts[:-1])
        for node in ast.walk(ast.parse(f.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.ImportFrom) or node.level == 0:
                continue
            base = here[:len(here) - (node.level - 1)] if node.level > 1 else here
            target = [*base, *(node.module.split(".") if node.module else [])]
            if (target[0] if target else "") == _package_of(f):
                continue
            bad += [f"{f.relative_to(ROOT)}:{node.lineno} imports {a.name}" for a in node.names
                    if a.name.startswith("_") and not a.name.startswith("__")]
    assert bad == []
