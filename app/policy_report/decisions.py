"""Every text through both policies; every decision that changes, grouped by kind of change.

Cost: per text, the two routers' own work and a comparison of two small tuples. The JSON of a
result is built only for a row that changed (bench/policy_diff_bench.py measures the ratio to one
``route_request``). What is compared is what a caller acts on: the status and reason code, the
intent and MCP, the gate result, the red-flag concepts with their contexts, the slots, the missing
and ambiguous slots, delegation, confirmation and limited view. Not compared: the reason text
(it follows the reason code), the confidence (it decides nothing but through the status), the
matched words and terms (an emergency still halts when another term of its concept matched), and
``policy_version``, which differs by construction.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from operator import itemgetter
from typing import Any, Callable

from app.router import ArgumentError, Limits, Router, UnknownTool
from app.router.slots import SlotsResult

from .corpora import REFERENCE, Corpus, Item
from .data_diff import DataChange, data_diff
from .outcomes import ALLOWS, DENIES, outcome
from .sources import PolicySource


@dataclass(frozen=True)
class Kind:
    id: str
    title: str
    safety: bool
    meaning: str


# Report order: safety-relevant kinds first (SPEC §3.0), then stricter decisions, then the rest.
KINDS = (
    Kind("halt_to_silent", "halt → passes silently", True, "a red flag halted; now nothing stops the request"),
    Kind("halt_to_confirm", "halt → confirm", True, "an emergency halted; now the user is only asked"),
    Kind("confirm_to_silent", "confirm → passes silently", True, "a red flag was asked about; now it passes unasked"),
    Kind("deny_to_allow", "denied → allowed", True, "a call the gate refused now goes through"),
    Kind("silent_to_halt", "passes → halt", False, "now halts (an emergency found, or a false halt)"),
    Kind("silent_to_confirm", "passes → confirm", False, "now asks whether a red flag is happening now"),
    Kind("confirm_to_halt", "confirm → halt", False, "a red flag that was asked about now halts"),
    Kind("allow_to_deny", "allowed → denied", False, "a call that went through is now refused"),
    Kind("status", "other status change", False, "proceed, clarify, review or an error changed into another"),
    Kind("intent", "intent A → B", False, "the classified intent changed"),
    Kind("gate", "gate decision detail", False, "the gate's stage, rule, reason, delegate, write tool or view changed"),
    Kind("red_flags", "red-flag concepts or contexts", False, "the red flags found or their contexts changed"),
    Kind("slots", "slot value changed", False, "an extracted slot changed"),
    Kind("other", "other decision fields", False, "MCP, missing or ambiguous slots, patient, fallback, reason code…"),
)
KIND_BY_ID = {k.id: k for k in KINDS}


# ------------------------------------------------------------------------------------------------
# What is compared, per tool
# ------------------------------------------------------------------------------------------------

ROUTE_FIELDS = ("status", "reason_code", "intent", "mcp", "patient_id", "missing_slots", "ambiguous_slots",
                "delegate_to", "requires_confirmation", "limited_view", "fallback")
GATE_FIELDS = ("allow", "gate", "reason_code", "applied_rule", "delegate_to", "requires_confirmation",
               "resolved_intent", "resolved_mcp", "write_tool", "limited_view")
PERMISSION_FIELDS = ("allow", "access", "resolved_action", "reason_code", "write_tool", "requires_confirmation", "limited_view")
CLASSIFY_FIELDS = ("intent", "mcp", "allowed_callers", "fallback")
SLOT_FIELDS = tuple(name for name in SlotsResult.model_fields if name != "policy_version")


# itemgetter builds each tuple in C: the comparison stays a few percent of a route_request.
_route_values = itemgetter(*ROUTE_FIELDS)
_gate_values = itemgetter(*GATE_FIELDS)
_permission_values = itemgetter(*PERMISSION_FIELDS)
_classify_values = itemgetter(*CLASSIFY_FIELDS)
_slot_values = itemgetter(*SLOT_FIELDS)


def _flags(result: Any) -> tuple[tuple[str, str], ...]:
    found = result.red_flags
    return tuple(sorted({(f.concept, f.context) for f in found})) if found else ()


def _slots_key(slots: Any) -> tuple[Any, ...]:
    return _slot_values(slots.__dict__)  # type: ignore[no-any-return]


def _route_key(result: Any) -> tuple[Any, ...]:
    values = result.__dict__
    gate = values["gate"]
    return (_route_values(values), _gate_key(gate) if gate is not None else None, _flags(result), _slots_key(values["slots"]))


def _gate_key(result: Any) -> tuple[Any, ...]:
    return _gate_values(result.__dict__), _flags(result)


def _permission_key(result: Any) -> tuple[Any, ...]:
    return _permission_values(result.__dict__)  # type: ignore[no-any-return]


def _classify_key(result: Any) -> tuple[Any, ...]:
    values = result.__dict__
    return _classify_values(values), _flags(result), _slots_key(values["slots"])


KEYS: dict[str, Callable[[Any], tuple[Any, ...]]] = {
    "route_request": _route_key,
    "check_safety_gate": _gate_key,
    "check_permission": _permission_key,
    "classify_intent": _classify_key,
    "extract_slots": _slots_key,
}


def named(tool: str, result: dict[str, Any]) -> dict[str, Any]:
    """The compared fields of a result's JSON, flat: ``gate.allow``, ``slots.age_years``, ``red_flags``."""
    if "error" in result:
        return {"error": result["error"]}
    out: dict[str, Any] = {}
    top = {"route_request": ROUTE_FIELDS, "check_safety_gate": GATE_FIELDS, "check_permission": PERMISSION_FIELDS,
           "classify_intent": CLASSIFY_FIELDS}.get(tool, ())
    for name in top:
        out[name] = result[name]
    if tool == "route_request":
        gate = result["gate"]
        for name in GATE_FIELDS:
            out[f"gate.{name}"] = gate[name] if gate else None
    if "red_flags" in result:
        out["red_flags"] = sorted({f"{f['concept']}:{f['context']}" for f in result["red_flags"]})
    slots = result if tool == "extract_slots" else result.get("slots")
    if slots is not None:
        for name in SLOT_FIELDS:
            out[f"slots.{name}"] = slots[name]
    return out


