"""The pediatric real-text set (issue 19): its size, its agreement, its licences, and the targets of
issues 20 and 21 on the committed part of the test split.

Only the committed part (huatuo, remedi) runs here, whatever is on the machine: the local-only texts
(``evals/peds/local/``) are measured by ``python evals/peds/run.py``. A target the router does not
meet yet is a strict xfail that names the gap: it fails the run the day the target is met, so the
mark cannot outlive the gap it describes.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "evals" / "peds"
spec = importlib.util.spec_from_file_location("peds_run", DATA / "run.py")
assert spec and spec.loader
peds = importlib.util.module_from_spec(spec)
sys.modules[spec.name] = peds
spec.loader.exec_module(peds)

ROWS, _ = peds.load_rows(local=None)
OUTCOMES = peds.run_router(peds.make_router(None), ROWS)
TEST_SPLIT = [o for o in OUTCOMES if o["row"]["split"] == "test"]
TARGETS = {target.name: target for target in peds.targets(TEST_SPLIT)}

# Target name → the gap (issues 29 and 30: emergencies; slots), with the committed test split's
# figure after issue 29's symptom check (295f4c9 in brackets); the full split's figures are in REPORT.md.
KNOWN_GAPS = {
    "silent misses among now (neither halt nor confirm)":
        "issue 29: parents' words for a danger sign still missing, no symptom word either (1/13 pass silently; 7/13)",
    "no value filled on rows without one": "issue 21: a value is filled where the label has none (76/78; 76/78)",
}


def test_the_set_is_its_size():
    assert len(ROWS) >= 3000 and all(row["emergency"] and row["intent"] for row in ROWS)
    assert sum(peds.in_domain(row) for row in ROWS) >= 600
    assert sum(peds.has_value(row) for row in ROWS) >= 300


def test_every_emergency_candidate_is_labelled_twice():
    candidates = [row for row in ROWS if row["candidate"]]
    assert len(candidates) >= 500
    assert all(row["annotation"]["second_reading"] for row in candidates)


def test_every_disagreement_keeps_both_readings_and_the_verdict():
    for row in ROWS:
        note = row["annotation"]
        assert (note["agreed"] is None) == (not note["second_reading"]), row["id"]
        assert ("readings" in note) == (note["agreed"] is False), row["id"]
        if note["agreed"] is False:
            assert note["settled"] in ("A", "B", "third") and set(note["readings"]) == {"A", "B"}, row["id"]
            readings = [note["readings"][side] for side in ("A", "B")]
            assert not peds_agree(*readings), row["id"]


def peds_agree(a, b):
    return a["emergency"] == b["emergency"] and a["intent"] == b["intent"] and all(
        peds.same(a[name], b[name]) for name in peds.SLOT_FIELDS)


@pytest.mark.parametrize("source", ["all", "huatuo", "cmdd", "dxy"])
def test_the_two_readings_agree_on_now_vs_not_now(source):
    k_mention, n_mention, k_now, n_now = peds.agreement(ROWS)[source]
    assert n_mention >= 30 and k_mention is not None and k_mention >= 0.6
    assert k_now is not None and k_now >= 0.6


@pytest.mark.parametrize(
    ("pairs", "expected"),
    [
        pytest.param([(True, True)] * 20 + [(True, False)] * 5 + [(False, True)] * 10 + [(False, False)] * 15, 0.4,
                     id="textbook 2x2: po 0.7, pe 0.5"),
        pytest.param([(True, True), (False, False)], 1.0, id="perfect agreement"),
        pytest.param([(True, False), (False, True)], -1.0, id="perfect disagreement"),
        pytest.param([(True, True), (True, True)], None, id="no variation: undefined"),
    ],
)
def test_kappa(pairs, expected):
    got = peds.kappa(pairs)
    assert got == expected if expected is None else abs(got - expected) < 1e-9


@pytest.mark.parametrize(
    ("label", "router", "agrees"),
    [
        pytest.param({"emergency": "now", "soft": False, "concepts": ["seizure"], "intent": "knowledge"}, "emergency_red_flag", True,
                     id="hard now: red flag"),
        pytest.param({"emergency": "now", "soft": False, "concepts": ["seizure"], "intent": "knowledge"}, "knowledge", False,
                     id="hard now: the question"),
        # SPEC §4.7 revision 3: a fever that will not come down is a symptom that asks, no hard sign
        pytest.param({"emergency": "now", "soft": False, "concepts": ["persistent_fever"], "intent": "knowledge"}, "knowledge", True,
                     id="fever alone now: the question"),
        pytest.param({"emergency": "now", "soft": False, "concepts": ["persistent_fever", "seizure"], "intent": "knowledge"}, "knowledge",
                     False, id="fever beside a hard sign: the red flag"),
        pytest.param({"emergency": "now", "soft": True, "intent": "knowledge"}, "knowledge", True, id="soft now: the question"),
        pytest.param({"emergency": "now", "soft": True, "intent": "knowledge"}, "emergency_red_flag", True, id="soft now: red flag"),
        pytest.param({"emergency": "not_now", "soft": False, "intent": "knowledge"}, "emergency_red_flag", False,
                     id="not_now: red flag is wrong"),
        pytest.param({"emergency": "none", "soft": False, "intent": "lab_result"}, "lab_result", True, id="none: the label"),
    ],
)
def test_intent_rule(label, router, agrees):
    assert peds.intent_agrees(label, router) is agrees


@pytest.mark.parametrize("name", ["NOTICE", "LICENSE-Huatuo26M.txt", "LICENSE-ReMeDi.txt"])
def test_licence_files_are_in_place(name):
    assert (DATA / name).stat().st_size > 500


def test_notice_names_both_committed_sources():
    notice = (DATA / "NOTICE").read_text(encoding="utf-8")
    assert "Zhongjing" in notice and "Medical-Dialogue" in notice


def test_the_committed_part_is_measured():
    assert {o["row"]["source"] for o in OUTCOMES} == set(peds.COMMITTABLE)
    assert len(TEST_SPLIT) >= 100
    assert all(target.value is not None for target in TARGETS.values())


@pytest.mark.parametrize(
    "name",
    [pytest.param(name, marks=pytest.mark.xfail(strict=True, reason=KNOWN_GAPS[name])) if name in KNOWN_GAPS else name
     for name in TARGETS],
)
def test_target_on_the_committed_test_split(name):
    target = TARGETS[name]
    assert target.met, f"{name}: {target.row()}"
