"""Where the text's places are: place expressions resolved on the ground and among the people, via
points, the slots of formations and files."""
from __future__ import annotations

import math

import numpy as np
import shapely

from ..model.vocabulary import SET_OUT, LandmarkKind
from ..text.names import NameIndex
from ..text.placement import Place, PlaceError, heading_of, parse_place, unit_vector
from .bodies import Body
from .geometry import _bearing
from .occupancy import GAP, Occupancy
from .state import PlanState
from .walkable import COURT, HALL, PERSON_GAP, ROUTE_MARGIN, STAIR

# files folded behind one another stand this far apart: one passes between two of them, PERSON_GAP
# from each (with the routes' margin)
FILE_BEHIND = round(2 * (PERSON_GAP + ROUTE_MARGIN) + 0.04, 2)
ADHOC_SPACING = 0.9     # one place to the next in a file the reading does not lay out (北上 / 東上, centre to centre)
FILE_BACK_STEP = 0.15   # such a file stands back along its line by this much at a time where its head's spot is taken
FILE_BACK_STEPS = 20    # … at most twenty times (3 m)





def _beside(lm, d: str) -> float:
    """How far from a landmark's centre one stands beside it in direction d: clear of its footprint, or
    of its size turned to its heading, with a body's half-width."""
    if lm.footprint:
        ux, uy = unit_vector(d)
        pts = np.asarray(lm.footprint) - np.asarray(lm.position[:2])
        return float(max(pts @ np.array([ux, uy]))) + 0.45
    if lm.size:
        ux, uy = unit_vector(d)
        h = math.radians(lm.heading or 0.0)
        fwd, right = (math.sin(h), math.cos(h)), (math.cos(h), -math.sin(h))
        half = (abs(ux * right[0] + uy * right[1]) * lm.size[0] / 2
                + abs(ux * fwd[0] + uy * fwd[1]) * lm.size[1] / 2)
        return half + 0.45
    return 0.7


