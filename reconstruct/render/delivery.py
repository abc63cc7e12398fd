"""Delivery to a museum: the masters, the caption files and a report of what was measured on them.

``render.py video --deliver museum`` writes, beside ``--out NAME.mp4``:

* ``NAME.clean.mp4`` — the clean master: the picture without any text over it (no captions, name tags,
  map or timeline; the title and end cards are cards), 1920×1080, 25 fps (or 50), H.264 High at a
  constant 15 Mb/s (x264 CBR: VBV maxrate = bufsize = the rate, HRD signalled), AAC-LC 48 kHz stereo at
  a constant 192 kb/s, the soundtrack normalised to −23 LUFS with its true peak under −1 dBTP (ffmpeg's
  two-pass ``loudnorm``, aiming at −2 dBTP so that the AAC encoder's overshoot stays under the limit);
* ``NAME.open.mp4`` — the open-captioned master: the clean picture with the captions burned in (each
  clause in Chinese and its English gloss, the footnote tab), every letter inside the 90 % title-safe
  area, the same audio and chapters;
* ``NAME.zh.srt``, ``NAME.en.srt``, ``NAME.zh.vtt``, ``NAME.en.vtt`` — closed captions for the clean master;
* ``NAME.delivery.json`` and ``NAME.delivery.html`` — the report: each figure of the spec, as measured
  on the files written (ffmpeg's own meters: the container and stream headers, every packet's size for
  the bit rates, ``ebur128`` for loudness and true peak), the captions' contrast ratio measured on
  decoded frames of the open master (WCAG 2.x: relative luminance of the letters against the lightest of
  the picture next to them), the captions' place in the frame, and the flashes per second (WCAG: pairs of
  opposing changes of 10 % of relative luminance, on each sixteenth of the frame); ``pass`` for each.

The spec is :data:`MUSEUM`; the report's ``ok`` is true when every figure is within it.
"""
from __future__ import annotations

import html
import json
import re
import subprocess
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

from . import captions as C
from .encode import encoder_args, ffmpeg_exe, vbv_kbit
from ..outputs import atomic_path

__all__ = ["Delivery", "MUSEUM", "DELIVERIES", "deliver", "probe", "loudness", "packet_rates", "caption_contrast",
           "shown_cue", "descriptions", "transcript",
           "flashes_per_second", "burn_captions", "write_report", "package_paths"]


@dataclass(frozen=True)
class Delivery:
    """What a delivery asks for."""
    name: str
    size: tuple[int, int]
    fps: tuple[int, ...]               # the frame rates allowed (the first is the default)
    video_kbps: int                    # constant
    audio_kbps: int                    # constant, AAC-LC
    audio_rate: int
    lufs: float                        # integrated loudness, EBU R128
    lufs_tolerance: float
    true_peak: float                   # dBTP, at most
    aim_true_peak: float               # what loudnorm aims at (a margin for the AAC encoder's overshoot)
    contrast: float                    # WCAG 2.x, at least (AA for normal text)
    flashes: float                     # per second, at most (WCAG 2.3.1)
    title_safe: float                  # of each edge, kept clear of text
    player_kbps: int = 25000           # the most a player takes in any second (BrightSign: 25 Mb/s)
    rate_tolerance: float = 0.05       # of the mean bit rate


MUSEUM = Delivery("museum", (1920, 1080), (25, 50), 15000, 192, 48000, -23.0, 0.5, -1.0, -2.0, 4.5, 3.0,
                  C.TITLE_SAFE)
DELIVERIES = {"museum": MUSEUM}


def package_paths(out) -> dict[str, Path]:
    """The files of a delivery named after ``out`` (its suffix dropped)."""
    out = Path(out)
    stem = out.name[: -len(out.suffix)] if out.suffix else out.name
    d = out.parent
    return {"clean": d / f"{stem}.clean.mp4", "open": d / f"{stem}.open.mp4",
            "zh.srt": d / f"{stem}.zh.srt", "en.srt": d / f"{stem}.en.srt",
            "zh.vtt": d / f"{stem}.zh.vtt", "en.vtt": d / f"{stem}.en.vtt",
            "descriptions": d / f"{stem}.descriptions.vtt", "transcript": d / f"{stem}.transcript.txt",
            "json": d / f"{stem}.delivery.json", "html": d / f"{stem}.delivery.html"}


