"""Export the ground (built by :mod:`reconstruct.scene.ground`) to GLB / glTF (here) and OBJ / PLY / STL
(:mod:`reconstruct.exchange.meshes`, trimesh's exporters).

This module only converts: every mesh comes from :func:`reconstruct.ground.build_ground`.

* **GLB / glTF** are written with pygltflib.  glTF is Y-up, so a point (x east, y north, z up)
  of the reading is written as (x, z, −y).  Each part is one node with TRS (a translation, never
  a ``matrix``) whose name is ASCII (``L_xijie``; Blender truncates long UTF-8 names) and
  whose ``extras`` carry the Chinese id, the label, the landmark's citation and the reading.
  A part's node sits at its landmark's position (so the node's translation is the landmark's
  place), its vertices are relative to it.  Materials are core PBR, matte (metallic 0,
  roughness 0.9); ``bufferView.target`` is set.  The ``.gltf`` variant embeds its buffer.
* **OBJ / PLY / STL**: see :mod:`reconstruct.exchange.meshes`.

:func:`gltf_from_parts` is the reusable piece (the animated exporter adds nodes, meshes and
animations to the GLTF2 it returns).
"""
from __future__ import annotations

import base64
from pathlib import Path
from typing import Iterable

import numpy as np
import pygltflib as g
import trimesh

from ..model.evidence import legend_json
from ..model.reading import Reading
from ..outputs import atomic_path
from ..scene.ground import GroundPart, build_ground
from .frames import srgb_to_linear, to_yup

ARRAY_BUFFER, ELEMENT_ARRAY_BUFFER = 34962, 34963
FLOAT, SHORT, UNSIGNED_BYTE, UNSIGNED_SHORT, UNSIGNED_INT = 5126, 5122, 5121, 5123, 5125
FORMATS = ("glb", "gltf", "obj", "ply", "stl")


def _ascii(s: str) -> str:
    out = "".join(ch if ch.isascii() and (ch.isalnum() or ch in "_-.") else "_" for ch in s)
    return out or "node"


