"""The five tools over one loaded policy: ``Router``.

A ``Router`` is immutable: a compiled policy, the limits the operator chose and the token's caller
scope. Every method is a pure function of its arguments and that state (plus today's date, only
when a relative date has no ``reference_date``). ``call`` is the single entry for untrusted
arguments: it validates them with the same models that generate the MCP schemas.

``route_request`` is a table, ``ROUTE``: its steps in SPEC §4.5's order, run by the gate's loop
(``gate.first``). The module runs past 400 lines because the steps build their results with the
Router's own result builders, and reading the table beside the tools it composes is the point.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime
from typing import Any, Callable, Iterable, Mapping
from zoneinfo import ZoneInfo

from pydantic import BaseModel, ValidationError

from .analysis import Analysis, analyze
from .classify import Classification, classify
from .gate import AFTER_INPUT, Case, Resolution, Verdict, first, gate, input_checks, p0_ask, p0_halt, permission
from .models import (
    ArgumentError,
    Candidate,
    ClassifyArgs,
    ClassifyResult,
    GateArgs,
    GateResult,
    PermissionArgs,
    PermissionResult,
    RedFlag,
    RouteArgs,
    SeverityQuestion,
    RouteResult,
    SlotsArgs,
    SlotsResult,
    safe_field,
    validation_message,
)
from .built import builder
from .facts import PatientFacts, as_facts
from .patients import other_patient
from .policy import Policy
from .slots import SlotExtractor
from .text import views

_gate_result = builder(GateResult)
_route_result = builder(RouteResult)
_classify_result = builder(ClassifyResult)
_permission_result = builder(PermissionResult)
_candidate = builder(Candidate)
_red_flag = builder(RedFlag)
_question = builder(SeverityQuestion)


@dataclass(frozen=True, slots=True)
class Limits:
    max_text_chars: int = 2000
    min_confidence: float = 0.6
    timezone: str = "Asia/Shanghai"


class UnknownTool(LookupError):
    """A tool name the router does not serve (a protocol error, not a tool result)."""


@dataclass(frozen=True, slots=True)
class ToolSpec:
    name: str
    args: type[BaseModel]
    result: type[BaseModel]
    text_fields: tuple[str, ...]


TOOLS: dict[str, ToolSpec] = {
    spec.name: spec
    for spec in (
        ToolSpec("check_safety_gate", GateArgs, GateResult, ("intent", "caller", "target_mcp")),
        ToolSpec("classify_intent", ClassifyArgs, ClassifyResult, ("text",)),
        ToolSpec("check_permission", PermissionArgs, PermissionResult, ("caller", "mcp", "action")),
        ToolSpec("extract_slots", SlotsArgs, SlotsResult, ("text",)),
        ToolSpec("route_request", RouteArgs, RouteResult, ("text", "caller")),
    )
}


class Router:
    def __init__(
        self,
        policy: Policy,
        limits: Limits = Limits(),
        scope: frozenset[str] | None = None,
        today: Callable[[], date] | None = None,
    ):
        self.policy = policy
        self.limits = limits
        self.scope = scope
        self.policy_version = policy.policy_version
        self._concepts = frozenset(policy.red_flags.concept_ids) | policy.red_flags.symptom_concepts
        self._slots = SlotExtractor(policy)
        zone = ZoneInfo(limits.timezone)
        self._today = today or (lambda: datetime.now(zone).date())
        self._methods: dict[str, Callable[..., BaseModel]] = {
            "check_safety_gate": self.check_safety_gate,
            "classify_intent": self.classify_intent,
            "check_permission": self.check_permission,
            "extract_slots": self.extract_slots,
            "route_request": self.route_request,
        }

    # ----------------------------------------------------------------------------------------
    # Untrusted entry
    # ----------------------------------------------------------------------------------------

    def call(self, tool: str, arguments: Any, roles: frozenset[str] | None = None) -> BaseModel:
        """Validate ``arguments`` for ``tool`` and run it. Raises UnknownTool or ArgumentError.

        ``roles``: the caller roles the request's access token was issued for (SPEC §5.4a), data the
        protocol layer hands in per request; None when the request carried no role-scoped token.
        """
        spec = TOOLS.get(tool) if isinstance(tool, str) else None
        if spec is None:
            raise UnknownTool("unknown tool")
        if arguments is None:
            arguments = {}
        if not isinstance(arguments, dict):
            raise ArgumentError("arguments", "must be an object")
        try:
            args = spec.args.model_validate(arguments)
        except ValidationError as exc:
            error = exc.errors(include_url=False, include_context=True, include_input=False)[0]
            raise ArgumentError(safe_field(error["loc"]), validation_message(error)) from None
        # The validated fields by name, in declaration order (extra fields are forbidden). A getattr
        # of a field the model lacks goes through pydantic's __getattr__ and an AttributeError: 5 µs,
        # a third of a check_permission call.
        values = args.__dict__
        limit = self.limits.max_text_chars
        for name in spec.text_fields:
            if len(values[name]) > limit:
                raise ArgumentError(name, f"must be at most {limit} characters")
        acknowledged = values.get("acknowledged_red_flags")
        if acknowledged and not self._concepts.issuperset(acknowledged):
            raise ArgumentError("acknowledged_red_flags", "must list known red-flag concept ids")
        confirmed = values.get("confirmed_red_flags")
        if confirmed:
            if not self._concepts.issuperset(confirmed):
                raise ArgumentError("confirmed_red_flags", "must list known red-flag concept ids")
            if acknowledged and not set(acknowledged).isdisjoint(confirmed):
                raise ArgumentError("confirmed_red_flags", "a concept may not be both acknowledged and confirmed")
        kwargs = dict(values)
        if roles is not None and "caller" in kwargs:
            kwargs["roles"] = roles
        return self._methods[tool](**kwargs)

    # ----------------------------------------------------------------------------------------
    # The five tools
    # ----------------------------------------------------------------------------------------

    def check_safety_gate(
        self,
        intent: str,
        caller: str,
        target_mcp: str = "",
        acknowledged_red_flags: Iterable[str] = (),
        confirmed_red_flags: Iterable[str] = (),
        patient_facts: PatientFacts | Mapping[str, Any] | None = None,
        roles: frozenset[str] | None = None,
    ) -> GateResult:
        analysis = analyze(self.policy, intent, caller, frozenset(confirmed_red_flags), self._slots.values,
                           as_facts(patient_facts))
        acknowledged = frozenset(acknowledged_red_flags)
        case = Case(self.policy, self.scope, analysis, caller, target_mcp, acknowledged, roles)
        verdict = gate(case)
        return self._gate_result(verdict, case.resolution(), self._red_flags(analysis, acknowledged))

    def classify_intent(self, text: str) -> ClassifyResult:
        reading = self._slots.reading(self._today())
        analysis = analyze(self.policy, text, values=reading.values)
        result = classify(self.policy, analysis)
        slots = reading.extract(analysis.views, analysis.hits, self.policy_version)
        best = result.best
        return _classify_result({
            "intent": result.intent_name,
            "mcp": result.mcp,
            "slots": slots,
            "confidence": result.confidence,
            "allowed_callers": list(best.intent.allowed_callers) if best else [],
            "matched_keywords": list(best.keywords) if best else [],
            "candidates": [_candidate({"intent": s.intent.name, "mcp": s.intent.mcp, "score": s.score}) for s in result.ranked],
            "fallback": "halt" if result.emergency else ("llm" if best is None else None),
            "note": result.note(),
            "red_flags": self._red_flags(analysis, frozenset()),
            "policy_version": self.policy_version,
        })

    def check_permission(
        self, caller: str, mcp: str, action: str = "read", roles: frozenset[str] | None = None
    ) -> PermissionResult:
        verdict, resolved_action, cell = permission(self.policy, self.scope, caller, mcp, action, roles)
        return _permission_result({
            "allow": verdict.allow,
            "access": cell,
            "resolved_action": resolved_action,
            "reason": verdict.reason,
            "reason_code": verdict.reason_code,
            "write_tool": verdict.write_tool,
            "requires_confirmation": verdict.requires_confirmation,
            "limited_view": verdict.limited_view,
            "policy_version": self.policy_version,
        })

    def extract_slots(self, text: str, reference_date: str | date | None = None) -> SlotsResult:
        # The slots read the views and the lexicon's scan, nothing of the red flags or writes.
        v = views(text)
        return self._slots.extract(v, self.policy.lexicon.scan(v.text), self._reference(reference_date), self.policy_version)

    def route_request(
        self,
        text: str,
        caller: str,
        patient_id: str | None = None,
        reference_date: str | date | None = None,
        acknowledged_red_flags: Iterable[str] = (),
        confirmed_red_flags: Iterable[str] = (),
        patient_facts: PatientFacts | Mapping[str, Any] | None = None,
        roles: frozenset[str] | None = None,
    ) -> RouteResult:
        reading = self._slots.reading(self._reference(reference_date))
        analysis = analyze(self.policy, text, caller, frozenset(confirmed_red_flags), reading.values,
                           as_facts(patient_facts))
        acknowledged = frozenset(acknowledged_red_flags)
        slots = reading.extract(analysis.views, analysis.hits, self.policy_version)
        result = classify(self.policy, analysis)
        case = Case(self.policy, self.scope, analysis, caller, "", acknowledged, roles, result)
        decided = first(ROUTE, _Route(self, case, result, slots, patient_id, self._red_flags(analysis, acknowledged)))
        assert decided is not None  # proceed, the last step, always decides
        return decided

    # ----------------------------------------------------------------------------------------

    def _reference(self, reference_date: str | date | None) -> date:
        if reference_date is None:
            return self._today()
        if isinstance(reference_date, date):
            return reference_date
        return date.fromisoformat(reference_date)

    def _questions(self, concepts: list[str]) -> list[SeverityQuestion]:
        asked = self.policy.red_flags.severity_questions
        return [_question({"concept": c, "question": asked[c]}) for c in concepts]

    def _red_flags(self, analysis: Analysis, acknowledged: frozenset[str]) -> list[RedFlag]:
        """The result's ``red_flags``: every mention, marked when its concept is acknowledged; then
        the current symptom mentions (SPEC §4.7 revision 3: soft, they ask and never halt alone)."""
        if not analysis.red_flags and not analysis.symptoms:
            return []
        soft = self.policy.red_flags.soft_terms
        return [
            _red_flag({"concept": f.concept, "term": f.term, "context": f.context,
                       "acknowledged": f.concept in acknowledged, "soft": f.term in soft and f.fact is None,
                       "fact": f.fact})
            for f in dict.fromkeys(analysis.red_flags)  # the same mention twice is reported once
        ] + [
            _red_flag({"concept": f.concept, "term": f.term, "context": f.context,
                       "acknowledged": f.concept in acknowledged, "soft": True, "fact": None})
            for f in analysis.symptoms
        ]

    def _gate_result(self, verdict: Verdict, resolution: Resolution, red_flags: list[RedFlag]) -> GateResult:
        severity = (self._questions(verdict.matched_concepts)
                    if verdict.reason_code in ("p0_confirm_severity", "p0_confirm_symptom") else [])
        return _gate_result({
            "allow": verdict.allow,
            "reason": verdict.reason,
            "reason_code": verdict.reason_code,
            "applied_rule": verdict.applied_rule,
            "gate": verdict.gate,
            "delegate_to": verdict.delegate_to,
            "requires_confirmation": verdict.requires_confirmation,
            "matched_keywords": verdict.matched,
            "red_flags": red_flags,
            "severity_questions": severity,
            "resolved_intent": resolution.intent,
            "resolved_mcp": resolution.mcp,
            "write_tool": verdict.write_tool or (resolution.writes[0].name if resolution.writes else None),
            "limited_view": verdict.limited_view,
            "policy_version": self.policy_version,
        })


class _Route:
    """The parts of a route_request result known so far; ``done`` seals one status."""

    def __init__(
        self, router: Router, case: Case, result: Classification, slots: SlotsResult, patient_id: str | None,
        red_flags: list[RedFlag],
    ):
        self.router = router
        self.case = case
        self.red_flags = red_flags
        self.result = result
        self.slots = slots
        self.session_patient = patient_id
        self.patient_id = patient_id  # the effective patient: the session's, or the one a text may name
        self.mcp = result.mcp
        self.gate: GateResult | None = None
        self.verdict: Verdict | None = None
        self.questions: list[SeverityQuestion] = []

    def gated(self, verdict: Verdict) -> RouteResult | None:
        """The gate's verdict becomes the result's ``gate``; a denial is the route's too."""
        resolution = self.case.resolution()
        self.verdict = verdict
        self.gate = self.router._gate_result(verdict, resolution, self.red_flags)
        self.mcp = resolution.mcp or self.mcp
        if verdict.allow:
            return None
        return self.done("denied", verdict.reason_code, verdict.reason, delegate_to=verdict.delegate_to)

    def done(
        self,
        status: str,
        reason_code: str,
        reason: str,
        *,
        fallback: str | None = None,
        delegate_to: str | None = None,
        missing: list[str] | None = None,
        ambiguous: list[str] | None = None,
        requires_confirmation: bool = False,
        limited_view: bool = False,
    ) -> RouteResult:
        return _route_result({
            "status": status,
            "intent": self.result.intent_name,
            "mcp": self.mcp,
            "patient_id": self.patient_id,
            "confidence": self.result.confidence,
            "slots": self.slots,
            "missing_slots": missing or [],
            "ambiguous_slots": ambiguous or [],
            "gate": self.gate,
            "delegate_to": delegate_to,
            "requires_confirmation": requires_confirmation,
            "limited_view": limited_view,
            "fallback": fallback,
            "red_flags": self.red_flags,
            "severity_questions": self.questions,
            "reason": reason,
            "reason_code": reason_code,
            "policy_version": self.router.policy_version,
        })


