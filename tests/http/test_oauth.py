"""The OAuth 2.1 resource server (SPEC §5.4a) in-process, with tokens minted here at run time: the
refusal table (exact status and WWW-Authenticate), the JWKS cache (refetch rate limit, outage,
rotation, size cap, timeout), RFC 9728 metadata, and what the access log says about each."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import secrets
import time

import pytest

from app.http.app import create_app
from app.http.oauth import MAX_TOKEN_BYTES, REFETCH_INTERVAL_SECONDS, Granted, Refused
from app.http.verify import JwksCache, JwtVerifier, KeySource
from tests.http.asgi import AppRunner, call, mcp_headers
from tests.http.jwt_kit import AUDIENCE, METADATA_URL, PUBLIC_URL, Issuer, SigningKey
from app.http.observe import configure_logging
from tests.privacy_plugin import _CurrentStdout, remember

MISSING = f'Bearer resource_metadata="{METADATA_URL}"'.encode()
INVALID = f'Bearer error="invalid_token", resource_metadata="{METADATA_URL}"'.encode()
SCOPE = f'Bearer error="insufficient_scope", scope="router", resource_metadata="{METADATA_URL}"'.encode()

ROUTE = {"text": "香蕉含钾多少？能不能吃", "caller": "parent_assistant", "patient_id": "P0001", "reference_date": "2026-11-30"}


class Clock:
    """Monotonic seconds that a test can move forward (the JWKS cache's rate limit and TTL)."""

    def __init__(self) -> None:
        self.offset = 0.0

    def __call__(self) -> float:
        return time.monotonic() + self.offset


class Deployment:
    """One app in a JWT mode over a local issuer, started on its own loop."""

    def __init__(self, router, mode: str = "jwt", *kinds: str):
        self.issuer = Issuer(*kinds)
        self.clock = Clock()
        self.setup = self.issuer.setup(clock=self.clock)
        self.static = secrets.token_urlsafe(32)
        remember(self.static)
        tokens = [self.static.encode()] if mode == "token+jwt" else []
        configure_logging(_CurrentStdout())  # before the app's logger is first used (see send)
        self.app = create_app(router, tokens, jwt=self.setup)
        self.runner = AppRunner(self.app)

    def send(self, token: str | None, body: bytes = call("route_request", ROUTE)):
        # The access log goes to the current stdout (capsys reads it): a test of another module,
        # run in between on the same worker, may have pointed structlog at its own buffer.
        configure_logging(_CurrentStdout())
        if token is not None:
            remember(token)
        return self.runner.request(headers=mcp_headers(token.encode() if token is not None else None), body=body)

    def close(self) -> None:
        self.runner.close()
        self.issuer.close()


@pytest.fixture(scope="module")
def jwt_mode(router):
    deployment = Deployment(router, "jwt", "RSA", "EC")
    yield deployment
    deployment.close()


@pytest.fixture(scope="module")
def both_modes(router):
    deployment = Deployment(router, "token+jwt")
    yield deployment
    deployment.close()


def _status(response) -> str:
    return response.json()["result"]["structuredContent"]["status"]


# -------------------------------------------------------------------------------------------------
# The refusal table: (id, how the token is made, status, WWW-Authenticate, outcome logged)
# -------------------------------------------------------------------------------------------------

def _padded(token: str) -> str:
    assert len(token.rsplit(".", 1)[1]) % 4 == 2  # an RS256 signature of 256 bytes: 342 characters
    return token + "=="


def _junk(token: str) -> str:
    header, payload, signature = token.split(".")
    return ".".join((header, payload[:10] + "!" + payload[11:], signature))


def _non_canonical(token: str) -> str:
    """The last character of a 342-character segment carries 2 bits; setting one of its 4 unused
    bits decodes to the same bytes, so only the canonical check refuses it."""
    alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
    last = token[-1]
    return token[:-1] + alphabet[alphabet.index(last) | 1]


REFUSALS = [
    ("no token", lambda i: None, 401, MISSING, "unauthorized:missing"),
    ("expired", lambda i: i.mint(exp=int(time.time()) - 120), 401, INVALID, "unauthorized:expired"),
    ("not yet valid", lambda i: i.mint(nbf=int(time.time()) + 600), 401, INVALID, "unauthorized:not_yet_valid"),
    ("wrong issuer", lambda i: i.mint(iss="https://other-issuer.example.test"), 401, INVALID, "unauthorized:issuer"),
    ("another resource's audience", lambda i: i.mint(aud="https://other.example.test/mcp"), 401, INVALID,
     "unauthorized:audience"),
    ("unknown kid (a key the issuer never published)", lambda i: i.mint(SigningKey("RSA")), 401, INVALID,
     "unauthorized:unknown_key"),
    ("alg none", lambda i: i.mint_none(), 401, INVALID, "unauthorized:algorithm"),
    ("HS256 signed with the public key as secret", lambda i: i.mint_hs256_with_public_key(), 401, INVALID,
     "unauthorized:algorithm"),
    ("tampered payload (a role scope added)", lambda i: i.tamper(i.mint(), scope="router router:doctor_assistant"), 401,
     INVALID, "unauthorized:signature"),
    ("token over 8 KiB", lambda i: i.mint(pad="x" * MAX_TOKEN_BYTES), 401, INVALID, "unauthorized:too_large"),
    ("no exp claim", lambda i: i.mint(exp=None), 401, INVALID, "unauthorized:claims"),
    ("not a JWT (a static token in jwt mode)", lambda i: secrets.token_urlsafe(32), 401, INVALID, "unauthorized:malformed"),
    # the segment check (verify.py's _Jws): base64url alphabet only, no padding, canonical
    ("padded signature (PyJWT alone accepts '=')", lambda i: _padded(i.mint()), 401, INVALID, "unauthorized:malformed"),
    ("a character outside base64url in the payload", lambda i: _junk(i.mint()), 401, INVALID, "unauthorized:malformed"),
    ("non-canonical last character of the signature (same bytes)", lambda i: _non_canonical(i.mint()), 401, INVALID,
     "unauthorized:malformed"),
    ("missing required scope", lambda i: i.mint(scope="router:parent_assistant"), 403, SCOPE, "forbidden:insufficient_scope"),
    ("scope in scp, without router", lambda i: i.mint(scope=None, scp=["router:parent_assistant"]), 403, SCOPE,
     "forbidden:insufficient_scope"),
]


@pytest.mark.parametrize(("make", "status", "challenge", "outcome"), [r[1:] for r in REFUSALS], ids=[r[0] for r in REFUSALS])
def test_refusal(jwt_mode, make, status, challenge, outcome, capsys):
    token = make(jwt_mode.issuer)
    if token is not None and outcome != "unauthorized:too_large":
        assert len(token) <= MAX_TOKEN_BYTES
    response = jwt_mode.send(token)
    assert response.status == status
    assert response.header_values("www-authenticate") == [challenge]
    assert response.header("connection") == b"close"
    assert response.body_chunks_consumed == 0  # refused before the body was read
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines() if line.startswith("{")]
    assert [line["outcome"] for line in lines if line.get("event") == "request"] == [outcome]


