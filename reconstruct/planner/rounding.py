"""Python's ``round(value, digits)`` of many numbers at once, exactly as Python rounds each.

Python rounds a float to ``digits`` decimals correctly: it finds the integer k nearest to the exact value
times 10**digits (ties to even) and returns the float nearest to k / 10**digits.  Here the product is worked
out in floating point for all values at once (``y``); its error is at most half a unit in its last place, far
less than 1e-6 for |y| < 1e9, so wherever y lies more than 1e-6 from a half-integer the nearest integer to y
is k itself; and k / 10**digits, both exact floats, is divided correctly rounded (IEEE), giving the same float
as Python.  The few values near a tie (or too large, or not finite) are rounded by Python itself."""
from __future__ import annotations

import numpy as np

_DOUBT = 1e-6          # how near a half-integer the scaled value must lie to be rounded by Python itself
_LARGE = 1e9           # … or how large it may be (the scaled product's error then grows past that)


def rounded(values, digits: int) -> list[float]:
    """``[round(v, digits) for v in values]`` (floats), the same numbers, worked out at once."""
    v = np.asarray(values, dtype=float)
    scale = 10.0 ** digits
    y = v * scale
    k = np.rint(y)
    out = (k / scale).tolist()
    doubt = ~(np.abs(np.abs(y - k) - 0.5) > _DOUBT) | ~(np.abs(y) < _LARGE)
    if doubt.any():
        for i in np.flatnonzero(doubt).tolist():
            out[i] = round(float(v[i]), digits)
    return out
