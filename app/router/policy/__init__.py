"""The policy: one TOML file (``app/router/policy.toml``), validated into pydantic models, compiled
into matchers once.

``load_policy`` refuses a file with any inconsistency (unknown role in a rule, a write tool bound
to an unregistered MCP, overlapping aliases or keywords, empty lists, a missing matrix cell) and
names every problem it found. ``policy_version`` is the file's ``version`` plus the first 12 hex
digits of its sha256, so a logged decision can be traced to the exact rules that made it.

Each section of the file has one module here holding its model, its checks and its compiled form
side by side, so a new field is touched in one place:

* ``access``    roles, MCPs, the permission matrix, MX-1/2/3, write tools and aliases, staging, route
* ``asking``    intents and their keywords, what is asked (question words, readings, feeding…), medicines
* ``slots``     the slot readers' words (``[slots]``)
* ``red_flags`` P0 concepts, critical values, blood pressure, infant fever, symptom families
* ``cues``      the ``[context]`` section: subject words and cue rules
* ``facts``     how the session's patient facts feed the red flags

This module holds the root: the file's model, the order the sections are checked in, and the
compiled ``Policy`` every decision reads (one flat object: the decisions read it per call).
"""

from __future__ import annotations

import hashlib
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated

from pydantic import Field, ValidationError

from ..lexicon import Lexicon
from . import access, asking, cues, facts, red_flags, slots
from .access import Cell, McpEntry, Mx1Rule, Mx2Rule, Rules, RouteEntry, StagingEntry, WriteTool, WriteToolEntry
from .asking import Asking, AskingEntry, Intent, IntentEntry, MedicinesEntry
from .common import NonEmpty, Strict, Terms, shipped_bytes
from .cues import ContextEntry
from .facts import FactRules, FactsEntry
from .red_flags import P0Entry, RedFlagRules, SymptomsEntry
from .slots import SlotsEntry, SlotsPolicy, SlotWords, compile_slot_words

__all__ = [
    "Asking",
    "Intent",
    "Policy",
    "PolicyError",
    "PolicyFile",
    "WriteTool",
    "default_policy_bytes",
    "load_policy",
    "parse_policy",
]


class PolicyError(ValueError):
    """A policy file that must not be served. ``problems`` lists every reason, one per line."""

    def __init__(self, problems: list[str]):
        self.problems = problems
        super().__init__("invalid policy:\n" + "\n".join(f"  - {p}" for p in problems))


class PolicyFile(Strict):
    version: NonEmpty
    roles: Terms
    mcps: Annotated[dict[NonEmpty, McpEntry], Field(min_length=1)]
    matrix: dict[NonEmpty, dict[NonEmpty, Cell]]
    rules: Rules
    write_tools: Annotated[list[WriteToolEntry], Field(min_length=1)]
    p0: P0Entry
    context: ContextEntry
    symptoms: SymptomsEntry | None = None  # SPEC §4.7 revision 3; absent in a policy before it
    staging: StagingEntry
    intents: Annotated[list[IntentEntry], Field(min_length=1)]
    route: RouteEntry
    asking: AskingEntry
    medicines: MedicinesEntry
    slots: SlotsEntry
    facts: FactsEntry | None = None  # absent: patient facts feed no rule (a policy written before them)


@dataclass(frozen=True)
class Policy:
    version: str
    digest: str
    roles: tuple[str, ...]
    mcp_names: tuple[str, ...]
    mcp_id: dict[str, str]  # registry name → M-id
    router_mcp: str
    matrix: dict[tuple[str, str], str]  # (role, registry name) → cell
    mx1: Mx1Rule
    mx2: Mx2Rule
    write_prefixes: tuple[str, ...]
    write_tools: dict[str, WriteTool]
    intents: tuple[Intent, ...]
    intent_by_name: dict[str, Intent]
    intent_by_mcp: dict[str, Intent]
    emergency: Intent  # the P0 intent: forced by a current red flag, never scored
    red_flags: RedFlagRules  # concepts' patterns, critical values, infant fever, context cues
    lexicon: Lexicon  # every word list, scanned on the text view
    redline: Lexicon  # red-line words only, scanned on the squashed view
    intent_lexicon: Lexicon  # intent keywords, for the squashed view when the text view has none
    slots: SlotsPolicy
    slot_words: SlotWords  # the slot grammar's words (``[slots.*]`` families)
    asking: Asking
    write_required_slots: tuple[str, ...]
    session_only_callers: frozenset[str]
    facts: FactRules | None  # how the session's patient facts feed the red flags (SPEC §4.5 revision 3)

    @property
    def policy_version(self) -> str:
        return f"{self.version}+{self.digest}"


