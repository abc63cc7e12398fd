"""The whole ceremony as one animated glTF scene: the ground, every person and prop, one animation.

:func:`export_animated` turns a plan (``xiangshe-plan/1``, see docs/plan-format.md) into a GLB or
glTF.  It only converts: the ground comes from :func:`reconstruct.export.gltf_from_parts` (as the
static export writes it), the people from :mod:`reconstruct.figures` (the same parts and poses
the video draws, sampled with the video's :class:`reconstruct.video.PlanSampler`), the props from
:func:`reconstruct.figures.prop_mesh`.

Scene (glTF Y-up: a plan point (east, north, up) is written (east, up, −north); metres)::

    ground            the static ground (L_… nodes, as reconstruct.export writes them)
    people
      P_sishe         one node per actor (ASCII from pinyin, the Chinese id in extras),
        P_sishe_pelvis   the figure parts (figures.PARTS, parents as figures.PARENT)
        …
    props
      R_feng          one node per prop (the prop's mesh, shared by kind)
    camera            (optional) follows the video's shot plan

The animation (one, ``ceremony``, plan seconds from 0 to the plan's duration):

* person root: translation + rotation (about the vertical, from the heading), LINEAR, one key
  per plan key (exact duplicates dropped; a key at 0 and at the end so the clip spans the passage);
* figure parts: rotation (pelvis and skirt also translation, the skirt scale), LINEAR, sampled
  where the posture changes (a key at every change and across the short blend the video uses),
  through bows (phases of the gesture) and, while walking, at every quarter stride (the gait's
  extremes, about 3–4 keys/s);
* 袒 and 決遂: STEP scale channels (0 or 1) on ``l_upper_arm`` / ``l_upper_arm_bare`` /
  ``l_guard`` / ``r_ring``, keyed where the plan's ``states`` change;
* props: translation + rotation LINEAR from their plan keys (the plan keys a resting prop where it
  lies until just before it is picked up);
* quaternions are kept in one hemisphere along every channel; only keys where something changes
  are written; all accessors float32; meshes are shared (one mesh per part per role, one per prop
  kind); materials core PBR, matte.

Event markers are in the scene's ``extras`` (``events``: id, text, span, footnote, start, end,
actors), with the duration and the suggested fps.
"""
from __future__ import annotations

import math
import re
from pathlib import Path

import numpy as np
import pygltflib as g

from ..scene import figures as F
from ..exchange.gltf import ARRAY_BUFFER, ELEMENT_ARRAY_BUFFER, GltfBuilder, _write_gltf, gltf_from_parts, to_yup
from ..scene.ground import CHAR_PINYIN, build_ground
from ..outputs import atomic_path
from ..model.plan import Plan, Track
from ..model.reading import Reading
from ..scene.sampler import PlanSampler

__all__ = ["export_animated", "build_animated", "actor_node_name", "prop_node_name", "ascii_name",
           "sample_channel", "read_channels", "from_yup", "CARRY_DROP", "ANIMATION_NAME"]

ANIMATION_NAME = "ceremony"
MIN_DT = 0.004          # s: the closest two keys may be (float32 at 6000 s resolves 0.5 ms)
BOW_PHASES = (0.0, 0.15, 0.3, 0.5, 0.7, 0.85, 1.0)
HOLD_BLEND = 0.25       # s: arms change to/from holding something over this time

# pinyin of the characters of actor and prop ids that the ground's table lacks
_EXTRA_PINYIN = dict(zip(
    "举乐从余子师弟执有正耦荐赞酬获得射宾俎觯鼓瑟笙磬钟相士公诸长",
    "ju yue cong yu zi shi di zhi you zheng ou jian zan chou huo de she bin zu zhi gu se sheng qing zhong xiang shi "
    "gong zhu zhang".split()))
_PINYIN = {**CHAR_PINYIN, **_EXTRA_PINYIN}

# rotation taking the figures' z-up frame to glTF's Y-up frame: (x, y, z) → (x, z, −y)
_C = np.array([[1.0, 0, 0], [0, 0, 1.0], [0, -1.0, 0]])

