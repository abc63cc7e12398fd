"""H.264 segments through ffmpeg, and joining them without re-encoding.

Every segment is encoded with the same settings (libx264, yuv420p, High profile, a fixed
number of encoder threads so the bitstream does not depend on the machine), so each starts with
its own key frame and segments can be joined by ffmpeg's concat demuxer with ``-c copy``; the
join adds chapters and ``+faststart``.  Paths may hold spaces, quotes or any Unicode: the concat
list quotes them as the demuxer's syntax asks, and ffmpeg is run without a shell.
"""
from __future__ import annotations

import hashlib
import shutil
import subprocess
from fractions import Fraction
from pathlib import Path

import numpy as np

__all__ = ["SegmentWriter", "join_segments", "encoder_args", "audio_args", "normalise_loudness", "vbv_kbit",
           "encoder_identity",
           "ffmpeg_exe", "file_sha256",
           "concat_list", "ffmetadata"]

X264_THREADS = 4        # fixed, so the same frames give the same bitstream on any machine


def ffmpeg_exe() -> str:
    import imageio_ffmpeg
    return imageio_ffmpeg.get_ffmpeg_exe()


def encoder_args(fps: float, crf: int, preset: str, bitrate_kbps: int | None = None) -> list[str]:
    """The output options of every segment: constant quality (``crf``), or with ``bitrate_kbps`` a
    constant bit rate as players of a gallery ask for (x264's CBR: VBV maxrate = minrate = the rate, a
    half-second buffer, HRD signalled as CBR with filler; key frames every two seconds; High@4.1).  A
    second of the stream then carries at most 1.5 times the rate (15 Mb/s: 22.5, under a BrightSign's 25)."""
    if bitrate_kbps:
        k = int(bitrate_kbps)
        gop = max(1, int(round(2 * float(fps))))
        rate = ["-b:v", f"{k}k", "-minrate", f"{k}k", "-maxrate", f"{k}k", "-bufsize", f"{vbv_kbit(k)}k",
                "-x264-params", "nal-hrd=cbr:force-cfr=1", "-g", str(gop), "-keyint_min", str(gop),
                "-level:v", "4.1"]
    else:
        rate = ["-crf", str(int(crf))]
    return ["-vcodec", "libx264", "-pix_fmt", "yuv420p", "-threads", str(X264_THREADS), "-profile:v", "high",
            *rate, "-preset", preset,
            "-movflags", "+faststart"]


def vbv_kbit(bitrate_kbps: int) -> int:
    """The VBV buffer of a constant-rate encode: half a second at the rate."""
    return int(bitrate_kbps) // 2


def encoder_identity() -> str:
    """ffmpeg's version line (segments from another encoder are not joined with these)."""
    out = subprocess.run([ffmpeg_exe(), "-version"], capture_output=True, text=True, check=True).stdout
    return out.splitlines()[0] if out else "ffmpeg"


