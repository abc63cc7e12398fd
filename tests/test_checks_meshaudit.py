"""The mesh-level audit (checks/meshaudit.py): figures posed as the video poses them; two that intersect
are found, with the parts that meet; hands meeting in a hand-over are allowed."""
import json
import sys
from pathlib import Path


sys.path.insert(0, str(Path(__file__).parent / "fixtures"))
from mini_plan import make_plan  # noqa: E402

from reconstruct.checks.audit import MIN_GAP  # noqa: E402
from reconstruct.checks.meshaudit import mesh_audit  # noqa: E402
from reconstruct.model.plan import Plan  # noqa: E402


def _two(a_xy, b_xy, ha=180.0, hb=0.0, gestures=None) -> Plan:
    """The mini plan with only 宾 and 主人, standing still at the given places for 10 s."""
    raw = json.loads(json.dumps(make_plan()))
    raw["actors"] = {k: raw["actors"][k] for k in ("宾", "主人")}
    for aid, (x, y), h in (("宾", a_xy, ha), ("主人", b_xy, hb)):
        a = raw["actors"][aid]
        a["keys"] = [[0.0, x, y, 0.0, h, "stand"], [10.0, x, y, 0.0, h, "stand"]]
        a["states"] = []
        if gestures:
            a["gestures"] = [[2.0, 6.0, gestures[aid], None]]
    for p in raw["props"].values():
        p["carrier"] = []
    raw["duration"] = 10.0
    return Plan.from_dict(raw)


def test_figures_that_intersect_are_found():
    close = mesh_audit(_two((0.0, 0.0), (0.3, 0.0), 0.0, 0.0))
    assert len(close) == 1 and close[0].t == 0.0 and {close[0].a, close[0].b} == {"宾", "主人"}
    assert mesh_audit(_two((0.0, 0.0), (1.6, 0.0), 0.0, 0.0)) == []


def test_hands_may_meet_in_a_hand_over_and_nowhere_else():
    # facing each other at arm's length: standing with joined hands they are clear of each other …
    assert mesh_audit(_two((0.0, 0.0), (0.0, 0.75), 0.0, 180.0)) == []
    # … handing something over, their hands meet (allowed) …
    assert mesh_audit(_two((0.0, 0.0), (0.0, 0.75), 0.0, 180.0, {"宾": "hand_over", "主人": "receive"})) == []
    # … both stooping to take something, they run into each other
    reach = mesh_audit(_two((0.0, 0.0), (0.0, 0.75), 0.0, 180.0, {"宾": "take", "主人": "take"}))
    assert len(reach) == 1 and 2.0 <= reach[0].t <= 6.0


def _three(moves: list) -> Plan:
    """The mini plan with 宾, 主人 and 司射 only: 宾 stands at (0, 0), 司射 at (5, 0.9); 主人 keys ``moves``."""
    raw = json.loads(json.dumps(make_plan()))
    raw["actors"] = {k: raw["actors"][k] for k in ("宾", "主人", "司射")}
    for aid, keys in (("宾", [[0.0, 0.0, 0.0, 0.0, 0.0, "stand"], [10.0, 0.0, 0.0, 0.0, 0.0, "stand"]]),
                      ("司射", [[0.0, 5.0, 0.9, 0.0, 0.0, "stand"], [10.0, 5.0, 0.9, 0.0, 0.0, "stand"]]),
                      ("主人", moves)):
        raw["actors"][aid]["keys"] = keys
        raw["actors"][aid]["states"] = []
        raw["actors"][aid]["gestures"] = []
    for p in raw["props"].values():
        p["carrier"] = []
    raw["duration"] = 10.0
    return Plan.from_dict(raw)


def test_a_pose_is_made_again_once_he_has_moved_away_from_everyone():
    """A figure posed near one person, who then moves (on his knees: not a walk) or turns where nobody is
    near, and stops by another, is posed where he stopped, not where he was last posed."""
    shuffle = [[0.0, 5.0, 0.0, 0.0, 0.0, "kneel"], [2.0, 5.0, 0.0, 0.0, 0.0, "kneel"],
               [4.0, 0.0, 0.3, 0.0, 0.0, "kneel"], [10.0, 0.0, 0.3, 0.0, 0.0, "kneel"]]
    found = mesh_audit(_three(shuffle))
    assert [(c.a, c.b) for c in found if "宾" in (c.a, c.b)] and all(c.t >= 3.0 for c in found if "宾" in (c.a, c.b))
    # turning in place, far from the one he turns towards: his arms swing round into him only when turned
    turn = [[0.0, 0.56, 0.0, 0.0, 90.0, "stand"], [3.0, 0.56, 0.0, 0.0, 90.0, "stand"],
            [4.0, 0.56, 0.0, 0.0, 270.0, "stand"], [10.0, 0.56, 0.0, 0.0, 270.0, "stand"]]
    assert any(c.t >= 3.0 for c in mesh_audit(_three(turn)) if "宾" in (c.a, c.b))


def test_nobody_passes_through_anybody_on_the_default_reading(plan):
    """Every figure posed every 0.2 s over the whole passage: no two meshes meet, save hands in a
    hand-over (602 contacts when the audit was written, with centres kept 0.45 m apart)."""
    found = mesh_audit(plan)
    assert found == [], "\n".join(map(str, found[:20]))
    assert MIN_GAP == 0.45          # the centre-distance audit is unchanged beside it
