"""The footprints the planner keeps people apart by hold the figures as they are drawn.

Every role is posed in every posture at phases through it (the gait's strides, the bow's way down and
up), bare-armed with the archer's gear or not, with what the hands may hold; every vertex seen from
above must lie inside the outline of ``reconstruct.model.footprint`` for that posture and hold.  When
a figure changes and pokes out, the failure prints the outline that would hold it."""
from __future__ import annotations

import math

import numpy as np
import pytest
import shapely

from reconstruct.model import footprint as fp
from reconstruct.scene import figures, poses

BARE = {"bare_left_arm": True, "gear": True}
STATES = {
    "plain": [{}, BARE, {"holding": ["扑"]}, dict(BARE, holding=["扑"])],
    "both_hands": [{"holding": ["觯"]}, dict(BARE, holding=["觯"])],
    "bow": [{"holding": ["弓"]}, dict(BARE, holding=["弓"]), dict(BARE, holding=["弓", "扑"])],
}
PHASES = np.linspace(0.0, 1.0, 12, endpoint=False)


def _seen_from_above(role: str, posture: str, phase: float, state: dict) -> np.ndarray:
    g = figures.figure_geometry(role)
    w = poses.world_transforms(0.0, 0.0, 0.0, 0.0, posture, phase, state)
    m = np.stack([w[p] for p in g.parts])[g.part_index]
    v = np.einsum("nij,nj->ni", m[:, :3, :3], g.vertices) + m[:, :3, 3]
    shown = np.abs(np.linalg.det(m[:, :3, :3])) > 1e-9        # parts scaled to nothing are not drawn
    return v[shown][:, :2]


@pytest.mark.parametrize("hold", fp.HOLDS)
@pytest.mark.parametrize("posture", fp.POSTURES)
def test_every_posed_figure_lies_inside_its_outline(posture, hold):
    pts = np.concatenate([_seen_from_above(role, posture, ph, st)
                          for role in figures.ROLE_STYLE for ph in PHASES for st in STATES[hold]])
    outline = shapely.Polygon(fp.OUTLINES[(posture, hold)])
    inside = shapely.contains_xy(outline.buffer(1e-6), pts[:, 0], pts[:, 1])
    if not inside.all():
        hull = shapely.MultiPoint(pts).convex_hull.buffer(0.022, quad_segs=2).simplify(0.02).convex_hull
        corners = ", ".join(f"({x:+.2f}, {y:+.2f})" for x, y in np.round(hull.exterior.coords[:-1], 2))
        far = pts[~inside][np.argmax(shapely.distance(outline, shapely.points(pts[~inside])))]
        pytest.fail(f"{posture}/{hold}: {int((~inside).sum())} vertices outside, the farthest at "
                    f"({far[0]:+.3f}, {far[1]:+.3f}); an outline that holds them: ({corners})")


def test_the_outlines_are_convex_and_clockwise():
    for key, corners in fp.OUTLINES.items():
        poly = shapely.Polygon(corners)
        assert poly.is_valid and not poly.exterior.is_ccw, key
        assert abs(poly.convex_hull.area - poly.area) < 1e-9, key


def test_clearance_follows_the_outlines():
    """Side by side two standing people need their two half-widths; a bowing figure reaches further
    forward than standing; clearance is symmetric in the two people."""
    stand, bow = fp.code("stand"), fp.code("bow")
    side = float(fp.clearance(stand, 0.0, stand, 0.0, 1.0, 0.0))
    xs = [c[0] for c in fp.OUTLINES[("stand", "plain")]]
    assert math.isclose(side, max(xs) - min(xs), abs_tol=1e-9)
    facing_bow = float(fp.clearance(bow, 0.0, stand, 180.0, 0.0, 1.0))
    facing_stand = float(fp.clearance(stand, 0.0, stand, 180.0, 0.0, 1.0))
    assert facing_bow > facing_stand + 0.2
    a = fp.clearance(fp.code("walk", "bow"), 30.0, fp.code("kneel"), 200.0, 0.4, -0.3)
    b = fp.clearance(fp.code("kneel"), 200.0, fp.code("walk", "bow"), 30.0, -0.4, 0.3)
    assert math.isclose(float(a), float(b), abs_tol=1e-12)
    # the planner's gap between any two people is not below what two people side by side need, less the
    # outlines' margin (0.022 m each side)
    from reconstruct.planner.occupancy import GAP
    assert GAP >= side - 2 * 0.022 - 1e-9


def test_what_the_hands_hold_picks_the_outline():
    assert fp.hold_of(["觯"]) == "both_hands"
    assert fp.hold_of(["弓", "扑"]) == "bow"
    assert fp.hold_of(["弓"], unstrung=True) == "both_hands"
    assert fp.hold_of(["扑"]) == "plain"
    assert fp.code("walk", "bow") == fp.POSTURES.index("walk") + fp.N * fp.HOLDS.index("bow")
