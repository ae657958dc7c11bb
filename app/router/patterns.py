"""Bounded patterns: the policy's red-flag and cue regexes, refused unless they stay in a clause.

SPEC §4.7 "Matching hygiene": a pattern's gaps never cross clause punctuation (either width) or a
newline. ``pattern_problems`` walks the parsed regex and names what would break that, or break
linear time: ``.`` (it admits ，), a class or a negated literal that admits a clause mark, a clause
mark written literally (a look-around may test for one: it consumes nothing), a repeat without an upper bound or wider than ``MAX_GAP``, and back
references. Every accepted pattern therefore matches inside one clause, with a bounded amount of
work per start position — so a scan over a text stays linear in its length.
"""

from __future__ import annotations

import re
from re import _constants as sre  # type: ignore[attr-defined]
from re import _parser as sre_parse  # type: ignore[attr-defined]
from typing import Any

# The marks a pattern's gap may never admit: a policy pattern is written by hand, so either width.
from .text import CLAUSE_ENDS_EITHER_WIDTH as CLAUSE_MARKS
# The widest repeat a pattern may use: SPEC's own examples need 8 (烧…不退).
MAX_GAP = 12

_CATEGORY = {
    sre.CATEGORY_DIGIT: r"\d", sre.CATEGORY_NOT_DIGIT: r"\D", sre.CATEGORY_SPACE: r"\s",
    sre.CATEGORY_NOT_SPACE: r"\S", sre.CATEGORY_WORD: r"\w", sre.CATEGORY_NOT_WORD: r"\W",
}


def pattern_problems(pattern: str) -> list[str]:
    """What makes ``pattern`` unfit for red-line matching; empty when it is fine."""
    try:
        parsed = sre_parse.parse(pattern)
    except re.error as exc:
        return [f"is not a valid regular expression ({exc.msg})"]
    problems: list[str] = []
    _walk(parsed, problems, True)
    return list(dict.fromkeys(problems))


def _walk(items: Any, problems: list[str], consuming: bool) -> None:
    """``consuming`` False inside a look-around: it may look at a clause mark (没尿 before a clause
    end), since the match itself never spans it; its repeats must still be bounded."""
    for op, av in items:
        if not consuming and op in (sre.ANY, sre.LITERAL, sre.NOT_LITERAL, sre.IN):
            continue
        if op is sre.ANY:
            problems.append("uses '.', which can cross clause punctuation")
        elif op is sre.LITERAL:
            if chr(av) in CLAUSE_MARKS:
                problems.append("contains clause punctuation, so it can cross a clause")
        elif op is sre.NOT_LITERAL:
            problems.append("uses a negated literal, which can cross clause punctuation")
        elif op is sre.IN:
            if any(_class_admits(av, mark) for mark in CLAUSE_MARKS):
                problems.append("has a character class that admits clause punctuation or a newline")
        elif op in (sre.MAX_REPEAT, sre.MIN_REPEAT, getattr(sre, "POSSESSIVE_REPEAT", None)):
            low, high, inner = av
            if high is sre.MAXREPEAT:
                problems.append("has an unbounded repeat (*, + or {n,}): its gap has no limit")
            elif high > MAX_GAP:
                problems.append(f"has a repeat wider than {MAX_GAP}")
            _walk(inner, problems, consuming)
        elif op is sre.SUBPATTERN:
            _walk(av[3], problems, consuming)
        elif op is sre.ATOMIC_GROUP:
            _walk(av, problems, consuming)
        elif op in (sre.ASSERT, sre.ASSERT_NOT):
            _walk(av[1], problems, False)
        elif op is sre.BRANCH:
            for branch in av[1]:
                _walk(branch, problems, consuming)
        elif op in (sre.GROUPREF, sre.GROUPREF_EXISTS, sre.GROUPREF_IGNORE):
            problems.append("uses a back reference")


def _class_admits(items: list[tuple[Any, Any]], ch: str) -> bool:
    negate = False
    found = False
    for op, av in items:
        if op is sre.NEGATE:
            negate = True
        elif op is sre.LITERAL:
            found = found or chr(av) == ch
        elif op is sre.RANGE:
            found = found or av[0] <= ord(ch) <= av[1]
        elif op is sre.CATEGORY:
            found = found or re.fullmatch(_CATEGORY.get(av, r"[\s\S]"), ch) is not None
        else:  # anything we cannot read is assumed to admit the mark
            found = True
    return found != negate


_REPEATS = (sre.MAX_REPEAT, sre.MIN_REPEAT, getattr(sre, "POSSESSIVE_REPEAT", None))


def required_char(pattern: re.Pattern[str]) -> str:
    """A character that every match of ``pattern`` holds, the last one it names (the closing word,
    前 of N天前 or 就 of 一…就, is rarer than the opening one); "" when none is certain (a
    case-insensitive pattern, for one). A text without it cannot match: ``ch in text`` is one C
    scan, where a pattern that opens with a branch (N天前: [2-9]|[1-9][0-9]|…) makes sre try a
    match at every position of the text."""
    if pattern.flags & re.IGNORECASE:
        return ""
    found = _required(sre_parse.parse(pattern.pattern))
    return found[-1] if found else ""


