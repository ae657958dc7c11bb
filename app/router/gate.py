"""The safety gate and the permission matrix (SPEC §4.1, §4.3).

Fixed order, written once as the table ``GATE`` of named stages run by one loop (``first``): P0 (a
current or confirmed red flag halts; a current soft one not acknowledged asks its severity question;
any other red flag not acknowledged asks whether it is happening now) → INPUT → MX-1 → MX-2 → MX-3 →
permission matrix → PASS; the first stage that decides wins. Every denial is a value (``Verdict``),
never an exception. ``check_permission`` shares the MX-3 and matrix steps, so a write tool is
decided the same way by both tools.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TypeVar

from .analysis import Analysis, WriteRef, find_writes, is_write_looking, lookup_write_tool, staging_words
from .classify import Classification, classify
from .policy import Policy, WriteTool
from .text import fold

_IDENTIFIER = re.compile(r"[a-z][a-z0-9_]*")


@dataclass(slots=True)
class Resolution:
    """What a gate ``intent`` argument resolved to."""

    intent: str | None
    mcp: str | None
    writes: tuple[WriteRef, ...] = ()
    matched: tuple[str, ...] = ()


@dataclass(slots=True)
class Verdict:
    allow: bool
    gate: str
    reason_code: str
    reason: str
    applied_rule: str = "none"
    delegate_to: str | None = None
    requires_confirmation: bool = False
    limited_view: bool = False
    write_tool: str | None = None
    matched: list[str] = field(default_factory=list)
    matched_concepts: list[str] = field(default_factory=list)  # p0_confirm_severity / _symptom: whose question to ask


def resolve(policy: Policy, analysis: Analysis, classification: Classification | None = None) -> Resolution:
    """A registered or write-looking tool name, a write alias, an intent name, or classified text."""
    if analysis.current:
        return Resolution(policy.emergency.name, policy.router_mcp, matched=tuple(analysis.current))
    key = analysis.views.text.strip()
    if key.isascii() and _IDENTIFIER.fullmatch(key):  # isascii is O(1) on str
        intent = policy.intent_by_name.get(key)
        if intent is not None:
            return Resolution(intent.name, intent.mcp, matched=(key,))
        tool = lookup_write_tool(policy, key)
        if tool is not None or is_write_looking(policy, key):
            return _write_resolution(policy, (WriteRef(key, tool, key, 0),))
    found = find_writes(policy, analysis)
    if found:
        return _write_resolution(policy, tuple(found))
    result = classification or classify(policy, analysis)
    if result.best is None:
        return Resolution(None, None)
    return Resolution(result.best.intent.name, result.best.intent.mcp, matched=result.best.keywords)


def _write_resolution(policy: Policy, writes: tuple[WriteRef, ...]) -> Resolution:
    first = writes[0]
    mcp = first.tool.mcp if first.tool else None
    owner = policy.intent_by_mcp.get(mcp) if mcp else None
    return Resolution(owner.name if owner else None, mcp, writes, tuple(w.matched for w in writes))


@dataclass(slots=True)
class Case:
    """One gate decision: its arguments, and the text's resolution, found when a stage first asks
    (a halt or a question never needs it). ``acknowledged``: the concepts the user said are not
    happening now (SPEC §4.7); they never lift a current one. ``roles``: the caller roles the
    request's access token was issued for (None: no such limit). ``classification``: the text's,
    when the caller has it."""

    policy: Policy
    scope: frozenset[str] | None
    analysis: Analysis
    caller: str
    target_mcp: str = ""
    acknowledged: frozenset[str] = frozenset()
    roles: frozenset[str] | None = None
    classification: Classification | None = None
    _resolution: Resolution | None = None

    def resolution(self) -> Resolution:
        if self._resolution is None:
            self._resolution = resolve(self.policy, self.analysis, self.classification)
        return self._resolution


# A stage decides (a Verdict) or lets the next one decide (None).
Stage = Callable[[Case], Verdict | None]


def p0_halt(case: Case) -> Verdict | None:
    """P0_EMERGENCY: a red flag that halts (``redflags.halting``: current, or confirmed), whoever
    the caller and whatever the acknowledgements."""
    if case.analysis.current:
        return Verdict(False, "P0_EMERGENCY", "p0_emergency", "emergency red flag: stop and escalate",
                       matched=list(case.analysis.current))
    return None


def p0_ask(case: Case) -> Verdict | None:
    """P0_CONFIRM, once nothing halts: a current soft mention whose severity is unanswered asks
    its severity question; then a current symptom family not acknowledged asks its question; then
    any other red flag not acknowledged asks whether it is happening now.

    One turn holds every question about the child's current signs: a severity question also asks
    the text's unasked symptom families, and the first turn that asks about a current sign also asks
    ``every_sick_child``'s question (IMCI: the general danger signs of every sick child) unless it is
    acknowledged — so a later symptom of the general families asks nothing more."""
    analysis, acknowledged = case.analysis, case.acknowledged
    if not analysis.red_flags and not analysis.symptoms:
        return None
    rules = case.policy.red_flags
    stands_for, every_sick_child = rules.stands_for, rules.every_sick_child
    severity = unanswered_severity(analysis, acknowledged, stands_for) if analysis.soft_current else []
    families = unasked_symptoms(analysis, acknowledged) if analysis.symptoms else []
    if severity or families:
        asked = severity + families
        if severity and stands_for:
            # The families whose question answers a severity question asked here are asked beside it,
            # so one no covers the family for the rest of the conversation (有点喘, then 咳嗽喘).
            asked += [f for f, covered in stands_for.items()
                      if f not in acknowledged and f not in asked and any(c in covered for c in severity)]
        if every_sick_child is not None and every_sick_child not in acknowledged and every_sick_child not in asked:
            asked.append(every_sick_child)
        if severity:
            return Verdict(False, "P0_CONFIRM", "p0_confirm_severity",
                           "a mild form of a danger sign is mentioned: ask its severity question",
                           matched=list(dict.fromkeys([f.term for f in analysis.red_flags
                                                       if f.context == "current" and f.concept in severity])),
                           matched_concepts=asked)
        return Verdict(False, "P0_CONFIRM", "p0_confirm_symptom",
                       "a symptom of the child is mentioned: ask its family's emergency questions",
                       matched=list(dict.fromkeys([f.term for f in analysis.symptoms if f.concept in families])),
                       matched_concepts=asked)
    asking = unacknowledged(analysis, acknowledged, rules.answers_now) if analysis.red_flags else []
    if asking:
        return Verdict(False, "P0_CONFIRM", "p0_confirm_current",
                       "a red flag is mentioned: ask whether it is happening to the patient now", matched=asking)
    return None


def input_checks(case: Case) -> Verdict | None:
    """INPUT: a registered caller in the server's and the token's scope, a registered target."""
    return check_input(case.policy, case.scope, case.caller, case.target_mcp or None, case.roles)


def input_intent(case: Case) -> Verdict | None:
    """INPUT: an intent that is not empty and resolves to a target."""
    text = case.analysis.views.text
    if not text or text.isspace():
        return Verdict(False, "INPUT", "empty_intent", "intent is empty")
    resolution = case.resolution()
    if (case.target_mcp or resolution.mcp) is None and not resolution.writes:
        return Verdict(False, "INPUT", "target_unresolved", "no MCP could be resolved from intent")
    return None


def mx1(case: Case) -> Verdict | None:
    """MX-1: staging words from a caller it delegates; the clinical calculator is the doctor's."""
    rule, caller = case.policy.mx1, case.caller
    if caller in rule.staging_denied_callers:
        words = staging_words(case.analysis)
        if words:
            return Verdict(False, "MX", "mx1_staging_delegate", f"CKD staging questions are for {rule.delegate_to}",
                           "MX-1", rule.delegate_to, matched=words)
    resolution = case.resolution()
    if (case.target_mcp or resolution.mcp) == rule.calc_mcp and caller not in rule.calc_callers:
        return Verdict(False, "MX", "mx1_calc_doctor_only", "the clinical calculator is closed to this caller",
                       "MX-1", rule.delegate_to, matched=list(resolution.matched))
    return None


