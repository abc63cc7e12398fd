"""The Python API as docs/api.md shows it: the example runs (from a temporary folder)."""
import re
from pathlib import Path

import reconstruct as xs

DOC = Path(__file__).resolve().parents[1] / "docs" / "api.md"


def test_the_documented_example_runs(tmp_path, monkeypatch, capsys):
    code = "\n".join(re.findall(r"```python\n(.*?)```", DOC.read_text(encoding="utf-8"), re.S))
    assert "xs.plan(" in code and "export_glb" in code
    monkeypatch.chdir(tmp_path)
    exec(compile(code, str(DOC), "exec"), {})
    out = capsys.readouterr().out
    assert "people" in out and "statements pass" in out
    assert (tmp_path / "plan.json").exists() and (tmp_path / "xiangshe.glb").stat().st_size > 1_000_000


def test_the_api_names_exist():
    for name in xs.__all__:
        assert callable(getattr(xs, name)), name
