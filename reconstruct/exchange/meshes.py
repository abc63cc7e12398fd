"""The ground as plain meshes, written by trimesh's exporters.

* **OBJ** (+ ``.mtl`` beside it): one named object per part (``o L_xijie``), one matte material per
  colour (``mat_rrggbb``), Y-up like glTF (x east, y up, z south), metres.
* **PLY / STL**: the whole ground merged into one mesh in the reading's own frame (z up); PLY keeps
  the colours per face.

Every file appears only when complete (``atomic_path``).
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import trimesh

from ..outputs import atomic_path
from ..scene.ground import GroundPart
from .frames import to_yup

__all__ = ["MESH_FORMATS", "write_mesh_format", "obj_scene", "merged"]

MESH_FORMATS = ("obj", "ply", "stl")


def _material_name(color) -> str:
    return "mat_%02x%02x%02x" % tuple(int(round(c * 255)) for c in color[:3])


def obj_scene(parts: list[GroundPart]) -> trimesh.Scene:
    """A trimesh scene of the parts in glTF's Y-up frame, one geometry per part, named as its glTF node."""
    scene = trimesh.Scene()
    materials: dict[str, trimesh.visual.material.SimpleMaterial] = {}
    for p in parts:
        name = _material_name(p.color)
        if name not in materials:
            rgba = (np.array([*p.color[:3], 1.0]) * 255).round().astype(np.uint8)
            materials[name] = trimesh.visual.material.SimpleMaterial(
                name=name, diffuse=rgba, ambient=[0, 0, 0, 255], specular=[0, 0, 0, 255], glossiness=1.0)
        m = trimesh.Trimesh(vertices=to_yup(p.mesh.vertices), faces=np.asarray(p.mesh.faces), process=False,
                            visual=trimesh.visual.TextureVisuals(material=materials[name]))
        scene.add_geometry(m, geom_name=p.node, node_name=p.node)
    return scene


def merged(parts: list[GroundPart]) -> trimesh.Trimesh:
    """The parts as one mesh (reading frame, z up) with a colour per face."""
    meshes = []
    for p in parts:
        m = p.mesh.copy()
        m.visual = trimesh.visual.ColorVisuals(m, face_colors=np.tile(
            (np.array([*p.color[:3], 1.0]) * 255).astype(np.uint8), (len(m.faces), 1)))
        meshes.append(m)
    return trimesh.util.concatenate(meshes)


def write_mesh_format(parts: list[GroundPart], target: str | Path, fmt: str) -> Path:
    """Write the ground as OBJ (+ MTL), PLY or STL."""
    target = Path(target)
    if fmt not in MESH_FORMATS:
        raise ValueError(f"unknown mesh format {fmt!r}: use one of {', '.join(MESH_FORMATS)}")
    if fmt == "obj":
        mtl_path = target.with_suffix(".mtl")
        text, files = trimesh.exchange.obj.export_obj(obj_scene(parts), include_normals=False, include_texture=True,
                                                      return_texture=True, mtl_name=mtl_path.name)
        header = "# Village Archery ground (reconstruct): metres, Y up (x east, y up, z south)\n"
        with atomic_path(mtl_path) as tmp:
            tmp.write_bytes(files[mtl_path.name])
            tmp.chmod(0o644)
        with atomic_path(target) as tmp:
            tmp.write_text(header + text, encoding="ascii")
            tmp.chmod(0o644)
        return target
    data = merged(parts).export(file_type=fmt)
    with atomic_path(target) as tmp:
        tmp.write_bytes(data if isinstance(data, bytes) else data.encode())
        tmp.chmod(0o644)
    return target
