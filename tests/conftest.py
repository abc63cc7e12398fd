"""Shared fixtures: each whole-passage plan is made once per test session (planning the passage is
the slowest step of the suite), and every test that needs it reads the same :class:`Plan`."""
from __future__ import annotations

import contextlib
import fcntl
import hashlib
import io
import os
import pickle
import re
import sys
import tempfile
from functools import lru_cache
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent / "fixtures"))

from reconstruct.layout import load_reading  # noqa: E402
from reconstruct.model.plan import Plan  # noqa: E402
from reconstruct.planner import make_plan  # noqa: E402
from reconstruct.rite.loader import load_part  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
# the fixtures' generators are scripts that write files when run: not modules for --doctest-modules
collect_ignore_glob = ["fixtures/*.py"]
FIXTURES = Path(__file__).parent / "fixtures"


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(config, items):
    """The modules marked ``xdist_group`` (a page, a GLB, a delivery built once per module) stay on one worker of
    ``--dist loadgroup`` (.ci/run): pytest-xdist 3.8 tags their ids by setting ``item._nodeid``, which pytest 9 no
    longer reads (its ids are ``item._id``), so every test went its own way and the modules' fixtures were built
    on both workers and again after each interruption by another module's test. Tagged here as xdist does."""
    if not getattr(config.option, "loadgroup", False):
        return
    for item in items:
        names = sorted({str(m.args[0] if m.args else m.kwargs.get("name", "default"))
                        for m in item.iter_markers("xdist_group")})
        if not names or "@" in item.nodeid.rsplit("]", 1)[-1]:
            continue                                  # not grouped, or xdist's own tag took (pytest 8)
        tagged = f"{item.nodeid}@{'_'.join(names)}"
        if hasattr(item, "_id"):
            from _pytest.nodeid import coerce_node_id
            item._id = coerce_node_id(tagged)
        else:
            item._nodeid = tagged


@lru_cache(maxsize=None)
def reading_named(name: str = "zheng_xuan"):
    return load_reading(name)


# with pytest-xdist the workers of one run share the plans they make: the first to need one plans it and leaves
# it in a folder of this run (written under a temporary name, then renamed); the others read it (a second
# rather than the several a plan takes). The folder is in the run's base temporary directory, the parent of
# each worker's own (pytest keeps the last three runs' and removes older ones: the folders this cache used to
# leave in the system's temporary directory were never removed, 3.7 GB of them on the shared machine)
_CONFIG: list = []


def pytest_configure(config):
    _CONFIG[:] = [config]


def _shared_dir() -> Path | None:
    """This run's folder of plans and camera paths shared by the xdist workers (None: not under xdist)."""
    if not os.environ.get("PYTEST_XDIST_WORKER") or not _CONFIG:
        return None
    folder = _CONFIG[0]._tmp_path_factory.getbasetemp().parent / "xiangshe-shared"
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def planned(name: str = "zheng_xuan", zhongbin: int = 3, dafu: int = 1, options: tuple = (),
            part: str = "passage") -> Plan:
    """The plan of a shipped reading with a cast and options (and a part of the chapter: the passage, the
    first half or the whole), made once per session (do not mutate). One plan per case however it is asked
    for: ``planned()``, ``planned("zheng_xuan")`` and ``planned(zhongbin=3, part="passage")`` are the same
    object (the cache below is keyed by the arguments as given, so each spelling used to plan again)."""
    return _planned(str(name), int(zhongbin), int(dafu), tuple(options), str(part))


@lru_cache(maxsize=None)
def _planned(name: str, zhongbin: int, dafu: int, options: tuple, part: str) -> Plan:
    key = hashlib.sha1(repr((name, zhongbin, dafu, options) + ((part,) if part != "passage" else ()))
                       .encode()).hexdigest()[:16]
    plan = _once_per_run(f"{key}.json", lambda: _make(name, zhongbin, dafu, options, part),
                         lambda plan, f: plan.save(f), Plan.load)
    _KEY_OF[id(plan)] = key                 # the session's plans are kept (lru_cache): their ids stay theirs
    return plan


_KEY_OF: dict[int, str] = {}


