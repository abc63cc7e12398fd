"""The paradata report (issue 32): ``render.py report [LAYOUT]`` writes one self-contained HTML page —
the document a historian cites — with

* the reading's sources, once, with their provenance (edition, transcription);
* every choice the reading makes — each dimension of ``[units]``/``[building]``/``[court]``/``[range]``, each
  named length, each interpretive option — with its basis (the words quoted, or the reason it is CHOSEN) and
  the alternatives: the values the other shipped readings take;
* what each choice changes downstream, computed: the dimension is changed (a length by
  :data:`PERTURB`, a categorical choice to its alternative) and the reading resolved again; the landmarks
  that move (and by how much) and the text's statements whose margin or verdict changes on the ground are
  listed, with the statements that rest on a moved landmark through the people placed by it
  (``replan``: the plan made again on the changed ground, for the dimensions asked, and every statement
  evaluated on it);
* every landmark with its basis, its evidence kind and where the other readings put it;
* the acts that rest on an option (the events that carry it);
* the check results with their margins;
* the diagrams: the ground coloured by evidence (``render/diagram.py``), and the overlay with another reading.

:func:`paradata` computes the data (also written as JSON), :func:`paradata_html` the page.
"""
from __future__ import annotations

import base64
import html
import math
from pathlib import Path
from typing import Any, Callable

from ..errors import InputError
from ..layout import alternative_places, list_readings, load_reading, reading_variant
from ..model.evidence import EVIDENCE_STYLE
from ..model.plan import Plan
from ..model.reading import Reading
from ..outputs import atomic_path
from ..text.fonts import font_subset_woff
from .statements import PlanView, Result, Statement, evaluate_all, load_catalogue

__all__ = ["paradata", "paradata_html", "write_report", "PERTURB", "ALTERNATIVES"]

PERTURB = 1.05          # a length, the 尺 or a count is changed by +5 % to see what depends on it
MOVE_M = 0.01           # a landmark that moves more than this depends on the choice
MARGIN_M = 0.001        # a statement whose margin changes more than this depends on it
# The choices that are words, and the words a reading may choose instead (schema.py).
ALTERNATIVES = {"units.diagonal": ("bearing", "both_axes"), "building.type": ("xu_no_shi", "xu_with_shi"),
                "range.measured_from": ("物", "堂廉"), "range.wu_under": ("栋", "楣"),
                "range.frame": ("target", "archer")}
NOT_DIMENSIONS = ("units.chi_per",)


def _margins(results: list[Result]) -> dict[str, tuple[str, float | None]]:
    return {r.statement.id: (r.status, None if r.margin is None else round(r.margin, 4)) for r in results}


def _changed(before: dict, after: dict, cat: dict[str, Statement]) -> list[dict[str, Any]]:
    out = []
    for sid, (st0, m0) in before.items():
        st1, m1 = after.get(sid, ("n/a", None))
        if st0 == "n/a" and st1 == "n/a":
            continue
        dm = None if m0 is None or m1 is None else round(m1 - m0, 4)
        if st0 != st1 or (dm is not None and abs(dm) > MARGIN_M):
            out.append({"id": sid, "words": cat[sid].words, "before": st0, "after": st1,
                        "margin_before": m0, "margin_after": m1, "change": dm})
    return out


def _landmarks_of(s: Statement, view: PlanView) -> set[str]:
    out = set()
    for name in (s.subject, s.ref):
        if name:
            hit = view.resolve(name, static=True)
            if hit is not None:
                out.add(hit[1])
    return out


def _moved(a: Reading, b: Reading) -> list[tuple[str, float]]:
    out = []
    for k, lm in a.landmarks.items():
        other = b.landmarks.get(k)
        if other is not None:
            d = math.dist(lm.position, other.position)
            if d > MOVE_M:
                out.append((k, round(d, 3)))
    return sorted(out, key=lambda m: (-m[1], m[0]))


def _changes_of(key: str, value: Any) -> list[tuple[str, dict, dict]]:
    """(label, changes, scale) to try for one dimension."""
    if key in ALTERNATIVES:
        return [(f"→ {alt}", {key: alt}, {}) for alt in ALTERNATIVES[key] if alt != value]
    if isinstance(value, bool) or value is None:
        return []
    if isinstance(value, int) and not isinstance(value, float) and key != "units.chi_m":
        return [(f"{value} → {value + 1}", {key: value + 1}, {})]        # a count: one more
    return [(f"+{(PERTURB - 1) * 100:.0f} %", {}, {key: PERTURB})]


