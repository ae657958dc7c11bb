"""The official TypeScript MCP client (@modelcontextprotocol/sdk, pinned in ts/package-lock.json)
against the real server over HTTP, through ts/client.mjs; and its 2.x successor
(@modelcontextprotocol/client, also pinned) through ts/client2.mjs, connecting with its default
negotiation and with mode 'auto' (server/discover first), before and after server/discover was
answered: the requests it needs to connect are counted.

Needs node and npm. On CI (CI=true) their absence is a failure; locally the module is skipped.
node_modules is installed with `npm ci` from the lock file when it is missing or stale, under a file
lock so two xdist workers never install into the same directory at once.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

from .conftest import ACK_ROUND_TRIP, BAD_CALL, CALLS, CONFIRM_ROUND_TRIP, FACT_CALLS, FIVE_TOOLS, IN_CI

TS_DIR = Path(__file__).resolve().parent / "ts"
SDK = "@modelcontextprotocol/sdk"
# Everything `npm ci` must have installed: the SDK, and the authorization server of the OAuth tests.
SDK2 = "@modelcontextprotocol/client"
PACKAGES = (SDK, SDK2, "oidc-provider")
NPM_CI_TIMEOUT_SECONDS = 120
CLIENT_TIMEOUT_SECONDS = 60


def _tool(name: str) -> str:
    path = shutil.which(name)
    if path is None:
        message = f"`{name}` is not on PATH: the TypeScript SDK interop test needs Node.js >= 20 and npm"
        if IN_CI:
            pytest.fail(message + " (CI is set, so this is a failure, not a skip)", pytrace=False)
        pytest.skip(message)
    return path


def _locked_version(package: str = SDK) -> str:
    lock = json.loads((TS_DIR / "package-lock.json").read_text())
    return lock["packages"][f"node_modules/{package}"]["version"]


def _installed_version(package: str = SDK) -> str | None:
    try:
        return json.loads((TS_DIR / "node_modules" / package / "package.json").read_text())["version"]
    except (OSError, ValueError, KeyError):
        return None


def _installed_as_locked() -> bool:
    return all(_installed_version(p) == _locked_version(p) for p in PACKAGES)


def _ensure_node_modules(npm: str) -> None:
    lock_path = Path(tempfile.gettempdir()) / f"a207-interop-npm-{hashlib.sha256(str(TS_DIR).encode()).hexdigest()[:16]}.lock"
    with open(lock_path, "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
        if _installed_as_locked():
            return
        try:
            done = subprocess.run(
                [npm, "ci", "--no-audit", "--no-fund"],
                cwd=TS_DIR,
                stdin=subprocess.DEVNULL,
                capture_output=True,
                text=True,
                timeout=NPM_CI_TIMEOUT_SECONDS,
            )
        except subprocess.TimeoutExpired:
            pytest.fail(f"`npm ci` in {TS_DIR} did not finish in {NPM_CI_TIMEOUT_SECONDS} s", pytrace=False)
        if done.returncode != 0:
            pytest.fail(f"`npm ci` in {TS_DIR} failed ({done.returncode}):\n{done.stdout[-2000:]}\n{done.stderr[-4000:]}", pytrace=False)
        assert _installed_as_locked(), "npm ci did not install the locked versions"


@pytest.fixture(scope="module")
def ts_output(interop_server, tmp_path_factory) -> dict:
    """Run client.mjs once with every call (and the bad one); its parsed JSON document."""
    node = _tool("node")
    npm = _tool("npm")
    _ensure_node_modules(npm)
    calls_file = tmp_path_factory.mktemp("interop-ts") / "calls.json"
    calls_file.write_text(
        json.dumps([{"tool": c.tool, "arguments": c.arguments} for c in [*CALLS, BAD_CALL]], ensure_ascii=False),
        encoding="utf-8",
    )
    url, token = interop_server
    env = {k: v for k, v in os.environ.items() if not k.startswith("ROUTER_")}
    env["MCP_BEARER_TOKEN"] = token
    try:
        done = subprocess.run(
            [node, str(TS_DIR / "client.mjs"), url, str(calls_file)],
            cwd=TS_DIR,
            env=env,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=CLIENT_TIMEOUT_SECONDS,
        )
    except subprocess.TimeoutExpired:
        pytest.fail(f"client.mjs did not finish in {CLIENT_TIMEOUT_SECONDS} s", pytrace=False)
    if done.returncode != 0:
        pytest.fail(f"client.mjs failed ({done.returncode}):\n{done.stderr[-4000:]}", pytrace=False)
    return json.loads(done.stdout)


def test_sdk_is_the_locked_1_32_release(ts_output):
    assert ts_output["sdkVersion"] == _locked_version()
    assert ts_output["sdkVersion"].startswith("1.32.")


def test_initialize_answers_2025_06_18(ts_output):
    assert ts_output["protocolVersion"] == "2025-06-18"
    assert ts_output["serverInfo"]["name"] == "a207-router-mcp"
    assert ts_output["capabilities"]["tools"] == {"listChanged": False}
    assert "route_request" in ts_output["instructions"]


def test_tools_list_is_exactly_the_five_tools(ts_output):
    assert sorted(ts_output["tools"]) == sorted(FIVE_TOOLS)


def _assert_same(result: dict, call, expected: dict, *, is_error: bool) -> None:
    where = f"{call.tool}({json.dumps(call.arguments, ensure_ascii=False)})"
    assert result.get("via") is not None, f"{where}: no answer at all: {result}"
    assert result["tool"] == call.tool
    assert result["isError"] is is_error, where
    assert result["structuredContent"] == expected, where
    assert len(result["content"]) == 1 and result["content"][0]["type"] == "text", where
    assert json.loads(result["content"][0]["text"]) == expected, where


def test_every_call_equals_the_in_process_result(ts_output, interop_cases):
    calls = [(call, expected) for call, expected in interop_cases if call is not BAD_CALL]
    results = ts_output["results"][: len(calls)]
    assert len(results) == len(calls) >= 10
    for (call, expected), result in zip(calls, results, strict=True):
        assert result["sdkError"] is None, f"{call.tool}: Client.callTool threw: {result['sdkError']}"
        assert result["via"] == "callTool"
        _assert_same(result, call, expected, is_error=False)


def test_bad_argument_is_a_tool_error_on_the_wire(ts_output, interop_cases):
    (expected,) = [result for call, result in interop_cases if call is BAD_CALL]
    result = ts_output["results"][-1]
    assert expected["error"]["code"] == "INVALID_ARGUMENT"
    _assert_same(result, BAD_CALL, expected, is_error=True)


def test_bad_argument_reaches_a_callTool_user(ts_output):
    """The TS SDK (<= 1.32.2, typescript-sdk issue #1943) validates structuredContent against
    outputSchema even when isError is true; our outputSchema lists the SPEC §4.6 error shape too,
    so callTool returns the INVALID_ARGUMENT details instead of throwing."""
    assert ts_output["results"][-1]["sdkError"] is None, ts_output["results"][-1]["sdkError"]


def test_http_exchanges_follow_the_profile(ts_output):
    """initialize first; requests 200, the notification 202; a GET (SSE) is refused with 405."""
    http = ts_output["http"]
    posts = [(method, status) for verb, method, status, *_ in http if verb == "POST"]
    assert posts[0] == ("initialize", 200), http
    assert ("notifications/initialized", 202) in posts, http
    assert all(status == (202 if method.startswith("notifications/") else 200) for method, status in posts), http
    assert all(status == 405 for verb, _, status, *_ in http if verb == "GET"), http
    assert {verb for verb, *_ in http} <= {"POST", "GET", "DELETE"}, http


def test_acknowledgement_round_trip(ts_output, interop_cases):
    """The TypeScript client replays confirm, then the same text acknowledged (SPEC §4.7)."""
    first, second = (ts_output["results"][i]["structuredContent"] for i in ACK_ROUND_TRIP)
    assert (first["status"], first["reason_code"]) == ("confirm", "p0_confirm_current")
    acknowledged = CALLS[ACK_ROUND_TRIP[1]].arguments["acknowledged_red_flags"]
    assert sorted({f["concept"] for f in first["red_flags"]}) == acknowledged
    assert second["status"] == "proceed"
    assert all(f["acknowledged"] for f in second["red_flags"])


def test_severity_confirmation_round_trip(ts_output, interop_cases):
    """The TypeScript client replays a severity question, then the same text confirmed (SPEC §4.7
    "Soft signs ask"): it halts."""
    first, second = (ts_output["results"][i]["structuredContent"] for i in CONFIRM_ROUND_TRIP)
    assert (first["status"], first["reason_code"]) == ("confirm", "p0_confirm_severity")
    confirmed = CALLS[CONFIRM_ROUND_TRIP[1]].arguments["confirmed_red_flags"]
    assert sorted({q["concept"] for q in first["severity_questions"]}) == sorted(confirmed)
    assert (second["status"], second["reason_code"]) == ("halt", "p0_emergency")


def test_every_input_validates_with_the_sdks_validator(ts_output):
    """The SDK's own JSON Schema validator accepts every call's arguments against the listed
    inputSchema — patient_facts included — and refuses the bad call's extra key."""
    results = ts_output["results"]
    # Not checked: null for a list argument (acknowledged_red_flags: null), which the server takes as
    # the empty list (SPEC §5.3) while the listed schema says array only (left as found).
    checked = [r["inputValid"] for call, r in zip(CALLS, results)
               if not any(v is None for k, v in call.arguments.items() if k.endswith("_red_flags"))]
    assert len(checked) >= len(CALLS) - 2
    assert checked == [True] * len(checked)
    assert results[-1]["inputValid"] is False


def test_patient_facts_halt_and_name_the_fact(ts_output):
    """SPEC §4.5 revision 3 over the TypeScript client: the fever of a transplanted child halts, its
    red flag names the fact; a past belly ache of a child on PD asks; null facts change nothing."""
    assert len(FACT_CALLS) >= 3
    results = [ts_output["results"][i] for i in FACT_CALLS]
    assert all(r["inputValid"] and r["sdkError"] is None for r in results)
    transplant = results[0]["structuredContent"]
    assert transplant["status"] == "halt"
    assert [(f["concept"], f["fact"]) for f in transplant["red_flags"] if f["fact"]] == [("transplant_alert", "kidney_therapy")]
    assert results[1]["structuredContent"]["status"] == "confirm"


# ---------------------------------------------------------------------------------------------
# @modelcontextprotocol/client 2.x: requests per connect, before and after server/discover
# ---------------------------------------------------------------------------------------------


def _run_client2(server) -> dict:
    node = _tool("node")
    _ensure_node_modules(_tool("npm"))
    url, token = server
    env = {k: v for k, v in os.environ.items() if not k.startswith("ROUTER_")}
    env["MCP_BEARER_TOKEN"] = token
    try:
        done = subprocess.run([node, str(TS_DIR / "client2.mjs"), url], cwd=TS_DIR, env=env, stdin=subprocess.DEVNULL,
                              capture_output=True, text=True, timeout=CLIENT_TIMEOUT_SECONDS)
    except subprocess.TimeoutExpired:
        pytest.fail(f"client2.mjs did not finish in {CLIENT_TIMEOUT_SECONDS} s", pytrace=False)
    if done.returncode != 0:
        pytest.fail(f"client2.mjs failed ({done.returncode}):\n{done.stderr[-4000:]}", pytrace=False)
    return json.loads(done.stdout)


def _connect(run: dict) -> list[str]:
    """The POSTs of the connect: all before the session's first tools/list. (The client also opens
    its SSE stream with a GET, answered 405, once per session: counted apart, it may race the list.)"""
    first = next(i for i, (verb, method, _) in enumerate(run["http"]) if method == "tools/list")
    return [f"{verb} {method} {status}" for verb, method, status in run["http"][:first] if verb == "POST"]


def _gets(run: dict) -> list[int]:
    return [status for verb, _, status in run["http"] if verb == "GET"]


def test_client2_connects_with_no_more_requests_than_before(interop_server, before_discover_server):
    after = _run_client2(interop_server)
    before = _run_client2(before_discover_server)
    assert after["sdkVersion"] == _locked_version(SDK2) and after["sdkVersion"].startswith("2.")
    for output in (before, after):
        for mode, run in output["runs"].items():
            assert run["protocolVersion"] == "2025-06-18", mode
            assert run["serverName"] == "a207-router-mcp" and "route_request" in run["instructions"], mode
            assert sorted(run["tools"]) == sorted(FIVE_TOOLS) and run["allow"] is True, mode
    handshake = ["POST initialize 200", "POST notifications/initialized 202"]
    # The default negotiation of 2.4.0 is 'legacy': it never probes, before or after.
    assert _connect(before["runs"]["default"]) == _connect(after["runs"]["default"]) == handshake
    # mode 'auto' probes first: -32601 before, our 2025-06-18-only answer after; both fall back.
    assert _connect(before["runs"]["auto"]) == ["POST server/discover 200", *handshake]
    assert _connect(after["runs"]["auto"]) == ["POST server/discover 200", *handshake]
    assert len(_connect(after["runs"]["auto"])) <= len(_connect(before["runs"]["auto"]))
    for mode in ("default", "auto"):
        assert _gets(before["runs"][mode]) == _gets(after["runs"][mode]) == [405], mode
