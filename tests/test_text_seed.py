"""The seed text: identity with the shared seed, clause segmentation, display form."""
import hashlib

import pytest

from reconstruct.text import seed as T


def test_shipped_copy_is_byte_identical_to_the_shared_seed():
    if not T.SHARED_SEED.exists():
        pytest.skip("shared seed not present")
    assert T.sha256() == hashlib.sha256(T.SHARED_SEED.read_bytes()).hexdigest()
    assert T.SEED.read_bytes() == T.SHARED_SEED.read_bytes()


def test_known_hash():
    assert T.sha256() == "bc43abb7cb2187c1cc1faaa69bb66368095251b8cc51d9e01b1aa9f1a4836860"


def test_clauses_have_exact_offsets():
    text = T.load()
    cs = T.clauses()
    assert len(cs) > 600
    for c in cs:
        assert text[c.span[0]:c.span[1]] == c.text
        assert not any(ch in T.PUNCT for ch in c.text)
        assert not any(ch.isdigit() for ch in c.text)      # footnote markers are cut out
    assert cs[0].text == "扑" and cs[0].footnote == 80
    assert cs[-1].text == "司shè前戒之" and cs[-1].footnote == 129
    assert [c.span for c in cs] == sorted(c.span for c in cs)


def test_clauses_cover_every_content_character_once():
    text = T.load()
    mask = T.content_mask()
    covered = [False] * len(text)
    for c in T.clauses():
        for i in range(*c.span):
            assert not covered[i]
            covered[i] = True
    assert covered == mask


def test_footnotes():
    notes = T.footnotes()
    numbers = [f.number for f in notes]
    assert set(range(80, 130)) <= set(numbers)
    assert numbers.count(89) == 2        # the stray bare "89" before 北面于三耦之南, and （89）
    c = next(c for c in T.clauses() if c.text == "北面于三耦之南")
    assert c.footnote == 89
    assert next(c for c in T.clauses() if c.text == "有余纯").footnote == 82


def test_display_restores_characters_but_data_keeps_pinyin():
    assert T.display("司shè与司马jiāo于阶前") == "司射与司马交于阶前"
    assert T.display("征唯所yù") == "征唯所欲"
    text = T.load()
    assert "shè" in text and "射" not in text
    assert "射" in T.display(text)
    c = next(c for c in T.clauses() if c.text.startswith("司shè复位"))
    assert c.display == "司射复位"