def dependencies(layout: str | Path, reading: Reading, catalogue: list[Statement], plan: Plan | None = None,
                 replan: Callable[[Reading], Plan] | None = None, replan_keys: tuple[str, ...] = (),
                 keys: tuple[str, ...] | None = None) -> list[dict]:
    """What each dimension of the reading (or those of ``keys``) changes downstream (see the module's docstring)."""
    cat = {s.id: s for s in catalogue}
    ground = Plan.of_ground(reading)
    base = _margins(evaluate_all(ground, catalogue))
    view = PlanView(plan if plan is not None else ground)
    uses = {s.id: _landmarks_of(s, view) for s in catalogue}
    full = _margins(evaluate_all(plan, catalogue)) if (plan is not None and replan is not None and replan_keys) else {}
    out = []
    for key, dim in reading.dimensions.items():
        if key in NOT_DIMENSIONS or (keys is not None and key not in keys):
            continue
        for label, changes, scale in _changes_of(key, dim["value"]):
            row: dict[str, Any] = {"dimension": key, "value": dim["value"], "change": label, "evidence": dim["evidence"],
                                   "moved": [], "statements": [], "via": [], "replanned": None, "error": ""}
            try:
                variant = reading_variant(layout, changes, scale)
            except InputError as e:
                row["error"] = f"does not resolve so: {e}"
                out.append(row)
                continue
            row["moved"] = _moved(reading, variant)
            row["statements"] = _changed(base, _margins(evaluate_all(Plan.of_ground(variant), catalogue)), cat)
            moved = {m for m, _ in row["moved"]}
            direct = {s["id"] for s in row["statements"]}
            row["via"] = sorted(sid for sid, lms in uses.items() if lms & moved and sid not in direct)
            if replan is not None and key in replan_keys and plan is not None:
                try:
                    row["replanned"] = _changed(full, _margins(evaluate_all(replan(variant), catalogue)), cat)
                except Exception as e:          # noqa: BLE001 — a changed ground the planner cannot fill is a finding
                    row["replanned"] = []
                    row["error"] = f"the plan cannot be made on it: {type(e).__name__}: {str(e)[:200]}"
            out.append(row)
    return out


def paradata(layout: str | Path, plan: Plan, *, catalogue: list[Statement] | None = None,
             option_decl: dict[str, Any] | None = None, replan: Callable[[Reading], Plan] | None = None,
             replan_keys: tuple[str, ...] = ()) -> dict[str, Any]:
    """The report's data: sources, choices with their basis, alternatives and dependencies, landmarks,
    acts resting on options, the check results."""
    reading = load_reading(layout)
    cat = catalogue if catalogue is not None else load_catalogue()
    others = {p.stem: load_reading(p) for p in list_readings()}
    me = Path(reading.file).stem
    dims = []
    for key, dim in reading.dimensions.items():
        table, _, fld = key.partition(".")
        alts = {stem: r.dimensions.get(key, {}).get("value") for stem, r in others.items()}
        dims.append({"dimension": key, **dim, "alternatives": alts})
    landmarks = []
    where = alternative_places(reading.landmarks, others)
    for ident, lm in reading.landmarks.items():
        landmarks.append({"id": ident, "label_en": lm.label_en, "placed_by": lm.placed_by, "evidence": lm.evidence,
                          "position": [round(v, 3) for v in lm.position],
                          "basis": [b.as_plan() for b in lm.basis], "alternatives": where[ident]})
    options = []
    for name, choice in plan.options.items():
        basis = reading.option_basis.get(name)
        decl = (option_decl or {}).get(name, {})
        options.append({"option": name, "choice": choice,
                        "basis": [b.as_plan() for b in basis] if basis else [],
                        "declared": {str(k): str(v) for k, v in (decl.get("choices") or {}).items()},
                        "readings": {stem: r.options.get(name, (None, ""))[0] for stem, r in others.items()},
                        "acts": [{"id": e.id, "footnote": e.footnote, "text": e.text, "start": e.start}
                                 for e in plan.events if any(o.split("=", 1)[0] == name for o in e.options)]})
    results = evaluate_all(plan, cat)
    return {"reading": {"name": reading.name, "name_en": reading.name_en, "file": reading.file, "stem": me,
                        "summary": reading.summary},
            "sources": {k: v.as_plan() for k, v in reading.bibliography.items()},
            "legend": {str(k): {"label": lab, "colour": col} for k, (lab, col) in EVIDENCE_STYLE.items()},
            "dimensions": dims,
            "dependencies": dependencies(layout, reading, cat, plan, replan, replan_keys),
            "landmarks": landmarks, "options": options,
            "checks": [r.as_json() for r in results],
            "perturb": PERTURB}


