"""Argument and result models of the five tools: one source of truth for each shape.

The same classes validate arguments here, build results here, and generate the MCP
``inputSchema`` / ``outputSchema`` in the protocol layer. The module runs just past 400 lines
because the five tools' shapes are read together: a result field and the argument it answers sit
side by side.
"""

from __future__ import annotations

import re
from datetime import date
from typing import Annotated, Any, Literal, Mapping

from pydantic import AfterValidator, BaseModel, BeforeValidator, ConfigDict, Field, StringConstraints

from .facts import FactsArgument, PatientFacts, error_field as facts_error_field, error_message as facts_error_message
from .slots import REFERENCE_RANGE, Quantity, SlotsResult

__all__ = [
    "ArgumentError",
    "Candidate",
    "ErrorDetail",
    "ClassifyArgs",
    "ClassifyResult",
    "GateArgs",
    "GateResult",
    "PatientFacts",
    "PermissionArgs",
    "PermissionResult",
    "Quantity",
    "RedFlag",
    "RouteArgs",
    "RouteResult",
    "SlotsArgs",
    "SlotsResult",
    "ToolError",
]


class ArgumentError(Exception):
    """Bad tool arguments. ``message`` describes the rule broken and never echoes the value."""

    code = "INVALID_ARGUMENT"

    def __init__(self, field: str, message: str):
        super().__init__(f"{field}: {message}")
        self.field = field
        self.message = message

    def as_dict(self) -> dict[str, dict[str, str]]:
        return {"error": {"code": self.code, "field": self.field, "message": self.message}}


# Near year 1 or 9999 a relative date (明天, 上周三) would fall off the calendar.
_REFERENCE_RANGE = f"from {REFERENCE_RANGE[0].isoformat()} to {REFERENCE_RANGE[1].isoformat()}"


def _calendar_date(value: str) -> str:
    try:
        day = date.fromisoformat(value)
    except ValueError:
        raise ValueError("must be a calendar date written YYYY-MM-DD") from None
    if not REFERENCE_RANGE[0] <= day <= REFERENCE_RANGE[1]:
        raise ValueError(f"must be a date {_REFERENCE_RANGE}")
    return value


IsoDate = Annotated[
    str,
    StringConstraints(pattern=r"^[0-9]{4}-[0-9]{2}-[0-9]{2}$"),
    AfterValidator(_calendar_date),
    Field(json_schema_extra={"format": "date"}),
]
PatientId = Annotated[str, StringConstraints(pattern=r"^P[0-9]{4,}$")]
# A red-flag concept id (seizure) or a symptom family's (symptom.general, SPEC §4.7 revision 3).
ConceptId = Annotated[str, StringConstraints(pattern=r"^(?:symptom\.)?[a-z][a-z0-9_]{0,63}$")]
# The symptom concepts of the shipped policy, named in the schemas' descriptions (a test holds this
# list to the policy's).
SYMPTOM_IDS = (
    "symptom.general", "symptom.breathing", "symptom.urine", "symptom.swelling", "symptom.bleeding", "symptom.skin",
    "symptom.movements", "symptom.dialysis", "symptom.transplant",
)
_SYMPTOM_HELP = ("Symptom family ids (SPEC §4.7 revision 3) are valid too: " + ", ".join(f"'{i}'" for i in SYMPTOM_IDS)
                 + "; keep an acknowledged one for the whole conversation (each family asks once).")


def _none_is_empty(value: Any) -> Any:
    """Agent frameworks send null for every argument they were given no default for (SPEC §5.3)."""
    return [] if value is None else value