# ---------------------------------------------------------------------------
# the package

def deliver(plan, static_meshes, out, spec: Delivery = MUSEUM, *, fps: int | None = None, cut=None,
            **render_options) -> dict:
    """Render the clean master, the caption files and the open-captioned master of ``plan`` (or of the
    excerpt ``start``/``end`` in ``render_options``, or of the ``cut``: :mod:`.cut`), measure them, write
    the report; returns it."""
    from .video import render_video
    if cut is not None:
        from functools import partial

        from .cut import render_cut
        render_video = partial(render_cut, cut=cut)           # noqa: F811 — the cut's film instead
    fps = int(fps or spec.fps[0])
    if fps not in spec.fps:
        raise ValueError(f"the {spec.name} delivery plays at {' or '.join(map(str, spec.fps))} fps, not {fps}")
    paths = package_paths(out)
    paths["clean"].parent.mkdir(parents=True, exist_ok=True)
    for k in ("size", "overlays", "bitrate_kbps", "audio_kbps", "loudness", "sound", "labels"):
        render_options.pop(k, None)
    stats = render_video(plan, static_meshes, paths["clean"], size=spec.size, fps=fps, overlays="clean",
                         bitrate_kbps=spec.video_kbps, audio_kbps=spec.audio_kbps,
                         loudness=(spec.lufs, spec.aim_true_peak), sound=True, **render_options)
    for lang in ("zh", "en"):                       # the sidecars render_video wrote, under the package's names
        paths["clean"].with_suffix(f".{lang}.vtt").unlink(missing_ok=True)
    raw = stats.pop("captions")
    seen, cues = set(), []
    for c in raw:                                     # one cue per clause shown (events may share one)
        if tuple(c[:5]) not in seen:
            seen.add(tuple(c[:5]))
            cues.append(tuple(c))
    zh = [(c[0], c[1], C.display_text(c[2]) + (f" ({c[4]})" if c[4] else "")) for c in cues]
    en = [(c[0], c[1], c[3]) for c in cues if c[3]]
    for lang, cs in (("zh", zh), ("en", en)):
        with atomic_path(paths[f"{lang}.srt"]) as tmp:
            C.write_srt(tmp, cs)
        with atomic_path(paths[f"{lang}.vtt"]) as tmp:
            C.write_vtt(tmp, cs)
    desc = descriptions(plan, raw)
    with atomic_path(paths["descriptions"]) as tmp:
        C.write_vtt(tmp, desc)
    with atomic_path(paths["transcript"]) as tmp:
        tmp.write_text(transcript(plan, cues, desc), encoding="utf-8")
    burn_captions(paths["clean"], paths["open"], cues, spec.size, fps, spec.video_kbps)
    report = measure(paths, cues, spec, fps, loop=cut is not None)
    if cut is not None:
        report["cut"] = {"name": cut.name, "file": cut.file, "clips": len(cut.clips), "chapters": stats.get("chapters")}
    report["render"] = {k: v for k, v in stats.items() if isinstance(v, (int, float, str))}
    write_report(report, paths)
    return report