# ---------------------------------------------------------------------------
# the page

_CSS = """
body{font-family:'Report CJK','Noto Sans CJK SC',sans-serif;background:#fbf8f0;color:#222;max-width:1180px;
margin:auto;padding:24px;line-height:1.45;font-size:14px}
h1{font-size:26px;margin:0 0 4px}h2{font-size:19px;border-bottom:1px solid #bbb;margin-top:34px}
table{border-collapse:collapse;width:100%;margin:8px 0}td,th{border-bottom:1px solid #ddd;padding:3px 6px;
vertical-align:top;text-align:left}th{background:#efe6d2;font-weight:600}
.k{display:inline-block;padding:0 6px;border-radius:3px;color:#fff;font-size:12px;white-space:nowrap}
.q{color:#333}.loc{color:#777;font-size:12px}.small{font-size:12px;color:#555}.fail{color:#b03a2e;font-weight:600}
.pass{color:#2a7a2a}.na{color:#999}.diff{background:#fff3c4}.fig svg{max-width:100%;height:auto}
.legend span{margin-right:12px}.toc a{margin-right:12px}
.basis{min-width:280px}td:first-child{white-space:nowrap}table.wide{font-size:12px}
@media print{body{max-width:none;padding:0;font-size:11px}.top{display:block}.top .fig svg{height:auto;width:100%}
tr{break-inside:avoid}h2{break-after:avoid}.toc{display:none}}
.top{display:flex;gap:18px}.top .intro{flex:1 1 55%}.top .fig{flex:0 0 40%}.top .fig svg{height:720px;width:auto;max-width:100%}.fig svg text{font-family:'Report CJK',sans-serif}
"""


def _kind(kind: str, legend: dict) -> str:
    if kind not in legend:
        return ""
    return f'<span class="k" style="background:{legend[kind]["colour"]}">{html.escape(kind)}</span>'


def _basis(entries: list[dict]) -> str:
    parts = []
    for b in entries:
        of = f' <span class="loc">({html.escape(b["of"])})</span>' if b.get("of") else ""
        if b.get("chosen") is not None:
            parts.append(f'<b>CHOSEN</b>: {html.escape(b["chosen"])}{of}')
        else:
            parts.append(f'<b>{html.escape(b["source"])}</b> <span class="loc">{html.escape(b.get("at", ""))}</span>: '
                         f'<span class="q">{html.escape(b.get("quote", ""))}</span>{of}')
    return "<br>".join(parts)


def _margin_change(s: dict) -> str:
    """One statement's change: ``f14 其间容弓: pass→<b>fail</b> −0.069`` (the margin's change in m or °)."""
    verdict = "" if s["before"] == s["after"] else \
        f" {html.escape(s['before'])}→<b class='{'fail' if s['after'] == 'fail' else 'pass'}'>{html.escape(s['after'])}</b>"
    dm = f" {s['change']:+.3f}" if s["change"] is not None else ""
    return f"{html.escape(s['id'])} {html.escape(s['words'][:10])}:{verdict}{dm}"


def _v(v: Any) -> str:
    if isinstance(v, list):
        if v and all(x == v[0] for x in v):
            return f"{v[0]} ×{len(v)}"
        return ", ".join(map(str, v))
    return "—" if v is None else str(v)


