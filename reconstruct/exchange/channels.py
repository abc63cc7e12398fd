"""Animation channels: the frames (figures' z-up → glTF Y-up), rotations as quaternions (scipy's
:class:`~scipy.spatial.transform.Rotation`), key pruning, the writer of samplers and channels, and
the reading back of channels from a GLB (for tests and for the web page's compression).

Quaternions are glTF's (x, y, z, w), which is scipy's default (scalar-last) order.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pygltflib as g
from scipy.spatial.transform import Rotation, Slerp

from .frames import Y_UP, from_yup
from .gltf import GltfBuilder

__all__ = ["ANIMATION_NAME", "MIN_DT", "Y_UP", "from_yup", "quats_of", "heading_quat", "hemisphere", "prune_keys",
           "strictly_increasing", "AnimWriter", "clip_window", "Compaction", "reduce_keys", "read_channels", "sample_channel", "accessor_array"]

ANIMATION_NAME = "ceremony"
MIN_DT = 0.004          # s: the closest two keys may be (float32 at 6000 s resolves 0.5 ms)

def quats_of(R: np.ndarray) -> np.ndarray:
    """Unit quaternions xyzw (w ≥ 0) of rotation matrices ((3, 3) or (n, 3, 3))."""
    q = Rotation.from_matrix(np.asarray(R, float)).as_quat()
    return np.where(q[..., 3:4] < 0, -q, q)


def heading_quat(heading_deg) -> np.ndarray:
    """Quaternions (…, 4) xyzw of compass headings: a turn of −heading about glTF's +Y (up)."""
    h = np.asarray(heading_deg, float)
    q = Rotation.from_rotvec(np.multiply.outer(-np.radians(h.reshape(-1)), [0.0, 1.0, 0.0])).as_quat()
    return q.reshape(*h.shape, 4)


def hemisphere(q: np.ndarray) -> np.ndarray:
    """Flip quaternions so that each is in the hemisphere of the one before it."""
    q = np.array(q, float)
    if len(q) < 2:
        return q
    flip = np.r_[False, np.sum(q[1:] * q[:-1], axis=1) < 0]
    sign = np.where(np.logical_xor.accumulate(flip), -1.0, 1.0)
    return q * sign[:, None]


def prune_keys(t: np.ndarray, v: np.ndarray, step: bool = False, tol: float = 1e-6) -> np.ndarray:
    """Indices of the keys worth writing: for LINEAR, drop a key equal to both neighbours; for STEP,
    drop a key equal to the one before.  The first key is always kept (and the last for LINEAR)."""
    n = len(t)
    if n <= 2:
        return np.arange(n)
    same_prev = np.r_[False, np.all(np.abs(np.diff(v, axis=0)) <= tol, axis=1)]
    if step:
        return np.flatnonzero(~same_prev)
    same_next = np.r_[same_prev[1:], False]
    keep = ~(same_prev & same_next)
    keep[0] = keep[-1] = True
    return np.flatnonzero(keep)


def strictly_increasing(t) -> np.ndarray:
    """Times nudged by :data:`MIN_DT` where two keys share a time (a jump becomes a very short move)."""
    t = np.array(t, float)
    for i in range(1, len(t)):
        if t[i] < t[i - 1] + MIN_DT:
            t[i] = t[i - 1] + MIN_DT
    return t


@dataclass(frozen=True)
class Compaction:
    """How far a compact animation may stray from the exact one: keys that LINEAR interpolation
    reproduces within ``translation_m`` (metres; scales likewise) or ``rotation_rad`` are dropped;
    rotations are written as normalized int16 (core glTF; 1/32767 per component)."""
    translation_m: float = 5e-4
    rotation_rad: float = 1e-3
    int16_rotations: bool = True


