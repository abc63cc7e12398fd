"""Cuts (render/cut.py): the shipped gallery cut is 5–7 minutes of the plan, in order, each clip in the plan;
a small cut renders with its dissolves, chapters and captions in the film's time, and loops without a seam;
a bad cut file is one line."""
import subprocess
from pathlib import Path

import numpy as np
import pytest

from reconstruct.errors import InputError
from reconstruct.render.cut import clip_range, cut_names, first_and_last_frames, load_cut, render_cut
from reconstruct.render.delivery import probe
from reconstruct.render.encode import ffmpeg_exe
from reconstruct.scene.ground import ground_meshes

# on one worker with the command line's tests: the passage's shots at 320x180 planned once for the small cut and
# the video command's --camera file (camera_path, per process; pytest-xdist --dist loadgroup, .ci/run)
pytestmark = pytest.mark.xdist_group("passage_320x180")


def test_gallery_cut_is_five_to_seven_minutes_of_the_plan_in_order(plan):
    assert "gallery" in cut_names()
    cut = load_cut("gallery")
    film = cut.title_seconds + sum(c.seconds for c in cut.clips) + cut.dissolve + 0.5 - cut.dissolve * (len(cut.clips) + 1)
    assert 5 * 60 <= film <= 7 * 60
    ranges = [clip_range(plan, c) for c in cut.clips]
    assert all(b > a for a, b in ranges)
    assert all(ranges[i][1] <= ranges[i + 1][0] + 1e-6 for i in range(len(ranges) - 1))   # in order, no repeat
    chapters = " ".join(c.chapter for c in cut.clips)
    for act in ("数获", "饮不胜者", "以乐射", "旅酬", "无算爵", "送宾"):                  # the acts that tell the rite
        assert act in chapters


@pytest.mark.parametrize("body,where", [
    ('title = "x"\n', "clip"),
    ('[[clip]]\nat = 81\nseconds = "long"\n', "clip[0].seconds"),
    ('[[clip]]\nat = 81\nseconds = 5\ncolour = 1\n', "clip[0].colour"),
    ('[[clip]]\nat = true\nseconds = 5\n', "clip[0].at"),
    ('dissolve = 99\n[[clip]]\nat = 81\nseconds = 5\n', "dissolve"),
    ('[[clip]\n', ""),
])
def test_bad_cut_file_is_one_line(tmp_path, body, where):
    f = tmp_path / "bad.toml"
    f.write_text(body, encoding="utf-8")
    with pytest.raises(InputError) as e:
        load_cut(f)
    assert e.value.where == where and "\n" not in str(e.value)


def test_cut_with_a_clip_outside_the_plan_exits_2_before_rendering(tmp_path, capsys):
    from reconstruct.cli import main
    f = tmp_path / "far.toml"
    f.write_text('[[clip]]\nat = "999999s"\nseconds = 5\n', encoding="utf-8")
    out = tmp_path / "far.mp4"
    mini = Path(__file__).parent / "fixtures" / "mini_plan.json"          # a saved plan: no planning here
    assert main(["video", "--plan", str(mini), "--cut", str(f), "--out", str(out), "--quiet"]) == 2
    assert "clip[0].at" in capsys.readouterr().err and not out.exists()


def test_a_small_cut_dissolves_chapters_captions_and_loops(plan, reading, tmp_path):
    f = tmp_path / "mini.toml"
    f.write_text('title = "乡射礼"\nsubtitle = "test"\ntitle_seconds = 1.0\ndissolve = 0.5\n'
                 '[[clip]]\nat = "2856s"\nseconds = 1.5\nchapter = "以乐射 · shooting"\n'
                 '[[clip]]\nat = 112\nseconds = 1.5\nspeed = 2\nchapter = "旅酬 · the cup"\n', encoding="utf-8")
    cut = load_cut(f)
    out = tmp_path / "mini.mp4"
    st = render_cut(plan, ground_meshes(reading, plan.props), out, cut, size=(320, 180), progress=False)
    info = probe(out)
    assert info["chapters"] == 3 and info["audio"]["codec"] == "aac"
    # title 1.0 + two clips of 1.5 + the card again (0.5 + 0.5), three dissolves of 0.5
    assert info["duration_s"] == pytest.approx(1.0 + 1.5 + 1.5 + 1.0 - 1.5, abs=0.1)
    assert [c[2] for c in st["chapters"]] == ["乡射礼", "以乐射 · shooting", "旅酬 · the cup"]
    assert st["chapters"][1][0] == pytest.approx(0.75, abs=1e-6)            # mid-dissolve into the first clip
    # the second clip's captions are in the film's time: from its start on (1.0 + 1.5 - 2 × 0.5 = 1.5 s)
    later = [c for c in st["captions"] if c[4] == 112]
    assert later and min(c[0] for c in later) >= 1.5 - 1e-6
    assert out.with_suffix(".zh.vtt").read_text(encoding="utf-8").startswith("WEBVTT")
    first, last = first_and_last_frames(out, (320, 180))
    assert np.abs(first.astype(int) - last.astype(int)).mean() < 2.0       # the last frame is the first: a loop
    # mid-dissolve the picture is neither the card nor the clip
    r = subprocess.run([ffmpeg_exe(), "-v", "error", "-i", str(out), "-f", "rawvideo", "-pix_fmt", "rgb24", "-"],
                       capture_output=True)
    frames = np.frombuffer(r.stdout, np.uint8).reshape(-1, 180, 320, 3).astype(int)
    d = [np.abs(frames[i] - frames[0]).mean() for i in (15, 19, 24)]          # 0.6, 0.76, 0.96 s
    assert d[0] < d[1] < d[2]
