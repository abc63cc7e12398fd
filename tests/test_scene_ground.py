"""The 3D ground: sizes of the 侯 panels, the stairs, a part for every landmark with a body, the budget."""

import numpy as np
import pytest

from reconstruct.scene.ground import (NO_GEOMETRY, TRIANGLE_BUDGET, build_ground, hou_panels, node_name,
                                triangle_count)
from reconstruct.layout.reading import LAYOUTS, list_readings, load_reading

# one worker builds the ground once (pytest-xdist --dist loadgroup, .ci/run): spread, both did
pytestmark = pytest.mark.xdist_group("ground")


@pytest.fixture(scope="module")
def reading():
    return load_reading(LAYOUTS / "zheng_xuan.toml")


@pytest.fixture(scope="module")
def parts(reading):
    return build_ground(reading)


def by_node(parts):
    return {p.node: p for p in parts}


def test_hou_panels_have_the_derived_sizes(reading, parts):
    p = reading.params
    chi = reading.units.chi_m
    nodes = by_node(parts)
    expect = {"L_hou_xiashe": (p["hou_lower"], "下舌"), "L_hou_xiagong": (p["hou_gong"], "下躬"),
              "L_hou_zhong": (p["hou_zhong"], "中"), "L_hou_shanggong": (p["hou_gong"], "上躬"),
              "L_hou_shangshe": (p["hou_upper"], "上舌")}
    # 記: 中 10 尺, 躬 20, 上舌 40, 下舌 30 (at 侯道 50 弓)
    assert p["hou_zhong"] == pytest.approx(10 * chi)
    assert p["hou_upper"] == pytest.approx(40 * chi) and p["hou_lower"] == pytest.approx(30 * chi)
    panels = hou_panels(reading)
    for node, (width, key) in expect.items():
        lo, hi = nodes[node].mesh.bounds
        assert hi[0] - lo[0] == pytest.approx(width, abs=1e-3), node
        w, z0, z1 = panels[key]
        assert lo[2] == pytest.approx(z0, abs=1e-3) and hi[2] == pytest.approx(z1, abs=1e-3), node
        assert abs(lo[1] - p["hou_y"]) < 0.05 and abs(hi[1] - p["hou_y"]) < 0.05
    assert panels["下舌"][1] == pytest.approx(p["hou_bottom"], abs=1e-9)      # 下綱不及地武
    assert panels["上舌"][2] == pytest.approx(p["hou_top"], abs=1e-9)
    assert p["hou_top"] == pytest.approx(19.2 * chi, abs=1e-6)                # 義疏: 鄉侯高一丈九尺二寸
    for a, b in (("下舌", "下躬"), ("下躬", "中"), ("中", "上躬"), ("上躬", "上舌")):
        assert panels[a][2] == pytest.approx(panels[b][1])


def test_posts_splay_and_ropes_span(reading, parts):
    p = reading.params
    nodes = by_node(parts)
    post = nodes["L_dongzhi"].mesh
    v = post.vertices
    top = v[v[:, 2] > p["hou_top"]][:, 0].mean()
    foot = v[v[:, 2] < 0.01][:, 0].mean()
    assert top > foot + 0.5                                       # splayed: wider at the top
    lo, hi = nodes["L_hou_gang"].mesh.bounds
    assert hi[0] - lo[0] == pytest.approx(2 * p["hou_post_top"], abs=0.05)   # upper rope 56 尺
    assert 2 * p["hou_post_top"] > 2 * p["hou_post_bottom"]


def test_stairs_are_real_steps(reading, parts):
    nodes = by_node(parts)
    for name, st in reading.stairs.items():
        m = nodes[node_name(name)].mesh
        tops = sorted({round(z, 4) for z in m.vertices[:, 2] if z > 1e-6})
        assert len(tops) == st.steps
        assert np.allclose(np.diff([0.0] + tops), st.rise, atol=1e-4)
        assert tops[-1] == pytest.approx(reading.hall_height, abs=1e-4)
        lo, hi = m.bounds
        assert hi[1] - lo[1] == pytest.approx(st.run, abs=1e-4) and hi[1] == pytest.approx(0.0, abs=1e-6)
        assert hi[0] - lo[0] == pytest.approx(st.width, abs=1e-4)


@pytest.mark.parametrize("layout", [p.name for p in list_readings()])
def test_every_landmark_with_a_body_has_a_part(layout):
    r = load_reading(LAYOUTS / layout)
    parts = build_ground(r)
    have = {p.landmark for p in parts}
    for ident, lm in r.landmarks.items():
        if lm.kind in NO_GEOMETRY or lm.kind in ("edge",) and ident != "堂廉":
            continue
        assert ident in have, f"{layout}: {ident} ({lm.kind}) has no geometry"
    if r.building_type == "xu_with_shi":
        assert {"室", "东房"} <= have
    names = [p.node for p in parts]
    assert len(names) == len(set(names))
    assert all(n.isascii() and n.replace("_", "").isalnum() for n in names)
    assert triangle_count(parts) < TRIANGLE_BUDGET
    for p in parts:
        assert len(p.mesh.faces) and np.isfinite(p.mesh.vertices).all()
        assert all(0 <= c <= 1 for c in p.color)


def test_fixtures_face_their_heading(reading, parts):
    nodes = by_node(parts)
    deer = nodes["L_zhong"].mesh            # the 中 faces east: its head (the highest point) is east of its middle
    v = deer.vertices
    head = v[np.argmax(v[:, 2])]
    assert head[0] > deer.bounds.mean(axis=0)[0]
    x, y, _ = reading.landmarks["中"].position
    assert np.allclose(deer.bounds.mean(axis=0)[:2], (x, y), atol=0.02)
    lo, hi = deer.bounds                    # 前足跪: fitted to the stated size (along = east–west here)
    size = reading.landmarks["中"].size
    assert hi[0] - lo[0] == pytest.approx(size[1], abs=1e-3) and hi[2] - lo[2] == pytest.approx(size[2], abs=1e-3)
    fa = nodes["L_fa"].mesh                 # 乏: 7 尺 across, wings open towards the south (its heading)
    lo, hi = fa.bounds
    assert hi[0] - lo[0] == pytest.approx(7 * reading.units.chi_m, abs=0.02)
    assert hi[2] == pytest.approx(7 * reading.units.chi_m, abs=1e-3)


def test_wu_marks_are_crosses_on_the_floor(reading, parts):
    nodes = by_node(parts)
    for ident in ("上物", "下物"):
        m = nodes[node_name(ident)].mesh
        lo, hi = m.bounds
        lm = reading.landmarks[ident]
        assert hi[1] - lo[1] == pytest.approx(lm.size[1], abs=1e-3)     # 物長如笴 (N–S)
        assert hi[0] - lo[0] == pytest.approx(lm.size[0], abs=1e-3)     # 距隨長武 (E–W)
        assert lo[2] >= reading.hall_height and hi[2] < reading.hall_height + 0.01


def test_node_names_are_stable_ascii():
    assert node_name("西阶") == "L_xijie" and node_name("侯中") == "L_hou_zhong"
    assert node_name("东夹") == "L_dongjia"
    odd = node_name("鼎𠀀")
    assert odd.isascii() and odd == node_name("鼎𠀀")