# The dispatcher's session says which red-flag concepts the user answered "not happening now" to
# (SPEC §4.7). Known concept ids only (checked against the loaded policy in Router.call). The schema
# advertises the default (SPEC §5.3), an empty array. It is a tuple: pydantic deep-copies an
# unhashable default for every instance (two ``copy.deepcopy`` calls per route_request: 10.7 → 4.6 µs
# of argument validation without them; a default factory, 7.3 µs). The router only iterates it.
Acknowledged = Annotated[
    list[ConceptId],
    BeforeValidator(_none_is_empty),
    Field(
        default=(),
        max_length=32,
        description="Red-flag concept ids (e.g. 'seizure') that the user, asked by the dispatcher after a "
        "'confirm', answered are not happening to the patient now (or, for a severity question, not severe). "
        "A non-current mention of these no longer asks; a current one still halts. At most 32, each a known "
        "concept id, none also in `confirmed_red_flags`. Null is the empty list. Never taken from text. "
        + _SYMPTOM_HELP,
    ),
]
# The user answered yes to a confirm: the concept is happening to the patient now (SPEC §4.7 "Soft
# signs ask"). A confirmed concept halts whatever context its mention has.
Confirmed = Annotated[
    list[ConceptId],
    BeforeValidator(_none_is_empty),
    Field(
        default=(),
        max_length=32,
        description="Red-flag concept ids that the user, asked by the dispatcher after a 'confirm' (the "
        "question whether it is happening now, or the concept's severity question), answered yes to. A "
        "mention of these halts in any context. At most 32, each a known concept id, none also in "
        "`acknowledged_red_flags`. Null is the empty list. Never taken from text. " + _SYMPTOM_HELP,
    ),
]

ROLE_HELP = "dispatcher, doctor_assistant, nutritionist, parent_assistant, child_companion or risk_warning"


class _Args(BaseModel):
    # strict: 123 is not silently the string "123"; forbid: an unknown key is an error, not ignored.
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)


class GateArgs(_Args):
    intent: str = Field(
        description="What the caller wants to do: the user's text, an intent name such as "
        "'lab_result', or a tool name such as 'upsert_lab_result'."
    )
    caller: str = Field(description=f"The sub-agent role that would act: {ROLE_HELP}.")
    target_mcp: str = Field(
        default="",
        description="Registry name of the business MCP server to be called, e.g. 'a207-lis-mcp'. "
        "Empty: the server is resolved from `intent`.",
    )
    acknowledged_red_flags: Acknowledged
    confirmed_red_flags: Confirmed
    patient_facts: FactsArgument


class ClassifyArgs(_Args):
    text: str = Field(description="The user's message, Simplified or Traditional Chinese or English.")


class PermissionArgs(_Args):
    caller: str = Field(description=f"The sub-agent role: {ROLE_HELP}.")
    mcp: str = Field(description="Registry name of the business MCP server, e.g. 'a207-his-mcp'.")
    action: str = Field(
        default="read",
        description="'read', 'write', or the name of the tool to be called on that server "
        "(write tools such as 'push_to_emr' are decided by rule MX-3).",
    )


class SlotsArgs(_Args):
    text: str = Field(description="The user's message.")
    reference_date: IsoDate | None = Field(
        default=None,
        description="Date that relative dates (今天, 昨天, 上周, N天前) are resolved against, "
        f"YYYY-MM-DD, {_REFERENCE_RANGE}. Default: today in the service's time zone.",
    )


class RouteArgs(_Args):
    text: str = Field(description="The user's message, exactly as received.")
    caller: str = Field(description=f"The sub-agent role that would handle it: {ROLE_HELP}.")
    patient_id: PatientId | None = Field(
        default=None,
        description="The session's patient (P followed by at least 4 digits) from the dispatcher's "
        "authenticated context. Text never overrides it.",
    )
    reference_date: IsoDate | None = Field(
        default=None, description=f"Date for resolving relative dates, YYYY-MM-DD, {_REFERENCE_RANGE}. Default: today."
    )
    acknowledged_red_flags: Acknowledged
    confirmed_red_flags: Confirmed
    patient_facts: FactsArgument


# --------------------------------------------------------------------------------------------
# Results
# --------------------------------------------------------------------------------------------

GATE_REASON_CODES = (
    "p0_emergency",
    "p0_confirm_current",
    "p0_confirm_severity",
    "p0_confirm_symptom",
    "caller_unknown",
    "caller_out_of_scope",
    "caller_not_in_scope",
    "target_unknown",
    "target_unresolved",
    "empty_intent",
    "mx1_staging_delegate",
    "mx1_calc_doctor_only",
    "mx2_gamification_child_only",
    "mx2_child_restricted",
    "mx3_write_not_allowed",
    "mx3_target_mismatch",
    "mx3_unregistered_write",
    "matrix_no_access",
    "matrix_write_not_allowed",
    "pass",
)
# route_request's own codes; a denial carries the gate's code, a pass never reaches the result.
ROUTE_REASON_CODES = (
    "p0_emergency", "p0_confirm_current", "p0_confirm_severity", "p0_confirm_symptom", "unknown_intent", "low_confidence",
    "patient_out_of_context", "missing_slot", "ambiguous_slot", "proceed",
) + tuple(c for c in GATE_REASON_CODES
          if c not in ("p0_emergency", "p0_confirm_current", "p0_confirm_severity", "p0_confirm_symptom", "pass"))
