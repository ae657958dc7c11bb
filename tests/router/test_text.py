"""The views of a text: the cased view is exactly NFKC (minus invisibles, then t2s), whatever path."""

from __future__ import annotations

import unicodedata

import pytest
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


# --- The t2s skip: a text with no witness of a converting OpenCC key is its own conversion -------


def test_the_recorded_opencc_dictionaries_are_the_installed_ones() -> None:
    """The witnesses were read from these files; another OpenCC needs scripts/opencc_keys.py again."""
    import hashlib
    from pathlib import Path

    import opencc

    from app.router.opencc_keys import FILES

    share = Path(opencc.__file__).parent / "clib" / "share" / "opencc"
    installed = {name: hashlib.sha256((share / name).read_bytes()).hexdigest() for name in FILES}
    assert installed == FILES, "OpenCC's dictionaries changed: run python scripts/opencc_keys.py"


def test_every_character_but_the_witnesses_converts_to_itself() -> None:
    """Every code point OpenCC could be handed (planes 0-3 and 14, no surrogates), each alone: the
    ones that are no witness come back unchanged (a one-character key that converts is its own)."""
    import opencc

    from app.router.opencc_keys import WITNESSES_ASTRAL, WITNESSES_BMP

    keys = set(WITNESSES_BMP + WITNESSES_ASTRAL)
    chars = [chr(cp) for lo, hi in ((0x21, 0xD7FF), (0xE000, 0x3FFFF), (0xE0000, 0xE0FFF)) for cp in range(lo, hi + 1)]
    chars = [c for c in chars if c not in keys and c != "\n"]
    converted = opencc.OpenCC("t2s").convert("\n".join(chars)).split("\n")
    assert len(converted) == len(chars)
    assert [c for c, out in zip(chars, converted) if c != out] == []


@pytest.mark.parametrize(
    ("text", "cased"),
    [
        pytest.param("孩子瞭解了", "孩子了解了", id="a phrase key whose characters stay alone (瞭解)"),
        pytest.param("藉口不吃飯", "借口不吃饭", id="a phrase key and a character key"),
        pytest.param("醫生答覆", "医生答复", id="a character that changes only in a phrase (覆)"),
        pytest.param("什么么麼", "什么幺麽", id="么 changes only beside 麼, its witness"),
        pytest.param("毛坏房", "毛坯房", id="a phrase of simplified characters (毛坏 → 毛坯)"),
        pytest.param("孩子發燒", "孩子发烧", id="a character key"),
        pytest.param("孩子发烧了", "孩子发烧了", id="simplified text: no key character, no conversion"),
        pytest.param("孩子\U00020000發燒", "孩子\U00020000发烧", id="an astral character beside a key"),
    ],
)
def test_traditional_text_is_still_converted(text: str, cased: str) -> None:
    assert views(text).cased == cased


@given(st.text(alphabet=st.characters(max_codepoint=0x7F), max_size=20))
@settings(max_examples=300, deadline=None)
def test_fold_of_ascii_is_the_text_view(text: str) -> None:
    """``fold``'s printable-ASCII shortcut gives what the views give."""
    from app.router.text import fold

    assert fold(text) == views(text).text
