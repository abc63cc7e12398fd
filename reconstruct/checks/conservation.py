"""Nothing moves unless someone carries it: the conservation of things, checked on a finished plan.

Nobody stands on a dish served.  A prop moves only in someone's hands (or belt, or on a 俎 he carries) or in flight; it changes hands only
by a hand-over between two people within reach of each other, or by being set down and taken up again
by someone within reach of where it lies; and a gesture done with a thing (drinking, pouring, washing,
offering, handing over, setting down) is done with a thing in the hand.  The archers take up their
arrows with the bow in the hand (拾取矢: 橫弓…取一个兼諸弣; 矢不挾，兼諸弦弣以退).

Reads the plan only; every finding names the prop or person, the time and what is wrong.
"""
from __future__ import annotations

import numpy as np

from ..model.plan import Plan
from .audit import Finding

JUMP = 0.3          # a prop that moves farther than this between two keys with nobody carrying it jumps
REACH = 1.3         # how far from his feet one reaches to take up or set down a thing (kneeling: 1.25 m)
HAND_OVER = 2.0     # two people handing a thing from one to the other stand at most this far apart
LEVEL = 0.45        # a thing lying more than this above or below one's feet is out of reach (hall 0.69 m)
IN_HAND = ("drink", "pour", "wash", "hand_over", "set_down")
BOW_IN_HAND = ("take_arrow",)


def _where(plan: Plan, who: str, t: float) -> np.ndarray:
    xyz, _ = plan.actors[who].track.at(t)
    return np.asarray(xyz, float)


def _apart(plan: Plan, who: str, t: float, at) -> float:
    me = _where(plan, who, t)
    return float(np.hypot(at[0] - me[0], at[1] - me[1]))


def jumps(plan: Plan) -> list[Finding]:
    """Props that move with nobody carrying them (or with a carrier who is not where they are) and not
    in flight: every stretch between two keys over which a prop moves farther than ``JUMP`` must have a
    carrier within reach of it at both ends of the stretch."""
    out: list[tuple[int, Finding]] = []
    carried: dict[str, list] = {}           # carrier → [(finding's order, prop, t0, t1, where at t0, at t1, d)]
    for pid, prop in sorted(plan.props.items()):
        k = prop.track.keys
        if len(k) < 2:
            continue
        xyz = prop.track.xyz
        d = np.linalg.norm(np.diff(xyz, axis=0), axis=1)
        for i in np.flatnonzero(d > JUMP):
            t0, t1 = float(k["t"][i]), float(k["t"][i + 1])
            if "flight" in (k["posture"][i], k["posture"][i + 1]):
                continue
            who = prop.carrier(t1 - 1e-6) or prop.carrier(t1) or prop.carrier(t0)
            order = len(out) + sum(map(len, carried.values()))
            if who is None or who not in plan.actors:
                out.append((order, Finding("jump", pid, t0,
                                           f"moves {d[i]:.2f} m by itself between {t0:.1f} and {t1:.1f} s")))
                continue
            carried.setdefault(who, []).append((order, pid, t0, t1, xyz[i], xyz[i + 1], d[i]))
    for who, rows in carried.items():       # where each carrier is, at all those times at once
        t0s, t1s = np.array([r[2] for r in rows]), np.array([r[3] for r in rows])
        at0, _ = plan.actors[who].track.at(t0s)
        at1, _ = plan.actors[who].track.at(t1s)
        a0, a1 = np.array([r[4] for r in rows]), np.array([r[5] for r in rows])
        far = np.maximum(np.hypot(*(a0[:, :2] - at0[:, :2]).T), np.hypot(*(a1[:, :2] - at1[:, :2]).T))
        for (order, pid, t0, t1, _, _, dist), f in zip(rows, far):
            if f > REACH + JUMP:
                out.append((order, Finding("jump", pid, t0, f"moves {dist:.2f} m between {t0:.1f} and {t1:.1f} s "
                                                            f"with {who} {f:.1f} m from it")))
    return [f for _, f in sorted(out, key=lambda x: x[0])]


def _key_before(prop, t: float) -> np.ndarray:
    """Where the prop was at its last key before t (where it lay before someone took it up)."""
    kt = prop.track.t
    i = max(0, int(np.searchsorted(kt, t - 1e-6, side="left")) - 1)
    return prop.track.xyz[i]


def _key_after(prop, t: float) -> tuple[np.ndarray, str]:
    """Where the prop is, and in what posture, at its first key from t on (where it was set down)."""
    kt = prop.track.t
    i = min(len(kt) - 1, int(np.searchsorted(kt, t - 1e-6, side="left")))
    return prop.track.xyz[i], str(prop.track.posture[i])


