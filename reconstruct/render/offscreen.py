"""The one door to VTK: off-screen plotters, lights, mesh actors, cameras and pixel/depth read-back.

Only this module imports PyVista or VTK; the video's frame renderer (:mod:`.frames`) and the
stills (:mod:`.still`) go through it.  Off-screen windows use EGL unless the environment says
otherwise (``VTK_DEFAULT_OPENGL_WINDOW``), so no display is needed.
"""
from __future__ import annotations

import os

os.environ.setdefault("VTK_DEFAULT_OPENGL_WINDOW", "vtkEGLRenderWindow")

import numpy as np  # noqa: E402
import pyvista as pv  # noqa: E402
import vtk  # noqa: E402
from vtk.util.numpy_support import vtk_to_numpy  # noqa: E402

__all__ = ["plotter", "add_light", "add_mesh", "wrap", "triangles", "upload", "set_camera", "read_pixels",
           "screenshot", "WorldToDisplay", "set_input", "textured", "texture"]


def plotter(window_size, *, background: tuple[str, str], fxaa: bool) -> pv.Plotter:
    """An off-screen plotter with no lights of its own, no multisampling, a vertical sky gradient
    (``background`` = bottom, top; one colour when both are the same) and FXAA on or off."""
    pl = pv.Plotter(off_screen=True, window_size=tuple(int(v) for v in window_size), lighting="none")
    pl.disable_anti_aliasing()
    pl.renderer.SetUseFXAA(bool(fxaa))
    if background[0] == background[1]:
        pl.set_background(background[0])
    else:
        pl.set_background(background[0], top=background[1])
    return pl


def add_light(pl: pv.Plotter, *, kind: str = "scene light", color=(1.0, 1.0, 1.0), intensity: float = 1.0,
              position=None, focal_point=(0.0, 0.0, 0.0), directional: bool = False) -> None:
    """A light: ``kind`` "scene light" (fixed in the world, shining from ``position`` to
    ``focal_point``; ``directional``: parallel rays) or "headlight" (from the camera)."""
    if kind == "headlight":
        pl.add_light(pv.Light(light_type="headlight", intensity=intensity, color=color))
        return
    if directional:
        light = pv.Light(light_type=kind, intensity=intensity, color=color)
        light.positional = False
        light.position = tuple(position)
        light.focal_point = tuple(focal_point)
    else:
        light = pv.Light(position=tuple(position), focal_point=tuple(focal_point), color=color,
                         intensity=intensity, light_type=kind)
    pl.add_light(light)


def wrap(mesh):
    """A PyVista mesh of a trimesh (or a PyVista mesh as it is)."""
    return mesh if isinstance(mesh, pv.DataSet) else pv.wrap(mesh)


def triangles(vertices, faces, colors=None, normals=None) -> pv.PolyData:
    """A triangle mesh; optional per-vertex uint8 RGB ``colors`` ("rgb") and ``normals``."""
    faces = np.asarray(faces)
    poly = pv.PolyData(np.asarray(vertices, float).copy(),
                       np.c_[np.full(len(faces), 3), faces].astype(np.int64).ravel())
    if colors is not None:
        poly.point_data["rgb"] = colors
    if normals is not None:
        poly.point_data["Normals"] = np.asarray(normals, float).copy()
        poly.point_data.active_normals_name = "Normals"
    return poly


def textured(mesh, uv: np.ndarray) -> pv.PolyData:
    """A PyVista mesh of a trimesh with texture coordinates ``uv`` (one per vertex)."""
    poly = pv.wrap(mesh)
    poly.active_texture_coordinates = np.asarray(uv, np.float32)
    return poly


def texture(rgb: np.ndarray) -> pv.Texture:
    """A repeating, mipmapped texture of an (h, w, 3) uint8 image."""
    tex = pv.Texture(np.ascontiguousarray(rgb))
    tex.repeat = True
    tex.interpolate = True
    tex.mipmap = True
    return tex


def add_mesh(pl: pv.Plotter, mesh, **kw):
    """Add a mesh (trimesh or PyVista) with PyVista's options; returns the VTK actor."""
    return pl.add_mesh(wrap(mesh), **kw)


def set_input(actor, poly) -> None:
    """Make an actor draw another mesh."""
    actor.mapper.SetInputData(poly)


def upload(poly, V: np.ndarray, N: np.ndarray) -> None:
    """Write new vertex positions and normals into a mesh in place and mark it changed."""
    poly.points[:] = V
    poly.GetPoints().Modified()
    poly.point_data["Normals"][:] = N
    poly.GetPointData().GetNormals().Modified()
    poly.Modified()


def set_camera(cam, eye, target, up, view_angle: float, near: float = 0.5, far: float = 600.0) -> None:
    """Place a VTK camera (perspective, centred window, fixed clipping range)."""
    cam.SetPosition(*eye)
    cam.SetFocalPoint(*target)
    cam.SetViewUp(*up)
    cam.SetViewAngle(view_angle)
    cam.SetWindowCenter(0.0, 0.0)
    cam.SetClippingRange(near, far)


def read_pixels(rw, x0: int, y0: int, x1: int, y1: int, win_h: int, depth: bool = True):
    """RGB (h, w, 3) uint8 and depth (h, w) float of a window rectangle [x0, x1) × [y0, y1) in
    top-left pixel coordinates (depth None when not asked)."""
    vx0, vy0, vx1, vy1 = x0, win_h - y1, x1 - 1, win_h - y0 - 1
    arr = vtk.vtkUnsignedCharArray()
    rw.GetPixelData(vx0, vy0, vx1, vy1, 0, arr, 0)
    rgb = vtk_to_numpy(arr).reshape(y1 - y0, x1 - x0, 3)[::-1]
    if not depth:
        return rgb, None
    z = vtk.vtkFloatArray()
    rw.GetZbufferData(vx0, vy0, vx1, vy1, z)
    return rgb, vtk_to_numpy(z).reshape(y1 - y0, x1 - x0)[::-1]


def screenshot(pl: pv.Plotter) -> tuple[np.ndarray, np.ndarray]:
    """Render; the whole window's RGB (h, w, 3) and its depth (distance along the view, NaN where empty)."""
    pl.render()
    img = pl.screenshot(return_img=True)
    depth = pl.get_image_depth(fill_value=np.nan)
    return img[:, :, :3], np.asarray(depth)


class WorldToDisplay:
    """World points → display pixels (origin bottom-left) of a plotter's current camera."""

    def __init__(self, pl: pv.Plotter):
        self.pl = pl
        self.coord = vtk.vtkCoordinate()
        self.coord.SetCoordinateSystemToWorld()

    def __call__(self, p) -> tuple[float, float]:
        self.coord.SetValue(*map(float, p))
        x, y = self.coord.GetComputedDoubleDisplayValue(self.pl.renderer)
        return x, y
