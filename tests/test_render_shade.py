"""Shadows (render/shade.py) and materials (render/materials.py): people cast flattened shadows away from the
sun and have contact discs, the architecture shades the court and the floor, textures keep the colours."""
import numpy as np

from reconstruct.render import materials as M
from reconstruct.render import shade as SH
from reconstruct.scene.sampler import PlanSampler


def test_shadows_lie_on_the_ground_away_from_the_sun(plan):
    from reconstruct.render.layer import MovingLayer
    layer = MovingLayer(PlanSampler(plan))
    t = 4430.0
    layer.update(t)
    aid = "下耦下射"
    court, floor = layer.shadows[aid]
    P = layer.matrices[layer.part_start[court]:layer.part_start[court + 1]]
    xyz = plan.actors[aid].track.at([t])[0][0]
    head = P[3] @ np.array([0, 0, 0.13, 1.0])              # the proxy's head, flattened
    assert abs(head[2] - (xyz[2] + 0.006)) < 1e-6
    assert np.dot(head[:2] - xyz[:2], SH.SUN_DIR[:2]) < -0.5          # cast away from the sun
    assert not np.abs(layer.matrices[layer.part_start[floor]:layer.part_start[floor + 1], :3, :3]).any()
    # under the roof only the contact disc, on the floor
    on_hall = next(a for a in plan.actors if plan.actors[a].track.at([t])[0][0][2] > 0.5)
    c2, f2 = layer.shadows[on_hall]
    assert not np.abs(layer.matrices[layer.part_start[c2]:layer.part_start[c2 + 1], :3, :3]).any()
    assert np.abs(layer.matrices[layer.part_start[f2 + 1] - 1, :3, :3]).any()


def test_architecture_casts_shadows_and_materials_are_textured(reading, plan):
    from reconstruct.scene.ground import ground_meshes
    g = ground_meshes(reading)
    skins, dark = SH.architecture_shadows(g, plan.hall)
    names = {n for n, _, _ in skins}
    assert names == {"shadow:court", "shadow:floor"}
    floor = next(m for n, m, _ in skins if n == "shadow:floor")
    assert floor.area > 20.0 and "L_binxi" in dark                     # the roof shades the floor and its mats
    assert {M.material_of(n) for n in ("L_wu", "L_dongxu", "L_mei", "L_ting", "L_binxi")} == {
        "tiles", "plaster", "timber", "earth", "rush"}
    assert M.material_of("L_dongying") is None                          # lacquered columns stay plain
    for kind in M.REPEAT_M:
        p = M.pattern(kind)
        assert abs(p.mean() - 1.0) < 0.1 and p.std() > 0.01             # restrained: colour kept on average
