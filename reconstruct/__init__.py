"""鄉射禮 — the Village Archery Ceremony reconstructed from its text.

The stages, in the order the data flows: the text (:mod:`reconstruct.text`), a reading of the
ground (:mod:`reconstruct.layout`), the rite script (:mod:`reconstruct.rite`), the planner
(:mod:`reconstruct.planner`), the plan (:mod:`reconstruct.model.plan`), and the outputs that read
it (:mod:`reconstruct.render`, :mod:`reconstruct.exchange`, :mod:`reconstruct.checks`).

>>> import reconstruct as xs
>>> r = xs.load_reading("zheng_xuan")
>>> round(r.landmarks["乏"].position[1] - r.landmarks["侯"].position[1], 2)
23.1

The functions here import their stage when called, so ``import reconstruct`` stays light.
"""
from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:                                       # pragma: no cover
    from .model.plan import Plan
    from .model.reading import Reading
    from .rite import Rite

__all__ = ["load_reading", "list_readings", "load_rite", "plan", "load_plan", "export_glb", "render_video",
           "render_still", "check", "audit"]


def load_reading(path: str | Path = "zheng_xuan") -> "Reading":
    """A reading: a TOML file, or the name of a shipped one (``zheng_xuan``, ``ao_jigong``, …)."""
    from .layout import load_reading as load
    return load(path)


def list_readings() -> list[Path]:
    """The shipped readings' files."""
    from .layout import list_readings as shipped
    return shipped()


def load_rite(path: str | Path | None = None, *, zhongbin: int | None = None, dafu: int | None = None,
              options: dict[str, str] | None = None) -> "Rite":
    """The rite script (the shipped one by default) for a cast (衆賓, 大夫) and interpretive options."""
    from .rite import load_rite as load
    return load(path, zhongbin=zhongbin, dafu=dafu, options=options)


def plan(reading: "Reading | str | Path" = "zheng_xuan", rite: "Rite | None" = None, *,
         zhongbin: int | None = None, dafu: int | None = None, options: dict[str, str] | None = None) -> "Plan":
    """Plan the whole passage on a reading: every person's and prop's track (a :class:`Plan`)."""
    from .planner import make_plan
    if not hasattr(reading, "landmarks"):
        reading = load_reading(reading)
    if rite is None:
        from .rite import load_rite as load
        rite = load(zhongbin=zhongbin, dafu=dafu, options=options, reading=reading)
    return make_plan(reading, rite)


def load_plan(path: str | Path) -> "Plan":
    """A saved plan (``xiangshe-plan/1``)."""
    from .model.plan import Plan
    return Plan.load(path)


def _reading_of(plan: "Plan", reading):
    return reading if reading is not None else load_reading(plan.layout.file or "zheng_xuan")


def export_glb(plan: "Plan", path: str | Path, reading: "Reading | None" = None, fmt: str = "glb", *,
               rig: bool = False, start=None, end=None) -> Path:
    """The ground and the whole ceremony as one animated glTF (GLB by default) for Blender and the web.
    The ground is the plan's reading unless another is given.  ``rig``: an armature, a skinned mesh and an
    animation per person, the props' and the film camera's animations (``docs/blender.md``), of the passage
    or of an excerpt (``start``/``end``: seconds, footnote numbers or event ids, as ``render_video``)."""
    if rig:
        from .exchange.rig import export_rigged
        t0, t1 = plan.time_of(start), min(plan.time_of(end, end=True), plan.duration)
        window = (t0, t1) if (t0 > 0 or t1 < plan.duration) else None
        export_rigged(_reading_of(plan, reading), plan, path, fmt=fmt, window=window)
        return Path(path)
    from .exchange.animation import export_animated
    return export_animated(_reading_of(plan, reading), plan, path, fmt=fmt)


def render_video(plan: "Plan", path: str | Path, reading: "Reading | None" = None, **options) -> dict:
    """Render the plan (or an excerpt: ``start=``/``end=`` as seconds, footnote numbers or event ids) to
    an H.264 mp4 with WebVTT captions; returns the render's statistics."""
    from .render.video import render_video as render
    from .scene.ground import ground_meshes
    return render(plan, ground_meshes(_reading_of(plan, reading), plan.props), path, **options)


def render_still(reading: "Reading", path: str | Path, view: str = "overview", **options) -> None:
    """A still PNG of the ground (views: overview, plan, hall, range, or one the reading names)."""
    from .render.still import render_still as render
    render(reading, path, view=view, **options)


def check(plan: "Plan") -> list:
    """Each spatial statement of the text measured on the plan (``Result`` with status and margin)."""
    from .checks.statements import evaluate_all
    return evaluate_all(plan)


def audit(plan: "Plan", reading: "Reading | None" = None) -> list:
    """What is physically wrong with a plan, sampled every 0.1 s: overlaps, fixtures, levels, speeds."""
    from .checks.audit import audit as run
    return run(plan, _reading_of(plan, reading))
