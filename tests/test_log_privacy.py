"""Log privacy (SPEC §5.5) and the bearer comparison (SPEC §5.1 step 2).

The session-wide audit itself lives in tests/privacy_plugin.py (every captured log line of the
whole run is checked at the end); these tests check the audit, drive one request of every kind
through an app and read back exactly the lines they caused, and unit-test ``BearerGuard``.
"""

from __future__ import annotations

import hashlib
import json
import secrets
from datetime import date

import pytest

from app.http.app import create_app
from app.http.guards import BearerGuard
from app.http.observe import LOG_FIELDS
from app.router import Limits, Router, load_policy
from tests.http.asgi import AppRunner, RealServer, http_exchange
from tests.privacy_plugin import ALLOWED_KEYS, AUDIT, LogAudit, captured, record_lines, remember

ROUTER = Router(load_policy(), Limits(), today=lambda: date(2026, 11, 30))


# ---------------------------------------------------------------------------------------------
# The audit catches what it should, and nothing else
# ---------------------------------------------------------------------------------------------

GOOD_LINE = json.dumps({"request_id": "0" * 32, "method": "tools/call", "tool": "route_request", "duration_ms": 0.4,
                        "status": 200, "outcome": "denied:MX-1", "event": "request"})


def test_a_clean_log_passes():
    audit = LogAudit()
    audit.remember(secrets.token_urlsafe(32), "孩子血钾6.8怎么办")
    startup = json.dumps({"event": "startup", "policy_version": "2026.11.30+e0bad40f8983"})
    assert audit.problems([GOOD_LINE, startup, json.dumps({"event": "shutdown"})]) == []


@pytest.mark.parametrize("line, problem", [
    ("request ok", "not a JSON object"),
    ("[1, 2]", "not a JSON object"),
    (json.dumps({"event": "request", "text": "x"}), "keys outside the allowed set: ['text']"),
    (json.dumps({"event": "request", "headers": {}}), "keys outside the allowed set: ['headers']"),
    (json.dumps({"event": "request", "outcome": "孩子"}), "the value of 'outcome' is not a category"),
    (json.dumps({"event": "request", "outcome": "a b"}), "the value of 'outcome' is not a category"),
    (json.dumps({"event": "request", "method": ["x"]}), "the value of 'method' is not a category"),
])
def test_a_malformed_line_fails(line, problem):
    (found,) = LogAudit().problems([line])
    assert problem in found


def test_a_remembered_token_in_any_value_fails():
    audit = LogAudit()
    token = secrets.token_urlsafe(32)
    audit.remember(token.encode())
    line = json.dumps({"event": "request", "request_id": token[:40].replace("_", "-")})
    assert audit.problems([line]) == []
    leaked = json.dumps({"event": "request", "outcome": "x-" + token})
    (found,) = audit.problems([leaked])
    assert "remembered secret" in found and token not in found  # the report never repeats it


def test_a_remembered_text_in_a_malformed_line_fails_even_when_escaped():
    audit = LogAudit()
    audit.remember("孩子血钾6.8怎么办")
    for line in ['{"event": "request", "text": "孩子血钾6.8怎么办"}', json.dumps({"event": "request", "text": "孩子血钾6.8怎么办"})]:
        found = audit.problems([line])
        assert any("remembered text" in p for p in found)


def test_short_or_plain_words_are_not_secrets():
    audit = LogAudit()
    audit.remember("ok", "request", "route_request", b"abc")
    audit.remember("parent_assistant", plain=False)  # an argument value equal to a category name
    assert audit.plain == {"route_request"} and audit.other == set()


def test_the_session_audit_is_capturing():
    """The plugin is installed: an app's access line lands in the session capture."""
    token = secrets.token_urlsafe(32).encode()
    runner = AppRunner(create_app(ROUTER, [token]))
    try:
        before = len(captured())
        runner.request(headers=[(b"authorization", b"Bearer " + token), (b"content-type", b"application/json")],
                       body=b'{"jsonrpc":"2.0","id":1,"method":"ping"}')
        new = captured()[before:]
    finally:
        runner.close()
    assert [json.loads(line)["outcome"] for line in new if json.loads(line).get("event") == "request"] == ["ok"]
    assert token.decode() in AUDIT.plain  # harvested from the app's BearerGuard


