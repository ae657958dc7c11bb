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

from .facts import PatientFacts, fact_flags
from .lexicon import Hit, Hits
from .policy import Policy, WriteTool
from .redflags import Flag, red_flags
from .slots import Values, analytes, child_values
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
    # SPEC §4.7 revision 3: the current symptom mentions about the patient that no red flag covers
    # (concept "symptom.<family>"); not confirmed, they ask their family's question.
    symptoms: list[Flag]


def analyze(
    policy: Policy,
    raw: str,
    caller: str | None = None,
    confirmed: frozenset[str] = frozenset(),
    values: Callable[[TextViews, Hits], Values] | None = None,
    facts: PatientFacts | None = None,
) -> Analysis:
    """``caller`` decides whether 我 / 本人 / 自己 are the patient (SPEC §4.7 subjects); None for
    classify_intent, which has no caller. ``confirmed``: the concepts the user said are happening
    now; a mention of one halts in any context (SPEC §4.7 "Soft signs ask"). ``values``: the slot
    readers' age and temperature of the child (the Router passes its own request's reading, which
    its slots reuse; None builds an extractor per policy) — SPEC §4.7 revision 3, one reading of
    every value. ``facts``: the session's patient facts, whose red flags join the text's (SPEC §4.5
    revision 3, ``facts.fact_flags``; they read the same temperature)."""
    read_values = values or partial(child_values, policy)
    v = views(raw)
    hits = policy.lexicon.scan(v.text)
    squashed = policy.redline.scan(v.squashed) if v.squashed != v.text else hits
    # Most texts have no red-flag, staging, critical or write word: ``get`` spares empty lists.
    get, get_squashed = hits.get, squashed.get
    critical = _critical_values(policy, v.text, hits) if "critical" in hits else []
    child = read_values(v, hits)
    flags, symptoms = red_flags(policy.red_flags, v, hits, squashed, critical, caller, child)
    if facts is not None and policy.facts is not None:
        flags = flags + fact_flags(policy.facts, policy.red_flags, facts, v.text, hits, flags, caller,
                                   lambda: child.temperature)
    current, soft_current = _halting(policy, flags, confirmed) if flags else ([], [])
    if symptoms and confirmed:
        # a confirmed family halts (the user said yes to its question)
        current += [f.term for f in symptoms if f.concept in confirmed and f.term not in current]
    staging = _terms(get("staging"), get_squashed("staging"))
    writes = _writes(policy, v.text, hits, squashed) if "write" in hits or "write" in squashed or "_" in v.text else []
    return Analysis(v, hits, squashed, flags, current, soft_current, staging, writes, symptoms)


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


def _critical_values(policy: Policy, text: str, hits: Hits) -> list[tuple[int, int, int]]:
    """Every analyte value the slot reader gives a critical word (``slots.analytes``: wherever it
    stands in the word's clause, or in the next clause that names no other analyte) at or above its
    rule's threshold, unit absent or allowed: each a mention of its own placed on the number, so
    each is read in its own context (SPEC §4.7 "Every value is read": 血钾以前6.8，今天7.2). Found
    as (start, end, rule index) of the number: a red-flag mention reports the rule's name, not the
    text."""
    rules = policy.red_flags.critical_values
    found: list[tuple[int, int, int]] = []
    for value in analytes.critical_values(text, hits.group("critical"), hits.group("analyte"), policy.red_flags.time_opening,
                                          policy.slot_words.lab_values.units):
        rule = rules[value.rule]
        if (value.unit is None or value.unit in rule.units) and rule.threshold <= value.value <= rule.plausible_max:
            found.append((value.start, value.end, value.rule))
    return found


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
