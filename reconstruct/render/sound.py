"""The soundtrack: the drum's 节 of the 驺虞 while the round is shot to music and of the 陔 as the guest leaves,
the 瑟 and 笙 of the 無筭樂 and of the first half's 合樂 (the six songs of the 周南 and 召南), the string at each loose,
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

__all__ = ["RATE", "Cue", "cues_of", "songs_of", "write_soundtrack", "drum", "pluck", "thud", "se_low", "se_high", "sheng"]

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


def _ks(freq: float, seconds: float, decay: float, seed: int) -> np.ndarray:
    """A plucked string (Karplus–Strong) of ``freq`` Hz ringing for ``seconds``, dying away over ``decay`` s."""
    n = int(seconds * RATE)
    p = int(RATE / freq)
    rng = np.random.default_rng(seed)
    buf = rng.uniform(-1, 1, p)
    out = np.zeros(n, np.float32)
    for i in range(n):
        out[i] = buf[i % p]
        buf[i % p] = 0.996 * 0.5 * (buf[i % p] + buf[(i + 1) % p])
    return out * np.exp(-np.arange(n) / RATE / decay).astype(np.float32) * 0.5


@lru_cache(maxsize=None)
def se_low() -> np.ndarray:
    """The 瑟 (a long zither of many strings): a low open string, 147 Hz."""
    return _ks(147.0, 2.4, 0.9, 21)


@lru_cache(maxsize=None)
def se_high() -> np.ndarray:
    """The 瑟: the string a fifth above, 220 Hz."""
    return _ks(220.0, 2.4, 0.8, 22)


@lru_cache(maxsize=None)
def sheng() -> np.ndarray:
    """The 笙 (mouth organ of reeds): a sustained reedy fifth, 4.5 s with soft ends, so that cues every 4 s
    join into one held sound."""
    n = int(4.5 * RATE)
    t = np.arange(n) / RATE
    tone = sum(a * np.sin(2 * np.pi * f * k * t) for f in (294.0, 441.0) for k, a in ((1, 0.5), (2, 0.25), (3, 0.12)))
    env = np.minimum(1.0, np.minimum(t / 0.5, (4.5 - t) / 0.5))
    return (tone * env * 0.18).astype(np.float32)


_SOUNDS = {"drum": drum, "loose": pluck, "hit": thud, "se_low": se_low, "se_high": se_high, "sheng": sheng}

# The music without a drum (無筭樂: 鄭 合鄉樂無次數 — the 周南 and 召南 sung to the 瑟 with the 笙; and the first
# half's 合樂, 乃合樂周南關雎葛覃卷耳召南鵲巢采蘩采蘋: 工 singing to the 瑟, the 笙 below) is heard as its
# instruments, not as a tune: no melody of the 鄉樂 survives, so none is invented.  CHOSEN: the 瑟 sounds two
# open strings a fifth apart by turns, one every 2.5 s, over the 笙 holding the same fifth (the kind of sound
# only: plucked strings and a reed drone; no voice is synthesised for the singers).  A piece that names its
# songs (合樂：周南關雎、葛覃 …) is heard as that many equal parts, each ending in SONG_GAP s of silence
# (CHOSEN: the songs sung one after another, 鄭 on 合樂: 合樂謂歌樂與衆聲俱作; their lengths are not known).
SE_EVERY = 2.5
SHENG_EVERY = 4.0
SONG_GAP = 2.0


def songs_of(piece: str) -> list[str]:
    """The songs a piece names after its title (合樂：周南關雎、葛覃、卷耳；召南鵲巢 … → six), or the piece."""
    head, sep, rest = piece.partition("：")
    names = [x.strip() for x in rest.replace("；", "、").split("、") if x.strip()] if sep else []
    return names if len(names) > 1 else [piece]


def _strings_and_reeds(pc, t0: float, t1: float, to_video) -> list[Cue]:
    """The 瑟 and the 笙 through a piece without a drum, song by song (:func:`songs_of`)."""
    out = []
    songs = songs_of(pc.piece)
    part = (pc.end - pc.start) / len(songs)
    for j in range(len(songs)):
        s0 = pc.start + j * part
        s1 = pc.end if len(songs) == 1 else s0 + max(0.0, part - SONG_GAP)
        a, b = max(t0, s0), min(t1, s1)
        k0 = int(np.ceil((a - s0) / SE_EVERY))
        for k in range(k0, int((b - s0) // SE_EVERY) + 1):
            out.append(Cue(to_video(s0 + k * SE_EVERY), "se_low" if k % 2 == 0 else "se_high", 0.5, -0.3))
        k0 = int(np.ceil((a - s0) / SHENG_EVERY))
        # the 笙's held sound (4.5 s) is not begun less than its length before a song's end
        last = b if len(songs) == 1 else min(b, s1 - 4.5)
        for k in range(k0, int((last - s0) // SHENG_EVERY) + 1):
            out.append(Cue(to_video(s0 + k * SHENG_EVERY), "sheng", 0.5, 0.3))
    return out


def cues_of(plan, to_video, t0: float, t1: float) -> list[Cue]:
    """The cues of an excerpt [t0, t1] of a plan, on the video clock ``to_video`` (plan s → video s)."""
    out = []
    for b in (plan.music.beats if plan.music else ()):
        if t0 <= b <= t1:
            out.append(Cue(to_video(b), "drum", 0.55, -0.15))
    for pc in getattr(plan, "pieces", ()):
        if "驺虞" in pc.piece:
            continue                        # its drum is the round's music, above
        for b in pc.beats:                  # the 陔: 大夫士鼓而已 (鄭) — the drum alone
            if t0 <= b <= t1:
                out.append(Cue(to_video(b), "drum", 0.45, -0.2))
        if not pc.beats:                    # the 瑟 and the 笙 (無筭樂, 合樂)
            out += _strings_and_reeds(pc, t0, t1, to_video)
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
