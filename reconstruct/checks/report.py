"""Testing a reading against the text: ``check``, ``compare`` and ``diagram``.

``render.py check [LAYOUT]`` plans the reading (``reconstruct.planner.make_plan``), evaluates every
statement of ``assets/statements.yaml`` at its event and prints a table; it exits 1 if a statement
the reading claims (``required``) fails, so a reading can be tested in CI.  ``--plan FILE`` checks
a plan already written (``render.py plan --json``) instead of planning.

``render.py compare A B`` lists what moves between two readings — landmarks (with distances),
each person's path length and time on the move, and the statements that pass in one and fail in
the other — and draws both grounds overlaid.

``render.py diagram [LAYOUT] --at EVENT|FOOTNOTE`` draws the ground at one moment in the manner of
the 仪礼图 (SVG and PNG); ``--all`` draws one per paragraph of the passage and an HTML booklet, or (``--by step``,
the default for ``--part first|whole``) one per step of the 義疏's 禮節圖 (``assets/lijietu.yaml``): titled
「右…圖」, beside the note's key sentences, its locator, the step's text and the placements the note states
measured on the plan (:mod:`.lijietu`).
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
             "a_msg": ra[i].message, "b_msg": rb[i].message, "footnote": ra[i].statement.fn,
             "event": ra[i].event or rb[i].event, "a_time": ra[i].time, "b_time": rb[i].time}
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
    from ..render.diagram import diagram, shared_font
    from ..text.seed import display, load

    text = load()
    pages = []
    drawings = []
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
        drawings.append((c, svg))
        pages.append({"n": i, "text": display(text[a:b]), "file": svg.with_suffix(".png").name,
                      "events": [e.id for e in evs]})
        since = t
    woff = shared_font([c for c, _ in drawings])
    for c, svg in drawings:
        c.save(svg, svg.with_suffix(".png"), woff=woff)
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




def _texts(names: set[str]) -> dict[str, str]:
    """The texts of the package the events cite (``Event.text_file``), by name."""
    from ..inputs import read_text
    from ..resources import data_path

    return {n: read_text(data_path(n), n, what="text") for n in names}


def lijietu_booklet(plan: Plan, part: str, outdir: Path, stem: str) -> dict[str, Any]:
    """One diagram per step of the 義疏's 禮節圖 that ``part`` performs (``assets/lijietu.yaml``): the state at
    the end of the step's ``at`` event, the paths since its ``from`` event, those who act in it in red, titled
    「右…圖」; and an HTML booklet (``stem``.html) with, beside each, the note's key sentences and locator, what
    differs in the 鄉射 from a 鄉飲酒 diagram, the placements the note states measured on the plan, and the
    step's text.  Returns the pages and the measures."""
    from ..render.diagram import diagram, shared_font
    from ..text.seed import display
    from . import lijietu

    lj = lijietu.load()
    drawn = lijietu.resolve(lj, plan, part)
    results = lijietu.measure(lj, plan, part)
    texts = _texts({d.text_file for d in drawn})
    pages = []
    drawings = []
    for i, d in enumerate(drawn, 1):
        st = d.step
        c = diagram(plan, d.t, d.since,
                    title=f"右{st.title}　({st.chapter}; {plan.layout.name}, t = {d.t:.0f} s)",
                    caption=f"{lj.locator(st)}. At the end of {d.at.id}; paths since {d.since:.0f} s "
                            f"(the step begins at {d.start.id}); red: those who act in this step",
                    highlight=d.actors)
        svg = outdir / f"{stem}_{i:02d}.svg"
        drawings.append((c, svg))
        text = texts[d.text_file]
        a, b = d.span
        cut = max((e.span[1] for e in d.events if e.end <= d.t + 1e-6), default=a)
        cut = min(max(cut, a), b)
        pages.append({"n": i, "step": st, "file": svg.with_suffix(".png").name, "drawn": d,
                      "text": display(text[a:cut]), "after": display(text[cut:b]), "results": results[st.title]})
    woff = shared_font([c for c, _ in drawings])
    for c, svg in drawings:
        c.save(svg, svg.with_suffix(".png"), woff=woff)
    # the text before the first step of each part (戒賓): no 禮節圖
    lead = []
    for name in sorted({d.text_file for d in drawn}):
        first = min((d for d in drawn if d.text_file == name), key=lambda d: d.span[0])
        if first.span[0] > 0:
            lead.append((name, display(texts[name][:first.span[0]])))
    _write_lijietu_html(plan, part, lj, pages, lead, outdir / f"{stem}.html")
    return {"pages": pages, "results": [r for p in pages for r in p["results"]]}


def lijietu_summary(results: list[Result]) -> str:
    """One line: how many placements the notes state agree with the plan, and those that differ."""
    differ = [r for r in results if r.status == "fail"]
    na = [r for r in results if r.status == "n/a"]
    line = (f"{len(results)} placements the 義疏's notes state, measured: {sum(r.ok for r in results)} as stated, "
            f"{len(differ)} differ" + (f", {len(na)} not measurable" if na else ""))
    return line + "".join(f"\n  {r.statement.id} {r.statement.note}: {r.message}; wants {r.wanted}" for r in differ)


