"""The building blocks of the slot grammar's families (``[slots.*]``, SPEC §4.4): the shapes a
family's value may take — words (``Words``, ``Word``, ``Chars``, ``Table``), a fragment of the slot
scan (``Fragment``) and a pattern searched on its own (``Regex``) — with the checks that keep a
pattern bounded and free of written punctuation, and the ``{CLAUSE_ENDS}``-style placeholders for
``text.py``'s marks and the numerals' characters. The families themselves are ``slots.py``'s, ``slot_ages.py``'s and
``slot_temps.py``'s; they all build on these.
"""

from __future__ import annotations

import re
from re import _constants as sre  # type: ignore[attr-defined]
from re import _parser as sre_parse  # type: ignore[attr-defined]
from typing import Annotated, Any

from pydantic import AfterValidator, BaseModel, BeforeValidator, ConfigDict, Field

from ..numerals import CHARS
from ..patterns import MAX_GAP
from ..text import CLAUSE_ENDS, COMMA, LIST_MARK, SENTENCE_ENDS, fold

# The placeholders a pattern names inside a character class: ``text.py``'s marks (CLAUSE_ONLY: the
# comma, which ends a clause and not its sentence), and NUMERALS, the characters a Chinese numeral is
# spelt with (``numerals.CHARS``: ``[{NUMERALS}]+``), so that a pattern never lists the number system.
_MARKS = {"CLAUSE_ENDS": CLAUSE_ENDS, "SENTENCE_ENDS": SENTENCE_ENDS, "CLAUSE_ONLY": COMMA, "LIST_MARK": LIST_MARK,
          "NUMERALS": CHARS}
# Inside a character class, where every placeholder is substituted: escaped so a mark is literal.
_CLASS_BODY = {name: "".join(re.escape(ch) for ch in marks) for name, marks in _MARKS.items()}
_PLACEHOLDER = re.compile(r"\{([A-Z_]+)\}")
# Written punctuation a pattern must name instead, and the full-width forms of the ASCII marks (the
# text view has none: NFKC made them ASCII, so a pattern that writes one matches nothing there).
_WRITTEN = frozenset(CLAUSE_ENDS + LIST_MARK + "".join(chr(ord(ch) + 0xFEE0) for ch in CLAUSE_ENDS if "!" <= ch <= "~"))


def _words(value: list[str]) -> tuple[str, ...]:
    folded = [fold(w) for w in value]
    if len(set(folded)) != len(folded):
        raise ValueError("a word is listed twice")
    return tuple(folded)


def _pattern(value: str) -> str:
    """The pattern with its placeholders substituted, or ``ValueError`` naming what is wrong."""
    unknown = [name for name in _PLACEHOLDER.findall(value) if name not in _MARKS]
    if unknown:
        raise ValueError(f"unknown placeholder {{{unknown[0]}}}")
    expanded = _PLACEHOLDER.sub(lambda m: _CLASS_BODY[m.group(1)], value)
    try:
        # As written, each placeholder a private-use character: a mark found now was written out.
        written = sre_parse.parse(_PLACEHOLDER.sub("\ue000", value))
        parsed = sre_parse.parse(expanded)
    except re.error as exc:
        raise ValueError(f"is not a valid regular expression ({exc.msg})") from None
    if _writes_mark(written):
        raise ValueError("writes clause punctuation: name it ({CLAUSE_ENDS}, {SENTENCE_ENDS}, {CLAUSE_ONLY}, {LIST_MARK})")
    problems: list[str] = []
    _walk(parsed, problems)
    if problems:
        raise ValueError("; ".join(dict.fromkeys(problems)))
    return expanded


_REPEATS = (sre.MAX_REPEAT, sre.MIN_REPEAT, getattr(sre, "POSSESSIVE_REPEAT", None))


def _inner(op: Any, av: Any) -> list[Any]:
    """The sub-patterns of one parsed element: a group's, a repeat's, a look-around's, a branch's."""
    if op in _REPEATS:
        return [av[2]]
    if op is sre.SUBPATTERN:
        return [av[3]]
    if op is sre.ATOMIC_GROUP:
        return [av]
    if op in (sre.ASSERT, sre.ASSERT_NOT):
        return [av[1]]
    if op is sre.BRANCH:
        return list(av[1])
    return []


def _writes_mark(items: Any) -> bool:
    """Whether a literal, a negated literal or a class member of ``items`` is a clause or list mark."""
    for op, av in items:
        if op in (sre.LITERAL, sre.NOT_LITERAL) and chr(av) in _WRITTEN:
            return True
        if op is sre.IN and any(o is sre.LITERAL and chr(a) in _WRITTEN for o, a in av):
            return True
        if any(_writes_mark(inner) for inner in _inner(op, av)):
            return True
    return False


def _walk(items: Any, problems: list[str]) -> None:
    for op, av in items:
        if op is sre.ANY:
            problems.append("uses '.', which can cross clause punctuation")
        elif op in (sre.GROUPREF, sre.GROUPREF_EXISTS, sre.GROUPREF_IGNORE):
            problems.append("uses a back reference")
        elif op in _REPEATS:
            high, inner = av[1], av[2]
            if high is sre.MAXREPEAT or high > MAX_GAP:
                listed = len(inner) == 1 and inner[0][0] is sre.IN and all(o is not sre.NEGATE for o, _ in inner[0][1])
                if not listed or any(re.fullmatch(f"[{_class_source(inner)}]", ch) for ch in CLAUSE_ENDS):
                    problems.append(f"repeats more than {MAX_GAP} times something other than a listed set of characters "
                                    "without clause marks")
        for inner_items in _inner(op, av):
            _walk(inner_items, problems)


