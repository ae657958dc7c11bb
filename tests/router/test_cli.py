"""`python -m app decide` and `python -m app policy check`, through a subprocess."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def run(*args: str, stdin: str = "", env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "app", *args], input=stdin, capture_output=True, text=True, cwd=ROOT, env=env, timeout=60)


def test_decide_writes_one_line_per_call():
    calls = [
        {"tool": "check_permission", "arguments": {"caller": "doctor_assistant", "mcp": "a207-lis-mcp"}},
        {"tool": "route_request", "arguments": {"text": "孩子抽搐了", "caller": "parent_assistant"}},
        {"tool": "classify_intent", "arguments": {"text": 42}},
        {"tool": "extract_slots", "arguments": {"text": "x", "secret_key": "P0001"}},
        {"tool": "drop_tables", "arguments": {}},
    ]
    result = run("decide", stdin="\n".join(json.dumps(c, ensure_ascii=False) for c in calls) + "\n")
    assert result.returncode == 0, result.stderr
    lines = [json.loads(line) for line in result.stdout.splitlines()]
    assert len(lines) == 5
    assert lines[0]["allow"] is True and lines[0]["access"] == "R/W"
    assert lines[1]["status"] == "halt"
    assert lines[2] == {"error": {"code": "INVALID_ARGUMENT", "field": "text", "message": "must be a string"}}
    assert lines[3]["error"]["code"] == "INVALID_ARGUMENT" and lines[3]["error"]["field"] == "secret_key"
    assert "P0001" not in json.dumps(lines[3])
    assert lines[4]["error"]["field"] == "tool"


def test_decide_rejects_input_that_is_not_json_lines():
    result = run("decide", stdin='{"tool": "classify_intent", "arguments": {"text": "hi"}}\nnot json\n')
    assert result.returncode != 0
    assert len(result.stdout.splitlines()) == 1
    assert "line 2" in result.stderr


def test_decide_honours_the_text_limit():
    import os

    env = {**os.environ, "ROUTER_MAX_TEXT_CHARS": "10"}
    result = run("decide", stdin=json.dumps({"tool": "classify_intent", "arguments": {"text": "化验" * 6}}) + "\n", env=env)
    assert json.loads(result.stdout)["error"] == {"code": "INVALID_ARGUMENT", "field": "text", "message": "must be at most 10 characters"}


def test_policy_check_prints_the_version():
    result = run("policy", "check")
    assert result.returncode == 0
    assert result.stdout.strip().startswith("2026.")


def test_policy_check_refuses_with_reasons(tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text((ROOT / "app/router/policy.toml").read_text(encoding="utf-8").replace('mcp = "M2"', 'mcp = "M77"', 1), encoding="utf-8")
    result = run("policy", "check", str(bad))
    assert result.returncode == 1
    assert "unregistered MCP 'M77'" in result.stderr


def test_decide_takes_patient_facts():
    """SPEC §4.5 revision 3 through the CLI: the same fever halts with the session's facts, a bad
    fact is an INVALID_ARGUMENT that echoes nothing."""
    text = "孩子今天烧到38.6"
    calls = [
        {"tool": "route_request", "arguments": {"text": text, "caller": "parent_assistant"}},
        {"tool": "route_request", "arguments": {"text": text, "caller": "parent_assistant",
                                                "patient_facts": {"kidney_therapy": "transplant"}}},
        {"tool": "check_safety_gate", "arguments": {"intent": text, "caller": "parent_assistant",
                                                    "patient_facts": {"age_years": 0.1}}},
        {"tool": "route_request", "arguments": {"text": text, "caller": "parent_assistant",
                                                "patient_facts": {"kidney_therapy": "secret_graft"}}},
    ]
    result = run("decide", stdin="\n".join(json.dumps(c, ensure_ascii=False) for c in calls) + "\n")
    assert result.returncode == 0, result.stderr
    lines = [json.loads(line) for line in result.stdout.splitlines()]
    assert lines[0]["status"] != "halt"
    assert lines[1]["status"] == "halt" and [f["fact"] for f in lines[1]["red_flags"] if f["fact"]] == ["kidney_therapy"]
    assert lines[2]["gate"] == "P0_EMERGENCY"
    assert lines[3]["error"]["field"] == "patient_facts.kidney_therapy" and "secret_graft" not in result.stdout
