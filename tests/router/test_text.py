"""The views of a text: the cased view is exactly NFKC (minus invisibles, then t2s), whatever path."""

from __future__ import annotations

import unicodedata

from hypothesis import given, settings
from hypothesis import strategies as st

from app.router.text import squash, views

ALPHABET = st.sampled_from(
    [chr(c) for c in range(0x20, 0x7F)]
    + [chr(c) for c in range(0xFF01, 0xFF5F)]
    + list("\u3000\u0301\u0323\u1100\u1161\uac00\u2460\u3392\ufb01\u2126\u1e9b\u4e00\u6c49\u9fa5，。、？！：；“”（）《》")
)


@given(st.text(alphabet=ALPHABET, max_size=30))
@settings(max_examples=500, deadline=None)
def test_the_fast_path_equals_full_nfkc(text):
    expected = views(unicodedata.normalize("NFKC", text))
    assert views(text).cased == expected.cased


def test_full_width_forms_fold():
    v = views("Ｐ００１２　血钾６.８，ＣＯＭＡ")
    assert v.cased == "P0012 血钾6.8,COMA"
    assert v.text == "p0012 血钾6.8,coma"


def test_the_unscanned_planes_hold_nothing_to_drop_or_squash():
    from app.router.text import _ASSIGNED, _is_filler, _is_invisible

    assert _ASSIGNED == ((0, 0x3FFFF), (0xE0000, 0xE0FFF))
    for lo, hi in ((0x40000, 0xDFFFF), (0xE1000, 0x10FFFF)):
        for cp in range(lo, hi + 1):
            ch = chr(cp)
            assert not _is_invisible(ch) and not _is_filler(ch), hex(cp)


def test_squash_sees_astral_characters_that_t2s_produced() -> None:
    # OpenCC t2s maps some BMP characters to astral ones; views() takes its "no astral character"
    # short cut from the text as it is after the conversion, never before it.
    import opencc

    t2s = opencc.OpenCC("t2s")
    bmp = [chr(cp) for cp in range(0x3400, 0xFFFF) if not 0xD800 <= cp <= 0xDFFF]
    produced = [ch for ch in bmp if any(ord(c) > 0xFFFF for c in t2s.convert(ch))]
    assert produced, "no BMP character maps beyond the BMP any more: this test proves nothing"
    for ch in produced:
        got = views(f"{ch}，{ch}")
        assert got.squashed == squash(got.text)


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=30))
def test_the_squashed_view_is_the_text_view_squashed(text: str) -> None:
    got = views(text)
    assert got.squashed == squash(got.text)