class AnimWriter:
    """Collects the samplers and channels of the one animation; inputs and outputs are shared when
    equal.  With a :class:`Compaction`, keys are reduced and rotations quantised; ``raw_bytes``
    counts what the exact float32 channels would have taken, ``bytes`` what is written."""

    def __init__(self, b: GltfBuilder, compaction: Compaction | None = None, *, name: str = ANIMATION_NAME,
                 extras: dict | None = None, window: tuple[float, float] | None = None):
        self.b = b
        self.compaction = compaction
        self.name = name
        self.extras = extras
        self.window = window              # (t0, t1): only keys within, the values at t0 and t1 sampled
        self.raw_seen: set[bytes] = set()
        self.raw_bytes = 0
        self.bytes = 0
        self.samplers: list[g.AnimationSampler] = []
        self.channels: list[g.AnimationChannel] = []
        self.inputs: dict[bytes, int] = {}
        self.outputs: dict[bytes, int] = {}
        self.targets: set[int] = set()
        self.keys = 0

    def _input(self, t: np.ndarray) -> int:
        t32 = np.asarray(t, np.float32)
        k = t32.tobytes()
        if k not in self.inputs:
            self.inputs[k] = self.b.accessor(t32, kind="SCALAR", target=None, minmax=True)
            self.bytes += t32.nbytes
        return self.inputs[k]

    def _output(self, v: np.ndarray, kind: str) -> int:
        quantise = kind == "VEC4" and self.compaction is not None and self.compaction.int16_rotations
        data = np.round(np.clip(v, -1.0, 1.0) * 32767).astype(np.int16) if quantise else v.astype(np.float32)
        k = kind.encode() + data.tobytes()
        if k not in self.outputs:
            self.outputs[k] = self.b.accessor(data, kind=kind, target=None, normalized=quantise)
            self.bytes += data.nbytes
        return self.outputs[k]

    def _count_raw(self, t: np.ndarray, v: np.ndarray) -> None:
        for data in (np.asarray(t, np.float32), np.asarray(v, np.float32)):
            k = data.tobytes()
            if k not in self.raw_seen:
                self.raw_seen.add(k)
                self.raw_bytes += data.nbytes

    def channel(self, node: int, path: str, t, v, *, step: bool = False, prune: bool = True) -> bool:
        """Add a channel (pruned of keys that change nothing); False when it would be constant."""
        t = np.asarray(t, float)
        v = np.asarray(v, float)
        if path == "rotation":
            v = hemisphere(v)
        if self.window is not None:
            t, v = clip_window(t, v, *self.window, step=step)
        if prune and np.all(np.abs(v - v[0]) <= 1e-6):
            return False                  # constant: the node's own TRS says it
        idx = prune_keys(t, v, step=step) if prune else np.arange(len(t))
        self._count_raw(t[idx], v[idx])
        c = self.compaction
        if c is not None and prune and not step and len(idx) > 2:
            rot = path == "rotation"
            idx = idx[reduce_keys(t[idx], v[idx], c.rotation_rad if rot else c.translation_m, rotation=rot)]
        kind = "VEC4" if path == "rotation" else "VEC3"
        s = g.AnimationSampler(input=self._input(t[idx]), output=self._output(v[idx], kind),
                               interpolation="STEP" if step else "LINEAR")
        self.samplers.append(s)
        self.channels.append(g.AnimationChannel(sampler=len(self.samplers) - 1,
                                                target=g.AnimationChannelTarget(node=node, path=path)))
        self.targets.add(node)
        self.keys += len(idx)
        return True

    def finish(self) -> None:
        if self.channels:
            anim = g.Animation(name=self.name, samplers=self.samplers, channels=self.channels)
            if self.extras:
                anim.extras = self.extras
            self.b.gltf.animations.append(anim)