def _once_per_run(name: str, make, save, load):
    """``make()`` once per run, shared by the xdist workers through the run's folder (a file ``name`` there,
    written by ``save(value, path)`` under a temporary name, read by ``load(path)``): one worker makes it while
    another that needs it waits for it (both used to make it at once); without workers, simply ``make()``."""
    shared = _shared_dir()
    if shared is None:
        return make()
    cached = shared / name
    with open(shared / f"{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if cached.exists():
            return load(cached)
        value = make()
        tmp = cached.with_name(f"{name}.{os.getpid()}.part")
        save(value, tmp)
        os.replace(tmp, cached)
        return value


def _make(name: str, zhongbin: int, dafu: int, options: tuple, part: str) -> Plan:
    reading = reading_named(name)
    return make_plan(reading, load_part(part, zhongbin=zhongbin, dafu=dafu, options=dict(options), reading=reading))


_AUDITS: dict[tuple[str, str], list] = {}


def audited(plan: Plan, reading: str = "zheng_xuan") -> list:
    """``audit(plan, load_reading(reading), limit=10_000)`` of a session plan (:func:`planned`), computed once per
    run however many tests hold that plan to the audit (the default passage, 9 衆賓 and the 周尺 reading were each
    audited by two tests: tests/test_planner.py and tests/test_passage_faithful.py), shared by the xdist workers as
    the plans are. A plan not made by :func:`planned` (a test's own, changed) is audited afresh."""
    from reconstruct.checks.audit import audit
    key = _KEY_OF.get(id(plan))
    if key is None:
        return audit(plan, reading_named(reading), limit=10_000)
    case = (key, str(reading))
    if case not in _AUDITS:
        name = f"{key}-audit-{hashlib.sha1(str(reading).encode()).hexdigest()[:8]}.pickle"
        _AUDITS[case] = _once_per_run(name, lambda: audit(plan, reading_named(reading), limit=10_000),
                                      lambda found, f: f.write_bytes(pickle.dumps(found)),
                                      lambda f: pickle.loads(f.read_bytes()))
    return list(_AUDITS[case])


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


@pytest.fixture(scope="session")
def audit_of():
    """``audit_of(plan, reading="zheng_xuan")``: the audit of a session plan (limit 10,000), made once per run."""
    return audited


@pytest.fixture(scope="session")
def plan_json(plan, tmp_path_factory):
    """The default plan saved as a file, for commands that take ``--plan`` (not to plan it again)."""
    return plan.save(tmp_path_factory.mktemp("plan") / "plan.json")


@lru_cache(maxsize=None)
def camera_file(size: tuple[int, int] = (1280, 720)) -> Path:
    """The default plan's camera path at ``size`` (``render.py shots --json``), written once per run and shared
    by the workers as the plans are: for commands given ``--camera`` rather than planning the shots again
    (tests/test_scene_camera_path.py checks the computation itself)."""
    from reconstruct.outputs import write_json
    from reconstruct.scene.shots import camera_path
    name = f"camera-{size[0]}x{size[1]}"
    folder = _shared_dir() or (_CONFIG[0]._tmp_path_factory.mktemp("camera") if _CONFIG
                               else Path(tempfile.mkdtemp(prefix="xiangshe-camera-")))
    out = folder / f"{name}.json"
    with open(folder / f"{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not out.exists():
            write_json(out, camera_path(planned(), size).to_dict(size))        # written under a temporary name
    return out


@pytest.fixture(scope="session")
def camera_of():
    """``camera_of((w, h))``: the default plan's camera path file at that size, made once per run."""
    return camera_file


@pytest.fixture(scope="session")
def api_example(tmp_path_factory):
    """docs/api.md's example, run once per process from a folder of its own: its namespace (``r``, ``plan``, …),
    what it printed and the folder (plan.json, xiangshe.glb). tests/test_api.py checks that it runs; the animated
    GLB's tests (tests/test_exchange_animation.py) read the whole passage's GLB it exported (5 衆賓), rather than
    exporting the session's passage again (about 19 s CPU): both modules are on one xdist worker."""
    code = "\n".join(re.findall(r"```python\n(.*?)```", (ROOT / "docs" / "api.md").read_text(encoding="utf-8"), re.S))
    folder = tmp_path_factory.mktemp("api")
    namespace: dict = {}
    printed = io.StringIO()
    here = os.getcwd()
    os.chdir(folder)
    try:
        with contextlib.redirect_stdout(printed):
            exec(compile(code, str(ROOT / "docs" / "api.md"), "exec"), namespace)
    finally:
        os.chdir(here)
    return {"code": code, "namespace": namespace, "printed": printed.getvalue(), "folder": folder}
