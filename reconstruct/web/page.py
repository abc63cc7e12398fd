"""The animated ceremony as ONE self-contained HTML page that opens from ``file://`` with no network.

What goes into the page (``template.html`` with ``viewer.js``, both package data):

* three.js — ``vendor/three.bundle.min.js``: three.js from npm with the GLTF loader, orbit controls
  and CSS2D labels, bundled into one script (``vendor/build_three.sh``; MIT, ``vendor/three-LICENSE.txt``).
  A page opened from ``file://`` cannot import ES modules from files, so it inlines this one script.
* the scene — the animated GLB of :func:`reconstruct.exchange.animation.build_animated` with a
  :class:`~reconstruct.exchange.channels.Compaction` (keys that LINEAR interpolation reproduces
  within 0.5 mm / 1 mrad dropped; rotations as normalized int16, core glTF), gzipped and base64'd;
  the page un-gzips it with the browser's own ``DecompressionStream``.
* the film's camera path — :func:`reconstruct.scene.shots.camera_path` as its own document
  (``xiangshe-camera/1``, docs/camera-path.md: shots and keys), gzipped and base64'd; the page
  interpolates its keys linearly (as ``scene.shots.keys_at`` does) and never plans a shot itself.
  The 影 film button and the kiosk's attract loop both play it.
* the events, captions, people, props, camera presets, the attract loop's clips, and the reading's
  name and sources — JSON.
* a subset of the shipped Noto Sans CJK SC (only the characters the page shows, WOFF) as the
  last fallback after the system's CJK fonts, so Chinese renders on a kiosk without them; nothing
  is fetched.
"""
from __future__ import annotations

import base64
import gzip
import json
import re
import time
from dataclasses import dataclass
from importlib.resources import files
from pathlib import Path

from ..exchange.animation import build_animated
from ..exchange.channels import Compaction
from ..model.defaults import FRAME_SIZE
import numpy as np

from ..model.evidence import evidence_rgb, prop_evidence
from ..scene.ground import EVIDENCE_TINT, NEUTRAL as GROUND_NEUTRAL
from ..model.plan import Plan
from ..model.reading import Reading
from ..outputs import atomic_path
from ..text.fonts import font_subset_woff
from ..scene import figures as F
from ..scene.shots import camera_path
from ..text.seed import display
from .presets import camera_presets

__all__ = ["build_page", "write_page", "PageStats", "page_data"]

WEB = files(__package__)
TOKEN = re.compile(r"@@([A-Z_]+)@@")


@dataclass
class PageStats:
    """Sizes (bytes) of what the page carries, and how long the build took (s)."""
    glb_raw: int                 # the exact animation's GLB (float32 keys; estimated from its parts)
    glb: int                     # the compact GLB
    glb_gzip: int
    embedded_scene: int          # base64 of the gzipped GLB, as in the page
    camera: int                  # base64 of the gzipped camera path, as in the page
    three: int
    font: int
    data: int
    html: int
    keys: int
    anim_bytes: int
    anim_raw_bytes: int
    seconds: float = 0.0

    def lines(self) -> list[str]:
        mb = 1e6
        return [f"scene: GLB {self.glb_raw / mb:.2f} MB exact → {self.glb / mb:.2f} MB compact "
                f"(animation {self.anim_raw_bytes / mb:.2f} → {self.anim_bytes / mb:.2f} MB, {self.keys} keys) "
                f"→ {self.glb_gzip / mb:.2f} MB gzipped → {self.embedded_scene / mb:.2f} MB base64 in the page "
                f"(saved {(self.glb_raw - self.glb_gzip) / mb:.2f} MB, {100 * (1 - self.glb_gzip / self.glb_raw):.0f} %)",
                f"page: {self.html / mb:.2f} MB = scene {self.embedded_scene / mb:.2f} + camera path {self.camera / mb:.2f} "
                f"+ three.js {self.three / mb:.2f} "
                f"+ font {self.font / mb:.2f} + data {self.data / mb:.2f} MB + viewer"]


def _text(name: str) -> str:
    return WEB.joinpath(*name.split("/")).read_text(encoding="utf-8")