class Places:
    """Where the text's places are: a place expression resolved on the ground and among the people where
    they stand now; the slots of formations and of files the text names; the order a file walks in."""

    def __init__(self, state: PlanState, occupancy: Occupancy, names: NameIndex,
                 formations: dict[str, list[str]] | None = None) -> None:
        self.state, self.occupancy, self.names = state, occupancy, names
        self.reading, self.ground = state.reading, state.ground
        self.formations = formations or {}     # the rite's formations: name → members, senior first
        self._behind: dict[str, int] = {}      # formation → how many wait behind its file
        self._file_length: dict[str, int] = {}
        self._procession: dict[tuple[str, str], float] = {}   # (event, file) → when the last one set out
        self._file_back: dict[tuple[str, str], float] = {}    # (event, ad-hoc file) → how far back it stands
        self._parsed: dict[str, Place] = {}    # place expressions read (the text names the same places again and again)
        self._mats = None                      # the mats' footprints (mat_under), made when first asked

    def mat_under(self, x: float, y: float, level: str):
        """The mat one standing at (x, y) on ``level`` is on (its landmark), or None: the mats are laid on the
        hall (their footprints, as the reading lays them)."""
        if level != HALL:
            return None
        mats = self._mats
        if mats is None:
            mats = self._mats = [(lm, shapely.Polygon(lm.footprint)) for lm in self.reading.landmarks.values()
                                 if lm.kind == LandmarkKind.MAT and lm.footprint and lm.heading is not None]
        on = [lm for lm, poly in mats if shapely.contains_xy(poly, x, y)]
        return on[0] if on else None

    def resolve(self, text: str, who: str | None = None) -> tuple[float, float, str, float | None]:
        """A place expression → (x, y, level, heading-or-None), against the ground and current positions:
        its base (a landmark, a person where he stands, a prop where it lies), then the modifier (西阶上 is
        the head of the 西阶), then the offsets (西阶东: east of it)."""
        place = self.parse(text)
        x, y, level, heading, extent = self._base(place)
        if place.modifier and place.base is not None:
            x, y, level = self._modified(place, x, y, level, extent)
        for direction, length in place.offsets:
            ux, uy = unit_vector(direction, self.reading.diagonal)
            if length is not None:
                d = self.reading.units.metres(length)
            else:   # beside: clear of the thing itself, or a body's width from a point such as a stair's head
                d = 1.0 if place.modifier else extent(direction)
            x, y = x + ux * d, y + uy * d
        return x, y, level, heading

    def parse(self, text: str) -> Place:
        """A place expression read against the names (each expression read once: the names do not change
        while a rite is planned); one that cannot be read stops the plan."""
        place = self._parsed.get(text)
        if place is None:
            try:
                place = self._parsed[text] = parse_place(text, self.names)
            except PlaceError as e:
                self.state.fail(str(e))
        return place

    def _base(self, place):
        """(x, y, level, heading, extent) of a place's base; ``extent(direction)`` is how far beside it
        one stands (a landmark's footprint or size, a person's width, a prop's)."""
        base = place.base
        if base is None:
            return 0.0, 0.0, COURT, None, lambda d: 0.0
        if base in self.state.bodies or base in self.state.aliases:
            b = self.state.bodies[self.state.aliases.get(base, base)]
            return b.x, b.y, (b.level if b.level != STAIR else HALL), None, lambda d: 0.8
        if base in self.state.props and not self.names_its_landmark(base):
            pr = self.state.props[base]
            level = HALL if abs(pr.z - self.reading.hall_height) < 0.05 else COURT
            return pr.x, pr.y, level, None, lambda d: 0.5
        lm = self.reading.landmarks[base]
        x, y = lm.position[0], lm.position[1]
        # on the hall only if it stands at the hall's floor (the 侯中 is high but in the court)
        level = HALL if abs(lm.position[2] - self.reading.hall_height) < 0.05 else COURT
        heading = lm.heading
        if lm.kind == LandmarkKind.STAIR:
            st = self.reading.stairs[base]
            if place.offsets and not place.modifier:   # 西阶西, 阼阶东: beside the stair, below
                level, y = COURT, -st.run / 2
            else:                   # the stair itself: its head on the hall
                level = HALL
                x, y = self.ground.head(st)
        if lm.kind == LandmarkKind.FORMATION:
            heading = self.reading.formations[base].heading
        return x, y, level, heading, lambda d: _beside(lm, d)

    def names_its_landmark(self, name: str) -> bool:
        """Whether a thing named like a landmark means, as a place, that landmark (its footprint, its heading)
        rather than where the thing is: a thing set out (:data:`SET_OUT`: 宾席, 尊, 洗 …), laid or not (上篚南:
        where the basket is to go; where it is kept it is taken up as a thing, :meth:`.Handling.take`); or one
        set out at its landmark (楅, 中) while carried or lying away from it (not yet set out, or taken away:
        所設楅之南, 所設中之東)."""
        lm = self.reading.landmarks.get(name)
        if lm is None:
            return False
        pr = self.state.props[name]
        return (pr.kind in SET_OUT or pr.carrier is not None
                or math.hypot(pr.x - lm.position[0], pr.y - lm.position[1]) > 3.0)

    def _modified(self, place, x: float, y: float, level: str, extent) -> tuple[float, float, str]:
        """上 / 下 / 前 of a stair, a landmark or a person."""
        base = place.base
        lm = self.reading.landmarks.get(base)
        stair = self.reading.stairs.get(base) if lm else None
        if place.modifier == "上" and stair:
            x, y = self.ground.head(stair)
            level = HALL
        elif place.modifier == "下" and stair:
            x, y = self.ground.foot(stair)
            level = COURT
        elif place.modifier == "前":
            h = (lm.heading if lm and lm.heading is not None else 180.0) if lm else 180.0
            if base in self.state.bodies:
                h = self.state.bodies[base].heading
            if stair:
                x, y = self.ground.foot(stair)
                level = COURT
                y -= 0.8
            else:
                d = extent("南") if lm else 0.8
                x, y = x + math.sin(math.radians(h)) * d, y + math.cos(math.radians(h)) * d
        return x, y, level

    def via_point(self, text: str, b: Body, goal_level: str) -> tuple[float, float, str] | None:
        """A place the text says one passes (由司馬之南): on free ground, and where someone stands on it, a
        little further the same way (still south of the 司馬).  Passing by a person binds only while he
        stands on one's way (the 司馬 up on the hall as 司正 is not passed in the court): None then.
        A via nobody can pass is an error."""
        x, y, level, _ = self.resolve(text, b.id)
        place = self.parse(text)
        mine = {b.level if b.level != STAIR else HALL, goal_level}
        if level not in mine:
            base = place.base
            if base in self.state.bodies or base in self.state.aliases:
                self.state.explain.append(f"  {b.id}: {text} does not bind: {base} is on the {level}")
                return None
            self.state.fail(f"{b.id} cannot pass by way of {text}: it is on the {level}, he walks on the "
                      f"{' and '.join(sorted(mine))}")
        if not self.ground.is_free(level, x, y):
            fx, fy = self.ground.free_point(level, x, y)
            if math.hypot(fx - x, fy - y) > 1.0:
                self.state.fail(f"{b.id} cannot pass by way of {text}: it lies {math.hypot(fx - x, fy - y):.1f} m "
                          f"inside walls or fixtures")
            x, y = fx, fy
        if not place.offsets:
            return x, y, level
        ux, uy = unit_vector(place.offsets[-1][0], self.reading.diagonal)
        others = self.occupancy.standing(b, b.t, level)
        for push in (0.0, 0.3, 0.6, 0.9, 1.2, 1.5):
            px, py = x + ux * push, y + uy * push
            if self.ground.is_free(level, px, py) and all(math.dist((px, py), o) >= GAP + 0.1 for o in others):
                return px, py, level
        return x, y, level

    def heading_toward(self, body: Body, text: str) -> float:
        try:
            return heading_of(text)
        except PlaceError:
            pass
        x, y, _, _ = self.resolve(text, body.id)
        if math.hypot(x - body.x, y - body.y) < 1e-3:
            return body.heading
        return _bearing(x - body.x, y - body.y)

    def initial_place(self, who: str, at: str) -> tuple[float, float, str, float | None]:
        """An initial place; a formation's name gives the person's slot in it.  Others given a formation's
        place wait in a second row behind its file (the 弟子 and the 有司 behind the archers at 堂西)."""
        slot = self.formation_slot(who, at)
        if slot is not None:
            return slot
        f = self.reading.formations.get(at) or self.reading.formations.get(at + "位")
        if f is not None and (self.formations.get(at) or self.formations.get(at + "位")):
            k = self._behind.get(f.id, 0) + 1
            self._behind[f.id] = k
            return self.behind_slot(at, k)
        return self.resolve(at, who)

    def behind_slot(self, at: str, rank: int):
        """The rank-th place of the second row behind a formation's file, for those who wait there without
        belonging to it (the 弟子 and the 有司 behind the archers at 堂西), or None if ``at`` is no formation
        with members."""
        f = self.reading.formations.get(at) or self.reading.formations.get(at + "位")
        members = self.formations.get(at) or self.formations.get(at + "位")
        if f is None or not members:
            return None
        # behind the last file the members fill
        self._file_slot(f, 1)                      # measures how many fit in one file
        z = f.origin[2]
        turned = self._turned(f, self.ground.level_of_height(z))   # those in the turned file
        files = -(-max(1, len(members) - turned) // self._file_length[f.id])
        x, y, level = self._file_slot(f, rank, behind=self._behind_depth(f, files, len(members)))
        return x, y, level, f.heading

    def _behind_depth(self, f, files: int, n: int) -> float:
        """How far behind a formation's file its second row (one file long, ``n`` at most) stands: behind the
        last file its members fill, and further back, a file's depth at a time, while a place of that row
        would lie on a named standing place of the ground (a mark: where the rite makes somebody stand; the
        賓's and the 大夫's 袒位 west of the hall, where they bare their arms and lay their bows, stay free of
        the 弟子 waiting behind the archers)."""
        level = self.ground.level_of_height(f.origin[2])
        marks = np.asarray([lm.position[:2] for lm in self.reading.landmarks.values()
                            if lm.kind == LandmarkKind.MARK and lm.footprint is None
                            and self.ground.level_of_height(lm.position[2]) == level]
                           or np.empty((0, 2)))
        depth = FILE_BEHIND * max(1, files)
        for _ in range(3):
            row = np.asarray([self._file_slot(f, k, behind=depth)[:2]
                              for k in range(1, min(n, self._file_length[f.id]) + 1)])
            if not len(marks) or np.min(np.linalg.norm(row[:, None, :] - marks[None, :, :], axis=2)) >= PERSON_GAP:
                break
            depth += FILE_BEHIND
        return depth

    def formation_slot(self, who: str, name: str, rank: int | None = None):
        members = self.formations.get(name)
        f = self.reading.formations.get(name) or self.reading.formations.get(name + "位")
        if f is None or (members is None and rank is None):
            return None
        if rank is None:
            if who not in members:
                return None
            rank = members.index(who) + 1
        if f.slots is not None and rank > f.slots:
            self.state.fail(f"{who} has no place in {f.id}: the reading gives it {f.slots} places and the rite puts "
                      f"{max(rank, len(members or []))} people in it")
        x, y, level, heading = self._file_place(f, rank)
        if not self.ground.is_free(level, x, y) and math.dist((x, y), self.ground.free_point(level, x, y)) > 1.0:
            self.state.fail(f"{who} has no place in {f.id}: place {rank} of the file, folded as the ground allows, "
                      f"lies at ({x:.1f}, {y:.1f}) inside walls or fixtures")
        return x, y, level, heading

    def _file_slot(self, f, rank: int, behind: float = 0.0) -> tuple[float, float, str]:
        """The rank-th place of a file; a file longer than the ground allows folds into further files
        behind the first (若衆則…: the text turns a long row into a file), each FILE_BEHIND further back (room
        for one to pass between two files); a formation the reading gives an ``overflow`` continues first in
        a file turned at its end, as the reading writes it (若有東面者則北上), and folds only beyond that."""
        return self._file_place(f, rank, behind)[:3]

    def _file_place(self, f, rank: int, behind: float = 0.0) -> tuple[float, float, str, float]:
        """(x, y, level, heading) of the rank-th place of a file (see :meth:`_file_slot`)."""
        z = f.origin[2]
        level = self.ground.level_of_height(z)
        length = self._length(f.id, f.slot, level)
        turned = self._turned(f, level) if not behind else 0
        if turned and rank > length:
            if rank <= length + turned:
                heading, (sx, sy) = f.overflow
                ex, ey, _ = f.slot(length)
                k = rank - length
                return ex + k * sx, ey + k * sy, level, heading
            rank -= turned
        file_no, k = divmod(rank - 1, length)
        x, y, _ = f.slot(k + 1)
        back = math.radians(f.heading + 180)
        d = behind + FILE_BEHIND * file_no
        return x + d * math.sin(back), y + d * math.cos(back), level, f.heading

    def _turned(self, f, level: str) -> int:
        """How many places the file turned at a formation's end holds (0 without an ``overflow``)."""
        if f.overflow is None:
            return 0
        _, (sx, sy) = f.overflow
        ex, ey, z = f.slot(self._length(f.id, f.slot, level))
        return self._length(f.id + "/overflow", lambda k: (ex + k * sx, ey + k * sy, z), level, first=1)

    def _length(self, key: str, slot, level: str, first: int = 2) -> int:
        """How many places of a file, slot(1), slot(2) …, lie on free ground (the first always counts;
        ``first=1`` counts slot(1) too, for a turned file that may have no room at all)."""
        length = self._file_length.get(key)
        if length is None:
            length = first - 1
            while length < 400:
                x, y, _ = slot(length + 1)
                if not self.ground.is_free(level, x, y):
                    break
                length += 1
            self._file_length[key] = length
        return length

    def ahead(self, place: str) -> float | None:
        """When the one ahead in a file set out, if he walked to his place in it in this event (those
        walking to one file in one event go in rank order: 宾出，众宾皆出; 反于射位)."""
        return self._procession.get((self.state.event_id, place))

    def set_out(self, b: Body, place: str) -> None:
        """Remember when the one who just walked to his place in a file set out (see :meth:`ahead`)."""
        last = self.state.walks.get(b.id)
        ev = self.state.event_id
        if last is not None and last[0] == ev:
            self._procession[(ev, place)] = max(last[1], self._procession.get((ev, place), last[1]))

    def adhoc_slot(self, b: Body, place: str, rank: int | None = None, heading: str | None = None):
        """A file at a named place that the reading does not define as a formation: the senior at the
        place, the others westward (東上 facing north or south) or southward (北上 facing east or west)."""
        members = self.formations.get(place) or []
        rank = rank or (members.index(b.id) + 1 if b.id in members else 1)
        x, y, level, h = self.resolve(place, b.id)
        heading = heading_of(heading) if heading else (h if h is not None else 0.0)
        ux, uy = (-1.0, 0.0) if round(heading) % 180 == 0 else (0.0, -1.0)     # down the file
        # where the head's spot is taken (one waiting at the 義疏's 堂西, by the 西階's foot) or not free ground,
        # the whole file stands back along its own line, as far as the first of it to come finds needed, so
        # that it keeps its order instead of each being put aside on his own (立于大夫之南，少退，北上)
        key = (self.state.event_id, place)
        if key not in self._file_back:
            others = self.occupancy.standing(b, b.t, level)
            self._file_back[key] = next((k * FILE_BACK_STEP for k in range(FILE_BACK_STEPS + 1) if self.occupancy.fits(
                level, x + ux * k * FILE_BACK_STEP, y + uy * k * FILE_BACK_STEP, others)), 0.0)
        back = self._file_back[key] + ADHOC_SPACING * (rank - 1)
        return x + ux * back, y + uy * back, level, heading