def _class_source(inner: Any) -> str:
    """A character class as regex source, to test it against the clause marks."""
    out: list[str] = []
    for op, av in inner[0][1]:
        if op is sre.LITERAL:
            out.append(re.escape(chr(av)))
        elif op is sre.RANGE:
            out.append(f"{re.escape(chr(av[0]))}-{re.escape(chr(av[1]))}")
        else:  # a category or anything else: assumed to admit a mark
            return r"\s\S"
    return "".join(out)


def _regex(value: Any) -> Any:
    return re.compile(_pattern(value)) if isinstance(value, str) else value


def _chars(value: tuple[str, ...]) -> tuple[str, ...]:
    if any(len(ch) != 1 for ch in value):
        raise ValueError("each entry is one character")
    return value


def _table(value: dict[str, int]) -> dict[str, int]:
    folded = {fold(k): v for k, v in value.items()}
    if len(folded) != len(value):
        raise ValueError("a word is listed twice")
    return folded


Words = Annotated[tuple[str, ...], Field(min_length=1), AfterValidator(_words)]
Chars = Annotated[tuple[str, ...], Field(min_length=1), AfterValidator(_words), AfterValidator(_chars)]
Table = Annotated[dict[str, int], Field(min_length=1), AfterValidator(_table)]
Word = Annotated[str, Field(min_length=1), AfterValidator(fold)]
# A piece of a larger pattern (the slot scan's branches), and a pattern searched on its own.
Fragment = Annotated[str, Field(min_length=1), AfterValidator(_pattern)]
Regex = Annotated[re.Pattern[str], BeforeValidator(_regex)]


class _Family(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


def needs_groups(pattern: re.Pattern[str], name: str, needed: set[str]) -> None:
    """``ValueError`` naming the groups a reader takes from ``pattern`` that it lacks."""
    missing = needed - set(pattern.groupindex)
    if missing:
        raise ValueError(f"{name}: needs the groups {sorted(missing)}")


def either(words: tuple[str, ...]) -> str:
    """A regex alternation of a family's words, literal and in the listed order (the first that
    fits wins, as the family's comment says); ``common.alternation`` sorts longest first instead."""
    return "|".join(map(re.escape, words))


# The finite languages of small patterns: every string a fragment (or one of its named groups) can
# match, for the checks that a table holds an entry for each (``slots.SlotWords``). Lookarounds are
# zero-width: they narrow where a string is matched, not which strings.
_LANGUAGE_LIMIT = 256


def language(fragment: str, group: str | None = None) -> frozenset[str] | None:
    """The strings ``fragment`` (or its group named ``group``) matches; None when there are more
    than a few hundred, or it repeats without bound, or uses anything but literals, character sets,
    alternatives, groups, optional or bounded repeats and lookarounds."""
    parsed = sre_parse.parse(fragment)
    if group is None:
        return _language(list(parsed))
    index = parsed.state.groupdict.get(group)
    found = _group_items(list(parsed), index) if index is not None else None
    return None if found is None else _language(found)


def _group_items(items: list[Any], index: int) -> list[Any] | None:
    for op, av in items:
        if op is sre.SUBPATTERN and av[0] == index:
            return list(av[3])
        for inner in _inner(op, av):
            found = _group_items(list(inner), index)
            if found is not None:
                return found
    return None


def _language(items: list[Any]) -> frozenset[str] | None:
    strings: frozenset[str] = frozenset({""})
    for op, av in items:
        part = _item_language(op, av)
        if part is None:
            return None
        strings = frozenset(a + b for a in strings for b in part)
        if len(strings) > _LANGUAGE_LIMIT:
            return None
    return strings


def _item_language(op: Any, av: Any) -> frozenset[str] | None:
    if op is sre.LITERAL:
        return frozenset({chr(av)})
    if op in (sre.ASSERT, sre.ASSERT_NOT, sre.AT):
        return frozenset({""})
    if op is sre.SUBPATTERN:
        return _language(list(av[3]))
    if op is sre.BRANCH:
        found: set[str] = set()
        for branch in av[1]:
            part = _language(list(branch))
            if part is None:
                return None
            found |= part
        return frozenset(found)
    if op is sre.IN:
        chars: set[str] = set()
        for kind, value in av:
            if kind is sre.LITERAL:
                chars.add(chr(value))
            elif kind is sre.RANGE and value[1] - value[0] < _LANGUAGE_LIMIT:
                chars.update(chr(c) for c in range(value[0], value[1] + 1))
            else:
                return None
        return frozenset(chars)
    if op in _REPEATS and av[1] <= 4:
        once = _language(list(av[2]))
        if once is None:
            return None
        found, current = set(), frozenset({""})
        for count in range(av[1] + 1):
            if count >= av[0]:
                found |= current
            current = frozenset(a + b for a in current for b in once)
        return frozenset(found) if len(found) <= _LANGUAGE_LIMIT else None
    return None
