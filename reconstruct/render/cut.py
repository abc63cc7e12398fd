"""Cuts: a film edited from the plan by a declared list of clips (``render.py video --cut gallery``).

A cut file (TOML; the shipped ones are in ``assets/cuts/``, ``gallery.toml`` documents the format) names
a title card, the length of the dissolves and its clips in order: where each starts in the plan (a
footnote number, an event id or plan seconds), how long it plays and how fast, and its chapter's title.

:func:`render_cut` renders each clip as a video of its own (:func:`.video.render_video`: its chunks are kept,
so a rerun renders only what changed), then joins them in one ffmpeg run: the title card, the clips with
``xfade`` dissolves (the sound with ``acrossfade``), and a last dissolve into the same title card, so that
the film's last frame is its first and a player looping it shows no seam.  Chapters mark the clips.  The
captions of the clips are returned in the film's time (for sidecars and the open-captioned master).
"""
from __future__ import annotations

import os
import subprocess
import tomllib
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from PIL import Image

from . import captions as C
from .encode import audio_args, encoder_args, ffmetadata, ffmpeg_exe, normalise_loudness
from .sound import write_soundtrack
from ..errors import InputError
from ..inputs import read_text
from ..model.defaults import FPS, FRAME_SIZE
from ..model.plan import Plan
from ..outputs import atomic_path
from ..resources import CUTS, logical_name

__all__ = ["Clip", "Cut", "load_cut", "cut_names", "render_cut", "clip_range", "first_and_last_frames"]


@dataclass(frozen=True)
class Clip:
    at: float | int | str           # plan seconds, a footnote number or an event id
    seconds: float                  # of the film
    speed: float = 1.0              # plan seconds per second of the film
    chapter: str = ""


@dataclass(frozen=True)
class Cut:
    name: str
    file: str
    title: str
    subtitle: str
    title_seconds: float
    dissolve: float
    clips: tuple[Clip, ...]


def cut_names() -> list[str]:
    """The shipped cuts."""
    return sorted(p.stem for p in CUTS.glob("*.toml"))


def load_cut(name_or_path: str | Path) -> Cut:
    """A shipped cut by name (``gallery``) or a cut file; one-line :class:`InputError` on anything wrong."""
    p = Path(name_or_path)
    if not p.suffix and (CUTS / f"{p.name}.toml").is_file() and not p.exists():
        p = CUTS / f"{p.name}.toml"
    shown = logical_name(p)
    try:
        data = tomllib.loads(read_text(p, shown, what="cut file"))
    except tomllib.TOMLDecodeError as e:
        raise InputError(shown, "", f"not TOML: {e}") from None

    def num(v, where, lo, hi):
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not (lo <= float(v) <= hi):
            raise InputError(shown, where, f"{v!r} is not a number from {lo:g} to {hi:g}")
        return float(v)

    def text(v, where):
        if not isinstance(v, str) or len(v) > 200:
            raise InputError(shown, where, "not a short text")
        return v

    known = {"title", "subtitle", "title_seconds", "dissolve", "clip"}
    for k in data:
        if k not in known:
            raise InputError(shown, k, f"unknown key; the keys are {', '.join(sorted(known))}")
    clips_raw = data.get("clip")
    if not isinstance(clips_raw, list) or not clips_raw or len(clips_raw) > 200:
        raise InputError(shown, "clip", "a cut needs [[clip]] entries (1 to 200)")
    dissolve = num(data.get("dissolve", 1.0), "dissolve", 0.0, 10.0)
    clips = []
    for i, c in enumerate(clips_raw):
        w = f"clip[{i}]"
        if not isinstance(c, dict):
            raise InputError(shown, w, "not a table")
        for k in c:
            if k not in ("at", "seconds", "speed", "chapter"):
                raise InputError(shown, f"{w}.{k}", "unknown key; a clip has at, seconds, speed, chapter")
        at = c.get("at")
        if isinstance(at, str) and at.endswith("s") and _is_number(at[:-1]):
            at = num(float(at[:-1]), f"{w}.at", 0.0, 1e6)
        elif isinstance(at, bool) or not isinstance(at, (int, str)):
            raise InputError(shown, f"{w}.at", f"{at!r}: a footnote number, an event id or plan seconds like \"120s\"")
        seconds = num(c.get("seconds"), f"{w}.seconds", max(0.2, 2 * dissolve + 0.04), 3600.0)
        clips.append(Clip(at, seconds, num(c.get("speed", 1.0), f"{w}.speed", 0.1, 50.0),
                          text(c.get("chapter", ""), f"{w}.chapter")))
    return Cut(p.stem, shown, text(data.get("title", "乡射礼"), "title"), text(data.get("subtitle", ""), "subtitle"),
               num(data.get("title_seconds", 5.0), "title_seconds", max(0.1, dissolve + 0.04), 60.0), dissolve,
               tuple(clips))


