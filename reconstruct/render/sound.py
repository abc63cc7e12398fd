"""The soundtrack: the drum's 节 of the 驺虞 while the round is shot to music, the string at each loose,
the arrow striking the 侯 at each hit, and a quiet ambience under everything; synthesised in numpy
(no samples fetched), stereo, written block by block so memory stays flat however long the video.

Sounds are placed on the video's own clock (plan time → video time through the hold compression, the
title card before it).  The drum (鼓) is a pitched membrane (a sine falling from 110 to 62 Hz with a
short noise attack, 0.9 s); the loose a plucked string (Karplus–Strong, 0.35 s); the hit a dull thud
on hide (0.25 s); the ambience brown noise, low-passed and slowly breathing, 40 dB under full scale.
Deterministic: every random part is seeded.
"""
from __future__ import annotations

import wave
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np

__all__ = ["RATE", "Cue", "cues_of", "write_soundtrack", "drum", "pluck", "thud"]

RATE = 48000
BLOCK_S = 10.0


@dataclass(frozen=True)
class Cue:
    """A sound at video second ``t``: its ``kind`` (drum | loose | hit), gain and stereo pan (-1 … 1)."""

    t: float
    kind: str
    gain: float = 1.0
    pan: float = 0.0


@lru_cache(maxsize=None)
def drum() -> np.ndarray:
    n = int(0.9 * RATE)
    t = np.arange(n) / RATE
    f = 62.0 + 48.0 * np.exp(-t / 0.05)
    phase = 2 * np.pi * np.cumsum(f) / RATE
    body = np.sin(phase) * np.exp(-t / 0.28)
    rng = np.random.default_rng(11)
    hit = rng.standard_normal(n) * np.exp(-t / 0.012) * 0.35
    return (0.8 * body + hit).astype(np.float32)


@lru_cache(maxsize=None)
def pluck() -> np.ndarray:
    """A bowstring's twang: Karplus–Strong at 110 Hz with a quick damping."""
    n = int(0.35 * RATE)
    p = int(RATE / 110)
    rng = np.random.default_rng(7)
    buf = rng.uniform(-1, 1, p)
    out = np.zeros(n, np.float32)
    for i in range(n):
        out[i] = buf[i % p]
        buf[i % p] = 0.985 * 0.5 * (buf[i % p] + buf[(i + 1) % p])
    return out * np.exp(-np.arange(n) / RATE / 0.12).astype(np.float32) * 0.6


@lru_cache(maxsize=None)
def thud() -> np.ndarray:
    n = int(0.25 * RATE)
    t = np.arange(n) / RATE
    rng = np.random.default_rng(5)
    noise = np.convolve(rng.standard_normal(n), np.ones(24) / 24, mode="same")
    return ((np.sin(2 * np.pi * 140 * t) * 0.6 + noise * 2.0) * np.exp(-t / 0.05)).astype(np.float32)


_SOUNDS = {"drum": drum, "loose": pluck, "hit": thud}


def cues_of(plan, to_video, t0: float, t1: float) -> list[Cue]:
    """The cues of an excerpt [t0, t1] of a plan, on the video clock ``to_video`` (plan s → video s)."""
    out = []
    for b in (plan.music.beats if plan.music else ()):
        if t0 <= b <= t1:
            out.append(Cue(to_video(b), "drum", 0.55, -0.15))
    for s in plan.shots:
        if t0 <= s.loose <= t1:
            out.append(Cue(to_video(s.loose), "loose", 0.45, 0.1))
        if s.hit and t0 <= s.land <= t1:
            out.append(Cue(to_video(s.land), "hit", 0.5, 0.0))
    return sorted(out, key=lambda c: c.t)


def _ambience(block: int, n: int) -> np.ndarray:
    """Quiet stereo ambience for one block (seeded by the block's index)."""
    rng = np.random.default_rng(1000 + block)
    w = rng.standard_normal((n + 1, 2)).astype(np.float32)
    brown = np.cumsum(w, axis=0)
    brown -= np.linspace(brown[0], brown[-1], n + 1)           # no drift, so blocks join without a step
    brown = brown[1:]
    k = 64
    lp = np.stack([np.convolve(brown[:, c], np.ones(k) / k, mode="same") for c in (0, 1)], axis=1)
    lp /= max(1e-9, float(np.abs(lp).max()))
    t = (block * BLOCK_S) + np.arange(n) / RATE
    breath = 0.7 + 0.3 * np.sin(2 * np.pi * t / 23.0)[:, None]
    return (lp * breath * 0.01).astype(np.float32)


def write_soundtrack(path: str | Path, seconds: float, cues: list[Cue]) -> Path:
    """A stereo 16-bit WAV of ``seconds`` with the cues over the ambience, written block by block."""
    path = Path(path)
    total = int(round(seconds * RATE))
    bn = int(BLOCK_S * RATE)
    with wave.open(str(path), "wb") as wf:
        wf.setnchannels(2)
        wf.setsampwidth(2)
        wf.setframerate(RATE)
        start, block = 0, 0
        while start < total:
            n = min(bn, total - start)
            buf = _ambience(block, n)
            for c in cues:
                snd = _SOUNDS[c.kind]()
                s0 = int(round(c.t * RATE))
                if s0 >= start + n or s0 + len(snd) <= start:
                    continue
                lo, hi = max(s0, start), min(s0 + len(snd), start + n)
                seg = snd[lo - s0:hi - s0] * c.gain
                buf[lo - start:hi - start, 0] += seg * (1 - c.pan) / 2 * 1.4
                buf[lo - start:hi - start, 1] += seg * (1 + c.pan) / 2 * 1.4
            wf.writeframes((np.clip(buf, -1, 1) * 32767).astype("<i2").tobytes())
            start += n
            block += 1
    return path
