"""One word per decision, so that decisions of different tools compare on one scale.

``route_request`` has its status; a gate result is ``halt`` / ``confirm`` at the P0 stages and
``allow`` / ``deny`` after them; a permission is ``allow`` / ``deny``; ``classify_intent`` halts
(fallback ``halt``) or ``passes``; ``extract_slots`` decides nothing but its slots.
"""

from __future__ import annotations

from typing import Any

STOPS = frozenset({"halt", "confirm"})  # a red flag stops the request: it escalates or asks
ALLOWS = frozenset({"proceed", "clarify", "allow"})  # the gate let the call through
DENIES = frozenset({"denied", "deny"})


def outcome(tool: str, result: dict[str, Any]) -> str | None:
    if "error" in result:
        return "error"
    if tool == "route_request":
        return str(result["status"])
    if tool == "check_safety_gate":
        stage = {"P0_EMERGENCY": "halt", "P0_CONFIRM": "confirm"}.get(result["gate"])
        return stage or ("allow" if result["allow"] else "deny")
    if tool == "check_permission":
        return "allow" if result["allow"] else "deny"
    if tool == "classify_intent":
        return "halt" if result["fallback"] == "halt" else "passes"
    return None