def _is_number(s: str) -> bool:
    try:
        float(s)
        return True
    except ValueError:
        return False


def clip_range(plan: Plan, clip: Clip, where: str = "") -> tuple[float, float]:
    """Plan seconds a clip covers (ValueError naming the clip if it is not in the plan)."""
    try:
        t0 = plan.time_of(clip.at)
    except ValueError as e:
        raise ValueError(f"{where}: {e}") from None
    if not 0.0 <= t0 < plan.duration:
        raise ValueError(f"{where}: starts at {t0:.2f} s, outside the plan (0–{plan.duration:.2f} s)")
    return t0, min(plan.duration, t0 + clip.seconds * clip.speed)


# ---------------------------------------------------------------------------
# the film

def render_cut(plan: Plan, static_meshes, out, cut: Cut, *, size=FRAME_SIZE, fps: int = FPS, crf: int = 18,
               preset: str = "veryfast", overlays: str = "cut", bitrate_kbps: int | None = None,
               audio_kbps: int | None = None, loudness: tuple[float, float] | None = None, progress: bool = True,
               workers: int | None = None, scheduler: str | None = None, fresh: bool = False,
               text: str | dict[str, str] | None = None, **_ignored) -> dict:
    """Render ``cut`` of ``plan`` to ``out`` (mp4 with chapters, and .zh.vtt/.en.vtt beside it).

    ``overlays``: "cut" (captions and name tags as in the video, no timeline), or "clean".  ``bitrate_kbps``,
    ``audio_kbps``, ``loudness``: as :func:`.video.render_video`.  Returns statistics with ``captions`` (the
    cues in the film's time), ``chapters`` and ``clips``."""
    from .video import render_video
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    w, h = int(size[0]), int(size[1])
    d = cut.dissolve
    ranges = [clip_range(plan, c, f"{cut.file}: clip[{i}]") for i, c in enumerate(cut.clips)]
    store = out.with_name(f".{out.stem}.cut")
    store.mkdir(parents=True, exist_ok=True)
    files, durations, cues_by_clip, frames = [], [], [], 0
    for i, (clip, (t0, t1)) in enumerate(zip(cut.clips, ranges)):
        f = store / f"clip{i:03d}.mp4"
        st = render_video(plan, static_meshes, f, size=(w, h), fps=fps, crf=min(crf, 14), preset=preset,
                          start=t0, end=t1, speed=clip.speed, cards=False, compress_holds=None, sound=True,
                          overlays=overlays, progress=progress, workers=workers, scheduler=scheduler, fresh=fresh,
                          text=text)
        files.append(f)
        durations.append(st["frames"] / fps)
        cues_by_clip.append(st["captions"])
        frames += st["frames"]
    card = store / "title.png"
    Image.fromarray(C.cut_card((w, h), plan, cut.title, cut.subtitle)).save(card)
    tail = d + 0.5                          # the dissolve into the card, then the card held (the loop's seam)
    parts = [cut.title_seconds] + durations + [tail]
    starts = [float(sum(parts[:k]) - k * d) for k in range(len(parts))]
    total = starts[-1] + parts[-1]
    chapters = [(0.0, starts[1] + d / 2, cut.title)]
    for k, clip in enumerate(cut.clips, start=1):
        chapters.append((starts[k] + d / 2, starts[k + 1] + d / 2 if k + 1 < len(parts) - 1 else total,
                         clip.chapter or f"clip {k}"))
    cues = []
    for k, cl in enumerate(cues_by_clip, start=1):
        for a, b, zh, en, fn, ev in cl:
            a2, b2 = max(starts[k], starts[k] + a), min(starts[k] + parts[k], starts[k] + b)
            if b2 > a2:
                cues.append((round(a2, 3), round(b2, 3), zh, en, fn, ev))
    cues.sort(key=lambda c: (c[0], c[1]))
    _join(files, card, cut, parts, starts, out, store, fps, crf, preset, bitrate_kbps, audio_kbps, loudness,
          chapters, (w, h))
    C.write_vtt(out.with_suffix(".zh.vtt"), [(c[0], c[1], C.display_text(c[2]) + (f" ({c[4]})" if c[4] else ""))
                                             for c in cues])
    C.write_vtt(out.with_suffix(".en.vtt"), [(c[0], c[1], c[3]) for c in cues if c[3]])
    return {"frames": int(round(total * fps)), "video_seconds": total, "clips": len(files), "clip_frames": frames,
            "captions": cues, "chapters": chapters, "plan_start": min(r[0] for r in ranges),
            "plan_end": max(r[1] for r in ranges)}