def compact_scene(reading: Reading, plan: Plan) -> tuple[bytes, dict]:
    """The compact GLB's bytes and the export's summary (no glTF camera: the page carries the camera path
    itself, with its field of view, which a glTF camera cannot animate)."""
    gltf, summary = build_animated(reading, plan, compaction=Compaction(), camera=False)
    return b"".join(gltf.save_to_bytes()), summary


def _event_json(e) -> dict:
    return {"id": e.id, "text": e.text, "shown": display(e.text), "gloss": e.gloss, "footnote": e.footnote,
            "start": round(e.start, 4),
            "end": round(e.end, 4), "actors": list(e.actors), "rule": bool(e.rule)}


def page_data(reading: Reading, plan: Plan, attract: list[dict] | None = None,
              alternatives: dict | None = None) -> dict:
    """Everything the page shows besides the scene and the camera path: reading, events, footnotes, people,
    props, presets and the attract loop's clips (``attract``: ``{start, end, speed,
    chapter}`` in plan seconds; default: the whole passage as it goes)."""
    events = sorted(plan.events, key=lambda e: e.start)
    footnotes: dict[int, float] = {}
    for e in events:
        if e.footnote is not None and e.footnote not in footnotes:
            footnotes[e.footnote] = round(e.start, 3)
    return {
        "title": "鄉射禮 The Village Archery Ceremony",
        "reading": {"name": reading.name, "name_en": reading.name_en, "file": Path(reading.file).name,
                    "sources": list(reading.sources)},
        "duration": plan.duration,
        "linger": 1.5,
        "events": [_event_json(e) for e in events],
        "footnotes": [{"footnote": k, "start": v} for k, v in footnotes.items()],
        "people": {aid: {"label": a.label or aid, "role": F.role_of(aid), "side": a.side, "aliases": list(a.aliases)}
                   for aid, a in plan.actors.items()},
        "props": {pid: {"label": p.label or pid, "kind": p.kind} for pid, p in plan.props.items()},
        "presets": camera_presets(plan),
        "tags": {"max": MAX_TAGS},
        "attract": attract_clips(plan, attract),
        "evidence": evidence_data(plan, alternatives),
    }


def evidence_data(plan: Plan, alternatives: dict | None = None) -> dict:
    """The evidence view's data (issue 32), read from the plan: the legend (kind → label, colour), the reading's
    sources with their provenance, each landmark's evidence kind and basis (with ``alternatives``: where the other
    readings put it, handed in by the command line), and each prop's kind of evidence (``prop_evidence``).
    Empty (no toggle in the page) for a plan made before the evidence was recorded."""
    legend = dict(plan.layout.evidence_legend or {})
    if not legend:
        return {}
    alternatives = alternatives or {}

    def hex_of(rgb) -> str:
        return "#" + "".join(f"{min(255, max(0, round(255 * float(v)))):02x}" for v in rgb)

    # the ground's colours as the stills and the video draw them (scene.ground.evidence_parts): the landmark's
    # colour, the wide surfaces (the court, the gate) tinted only, what belongs to no landmark neutral
    ground = {k: hex_of(EVIDENCE_TINT.get(k, 1.0) * np.array(evidence_rgb(lm.evidence))
                        + (1 - EVIDENCE_TINT.get(k, 1.0)) * np.array(GROUND_NEUTRAL))
              for k, lm in plan.landmarks.items() if lm.evidence}
    return {
        "legend": legend,
        "neutral": hex_of(GROUND_NEUTRAL),
        "ground": ground,
        "sources": dict(plan.layout.bibliography or {}),
        "landmarks": {k: {"label_en": lm.label_en, "evidence": lm.evidence, "placed_by": lm.placed_by,
                          "basis": [b.as_plan() for b in lm.basis], "alternatives": alternatives.get(k, {})}
                      for k, lm in plan.landmarks.items() if lm.evidence},
        "props": {pid: str(prop_evidence(p.kind, plan.landmarks)) for pid, p in plan.props.items()},
    }


MAX_TAGS = 4           # name tags at once: the current act's people, as the video tags those acting


def attract_clips(plan: Plan, clips: list[dict] | None) -> list[dict]:
    """The attract loop's clips, checked and rounded (plan seconds); the whole passage when none are given."""
    if not clips:
        return [{"start": 0.0, "end": round(plan.duration, 4), "speed": 1.0, "chapter": ""}]
    out = []
    for c in clips:
        t0, t1 = max(0.0, float(c["start"])), min(plan.duration, float(c["end"]))
        if t1 > t0:
            out.append({"start": round(t0, 4), "end": round(t1, 4), "speed": float(c.get("speed", 1.0)),
                        "chapter": str(c.get("chapter", ""))})
    return out or attract_clips(plan, None)


