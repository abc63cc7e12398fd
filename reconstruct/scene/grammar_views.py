"""The views of the shot grammar (:mod:`.grammar`): for each piece of screen time, the camera — from which
side, how near — and the shots it makes (a walk is cut into stretches, each a held camera)."""
from __future__ import annotations

import math

import numpy as np

from .grammar import (ELEVATION, FOV, MEDIUM_SPREAD, MIN_DIST, MIN_SHOT, SAFE, SAME_ANGLE, WALK_CUT, WALK_MIN,
                      WALK_PIECE, Piece, _basis, _dirs, _figure_box, fit_views)

AZIMUTHS = np.arange(0.0, 360.0, 15.0)
MOVING = 0.25           # m/s: faster than this, a person is walking
APART = 2.5             # m: two people of one close shot farther apart than this are both framed with their faces
FACE_WEIGHT = {"close": 6.0, "medium": 3.5, "walk": 1.0, "establish": 0.0}   # how much a view of backs costs
WALL_GAP = 1.8          # m: a camera nearer a wall than this sees the wall fill part of the frame
HIDDEN = 90.0           # a view in which one of those filmed is hidden throughout (walls, columns, the 乏); in part: its share
JUMP_CUT = 100.0        # a cut into the same people and kind from within SAME_ANGLE
WALK_TURN = 40.0        # a walk's next stretch seen from within WALK_CUT of the last


def _crosses(eyes: np.ndarray, qs: np.ndarray, lo: np.ndarray, hi: np.ndarray, top: np.ndarray) -> np.ndarray:
    """Which boxes ([lo, hi] (b, 2) in plan, up to ``top`` (b,)) the segments from ``eyes`` (k, 3) to any of
    the points ``qs`` (m, 3) pass through: (k, b)."""
    return _crossings(eyes, qs, lo, hi, top).any(1)


def _crossings(eyes: np.ndarray, qs: np.ndarray, lo: np.ndarray, hi: np.ndarray, top: np.ndarray) -> np.ndarray:
    """Which boxes the segment from each eye to each point passes through: (k, m, b)."""
    e = eyes[:, None, None, :]                                   # (k, 1, 1, 3)
    q = qs[None, :, None, :]                                     # (1, m, 1, 3)
    d = (q - e)[..., :2]                                         # (k, m, 1, 2)
    small = np.abs(d) < 1e-9
    dd = np.where(small, 1.0, d)
    t1 = (lo[None, None] - e[..., :2]) / dd                      # (k, m, b, 2)
    t2 = (hi[None, None] - e[..., :2]) / dd
    inside = (e[..., :2] >= lo[None, None]) & (e[..., :2] <= hi[None, None])
    t_lo = np.where(small, np.where(inside, -np.inf, np.inf), np.minimum(t1, t2))
    t_hi = np.where(small, np.where(inside, np.inf, -np.inf), np.maximum(t1, t2))
    enter, leave = t_lo.max(-1), t_hi.min(-1)                    # (k, m, b)
    z = e[..., 2] + (q[..., 2] - e[..., 2]) * np.clip(enter, 0.0, 1.0)
    return (enter < leave) & (leave > 0.0) & (enter < 0.97) & (z < top[None, None])


def _hdir(heading) -> np.ndarray:
    h = np.radians(np.asarray(heading, float))
    return np.stack([np.sin(h), np.cos(h)], axis=-1)