class SegmentWriter:
    """Frames (h, w, 3 uint8) piped to an ffmpeg process encoding one mp4 segment at ``path``.

    :meth:`close` finishes the file; :meth:`abort` kills the encoder and removes what it wrote.
    """

    def __init__(self, path, size, fps: float, crf: int, preset: str, bitrate_kbps: int | None = None):
        self.path = Path(path)
        w, h = (int(size[0]), int(size[1]))
        self.shape = (h, w, 3)
        cmd = [ffmpeg_exe(), "-y", "-v", "error", "-f", "rawvideo", "-vcodec", "rawvideo", "-s", f"{w}x{h}",
               "-pix_fmt", "rgb24", "-r", str(Fraction(fps).limit_denominator()), "-i", "-",
               *encoder_args(fps, crf, preset, bitrate_kbps), "-f", "mp4", str(self.path)]
        # its own process group: a Ctrl-C at the terminal reaches the renderer, which ends the encoder itself
        self.proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                     process_group=0)
        self.frames = 0

    def write(self, frame: np.ndarray) -> None:
        if frame.shape != self.shape or frame.dtype != np.uint8:
            raise ValueError(f"frame of shape {frame.shape} {frame.dtype}, expected {self.shape} uint8")
        try:
            self.proc.stdin.write(np.ascontiguousarray(frame).data)
        except BrokenPipeError:
            raise RuntimeError(f"ffmpeg stopped: {self._stderr()}") from None
        self.frames += 1

    def _stderr(self) -> str:
        try:
            return (self.proc.stderr.read() or b"").decode("utf-8", "replace").strip()[-500:]
        except Exception:                  # noqa: BLE001 — only for the message
            return ""

    def close(self) -> None:
        self.proc.stdin.close()
        rc = self.proc.wait()
        if rc != 0:
            err = self._stderr()
            self.path.unlink(missing_ok=True)
            raise RuntimeError(f"ffmpeg failed ({rc}) writing {self.path.name}: {err}")
        self.proc.stderr.close()

    def abort(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()
        for f in (self.proc.stdin, self.proc.stderr):
            try:
                f.close()
            except Exception:              # noqa: BLE001 — a broken pipe on the way out
                pass
        self.path.unlink(missing_ok=True)


def concat_list(paths) -> str:
    """The concat demuxer's list of ``paths`` (absolute; single quotes written as '\\'')."""
    lines = []
    for p in paths:
        s = str(Path(p).resolve())
        if "\n" in s or "\r" in s:
            raise ValueError(f"a path with a line break cannot be joined: {s!r}")
        lines.append("file '" + s.replace("'", "'\\''") + "'\n")
    return "".join(lines)


def _meta_escape(s: str) -> str:
    for c in ("\\", "=", ";", "#", "\n"):
        s = s.replace(c, "\\" + c)
    return s


def ffmetadata(chapters: list[tuple[float, float, str]], title: str = "") -> str:
    """An FFMETADATA1 text with a title and chapters ``(start s, end s, title)`` (millisecond timebase)."""
    out = [";FFMETADATA1\n"]
    if title:
        out.append(f"title={_meta_escape(title)}\n")
    for a, b, name in chapters:
        out.append(f"[CHAPTER]\nTIMEBASE=1/1000\nSTART={int(round(a * 1000))}\nEND={int(round(b * 1000))}\n"
                   f"title={_meta_escape(name)}\n")
    return "".join(out)


AUDIO_ARGS = ["-c:a", "aac", "-b:a", "160k", "-ac", "2", "-ar", "48000"]


def audio_args(bitrate_kbps: int | None = None) -> list[str]:
    """AAC stereo at 48 kHz: the default, or AAC-LC at a constant ``bitrate_kbps``."""
    if bitrate_kbps:
        return ["-c:a", "aac", "-profile:a", "aac_low", "-b:a", f"{int(bitrate_kbps)}k", "-ac", "2", "-ar", "48000"]
    return list(AUDIO_ARGS)


def join_segments(parts, out, *, chapters: list[tuple[float, float, str]] = (), title: str = "",
                  audio=None, audio_kbps: int | None = None) -> None:
    """Join mp4 segments (same encoder settings) into ``out`` without re-encoding, with chapters and
    +faststart, and ``audio`` (a WAV of the video's length) encoded as AAC stereo when given (at a
    constant ``audio_kbps`` when given).  ``out`` is written in place: give a temporary name and rename it
    when this returns."""
    out = Path(out)
    lst = out.with_name(out.name + ".concat.txt")
    meta = out.with_name(out.name + ".chapters.txt")
    lst.write_text(concat_list(parts), encoding="utf-8")
    meta.write_text(ffmetadata(list(chapters), title), encoding="utf-8")
    try:
        sound = ["-i", str(audio)] if audio is not None else []
        amap = ["-map", "2:a", *audio_args(audio_kbps)] if audio is not None else []
        subprocess.run([ffmpeg_exe(), "-v", "error", "-y", "-f", "concat", "-safe", "0", "-i", str(lst),
                        "-f", "ffmetadata", "-i", str(meta), *sound, "-map", "0:v", *amap,
                        "-map_metadata", "1", "-map_chapters", "1", "-c:v", "copy", "-movflags", "+faststart",
                        "-f", "mp4", str(out)],
                       check=True, stdin=subprocess.DEVNULL, capture_output=True)
    except subprocess.CalledProcessError as e:
        out.unlink(missing_ok=True)
        raise RuntimeError(f"joining the segments failed: {e.stderr.decode('utf-8', 'replace').strip()[-500:]}") from None
    finally:
        lst.unlink(missing_ok=True)
        meta.unlink(missing_ok=True)


def file_sha256(path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def _loudnorm_json(stderr: str) -> dict:
    """The JSON block ``loudnorm`` prints at the end of its run."""
    import json
    i = stderr.rfind("{")
    j = stderr.rfind("}")
    if i < 0 or j < i:
        raise RuntimeError(f"loudnorm printed no measurement: {stderr[-300:]}")
    return json.loads(stderr[i:j + 1])


def _measure_loudness(path) -> dict:
    """ffmpeg's ``ebur128`` meter on a file (the meter the delivery report uses): ``input_i`` (LUFS),
    ``input_tp`` (dBTP, 4× oversampled)."""
    import re
    r = subprocess.run([ffmpeg_exe(), "-hide_banner", "-nostats", "-i", str(path), "-map", "0:a:0", "-af",
                        "ebur128=peak=true", "-f", "null", "-"], capture_output=True, text=True,
                       stdin=subprocess.DEVNULL)
    tail = r.stderr[r.stderr.rfind("Summary:"):]
    i = re.search(r"I:\s+(-?[\d.]+|-inf) LUFS", tail)
    tp = re.search(r"True peak:\s+Peak:\s+(-?[\d.]+|-inf) dBFS", tail)
    if r.returncode != 0 or not i or not tp:
        raise RuntimeError(f"measuring the loudness failed: {r.stderr[-300:]}")
    f = lambda m: -70.0 if m[1] == "-inf" else float(m[1])  # noqa: E731 — silence: the gate's floor
    return {"input_i": f(i), "input_tp": f(tp)}


def normalise_loudness(src, dst, integrated: float, true_peak: float, lra: float = 20.0) -> dict:
    """EBU R128 normalisation of the WAV ``src`` into ``dst`` (48 kHz, 16 bit).

    ffmpeg's ``loudnorm`` in two passes (the first measures, the second applies the measurement, linear
    where it can); then the result is measured with ``ebur128`` (the meter the delivery report uses) and
    what is left off the target is trimmed by a gain, with a peak limiter (``alimiter``, 0.5 dB under
    ``true_peak``) where the gain would lift the true peak over it (at most six rounds, each from the
    loudnorm pass).  Returns the loudnorm report, the trims and the last measurement."""
    base = f"loudnorm=I={integrated:g}:TP={true_peak:g}:LRA={lra:g}"
    run = [ffmpeg_exe(), "-hide_banner", "-nostats", "-y", "-i", str(src)]
    first = subprocess.run([*run, "-af", base + ":print_format=json", "-f", "null", "-"], capture_output=True,
                           text=True, stdin=subprocess.DEVNULL)
    if first.returncode != 0:
        raise RuntimeError(f"loudnorm (measure) failed: {first.stderr[-300:]}")
    m1 = _loudnorm_json(first.stderr)
    second = (f"{base}:measured_I={m1['input_i']}:measured_TP={m1['input_tp']}:measured_LRA={m1['input_lra']}"
              f":measured_thresh={m1['input_thresh']}:offset={m1['target_offset']}:linear=true:print_format=json")
    mid = Path(dst).with_name(Path(dst).name + ".loudnorm.wav")
    limit = 10 ** ((true_peak - 0.5) / 20)
    trims: list[float] = []
    try:
        done = subprocess.run([*run, "-af", second, "-ar", "48000", "-c:a", "pcm_s16le", str(mid)],
                              capture_output=True, text=True, stdin=subprocess.DEVNULL)
        if done.returncode != 0:
            raise RuntimeError(f"loudnorm (apply) failed: {done.stderr[-300:]}")
        ln = _loudnorm_json(done.stderr)
        m = _measure_loudness(mid)
        tp0, trim = m["input_tp"], 0.0
        shutil.copyfile(mid, dst)
        for _ in range(6):
            miss = integrated - m["input_i"]
            if abs(miss) <= 0.1 and m["input_tp"] <= true_peak:
                break
            limited = tp0 + trim + miss > true_peak
            trim += miss * (1.6 if limited else 1.0)        # the limiter takes back part of each dB added
            trims.append(round(trim, 3))
            chain = f"volume={trim:.3f}dB" + (f",alimiter=limit={limit:.4f}:attack=1:release=60:level=false"
                                              if tp0 + trim > true_peak else "")
            r = subprocess.run([ffmpeg_exe(), "-hide_banner", "-nostats", "-y", "-i", str(mid), "-af", chain,
                                "-ar", "48000", "-c:a", "pcm_s16le", str(dst)], capture_output=True, text=True,
                               stdin=subprocess.DEVNULL)
            if r.returncode != 0:
                raise RuntimeError(f"trimming the loudness failed: {r.stderr[-300:]}")
            m = _measure_loudness(dst)
    except BaseException:
        Path(dst).unlink(missing_ok=True)
        raise
    finally:
        mid.unlink(missing_ok=True)
    return {"loudnorm": {k: ln.get(k) for k in ("normalization_type", "output_i", "output_tp")}, "trims_db": trims,
            "ebur128": m}
