"""The shape of ``extract_slots``' result (SPEC §4.4): one model for the tool, the schema and the router."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, with_config
from typing_extensions import TypedDict  # pydantic reads typing's own TypedDict only from Python 3.12

Meal = Literal["breakfast", "lunch", "dinner", "snack"]


# A plain dict (a TypedDict), not a model: a message holds a dozen quantities, and building each
# as a model instance cost as much as the rest of its handling (bench/router_bench.py).
# ``with_config`` rather than a ``__pydantic_config__`` attribute: a type checker reads that attribute
# as one more required key, and then no dict literal is a Quantity.
@with_config(ConfigDict(extra="forbid"))
class Quantity(TypedDict):
    """A number with its unit, as written."""

    value: Annotated[int | float, Field(description="The number as written: an int when written without a fractional part.")]
    unit: Annotated[str | None, Field(description="The unit as written right after the number, or null when there is none.")]
    raw: Annotated[str, Field(description="The matched span as written (after Unicode normalization).")]


class SlotsResult(BaseModel):
    model_config = ConfigDict(extra="forbid")

    patient_id: str | None = Field(
        description="The one patient ID named in the text (P followed by ≥ 4 ASCII digits); null when none or several."
    )
    food: list[str] = Field(description="Foods from the policy dictionary, distinct, in order of first appearance.")
    analyte: list[str] = Field(
        description="Lab analytes as canonical field names (potassium, scr, …), distinct, in order of first appearance."
    )
    date: list[str] = Field(description="Dates named in the text, ISO YYYY-MM-DD, relative ones resolved; distinct.")
    number: list[Quantity] = Field(
        description="Every number with its unit as written; numbers inside dates and patient IDs are not repeated."
    )
    age_years: float | None = Field(description="The child's age in years (months ÷ 12, two decimals); null when not stated.")
    weight_kg: float | None = Field(description="Body weight in kg (斤 × 0.5), only with body-weight context; else null.")
    height_cm: float | None = Field(description="Body height in cm (1.2米 and 一米二 → 120); null when not stated.")
    temperature_c: float | None = Field(
        description="The child's current body temperature in °C (35–43: right after 体温, 发烧, 烧到, 最高…, or with 度 / ℃ / °C and a fever word in its sentence; past and hypothetical readings left out; the highest when several); null when not stated."
    )
    time_window_days: int | None = Field(
        description="A look-back window in days (最近7天 → 7, 两周 → 14, 近一个月 → 30); null when none."
    )
    meal: Meal | None = Field(description="The one meal named; null when none or when two different meals are named.")
    measure: list[Quantity] = Field(description="Food portions (碗, 勺, 克, 毫升, 个, 片, 杯, …) with value, unit and raw.")
    ambiguous: list[str] = Field(description='Slots named more than once with different values: "patient_id", "meal".')
    approximate: list[str] = Field(
        description='Slots filled with a lower bound the text gives as approximate (两岁多 → age_years 2.0, 16斤多 → weight_kg 8.0, 39度多 → temperature_c 39.0): "age_years", "weight_kg", "temperature_c".'
    )
    policy_version: str = Field(description="The policy version and digest that produced this result.")