ACCEPTED = [
    ("RS256 with the role", lambda i: i.mint(), "proceed"),
    ("ES256 with the role", lambda i: i.mint(i.keys[1]), "proceed"),
    ("scope as an scp list", lambda i: i.mint(scope=None, scp=["router", "router:parent_assistant"]), "proceed"),
    ("clock skew inside the leeway", lambda i: i.mint(nbf=int(time.time()) + 20, iat=int(time.time()) + 20), "proceed"),
    ("parent_assistant-only token asking as doctor_assistant: denied at INPUT",
     lambda i: i.mint(), "denied"),
    ("no role scope at all: every decision denied", lambda i: i.mint(scope="router"), "denied"),
]


@pytest.mark.parametrize(("make", "status"), [r[1:] for r in ACCEPTED], ids=[r[0] for r in ACCEPTED])
def test_accepted_token(jwt_mode, make, status):
    arguments = dict(ROUTE, caller="doctor_assistant") if "doctor" in status or status == "denied" else ROUTE
    response = jwt_mode.send(make(jwt_mode.issuer), call("route_request", arguments))
    assert response.status == 200
    result = response.json()["result"]["structuredContent"]
    assert result["status"] == status
    if status == "denied":
        assert (result["reason_code"], result["gate"]["gate"]) == ("caller_not_in_scope", "INPUT")


