"""The Blender set-up script (:mod:`.blender_setup`, shipped with the package), written with its settings:
the GLB it imports, the frame rate, the film's frame size, the video's sun and sky, the roof's nodes."""
from __future__ import annotations

import re
from pathlib import Path

from ..model.defaults import FPS, FRAME_SIZE
from ..outputs import atomic_path

__all__ = ["write_blender_script", "SCRIPT"]

SCRIPT = Path(__file__).with_name("blender_setup.py")


def write_blender_script(target: str | Path, glb: str | Path | None = None, *, sun_dir=None, sun_rgb: str | None = None,
                         sky=None, roof=(), roughness: float = 0.9) -> Path:
    """Write the set-up script to ``target`` with its SETTINGS filled in (the GLB as an absolute path, so
    the script also runs from Blender's text editor).  The file appears only when complete."""
    text = SCRIPT.read_text(encoding="utf-8")
    settings = {"glb": str(Path(glb).resolve()) if glb else None, "fps": FPS, "size": list(FRAME_SIZE),
                "sun_dir": [round(float(v), 4) for v in (sun_dir if sun_dir is not None else (0.6, -0.45, 0.7))],
                "sun_rgb": sun_rgb or "#fff0d6", "sky": list(sky or ("#c9d3d6", "#8fa6b8")),
                "roughness": float(roughness), "roof": list(roof)}
    text, n = re.subn(r"^SETTINGS = \{.*?\}\n", lambda _: f"SETTINGS = {settings!r}\n", text, count=1,
                      flags=re.S | re.M)
    if n != 1:
        raise RuntimeError(f"{SCRIPT}: no SETTINGS line to fill in")
    target = Path(target)
    with atomic_path(target) as tmp:
        tmp.write_text(text, encoding="utf-8")
        tmp.chmod(0o644)
    return target
