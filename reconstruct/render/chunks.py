"""A video as chunks: which frames each chunk holds, what its picture depends on, and the manifest.

The frames of a render are cut into chunks by plan time, independently of how many workers
render them: the title card, then one chunk per ``chunk_seconds`` of video at normal speed
(``round(chunk_seconds × fps)`` frame steps of plan time from the excerpt's start), then the end
card.  Each chunk's frame times start at its own start (holds played faster inside a chunk do
not shift the frames of the next), so a change of the plan moves only the frames near it.

Each chunk has a *key*: a hash of everything its picture depends on — the render settings, the
code, the encoder, the ground, its frame times, the camera's shots over it, the plan's tracks,
states, gestures, loosed arrows, the drum's beats and events around it.  The manifest (``manifest.json`` in the chunk store beside the
video) records, for each finished chunk, its frame range, key, segment file and the segment's
SHA-256; a rerun reuses a segment when its key is unchanged and the file still has that hash.
"""
from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path

import numpy as np

from ..model.plan import Plan
from ..outputs import atomic_path
from ..scene.sampler import PlanSampler
from ..scene.shots import CameraPath
from .holds import hold_rates, times_from_rates

__all__ = ["RenderJob", "Chunk", "plan_chunks", "Manifest", "chunk_store", "CHUNK_SECONDS", "MANIFEST_FORMAT"]

CHUNK_SECONDS = 10.0        # video seconds (at normal speed) per chunk
MARGIN_S = 5.0              # plan seconds around a chunk whose plan can change its picture
MANIFEST_FORMAT = "xiangshe-chunks/1"


@dataclass
class RenderJob:
    """Everything a worker needs to render any chunk of one video (shipped once per worker)."""
    plan: Plan
    static_meshes: list
    camera: CameraPath
    size: tuple[int, int]
    fps: int
    crf: int
    preset: str
    labels: bool
    glosses: dict
    aa: bool
    t0: float
    t1: float
    speed: float
    store: Path
    frames_dir: Path | None = None
    id: str = ""
    bitrate_kbps: int | None = None        # a constant bit rate (a delivery), else constant quality (crf)
    overlays: str = "full"                 # "full": name tags, captions, timeline; "clean": the picture alone
    evidence: bool = False                 # the evidence view: things coloured by basis, the legend, the option tags
    supersample: int = 2                   # the moving layer's supersampling per axis (frames.FrameRenderer)


@dataclass
class Chunk:
    """Frames ``frame0`` … ``frame0 + n - 1`` of the video: a card (``kind`` "title"/"end", ``n`` copies)
    or plan frames at ``times`` played ``rates`` times faster."""
    index: int
    kind: str
    frame0: int
    n: int
    t_start: float = 0.0
    t_end: float = 0.0
    times: np.ndarray = field(default_factory=lambda: np.zeros(0))
    rates: np.ndarray = field(default_factory=lambda: np.zeros(0))
    key: str = ""

    @property
    def segment(self) -> str:
        return f"chunk-{self.index:05d}-{self.key[:16]}.mp4"


def plan_chunks(job: RenderJob, *, cards: bool, title_n: int, end_n: int, compress_holds: float | None,
                hold_speed: float, chunk_seconds: float = CHUNK_SECONDS) -> list[Chunk]:
    """The chunks of a render (keys not yet set: see :func:`set_keys`)."""
    t0, t1, dt = job.t0, job.t1, job.speed / job.fps
    steps = max(1, int(round(chunk_seconds * job.fps)))
    span = steps * dt
    if compress_holds is not None and hold_speed > 1.0 and t1 - t0 > compress_holds:
        fast = hold_rates(job.plan, job.camera, t0, t1, compress_holds, job.size)
    else:
        fast, hold_speed = np.zeros(1, bool), 1.0
    chunks: list[Chunk] = []
    frame = 0
    if cards and title_n:
        chunks.append(Chunk(0, "title", 0, title_n))
        frame = title_n
    k = 0
    while t0 + k * span < t1 - 1e-9:
        a, b = t0 + k * span, min(t1, t0 + (k + 1) * span)
        times, rates = times_from_rates(a, b, dt, fast, hold_speed, origin=t0)
        chunks.append(Chunk(len(chunks), "plan", frame, len(times), a, b, times, rates))
        frame += len(times)
        k += 1
    if cards and end_n:
        chunks.append(Chunk(len(chunks), "end", frame, end_n))
    return chunks


