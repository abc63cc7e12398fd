"""The ``video`` sub-command (reconstruct.render.video_cli) through a small argparse harness."""
import argparse

import imageio.v2 as imageio
import pytest

from reconstruct.render import video_cli
from reconstruct.layout.reading import DEFAULT_LAYOUT


def _run(argv):
    p = argparse.ArgumentParser()
    sub = p.add_subparsers(dest="command")
    video_cli.register_cli(sub, lambda sp: sp.add_argument("layout", nargs="?", default=str(DEFAULT_LAYOUT)))
    a = p.parse_args(argv)
    return a.func(a)


def test_parse_point():
    assert video_cli.parse_point("12.5s") == 12.5
    assert video_cli.parse_point("0s") == 0.0
    assert video_cli.parse_point("88") == 88
    assert video_cli.parse_point("p2.sheshe") == "p2.sheshe"
    with pytest.raises(argparse.ArgumentTypeError):
        video_cli.parse_point("12.5")
    assert video_cli.parse_size("1920x1080") == (1920, 1080)
    with pytest.raises(argparse.ArgumentTypeError):
        video_cli.parse_size("321x180")


def test_video_command_renders_real_plan(tmp_path, capsys):
    out = tmp_path / "v.mp4"
    frames = tmp_path / "frames"
    rc = _run(["video", "--from", "0.0s", "--to", "0.4s", "--size", "320x180", "--no-cards", "--quiet",
               "--out", str(out), "--frames", str(frames)])
    assert rc == 0
    assert out.exists() and out.stat().st_size > 0
    pngs = sorted(frames.glob("*.png"))
    assert len(pngs) == 10                       # 0.4 s at 25 fps
    assert imageio.imread(pngs[0]).shape[:2] == (180, 320)
    r = imageio.get_reader(str(out))
    try:
        assert r.get_meta_data()["size"] == (320, 180)
        assert r.get_next_data().shape[:2] == (180, 320)
    finally:
        r.close()
    text = capsys.readouterr().out
    assert f"wrote {out}" in text and "render" in text


def test_unknown_footnote_is_input_error(tmp_path):
    from reconstruct.errors import InputError

    with pytest.raises(InputError, match="footnote 999"):
        _run(["video", "--from", "999", "--quiet", "--out", str(tmp_path / "x.mp4")])
    assert not (tmp_path / "x.mp4").exists()
