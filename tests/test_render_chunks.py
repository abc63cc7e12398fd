"""Chunked rendering (issue 21): the same frames whatever the workers, a clean stop, a resumed rerun.

The mini fixture plan, 3.2 s of it at 320x180 in chunks of 0.4 s (the suite stays fast); frames are
compared as ffmpeg's framemd5 of the decoded video."""
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import psutil
import pytest

from reconstruct.layout.reading import load_reading
from reconstruct.model.plan import Plan
from reconstruct.render import chunks as K
from reconstruct.render.encode import concat_list, ffmpeg_exe
from reconstruct.render.video import render_video
from reconstruct.scene.ground import ground_meshes
from reconstruct.scene.shots import plan_shots

ROOT = Path(__file__).resolve().parent.parent
MINI = ROOT / "tests" / "fixtures" / "mini_plan.json"
SIZE = (320, 180)
START, END, CHUNK = 20.0, 23.2, 0.4
SETTINGS = dict(size=SIZE, start=START, end=END, chunk_seconds=CHUNK, progress=False)


# one worker builds this module's expensive fixtures once (pytest-xdist --dist loadgroup, .ci/run)
pytestmark = pytest.mark.xdist_group("chunk_reference")


@pytest.fixture(scope="module")
def plan():
    return Plan.load(MINI)


@pytest.fixture(scope="module")
def ground(plan):
    return ground_meshes(load_reading(), plan.props)          # what the command line draws the plan on


def framemd5(path: Path) -> list[str]:
    out = subprocess.run([ffmpeg_exe(), "-v", "error", "-i", str(path), "-map", "0:v", "-f", "framemd5", "-"],
                         capture_output=True,
                         text=True, check=True).stdout
    return [line for line in out.splitlines() if line and not line.startswith("#")]


def test_concat_list_quotes_paths():
    text = concat_list(["/a b/it's 鄉射.mp4"])
    assert text == "file '/a b/it'\\''s 鄉射.mp4'\n"
    with pytest.raises(ValueError):
        concat_list(["/a\nb.mp4"])


def _session_processes(sid: int) -> list[psutil.Process]:
    out = []
    for p in psutil.process_iter(["pid", "name", "status"]):
        try:
            if p.pid != sid and os.getsid(p.pid) == sid and p.info["status"] != psutil.STATUS_ZOMBIE:
                out.append(p)
        except (ProcessLookupError, PermissionError, psutil.Error):
            pass
    return out


def _finished(manifest: Path) -> int:
    try:
        return len(json.loads(manifest.read_text(encoding="utf-8"))["chunks"])
    except (OSError, ValueError, KeyError):
        return 0


def test_sigterm_stops_every_process_and_a_rerun_on_two_workers_resumes_with_the_same_frames(plan, ground, tmp_path):
    """The command on a two-worker cluster, stopped by SIGTERM once two chunks are done: every process of it ends,
    nothing partial is left, the finished chunks are kept.  The rerun, on a two-worker cluster of this process, in
    an awkward folder (quotes, spaces, CJK), renders only the rest; a rerun then has nothing to do; ``fresh``
    renders every chunk again here, one after the other, and the frames are the same: the two clusters' (the
    command's chunks and the rerun's) are those of one process.  One cluster and one plain render fewer than a
    separate two-worker render beside a reference: the same frames compared, every chunk by a cluster."""
    folder = tmp_path / "it's a \"鄉射\" folder"
    out = folder / "stopped two workers.mp4"
    manifest = K.chunk_store(out) / "manifest.json"
    cmd = [sys.executable, "-m", "reconstruct", "video", "--plan", str(MINI), "--out", str(out), "--size", "320x180",
           "--from", f"{START}s", "--to", f"{END}s", "--chunk-seconds", str(CHUNK), "--workers", "2", "--quiet"]
    proc = subprocess.Popen(cmd, cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)
    try:
        deadline = time.monotonic() + 240
        while _finished(manifest) < 2 and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.02)
        assert proc.poll() is None, proc.communicate()
        assert _finished(manifest) >= 2
        os.kill(proc.pid, signal.SIGTERM)
        _, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    assert proc.returncode == 128 + signal.SIGTERM, err
    assert "resume" in err
    # no worker, encoder or helper of the render outlives it
    left = _session_processes(proc.pid)
    for _ in range(50):
        if not left:
            break
        time.sleep(0.1)
        left = _session_processes(proc.pid)
    assert not left, [(p.pid, p.name()) for p in left]
    # no final file, nothing partial; the finished chunks are kept
    assert not out.exists()
    assert not [p for p in tmp_path.rglob("*partial*")]
    done = _finished(manifest)
    total = 2 + round((END - START) / CHUNK)                                  # title, 8, end
    assert 2 <= done < total
    st = render_video(plan, ground, out, workers=2, **SETTINGS)
    assert st["workers"] == 2 and st["chunks"] == total
    assert st["chunks_reused"] == done and st["chunks_rendered"] == total - done
    two = framemd5(out)
    assert len(two) == st["frames"]
    again = render_video(plan, ground, out, workers=2, **SETTINGS)          # nothing left to do
    assert again["chunks_rendered"] == 0 and framemd5(out) == two
    fresh = render_video(plan, ground, out, workers=1, fresh=True, **SETTINGS)
    assert fresh["chunks"] == fresh["chunks_rendered"] == total and fresh["frames"] == st["frames"]
    assert framemd5(out) == two                # one process, chunk after chunk: the frames of the clusters


