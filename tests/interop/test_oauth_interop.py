"""The service as an OAuth 2.1 resource server (SPEC §5.4a) against a real authorization server:
oidc-provider (pinned in ts/package.json, installed by `npm ci` like the TypeScript SDK) on
127.0.0.1 with client-credentials clients, resource indicators and JWT access tokens for this
service's resource URI, and `python -m app serve` in ROUTER_AUTH_MODE=jwt fetching its JWKS over
loopback http.

* The official Python client performs its own discovery: 401 → ``resource_metadata`` → the
  metadata document → the authorization server's metadata → a client-credentials token with the
  resource indicator → tools/call.
* The official TypeScript client calls every interop case with a token from the server, and
  performs the same discovery with its own ClientCredentialsProvider.
* A ``parent_assistant``-only token asking as ``doctor_assistant`` is denied at INPUT.
* Key rotation at the server (a new ``kid``) works with no restart of this service.
"""

from __future__ import annotations

import asyncio
import base64
import json
import os
import secrets
import subprocess
import sys
import time
import urllib.parse
import urllib.request
from pathlib import Path
from typing import NamedTuple

import httpx2
import mcp
import pytest
from mcp.client.auth.extensions.client_credentials import ClientCredentialsOAuthProvider
from mcp.client.streamable_http import streamable_http_client

from tests.privacy_plugin import _harvest_claims, record_lines, remember

from .conftest import BAD_CALL, CALLS, HOST, START_TIMEOUT_SECONDS, _LIBC, _NO_PROXY, _die_with_parent, _free_port, _ready, _stop, _tail
from .test_typescript_sdk import CLIENT_TIMEOUT_SECONDS, TS_DIR, _ensure_node_modules, _tool

pytestmark = pytest.mark.network

ROLES = ("dispatcher", "doctor_assistant", "nutritionist", "parent_assistant", "child_companion", "risk_warning")
ALL_SCOPES = " ".join(["router", *(f"router:{r}" for r in ROLES)])
REF = "2026-11-30"
FOOD_QUESTION = {"text": "香蕉含钾多少？能不能吃", "patient_id": "P0001", "reference_date": REF}


class Client(NamedTuple):
    client_id: str
    client_secret: str
    scope: str


class AuthServer(NamedTuple):
    issuer: str
    clients: dict[str, Client]
    other_resource: str


class Deployment(NamedTuple):
    auth: AuthServer
    url: str  # the MCP endpoint, http://127.0.0.1:PORT/mcp


def _client(scope: str) -> Client:
    return Client("client-" + secrets.token_hex(6), secrets.token_urlsafe(32), scope)


def _wait_line(proc: subprocess.Popen, seconds: float) -> str:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            return ""
        line = proc.stdout.readline()
        if line.strip():
            return line
    return ""


@pytest.fixture(scope="module")
def deployment(tmp_path_factory):
    """oidc-provider, then the router in jwt mode on a port chosen first (the resource URI both share)."""
    node = _tool("node")
    _ensure_node_modules(_tool("npm"))
    workdir = tmp_path_factory.mktemp("oauth-interop")
    port = _free_port()
    base = f"http://{HOST}:{port}"
    resource = f"{base}/mcp"
    other = "https://another-resource.example.test/mcp"
    clients = {"full": _client(ALL_SCOPES), "parent": _client("router router:parent_assistant"),
               "roles_only": _client("router:parent_assistant")}
    remember(*(c.client_secret for c in clients.values()), *(c.client_id for c in clients.values()))
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ROUTER_", "AS_"))}
    env.update(AS_RESOURCES=json.dumps([resource, other]), AS_SCOPES=ALL_SCOPES,
               AS_CLIENTS=json.dumps([c._asdict() for c in clients.values()]))
    auth_proc = subprocess.Popen([node, str(TS_DIR / "auth_server.mjs")], cwd=TS_DIR, env=env, stdin=subprocess.DEVNULL,
                                 stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                                 preexec_fn=_die_with_parent if _LIBC is not None else None)
    server = issuer = None
    log = workdir / "server.log"
    try:
        line = _wait_line(auth_proc, START_TIMEOUT_SECONDS)
        if not line:
            pytest.fail("oidc-provider did not start", pytrace=False)
        issuer = json.loads(line)["issuer"]
        server_env = {k: v for k, v in os.environ.items() if not k.startswith("ROUTER_")}
        server_env.update({
            "ROUTER_AUTH_MODE": "jwt",
            "ROUTER_PUBLIC_URL": base,
            "ROUTER_JWT_ISSUER": issuer,
            "ROUTER_JWT_AUDIENCE": resource,
            "ROUTER_JWT_JWKS_URL": f"{issuer}/jwks",
            "ROUTER_SHUTDOWN_TIMEOUT_SECONDS": "2",
            "PYTHONPATH": str(Path(__file__).resolve().parents[2]),
            "PYTHONUNBUFFERED": "1",
        })
        with open(log, "wb") as sink:
            server = subprocess.Popen([sys.executable, "-m", "app", "serve", "--host", HOST, "--port", str(port)],
                                      cwd=workdir, env=server_env, stdin=subprocess.DEVNULL, stdout=sink,
                                      stderr=subprocess.STDOUT, preexec_fn=_die_with_parent if _LIBC is not None else None)
        deadline = time.monotonic() + START_TIMEOUT_SECONDS
        while time.monotonic() < deadline and server.poll() is None and not _ready(base):
            time.sleep(0.05)
        if not _ready(base):
            pytest.fail(f"the router did not become ready in jwt mode:\n{_tail(log)}", pytrace=False)
        yield Deployment(AuthServer(issuer, clients, other), resource)
    finally:
        if server is not None:
            _stop(server)
            record_lines(log.read_bytes().decode(errors="replace").splitlines())  # the session-wide log audit
        if auth_proc.poll() is None and issuer is not None:
            for token in _stats(AuthServer(issuer, clients, other))["issued"]:  # the SDKs' own tokens too
                remember(token)
                _harvest_claims(token)
        _stop(auth_proc)