# parts whose rotation changes with the posture, and those whose translation does
_ROT_PARTS = ("pelvis", "skirt", "torso", "head", "l_upper_arm", "l_forearm", "r_upper_arm", "r_forearm",
              "l_thigh", "l_shin", "r_thigh", "r_shin")
_SHARED_ROT = {"l_upper_arm_bare": "l_upper_arm", "l_forearm_bare": "l_forearm"}
_TRANS_PARTS = ("pelvis", "skirt")
_SCALE_PARTS = ("skirt",)
_VIS_PARTS = ("l_upper_arm", "l_upper_arm_bare", "l_guard", "r_ring")


# ---------------------------------------------------------------------------
# names

def ascii_name(ident: str) -> str:
    """Pinyin (no tones) of a Chinese id, ASCII letters and digits kept, else ``uXXXX``."""
    bits = []
    for ch in ident:
        if ch.isascii():
            if ch.isalnum() or ch == "_":
                bits.append(ch)
        elif ch in _PINYIN:
            bits.append(_PINYIN[ch])
        else:
            bits.append(f"u{ord(ch):04x}")
    return re.sub(r"[^A-Za-z0-9_]", "", "".join(bits)) or "x"


def actor_node_name(actor_id: str) -> str:
    """``P_`` + pinyin: 司射 → ``P_sishe``, 众宾2 → ``P_zhongbin2``, 上耦下射 → ``P_shangouxiashe``."""
    return "P_" + ascii_name(actor_id)


def prop_node_name(prop_id: str) -> str:
    """``R_`` + pinyin: 丰 → ``R_feng``, 上耦上射弓 → ``R_shangoushangshegong``."""
    return "R_" + ascii_name(prop_id)


def _unique(name: str, used: set[str]) -> str:
    out, k = name, 2
    while out in used:
        out = f"{name}_{k}"
        k += 1
    used.add(out)
    return out


# ---------------------------------------------------------------------------
# maths

def _yup_local(M: np.ndarray) -> np.ndarray:
    """A local 4x4 of the figures' z-up frame expressed in glTF's Y-up frame."""
    out = np.eye(4)
    out[:3, :3] = _C @ M[:3, :3] @ _C.T
    out[:3, 3] = _C @ M[:3, 3]
    return out


def _quat(R: np.ndarray) -> np.ndarray:
    """Unit quaternion (x, y, z, w) of a rotation matrix."""
    m = R
    tr = m[0, 0] + m[1, 1] + m[2, 2]
    if tr > 0:
        s = math.sqrt(tr + 1.0) * 2
        q = ((m[2, 1] - m[1, 2]) / s, (m[0, 2] - m[2, 0]) / s, (m[1, 0] - m[0, 1]) / s, 0.25 * s)
    elif m[0, 0] > m[1, 1] and m[0, 0] > m[2, 2]:
        s = math.sqrt(1.0 + m[0, 0] - m[1, 1] - m[2, 2]) * 2
        q = (0.25 * s, (m[0, 1] + m[1, 0]) / s, (m[0, 2] + m[2, 0]) / s, (m[2, 1] - m[1, 2]) / s)
    elif m[1, 1] > m[2, 2]:
        s = math.sqrt(1.0 + m[1, 1] - m[0, 0] - m[2, 2]) * 2
        q = ((m[0, 1] + m[1, 0]) / s, 0.25 * s, (m[1, 2] + m[2, 1]) / s, (m[0, 2] - m[2, 0]) / s)
    else:
        s = math.sqrt(1.0 + m[2, 2] - m[0, 0] - m[1, 1]) * 2
        q = ((m[0, 2] + m[2, 0]) / s, (m[1, 2] + m[2, 1]) / s, 0.25 * s, (m[1, 0] - m[0, 1]) / s)
    q = np.array(q)
    return q / np.linalg.norm(q)