# ---------------------------------------------------------------------------------------------
# One request of every kind: the lines they cause carry categories only
# ---------------------------------------------------------------------------------------------

TEXT = "我家孩子P0001血钾6.8，刚才抽搐了，今天早餐吃了3碗粥"
FEVER = "孩子今天发烧了，能吃香蕉吗"
FACTS = {"age_years": 0.1234, "kidney_therapy": "transplant", "nephrotic": True}
CLIENT_VERSION = "2099-12-31-client-secret-version"
ORIGIN = "https://evil.example.org/steal"
USER_AGENT = "agent-platform/9.9 (secret-tenant-42)"


def requests_of_every_kind(token: bytes) -> list[tuple[list[tuple[bytes, bytes]], bytes]]:
    auth = (b"authorization", b"Bearer " + token)
    ctype = (b"content-type", b"application/json")
    ua = (b"user-agent", USER_AGENT.encode())

    def rpc(method, params=None, id=1):
        message = {"jsonrpc": "2.0", "id": id, "method": method}
        if params is not None:
            message["params"] = params
        return json.dumps(message, ensure_ascii=False).encode()

    def call(tool, arguments):
        return rpc("tools/call", {"name": tool, "arguments": arguments})

    wrong = secrets.token_urlsafe(32).encode()
    remember(wrong)
    return [
        ([auth, ctype, ua], rpc("initialize", {"protocolVersion": CLIENT_VERSION, "clientInfo": {"name": USER_AGENT}})),
        ([auth, ctype], rpc("initialize", {"protocolVersion": "2025-06-18"})),
        ([auth, ctype], call("route_request", {"text": TEXT, "caller": "parent_assistant", "patient_id": "P0001",
                                               "reference_date": "2026-11-30"})),
        ([auth, ctype], call("route_request", {"text": "帮我算一下孩子CKD几期，肌酐120", "caller": "nutritionist",
                                               "patient_id": "P0001", "reference_date": "2026-11-30"})),
        ([auth, ctype], call("check_safety_gate", {"intent": TEXT, "caller": "parent_assistant"})),
        ([auth, ctype], call("route_request", {"text": FEVER, "caller": "parent_assistant", "patient_id": "P0001",
                                               "patient_facts": FACTS})),  # halts by a fact
        ([auth, ctype], call("check_safety_gate", {"intent": FEVER, "caller": "parent_assistant", "patient_facts": FACTS})),
        ([auth, ctype], call("route_request", {"text": FEVER, "caller": "parent_assistant",
                                               "patient_facts": {"kidney_therapy": "peritoneal_dialysis_x"}})),  # INVALID_ARGUMENT
        ([auth, ctype], call("classify_intent", {"text": TEXT})),
        ([auth, ctype], call("extract_slots", {"text": TEXT, "reference_date": "2026-11-30"})),
        ([auth, ctype], call("check_permission", {"caller": "parent_assistant", "mcp": "a207-his-mcp", "action": "push_to_emr"})),
        ([auth, ctype], call("classify_intent", {"text": "超长" * 1_500})),  # INVALID_ARGUMENT
        ([auth, ctype], call("classify_intent", {"text": TEXT, "secret_extra_key": "x"})),
        ([auth, ctype], call("no_such_tool_secret", {"text": TEXT})),
        ([auth, ctype], rpc("secret/method/name")),
        ([auth, ctype], rpc("notifications/secret-notification")),
        ([auth, ctype], json.dumps({"jsonrpc": "2.0", "id": "secret-id-value-123", "method": "ping"}).encode()),
        ([(b"authorization", b"Bearer " + wrong), ctype], call("classify_intent", {"text": TEXT})),
        ([(b"authorization", "Bearer 令牌".encode()), ctype], call("classify_intent", {"text": TEXT})),
        ([auth, ctype, (b"origin", ORIGIN.encode())], call("classify_intent", {"text": TEXT})),
        ([auth, (b"content-type", b"text/secret-type")], call("classify_intent", {"text": TEXT})),
        ([auth, ctype, (b"x-request-id", b"bad id with spaces \xe4\xb8\xad")], call("classify_intent", {"text": TEXT})),
        ([auth, ctype], b'{"text": "' + TEXT.encode() + b'" '),  # parse error
        ([auth, ctype], b"[" + call("classify_intent", {"text": TEXT}) + b"]"),  # batch
    ]


