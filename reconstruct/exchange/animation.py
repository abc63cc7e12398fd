"""The whole ceremony as one animated glTF scene: the ground, every person and prop, one animation.

:func:`export_animated` turns a :class:`~reconstruct.model.plan.Plan` into a GLB or glTF.  It only
converts, one gather function per kind of thing (in the manner of glTF-Blender-IO's exporter):

* :func:`reconstruct.exchange.gltf.gltf_from_parts` — the ground, as the static export writes it;
* :func:`reconstruct.exchange.people.gather_people` — the people: the figures' parts and poses,
  sampled with the video's :class:`~reconstruct.scene.sampler.PlanSampler`;
* :func:`gather_props` — the props (:func:`reconstruct.scene.figures.prop_mesh`, shared per kind);
* :func:`gather_camera` — (optional) a camera following the video's shot plan;
* :func:`gather_events` — the event markers, in the scene's ``extras``.

Scene (glTF Y-up: a plan point (east, north, up) is written (east, up, −north); metres)::

    ground            the static ground (L_… nodes, as reconstruct.exchange.gltf writes them)
    people
      P_sishe         one node per actor (ASCII from pinyin, the Chinese id in extras),
        P_sishe_pelvis   the figure parts (figures.PARTS, parents as figures.PARENT)
        …
    props
      R_feng          one node per prop (the prop's mesh, shared by kind)
    camera            (optional) follows the video's shot plan

The animation (one, ``ceremony``, plan seconds from 0 to the plan's duration) is described in
:mod:`reconstruct.exchange.people` for the people; props are keyed (translation + rotation,
LINEAR) from their plan keys (the plan keys a resting prop where it lies until just before it is
picked up; any posture — ``rest``, ``carried``, ``flight`` … — is written as the plan places it).
Quaternions are kept in one hemisphere along every channel; only keys where something changes are
written; all accessors float32; meshes are shared; materials core PBR, matte.

Event markers are in the scene's ``extras`` (``events``: id, text, gloss, span, footnote, start,
end, actors), with the duration and the suggested fps.
"""
from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pygltflib as g
from scipy.spatial.transform import Rotation

from ..model.defaults import FPS, FRAME_SIZE
from ..model.plan import Plan
from ..model.reading import Reading
from ..outputs import atomic_path
from ..scene import figures as F
from ..scene.ground import build_ground, set_out_fixtures
from ..scene.sampler import PlanSampler
from .channels import (ANIMATION_NAME, MIN_DT, AnimWriter, Compaction, heading_quat, quats_of, read_channels,
                       sample_channel)
from .frames import Y_UP, from_yup, to_yup
from .gltf import GltfBuilder, gltf_from_parts, write_gltf
from .names import actor_node_name, ascii_name, prop_node_name, unique_name
from .people import gather_people, track_keys

__all__ = ["export_animated", "build_animated", "gather_props", "gather_camera", "gather_events",
           "actor_node_name", "prop_node_name", "ascii_name", "sample_channel", "read_channels", "from_yup",
           "heading_quat", "CARRY_DROP", "ANIMATION_NAME"]

#: the plan carries every prop at hand height (z 0.95); a prop mesh has its base (or grip) at its
#: origin, so a few are lowered while carried, as the video holds them (figures.held_prop_transform)
CARRY_DROP = {"旌": -0.95, "扑": -0.35, "俎": -0.36, "丰": -0.30}


def _prop_quats(kind: str, headings: np.ndarray, postures: list[str]) -> np.ndarray:
    """Rotations of a prop: its heading; a bow at rest lies flat (limbs along its local x)."""
    q = heading_quat(headings)
    if kind == "弓":
        rest = np.array([p == "rest" for p in postures])
        if rest.any():
            lying = (Rotation.from_rotvec(np.multiply.outer(-np.radians(headings[rest]), [0.0, 0.0, 1.0]))
                     * Rotation.from_rotvec([0.0, math.pi / 2, 0.0]))            # Rz(−heading)·Ry(90°), z up
            q[rest] = quats_of(Y_UP @ lying.as_matrix() @ Y_UP.T)
    return q


