"""Captions in step with the act (render/clauses.py), cards in one script, every glyph drawn present in
the font, at most six name tags kept from frame to frame (render/captions.py, render/fonts.py, render/labels.py)."""
from reconstruct.render import captions as C
from reconstruct.render.clauses import MIN_CLAUSE_S, PAGE_CHARS, ClauseTimeline, gloss_pages, split_clauses, split_gloss
from reconstruct.render.fonts import missing_glyphs
from reconstruct.render.labels import MAX_TAGS, TagChoice, short_name


def test_clauses_are_split_at_their_marks_and_keep_quotes_whole():
    assert split_clauses("降复位，坐，兼敛算") == ["降复位，", "坐，", "兼敛算"]
    assert split_clauses("命曰：“胜者皆袒，执张弓。”") == ["命曰：", "“胜者皆袒，执张弓。”"]
    assert split_gloss("He comes down, bares his arm; and waits.") == ["He comes down,", "bares his arm;", "and waits."]


def test_a_long_event_shows_each_clause_while_it_is_performed(plan):
    tl = ClauseTimeline(plan)
    long = [e for e in plan.events if e.end - e.start > 12 and len(split_clauses(e.text)) > 1]
    assert long
    split = 0
    for e in long:
        cl = tl.clauses(e)
        assert cl[0].t0 == e.start and cl[-1].t1 == e.end
        assert all(a.t1 == b.t0 for a, b in zip(cl, cl[1:]))                  # contiguous
        assert "".join(c.zh for c in cl) == e.text                             # nothing lost
        if len(cl) > 1:
            split += 1
            assert min(c.t1 - c.t0 for c in cl) >= MIN_CLAUSE_S - 1e-9
    assert split >= len(long) // 2
    # 降，袒执弓，反位: the clause about the bow is not on screen before he comes down
    e = next(e for e in long if e.text.startswith("降，袒执弓"))
    assert tl.at(e, e.start + 0.5).zh == "降，"


def test_a_long_gloss_of_one_clause_is_paged_while_its_acts_are_done():
    """The first half's events are one clause each (its text has no punctuation); a gloss too long to read at once
    (the longest, e.g. the musicians' entry, f6.ru) shrank to an unreadable size shown whole: it is shown in pages cut
    at its semicolons (then its commas), each no longer than PAGE_CHARS (two lines at the caption size), one after the other while
    the event lasts.  (The page our copy lacks, once glossed in one event of 775 characters, is now performed step by
    step by 獻大夫, each step with its own gloss.)"""
    from conftest import planned
    first = planned(part="first")
    ev = max((e for e in first.events if e.end - e.start > 10.0), key=lambda e: len(e.gloss))
    assert len(ev.gloss) > PAGE_CHARS
    cl = ClauseTimeline(first).clauses(ev)
    assert len(cl) >= 2
    assert all(c.zh == ev.text and len(c.en) <= PAGE_CHARS for c in cl)
    assert " ".join(c.en for c in cl) == ev.gloss                             # nothing lost, in order
    assert cl[0].t0 == ev.start and cl[-1].t1 == ev.end and all(a.t1 == b.t0 for a, b in zip(cl, cl[1:]))
    assert min(c.t1 - c.t0 for c in cl) >= MIN_CLAUSE_S
    # a step on the page our copy lacks (獻大夫, citing 主人降) shows the 注疏's words it performs
    xian = next(e for e in first.events if e.id == "f5.xian.xian")
    assert [c.zh for c in ClauseTimeline(first).clauses(xian)] == ["主人降〔注疏：主人實爵席前獻于大夫〕"]
    assert not missing_glyphs("".join(c.zh for e in first.events if e.procedure and "lacuna" in e.procedure
                                      for c in ClauseTimeline(first).clauses(e)))
    assert gloss_pages("short; gloss") == ["short; gloss"] and gloss_pages("") == []
    assert gloss_pages("a" * 200 + "; " + "b" * 200) == ["a" * 200 + ";", "b" * 200]
    # a part with no semicolon, too long for a page (the 賓's 祭 of f4, since 相工 made f6.ru short): cut at commas
    commas = ", ".join(["he kneels and takes the cup"] * 20)
    assert all(len(q) <= PAGE_CHARS for q in gloss_pages(commas)) and " ".join(gloss_pages(commas)) == commas
    words = " ".join(["word"] * 100)
    assert [len(q) for q in gloss_pages(words, 100)] == [99] * 5 and " ".join(gloss_pages(words, 100)) == words


def test_every_string_drawn_has_its_glyphs(plan):
    texts = [C.display_text(e.text) for e in plan.events] + [e.gloss for e in plan.events]
    tl = ClauseTimeline(plan)
    texts += [c.zh + c.en for e in plan.events for c in tl.clauses(e)]
    texts += [short_name(aid, a.label) for aid, a in plan.actors.items()]
    texts += C.card_texts(plan) + C.card_texts(plan, 2400.0, 2500.0) + [C.video_title(plan)]
    texts += ["» 8×", "» 4×", "注 104", "侯", "门"]
    missing = {t: missing_glyphs(t) for t in texts if missing_glyphs(t)}
    assert not missing
    assert missing_glyphs("≫") == {"≫"}                    # the test can fail: that glyph is not in the font


def test_cards_in_one_script_and_the_excerpt_end_card(plan):
    texts = C.card_texts(plan, 2400.0, 2500.0)
    assert not any(ch in "".join(texts) for ch in "鄉禮鄭賈")          # simplified throughout
    assert any(t.startswith("注 N") for t in texts)                    # the 注 tab explained
    assert "The rite is complete" not in texts and any("End of the excerpt" in t for t in texts)
    assert "The rite is complete" in C.card_texts(plan)


def test_at_most_six_name_tags_kept_from_frame_to_frame():
    tc = TagChoice()
    near = {f"p{i}": float(i) for i in range(10)}
    first = tc.choose(0, near, set())
    assert len(first) == MAX_TAGS
    assert tc.choose(0, dict(near, p0=0.5), set()) == first              # small changes keep the tags
    acting = tc.choose(0, near, {"p9"})
    assert "p9" in acting and len(acting) == MAX_TAGS and len(set(acting) & set(first)) == MAX_TAGS - 1
    assert tc.choose(1, {"p3": 1.0}, set()) == ["p3"]                    # a new shot chooses again


def test_subtitle_files_are_read_back_by_a_parser(tmp_path):
    """The cue files (webvtt-py writes them): read back by the same library's parser, the cues in order with
    their times to the millisecond; an empty or zero-length cue dropped; '-->' in a text (which would end the
    cue's timing line) written as an arrow, a blank line inside a text closed up."""
    import webvtt

    cues = [(0.5, 7.25, "賓升\nThe guest goes up"), (7.25, 7.25, "zero"), (8.0, 9.0, ""),
            (3661.0014, 3662.5, "a --> b\n\nc")]
    C.write_vtt(tmp_path / "c.vtt", cues)
    C.write_srt(tmp_path / "c.srt", cues)
    for doc in (webvtt.read(tmp_path / "c.vtt"), webvtt.from_srt(tmp_path / "c.srt")):
        got = [(c.start, c.end, c.text) for c in doc]
        assert got == [("00:00:00.500", "00:00:07.250", "賓升\nThe guest goes up"),
                       ("01:01:01.001", "01:01:02.500", "a → b\nc")]
    assert C.vtt_time(-2) == "00:00:00.000" and C.srt_time(59.9996) == "00:01:00,000"