# route_request's steps (SPEC §4.5), each deciding a status or handing on to the next. The gate's own
# stages (gate.GATE) decide P0 and the caller here too, in §4.5's order: the halt first, then the
# caller, before any question is asked of it; the gate step runs the gate's stages after INPUT.


def halt(route: _Route) -> RouteResult | None:
    if p0_halt(route.case) is None:
        return None
    return route.done("halt", "p0_emergency", "emergency red flag: stop all business calls and escalate", fallback="halt")


def caller_in_scope(route: _Route) -> RouteResult | None:
    denial = input_checks(route.case)
    return None if denial is None else route.gated(denial)


def ask(route: _Route) -> RouteResult | None:
    verdict = p0_ask(route.case)
    if verdict is None:
        return None
    route.mcp = None  # nothing is decided until the user answers
    route.questions = route.router._questions(verdict.matched_concepts)
    return route.done("confirm", verdict.reason_code, verdict.reason)


def unknown_intent(route: _Route) -> RouteResult | None:
    if route.result.best is not None:
        return None
    return route.done("review", "unknown_intent", "no rule matched: classify softly, then pass the gate again", fallback="llm")


def low_confidence(route: _Route) -> RouteResult | None:
    if route.result.confidence >= route.router.limits.min_confidence:
        return None
    return route.done("review", "low_confidence", "rule match too weak: review, then pass the gate again", fallback="llm")


