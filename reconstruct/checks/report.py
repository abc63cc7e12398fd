"""Testing a reading against the text: ``check``, ``compare`` and ``diagram``.

``render.py check [LAYOUT]`` plans the reading (``reconstruct.planner.make_plan``), evaluates every
statement of ``assets/statements.yaml`` at its event and prints a table; it exits 1 if a statement
the reading claims (``required``) fails, so a reading can be tested in CI.  ``--plan FILE`` checks
a plan already written (``render.py plan --json``) instead of planning.

``render.py compare A B`` lists what moves between two readings — landmarks (with distances),
each person's path length and time on the move, and the statements that pass in one and fail in
the other — and draws both grounds overlaid.

``render.py diagram [LAYOUT] --at EVENT|FOOTNOTE`` draws the ground at one moment in the manner of
the 仪礼图 (SVG and PNG); ``--all`` draws one per paragraph of the passage and an HTML booklet.
"""
from __future__ import annotations

import html
import math
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import InputError
from ..outputs import atomic_path, safe_name  # noqa: F401 (safe_name: re-exported)
from ..checks.statements import Result, evaluate_all, load_catalogue
from ..model.plan import Event, Plan

OUT = Path("out")


# ---------------------------------------------------------------------------
# check

def _w(s: str) -> int:
    import unicodedata

    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in s)


def _pad(s: str, n: int) -> str:
    if _w(s) > n:
        out = ""
        for ch in s:
            if _w(out + ch + "…") > n:
                break
            out += ch
        s = out + "…"
    return s + " " * (n - _w(s))


def check_table(results: list[Result], plan: Plan) -> str:
    name = plan.layout.name or "?"
    rows = [f"check: {name} ({plan.layout.file})", "",
            f"{'id':<5} {'':1} {'quote':<22} {'relation':<10} {'status':<5} {'margin':>8}  measured / wanted", "-" * 110]
    for r in results:
        s = r.statement
        mark = "*" if s.required else " "
        margin = "" if r.margin is None else (f"{r.margin:+.2f}" + ("°" if s.relation == "facing" else ""))
        status = {"pass": "ok", "fail": "FAIL", "n/a": "n/a"}[r.status]
        line = f"{s.id:<5} {mark} {_pad(s.words, 22)} {s.relation:<10} {status:<5} {margin:>8}  {r.message}"
        if r.status != "pass" and r.wanted:
            line += f"; wants {r.wanted}"
        rows.append(line)
    n_req = sum(r.statement.required for r in results)
    bad = [r for r in results if r.failed_required]
    rows += ["", f"{len(results)} statements, {n_req} claimed by the reading (*): "
                 f"{sum(r.ok for r in results)} pass, {sum(r.status == 'fail' for r in results)} fail, "
                 f"{sum(r.status == 'n/a' for r in results)} not evaluable",
             f"claimed and not met: {len(bad)}" + (" — " + ", ".join(r.statement.id for r in bad) if bad else "")]
    return "\n".join(rows)


def run_check(plan: Plan, catalogue_path: str | Path | None = None) -> list[Result]:
    cat = load_catalogue(catalogue_path) if catalogue_path else load_catalogue()
    return evaluate_all(plan, cat)


# ---------------------------------------------------------------------------
# compare

def path_stats(plan: Plan) -> dict[str, tuple[float, float]]:
    """Per person: (path length in metres, seconds on the move)."""
    out = {}
    for ident, actor in plan.actors.items():
        k = actor.track.keys
        d = np.hypot(np.diff(k["x"]), np.diff(k["y"]))
        on = d > 1e-6
        out[ident] = (float(d[on].sum()), float(np.diff(k["t"])[on].sum()))
    return out


