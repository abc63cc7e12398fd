"""How everyone stands at any moment: the plan's tracks read as poses, for the video and the glTF.

:class:`PlanSampler` gives, for a plan time, where each person is, which way he faces and the
joint parameters of his posture (walking by the ground covered, bowing by the phase of the bow,
postures eased into each other across a change), with his state (bared arm, gear, bow, what he
holds); and where each prop is and who carries it.  Both outputs pose their figures from it, so
a frame of the video and the same moment in Blender agree.  It reads the plan only through
:mod:`reconstruct.model.plan`.
"""
from __future__ import annotations

import bisect
from dataclasses import dataclass

import numpy as np

from ..model.plan import Plan, Track
from . import poses as P
from .gestures import REACH_KINDS, RELEASE, GestureTimeline, apply_gestures
from .props import CUPS, prop_kind

LOW = {"kneel", "kneel_bow"}


def smooth(u: float) -> float:
    """Smoothstep on [0, 1] (clamped)."""
    u = min(1.0, max(0.0, u))
    return u * u * (3 - 2 * u)


@dataclass(eq=False)
class Motion:
    """A track with what its keys imply for the figure: the ground covered up to each key, the
    posture of each stretch (``walk`` where the position changes, unless kneeling throughout), and the
    run of equal posture each stretch belongs to (a bow's phase runs over its whole run)."""

    track: Track
    cum: np.ndarray          # (k,) path length up to each key
    seg_post: list[str]      # effective posture of each stretch (k-1) and of the last key
    run0: np.ndarray         # start time of the run of equal posture containing each stretch
    run1: np.ndarray         # end time of that run

    @classmethod
    def of(cls, track: Track) -> "Motion":
        t, xyz, post = track.t, track.xyz, track.posture.tolist()
        n = len(t)
        cum = np.r_[0.0, np.cumsum(np.linalg.norm(np.diff(xyz, axis=0), axis=1))] if n > 1 else np.zeros(1)
        seg = []
        for i in range(n):
            moving = i + 1 < n and cum[i + 1] - cum[i] > 0.01
            p = post[i]
            if moving and not (p in LOW and post[i + 1] in LOW):
                p = "walk"
            seg.append(p)
        run0, run1 = np.zeros(n), np.zeros(n)
        i = 0
        while i < n:
            j = i
            while j + 1 < n and seg[j + 1] == seg[i]:
                j += 1
            run0[i:j + 1], run1[i:j + 1] = t[i], (t[j + 1] if j + 1 < n else t[j])
            i = j + 1
        return cls(track, cum, seg, run0, run1)

    @property
    def t(self) -> np.ndarray:
        return self.track.t

    def __post_init__(self):
        self._kt = self.track.t.tolist()           # for scalar look-ups without numpy's overhead
        self._xyz = self.track.xyz
        self._hd = self.track.heading.tolist()

    def position(self, t: float) -> tuple[np.ndarray, float, int, float]:
        """(xyz, heading, index of the key it follows, fraction towards the next) at plan time t
        (as :meth:`Track.segment` and :meth:`Track.at` compute them, for one time)."""
        kt = self._kt
        n = len(kt)
        i = min(max(bisect.bisect_right(kt, t) - 1, 0), n - 1)
        j = min(i + 1, n - 1)
        span = kt[j] - kt[i]
        u = min(1.0, max(0.0, (t - kt[i]) / span)) if span > 0 else 0.0
        X = self._xyz
        xyz = X[i] + (X[j] - X[i]) * u
        h0, h1 = self._hd[i], self._hd[j]
        return xyz, (h0 + ((h1 - h0 + 180.0) % 360.0 - 180.0) * u) % 360.0, i, u

    def params(self, i: int, t: float, state: dict) -> dict:
        """Joint parameters of stretch i at time t."""
        p = self.seg_post[i]
        tt = self.track.t
        if p == "walk":
            j = min(i + 1, len(tt) - 1)
            dt = tt[j] - tt[i]
            u = 0.0 if dt <= 0 else min(1.0, max(0.0, (t - tt[i]) / dt))
            return P.pose_params("walk", P.gait_phase(self.cum[i] + (self.cum[j] - self.cum[i]) * u), state)
        if p in ("bow", "kneel_bow"):
            dur = self.run1[i] - self.run0[i]
            if dur <= 0:
                dur = 1.5
            return P.pose_params(p, min(0.999, max(0.0, (t - self.run0[i]) / dur)), state)
        return P.pose_params(p, 0.0, state)