ReasonCode = Literal[GATE_REASON_CODES]  # type: ignore[valid-type]
RouteReasonCode = Literal[ROUTE_REASON_CODES]  # type: ignore[valid-type]
PolicyVersion = Annotated[str, Field(description="Policy file version + first 12 hex of its sha256.")]


class _Result(BaseModel):
    model_config = ConfigDict(extra="forbid")


class RedFlag(_Result):
    concept: str = Field(description="The red-flag concept id, e.g. 'seizure', 'infant_fever', or a symptom family's "
                         "('symptom.general'…: a current symptom of the child, soft, it asks p0_confirm_symptom).")
    term: str = Field(description="The policy term or pattern name that matched (never text of the request).")
    context: Literal["current", "negated", "other_person", "historical", "hypothetical"] = Field(
        description="current halts; any other context asks ('confirm') unless the concept is acknowledged."
    )
    acknowledged: bool = Field(description="The concept is in `acknowledged_red_flags`.")
    soft: bool = Field(
        description="A soft term (a parent's mild form of a danger sign): current, it asks the concept's severity "
        "question ('confirm', p0_confirm_severity) instead of halting."
    )
    fact: Literal["age_years", "kidney_therapy", "nephrotic"] | None = Field(
        description="The key of `patient_facts` that made this red flag (the text's word `term` read for that "
        "child: a fever of a transplanted child), so the dispatcher can say why; null when the text alone made it."
    )


RedFlags = Annotated[
    list[RedFlag], Field(description="Every red-flag mention in text order with its context (SPEC §4.7).")
]


class SeverityQuestion(_Result):
    concept: str = Field(description="The red-flag concept or symptom family id the question is about.")
    question: str = Field(description="The concept's severity question or the family's emergency questions "
                          "(policy text) to ask the user.")


SeverityQuestions = Annotated[
    list[SeverityQuestion],
    Field(description="With reason_code p0_confirm_severity: the question to ask for each current soft mention; "
          "with p0_confirm_symptom: the questions of each symptom family mentioned (ask all of them in one turn); "
          "yes → resend with the concept in `confirmed_red_flags`, no → in `acknowledged_red_flags`."),
]


class GateResult(_Result):
    allow: bool = Field(description="True only when every rule let the call through.")
    reason: str = Field(description="Short human-readable explanation.")
    reason_code: ReasonCode = Field(description="Stable snake_case code of the deciding rule.")
    applied_rule: Literal["MX-1", "MX-2", "MX-3", "none"] = Field(
        description="The mutual-exclusion rule that decided, or 'none'."
    )
    gate: Literal["P0_EMERGENCY", "P0_CONFIRM", "INPUT", "MX", "PERMISSION_MATRIX", "PASS"] = Field(
        description="Which stage decided: P0_EMERGENCY (a current or confirmed red flag) → P0_CONFIRM (a red flag "
        "in another context, or a current soft one, not acknowledged: ask the user) → INPUT → MX → "
        "PERMISSION_MATRIX → PASS."
    )
    delegate_to: str | None = Field(description="Role to hand the request to (every MX-1 denial).")
    requires_confirmation: bool = Field(description="A human must confirm before the write (push_to_emr).")
    matched_keywords: list[str] = Field(description="Policy words found in `intent` that decided.")
    red_flags: RedFlags
    severity_questions: SeverityQuestions
    resolved_intent: str | None = Field(description="The intent that `intent` resolved to.")
    resolved_mcp: str | None = Field(description="The MCP that `intent` resolved to (a write tool's own MCP).")
    write_tool: str | None = Field(description="The write tool that `intent` resolved to, if any.")
    limited_view: bool = Field(description="The caller may only see a limited view (matrix cell RL).")
    policy_version: PolicyVersion


class Candidate(_Result):
    intent: str
    mcp: str | None
    score: int = Field(description="Sum of the lengths of the intent's distinct matched keywords.")