# ------------------------------------------------------------------------------------------------
# Rows and groups
# ------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Row:
    item: Item
    kind: str
    old_outcome: str | None
    new_outcome: str | None
    changed: dict[str, tuple[Any, Any]]  # field → (old, new)
    verdict: str | None  # fixed | broke | None (no label, or the label is as near as before)

    @property
    def safety_failure(self) -> bool:
        """A labelled emergency that halted and no longer does: what --fail-on-safety exits 3 for."""
        label = self.item.label
        return bool(label and label.emergency and self.old_outcome == "halt" and self.new_outcome != "halt")


@dataclass
class Group:
    kind: Kind
    rows: list[Row] = field(default_factory=list)

    @property
    def fixed(self) -> int:
        return sum(r.verdict == "fixed" for r in self.rows)

    @property
    def broke(self) -> int:
        return sum(r.verdict == "broke" for r in self.rows)


@dataclass(frozen=True)
class CorpusRun:
    name: str
    present: bool
    run: int
    skipped: dict[str, int]


@dataclass
class Report:
    old: PolicySource
    new: PolicySource
    data_changes: list[DataChange]
    corpora: list[CorpusRun]
    groups: list[Group]  # every kind, in KINDS order, empty ones included

    @property
    def rows(self) -> list[Row]:
        return [row for group in self.groups for row in group.rows]

    @property
    def texts_run(self) -> int:
        return sum(c.run for c in self.corpora)

    @property
    def safety_failures(self) -> list[Row]:
        return [row for row in self.rows if row.safety_failure]


