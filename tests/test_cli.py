"""The command line (reconstruct.cli): argument types, the video command, bad input as one line."""
import argparse
import subprocess
import sys
from pathlib import Path

import imageio.v2 as imageio
import pytest

from reconstruct import cli

ROOT = Path(__file__).resolve().parent.parent

# on one worker with the small cut's test: the passage's shots at 320x180 planned once for both (camera_of here,
# render_cut there; pytest-xdist --dist loadgroup, .ci/run)
pytestmark = pytest.mark.xdist_group("passage_320x180")


def run(*args, cwd=ROOT):
    return subprocess.run([sys.executable, "-m", "reconstruct", *map(str, args)], cwd=cwd, capture_output=True,
                          text=True)


def test_parse_point_and_size():
    assert cli.parse_point("12.5s") == 12.5
    assert cli.parse_point("0s") == 0.0
    assert cli.parse_point("88") == 88
    assert cli.parse_point("p2.sheshe") == "p2.sheshe"
    with pytest.raises(argparse.ArgumentTypeError):
        cli.parse_point("12.5")
    assert cli.parse_size("1920x1080") == (1920, 1080)
    assert cli.parse_size("16x16") == (16, 16) and cli.parse_size("7680x4320") == (7680, 4320)
    for bad in ("321x180", "0x0", "x", "100000x100", "14x16", "7682x100", "1x" + "9" * 40):
        with pytest.raises(argparse.ArgumentTypeError):
            cli.parse_size(bad)


@pytest.mark.parametrize("args", [["video", "--fps", "0"], ["video", "--speed", "0"], ["video", "--crf", "999"],
                                  ["video", "--size", "0x0"], ["plan", "--zhongbin", "abc"],
                                  ["plan", "--dafu", "-1"], ["check", "--option", "victor"]])
def test_bad_arguments_are_refused_before_any_work(args):
    with pytest.raises(SystemExit) as e:
        cli.build_parser().parse_args(args)
    assert e.value.code == 2


def test_every_command_has_help():
    for cmd in ("layout", "still", "export", "script", "plan", "shots", "video", "check", "compare", "diagram"):
        r = run(cmd, "--help")
        assert r.returncode == 0 and "usage:" in r.stdout, (cmd, r.stderr)


def test_video_command_renders_real_plan(plan_json, camera_of, tmp_path, capsys):
    out = tmp_path / "v.mp4"
    frames = tmp_path / "frames"
    # the passage's shots planned once per run (camera_of): the command films with them, as with render.py shots
    rc = cli.main(["video", "--plan", str(plan_json), "--camera", str(camera_of((320, 180))), "--from", "0.0s",
                   "--to", "0.4s", "--size", "320x180", "--no-cards", "--quiet", "--out", str(out), "--frames", str(frames)])
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


@pytest.mark.parametrize("span", [["--from", "999"], ["--from", "90s", "--to", "80s"],
                                  ["--from", "99999s", "--to", "100000s"], ["--from", "99999s"]])
def test_an_excerpt_that_does_not_exist_is_one_line(plan_json, tmp_path, span, capsys):
    rc = cli.main(["video", "--plan", str(plan_json), *span, "--quiet", "--out", str(tmp_path / "x.mp4")])
    err = capsys.readouterr().err
    assert rc == 2 and len(err.strip().splitlines()) == 1, err
    assert not (tmp_path / "x.mp4").exists()


@pytest.mark.parametrize("view, size", [("plan", "320x180"), ("plan", "16x16"), ("plan", "34x1000"),
                                        ("overview", "16x16"), ("hall", "1000x34")])
def test_a_still_of_any_even_size(tmp_path, view, size):
    """Any even WxH the video accepts makes a still of that size, in every view (the plan's panels and its
    title, footer and scale bars fit themselves to small images)."""
    out = tmp_path / "s.png"
    assert cli.main(["still", "--view", view, "--size", size, "--out", str(out)]) == 0
    w, h = map(int, size.split("x"))
    assert imageio.imread(out).shape[:2] == (h, w)


def test_a_shipped_reading_by_name_from_another_folder(tmp_path):
    r = run("layout", "ao_jigong", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert "layouts/ao_jigong.toml" in r.stdout and "乏" in r.stdout