def burn_captions(src, dst, cues, size, fps: int, video_kbps: int) -> None:
    """``dst``: the frames of ``src`` with each cue's caption band (title-safe) blended over them, encoded as
    ``src`` was (constant rate), its audio, chapters and title copied."""
    w, h = size
    dec = subprocess.Popen([ffmpeg_exe(), "-v", "error", "-i", str(src), "-f", "rawvideo", "-pix_fmt", "rgb24", "-"],
                           stdout=subprocess.PIPE, stdin=subprocess.DEVNULL, stderr=subprocess.PIPE)
    dst = Path(dst)
    with atomic_path(dst, suffix=".mp4") as tmp:
        enc = subprocess.Popen([ffmpeg_exe(), "-v", "error", "-y", "-f", "rawvideo", "-pix_fmt", "rgb24", "-s", f"{w}x{h}",
                                "-r", str(fps), "-i", "-", "-i", str(src), "-map", "0:v", "-map", "1:a?",
                                "-map_metadata", "1", "-map_chapters", "1", "-c:a", "copy",
                                *encoder_args(fps, 18, "veryfast", video_kbps), "-f", "mp4", str(tmp)],
                               stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        bands: dict[int, C.CaptionBand] = {}
        starts = np.array([c[0] for c in cues]) if cues else np.zeros(0)
        n = w * h * 3
        i = 0
        try:
            while True:
                buf = dec.stdout.read(n)
                if len(buf) < n:
                    break
                frame = np.frombuffer(buf, np.uint8).reshape(h, w, 3).copy()
                k = shown_cue(cues, i / fps, starts)
                if k is not None:
                    if k not in bands:
                        if len(bands) > 16:
                            bands.clear()
                        _, _, zh, en, fn = cues[k][:5]
                        bands[k] = C.CaptionBand.draw(size, zh, en or None, fn, safe=True)
                    bands[k].apply(frame)
                enc.stdin.write(frame.data)
                i += 1
        finally:
            enc.stdin.close()
            rc_e, rc_d = enc.wait(), dec.wait()
        if rc_d != 0 or rc_e != 0:
            raise RuntimeError(f"burning the captions failed: {(enc.stderr.read() or dec.stderr.read()).decode()[-400:]}")
        enc.stderr.close()
        dec.stderr.close()
        dec.stdout.close()


def shown_cue(cues, t: float, starts=None) -> int | None:
    """The index of the cue the open master shows at ``t``: the last one begun, while it lasts."""
    starts = np.array([c[0] for c in cues]) if starts is None else starts
    k = int(np.searchsorted(starts, t, side="right")) - 1
    return k if 0 <= k < len(cues) and cues[k][0] <= t < cues[k][1] else None


def descriptions(plan, cues) -> list[tuple[float, float, str]]:
    """A WebVTT ``descriptions`` track for audio description: for each event shown, from the plan, what is
    done (its gloss), by whom (the people's names) and where (the landmark nearest the first of them)."""
    from .labels import short_name
    from .still import GLOSS
    spans: dict[str, list[float]] = {}
    for c in cues:
        a, b, ev = c[0], c[1], c[5]
        s = spans.setdefault(ev, [a, b])
        s[0], s[1] = min(s[0], a), max(s[1], b)
    lms = {k: np.asarray(v.position if hasattr(v, "position") else v["position"], float)[:2]
           for k, v in plan.landmarks.items() if k in GLOSS}
    out = []
    for ev, (a, b) in sorted(spans.items(), key=lambda kv: kv[1][0]):
        e = plan.event(ev)
        if e is None:
            continue
        who = [short_name(x, plan.actors[x].label).split(" ", 1)[-1] for x in e.actors if x in plan.actors][:4]
        what = (e.gloss if getattr(e, "gloss", None) else "") or C.display_text(e.text)
        where = ""
        if e.actors and e.actors[0] in plan.actors and lms:
            ids, pos = plan.positions([e.end], [e.actors[0]])
            p = pos[0, 0, :2]
            near = min(lms, key=lambda k: float(np.hypot(*(lms[k] - p))))
            where = f" Near the {GLOSS[near]}."
        text = (", ".join(who) + ": " if who else "") + what.rstrip(".") + "." + where
        out.append((a, b, text))
    return out


def transcript(plan, cues, desc) -> str:
    """A text transcript: the title, then each caption (time, Chinese, English) and each description."""
    lines = [C.video_title(plan), "Transcript: the captions (the text performed, its English gloss) and the "
             "descriptions of what is done, by whom, where.", ""]
    rows = [(c[0], f"{C.display_text(c[2])} ({c[4]})" if c[4] else C.display_text(c[2])) for c in cues]
    rows += [(c[0], c[3]) for c in cues if c[3]]
    rows += [(a, f"[{t}]") for a, _, t in desc]
    for t, text in sorted(rows, key=lambda r: r[0]):
        lines.append(f"{int(t // 60):02d}:{t % 60:05.2f}  {text}")
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------------------
# measuring (ffmpeg's meters)

def _ffmpeg(*args, text: bool = True) -> subprocess.CompletedProcess:
    return subprocess.run([ffmpeg_exe(), "-hide_banner", "-nostats", *args], capture_output=True, text=text,
                          stdin=subprocess.DEVNULL)


def probe(path) -> dict:
    """What ffmpeg reads in the file's headers: duration, the video and audio streams."""
    err = _ffmpeg("-i", str(path)).stderr
    out: dict = {}
    m = re.search(r"Duration: (\d+):(\d+):(\d+(?:\.\d+)?)", err)
    if m:
        out["duration_s"] = int(m[1]) * 3600 + int(m[2]) * 60 + float(m[3])
    v = re.search(r"Stream #\d+:\d+[^:]*: Video: (\w+)(?: \(([^)]*)\))?.*?, (\w+)(\([^)]*\))?, (\d+)x(\d+).*?"
                  r"(\d+(?:\.\d+)?) fps", err)
    if v:
        out["video"] = {"codec": v[1], "profile": v[2] or "", "pix_fmt": v[3],
                        "scan": "interlaced" if v[4] and ("tb" in v[4] or "bt" in v[4] or "tt" in v[4] or "bb" in v[4])
                        else "progressive", "width": int(v[5]), "height": int(v[6]), "fps": float(v[7])}
    a = re.search(r"Stream #\d+:\d+[^:]*: Audio: (\w+)(?: \(([^)]*)\))?[^,]*, (\d+) Hz, ([\w.]+)", err)
    if a:
        out["audio"] = {"codec": a[1], "profile": a[2] or "", "sample_rate": int(a[3]), "layout": a[4]}
    out["chapters"] = len(re.findall(r"Chapter #", err))
    return out


def packet_rates(path, stream: str, rate_kbps: float | None = None) -> dict:
    """The bit rate of a stream (``"v"`` or ``"a"``) from the size of every packet (ffmpeg's framecrc):
    over the whole stream and over each whole second (min and max); with ``rate_kbps``, how far the bits
    sent so far ever stray from that constant rate (``hrd_kbit``: the most, in kbit, either way; a
    constant-rate stream stays within its VBV buffer)."""
    out = _ffmpeg("-i", str(path), "-map", f"0:{stream}:0", "-c", "copy", "-f", "framecrc", "-").stdout
    tb = re.search(r"#tb \d+: (\d+)/(\d+)", out)
    if not tb:
        return {}
    unit = int(tb[1]) / int(tb[2])
    rows = [r.split(",") for r in out.splitlines() if r and not r.startswith("#")]
    t = np.array([int(r[2]) for r in rows], float) * unit
    size = np.array([int(r[4]) for r in rows], float)
    dur = np.array([int(r[3]) for r in rows], float) * unit
    span = float(t.max() + dur[np.argmax(t)] - t.min()) if len(t) else 0.0
    res = {"kbps": round(float(size.sum()) * 8 / span / 1000, 1) if span > 0 else 0.0, "packets": len(rows),
           "seconds": round(span, 3)}
    if rate_kbps and len(t):
        order = np.argsort(t)
        ends = t[order] + dur[order] - t.min()
        sent = np.cumsum(size[order]) * 8 / 1000
        res["hrd_kbit"] = round(float(np.max(np.abs(sent - rate_kbps * ends))), 1)
    whole = int(span)
    if whole >= 1:
        sec = np.floor(t - t.min()).astype(int)
        per = np.bincount(sec[sec < whole], weights=size[sec < whole], minlength=whole) * 8 / 1000
        res.update(kbps_min_1s=round(float(per.min()), 1), kbps_max_1s=round(float(per.max()), 1))
    return res


def loudness(path) -> dict:
    """Integrated loudness (LUFS), loudness range (LU) and true peak (dBTP) of the file's audio, by
    ffmpeg's ``ebur128`` filter (peak=true: 4× oversampled)."""
    err = _ffmpeg("-i", str(path), "-map", "0:a:0", "-af", "ebur128=peak=true", "-f", "null", "-").stderr
    tail = err[err.rfind("Summary:"):]
    i = re.search(r"I:\s+(-?[\d.]+|-inf) LUFS", tail)
    lra = re.search(r"LRA:\s+(-?[\d.]+) LU", tail)
    tp = re.search(r"True peak:\s+Peak:\s+(-?[\d.]+|-inf) dBFS", tail)
    f = lambda m: float(m[1]) if m and m[1] != "-inf" else float("-inf")  # noqa: E731
    return {"integrated_lufs": f(i), "lra_lu": f(lra), "true_peak_dbtp": f(tp)}


def _frame_at(path, t: float, size) -> np.ndarray:
    w, h = size
    r = _ffmpeg("-ss", f"{t:.3f}", "-i", str(path), "-frames:v", "1", "-f", "rawvideo", "-pix_fmt", "rgb24", "-",
                text=False)
    return np.frombuffer(r.stdout[: w * h * 3], np.uint8).reshape(h, w, 3)


def _luminance(rgb: np.ndarray) -> np.ndarray:
    """WCAG relative luminance of sRGB values 0–255."""
    c = rgb.astype(float) / 255.0
    c = np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)
    return c @ np.array([0.2126, 0.7152, 0.0722])