class PlanSampler:
    """Where each actor and prop is, and how it stands, at any plan time."""

    def __init__(self, plan: Plan):
        self.plan = plan
        self.actors: dict[str, Motion] = {aid: Motion.of(a.track) for aid, a in plan.actors.items()}
        self.props: dict[str, Motion] = {pid: Motion.of(p.track) for pid, p in plan.props.items()}
        self.gestures: dict[str, GestureTimeline] = {aid: GestureTimeline(a.gestures) for aid, a in plan.actors.items()}
        self.partner = self._hand_over_partners(plan)

    # -- actors
    def state(self, aid: str, t: float) -> dict:
        return self.plan.actors[aid].state(t)

    def states(self, aid: str) -> list[dict]:
        """Every state an actor passes through."""
        return [dict(s or {}) for s in self.plan.actors[aid].states.values]

    def state_times(self, aid: str) -> list[float]:
        return list(self.plan.actors[aid].states.times)

    @staticmethod
    def position(m: Motion, t: float) -> tuple[np.ndarray, float, int, float]:
        """(xyz, heading, key index, fraction) on a track at plan time t."""
        return m.position(t)

    def actor_pose(self, aid: str, t: float, holding: list[str] | None = None):
        """(xyz, heading, joint params, state) of an actor at ``t`` (postures eased across changes, the
        gestures of his hands laid over them: ``state["gestures"]`` lists them as (kind, object,
        progress, weight))."""
        m = self.actors[aid]
        state = dict(self.state(aid, t))
        if holding:
            state["holding"] = list(dict.fromkeys(list(state.get("holding") or []) + holding))
        pstate = state
        kinds = {prop_kind(h) for h in state.get("holding") or ()}
        with_cup = "弓" in kinds and bool(kinds & CUPS)      # 右手執觶，左手執弓 (鄭 on 立卒觶)
        if state.get("bow") == "unstrung" and "弓" in kinds and not with_cup:
            # the unstrung bow lies across both palms: pose the arms as for a thing held in both hands
            pstate = dict(state, holding=[h for h in state["holding"] if prop_kind(h) != "弓"] + ["觯"])
        xyz, hd, i, _ = m.position(t)
        params = m.params(i, t, pstate)
        if i > 0 and m.seg_post[i - 1] != m.seg_post[i]:
            a, b = m.seg_post[i - 1], m.seg_post[i]
            ease = 0.8 if (a in LOW) != (b in LOW) else 0.35
            w = (t - m.t[i]) / ease
            if w < 1.0:
                prev = m.params(i - 1, m.t[i] - 1e-6, pstate)
                params = P.blend_params(prev, params, smooth(w))
        active = self.gestures[aid].active(t)
        if active:
            reach = {}
            for g, _, _ in active:                # a hand-over: the hands meet the other's halfway
                other = g.object if g.object in self.actors else self.partner.get((aid, g))
                if g.kind in REACH_KINDS and other is not None:
                    dx, dy = (self.actors[other].position(t)[0] - xyz)[:2]
                    bearing = np.degrees(np.arctan2(dx, dy)) - hd
                    reach[g] = (0.5 * float(np.hypot(dx, dy)), float((bearing + 180.0) % 360.0 - 180.0))
            params = apply_gestures(params, active, reach, left_busy=with_cup)
            state["gestures"] = [(g.kind, g.object, u, w) for g, u, w in active]
        return xyz, hd, params, state

    @staticmethod
    def _hand_over_partners(plan: Plan) -> dict:
        """(receiver, his receive gesture) → the one handing it to him (a hand_over to him that overlaps it)."""
        out = {}
        for giver, a in plan.actors.items():
            for g in a.gestures:
                if g.kind != "hand_over" or g.object not in plan.actors:
                    continue
                for r in plan.actors[g.object].gestures:
                    if r.kind == "receive" and r.t0 < g.t1 + 0.5 and g.t0 < r.t1 + 0.5:
                        out[(g.object, r)] = giver
        return out

    def last_gesture(self, aid: str, t: float, kinds: tuple[str, ...]):
        """The last gesture of one of ``kinds`` an actor began at or before ``t`` (None: none)."""
        tl = self.gestures[aid]
        for g in reversed(tl.g[:bisect.bisect_right(tl.t0, t)]):
            if g.kind in kinds:
                return g
        return None

    def gestures_at(self, aid: str, t: float) -> list[tuple[str, str | None, float, float]]:
        """[(kind, object, progress, weight)] of the gestures an actor performs at ``t``."""
        return [(g.kind, g.object, u, w) for g, u, w in self.gestures[aid].active(t)]

    def active_intervals(self, aid: str) -> list[tuple[float, float]]:
        """Plan-time intervals in which an actor visibly moves (walks, turns, bows, changes posture)."""
        m = self.actors[aid]
        out = []
        hd = m.track.heading
        for i in range(len(m.t) - 1):
            moves = m.cum[i + 1] - m.cum[i] > 0.01          # walking, or shifting on his knees
            if moves or m.seg_post[i] in ("bow", "kneel_bow") or hd[i + 1] != hd[i]:
                out.append((m.t[i], m.t[i + 1]))
            if i > 0 and m.seg_post[i] != m.seg_post[i - 1]:
                out.append((m.t[i] - 0.1, m.t[i] + 0.9))
        out += [(float(x) - 0.1, float(x) + 0.5) for x in self.state_times(aid)]
        out += [(g.t0 - 0.1, g.t1 + RELEASE + 0.1) for g in self.gestures[aid].g]
        return out

    # -- props
    def carrier_of(self, pid: str, t: float) -> str | None:
        return self.plan.props[pid].carrier(t)