def test_the_role_scope_reaches_every_tool_with_a_caller(jwt_mode):
    token = jwt_mode.issuer.mint()
    for tool, arguments in (("check_safety_gate", {"intent": "香蕉含钾多少", "caller": "doctor_assistant"}),
                            ("check_permission", {"caller": "doctor_assistant", "mcp": "a207-nutrition-calc-mcp"})):
        result = jwt_mode.send(token, call(tool, arguments)).json()["result"]["structuredContent"]
        assert (result["allow"], result["reason_code"]) == (False, "caller_not_in_scope"), tool
    tools = jwt_mode.send(jwt_mode.issuer.mint(scope="router"), b'{"jsonrpc":"2.0","id":1,"method":"tools/list"}')
    assert len(tools.json()["result"]["tools"]) == 5  # a token without role scopes may still list tools


# -------------------------------------------------------------------------------------------------
# token+jwt: both kinds of token; jwt: static tokens refused
# -------------------------------------------------------------------------------------------------

def test_static_token_works_in_token_plus_jwt(both_modes):
    assert both_modes.send(both_modes.static).status == 200
    assert _status(both_modes.send(both_modes.static, call("route_request", dict(ROUTE, caller="doctor_assistant")))) != "denied"
    assert _status(both_modes.send(both_modes.issuer.mint())) == "proceed"
    wrong = both_modes.send(secrets.token_urlsafe(32))
    assert (wrong.status, wrong.header("www-authenticate")) == (401, INVALID)


def test_static_token_is_refused_in_jwt_mode(router):
    deployment = Deployment(router, "jwt")
    try:
        response = deployment.send(deployment.static)
        assert (response.status, response.header("www-authenticate")) == (401, INVALID)
    finally:
        deployment.close()


# -------------------------------------------------------------------------------------------------
# The JWKS cache
# -------------------------------------------------------------------------------------------------

def test_a_flood_of_random_kids_costs_the_issuer_one_fetch_a_minute(router):
    deployment = Deployment(router)
    issuer = deployment.issuer
    try:
        assert issuer.fetches == 1  # loaded before readiness
        for minute in range(3):
            started = time.perf_counter()
            for _ in range(100):
                forged = issuer.mint(headers={"kid": secrets.token_hex(8)})
                response = deployment.send(forged)
                assert (response.status, response.header("www-authenticate")) == (401, INVALID)
            assert issuer.fetches == 2 + minute, "at most one refetch per minute, whatever the flood"
            assert time.perf_counter() - started < 30  # nobody waited for a fetch beyond the first
            deployment.clock.offset += REFETCH_INTERVAL_SECONDS + 1
    finally:
        deployment.close()


def test_rotation_at_the_issuer_works_without_restart(router):
    deployment = Deployment(router)
    issuer = deployment.issuer
    try:
        old_token = issuer.mint()
        assert _status(deployment.send(old_token)) == "proceed"
        new = SigningKey("RSA")
        issuer.published = [new, *issuer.published]  # the issuer publishes the new key and signs with it
        assert _status(deployment.send(issuer.mint(new))) == "proceed"
        assert issuer.fetches == 2
        issuer.published = [new]  # the old key retired at the issuer, picked up by the next refresh
        deployment.clock.offset += 301
        assert deployment.runner.run(deployment.setup.keys.refresh()) is True
        retired = deployment.send(old_token)  # accepted (and remembered as verified) before: not any more
        assert (retired.status, retired.header("www-authenticate")) == (401, INVALID)
        assert _status(deployment.send(issuer.mint(new))) == "proceed"
    finally:
        deployment.close()


def test_cached_keys_keep_working_while_the_issuer_is_unreachable(router):
    deployment = Deployment(router)
    issuer = deployment.issuer
    try:
        issuer.available = False
        deployment.clock.offset += 3600  # far past the cache time
        assert deployment.runner.run(deployment.setup.keys.refresh()) is False
        assert _status(deployment.send(issuer.mint())) == "proceed"
        assert deployment.runner.request("GET", "/ready").status == 200
    finally:
        deployment.close()


def test_not_ready_until_the_keys_are_loaded(router):
    issuer = Issuer()
    issuer.available = False
    setup = issuer.setup()
    runner = AppRunner(create_app(router, [], jwt=setup))
    try:
        assert runner.request("GET", "/ready").status == 503
        issuer.available = True
        assert runner.run(setup.keys.refresh()) is True
        assert runner.request("GET", "/ready").status == 200
    finally:
        runner.close()
        issuer.close()


def _refresh(cache: JwksCache) -> bool:
    return asyncio.run(cache.refresh())