def default_policy_bytes() -> bytes:
    return shipped_bytes()


def load_policy(path: str | Path | None = None) -> Policy:
    """Load, validate and compile a policy file (the shipped one when ``path`` is None)."""
    if path is None:
        data = default_policy_bytes()
    else:
        try:
            data = Path(path).read_bytes()
        except OSError as exc:
            raise PolicyError([f"cannot read policy file: {exc.strerror or exc.__class__.__name__}"]) from None
    return parse_policy(data)


def parse_policy(data: bytes) -> Policy:
    try:
        raw = tomllib.loads(data.decode("utf-8"))
    except UnicodeDecodeError:
        raise PolicyError(["policy file is not UTF-8"]) from None
    except tomllib.TOMLDecodeError as exc:
        raise PolicyError([f"policy file is not valid TOML: {exc}"]) from None
    try:
        spec = PolicyFile.model_validate(raw)
    except ValidationError as exc:
        raise PolicyError(
            [f"{'.'.join(str(p) for p in err['loc']) or 'policy'}: {err['msg']}" for err in exc.errors()]
        ) from None
    problems = _cross_check(spec)
    if problems:
        raise PolicyError(problems)
    return _compile(spec, hashlib.sha256(data).hexdigest()[:12])


def _cross_check(spec: PolicyFile) -> list[str]:
    """Every reference between sections must resolve; every list must be free of overlaps."""
    roles = set(spec.roles)
    problems = access.check(spec.roles, spec.mcps, spec.matrix, spec.rules, spec.write_tools, spec.staging, spec.route)
    problems += red_flags.check(spec.p0, spec.symptoms)
    problems += cues.check(spec.context, roles)
    if spec.facts is not None:
        problems += facts.check(spec.facts, [c.id for c in spec.p0.concepts])
    intent_problems, keyword_owner = asking.check_intents(spec.intents, roles, set(spec.mcps))
    problems += intent_problems
    problems += asking.check_asking(spec.asking, spec.medicines, keyword_owner)
    problems += slots.check(spec.slots, spec.context)
    return problems


def _compile(spec: PolicyFile, digest: str) -> Policy:
    name_of = {mcp_id: entry.name for mcp_id, entry in spec.mcps.items()}
    intents = asking.compile_intents(spec.intents, name_of)
    slot_words = compile_slot_words(spec.slots)
    emergency = next(i for i in intents if not spec.intents[i.order].keywords)
    slot_dictionaries = slots.compile_slots(spec.slots, spec.context)
    p0_groups = red_flags.p0_words(spec.p0)
    redline_groups = {"p0": p0_groups["p0"], "staging": access.staging_words(spec.staging),
                      "write": access.alias_words(spec.write_tools), "critical": p0_groups["critical"]}
    intent_groups = asking.intent_groups(spec.intents)
    return Policy(
        version=spec.version,
        digest=digest,
        roles=tuple(spec.roles),
        mcp_names=tuple(name_of.values()),
        mcp_id={name: mcp_id for mcp_id, name in name_of.items()},
        router_mcp=emergency.mcp,
        matrix=access.compile_matrix(spec.matrix, name_of),
        mx1=access.compile_mx1(spec.rules.mx1, name_of),
        mx2=access.compile_mx2(spec.rules.mx2, name_of),
        write_prefixes=tuple(spec.rules.mx3.write_prefixes),
        write_tools=access.compile_write_tools(spec.write_tools, name_of),
        intents=intents,
        intent_by_name={i.name: i for i in intents},
        intent_by_mcp={i.mcp: i for i in reversed(intents)},
        emergency=emergency,
        red_flags=red_flags.compile_rules(spec.p0, spec.context, spec.symptoms),
        lexicon=Lexicon(redline_groups | intent_groups | asking.asking_groups(spec.asking, spec.medicines)
                        | slots.lexicon_groups(slot_dictionaries, spec.slots, spec.context)
                        | red_flags.symptom_words(spec.p0, spec.symptoms)
                        | (facts.lexicon_groups(spec.facts) if spec.facts else {})),
        redline=Lexicon(redline_groups),
        intent_lexicon=Lexicon(intent_groups),
        slots=slot_dictionaries,
        slot_words=slot_words,
        asking=asking.compile_asking(spec.asking, spec.medicines),
        write_required_slots=tuple(spec.route.write_required_slots),
        session_only_callers=frozenset(spec.route.session_only_callers),
        facts=facts.compile_rules(spec.facts, slot_words.temperatures.reply_opening) if spec.facts else None,
    )
