"""What the policy finds in one text, computed once per call and shared by every decision.

``route_request`` asks for P0 hits, staging words, write aliases, intent keywords and slots of the
same text; scanning it once and handing the same ``Analysis`` to each step keeps the request path
to one normalization and two Aho-Corasick passes (the ``text`` and ``squashed`` views).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import partial
from dataclasses import dataclass

from . import numerals
from .facts import PatientFacts, fact_flags
from .lexicon import Hit, Hits
from .policy import Policy, WriteTool
from .redflags import Flag, red_flags
from .slots import child_age
from .text import TextViews, views

# An identifier-shaped token with an underscore: how a tool name appears inside text.
_TOOL_TOKEN = re.compile(r"(?<![a-z0-9_])[a-z][a-z0-9]*_[a-z0-9_]*")


@dataclass(slots=True)
class WriteRef:
    """A write the text asks for: a registered tool (``tool`` set) or an unregistered write-looking name."""

    name: str
    tool: WriteTool | None
    matched: str
    position: int


@dataclass(slots=True)
class Analysis:
    views: TextViews
    hits: Hits  # scan of the text view: intent keywords and slot dictionaries
    squashed_hits: Hits  # scan of the squashed view (the same object when both views are equal)
    red_flags: list[Flag]  # every red-flag mention in text order, with its context (SPEC §4.7)
    current: list[str]  # distinct terms of the mentions that halt: current hard ones, confirmed ones
    soft_current: list[str]  # distinct concepts of the current soft mentions not confirmed: these ask severity
    staging: list[str]
    writes: list[WriteRef]


def analyze(
    policy: Policy,
    raw: str,
    caller: str | None = None,
    confirmed: frozenset[str] = frozenset(),
    age: Callable[[TextViews, Hits], float | None] | None = None,
    facts: PatientFacts | None = None,
    temperature: Callable[[TextViews, Hits], float | None] | None = None,
) -> Analysis:
    """``caller`` decides whether 我 / 本人 / 自己 are the patient (SPEC §4.7 subjects); None for
    classify_intent, which has no caller. ``confirmed``: the concepts the user said are happening
    now; a mention of one halts in any context (SPEC §4.7 "Soft signs ask"). ``age``: the slot
    readers' age of the child (the Router passes its own extractor's; None builds one per policy).
    ``facts``: the session's patient facts, whose red flags join the text's (SPEC §4.5 revision 3,
    ``facts.fact_flags``); ``temperature``: the slot readers' current temperature, asked only then."""
    read_age = age or partial(child_age, policy)
    v = views(raw)
    hits = policy.lexicon.scan(v.text)
    squashed = policy.redline.scan(v.squashed) if v.squashed != v.text else hits
    # Most texts have no red-flag, staging, critical or write word: ``get`` spares empty lists.
    get, get_squashed = hits.get, squashed.get
    critical = _critical_values(policy, v.text, hits) if "critical" in hits else []
    flags = red_flags(policy.red_flags, v, hits, squashed, critical, caller, lambda: read_age(v, hits))
    if facts is not None and policy.facts is not None:
        flags = flags + fact_flags(policy.facts, policy.red_flags, facts, v.text, hits, flags, caller,
                                   lambda: temperature(v, hits) if temperature is not None else None)
    current, soft_current = _halting(policy, flags, confirmed) if flags else ([], [])
    staging = _terms(get("staging"), get_squashed("staging"))
    writes = _writes(policy, v.text, hits, squashed) if "write" in hits or "write" in squashed or "_" in v.text else []
    return Analysis(v, hits, squashed, flags, current, soft_current, staging, writes)


def _halting(policy: Policy, flags: list[Flag], confirmed: frozenset[str]) -> tuple[list[str], list[str]]:
    soft = policy.red_flags.soft_terms
    current: list[str] = []
    asking: list[str] = []
    for f in flags:
        if f.concept in confirmed:
            current.append(f.term)
        elif f.context == "current":
            if f.term in soft and f.fact is None:  # a fact's flag is a hard one (尿少 of a graft)
                asking.append(f.concept)
            else:
                current.append(f.term)
    return list(dict.fromkeys(current)), list(dict.fromkeys(asking))


def _terms(first: list[Hit] | None, second: list[Hit] | None) -> list[str]:
    """Distinct terms, text-view hits first, then what only the squashed view revealed."""
    if not first and not second:
        return []
    found = (first or []) + (second or [])
    return list(dict.fromkeys([h.term for h in found]))


# A number in Arabic digits or a Chinese numeral (七点二), and whatever unit-like text follows it
# (毫摩尔/升 and 毫摩尔每升 whole: a unit read character by character would stop at 毫).
_NUMBER = re.compile(
    rf"(?<![a-z0-9.])(\d+(?:\.\d+)?|[{numerals.CHARS}]+)(?![\d.])\s*(毫摩尔(?:/|每)?升|[a-zμµ/%]+|[个克毫升碗片杯斤天岁次年月日号周]+)?"
)
_CLAUSE_END = re.compile("[，。！？；,!?;]")