def _required(items: Any) -> list[str]:
    """The characters every match of ``items`` holds, in pattern order."""
    found: list[str] = []
    for op, av in items:
        if op is sre.LITERAL:
            found.append(chr(av))
        elif op is sre.SUBPATTERN:
            if not av[1] & re.IGNORECASE:  # (?i:…) matches either case
                found += _required(av[3])
        elif op is sre.ATOMIC_GROUP:
            found += _required(av)
        elif op in _REPEATS:
            if av[0] >= 1:
                found += _required(av[2])
        elif op is sre.BRANCH:
            first, *others = [_required(branch) for branch in av[1]]
            found += [ch for ch in first if all(ch in other for other in others)]
        elif op is sre.IN and len(av) == 1 and av[0][0] is sre.LITERAL:
            found.append(chr(av[0][1]))
        # anything else (a class, a look-around, an anchor) holds no certain character
    return found


# (the start of a match, whether it is the whole match): a whole one goes on with what follows it
# in the pattern, any other is all that is known of the match's start.
_Heads = set[tuple[str, bool]]
_WIDEST_CLASS = 64  # a class of more code points than this names no head: it could be anything


def heads(pattern: str, size: int = 2) -> frozenset[str] | None:
    """Strings of one to ``size`` characters, one of which opens every match of ``pattern`` (shorter
    than ``size`` where a match may end there, or go on with any character); None when a match may
    open with any character (a class of many, a negated one, a case-insensitive letter).

    The red-flag patterns are tried at each position of a text where one of their heads opens:
    keyed by their first two characters rather than their first one, a pattern that opens with 不 or
    吃 is tried where 不好好 or 吃奶 can open, not at every 不 and 吃 (tried at every first character,
    the patterns cost a fifth of the red flags of a pediatric dev text). Look-arounds and anchors
    consume nothing: read as matching the empty string, they can only add heads, never hide one."""
    parsed = sre_parse.parse(pattern)
    if parsed.state.flags & re.IGNORECASE:
        return None
    found = _sequence(list(parsed), size)
    if found is None or any(not start for start, _ in found):
        return None
    return frozenset(start for start, _ in found)


def _sequence(items: Any, size: int) -> _Heads | None:
    found: _Heads | None = {("", True)}
    for op, av in items:
        found = _then(found, lambda room, op=op, av=av: _element(op, av, room), size)
        if found is None:
            return None
    return found


def _then(found: _Heads | None, follow: Any, size: int) -> _Heads | None:
    """``found`` followed by what ``follow(room)`` opens with, ``room`` being the characters
    still missing from ``size``; None when the match may open with any character."""
    if found is None:
        return None
    out: _Heads = set()
    for start, whole in found:
        if not whole or len(start) == size:
            out.add((start, False))
            continue
        after = follow(size - len(start))
        if after is None:
            if not start:
                return None
            out.add((start, False))
            continue
        for rest, rest_whole in after:
            joined = start + rest
            out.add((joined, rest_whole and len(joined) < size))
    return out


def _element(op: Any, av: Any, size: int) -> _Heads | None:
    if op is sre.LITERAL:
        return {(chr(av), True)}
    if op is sre.IN:
        chars = _class_chars(av)
        return None if chars is None else {(ch, True) for ch in chars}
    if op is sre.SUBPATTERN:
        return None if av[1] & re.IGNORECASE else _sequence(av[3], size)
    if op is sre.ATOMIC_GROUP:
        return _sequence(av, size)
    if op is sre.BRANCH:
        out: _Heads = set()
        for branch in av[1]:
            found = _sequence(branch, size)
            if found is None:
                return None
            out |= found
        return out
    if op in _REPEATS:
        return _repeat(av, size)
    if op in (sre.ASSERT, sre.ASSERT_NOT, sre.AT):
        return {("", True)}
    return None  # any character, a negated literal, a back reference


def _repeat(av: Any, size: int) -> _Heads | None:
    """``lo`` to ``hi`` times ``inner``: past ``lo + size`` repeats a start holds ``size`` characters
    or an empty repeat, and more repeats only continue what is known of it."""
    lo, hi, inner = av
    last = min(hi, lo + size)
    repeated: _Heads | None = {("", True)}
    out: _Heads = set()
    for count in range(last + 1):
        if repeated is None:
            return None
        if count >= lo:
            out |= repeated
        if count < last:
            repeated = _then(repeated, lambda room: _sequence(inner, room), size)
    if hi > last and repeated is not None:
        out |= {(start, False) for start, _ in repeated}
    return out


def _class_chars(items: Any) -> set[str] | None:
    chars: set[str] = set()
    for op, av in items:
        if op is sre.LITERAL:
            chars.add(chr(av))
        elif op is sre.RANGE and av[1] - av[0] < _WIDEST_CLASS:
            chars.update(map(chr, range(av[0], av[1] + 1)))
        else:  # a negated class, a category, a wide range
            return None
    return chars