def _quats(R: np.ndarray) -> np.ndarray:
    """Unit quaternions (n, 4) xyzw of rotation matrices (n, 3, 3), vectorised (Shepperd's method:
    each row divides by its largest component, so half-turns are exact too)."""
    m = R
    d = np.stack([m[:, 0, 0] + m[:, 1, 1] + m[:, 2, 2], m[:, 0, 0], m[:, 1, 1], m[:, 2, 2]], axis=1)
    k = np.argmax(d, axis=1)
    a21, a12 = m[:, 2, 1], m[:, 1, 2]
    a02, a20 = m[:, 0, 2], m[:, 2, 0]
    a10, a01 = m[:, 1, 0], m[:, 0, 1]
    cand = np.empty((len(m), 4, 4))
    cand[:, 0] = np.stack([a21 - a12, a02 - a20, a10 - a01, 1 + d[:, 0]], axis=1)                       # w largest
    cand[:, 1] = np.stack([1 + 2 * d[:, 1] - d[:, 0], a01 + a10, a02 + a20, a21 - a12], axis=1)         # x
    cand[:, 2] = np.stack([a01 + a10, 1 + 2 * d[:, 2] - d[:, 0], a12 + a21, a02 - a20], axis=1)         # y
    cand[:, 3] = np.stack([a02 + a20, a12 + a21, 1 + 2 * d[:, 3] - d[:, 0], a10 - a01], axis=1)         # z
    q = cand[np.arange(len(m)), k]
    q = q / np.linalg.norm(q, axis=1, keepdims=True)
    return np.where(q[:, 3:4] < 0, -q, q)