def caption_contrast(open_master, cues, size, samples: int = 6) -> dict:
    """Each sampled caption's contrast ratio measured on the decoded frame of the open master: the
    letters (the band's opaque pixels, eroded by a pixel) against the picture round them (a ring 3–8 px
    from the letters, outside their shadow), (L_letters + 0.05) / (L_background + 0.05) with the median of
    the letters and the 95th percentile (the lightest) of the background; and whether every letter lies
    inside the title-safe area."""
    from scipy import ndimage
    w, h = size
    picks = []                            # times spread over the captioned stretches, with the cue shown then
    for k in np.linspace(0, len(cues) - 1, min(samples, len(cues))).astype(int) if cues else []:
        a, b = cues[k][0], cues[k][1]
        t = (a + b) / 2
        shown = shown_cue(cues, t)
        if shown is not None and (t, shown) not in [(p[0], p[1]) for p in picks]:
            picks.append((t, shown))
    out, inside = [], True
    for t, k in picks:
        a, b, zh, en, fn = cues[k][:5]
        band = C.CaptionBand.draw(size, zh, en or None, fn, safe=True)
        alpha = 255 - band.inv[..., 0].astype(int)
        letters = alpha >= 250
        full = np.zeros((h, w), bool)
        full[band.y0:band.y0 + letters.shape[0]] = letters
        ys, xs = np.nonzero(full)
        if len(xs):
            inside &= bool(xs.min() >= C.TITLE_SAFE * w and xs.max() < (1 - C.TITLE_SAFE) * w
                           and ys.min() >= C.TITLE_SAFE * h and ys.max() < (1 - C.TITLE_SAFE) * h)
        frame = _frame_at(open_master, t, size)
        core = ndimage.binary_erosion(full, iterations=1)
        near = ndimage.binary_dilation(full, iterations=8) & ~ndimage.binary_dilation(full, iterations=3)
        if not core.any() or not near.any():
            continue
        lum = _luminance(frame)
        lt, lb = float(np.median(lum[core])), float(np.percentile(lum[near], 95))
        hi, lo = max(lt, lb), min(lt, lb)
        out.append({"t": round(t, 3), "text": C.display_text(zh)[:24],
                    "ratio": round((hi + 0.05) / (lo + 0.05), 2)})
    ratios = [o["ratio"] for o in out]
    return {"min_ratio": min(ratios) if ratios else None, "samples": out, "title_safe": inside}


