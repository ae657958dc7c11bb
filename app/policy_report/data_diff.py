"""What changed in the policy data, section by section (SPEC §3.0, first half of the report).

The walk is generic over the validated file, so a section or field added to the policy model is
reported without touching this module (tests/policy_report/test_data_diff.py walks the model's
fields to prove it). Lists of words compare as sets (the matcher is leftmost-longest, so their
order decides nothing) and say which words came and went; lists of entries (concepts, intents,
cues, write tools) pair entries by their id or name, and report a changed order, because the order
of intents breaks ties.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from app.router.policy import PolicyFile

# A human title per top-level section; a section without one is shown by its own name.
SECTION_TITLES = {
    "version": "Version",
    "roles": "Roles",
    "mcps": "MCP registry",
    "matrix": "Permission matrix cells",
    "rules": "Mutual-exclusion rules MX-1, MX-2, MX-3",
    "write_tools": "Write tools",
    "p0": "Red flags: safe phrases, critical values and thresholds, concepts with their terms and patterns",
    "context": "Red flags in context: subject words, cues and pseudo-cues",
    "symptoms": "Symptom check: families, their words and questions (SPEC §4.7 revision 3)",
    "staging": "Staging family (MX-1)",
    "intents": "Intents and their keywords",
    "route": "Route: required slots, session-only callers",
    "asking": "What is asked: question words, weak keywords, consume verbs",
    "medicines": "Medicines",
    "slots": "Slot dictionaries",
    "facts": "Patient facts: the words and thresholds through which the session's facts feed the red flags",
}


@dataclass(frozen=True)
class DataChange:
    section: str
    path: str  # p0.concepts[seizure].terms, matrix.parent_assistant.M2
    what: str  # words | changed | added | removed | reordered
    old: Any = None
    new: Any = None
    added: tuple[str, ...] = ()
    removed: tuple[str, ...] = ()

    def as_dict(self) -> dict[str, Any]:
        return {"section": self.section, "path": self.path, "what": self.what, "old": self.old, "new": self.new,
                "added": list(self.added), "removed": list(self.removed)}

    def describe(self) -> str:
        if self.what == "words":
            parts = []
            if self.added:
                parts.append("added " + ", ".join(_show(w) for w in self.added))
            if self.removed:
                parts.append("removed " + ", ".join(_show(w) for w in self.removed))
            return "; ".join(parts)
        if self.what == "changed":
            return f"{_show(self.old)} → {_show(self.new)}"
        if self.what == "added":
            return f"added: {_show(self.new)}"
        if self.what == "removed":
            return f"removed: {_show(self.old)}"
        return f"order {_show(self.old)} → {_show(self.new)}"


def sections() -> list[str]:
    """Every top-level section of the policy model, by the name the file uses, in model order."""
    return [field.alias or name for name, field in PolicyFile.model_fields.items()]


def data_diff(old: dict[str, Any], new: dict[str, Any]) -> list[DataChange]:
    changes: list[DataChange] = []
    for section in sections():
        _walk(changes, section, section, old.get(section), new.get(section))
    return changes


def _walk(out: list[DataChange], section: str, path: str, old: Any, new: Any) -> None:
    if old == new:
        return
    if isinstance(old, dict) and isinstance(new, dict):
        for key in list(old) + [k for k in new if k not in old]:
            where = f"{path}.{key}"
            if key not in new:
                out.append(DataChange(section, where, "removed", old=old[key]))
            elif key not in old:
                out.append(DataChange(section, where, "added", new=new[key]))
            else:
                _walk(out, section, where, old[key], new[key])
    elif isinstance(old, list) and isinstance(new, list) and _all_entries(old + new):
        _walk_entries(out, section, path, old, new)
    elif isinstance(old, list) and isinstance(new, list) and _all_scalars(old + new):
        added = tuple(_scalar(w) for w in new if w not in old)
        removed = tuple(_scalar(w) for w in old if w not in new)
        if added or removed:
            out.append(DataChange(section, path, "words", added=added, removed=removed))
        else:
            out.append(DataChange(section, path, "reordered", old=old, new=new))
    else:
        out.append(DataChange(section, path, "changed", old=old, new=new))


def _walk_entries(out: list[DataChange], section: str, path: str, old: list[dict[str, Any]], new: list[dict[str, Any]]) -> None:
    old_by, new_by = _keyed(old), _keyed(new)
    # An entry whose key changed (a renamed concept, a cue given another scope) stays one entry
    # when it keeps its place: its fields are compared, rather than one removed and one added.
    gone = {n: k for n, k in enumerate(old_by) if k not in new_by}
    came = {n: k for n, k in enumerate(new_by) if k not in old_by}
    for n in sorted(gone.keys() & came.keys()):
        _walk(out, section, f"{path}[{gone[n]}]", old_by[gone[n]], new_by[came[n]])
    for n, key in gone.items():
        if n not in came:
            out.append(DataChange(section, f"{path}[{key}]", "removed", old=old_by[key]))
    for n, key in came.items():
        if n not in gone:
            out.append(DataChange(section, f"{path}[{key}]", "added", new=new_by[key]))
    for key, entry in new_by.items():
        if key in old_by:
            _walk(out, section, f"{path}[{key}]", old_by[key], entry)
    kept_old = [k for k in old_by if k in new_by]
    kept_new = [k for k in new_by if k in old_by]
    if kept_old != kept_new:
        out.append(DataChange(section, path, "reordered", old=kept_old, new=kept_new))


def _keyed(entries: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Entries by their id, name or analyte; an entry with none (a cue) by its scalar fields."""
    keyed: dict[str, dict[str, Any]] = {}
    for entry in entries:
        key = next((str(entry[k]) for k in ("id", "name", "analyte") if isinstance(entry.get(k), str)), None)
        if key is None:
            key = "/".join("-" if v is None else str(v) for v in entry.values() if not isinstance(v, (list, dict)))
        base, n = key, 2
        while key in keyed:
            key, n = f"{base}#{n}", n + 1
        keyed[key] = entry
    return keyed


def _all_entries(items: list[Any]) -> bool:
    return bool(items) and all(isinstance(i, dict) for i in items)


def _all_scalars(items: list[Any]) -> bool:
    return all(not isinstance(i, (list, dict)) for i in items)


def _scalar(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value)


def _show(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=False)
