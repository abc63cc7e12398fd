"""The mesh-level audit: does anybody pass through anybody, as the video draws them?

Every person is posed as the video and the glTF pose him (:class:`~reconstruct.scene.sampler.PlanSampler`,
gestures included) every :data:`STEP` seconds over the whole passage, and any two figures whose
meshes intersect are reported, with the parts that meet.  Hands meeting in a hand-over are allowed:
while one of two people hands something to the other (gestures ``hand_over``/``receive``,
``pour``), or leads him by the hand (``lead``, 相工), their forearms and hands are left out of the
test between them.

The narrow phase is FCL (python-fcl, as trimesh's collision manager uses it) on the posed meshes; a
broad phase in numpy only poses pairs whose centres are closer than :data:`REACH` m at the same
level, and a pair is tested again only when one of the two has moved.  Reads the plan only.
"""
from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np

from ..model.vocabulary import GestureKind
from ..model.plan import Plan
from ..scene import figures as F
from ..scene import poses as P
from ..scene.sampler import PlanSampler

__all__ = ["Contact", "mesh_audit", "STEP", "REACH", "HAND_PARTS", "HANDING"]

STEP = 0.2                  # s between samples
REACH = 1.5                 # m: centres farther apart than this cannot touch (arms out, sleeves, bows aside)
HAND_PARTS = ("l_forearm", "l_sleeve", "l_forearm_bare", "l_guard", "r_forearm", "r_sleeve", "r_ring")
HANDING = (GestureKind.HAND_OVER, GestureKind.RECEIVE, GestureKind.POUR)
_BLOCK = 512                # samples looked at together
_THREE = itertools.repeat(3)   # decimals of a pose's parameters in its signature (round(v, 3) each)


@dataclass(frozen=True)
class Contact:
    """Two figures whose meshes intersect at ``t``, and the parts that meet."""

    a: str
    b: str
    t: float
    parts: tuple[str, str]

    def __str__(self) -> str:
        return f"{self.t:8.1f} s  {self.a} ~ {self.b}: {self.parts[0]} meets {self.parts[1]}"


class _Models:
    """FCL models of each figure part in its own frame (its scale baked in), built once per scale."""

    def __init__(self, fcl):
        self.fcl = fcl
        self.cache: dict[tuple, object] = {}

    def get(self, role: str, g, i: int, scale: np.ndarray):
        key = (role, i, *np.round(scale, 3))
        m = self.cache.get(key)
        if m is None:
            vmask = g.part_index == i
            idx = np.flatnonzero(vmask)
            remap = np.full(len(g.vertices), -1)
            remap[idx] = np.arange(len(idx))
            faces = remap[g.faces[vmask[g.faces].all(axis=1)]]
            m = self.fcl.BVHModel()
            m.beginModel(len(idx), len(faces))
            m.addSubModel(g.vertices[idx] * np.round(scale, 3), faces)
            m.endModel()
            self.cache[key] = m
        return m


_BY_PART: dict[int, tuple] = {}


def _by_part(g) -> tuple[np.ndarray, ...]:
    """(vertex order sorted by part, where each part's run starts, the parts that have vertices, the length of
    each part's run, the sorted vertices) of a figure's geometry, made once per geometry."""
    hit = _BY_PART.get(id(g))
    if hit is None or hit[0] is not g:
        order = np.argsort(g.part_index, kind="stable")
        present, starts, runs = np.unique(g.part_index[order], return_index=True, return_counts=True)
        hit = _BY_PART[id(g)] = (g, order, starts, present, runs, g.vertices[order])
    return hit[1:]