def safety_gate(route: _Route) -> RouteResult | None:
    verdict = first(AFTER_INPUT, route.case)
    assert verdict is not None  # the matrix, the gate's last stage, always decides
    return route.gated(verdict)


def patient_in_context(route: _Route) -> RouteResult | None:
    """The session's patient, never the text's: another one named is denied or clarified; a caller
    not bound to the session may name its one patient."""
    session_only = route.case.caller in route.router.policy.session_only_callers
    if route.patient_id is not None:
        # Read leniently, not from the slots: P-0002, p 0002, Р0002 (Cyrillic) name another patient too.
        if other_patient(route.case.analysis.views.text, route.patient_id):
            if session_only:
                return route.done("denied", "patient_out_of_context", "the text names a patient other than the session's")
            return route.done("clarify", "patient_out_of_context", "the text names a patient other than the session's",
                              ambiguous=["patient_id"])
    elif not session_only and route.slots.patient_id is not None:
        route.patient_id = route.slots.patient_id
    return None


def required_slots(route: _Route) -> RouteResult | None:
    policy, slots, best = route.router.policy, route.slots, route.result.best
    assert best is not None  # unknown_intent returned otherwise
    required = list(best.intent.required_slots)
    if route.case.resolution().writes:
        required += [s for s in policy.write_required_slots if s not in required]
    # the session's patient (or, for a session-only caller, none at all) settles an ambiguous text ID
    settled = bool(route.session_patient) or route.case.caller in policy.session_only_callers
    ambiguous = [s for s in required if s in slots.ambiguous and not (s == "patient_id" and settled)]
    missing = [s for s in required if s not in ambiguous and not _has_slot(s, route.patient_id, slots)]
    if ambiguous:
        return route.done("clarify", "ambiguous_slot", "a required slot is ambiguous", ambiguous=ambiguous, missing=missing)
    if missing:
        return route.done("clarify", "missing_slot", "a required slot is missing", missing=missing)
    return None


def proceed(route: _Route) -> RouteResult:
    verdict = route.verdict
    assert verdict is not None  # safety_gate ran and allowed
    return route.done("proceed", "proceed", "call the resolved MCP",
                      requires_confirmation=verdict.requires_confirmation, limited_view=verdict.limited_view)


def _has_slot(name: str, patient_id: str | None, slots: SlotsResult) -> bool:
    if name == "patient_id":
        return patient_id is not None
    return bool(getattr(slots, name))


ROUTE: tuple[Callable[[_Route], RouteResult | None], ...] = (
    halt, caller_in_scope, ask, unknown_intent, low_confidence, safety_gate, patient_in_context, required_slots, proceed,
)
