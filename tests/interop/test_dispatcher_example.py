"""The reference dispatcher (examples/dispatcher: LangGraph + langchain-mcp-adapters) against a real server.

The example has its own venv (`examples/dispatcher/.venv`, made by `make test` from its own
requirements file), so it runs as a subprocess of that interpreter; the service's venv never imports
LangGraph. Three runs, each its own test so xdist can spread them:

* the evaluation against the real server started by the interop fixture (fresh token, free port):
  every counted conversation passes, every status's node is reached, and the multi-turn
  conversations show a "no" kept for the conversation and one turn per confirm;
* the replay of every conversation against a stub router answering only `denied`, then only `halt`,
  while its gate and permission tools allow everything: no business tool may run.
"""

from __future__ import annotations

import json
import os
import subprocess
import tomllib
from pathlib import Path

import pytest

pytestmark = pytest.mark.network

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "dispatcher"
PYTHON = EXAMPLE / ".venv" / "bin" / "python"
TIMEOUT_SECONDS = 240
# The node each route_request status leads to (confirm's appears only with a router that has it).
STATUS_NODES = {"halt": "escalate", "denied": "delegate", "clarify": "clarify", "review": "review:gated", "proceed": "execute",
                "confirm": "confirm:no"}


def _run_eval(tmp_path: Path, *args: str, token: str = "") -> dict:
    assert PYTHON.exists(), "examples/dispatcher/.venv is missing: `make test` (or `make dispatcher-venv`) creates it"
    report = tmp_path / "report.json"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ROUTER_", "DISPATCHER_"))}
    env["PYTHONPATH"] = str(ROOT)
    if token:
        env["ROUTER_MCP_AUTH_TOKEN"] = token  # in the environment, never on a command line
    proc = subprocess.run([str(PYTHON), "-m", "examples.dispatcher.eval", *args, "--report", str(report)],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=TIMEOUT_SECONDS)
    assert proc.returncode == 0, proc.stdout[-6000:] + "\n--- stderr ---\n" + proc.stderr[-4000:]
    return json.loads(report.read_text(encoding="utf-8"))


def test_evaluation_against_the_real_router(interop_server, tmp_path):
    url, token = interop_server
    report = _run_eval(tmp_path, "--url", url, token=token)
    assert report["conversations"] >= 25
    assert report["failures"] == {}
    assert report["should_pass"]["passed"] == report["should_pass"]["of"] > 0
    assert report["should_refuse_correct_refusals"]["passed"] == report["should_refuse_correct_refusals"]["of"] > 0
    reached = {node for outcome in report["outcomes"] if outcome["status"] == "pass" for node in outcome["path"]}
    wanted = {status: node for status, node in STATUS_NODES.items() if status != "confirm" or report["router_has_confirm"]}
    assert {status for status, node in wanted.items() if node not in reached} == set()
    if report["router_has_confirm"]:
        assert report["needs_router_with_confirm"] == []
        # Issue 29: a no holds for the whole conversation (a sick child is asked once over three turns),
        # and every question of one confirm is asked in one turn (one interrupt, one answer).
        passed = {outcome["case"] for outcome in report["outcomes"] if outcome["status"] == "pass"}
        assert {"conversation_sick_child_asked_once", "conversation_new_sign_later_asks_again",
                "confirm_two_soft_signs_one_question", "confirm_soft_sign_and_past_flag_one_question"} <= passed


@pytest.mark.parametrize("status", ["denied", "halt"], ids=["router-denies-all", "router-halts-all"])
def test_no_business_tool_runs_when_the_router_refuses(status, tmp_path):
    report = _run_eval(tmp_path, "--stub-router", status)
    assert report["conversations"] >= 25
    assert report["no_business_call"] == report["conversations"], report["failures"]
    assert all(outcome["business_calls"] == 0 for outcome in report["outcomes"])


def test_the_services_dependencies_do_not_include_the_examples():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    declared = [*project["dependencies"], *(d for extra in project["optional-dependencies"].values() for d in extra)]
    example_only = {"langgraph", "langgraph-checkpoint", "langgraph-checkpoint-sqlite", "langchain-core", "langchain-mcp-adapters"}
    assert [d for d in declared if d.split("=")[0].split("<")[0].split(">")[0].split("[")[0].strip() in example_only] == []
