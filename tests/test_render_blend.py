"""The video's compositing (render/frames.py): the compiled blend against the numpy formula it replaced."""
import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).parent / "fixtures"))
from mini_fixtures import ground, plan, raw  # noqa: E402,F401 (fixtures)

from reconstruct.render.frames import blend_over, depth_limit  # noqa: E402


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


def test_supersampling_once_or_twice(plan, ground):
    """The moving layer drawn at the frame's size (supersample=1) instead of twice it: the same picture but for
    the people's edges (PSNR and the share of pixels that differ measured on a frame of the mini plan with
    people moving); anything but 1 or 2 is refused."""
    from reconstruct.render.frames import FrameRenderer
    from reconstruct.render.layer import MovingLayer
    from reconstruct.scene.sampler import PlanSampler
    from reconstruct.scene.shots import CameraPose

    size = (320, 180)
    probe = MovingLayer(PlanSampler(plan))
    probe.update(22.96)
    moved = probe.update(23.0)
    who = next(ident for k, (kind, ident) in enumerate(probe.items) if kind == "actor" and k in moved)
    head = probe.heads[who]
    pose = CameraPose(tuple(head + [3.0, -3.0, 0.5]), tuple(head - [0.0, 0.0, 0.8]))   # a moving person, close
    frames = {}
    for ss in (2, 1):
        layer = MovingLayer(PlanSampler(plan))
        layer.update(22.96)
        r = FrameRenderer(ground, layer, size, ss=ss)
        try:
            frames[ss] = r.composite(pose, layer.update(23.0), 23.0).astype(float)
            assert r.stats["layer"] == 1 and r.stats["blend_px"] > 0
        finally:
            r.close()
    diff = np.abs(frames[2] - frames[1]).max(-1)
    mse = ((frames[2] - frames[1]) ** 2).mean()
    psnr = 10 * np.log10(255 ** 2 / mse)
    print(f"supersample 1 against 2: PSNR {psnr:.1f} dB, max abs {diff.max():.0f}, {100 * (diff > 0).mean():.2f} % of pixels")
    assert 0 < (diff > 0).mean() < 0.05 and psnr > 33.0
    with pytest.raises(ValueError):
        FrameRenderer(ground, MovingLayer(PlanSampler(plan)), size, ss=3)