# ---------------------------------------------------------------------------
# keys

def _digest(*parts) -> str:
    h = hashlib.sha256()
    for p in parts:
        if isinstance(p, np.ndarray):
            h.update(str(p.dtype).encode() + str(p.shape).encode())
            h.update(np.ascontiguousarray(p).tobytes())
        elif isinstance(p, (bytes, bytearray)):
            h.update(p)
        else:
            h.update(json.dumps(p, ensure_ascii=False, sort_keys=True, default=str).encode("utf-8"))
        h.update(b"\x00")
    return h.hexdigest()


def code_digest() -> str:
    """Hash of the code that draws a frame (render and scene stages)."""
    h = hashlib.sha256()
    for pkg in ("reconstruct.render", "reconstruct.scene"):
        for f in sorted(resources.files(pkg).iterdir(), key=lambda f: f.name):
            if f.name.endswith(".py"):
                h.update(f.name.encode() + b"\x00" + f.read_bytes())
    return h.hexdigest()


def scene_digest(static_meshes) -> str:
    """Hash of the ground: every static mesh's name, vertices, faces and colour."""
    parts = []
    for name, mesh, rgb in static_meshes:
        parts += [name, np.asarray(mesh.vertices, float), np.asarray(mesh.faces, np.int64),
                  rgb if isinstance(rgb, str) else [float(c) for c in rgb]]
    return _digest(*parts)


def settings_digest(job: RenderJob, encoder: str, static: str) -> str:
    """What every chunk depends on: size, rate, quality, labels, the excerpt (the timeline), the
    cast's names, the encoder, the code and the ground."""
    from .encode import encoder_args
    names = {aid: a.label for aid, a in job.plan.actors.items()}
    return _digest(MANIFEST_FORMAT, list(job.size), job.fps, job.labels, job.aa, round(job.t0, 9), round(job.t1, 9),
                   round(job.speed, 9), encoder_args(job.fps, job.crf, job.preset, job.bitrate_kbps), job.overlays,
                   job.evidence, job.supersample,
                   encoder, code_digest(), static,
                   names, sorted(job.plan.props), job.plan.layout.to_dict())


def _track_window(motion, a: float, b: float) -> list:
    """The keys of a track that shape it over [a, b] (and the one before and after), with the ground
    covered and the posture runs they belong to."""
    t = motion.t
    i0 = max(0, int(np.searchsorted(t, a, side="right")) - 1)
    i1 = min(len(t), int(np.searchsorted(t, b, side="left")) + 1)
    keys = motion.track.keys[i0:i1]
    return [keys.tolist(), np.round(motion.cum[i0:i1], 6).tolist(), motion.seg_post[i0:i1],
            np.round(motion.run0[i0:i1], 6).tolist(), np.round(motion.run1[i0:i1], 6).tolist()]


def _steps_window(steps, a: float, b: float) -> list:
    return [[t, v] for t, v in zip(steps.times, steps.values) if a <= t <= b] + [steps.at(a)]


def plan_window(plan: Plan, sampler: PlanSampler, a: float, b: float, glosses: dict) -> list:
    """What of the plan can change the picture over plan times [a, b]."""
    out = []
    for aid, actor in plan.actors.items():
        gestures = [g.row() for g in actor.gestures if g.t0 <= b + 1.0 and g.t1 >= a - 1.0]
        out.append([aid, _track_window(sampler.actors[aid], a, b), _steps_window(actor.states, a, b), gestures])
    out.append(["shots", [s.to_dict() for s in plan.shots if s.loose - 10.0 <= b and s.land + 10.0 >= a]])
    beats = [x for x in (plan.music.beats if plan.music else ()) if a <= x <= b]
    out.append(["music", plan.music.piece if plan.music else None, beats])
    for pid, prop in plan.props.items():
        out.append([pid, prop.kind, _track_window(sampler.props[pid], a, b), _steps_window(prop.carriers, a, b)])
    for e in plan.events:
        if e.start <= b and e.end >= a:
            out.append([e.to_dict(), glosses.get(e.id)])
    return out


