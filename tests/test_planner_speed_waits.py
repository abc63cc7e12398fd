"""The waits and index tests the planner's speed-ups (speed4) brought in answer as the slower code they
replace did: the track index's answer for one person, a bow's wait tested against the one in the way."""
from __future__ import annotations

import numpy as np
import pytest

from reconstruct.model.vocabulary import Posture
from reconstruct.planner.bodies import TrackIndex
from reconstruct.planner.occupancy import DELAYS, Occupancy
from reconstruct.planner.state import PlanState

from test_planner_parts import person, tiny_reading, walk_keys


def _near_as_before(ti: TrackIndex, lo, hi, t0: float, t1: float) -> np.ndarray:
    """TrackIndex.near as it was written before its boxes were joined: the least near corner and the most
    far corner over the buckets, each widened by the last position of those whose track ended before t1."""
    k0, k1 = max(0, int(t0 // ti.SPAN)), min(len(ti.lo) - 1, int(t1 // ti.SPAN))
    n = ti.lo.shape[1]
    L = ti.lo[k0:k1 + 1].min(axis=0) if k1 >= k0 else np.full((n, 2), np.inf)
    H = ti.hi[k0:k1 + 1].max(axis=0) if k1 >= k0 else np.full((n, 2), -np.inf)
    after = (ti.last_t < t1)[:, None]
    L = np.where(after, np.minimum(L, ti.last_xyz[:, :2]), L)
    H = np.where(after, np.maximum(H, ti.last_xyz[:, :2]), H)
    return ((H >= lo) & (L <= hi)).all(axis=1)


def test_the_index_answers_as_before_for_everyone_and_for_one():
    rng = np.random.default_rng(1)
    ti = TrackIndex(3)
    ti.reserve(12)                       # the last row keeps no track
    for i in range(11):
        t, prev = rng.uniform(0, 100), None
        for _ in range(rng.integers(1, 40)):
            t += rng.uniform(0, 40)
            row = [t, *rng.uniform(-5, 5, 2), 0.0]
            ti.add(i, prev, row)
            prev = row
    assert len(ti.box) > 64              # the buckets have grown
    for _ in range(3000):
        t0 = rng.uniform(-20, 1800)
        t1 = t0 + rng.choice([0.0, rng.uniform(0, 50), rng.uniform(0, 500)])
        c, w = rng.uniform(-6, 6, 2), rng.uniform(0, 2, 2)
        want = _near_as_before(ti, c - w, c + w, t0, t1)
        assert np.array_equal(ti.near(c - w, c + w, t0, t1), want)
        assert [ti.near_one(i, c - w, c + w, t0, t1) for i in range(12)] == want.tolist()
    assert ti.latest() == ti.last_t.max()


def _waits_as_before(occ: Occupancy, b, dur: float, extra: float):
    """The first wait after which standing where he stands meets nobody, each wait tested by conflict."""
    for delay in DELAYS[:10]:
        t = b.t + delay
        if occ.conflict(b, [(t, b.x, b.y, b.z), (t + dur, b.x, b.y, b.z)], extra=extra) is None:
            return delay
    return None


@pytest.mark.parametrize("passer_from, wait", [(0.0, 3.0), (1.0, 0.0), (2.0, 0.0), (30.0, 0.0)])
def test_a_bows_wait_is_the_first_wait_conflict_finds_clear(passer_from, wait):
    """One standing beside the bower is in the way at every wait; one crossing in front of him only
    while he passes: the later waits tested against the one in the way alone, all at once, give the wait
    conflict gives wait after wait, and each test against him is conflict's for him."""
    state = PlanState(tiny_reading())
    me = person(state, "乙", 0.0, -7.0, heading=0.0)
    passer = person(state, "丙", -1.5, -6.4, t=passer_from)
    walk_keys(passer, [(passer_from, -1.5, -6.4), (passer_from + 6.0, 4.0, -6.4), (passer_from + 40.0, 4.0, -6.4)])
    occ = Occupancy(state)
    dur, extra = 1.5, me.beyond(Posture.BOW)
    assert occ.first_wait_to_stand(me, (me.x, me.y, me.z), me.t, dur, DELAYS[:10], extra) == wait == \
        _waits_as_before(occ, me, dur, extra)
    beside = person(state, "丁", 0.5, -7.0)
    assert _waits_as_before(occ, me, dur, extra) is None
    assert occ.first_wait_to_stand(me, (me.x, me.y, me.z), me.t, dur, DELAYS[:10], extra) is None
    starts = [me.t + d for d in DELAYS[:10]]
    for who in (beside, passer):
        got = occ._in_the_way(me, who, (me.x, me.y, me.z), starts, dur, extra)
        for s, g in zip(starts, got):
            lo, hi = np.asarray((me.x, me.y)), np.asarray((me.x, me.y))
            near = who in occ.near_tracks(me, lo, hi, s, s + dur)
            pts = [(s, me.x, me.y, me.z), (s + dur, me.x, me.y, me.z)]
            assert g == (near and occ.conflict(me, pts, among=[who], extra=extra) is not None)
    assert occ._in_the_way(me, beside, (me.x, me.y, me.z), starts, dur, extra).all()


def test_a_window_of_keys_is_the_rows_numpy_finds():
    """Body.window finds its rows by bisect in the list of keys: the rows numpy's search of the key times
    finds (the key before t0 to the one after t1; the last key when the track ended before)."""
    state = PlanState(tiny_reading())
    b = person(state, "甲", 0.0, -6.0)
    rng = np.random.default_rng(2)
    walk_keys(b, [(t, *rng.uniform(-5, 5, 2)) for t in np.cumsum(rng.uniform(0.1, 3.0, 70)).round(3)])
    k = b.array()
    assert len(b.keys) == len(k) > 64            # the buffer has grown
    for t0 in rng.uniform(-5, 200, 400):
        t1 = t0 + rng.choice([0.0, rng.uniform(0, 10), rng.uniform(0, 100)])
        i0 = max(0, int(np.searchsorted(k[:, 0], t0, side="right")) - 1)
        i1 = int(np.searchsorted(k[:, 0], t1, side="right")) + 1
        want = k[i0:i1] if len(k[i0:i1]) else k[-1:]
        assert np.array_equal(b.window(t0, t1), want)
    assert np.array_equal(b.window(k[-1, 0] + 5.0, k[-1, 0] + 9.0), k[-1:])