class GltfBuilder:
    """Accumulates buffer data, meshes, materials and nodes; ``finish()`` gives a GLTF2."""

    def __init__(self) -> None:
        self.gltf = g.GLTF2(asset=g.Asset(version="2.0", generator="reconstruct (xiangshe) via pygltflib"))
        self.blob = bytearray()
        self.materials: dict[tuple, int] = {}

    # -- buffers ---------------------------------------------------------
    def _view(self, data: bytes, target: int | None) -> int:
        while len(self.blob) % 4:
            self.blob.append(0)
        off = len(self.blob)
        self.blob += data
        self.gltf.bufferViews.append(g.BufferView(buffer=0, byteOffset=off, byteLength=len(data), target=target))
        return len(self.gltf.bufferViews) - 1

    def accessor(self, array: np.ndarray, *, kind: str, target: int | None, minmax: bool = False,
                 normalized: bool = False) -> int:
        """An accessor of the array: floats as float32; int16 as SHORT (``normalized``: read as
        value / 32767, e.g. quantised rotations); uint8 as UNSIGNED_BYTE (joint indices); indices as
        the smallest unsigned type."""
        array = np.ascontiguousarray(array)
        if array.dtype.kind == "f":
            array = array.astype(np.float32)
            ctype = FLOAT
        elif array.dtype == np.int16:
            ctype = SHORT
        elif array.dtype == np.uint8:                 # e.g. JOINTS_0
            ctype = UNSIGNED_BYTE
        elif array.max(initial=0) < 65536 and target == ELEMENT_ARRAY_BUFFER:
            array = array.astype(np.uint16)
            ctype = UNSIGNED_SHORT
        else:
            array = array.astype(np.uint32)
            ctype = UNSIGNED_INT
        view = self._view(array.tobytes(), target)
        count = array.shape[0] if array.ndim > 1 else array.size
        acc = g.Accessor(bufferView=view, componentType=ctype, count=int(count), type=kind,
                         normalized=True if normalized else None)
        if minmax:
            acc.min = [float(v) for v in array.reshape(count, -1).min(axis=0)]
            acc.max = [float(v) for v in array.reshape(count, -1).max(axis=0)]
        self.gltf.accessors.append(acc)
        return len(self.gltf.accessors) - 1

    def material(self, color, name: str | None = None, double_sided: bool = False) -> int:
        key = (tuple(round(c, 4) for c in color), double_sided)
        if key not in self.materials:
            lin = srgb_to_linear(color)
            self.gltf.materials.append(g.Material(
                name=name or "mat_%02x%02x%02x" % tuple(int(round(c * 255)) for c in color),
                pbrMetallicRoughness=g.PbrMetallicRoughness(baseColorFactor=[*lin, 1.0], metallicFactor=0.0,
                                                            roughnessFactor=0.9),
                doubleSided=double_sided))
            self.materials[key] = len(self.gltf.materials) - 1
        return self.materials[key]

    def mesh(self, name: str, vertices_yup: np.ndarray, faces: np.ndarray, normals: np.ndarray, material: int) -> int:
        pos = self.accessor(vertices_yup, kind="VEC3", target=ARRAY_BUFFER, minmax=True)
        nor = self.accessor(normals, kind="VEC3", target=ARRAY_BUFFER)
        idx = self.accessor(np.asarray(faces).reshape(-1), kind="SCALAR", target=ELEMENT_ARRAY_BUFFER)
        self.gltf.meshes.append(g.Mesh(name=name, primitives=[
            g.Primitive(attributes=g.Attributes(POSITION=pos, NORMAL=nor), indices=idx, material=material)]))
        return len(self.gltf.meshes) - 1

    def coloured_mesh(self, name: str, mesh: trimesh.Trimesh) -> int:
        """A mesh of a vertex-coloured trimesh (z-up frame): one primitive per colour, matte PBR."""
        prims = []
        for rgb, v, n, f in _split_by_colour(mesh):
            pos = self.accessor(to_yup(v), kind="VEC3", target=ARRAY_BUFFER, minmax=True)
            nor = self.accessor(to_yup(n), kind="VEC3", target=ARRAY_BUFFER)
            idx = self.accessor(f.reshape(-1), kind="SCALAR", target=ELEMENT_ARRAY_BUFFER)
            prims.append(g.Primitive(attributes=g.Attributes(POSITION=pos, NORMAL=nor), indices=idx,
                                     material=self.material(rgb)))
        self.gltf.meshes.append(g.Mesh(name=name, primitives=prims))
        return len(self.gltf.meshes) - 1

    def node(self, name: str, *, mesh: int | None = None, translation=None, rotation=None, children=None,
             extras: dict | None = None) -> int:
        n = g.Node(name=_ascii(name), mesh=mesh, children=list(children or []))
        if translation is not None:
            n.translation = [float(v) for v in translation]
        if rotation is not None:
            n.rotation = [float(v) for v in rotation]
        if extras:
            n.extras = extras
        self.gltf.nodes.append(n)
        return len(self.gltf.nodes) - 1

    def finish(self, roots: list[int], scene_extras: dict | None = None) -> g.GLTF2:
        while len(self.blob) % 4:
            self.blob.append(0)
        self.gltf.buffers = [g.Buffer(byteLength=len(self.blob))]
        self.gltf.scenes = [g.Scene(name="ground", nodes=roots, extras=scene_extras or {})]
        self.gltf.scene = 0
        self.gltf.set_binary_blob(bytes(self.blob))
        return self.gltf


def _split_by_colour(mesh: trimesh.Trimesh) -> list[tuple[tuple, np.ndarray, np.ndarray, np.ndarray]]:
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


def shaded(mesh: trimesh.Trimesh) -> trimesh.Trimesh:
    """Vertices split at sharp edges (boxes get flat faces, jars and columns stay smooth)."""
    try:
        return trimesh.graph.smooth_shade(mesh, angle=np.radians(35), facet_minarea=None)
    except Exception:  # pragma: no cover - without a graph engine fall back to flat shading
        m = mesh.copy()
        m.unmerge_vertices()
        return m