class _Body:
    """One posed figure: each shown part's world bounds, rotation and translation (its scale is in the
    part's model), and FCL objects made on demand."""

    def __init__(self, models: _Models, role: str, g, mats: np.ndarray):
        """``mats``: the parts' world transforms, (len(g.parts), 4, 4) in the order of ``g.parts``."""
        self.models, self.role, self.g = models, role, g
        self.parts = g.parts
        lin = mats[:, :3, :3]
        self.shown = np.flatnonzero(np.abs(np.linalg.det(lin)) > 1e-9)
        self.scale = np.linalg.norm(lin, axis=1)                  # column norms: the parts' own scales
        self.rot = lin / np.where(self.scale > 1e-12, self.scale, 1.0)[:, None, :]
        self.t = mats[:, :3, 3]
        # each part's world bounds: the vertices sorted by part once per geometry, reduced per run (one
        # figure's transforms gathered per vertex stay in cache; gathered for a whole batch, they did not)
        order, starts, present, runs, ordered = _by_part(g)
        V = (np.einsum("nij,nj->ni", np.repeat(lin[present], runs, axis=0), ordered)
             + np.repeat(self.t[present], runs, axis=0))          # each vertex moved by its part's transform
        self.lo = np.full((len(g.parts), 3), np.inf)
        self.hi = np.full((len(g.parts), 3), -np.inf)
        self.lo[present] = np.minimum.reduceat(V, starts, axis=0)
        self.hi[present] = np.maximum.reduceat(V, starts, axis=0)
        hidden = np.ones(len(g.parts), bool)
        hidden[self.shown] = False
        self.lo[hidden], self.hi[hidden] = np.inf, -np.inf
        self.box = (self.lo[self.shown].min(0), self.hi[self.shown].max(0))
        self.objs: dict[int, object] = {}

    def obj(self, i: int):
        if i not in self.objs:
            fcl = self.models.fcl
            self.objs[i] = fcl.CollisionObject(self.models.get(self.role, self.g, i, self.scale[i]),
                                               fcl.Transform(self.rot[i], self.t[i]))
        return self.objs[i]


@dataclass(frozen=True)
class _Unposed:
    """The place of a body still to be posed with the others of its batch (its index in it)."""

    i: int


class _Bodies:
    """Posed figures, cached by pose."""

    def __init__(self, sampler: PlanSampler, changes: dict[str, np.ndarray] | None = None):
        import fcl
        self.fcl = fcl
        self.sampler = sampler
        self.models = _Models(fcl)
        self.geom = {aid: F.figure_geometry(aid) for aid in sampler.actors}
        self.cache: dict[str, tuple] = {}
        # per person, how many of the samples up to each may have changed him (see :func:`mesh_audit`)
        self.changes = changes or {}

    def posed(self, aid: str, t: float, k: int | None = None) -> tuple[tuple, _Body]:
        """(pose signature, posed body) of a person at ``t``, sample ``k`` (:meth:`posed_many`)."""
        return self.posed_many([(aid, t, k)])[0]

    def posed_many(self, requests: list[tuple[str, float, int | None]]) -> list[tuple[tuple, _Body]]:
        """(pose signature, posed body) of each (person, ``t``, sample ``k``) asked for, in the order asked: the
        one posed last for him when he cannot have changed since (no sample in between, nor this one, may have
        changed him), or when he is posed as then; the bodies of the new poses are posed together
        (:func:`~reconstruct.scene.poses.world_transforms_many`)."""
        out: list = []
        new: list[tuple] = []                      # (person, xyz, heading, params, state) of each new body
        for aid, t, k in requests:
            hit = self.cache.get(aid)
            c = self.changes.get(aid)
            if hit is not None and (hit[2] == t or (k is not None and c is not None and hit[3] is not None
                                                     and c[k] == c[hit[3]])):
                out.append(hit[:2])
                continue
            xyz, hd, params, state = self.sampler.actor_pose(aid, t)
            sig = (tuple(np.round(xyz, 3)), round(hd, 2), tuple(map(round, params.values(), _THREE)),
                   bool(state.get("bare_left_arm")), bool(state.get("gear")))
            if hit is not None and hit[0] == sig:
                self.cache[aid] = (sig, hit[1], t, k)
                out.append(hit[:2])
                continue
            self.cache[aid] = (sig, _Unposed(len(new)), t, k)
            new.append((aid, xyz, hd, params, state))
            out.append(self.cache[aid][:2])
        if not new:
            return out
        W = P.world_transforms_many(np.array([n[1] for n in new]), np.array([n[2] for n in new]),
                                    [n[3] for n in new], [n[4] for n in new])
        made = []
        for j, (aid, *_) in enumerate(new):
            g = self.geom[aid]
            mats = W[j] if g.parts == F.PARTS else W[j][[F.PARTS.index(p) for p in g.parts]]
            made.append(_Body(self.models, F.role_of(aid), g, mats))
        for aid, hit in list(self.cache.items()):
            if isinstance(hit[1], _Unposed):
                self.cache[aid] = (hit[0], made[hit[1].i], *hit[2:])
        return [(sig, made[b.i]) if isinstance(b, _Unposed) else (sig, b) for sig, b in out]

    def touch(self, a: _Body, b: _Body, hands: bool = True) -> tuple[str, str] | None:
        """The parts by which two posed figures intersect (None: they do not); without their hands and
        forearms when not ``hands``."""
        if (a.box[1] < b.box[0]).any() or (b.box[1] < a.box[0]).any():
            return None
        ia, ib = a.shown, b.shown
        if not hands:
            ia = np.array([i for i in ia if a.parts[i] not in HAND_PARTS], int)
            ib = np.array([i for i in ib if b.parts[i] not in HAND_PARTS], int)
        over = ((a.lo[ia][:, None, :] <= b.hi[ib][None, :, :]) & (b.lo[ib][None, :, :] <= a.hi[ia][:, None, :])).all(-1)
        fcl = self.fcl
        for x, y in np.argwhere(over):
            i, j = int(ia[x]), int(ib[y])
            if fcl.collide(a.obj(i), b.obj(j), fcl.CollisionRequest(), fcl.CollisionResult()):
                return a.parts[i], b.parts[j]
        return None


