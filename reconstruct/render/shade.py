"""Shadows, the cheap way that suits software GL: cast once for the architecture, per frame for people.

* The architecture's shadows are static: every triangle of the hall (roof, columns, walls) and of the
  court's walls is projected along the sun onto the court (z = 0) and onto the hall's floor, clipped to
  that surface (shapely), and drawn as a darker skin a few millimetres above it.  Things on the hall
  floor wholly in the roof's shadow (mats, jars) are darkened instead.
* Each person casts a flattened copy of a low-poly proxy of his figure (the same part matrices, times
  a projection onto the plane of his feet along the sun: one 4x4 each, posed with the moving layer),
  and has a soft contact shadow under his feet (a disc whose colour runs from dark to the ground's);
  under the roof only the contact shadow.  The shadow items of :class:`.layer.MovingLayer` use this.

Measured cost: the proxy is about 300 triangles a person; the architecture's skins are built once
per renderer (about 0.1 s).
"""
from __future__ import annotations

from functools import lru_cache

import numpy as np
import shapely
import trimesh

from ..scene import figures as F

__all__ = ["SUN_DIR", "projection_onto", "shadow_geometry", "architecture_shadows", "SHADE", "COURT_RGB",
           "FLOOR_RGB", "FLOOR_SHADED"]

SUN_DIR = np.array([0.55, -0.45, 0.70])     # towards the sun: south-east, high (about 44° up)
SUN_DIR = SUN_DIR / np.linalg.norm(SUN_DIR)
SHADE = 0.62                                 # a surface in shadow keeps this much of its colour
COURT_RGB = (0.804, 0.733, 0.588)            # ground.C["court"]
FLOOR_RGB = (0.710, 0.604, 0.447)            # ground.C["earth"] (the hall's floor)
FLOOR_SHADED = tuple(c * SHADE for c in FLOOR_RGB)   # the floor under the roof, in its shadow
_LIFT = 0.006                                # m above the surface a shadow skin floats


def projection_onto(z0: float) -> np.ndarray:
    """4x4 projecting points along the sun's rays onto the plane z = z0 (+ a few mm)."""
    s = SUN_DIR
    M = np.eye(4)
    M[0, 2] = -s[0] / s[2]
    M[1, 2] = -s[1] / s[2]
    M[0, 3] = s[0] / s[2] * z0
    M[1, 3] = s[1] / s[2] * z0
    M[2, 2] = 0.0
    M[2, 3] = z0 + _LIFT
    return M


def _dark(rgb) -> tuple[float, float, float]:
    return tuple(float(c) * SHADE for c in rgb)


@lru_cache(maxsize=None)
def _proxy_parts(ground_rgb: tuple) -> tuple[tuple[str, trimesh.Trimesh], ...]:
    """A low-poly stand-in of every figure part (same frames as :data:`.figures.PARTS`), one colour."""
    c = _dark(ground_rgb)
    fr, el = F._frustum, F._ellipsoid
    hz = -(F.HIP_Z + F.WAIST - F.SKIRT_HEM)
    arm = fr(0.03, -F.UPPER_ARM, 0.07, 0.07, 5, c, cap0=False, cap1=False)
    fore = fr(0.0, -F.FOREARM - 0.06, 0.07, 0.11, 5, c, cap0=False, cap1=False)
    leg = fr(0.0, -F.THIGH, 0.07, 0.055, 4, c, cap0=False, cap1=False)
    shin = fr(0.0, -F.SHIN - 0.07, 0.05, 0.05, 4, c, cap0=False, cap1=False)
    parts = {"pelvis": fr(-0.02, 0.02, 0.16, 0.16, 5, c), "skirt": fr(0.0, -F.HEM_JOIN, F.SKIRT_TOP, 0.2, 7, c),
             "hem": fr(0.0, hz + F.HEM_JOIN, 0.2, F.SKIRT_BOTTOM, 7, c),
             "torso": fr(0.0, F.NECK_Z, (0.17, 0.12), (0.2, 0.12), 6, c),
             "head": el((0, 0, 0.13), (0.09, 0.1, 0.14), c, 0),
             "l_sleeve": fr(0.06, -0.2, 0.06, 0.12, 4, c, cap0=False, cap1=False),
             "r_sleeve": fr(0.06, -0.2, 0.06, 0.12, 4, c, cap0=False, cap1=False),
             "l_upper_arm": arm, "l_forearm": fore, "l_upper_arm_bare": arm.copy(), "l_forearm_bare": fore.copy(),
             "l_guard": fr(0, -0.01, 0.01, 0.01, 3, c), "r_upper_arm": arm.copy(), "r_forearm": fore.copy(),
             "r_ring": fr(0, -0.01, 0.01, 0.01, 3, c), "l_thigh": leg, "l_shin": shin, "r_thigh": leg.copy(),
             "r_shin": shin.copy(),
             # the undershirt's sleeve lies on the bare arm: nothing of its own in the shadow
             "l_shirt_upper": fr(0, -0.01, 0.01, 0.01, 3, c), "l_shirt_fore": fr(0, -0.01, 0.01, 0.01, 3, c)}
    return tuple((p, parts[p]) for p in F.PARTS)


