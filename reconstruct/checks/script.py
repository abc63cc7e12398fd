"""``render.py script --check [--json]``: validate the rite script against the text and report coverage.

Coverage is the share of the seed's non-punctuation characters (footnote markers excluded)
that lie inside some event's span.  The report also lists the clauses not covered and the
place names that are not landmarks, people, props or formations (with the landmark list of a
reading, when one is given).  Exit status: 0 = valid and fully covered, 1 = valid but
coverage < 100 % or unresolved names, 2 = the script is invalid (one line: file:line: what).
"""
from __future__ import annotations


from ..text import seed as seedtext
from ..text.names import NameIndex
from ..text.placement import PlaceError, parse_place
from ..rite.loader import FIRST_SCRIPT, Rite, load_rite_with_report


LONG_CLAUSE = 200      # characters: longer than any clause of the punctuated passage


def coverage(rite: Rite, seed: str | None = None, events=None) -> dict:
    """Coverage of the seed by event spans: share, covered/total counts, uncovered clauses."""
    seed = seedtext.load() if seed is None else seed
    mask = seedtext.content_mask(seed)
    covered = [False] * len(seed)
    for e in (rite.events if events is None else events):
        for i in range(*e.span):
            covered[i] = True
    total = sum(mask)
    hit = sum(1 for m, c in zip(mask, covered) if m and c)
    unc = []
    for c in seedtext.clauses(seed):
        missing = [i for i in range(*c.span) if not covered[i]]
        if missing and len(c.text) > LONG_CLAUSE:
            # a text without punctuation (the first half, as the source writes it) is one clause: each
            # stretch not covered is reported on its own
            runs: list[list[int]] = []
            for i in missing:
                if runs and runs[-1][1] == i:
                    runs[-1][1] = i + 1
                else:
                    runs.append([i, i + 1])
            unc += [{"text": seed[a:b], "span": [a, b], "footnote": c.footnote, "missing": seed[a:b]} for a, b in runs]
        elif missing:
            unc.append({"text": c.text, "span": list(c.span), "footnote": c.footnote,
                        "missing": "".join(seed[i] for i in missing)})
    return {"covered": hit, "total": total, "share": hit / total if total else 1.0, "uncovered": unc}


def unresolved_names(rite: Rite, landmarks: list[str], reading_landmarks: list[str] | None = None) -> list[dict]:
    """Places whose base is not a known landmark/person/prop/formation (of the reading, if given)."""
    idx = NameIndex()
    for n in (*(reading_landmarks if reading_landmarks is not None else landmarks), *rite.formations):
        idx.add(n)
    for p in rite.people:
        idx.add(p.id, p.aliases)
    for p in rite.props:
        idx.add(p.id)
    out, seen = [], set()
    places = [(e.id, s) for e in rite.events for a in rite_actions(e) for s in ([a.place] if a.place else []) + a.via]
    places += [(f"initial:{k}", v.at) for k, v in rite.initial.items()]
    for where, s in places:
        if s in seen:
            continue
        seen.add(s)
        try:
            parse_place(s, idx)
        except PlaceError as e:
            out.append({"place": s, "first_use": where, "why": str(e)})
    return out


def caption_only(rite: Rite) -> list[dict]:
    """Clauses whose act is only a caption: a ``perform`` stand-in for what the hands do, or nothing done
    at all (rules, and clauses that sum up what the events before them did, aside)."""
    out = []
    for e in rite.events:
        if e.rule or e.summary:
            continue
        stand_ins = [a.text or "" for a in e.actions if a.verb == "perform"]
        if stand_ins or not e.actions:
            out.append({"event": e.id, "text": e.text, "why": ("perform " + ", ".join(stand_ins)) if stand_ins
                        else "no act"})
    return out


def rite_actions(e):
    return e.actions


def _reading_landmarks(path: str | None) -> list[str] | None:
    """The names a reading resolves (landmark ids and aliases, formations, stairs), or None."""
    if not path:
        return None
    try:
        from ..layout.reading import load_reading   # written by another engineer
        r = load_reading(path)
    except Exception:  # noqa: BLE001 - a reading we cannot load is reported as "no reading"
        return None
    names = list(r.landmarks) + list(r.formations) + list(r.stairs)
    for lm in r.landmarks.values():
        names.extend(getattr(lm, "aliases", ()) or ())
    return names


