"""What the policy finds in one text, computed once per call and shared by every decision.

``route_request`` asks for P0 hits, staging words, write aliases, intent keywords and slots of the
same text; scanning it once and handing the same ``Analysis`` to each step keeps the request path
to one normalization and two Aho-Corasick passes (the ``text`` and ``squashed`` views). The staging
words and the writes are the gate's, read from the same scan when the gate gets to them.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import partial
from dataclasses import dataclass

from .facts import PatientFacts, fact_flags
from .lexicon import Hit, Hits
from .policy import Policy, WriteTool
from .redflags import Flag, halting, red_flags
from .slots import Values, analytes, child_values
from .text import Cut, TextViews, views

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
    current: list[str]  # ``redflags.halting``: the terms that halt (P0), read by every step that halts
    soft_current: list[str]  # ``redflags.halting``: the current soft concepts not confirmed, which ask severity
    # SPEC §4.7 revision 3: the current symptom mentions about the patient that no red flag covers
    # (concept "symptom.<family>"); not confirmed, they ask their family's question.
    symptoms: list[Flag]
    cut: Cut  # where the text view's sentences and clauses end: cut once, on first use, for every stage


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
    cut = Cut(v.text)
    hits = policy.lexicon.scan(v.text)
    squashed = policy.redline.scan(v.squashed) if v.squashed != v.text else hits
    rules = policy.red_flags
    # The cue words, scanned once, when the first context walk asks (the red flags' two walks and
    # the facts' one read the same hits; most texts have no mention and no walk). A closure, not
    # functools.cache: building a cache wrapper costs more than most texts' whole red-flag step.
    scanned: list[list[Hit]] = []

    def cues() -> list[Hit]:
        if not scanned:
            scanned.append(rules.context.lexicon.scan_group(v.text))
        return scanned[0]

    # Every analyte value the slot reader gives a critical word; ``red_flags`` keeps those at or above
    # their rule's threshold.
    critical = (analytes.critical_values(v.text, hits.group("critical"), hits.group("analyte"), rules.time_opening,
                                            policy.slot_words.lab_values.units)
                if "critical" in hits else [])
    child = read_values(v, hits)
    flags, symptoms = red_flags(rules, v, hits, squashed, critical, caller, child, cues, cut)
    if facts is not None and policy.facts is not None:
        flags = flags + fact_flags(policy.facts, rules, facts, cut, hits, flags, caller,
                                   lambda: child.temperature, cues)
    # Most texts have no mention at all: nothing halts and nothing asks its severity.
    current, soft_current = halting(rules, flags, symptoms, confirmed) if flags or symptoms else ([], [])
    return Analysis(v, hits, squashed, flags, current, soft_current, symptoms, cut)


def staging_words(analysis: Analysis) -> list[str]:
    """The distinct staging words (MX-1), text-view hits first, then what only the squashed view
    revealed: read by the gate, and only for a caller MX-1 may delegate."""
    first, second = analysis.hits.get("staging"), analysis.squashed_hits.get("staging")
    if not first and not second:
        return []
    found = (first or []) + (second or [])
    return list(dict.fromkeys([h.term for h in found]))


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


def find_writes(policy: Policy, analysis: Analysis) -> list[WriteRef]:
    """The writes the text asks for (MX-3), in text order: read by the gate when it resolves the
    text, never on the way to a halt or a question."""
    text, hits, squashed = analysis.views.text, analysis.hits, analysis.squashed_hits
    if "write" not in hits and "write" not in squashed and "_" not in text:
        return []
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
