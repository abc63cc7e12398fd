"""Shared fixtures: each whole-passage plan is made once per test session (planning the passage is
the slowest step of the suite), and every test that needs it reads the same :class:`Plan`."""
from __future__ import annotations

import sys
from functools import lru_cache
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent / "fixtures"))

from reconstruct.layout import load_reading  # noqa: E402
from reconstruct.model.plan import Plan  # noqa: E402
from reconstruct.planner import make_plan  # noqa: E402
from reconstruct.rite import load_rite  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
# the fixtures' generators are scripts that write files when run: not modules for --doctest-modules
collect_ignore_glob = ["fixtures/*.py"]
FIXTURES = Path(__file__).parent / "fixtures"


@lru_cache(maxsize=None)
def reading_named(name: str = "zheng_xuan"):
    return load_reading(name)


@lru_cache(maxsize=None)
def planned(name: str = "zheng_xuan", zhongbin: int = 3, dafu: int = 1, options: tuple = ()) -> Plan:
    """The plan of a shipped reading with a cast and options, made once per session (do not mutate)."""
    reading = reading_named(name)
    return make_plan(reading, load_rite(zhongbin=zhongbin, dafu=dafu, options=dict(options), reading=reading))


@pytest.fixture(scope="session")
def reading():
    return reading_named()


@pytest.fixture(scope="session")
def plan():
    """The default plan: 鄭玄's reading, 3 衆賓, 1 大夫, the default options."""
    return planned()


@pytest.fixture(scope="session")
def plan_of():
    """``plan_of(name, zhongbin=…, dafu=…, options=((k, v), …))``: a plan made once per session."""
    return planned