def check(script: str | None = None, *, zhongbin: int | None = None, dafu: int | None = None, options: dict | None = None,
          layout: str | None = None, part: str = "passage") -> dict:
    """The report on one part of the chapter: ``passage`` (``script``, the shipped one by default), ``first``
    (the first half's script) or ``whole`` (both: the coverage of each text, ``parts``, and of the two together)."""
    kw = dict(zhongbin=zhongbin, dafu=dafu, options=options, layout=layout)
    if part == "passage":
        return _check_one(script, **kw)
    if part == "first":
        return _check_one(FIRST_SCRIPT, **kw)
    first, passage = _check_one(FIRST_SCRIPT, **kw), _check_one(script, **kw)
    rep = dict(passage)
    rep["parts"] = {"first": first, "passage": passage}
    for k in ("events", "rule_events", "covered_chars", "content_chars"):
        rep[k] = first[k] + passage[k]
    rep["coverage"] = round(rep["covered_chars"] / rep["content_chars"], 6) if rep["content_chars"] else 1.0
    for k in ("uncovered", "unresolved", "caption_only"):
        rep[k] = [{**x, "script": first["script"]} for x in first[k]] + passage[k]
    return rep


def _check_one(script, *, zhongbin, dafu, options, layout) -> dict:
    rite, rep = load_rite_with_report(script, zhongbin=zhongbin, dafu=dafu, options=options)
    cov = coverage(rite, rep["seed"])
    lms = _reading_landmarks(layout)
    unres = unresolved_names(rite, rep["landmarks"], lms)
    passage = rite.text_file == "assets/text/xiangshe_li_part2.txt"
    return {
        "script": rep["file"], "text": rite.text_file, "text_sha256": rite.text_sha256,
        "text_matches_shared_seed": (not passage or not seedtext.SHARED_SEED.exists())
        or seedtext.sha256(seedtext.SHARED_SEED) == rite.text_sha256,
        "parameters": rite.parameters, "options": rite.options,
        "events": len(rite.events), "rule_events": sum(e.rule for e in rite.events),
        "people": len(rite.people), "props": len(rite.props),
        "coverage": round(cov["share"], 6), "covered_chars": cov["covered"], "content_chars": cov["total"],
        "uncovered": cov["uncovered"], "unresolved": unres, "caption_only": caption_only(rite),
        "reading": layout if lms is not None else None,
    }


def report_lines(rep: dict) -> list[str]:
    """The report of :func:`check` for the terminal."""
    if "parts" in rep:
        out = []
        for name, r in rep["parts"].items():
            out += [f"[{name}]"] + report_lines(r)
        out.append(f"whole chapter: {rep['events']} events; coverage {rep['coverage'] * 100:.2f}% "
                   f"({rep['covered_chars']}/{rep['content_chars']} characters); clauses whose act is only a "
                   f"caption: {len(rep['caption_only'])}")
        return out
    out = [f"{rep['script']}: {rep['events']} events ({rep['rule_events']} rules), {rep['people']} people, "
           f"{rep['props']} props; options {rep['options']}",
           f"coverage {rep['coverage'] * 100:.2f}% ({rep['covered_chars']}/{rep['content_chars']} characters)"]
    for u in rep["uncovered"]:
        out.append(f"  uncovered {'(' + str(u['footnote']) + ') ' if u['footnote'] is not None else ''}[{u['span'][0]}:{u['span'][1]}] {seedtext.display(u['text'])}"
                   + (f"  — missing {seedtext.display(u['missing'])}" if u["missing"] != u["text"] else ""))
    for u in rep["unresolved"]:
        out.append(f"  unresolved place {u['place']} (first used by {u['first_use']}): {u['why']}")
    out.append(f"clauses whose act is only a caption: {len(rep['caption_only'])}")
    for c in rep["caption_only"]:
        out.append(f"  {c['event']} {seedtext.display(c['text'])}: {c['why']}")
    if not rep["text_matches_shared_seed"]:
        out.append("  the shipped text differs from shared/seed")
    return out