FORBIDDEN_IN_LOGS = [TEXT, "P0001", "血钾", CLIENT_VERSION, ORIGIN, USER_AGENT, "secret", "text/secret-type",
                     "bad id", "令牌", "超长", "帮我算",
                     "patient_facts", "age_years", "kidney_therapy", "transplant", "nephrotic", "0.1234", "peritoneal"]


def test_every_kind_of_request_logs_categories_only():
    token = secrets.token_urlsafe(32).encode()
    remember(token, TEXT)
    runner = AppRunner(create_app(ROUTER, [token]))
    try:
        before = len(captured())
        requests = requests_of_every_kind(token)
        statuses = [runner.request(headers=headers, body=body).status for headers, body in requests]
        lines = captured()[before:]
    finally:
        runner.close()
    records = [json.loads(line) for line in lines]
    access = [r for r in records if r.get("event") == "request"]
    assert len(access) == len(requests), "one access line per request"
    assert [r["status"] for r in access] == statuses
    assert all(tuple(sorted(r)) == tuple(sorted(LOG_FIELDS)) for r in access)
    assert all(set(r) <= ALLOWED_KEYS for r in records)
    assert [r["outcome"] for r in access[:2]] == ["compatibility_success", "direct_success"]
    for line in lines:
        for forbidden in FORBIDDEN_IN_LOGS + [token.decode()]:
            assert forbidden not in line and json.dumps(forbidden)[1:-1] not in line, "a value reached the log"
    assert LogAudit().problems(lines) == []


def test_patient_facts_reach_neither_the_log_nor_the_metrics():
    """Calls with facts (a halt they made, a gate, a bad value): the access lines and the Prometheus
    exposition hold categories only, nothing of the facts (SPEC §4.5 revision 3, §5.5)."""
    from prometheus_client import generate_latest

    from app.http.observe import Metrics

    token = secrets.token_urlsafe(32).encode()
    metrics = Metrics()
    runner = AppRunner(create_app(ROUTER, [token], metrics=metrics))
    auth = [(b"authorization", b"Bearer " + token), (b"content-type", b"application/json")]
    calls = [
        ("route_request", {"text": FEVER, "caller": "parent_assistant", "patient_id": "P0001", "patient_facts": FACTS}),
        ("check_safety_gate", {"intent": FEVER, "caller": "nutritionist", "patient_facts": FACTS}),
        ("route_request", {"text": FEVER, "caller": "parent_assistant", "patient_facts": {"nephrotic": "nephrotic_yes"}}),
    ]
    try:
        before = len(captured())
        for n, (tool, arguments) in enumerate(calls):
            body = json.dumps({"jsonrpc": "2.0", "id": n, "method": "tools/call",
                               "params": {"name": tool, "arguments": arguments}}, ensure_ascii=False).encode()
            assert runner.request(headers=auth, body=body).status == 200
        lines = captured()[before:]
    finally:
        runner.close()
    exposition = generate_latest(metrics.registry).decode()
    outcomes = [json.loads(line)["outcome"] for line in lines if json.loads(line).get("event") == "request"]
    assert outcomes == ["halt:P0", "halt:P0", "invalid_argument"]
    for forbidden in ("patient_facts", "age_years", "kidney_therapy", "transplant", "nephrotic", "0.1234", "fact"):
        assert all(forbidden not in line for line in lines), forbidden
        assert forbidden not in exposition, forbidden
    assert "halt:P0" in exposition
    assert LogAudit().problems(lines) == []


@pytest.mark.network
def test_a_real_server_logs_categories_only():
    """The same over a socket: stdout of ``python -m app serve`` is the access log."""
    server = RealServer()
    remember(server.token, TEXT)
    try:
        with server:
            token = server.token.encode()
            for headers, body in requests_of_every_kind(token):
                head = b"POST /mcp HTTP/1.1\r\nHost: t\r\nContent-Length: " + str(len(body)).encode() + b"\r\n"
                head += b"".join(k + b": " + v + b"\r\n" for k, v in headers)
                status, _, _ = http_exchange(server.port, head + b"\r\n" + body)
                assert status < 500
        lines = server.log_lines()
        record_lines(lines)
        stderr = server.stderr_text()
    finally:
        server.cleanup()
    # Every answer is logged, the readiness polls of RealServer's start-up included: those aside,
    # exactly one line per request sent.
    mcp_lines = [line for line in lines if '"request"' in line and '"outcome":"ready"' not in line]
    assert len(mcp_lines) == len(requests_of_every_kind(b"x" * 32))
    for line in lines:
        for forbidden in FORBIDDEN_IN_LOGS + [server.token]:
            assert forbidden not in line and json.dumps(forbidden)[1:-1] not in line
    assert LogAudit().problems(lines) == []
    assert server.token not in stderr and TEXT not in stderr