def _critical_values(policy: Policy, text: str, hits: Hits) -> list[tuple[int, int, int]]:
    """Each analyte word, then the rest of its clause within the rule's window: every number there
    at or above the threshold, unit absent or allowed, is a critical value (血钾从5.0升到6.9 halts),
    each a mention of its own placed on the number, so each is read in its own context (SPEC §4.7
    "Every value is read": 血钾以前6.8，今天7.2). A clause that follows and opens with a time cue
    continues the word's reach (血钾以前6.8，今天7.2 reads 7.2).

    The numbers are read by one scan that every word shares, from the first word to as far as the
    last word's window reaches: a scan per word, from the word to the end of the text, made 钾
    written 2,000 times cost 0.2 s (issue 11). A word's numbers are the shared scan's from its end
    on, exactly those a scan of its own found: the two can differ only where a word's end falls
    inside a run of Chinese numeral characters (the only place inside a number where another may
    open), and policy load refuses a critical word that ends with a numeral character. Found as
    (start, end, rule index) of the number: a red-flag mention reports the rule's name, not the text."""
    words = hits.group("critical")  # in text order, with increasing ends
    scan = _NUMBER.finditer(text, words[0].end)
    numbers: list[re.Match[str]] = []  # read so far; those before ``first`` lie before every later word
    first = 0
    found: list[tuple[int, int, int]] = []
    opening = policy.red_flags.time_opening
    for word in words:
        rule = policy.red_flags.critical_values[word.payload]
        # the reach first: a following clause that opens with a time cue extends it past the window
        # (钾…，今天6.8), and a number there is the word's too. Bounded: at most two windows read.
        limit = _reach(text, word.end, word.end + rule.window, rule.window, opening)
        index = first
        while True:  # the first number at or after the word's end
            if index == len(numbers):
                number = next(scan, None)
                if number is None:
                    break
                numbers.append(number)
            if numbers[index].start() >= word.end:
                break
            index += 1
            first = index  # before this word, so before every later one
        if index == len(numbers) or numbers[index].start() >= limit:
            continue  # no number in reach (most words of a text that repeats one)
        while True:
            if index == len(numbers):
                number = next(scan, None)
                if number is None:
                    break
                numbers.append(number)
            number = numbers[index]
            index += 1
            if number.start() >= limit:
                break
            value = numerals.parse_number(number.group(1))
            unit = number.group(2)
            if value is None or (unit and unit not in rule.units):
                continue
            if rule.threshold <= value <= rule.plausible_max:
                found.append((number.start(1), number.end(1), word.payload))
    return found


def _reach(text: str, end: int, limit: int, window: int, opening: re.Pattern[str] | None) -> int:
    """Where a critical word's numbers stop: its clause end within the window (a clause break right
    after the word, 血钾：6.8, still belongs to it), or the end of a following clause of the same
    sentence that opens with a time cue."""
    cut = _CLAUSE_END.search(text, end + 1, limit)
    if cut is None:
        return limit
    if text[cut.start()] == "," and opening is not None and opening.match(text, cut.end()):
        further = cut.end() + window
        follow = _CLAUSE_END.search(text, cut.end(), further)
        return follow.start() if follow else further
    return cut.start()


def lookup_write_tool(policy: Policy, name: str) -> WriteTool | None:
    tool = policy.write_tools.get(name)
    if tool is not None:
        return tool
    for family in policy.write_tools.values():
        if family.is_family and name.startswith(family.name[:-1]) and len(name) > len(family.name) - 1:
            return family
    return None


def is_write_looking(policy: Policy, name: str) -> bool:
    return name.startswith(policy.write_prefixes)


def _writes(policy: Policy, text: str, hits: Hits, squashed: Hits) -> list[WriteRef]:
    refs: list[WriteRef] = []
    for hit in hits.group("write"):
        refs.append(WriteRef(hit.payload, lookup_write_tool(policy, hit.payload), hit.term, hit.start))
    if squashed is not hits:
        # Offsets in the squashed view are not offsets in the text; what only it reveals goes last.
        for hit in squashed.group("write"):
            refs.append(WriteRef(hit.payload, lookup_write_tool(policy, hit.payload), hit.term, len(text) + hit.start))
    if "_" in text:
        for match in _TOOL_TOKEN.finditer(text):
            name = match.group().rstrip("_")
            tool = lookup_write_tool(policy, name)
            if tool is not None or is_write_looking(policy, name):
                refs.append(WriteRef(name, tool, name, match.start()))
    if len(refs) < 2:
        return refs
    refs.sort(key=lambda r: r.position)
    distinct: dict[str, WriteRef] = {}
    for ref in refs:
        distinct.setdefault(ref.name, ref)
    return list(distinct.values())
