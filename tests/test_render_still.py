"""Stills: size, not blank, the plan puts the 侯 south of the hall."""
import numpy as np
import pytest
from PIL import Image

from reconstruct.layout.reading import LAYOUTS, load_reading
from reconstruct.render.still import render_still


@pytest.fixture(scope="module")
def reading():
    return load_reading(LAYOUTS / "zheng_xuan.toml")


def test_overview_png(reading, tmp_path):
    out = render_still(reading, tmp_path / "o.png", view="overview", supersample=1)
    im = np.asarray(Image.open(out).convert("RGB")).astype(int)
    assert im.shape == (720, 1280, 3)
    assert im.std() > 20 and len(np.unique(im.reshape(-1, 3)[::97], axis=0)) > 200
    assert [p.name for p in tmp_path.iterdir()] == ["o.png"]


def test_plan_puts_the_hou_south_of_the_hall(reading, tmp_path):
    # a hou-only and a hall-only extra colour would need hooks; instead use the plan's projection:
    # the 侯's cloth is drawn as a red bar, the hall's roof is hidden and its platform is earth-coloured
    out = render_still(reading, tmp_path / "p.png", view="plan", labels=False, supersample=1)
    im = np.asarray(Image.open(out).convert("RGB")).astype(int)
    assert im.shape == (720, 1280, 3)
    left = im[:, : im.shape[1] // 3]
    red = (left[:, :, 0] > 160) & (left[:, :, 1] < 60) & (left[:, :, 2] < 60)      # the 侯中 bar (朱)
    hall = (np.abs(left - np.array([150, 125, 90])).sum(axis=2) < 45)               # rammed-earth platform
    assert red.sum() > 5 and hall.sum() > 50
    y_hou = np.nonzero(red)[0].max()
    y_hall = np.median(np.nonzero(hall)[0])
    assert y_hou > y_hall + 300          # image rows grow southwards: the 侯 ~70 m south of the hall


def test_unknown_view(reading, tmp_path):
    with pytest.raises(ValueError):
        render_still(reading, tmp_path / "x.png", view="nowhere")
    assert not (tmp_path / "x.png").exists()