def mx2(case: Case) -> Verdict | None:
    """MX-2: gamification is the child's; the child stays off the clinical MCPs."""
    rule, caller, resolution = case.policy.mx2, case.caller, case.resolution()
    target = case.target_mcp or resolution.mcp
    if target == rule.gamification_mcp and caller not in rule.gamification_callers:
        return Verdict(False, "MX", "mx2_gamification_child_only", "gamification serves the child companion only",
                       "MX-2", matched=list(resolution.matched))
    if caller == rule.child_caller and target in rule.child_denied_mcps:
        return Verdict(False, "MX", "mx2_child_restricted", "the child companion may not use this MCP",
                       "MX-2", matched=list(resolution.matched))
    return None


def mx3(case: Case) -> Verdict | None:
    """MX-3: a write the text resolves to is decided here, allowed or not; the matrix is not asked."""
    resolution = case.resolution()
    if resolution.writes:
        return decide_writes(resolution.writes, case.caller, case.target_mcp or resolution.mcp, list(resolution.matched))
    return None


def permission_matrix(case: Case) -> Verdict:
    """The permission matrix's cell for (caller, target): the last stage, it always decides."""
    resolution = case.resolution()
    target = case.target_mcp or resolution.mcp
    assert target is not None  # input_intent denied a text with neither a target nor a write
    return decide_cell(case.policy, case.caller, target, write=False, matched=list(resolution.matched))