def _contact_disc(ground_rgb) -> trimesh.Trimesh:
    """A soft contact shadow: a disc 0.9 m across, dark in the middle, the ground's colour at the rim."""
    n = 16
    a = np.linspace(0, 2 * np.pi, n, endpoint=False)
    rings = [(0.0, 0.40), (0.22, 0.50), (0.45, 1.0)]         # (radius, how much of the ground's colour)
    verts, cols = [[0.0, 0.0, _LIFT]], [0.38]
    for r, k in rings[1:]:
        verts += [[r * np.cos(x) * 0.9, r * np.sin(x), _LIFT] for x in a]
        cols += [k] * n
    faces = [[0, 1 + i, 1 + (i + 1) % n] for i in range(n)]
    faces += [[1 + i, 1 + n + i, 1 + n + (i + 1) % n] for i in range(n)]
    faces += [[1 + i, 1 + n + (i + 1) % n, 1 + (i + 1) % n] for i in range(n)]
    m = trimesh.Trimesh(np.array(verts), np.array(faces), process=False)
    rgb = np.clip(np.outer(cols, ground_rgb) * 255, 0, 255).astype(np.uint8)
    m.visual = trimesh.visual.ColorVisuals(m, vertex_colors=np.c_[rgb, np.full(len(rgb), 255, np.uint8)])
    return m


@lru_cache(maxsize=None)
def shadow_geometry(ground_rgb: tuple = COURT_RGB) -> F.FigureGeometry:
    """A person's shadow on ground of colour ``ground_rgb``: the proxy's parts (to be flattened by
    :func:`projection_onto` times the figure's part matrices), then the contact disc (part ``"disc"``)."""
    return F._flatten(list(_proxy_parts(tuple(ground_rgb))) + [("disc", _contact_disc(ground_rgb))])


# ---------------------------------------------------------------------------
# the architecture

def _cast(meshes: list[trimesh.Trimesh], z0: float, region: shapely.Polygon) -> np.ndarray:
    """Triangles (k, 3, 2) of the shadows the meshes cast on the plane z = z0, clipped to ``region``."""
    tris = []
    for m in meshes:
        V = np.asarray(m.vertices, float)
        T = V[np.asarray(m.faces)]
        above = (T[..., 2] > z0 + 0.02).any(axis=1)
        T = T[above]
        if not len(T):
            continue
        h = np.maximum(T[..., 2] - z0, 0.0)
        P = T[..., :2] - h[..., None] * (SUN_DIR[:2] / SUN_DIR[2])
        e1, e2 = P[:, 1] - P[:, 0], P[:, 2] - P[:, 0]
        area = np.abs(e1[:, 0] * e2[:, 1] - e1[:, 1] * e2[:, 0])
        tris.append(P[area > 1e-6])
    if not tris:
        return np.zeros((0, 3, 2))
    P = np.concatenate(tris)
    polys = shapely.polygons(np.concatenate([P, P[:, :1]], axis=1))
    clipped = shapely.intersection(polys, region)
    out = []
    for g in clipped:
        for part in getattr(g, "geoms", [g]):
            if part.geom_type != "Polygon" or part.area < 1e-6:
                continue
            ring = np.asarray(part.exterior.coords)[:-1]
            for i in range(1, len(ring) - 1):                        # convex: a fan
                out.append([ring[0], ring[i], ring[i + 1]])
    return np.asarray(out, float).reshape(-1, 3, 2)


def _skin(tris: np.ndarray, z: float) -> trimesh.Trimesh:
    V = np.concatenate([tris.reshape(-1, 2), np.full((tris.size // 2, 1), z)], axis=1)
    f = np.arange(len(V)).reshape(-1, 3)
    up = np.cross(V[f[:, 1]] - V[f[:, 0]], V[f[:, 2]] - V[f[:, 0]])[:, 2] < 0
    f[up] = f[up][:, ::-1]
    return trimesh.Trimesh(V, f, process=False)


def architecture_shadows(static_meshes, hall: dict | None) -> tuple[list, set[str]]:
    """Shadow skins for the ground's meshes: ([(name, mesh, rgb)], names of things to darken).

    ``static_meshes``: [(name, trimesh, rgb)] as the video takes them; ``hall``: the plan's hall
    (``footprint``, ``height_m``)."""
    named = {n: (m, c) for n, m, c in static_meshes}
    court = named.get("L_ting")
    if court is None:
        return [], set()
    (cx0, cy0, _), (cx1, cy1, _) = court[0].bounds
    court_box = shapely.box(cx0, cy0, cx1, cy1)
    fp = (hall or {}).get("footprint") or []
    floor_z = float((hall or {}).get("height_m") or 0.0)
    floor = shapely.Polygon(fp) if len(fp) >= 3 else None
    casters = [m for n, m, c in static_meshes
               if n not in ("field", "L_ting") and float(m.bounds[1][2] - m.bounds[0][2]) > 0.25]
    out = []
    t = _cast(casters, 0.0, court_box)
    if len(t):
        out.append(("shadow:court", _skin(t, 0.004), _dark(COURT_RGB)))
    dark: set[str] = set()
    if floor is not None and floor_z > 0:
        up = [m for m in casters if float(m.bounds[1][2]) > floor_z + 0.3]
        t = _cast(up, floor_z, floor)
        if len(t):
            out.append(("shadow:floor", _skin(t, floor_z + 0.004), _dark(FLOOR_RGB)))
            shade = shapely.unary_union(shapely.polygons(np.concatenate([t, t[:, :1]], axis=1))).buffer(0.01)
            for n, m, c in static_meshes:
                lo, hi = m.bounds
                if (n.startswith("L_") and lo[2] >= floor_z - 0.01 and hi[2] < floor_z + 1.2
                        and shade.contains(shapely.box(lo[0], lo[1], hi[0], hi[1]))):
                    dark.add(n)
    return out, dark