def _keys(plan, ground, **kw):
    job = K.RenderJob(plan, ground, plan_shots(plan, SIZE), SIZE, 25, 18, "veryfast", False, {}, True, 0.0,
                      plan.duration, 1.0, Path("/nonexistent"))
    for k, v in kw.items():
        setattr(job, k, v)
    chunks = K.plan_chunks(job, cards=False, title_n=0, end_n=0, compress_holds=None, hold_speed=8.0,
                           chunk_seconds=2.0)
    K.set_keys(job, chunks, {}, "ffmpeg")
    return [(c.t_start, c.key) for c in chunks]


def test_a_change_invalidates_only_the_chunks_it_touches(plan):
    from mini_plan import make_plan, standin_ground
    ground = standin_ground()
    base = _keys(plan, ground)
    assert base == _keys(Plan.from_dict(make_plan()), ground)            # same inputs, same keys
    # the 司射 faces another way at one key: the plan changes between the keys before and after it
    raw = make_plan()
    keys = raw["actors"]["司射"]["keys"]
    i = len(keys) // 2
    keys[i][4] = (keys[i][4] or 0) + 40.0
    lo, hi = keys[i - 1][0] - K.MARGIN_S - 2.0, keys[i + 1][0] + K.MARGIN_S
    moved = _keys(Plan.from_dict(raw), ground)
    changed = [t for (t, a), (_, b) in zip(base, moved) if a != b]
    assert changed and len(changed) < len(base) / 2
    assert all(lo <= t <= hi for t in changed), (changed, lo, hi)
    # a setting (the quality) changes every chunk
    assert all(a != b for (_, a), (_, b) in zip(base, _keys(plan, ground, crf=20)))
    # so does the ground
    g2 = [(n, m.copy(), c) for n, m, c in ground]
    g2[0][1].vertices += np.array([0.0, 0.0, 0.01])
    assert all(a != b for (_, a), (_, b) in zip(base, _keys(plan, g2)))

def test_chunk_keys_follow_the_gestures(plan):
    """A gesture changes the key of the chunks around it, and only of those."""
    from reconstruct.model.plan import Gesture
    from reconstruct.scene.sampler import PlanSampler
    p2 = Plan.load(MINI)
    sampler = PlanSampler(p2)
    aid = next(iter(p2.actors))
    early, late = K.plan_window(p2, sampler, 1.0, 3.0, {}), K.plan_window(p2, sampler, 40.0, 42.0, {})
    p2.actors[aid].gestures = p2.actors[aid].gestures + [Gesture(2.0, 2.5, "take", None)]
    assert K.plan_window(p2, sampler, 1.0, 3.0, {}) != early
    assert K.plan_window(p2, sampler, 40.0, 42.0, {}) == late
