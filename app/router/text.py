"""Text normalization (SPEC §4.0): every matcher sees the same views of a text.

Views, each derived from the previous one:

* ``cased``    NFKC, format characters (Cf), other default ignorables (variation selectors, Hangul
               fillers…) and control characters but whitespace dropped, Traditional →
               Simplified (OpenCC ``t2s``). Patient IDs are read here, before lower-casing,
               so ``p0012`` is not an ID.
* ``text``     ``cased`` with ASCII letters lower-cased; keywords, foods and units match here.
* ``squashed`` ``text`` with whitespace and fillers (Unicode Z*, P*, S*, M*) removed, except
               the sentence punctuation that separates clauses. Red-line matching (P0, staging,
               write aliases) also runs here so ``无 尿`` and ``抽-搐`` still hit, while
               ``吃得不少，尿量正常`` keeps its comma and is not 少尿.

Where a sentence and a clause end is defined here and nowhere else (tests/router/test_cutter.py
fails on a second definition), and a text is cut once (``Cut``): every stage that reads sentences
or clauses — the red-flag context walk, the question clauses, the patient facts — reads that cut.
"""

from __future__ import annotations

import re
import sys
import unicodedata
from bisect import bisect_left
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Callable

import opencc

from .opencc_keys import WITNESSES_ASTRAL, WITNESSES_BMP

# Where a sentence and a clause end, as the text view has them (NFKC has turned ，？！； into
# ASCII): a sentence at 。!?; or a line break, a clause also at a comma; 、 separates list items.
# Defined here once: every pattern that must stop at a clause builds its class from these names.
SENTENCE_ENDS = "。!?;\n"
COMMA = ","
CLAUSE_ENDS = COMMA + SENTENCE_ENDS
LIST_MARK = "、"
# An ASCII "." ends a sentence too, but for a decimal point: one between two digits (体温38.5).
# Only ``Cut`` reads it: a point inside a number is no mark a character class can tell apart.
PERIOD = "."
# The full-width twins NFKC turns into the ASCII clause ends (。 has no compatibility mapping). A
# policy pattern is written by hand and never normalized, so its checks look for either width.
FULL_WIDTH_ENDS = "，！？；"
CLAUSE_ENDS_EITHER_WIDTH = CLAUSE_ENDS + FULL_WIDTH_ENDS
# Clause punctuation survives squashing; a line break is whitespace, squashed like any other
# (抽\n搐 is still 抽搐).
CLAUSE_PUNCTUATION = frozenset(CLAUSE_ENDS_EITHER_WIDTH) - {"\n"}

# Default-ignorable code points that are not format characters (Cf): variation selectors, the
# combining grapheme joiner, Hangul fillers, Khmer inherent vowels, Mongolian free variation
# selectors. Each renders as nothing, so each could hide inside a red-line word (昏\u3164迷).
_IGNORABLE = [
    (0x034F, 0x034F), (0x115F, 0x1160), (0x17B4, 0x17B5), (0x180B, 0x180F), (0x3164, 0x3164),
    (0xFE00, 0xFE0F), (0xFFA0, 0xFFA0), (0xFFF0, 0xFFF8), (0x1BCA0, 0x1BCA3), (0xE0000, 0xE0FFF),
]
_KEEP_CONTROLS = frozenset("\t\n\r\x0b\x0c")


# Where a format character, control, separator, punctuation, symbol or mark can be: planes 0–3 and
# the tag/variation-selector block of plane 14. Planes 4–13 are unassigned and 15–16 private use
# (tests/router/test_text.py proves nothing there matches), so import-time scanning skips them.
_ASSIGNED = ((0, 0x3FFFF), (0xE0000, 0xE0FFF))


def _ranges(predicate: Callable[[str], bool], lo: int = 0, hi: int = sys.maxunicode) -> str:
    """A regex character class body for every code point in [lo, hi] that satisfies ``predicate``."""
    parts: list[str] = []
    for block_lo, block_hi in _ASSIGNED:
        first, last = max(lo, block_lo), min(hi, block_hi)
        start = None
        for cp in range(first, last + 2):
            inside = cp <= last and predicate(chr(cp))
            if inside and start is None:
                start = cp
            elif not inside and start is not None:
                end = cp - 1
                parts.append(re.escape(chr(start)) if start == end else f"{re.escape(chr(start))}-{re.escape(chr(end))}")
                start = None
    return "".join(parts)


def _is_invisible(ch: str) -> bool:
    """Format characters, other default ignorables, and control characters but whitespace."""
    category = unicodedata.category(ch)
    if category == "Cf" or (category == "Cc" and ch not in _KEEP_CONTROLS):
        return True
    cp = ord(ch)
    return any(lo <= cp <= hi for lo, hi in _IGNORABLE)


