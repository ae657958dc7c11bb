"""Issue 23's targets on the project's own corpora (the defaults of ``policy diff``)."""

from __future__ import annotations

import json
from datetime import date

from app.policy_report.corpora import CALLER, SESSION_PATIENT
from app.router import Router, load_policy

from .conftest import PROJECT, SHIPPED, edited_policy, report_json, rows_of, run_diff

REDFLAGS = PROJECT / "evals" / "realtext" / "redflags.jsonl"
REFERENCE = date(2026, 12, 1)


def status_by_id(policy_path, rows) -> dict[str, str]:
    router = Router(load_policy(policy_path), today=lambda: REFERENCE)
    return {r["id"]: router.route_request(r["text"], CALLER, SESSION_PATIENT, REFERENCE).status for r in rows}


def test_removing_one_seizure_term_names_every_labelled_emergency_that_stops_halting(tmp_path):
    new = edited_policy(tmp_path, ('  "抽搐", "惊厥", "抽风",', '  "惊厥", "抽风",'))
    rows = [json.loads(line) for line in REDFLAGS.read_text(encoding="utf-8").splitlines() if line.strip()]
    emergencies = [r for r in rows if r["label"] == "emergency_now"]
    before, after = status_by_id(SHIPPED, emergencies), status_by_id(new, emergencies)
    # Computed here without the report: the labelled emergencies that halted and no longer do.
    stopped = {i for i in before if before[i] == "halt" and after[i] != "halt"}
    assert stopped, "the edit must break something for this test to mean anything"

    code, report = report_json(SHIPPED, new, fail_on_safety=True)
    assert code == 3
    named = {r["id"] for r in rows_of(report) if r["corpus"] == "evals/realtext/redflags.jsonl"
             and r["label"] == "emergency_now" and r["old"] == "halt" and r["new"] != "halt"}
    assert named == stopped
    assert all(r["kind"] in ("halt_to_silent", "halt_to_confirm") for r in rows_of(report) if r["id"] in stopped)
    assert report["summary"][0]["kind"] == "halt_to_silent" and report["summary"][0]["rows"] > 0
    assert [c["path"] for c in report["data_changes"]] == ["p0.concepts[seizure].terms"]
    # Without the flag the same report exits 0: the flag, not the finding, decides the status.
    assert run_diff(SHIPPED, new)[0] == 0


def test_a_new_pseudo_negation_lists_the_changed_confirms_and_nothing_else(tmp_path):
    new = edited_policy(tmp_path, ('words = ["不停", "不断",', 'words = ["不算", "不停", "不断",'))
    code, report = report_json(SHIPPED, new, fail_on_safety=True)
    assert code == 0
    rows = rows_of(report)
    assert rows and all(r["old"] == "confirm" for r in rows), rows
    assert {r["text"] for r in rows} == {"应该不算休克"}
    assert [(c["path"], c["added"]) for c in report["data_changes"]] == [("context.cues[pseudo/before/none/-].words", ["不算"])]


def test_identical_policies_give_an_empty_report_and_exit_0():
    code, report = report_json(SHIPPED, SHIPPED, fail_on_safety=True)
    assert (code, report["groups"], report["data_changes"], report["safety_failures"]) == (0, [], [], 0)
    assert report["texts_run"] > 1500
    assert report["headline"] == f"No decision changes on {report['texts_run']} texts (no data change)."


def test_a_comment_only_edit_changes_the_digest_and_no_decision(tmp_path):
    new = edited_policy(tmp_path, ('version = "2026.11.30"', '# reviewed\nversion = "2026.11.30"'))
    code, report = report_json(SHIPPED, new)
    assert report["old"]["policy_version"] != report["new"]["policy_version"]
    assert (code, report["groups"], report["data_changes"]) == (0, [], [])
