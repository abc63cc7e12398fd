"""The finished plan: every track, state, carrier and event as a :class:`~reconstruct.model.plan.Plan`."""
from __future__ import annotations

import hashlib
import math
from operator import itemgetter
from pathlib import Path

import numpy as np

from ..model.vocabulary import Posture, PropPosture
from ..model.plan import Actor, Event, Gesture, LayoutRef, Plan, Prop, Steps, Track
from ..resources import SEED, data_path, logical_name
from .bodies import Body, PropBody
from .rounding import rounded
from .shooting import Shooting
from .state import PlanState
from .tallies import Tallies


def text_path(name: str) -> Path:
    """The file of a text a rite names (its logical name: ``assets/text/…`` in the package, else a path)."""
    if name == logical_name(SEED):
        return SEED
    packaged = data_path(name)
    return packaged if packaged.is_file() else Path(name)


class Document:
    """The finished plan: every track, state, carrier and event as a :class:`~reconstruct.model.plan.Plan`,
    read from the planning state (it plans nothing)."""

    def __init__(self, state: PlanState, rite) -> None:
        self.state, self.rite = state, rite
        # a carrier's hand while he carries, per (carrier, from, to, how): the things carried together (a
        # bow and its four arrows, 乘矢) are in the same hand at the same times
        self._in_hand: dict[tuple, list[list]] = {}
        # each carrier's key headings and whether he kneels at each key, as arrays (the keys are final here)
        self._poses: dict[str, tuple[int, np.ndarray, np.ndarray]] = {}

    def _pose_of_keys(self, b: Body) -> tuple[np.ndarray, np.ndarray]:
        """The heading of each of his keys, and whether he kneels there (kept per carrier: his props ask
        again and again)."""
        kept = self._poses.get(b.id)
        if kept is None or kept[0] != len(b.keys):
            kept = self._poses[b.id] = (len(b.keys), np.asarray([k[4] for k in b.keys], float),
                                        np.asarray([k[5] == Posture.KNEEL for k in b.keys], bool))
        return kept[1], kept[2]

    def _hands(self, b: Body, ts, how: str = PropPosture.CARRIED) -> list[list]:
        """Where a carried prop is at times ts: in the right hand, a little forward and to the right, at
        waist height (lower when kneeling), from the carrier's interpolated pose (all times at once); a
        ``tucked`` one (搢) in the belt at his right hip."""
        k = b.array()
        headings, kneels = self._pose_of_keys(b)
        ts = np.asarray(ts, float)
        n = len(k)
        i = np.maximum(0, np.searchsorted(k[:, 0], ts, side="right") - 1)
        j = np.minimum(i + 1, n - 1)
        # the pose between key i and the next (as position_at: the first key before, the last after)
        t0, t1 = k[i, 0], k[j, 0]
        moving = t1 > t0
        along = (ts - t0) / np.where(moving, t1 - t0, 1.0)
        xyz = k[i, 1:4] + (k[j, 1:4] - k[i, 1:4]) * np.where(moving, along, 1.0)[:, None]
        xyz = np.where((ts <= k[0, 0])[:, None], k[0, 1:4], np.where((ts >= k[-1, 0])[:, None], k[-1, 1:4], xyz))
        g = np.where(moving, np.clip(along, 0.0, 1.0), 0.0)
        h0, h1 = headings[i], headings[j]      # the headings of the keys before and after each time
        heading = (h0 + ((h1 - h0 + 180) % 360 - 180) * g) % 360
        fwd, right, up, low = (0.25, 0.2, 0.95, 0.5) if how == PropPosture.CARRIED else (0.02, 0.2, 0.9, 0.52)
        # the hand's offset turned by the heading: the sines and cosines by Python's math, one by one (as
        # numpy's may differ in the last bit), the rest at once (the same operations, in the same order)
        h = (heading * (math.pi / 180.0)).tolist()         # math.radians: the degrees times pi / 180
        sh, ch = np.asarray(list(map(math.sin, h))), np.asarray(list(map(math.cos, h)))
        x, y, z = xyz[:, 0], xyz[:, 1], xyz[:, 2]
        hx = x + fwd * sh + right * ch
        hy = y + fwd * ch - right * sh
        hz = z + np.where(kneels[i], low, up)
        # each number rounded as round() rounds it (see :func:`.rounding.rounded`)
        return [[t, x, y, z, hd, how] for t, x, y, z, hd in zip(rounded(ts, 3), rounded(hx, 4), rounded(hy, 4),
                                                               rounded(hz, 4), rounded(heading, 2))]

    def prop_track(self, pr: PropBody, end: float) -> list[list]:
        """A prop's keys: where it rests, and in its carrier's hand while carried.  It stays where it lies
        until it is picked up (a rest key just before), so nothing drifts between keys."""
        keys = list(pr.keys)
        for who, t0, t1, how in pr.intervals:
            b = self.state.bodies[who]
            t1 = end if t1 is None else t1
            lying = [k for k in pr.keys if k[0] <= t0 + 1e-9]
            handed = any(a <= t0 - 0.3 <= (end if e is None else e) for _, a, e, _ in pr.intervals)
            if lying and t0 - 0.3 > lying[-1][0] and not handed:
                keys.append([round(t0 - 0.3, 3), *lying[-1][1:5], PropPosture.REST])
            hand = self._in_hand.get((who, t0, t1, how))
            if hand is None:
                times = b.array()[:, 0]
                i0, i1 = np.searchsorted(times, t0 - 1e-6, side="left"), np.searchsorted(times, t1 + 1e-6, side="right")
                hand = self._in_hand[(who, t0, t1, how)] = self._hands(b, [*times[i0:i1].tolist(), t0, t1], how)
            keys += hand
        # by time, and at one time a key in the hand first: sorted by the second, then (stably) by the first
        keys.sort(key=lambda k: k[5] not in (PropPosture.CARRIED, PropPosture.TUCKED))
        keys.sort(key=itemgetter(0))
        out: list[list] = []
        for k in keys:
            if out and abs(out[-1][0] - k[0]) < 1e-9:
                out[-1] = k
            else:
                out.append(k)
        return out

    def plan(self, shooting: Shooting, tallies: Tallies) -> Plan:
        """The plan: every track, state, carrier and event as the planner wrote them; the shots and the
        music as ``shooting`` has them, the scores as ``tallies`` reported them."""
        duration = max([b.t for b in self.state.bodies.values()] + [e for _, e in self.state.event_times.values()] + [0.0])
        for b in self.state.bodies.values():
            b.hold_until(duration)
        people = {p.id: p for p in self.rite.people}
        actors = {}
        for pid, b in self.state.bodies.items():
            p = people[pid]
            actors[pid] = Actor(pid, p.label_en, Track.from_rows(b.keys), aliases=list(p.aliases), side=p.side,
                                states=Steps.from_rows(b.states), walked_m=round(b.walked, 2),
                                gestures=[Gesture(g[0], duration if g[1] is None else g[1], g[2], g[3])
                                          for g in sorted(b.gestures, key=lambda g: g[0])])
        props = {pid: Prop(pid, pr.kind, Track.from_rows(self.prop_track(pr, duration)), label=pr.kind,
                           carriers=Steps.from_rows(pr.carriers))
                 for pid, pr in self.state.props.items()}
        events = []
        for e in self.rite.events:
            s, t = self.state.event_times.get(e.id, (0.0, 0.0))
            # the words of a step on a page our copy lacks: kept only where there are some
            proc = e.procedure.model_dump(exclude=set() if e.procedure.lacuna else {"lacuna"}) if e.procedure else None
            events.append(Event(e.id, e.text, tuple(e.span), e.footnote, tuple(e.actors), round(s, 3), round(t, 3),
                                e.gloss, e.rule, proc, e.text_file,
                                tuple(f"{k}={self.rite.options[k]}" for k in e.options if k in self.rite.options),
                                e.section))
        events.sort(key=lambda ev: (ev.start, ev.span[0]))
        r = self.state.reading
        text = text_path(self.rite.text_file)
        return Plan(
            layout=LayoutRef.of(r),
            text={"file": logical_name(text), "sha256": hashlib.sha256(text.read_bytes()).hexdigest()},
            measures={"chi_m": r.units.chi_m, "bu_m": round(r.units.bu_m, 6)},
            parameters=dict(self.rite.parameters), options=dict(self.rite.options),
            hall={"height_m": r.hall_height, "footprint": [list(p) for p in r.hall_footprint]},
            landmarks=dict(r.landmarks), actors=actors, props=props, events=events,
            duration=round(duration, 3), conflicts=list(self.state.conflicts), shots=list(shooting.shots),
            music=shooting.music_played(duration), score=list(tallies.scores),
            pieces=shooting.pieces_played(duration))
