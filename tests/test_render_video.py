"""The video: figures land where the plan puts them, captions are burned in, the file is right."""
import json
import shutil
import subprocess
import sys
from pathlib import Path

import imageio.v2 as imageio
import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).parent / "fixtures"))
from mini_fixtures import ground, plan, raw  # noqa: E402,F401 (fixtures)

from reconstruct.model.plan import Plan  # noqa: E402
from reconstruct.render import captions, video  # noqa: E402
from reconstruct.scene.shots import CameraPath, Shot, fit_pose, project  # noqa: E402

SIZE = (320, 180)


def test_fixture_json_matches_generator(raw, plan):
    stored = json.loads((Path(__file__).parent / "fixtures" / "mini_plan.json").read_text(encoding="utf-8"))
    assert stored == json.loads(json.dumps(raw, ensure_ascii=False))
    text = (Path(__file__).parents[1] / plan.text["file"]).read_text(encoding="utf-8")
    for e in plan.events:
        assert text[e.span[0]:e.span[1]] == e.text


def _frame(plan, ground, tmp_path, t, name, camera, **kw):
    d = tmp_path / name
    video.render_video(plan, ground, tmp_path / f"{name}.mp4", size=SIZE, start=t, end=t + 0.04, frames_dir=d,
                       cards=False, progress=False, camera=camera, **kw)
    return imageio.imread(d / "frame_000000.png").astype(int)


def _group_camera(plan, t):
    """A fixed wide three-quarter view of everyone at ``t`` (the renderer's tests film with a fixed camera:
    they were written for the old planner's group shots, which issue 33's grammar no longer makes)."""
    pts = np.array([a.track.at([t])[0][0] for a in plan.actors.values()])
    box = np.vstack([pts, pts + [0, 0, 1.75]])
    pose, _ = fit_pose(box, SIZE, 200.0, 25.0)
    return CameraPath([Shot(0.0, plan.duration, pose, "group")], [0.0])


def test_figure_appears_where_the_plan_puts_it(raw, plan, ground, tmp_path):
    t = 23.0                                     # the archers bow, in a group shot
    cam = _group_camera(plan, t)
    with_all = _frame(plan, ground, tmp_path, t, "a", cam)
    p2 = json.loads(json.dumps(raw))
    del p2["actors"]["上耦上射"]
    del p2["props"]["上耦上射弓"]
    without = _frame(Plan.from_dict(p2), ground, tmp_path, t, "b", cam)
    x, y, z = plan.actors["上耦上射"].track.xyz[0]
    px, _ = project(cam.at(t), [(x, y, z + 1.1)], SIZE)
    u, v = np.round(px[0]).astype(int)
    assert 0 <= u < SIZE[0] and 0 <= v < SIZE[1]
    diff = np.abs(with_all - without).sum(-1)
    assert diff[v - 2:v + 3, u - 2:u + 3].max() > 60          # the torso is there
    far = diff.copy()
    far[max(0, v - 30):v + 30, max(0, u - 25):u + 25] = 0
    assert (far > 60).mean() < 0.01                          # and nothing else changed


def test_caption_band_and_timeline(plan, ground, tmp_path):
    img = _frame(plan, ground, tmp_path, 23.0, "c", _group_camera(plan, 23.0))
    h = SIZE[1]
    lum = img.mean(-1)
    band = lum[int(h * 0.82):int(h * 0.97)]
    assert (band > 170).sum() > 20                           # light text
    assert band.mean() < lum[int(h * 0.55):int(h * 0.75)].mean()   # on a darker band


def test_output_format_and_frame_count(plan, ground, tmp_path):
    out = tmp_path / "x.mp4"
    st = video.render_video(plan, ground, out, size=SIZE, fps=25, start=22.0, end=22.4, cards=False, progress=False)
    assert st["frames"] == 10
    r = imageio.get_reader(str(out))
    frames = [f for f in r]
    assert len(frames) == 10 and frames[0].shape == (SIZE[1], SIZE[0], 3)
    if shutil.which("ffprobe"):
        info = subprocess.run(["ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries",
                               "stream=codec_name,pix_fmt,profile,width,height", "-of", "json", str(out)],
                              capture_output=True, text=True, check=True)
        s = json.loads(info.stdout)["streams"][0]
        assert (s["codec_name"], s["pix_fmt"], s["width"], s["height"]) == ("h264", "yuv420p", *SIZE)
        assert s["profile"] == "High"
    assert "WEBVTT" in out.with_suffix(".zh.vtt").read_text(encoding="utf-8")
    assert "射" in out.with_suffix(".zh.vtt").read_text(encoding="utf-8")
    assert not list(tmp_path.glob(".*partial*"))


def test_interrupted_render_leaves_no_file(plan, ground, tmp_path, monkeypatch):
    calls = {"n": 0}
    real = captions.draw_timeline

    def boom(*a, **k):
        calls["n"] += 1
        if calls["n"] == 3:
            raise KeyboardInterrupt
        return real(*a, **k)

    monkeypatch.setattr(video.C, "draw_timeline", boom)
    out = tmp_path / "y.mp4"
    with pytest.raises(KeyboardInterrupt):
        video.render_video(plan, ground, out, size=SIZE, start=22.0, end=23.0, cards=False, progress=False)
    assert not out.exists()
    # nothing half-written: only the chunk store is left, with no finished chunk and no partial segment
    assert [p.name for p in tmp_path.iterdir()] == [".y.chunks"]
    assert [p.name for p in (tmp_path / ".y.chunks").iterdir()] == ["manifest.json"]


def test_ranges_and_events(plan):
    assert video.resolve_range(plan, "e0003", "e0003") == (10.0, 26.0)
    fn = plan.events[0].footnote
    a, b = video.resolve_range(plan, fn, fn)
    assert a == 0.0 and b >= 8.0
    assert len(video.frame_times(0, 2, 25)) == 50 and len(video.frame_times(0, 2, 25, speed=2)) == 25
    assert plan.current_event(23.0).id == "e0006"
    assert captions.display_text("司shè适堂西") == "司射适堂西"


def test_soundtrack_as_aac_stereo_and_chapters(plan, ground, tmp_path):
    from reconstruct.render.encode import ffmpeg_exe
    out = tmp_path / "s.mp4"
    video.render_video(plan, ground, out, size=SIZE, start=21.0, end=23.0, progress=False)
    info = subprocess.run([ffmpeg_exe(), "-hide_banner", "-i", str(out)], capture_output=True, text=True).stderr
    audio = [ln for ln in info.splitlines() if "Audio:" in ln]
    assert len(audio) == 1 and "aac" in audio[0] and "stereo" in audio[0] and "48000 Hz" in audio[0]
    assert "Chapter #0:0" in info
    quiet = tmp_path / "q.mp4"
    video.render_video(plan, ground, quiet, size=SIZE, start=21.0, end=23.0, progress=False, sound=False)
    info = subprocess.run([ffmpeg_exe(), "-hide_banner", "-i", str(quiet)], capture_output=True, text=True).stderr
    assert "Audio:" not in info