def camera_window(camera: CameraPath, a: float, b: float) -> list:
    """The shots (and moves) the camera passes through over [a, b], with the one before."""
    i0, i1 = max(0, camera.shot_index(a) - 1), camera.shot_index(b) + 1
    return [[s.t0, s.t1, list(s.pose.key()), s.kind, camera.moves[i] if i < len(camera.moves) else 0.0]
            for i, s in enumerate(camera.shots[i0:i1], start=i0)]


def set_keys(job: RenderJob, chunks: list[Chunk], cards: dict[str, np.ndarray], encoder: str) -> str:
    """Give each chunk its key; returns the settings digest."""
    settings = settings_digest(job, encoder, scene_digest(job.static_meshes))
    sampler = PlanSampler(job.plan)
    dt = job.speed / job.fps
    for c in chunks:
        if c.kind != "plan":
            c.key = _digest(settings, c.kind, c.n, cards[c.kind])
            continue
        a, b = c.t_start - dt - MARGIN_S, c.t_end + MARGIN_S
        c.key = _digest(settings, np.round(c.times, 9), np.round(c.rates, 9),
                        camera_window(job.camera, c.t_start - dt, c.t_end + dt),
                        plan_window(job.plan, sampler, a, b, job.glosses))
    return settings


# ---------------------------------------------------------------------------
# the store and its manifest

def chunk_store(out: Path) -> Path:
    """The folder of a video's segments and manifest, beside it."""
    return out.with_name(f".{out.stem}.chunks")


class Manifest:
    """``manifest.json`` of a chunk store: finished chunks by index."""

    def __init__(self, store: Path):
        self.store = Path(store)
        self.path = self.store / "manifest.json"
        self.chunks: dict[str, dict] = {}
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
            if data.get("format") == MANIFEST_FORMAT:
                self.chunks = dict(data.get("chunks") or {})
        except (OSError, ValueError, AttributeError):
            pass                                   # none yet, or unreadable: everything is rendered again

    def finished(self, c: Chunk, frames_dir: Path | None = None) -> bool:
        """Is chunk ``c`` done: same key, its segment present with the recorded hash (and its PNGs)?"""
        from .encode import file_sha256
        e = self.chunks.get(str(c.index))
        if not e or e.get("key") != c.key or e.get("segment") != c.segment:
            return False
        seg = self.store / c.segment
        if not seg.is_file() or file_sha256(seg) != e.get("sha256"):
            return False
        if frames_dir is not None:
            return all((Path(frames_dir) / f"frame_{i:06d}.png").is_file() for i in range(c.frame0, c.frame0 + c.n))
        return True

    def record(self, c: Chunk, sha256: str, settings: str) -> None:
        self.chunks[str(c.index)] = {"frames": [c.frame0, c.frame0 + c.n], "kind": c.kind,
                                     "plan": [round(c.t_start, 6), round(c.t_end, 6)], "key": c.key,
                                     "settings": settings, "segment": c.segment, "sha256": sha256}
        self.save()

    def keep_only(self, chunks: list[Chunk]) -> None:
        """Forget entries of chunks that no longer exist or changed, and delete segments nobody lists."""
        valid = {str(c.index): c for c in chunks}
        self.chunks = {k: e for k, e in self.chunks.items() if k in valid and e.get("key") == valid[k].key}
        listed = {e.get("segment") for e in self.chunks.values()}
        for f in self.store.glob("chunk-*.mp4"):
            if f.name not in listed:
                f.unlink(missing_ok=True)
        for f in self.store.glob(".*.partial.mp4"):
            f.unlink(missing_ok=True)
        self.save()

    def save(self) -> None:
        self.store.mkdir(parents=True, exist_ok=True)
        data = {"format": MANIFEST_FORMAT, "chunks": dict(sorted(self.chunks.items(), key=lambda kv: int(kv[0])))}
        with atomic_path(self.path) as tmp:
            tmp.write_text(json.dumps(data, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")


def remove_partials(store: Path) -> None:
    for f in Path(store).glob(".*.partial.mp4"):
        f.unlink(missing_ok=True)


def partial_name(store: Path, c: Chunk) -> Path:
    return Path(store) / f".{c.segment[:-4]}.{os.getpid()}.partial.mp4"