def paradata_html(d: dict[str, Any], diagrams: dict[str, str] | None = None) -> str:
    """The page: one HTML document, every figure inline (SVG)."""
    e = html.escape
    lg = d["legend"]
    me = d["reading"]["stem"]
    R = ["<div class='top'><div class='intro'>"]
    R.append(f"<h1>鄉射禮 — the paradata of a reading: {e(d['reading']['name'])} ({e(d['reading']['name_en'])})</h1>")
    R.append(f"<p class='small'>{e(d['reading']['file'])} · {e(d['reading']['summary'])}</p>")
    R.append("<p class='legend'>" + "".join(f"<span>{_kind(k, lg)} {e(v['label'])}</span>" for k, v in lg.items())
             + "</p>")
    counts: dict[str, int] = {}
    for lm in d["landmarks"]:
        counts[lm["evidence"]] = counts.get(lm["evidence"], 0) + 1
    R.append("<p>Landmarks by evidence: " + ", ".join(f"{_kind(k, lg)} {n}" for k, n in sorted(counts.items()))
             + f" — of {len(d['landmarks'])}. Choices: {len(d['dimensions'])} dimensions, {len(d['options'])} "
             f"options. Statements of the text checked: {len(d['checks'])}.</p>")
    R.append("<p class='toc'><a href='#sources'>Sources</a><a href='#choices'>Choices</a>"
             "<a href='#downstream'>What each choice changes</a><a href='#options'>Options and the acts on them</a>"
             "<a href='#landmarks'>Landmarks</a><a href='#checks'>Checks</a><a href='#diagrams'>Diagrams</a></p>")
    R.append("<p>This page lists what the reconstruction of this reading rests on. The <b>sources</b> come once, with "
             "the edition and the transcription quoted. Every <b>choice</b> (each dimension, each interpretive option) "
             "shows its basis — the words of the text or of a commentary, or the reason the project CHOSE it where no "
             "text fixes it — and the values the other readings take. For each choice the page also shows what "
             "<b>depends</b> on it, found by changing it and resolving the ground again. Then come every "
             "landmark's basis, the acts that rest on an option, and the text's spatial statements with their "
             "margins.</p></div>")
    if diagrams and "evidence" in diagrams:
        R.append(f"<div class='fig'>{diagrams['evidence']}</div>")
    R.append("</div>")
    R.append("<h2 id='sources'>Sources, with their provenance</h2><table><tr><th>id</th><th>kind</th><th>title</th>"
             "<th>edition</th><th>transcription</th><th>file</th></tr>")
    for k, s in d["sources"].items():
        R.append(f"<tr><td>{e(k)}</td><td>{_kind(s['kind'], lg)}</td><td>{e(s['title'])}</td><td>{e(s['edition'])}</td>"
                 f"<td>{e(s['transcription'])}</td><td class='small'>{e(s['file'])}</td></tr>")
    R.append("</table>")
    stems = sorted(next(iter(d["dimensions"]), {}).get("alternatives", {}))
    R.append("<h2 id='choices'>Every choice, its basis and the other readings' values</h2>"
             "<p class='small'>Highlighted: another reading takes another value.</p>"
             "<table class='wide'><tr><th>dimension</th><th>here</th><th>evidence</th><th>basis</th>"
             + "".join(f"<th>{e(s)}</th>" for s in stems) + "</tr>")
    for dim in d["dimensions"]:
        cells = "".join(f"<td class='{'diff' if dim['alternatives'].get(s) != dim['value'] else ''}'>"
                        f"{e(_v(dim['alternatives'].get(s)))}</td>" for s in stems)
        R.append(f"<tr><td>{e(dim['dimension'])}</td><td>{e(_v(dim['value']))}</td><td>{_kind(dim['evidence'], lg)}</td>"
                 f"<td class='basis'>{_basis(dim['basis'])}</td>{cells}</tr>")
    R.append("</table>")
    R.append(f"<h2 id='downstream'>What each choice changes downstream</h2><p class='small'>Each dimension changed "
             f"(a length, the 尺 or a count by +{(d['perturb'] - 1) * 100:.0f} %, a word to its alternative) and the "
             "reading resolved again: the landmarks that move more than 1 cm, the statements whose margin (or verdict) "
             "changes on the ground (its verdict, if that changes, and the margin's change in metres or degrees), and "
             "the statements that rest on a moved landmark through the people placed by it. Computed, not asserted.</p><table><tr><th>dimension</th><th>change</th><th>landmarks that move</th>"
             "<th>statements whose margin changes</th><th>statements resting on a moved landmark</th></tr>")
    for dep in d["dependencies"]:
        moved = ", ".join(f"{e(k)} {m:.2f} m" for k, m in dep["moved"][:14]) + (
            f" … ({len(dep['moved'])} in all)" if len(dep["moved"]) > 14 else "") or "<span class='na'>none</span>"
        st = "<br>".join(_margin_change(s) for s in dep["statements"]) or "<span class='na'>none</span>"
        if dep.get("replanned"):
            st += "<br><i>planned again:</i><br>" + "<br>".join(_margin_change(s) for s in dep["replanned"])
        via = e(" ".join(dep["via"][:30])) + (f" … ({len(dep['via'])})" if len(dep["via"]) > 30 else "")
        err = f"<br><span class='fail'>{e(dep['error'])}</span>" if dep["error"] else ""
        R.append(f"<tr><td>{e(dep['dimension'])} = {e(_v(dep['value']))} {_kind(dep['evidence'], lg)}</td>"
                 f"<td>{e(dep['change'])}</td><td>{moved}{err}</td><td>{st}</td><td class='small'>{via or '—'}</td></tr>")
    R.append("</table>")
    R.append("<h2 id='options'>The rite script's options, and the acts that rest on them</h2><table><tr><th>option</th>"
             "<th>chosen</th><th>basis</th><th>the alternatives (the rite script)</th><th>the readings</th>"
             "<th>acts resting on it</th></tr>")
    for o in d["options"]:
        alts = "<br>".join(f"<b>{e(k)}</b>{' (chosen)' if k == o['choice'] else ''}: {e(v)}" for k, v in o["declared"].items())
        rd = "<br>".join(f"{e(s)}: {e(_v(c))}" for s, c in o["readings"].items())
        acts = "<br>".join(f"{e(a['id'])} ({a['footnote']}) {e(a['text'][:24])}" for a in o["acts"]) or "—"
        R.append(f"<tr><td>{e(o['option'])}</td><td>{e(o['choice'])}</td><td>{_basis(o['basis']) or '<span class=na>the rite script’s default</span>'}</td>"
                 f"<td class='small'>{alts}</td><td class='small'>{rd}</td><td class='small'>{acts}</td></tr>")
    R.append("</table>")
    R.append("<h2 id='landmarks'>Every landmark: its basis, and where the other readings put it</h2>"
             "<table><tr><th>landmark</th><th>evidence</th><th>placed by</th><th>basis</th><th>elsewhere (m from here)</th></tr>")
    for lm in d["landmarks"]:
        alts = ", ".join(f"{e(s)} {a['from_here_m']:.2f}" if a else f"{e(s)} —" for s, a in lm["alternatives"].items()
                         if s != me and (a is None or a["from_here_m"] > MOVE_M))
        R.append(f"<tr><td>{e(lm['id'])}<br><span class='small'>{e(lm['label_en'])}</span></td>"
                 f"<td>{_kind(lm['evidence'], lg)}</td><td class='small'>{e(lm['placed_by'])}</td>"
                 f"<td class='basis'>{_basis(lm['basis'])}</td><td class='small'>{alts or 'the same in all'}</td></tr>")
    R.append("</table>")
    R.append("<h2 id='checks'>The text's statements, checked, with their margins</h2><table><tr><th>id</th><th>words</th>"
             "<th>relation</th><th>status</th><th>margin</th><th>measured / wanted</th></tr>")
    for c in d["checks"]:
        cls = {"pass": "pass", "fail": "fail"}.get(c["status"], "na")
        margin = "" if c["margin"] is None else f"{c['margin']:+.2f}"
        R.append(f"<tr><td>{e(c['id'])}{'*' if c['required'] else ''}</td><td>{e(c['quote'] or c['text'] or '')}</td>"
                 f"<td>{e(c['subject'])} {e(c['relation'])} {e(c['ref'] or '')}</td><td class='{cls}'>{e(c['status'])}</td>"
                 f"<td>{margin}</td><td class='small'>{e(c['message'])}</td></tr>")
    R.append("</table>")
    if diagrams:
        R.append("<h2 id='diagrams'>Diagrams</h2>")
        for name, svg in diagrams.items():
            R.append(f"<h3>{e(name)}</h3><div class='fig'>{svg}</div>")
    body = "\n".join(R)
    font = base64.b64encode(font_subset_woff(body)).decode("ascii")
    face = f"@font-face{{font-family:'Report CJK';src:url(data:font/woff;base64,{font}) format('woff')}}"
    return ("<!doctype html><html lang='zh'><meta charset='utf-8'><title>鄉射禮 — paradata: "
            f"{e(d['reading']['name'])}</title><style>{face}{_CSS}</style><body>" + body + "</body></html>\n")


def write_report(layout: str | Path, plan: Plan, out: str | Path, *, other: Plan | None = None,
                 option_decl: dict[str, Any] | None = None, replan: Callable[[Reading], Plan] | None = None,
                 replan_keys: tuple[str, ...] = ()) -> dict[str, Any]:
    """Compute the report and write the page (atomically); ``other``: a plan of another reading for the overlay."""
    from ..render.diagram import diagram, evidence_map, overlay

    d = paradata(layout, plan, option_decl=option_decl, replan=replan, replan_keys=replan_keys)
    name = d["reading"]["name"]
    diagrams = {"evidence": evidence_map(plan, f"{name}: every landmark in the colour of its evidence").svg(inline=True)}
    if plan.events:
        last = max(plan.events, key=lambda ev: ev.end)
        diagrams[f"the ground and everyone at the end ({last.id})"] = diagram(
            plan, last.end, None, title=f"{name} — {last.id}").svg(inline=True)
    if other is not None:
        diagrams[f"{name} (blue) and {other.layout.name} (red)"] = overlay(plan, other, name, other.layout.name).svg(inline=True)
    with atomic_path(out) as tmp:
        tmp.write_text(paradata_html(d, diagrams), encoding="utf-8")
    return d