class ClassifyResult(_Result):
    intent: str = Field(description="The winning intent, 'emergency_red_flag' on a P0 hit, or 'unknown'.")
    mcp: str | None = Field(description="Registry name of the intent's MCP; null for 'unknown'.")
    slots: SlotsResult
    confidence: float = Field(description="min(0.95, 0.50 + 0.05 × score), two decimals; 1.0 on P0.")
    allowed_callers: list[str] = Field(description="Roles the intent table allows.")
    matched_keywords: list[str]
    candidates: list[Candidate] = Field(description="Every intent that scored, best first.")
    fallback: Literal["llm", "halt"] | None = Field(
        description="'halt' on a P0 hit; 'llm' when no rule matched (the soft result must pass the gate again)."
    )
    note: str | None
    red_flags: RedFlags
    policy_version: PolicyVersion


class PermissionResult(_Result):
    allow: bool
    access: Literal["R", "RL", "R/W", "-"] | None = Field(description="The raw matrix cell; null if unknown.")
    resolved_action: Literal["read", "write"]
    reason: str
    reason_code: ReasonCode
    write_tool: str | None
    requires_confirmation: bool
    limited_view: bool
    policy_version: PolicyVersion


class RouteResult(_Result):
    status: Literal["proceed", "clarify", "denied", "review", "confirm", "halt"] = Field(
        description="proceed: call `mcp`; clarify: ask the user for the missing/ambiguous slots; "
        "denied: do not call; review: a human or the upper model must decide, then pass the gate again; "
        "confirm: a red flag is mentioned but not as happening now (p0_confirm_current: ask whether it is "
        "happening to the patient now) or a mild form of one is (p0_confirm_severity: ask `severity_questions`) "
        "— yes: resend the text with the concepts in `confirmed_red_flags` (it halts); no: resend it with them "
        "in `acknowledged_red_flags`; halt: emergency, stop all business calls."
    )
    intent: str
    mcp: str | None
    patient_id: str | None = Field(description="The effective patient (the session's, never overridden by text).")
    confidence: float
    slots: SlotsResult
    missing_slots: list[str]
    ambiguous_slots: list[str]
    gate: GateResult | None = Field(description="The full safety-gate result; null when halted before it.")
    delegate_to: str | None
    requires_confirmation: bool
    limited_view: bool
    fallback: Literal["llm", "halt"] | None
    red_flags: RedFlags
    severity_questions: SeverityQuestions
    reason: str
    reason_code: RouteReasonCode
    policy_version: PolicyVersion


class ErrorDetail(_Result):
    code: Literal["INVALID_ARGUMENT", "INTERNAL"]
    field: str | None = Field(description="The argument at fault; null for INTERNAL.")
    message: str = Field(description="The rule broken; never the argument's value.")


class ToolError(_Result):
    """The structuredContent of a tool result with isError true (SPEC §4.6)."""

    error: ErrorDetail


_FIELD_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,63}$")


def safe_field(loc: tuple[int | str, ...]) -> str:
    """The argument path of a validation error; a key that is not a plain name is not echoed."""
    fact = facts_error_field(loc)
    if fact is not None:
        return fact
    parts = [str(p) for p in loc]
    if not parts or not all(_FIELD_NAME.fullmatch(p) or (p.isascii() and p.isdigit()) for p in parts):
        return "arguments"
    return ".".join(parts)


_MESSAGES = {
    "missing": "is required",
    "extra_forbidden": "is not an argument of this tool",
    "string_type": "must be a string",
    "string_pattern_mismatch": "does not have the required format",
    "model_type": "must be an object",
    "model_attributes_type": "must be an object",
    "dict_type": "must be an object",
    "none_required": "must be null",
    "list_type": "must be a list",
}


def validation_message(error: Mapping[str, Any]) -> str:
    kind = error.get("type", "")
    fact = facts_error_message(error)
    if fact is not None:
        return fact
    if kind == "value_error":
        # Our own validators' messages ("must be a calendar date…"); pydantic prefixes "Value error, ".
        return str(error.get("ctx", {}).get("error", "is invalid"))
    if kind == "too_long":
        return f"must have at most {error.get('ctx', {}).get('max_length')} items"
    if kind == "string_pattern_mismatch" and error.get("loc", ("",))[0] in ("acknowledged_red_flags", "confirmed_red_flags"):
        return "must list red-flag concept ids"
    if kind == "string_pattern_mismatch" and error.get("loc", ("",))[-1] == "patient_id":
        return "must be P followed by at least 4 ASCII digits"
    return _MESSAGES.get(kind, "is invalid")