def _write_lijietu_html(plan: Plan, part: str, lj, pages: list[dict], lead: list, path: Path) -> None:
    esc = html.escape
    body = []
    for name, text in lead:
        body.append(f'<section class="lead"><div class="fig"><p><i>no 禮節圖 of the 義疏 for this text</i></p></div>'
                    f'<div class="txt"><p class="jing">{esc(text)}</p><p class="ev">{esc(name)}</p></div></section>')
    for p in pages:
        st, d = p["step"], p["drawn"]
        copy = (f'<p class="loc">our copy\'s title line reads 「右{esc(st.title_in_copy)}」: the title lines of two '
                f'diagrams are exchanged there; the note and the order of the rite give this one</p>'
                if st.title_in_copy else "")
        quotes = "".join(f"<blockquote>{esc(q)}</blockquote>" for q in st.quotes)
        xs = f'<p class="xs">In the 鄉射: {esc(st.in_xiangshe)}</p>' if st.in_xiangshe else ""
        rows = []
        for r in p["results"]:
            s = r.statement
            word = {"pass": "as stated", "fail": "DIFFERS", "n/a": "not measurable"}[r.status]
            margin = "" if r.margin is None else f"{r.margin:+.2f}"
            rows.append(f'<tr class="{r.status}"><td>{esc(s.id)}</td><td>{esc(s.note)}<br><span class="q">'
                        f'{esc(s.quote or s.text or "")}</span> ({esc(s.source)})</td><td>{word}</td>'
                        f'<td>{esc(r.message)}<br><span class="q">wants {esc(r.wanted)}; margin {margin}</span></td></tr>')
        table = (f'<table><tr><th></th><th>the note states</th><th></th><th>measured on the plan</th></tr>'
                 f'{"".join(rows)}</table>') if rows else ""
        after = (f'<span class="after">{esc(p["after"])}</span>') if p["after"] else ""
        body.append(
            f'<section id="s{p["n"]:02d}"><div class="fig"><img src="{esc(p["file"])}" alt="右{esc(st.title)}"></div>'
            f'<div class="txt"><h2>{p["n"]}. 右{esc(st.title)}</h2>'
            f'<p class="loc">{esc(lj.locator(st))} — the {esc(st.chapter)}\'s diagram</p>{copy}{quotes}{xs}{table}'
            f'<p class="jing">{esc(p["text"])}{after}</p>'
            f'<p class="ev">{esc(d.text_file)} [{d.span[0]}, {d.span[1]}); drawn at the end of {esc(d.at.id)} '
            f'(t = {d.t:.0f} s); the step begins at {esc(d.start.id)} ({d.start.start:.0f} s); paths since '
            f'{d.since:.0f} s</p></div></section>')
    unused = "".join(f"<li>右{esc(u['title'])} ({esc(u['page'])}): {esc(u['why'])}</li>" for u in lj.not_used)
    results = [r for p in pages for r in p["results"]]
    summary = esc(lijietu_summary(results).split("\n")[0])
    title = {"first": "the first half (戒賓 … (80))", "passage": "the passage ((80) … 記)",
             "whole": "the whole chapter"}[part]
    doc = ("<!doctype html><meta charset='utf-8'><title>鄉射禮 — 禮節圖</title>"
           "<style>body{font-family:'Noto Sans CJK SC',sans-serif;background:#fbf8f0;max-width:1600px;margin:auto}"
           "section{display:flex;gap:24px;border-bottom:1px solid #ccc;padding:16px}"
           ".fig img{width:640px}.fig{flex:0 0 640px}.txt{font-size:16px;line-height:1.7}"
           "blockquote{margin:6px 0 6px 12px;padding-left:10px;border-left:3px solid #b03a2e;font-size:17px}"
           ".jing{font-size:18px}.after{color:#999}.loc,.ev{font-size:12px;color:#777}.xs{font-size:14px;color:#1f5fa8}"
           "table{border-collapse:collapse;font-size:13px}td,th{border:1px solid #ddd;padding:3px 6px;vertical-align:top}"
           "tr.fail td{background:#f6e0dc}.q{color:#777;font-size:12px}</style>"
           f"<h1>{esc(plan.layout.name)}: 鄉射禮, {title}, by the 禮節圖 of the 欽定儀禮義疏</h1>"
           f"<p>One diagram per 禮節圖 the 義疏 draws for these steps (assets/lijietu.yaml): the state at the end of "
           f"the step, the paths since its start, those who act in it in red. The 義疏's 鄉射 diagrams begin at "
           f"請射: 射必先飲，飲禮立司正以上與鄉飲酒畧同，諸禮節已見于彼經 — the drinking is drawn by the 鄉飲酒's. "
           f"Grey text after a step's clauses is performed after the moment drawn, with no diagram of its own.</p>"
           f"<p><b>{summary}</b> (red rows).</p>"
           + "\n".join(body) + (f"<h2>The 鄉飲酒's diagrams with no step here</h2><ul>{unused}</ul>" if unused else ""))
    with atomic_path(path) as tmp:
        tmp.write_text(doc, encoding="utf-8")