def _handing(plan: Plan) -> dict[str, list[tuple[float, float]]]:
    """Per person, the intervals in which his hands hand something over or take it."""
    out: dict[str, list[tuple[float, float]]] = {}
    for aid, a in plan.actors.items():
        out[aid] = [(g.t0 - 0.5, g.t1 + 0.6) for g in a.gestures if g.kind in HANDING]
    return out


def _leading(plan: Plan) -> dict[tuple[str, str], list[tuple[float, float]]]:
    """(one who leads, one led by the hand) → the intervals of the ``lead`` gesture (相工)."""
    out: dict[tuple[str, str], list] = {}
    for aid, a in plan.actors.items():
        for g in a.gestures:
            if g.kind == GestureKind.LEAD and g.object:
                out.setdefault((aid, g.object), []).append((g.t0 - 0.5, g.t1 + 0.6))
    return out


def _during(spans: list[tuple[float, float]], ts: np.ndarray) -> np.ndarray:
    """At which of the sample times ``ts`` one of the intervals is going on."""
    m = np.zeros(len(ts), bool)
    for a, b in spans:
        m |= (ts >= a) & (ts <= b)
    return m


def mesh_audit(plan: Plan, step: float = STEP, t0: float = 0.0, t1: float | None = None,
               limit: int | None = None) -> list[Contact]:
    """Every pair of people whose figures intersect, once per stretch of contact (earliest time)."""
    sampler = PlanSampler(plan)
    ids = sorted(plan.actors)
    t1 = plan.duration if t1 is None else t1
    ts = np.arange(t0, t1 + 1e-9, step)
    pos = np.stack([plan.actors[a].track.at(ts)[0] for a in ids])          # (n, T, 3)
    handing = {a: _during(spans, ts) for a, spans in _handing(plan).items()}
    leading = {pair: _during(spans, ts) for pair, spans in _leading(plan).items()}
    never = np.zeros(len(ts), bool)
    # when each person may look different from the sample before (walks, bows, gestures, changes),
    # counted up to each sample: a pose made at one sample holds at another when the count is the same
    # and neither may have changed him (however long since, and whoever he met in between)
    changes = {}
    for a in ids:
        m = np.zeros(len(ts), bool)
        for u0, u1 in sampler.active_intervals(a):
            m[max(0, int(np.floor((u0 - t0) / step))):max(0, int(np.ceil((u1 - t0) / step)) + 1)] = True
        changes[a] = np.cumsum(m)
    bodies = _Bodies(sampler, changes)
    found: list[Contact] = []
    n = len(ids)
    iu, ju = np.triu_indices(n, 1)
    # per pair and sample: may either of the two have changed, and may their hands meet (a hand-over or
    # a leading by the hand). A pair near at a sample where neither count nor hands differ from when it was
    # last looked at poses as it did then (see :meth:`_Bodies.posed`): it touches as it did, and is skipped
    count = np.stack([changes[a] for a in ids])                                 # (n, T)
    hand = np.stack([handing.get(a, never) for a in ids])
    led = {p: leading.get((ids[i], ids[j]), never) | leading.get((ids[j], ids[i]), never)
           for p, (i, j) in enumerate(zip(iu, ju)) if (ids[i], ids[j]) in leading or (ids[j], ids[i]) in leading}
    P = len(iu)
    last = np.full((P, 3), -1, np.int64)       # (count of a, count of b, hands) at each pair's last near sample
    apart = np.zeros(P, np.int64)              # samples each pair was not near, so far
    apart_then = np.full(P, -1, np.int64)      # … when it was last looked at
    touching = np.zeros(P, bool)
    checked: dict[int, tuple] = {}
    # a pair is looked at where it is near and its key differs from its last near sample's (the same as from
    # its last look: where it did not differ, it was not looked at); blocks of samples, in time order
    for k0 in range(0, len(ts), _BLOCK):
        ks = np.arange(k0, min(len(ts), k0 + _BLOCK))
        blk, cnt, hnd = pos[:, ks], count[:, ks], hand[:, ks]
        d = np.hypot(blk[iu, :, 0] - blk[ju, :, 0], blk[iu, :, 1] - blk[ju, :, 1])
        near = (d < REACH) & (np.abs(blk[iu, :, 2] - blk[ju, :, 2]) < 0.5)                  # (P, B)
        hands_meet = hnd[iu] & hnd[ju]
        for p, m in led.items():
            hands_meet[p] |= m[ks]
        key = np.stack([cnt[iu], cnt[ju], hands_meet], axis=2)                              # (P, B, 3)
        # each sample's previous near sample in this block (-1: none, the carried one)
        idx = np.where(near, np.arange(len(ks))[None, :], -1)
        prev = np.maximum.accumulate(np.concatenate([np.full((P, 1), -1), idx[:, :-1]], axis=1), axis=1)
        before = np.where((prev >= 0)[:, :, None], np.take_along_axis(key, np.maximum(prev, 0)[:, :, None], axis=1),
                          last[:, None, :])
        look = near & (key != before).any(axis=2)
        gone = apart[:, None] + np.cumsum(~near, axis=1)                                     # (P, B)
        has = near.any(axis=1)
        lastk = np.where(has, np.max(idx, axis=1), 0)
        last[has] = key[has, lastk[has]]
        apart = gone[:, -1].copy()
        looks = list(zip(*np.nonzero(look.T)))
        # every person each look needs, posed in the order the looks need them, the new poses together
        posed = iter(bodies.posed_many([(ids[x], float(ts[ks[b]]), int(ks[b]))
                                        for b, p in looks for x in (iu[p], ju[p])]))
        for b, p in looks:
            k = int(ks[b])
            if gone[p, b] != apart_then[p]:
                touching[p] = False                        # apart since it was last looked at
            apart_then[p] = gone[p, b]
            a_, b_ = ids[iu[p]], ids[ju[p]]
            t = float(ts[k])
            sa, oa = next(posed)
            sb, ob = next(posed)
            hands = bool(key[p, b, 2])
            sig = (sa, sb, hands)
            if checked.get(p) == sig:
                continue                                   # posed as when last tested: touching as then
            parts = bodies.touch(oa, ob, not hands)
            checked[p] = sig
            hit = parts is not None
            if hit and not touching[p]:
                found.append(Contact(a_, b_, t, parts))
                if limit is not None and len(found) >= limit:
                    return found
            touching[p] = hit
    return found
