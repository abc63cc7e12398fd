"""Materials of the ground and the architecture: small tileable textures made in numpy (no images
fetched), in the colours the ground already has, restrained.

* timber: grain along the piece; plaster: a faint mottle; roof tiles: channels running down the
  slope with the courses across; rammed earth (the court's walls): layers a few centimetres thick;
  beaten earth (court, floor): a fine mottle; rush mats (蒲筵): a weave.

Each static mesh gets texture coordinates by box mapping (each face on the plane its normal points
most along, one repeat per :data:`REPEAT_M` metres of that material), and the texture is the mesh's
colour modulated by the pattern.
"""
from __future__ import annotations

from functools import lru_cache

import numpy as np
import trimesh

__all__ = ["material_of", "pattern", "texture_rgb", "box_uv", "REPEAT_M"]

_N = 128
REPEAT_M = {"timber": 1.2, "plaster": 2.0, "tiles": 0.9, "rammed": 1.5, "earth": 3.0, "rush": 0.5}
_BY_NAME = {"L_wu_chuan": "timber", "L_wu": "tiles", "L_dongrong": "tiles", "L_xirong": "tiles",
            "L_men_wu": "tiles", "L_ting_qiangding": "tiles", "L_ting_qiang": "rammed", "L_ting": "earth",
            "L_tanglian": "timber", "L_tang": "earth", "L_mei": "timber", "L_dong": "timber", "L_houmei": "timber",
            "L_dongxu": "plaster", "L_xixu": "plaster", "L_beiyong": "plaster", "L_men": "timber",
            "L_zuojie_cheek": "timber", "L_xijie_cheek": "timber", "L_zuojie": "earth", "L_xijie": "earth",
            "L_xizhi": "timber", "L_dongzhi": "timber"}
_MATS = ("L_binxi", "L_gongxi", "L_zhurenxi", "L_dafuxi", "L_zhongbinxi")


def material_of(name: str) -> str | None:
    """The material of a ground mesh by its node name (None: plain colour)."""
    if name.endswith("_chun"):
        return None
    if name.startswith(_MATS):
        return "rush"
    return _BY_NAME.get(name)


def _noise(rng, scale: int) -> np.ndarray:
    """Tileable value noise on an _N × _N grid, features about _N/scale pixels across."""
    g = rng.random((scale, scale))
    x = np.arange(_N) * scale / _N
    i0 = np.floor(x).astype(int)
    f = x - i0
    f = f * f * (3 - 2 * f)
    i1 = (i0 + 1) % scale
    rows = g[i0][:, i0] * (1 - f)[None, :] + g[i0][:, i1] * f[None, :]
    rows1 = g[i1][:, i0] * (1 - f)[None, :] + g[i1][:, i1] * f[None, :]
    return rows * (1 - f)[:, None] + rows1 * f[:, None]


@lru_cache(maxsize=None)
def pattern(kind: str) -> np.ndarray:
    """A brightness pattern (_N, _N) around 1.0 for a material (deterministic)."""
    rng = np.random.default_rng(sum(map(ord, kind)))
    y, x = np.mgrid[0:_N, 0:_N] / _N
    if kind == "timber":
        wob = _noise(rng, 4) * 0.08
        grain = np.sin((x + wob) * 2 * np.pi * 14 + _noise(rng, 8) * 3.0)
        p = 1.0 + 0.06 * grain + 0.08 * (_noise(rng, 16) - 0.5)
    elif kind == "plaster":
        p = 1.0 + 0.05 * (_noise(rng, 4) - 0.5) + 0.03 * (_noise(rng, 32) - 0.5)
    elif kind == "tiles":
        channel = 0.5 + 0.5 * np.cos(x * 2 * np.pi * 6)                    # 6 rows of tiles per repeat
        course = (np.mod(y * 5, 1.0) < 0.08).astype(float)               # 5 courses
        p = 0.80 + 0.30 * channel - 0.18 * course + 0.05 * (_noise(rng, 16) - 0.5)
    elif kind == "rammed":
        layer = np.sin(y * 2 * np.pi * 18 + _noise(rng, 4) * 1.5)
        p = 1.0 + 0.05 * layer + 0.08 * (_noise(rng, 8) - 0.5)
    elif kind == "earth":
        p = 1.0 + 0.07 * (_noise(rng, 8) - 0.5) + 0.05 * (_noise(rng, 32) - 0.5)
    elif kind == "rush":
        weave = np.sign(np.sin(x * 2 * np.pi * 24)) * np.sign(np.sin(y * 2 * np.pi * 8))
        p = 1.0 + 0.07 * weave + 0.04 * (_noise(rng, 16) - 0.5)
    else:
        p = np.ones((_N, _N))
    return p


def texture_rgb(kind: str, rgb) -> np.ndarray:
    """The texture (_N, _N, 3) uint8 of a material in colour ``rgb`` (0–1)."""
    base = np.asarray(rgb, float)[None, None, :]
    return np.clip(pattern(kind)[..., None] * base * 255, 0, 255).astype(np.uint8)


def box_uv(mesh: trimesh.Trimesh, repeat: float) -> tuple[trimesh.Trimesh, np.ndarray]:
    """The mesh with a vertex per face corner and texture coordinates by box mapping."""
    m = mesh.copy()
    m.unmerge_vertices()
    V = np.asarray(m.vertices, float)
    F = np.asarray(m.faces)
    n = np.abs(np.asarray(m.face_normals, float))
    axis = np.argmax(n, axis=1)
    uv = np.zeros((len(V), 2))
    planes = {0: (1, 2), 1: (0, 2), 2: (0, 1)}
    for a, (i, j) in planes.items():
        idx = F[axis == a].ravel()
        uv[idx, 0] = V[idx, i] / repeat
        uv[idx, 1] = V[idx, j] / repeat
    return m, uv