def film_document(plan: Plan) -> dict:
    """The film's camera path as the page carries it: the one path of the passage
    (:func:`~reconstruct.scene.shots.camera_path` at the video's frame size), in its exported format."""
    return camera_path(plan, FRAME_SIZE).to_dict(FRAME_SIZE)


def _gzip64(data: bytes) -> str:
    return base64.b64encode(gzip.compress(data, compresslevel=6, mtime=0)).decode("ascii")


def _script_safe(s: str) -> str:
    """Text that can sit inside a <script> element: no ``</`` and no ``<!--``."""
    return s.replace("</", "<\\/").replace("<!--", "<\\!--")


def build_page(reading: Reading, plan: Plan, attract: list[dict] | None = None, *,
               ghost: tuple[Reading, Plan] | None = None, extra: dict | None = None,
               alternatives: dict | None = None) -> tuple[str, PageStats]:
    """The page's HTML and its sizes (``attract``: the attract loop's clips, see :func:`page_data`).
    ``ghost``: a second reading and plan whose scene the page plays as a ghost beside the first (the compare
    page, :mod:`.compare`), with ``extra`` added to the page's data."""
    t0 = time.perf_counter()
    glb, summary = compact_scene(reading, plan)
    glb_gz = gzip.compress(glb, compresslevel=6, mtime=0)      # 9 takes 8x longer for 1.5 % less
    scene64 = base64.b64encode(glb_gz).decode("ascii")
    ghost64 = ""
    if ghost is not None:
        gglb, gsum = compact_scene(*ghost)
        ghost64 = base64.b64encode(gzip.compress(gglb, compresslevel=6, mtime=0)).decode("ascii")
    camera64 = _gzip64(json.dumps(film_document(plan), separators=(",", ":")).encode())
    data = page_data(reading, plan, attract, alternatives)
    data.update(extra or {})
    data_json = _script_safe(json.dumps(data, ensure_ascii=False, separators=(",", ":")))
    template, viewer = _text("template.html"), _text("viewer.js")
    three = _text("vendor/three.bundle.min.js")
    if "</script" in three.lower() or "<!--" in three:
        raise ValueError("vendor/three.bundle.min.js cannot be inlined: it contains </script or <!--")
    font = font_subset_woff(template + viewer + data_json)
    parts = {"TITLE": data["title"], "DATA": data_json, "SCENE": scene64, "GHOST": ghost64, "CAMERA": camera64,
             "THREE": three, "VIEWER": _script_safe(viewer), "FONT": base64.b64encode(font).decode("ascii"),
             "THREE_LICENSE": _text("vendor/three-LICENSE.txt").replace("--", "- -")}
    html = TOKEN.sub(lambda m: parts[m.group(1)], template)
    raw = len(glb) - summary["anim_bytes"] + summary["anim_raw_bytes"]
    stats = PageStats(glb_raw=raw, glb=len(glb), glb_gzip=len(glb_gz), embedded_scene=len(scene64) + len(ghost64),
                      camera=len(camera64),
                      three=len(three), font=len(parts["FONT"]), data=len(data_json.encode()),
                      html=len(html.encode()), keys=summary["keys"], anim_bytes=summary["anim_bytes"],
                      anim_raw_bytes=summary["anim_raw_bytes"])
    stats.seconds = time.perf_counter() - t0
    return html, stats


def write_html(html: str, out: str | Path) -> None:
    """Write a page (it appears only when complete)."""
    with atomic_path(out) as tmp:
        tmp.write_text(html, encoding="utf-8")
        tmp.chmod(0o644)


def write_page(reading: Reading, plan: Plan, out: str | Path, attract: list[dict] | None = None,
               alternatives: dict | None = None) -> PageStats:
    """Write the page (it appears only when complete); ``alternatives``: landmark → where each other reading
    puts it (the evidence view's click)."""
    html, stats = build_page(reading, plan, attract, alternatives=alternatives)
    write_html(html, out)
    return stats
