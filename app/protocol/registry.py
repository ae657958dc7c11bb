"""The tool registry: the five router tools as MCP ``Tool`` descriptors.

Schemas are generated from the router's own pydantic models, so the wire contract cannot drift
from what the router validates and returns. Descriptions are written for a model deciding when to
call each tool.
"""

from __future__ import annotations

from typing import Any

import mcp_types as types  # the same objects as mcp.types, without importing the whole SDK

from app.router import TOOLS
from app.router.models import ToolError

# Fields that mcp 2.3.0 models carry for protocol revisions newer than 2025-06-18.
NEWER_FIELDS = {"result_type", "ttl_ms", "cache_scope"}

DESCRIPTIONS = {
    "route_request": (
        "One-call decision for a user message: call this first for every message before any sub-agent "
        "touches a business MCP server. Give the message text, the role that would handle it and the "
        "session's patient_id from the authenticated context. Returns status 'proceed' (call `mcp`), "
        "'clarify' (ask the user for `missing_slots` / `ambiguous_slots`), 'denied' (do not call; "
        "hand over to `delegate_to` if set), 'review' (rules could not decide: classify softly, then "
        "call check_safety_gate again), 'confirm' (a red flag is mentioned but not as happening now — ask "
        "the user whether it is happening to the patient now — or a mild form of one is, reason_code "
        "p0_confirm_severity, or a symptom of the child is, reason_code p0_confirm_symptom — ask all of "
        "`severity_questions` in one turn; if yes, call again with the concept ids in "
        "`confirmed_red_flags` (it halts); if not, with them in `acknowledged_red_flags`) or 'halt' (medical "
        "emergency: stop all business calls and escalate). Text never overrides the session patient or the caller role. "
        "Pass what the session's patient profile says in `patient_facts` (age_years, kidney_therapy, nephrotic) on "
        "every call: a fever of a transplanted child or of a baby under three months then halts."
    ),
    "check_safety_gate": (
        "Decide whether `caller` may act on `intent` (user text, an intent name or a tool name) at "
        "`target_mcp`. Applies, in order: P0 red flags (P0_EMERGENCY: happening now; P0_CONFIRM: mentioned "
        "in another context, or a mild form happening now, not in `acknowledged_red_flags` — ask the user; a "
        "concept in `confirmed_red_flags` halts) → input checks → MX-1 (CKD staging and "
        "the clinical calculator are for doctor_assistant) → MX-2 (gamification is the child "
        "companion's only; the child companion is kept off clinical servers) → MX-3 (write tools and "
        "their allowed callers; push_to_emr requires human confirmation) → the role × MCP permission "
        "matrix. Call it before every business MCP call, and again on any softly classified intent, with the "
        "session patient's `patient_facts` as for route_request."
    ),
    "classify_intent": (
        "Rule-based intent classification of a user message into one of 13 intents with its MCP, "
        "confidence and extracted slots. 'emergency_red_flag' (fallback 'halt') means a red flag is "
        "happening now: stop and escalate; red flags in other contexts are listed in `red_flags`; "
        "'unknown' (fallback 'llm') means no rule matched: you may classify softly, but the result must "
        "pass check_safety_gate before anything runs."
    ),
    "check_permission": (
        "Look up the role × MCP permission matrix for one concrete call: `action` is 'read', 'write' or "
        "the tool name to be called. Registered write tools are decided by MX-3; unregistered "
        "write-looking tool names are refused. Returns the raw cell (R, RL = limited view, R/W, -)."
    ),
    "extract_slots": (
        "Extract structured slots from a message with regular expressions and dictionaries, never "
        "guessing: patient ID, foods, lab analytes, dates (resolved against reference_date), numbers "
        "with units, age, weight, height, time window, meal and food portions. Ambiguous values are "
        "left empty and listed in `ambiguous`."
    ),
}

TITLES = {
    "route_request": "Route a message (one-call decision)",
    "check_safety_gate": "Check the safety gate",
    "classify_intent": "Classify intent",
    "check_permission": "Check the permission matrix",
    "extract_slots": "Extract slots",
}

# Order of tools/list: the one-call decision first, as the tool most agents need.
ORDER = ("route_request", "check_safety_gate", "classify_intent", "check_permission", "extract_slots")


def input_schema(model) -> dict[str, Any]:
    schema = model.model_json_schema(mode="validation")
    schema.pop("title", None)
    schema["additionalProperties"] = False
    return schema


def output_schema(model) -> dict[str, Any]:
    """The result's schema, or the SPEC §4.6 error object.

    A tool error (isError true) still carries structuredContent, and some clients (the TypeScript
    SDK 1.32) validate it against outputSchema even then and throw away the INVALID_ARGUMENT
    details. Both shapes are therefore listed; each stays strict on its own.
    """
    result = model.model_json_schema(mode="serialization")
    error = ToolError.model_json_schema(mode="serialization")
    defs = {**result.pop("$defs", {}), **error.pop("$defs", {})}
    for schema in (result, error):
        schema.pop("title", None)
    combined: dict[str, Any] = {"type": "object", "anyOf": [result, error]}
    if defs:
        combined["$defs"] = defs
    return combined


def tool_descriptors() -> list[types.Tool]:
    return [
        types.Tool(
            name=name,
            title=TITLES[name],
            description=DESCRIPTIONS[name],
            input_schema=input_schema(TOOLS[name].args),
            output_schema=output_schema(TOOLS[name].result),
            annotations=types.ToolAnnotations(
                read_only_hint=True, destructive_hint=False, idempotent_hint=True, open_world_hint=False
            ),
        )
        for name in ORDER
    ]


def wire(model) -> dict[str, Any]:
    """A 2025-06-18 wire dict of an ``mcp.types`` model: aliases, no Nones, no newer fields."""
    return model.model_dump(by_alias=True, exclude_none=True, exclude=NEWER_FIELDS)