# ---------------------------------------------------------------------------------------------
# BearerGuard: digests, never an exception
# ---------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def guard_tokens():
    return [secrets.token_urlsafe(32).encode(), secrets.token_urlsafe(48).encode()]


def auth(value: bytes) -> list[tuple[bytes, bytes]]:
    return [(b"authorization", value)]


@pytest.mark.parametrize("value", [
    "Bearer 令牌".encode(), b"Bearer \xff\xfe\x00", b"Bearer " + b"\x80" * 100, "Bearer é".encode("latin-1"),
    b"Bearer " + b"A" * 1_000_000, b"Bearer " + b"\xe4\xb8\xad" * 100_000, b"\x00", b"", b" ", b"Bearer", b"Bearer ",
    b"Bearer \t ", "Bearer 😀".encode(), b"bearer\xa0token",
], ids=lambda v: f"{len(v)}-bytes")
def test_odd_authorization_values_are_refused_without_raising(guard_tokens, value):
    assert BearerGuard(guard_tokens).allows(auth(value)) is False


def test_every_configured_token_is_accepted(guard_tokens):
    guard = BearerGuard(guard_tokens)
    for token in guard_tokens:
        assert guard.allows(auth(b"Bearer " + token))
        assert guard.allows(auth(b"bearer " + token))
        assert not guard.allows(auth(b"Bearer " + token[:-1]))
        assert not guard.allows(auth(b"Bearer " + token + b"x"))
        assert not guard.allows(auth(b"Basic " + token))
        assert not guard.allows(auth(token))
        assert not guard.allows(auth(b"Bearer " + token) * 2)  # two headers
        assert not guard.allows([])


def test_the_guard_keeps_digests_only(guard_tokens):
    guard = BearerGuard(guard_tokens)
    state = repr(vars(guard)) if hasattr(guard, "__dict__") else repr([getattr(guard, s) for s in guard.__slots__])
    for token in guard_tokens:
        assert token.decode() not in state and repr(token) not in state
        assert hashlib.sha256(token).digest() in guard._digests


def test_a_guard_without_tokens_refuses_to_exist():
    with pytest.raises(ValueError):
        BearerGuard([])


# ---------------------------------------------------------------------------------------------
# Policy reload (SPEC §5.8): the policy_reload line is categories only; the file's words are secrets
# ---------------------------------------------------------------------------------------------


def test_a_policy_reload_line_passes_and_the_files_words_are_remembered(tmp_path):
    import asyncio

    from app.http.reload import PolicyReloader, ReloadSetup
    from app.router.policy import default_policy_bytes
    from tests.privacy_plugin import AUDIT

    word = "审计金丝雀词"  # in a broken file the reloader reads
    path = tmp_path / "policy.toml"
    path.write_bytes(default_policy_bytes().replace(b'version = "', f'roles = ["{word}"]\nversion = "'.encode(), 1))
    app = create_app(ROUTER, [secrets.token_urlsafe(32).encode()])
    reloader = PolicyReloader(ReloadSetup(str(path), 3600, lambda data: Router(load_policy(path))),
                              app._mcp, app.observer)
    before = len(captured())
    assert asyncio.run(reloader.check()) == "rejected"
    (line,) = [x for x in captured()[before:] if "policy_reload" in x]
    assert json.loads(line) == {"event": "policy_reload", "outcome": "rejected", "error": "syntax",  # roles twice
                                "policy_version": ROUTER.policy_version}
    assert LogAudit().problems([line]) == []
    assert word in AUDIT.other and f'roles = ["{word}"]' in AUDIT.other  # harvested by the plugin
    leaked = json.dumps({"event": "policy_reload", "outcome": "rejected", "error": f"invalid {word}"})
    audit = LogAudit()
    audit.remember(word)
    assert audit.problems([leaked])
