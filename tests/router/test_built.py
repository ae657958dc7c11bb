"""Results built without validation (app/router/built.py) are checked against validation in tests."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from app.router import built
from app.router.models import GateResult, SlotsResult

SLOTS = {
    "patient_id": None, "food": ["香蕉"], "analyte": [], "date": [],
    "number": [{"value": 2, "unit": "根", "raw": "2根"}], "age_years": 8.0, "weight_kg": None,
    "height_cm": None, "temperature_c": None, "time_window_days": None, "meal": None, "measure": [], "ambiguous": [], "approximate": [],
    "policy_version": "v",
}


def test_check_is_on_for_the_suite() -> None:
    assert built.CHECK is True  # tests/conftest.py


def test_a_valid_build_is_its_validated_twin() -> None:
    got = built.builder(SlotsResult)(dict(SLOTS))
    assert type(got) is SlotsResult
    assert got == SlotsResult.model_validate(SLOTS)
    assert got.model_dump_json() == SlotsResult.model_validate(SLOTS).model_dump_json()
    assert got.model_fields_set == set(SlotsResult.model_fields)


@pytest.mark.parametrize(
    ("change", "error"),
    [
        ({"age_years": 8}, built.BuildError),  # an int where validation gives a float
        ({"meal": "brunch"}, ValidationError),  # outside the Literal
        ({"number": [{"value": 2, "unit": "根"}]}, ValidationError),  # a Quantity without raw
        ({"food": "香蕉"}, ValidationError),  # a str for a list
    ],
    ids=["int for float", "literal", "incomplete quantity", "wrong type"],
)
@pytest.mark.filterwarnings("ignore:Pydantic serializer warnings")
def test_a_build_that_validation_would_change_or_refuse_fails(change: dict, error: type[Exception]) -> None:
    with pytest.raises(error):
        built.builder(SlotsResult)(SLOTS | change)


def test_missing_extra_or_reordered_fields_fail() -> None:
    build = built.builder(SlotsResult)
    missing = dict(SLOTS)
    del missing["meal"]
    reordered = {"meal": None} | missing
    for values in (missing, reordered, SLOTS | {"extra": 1}):
        with pytest.raises(built.BuildError):
            build(values)


def test_checking_can_be_off(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(built, "CHECK", False)
    assert built.builder(GateResult)({"allow": "no"}).allow == "no"  # trusted: the caller's duty
