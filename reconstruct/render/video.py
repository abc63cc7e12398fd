"""Render a plan (``xiangshe-plan/1``) to an H.264 video, faster than it plays. Never re-plans.

Design for speed on a CPU with software GL (llvmpipe), where every full-frame pass costs:

* :mod:`.frames` draws a frame from a background cached per camera pose and a supersampled
  moving layer (:mod:`.layer`: every person and prop as one mesh posed in numpy); when nothing
  visible moves the last picture is reused and only captions and the timeline are redrawn;
  long holds can be played faster (:mod:`.holds`, a "»" marker shows it).
* The frames are cut into chunks by plan time (:mod:`.chunks`); each chunk is rendered from a
  fresh state into its own H.264 segment (:mod:`.encode`), so chunks can be rendered in any order,
  by any number of workers (:mod:`.engine`: in this process, or a Dask cluster), and finished
  chunks are kept for a rerun.  The segments are joined without re-encoding, with chapters, into a
  temporary file renamed when complete; the WebVTT caption sidecars are written beside it.
"""
from __future__ import annotations

import os
import shutil
import time
from pathlib import Path

import numpy as np

from . import captions as C
from .chunks import CHUNK_SECONDS, Chunk, Manifest, RenderJob, chunk_store, partial_name, plan_chunks, set_keys
from .encode import SegmentWriter, encoder_identity, file_sha256, join_segments, normalise_loudness
from .frames import ROOF_NODES, SS, FrameRenderer
from .holds import frame_times, hold_times
from .clauses import ClauseTimeline
from .inset import InsetMap
from .labels import TagChoice, place_labels, short_name
from .evidence import draw_legend, draw_option_tag, option_words
from .layer import MovingLayer
from .sound import cues_of, write_soundtrack
from ..model.defaults import FPS, FRAME_SIZE
from ..model.evidence import evidence_rgb, prop_evidence
from ..model.plan import Plan
from ..scene import figures as F
from ..scene.sampler import PlanSampler
from ..scene.shots import CameraPath, camera_path, project

__all__ = ["render_video", "render_frames", "render_chunk", "FramePipeline", "PlanSampler", "MovingLayer",
           "FrameRenderer", "resolve_range", "frame_times", "hold_times", "short_name", "place_labels", "TITLE_S",
           "END_S", "ROOF_NODES", "default_workers"]

TITLE_S = 4.0
END_S = 3.0


def resolve_range(plan: Plan, start=None, end=None) -> tuple[float, float]:
    """Plan seconds of an excerpt: ``start``/``end`` as seconds (float), a footnote number (int)
    or an event id (str); None = the beginning / the end."""
    return plan.time_of(start), plan.time_of(end, end=True)


