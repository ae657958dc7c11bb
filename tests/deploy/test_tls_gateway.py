"""HTTPS end to end through the nginx gateway of deploy/ (issue 4).

The real server (`python -m app serve`) on a loopback port; a fresh throwaway CA and server
certificate from deploy/make-self-signed.sh; deploy/nginx/a207-router.conf.template rendered with
paths and ports only, run as `nginx -c CONF -p PREFIX -e ERRLOG -g 'daemon off;'`. Then: the
acceptance probe passes over TLS with --cacert (and fails without it), an oversized body is
refused by nginx itself (413 with the gateway's body, nothing reaches the app), an Origin header
still gets the app's own 403, and X-Request-ID passes through (or is replaced when malformed).

nginx and openssl are system tools: .ci/run installs them when missing, so on CI (CI=true) their
absence fails these tests; elsewhere they skip.
"""

from __future__ import annotations

import http.client
import json
import os
import re
import shutil
import signal
import socket
import ssl
import subprocess
import sys
import tempfile
import time
import warnings
from contextlib import contextmanager
from pathlib import Path

import pytest

from .server import HOST, IN_CI, ROOT, free_port, get, post, start_server, tool_call

TEMPLATE = ROOT / "deploy" / "nginx" / "a207-router.conf.template"
MAKE_CERTS = ROOT / "deploy" / "make-self-signed.sh"
MAX_BODY = 65536
GATEWAY_413 = {"error": "request body too large"}  # the template's own @body_too_large answer


def need(tool: str, fallback: str | None = None) -> str:
    found = shutil.which(tool) or (fallback if fallback and Path(fallback).exists() else None)
    if found:
        return found
    message = f"{tool} not installed (.ci/run installs it: apt-get install -y nginx-light openssl)"
    if IN_CI:
        pytest.fail(message)
    pytest.skip(message)


class Gateway:
    def __init__(self, app, proc: subprocess.Popen, port: int, prefix: Path, ca: Path):
        self.app, self.proc, self.port, self.prefix, self.ca = app, proc, port, prefix, ca
        self.context = ssl.create_default_context(cafile=str(ca))

    @property
    def mcp(self) -> str:
        return f"https://{HOST}:{self.port}/mcp"

    def access_log(self) -> str:
        path = self.prefix / "access.log"
        return path.read_text(errors="replace") if path.exists() else ""

    def error_log(self) -> str:
        path = self.prefix / "error.log"
        return path.read_text(errors="replace") if path.exists() else ""


