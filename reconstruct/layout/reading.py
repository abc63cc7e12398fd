"""A reading: one scholar's layout of the ritual ground, resolved to coordinates.

A reading is a TOML file in ``layouts/`` (see ``docs/readings.md``).  It declares
the length of the 尺, the building, the range and every courtyard fixture and
standing place, each placed the way the text places it (``at = "左个之西北三步"``,
``x = "西序"``, ``y = "楅"``) and each citing its source.  :func:`load_reading`
validates the file, works out the order in which places depend on one another,
and resolves them into a :class:`Reading`: landmarks in metres (x east, y north,
z up, origin at the middle of the hall's front edge, headings in compass degrees).

>>> r = load_reading("layouts/zheng_xuan.toml")
>>> round(r.landmarks["乏"].position[1] - r.landmarks["侯"].position[1], 2)
23.1
"""
from __future__ import annotations

import math
import re
import tomllib
from dataclasses import replace
from pathlib import Path
from typing import Any

import networkx as nx
import numpy as np
from pydantic import ValidationError

from ..errors import InputError
from ..inputs import read_text
from ..resources import DEFAULT_LAYOUT, LAYOUTS, logical_name
from ..text.names import NameIndex, simplified, traditional
from ..text.placement import DIRECTIONS, Place, PlaceError, heading_of, parse_place, unit_vector
from ..text.units import DEFAULT_CHI_PER_UNIT, Length, UnitError, Units, parse_length
from ..model.evidence import Basis, Source, basis_text, evidence_kind
from ..model.reading import Formation, Landmark, Reading, Stair
from ..model.vocabulary import EvidenceKind
from .schema import BasisSpec, FormationSpec, LandmarkSpec, LengthText, ReadingFile




# ---------------------------------------------------------------------------
# Loading.

MAX_BYTES = 1_000_000          # a reading file (the shipped: 14–17 kB)
MAX_METRES = 1_000.0           # every length and place of a reading, from the origin

def _key_path(loc: tuple) -> str:
    return ".".join(str(p) for p in loc)


def _toml_line(raw: str, path: list[str]) -> int | None:
    """Best effort: the line of a table ``[a.b]`` or a key ``b =`` named by the path."""
    lines = raw.splitlines()
    table = None
    for n in range(len(path), 0, -1):
        headers = {"[" + ".".join(path[:n]) + "]",
                   "[" + ".".join(p if p.isascii() else f'"{p}"' for p in path[:n]) + "]"}
        for i, line in enumerate(lines):
            if line.strip() in headers:
                table = i
                break
        if table is not None:
            if n < len(path):
                for j in range(table + 1, len(lines)):
                    if lines[j].startswith("["):
                        break
                    if re.match(rf'\s*"?{re.escape(str(path[n]))}"?\s*=', lines[j]):
                        return j + 1
            return table + 1
    return None


def reading_path(name: str | Path) -> Path:
    """A reading file: a path, or the name of a shipped reading (``ao_jigong``, ``ao_jigong.toml``,
    ``layouts/ao_jigong.toml`` as plans cite it)."""
    p = Path(name)
    try:
        shipped = LAYOUTS / p.with_suffix(".toml").name
        if not p.exists() and p.parent in (Path("."), Path("layouts")) and shipped.exists():
            return shipped          # a name, or the name a plan cites (layouts/zheng_xuan.toml)
    except (OSError, ValueError):   # a name too long, a null character, no name: read_text says so
        pass
    return p


def load_reading(path: str | Path = DEFAULT_LAYOUT) -> Reading:
    """Read, validate and resolve a reading (a path, or the name of a shipped reading); bad input
    raises :class:`InputError`."""
    data, raw, shown = _read(path)
    return _resolve(data, raw, shown)


DIMENSION_TABLES = ("units", "building", "court", "range", "lengths")