def hands(plan: Plan) -> list[Finding]:
    """Takings up, settings down and hand-overs at a distance."""
    out = []
    for pid, prop in sorted(plan.props.items()):
        before = None
        for t, who in prop.carriers.rows():
            if who == before:
                continue
            if before is None and who in plan.actors:                      # taken up
                far = _apart(plan, who, t, _key_before(prop, t))
                if far > REACH:
                    out.append(Finding("reach", pid, t, f"{who} takes it up {far:.2f} m away"))
            elif before in plan.actors and who is None:                    # set down (or loosed)
                at, posture = _key_after(prop, t)
                far = _apart(plan, before, t, at)
                if posture != "flight" and far > REACH:
                    out.append(Finding("reach", pid, t, f"{before} sets it down {far:.2f} m away"))
            elif before in plan.actors and who in plan.actors:               # from hand to hand
                a, b = _where(plan, before, t), _where(plan, who, t)
                far = float(np.hypot(*(a[:2] - b[:2])))
                if far > HAND_OVER:
                    out.append(Finding("handover", pid, t, f"from {before} to {who}, {far:.2f} m apart"))
            before = who
    return out


def gestures(plan: Plan) -> list[Finding]:
    """Acts done with a thing not in the hand."""
    out = []
    for who, actor in sorted(plan.actors.items()):
        for g in actor.gestures:
            if g.kind in IN_HAND and g.object in plan.props:
                prop = plan.props[g.object]
                t = g.t0 + 0.5 * (g.t1 - g.t0) if g.kind != "set_down" else g.t0
                holder = prop.carrier(t)
                if holder != who:
                    out.append(Finding("not held", who, g.t0, f"{g.kind} {g.object} held by {holder or 'nobody'}"))
            elif g.kind in BOW_IN_HAND and f"{who}弓" in plan.props:     # an archer takes up his arrows
                held = actor.state((g.t0 + g.t1) / 2).get("holding", [])
                if not any(plan.props[h].kind == "弓" for h in held if h in plan.props):
                    out.append(Finding("no bow", who, g.t0, f"{g.kind} {g.object or ''} with no bow in hand"))
    return out


def holdings(plan: Plan) -> list[Finding]:
    """What a person's state says he holds and who the props say carries them agree."""
    out = []
    for who, actor in sorted(plan.actors.items()):
        for t, st in actor.states.rows():
            for h in (st or {}).get("holding", []):
                if h in plan.props:
                    c = plan.props[h].carriers.at(t + 1e-3)
                    if c != who:
                        out.append(Finding("holding", who, t, f"says he holds {h}, carried by {c or 'nobody'}"))
    return out


DISHES = ("荐", "俎", "羞")
ON_DISH = 0.3       # a body's centre this near a dish lying on the ground stands (or treads) on it


def dishes(plan: Plan, step: float = 0.5) -> list[Finding]:
    """Nobody stands on a dish served (a 薦, 俎 or 羞 lying on the ground), sampled every ``step`` s."""
    out = []
    ts = np.arange(0.0, plan.duration + 1e-9, step)
    people = sorted(plan.actors)
    if not people:
        return out
    P = np.stack([plan.actors[a].track.at(ts)[0] for a in people])          # (n, T, 3)
    still = np.stack([plan.actors[a].track.posture_at(ts) != "walk" for a in people])   # not walking by
    for pid, prop in sorted(plan.props.items()):
        if prop.kind not in DISHES:
            continue
        xyz, _ = prop.track.at(ts)
        # nobody carries it (before its first carrier too): the carrier steps looked up all at once
        idx = np.searchsorted(np.asarray(prop.carriers.times, float), ts, side="right") - 1
        lying = ~np.asarray([v is not None for v in prop.carriers.values] + [False])[idx]
        d = np.hypot(P[:, :, 0] - xyz[None, :, 0], P[:, :, 1] - xyz[None, :, 1])
        same = np.abs(P[:, :, 2] - xyz[None, :, 2]) < 0.4
        hit = (d < ON_DISH) & same & lying[None, :] & still
        for i in np.flatnonzero(hit.any(axis=1)):
            k = int(np.flatnonzero(hit[i])[0])
            out.append(Finding("on dish", people[i], float(ts[k]), f"stands on the {pid} ({d[i, k]:.2f} m from it)"))
    return out


def conservation(plan: Plan) -> list[Finding]:
    """Every finding of the conservation of things, in time order."""
    found = jumps(plan) + hands(plan) + gestures(plan) + holdings(plan) + dishes(plan)
    return sorted(found, key=lambda f: (f.t, f.kind, f.who))
