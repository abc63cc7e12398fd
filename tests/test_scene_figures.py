"""Figures: hierarchy, postures, headings, budgets, roles and props."""
import numpy as np
import pytest

from reconstruct.scene import figures as F


def _head_top(world):
    return (world["head"] @ np.array([0, 0, 0.23, 1.0]))[2]


def test_hierarchy_is_consistent():
    assert F.PARENT[F.PARTS[0]] is None
    seen = set()
    for p in F.PARTS:                      # parents come first
        assert F.PARENT[p] is None or F.PARENT[p] in seen
        seen.add(p)
    assert set(F.JOINT_OFFSET) == set(F.PARTS)
    assert set(F.part_meshes("宾")) == set(F.PARTS)


def test_standing_height_and_kneel_lowers_head():
    stand = F.world_transforms(0, 0, 0, 0, "stand")
    kneel = F.world_transforms(0, 0, 0, 0, "kneel")
    h_stand, h_kneel = _head_top(stand), _head_top(kneel)
    assert 1.55 < h_stand < 1.75
    assert 0.45 < h_stand - h_kneel < 0.75          # sitting back on the heels: about 0.6 m lower
    assert kneel["pelvis"][2, 3] < 0.35             # hips low


def test_bow_tilts_torso_forward_and_kneel_bow_brings_head_down():
    stand = F.world_transforms(0, 0, 0, 0, "stand")
    bow = F.world_transforms(0, 0, 0, 0, "bow", 0.5)
    up_s = stand["torso"][:3, 2]
    up_b = bow["torso"][:3, 2]
    assert up_b[1] > 0.2 and up_b[1] > up_s[1] + 0.2   # torso axis leans to +y (forward)
    kb = F.world_transforms(0, 0, 0, 0, "kneel_bow", 0.5)
    kn = F.world_transforms(0, 0, 0, 0, "kneel")
    assert kb["head"][2, 3] < kn["head"][2, 3] - 0.25
    # the bow goes down and comes back: phase 0 and ~1 are upright
    assert F.world_transforms(0, 0, 0, 0, "bow", 0.0)["torso"][1, 2] < 0.1


def test_heading_90_faces_east():
    w = F.world_transforms(5, 2, 0, 90, "stand")
    nose = w["head"] @ np.array([0, 0.11, 0.1, 1.0])
    assert nose[0] > 5.05 and abs(nose[1] - 2) < 0.02
    w0 = F.world_transforms(0, 0, 0, 0, "stand")
    assert (w0["head"] @ np.array([0, 0.11, 0.1, 1.0]))[1] > 0.05
    # the left hand of someone facing north is to the west
    lh = F.hand_position(F.world_transforms(0, 0, 0, 0, "walk", 0.0), "l")
    assert lh[0] < 0


def test_walk_swings_legs():
    a = F.world_transforms(0, 0, 0, 0, "walk", 0.25)
    b = F.world_transforms(0, 0, 0, 0, "walk", 0.75)
    foot = np.array([0, 0, -F.SHIN - 0.05, 1.0])
    ya, yb = (a["l_shin"] @ foot)[1], (b["l_shin"] @ foot)[1]
    assert ya - yb > 0.3


def test_triangle_budget():
    for role in ("宾", "主人", "上耦上射", "众宾3", "工1", "default"):
        g = F.figure_geometry(role)
        assert 300 <= g.n_triangles <= 1650, (role, g.n_triangles)     # a face, hands, caps (issue 19), the 纁襦 sleeves
    for kind in F.PROP_KINDS:
        assert F.prop_geometry(kind).n_triangles <= 600


def test_bare_arm_and_gear_switch_variants():
    plain = F.pose("stand", 0, {})
    bare = F.pose("stand", 0, {"bare_left_arm": True, "gear": True})
    det = lambda m: abs(np.linalg.det(m[:3, :3]))
    assert det(plain["l_upper_arm"]) > 0.5 and det(plain["l_upper_arm_bare"]) < 1e-9
    assert det(bare["l_upper_arm"]) < 1e-9 and det(bare["l_upper_arm_bare"]) > 0.5
    assert det(plain["r_ring"]) < 1e-9 and det(bare["r_ring"]) > 0.5
    m = F.part_meshes("宾")
    skin = np.asarray(m["l_upper_arm_bare"].visual.vertex_colors)[:, :3].mean(0)
    robe = np.asarray(m["l_upper_arm"].visual.vertex_colors)[:, :3].mean(0)
    assert np.abs(skin - robe).sum() > 60


@pytest.mark.parametrize("actor,role", [("众宾3", "众宾"), ("弟子2", "弟子"), ("工1", "工"), ("司正", "司马"),
                                         ("上耦下射", "上耦"), ("释获者", "释获者"), ("获者", "获者"), ("宾", "宾"),
                                         ("举觯者2", "举觯者"), ("无名", "default")])