def flashes_per_second(path, fps: float) -> dict:
    """The most flashes in any one second (WCAG 2.3.1's general flash: a pair of opposing changes of at
    least 0.1 in relative luminance with the darker under 0.8), on each of 4×4 areas of the frame
    decoded small."""
    w, h = 64, 36
    r = _ffmpeg("-i", str(path), "-vf", f"scale={w}:{h}", "-f", "rawvideo", "-pix_fmt", "rgb24", "-", text=False)
    n = len(r.stdout) // (w * h * 3)
    if n < 2:
        return {"max_per_second": 0.0}
    lum = _luminance(np.frombuffer(r.stdout[: n * w * h * 3], np.uint8).reshape(n, h, w, 3))
    areas = lum.reshape(n, 4, h // 4, 4, w // 4).mean(axis=(2, 4)).reshape(n, 16)
    worst = 0.0
    win = max(1, int(round(fps)))
    for k in range(16):
        events = _transitions(areas[:, k])
        if len(events) >= 2:
            ev = np.array(events)
            counts = [int(np.sum((ev >= i) & (ev < i + win))) for i in range(0, n, max(1, win // 5))]
            worst = max(worst, max(counts) / 2.0)       # a flash is a pair of opposing transitions
    return {"max_per_second": worst, "frames": n}


def _transitions(s: np.ndarray, step: float = 0.1, dark: float = 0.8) -> list[int]:
    """Frames at which the luminance ``s`` has moved ``step`` from its last extreme the other way (the
    darker of the two under ``dark``)."""
    events, ext, way = [], float(s[0]), 0
    for i in range(1, len(s)):
        v = float(s[i])
        if (way == 1 and v > ext) or (way == -1 and v < ext):
            ext = v                                   # still going the same way: a new extreme
        elif way != 1 and v - ext >= step and min(v, ext) < dark:
            events.append(i)
            ext, way = v, 1
        elif way != -1 and ext - v >= step and min(v, ext) < dark:
            events.append(i)
            ext, way = v, -1
    return events


def measure(paths: dict, cues, spec: Delivery, fps: int, loop: bool = False) -> dict:
    """The report: each figure measured on the files and checked against ``spec`` (``loop``: and that the
    film's last frame is its first)."""
    rep: dict = {"format": "xiangshe-delivery/1", "delivery": spec.name, "spec": asdict(spec),
                 "files": {k: p.name for k, p in paths.items() if k not in ("json", "html")}, "masters": {}}
    checks: list[dict] = []

    def check(name, value, ok, want):
        checks.append({"what": name, "measured": value, "spec": want, "pass": bool(ok)})

    for key in ("clean", "open"):
        p = paths[key]
        info = probe(p)
        v, a = info.get("video", {}), info.get("audio", {})
        vr, ar = packet_rates(p, "v", spec.video_kbps), packet_rates(p, "a")
        loud = loudness(p)
        rep["masters"][key] = {"file": p.name, "bytes": p.stat().st_size, **info, "video_rate": vr,
                               "audio_rate": ar, "loudness": loud}
        tol = spec.rate_tolerance
        check(f"{key}: resolution", f"{v.get('width')}x{v.get('height')}",
              (v.get("width"), v.get("height")) == tuple(spec.size), "x".join(map(str, spec.size)))
        check(f"{key}: frame rate", v.get("fps"), v.get("fps") == fps, fps)
        check(f"{key}: H.264 High, progressive", f"{v.get('codec')} {v.get('profile')} {v.get('scan')}",
              v.get("codec") == "h264" and v.get("profile") == "High" and v.get("scan") == "progressive",
              "h264 High progressive")
        k = spec.video_kbps
        # constant in the HRD's terms: the bits sent never stray from the constant-rate line by more than
        # the VBV buffer (half a second at the rate), so no second carries more than the player takes; a
        # second may fall short where the encoder's buffer fills again after a key frame (at each segment's
        # start), so the mean is held to the rate over 10 s or more
        vbv = vbv_kbit(k)
        check(f"{key}: video bit rate (kb/s: mean, lowest and highest second; most kbit off the rate line)",
              [vr.get("kbps"), vr.get("kbps_min_1s"), vr.get("kbps_max_1s"), vr.get("hrd_kbit")],
              vr.get("hrd_kbit", 1e18) <= vbv * 1.02 and vr.get("kbps_max_1s", 0) <= spec.player_kbps
              and (vr.get("seconds", 0) < 10 or abs(vr.get("kbps", 0) - k) <= tol * k),
              f"{k} constant: within the buffer ({vbv} kbit) of the rate line, no second above {spec.player_kbps}"
              + f", the mean ± {tol:.0%} over 10 s or more")
        check(f"{key}: audio", f"{a.get('codec')} {a.get('profile')} {a.get('sample_rate')} Hz {a.get('layout')}",
              a.get("codec") == "aac" and a.get("profile") == "LC" and a.get("sample_rate") == spec.audio_rate
              and a.get("layout") == "stereo", f"aac LC {spec.audio_rate} Hz stereo")
        ka = spec.audio_kbps
        check(f"{key}: audio bit rate (kb/s)", ar.get("kbps"), abs(ar.get("kbps", 0) - ka) <= tol * ka,
              f"{ka} ± {tol:.0%}")
        check(f"{key}: integrated loudness (LUFS, ebur128)", loud["integrated_lufs"],
              abs(loud["integrated_lufs"] - spec.lufs) <= spec.lufs_tolerance, f"{spec.lufs} ± {spec.lufs_tolerance}")
        check(f"{key}: true peak (dBTP, ebur128)", loud["true_peak_dbtp"], loud["true_peak_dbtp"] <= spec.true_peak,
              f"≤ {spec.true_peak}")
    d_clean = rep["masters"]["clean"].get("duration_s")
    d_open = rep["masters"]["open"].get("duration_s")
    check("the two masters' durations (s)", [d_clean, d_open],
          d_clean is not None and d_open is not None and abs(d_clean - d_open) <= 1.5 / fps, "equal")
    cc = caption_contrast(paths["open"], cues, spec.size)
    rep["captions"] = {"cues": len(cues), "contrast": cc,
                       "files": [paths[k].name for k in ("zh.srt", "en.srt", "zh.vtt", "en.vtt", "descriptions",
                                                         "transcript")]}
    check("caption contrast ratio (on frames, the lowest)", cc["min_ratio"],
          cc["min_ratio"] is None or cc["min_ratio"] >= spec.contrast, f"≥ {spec.contrast}")
    check("captions inside the title-safe area", cc["title_safe"], cc["title_safe"],
          f"{1 - 2 * spec.title_safe:.0%} of the frame")
    if loop:
        from .cut import first_and_last_frames
        first, last = first_and_last_frames(paths["clean"], spec.size)
        seam = round(float(np.abs(first.astype(int) - last.astype(int)).mean()), 2)
        check("loops without a seam (mean difference of the last frame from the first, of 255)", seam, seam <= 3.0,
              "≤ 3")
    fl = flashes_per_second(paths["open"], fps)
    rep["flashes"] = fl
    check("flashes in any second", fl["max_per_second"], fl["max_per_second"] <= spec.flashes, f"≤ {spec.flashes:g}")
    rep["checks"] = checks
    rep["ok"] = all(c["pass"] for c in checks)
    rep["duration_s"] = d_clean
    return rep


def write_report(report: dict, paths: dict) -> None:
    """The report as JSON and as a small page."""
    with atomic_path(paths["json"]) as tmp:
        tmp.write_text(json.dumps(report, ensure_ascii=False, indent=1, default=str) + "\n", encoding="utf-8")
    rows = "".join(
        f"<tr class={'ok' if c['pass'] else 'bad'}><td>{html.escape(c['what'])}</td>"
        f"<td>{html.escape(json.dumps(c['measured'], ensure_ascii=False))}</td><td>{html.escape(str(c['spec']))}</td>"
        f"<td>{'✓' if c['pass'] else '✗'}</td></tr>" for c in report["checks"])
    files = "".join(f"<li>{html.escape(str(f))}</li>" for f in report["files"].values())
    cc = report["captions"]["contrast"]["samples"]
    samples = "".join(f"<li>{s['t']} s · {html.escape(s['text'])} · {s['ratio']}:1</li>" for s in cc)
    page = f"""<!doctype html><html lang="en"><meta charset="utf-8"><title>Delivery report · {html.escape(report['delivery'])}</title>
<style>body{{font:16px/1.5 system-ui,sans-serif;max-width:60em;margin:2em auto;padding:0 1em;color:#1d1a17}}
table{{border-collapse:collapse;width:100%}}td,th{{border-bottom:1px solid #ccc;padding:.35em .5em;text-align:left}}
tr.bad td{{background:#fde8e4}}tr.ok td:last-child{{color:#216e2c}}tr.bad td:last-child{{color:#a3221a}}</style>
<h1>鄉射禮 · {html.escape(report['delivery'])} delivery: {'all within the spec' if report['ok'] else 'NOT within the spec'}</h1>
<p>Measured on the files written, by ffmpeg's meters (headers, every packet's size, <code>ebur128</code>), the captions'
contrast on decoded frames of the open-captioned master. Duration {report.get('duration_s')} s.</p>
<table><tr><th>what</th><th>measured</th><th>spec</th><th></th></tr>{rows}</table>
<h2>Files</h2><ul>{files}</ul><h2>Caption contrast, per sampled caption</h2><ul>{samples}</ul></html>
"""
    with atomic_path(paths["html"]) as tmp:
        tmp.write_text(page, encoding="utf-8")
