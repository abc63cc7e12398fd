"""The video's compositing (render/frames.py): the compiled blend against the numpy formula it replaced."""
import numpy as np
import pytest

from reconstruct.render.frames import blend_over, depth_limit


def _reference(sub, rgb, d, bg_depth, s):
    """The blend as it was written in numpy (render/frames.py before the compiled pass)."""
    bgd = bg_depth
    if s > 1:
        bgd = np.repeat(np.repeat(bgd, s, axis=0), s, axis=1)
    cov = (d < 1.0) & (d <= bgd + 2e-6)
    if s == 2:
        c16 = cov.astype(np.uint16)
        prem = rgb.astype(np.uint16) * c16[..., None]
        csum = prem[0::2, 0::2] + prem[1::2, 0::2] + prem[0::2, 1::2] + prem[1::2, 1::2]
        n = c16[0::2, 0::2] + c16[1::2, 0::2] + c16[0::2, 1::2] + c16[1::2, 1::2]
        sub[:] = ((sub.astype(np.uint16) * (4 - n)[..., None] + csum + 2) >> 2).astype(np.uint8)
    else:
        sub[cov] = rgb[cov]


@pytest.mark.parametrize("s", [1, 2])
def test_blend_is_the_numpy_formula(s):
    rng = np.random.default_rng(7)
    h, w = 37, 53
    bg_depth = rng.random((h, w)).astype(np.float32)
    bg_depth[:5] = 1.0                                        # sky behind
    d = rng.random((h * s, w * s)).astype(np.float32)
    d[rng.random(d.shape) < 0.4] = 1.0                        # the layer's empty samples
    # samples just in front of, at and just behind the background within the tolerance
    d[::3, ::5] = np.repeat(np.repeat(bg_depth, s, 0), s, 1)[::3, ::5] + np.float32(2e-6)
    d[1::4, ::3] = np.repeat(np.repeat(bg_depth, s, 0), s, 1)[1::4, ::3] + np.float32(3e-6)
    rgb = rng.integers(0, 256, (h * s, w * s, 3), dtype=np.uint8)[::-1]      # flipped, as read back
    d = d[::-1]
    frame = rng.integers(0, 256, (h + 4, w + 4, 3), dtype=np.uint8)
    want, got = frame.copy(), frame.copy()
    _reference(want[2:-2, 2:-2], rgb, d, bg_depth, s)
    blend_over(got[2:-2, 2:-2], rgb, d, depth_limit(bg_depth), s)
    assert np.array_equal(got, want)
    assert not np.array_equal(got, frame)                    # something was blended