def reading_variant(path: str | Path, changes: dict[str, Any] | None = None,
                    scale: dict[str, float] | None = None) -> Reading:
    """The reading with some of its dimensions changed (what a choice changes downstream: the paradata
    report): ``changes`` sets ``"table.field"`` (units, building, court, range, lengths) to a value as a reading
    writes it (``{"range.measured_from": "堂廉"}``); ``scale`` multiplies a length (or the 尺, or each bay)
    by a factor (``{"building.width": 1.05}``), a whole number (``steps``) by rounding."""
    data, raw, shown = _read(path)
    units = Units(chi_m=data.get("units", {}).get("chi_m", 0.231),
                  chi_per_unit={**DEFAULT_CHI_PER_UNIT, **data.get("units", {}).get("chi_per", {})})
    named = {k: parse_length(v) for k, v in data.get("lengths", {}).items() if isinstance(v, (str, int, float))}

    def scaled(v: Any, f: float) -> Any:
        if isinstance(v, bool):
            return v
        if isinstance(v, int) and not isinstance(v, bool) and not isinstance(v, float):
            return max(1, round(v * f))
        if isinstance(v, float):
            return v * f
        if isinstance(v, list):
            return [scaled(x, f) for x in v]
        if isinstance(v, str):
            length = named.get(v.strip()) or parse_length(v)
            return f"{units.metres(length) * f:.6f}m"
        raise InputError(shown, "", f"cannot scale {v!r}")

    for key, value in (changes or {}).items():
        table, _, fld = key.partition(".")
        if table not in DIMENSION_TABLES or not fld:
            raise InputError(shown, key, f"not a dimension (one of the tables {', '.join(DIMENSION_TABLES)})")
        data.setdefault(table, {})[fld] = value
    for key, f in (scale or {}).items():
        table, _, fld = key.partition(".")
        t = data.setdefault(table, {})
        model = ReadingFile.model_fields.get(table)
        fields = getattr(model.annotation, "model_fields", {}) if model is not None else {}
        if fld not in t and fld in fields and fields[fld].default is not None:
            t[fld] = fields[fld].default        # a dimension the reading leaves at the schema's default
        if table not in DIMENSION_TABLES or fld not in t:
            raise InputError(shown, key, "not a dimension this reading sets")
        try:
            t[fld] = scaled(t[fld], f)
        except UnitError as e:
            raise InputError(shown, key, str(e)) from None
    return _resolve(data, raw, shown)


def _read(path: str | Path) -> tuple[dict, str, str]:
    path = reading_path(path)
    shown = logical_name(path)
    raw = read_text(path, shown, what="reading file", max_bytes=MAX_BYTES)
    try:
        return tomllib.loads(raw), raw, shown
    except RecursionError:
        raise InputError(shown, "", "TOML nested too deep") from None
    except tomllib.TOMLDecodeError as e:
        msg = str(e)
        m = re.search(r"\(at line (\d+), column (\d+)\)", msg)
        where = f"{m.group(1)}:{m.group(2)}" if m else ""
        raise InputError(shown, where, "TOML syntax: " + re.sub(r"\s*\(at line.*\)", "", msg)) from None


def _resolve(data: dict, raw: str, shown: str) -> Reading:
    try:
        spec = ReadingFile.model_validate(data)
    except ValidationError as e:
        err = e.errors()[0]
        loc = [str(p) for p in err["loc"]]
        line = _toml_line(raw, loc)
        where = (f"{line}: " if line else "") + _key_path(err["loc"])
        what = err["msg"].removeprefix("Value error, ")
        if err["type"] == "missing":
            what = "missing field"
        elif err["type"] == "extra_forbidden":
            what = "unknown field (mistyped?)"
        raise InputError(shown, where, what) from None
    return _Resolver(spec, raw, shown).resolve()