def prop_kind_mesh(b: GltfBuilder, kind_meshes: dict[str, int], prop_id: str, prop) -> tuple[str, int]:
    """A prop's kind and the one glTF mesh of that kind (made the first time a kind is met)."""
    kind = F.prop_kind(prop.kind or prop_id)
    if kind not in kind_meshes:
        kind_meshes[kind] = b.coloured_mesh(f"prop_{ascii_name(kind)}", F.prop_mesh(kind))
    return kind, kind_meshes[kind]


def gather_props(b: GltfBuilder, anim: AnimWriter, plan: Plan, used: set[str]) -> tuple[list[int], int]:
    """Every prop of the plan, whatever its kind and count: (nodes, how many move)."""
    kind_meshes: dict[str, int] = {}
    nodes, moving = [], 0
    for pid, prop in plan.props.items():
        kind, mesh = prop_kind_mesh(b, kind_meshes, pid, prop)
        t, xyz, hd, post = track_keys(prop.track, plan.duration)
        drop = CARRY_DROP.get(kind, 0.0)
        xyz[np.array([s == "carried" for s in post]), 2] += drop
        q = _prop_quats(kind, hd, post)
        extras = {"prop": pid, "kind": kind, "label": prop.label or pid}
        if drop:
            extras["carried_z_offset_m"] = drop
        n = b.node(unique_name(prop_node_name(pid), used), mesh=mesh, translation=to_yup(xyz[0]),
                   rotation=q[0], extras=extras)
        moving += anim.channel(n, "translation", t, to_yup(xyz)) | anim.channel(n, "rotation", t, q)
        nodes.append(n)
    return nodes, moving


def _look_quat(eye, target, up) -> np.ndarray:
    """The glTF camera rotation (looking down its −Z, +Y up) of an eye looking at a target (plan frame)."""
    f = np.asarray(target, float) - np.asarray(eye, float)
    f /= np.linalg.norm(f) or 1.0
    r = np.cross(f, up)
    if np.linalg.norm(r) < 1e-6:
        r = np.cross(f, [0.0, 1.0, 0.0])
    r /= np.linalg.norm(r)
    return quats_of(Y_UP @ np.stack([r, np.cross(r, f), -f], axis=1))


def gather_camera(b: GltfBuilder, anim: AnimWriter, plan: Plan) -> int | None:
    """One perspective camera following the passage's camera path (:func:`reconstruct.scene.shots.camera_path`,
    its keys: holds, cuts, eased moves).  glTF cannot animate a camera's field of view: where a key's
    ``vfov`` differs from the first shot's, its eye is moved along the line of sight so the picture at the
    target's distance is framed the same (a person at the target keeps his size on screen)."""
    from ..scene.shots import camera_path
    size = FRAME_SIZE
    path = camera_path(plan, size)
    keys = path.keys()
    if not len(keys):
        return None
    keys = keys[np.r_[True, np.diff(keys[:, 0]) >= MIN_DT]]
    ts, eye, target, up, vfov = keys[:, 0], keys[:, 1:4], keys[:, 4:7], keys[:, 7:10], keys[:, 10]
    yfov = float(vfov[0])
    scale = np.tan(np.radians(vfov) / 2) / math.tan(math.radians(yfov) / 2)
    eye = target + (eye - target) * scale[:, None]
    T = to_yup(eye)
    Q = np.array([_look_quat(e, t, u) for e, t, u in zip(eye, target, up)])
    b.gltf.cameras.append(g.Camera(type="perspective", name="shot_plan", perspective=g.Perspective(
        aspectRatio=size[0] / size[1], yfov=math.radians(yfov), znear=0.1, zfar=500.0)))
    n = b.node("camera", translation=T[0], rotation=Q[0], extras={"follows": "reconstruct.scene.shots.camera_path"})
    b.gltf.nodes[n].camera = len(b.gltf.cameras) - 1
    anim.channel(n, "translation", ts, T)
    anim.channel(n, "rotation", ts, Q)
    return n