def _trs(M: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(translation, quaternion xyzw, scale) of a T·R·S matrix (S diagonal, positive)."""
    t = M[:3, 3].copy()
    A = M[:3, :3]
    s = np.linalg.norm(A, axis=0)
    R = A / np.where(s > 1e-12, s, 1.0)
    return t, _quat(R), s


def heading_quat(heading_deg) -> np.ndarray:
    """Quaternions (…, 4) xyzw of compass headings: a turn of −heading about glTF's +Y (up)."""
    h = np.radians(np.asarray(heading_deg, float))
    z = np.zeros_like(h)
    return np.stack([z, np.sin(-h / 2), z, np.cos(-h / 2)], axis=-1)


def _hemisphere(q: np.ndarray) -> np.ndarray:
    """Flip quaternions so that each is in the hemisphere of the one before it."""
    q = np.array(q, float)
    for i in range(1, len(q)):
        if np.dot(q[i], q[i - 1]) < 0:
            q[i] = -q[i]
    return q


def _prune(t: np.ndarray, v: np.ndarray, step: bool = False, tol: float = 1e-6) -> np.ndarray:
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


def from_yup(points) -> np.ndarray:
    """glTF (x, y up, z south) → the plan's (x east, y north, z up): the inverse of ``to_yup``."""
    p = np.asarray(points, float)
    return np.stack([p[..., 0], -p[..., 2], p[..., 1]], axis=-1)


def read_channels(gltf: g.GLTF2) -> dict[tuple[str, str], tuple[np.ndarray, np.ndarray, str]]:
    """Every channel of a loaded GLTF2 (e.g. ``pygltflib.GLTF2().load(path)``) as
    ``{(node name, path): (times, values, interpolation)}`` read back from its binary buffer."""
    blob = gltf.binary_blob()
    if blob is None:                      # .gltf with an embedded data URI
        import base64
        blob = base64.b64decode(gltf.buffers[0].uri.split(",", 1)[1])
    ncomp = {"SCALAR": 1, "VEC3": 3, "VEC4": 4}

    def data(i: int) -> np.ndarray:
        acc = gltf.accessors[i]
        view = gltf.bufferViews[acc.bufferView]
        n = ncomp[acc.type]
        off = (view.byteOffset or 0) + (acc.byteOffset or 0)
        a = np.frombuffer(blob, np.float32, count=acc.count * n, offset=off)
        return a.reshape(acc.count, n) if n > 1 else a

    out = {}
    for anim in gltf.animations:
        for ch in anim.channels:
            smp = anim.samplers[ch.sampler]
            out[(gltf.nodes[ch.target.node].name, ch.target.path)] = (
                data(smp.input).astype(float), data(smp.output).astype(float), smp.interpolation)
    return out


def sample_channel(times, values, t: float, step: bool = False) -> np.ndarray:
    """The value of a glTF channel at ``t`` (LINEAR: lerp, normalised for quaternions; STEP)."""
    times = np.asarray(times, float)
    values = np.asarray(values, float)
    if t <= times[0]:
        return values[0]
    if t >= times[-1]:
        return values[-1]
    i = int(np.searchsorted(times, t, side="right")) - 1
    if step:
        return values[i]
    u = (t - times[i]) / (times[i + 1] - times[i])
    a, b = values[i], values[i + 1]
    if values.shape[1] == 4:
        # glTF LINEAR rotation is a spherical interpolation (slerp), not a normalised lerp
        d = float(np.dot(a, b))
        if d < 0:
            b, d = -b, -d
        if d > 0.9995:
            v = a * (1 - u) + b * u
            return v / np.linalg.norm(v)
        th = math.acos(min(1.0, d))
        return (math.sin((1 - u) * th) * a + math.sin(u * th) * b) / math.sin(th)
    return a * (1 - u) + b * u


def _strictly_increasing(t: np.ndarray) -> np.ndarray:
    """Times nudged by :data:`MIN_DT` where two keys share a time (a jump becomes a very short move)."""
    t = np.array(t, float)
    for i in range(1, len(t)):
        if t[i] < t[i - 1] + MIN_DT:
            t[i] = t[i - 1] + MIN_DT
    return t


def _track_keys(track: Track, duration: float) -> tuple[np.ndarray, np.ndarray, np.ndarray, list]:
    """A track's keys without exact duplicates, spanning [0, duration]: (t, xyz, heading, posture)."""
    out = []
    for r in track.rows():
        if out and abs(r[0] - out[-1][0]) < 1e-9 and r[1:5] == out[-1][1:5]:
            out[-1] = r
            continue
        out.append(r)
    if out[0][0] > 0:
        out.insert(0, [0.0, *out[0][1:]])
    if out[-1][0] < duration:
        out.append([duration, *out[-1][1:]])
    t = _strictly_increasing([r[0] for r in out])
    return t, np.array([r[1:4] for r in out]), np.array([r[4] for r in out]), [r[5] for r in out]


# ---------------------------------------------------------------------------
# the writer

class _AnimWriter:
    def __init__(self, b: GltfBuilder):
        self.b = b
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
        return self.inputs[k]

    def _output(self, v: np.ndarray, kind: str) -> int:
        v32 = np.ascontiguousarray(v, np.float32)
        k = kind.encode() + v32.tobytes()
        if k not in self.outputs:
            self.outputs[k] = self.b.accessor(v32, kind=kind, target=None)
        return self.outputs[k]

    def channel(self, node: int, path: str, t, v, *, step: bool = False, prune: bool = True) -> bool:
        """Add a channel (pruned of keys that change nothing); False when it would be constant."""
        t = np.asarray(t, float)
        v = np.asarray(v, float)
        if path == "rotation":
            v = _hemisphere(v)
        if prune and np.all(np.abs(v - v[0]) <= 1e-6):
            return False                  # constant: the node's own TRS says it
        idx = _prune(t, v, step=step) if prune else np.arange(len(t))
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
            self.b.gltf.animations.append(g.Animation(name=ANIMATION_NAME, samplers=self.samplers,
                                                      channels=self.channels))


def _split_by_colour(mesh) -> list[tuple[tuple, np.ndarray, np.ndarray, np.ndarray]]:
    """[(rgb, vertices, normals, faces)] of a vertex-coloured trimesh, one entry per face colour."""
    verts = np.asarray(mesh.vertices, float)
    faces = np.asarray(mesh.faces)
    normals = np.asarray(mesh.vertex_normals, float)
    ln = np.linalg.norm(normals, axis=1, keepdims=True)
    normals = np.where(ln > 1e-9, normals / np.where(ln > 1e-9, ln, 1.0), [0.0, 0.0, 1.0])
    vc = np.asarray(mesh.visual.vertex_colors)[:, :3]
    fc = vc[faces[:, 0]]
    out = []
    for col in np.unique(fc, axis=0):
        sel = faces[np.all(fc == col, axis=1)]
        used, inv = np.unique(sel.reshape(-1), return_inverse=True)
        out.append((tuple(float(c) / 255 for c in col), verts[used], normals[used], inv.reshape(-1, 3)))
    return out


def _mesh(b: GltfBuilder, name: str, mesh) -> int:
    """A glTF mesh of a vertex-coloured trimesh (z-up frame): one primitive per colour, matte PBR."""
    prims = []
    for rgb, v, n, f in _split_by_colour(mesh):
        pos = b.accessor(to_yup(v), kind="VEC3", target=ARRAY_BUFFER, minmax=True)
        nor = b.accessor(to_yup(n), kind="VEC3", target=ARRAY_BUFFER)
        idx = b.accessor(f.reshape(-1), kind="SCALAR", target=ELEMENT_ARRAY_BUFFER)
        prims.append(g.Primitive(attributes=g.Attributes(POSITION=pos, NORMAL=nor), indices=idx,
                                 material=b.material(rgb)))
    b.gltf.meshes.append(g.Mesh(name=name, primitives=prims))
    return len(b.gltf.meshes) - 1


# ---------------------------------------------------------------------------
# people

def _vis_scale(state: dict) -> dict[str, float]:
    bare, gear = bool(state.get("bare_left_arm")), bool(state.get("gear"))
    return {"l_upper_arm": 0.0 if bare else 1.0, "l_upper_arm_bare": 1.0 if bare else 0.0,
            "l_guard": 1.0 if (bare and gear) else 0.0, "r_ring": 1.0 if gear else 0.0}


class _PoseCache:
    """Joint parameters → Y-up (translation, quaternion, scale) of every part, memoised."""

    _VISIBLE = {"bare_left_arm": False, "gear": True}

    def __init__(self) -> None:
        self.cache: dict[tuple, dict[str, tuple]] = {}

    def __call__(self, params: dict[str, float]) -> dict[str, tuple]:
        vals = np.fromiter(params.values(), float, len(params))
        key = np.round(vals, 5).tobytes()
        hit = self.cache.get(key)
        if hit is None:
            L = F.local_transforms(params, self._VISIBLE)
            names = [p for p in F.PARTS if p not in ("l_upper_arm_bare", "l_guard")]
            M = np.stack([L[p] for p in names])
            A = _C @ M[:, :3, :3] @ _C.T                   # rotation·scale in Y-up
            t = M[:, :3, 3] @ _C.T
            sc = np.linalg.norm(A, axis=1)                  # column norms = the scale
            q = _quats(A / np.where(sc > 1e-12, sc, 1.0)[:, None, :])
            hit = {p: (t[i], q[i], sc[i]) for i, p in enumerate(names)}
            hit["l_upper_arm_bare"] = hit["l_upper_arm"]
            hit["l_guard"] = (np.zeros(3), np.array([0.0, 0, 0, 1]), np.ones(3))
            hit["r_ring"] = (hit["r_ring"][0], hit["r_ring"][1], np.ones(3))
            self.cache[key] = hit
        return hit


def _carried_by(plan: Plan) -> dict[str, list[tuple[float, float, str]]]:
    """actor → [(t0, t1, prop id)] while the plan's ``carrier`` says the actor carries the prop."""
    out: dict[str, list] = {}
    duration = plan.duration
    for pid, prop in plan.props.items():
        cr = prop.carriers.rows()
        for i, (t0, who) in enumerate(cr):
            if who:
                t1 = cr[i + 1][0] if i + 1 < len(cr) else duration
                out.setdefault(who, []).append((float(t0), float(t1), pid))
    return out


def _pose_times(track, state_times: list[float], carried: list, duration: float, fps_hint: float) -> np.ndarray:
    """When a figure's pose is sampled: key times, blends, gestures, quarter strides, hold changes."""
    t = track.t
    ts: list[float] = [0.0, duration]
    ts += list(t)
    n = len(t)
    for i in range(n):
        nxt = t[i + 1] if i + 1 < n else duration
        post = track.seg_post[i]
        if i > 0 and track.seg_post[i - 1] != post:
            low = {"kneel", "kneel_bow"}
            ease = 0.8 if (track.seg_post[i - 1] in low) != (post in low) else 0.35
            for f in (0.33, 0.67, 1.0):
                if t[i] + ease * f < nxt:
                    ts.append(t[i] + ease * f)
        if post == "walk" and i + 1 < n and nxt > t[i]:
            d0, d1 = track.cum[i], track.cum[i + 1]
            q = F.STRIDE_M / 4
            k0, k1 = math.floor(d0 / q) + 1, math.ceil(d1 / q) - 1
            if k1 >= k0:
                d = np.arange(k0, k1 + 1) * q
                ts += list(t[i] + (d - d0) / (d1 - d0) * (nxt - t[i]))
            ts.append(nxt - 1e-3)
        if post in ("bow", "kneel_bow") and (i == 0 or track.seg_post[i - 1] != post):
            dur = track.run1[i] - track.run0[i]
            if dur <= 0:
                dur = 1.5
            ts += [track.run0[i] + min(0.999, ph) * dur for ph in BOW_PHASES]
    # holding something changes the arms: a short blend before each change
    changes = list(state_times) + [c for a, b, _ in carried for c in (a, b)]
    for c in changes:
        ts += [c - HOLD_BLEND, c]
    ts = np.unique(np.clip(np.asarray(ts, float), 0.0, duration))
    # no two samples closer than half a frame
    keep = [ts[0]]
    gap = max(MIN_DT, 0.5 / max(1.0, fps_hint))
    for x in ts[1:]:
        if x - keep[-1] >= gap:
            keep.append(x)
    if keep[-1] < duration:
        keep[-1] = duration if duration - keep[-1] < gap else keep[-1]
        if keep[-1] < duration:
            keep.append(duration)
    return np.asarray(keep)


def _holding(carried: list, t: float) -> list[str]:
    return [pid for a, b, pid in carried if a <= t < b]


# ---------------------------------------------------------------------------
# props

#: the plan carries every prop at hand height (z 0.95); a prop mesh has its base (or grip) at its
#: origin, so a few are lowered while carried, as the video holds them (figures.held_prop_transform)
CARRY_DROP = {"旌": -0.95, "扑": -0.35, "俎": -0.36, "丰": -0.30}


def _prop_quat(kind: str, heading: float, posture: str) -> np.ndarray:
    """Rotation of a prop: its heading; a bow at rest lies flat (limbs along its local x)."""
    if kind == "弓" and posture == "rest":
        h = math.radians(heading)
        Rz = np.array([[math.cos(h), math.sin(h), 0], [-math.sin(h), math.cos(h), 0], [0, 0, 1.0]])   # Rz(-h)
        Ry = np.array([[0, 0, 1.0], [0, 1.0, 0], [-1.0, 0, 0]])                                      # Ry(90)
        return _quat(_C @ Rz @ Ry @ _C.T)
    return heading_quat(heading)


# ---------------------------------------------------------------------------
# the export

def build_animated(reading: Reading, plan: Plan, *, fps_hint: float = 25, camera: bool = False,
                   ground_parts=None) -> tuple[g.GLTF2, dict]:
    """The GLTF2 of the animated scene and a summary dict (nodes, animated nodes, keys)."""
    duration = plan.duration
    parts = ground_parts if ground_parts is not None else build_ground(reading)
    b, ground_root = gltf_from_parts(parts, reading, finish=False)
    anim = _AnimWriter(b)
    sampler = PlanSampler(plan)
    carried_by = _carried_by(plan)
    used: set[str] = {n.name for n in b.gltf.nodes}

    # -- people
    role_meshes: dict[str, dict[str, int]] = {}
    people: list[int] = []
    poses = _PoseCache()
    animated_people = 0
    for aid, actor in plan.actors.items():
        role = F.role_of(aid)
        if role not in role_meshes:
            rn = ascii_name(role) if role != "default" else "default"
            role_meshes[role] = {p: _mesh(b, f"fig_{rn}_{p}", m) for p, m in F.part_meshes(role).items()}
        meshes = role_meshes[role]
        name = _unique(actor_node_name(aid), used)
        track = sampler.actors[aid]
        carried = carried_by.get(aid, [])

        # the pose samples
        state_times = np.asarray(sampler.state_times(aid), float)
        times = _pose_times(track, list(state_times), carried, duration, fps_hint)
        samples = []
        vis = []
        for t in times:
            _, _, params, state = sampler.actor_pose(aid, float(t), _holding(carried, float(t)) or None)
            samples.append(poses(params))
        vis_t = np.unique(np.r_[0.0, state_times[(state_times >= 0) & (state_times <= duration)]])
        vis = [_vis_scale(sampler.state(aid, float(t))) for t in vis_t]

        # the part nodes (children before parents so indices exist); rest TRS = the pose at t = 0
        first = samples[0]
        idx: dict[str, int] = {}
        for part in reversed(F.PARTS):
            kids = [idx[c] for c in F.PARTS if F.PARENT[c] == part]
            tt, q, s = first[part]
            n = b.node(f"{name}_{part}", mesh=meshes[part], translation=tt, rotation=q, children=kids)
            sc = s * (vis[0][part] if part in _VIS_PARTS else 1.0)
            if not np.allclose(sc, 1.0):
                b.gltf.nodes[n].scale = [float(x) for x in sc]
            idx[part] = n
        kt, xyz, hd, _ = _track_keys(actor.track, duration)
        root = b.node(name, translation=to_yup(xyz[0]), rotation=heading_quat(hd[0]), children=[idx["pelvis"]],
                      extras={"actor": aid, "label": actor.label or aid, "role": role,
                              "aliases": list(actor.aliases)})
        people.append(root)

        # root motion: the plan's keys
        a1 = anim.channel(root, "translation", kt, to_yup(xyz))
        a2 = anim.channel(root, "rotation", kt, heading_quat(hd))
        # postures
        for part in _ROT_PARTS:
            q = np.array([s[part][1] for s in samples])
            anim.channel(idx[part], "rotation", times, q)
        for part, src in _SHARED_ROT.items():
            anim.channel(idx[part], "rotation", times, np.array([s[src][1] for s in samples]))
        for part in _TRANS_PARTS:
            anim.channel(idx[part], "translation", times, np.array([s[part][0] for s in samples]))
        for part in _SCALE_PARTS:
            anim.channel(idx[part], "scale", times, np.array([s[part][2] for s in samples]))
        # 袒 / 決遂: STEP scale
        for part in _VIS_PARTS:
            v = np.array([[d[part]] * 3 for d in vis])
            anim.channel(idx[part], "scale", vis_t, v, step=True)
        animated_people += bool(a1 or a2)
        if not (a1 or a2):      # someone who never moves still gets his place keyed over the passage
            anim.channel(root, "translation", [0.0, max(duration, MIN_DT)], to_yup([xyz[0], xyz[0]]), prune=False)

    # -- props
    kind_meshes: dict[str, int] = {}
    props: list[int] = []
    moving_props = 0
    for pid, prop in plan.props.items():
        kind = F.prop_kind(prop.kind or pid)
        if kind not in kind_meshes:
            kind_meshes[kind] = _mesh(b, f"prop_{ascii_name(kind)}", F.prop_mesh(kind))
        kt, xyz, hd, post = _track_keys(prop.track, duration)
        # the plan keys a prop at rest until just before it is picked up: written as the plan says
        T, P, H, S = list(kt), list(xyz), list(hd), list(post)
        T = np.asarray(T)
        P = np.asarray(P, float)
        carried = np.array([s == "carried" for s in S])
        drop = CARRY_DROP.get(kind, 0.0)
        P[carried, 2] += drop
        Q = np.array([_prop_quat(kind, h, s) for h, s in zip(H, S)])
        name = _unique(prop_node_name(pid), used)
        extras = {"prop": pid, "kind": kind, "label": prop.label or pid}
        if drop:
            extras["carried_z_offset_m"] = drop
        n = b.node(name, mesh=kind_meshes[kind], translation=to_yup(P[0]), rotation=Q[0], extras=extras)
        a1 = anim.channel(n, "translation", T, to_yup(P))
        a2 = anim.channel(n, "rotation", T, Q)
        moving_props += bool(a1 or a2)
        props.append(n)

    roots = [ground_root,
             b.node("people", children=people, extras={"count": len(people)}),
             b.node("props", children=props, extras={"count": len(props)})]
    if camera:
        cam = _camera_node(b, anim, plan, duration)
        if cam is not None:
            roots.append(cam)
    anim.finish()

    events = [{"id": e.id, "text": e.text, "span": list(e.span), "footnote": e.footnote, "start": e.start,
               "end": e.end, "actors": list(e.actors)} for e in plan.events]
    scene_extras = {
        "frame": "glTF Y-up: x east, y up, z south (plan (east, north, up) → (x, z, -y)); metres",
        "time_base": "plan seconds (animation 'ceremony' from 0 to duration)",
        "duration_s": duration, "fps_hint": fps_hint, "plan_format": plan.format,
        "layout": plan.layout.to_dict(), "text": dict(plan.text), "reading": reading.name,
        "events": events,
    }
    gltf = b.finish(roots, scene_extras=scene_extras)
    gltf.scenes[0].name = "xiangshe"
    summary = {"people": len(people), "props": len(props), "moving_props": moving_props,
               "animated_nodes": len(anim.targets), "channels": len(anim.channels), "keys": anim.keys,
               "duration": duration, "pose_cache": len(poses.cache)}
    return gltf, summary


def _camera_node(b: GltfBuilder, anim: _AnimWriter, plan: Plan, duration: float) -> int | None:
    """One perspective camera following :func:`reconstruct.camera.plan_shots` (holds, cuts, eased moves)."""
    from ..scene.shots import plan_shots
    size = (1280, 720)
    path = plan_shots(plan, size)
    if not path.shots:
        return None
    ts: list[float] = [0.0, duration]
    for i, s in enumerate(path.shots):
        d = path.moves[i] if i < len(path.moves) else 0.0
        ts.append(s.t0)
        if i > 0:
            ts.append(s.t0 - MIN_DT)        # the last moment of the shot before (a cut, or a move's start)
        if d > 0:
            ts += [s.t0 + d * f for f in (0.2, 0.4, 0.6, 0.8, 1.0)]
    ts = np.unique(np.clip(ts, 0.0, duration))
    ts = ts[np.r_[True, np.diff(ts) >= MIN_DT / 2]]
    T, Q = [], []
    for t in ts:
        p = path.at(float(t))
        eye, tgt, up = (np.asarray(v, float) for v in (p.eye, p.target, p.up))
        f = tgt - eye
        f /= np.linalg.norm(f) or 1.0
        r = np.cross(f, up)
        if np.linalg.norm(r) < 1e-6:
            r = np.cross(f, [0.0, 1.0, 0.0])
        r /= np.linalg.norm(r)
        u = np.cross(r, f)
        # glTF camera looks down its −Z with +Y up: columns (x = right, y = up, z = −forward), in Y-up
        R = _C @ np.stack([r, u, -f], axis=1)
        T.append(to_yup(eye))
        Q.append(_quat(R))
    b.gltf.cameras.append(g.Camera(type="perspective", name="shot_plan", perspective=g.Perspective(
        aspectRatio=size[0] / size[1], yfov=math.radians(path.shots[0].pose.view_angle), znear=0.1, zfar=500.0)))
    n = b.node("camera", translation=T[0], rotation=Q[0], extras={"follows": "reconstruct.camera.plan_shots"})
    b.gltf.nodes[n].camera = len(b.gltf.cameras) - 1
    anim.channel(n, "translation", ts, np.asarray(T))
    anim.channel(n, "rotation", ts, np.asarray(Q))
    return n


def export_animated(reading: Reading, plan: Plan, target: str | Path, fmt: str = "glb", fps_hint: float = 25,
                    camera: bool = False) -> Path:
    """Write the ground, every person and prop and the whole passage as one animation (GLB or glTF).

    ``fps_hint`` is recorded in the scene's extras (glTF itself has no frame rate) and sets the
    closest spacing of posture keys (half a frame).  ``camera`` adds one camera node following
    the video's shot plan.  The file appears only when complete.  Returns ``target``.
    """
    fmt = fmt.lower()
    if fmt not in ("glb", "gltf"):
        raise ValueError(f"unknown format {fmt!r}: the animated export writes glb or gltf")
    target = Path(target)
    gltf, _ = build_animated(reading, plan, fps_hint=fps_hint, camera=camera)
    with atomic_path(target) as tmp:
        _write_gltf(gltf, tmp, binary=fmt == "glb")
        tmp.chmod(0o644)
    return target