def _token(auth: AuthServer, client: str, resource: str, scope: str | None = None) -> dict:
    """A client-credentials token response (RFC 6749 §4.4) for one resource (RFC 8707)."""
    c = auth.clients[client]
    form = {"grant_type": "client_credentials", "resource": resource, "scope": scope or c.scope}
    basic = base64.b64encode(f"{c.client_id}:{c.client_secret}".encode()).decode()
    request = urllib.request.Request(f"{auth.issuer}/token", data=urllib.parse.urlencode(form).encode(), method="POST",
                                     headers={"Authorization": f"Basic {basic}", "Content-Type": "application/x-www-form-urlencoded"})
    with _NO_PROXY.open(request, timeout=10) as response:
        answer = json.loads(response.read())
    remember(answer["access_token"])
    return answer


def _stats(auth: AuthServer, action: str = "__stats") -> dict:
    request = urllib.request.Request(f"{auth.issuer}/{action}", method="POST" if action == "__rotate" else "GET")
    with _NO_PROXY.open(request, timeout=10) as response:
        return json.loads(response.read())


def _kid(token: str) -> str:
    header = token.split(".")[0]
    return json.loads(base64.urlsafe_b64decode(header + "=" * (-len(header) % 4)))["kid"]


async def _route(url: str, token: str, caller: str) -> dict:
    async with httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=10.0, trust_env=False) as http:
        async with mcp.Client(streamable_http_client(url, http_client=http), read_timeout_seconds=20.0) as client:
            result = await client.call_tool("route_request", {**FOOD_QUESTION, "caller": caller})
            return result.structured_content


def _run(coroutine):
    return asyncio.run(asyncio.wait_for(coroutine, 60))