def test_role_of(actor, role):
    assert F.role_of(actor) == role
    assert role in F.ROLE_STYLE


def test_roles_differ_in_colour():
    roles = ["宾", "主人", "大夫", "司射", "司马", "获者", "释获者", "上耦", "次耦", "弟子", "众宾", "工"]
    cols = {r: F.ROLE_STYLE[r]["robe"] + F.ROLE_STYLE[r]["sash"] for r in roles}
    assert len(set(cols.values())) == len(roles)


@pytest.mark.parametrize("pid,kind", [("获者荐", "荐"), ("觯2", "觯"), ("上耦上射弓", "弓"), ("旌", "旌"),
                                       ("释获者俎", "俎"), ("上耦上射矢", "矢"), ("算1", "算"), ("觶", "觯")])
def test_prop_kind(pid, kind):
    assert F.prop_kind(pid) == kind


def test_props_and_holding():
    flag = F.prop_mesh("旌")
    assert 4.6 < flag.bounds[1][2] < 5.2          # 杠長三仞 (鄭: 七尺曰仞): 21 尺, and the plume
    assert F.prop_mesh("弓", strung=False).bounds[1][2] > 0.5
    w = F.world_transforms(0, 0, 0, 0, "stand", 0, {"holding": ["弓"]})
    M = F.held_prop_transform("弓", w, 0)
    assert np.allclose(M[:3, 3], F.hand_position(w, "l"))
    assert M[2, 2] > 0.99                                       # bow upright


def test_the_se_is_carried_on_the_left_shoulder():
    """相者皆左何瑟，面鼓，執越，內弦，右手相: the junior carrying a 瑟 standing or walking has it on his left
    shoulder — left of the head and above the shoulder, its length along his heading, the strings turned
    towards his head — with the left hand up at it and the right hand free; a 工 seated with it holds it before him."""
    from reconstruct.scene import poses as P
    from reconstruct.scene.figures import hand_position
    from reconstruct.scene.props import held_prop_transform
    for heading in (0.0, 90.0, 225.0):
        for posture, phase in (("stand", 0.0), ("walk", 0.3)):
            w = P.world_transforms(1.0, 2.0, 0.0, heading, posture, phase, {"holding": ["瑟1"]})
            M = held_prop_transform("瑟1", w, heading)
            h = np.radians(heading)
            fwd, right = np.array([np.sin(h), np.cos(h), 0.0]), np.array([np.cos(h), -np.sin(h), 0.0])
            centre, head, shoulder = M[:3, 3], w["head"][:3, 3], w["l_upper_arm"][:3, 3]
            assert centre[2] > shoulder[2] + 0.15                      # up on the shoulder
            assert (centre - head) @ right < -0.15                     # on the left of the head
            assert abs(M[:3, :3] @ np.array([0.0, 1.0, 0.0]) @ fwd) > 0.95   # its length along the heading
            assert M[:3, :3] @ np.array([0.0, 0.0, 1.0]) @ right > 0.95      # the strings towards the head
            assert hand_position(w, "l")[2] > shoulder[2]              # the left hand up at it
            assert hand_position(w, "r")[2] < shoulder[2] - 0.1        # the right hand free to lead
    w = P.world_transforms(0.0, 0.0, 0.0, 0.0, "kneel", 0.0, {"holding": ["瑟1"]})
    M = held_prop_transform("瑟1", w, 0.0)
    assert M[2, 3] < w["l_upper_arm"][2, 3]                            # seated: before him, not on the shoulder


def test_poses_in_a_batch_are_the_poses_one_by_one():
    """world_transforms_many (the mesh audit's, the GLB's batches) gives, pose by pose and to the bit, what
    world_transforms gives: postures, phases, blends, 袒 with and without the undershirt, 決遂."""
    from reconstruct.scene import poses as P

    states = [{}, {"bare_left_arm": True}, {"bare_left_arm": True, "undershirt": True, "gear": True},
              {"gear": True, "holding": ["弓"]}, None]
    cases = []
    for k, posture in enumerate(P.POSTURES):
        for phase in (0.0, 0.3, 0.71):
            st = states[(k + int(phase * 10)) % len(states)]
            cases.append(((1.5 * k, -2.0 + phase, 0.3 * (k % 2)), 37.0 * k + 100 * phase, P.pose_params(posture, phase, st), st))
    cases.append(((0.0, 0.0, 0.0), 359.5, P.blend_params(cases[0][2], cases[-1][2], 0.4), states[2]))
    W = P.world_transforms_many(np.array([c[0] for c in cases]), np.array([c[1] for c in cases]),
                                [c[2] for c in cases], [c[3] for c in cases])
    assert W.shape == (len(cases), len(F.PARTS), 4, 4)
    for c, w in zip(cases, W):
        one = P.world_transforms(*c[0], c[1], params=c[2], state=c[3])
        assert np.stack([one[p] for p in F.PARTS]).tobytes() == w.tobytes()
