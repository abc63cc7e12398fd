"""The shooting filmed: while arrows fly, the camera cuts between the archer on his 物 (the draw and the
loose seen from beside him), the 侯 over the 获者's shoulder (the arrow arriving, the flag raised for a
hit) and the 释获者 laying the tally, instead of the distant plan view.

Each arrow of the plan (``Plan.shots``) asks for a few *windows* of screen time: the archer from a
little before the loose to just after it, the target from the loose until the arrow has landed
(longer when the flag goes up for it), the tally while it is laid.  A sweep over time gives the
screen to the window of the highest priority active at each moment (an archer's draw first, then the
landing and the flag, then the tally), never for less than :data:`MIN_CUT` seconds; consecutive windows
with the same camera make one shot.  The result is a list of :class:`~.shots.Shot` (all cuts) for
stretches of the plan; :func:`.shots.plan_shots` splices them into its path.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..model.plan import Plan
from .shots import project

__all__ = ["ArcheryWindow", "archery_windows", "archery_shots", "MIN_CUT", "CLUSTER_GAP"]

MIN_CUT = 1.1            # s, the shortest piece of a shot between cuts
CLUSTER_GAP = 14.0       # s between looses that ends a stretch of shooting
ARCHER_LEAD = 2.0        # s before the loose the archer's shot starts (the arrow nocked on the string: issue 33)
AFTER_LOOSE = 0.35       # s of the follow-through kept before the cut to the target
LANDED = 0.7             # s the target stays on screen after the arrow lands


@dataclass(frozen=True)
class ArcheryWindow:
    """Screen time asked for: [t0, t1], the kind of view (archer | target | flag | tally), whom it shows and
    how much it matters (higher wins)."""

    t0: float
    t1: float
    kind: str
    subject: str
    priority: float


def _gestures(plan: Plan, aid: str, kind: str):
    a = plan.actors.get(aid)
    return [g for g in (a.gestures if a else []) if g.kind == kind]


def archery_windows(plan: Plan) -> list[ArcheryWindow]:
    """The windows every loosed arrow asks for, in order of their start."""
    out: list[ArcheryWindow] = []
    raises = _gestures(plan, "获者", "raise_flag")
    lays = _gestures(plan, "释获者", "lay_tally")
    counted = 0
    for s in plan.shots:
        out.append(ArcheryWindow(s.loose - ARCHER_LEAD, s.loose + AFTER_LOOSE, "archer", s.archer, 3.0))
        # a hit's arrival outranks all but the archers; a miss's gives way to a flag raised meanwhile
        out.append(ArcheryWindow(s.loose + AFTER_LOOSE, s.land + LANDED, "target", "侯", 2.6 if s.hit else 1.8))
        flag = next((g for g in raises if s.land - 0.1 <= g.t0 <= s.land + 3.0), None) if s.hit else None
        if flag is not None:
            out.append(ArcheryWindow(flag.t0 - 0.2, flag.t1 + 0.5, "flag", "获者", 2.0))
        if s.counted:
            lay = next((g for g in lays if s.land - 0.1 <= g.t0 <= s.land + 4.0), None)
            if lay is not None:             # every other tally wins over the flag raised at the same time
                counted += 1
                out.append(ArcheryWindow(lay.t0 - 0.3, lay.t1 + 0.3, "tally", "释获者", 2.5 if counted % 2 == 0 else 1.5))
    return sorted(out, key=lambda w: (w.t0, -w.priority))


def _schedule(windows: list[ArcheryWindow], t_start: float, t_end: float) -> list[tuple[float, float, ArcheryWindow]]:
    """Who has the screen when: [(t0, t1, window)] covering [t_start, t_end] without gaps."""
    out: list[list] = []
    t = t_start
    while t < t_end - 1e-6:
        live = [w for w in windows if w.t0 <= t + 1e-6 and w.t1 - t >= MIN_CUT * 0.5]
        if not live:
            nxt = [w.t0 for w in windows if w.t0 > t]
            if out and nxt:                       # nothing asks: hold the last view until the next asks
                out[-1][1] = min(t_end, min(nxt))
                t = out[-1][1]
                continue
            if not nxt:
                break
            t = min(nxt)
            continue
        w = max(live, key=lambda x: (x.priority, -x.t0))
        # keep it until it ends, or a window of higher priority begins (after MIN_CUT)
        end = w.t1
        for v in windows:
            if v.priority > w.priority and t + MIN_CUT <= v.t0 < end:
                end = v.t0
                break
        end = max(end, t + MIN_CUT)
        if out and out[-1][2].kind == w.kind and out[-1][2].subject == w.subject:
            out[-1][1] = end
        else:
            out.append([t, end, w])
        t = end
    if out:
        out[-1][1] = max(out[-1][1], t_end)
    return [(a, b, w) for a, b, w in out]


def stretches(plan: Plan) -> list[tuple[float, float]]:
    """The stretches of the plan in which arrows fly (looses less than :data:`CLUSTER_GAP` apart)."""
    looses = sorted(s.loose for s in plan.shots)
    out: list[list[float]] = []
    for x in looses:
        if out and x - out[-1][1] < CLUSTER_GAP:
            out[-1][1] = x
        else:
            out.append([x, x])
    return [(a - ARCHER_LEAD - 0.5, b + 5.0) for a, b in out]


def _facing(plan: Plan, aid: str, t: float):
    a = plan.actors[aid]
    (p,), (h,) = a.track.at([t])
    hr = math.radians(h)
    return p, np.array([math.sin(hr), math.cos(hr), 0.0]), np.array([math.cos(hr), -math.sin(hr), 0.0])


def _pose_for(plan: Plan, w: ArcheryWindow, t: float, size, fit_pose, CameraPose, occluded):
    """The camera of a window at time ``t`` (``occluded(pose, subject_xyz, t)``: how much others block it)."""
    lm = plan.landmarks
    up = (0.0, 0.0, 1.0)
    if w.kind == "archer":                         # beside the 物, in front of his chest: the draw and loose
        p, fwd, right = _facing(plan, w.subject, t)
        side = 2.6 * right + 2.4 * fwd
        az = math.degrees(math.atan2(side[0], side[1])) % 360.0
        # his whole figure, the bow held out before him and the arrow drawn back, above the caption band
        pts = np.array([p + a * fwd + b * right + [0.0, 0.0, z] for a in (-0.3, 0.85) for b in (-0.3, 0.3)
                        for z in (0.0, 1.9)])
        pose, _ = fit_pose(pts, size, az, 8.0, fov=40.0, min_dist=2.5)
        return pose
    if w.kind == "target":                         # the 侯 from up the range: the arrow arrives
        hou = np.asarray(lm["侯"].position, float) if "侯" in lm else np.array([0.0, -66.0, 0.0])
        eye = hou + [3.2, 8.0, 2.0]                 # close on the 正 and the 躬, a little from the east
        return CameraPose(tuple(map(float, eye)), tuple(map(float, hou + [0.0, 0.0, 2.0])), up, 28.0, False)
    p, fwd, right = _facing(plan, w.subject, t)
    if w.kind == "flag":                           # the 获者 before his 乏, the flag up over him
        pts = np.array([p + [dx, dy, dz] for dx in (-0.7, 0.7) for dy in (-0.7, 0.7) for dz in (0.0, 1.2)]
                       + [p + [0.0, 0.0, 5.6]])
        az = (math.degrees(math.atan2(fwd[0], fwd[1])) + 35.0) % 360.0
        pose, _ = fit_pose(pts, size, az, 6.0, fov=34.0, safe=(0.30, 0.06, 0.70, 0.74), min_dist=3.0)
        return pose
    best = None                                    # the tally: the 释获者 and the ground before him
    for a, b, z in ((2.0, 1.5, 1.5), (1.4, 2.4, 1.5), (2.4, 0.4, 1.5), (2.0, -1.5, 1.5), (1.0, -2.6, 1.6),
                    (2.6, -0.8, 1.6), (1.6, 1.6, 2.3), (1.6, -1.6, 2.3)):
        eye = p + a * fwd + b * right + [0.0, 0.0, z]
        pose = CameraPose(tuple(map(float, eye)), tuple(map(float, p + 0.4 * fwd + [0.0, 0.0, 0.35])), up, 42.0,
                          False)
        score = occluded(pose, p, t)
        if best is None or score < best[0] - 1e-6:
            best = (score, pose)
    return best[1]


def archery_shots(plan: Plan, size, t_start: float, t_end: float, Shot, CameraPose, fit_pose, occluders) -> list:
    """The shots (``Shot`` of :mod:`.shots`, all reached by a cut) of every stretch of shooting that
    lies in [t_start, t_end] (``occluders`` of :mod:`.shots`: how badly others stand in front)."""
    out = []

    def occluded(pose, p, t):
        """How badly others stand in the view: in front of the subject in the frame, near the line of
        sight from the camera to him (within 0.9 m of it, in plan), or right by the camera."""
        others = np.array([a.track.at([t])[0][0] for aid, a in plan.actors.items()])
        others = others[np.linalg.norm(others[:, :2] - np.asarray(p)[:2], axis=1) > 0.3]
        e, q = np.asarray(pose.eye)[:2], np.asarray(p)[:2]
        d = q - e
        u = np.clip(((others[:, :2] - e) @ d) / max(1e-9, d @ d), 0.0, 1.0)
        near_line = np.linalg.norm(others[:, :2] - (e + u[:, None] * d), axis=1) < 0.9
        at_camera = np.linalg.norm(others[:, :2] - e, axis=1) < 2.2          # filling a side of the frame
        px, dep = project(pose, np.vstack([others, np.asarray(p)[None, :]]) + [0.0, 0.0, 1.0], size)
        beside = (~np.isnan(px[:-1, 0]) & (px[:-1, 0] > -0.1 * size[0]) & (px[:-1, 0] < 1.1 * size[0])
                  & (dep[:-1] < dep[-1] + 0.3))                               # as near as he is, in the frame
        return (occluders(pose, np.asarray(p)[None, :], others, size) + 2.0 * float(near_line.sum())
                + 1.5 * float(at_camera.sum()) + float(beside.sum()))

    wins = archery_windows(plan)
    for a, b in stretches(plan):
        a, b = max(a, t_start), min(b, t_end)
        if b - a < MIN_CUT:
            continue
        for t0, t1, w in _schedule([x for x in wins if x.t1 > a and x.t0 < b], a, b):
            pose = _pose_for(plan, w, (t0 + t1) / 2 if w.kind != "archer" else t1, size, fit_pose, CameraPose,
                             occluded)
            out.append(Shot(t0, t1, pose, f"archery:{w.kind}", (w.subject,),
                            (w.subject,) if w.subject in plan.actors else ()))
    return out
