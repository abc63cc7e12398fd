"""Where chunks are rendered: in this process, on a local Dask cluster, or on a running one.

* One worker and no scheduler: the chunks are rendered here, one after the other, by one frame
  pipeline reset at each chunk's start.
* ``workers`` > 1: a local Dask cluster (``LocalCluster``, one single-threaded process per worker, forked from
  a server that has imported the render stack once).
* ``scheduler="tcp://host:port"``: the chunks go to that cluster, whose workers have this package
  installed and see the chunk store's folder (a shared file system).

The job (plan, ground, camera, settings) is scattered to every worker once; each worker builds
its frame pipeline once per job and resets it at every chunk.  Progress (frames and chunks) comes
back through a Dask queue to one tqdm bar.

A clean stop: SIGINT or SIGTERM in the main thread raises :class:`Interrupted` (a
``KeyboardInterrupt``); the running chunks are cancelled, the cluster closed, and any of its
processes (workers, their encoders) still alive after that are ended; the finished chunks stay in
the manifest for a rerun, and their partial segments are removed.
"""
from __future__ import annotations

import contextlib
import logging
import signal
import threading
import time
from typing import Callable

__all__ = ["run", "Interrupted", "stop_signals"]

_worker_pipe: tuple[str, object] | None = None      # (job id, FramePipeline) kept by a worker process


class Interrupted(KeyboardInterrupt):
    """The render was asked to stop (SIGINT or SIGTERM)."""

    def __init__(self, signum: int = signal.SIGINT):
        super().__init__(signal.Signals(signum).name)
        self.signum = signum


@contextlib.contextmanager
def stop_signals():
    """SIGINT and SIGTERM raise :class:`Interrupted` in the main thread while inside (elsewhere: no change)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def handler(signum, frame):
        raise Interrupted(signum)

    old = {s: signal.signal(s, handler) for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield
    finally:
        for s, h in old.items():
            signal.signal(s, h)


def run(job, todo: list, *, workers: int = 1, scheduler: str | None = None, progress: bool = True,
        label: str = "", total_frames: int = 0, done_frames: int = 0,
        on_done: Callable = lambda chunk, result: None) -> None:
    """Render the chunks ``todo`` of ``job``; ``on_done(chunk, result)`` is called in this process as
    each one finishes (in any order)."""
    from tqdm import tqdm

    from .chunks import remove_partials

    bar = tqdm(total=total_frames, initial=done_frames, unit="frame", disable=not progress, desc=label,
               smoothing=0.05)
    n_chunks = len(todo)
    done = {"n": 0}

    def finished(chunk, result):
        on_done(chunk, result)
        done["n"] += 1
        bar.set_postfix_str(f"chunks {done['n']}/{n_chunks}", refresh=False)

    try:
        with stop_signals():
            if not todo:
                return
            if scheduler is None and workers <= 1:
                _run_here(job, todo, bar.update, finished)
            else:
                _run_dask(job, todo, workers, scheduler, bar.update, finished)
    finally:
        bar.close()
        remove_partials(job.store)


def _run_here(job, todo, report, finished) -> None:
    from .video import pipeline_for, render_chunk

    pipe = pipeline_for(job) if any(c.kind == "plan" for c in todo) else None
    try:
        for c in todo:
            finished(c, render_chunk(job, c, pipe, report))
    finally:
        if pipe is not None:
            pipe.close()


# ---------------------------------------------------------------------------
# Dask

def render_on_worker(job, chunk, queue_name: str | None = None) -> dict:
    """A Dask task: render one chunk with this worker's pipeline for the job (built on first use)."""
    global _worker_pipe
    from .video import pipeline_for, render_chunk

    pipe = None
    if chunk.kind == "plan":
        if _worker_pipe is None or _worker_pipe[0] != job.id:
            if _worker_pipe is not None:
                _worker_pipe[1].close()
                _worker_pipe = None
            _worker_pipe = (job.id, pipeline_for(job))
        pipe = _worker_pipe[1]
    report = None
    if queue_name:
        from distributed import Queue, get_client
        report = Queue(queue_name, client=get_client()).put
    return render_chunk(job, chunk, pipe, report)