def part_node(builder: GltfBuilder, part: GroundPart, origin, extras: dict) -> int:
    """Add one part as a node with a mesh; ``origin`` (reading frame) becomes the node's translation."""
    m = shaded(part.mesh)
    verts = to_yup(np.asarray(m.vertices) - np.asarray(origin, float))
    normals = to_yup(np.asarray(m.vertex_normals))
    mat = builder.material(part.color)
    mi = builder.mesh(part.node, verts, np.asarray(m.faces), normals, mat)
    return builder.node(part.node, mesh=mi, translation=to_yup(origin), extras=extras)


def gltf_from_parts(parts: Iterable[GroundPart], reading: Reading | None = None, *, root_name: str = "ground",
                    builder: GltfBuilder | None = None, finish: bool = True):
    """A GLTF2 of the parts under one root node (TRS nodes, ASCII names, Chinese ids in extras).

    With ``finish=False`` returns ``(builder, root_index)`` so a caller can add more (people,
    animations) before ``builder.finish([root, …])``.
    """
    b = builder or GltfBuilder()
    children = []
    lms = reading.landmarks if reading else {}
    for part in parts:
        lm = lms.get(part.landmark)
        if lm is not None and lm.kind not in ("court",):
            origin = np.array(lm.position, float)
        else:
            lo, hi = part.mesh.bounds
            origin = np.array([(lo[0] + hi[0]) / 2, (lo[1] + hi[1]) / 2, lo[2]])
        extras = {"landmark": part.landmark, "label": part.label}
        if lm is not None:
            extras.update({"label_en": lm.label_en, "kind": lm.kind, "cite": lm.cite,
                           "position_m": [round(v, 4) for v in lm.position]})
            if lm.basis:        # the evidence (issue 32): what it rests on, and the kind the evidence view colours
                extras.update({"basis": [x.as_plan() for x in lm.basis], "evidence": lm.evidence})
            if lm.heading is not None:
                extras["heading_deg"] = lm.heading
        if reading is not None:
            extras["reading"] = reading.name
        children.append(part_node(b, part, origin, extras))
    root_extras = {"frame": "glTF Y-up: x east, y up, z south (reading (x, y, z) → (x, z, -y)); metres"}
    if reading is not None:
        root_extras.update({"reading": reading.name, "reading_en": reading.name_en, "file": Path(reading.file).name,
                            "sources": list(reading.sources), "chi_m": reading.units.chi_m})
        if reading.bibliography:
            root_extras.update({"bibliography": {k: v.as_plan() for k, v in reading.bibliography.items()},
                                "evidence_legend": legend_json()})
    root = b.node(root_name, children=children, extras=root_extras)
    if not finish:
        return b, root
    return b.finish([root], scene_extras=root_extras)


def write_gltf(gltf: g.GLTF2, tmp: Path, binary: bool) -> None:
    if binary:
        gltf.save_binary(str(tmp))
        return
    blob = gltf.binary_blob()
    gltf.buffers[0].uri = "data:application/octet-stream;base64," + base64.b64encode(blob).decode("ascii")
    gltf._glb_data = None
    gltf.save_json(str(tmp))


def export_ground(reading: Reading, target: str | Path, fmt: str = "glb", parts: list[GroundPart] | None = None) -> Path:
    """Write the ground of a reading in one format; the file appears only when complete."""
    fmt = fmt.lower()
    if fmt not in FORMATS:
        raise ValueError(f"unknown format {fmt!r}: use one of {', '.join(FORMATS)}")
    target = Path(target)
    parts = parts if parts is not None else build_ground(reading)
    if fmt in ("glb", "gltf"):
        gltf = gltf_from_parts(parts, reading)
        with atomic_path(target) as tmp:
            write_gltf(gltf, tmp, binary=fmt == "glb")
            tmp.chmod(0o644)
    else:
        from .meshes import write_mesh_format
        write_mesh_format(parts, target, fmt)
    return target


def read_glb(path: str | Path) -> g.GLTF2:
    return g.GLTF2().load(str(path))


def node_positions(gltf: g.GLTF2) -> dict[str, tuple[float, float, float]]:
    return {n.name: tuple(n.translation or (0, 0, 0)) for n in gltf.nodes}


__all__ = ["export_ground", "gltf_from_parts", "GltfBuilder", "to_yup", "srgb_to_linear", "FORMATS", "read_glb",
           "write_gltf", "shaded"]