def _post(url: str, token: str | None) -> tuple[int, str | None]:
    headers = {"Content-Type": "application/json"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    request = urllib.request.Request(url, data=b'{"jsonrpc":"2.0","id":1,"method":"ping"}', method="POST", headers=headers)
    try:
        with _NO_PROXY.open(request, timeout=10) as response:
            return response.status, response.headers.get("WWW-Authenticate")
    except urllib.error.HTTPError as exc:
        return exc.code, exc.headers.get("WWW-Authenticate")


# -------------------------------------------------------------------------------------------------


class _Memory:
    """TokenStorage in memory: the provider starts with nothing and must discover everything."""

    def __init__(self):
        self.tokens = None
        self.client_info = None

    async def get_tokens(self):
        return self.tokens

    async def set_tokens(self, tokens):
        remember(tokens.access_token)
        self.tokens = tokens

    async def get_client_info(self):
        return self.client_info

    async def set_client_info(self, client_info):
        self.client_info = client_info


def test_python_sdk_discovers_the_authorization_server_and_calls_a_tool(deployment):
    """401 → resource_metadata → metadata document → AS metadata → client-credentials token → tool."""
    auth, url = deployment
    full = auth.clients["full"]
    seen: list[tuple[str, str, int]] = []

    async def record(response: httpx2.Response) -> None:
        seen.append((response.request.method, response.request.url.path, response.status_code))

    async def scenario():
        provider = ClientCredentialsOAuthProvider(server_url=url, storage=_Memory(), client_id=full.client_id,
                                                  client_secret=full.client_secret, issuer=auth.issuer)
        async with httpx2.AsyncClient(auth=provider, timeout=10.0, trust_env=False, event_hooks={"response": [record]}) as http:
            async with mcp.Client(streamable_http_client(url, http_client=http), read_timeout_seconds=20.0) as client:
                result = await client.call_tool("route_request", {**FOOD_QUESTION, "caller": "parent_assistant"})
                return result.structured_content

    decision = _run(scenario())
    assert (decision["status"], decision["intent"]) == ("proceed", "nutrition_calc")
    paths = [(method, path, status) for method, path, status in seen]
    assert paths[0] == ("POST", "/mcp", 401), paths
    assert ("GET", "/.well-known/oauth-protected-resource/mcp", 200) in paths
    assert ("POST", "/token", 200) in paths
    assert any(p.startswith("/.well-known/") and p.endswith(("oauth-authorization-server", "openid-configuration")) and s == 200
               for _, p, s in paths), paths
    assert paths[-1][2] == 200


def test_a_parent_only_token_is_denied_as_doctor_at_input(deployment):
    auth, url = deployment
    token = _token(auth, "parent", url)
    assert token["scope"] == "router router:parent_assistant"
    denied = _run(_route(url, token["access_token"], "doctor_assistant"))
    assert (denied["status"], denied["reason_code"], denied["gate"]["gate"]) == ("denied", "caller_not_in_scope", "INPUT")
    assert _run(_route(url, token["access_token"], "parent_assistant"))["status"] == "proceed"


def test_refusals_from_the_real_server(deployment):
    auth, url = deployment
    metadata = f'resource_metadata="{url.removesuffix("/mcp")}/.well-known/oauth-protected-resource/mcp"'
    assert _post(url, None) == (401, f"Bearer {metadata}")
    other = _token(auth, "full", auth.other_resource)["access_token"]
    assert _post(url, other) == (401, f'Bearer error="invalid_token", {metadata}')
    no_router = _token(auth, "roles_only", url)["access_token"]
    assert _post(url, no_router) == (403, f'Bearer error="insufficient_scope", scope="router", {metadata}')
    assert _post(url, _token(auth, "full", url)["access_token"])[0] == 200


def test_rotation_at_the_server_works_without_restart(deployment):
    auth, url = deployment
    before = _stats(auth)
    old = _token(auth, "parent", url)["access_token"]
    assert _run(_route(url, old, "parent_assistant"))["status"] == "proceed"
    rotated = _stats(auth, "__rotate")
    new = _token(auth, "parent", url)["access_token"]
    assert _kid(new) == rotated["kid"] != _kid(old)
    assert _run(_route(url, new, "parent_assistant"))["status"] == "proceed"
    assert _stats(auth)["jwksFetches"] == before["jwksFetches"] + 1  # one refetch for the new kid
    assert _run(_route(url, old, "parent_assistant"))["status"] == "proceed"  # the old key is still published


def _ts_client(url: str, calls: list, credentials: dict[str, str], tmp_path: Path) -> dict:
    calls_file = tmp_path / "calls.json"
    calls_file.write_text(json.dumps([{"tool": c.tool, "arguments": c.arguments} for c in calls], ensure_ascii=False),
                          encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ROUTER_", "MCP_"))}
    env.update(credentials)
    done = subprocess.run([_tool("node"), str(TS_DIR / "client.mjs"), url, str(calls_file)], cwd=TS_DIR, env=env,
                          stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=CLIENT_TIMEOUT_SECONDS)
    assert done.returncode == 0, done.stderr[-4000:]
    return json.loads(done.stdout)


def test_typescript_sdk_discovers_the_authorization_server_and_calls_a_tool(deployment, interop_cases, tmp_path):
    auth, url = deployment
    full = auth.clients["full"]
    output = _ts_client(url, CALLS[:3], {"MCP_OAUTH_CLIENT_ID": full.client_id, "MCP_OAUTH_CLIENT_SECRET": full.client_secret,
                                         "MCP_OAUTH_ISSUER": auth.issuer, "MCP_OAUTH_SCOPE": full.scope}, tmp_path)
    assert [r["structuredContent"] for r in output["results"]] == [result for _, result in interop_cases[:3]]
    exchanges = [(verb, status, path) for verb, _, status, path in output["http"]]
    assert exchanges[0] == ("POST", 401, "/mcp"), exchanges
    assert ("GET", 200, "/.well-known/oauth-protected-resource/mcp") in exchanges, exchanges
    assert ("POST", 200, "/token") in exchanges, exchanges


def test_typescript_sdk_calls_every_case_with_a_token_from_the_server(deployment, interop_cases, tmp_path):
    auth, url = deployment
    token = _token(auth, "full", url)["access_token"]
    results = _ts_client(url, [*CALLS, BAD_CALL], {"MCP_BEARER_TOKEN": token}, tmp_path)["results"]
    expected = [result for call, result in interop_cases]
    assert [r["structuredContent"] for r in results] == expected
    decisions = [r["structuredContent"]["status"] for r, c in zip(results, CALLS) if c.tool == "route_request"]
    assert {"proceed", "denied", "halt", "confirm", "clarify", "review"} <= set(decisions)
