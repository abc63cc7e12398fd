"""The web page: one self-contained file; its compact GLB (validator, positions); and in a real
browser (Debian's headless chromium driven by Playwright, network blocked): it loads from file://,
draws, scrubbing puts people where the plan says, the caption is the event's, presets move the
camera, a person under the pointer is named.  Browser tests skip when no chromium is installed."""
import base64
import gzip
import io
import json
import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pygltflib
import pytest

from reconstruct.exchange.animation import actor_node_name, prop_node_name
from reconstruct.exchange.channels import from_yup, read_channels, sample_channel
from reconstruct.model.plan import Plan
from reconstruct.scene.sampler import PlanSampler
from reconstruct.text.seed import display
from reconstruct.web import build_page
from reconstruct.web.browser import open_page, why_no_browser

ROOT = Path(__file__).resolve().parent.parent
TOOLS = ROOT.parent / "shared" / "tools"
FIXTURES = Path(__file__).parent / "fixtures"


# one worker builds this module's expensive fixtures once (pytest-xdist --dist loadgroup, .ci/run), the same
# that plans the passage's shots for the rig and the camera path's tests (camera_path, once per process)
pytestmark = pytest.mark.xdist_group("passage_camera")


@pytest.fixture(scope="module")
def built(reading, plan):
    return build_page(reading, plan)


@pytest.fixture(scope="module")
def page_file(built, tmp_path_factory):
    path = tmp_path_factory.mktemp("web") / "xiangshe.html"
    path.write_text(built[0], encoding="utf-8")
    return path


def _embedded(html: str, ident: str) -> str:
    m = re.search(rf'<script type="[^"]+" id="{ident}">(.*?)</script>', html, re.S)
    assert m, ident
    return m.group(1)


@pytest.fixture(scope="module")
def page_glb(built, tmp_path_factory):
    data = gzip.decompress(base64.b64decode(_embedded(built[0], "xs-scene")))
    path = tmp_path_factory.mktemp("webglb") / "compact.glb"
    path.write_bytes(data)
    return path


# -- the file --------------------------------------------------------------------

def test_one_file_under_budget_with_nothing_to_fetch(built, plan):
    html, stats = built
    assert stats.html == len(html.encode()) < 8e6
    assert stats.glb_gzip < stats.glb < stats.glb_raw                       # compression saved something
    assert not re.search(r"<(script|img|link|iframe)[^>]*\s(src|href)=", html)   # everything inline
    assert "url(http" not in html and "@import" not in html
    assert "default-src 'none'" in html                                     # the page may not reach out
    data = json.loads(_embedded(html, "xs-data").replace("<\\/", "</"))
    assert [e["id"] for e in data["events"]] == [e.id for e in sorted(plan.events, key=lambda e: e.start)]
    assert set(data["props"]) == set(plan.props) and set(data["people"]) == set(plan.actors)
    assert {"overview", "hall", "range", "wu", "hou", "plan"} <= set(data["presets"])
    assert data["reading"]["sources"] and data["reading"]["name"]
    assert "The MIT License" in html and "three.js authors" in html        # three's licence travels with it