def _cluster(workers: int, scheduler: str | None):
    """A client of the given scheduler, or of a new local cluster of ``workers`` processes."""
    from distributed import Client, LocalCluster

    if scheduler:
        return Client(scheduler, set_as_default=False), None
    import dask
    with dask.config.set({"distributed.worker.multiprocessing-method": "forkserver"}):
        _preload_render_stack()
        cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=None,
                               silence_logs=logging.ERROR)
    return Client(cluster, set_as_default=False), cluster


# what a worker needs before its first chunk (the job's classes, the frame pipeline and its renderer)
_RENDER_STACK = ["reconstruct.render.video", "reconstruct.render.engine"]


def _preload_render_stack() -> None:
    """The local cluster's workers are forked from one server process that has imported the render stack once
    (multiprocessing's forkserver, preloaded), rather than each started afresh and importing it (about 2.5 s of
    CPU per worker: numpy, scipy, trimesh, VTK, pyvista …), as Dask's own preload does for distributed.  The server
    starts with the first cluster of a process and lives as long as the process; the list is read as it starts."""
    from distributed.utils import get_mp_context

    # forkserver (the configuration asked for): Dask sets its preload list once, here; ours then replaces it
    get_mp_context().set_forkserver_preload(["distributed", *_RENDER_STACK])


def _run_dask(job, todo, workers, scheduler, report, finished) -> None:
    from distributed import Queue, as_completed

    client, cluster = _cluster(workers, scheduler)
    pids = _worker_pids(cluster)
    futures = {}
    try:
        shipped = client.scatter(job, broadcast=True, hash=False)
        qname = f"render-progress-{job.id[:16]}-{time.time_ns()}"
        queue = Queue(qname, client=client)
        by_key = {c.index: c for c in todo}
        for c in todo:
            futures[client.submit(render_on_worker, shipped, c, qname, pure=False, retries=0)] = c.index
        pending = as_completed(list(futures), loop=client.loop)
        while not pending.is_empty():
            ready = pending.next_batch(block=False) if pending.has_ready() else []
            _drain(queue, report)
            for f in ready:
                finished(by_key[futures[f]], _result(f, futures[f]))
            if not ready:
                time.sleep(0.2)
        _drain(queue, report)
    except BaseException:
        for f in futures:
            f.cancel()
        raise
    finally:
        _shut_down(client, cluster, pids)


def _result(future, index: int) -> dict:
    try:
        return future.result()
    except Exception as e:                         # noqa: BLE001 — said once, with the chunk
        raise RuntimeError(f"chunk {index} failed on a worker: {type(e).__name__}: {e}") from e


def _drain(queue, report) -> None:
    try:
        items = queue.get(batch=True, timeout=5)
    except Exception:                              # noqa: BLE001 — progress is only shown
        return
    n = sum(int(x) for x in items)
    if n:
        report(n)


def _worker_pids(cluster) -> list[int]:
    """Process ids of a local cluster's workers (their children are found when stopping)."""
    if cluster is None:
        return []
    pids = []
    for w in cluster.workers.values():
        proc = getattr(w, "process", None)
        pid = getattr(getattr(proc, "process", None), "pid", None) or getattr(w, "pid", None)
        if pid:
            pids.append(int(pid))
    return pids


def _shut_down(client, cluster, pids: list[int]) -> None:
    """Close the client and cluster; end any of the cluster's processes (and theirs) still alive."""
    import psutil

    procs = []
    for pid in pids:
        with contextlib.suppress(psutil.Error):
            p = psutil.Process(pid)
            procs += [p, *p.children(recursive=True)]
    with contextlib.suppress(Exception):
        client.close(timeout=5)
    if cluster is not None:
        with contextlib.suppress(Exception):
            cluster.close(timeout=5)
    alive = [p for p in procs if _running(p)]
    for p in alive:
        with contextlib.suppress(psutil.Error):
            p.terminate()
    _, alive = psutil.wait_procs(alive, timeout=3)
    for p in alive:
        with contextlib.suppress(psutil.Error):
            p.kill()
    psutil.wait_procs(alive, timeout=3)


def _running(p) -> bool:
    import psutil
    try:
        return p.is_running() and p.status() != psutil.STATUS_ZOMBIE
    except psutil.Error:
        return False