# SPEC §4.1's fixed order: the first stage that decides wins. route_request runs the same stages in
# its own order (engine.ROUTE: the caller before P0's questions, SPEC §4.5), and the stages from
# INPUT's intent check on as its gate step.
AFTER_INPUT: tuple[Stage, ...] = (input_intent, mx1, mx2, mx3, permission_matrix)
GATE: tuple[Stage, ...] = (p0_halt, p0_ask, input_checks) + AFTER_INPUT


_State = TypeVar("_State")
_Decision = TypeVar("_Decision")


def first(steps: tuple[Callable[[_State], _Decision | None], ...], state: _State) -> _Decision | None:
    """The decision of the first step that decides, in the table's order; None when none does. The
    one loop that runs an order: the gate's stages here, route_request's steps (``engine.ROUTE``)."""
    for step in steps:
        decision = step(state)
        if decision is not None:
            return decision
    return None


def gate(case: Case) -> Verdict:
    """check_safety_gate: the first denial of ``GATE``, or a pass (its last stage always decides)."""
    verdict = first(GATE, case)
    assert verdict is not None  # permission_matrix decides whatever reaches it
    return verdict


def unacknowledged(
    analysis: Analysis, acknowledged: frozenset[str], answers_now: Mapping[str, frozenset[str]] | None = None
) -> list[str]:
    """Terms of the non-current red flags whose concept is not acknowledged: these ask. A symptom
    family the user answered no to answers the concepts of its ``answers_now`` too: its question
    asked whether their danger signs are happening now."""
    answered = _answered(acknowledged, answers_now)
    return list(dict.fromkeys(
        [f.term for f in analysis.red_flags if f.context != "current" and f.concept not in answered]
    ))


def _answered(acknowledged: frozenset[str], stands_for: Mapping[str, frozenset[str]] | None) -> frozenset[str]:
    if not stands_for or not acknowledged:
        return acknowledged
    answered = set(acknowledged)
    for concept in acknowledged:
        answered |= stands_for.get(concept, frozenset())
    return frozenset(answered)


def unanswered_severity(
    analysis: Analysis, acknowledged: frozenset[str], stands_for: Mapping[str, frozenset[str]] | None = None
) -> list[str]:
    """Concepts of the current soft mentions whose severity the user has not answered: these ask
    their severity question (SPEC §4.7 "Soft signs ask"). An acknowledged symptom concept answers
    the severity questions it ``stands_for`` (symptom.general: IMCI's general danger signs)."""
    answered = _answered(acknowledged, stands_for)
    return [c for c in analysis.soft_current if c not in answered]


def unasked_symptoms(analysis: Analysis, acknowledged: frozenset[str]) -> list[str]:
    """Symptom concepts of the current symptom mentions not acknowledged, in text order: each asks
    its family's question, all in one turn (SPEC §4.7 revision 3)."""
    return list(dict.fromkeys([f.concept for f in analysis.symptoms if f.concept not in acknowledged]))


