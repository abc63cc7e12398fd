"""The things of the rite as the 記 describes them (scene/objects.py): their cited dimensions, the 8 算 in
the 鹿中 where the plan stands them, the 觶 and the 爵 apart, the budget; and a catalogue plate."""
import numpy as np
import pytest
from PIL import Image

from reconstruct.scene import objects as O
from reconstruct.scene.props import PROP_KINDS, prop_geometry, prop_mesh

CHI = O.CHI_M


def _extent(m, axis):
    return float(np.ptp(m.vertices[:, axis]))


def test_every_kind_within_its_budget():
    for kind in PROP_KINDS:
        assert prop_geometry(kind).n_triangles <= O.TRIANGLES, kind


def test_rack_as_long_as_an_arrow_three_cun_wide():
    bi = O.rack_bi()
    assert _extent(bi, 0) == pytest.approx(3 * CHI, abs=0.01)          # 楅長如笴 (笴: 三尺)
    top = bi.vertices[np.isclose(bi.vertices[:, 2], 0.125)]             # the bar's top face
    assert np.ptp(top[:, 1]) == pytest.approx(0.3 * CHI, abs=1e-6)      # 博三寸
    under = bi.vertices[np.isclose(bi.vertices[:, 2], 0.125 - 0.15 * CHI)]
    assert len(under) and np.ptp(under[:, 1]) == pytest.approx(0.3 * CHI, abs=1e-6)   # 厚寸有半
    colours = {tuple(c) for c in np.asarray(bi.visual.vertex_colors)[:, :3]}
    assert len(colours) >= 3                                            # lacquer, 丹韋, the dragons' horns


def test_tally_rod_and_banner_lengths():
    assert _extent(O.tally(), 2) == pytest.approx(1.4 * CHI, abs=1e-6)   # 長尺有握 (握 = 4 寸)
    assert _extent(O.rod_pu(), 2) == pytest.approx(3 * CHI, abs=0.02)     # 楚扑長如笴
    flag = O.feather_banner()
    assert flag.bounds[1][2] == pytest.approx(21 * CHI, abs=0.12)         # 杠長三仞, 七尺曰仞
    cols = np.asarray(flag.visual.vertex_colors)[:, :3].astype(int)
    white = (cols.min(1) > 220).sum()
    red = ((cols[:, 0] > 180) & (cols[:, 1] < 60)).sum()
    assert white > 50 and red > 50                                        # 白羽與朱羽糅


def test_deer_kneels_and_holds_the_eight_tallies_where_the_plan_stands_them():
    deer = O.deer_zhong()
    v = deer.vertices
    front, back = v[v[:, 1] > 0.12], v[v[:, 1] < -0.12]
    # 前足跪: the forelegs kneel, the knees forward on the ground; the hind legs stand (the rump higher than the chest)
    assert front[:, 2].min() < 0.01 and back[:, 2].min() < 0.01
    with_t = O.deer_zhong(with_tallies=True)
    assert len(with_t.faces) == len(deer.faces) + 8 * len(O.tally().faces)
    # the plan stands them from z 0.30 (TallyLayout.in_holder): the hollow's floor is below, its rim above
    assert O.ZHONG_BACK_Z - O.HOLLOW < 0.30 < O.ZHONG_BACK_Z


def test_zhi_and_jue_are_different_vessels():
    zhi, jue = prop_mesh("觯"), prop_mesh("爵")
    assert len(zhi.faces) != len(jue.faces)
    # the 爵 stands on three legs: at its foot three separate patches; the 觶 on a ring foot, round
    foot = jue.vertices[jue.vertices[:, 2] < 0.01]
    angles = np.sort(np.degrees(np.arctan2(foot[:, 1], foot[:, 0])) % 360)
    assert np.diff(angles).max() > 60                                     # gaps between the legs
    assert _extent(zhi, 0) == pytest.approx(_extent(zhi, 1), abs=1e-6)
    assert _extent(jue, 1) > _extent(jue, 0) * 1.4                        # spout and tail


def test_plate_of_the_deer(tmp_path):
    from reconstruct.cli import main
    out = tmp_path / "deer.png"
    assert main(["still", "--object", "鹿中", "--size", "320x180", "--out", str(out)]) == 0
    im = np.asarray(Image.open(out).convert("RGB")).astype(int)
    assert im.shape == (180, 320, 3)
    lacquer = (im[..., 0] > im[..., 1] + 40) & (im[..., 0] < 140)
    assert lacquer.sum() > 300                                            # the deer is there, lacquered


def test_plate_of_no_such_object(tmp_path, capsys):
    from reconstruct.cli import main
    assert main(["still", "--object", "鼎", "--out", str(tmp_path / "x.png")]) == 2
    assert "no such object" in capsys.readouterr().err
    assert not (tmp_path / "x.png").exists()
