"""patient_out_of_context reads another patient however written (SPEC §4.5, issue 11 point 5).

Session P0001. Every row asks for labs (lab_result, which the parent, the nutritionist and the
doctor may read), so the patient check is what decides: another patient → denied for the
session-only callers (parent_assistant, child_companion), clarify for the others; the session's
own patient, however written, and text that is not an ID → proceed. extract_slots keeps its strict
reading: the lenient forms are not its ``patient_id``.
"""

from __future__ import annotations

import pytest

from app.router import Router, load_policy
from app.router.patients import other_patient
from app.router.text import views

REF = "2026-11-30"
ROUTER = Router(load_policy())

OTHER = [
    ("plain P0002", "P0002"),
    ("hyphen P-0002", "P-0002"),
    ("space P 0002", "P 0002"),
    ("underscore P_0002", "P_0002"),
    ("dot P.0002", "P.0002"),
    ("colon P:0002", "P:0002"),
    ("hash P#0002", "P#0002"),
    ("several separators P - 0002", "P - 0002"),
    ("en dash P–0002", "P–0002"),
    ("lower-case p0002", "p0002"),
    ("Cyrillic Р0002", "\u04200002"),
    ("Cyrillic lower-case р0002", "\u04400002"),
    ("Greek Ρ0002", "\u03a10002"),
    ("full-width Ｐ０００２", "Ｐ０００２"),
    ("full-width Ｐ with hyphen", "Ｐ－０００２"),
    ("mathematical bold 𝐏0002", "\U0001d40f0002"),
    ("Arabic-Indic digits P٠٠٠٢", "P\u0660\u0660\u0660\u0662"),
    ("Devanagari digits P०००२", "P\u0966\u0966\u0966\u0968"),
    ("zero-width space inside P\u200b0002", "P\u200b0002"),
    ("session patient and another", "P0001 和 P-0002"),
    ("longer ID P00012", "P00012"),
]

SAME = [
    ("session patient P0001", "P0001"),
    ("session patient p-0001", "p-0001"),
    ("session patient Cyrillic Р 0001", "\u0420 0001"),
    ("session patient Arabic-Indic P٠٠٠١", "P\u0660\u0660\u0660\u0661"),
    ("no ID at all", ""),
    ("three digits P002 is no ID", "P002"),
    ("a word ending in p before a year: checkup 2025", "checkup 2025"),
]


@pytest.mark.parametrize(("written", "caller", "status"), [
    (w, c, s) for _, w in OTHER for c, s in (("parent_assistant", "denied"), ("doctor_assistant", "clarify"))
], ids=[f"{i} ({c})" for i, _ in OTHER for c in ("parent", "doctor")])
def test_another_patient_however_written_is_out_of_context(written, caller, status):
    result = ROUTER.route_request(f"帮我查{written}的化验单", caller, "P0001", REF)
    assert (result.status, result.reason_code, result.patient_id) == (status, "patient_out_of_context", "P0001")


@pytest.mark.parametrize("written", [w for _, w in SAME], ids=[i for i, _ in SAME])
@pytest.mark.parametrize("caller", ["parent_assistant", "doctor_assistant"], ids=["parent", "doctor"])
def test_the_session_patient_or_no_id_proceeds(written, caller):
    result = ROUTER.route_request(f"帮我查{written}的化验单", caller, "P0001", REF)
    assert (result.status, result.reason_code, result.patient_id) == ("proceed", "proceed", "P0001")


@pytest.mark.parametrize(("written", "strict"), [
    ("P0002", "P0002"), ("P-0002", None), ("p0002", None), ("\u04200002", None), ("P\u0660\u0660\u0660\u0662", None),
], ids=["strict P0002 is the slot", "P-0002 is not", "p0002 is not", "Cyrillic Р0002 is not", "Arabic-Indic is not"])
def test_extract_slots_keeps_its_strict_reading(written, strict):
    assert ROUTER.extract_slots(f"帮我查{written}的化验单", REF).patient_id == strict


@pytest.mark.parametrize(("text", "named"), [
    ("P0002" * 400, True), ("P-" * 1000, False), ("\u0420 " * 1000, False), ("P0001 " * 333, False),
], ids=["IDs repeated", "P- repeated", "Cyrillic Р and blanks repeated", "the session ID repeated"])
def test_the_lenient_reading_over_long_texts(text, named):
    assert other_patient(views(text).text, "P0001") is named
