"""The frames of the exchange formats: the plan's (x east, y north, z up) and glTF's Y-up
(x east, y up, z south); colours from sRGB to glTF's linear factors."""
from __future__ import annotations

import numpy as np

__all__ = ["Y_UP", "to_yup", "from_yup", "srgb_to_linear"]

#: the rotation taking the plan's z-up frame to glTF's Y-up frame: (x, y, z) → (x, z, −y)
Y_UP = np.array([[1.0, 0, 0], [0, 0, 1.0], [0, -1.0, 0]])


def to_yup(points) -> np.ndarray:
    """(x east, y north, z up) → glTF (x, y up, z south): (x, z, −y)."""
    p = np.asarray(points, float)
    return np.stack([p[..., 0], p[..., 2], -p[..., 1]], axis=-1)


def from_yup(points) -> np.ndarray:
    """glTF (x, y up, z south) → the plan's (x east, y north, z up): the inverse of :func:`to_yup`."""
    p = np.asarray(points, float)
    return np.stack([p[..., 0], -p[..., 2], p[..., 1]], axis=-1)


def srgb_to_linear(c) -> list[float]:
    c = np.asarray(c, float)
    return list(np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4))