def gather_events(plan: Plan) -> list[dict]:
    """The event markers: what is performed when, with the clause, its gloss, its footnote and the options it
    rests on (NAME=CHOICE; their basis is in the plan's ``layout.option_basis``)."""
    return [{"id": e.id, "text": e.text, "gloss": e.gloss, "span": list(e.span), "footnote": e.footnote,
             "start": e.start, "end": e.end, "actors": list(e.actors),
             **({"options": list(e.options)} if e.options else {})} for e in plan.events]


def build_animated(reading: Reading, plan: Plan, *, fps_hint: float = FPS, camera: bool = False,
                   ground_parts=None, compaction: Compaction | None = None) -> tuple[g.GLTF2, dict]:
    """The GLTF2 of the animated scene and a summary dict (nodes, animated nodes, keys, bytes of
    animation data: ``anim_bytes`` written, ``anim_raw_bytes`` of the exact float32 channels).
    ``compaction`` reduces keys and quantises rotations (the web page's scene)."""
    parts = ground_parts if ground_parts is not None else build_ground(reading)
    laid = set_out_fixtures(reading, plan.props)      # the first half's things set out: drawn as its props
    parts = [p for p in parts if p.landmark not in laid]
    b, ground_root = gltf_from_parts(parts, reading, finish=False)
    anim = AnimWriter(b, compaction)
    used: set[str] = {n.name for n in b.gltf.nodes}
    people = gather_people(b, anim, plan, PlanSampler(plan), used, fps_hint)
    props, moving_props = gather_props(b, anim, plan, used)
    roots = [ground_root,
             b.node("people", children=people.roots, extras={"count": len(people.roots)}),
             b.node("props", children=props, extras={"count": len(props)})]
    cam = gather_camera(b, anim, plan) if camera else None
    if cam is not None:
        roots.append(cam)
    anim.finish()
    scene_extras = {
        "frame": "glTF Y-up: x east, y up, z south (plan (east, north, up) → (x, z, -y)); metres",
        "time_base": "plan seconds (animation 'ceremony' from 0 to duration)",
        "duration_s": plan.duration, "fps_hint": fps_hint, "plan_format": plan.format,
        "layout": plan.layout.to_dict(), "text": dict(plan.text), "reading": reading.name,
        "events": gather_events(plan),
    }
    gltf = b.finish(roots, scene_extras=scene_extras)
    gltf.scenes[0].name = "xiangshe"
    summary = {"people": len(people.roots), "props": len(props), "moving_props": moving_props,
               "animated_nodes": len(anim.targets), "channels": len(anim.channels), "keys": anim.keys,
               "duration": plan.duration, "pose_cache": len(people.poses.cache),
               "anim_bytes": anim.bytes, "anim_raw_bytes": anim.raw_bytes}
    return gltf, summary


def export_animated(reading: Reading, plan: Plan, target: str | Path, fmt: str = "glb", fps_hint: float = FPS,
                    camera: bool = False) -> Path:
    """Write the ground, every person and prop and the whole passage as one animation (GLB or glTF).

    ``fps_hint`` is recorded in the scene's extras (glTF itself has no frame rate) and sets the
    closest spacing of posture keys (half a frame).  ``camera`` adds one camera node following
    the video's camera path (:func:`reconstruct.scene.shots.camera_path`).  The file appears only when complete.  Returns ``target``.
    """
    fmt = fmt.lower()
    if fmt not in ("glb", "gltf"):
        raise ValueError(f"unknown format {fmt!r}: the animated export writes glb or gltf")
    target = Path(target)
    gltf, _ = build_animated(reading, plan, fps_hint=fps_hint, camera=camera)
    with atomic_path(target) as tmp:
        write_gltf(gltf, tmp, binary=fmt == "glb")
        tmp.chmod(0o644)
    return target