def wait_https(gateway: Gateway, timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if gateway.proc.poll() is not None:
            raise RuntimeError(f"nginx exited with {gateway.proc.returncode}:\n{gateway.error_log()}")
        try:
            status, _ = get(f"https://{HOST}:{gateway.port}/ready", timeout=1, context=gateway.context)
            if status == 200:
                return
        except OSError:
            pass
        time.sleep(0.05)
    raise TimeoutError(f"gateway not ready within {timeout}s:\n{gateway.error_log()}")


@pytest.fixture(scope="module")
def gateway(tmp_path_factory):
    nginx = need("nginx", "/usr/sbin/nginx")
    need("openssl")
    # nginx started as root runs its worker as an unprivileged user, which must reach the temp
    # directories under the prefix: pytest's own tmp tree is 0700, so use a 0755 directory of ours.
    base = Path(tempfile.mkdtemp(prefix="a207-gateway-"))
    base.chmod(0o755)
    app = proc = None
    try:
        certs = base / "certs"
        subprocess.run(["sh", str(MAKE_CERTS), str(certs)], check=True, capture_output=True, timeout=60)
        prefix = base / "nginx"
        prefix.mkdir()
        prefix.chmod(0o755)

        app = start_server(tmp_path_factory.mktemp("app"))
        port = free_port()
        text = TEMPLATE.read_text(encoding="utf-8")
        for placeholder, value in {
            # nginx's `listen` takes address:port; loopback only in tests (8443 binds all addresses)
            "__LISTEN_PORT__": f"{HOST}:{port}",
            "__UPSTREAM__": f"{HOST}:{app.port}",
            "__CERT__": str(certs / "server.crt"),
            "__KEY__": str(certs / "server.key"),
            "__PREFIX__": str(prefix),
        }.items():
            text = text.replace(placeholder, value)
        assert not re.search(r"__[A-Z]+__", re.sub(r"#.*", "", text)), "a placeholder was left unrendered"
        conf = prefix / "nginx.conf"
        conf.write_text(text, encoding="utf-8")
        errlog = str(prefix / "error.log")
        check = subprocess.run([nginx, "-t", "-c", str(conf), "-p", str(prefix), "-e", errlog],
                               capture_output=True, text=True, timeout=30)
        assert check.returncode == 0, check.stderr
        proc = subprocess.Popen([nginx, "-c", str(conf), "-p", str(prefix), "-e", errlog, "-g", "daemon off;"],
                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        gw = Gateway(app, proc, port, prefix, certs / "ca.crt")
        wait_https(gw)
        yield gw
    finally:
        if proc is not None and proc.poll() is None:
            proc.send_signal(signal.SIGQUIT)  # nginx's graceful stop
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(5)
        if app is not None:
            app.stop()
        shutil.rmtree(base, ignore_errors=True)


def app_requests(gateway: Gateway) -> list[dict]:
    return [line for line in gateway.app.log_lines() if line.get("event") == "request"]


def app_line(gateway: Gateway, rid: str, timeout: float = 5.0) -> dict:
    """The app's access line for `rid` (written just after the response is sent: poll briefly)."""
    deadline = time.monotonic() + timeout
    while True:
        found = [line for line in app_requests(gateway) if line.get("request_id") == rid]
        if found or time.monotonic() > deadline:
            assert len(found) == 1, f"{len(found)} app log lines for {rid}"
            return found[0]
        time.sleep(0.02)


def access_line(gateway: Gateway, rid: str, timeout: float = 5.0) -> str:
    """nginx's access line for `rid` (written in the log phase, after the response: poll briefly)."""
    deadline = time.monotonic() + timeout
    while True:
        found = [line for line in gateway.access_log().splitlines() if f"rid={rid} " in line + " "]
        if found or time.monotonic() > deadline:
            assert len(found) == 1, f"{len(found)} access log lines for {rid}"
            return found[0]
        time.sleep(0.02)


def marker(gateway: Gateway) -> str:
    """A ping with a fresh request id, returned once the app has logged it."""
    rid = f"marker-{time.monotonic_ns()}"
    status, _, _ = post(gateway.mcp, {"jsonrpc": "2.0", "id": 0, "method": "ping"}, gateway.app.token,
                        headers={"X-Request-ID": rid}, context=gateway.context)
    assert status == 200
    app_line(gateway, rid)
    return rid


@contextmanager
def nothing_reaches_the_app(gateway: Gateway):
    """Markers before and after (each waited for in the app's log): no line may fall between."""
    first = marker(gateway)
    yield
    last = marker(gateway)
    ids = [line["request_id"] for line in app_requests(gateway)]
    between = ids[ids.index(first) + 1 : ids.index(last)]
    assert not between, f"reached the app: {between}"


def test_probe_passes_over_tls_with_the_private_ca(gateway):
    env = {k: v for k, v in os.environ.items() if not k.startswith("ROUTER_")}
    env["ROUTER_MCP_AUTH_TOKEN"] = gateway.app.token
    run = subprocess.run([sys.executable, "-m", "app", "probe", gateway.mcp, "--cacert", str(gateway.ca)],
                         env=env, capture_output=True, text=True, timeout=60)
    lines = run.stdout.splitlines()
    assert run.returncode == 0, run.stdout + run.stderr
    assert len(lines) == 4 and all(line.startswith("PASS ") for line in lines), lines

    # Negative control: the certificate is really checked (no CA given → the handshake fails).
    run = subprocess.run([sys.executable, "-m", "app", "probe", gateway.mcp],
                         env=env, capture_output=True, text=True, timeout=60)
    assert run.returncode == 1 and run.stdout.startswith("FAIL initialize: cannot reach the server"), run.stdout


def test_tls_only_modern_protocols_and_hsts(gateway):
    with socket.create_connection((HOST, gateway.port), timeout=5) as raw:
        with gateway.context.wrap_socket(raw, server_hostname="localhost") as tls:
            assert tls.version() in {"TLSv1.2", "TLSv1.3"}
    # TLS 1.1 is refused by the server (its alert), not merely unavailable in this client.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        old = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
        old.load_verify_locations(str(gateway.ca))
        old.minimum_version = old.maximum_version = ssl.TLSVersion.TLSv1_1
        old.set_ciphers("ALL:@SECLEVEL=0")
    with pytest.raises(ssl.SSLError) as refused:
        with socket.create_connection((HOST, gateway.port), timeout=5) as raw:
            with old.wrap_socket(raw, server_hostname="localhost"):
                pass
    if "NO_PROTOCOLS_AVAILABLE" not in str(refused.value):  # a client without TLS 1.1 proves nothing
        assert "ALERT_PROTOCOL_VERSION" in str(refused.value), refused.value
    status, headers, _ = post(gateway.mcp, {"jsonrpc": "2.0", "id": 1, "method": "ping"}, gateway.app.token,
                              context=gateway.context)
    assert status == 200
    assert headers.get("strict-transport-security") == "max-age=31536000"
    assert "server" not in headers or "nginx/" not in headers["server"]  # server_tokens off


def test_body_at_the_limit_passes_and_one_byte_more_is_nginx_413(gateway):
    ping = json.dumps({"jsonrpc": "2.0", "id": 7, "method": "ping"}).encode()
    exact = ping + b" " * (MAX_BODY - len(ping))  # trailing whitespace is valid JSON
    status, _, body = post(gateway.mcp, exact, gateway.app.token, context=gateway.context)
    assert status == 200 and json.loads(body) == {"jsonrpc": "2.0", "id": 7, "result": {}}

    rid = "oversize-declared-1"
    with nothing_reaches_the_app(gateway):
        status, headers, body = post(gateway.mcp, exact + b" ", gateway.app.token,
                                     headers={"X-Request-ID": rid}, context=gateway.context)
    assert status == 413
    assert json.loads(body) == GATEWAY_413, body  # the gateway's answer, not the app's payload_too_large
    assert "x-request-id" not in headers  # nginx answered itself: no app header
    access = access_line(gateway, rid)
    assert " 413 " in access and access.endswith("upstream=-"), access


def test_oversized_chunked_body_is_nginx_413(gateway):
    """No Content-Length to trust: nginx counts the chunked body and stops at 64 KiB too."""
    with nothing_reaches_the_app(gateway):
        connection = http.client.HTTPSConnection(HOST, gateway.port, timeout=10, context=gateway.context)
        try:
            chunks = (b" " * 8192 for _ in range(10))  # 80 KiB, never declared
            connection.request("POST", "/mcp", body=chunks, encode_chunked=True, headers={
                "Authorization": f"Bearer {gateway.app.token}", "Content-Type": "application/json"})
            response = connection.getresponse()
            status, body = response.status, response.read()
        except (ConnectionError, ssl.SSLError):
            pytest.fail("nginx closed the connection instead of answering 413")
        finally:
            connection.close()
    assert status == 413 and json.loads(body) == GATEWAY_413, body


def test_origin_is_refused_by_the_app_behind_the_gateway(gateway):
    rid = "origin-check-42"
    status, headers, body = post(gateway.mcp, {"jsonrpc": "2.0", "id": 1, "method": "ping"}, gateway.app.token,
                                 headers={"Origin": "https://evil.example", "X-Request-ID": rid},
                                 context=gateway.context)
    assert status == 403
    assert json.loads(body)["error"] == "forbidden"  # the app's body: nginx passed Origin through
    assert headers["x-request-id"] == rid
    line = app_line(gateway, rid)
    assert line["status"] == 403 and line["outcome"] == "forbidden_origin"


def test_request_id_passes_through_or_is_replaced(gateway):
    rid = "tls.Trace-ID_0001"
    payload = tool_call(3, "check_permission", {"caller": "doctor_assistant", "mcp": "a207-lis-mcp", "action": "read"})
    status, headers, body = post(gateway.mcp, payload, gateway.app.token, headers={"X-Request-ID": rid},
                                 context=gateway.context)
    assert status == 200 and json.loads(body)["result"]["structuredContent"]["allow"] is True
    assert headers["x-request-id"] == rid
    assert app_line(gateway, rid)["outcome"] == "allow"
    assert access_line(gateway, rid).endswith("upstream=200")

    # Malformed (a space, too long): nginx substitutes its own $request_id, which the app keeps.
    for bad in ("has space", "x" * 65):
        status, headers, _ = post(gateway.mcp, {"jsonrpc": "2.0", "id": 4, "method": "ping"}, gateway.app.token,
                                  headers={"X-Request-ID": bad}, context=gateway.context)
        assert status == 200
        assert re.fullmatch(r"[0-9a-f]{32}", headers["x-request-id"]), headers["x-request-id"]


def test_metrics_and_unknown_paths_are_not_exposed(gateway):
    for path in ("/metrics", "/", "/mcp/extra"):
        status, body = get(f"https://{HOST}:{gateway.port}{path}", context=gateway.context)
        assert status == 404 and json.loads(body) == {"error": "not found"}, (path, body)
    status, body = get(f"https://{HOST}:{gateway.port}/health", context=gateway.context)
    assert status == 200 and json.loads(body) == {"status": "ok"}