def default_workers(n_frames: int) -> int:
    """Parallel render workers: one per two cores (each worker's renderer and its x264 fill two: on this
    2-core machine two workers measured slower than one, bench/bench_video.py), and only for renders
    long enough to pay for starting a cluster."""
    import os
    return max(1, (os.cpu_count() or 2) // 2) if n_frames >= 300 else 1


# ---------------------------------------------------------------------------
# one frame

class FramePipeline:
    """Everything that turns a plan time into a finished frame: camera, renderer, labels, captions."""

    def __init__(self, plan, static_meshes, size, path, labels, glosses, aa, t0, t1, overlays: str = "full",
                 evidence: bool = False, supersample: int = SS):
        self.plan = plan
        self.overlays = overlays
        self.evidence = evidence
        self.size = size
        self.path = path
        self.labels = labels
        self.glosses = glosses or {}
        self.t0, self.t1 = t0, t1
        self.events = plan.events_by_start()
        self.sampler = PlanSampler(plan)
        self.layer = MovingLayer(self.sampler)
        if evidence:        # the things in the colour of their evidence (model/evidence.prop_evidence)
            self.layer.recolour_things(lambda ident: evidence_rgb(prop_evidence(
                plan.props[ident].kind if ident in plan.props else ident, plan.landmarks)))
        self.names = {aid: short_name(aid, a.label) for aid, a in plan.actors.items()}
        self.renderer = FrameRenderer(static_meshes, self.layer, size, aa=aa, ss=supersample)
        self.bands: dict = {}
        self.band_top = size[1] - int(size[1] * 0.2)
        self.last3d, self.last_key = None, None
        self.tags = TagChoice()
        self.clauses = ClauseTimeline(plan, self.glosses)
        colours = {aid: tuple(int(c * 255) for c in F.ROLE_STYLE[F.role_of(aid)]["robe"]) for aid in plan.actors}
        self.inset = InsetMap(plan, size, colours)

    def start_at(self, t: float) -> None:
        """Forget everything drawn so far and pose everyone at ``t`` (the time before the first frame
        to draw): what follows is drawn exactly as by a new pipeline."""
        self.layer.reset()
        self.renderer.reset()
        self.last3d, self.last_key = None, None
        self.tags = TagChoice()
        self.layer.update(t)

    def frame(self, t: float, t_next: float, rate: float = 1.0) -> np.ndarray:
        frame = self._picture(t, t_next).copy()
        if self.overlays == "clean":             # a clean master: no tag, caption, map or bar drawn over it
            return frame
        pose = self.path.at(t)
        acting = self._acting(t)
        shot_i = self.path.shot_index(t)
        kind = self.path.shots[shot_i].kind
        if kind.startswith("archery"):           # the one filmed, by name
            pool = [a for a in self.path.shots[shot_i].events if a in self.layer.heads]
        elif self.labels or kind == "plan":
            pool = None
        else:
            pool = acting
        self._draw_labels(frame, pose, pool, acting, shot_i)
        if kind in ("walk", "plan"):
            self.inset.draw(frame, self.layer.heads, set(acting))
        ev = self.plan.current_event(t, events=self.events)
        if ev is not None:
            cl = self.clauses.at(ev, t)                   # the clause being performed
            key = (ev.id, cl.index)
            if key not in self.bands:
                if len(self.bands) > 32:
                    self.bands.clear()
                self.bands[key] = C.CaptionBand.draw(self.size, cl.zh, cl.en, ev.footnote)
            self.bands[key].apply(frame)
            if self.evidence and ev.options:      # the act rests on an interpretive option: say which
                draw_option_tag(frame, option_words(ev.options, self.plan.layout.option_basis),
                                self.band_top - int(self.size[1] * 0.015))
        if self.evidence:
            draw_legend(frame)
        if self.overlays != "cut":                # a clip of a cut: the passage's timeline would mislead
            C.draw_timeline(frame, (t - self.t0) / max(1e-9, self.t1 - self.t0))
        if rate > 1.0:
            C.draw_fast_marker(frame, rate)
        return frame

    def _picture(self, t: float, t_next: float) -> np.ndarray:
        """The 3D picture at ``t``: the last one again when nothing visible moved, else drawn."""
        pose = self.path.at(t)
        moved = self.layer.update(t)
        key = pose.key()
        r = self.renderer
        if moved and self.last3d is not None and key == self.last_key:
            # movers off screen do not change the picture
            if not self.layer.screen_boxes(pose, self.size, moved):
                r.last_moved.update({k: t for k in moved})
                moved = set()
        if self.last3d is not None and not moved and key == self.last_key:
            r.stats["reused"] += 1
            return self.last3d
        img = r.composite(pose, moved, t) if self.path.at(t_next).key() == key else r.full(pose)
        self.last3d, self.last_key = img, key
        return img

    def _acting(self, t: float) -> list[str]:
        out = []
        for e in self.events:
            if e.start > t:
                break
            if t < e.end + 0.5:
                out += [a for a in e.actors if a in self.layer.heads]
        return list(dict.fromkeys(out))

    def _draw_labels(self, frame, pose, only, acting, shot_i) -> None:
        """Name tags, at most six in a shot and the same from frame to frame (:class:`.labels.TagChoice`)."""
        ids = [a for a in self.layer.heads if only is None or a in only]
        if not ids:
            return
        px, depth = project(pose, np.array([self.layer.heads[i] for i in ids]), self.size)
        w, h = self.size
        visible = {aid: float(depth[k]) for k, aid in enumerate(ids)
                   if not np.isnan(px[k, 0]) and depth[k] > 0 and 0 <= px[k, 0] < w and 0 <= px[k, 1] < self.band_top}
        chosen = self.tags.choose(shot_i, visible, set(acting))
        fs = max(9, int(round(h * (0.021 if only is None else 0.025))))
        anchors = []
        for k, aid in enumerate(ids):
            if aid in chosen:
                pri = 10.0 - chosen.index(aid)
                anchors.append((self.names.get(aid, aid), float(px[k, 0]), float(px[k, 1]), pri))
        place_labels(frame, anchors, fs, bottom=self.band_top)

    def close(self):
        self.renderer.close()


def pipeline_for(job: RenderJob) -> FramePipeline:
    return FramePipeline(job.plan, job.static_meshes, job.size, job.camera, job.labels, job.glosses, job.aa,
                         job.t0, job.t1, job.overlays, job.evidence, job.supersample)


# ---------------------------------------------------------------------------
# one chunk

def render_chunk(job: RenderJob, chunk: Chunk, pipe: FramePipeline | None, report=None) -> dict:
    """Render ``chunk`` into its segment in the job's store (written under a temporary name, renamed
    when complete).  ``pipe`` (for plan chunks) is reset first, so the chunk does not depend on what it
    drew before.  ``report(n)`` is called with the number of frames written since its last call.
    Returns the segment's SHA-256 and the renderer's pass counts."""
    import imageio.v2 as imageio
    tmp = partial_name(job.store, chunk)
    writer = SegmentWriter(tmp, job.size, job.fps, job.crf, job.preset, job.bitrate_kbps)
    before = dict(pipe.renderer.stats) if pipe is not None else {}
    pending, k = 0, chunk.frame0
    try:
        for frame in _chunk_frames(job, chunk, pipe):
            writer.write(frame)
            if job.frames_dir is not None:
                imageio.imwrite(Path(job.frames_dir) / f"frame_{k:06d}.png", frame)
            k += 1
            pending += 1
            if report is not None and pending >= 10:
                report(pending)
                pending = 0
        writer.close()
    except BaseException:
        writer.abort()
        raise
    finally:
        if report is not None and pending:
            report(pending)
    sha = file_sha256(tmp)
    tmp.replace(Path(job.store) / chunk.segment)
    stats = {k_: v - before.get(k_, 0) for k_, v in pipe.renderer.stats.items()} if pipe is not None else {}
    return {"index": chunk.index, "sha256": sha, "stats": stats}


def _chunk_frames(job: RenderJob, chunk: Chunk, pipe: FramePipeline | None):
    if chunk.kind in ("title", "end"):
        card = C.title_card(job.size, job.plan) if chunk.kind == "title" else C.end_card(job.size, job.plan, job.t0, job.t1)
        for _ in range(chunk.n):
            yield card
        return
    times, rates, dt = chunk.times, chunk.rates, job.speed / job.fps
    pipe.start_at(float(times[0]) - dt)            # the first frame's "moved" is then real
    for i, t in enumerate(times):
        t_next = float(times[i + 1]) if i + 1 < len(times) else float(t) + dt
        yield pipe.frame(float(t), t_next, float(rates[i]))


# ---------------------------------------------------------------------------
# the video

def render_video(plan: Plan, static_meshes, out_path, *, size=FRAME_SIZE, fps: int = FPS, crf: int = 18,
                 start=None, end=None, speed: float = 1.0, frames_dir=None, labels: bool = False,
                 progress: bool = True, text: str | dict[str, str] | None = None, glosses: dict | None = None,
                 cards: bool = True, preset: str = "veryfast", aa: bool = True,
                 camera: CameraPath | None = None, compress_holds: float | None = 6.0,
                 hold_speed: float = 8.0, workers: int | None = None, scheduler: str | None = None,
                 fresh: bool = False, chunk_seconds: float = CHUNK_SECONDS, sound: bool = True,
                 overlays: str = "full", bitrate_kbps: int | None = None, audio_kbps: int | None = None,
                 loudness: tuple[float, float] | None = None, evidence: bool = False,
                 supersample: int = SS) -> dict:
    """Render ``plan`` to ``out_path`` (mp4, H.264 yuv420p High, +faststart, chapters) plus WebVTT sidecars.

    ``static_meshes``: [(name, trimesh.Trimesh, rgb)] — the ground and architecture.
    ``start``/``end``: plan seconds (float), a footnote number (int) or an event id (str).
    ``speed``: plan seconds per video second.  ``frames_dir``: also write PNGs there.
    ``labels``: name tags over everyone's head in every shot (plan views always label everyone,
    other shots label whoever acts).  ``text``: the seed text, used for nothing but a check that
    event texts are its substrings when given.  ``glosses``: English gloss per event id (else
    ``event["gloss"]``).  ``cards``: title and end cards.  ``camera``: a shot plan to use instead
    of the passage's :func:`~reconstruct.scene.shots.camera_path`.  ``compress_holds``: holds in which nothing in the frame moves for
    longer than this many seconds play ``hold_speed`` times faster, marked "» 8×" (None: off).
    ``workers``: render processes (default :func:`default_workers`; more than one starts a local
    Dask cluster); ``scheduler``: the address of a running Dask scheduler to send the chunks to.
    Finished chunks are kept beside the video (:func:`.chunks.chunk_store`) and reused by a rerun
    with the same inputs; ``fresh`` deletes them first.  ``chunk_seconds``: video seconds per chunk.
    ``sound``: a soundtrack (the drum's beat while the round is shot to music, the strings and the hits,
    a quiet ambience; :mod:`.sound`) as AAC stereo.  ``overlays`` "clean": the picture without name tags,
    captions, inset map or timeline (a clean master).  ``bitrate_kbps``: constant bit rate video
    (:func:`.encode.encoder_args`); ``audio_kbps``: AAC-LC at that constant rate; ``loudness``:
    (integrated LUFS, true peak dBTP) the soundtrack is normalised to (two-pass ``loudnorm``).  ``evidence``: the
    evidence view (issue 32) — give it the ground of ``scene.ground.ground_meshes(…, evidence=True)``; the things are
    coloured by their evidence, the legend drawn, and an act resting on an interpretive option tagged with it.
    ``supersample``: the moving layer drawn at 2 (the default) or 1 times the frame size per axis; 1 is
    about a third faster at 1080p, with jagged edges on people and broken thin lines (bow strings):
    PSNR about 39–43 dB against 2 (:mod:`.frames`).
    The statistics' ``captions`` are the cues ``(start, end, zh, en, footnote, event id)`` in video seconds.

    Returns statistics (frames, seconds, passes, chunks).  The file appears only when complete.
    """
    from . import engine

    t_wall = time.perf_counter()
    size = _even_size(size)
    out_path = Path(out_path)
    out_path.parent.mkdir(parents=True, exist_ok=True)
    t0, t1 = resolve_range(plan, start, end)
    if text is not None:
        for e in plan.events:
            src = text if isinstance(text, str) else text.get(e.text_file or plan.text.get("file"), "")
            if src[e.span[0]:e.span[1]] != e.text:
                raise ValueError(f"event {e.id}: text does not match its span in the seed")
    store = chunk_store(out_path)
    if fresh and store.exists():
        shutil.rmtree(store)
    job = RenderJob(plan, list(static_meshes), (camera or camera_path(plan, size)).starting_at(t0), size, int(fps), int(crf), preset,
                    bool(labels), dict(glosses or {}), bool(aa), t0, t1, float(speed), store,
                    Path(frames_dir) if frames_dir is not None else None,
                    bitrate_kbps=int(bitrate_kbps) if bitrate_kbps else None, overlays=str(overlays),
                    evidence=bool(evidence), supersample=_supersample(supersample))
    chunks = plan_chunks(job, cards=cards, title_n=int(round(TITLE_S * fps)), end_n=int(round(END_S * fps)),
                         compress_holds=compress_holds, hold_speed=hold_speed, chunk_seconds=chunk_seconds)
    cards_img = {"title": C.title_card(size, plan), "end": C.end_card(size, plan, t0, t1)} if cards else {}
    settings = set_keys(job, chunks, cards_img, encoder_identity())
    job.id = settings
    if job.frames_dir is not None:
        job.frames_dir.mkdir(parents=True, exist_ok=True)
    manifest = Manifest(store)
    manifest.keep_only(chunks)
    todo = [c for c in chunks if not manifest.finished(c, job.frames_dir)]
    n_plan = sum(c.n for c in chunks if c.kind == "plan")
    n_work = max(1, int(workers)) if workers else default_workers(sum(c.n for c in todo))
    stats = {"frames": sum(c.n for c in chunks), "plan_start": t0, "plan_end": t1, "workers": n_work,
             "chunks": len(chunks), "chunks_rendered": len(todo), "chunks_reused": len(chunks) - len(todo)}
    engine.run(job, todo, workers=n_work, scheduler=scheduler, progress=progress, label=out_path.name,
               total_frames=stats["frames"], done_frames=stats["frames"] - sum(c.n for c in todo),
               on_done=lambda c, res: _finished(manifest, c, res, settings, stats))
    _join(chunks, store, out_path, plan, t0, t1, fps, speed, sound, audio_kbps, loudness)
    stats["captions"] = _write_sidecars(plan, chunks, out_path, t0, t1, fps, speed, glosses)
    stats["seconds"] = time.perf_counter() - t_wall
    stats["video_seconds"] = stats["frames"] / fps
    stats["compressed_frames"] = int(sum((c.rates > 1).sum() for c in chunks if c.kind == "plan"))
    stats["plan_frames"] = n_plan
    return stats


def _supersample(ss) -> int:
    if int(ss) not in (1, 2):
        raise ValueError(f"supersampling must be 1 or 2, got {ss}")
    return int(ss)


def _even_size(size) -> tuple[int, int]:
    w, h = (int(size[0]), int(size[1]))
    if w % 2 or h % 2:
        raise ValueError(f"frame size must be even for yuv420p, got {w}x{h}")
    return w, h


def _finished(manifest: Manifest, c: Chunk, res: dict, settings: str, stats: dict) -> None:
    manifest.record(c, res["sha256"], settings)
    for k, v in res.get("stats", {}).items():
        stats[k] = stats.get(k, 0) + v


def _join(chunks: list[Chunk], store: Path, out_path: Path, plan: Plan, t0: float, t1: float, fps: float,
          speed: float, sound: bool = True, audio_kbps: int | None = None,
          loudness: tuple[float, float] | None = None) -> None:
    """Join the segments (and the soundtrack, normalised to ``loudness`` when given) into a temporary file
    beside ``out_path``, then rename it."""
    tmp = out_path.with_name(f".{out_path.stem}.partial{out_path.suffix or '.mp4'}")
    wav = store / f".soundtrack.{os.getpid()}.wav"
    norm = store / f".soundtrack.{os.getpid()}.norm.wav"
    try:
        if sound:
            seconds = sum(c.n for c in chunks) / fps
            write_soundtrack(wav, seconds, cues_of(plan, _video_clock(chunks, fps, speed), t0, t1))
            if loudness is not None:
                normalise_loudness(wav, norm, *loudness)
                norm.replace(wav)
        join_segments([store / c.segment for c in chunks], tmp, chapters=chapter_marks(plan, chunks, t0, t1, fps, speed),
                      title=C.video_title(plan), audio=wav if sound else None, audio_kbps=audio_kbps)
        tmp.replace(out_path)
    finally:
        tmp.unlink(missing_ok=True)
        wav.unlink(missing_ok=True)
        norm.unlink(missing_ok=True)


def _video_clock(chunks: list[Chunk], fps: float, speed: float):
    """Plan time → video seconds, through the hold compression's time map."""
    times = np.concatenate([c.times for c in chunks if c.kind == "plan"])
    first = next((c.frame0 for c in chunks if c.kind == "plan"), 0)
    vt = (first + np.arange(len(times))) / fps

    def to_video(pt: float) -> float:
        if pt >= times[-1]:
            return float(vt[-1] + (pt - times[-1]) / speed)
        return float(np.interp(pt, times, vt))

    return to_video


def chapter_marks(plan: Plan, chunks: list[Chunk], t0: float, t1: float, fps: float, speed: float) -> list:
    """A chapter per paragraph of the text (footnote) the excerpt shows, and in the first half of the chapter
    (no footnotes) one per section (an event that begins one carries its title: ``section``); an excerpt that
    starts inside a section opens with it."""
    to_video = _video_clock(chunks, fps, speed)
    out: list[list] = []
    section = None                       # (title,) of the section the events before the excerpt are in
    for e in plan.events_by_start():
        if e.section:
            section = e.section
        elif e.footnote is not None:     # the passage's paragraphs (the whole chapter's second half)
            section = None
        if e.footnote is None and not e.section and section is None:
            continue
        if e.end <= t0 or e.start >= t1:
            continue
        key = e.footnote if e.footnote is not None else ("section", section)
        title = f"({e.footnote}) {C.display_text(e.text)}" if e.footnote is not None else section
        a = 0.0 if not out else to_video(max(e.start, t0))
        if out and out[-1][2] == key:
            continue
        if out:
            out[-1][1] = a
        out.append([a, 0.0, key, title])
    total = sum(c.n for c in chunks) / fps
    if out:
        out[-1][1] = total
    return [(a, b, title) for a, b, _, title in out if b > a]


def _write_sidecars(plan: Plan, chunks: list[Chunk], out_path: Path, t0: float, t1: float, fps: float,
                    speed: float, glosses: dict | None) -> list[tuple[float, float, str, str, object, str]]:
    """The .zh.vtt and .en.vtt captions: cue times in video seconds.  Returns the cues
    ``(start, end, zh clause, en gloss, footnote, event id)``."""
    to_video = _video_clock(chunks, fps, speed)
    cues_zh, cues_en, cues = [], [], []
    timeline = ClauseTimeline(plan, glosses)
    for e in plan.events_by_start():
        if e.end <= t0 or e.start >= t1:
            continue
        for c in timeline.clauses(e):                  # a cue per clause, timed as the captions show them
            if c.t1 <= t0 or c.t0 >= t1:
                continue
            a, b = to_video(max(c.t0, t0)), to_video(min(c.t1, t1))
            cues_zh.append((a, b, C.display_text(c.zh) + (f" ({e.footnote})" if e.footnote else "")))
            if c.en:
                cues_en.append((a, b, c.en))
            cues.append((a, b, c.zh, c.en or "", e.footnote, e.id))
    C.write_vtt(out_path.with_suffix(".zh.vtt"), cues_zh)
    C.write_vtt(out_path.with_suffix(".en.vtt"), cues_en)
    return cues


def render_frames(plan: Plan, static_meshes, times, out_dir=None, *, size=FRAME_SIZE, labels: bool = False,
                  glosses: dict | None = None, aa: bool = True, camera: CameraPath | None = None,
                  start=None, end=None) -> list[np.ndarray]:
    """Single frames at the given plan ``times``, exactly as the video shows them (camera, labels,
    captions, timeline over ``start``–``end``), without encoding; written as PNG to ``out_dir``
    when given (``frame_<plan seconds>.png``).  For contact sheets and checks."""
    import imageio.v2 as imageio
    size = (int(size[0]), int(size[1]))
    t0, t1 = resolve_range(plan, start, end)
    pipe = FramePipeline(plan, static_meshes, size, camera or camera_path(plan, size), labels, glosses, aa, t0, t1)
    out = []
    try:
        for t in times:
            t = float(t)
            pipe.start_at(t - 0.04)
            img = pipe.frame(t, t + 0.04)
            out.append(img)
            if out_dir is not None:
                Path(out_dir).mkdir(parents=True, exist_ok=True)
                imageio.imwrite(Path(out_dir) / f"frame_{t:08.2f}.png", img)
    finally:
        pipe.close()
    return out
