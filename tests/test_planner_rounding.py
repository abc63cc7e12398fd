"""rounding.rounded: Python's round() of many numbers at once, the same floats bit for bit (the plan's
numbers are written with it: any difference would change the plan's bytes)."""
import struct

import numpy as np

from reconstruct.planner.rounding import rounded


def _bits(xs):
    return [struct.pack("<d", x) for x in xs]


def test_rounded_is_round_bit_for_bit():
    rng = np.random.default_rng(29)
    for digits in (2, 3, 4):
        k = rng.integers(-10**6, 10**6, 20_000)
        ties = (k + 0.5) / 10**digits                       # halfway (as near as a float gets)
        v = np.concatenate([rng.uniform(-400.0, 400.0, 20_000), ties, np.nextafter(ties, np.inf),
                            np.nextafter(ties, -np.inf), k / 10**digits,
                            [0.0, -0.0, -1e-9, 0.03125, -0.03125, 2.675, 1.005, 0.285, 1e12, -3e15]])
        assert _bits(rounded(v, digits)) == _bits([round(x, digits) for x in v.tolist()])


def test_rounded_gives_python_floats():
    out = rounded(np.asarray([1.23456, -0.00004]), 4)
    assert out == [1.2346, -0.0] and all(type(x) is float for x in out)
    assert struct.pack("<d", out[1]) == struct.pack("<d", -0.0)      # the sign kept, as round() keeps it
