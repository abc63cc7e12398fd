"""The helpers the planner's speed-ups brought in answer as the slower code they replace did."""
from __future__ import annotations

import numpy as np
import pytest
import shapely

from reconstruct.model import footprint
from reconstruct.model.vocabulary import Posture
from reconstruct.planner.bodies import Body, _beyond_standing
from reconstruct.planner.geometry import _way, _ways
from reconstruct.planner.occupancy import Occupancy
from reconstruct.planner.state import PlanState
from reconstruct.planner.walkable import COURT, PERSON_GAP

from test_planner_parts import person, tiny_reading, walk_keys


def test_one_way_is_the_way_made_among_several():
    walk = np.array([[0.0, 0.0], [1.0, 2.0], [3.0, 2.5]])
    still = np.array([[4.0, -1.0]])
    for xy in (walk, still):
        assert shapely.equals_exact(_way(xy), _ways([xy, walk])[0], 0.0)
    # a few lines are made one by one, many as a batch: the same lines either way
    many = [walk, still, walk[::-1], walk[:2], still + 1.0]
    for k in (1, 2, 3, 4, 5):
        ways = _ways(many[:k])
        assert len(ways) == k
        assert all(shapely.equals_exact(w, _way(xy), 0.0) for w, xy in zip(ways, many[:k]))
    # a track that stays put is as far from anything as its point
    assert shapely.distance(_way(still), shapely.points((4.0, 2.0))) == pytest.approx(3.0)


@pytest.mark.parametrize("posture", [Posture.STAND, Posture.WALK, Posture.BOW, Posture.KNEEL_BOW])
@pytest.mark.parametrize("held", [(), ("觯",), ("弓",), ("弓", "觯")])
def test_beyond_standing_is_the_outlines_difference(posture, held):
    for unstrung in (False, True):
        hold = footprint.hold_of(held, unstrung)
        want = max(0.0, float(footprint.reach_max(footprint.code(posture, hold))
                              - footprint.reach_max(footprint.code(Posture.STAND, hold))))
        assert _beyond_standing(posture, held, unstrung) == want
    b = Body("甲", 0.0, 0.0, 0.0, 0.0, Posture.STAND, COURT, kinds={"c": "觯"}, state={"holding": ["c"]})
    assert b.beyond(Posture.BOW) == _beyond_standing(Posture.BOW, ("觯",), False) > 0.0


def test_conflict_names_the_first_met_of_several():
    """All those met are tested at once; the one met earliest is named (of two met at the same moment,
    the first found near), as when each was tested in turn."""
    state = PlanState(tiny_reading())
    late = person(state, "丙", 3.0, -6.0)          # stands on the way, met after 7 s
    early = person(state, "丁", 0.0, -9.0)
    walk_keys(early, [(0.0, 0.0, -9.0), (4.0, 0.0, -6.0), (20.0, 0.0, -6.0)])   # crosses it after 4 s
    me = person(state, "乙", -4.0, -7.0)
    occ = Occupancy(state)
    way = [(0.0, -4.0, -6.0, 0.0), (8.0, 4.0, -6.0, 0.0)]
    who, t = occ.conflict(me, way)
    assert who == "丁" and 3.0 < t < 4.5
    assert occ.conflict(me, way, among=[late]) [0] == "丙"
    assert occ.conflict(me, [(0.0, -4.0, -12.0, 0.0), (8.0, 4.0, -12.0, 0.0)]) is None


