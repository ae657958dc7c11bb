"""Start-up validation (SPEC §5.4, §5.6), the probe command and make run's dev setup, via subprocesses."""

from __future__ import annotations

import os
import secrets
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def clean_env(**values: str) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith("ROUTER_")}
    env.update(values)
    return env


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def serve(env: dict, port: int, cwd: Path) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "app", "serve", "--host", "127.0.0.1", "--port", str(port)],
        env={**env, "PYTHONPATH": str(ROOT)}, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )


def wait_ready(port: int, process: subprocess.Popen, seconds: float = 20) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise AssertionError(f"server exited: {process.stderr.read()[-2000:]}")
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/ready", timeout=1) as response:
                if response.status == 200:
                    return
        except OSError:
            time.sleep(0.1)
    raise AssertionError("server not ready in time")


def good_token() -> str:
    return secrets.token_urlsafe(32)


SHORT = secrets.token_hex(8)
SPACED = secrets.token_hex(12) + " " + secrets.token_hex(12)
NON_PRINTABLE = secrets.token_hex(16) + "\x01" + secrets.token_hex(16)
SAME = good_token()

REFUSALS = [
    ("token missing", {}, "ROUTER_MCP_AUTH_TOKEN", None),
    ("token shorter than 32", {"ROUTER_MCP_AUTH_TOKEN": SHORT}, "ROUTER_MCP_AUTH_TOKEN", SHORT),
    ("token with whitespace", {"ROUTER_MCP_AUTH_TOKEN": SPACED}, "ROUTER_MCP_AUTH_TOKEN", SPACED),
    ("token not printable", {"ROUTER_MCP_AUTH_TOKEN": NON_PRINTABLE}, "ROUTER_MCP_AUTH_TOKEN", NON_PRINTABLE),
    ("previous token too short", {"ROUTER_MCP_AUTH_TOKEN": good_token(), "ROUTER_MCP_AUTH_TOKEN_PREVIOUS": SHORT}, "ROUTER_MCP_AUTH_TOKEN_PREVIOUS", SHORT),
    ("the two tokens equal", {"ROUTER_MCP_AUTH_TOKEN": SAME, "ROUTER_MCP_AUTH_TOKEN_PREVIOUS": SAME}, "ROUTER_MCP_AUTH_TOKEN_PREVIOUS", SAME),
    ("all mode with a caller list", {"ROUTER_MCP_AUTH_TOKEN": good_token(), "ROUTER_MCP_SCOPE_MODE": "all", "ROUTER_MCP_ALLOWED_CALLERS": "doctor_assistant"},
     "ROUTER_MCP_ALLOWED_CALLERS", None),
    ("unknown role in the caller list", {"ROUTER_MCP_AUTH_TOKEN": good_token(), "ROUTER_MCP_SCOPE_MODE": "caller_allowlist", "ROUTER_MCP_ALLOWED_CALLERS": "doctor_assistant,secret_role_x"},
     "ROUTER_MCP_ALLOWED_CALLERS", "secret_role_x"),
    ("allowlist mode without callers", {"ROUTER_MCP_AUTH_TOKEN": good_token(), "ROUTER_MCP_SCOPE_MODE": "caller_allowlist"}, "ROUTER_MCP_ALLOWED_CALLERS", None),
    ("unknown scope mode", {"ROUTER_MCP_AUTH_TOKEN": good_token(), "ROUTER_MCP_SCOPE_MODE": "everyone"}, "ROUTER_MCP_SCOPE_MODE", "everyone"),
    ("invalid policy file", {"ROUTER_MCP_AUTH_TOKEN": good_token(), "ROUTER_POLICY_FILE": "BAD_POLICY"}, "ROUTER_POLICY_FILE", None),
    ("unknown time zone", {"ROUTER_MCP_AUTH_TOKEN": good_token(), "ROUTER_TIMEZONE": "Mars/Olympus_Mons"}, "ROUTER_TIMEZONE", "Olympus"),
    ("body limit not a number", {"ROUTER_MCP_AUTH_TOKEN": good_token(), "ROUTER_MCP_MAX_BODY_BYTES": "lots"}, "ROUTER_MCP_MAX_BODY_BYTES", "lots"),
]


