"""What the video shows besides the figures: captions split at clauses in step with the act, cards in one
script, every glyph drawn present in the font, at most six stable name tags, the inset map, shadows and
materials, the soundtrack; and the chunk keys follow the gestures."""
import wave

import numpy as np
import pytest

from reconstruct.model.plan import Gesture
from reconstruct.render import captions as C
from reconstruct.render import chunks as CH
from reconstruct.render import materials as M
from reconstruct.render import shade as SH
from reconstruct.render import sound as S
from reconstruct.render.clauses import MIN_CLAUSE_S, ClauseTimeline, split_clauses, split_gloss
from reconstruct.render.fonts import missing_glyphs
from reconstruct.render.labels import MAX_TAGS, TagChoice, short_name
from reconstruct.scene.sampler import PlanSampler


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


def test_shadows_lie_on_the_ground_away_from_the_sun(plan):
    from reconstruct.render.layer import MovingLayer
    layer = MovingLayer(PlanSampler(plan))
    t = 4430.0
    layer.update(t)
    aid = "下耦下射"
    court, floor = layer.shadows[aid]
    P = layer.matrices[layer.part_start[court]:layer.part_start[court + 1]]
    xyz = plan.actors[aid].track.at([t])[0][0]
    head = P[3] @ np.array([0, 0, 0.13, 1.0])              # the proxy's head, flattened
    assert abs(head[2] - (xyz[2] + 0.006)) < 1e-6
    assert np.dot(head[:2] - xyz[:2], SH.SUN_DIR[:2]) < -0.5          # cast away from the sun
    assert not np.abs(layer.matrices[layer.part_start[floor]:layer.part_start[floor + 1], :3, :3]).any()
    # under the roof only the contact disc, on the floor
    on_hall = next(a for a in plan.actors if plan.actors[a].track.at([t])[0][0][2] > 0.5)
    c2, f2 = layer.shadows[on_hall]
    assert not np.abs(layer.matrices[layer.part_start[c2]:layer.part_start[c2 + 1], :3, :3]).any()
    assert np.abs(layer.matrices[layer.part_start[f2 + 1] - 1, :3, :3]).any()


def test_architecture_casts_shadows_and_materials_are_textured(reading, plan):
    from reconstruct.scene.ground import ground_meshes
    g = ground_meshes(reading)
    skins, dark = SH.architecture_shadows(g, plan.hall)
    names = {n for n, _, _ in skins}
    assert names == {"shadow:court", "shadow:floor"}
    floor = next(m for n, m, _ in skins if n == "shadow:floor")
    assert floor.area > 20.0 and "L_binxi" in dark                     # the roof shades the floor and its mats
    assert {M.material_of(n) for n in ("L_wu", "L_dongxu", "L_mei", "L_ting", "L_binxi")} == {
        "tiles", "plaster", "timber", "earth", "rush"}
    assert M.material_of("L_dongying") is None                          # lacquered columns stay plain
    for kind in M.REPEAT_M:
        p = M.pattern(kind)
        assert abs(p.mean() - 1.0) < 0.1 and p.std() > 0.01             # restrained: colour kept on average


def test_soundtrack_beats_and_length(plan, tmp_path):
    beats = plan.music.beats
    cues = S.cues_of(plan, lambda x: x - beats[0] + 1.0, beats[0] - 1.0, beats[0] + 40.0)
    drums = [c for c in cues if c.kind == "drum"]
    assert len(drums) == sum(beats[0] - 1.0 <= b <= beats[0] + 40.0 for b in beats)
    assert any(c.kind == "loose" for c in cues)
    out = S.write_soundtrack(tmp_path / "s.wav", 21.0, cues)
    with wave.open(str(out)) as wf:
        assert (wf.getnchannels(), wf.getframerate()) == (2, S.RATE) and wf.getnframes() == 21 * S.RATE
        x = np.frombuffer(wf.readframes(wf.getnframes()), "<i2").reshape(-1, 2).astype(float)
    at = int(1.0 * S.RATE)
    assert np.abs(x[at:at + 4800]).max() > 20 * np.abs(x[at - 9600:at - 4800]).max()   # the drum over the quiet


def test_chunk_keys_follow_the_gestures(plan):
    sampler = PlanSampler(plan)
    a0 = CH.plan_window(plan, sampler, 2460.0, 2470.0, {})
    a1 = CH.plan_window(plan, sampler, 2500.0, 2510.0, {})
    g = next(x for x in plan.actors["上耦上射"].gestures if x.kind == "draw")
    old = list(plan.actors["上耦上射"].gestures)
    try:
        plan.actors["上耦上射"].gestures = [x if x is not g else Gesture(g.t0, g.t1 + 0.2, "draw", g.object) for x in old]
        assert CH.plan_window(plan, sampler, 2460.0, 2470.0, {}) != a0
        assert CH.plan_window(plan, sampler, 2500.0, 2510.0, {}) == a1
    finally:
        plan.actors["上耦上射"].gestures = old