class Director:
    """Chooses the camera of each piece and makes the shots."""

    def __init__(self, g, Shot, CameraPose, CameraPath):
        self.g, self.Shot, self.CameraPose, self.CameraPath = g, Shot, CameraPose, CameraPath
        self.shots: list = []
        self.moves: list[float] = []
        self.dirs: list = []              # the horizontal direction (towards the camera) of each shot
        self.views = {}                   # kind -> the candidate directions and their cameras' bases
        for kind, el in ELEVATION.items():
            d = _dirs(AZIMUTHS, el)
            self.views[kind] = (d, _basis(d))

    # -- the pieces, split where people walk
    def _split(self, p: Piece) -> list[Piece]:
        if p.kind not in ("medium",):
            return [p]
        s = self.g.s
        ii = s.idx(p.t0, p.t1)
        feet, _, _ = s.at(p.people, ii)
        if feet.shape[1] < 2 or np.ptp(feet[:, :, :2], axis=1).max() < WALK_MIN:
            return [p]
        speed = np.linalg.norm(np.diff(feet[:, :, :2], axis=1), axis=2) / (s.t[ii][1] - s.t[ii][0])
        moving = (speed > MOVING).any(0)                       # (len(ii) - 1,)
        ts = s.t[ii]
        runs: list[list] = []
        for k, m in enumerate(moving):
            a, b = float(ts[k]), float(ts[k + 1])
            if runs and runs[-1][2] == bool(m):
                runs[-1][1] = b
            else:
                runs.append([a, b, bool(m)])
        runs[0][0], runs[-1][1] = p.t0, p.t1
        # a run counts as walking when someone gets somewhere in it (not a turn or a step in place)
        for r in runs:
            if r[2]:
                jj = s.idx(r[0], r[1])
                r[2] = bool(np.ptp(s.at(p.people, jj)[0][:, :, :2], axis=1).max() >= WALK_MIN)
        # runs shorter than MIN_SHOT join the longer of their neighbours (taking its kind)
        merged: list[list] = []
        for r in runs:
            if merged and merged[-1][2] == r[2]:
                merged[-1][1] = r[1]
            elif merged and r[1] - r[0] < MIN_SHOT:
                merged[-1][1] = r[1]
            elif merged and merged[-1][1] - merged[-1][0] < MIN_SHOT:
                merged[-1][1], merged[-1][2] = r[1], r[2]
            else:
                merged.append(list(r))
        if len(merged) > 1 and merged[-1][1] - merged[-1][0] < MIN_SHOT:
            last = merged.pop()
            merged[-1][1] = last[1]
        out = []
        for a, b, m in merged:
            if not m:
                out.append(Piece(a, b, "medium", p.people, p.events, p.priority, p.key + (a,)))
                continue
            n = max(1, int(round((b - a) / WALK_PIECE)))
            edges = np.linspace(a, b, n + 1)
            for x, y in zip(edges, edges[1:]):
                out.append(Piece(float(x), float(y), "walk", p.people, p.events, p.priority, p.key + (float(x),)))
        return out

    # -- what a piece frames
    def _subjects(self, p: Piece):
        """The people framed, the points to hold in the frame, and their feet at the middle of the piece."""
        s = self.g.s
        ii = s.idx(p.t0, p.t1)
        who = list(p.people)
        feet, hd, ht = s.at(who, ii)
        mid = len(ii) // 2
        if p.kind in ("medium", "walk") and len(who) > 1:
            # the principal and those near him: the rest are left to the wide shots
            c = feet[0].mean(0)
            keep = [k for k in range(len(who)) if np.linalg.norm(feet[k].mean(0)[:2] - c[:2]) <= MEDIUM_SPREAD]
            if p.kind == "walk":                               # the walkers (those who move in this stretch)
                mv = [k for k in keep if np.ptp(feet[k, :, :2], axis=0).max() > 0.5]
                keep = mv or keep
            who = [who[k] for k in keep]
            feet, hd, ht = feet[keep], hd[keep], ht[keep]
        if p.kind == "close":
            pts = []
            # two acts' hands at once a few metres apart (grammar._join_closes): both people whole
            apart = len(who) > 1 and np.linalg.norm(feet[0, mid, :2] - feet[1, mid, :2]) > APART
            for k in range(min(2, len(who))):
                # the hands at the start, the middle and the end of the piece: one who kneels to take a cup,
                # rises to drink and kneels again keeps his hands in the picture throughout
                for j in sorted({0, mid, len(ii) - 1}):
                    f = feet[k, j]
                    fw = _hdir(hd[k, j])
                    hands = f + [0.38 * fw[0], 0.38 * fw[1], ht[k, j] * 0.55]
                    pts += [hands + [dx, dy, dz] for dx in (-0.28, 0.28) for dy in (-0.28, 0.28) for dz in (-0.25, 0.2)]
                if k == 0 or apart:
                    # his face, whose hands: at the start, the middle and the end too (one who kneels to bow
                    # and rises again keeps his head in the picture as he stands, not only as he kneels)
                    for j in sorted({0, mid, len(ii) - 1}):
                        pts.append(feet[k, j] + [0.0, 0.0, ht[k, j] + 0.05])
            obj = p.key[2] if len(p.key) > 2 else ""
            prop = self.g.plan.props.get(obj) if obj else None
            if prop is not None:
                q = prop.track.at([(p.t0 + p.t1) / 2])[0][0]
                if np.linalg.norm(q - pts[0]) < 1.6:
                    pts += [q + [dx, dy, dz] for dx in (-0.2, 0.2) for dy in (-0.2, 0.2) for dz in (0.0, 0.25)]
            box = np.asarray(pts, float)
        elif p.kind == "establish":
            box = _figure_box(feet.reshape(-1, 3), ht.reshape(-1), pad=1.6)
        else:
            box = _figure_box(feet.reshape(-1, 3), ht.reshape(-1))
        return tuple(who), box, feet[:, mid], hd[:, mid], ii

    # -- the camera
    def _score(self, p: Piece, who, box, feet_mid, hd_mid, ii, eyes, dirs) -> np.ndarray:
        g, s = self.g, self.g.s
        k = len(eyes)
        score = np.zeros(k)
        centre = feet_mid.mean(0) + [0.0, 0.0, 1.1 if p.kind != "close" else 0.9]
        t_mid = ii[len(ii) // 2]
        others = [a for a in s.ids if a not in who]
        if others:
            o = s.xyz[[s.col[a] for a in others], t_mid]
            e2, c2 = eyes[:, None, :2], centre[None, None, :2]
            d = c2 - e2
            u = np.clip(((o[None, :, :2] - e2) * d).sum(-1) / np.maximum((d * d).sum(-1), 1e-9), 0.0, 1.0)
            near = np.linalg.norm(o[None, :, :2] - (e2 + u[..., None] * d), axis=-1)
            score += 3.0 * ((near < 0.45) & (u > 0.03) & (u < 0.97)).sum(1)
            score += 8.0 * (np.linalg.norm(o[None, :, :2] - e2, axis=-1) < 0.9).sum(1)
            # people between the camera and those filmed, inside the picture: a foreground that hides them
            r, _, fwd = self.views[p.kind][1]
            rel = o[None, :, :] + [0.0, 0.0, 1.0] - eyes[:, None, :]             # (k, n, 3)
            depth = (rel * fwd[:, None, :]).sum(-1)
            sub = ((centre - eyes) * fwd).sum(-1)                                 # (k,)
            tan = math.tan(math.radians(FOV) / 2) * g.size[0] / g.size[1]
            with np.errstate(divide="ignore", invalid="ignore"):
                x = (rel * r[:, None, :]).sum(-1) / (depth * tan)
            fore = (depth > 0.2) & (depth < sub[:, None] - 0.6) & (np.abs(x) < 1.1)
            score += 2.5 * np.where(fore, np.clip(sub[:, None] / np.maximum(depth, 0.2), 1.0, 4.0), 0.0).sum(1)
        # walls, columns and the 乏 across the lines of sight to each of them (at the chest)
        # (at the start, the middle and the end of the shot: people move)
        jj = [ii[0], ii[len(ii) // 2], ii[-1]]
        chests = s.xyz[[s.col[a] for a in who]][:, jj].reshape(-1, 3) + [0.0, 0.0, 1.1 if p.kind != "close" else 0.9]
        if g.obstacles:
            lo, hi, top = (np.array([o[i] for o in g.obstacles], float) for i in range(3))
            crossed = _crossings(eyes, chests, lo, hi, top)                      # (k, m, b)
            score += 6.0 * crossed.any(1).sum(1)
            # one hidden behind them for most of the shot (a wall between him and the camera at two of its start,
            # middle and end) is hardly filmed: worse than a cut too like the last (WALK_TURN)
            score += HIDDEN * crossed.any(2).reshape(len(eyes), len(who), len(jj)).mean(2).sum(1)
            wall = (hi - lo).max(1) > 2.0            # a wall: a camera hugging it sees a wall fill the frame
            gap = np.linalg.norm(np.maximum(np.maximum(lo[None, wall] - eyes[:, None, :2],
                                                       eyes[:, None, :2] - hi[None, wall]), 0.0), axis=2)
            near = (gap < WALL_GAP) & (eyes[:, None, 2] < top[None, wall])
            score += 3.0 * (near * (1.0 - gap / WALL_GAP)).sum(1)
        # those filmed hiding one another (one straight behind the other)
        if len(who) > 1 and p.kind != "establish":
            r, _, fwd = self.views[p.kind][1]
            rel = feet_mid[None, :, :] + [0.0, 0.0, 1.1] - eyes[:, None, :]
            depth = np.maximum((rel * fwd[:, None, :]).sum(-1), 0.2)
            x = (rel * r[:, None, :]).sum(-1) / depth                         # (k, n)
            gap = np.abs(x[:, :, None] - x[:, None, :])
            n = len(who)
            pair = ~np.eye(n, dtype=bool)
            score += 5.0 * ((gap < 0.12) & pair[None]).sum((1, 2)) / 2
        zone = g.zone(feet_mid)
        if g.court is not None:
            (x0, y0), (x1, y1) = g.court
            out = ~((eyes[:, 0] > x0) & (eyes[:, 0] < x1) & (eyes[:, 1] > y0) & (eyes[:, 1] < y1))
            if zone == "outside":
                score += 6.0 * ((eyes[:, 1] > y0 - 0.3) & (eyes[:, 2] < 3.0))
            else:
                score += 6.0 * (out & (eyes[:, 2] < 3.2))
        hall = np.asarray(g.plan.hall.get("footprint") or [], float)
        if len(hall):
            lo, hi = hall.min(0), hall.max(0)
            under = ((eyes[:, 0] > lo[0]) & (eyes[:, 0] < hi[0]) & (eyes[:, 1] > lo[1]) & (eyes[:, 1] < hi[1])
                     & (eyes[:, 2] < g.hall_h + 0.4))
            score += 50.0 * under
        score += 50.0 * (eyes[:, 2] < 0.4)
        dh = dirs[:, :2] / np.linalg.norm(dirs[:, :2], axis=1, keepdims=True)
        # faces: from in front of them (a three-quarter view)
        if p.kind != "establish" and len(hd_mid):
            fw = _hdir(hd_mid)                                        # (n, 2)
            cos = dh @ fw.T                                           # (k, n)
            score += FACE_WEIGHT[p.kind] * np.clip(0.55 - cos, 0.0, None).mean(1)
        else:
            score += 0.5 * (1 - dh[:, 1] * -1.0) / 2                   # establishing: from the south by preference
        # the line of action: two people facing each other, or a walker's way
        line_key, lv = self._line(p, who, feet_mid, hd_mid, ii)
        if line_key is not None:
            side = np.sign(lv[0] * dh[:, 1] - lv[1] * dh[:, 0])
            kept = self.g.sides.get(line_key)
            if kept is not None:
                score += 12.0 * (side != kept)
            along = np.abs(dh @ (lv / (np.linalg.norm(lv) or 1.0)))
            score += 1.2 * along if line_key[0] != "walk" else 2.0 * np.abs(dh @ (lv / (np.linalg.norm(lv) or 1.0)) - 0.4)
        # no cut into the same people, the same kind, from nearly the same angle
        if self.shots and self.shots[-1].kind == p.kind and set(self.shots[-1].people) == set(who):
            pd = self.dirs[-1]
            ang = np.degrees(np.arccos(np.clip(dh @ pd, -1.0, 1.0)))
            # never nearly the same angle (a jump cut); a walk's stretches further apart (WALK_CUT) unless that
            # hides the walker (HIDDEN)
            score += JUMP_CUT * (ang < SAME_ANGLE) + (WALK_TURN * (ang < WALK_CUT) if p.kind == "walk" else 0.0)
        return score

    def _line(self, p: Piece, who, feet_mid, hd_mid, ii):
        """The line of action: (its key, its direction) or (None, None) — two people facing each other (in
        any shot: the side is the pair's), else a walker's way."""
        if len(who) == 2:
            v = feet_mid[1, :2] - feet_mid[0, :2]
            n = np.linalg.norm(v)
            if n > 0.3:
                fw = _hdir(hd_mid)
                if fw[0] @ v > 0.3 * n and fw[1] @ -v > 0.3 * n:        # each faces the other
                    return (tuple(sorted(who)), v if who[0] < who[1] else -v)
        if p.kind == "walk":
            s = self.g.s
            f = s.xyz[s.col[who[0]], ii]
            v = f[-1, :2] - f[0, :2]
            return (("walk", who[0]), v) if np.linalg.norm(v) > 0.3 else (None, None)
        return (None, None)

    def view(self, p: Piece):
        """The camera of a piece: (CameraPose, who, horizontal direction)."""
        who, box, feet_mid, hd_mid, ii = self._subjects(p)
        dirs, basis = self.views[p.kind]
        eyes, targets, dist = fit_views(box, dirs, self.g.size, FOV, SAFE, MIN_DIST[p.kind], basis)
        score = self._score(p, who, box, feet_mid, hd_mid, ii, eyes, dirs) + 0.02 * np.maximum(dist - 6.0, 0.0)
        best = int(np.argmin(score))
        dh = dirs[best, :2] / np.linalg.norm(dirs[best, :2])
        key, lv = self._line(p, who, feet_mid, hd_mid, ii)
        if key is not None and key not in self.g.sides:
            self.g.sides[key] = float(np.sign(lv[0] * dh[1] - lv[1] * dh[0]) or 1.0)
        cut = self.g.zone(feet_mid) == "hall"
        pose = self.CameraPose(tuple(map(float, eyes[best])), tuple(map(float, targets[best])), (0.0, 0.0, 1.0),
                               FOV, cut)
        return pose, who, dh, box

    def _holds(self, prev, box) -> bool:
        """Does the previous shot still hold these points well inside its frame?"""
        from .shots import project
        px, dep = project(prev.pose, box, self.g.size)
        if np.isnan(px).any() or (dep < 0.5).any():
            return False
        w, h = self.g.size
        sl, st, sr, sb = SAFE
        return bool((px[:, 0] >= (sl - 0.03) * w).all() and (px[:, 0] <= (sr + 0.03) * w).all()
                    and (px[:, 1] >= (st - 0.03) * h).all() and (px[:, 1] <= (sb + 0.03) * h).all()
                    and np.ptp(px[:, 1]) > 0.45 * (sb - st) * h)

    def shoot(self, pieces: list[Piece], overview_pose):
        g = self.g
        for p0 in pieces:
            if p0.kind == "overview":
                self.shots.append(self.Shot(p0.t0, p0.t1, overview_pose, "overview"))
                self.moves.append(0.0)
                self.dirs.append(np.array([0.0, -1.0]))
                continue
            for p in self._split(p0):
                if self.shots and p.t1 <= self.shots[-1].t1 + 1e-6:
                    continue
                if self.shots and p.t0 < self.shots[-1].t1:
                    if p.t1 - self.shots[-1].t1 < MIN_SHOT:
                        prev = self.shots[-1]
                        self.shots[-1] = self.Shot(prev.t0, p.t1, prev.pose, prev.kind, prev.events, prev.people)
                        continue
                    p = Piece(self.shots[-1].t1, p.t1, p.kind, p.people, p.events, p.priority, p.key)
                pose, who, dh, box = self.view(p)
                prev = self.shots[-1] if self.shots else None
                if (prev is not None and prev.kind == p.kind and p.kind in ("medium", "close")
                        and self._holds(prev, box)):
                    # the shot before still frames them: hold it (no cut into the same framing)
                    self.shots[-1] = self.Shot(prev.t0, p.t1, prev.pose, prev.kind,
                                               tuple(dict.fromkeys(prev.events + p.events)),
                                               tuple(dict.fromkeys(prev.people + who)))
                    continue
                self.shots.append(self.Shot(p.t0, p.t1, pose, p.kind, p.events, who))
                self.moves.append(0.0)                        # every shot of the grammar is reached by a cut
                self.dirs.append(dh)
        if self.shots:
            last = self.shots[-1]
            if last.t1 < g.t1:
                self.shots[-1] = self.Shot(last.t0, g.t1, last.pose, last.kind, last.events, last.people)
        else:
            self.shots.append(self.Shot(g.t0, g.t1, overview_pose, "overview"))
            self.moves.append(0.0)
        # no gaps: each shot lasts until the next begins
        for i in range(len(self.shots) - 1):
            a, b = self.shots[i], self.shots[i + 1]
            if abs(a.t1 - b.t0) > 1e-9:
                self.shots[i] = self.Shot(a.t0, b.t0, a.pose, a.kind, a.events, a.people)
        return self.CameraPath(self.shots, self.moves)