def test_compact_glb_positions_equal_the_plan(page_glb, plan):
    gl = pygltflib.GLTF2().load(str(page_glb))
    ch = read_channels(gl)
    rot = [gl.accessors[s.output] for a in gl.animations for c, s in ((c, a.samplers[c.sampler]) for c in a.channels)
           if c.target.path == "rotation"]
    assert rot and all(a.componentType == pygltflib.SHORT and a.normalized for a in rot)   # quantised rotations
    sampler = PlanSampler(plan)
    for ev in plan.events[:: max(1, len(plan.events) // 9)]:
        t = (ev.start + ev.end) / 2
        for aid, track in sampler.actors.items():
            want = sampler.position(track, t)[0]
            tt, vv, _ = ch[(actor_node_name(aid), "translation")]
            assert np.linalg.norm(from_yup(sample_channel(tt, vv, t)) - want) < 0.01, (aid, t)


def test_compact_glb_passes_the_khronos_validator(page_glb):
    if shutil.which("node") is None:
        pytest.skip("node not installed: the Khronos glTF validator cannot run")
    if not (TOOLS / "gltf_validate.sh").exists():
        pytest.skip(f"validator script not found at {TOOLS}")
    r = subprocess.run(["bash", str(TOOLS / "gltf_validate.sh"), str(page_glb)], capture_output=True, text=True,
                       timeout=300)
    if r.returncode == 2:
        pytest.skip("gltf-validator could not be set up: " + r.stdout[-200:])
    assert "0 errors, 0 warnings" in r.stdout.strip().splitlines()[-1], r.stdout


def test_any_props_and_flying_arrows(reading):
    """Whatever props the plan has (arrows in flight, 80 tallies) become nodes of the page's scene."""
    d = json.loads((FIXTURES / "plan_small.json").read_text(encoding="utf-8"))
    first = next(iter(d["actors"].values()))["keys"][0]
    x, y = first[1], first[2]
    d["props"]["上耦上射矢1"] = {"label": "arrow", "aliases": [], "kind": "矢", "carrier": [],
                               "keys": [[0, x, y, 1.5, 180, "flight"], [2, x, y - 30, 1.5, 180, "flight"],
                                        [3, x, y - 30, 0.0, 180, "rest"]]}
    for i in range(1, 81):
        d["props"][f"算{i:02d}"] = {"label": "tally", "aliases": [], "kind": "算", "carrier": [],
                                   "keys": [[0, x + i * 0.01, y, 0.7, 0, "rest"]]}
    plan = Plan.from_dict(d)
    html, _ = build_page(reading, plan)
    gl = pygltflib.GLTF2().load_from_bytes(gzip.decompress(base64.b64decode(_embedded(html, "xs-scene"))))
    names = {n.name for n in gl.nodes}
    assert {prop_node_name(p) for p in plan.props} <= names
    ch = read_channels(gl)
    tt, vv, _ = ch[(prop_node_name("上耦上射矢1"), "translation")]
    assert np.allclose(from_yup(sample_channel(tt, vv, 1.0)), [x, y - 15, 1.5], atol=0.01)


# -- in a real browser -------------------------------------------------------------

@pytest.fixture(scope="module")
def page(page_file):
    why = why_no_browser()
    if why:
        pytest.skip(why)
    with open_page(page_file) as p:
        yield p


def test_loads_offline_and_draws(page):
    assert page.blocked == [] and page.errors == []
    page.evaluate("xiangshe.setPreset('overview')")
    png = page.locator("#view canvas").screenshot()
    from PIL import Image
    px = np.asarray(Image.open(io.BytesIO(png)).convert("L"), float)
    assert px.std() > 12, px.std()                                          # not a blank canvas
    # the embedded font, once loaded (loading is asynchronous: on a busy machine it may not be done yet)
    assert page.evaluate("async () => { await document.fonts.load('22px XiangsheCJK', '鄉射禮');"
                         " return document.fonts.check('22px XiangsheCJK', '鄉射禮'); }")


def _times(plan):
    picks = [plan.events[i] for i in np.linspace(0, len(plan.events) - 1, 6).astype(int)]
    return [round(t, 3) for e in picks for t in (e.start + 0.3, (e.start + e.end) / 2)]


def test_scrubbing_puts_people_where_the_plan_says(page, plan):
    sampler = PlanSampler(plan)
    assert sorted(page.evaluate("xiangshe.people()")) == sorted(plan.actors)
    assert sorted(page.evaluate("xiangshe.props()")) == sorted(plan.props)
    page.evaluate("xiangshe.pause()")
    for t in _times(plan):
        got = page.evaluate("(t) => { xiangshe.setTime(t); return Object.fromEntries("
                            "xiangshe.people().map((a) => [a, xiangshe.worldPosition(a)])); }", t)
        for aid, track in sampler.actors.items():
            want = sampler.position(track, t)[0]
            assert np.linalg.norm(np.array(got[aid]) - want) < 0.01, (aid, t, got[aid], want)


def test_caption_is_the_current_event(page, plan):
    for t in _times(plan) + [plan.time_of(104) + 1.0]:
        cap = page.evaluate("(t) => { xiangshe.setTime(t); return xiangshe.caption(); }", t)
        ev = plan.current_event(t)
        assert cap["id"] == ev.id and cap["text"] == display(ev.text) and cap["gloss"] == ev.gloss, t
        assert cap["footnote"] == (f"注 {ev.footnote}" if ev.footnote is not None else "")
        assert page.locator("#cap-zh").inner_text() == display(ev.text)     # 射, not the data's shè


def test_scrubber_works_while_paused(page, plan):
    page.evaluate("xiangshe.pause()")
    t = plan.time_of(104) + 2.0
    page.locator("#scrub").evaluate("(el, t) => { el.value = t; el.dispatchEvent(new Event('input')); }", t)
    assert page.evaluate("xiangshe.time()") == pytest.approx(t, abs=0.06)
    assert not page.evaluate("xiangshe.playing()")
    assert page.locator(".mark").count() == len({e.footnote for e in plan.events if e.footnote is not None})


def test_presets_move_the_camera(page):
    seen = {}
    for name in page.evaluate("xiangshe.presets()"):
        page.evaluate("(n) => xiangshe.setPreset(n)", name)
        seen[name] = page.evaluate("xiangshe.camera()")
    eyes = np.array([c["position"] for c in seen.values()])
    assert len(seen) == 6 and len({tuple(np.round(e, 1)) for e in eyes}) == 6
    assert seen["plan"]["position"][2] > 40                                 # from above
    assert seen["hou"]["target"][1] < -30 and seen["hall"]["target"][1] > -10


def test_a_person_under_the_pointer_is_named(page, plan):
    t = plan.time_of(104) + 2.0
    page.evaluate("(t) => { xiangshe.setTime(t); xiangshe.setPreset('hall'); }", t)
    named = 0
    for aid in plan.actors:
        x, y = page.evaluate("(a) => xiangshe.screenPoint(a)", aid)
        if not (0 < x < 1280 and 120 < y < 650):
            continue
        page.mouse.move(x, y)
        info = page.locator("#info")
        if not info.is_visible():
            continue
        who = info.locator(".name").inner_text()
        aid_seen = next(a for a, act in plan.actors.items() if (act.label or a) == who)
        d = page.evaluate("(a) => xiangshe.describe(a)", aid_seen)
        mine = [e for e in plan.events if aid_seen in e.actors and e.start <= t < e.end]
        if mine:
            assert d["clause"] == display(max(mine, key=lambda e: e.start).text)
        named += 1
    assert named >= 3


def test_name_tags_toggle(page):
    assert page.locator(".tag").count() >= 3
    page.locator("#tags").click()
    assert "hidden" in page.locator("#labels").get_attribute("class")
    page.locator("#tags").click()
    assert "hidden" not in (page.locator("#labels").get_attribute("class") or "")


def test_the_film_follows_the_camera_path(page, plan):
    """影 film: the page's camera is the video's camera path (scene.shots.camera_path, its exported keys carried in
    the page, interpolated linearly), at the time shown; the vertical field of view is the key's, widened only as
    much as a screen narrower than the film's frame needs to show all of it."""
    from reconstruct.model.defaults import FRAME_SIZE
    from reconstruct.scene.shots import camera_path, keys_at
    path = camera_path(plan, FRAME_SIZE)
    k = path.keys()
    w, h = page.evaluate("[innerWidth, innerHeight]")
    held = [s for s in path.shots if s.t1 - s.t0 > 6.0 and s.t0 > 100.0]
    # a shot is reached by a cut (or, where the grammar allows one, a move): just after the third of the way
    # through the film's changes the page shows the new shot's key, not a blend with the last
    changes = [s.t0 + max(0.05, 0.5 * path.moves[i]) for i, s in enumerate(path.shots) if i and s.t0 > 100.0]
    for t in [(held[0].t0 + held[0].t1) / 2, (held[len(held) // 2].t0 + held[len(held) // 2].t1) / 2,
              changes[len(changes) // 3]]:
        page.evaluate("(t) => { xiangshe.setTime(t); return xiangshe.film(true); }", t)
        cam = page.evaluate("xiangshe.camera()")
        want = keys_at(k, [t])[0]
        assert np.allclose(cam["position"], want[1:4], atol=0.005), (t, cam, want)
        assert np.allclose(cam["target"], want[4:7], atol=0.005), (t, cam, want)
        aspect, film = w / h, FRAME_SIZE[0] / FRAME_SIZE[1]
        vfov = want[10] if aspect >= film else np.degrees(2 * np.arctan(np.tan(np.radians(want[10]) / 2) * film / aspect))
        assert cam["fov"] == pytest.approx(vfov, abs=1e-6)
    assert page.evaluate("xiangshe.film(false)") is False


# -- the kiosk (issue 30) -----------------------------------------------------------

def _overlap(a, b) -> bool:
    return a["left"] < b["right"] and b["left"] < a["right"] and a["top"] < b["bottom"] and b["top"] < a["bottom"]


def test_first_view_shows_the_ground_clear_of_the_panels(page, plan):
    """The first view (全景, as the page opens) shows the whole ground — its projected bounding box, which holds
    every landmark and the hall — inside the screen and clear of every panel, on a kiosk's screen sizes."""
    pts = [lm.position for lm in plan.landmarks.values()]
    pts += [(x, y, z) for x, y in plan.hall["footprint"] for z in (0.0, plan.hall_height)]
    page.mouse.click(2, 400)                   # as the page opens: nobody picked, no pop-up
    assert page.locator("#info").is_hidden()
    try:
        for size in ((1280, 800), (1920, 1080), (1024, 768)):
            page.set_viewport_size({"width": size[0], "height": size[1]})
            page.evaluate("() => new Promise((ok) => requestAnimationFrame(() => requestAnimationFrame(ok)))")
            page.evaluate("xiangshe.setPreset('overview')")
            box = page.evaluate("xiangshe.groundRect()")
            panels = page.evaluate("xiangshe.panels()")
            assert {p["id"] for p in panels} >= {"head", "tools", "bottom"}
            for p in panels:
                assert not _overlap(box, p), (size, p, box)
            assert 0 <= box["left"] and box["right"] <= size[0] and 0 <= box["top"] and box["bottom"] <= size[1]
            # the box is the ground's: every landmark and the hall project inside it
            for q in pts:
                x, y, z = page.evaluate("(p) => xiangshe.project(p)", [float(v) for v in q])
                assert box["left"] - 1 <= x <= box["right"] + 1 and box["top"] - 1 <= y <= box["bottom"] + 1, (size, q)
            # and it fills the free screen: no view so small that the hall is a speck
            free_h = min(p["top"] for p in panels if p["id"] == "bottom") - max(
                p["bottom"] for p in panels if p["id"] in ("head", "tools"))
            assert box["bottom"] - box["top"] > 0.85 * free_h or box["right"] - box["left"] > 0.85 * size[0]
    finally:
        page.set_viewport_size({"width": 1280, "height": 800})


# one call per time: set it, draw, and measure every tag that shows (getBoundingClientRect) and the panels
_MEASURE_TAGS = """(t) => { xiangshe.setTime(t); xiangshe.render();
    const shown = [...document.querySelectorAll('.tag')].filter((el) => {
        const cs = getComputedStyle(el), box = getComputedStyle(el.parentElement);
        return cs.visibility !== 'hidden' && cs.display !== 'none' && box.display !== 'none'; })
      .map((el) => { const r = el.getBoundingClientRect();
        return {actor: el.dataset.actor, left: r.left, top: r.top, right: r.right, bottom: r.bottom}; });
    return {shown, panels: xiangshe.panels(), placed: xiangshe.tags(), size: [innerWidth, innerHeight]}; }"""


def test_name_tags_only_the_current_acts_few_apart_and_clear_of_panels(page, plan):
    from reconstruct.web.page import MAX_TAGS
    page.evaluate("xiangshe.showTags(true)")
    page.mouse.click(2, 400)                   # nobody picked (a click on no one unpins)
    seen = 0
    times = _times(plan)[::2] + [plan.time_of(fn) + 2.0 for fn in (88, 98, 104)]
    for preset in ("overview", "hall"):
        page.evaluate("(p) => xiangshe.setPreset(p)", preset)
        for t in times:
            m = page.evaluate(_MEASURE_TAGS, t)
            tags, panels, (w, h) = m["shown"], m["panels"], m["size"]
            ev = plan.current_event(t)
            acting = set(ev.actors) if ev else set()
            assert len(tags) <= MAX_TAGS, (preset, t, tags)
            assert {g["actor"] for g in tags} <= acting, (preset, t, tags, acting)
            for i, a in enumerate(tags):
                assert 0 <= a["left"] and a["right"] <= w and 0 <= a["top"] and a["bottom"] <= h, a
                assert not any(_overlap(a, p) for p in panels), (preset, t, a, panels)
                assert not any(_overlap(a, b) for b in tags[i + 1:]), (preset, t, tags)
            assert sorted(g["actor"] for g in tags) == sorted(g["actor"] for g in m["placed"])
            seen += len(tags)
    assert seen >= len(times)                  # tags are shown, not merely hidden


def test_attract_clips_are_the_cuts(reading, plan):
    """The attract loop plays the gallery cut's clips (plan seconds by the cut's own clip_range) along the film."""
    from reconstruct.cli import _attract_clips
    from reconstruct.render.cut import clip_range, load_cut
    from reconstruct.web.page import page_data
    cut = load_cut("gallery")
    data = page_data(reading, plan, _attract_clips(plan, cut))
    assert [(c["start"], c["end"], c["speed"]) for c in data["attract"]] == [
        (round(a, 4), round(b, 4), c.speed) for c, (a, b) in ((c, clip_range(plan, c)) for c in cut.clips)]
    assert page_data(reading, plan)["attract"] == [{"start": 0.0, "end": round(plan.duration, 4), "speed": 1.0,
                                                     "chapter": ""}]


def test_attract_loop_after_idle_and_stopped_by_input(page, page_file, plan):
    """With the idle time shortened by the URL (?idle=2), the page left alone starts the attract loop: the film
    plays, the camera on the camera path at the time shown, the panels aside; a move of the pointer stops it and
    brings back the first view."""
    from reconstruct.model.defaults import FRAME_SIZE
    from reconstruct.scene.shots import camera_path, keys_at
    from reconstruct.web.browser import another_tab
    k = camera_path(plan, FRAME_SIZE).keys()
    with another_tab(page, page_file, query="idle=2") as p:
        assert p.evaluate("xiangshe.idle()") == 2
        # the page as it opens (its fonts loaded, the panels at their size): the ground clear of them; a touch
        # of the pointer in case the loop began already on a busy machine (it brings back the same first view)
        p.evaluate("async () => { await document.fonts.ready;"
                   " await new Promise((ok) => requestAnimationFrame(() => requestAnimationFrame(ok))); }")
        p.mouse.move(5, 400)
        assert p.evaluate("xiangshe.attract()") is None
        box = p.evaluate("xiangshe.groundRect()")
        assert not any(_overlap(box, q) for q in p.evaluate("xiangshe.panels()")), box
        first = p.evaluate("xiangshe.camera()")
        p.wait_for_function("() => xiangshe.attract() !== null", timeout=15000)
        a = p.evaluate("xiangshe.attract()")
        assert a["film"] and p.evaluate("xiangshe.playing()")
        t0 = p.evaluate("xiangshe.time()")
        p.wait_for_timeout(600)
        state = p.evaluate("({t: xiangshe.time(), cam: xiangshe.camera()})")
        assert state["t"] > t0                                              # it plays
        want = keys_at(k, [state["t"]])[0]
        assert np.allclose(state["cam"]["position"], want[1:4], atol=0.005)
        assert np.allclose(state["cam"]["target"], want[4:7], atol=0.005)
        assert p.locator("#tools").is_hidden() and p.locator("#cap-zh").is_visible()
        p.mouse.move(640, 300)
        p.mouse.move(650, 310)
        assert p.evaluate("xiangshe.attract()") is None and not p.evaluate("xiangshe.playing()")
        assert p.locator("#tools").is_visible()
        back = p.evaluate("xiangshe.camera()")                              # the first view again
        assert p.locator("#presets").input_value() == "overview"
        d0, d1 = (np.subtract(c["target"], c["position"]) for c in (first, back))
        assert d0 @ d1 / np.linalg.norm(d0) / np.linalg.norm(d1) > 0.9999 and back["fov"] == first["fov"]
        box = p.evaluate("xiangshe.groundRect()")
        assert not any(_overlap(box, q) for q in p.evaluate("xiangshe.panels()"))
        assert p.errors == [] and p.blocked == []


# -- the evidence view (issue 32) ---------------------------------------------------------

def test_evidence_view_colours_by_basis_with_legend_and_click(page, reading, plan):
    """證: the ground in the colours the stills give it (scene.ground.evidence_parts), each prop in its kind's
    colour (model.evidence.prop_evidence), the legend shown; a click on the ground shows that landmark's basis;
    off again, the scene's own colours come back."""
    from reconstruct.model.evidence import evidence_rgb, prop_evidence
    from reconstruct.scene.ground import build_ground, evidence_parts
    if not plan.layout.evidence_legend:
        pytest.fail("the default plan carries no evidence legend")
    hexc = lambda rgb: "#" + "".join(f"{round(255 * float(v)):02x}" for v in rgb)      # noqa: E731
    want = {p.landmark: hexc(p.color) for p in evidence_parts(build_ground(reading), reading)
            if p.landmark in plan.landmarks and plan.landmarks[p.landmark].evidence}
    kinds = {}
    for k in want:
        kinds.setdefault(plan.landmarks[k].evidence, k)
    assert len(kinds) >= 3, kinds
    page.evaluate("xiangshe.setPreset('hall')")
    before = {k: page.evaluate("(k) => xiangshe.evidenceColour(k)", k) for k in kinds.values()}
    assert page.evaluate("xiangshe.evidence(true)") is True
    for k in list(kinds.values()) + ["庭"]:
        got = page.evaluate("(k) => xiangshe.evidenceColour(k)", k)
        assert got is not None and np.abs(np.subtract(*(np.array([int(c[i:i + 2], 16) for i in (1, 3, 5)])
                                                         for c in (got, want[k])))).max() <= 1, (k, got, want[k])
    for pid in list(plan.props)[:: max(1, len(plan.props) // 12)]:
        kind = prop_evidence(plan.props[pid].kind, plan.landmarks)
        assert page.evaluate("(k) => xiangshe.evidenceColour(k)", pid) == hexc(evidence_rgb(kind)), pid
    legend = page.evaluate("xiangshe.legend()")
    assert [r["kind"] for r in legend] == list(plan.layout.evidence_legend) and all(r["visible"] for r in legend)
    # a click on the ground: the landmark hit, its kind and every entry of its basis
    page.mouse.click(*page.evaluate("(p) => xiangshe.project(p)", [0.0, 1.5, 0.7])[:2])
    info = page.locator("#info")
    assert info.is_visible()
    ident = info.locator(".name").inner_text().split(" ")[0]
    lm = plan.landmarks[ident]
    items = info.locator(".basis li").all_inner_texts()
    assert len(items) == len(lm.basis) and lm.basis
    for b, line in zip(lm.basis, items):
        assert (b.chosen in line) if b.chosen else (b.quote in line and b.source in line)
    assert plan.layout.evidence_legend[lm.evidence]["label"] in info.inner_text()
    assert page.evaluate("xiangshe.evidence(false)") is False
    assert {k: page.evaluate("(k) => xiangshe.evidenceColour(k)", k) for k in kinds.values()} == before
    assert page.locator("#legend").is_hidden()
