"""Keyframed tracks: a person's or prop's keys as one numpy structured array, interpolated for any times
at once (positions on straight lines, the heading the shorter way round, held at the ends), and values
that hold from one time to the next (states, carriers).

>>> tr = Track.from_rows([[0, 0, 0, 0, 350, "stand"], [2, 2, 0, 0, 10, "walk"]])
>>> xyz, heading = tr.at([-1.0, 1.0, 5.0])
>>> xyz[:, 0].tolist(), heading.round(6).tolist()
([0.0, 1.0, 2.0], [350.0, 0.0, 10.0])
"""
from __future__ import annotations

import bisect
from dataclasses import dataclass, field
from typing import Any, Iterable, Sequence

import numpy as np

from .vocabulary import Posture

KEY_DTYPE = np.dtype([("t", "f8"), ("x", "f8"), ("y", "f8"), ("z", "f8"), ("heading", "f8"), ("posture", "U12")])



@dataclass(eq=False)
class Track:
    """Keyframes of one person or prop: ``keys`` is a structured array (t, x, y, z, heading, posture),
    sorted by time."""

    keys: np.ndarray

    @classmethod
    def from_rows(cls, rows: Sequence[Sequence[Any]]) -> "Track":
        """From rows ``[t, x, y, z, heading, posture]``; a missing heading (null) keeps the one before
        (0 for the first key), a missing posture is ``stand``."""
        keys = np.zeros(len(rows), KEY_DTYPE)
        headings, last = [], 0.0
        for r in rows:
            last = r[4] if len(r) > 4 and r[4] is not None else last
            headings.append(last)
        # column by column (the same numbers as row by row, a list of them converted at once)
        for j, name in enumerate(("t", "x", "y", "z")):
            keys[name] = [r[j] for r in rows]
        keys["heading"] = headings
        keys["posture"] = [r[5] if len(r) > 5 else Posture.STAND for r in rows]
        return cls(keys)

    def rows(self) -> list[list]:
        """The keys as JSON rows ``[t, x, y, z, heading, posture]``."""
        k = self.keys
        return [list(r) for r in zip(k["t"].tolist(), k["x"].tolist(), k["y"].tolist(), k["z"].tolist(),
                                     k["heading"].tolist(), k["posture"].tolist())]

    def __len__(self) -> int:
        return len(self.keys)

    @property
    def t(self) -> np.ndarray:
        return self.keys["t"]

    @property
    def xyz(self) -> np.ndarray:
        """(n, 3) positions of the keys."""
        k = self.keys
        return np.stack([k["x"], k["y"], k["z"]], axis=1)

    @property
    def heading(self) -> np.ndarray:
        return self.keys["heading"]

    @property
    def posture(self) -> np.ndarray:
        return self.keys["posture"]

    @property
    def start(self) -> float:
        return float(self.keys["t"][0])

    @property
    def end(self) -> float:
        return float(self.keys["t"][-1])

    def segment(self, times) -> tuple[np.ndarray, np.ndarray]:
        """For each time, the key it follows (the last key at or before it, 0 before the first) and how
        far it is towards the next (0…1; 0 before the first key and from the last on)."""
        t = np.asarray(times, float)
        kt = self.keys["t"]
        i = np.clip(np.searchsorted(kt, t, side="right") - 1, 0, len(kt) - 1)
        j = np.minimum(i + 1, len(kt) - 1)
        span = kt[j] - kt[i]
        u = np.where(span > 0, (t - kt[i]) / np.where(span > 0, span, 1.0), 0.0)
        return i, np.clip(u, 0.0, 1.0)

    def at(self, times) -> tuple[np.ndarray, np.ndarray]:
        """Positions (…, 3) and headings (…) at the times (a number or an array)."""
        i, u = self.segment(times)
        j = np.minimum(i + 1, len(self.keys) - 1)
        k = self.keys
        xyz = np.stack([k[c][i] + (k[c][j] - k[c][i]) * u for c in ("x", "y", "z")], axis=-1)
        h0, h1 = k["heading"][i], k["heading"][j]
        heading = (h0 + ((h1 - h0 + 180.0) % 360.0 - 180.0) * u) % 360.0
        return xyz, heading

    def posture_at(self, times) -> np.ndarray:
        """The posture of the key each time follows (…)."""
        return self.keys["posture"][self.segment(times)[0]]

    def moving(self, tol: float = 1e-9) -> np.ndarray:
        """For each key but the last, whether the position changes before the next key (n-1,)."""
        xyz = self.xyz
        return np.linalg.norm(np.diff(xyz, axis=0), axis=1) > tol


@dataclass(eq=False)
class Steps:
    """Values that hold from one time to the next: ``[[t, value], …]`` sorted by t (an actor's
    ``states``, a prop's ``carrier``)."""

    times: list[float] = field(default_factory=list)
    values: list[Any] = field(default_factory=list)

    @classmethod
    def from_rows(cls, rows: Iterable[Sequence[Any]]) -> "Steps":
        rows = sorted(rows, key=lambda r: r[0])
        return cls([float(r[0]) for r in rows], [r[1] for r in rows])

    def rows(self) -> list[list]:
        return [[t, v] for t, v in zip(self.times, self.values)]

    def at(self, t: float, default: Any = None) -> Any:
        """The value set last at or before t (``default`` before the first)."""
        i = bisect.bisect_right(self.times, t) - 1
        return self.values[i] if i >= 0 else default

    def __len__(self) -> int:
        return len(self.times)