def _is_filler(ch: str) -> bool:
    """Separators, punctuation, symbols and combining marks left over after NFKC (抽\u0301搐)."""
    if ch in CLAUSE_PUNCTUATION:
        return False
    return ch.isspace() or unicodedata.category(ch)[0] in "ZPSM"


# Built once at import. sre tests a class of BMP code points with one bitmap look-up, but walks
# astral ranges one by one (8 µs instead of 0.6 µs per 100 characters), so astral fillers (emoji,
# musical and mathematical symbols) get a class of their own, used only when the text has any.
#
# Each run is written ``[C][C]*``, not ``[C]+``: a pattern that opens with a class lets sre skip
# to the next candidate character in C, where a repeat makes it try a whole match at every
# position (half the time of each pass on a 100-character message, bench/router_bench.py).
def _runs(body: str) -> re.Pattern[str]:
    return re.compile(f"[{body}][{body}]*")


_INVISIBLE_BMP = _runs(_ranges(_is_invisible, 0, 0xFFFF))
_INVISIBLE_ASTRAL = _runs(_ranges(_is_invisible, 0x10000))
_FILLER_BMP_BODY, _FILLER_ASTRAL_BODY = _ranges(_is_filler, 0, 0xFFFF), _ranges(_is_filler, 0x10000)
_FILLER_BMP = _runs(_FILLER_BMP_BODY)
_FILLER_ASTRAL = _runs(_FILLER_ASTRAL_BODY)
_FILLER_ANY = _runs(_FILLER_BMP_BODY + _FILLER_ASTRAL_BODY)
_ANY_ASTRAL = re.compile("[\U00010000-\U0010ffff]")
_ASCII_UPPER = _runs("A-Z")
# Full-width ASCII forms and the ideographic space are nearly all that Chinese text needs from
# NFKC, whose compatibility decomposition costs ~6.5 µs per 100 characters. The commonest (clause
# marks, colon, brackets) are replaced by C-level str.replace (0.2 µs for all of them), any other by one regex
# pass; each by its own NFKC form, so the text then usually passes the quick check, and anything
# else still goes through the full normalization: the result is NFKC either way.
_COMMON_FULL_WIDTH = (("，", ","), ("？", "?"), ("！", "!"), ("：", ":"), ("；", ";"), ("（", "("), ("）", ")"))
_FULL_WIDTH_MAP = {chr(cp): chr(cp - 0xFEE0) for cp in range(0xFF01, 0xFF5F)} | {"\u3000": " "}
_FULL_WIDTH = re.compile("[\uff01-\uff5e\u3000]")
_T2S = opencc.OpenCC("t2s")


def _char_class(chars: str) -> re.Pattern[str]:
    """One character class of ``chars``, consecutive code points written as ranges."""
    parts: list[str] = []
    points = sorted(map(ord, chars))
    start = previous = points[0]
    for cp in [*points[1:], -1]:
        if cp != previous + 1:
            parts.append(re.escape(chr(start)) + (f"-{re.escape(chr(previous))}" if previous != start else ""))
            start = cp
        previous = cp
    return re.compile(f"[{''.join(parts)}]")


# OpenCC cuts a text into dictionary keys and characters it copies; a text that holds no key whose
# value differs from it comes back unchanged, so the conversion is skipped for a text with none of
# the witnesses (a character of each such key, scripts/opencc_keys.py): called on every text it
# cost a sixth of route_request on parents' texts, of which about one in two hundred has anything
# to convert (bench/RESULTS.md). The astral class is searched only in a text that has an astral
# code point (sre walks astral ranges one by one).
_T2S_WITNESSES_BMP = _char_class(WITNESSES_BMP)
_T2S_WITNESSES_ASTRAL = _char_class(WITNESSES_ASTRAL)


@dataclass(slots=True)
class TextViews:
    raw: str
    cased: str
    text: str
    squashed: str


def fold(value: str) -> str:
    """The ``text`` view of a string: how keywords in the policy are stored and compared."""
    if value.isascii() and value.isprintable():
        # NFKC and t2s leave printable ASCII as it is, and it holds nothing to drop: only the
        # lower-casing is left (check_permission folds every action name).
        return value.lower()
    return views(value).text


# Every line is a line (SPEC §4.7 revision 2): \r, NEL, LS and PS end a sentence as \n does, so
# they become \n before NEL (a control character) would be dropped and two lines glued into one.
_LINE_BREAKS = re.compile("[\r\x85\u2028\u2029]")