def _join(files, card, cut, parts, starts, out, store, fps, crf, preset, bitrate_kbps, audio_kbps, loudness,
          chapters, size) -> None:
    """One ffmpeg run: the card, the clips and the card again, dissolved into each other; then the sound
    (normalised when asked) and the chapters muxed in.  ``out`` appears only when complete."""
    d = cut.dissolve
    w, h = size
    inputs = ["-loop", "1", "-framerate", str(fps), "-t", f"{parts[0]:.6f}", "-i", str(card)]
    for f in files:
        inputs += ["-i", str(f)]
    inputs += ["-loop", "1", "-framerate", str(fps), "-t", f"{parts[-1]:.6f}", "-i", str(card)]
    n = len(parts)
    # under the cards the court's quiet air (the soundtrack's ambience), not digital silence
    amb = store / "ambience.wav"
    write_soundtrack(amb, max(parts[0], parts[-1]) + 0.1, [])
    inputs += ["-i", str(amb), "-i", str(amb)]
    g = []
    for k in range(n):
        g.append(f"[{k}:v]scale={w}:{h},fps={fps},format=yuv420p,setsar=1,settb=AVTB,"
                 f"trim=duration={parts[k]:.6f},setpts=PTS-STARTPTS[v{k}]")
        if 0 < k < n - 1:
            g.append(f"[{k}:a]aresample=48000,aformat=sample_fmts=fltp:channel_layouts=stereo,"
                     f"atrim=duration={parts[k]:.6f},asetpts=PTS-STARTPTS[a{k}]")
        else:
            src = n if k == 0 else n + 1
            g.append(f"[{src}:a]aresample=48000,aformat=sample_fmts=fltp:channel_layouts=stereo,"
                     f"atrim=duration={parts[k]:.6f},asetpts=PTS-STARTPTS[a{k}]")
    v, a = "v0", "a0"
    for k in range(1, n):
        if d > 0:
            g.append(f"[{v}][v{k}]xfade=transition=fade:duration={d:.6f}:offset={starts[k]:.6f}[x{k}]")
            g.append(f"[{a}][a{k}]acrossfade=d={d:.6f}:c1=tri:c2=tri[y{k}]")
        else:
            g.append(f"[{v}][v{k}]concat=n=2:v=1:a=0[x{k}]")
            g.append(f"[{a}][a{k}]concat=n=2:v=0:a=1[y{k}]")
        v, a = f"x{k}", f"y{k}"
    pid = os.getpid()
    video = store / f".film.{pid}.mp4"
    wav = store / f".film.{pid}.wav"
    norm = store / f".film.{pid}.norm.wav"
    meta = store / f".film.{pid}.chapters.txt"
    try:
        r = subprocess.run([ffmpeg_exe(), "-v", "error", "-y", *inputs, "-filter_complex", ";".join(g),
                            "-map", f"[{v}]", *encoder_args(fps, crf, preset, bitrate_kbps), "-an", str(video),
                            "-map", f"[{a}]", "-c:a", "pcm_s16le", "-ar", "48000", str(wav)],
                           capture_output=True, text=True, stdin=subprocess.DEVNULL)
        if r.returncode != 0:
            raise RuntimeError(f"joining the cut failed: {r.stderr.strip()[-600:]}")
        if loudness is not None:
            normalise_loudness(wav, norm, *loudness)
            norm.replace(wav)
        meta.write_text(ffmetadata(chapters, cut.title + (f" · {cut.subtitle}" if cut.subtitle else "")),
                        encoding="utf-8")
        with atomic_path(out, suffix=".mp4") as tmp:
            r = subprocess.run([ffmpeg_exe(), "-v", "error", "-y", "-i", str(video), "-i", str(wav), "-f", "ffmetadata",
                                "-i", str(meta), "-map", "0:v", "-map", "1:a", "-map_metadata", "2", "-map_chapters", "2",
                                "-c:v", "copy", *audio_args(audio_kbps), "-t", f"{starts[-1] + parts[-1]:.6f}",
                                "-movflags", "+faststart",
                                "-f", "mp4", str(tmp)], capture_output=True, text=True, stdin=subprocess.DEVNULL)
            if r.returncode != 0:
                raise RuntimeError(f"muxing the cut failed: {r.stderr.strip()[-600:]}")
    finally:
        for f in (video, wav, norm, meta):
            f.unlink(missing_ok=True)


def first_and_last_frames(path, size) -> tuple[np.ndarray, np.ndarray]:
    """The film's first and last frames (RGB), to see that it loops without a seam."""
    w, h = size
    n = w * h * 3

    def grab(*args) -> np.ndarray:
        r = subprocess.run([ffmpeg_exe(), "-v", "error", *args, "-f", "rawvideo", "-pix_fmt", "rgb24", "-"],
                           capture_output=True, stdin=subprocess.DEVNULL)
        if len(r.stdout) < n:
            raise RuntimeError(f"no frame read from {path}")
        k = len(r.stdout) // n
        return np.frombuffer(r.stdout[(k - 1) * n: k * n], np.uint8).reshape(h, w, 3)

    return grab("-i", str(path), "-frames:v", "1"), grab("-sseof", "-0.5", "-i", str(path))
