"""The data diff covers every field of the policy model: the walk below visits each field of
``PolicyFile`` (recursing into nested models, lists of models and maps of models), changes that one
field in the shipped policy's data and requires a report entry at its path. A section or field
added to the model is visited too, so it cannot be left out of the report."""

from __future__ import annotations

import copy
import types
import typing
from typing import Any, Iterator

import pytest
from pydantic import BaseModel

from app.policy_report.data_diff import SECTION_TITLES, data_diff, sections
from app.policy_report.sources import read_source
from app.router.policy import PolicyFile

from .conftest import SHIPPED

BASE = read_source(str(SHIPPED)).sections


def _strip(annotation: Any) -> Any:
    """The type inside Annotated[…] and X | None."""
    while typing.get_origin(annotation) is typing.Annotated:
        annotation = typing.get_args(annotation)[0]
    if typing.get_origin(annotation) in (typing.Union, types.UnionType):
        annotation = next(a for a in typing.get_args(annotation) if a is not type(None))
        return _strip(annotation)
    return annotation


def _model(annotation: Any) -> type[BaseModel] | None:
    return annotation if isinstance(annotation, type) and issubclass(annotation, BaseModel) else None


def _element_key(entry: dict) -> str:
    for key in ("id", "name", "analyte"):
        if isinstance(entry.get(key), str):
            return entry[key]
    return "/".join("-" if v is None else str(v) for v in entry.values() if not isinstance(v, (list, dict)))


def _changed(value: Any) -> Any:
    if isinstance(value, bool):
        return not value
    if isinstance(value, (int, float)):
        return value + 1
    if isinstance(value, str):
        return value + "x"
    if value is None:
        return 1
    if isinstance(value, list):
        return value + ["新增"]
    if isinstance(value, dict):
        return {**value, "新增": ["新增"]}
    raise AssertionError(f"no change for {value!r}")


def fields(model: type[BaseModel], data: dict, path: str) -> Iterator[tuple[str, dict, str]]:
    """(expected path, the data's parent dict, key) for every field below ``model``."""
    for name, info in model.model_fields.items():
        key = info.alias or name
        where = f"{path}.{key}" if path else key
        annotation = _strip(info.annotation)
        origin, args = typing.get_origin(annotation), typing.get_args(annotation)
        yield where, data, key
        if _model(annotation):
            yield from fields(annotation, data[key], where)
        elif origin is list and _model(_strip(args[0])) and data[key]:
            first = data[key][0]
            for inner, parent, field in fields(_strip(args[0]), first, f"{where}[{_element_key(first)}]"):
                yield inner, parent, field
        elif origin is dict and _model(_strip(args[1])) and data[key]:
            first = next(iter(data[key]))
            yield from fields(_strip(args[1]), data[key][first], f"{where}.{first}")


def cases() -> list[tuple[str, dict]]:
    out = []
    for where, _parent, _key in fields(PolicyFile, BASE, ""):
        changed = copy.deepcopy(BASE)
        # Find the same (parent, key) in the copy by replaying the walk on it.
        for again, parent, key in fields(PolicyFile, changed, ""):
            if again == where:
                parent[key] = _changed(parent[key])
                break
        out.append((where, changed))
    return out


CASES = cases()


def test_the_walk_reaches_every_section_and_the_deep_fields():
    paths = {where for where, _ in CASES}
    assert set(sections()) <= paths
    for deep in ("p0.concepts[seizure].terms", "p0.concepts[seizure].patterns", "p0.critical_values[potassium_critical_value].threshold",
                 "context.cues[negation/before/next_mention/4].words", "intents[emergency_red_flag].keywords",
                 "matrix", "mcps.M1.name", "rules.MX-1.delegate_to", "write_tools[upsert_lab_result].callers", "slots.analytes"):
        assert deep in paths, deep


@pytest.mark.parametrize("where, changed", CASES, ids=[where for where, _ in CASES])
def test_a_change_to_every_field_is_reported_at_its_path(where, changed):
    reported = [c.path for c in data_diff(BASE, changed)]
    assert reported and all(p == where or p.startswith(where + ".") or p.startswith(where + "[") for p in reported), reported


def test_every_section_has_a_title_for_reviewers():
    assert set(sections()) == set(SECTION_TITLES)


def test_word_lists_compare_as_sets_and_say_what_came_and_went():
    changed = copy.deepcopy(BASE)
    terms = changed["p0"]["concepts"][0]["terms"]
    terms.remove("抽搐")
    terms.append("打摆子")
    [change] = data_diff(BASE, changed)
    assert (change.path, change.added, change.removed) == ("p0.concepts[seizure].terms", ("打摆子",), ("抽搐",))
    reordered = copy.deepcopy(BASE)
    reordered["p0"]["concepts"][0]["terms"].reverse()
    assert [c.what for c in data_diff(BASE, reordered)] == ["reordered"]


def test_an_entry_added_or_removed_is_reported_whole():
    changed = copy.deepcopy(BASE)
    removed = changed["p0"]["concepts"].pop(0)
    changed["p0"]["concepts"].append({**removed, "id": "seizure_new"})
    assert [(c.path, c.what) for c in data_diff(BASE, changed)] == [
        ("p0.concepts[seizure]", "removed"), ("p0.concepts[seizure_new]", "added")]


def test_entries_pair_by_id_so_a_moved_intent_is_an_order_change_not_a_rewrite():
    changed = copy.deepcopy(BASE)
    intents = changed["intents"]
    intents[1], intents[2] = intents[2], intents[1]
    [change] = data_diff(BASE, changed)
    assert change.path == "intents" and change.what == "reordered"


def test_identical_data_has_no_change():
    assert data_diff(BASE, copy.deepcopy(BASE)) == []