class _Resolver:
    def __init__(self, spec: ReadingFile, raw: str, file: str) -> None:
        self.spec, self.raw, self.file = spec, raw, file
        self.units = Units(chi_m=spec.units.chi_m,
                           chi_per_unit={**DEFAULT_CHI_PER_UNIT, **spec.units.chi_per})
        self.landmarks: dict[str, Landmark] = {}
        self.names = NameIndex()
        self.lengths: dict[str, Length] = {}

    # -- helpers ---------------------------------------------------------
    def fail(self, keypath: list[str], what: str) -> None:
        line = _toml_line(self.raw, keypath)
        where = (f"{line}: " if line else "") + ".".join(keypath)
        raise InputError(self.file, where, what)

    def m(self, value: LengthText | None, keypath: list[str], *, positive: bool = True) -> float:
        if value is None:
            self.fail(keypath, "missing length")
        try:
            text = value
            if isinstance(value, str) and value.strip() in self.lengths:
                metres = self.units.metres(self.lengths[value.strip()])
            else:
                metres = self.units.metres(parse_length(text))
        except UnitError as e:
            self.fail(keypath, str(e))
        if positive and metres <= 0:
            self.fail(keypath, f"must be a positive length, got {value!r}")
        if not abs(metres) <= MAX_METRES:
            self.fail(keypath, f"{str(value)[:40]!r} is {metres:.4g} m: a ground is less than {MAX_METRES:g} m across")
        return metres

    def add(self, lm: Landmark) -> None:
        if isinstance(lm.cite, tuple):          # a basis: the cite is its text, the kind its evidence
            kind = evidence_kind(lm.cite, self.sources)
            lm = replace(lm, basis=lm.cite, cite=basis_text(lm.cite), evidence=str(kind) if kind else "")
        self.landmarks[lm.id] = lm
        self.names.add(lm.id, [traditional(lm.id), *lm.aliases])

    # -- the parts -------------------------------------------------------
    def basis(self, entries: list[BasisSpec]) -> tuple[Basis, ...]:
        return tuple(Basis(e.source, e.at, e.quote, e.chosen, e.of) for e in entries)

    def check_sources(self) -> None:
        """Every basis names a source of ``[sources]`` (else one line naming the place, exit 2), and every
        table of dimensions has a basis for the fields it does not name (``"*"``)."""
        s = self.spec
        known = ", ".join(s.sources)
        places: list[tuple[list[str], list[BasisSpec]]] = []
        for tname in ("units", "building", "court", "range"):
            table = getattr(s, tname)
            for k, v in table.basis.items():
                if k != "*" and (k not in type(table).model_fields or k == "basis"):
                    self.fail([tname, "basis", k], f"a basis of {k[:40]!r}, which is not a field of [{tname}] (mistyped?)")
                places.append(([tname, "basis", k], v))
        for k, v in s.lengths_basis.items():
            if k not in s.lengths:
                self.fail(["lengths_basis", k], f"a basis of {k[:40]!r}, which is not a length of [lengths]")
            places.append((["lengths_basis", k], v))
        for table in ("landmarks", "formations", "options"):
            for k, spec in getattr(s, table).items():
                places.append(([table, k, "basis"], spec.basis))
        for kp, entries in places:
            for i, e in enumerate(entries):
                if e.source is not None and e.source not in s.sources:
                    self.fail(kp, f"basis [{i}]: unknown source {e.source[:40]!r} (the [sources] of this reading: {known})")
        for tname in ("building", "court", "range"):
            if "*" not in getattr(s, tname).basis:
                self.fail([tname, "basis"], 'needs a basis for the fields it does not name ("*")')
        for k in s.lengths:
            if k not in s.lengths_basis:
                self.fail(["lengths", k], "a named length needs its basis in [lengths_basis]")

    def dimensions(self) -> dict[str, dict[str, Any]]:
        """Every dimension the reading sets, as written, with its basis: ``building.width`` → value, basis."""
        s = self.spec
        out: dict[str, dict[str, Any]] = {}
        for tname in ("units", "building", "court", "range"):
            t = getattr(s, tname)
            for k, v in t.model_dump(exclude={"basis"}).items():
                if v is None or v == {} or k == "chi_per":
                    continue
                b = self.field_basis(tname, k)
                kind = evidence_kind(b, self.sources)
                out[f"{tname}.{k}"] = {"value": v, "basis": [x.as_plan() for x in b],
                                       "evidence": str(kind) if kind else ""}
        for k, v in s.lengths.items():
            b = self.basis(s.lengths_basis[k])
            kind = evidence_kind(b, self.sources)
            out[f"lengths.{k}"] = {"value": v, "basis": [x.as_plan() for x in b], "evidence": str(kind) if kind else ""}
        return out

    def field_basis(self, table: str, *keys: str) -> tuple[Basis, ...]:
        """The basis of some fields of [units]/[building]/[court]/[range], each its own or the table's "*"."""
        t = getattr(self.spec, table).basis
        out: list[Basis] = []
        for k in keys:
            for b in self.basis(t.get(k) or t.get("*") or []):
                if b not in out:
                    out.append(b)
        return tuple(out)

    def resolve(self) -> Reading:
        s = self.spec
        self.sources = {k: Source(k, EvidenceKind(v.kind), v.title, v.edition, v.transcription, v.file)
                        for k, v in s.sources.items()}
        self.check_sources()
        for k, v in s.lengths.items():
            try:
                self.lengths[k] = parse_length(v)
            except UnitError as e:
                self.fail(["lengths", k], str(e))
        p = self.building()
        self.range(p)
        self.fixtures(p)
        formations = self.formations()
        views = {k: (tuple(v.eye), tuple(v.look)) for k, v in s.views.items()}
        return Reading(
            name=s.reading.name, name_en=s.reading.name_en, file=self.file, summary=s.reading.summary,
            sources=tuple(x.provenance() for x in self.sources.values()), units=self.units, diagonal=s.units.diagonal,
            building_type=s.building.type, hall_height=p["hall_height"],
            hall_footprint=p["hall_footprint"], court_footprint=p["court_footprint"],
            gate=self.landmarks["门"].position, gate_width=p["gate_width"], wall_height=p["wall_height"],
            wall_thickness=p["wall_thickness"], stairs=p["stairs"], landmarks=dict(self.landmarks),
            formations=formations, views=views, params={k: v for k, v in p.items() if isinstance(v, float)},
            names=self.names, options={k: (o.choice, basis_text(self.basis(o.basis))) for k, o in s.options.items()},
            bibliography=dict(self.sources), dimensions=self.dimensions(),
            option_basis={k: self.basis(o.basis) for k, o in s.options.items()})

    def building(self) -> dict[str, Any]:
        """The hall (堂, 序, 楹, 榮, stairs, 室 and 房 if it has them) and the courtyard with its gate."""
        d = self._hall_measures()
        self._hall(d)
        d["stairs"] = self._stairs(d)
        if self.spec.building.type == "xu_with_shi":
            self._chambers(d)
        self._court(d)
        b, kp = self.spec.building, ["building"]
        return {"hall_height": d["H"], "hall_footprint": d["footprint"], "court_footprint": d["court"],
                "stairs": d["stairs"], "gate_width": d["gw"], "wall_height": d["wall_height"],
                "wall_thickness": d["wt"], "w_xu": d["w_xu"], "half_width": d["half"], "depth": d["depth"],
                "y_mei": d["y_mei"], "y_dong": d["y_dong"], "y_houmei": d["y_houmei"], "eave": d["eave"],
                "column_x": d["cx"], "column_d": d["cd"], "eave_height": self.m(b.eave_height, kp + ["eave_height"]),
                "roof_rise": self.m(b.roof_rise, kp + ["roof_rise"]), "court_south": d["south"],
                "court_half": d["cw"]}


    def _hall_measures(self) -> dict[str, Any]:
        b, kp = self.spec.building, ["building"]
        d: dict[str, Any] = {
            "w_xu": self.m(b.width, kp + ["width"]) / 2, "side": self.m(b.side_hall, kp + ["side_hall"], positive=False),
            "bays": [self.m(v, kp + ["bays"]) for v in b.bays], "H": self.m(b.height, kp + ["height"]),
            "sw": self.m(b.stair_width, kp + ["stair_width"]), "sx": self.m(b.stair_x, kp + ["stair_x"]),
            "cx": self.m(b.column_x, kp + ["column_x"]), "cd": self.m(b.column_diameter, kp + ["column_diameter"]),
            "eave": self.m(b.eave, kp + ["eave"], positive=False), "wt": self.m(b.wall_thickness, kp + ["wall_thickness"]),
            "xu_front": self.m(b.xu_front, kp + ["xu_front"], positive=False)}
        d["half"] = d["w_xu"] + d["side"]
        if not d["cx"] < d["sx"] < d["w_xu"]:
            self.fail(kp + ["stair_x"], f"the stairs stand between the 楹 and the 序 (兩階各在楹之外而近序): "
                      f"need column_x {d['cx']:.2f} m < stair_x {d['sx']:.2f} m < width/2 {d['w_xu']:.2f} m")
        if d["sx"] + d["sw"] / 2 > d["half"]:
            self.fail(kp + ["stair_width"], "a stair is wider than the platform allows")
        bays = d["bays"]
        d["y_mei"], d["y_dong"], d["y_houmei"] = bays[0], bays[0] + bays[1], bays[0] + bays[1] + bays[2]
        d["depth"] = sum(bays)
        half, depth = d["half"], d["depth"]
        d["footprint"] = ((-half, 0.0), (half, 0.0), (half, depth), (-half, depth))
        return d

    def _hall(self, d: dict[str, Any]) -> None:
        b, kp = self.spec.building, ["building"]
        cite = lambda *k: self.field_basis("building", *k)  # noqa: E731
        H, depth, half, w_xu, wt = d["H"], d["depth"], d["half"], d["w_xu"], d["wt"]
        self.add(Landmark("堂", (0.0, depth / 2, H), None, d["footprint"], "hall", (2 * half, depth, H),
                          "hall platform", ("堂上",), cite("height", "width", "bays"), f"{b.width} between the 序, 堂深 {depth:.2f} m"))
        self.add(Landmark("堂廉", (0.0, 0.0, H), None, None, "edge", None, "front edge of the hall (origin)",
                          ("堂前",), cite("*"), "origin"))
        for name, y, label in (("楣", d["y_mei"], "front purlin (楣)"), ("栋", d["y_dong"], "ridge purlin (棟)"),
                               ("后楣", d["y_houmei"], "rear purlin"), ("北墉", depth, "back wall")):
            self.add(Landmark(name, (0.0, y, H), None, None, "purlin" if name != "北墉" else "wall", None, label,
                              (), cite("bays"), "bays " + " + ".join(str(v) for v in b.bays)))
        xu_front = d["xu_front"]
        xu_len = depth - xu_front
        for side_name, sgn in (("东", 1), ("西", -1)):
            x = sgn * w_xu
            en = "east" if sgn > 0 else "west"
            fp = ((x - wt / 2, xu_front), (x + wt / 2, xu_front), (x + wt / 2, depth), (x - wt / 2, depth))
            self.add(Landmark(f"{side_name}序", (x, xu_front + xu_len / 2, H), None, fp, "wall",
                              (wt, xu_len, self.m(b.eave_height, kp + ["eave_height"])),
                              f"{en} wall of the hall (序)", (), cite("width"), f"width {b.width}"))
            self.add(Landmark(f"{side_name}序端", (x, xu_front, H), None, None, "mark", None,
                              f"south end of the {en} 序", (), cite("xu_front"), "序端"))
            self.add(Landmark(f"{side_name}楹", (sgn * d["cx"], d["y_mei"], H), None, None, "column",
                              (d["cd"], d["cd"], 0.0), f"{en} column", (), cite("column_x"), "under the front 楣 (江永)"))
            self.add(Landmark(f"{side_name}荣", (sgn * (half + d["eave"]), d["y_dong"], H), None, None, "eave", None,
                              f"{en} gable eave end (榮)", (), cite("eave"), "the platform's edge plus the eave"))
            self.add(Landmark(f"{side_name}堂", (sgn * (w_xu + d["side"] / 2), depth / 2, H), None, None, "mark", None,
                              f"{en} side hall beyond the 序", (), cite("side_hall"), ""))

    def _stairs(self, d: dict[str, Any]) -> dict[str, Stair]:
        b = self.spec.building
        H, sw, steps = d["H"], d["sw"], b.steps
        rise = H / steps
        tread = max(0.25, min(0.45, rise * 1.4))
        stairs = {}
        for name, sgn, alias in (("阼阶", 1, ("东阶", "阼")), ("西阶", -1, ("宾阶",))):
            st = Stair(name, sgn * d["sx"], sw, steps, rise, tread)
            stairs[name] = st
            fp = ((st.x - sw / 2, -st.run), (st.x + sw / 2, -st.run), (st.x + sw / 2, 0.0), (st.x - sw / 2, 0.0))
            self.add(Landmark(name, (st.x, 0.0, H), 180.0, fp, "stair", (sw, st.run, H),
                              ("east" if sgn > 0 else "west") + f" stair, {steps} steps", alias,
                              self.field_basis("building", "stair_x", "stair_width", "steps"),
                              f"{steps} 等, {sw:.2f} m wide"))
        return stairs

    def _chambers(self, d: dict[str, Any]) -> None:
        b, kp = self.spec.building, ["building"]
        H, w_xu, y0 = d["H"], d["w_xu"], d["y_houmei"]
        sd = self.m(b.shi_depth, kp + ["shi_depth"]) if b.shi_depth is not None else d["depth"] - y0
        eh = self.m(b.eave_height, kp + ["eave_height"])
        cite = self.field_basis("building", "shi_depth")
        self.add(Landmark("室", (-w_xu / 3, y0 + sd / 2, H), None,
                          ((-w_xu, y0), (w_xu / 3, y0), (w_xu / 3, y0 + sd), (-w_xu, y0 + sd)), "room",
                          (w_xu * 4 / 3, sd, eh), "chamber (室)", (), cite, "north of the 後楣"))
        self.add(Landmark("东房", (w_xu * 2 / 3, y0 + sd / 2, H), None,
                          ((w_xu / 3, y0), (w_xu, y0), (w_xu, y0 + sd), (w_xu / 3, y0 + sd)), "room",
                          (w_xu * 2 / 3, sd, eh), "east room (東房)", (), cite, "east of the 室"))
        self.add(Landmark("户牖间", (0.0, y0 - 0.6, H), None, None, "mark", None, "between door and window",
                          ("戶牖之間",), cite, "in front of the 室 wall"))

    def _court(self, d: dict[str, Any]) -> None:
        c, ckp = self.spec.court, ["court"]
        d["south"] = south = -self.m(c.south, ckp + ["south"])
        d["cw"] = cw = self.m(c.half_width, ckp + ["half_width"])
        if cw <= d["half"] + d["eave"]:
            self.fail(ckp + ["half_width"], "the courtyard must be wider than the hall")
        d["gw"] = gw = self.m(c.gate_width, ckp + ["gate_width"])
        d["wall_height"] = self.m(c.wall_height, ckp + ["wall_height"])
        d["court"] = court = ((-cw, south), (cw, south), (cw, d["depth"] + 2.0), (-cw, d["depth"] + 2.0))
        self.add(Landmark("门", (0.0, south, 0.0), 0.0, None, "gate", (gw, d["wt"] * 2, d["wall_height"]),
                          "gate", ("門", "大门"), self.field_basis("court", "*", "south", "gate_width"), "one gate on the axis (朱子 釋宮)"))
        self.add(Landmark("门外", (0.0, south - 2.0, 0.0), 0.0, None, "mark", None, "outside the gate", ("門外",),
                          self.field_basis("court", "*", "south"), "two metres south of the gate"))
        self.add(Landmark("庭", (0.0, south / 2, 0.0), None, court, "court", None, "courtyard", ("中庭",),
                          self.field_basis("court", "south", "half_width"),
                          "the walled courtyard"))

    def range(self, p: dict[str, Any]) -> None:
        r, kp = self.spec.range, ["range"]
        cite = lambda *k: self.field_basis("range", *k)  # noqa: E731
        chi = self.units.chi_m
        H = p["hall_height"]
        y_wu = p["y_dong"] if r.wu_under == "栋" else p["y_mei"]
        gap = self.m(r.wu_gap, kp + ["wu_gap"])
        wl, wc = self.m(r.wu_length, kp + ["wu_length"]), self.m(r.wu_cross, kp + ["wu_cross"])
        for name, sgn, label in (("上物", -1, "upper archer's mark (右物, west)"), ("下物", 1, "lower archer's mark (左物, east)")):
            self.add(Landmark(name, (sgn * gap / 2, y_wu, H), 180.0, None, "wu", (wc, wl, 0.0), label,
                              ("右物",) if sgn < 0 else ("左物",), cite("wu_under", "wu_gap"),
                              f"物當{r.wu_under}; 間容弓 {r.wu_gap}"))
        dao = self.m(r.hou_dao, kp + ["hou_dao"])
        y_hou = (y_wu if r.measured_from == "物" else 0.0) - dao
        # 弓二寸以為侯中: 2 寸 of 侯中 per 弓 of the 侯道, so 50 弓 → 100 寸 = 10 尺.
        hou_dao_gong = dao / self.units.metres("一弓")
        zhong = hou_dao_gong * 0.2 * chi           # side of the 侯中
        cloth = 2.0 * chi                           # one cloth width (幅 2 尺)
        gong = 2 * zhong                            # 倍中以為躬
        upper = 2 * gong                            # 倍躬以為左右舌
        lower = gong + (upper - gong) / 2           # 下舌半上舌: half the projection
        ground = self.m(r.gang_ground, kp + ["gang_ground"])
        z_bottom = ground
        heights = {"下舌": (z_bottom, z_bottom + cloth), "下躬": (z_bottom + cloth, z_bottom + 2 * cloth),
                   "中": (z_bottom + 2 * cloth, z_bottom + 2 * cloth + zhong)}
        z = heights["中"][1]
        heights["上躬"] = (z, z + cloth)
        heights["上舌"] = (z + cloth, z + 2 * cloth)
        beyond = self.m(r.gang_beyond, kp + ["gang_beyond"])
        self.params = {}
        p.update({"hou_y": y_hou, "hou_zhong": zhong, "hou_gong": gong, "hou_upper": upper, "hou_lower": lower,
                  "hou_cloth": cloth, "hou_bottom": z_bottom, "hou_top": heights["上舌"][1],
                  "hou_post_top": upper / 2 + beyond, "hou_post_bottom": lower / 2 + beyond, "y_wu": y_wu,
                  "hou_dao": dao})
        p["hou_heights"] = heights
        hou_fp = ((-upper / 2, y_hou - 0.1), (upper / 2, y_hou - 0.1), (upper / 2, y_hou + 0.1), (-upper / 2, y_hou + 0.1))
        self.add(Landmark("侯", (0.0, y_hou, 0.0), 0.0, hou_fp, "target", (upper, 0.05, heights["上舌"][1]),
                          "target (侯)", (), cite("hou_dao", "measured_from"),
                          f"侯道 {r.hou_dao} from the {r.measured_from}: {dao:.2f} m"))
        zc = sum(heights["中"]) / 2
        self.add(Landmark("侯中", (0.0, y_hou, zc), 0.0, None, "mark", (zhong, 0.0, zhong), "centre of the target",
                          ("侯之中",), cite("hou_dao"), "弓二寸以為侯中"))
        west_is_left = r.frame == "target"
        for name, sgn in (("左个", -1 if west_is_left else 1), ("右个", 1 if west_is_left else -1)):
            self.add(Landmark(name, (sgn * upper / 2, y_hou, 0.0), 0.0, None, "mark", None,
                              f"{'west' if sgn < 0 else 'east'} side of the target ({name})",
                              (traditional(name),), cite("frame"),
                              "侯以鄉堂為面: 左个 = west" if west_is_left else "archer's frame: 左个 = east"))
        for name, sgn in (("西植", -1), ("东植", 1)):
            self.add(Landmark(name, (sgn * (lower / 2 + beyond), y_hou, 0.0), None, None, "post", None,
                              f"{'west' if sgn < 0 else 'east'} target post", (), cite("gang_beyond"),
                              "上綱與下綱出舌尋"))

    def _place(self, text: str, keypath: list[str]) -> Place:
        try:
            return parse_place(text, self.names, self.lengths)
        except PlaceError as e:
            self.fail(keypath, str(e))
        raise AssertionError

    def _point(self, place: Place, keypath: list[str]) -> tuple[float, float]:
        if place.base is None:
            x, y = 0.0, 0.0
        else:
            lm = self.landmarks[place.base]
            x, y = lm.position[0], lm.position[1]
        for direction, length in place.offsets:
            if length is None:
                self.fail(keypath, f"{place.text!r}: a landmark needs a distance after {direction}")
            try:
                d = self.units.metres(length) if length.terms or length.metres else 0.0
            except UnitError as e:
                self.fail(keypath, str(e))
            ux, uy = unit_vector(direction, self.spec.units.diagonal)
            x, y = x + ux * d, y + uy * d
        if not (abs(x) <= MAX_METRES and abs(y) <= MAX_METRES):
            self.fail(keypath, f"{place.text[:40]!r} is {math.hypot(x, y):.4g} m from the 堂: a ground is less "
                               f"than {MAX_METRES:g} m across")
        if place.modifier:
            self.fail(keypath, f"{place.text!r}: 上/下/前/间 are for the rite's places, not for a reading's landmarks")
        return x, y

    def _refs(self, spec: LandmarkSpec | FormationSpec) -> list[tuple[str, str]]:
        """(field, text) of the placements a spec uses."""
        out = []
        for f in ("at", "x", "y"):
            v = getattr(spec, f, None)
            if isinstance(v, str):
                out.append((f, v))
        return out

    def fixtures(self, p: dict[str, Any]) -> None:
        specs = self.spec.landmarks
        for ident in specs:
            if simplified(ident) != ident:
                self.fail(["landmarks", ident], f"landmark ids are written in simplified characters: {simplified(ident)}")
            if ident in self.landmarks:
                self.fail(["landmarks", ident], f"{ident} is derived from [building]/[range]; give it another id")
        # Names the placements refer to; a reference is a landmark of the file or a derived one.
        both = NameIndex()
        for n, lm in self.landmarks.items():
            both.add(n, [traditional(n), *lm.aliases])
        for n, spec in specs.items():
            both.add(n, [traditional(n), *spec.aliases])
        g = nx.DiGraph()
        for ident, spec in specs.items():
            g.add_node(ident)
            for f, text in self._refs(spec):
                if _is_length(text, self.lengths):
                    continue
                try:
                    place = parse_place(text, both, self.lengths)
                except PlaceError as e:
                    self.fail(["landmarks", ident, f], str(e))
                if place.base and place.base in specs:
                    g.add_edge(place.base, ident)
        try:
            order = list(nx.topological_sort(g))
        except nx.NetworkXUnfeasible:
            cycle = nx.find_cycle(g)
            chain = " → ".join([cycle[0][0], *[b for _, b in cycle]])
            self.fail(["landmarks", cycle[0][1]], f"placements refer to each other in a cycle: {chain}")
        for ident in order:
            self.fixture(ident, specs[ident], p)

    def fixture(self, ident: str, spec: LandmarkSpec, p: dict[str, Any]) -> None:
        kp = ["landmarks", ident]
        if spec.at is None and (spec.x is None or spec.y is None):
            self.fail(kp, "needs `at`, or both `x` and `y`")
        x = y = None
        placed = []
        if spec.at is not None:
            x, y = self._point(self._place(spec.at, kp + ["at"]), kp + ["at"])
            placed.append(spec.at)
        for axis in ("x", "y"):
            v = getattr(spec, axis)
            if v is None:
                continue
            if isinstance(v, (int, float)) or _is_length(v, self.lengths):
                coord = self.m(v, kp + [axis], positive=False)
                placed.append(f"{axis} = {v}")
            else:
                pt = self._point(self._place(v, kp + [axis]), kp + [axis])
                coord = pt[0] if axis == "x" else pt[1]
                placed.append(f"{axis} 當 {v}")
            if axis == "x":
                x = coord
            else:
                y = coord
        z = p["hall_height"] if spec.level == "堂" else 0.0
        heading = None
        if spec.heading is not None:
            if isinstance(spec.heading, (int, float)):
                heading = float(spec.heading) % 360
            else:
                try:
                    heading = heading_of(spec.heading)
                except PlaceError as e:
                    self.fail(kp + ["heading"], str(e))
        size = None
        footprint = None
        if spec.size is not None:
            size = tuple(self.m(v, kp + ["size"]) for v in spec.size)
            footprint = _rect(x, y, size[0], size[1], heading or 0.0)
        self.add(Landmark(ident, (x, y, z), heading, footprint, spec.kind, size, spec.label_en,
                          tuple(spec.aliases), self.basis(spec.basis), "; ".join(placed)))

    def formations(self) -> dict[str, Formation]:
        out = {}
        for ident, spec in self.spec.formations.items():
            kp = ["formations", ident]
            x, y = self._point(self._place(spec.at, kp + ["at"]), kp + ["at"])
            try:
                heading = heading_of(spec.facing)
                senior = simplified(spec.senior).removesuffix("上")
                ux, uy = DIRECTIONS[senior]
            except (PlaceError, KeyError):
                self.fail(kp, f"facing {spec.facing!r} / senior {spec.senior!r}: write e.g. 东面 and 北上")
            sp = self.m(spec.spacing, kp + ["spacing"])
            z = self.spec.building and (0.0 if spec.level == "庭" else self.landmarks["堂"].position[2])
            overflow = None
            if spec.overflow is not None:
                m = re.fullmatch(r"\s*(\S+面)\s*(\S上)\s*", spec.overflow)
                try:
                    if m is None:
                        raise PlaceError(spec.overflow)
                    oh = heading_of(m.group(1))
                    ox, oy = DIRECTIONS[simplified(m.group(2)).removesuffix("上")]
                except (PlaceError, KeyError):
                    self.fail(kp + ["overflow"], f"{spec.overflow!r}: write e.g. 东面北上")
                overflow = (oh, (-ox * sp, -oy * sp))
            out[ident] = Formation(ident, (x, y, z), heading, (-ux * sp, -uy * sp), spec.label_en,
                                   basis_text(self.basis(spec.basis)),
                                   spec.slots, overflow)
            self.add(Landmark(ident, (x, y, z), heading, None, "formation", None, spec.label_en or ident, (),
                              self.basis(spec.basis), f"{spec.at}; {spec.facing} {spec.senior}"))
        return out