class Differ:
    """Both routers, built once; ``compare`` runs one item through each."""

    def __init__(self, old: PolicySource, new: PolicySource, limits: Limits = Limits()):
        self.limits = limits
        self.old = Router(old.policy, limits, today=lambda: REFERENCE)
        self.new = Router(new.policy, limits, today=lambda: REFERENCE)

    def fits(self, item: Item) -> bool:
        return not item.direct or len(item.arguments["text"]) <= self.limits.max_text_chars

    def compare(self, item: Item) -> Row | None:
        if item.direct:
            args = item.arguments
            a = self.old.route_request(args["text"], args["caller"], args["patient_id"], args["reference_date"])
            b = self.new.route_request(args["text"], args["caller"], args["patient_id"], args["reference_date"])
            if _route_key(a) == _route_key(b):
                return None
            return _row(item, a.model_dump(mode="json"), b.model_dump(mode="json"))
        old, new = self._call(self.old, item), self._call(self.new, item)
        if isinstance(old, dict) or isinstance(new, dict):  # an argument error on either side
            return None if old == new else _row(item, _json(old), _json(new))
        if KEYS[item.tool](old) == KEYS[item.tool](new):
            return None
        return _row(item, _json(old), _json(new))

    @staticmethod
    def _call(router: Router, item: Item) -> Any:
        try:
            return router.call(item.tool, item.arguments)
        except ArgumentError as exc:
            return exc.as_dict()
        except UnknownTool:
            return {"error": {"code": "UNKNOWN_TOOL", "field": "tool", "message": "is not one of the five tools"}}


def _json(result: Any) -> dict[str, Any]:
    return result if isinstance(result, dict) else result.model_dump(mode="json")


def _row(item: Item, old: dict[str, Any], new: dict[str, Any]) -> Row | None:
    a, b = named(item.tool, old), named(item.tool, new)
    changed = {k: (a.get(k), b.get(k)) for k in list(a) + [k for k in b if k not in a] if a.get(k) != b.get(k)}
    if not changed:
        return None
    old_outcome, new_outcome = outcome(item.tool, old), outcome(item.tool, new)
    verdict = None
    if item.label is not None:
        before, after = item.label.score(item.tool, old), item.label.score(item.tool, new)
        if any(y < x for x, y in zip(before, after)):
            verdict = "broke"
        elif any(y > x for x, y in zip(before, after)):
            verdict = "fixed"
    return Row(item, kind_of(item.tool, old_outcome, new_outcome, changed), old_outcome, new_outcome, changed, verdict)


def kind_of(tool: str, old: str | None, new: str | None, changed: dict[str, Any]) -> str:
    if old != new:
        if old == "halt":
            return "halt_to_confirm" if new == "confirm" else "halt_to_silent"
        if old == "confirm":
            return "confirm_to_halt" if new == "halt" else "confirm_to_silent"
        if new == "halt":
            return "silent_to_halt"
        if new == "confirm":
            return "silent_to_confirm"
        if old in DENIES and new in ALLOWS:
            return "deny_to_allow"
        if old in ALLOWS and new in DENIES:
            return "allow_to_deny"
        return "status"
    if "intent" in changed:
        return "intent"
    gate_fields = changed if tool in ("check_safety_gate", "check_permission") else [k for k in changed if k.startswith("gate.")]
    if any(k != "red_flags" for k in gate_fields):
        return "gate"
    if "red_flags" in changed:
        return "red_flags"
    if any(k.startswith("slots.") for k in changed):
        return "slots"
    return "other"


def build_report(old: PolicySource, new: PolicySource, corpora: list[Corpus]) -> Report:
    differ = Differ(old, new)
    groups = {kind.id: Group(kind) for kind in KINDS}
    runs: list[CorpusRun] = []
    for corpus in corpora:
        skipped = dict(corpus.skipped)
        run = 0
        for item in corpus.items:
            if not differ.fits(item):
                skipped["longer than the service's text limit"] = skipped.get("longer than the service's text limit", 0) + 1
                continue
            run += 1
            row = differ.compare(item)
            if row is not None:
                groups[row.kind].rows.append(row)
        runs.append(CorpusRun(corpus.name, corpus.present, run, skipped))
    for group in groups.values():
        # Within a kind, the same transition together (intent knowledge → food …); the sort is stable,
        # so corpus order stays within one transition.
        group.rows.sort(key=_transition)
    return Report(old, new, data_diff(old.sections, new.sections), runs, list(groups.values()))


def _transition(row: Row) -> str:
    if row.kind == "intent":
        old, new = row.changed["intent"]
        return f"{old} → {new}"
    return f"{row.old_outcome} → {row.new_outcome}"


__all__ = ["KINDS", "Differ", "Group", "Report", "Row", "build_report", "kind_of", "named"]
