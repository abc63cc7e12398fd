"""The Python API as docs/api.md shows it: the example runs (from a temporary folder)."""
import pytest

import reconstruct as xs

# the example is run once per process (conftest.api_example) and its GLB read by the animated export's tests
pytestmark = pytest.mark.xdist_group("passage_glb")


def test_the_documented_example_runs(api_example):
    code, out, folder = api_example["code"], api_example["printed"], api_example["folder"]
    assert "xs.plan(" in code and "export_glb" in code
    assert "people" in out and "statements pass" in out
    assert (folder / "plan.json").exists() and (folder / "xiangshe.glb").stat().st_size > 1_000_000


def test_the_api_names_exist():
    for name in xs.__all__:
        assert callable(getattr(xs, name)), name