def test_track_index_boxes_are_the_buckets_bounds():
    """The index's box of each 10-second bucket bounds every stretch of track that lies in it (the
    stretch from one key to the next counted in every bucket it spans), and a rebuilt track's boxes are
    those of its new keys alone."""
    from reconstruct.planner.bodies import TrackIndex
    rng = np.random.default_rng(3)
    rows = np.c_[np.cumsum(rng.uniform(0.0, 7.0, 40)), rng.uniform(-5, 5, (40, 2)), np.zeros(40)]
    ti = TrackIndex(2)
    for j in range(len(rows)):
        ti.add(1, rows[j - 1].tolist() if j else None, rows[j].tolist())

    def expect(rows):
        lo, hi = np.full((len(ti.lo), 2), np.inf), np.full((len(ti.lo), 2), -np.inf)
        for j in range(len(rows)):
            a = rows[j - 1] if j else rows[j]
            for k in range(int(a[0] // 10), int(rows[j, 0] // 10) + 1):
                lo[k] = np.minimum(lo[k], np.minimum(a[1:3], rows[j, 1:3]))
                hi[k] = np.maximum(hi[k], np.maximum(a[1:3], rows[j, 1:3]))
        return lo, hi

    lo, hi = expect(rows)
    assert np.array_equal(ti.lo[:, 1], lo) and np.array_equal(ti.hi[:, 1], hi)
    assert ti.last_t[1] == rows[-1, 0] and np.array_equal(ti.last_xyz[1], rows[-1, 1:4])
    assert np.isinf(ti.lo[:, 0]).all()          # nobody else's row touched
    later = rows.copy()
    later[5:, 0] += 12.0
    ti.rebuild(1, later)
    lo, hi = expect(later)
    assert np.array_equal(ti.lo[:, 1], lo) and np.array_equal(ti.hi[:, 1], hi)
    assert ti.last_t[1] == later[-1, 0]


def test_pairs_are_the_upper_triangle_and_read_only():
    from reconstruct.planner.walkable import _pairs
    for n, k in ((1, 0), (4, 0), (5, 1), (8, 1)):
        i, j = _pairs(n, k)
        want = np.triu_indices(n, k)
        assert np.array_equal(i, want[0]) and np.array_equal(j, want[1])
        with pytest.raises(ValueError):
            i[:] = 0            # shared between calls: nobody may write into them


def test_the_way_graph_finds_the_undirected_ways():
    """Links sorted by row, then column, each once, made into the graph both ways: a directed search on it
    finds from every corner the very distances and predecessors scipy's undirected search finds on the
    coordinate list's matrix, ties included (whole weights make many)."""
    from scipy.sparse import csr_matrix
    from scipy.sparse.csgraph import dijkstra
    from reconstruct.planner.walkable import _one_link_each, _way_graph
    rng = np.random.default_rng(5)
    for n, m in ((6, 0), (7, 1), (30, 60), (200, 900)):
        r, c = rng.integers(0, n, m), rng.integers(0, n, m)
        w = rng.integers(1, 4, m).astype(float)
        r, c, w = _one_link_each(r[r != c], c[r != c], w[r != c])
        mine = dijkstra(_way_graph(r, c, w, n), return_predecessors=True)
        theirs = dijkstra(csr_matrix((w, (r, c)), shape=(n, n)), directed=False, return_predecessors=True)
        assert np.array_equal(mine[0], theirs[0]) and np.array_equal(mine[1], theirs[1]), (n, m)


def test_a_stand_of_a_minute_is_in_each_bucket_it_reaches():
    """A stretch reaching several buckets nobody's box had yet has the same box in each (they are written
    at once), and the boxes of the buckets it only passes through grow as before."""
    from reconstruct.planner.bodies import TrackIndex
    ti = TrackIndex(1)
    ti.add(0, None, [3.0, 1.0, 2.0, 0.0])
    ti.add(0, [3.0, 1.0, 2.0, 0.0], [5.0, -1.0, 4.0, 0.0])      # a walk within bucket 0
    ti.add(0, [5.0, -1.0, 4.0, 0.0], [65.0, -1.0, 4.0, 0.0])    # stands until 65 s: buckets 0 … 6
    assert np.array_equal(ti.lo[0, 0], (-1.0, 2.0)) and np.array_equal(ti.hi[0, 0], (1.0, 4.0))
    for k in range(1, 7):
        assert np.array_equal(ti.lo[k, 0], (-1.0, 4.0)) and np.array_equal(ti.hi[k, 0], (-1.0, 4.0)), k
    assert np.isinf(ti.lo[7:, 0]).all()
    assert ti._boxes[0][3] is not ti._boxes[0][4]          # each bucket's box its own, grown alone
    ti.add(0, [65.0, -1.0, 4.0, 0.0], [66.0, 0.5, 4.5, 0.0])
    assert np.array_equal(ti.hi[6, 0], (0.5, 4.5)) and np.array_equal(ti.hi[5, 0], (-1.0, 4.0))


def test_a_way_asked_again_is_the_way_found_first(reading):
    """The ground remembers its ways: asked again, the same corners, and boxed in as it was, whatever was
    asked between (a way out of a ring of people is boxed in, the one after it is not); as a ground that
    never answered before finds them."""
    from reconstruct.planner.walkable import Ground
    g = Ground(reading)
    ring = [(-6.0 + 0.7 * np.sin(a), -20.0 + 0.7 * np.cos(a)) for a in np.radians(np.arange(0, 360, 45))]
    shut = ((-6.0, -20.0), (-6.0, -30.0), ring)
    open_ = ((-3.0, -10.0), (3.0, -10.4), [(0.0, -10.2), (0.4, -9.2)])
    first = [(g.route(COURT, *q), g.boxed_in) for q in (shut, open_)]
    assert [b for _, b in first] == [True, False]
    again = [(g.route(COURT, *q), g.boxed_in) for q in (open_, shut, shut, open_)]
    assert again == [first[1], first[0], first[0], first[1]]
    fresh = Ground(reading)
    assert [(fresh.route(COURT, *q), fresh.boxed_in) for q in (open_, shut)] == [first[1], first[0]]
    p = g.route(COURT, *open_)
    p.append((0.0, 0.0))                  # the caller's copy: what is remembered is not changed
    assert g.route(COURT, *open_) == first[1][0]


def test_ways_round_the_same_people_from_elsewhere_are_found_afresh(reading):
    """What a way round people has whatever its start and goal is worked out once per people: ways round
    the same people from other starts and goals are those a ground that never routed round them finds."""
    from reconstruct.planner.walkable import Ground
    people = [((0.0, -10.2), PERSON_GAP), ((0.4, -9.2), PERSON_GAP), ((-1.5, -9.8), 0.5)]
    ends = [((-3.0, -10.0), (3.0, -10.4)), ((-2.5, -7.0), (2.0, -12.0)), ((3.0, -8.0), (-3.0, -11.5))]
    g = Ground(reading)
    lv = g.levels[COURT]
    for s, e in ends:
        way = g._route_with_uncached(lv, s, e, people, True)
        fresh = Ground(reading)
        assert way == fresh._route_with_uncached(fresh.levels[COURT], s, e, people, True)
        assert way == g._route_with_uncached(lv, s, e, people, True)
    assert len(g._round_cache) == 1