def clip_window(t: np.ndarray, v: np.ndarray, t0: float, t1: float, step: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """The keys of a channel within (t0, t1) and its values at t0 and t1 (as a glTF player samples
    it: lerp, slerp for quaternions, or STEP): an excerpt of the channel."""
    inside = (t > t0 + MIN_DT / 2) & (t < t1 - MIN_DT / 2)
    a, b = sample_channel(t, v, t0, step=step), sample_channel(t, v, t1, step=step)
    tt = np.r_[t0, t[inside], t1]
    vv = np.vstack([a[None], v[inside], b[None]])
    if v.shape[1] == 4:
        vv = hemisphere(vv)
    return tt, vv


# ---------------------------------------------------------------------------
# reading back

_NCOMP = {"SCALAR": 1, "VEC2": 2, "VEC3": 3, "VEC4": 4, "MAT4": 16}
_DTYPE = {5120: np.int8, 5121: np.uint8, 5122: np.int16, 5123: np.uint16, 5125: np.uint32, 5126: np.float32}


def _blob(gltf: g.GLTF2) -> bytes:
    blob = gltf.binary_blob()
    if blob is None:                      # .gltf with an embedded data URI
        import base64
        blob = base64.b64decode(gltf.buffers[0].uri.split(",", 1)[1])
    return blob


def accessor_array(gltf: g.GLTF2, i: int, blob: bytes | None = None) -> np.ndarray:
    """An accessor's values as floats ((count,) or (count, n)); normalized integers are mapped to
    [−1, 1] (signed) or [0, 1] (unsigned) as glTF says; a byteStride is honoured."""
    blob = _blob(gltf) if blob is None else blob
    acc = gltf.accessors[i]
    view = gltf.bufferViews[acc.bufferView]
    n, dt = _NCOMP[acc.type], np.dtype(_DTYPE[acc.componentType])
    off = (view.byteOffset or 0) + (acc.byteOffset or 0)
    stride = view.byteStride or n * dt.itemsize
    raw = np.frombuffer(blob, np.uint8, count=(acc.count - 1) * stride + n * dt.itemsize, offset=off)
    rows = np.lib.stride_tricks.as_strided(raw, (acc.count, n * dt.itemsize), (stride, 1))
    a = np.ascontiguousarray(rows).view(dt).reshape(acc.count, n).astype(float)
    if acc.normalized:
        info = np.iinfo(dt)
        a = np.maximum(a / info.max, -1.0)
    return a if n > 1 else a[:, 0]


def read_channels(gltf: g.GLTF2) -> dict[tuple[str, str], tuple[np.ndarray, np.ndarray, str]]:
    """Every channel of a loaded GLTF2 (e.g. ``pygltflib.GLTF2().load(path)``) as
    ``{(node name, path): (times, values, interpolation)}`` read back from its binary buffer."""
    blob = _blob(gltf)
    out = {}
    for anim in gltf.animations:
        for ch in anim.channels:
            smp = anim.samplers[ch.sampler]
            out[(gltf.nodes[ch.target.node].name, ch.target.path)] = (
                accessor_array(gltf, smp.input, blob), accessor_array(gltf, smp.output, blob), smp.interpolation)
    return out


def sample_channel(times, values, t: float, step: bool = False) -> np.ndarray:
    """The value of a glTF channel at ``t`` (LINEAR: lerp, slerp for quaternions; STEP)."""
    times = np.asarray(times, float)
    values = np.asarray(values, float)
    if t <= times[0]:
        return values[0]
    if t >= times[-1]:
        return values[-1]
    i = int(np.searchsorted(times, t, side="right")) - 1
    if step:
        return values[i]
    a, b = values[i], values[i + 1]
    if values.shape[1] == 4:             # glTF LINEAR rotation is a spherical interpolation (slerp)
        q = Slerp(times[i:i + 2], Rotation.from_quat([a, b]))([t]).as_quat()[0]
        return q if np.dot(q, a) >= 0 else -q
    u = (t - times[i]) / (times[i + 1] - times[i])
    return a * (1 - u) + b * u


# ---------------------------------------------------------------------------
# key reduction

def _interpolate(t: np.ndarray, v: np.ndarray, i: np.ndarray, j: np.ndarray, at: np.ndarray,
                 rotation: bool) -> np.ndarray:
    """Values at the times t[at], interpolated between the keys i and j (arrays of indices):
    slerp (scipy) for rotations, else lerp."""
    u = (t[at] - t[i]) / (t[j] - t[i])
    if rotation:
        a = Rotation.from_quat(v[i])
        rel = (a.inv() * Rotation.from_quat(v[j])).as_rotvec()
        return (a * Rotation.from_rotvec(rel * u[:, None])).as_quat()
    return v[i] + (v[j] - v[i]) * u[:, None]


def _deviation(want: np.ndarray, got: np.ndarray, rotation: bool) -> np.ndarray:
    if rotation:                              # the angle between the rotations, radians
        d = np.abs(np.sum(want * got, axis=1)) / (np.linalg.norm(want, axis=1) * np.linalg.norm(got, axis=1))
        return 2.0 * np.arccos(np.clip(d, 0.0, 1.0))
    return np.linalg.norm(want - got, axis=1)


def reduce_keys(t, v, tol: float, rotation: bool = False) -> np.ndarray:
    """Indices of the fewest keys (Douglas–Peucker over time) whose LINEAR interpolation (slerp for
    rotations) stays within ``tol`` of every original key: metres for translations and scales,
    radians for rotations.  The first and last keys are always kept.  Vectorised: every pass splits
    all the spans that stray at once, at their worst key."""
    t, v = np.asarray(t, float), np.asarray(v, float)
    n = len(t)
    keep = np.zeros(n, bool)
    keep[[0, n - 1]] = True
    if n > 2:                        # a key its two neighbours cannot stand in for is kept from the start
        mid = np.arange(1, n - 1)
        keep[mid] = _deviation(v[mid], _interpolate(t, v, mid - 1, mid + 1, mid, rotation), rotation) > tol
    while not keep.all():
        kept = np.flatnonzero(keep)
        at = np.flatnonzero(~keep)
        span = np.searchsorted(kept, at) - 1                 # the kept keys at and after each dropped one
        i, j = kept[span], kept[span + 1]
        dev = _deviation(v[at], _interpolate(t, v, i, j, at, rotation), rotation)
        stray = dev > tol
        if not stray.any():
            break
        order = np.lexsort((-dev[stray], span[stray]))        # by span, worst first
        first = np.r_[True, np.diff(span[stray][order]) != 0]
        keep[at[stray][order][first]] = True
    return np.flatnonzero(keep)
