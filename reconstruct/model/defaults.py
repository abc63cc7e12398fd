"""Defaults and limits every stage shares, declared once: the frame's size and rate, a still's views, the 尺's length and
bounds, how many 衆賓 and 大夫 a cast may have.  The command line, the loaders and the renderers import
them from here."""
from __future__ import annotations

from ..text.units import CHI_M, CHI_M_RANGE  # noqa: F401 (the 尺 is the text's unit: declared with it)

FRAME_SIZE: tuple[int, int] = (1280, 720)      # width, height of a video frame or a still, pixels
FRAME_SIZES: tuple[tuple[int, int], ...] = ((1280, 720), (1920, 1080), (3840, 2160))   # the usual ones
FRAME_MIN = 16                                  # a frame's side at least this (and even: x264's 4:2:0)
FRAME_MAX: tuple[int, int] = (7680, 4320)       # … and at most this
FPS = 25                                        # frames per second of the video (and the glTF's hint)

ZHONGBIN = 3                                    # 衆賓 when the rite script does not say
DAFU = 1                                        # 大夫 when the rite script does not say
ZHONGBIN_RANGE: tuple[int, int] = (1, 500)      # how many 衆賓 a cast may have
DAFU_RANGE: tuple[int, int] = (0, 500)          # how many 大夫

STILL_VIEWS: tuple[str, ...] = ("overview", "plan", "hall", "range")   # a still's own views (a reading may add more)


def size_text(size: tuple[int, int]) -> str:
    """``(1280, 720)`` → ``"1280x720"``."""
    return f"{size[0]}x{size[1]}"


def frame_size_problem(w: int, h: int) -> str | None:
    """What is wrong with a frame size (None when it is fine): both sides even, within the limits."""
    if w % 2 or h % 2 or w < FRAME_MIN or h < FRAME_MIN or w > FRAME_MAX[0] or h > FRAME_MAX[1]:
        return (f"width and height must be even, from {FRAME_MIN} to "
                f"{FRAME_MAX[0]}x{FRAME_MAX[1]}")
    return None


# the parts of the chapter a command plans (``--part``): the passage (from the count of the second round, (80),
# as shipped since the start), the first half (戒賓 … up to it: assets/rite/first.yaml) or both as one ceremony
PARTS = ("passage", "first", "whole")
PART = "passage"
