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

# The marks a pattern's gap may never admit: clause and sentence punctuation (full-width and the
# ASCII forms NFKC gives them) and line breaks.
CLAUSE_MARKS = "，。！？；,!?;\n"
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
        elif op in (sre.MAX_REPEAT, sre.MIN_REPEAT, getattr(sre, "POSSESSIVE_REPEAT", None)):
            if av[0] >= 1:
                found += _required(av[2])
        elif op is sre.BRANCH:
            first, *others = [_required(branch) for branch in av[1]]
            found += [ch for ch in first if all(ch in other for other in others)]
        elif op is sre.IN and len(av) == 1 and av[0][0] is sre.LITERAL:
            found.append(chr(av[0][1]))
        # anything else (a class, a look-around, an anchor) holds no certain character
    return found