def compare(plan_a: Plan, plan_b: Plan, cat=None) -> dict[str, Any]:
    La, Lb = plan_a.landmarks, plan_b.landmarks
    moves = []
    for k in La:
        if k in Lb:
            pa, pb = list(La[k].position), list(Lb[k].position)
            d = math.dist(pa, pb)
            if d > 0.005:
                moves.append({"landmark": k, "a": pa, "b": pb, "distance_m": round(d, 3),
                              "dx": round(pb[0] - pa[0], 3), "dy": round(pb[1] - pa[1], 3)})
    moves.sort(key=lambda m: -m["distance_m"])
    only_a = sorted(set(La) - set(Lb))
    only_b = sorted(set(Lb) - set(La))
    sa, sb = path_stats(plan_a), path_stats(plan_b)
    people = [{"actor": k, "a_m": round(sa[k][0], 2), "b_m": round(sb.get(k, (0, 0))[0], 2),
               "a_s": round(sa[k][1], 1), "b_s": round(sb.get(k, (0, 0))[1], 1)} for k in sa]
    cat = cat if cat is not None else load_catalogue()
    ra = {r.statement.id: r for r in evaluate_all(plan_a, cat)}
    rb = {r.statement.id: r for r in evaluate_all(plan_b, cat)}
    diff = [{"id": i, "quote": ra[i].statement.words, "a": ra[i].status, "b": rb[i].status,
             "a_msg": ra[i].message, "b_msg": rb[i].message}
            for i in ra if ra[i].status != rb[i].status]
    return {"a": plan_a.layout.to_dict(), "b": plan_b.layout.to_dict(), "landmarks_moved": moves,
            "only_in_a": only_a, "only_in_b": only_b, "people": people, "statements": diff,
            "duration": [plan_a.duration, plan_b.duration]}


def compare_table(c: dict[str, Any]) -> str:
    na, nb = c["a"].get("name", "A"), c["b"].get("name", "B")
    rows = [f"compare: A = {na} ({c['a'].get('file')})", f"         B = {nb} ({c['b'].get('file')})", "",
            "landmarks that move (B − A):", f"  {'landmark':<10} {'dx':>8} {'dy':>8} {'distance':>9}"]
    for m in c["landmarks_moved"]:
        rows.append(f"  {_pad(m['landmark'], 10)} {m['dx']:8.2f} {m['dy']:8.2f} {m['distance_m']:8.2f} m")
    if not c["landmarks_moved"]:
        rows.append("  (none)")
    if c["only_in_a"]:
        rows.append("  only in A: " + " ".join(c["only_in_a"]))
    if c["only_in_b"]:
        rows.append("  only in B: " + " ".join(c["only_in_b"]))
    rows += ["", "people: path length and time on the move",
             f"  {'person':<10} {'A m':>8} {'B m':>8} {'Δ m':>7} {'A s':>7} {'B s':>7}"]
    for p in c["people"]:
        if abs(p["a_m"] - p["b_m"]) < 0.01 and abs(p["a_s"] - p["b_s"]) < 0.05:
            continue
        rows.append(f"  {_pad(p['actor'], 10)} {p['a_m']:8.1f} {p['b_m']:8.1f} {p['b_m'] - p['a_m']:+7.1f} "
                    f"{p['a_s']:7.1f} {p['b_s']:7.1f}")
    da, db = c["duration"]
    if da is not None and db is not None:
        rows.append(f"  whole passage: {da:.0f} s / {db:.0f} s")
    rows += ["", "statements that pass in one and not the other:"]
    for s in c["statements"]:
        rows.append(f"  {s['id']:<5} {_pad(s['quote'], 24)} A {s['a']:<4} B {s['b']:<4}  A: {s['a_msg']} | B: {s['b_msg']}")
    if not c["statements"]:
        rows.append("  (none)")
    return "\n".join(rows)


# ---------------------------------------------------------------------------
# diagrams

def _paragraphs(text: str) -> list[tuple[int, int]]:
    out, start = [], 0
    for part in text.split("\n\n"):
        end = start + len(part)
        if part.strip():
            out.append((start, end))
        start = end + 2
    return out