def _is_length(text: str, lengths: dict[str, Length]) -> bool:
    if text.strip() in lengths:
        return True
    s = text.strip().lstrip("-")
    try:
        parse_length(s)
        return True
    except UnitError:
        return False


def _rect(x: float, y: float, w: float, d: float, heading: float) -> tuple[tuple[float, float], ...]:
    """Footprint of a w (across) × d (along) rectangle centred at (x, y), turned to a heading."""
    a = math.radians(heading)
    fwd = np.array([math.sin(a), math.cos(a)])
    right = np.array([math.cos(a), -math.sin(a)])
    c = np.array([x, y])
    pts = [c + sx * right * w / 2 + sy * fwd * d / 2 for sx, sy in ((-1, -1), (1, -1), (1, 1), (-1, 1))]
    return tuple((float(px), float(py)) for px, py in pts)


def list_readings() -> list[Path]:
    return sorted(LAYOUTS.glob("*.toml"))


def alternative_places(landmarks: dict, readings: dict) -> dict[str, dict[str, dict | None]]:
    """Where other readings put the given landmarks: landmark → the key of each reading in ``readings`` →
    ``{position, evidence, from_here_m}``, or None where that reading has no such landmark (the paradata
    report's landmark table, the web page's evidence view)."""
    out: dict[str, dict[str, dict | None]] = {}
    for ident, lm in landmarks.items():
        out[ident] = {}
        for key, r in readings.items():
            o = r.landmarks.get(ident)
            out[ident][key] = None if o is None else {"position": [round(v, 3) for v in o.position],
                                                      "evidence": o.evidence,
                                                      "from_here_m": round(math.dist(o.position, lm.position), 3)}
    return out