def views(raw: str) -> TextViews:
    value = raw
    if _LINE_BREAKS.search(value):
        value = _LINE_BREAKS.sub("\n", value)
    if not unicodedata.is_normalized("NFKC", value):
        for full, half in _COMMON_FULL_WIDTH:
            value = value.replace(full, half)
        if not unicodedata.is_normalized("NFKC", value):
            value = _FULL_WIDTH.sub(_half_width, value)
            if not unicodedata.is_normalized("NFKC", value):
                value = unicodedata.normalize("NFKC", value)
    astral = _ANY_ASTRAL.search(value) is not None
    value = _INVISIBLE_BMP.sub("", value)
    if astral:
        value = _INVISIBLE_ASTRAL.sub("", value)
    if not value.isascii() and (_T2S_WITNESSES_BMP.search(value) or (astral and _T2S_WITNESSES_ASTRAL.search(value))):
        simplified = _T2S.convert(value)
        if simplified != value:  # OpenCC maps a few BMP characters beyond it
            value, astral = simplified, astral or _ANY_ASTRAL.search(simplified) is not None
    text = _ASCII_UPPER.sub(_lower, value)
    return TextViews(raw, value, text, squash(text, astral))


def _half_width(match: re.Match[str]) -> str:
    return _FULL_WIDTH_MAP[match.group()]


def _lower(match: re.Match[str]) -> str:
    return match.group().lower()


def squash(value: str, astral: bool = True) -> str:
    """``astral`` False: the caller knows ``value`` has no code point beyond the BMP."""
    value = _FILLER_BMP.sub("", value)
    if astral and _ANY_ASTRAL.search(value):
        value = _FILLER_ASTRAL.sub("", value)
    return value


def kept_offsets(value: str) -> list[int]:
    """For each character of ``squash(value)``, its offset in ``value``: where a red flag that only
    the squashed view revealed (抽-搐) sits in the text, so its context is read there."""
    kept: list[int] = []
    start = 0
    fillers = _FILLER_ANY if _ANY_ASTRAL.search(value) else _FILLER_BMP  # astral ranges are slow in sre
    for run in fillers.finditer(value):
        kept.extend(range(start, run.start()))
        start = run.end()
    kept.extend(range(start, len(value)))
    return kept


# Two forms of the one cut, each the cheapest for what is asked first (both built from the names
# above; tests/router/test_cutter.py holds them to the names). The bounds: every alternative opens
# with a literal, so sre skips in C to the next mark (a class or a look-behind first made it try
# every alternative at every position: half the time), and group 1 takes part only in a comma's
# match, the one mark that ends a clause and not its sentence. The marks alone: one class first,
# which sre also skips to, with no group to read (a sixth fewer instructions than the bounds).
_BOUNDS = re.compile(
    "|".join(map(re.escape, SENTENCE_ENDS))
    + f"|{re.escape(COMMA)}()|{re.escape(PERIOD)}(?:(?<![0-9]\\.)|(?![0-9]))"
)
_MARKS = re.compile(f"[{re.escape(CLAUSE_ENDS + PERIOD)}](?<![0-9]\\.(?=[0-9]))")


def sentence_bounds(text: str) -> list[tuple[int, bool]]:
    """``Cut(text).bounds``, for a caller that has no cut to share."""
    return [(m.start(), m.lastindex is None) for m in _BOUNDS.finditer(text)]


class Cut:
    """Where the sentences and clauses of one text view end (SPEC §4.7): cut on first use, once,
    and read by every stage that asks (the analysis carries it). Clause ``i`` runs from after
    ``marks[i-1]`` to ``marks[i]``; ``bisect_right(marks, p)`` is the clause of offset ``p``. The
    lists are shared: read them, never change them (their type says so to mypy)."""

    __slots__ = ("text", "_bounds", "_marks")

    def __init__(self, text: str) -> None:
        self.text = text
        self._bounds: list[tuple[int, bool]] | None = None
        self._marks: list[int] | None = None

    @property
    def bounds(self) -> Sequence[tuple[int, bool]]:
        """(offset, whether it ends a sentence) of every clause end, in text order."""
        bounds = self._bounds
        if bounds is None:
            marks, text = self._marks, self.text
            bounds = self._bounds = sentence_bounds(text) if marks is None else [(p, text[p] != COMMA) for p in marks]
        return bounds

    @property
    def marks(self) -> Sequence[int]:
        """The offset of every clause end, in text order."""
        marks = self._marks
        if marks is None:
            bounds = self._bounds
            marks = self._marks = [m.start() for m in _MARKS.finditer(self.text)] if bounds is None else [p for p, _ in bounds]
        return marks

    def sentence_ends_within(self, lo: int, hi: int, points: bool = True) -> bool:
        """Whether a sentence ends in ``text[lo:hi]``. ``points`` False: an ASCII point ends none
        there. The patient facts' session rule reads so (a fever or chills in a sentence that names
        a dialysis session): its flag only ever adds a halt, and it has never read a point as an
        end, so 透析完.晚上开始发烧 of a child on haemodialysis halts; read as an end, the point would
        lower that decision."""
        bounds, text = self.bounds, self.text
        index = bisect_left(self.marks, lo)
        while index < len(bounds) and bounds[index][0] < hi:
            start, ends = bounds[index]
            if ends and (points or text[start] != PERIOD):
                return True
            index += 1
        return False