def pick_event(plan: Plan, at: str) -> Event:
    evs = plan.events
    for e in evs:
        if e.id == at:
            return e
    if at.strip("()（）").isdigit():
        fn = int(at.strip("()（）"))
        hits = [e for e in evs if e.footnote == fn]
        if hits:
            return max(hits, key=lambda e: e.end)
    hits = [e for e in evs if at in e.text]
    if hits:
        return hits[0]
    raise InputError("--at", at, "no event with this id, footnote number or text")


def _caption(e: Event) -> str:
    from ..text.seed import display

    return (f"({e.footnote}) " if e.footnote is not None else "") + display(e.text)


def diagram_at(plan: Plan, at: str, outdir: Path, stem: str, since_previous: bool = False) -> Path:
    """The diagram at the end of one event (an id, a footnote number or a piece of its text), its path
    drawn since the event's start (or the previous event's end); returns the SVG written (PNG beside)."""
    from ..render.diagram import diagram

    e = pick_event(plan, at)
    prev = [x for x in plan.events if x.end < e.start]
    since = max((x.end for x in prev), default=None) if since_previous else e.start
    c = diagram(plan, e.end, since, title=f"{plan.layout.name} — {e.id}", caption=_caption(e),
                highlight=set(e.actors))
    svg = Path(outdir) / f"{stem}_{safe_name(e.id)}.svg"
    c.save(svg, svg.with_suffix(".png"))
    return svg




def diagram_booklet(plan: Plan, outdir: Path, stem: str) -> list[dict[str, Any]]:
    """One diagram per paragraph of the passage (the state after its last event), and an HTML booklet."""
    from ..render.diagram import diagram
    from ..text.seed import display, load

    text = load()
    pages = []
    since = 0.0
    for i, (a, b) in enumerate(_paragraphs(text), 1):
        evs = [e for e in plan.events if a <= e.span[0] < b]
        if not evs:
            pages.append({"n": i, "text": display(text[a:b]), "file": None, "events": []})
            continue
        t = max(e.end for e in evs)
        who = set().union(*(set(e.actors) for e in evs))
        fns = sorted({e.footnote for e in evs if e.footnote})
        c = diagram(plan, t, since, title=f"{plan.layout.name} — ¶{i} "
                                          f"({', '.join(map(str, fns))}) t = {t:.0f} s",
                    caption="paths since the previous diagram; red: those who act in this paragraph",
                    highlight=who)
        svg = outdir / f"{stem}_p{i:02d}.svg"
        c.save(svg, svg.with_suffix(".png"))
        pages.append({"n": i, "text": display(text[a:b]), "file": svg.with_suffix(".png").name,
                      "events": [e.id for e in evs]})
        since = t
    body = []
    for p in pages:
        img = f'<img src="{p["file"]}" alt="paragraph {p["n"]}">' if p["file"] else "<p><i>(not yet performed by the rite script)</i></p>"
        body.append(f'<section><div class="fig">{img}</div><div class="txt"><h2>¶{p["n"]}</h2>'
                    f'<p>{html.escape(p["text"])}</p><p class="ev">{" ".join(p["events"])}</p></div></section>')
    doc = ("<!doctype html><meta charset='utf-8'><title>鄉射禮 — 禮節圖</title>"
           "<style>body{font-family:'Noto Sans CJK SC',sans-serif;background:#fbf8f0;max-width:1500px;margin:auto}"
           "section{display:flex;gap:24px;border-bottom:1px solid #ccc;padding:16px}"
           ".fig img{width:620px}.txt{font-size:18px;line-height:1.8}.ev{font-size:11px;color:#888}</style>"
           f"<h1>{html.escape(plan.layout.name)}: 鄉射禮 (80–129), one diagram per paragraph</h1>"
           + "\n".join(body))
    with atomic_path(outdir / f"{stem}.html") as tmp:
        tmp.write_text(doc, encoding="utf-8")
    return pages