@pytest.mark.parametrize(("values", "variable", "value"), [r[1:] for r in REFUSALS], ids=[r[0] for r in REFUSALS])
def test_startup_refusal(tmp_path, values, variable, value):
    if values.get("ROUTER_POLICY_FILE") == "BAD_POLICY":
        bad = tmp_path / "policy.toml"
        bad.write_text((ROOT / "app/router/policy.toml").read_text(encoding="utf-8").replace('"dispatcher",\n', '"dispatcher",\n  "dispatcher",\n', 1), encoding="utf-8")
        values = {**values, "ROUTER_POLICY_FILE": str(bad)}
    port = free_port()
    process = serve(clean_env(**values), port, tmp_path)
    try:
        out, err = process.communicate(timeout=30)
    finally:
        process.kill()
    assert process.returncode not in (0, None)
    assert variable in err
    if value:
        assert value not in err and value not in out
    tokens = [v for k, v in values.items() if k.startswith("ROUTER_MCP_AUTH_TOKEN")]
    for token in tokens:
        assert token not in err and token not in out
    with socket.socket() as s:  # nothing ever listened
        assert s.connect_ex(("127.0.0.1", port)) != 0


@pytest.fixture(scope="module")
def running(tmp_path_factory):
    token = good_token()
    port = free_port()
    process = serve(clean_env(ROUTER_MCP_AUTH_TOKEN=token), port, tmp_path_factory.mktemp("srv"))
    try:
        wait_ready(port, process)
        yield f"http://127.0.0.1:{port}/mcp", token
    finally:
        process.terminate()
        try:
            process.communicate(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()


def probe(url: str, token: str | None) -> subprocess.CompletedProcess:
    env = clean_env(**({"ROUTER_MCP_AUTH_TOKEN": token} if token else {}))
    return subprocess.run([sys.executable, "-m", "app", "probe", url, "--timeout", "5"], env=env, cwd=ROOT, capture_output=True, text=True, timeout=60)


def test_probe_passes_against_a_running_server(running):
    url, token = running
    result = probe(url, token)
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.splitlines() == [
        "PASS initialize: protocolVersion 2025-06-18",
        "PASS notifications/initialized: HTTP 202",
        "PASS tools/list: 5 tools",
        "PASS tools/call: check_permission allow",
    ]


def test_probe_fails_with_a_wrong_token(running):
    url, token = running
    result = probe(url, good_token())
    assert result.returncode != 0
    assert result.stdout.strip() == "FAIL initialize: HTTP 401"


def test_probe_fails_against_a_server_that_is_down():
    result = probe(f"http://127.0.0.1:{free_port()}/mcp", good_token())
    assert result.returncode != 0
    assert result.stdout.startswith("FAIL initialize: cannot reach the server")


def test_probe_needs_a_token(running):
    url, _ = running
    result = probe(url, None)
    assert result.returncode != 0 and "ROUTER_MCP_AUTH_TOKEN" in result.stdout


def test_dev_setup_writes_a_token_once(tmp_path):
    def run():
        return subprocess.run([sys.executable, "-m", "app", "dev-setup"], env={**clean_env(), "PYTHONPATH": str(ROOT)}, cwd=tmp_path, capture_output=True, text=True, timeout=60)
    first = run()
    assert first.returncode == 0
    content = (tmp_path / ".env").read_text()
    token = content.strip().split("=", 1)[1]
    assert len(token) >= 32 and token not in first.stdout
    assert "curl" in first.stdout and str(tmp_path / ".env") in first.stdout
    assert oct((tmp_path / ".env").stat().st_mode & 0o777) == "0o600"
    second = run()
    assert second.stdout == "" and (tmp_path / ".env").read_text() == content


def test_connections_beyond_the_limit_are_shed_with_503(tmp_path):
    port = free_port()
    process = serve(clean_env(ROUTER_MCP_AUTH_TOKEN=good_token(), ROUTER_MAX_CONNECTIONS="2"), port, tmp_path)
    held = []
    try:
        wait_ready(port, process)
        for _ in range(2):  # two connections parked mid-request head
            s = socket.create_connection(("127.0.0.1", port), timeout=5)
            s.sendall(b"POST /mcp HTTP/1.1\r\nHost: x\r\n")
            held.append(s)
        time.sleep(0.3)
        with socket.create_connection(("127.0.0.1", port), timeout=5) as extra:
            extra.sendall(b"GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            answer = extra.recv(4096)
        assert answer.startswith(b"HTTP/1.1 503"), answer[:80]
        for s in held:
            s.close()
        held.clear()
        time.sleep(0.3)
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=5) as response:
            assert response.status == 200  # capacity comes back when connections close
    finally:
        for s in held:
            s.close()
        process.terminate()
        try:
            process.communicate(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