def check_input(
    policy: Policy, scope: frozenset[str] | None, caller: str, mcp: str | None, roles: frozenset[str] | None = None
) -> Verdict | None:
    """The INPUT checks shared by the gate, check_permission and route_request: registered, in the
    server's scope, in the access token's role scopes (SPEC §5.4a), known target.

    ``mcp`` None means "not given" (the gate then resolves it from the text). ``roles`` None: the
    request carried no role-scoped token (a static service token), so only the server scope applies.
    """
    if caller not in policy.roles:
        return Verdict(False, "INPUT", "caller_unknown", "caller is not a registered role")
    if scope is not None and caller not in scope:
        return Verdict(False, "INPUT", "caller_out_of_scope", "caller is outside this token's scope")
    if roles is not None and caller not in roles:
        return Verdict(False, "INPUT", "caller_not_in_scope", "the access token was not issued for this caller role")
    if mcp is not None and mcp not in policy.mcp_id:
        return Verdict(False, "INPUT", "target_unknown", "MCP is not registered")
    return None


def decide_writes(writes: tuple[WriteRef, ...], caller: str, target: str | None, matched: list[str]) -> Verdict:
    """MX-3: every write must be registered, allowed for the caller, and bound to the target MCP."""
    registered: list[tuple[WriteRef, WriteTool]] = []
    for ref in writes:
        if ref.tool is None:
            return Verdict(False, "MX", "mx3_unregistered_write", "write-looking tool is not registered",
                           "MX-3", write_tool=ref.name, matched=matched)
        registered.append((ref, ref.tool))
    for ref, tool in registered:
        if caller not in tool.callers:
            return Verdict(False, "MX", "mx3_write_not_allowed", "this caller may not use this write tool",
                           "MX-3", write_tool=ref.name, matched=matched)
    for ref, tool in registered:
        if tool.mcp != target:
            return Verdict(False, "MX", "mx3_target_mismatch", "write tool belongs to another MCP",
                           "MX-3", write_tool=ref.name, matched=matched)
    confirm = any(tool.requires_confirmation for _, tool in registered)
    return Verdict(True, "PASS", "pass", "registered write allowed by MX-3" + (", after human confirmation" if confirm else ""),
                   "MX-3", requires_confirmation=confirm, write_tool=writes[0].name, matched=matched)


def decide_cell(policy: Policy, caller: str, target: str, write: bool, matched: list[str]) -> Verdict:
    cell = policy.matrix[(caller, target)]
    if cell == "-":
        return Verdict(False, "PERMISSION_MATRIX", "matrix_no_access", "the permission matrix gives this caller no access", matched=matched)
    if write and "W" not in cell:
        return Verdict(False, "PERMISSION_MATRIX", "matrix_write_not_allowed", "the permission matrix gives this caller no write access", matched=matched)
    confirm = write and any(
        tool.requires_confirmation for tool in policy.write_tools.values() if tool.mcp == target and caller in tool.callers
    )
    return Verdict(True, "PASS", "pass", "allowed" + (" with a limited view" if cell == "RL" else ""),
                   requires_confirmation=confirm, limited_view=cell == "RL", matched=matched)


def permission(
    policy: Policy, scope: frozenset[str] | None, caller: str, mcp: str, action: str, roles: frozenset[str] | None = None
) -> tuple[Verdict, str, str | None]:
    """check_permission's decision: (verdict, resolved_action, raw cell or None)."""
    name = fold(action).strip()  # same normalization as text: ｐｕｓｈ＿ｔｏ＿ｅｍｒ and push\u200b_to_emr are writes
    tool = None if name in ("read", "write", "") else lookup_write_tool(policy, name)
    write_like = name == "write" or tool is not None or (name not in ("read", "") and is_write_looking(policy, name))
    resolved_action = "write" if write_like else "read"
    denial = check_input(policy, scope, caller, mcp, roles)
    if denial:
        return denial, resolved_action, None
    cell = policy.matrix[(caller, mcp)]
    if write_like and name != "write":
        return decide_writes((WriteRef(name, tool, name, 0),), caller, mcp, []), resolved_action, cell
    return decide_cell(policy, caller, mcp, write=write_like, matched=[]), resolved_action, cell