def test_jwks_fetch_has_a_size_cap():
    issuer = Issuer()
    try:
        issuer.body_override = json.dumps({"keys": [issuer.keys[0].jwk()], "pad": "x" * 70_000}).encode()
        cache = JwksCache(KeySource(url=issuer.jwks_url), 300)
        assert _refresh(cache) is False and not cache.loaded
    finally:
        issuer.close()


def test_jwks_fetch_times_out_after_2_seconds():
    issuer = Issuer()
    try:
        issuer.delay = 4.0
        cache = JwksCache(KeySource(url=issuer.jwks_url), 300)
        started = time.perf_counter()
        assert _refresh(cache) is False
        assert time.perf_counter() - started < 3.5
    finally:
        issuer.close()


def test_jwks_file_for_offline_deployments(tmp_path):
    key = SigningKey("EC")
    path = tmp_path / "jwks.json"
    path.write_text(json.dumps({"keys": [key.jwk(), {"kty": "oct", "k": "c2VjcmV0", "kid": "shared"}]}))
    cache = JwksCache(KeySource(path=str(path)), 300)
    assert _refresh(cache) is True
    assert list(cache.keys) == [key.kid]  # the symmetric key is never a verification key


# -------------------------------------------------------------------------------------------------
# RFC 9728 metadata
# -------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("path", ["/.well-known/oauth-protected-resource", "/.well-known/oauth-protected-resource/mcp"])
def test_protected_resource_metadata(jwt_mode, path):
    response = jwt_mode.runner.request("GET", path, headers=[(b"host", b"evil.example.test")])
    assert response.status == 200
    document = response.json()
    assert document == {
        "resource": AUDIENCE,
        "authorization_servers": [jwt_mode.issuer.issuer],
        "scopes_supported": ["router", *(f"router:{r}" for r in jwt_mode.app._mcp.server.router.policy.roles)],
        "bearer_methods_supported": ["header"],
        "resource_name": "a207-router-mcp",
    }
    assert "evil" not in response.body.decode() and PUBLIC_URL in METADATA_URL


def test_metadata_is_not_served_in_token_mode(router):
    runner = AppRunner(create_app(router, [secrets.token_urlsafe(32).encode()]))
    try:
        assert runner.request("GET", "/.well-known/oauth-protected-resource").status == 404
    finally:
        runner.close()


def test_the_log_audit_knows_every_token_and_claim_the_verifier_saw(jwt_mode):
    from tests.privacy_plugin import AUDIT

    subject = "subject-" + secrets.token_hex(8)
    token = jwt_mode.issuer.mint(sub=subject, exp=int(time.time()) - 600)  # refused tokens count too
    assert jwt_mode.send(token).status == 401
    assert token in AUDIT.plain and subject in AUDIT.plain


def test_a_verified_token_is_reused_only_until_it_expires():
    issuer = Issuer()
    keys = JwksCache(KeySource(url=issuer.jwks_url), 300)
    verifier = JwtVerifier(dataclasses.replace(issuer.rules(), leeway_seconds=0), keys)
    expires = int(time.time()) + 2
    token = issuer.mint(exp=expires).encode()
    remember(token)

    async def scenario():
        assert await keys.refresh()
        first = await verifier.verify(token)
        assert isinstance(first, Granted) and first.until == expires
        assert await verifier.verify(token) is first  # reused, not checked again
        await asyncio.sleep(max(0.0, expires - time.time()) + 0.2)
        assert await verifier.verify(token) == Refused(401, "expired")
        assert token not in verifier._verified

    try:
        asyncio.run(scenario())
    finally:
        issuer.close()


def test_a_cancelled_waiter_neither_cancels_nor_freezes_the_fetch():
    issuer = Issuer()
    cache = JwksCache(KeySource(url=issuer.jwks_url), 300)

    async def scenario():
        issuer.delay = 0.5
        waiter = asyncio.ensure_future(cache.refresh())
        await asyncio.sleep(0.1)
        waiter.cancel()  # the request that asked went away
        await asyncio.sleep(1.0)
        assert cache.loaded and issuer.fetches == 1  # the fetch finished for everyone else
        issuer.delay = 0.0
        assert await cache.refresh() is True and issuer.fetches == 2  # and the next refresh fetches anew

    try:
        asyncio.run(scenario())
    finally:
        issuer.close()
