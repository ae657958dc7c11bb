"""Bad input, one row per case, each with its exact status and error code (SPEC §4.6, §5.1).

The table runs against the ASGI app in-process (tests/http/asgi.py: headers, chunks and pauses
exactly as written). The cases that depend on the HTTP server itself — a truthful 2 MB
Content-Length, a 2 MB chunked body, a body trickling slower than the timeout, odd
Authorization bytes — run again over a real socket against ``python -m app serve`` in a
subprocess, and the next request on a new connection must still get its 200.
"""

from __future__ import annotations

import json
import secrets
import socket
import time
from dataclasses import dataclass, field
from datetime import date
from typing import Any, Callable

import orjson
import pytest

from app.http.app import create_app
from app.router import Limits, Router, load_policy
from tests.privacy_plugin import ALLOWED_KEYS, record_lines, remember

from .asgi import AppRunner, RealServer, Response, check_mcp_response, check_tool_call, http_exchange, read_response

TODAY = date(2026, 11, 30)
LIMIT = 65_536
BIG_LIMIT = 4 * 1024 * 1024
ROUTER = Router(load_policy(), Limits(), today=lambda: TODAY)
TOKEN = secrets.token_urlsafe(32).encode()
remember(TOKEN)

APPS = {
    "default": dict(max_body_bytes=LIMIT, body_timeout_seconds=10.0),
    "big": dict(max_body_bytes=BIG_LIMIT, body_timeout_seconds=10.0),  # room for 100,000-deep / -char bodies
    "fast": dict(max_body_bytes=LIMIT, body_timeout_seconds=0.5),  # the slow-body deadline
}


@pytest.fixture(scope="module")
def services():
    runners = {name: AppRunner(create_app(ROUTER, [TOKEN], **options)) for name, options in APPS.items()}
    try:
        yield runners
    finally:
        for runner in runners.values():
            runner.close()


# ---------------------------------------------------------------------------------------------
# Building blocks
# ---------------------------------------------------------------------------------------------

PING = b'{"jsonrpc":"2.0","id":1,"method":"ping"}'
GOOD_AUTH = (b"authorization", b"Bearer " + TOKEN)
JSON_TYPE = (b"content-type", b"application/json")


def envelope(method: str = "tools/call", params: Any = None, id: Any = 1) -> dict:
    message: dict[str, Any] = {"jsonrpc": "2.0", "id": id, "method": method}
    if params is not None:
        message["params"] = params
    return message


def call(tool: str, arguments: Any, id: Any = 1) -> bytes:
    return json.dumps(envelope("tools/call", {"name": tool, "arguments": arguments}, id), ensure_ascii=False).encode()


def call_raw(tool: str, arguments_json: bytes, id: bytes = b"1") -> bytes:
    """A tools/call whose arguments are spliced in as raw JSON text (for what json.dumps cannot write)."""
    return (b'{"jsonrpc":"2.0","id":' + id + b',"method":"tools/call","params":{"name":"' + tool.encode()
            + b'","arguments":' + arguments_json + b"}}")


def padded(body: bytes, size: int) -> bytes:
    """``body`` followed by JSON whitespace up to exactly ``size`` bytes."""
    assert len(body) <= size
    return body + b" " * (size - len(body))


def nested(depth: int) -> bytes:
    return b"[" * depth + b"]" * depth


ROUTE_ARGS = {"caller": "parent_assistant", "patient_id": "P0001", "reference_date": "2026-11-30"}
LONG = "血" * 100_000
TEXT_TOOLS = [
    ("classify_intent", {"text": LONG}, "text"),
    ("extract_slots", {"text": LONG, "reference_date": "2026-11-30"}, "text"),
    ("route_request", {"text": LONG, **ROUTE_ARGS}, "text"),
    ("check_safety_gate", {"intent": LONG, "caller": "parent_assistant"}, "intent"),
]
remember("孩子血钾6.8怎么办", "孩子\x00血钾高能吃香蕉吗", "孩子血钾高能吃香蕉吗😀", "令牌")


@dataclass
class Row:
    name: str
    body: bytes | list[bytes]
    status: int
    rpc_code: int | None = None  # JSON-RPC error code expected in the body
    tool_error: tuple[str, str] | None = None  # (field, message) of an INVALID_ARGUMENT result
    tool: tuple[str, Any] | None = None  # (tool, arguments): the result must equal the router's
    result: Any = None  # the exact JSON-RPC result expected (when not a tool call)
    id: Any = 1  # the id the answer must carry (JSON-RPC answers)
    headers: list[tuple[bytes, bytes]] = field(default_factory=lambda: [GOOD_AUTH, JSON_TYPE])
    app: str = "default"
    delay: float = 0.0
    disconnect: bool = False
    request_id: bytes | None = None  # expected X-Request-ID: the sent one, or None for a fresh one
    check: Callable[[Response], None] | None = None


def consumed_at_most(n: int) -> Callable[[Response], None]:
    def check(response: Response) -> None:
        assert response.body_chunks_consumed <= n, f"read {response.body_chunks_consumed} chunks, expected ≤ {n}"

    return check


def closes(response: Response) -> None:
    assert response.header("connection") == b"close"


def _with(headers: list[tuple[bytes, bytes]]) -> list[tuple[bytes, bytes]]:
    return [GOOD_AUTH, JSON_TYPE, *headers]


TWO_MB = padded(PING, 2_000_000)
ROWS = [
    # -- depth ---------------------------------------------------------------------------
    Row("JSON nested 100,000 levels deep (over the 64 KiB limit)", nested(100_000), 413, check=closes),
    Row("JSON nested 100,000 levels deep (4 MiB limit)", nested(100_000), 400, rpc_code=-32700, app="big", id=None),
    Row("arguments nested 100,000 levels deep", call_raw("classify_intent", b'{"text":' + nested(100_000) + b"}"),
        400, rpc_code=-32700, app="big", id=None),
    Row("text argument nested 1,000 levels deep (under the parser's limit)",
        call_raw("classify_intent", b'{"text":' + nested(1_000) + b"}"), 200, tool_error=("text", "must be a string")),
    # -- size ----------------------------------------------------------------------------
    Row("2 MB with a truthful Content-Length: refused before reading", TWO_MB, 413,
        headers=_with([(b"content-length", b"2000000")]), check=lambda r: (consumed_at_most(0)(r), closes(r))),
    Row("2 MB without Content-Length, 64 KiB chunks: refused after the limit",
        [TWO_MB[i:i + 65_536] for i in range(0, len(TWO_MB), 65_536)], 413, check=consumed_at_most(2)),
    Row("2 MB with a lying Content-Length of 40", TWO_MB, 413, headers=_with([(b"content-length", b"40")])),
    Row("chunked body over the limit: 1,025 chunks of 64 bytes",
        [padded(PING, 65_600)[i:i + 64] for i in range(0, 65_600, 64)], 413, check=consumed_at_most(1_025)),
    Row("a body of exactly the limit is served", [padded(PING, LIMIT)[i:i + 4096] for i in range(0, LIMIT, 4096)], 200,
        result={}),
    Row("one byte over the limit", padded(PING, LIMIT + 1), 413),
    Row("Content-Length of 5,000 digits (was a 500)", PING, 413, headers=_with([(b"content-length", b"9" * 5_000)])),
    Row("Content-Length that is not a number is not trusted, the body is read", PING, 200, result={},
        headers=_with([(b"content-length", b"12abc")])),
    Row("empty body", b"", 400, rpc_code=-32700, id=None),
    Row("whitespace only", b" \r\n\t ", 400, rpc_code=-32700, id=None),
    # -- encoding ------------------------------------------------------------------------
    Row("invalid UTF-8 byte in a string", call_raw("classify_intent", b'{"text":"\xff\xfe"}'), 400, rpc_code=-32700, id=None),
    Row("overlong UTF-8 encoding of /", call_raw("classify_intent", b'{"text":"\xc0\xaf"}'), 400, rpc_code=-32700, id=None),
    Row("UTF-8-encoded surrogate (CESU-8)", call_raw("classify_intent", b'{"text":"\xed\xa0\x80"}'), 400, rpc_code=-32700, id=None),
    Row("truncated multi-byte sequence", call_raw("classify_intent", b'{"text":"\xe8\xa1"}'), 400, rpc_code=-32700, id=None),
    Row("UTF-16 body", PING.decode().encode("utf-16"), 400, rpc_code=-32700, id=None),
    Row("UTF-8 byte-order mark before the document", b"\xef\xbb\xbf" + PING, 400, rpc_code=-32700, id=None),
    Row('escaped lone high surrogate "\\ud800" in a string', call_raw("classify_intent", b'{"text":"a\\ud800b"}'),
        400, rpc_code=-32700, id=None),
    Row('escaped lone low surrogate "\\udc00" in a string', call_raw("classify_intent", b'{"text":"\\udc00"}'),
        400, rpc_code=-32700, id=None),
    Row("escaped surrogate pair is one character, served", call_raw("classify_intent", b'{"text":"\\u5b69\\u5b50\\u8840\\u94be\\u9ad8\\u80fd\\u5403\\u9999\\u8549\\u5417\\ud83d\\ude00"}'),
        200, tool=("classify_intent", {"text": "孩子血钾高能吃香蕉吗😀"})),
    # -- numbers -------------------------------------------------------------------------
    Row("NaN", b'{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":NaN}}', 400, rpc_code=-32700, id=None),
    Row("Infinity", b'{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":Infinity}}', 400, rpc_code=-32700, id=None),
    Row("-Infinity", b'{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":-Infinity}}', 400, rpc_code=-32700, id=None),
    Row("1e400 (overflows a double)", b'{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":1e400}}', 400, rpc_code=-32700, id=None),
    Row("10,000-digit integer id", b'{"jsonrpc":"2.0","id":' + b"7" * 10_000 + b',"method":"ping"}', 400, rpc_code=-32700, id=None),
    Row("10,000-digit integer argument", call_raw("classify_intent", b'{"text":' + b"7" * 10_000 + b"}"), 400, rpc_code=-32700, id=None),
    Row("id of 2**64 (not a 64-bit integer)", b'{"jsonrpc":"2.0","id":18446744073709551616,"method":"ping"}', 400,
        rpc_code=-32600, id=None),
    Row("id of 2**63 - 1 comes back exactly", b'{"jsonrpc":"2.0","id":9223372036854775807,"method":"ping"}', 200,
        result={}, id=2**63 - 1),
    Row("float id", b'{"jsonrpc":"2.0","id":1.5,"method":"ping"}', 400, rpc_code=-32600, id=None),
    Row("boolean id", b'{"jsonrpc":"2.0","id":true,"method":"ping"}', 400, rpc_code=-32600, id=None),
    Row("null id on a request", b'{"jsonrpc":"2.0","id":null,"method":"ping"}', 400, rpc_code=-32600, id=None),
    Row("string id of 257 characters", json.dumps(envelope("ping", id="i" * 257)).encode(), 400, rpc_code=-32600, id=None),
    Row("text argument that is a number", call("classify_intent", {"text": 123}), 200, tool_error=("text", "must be a string")),
    # -- duplicate keys: the last one wins, consistently ------------------------------------
    Row("duplicate id keys: the last wins", b'{"jsonrpc":"2.0","id":1,"id":2,"method":"ping"}', 200, result={}, id=2),
    Row("duplicate text keys: the last wins", call_raw("classify_intent", '{"text":"你好","text":"孩子血钾6.8怎么办"}'.encode()),
        200, tool=("classify_intent", {"text": "孩子血钾6.8怎么办"})),
    Row("duplicate caller keys: the last wins", call_raw(
        "check_permission", b'{"caller":"doctor_assistant","caller":"parent_assistant","mcp":"a207-his-mcp"}'),
        200, tool=("check_permission", {"caller": "parent_assistant", "mcp": "a207-his-mcp"})),
    Row("duplicate jsonrpc keys, the last not 2.0", b'{"jsonrpc":"2.0","jsonrpc":"1.0","id":1,"method":"ping"}', 400,
        rpc_code=-32600, id=None),
    # -- NUL -----------------------------------------------------------------------------
    Row("NUL (\\u0000) in text is a valid request", call("classify_intent", {"text": "孩子\x00血钾高能吃香蕉吗"}), 200,
        tool=("classify_intent", {"text": "孩子\x00血钾高能吃香蕉吗"})),
    Row("NUL in every text of route_request", call("route_request", {"text": "\x00孩子血钾6.8怎么办\x00", **ROUTE_ARGS}), 200,
        tool=("route_request", {"text": "\x00孩子血钾6.8怎么办\x00", **ROUTE_ARGS})),
    Row("raw NUL byte inside a JSON string", call_raw("classify_intent", b'{"text":"a\x00b"}'), 400, rpc_code=-32700, id=None),
    Row("NUL byte after the document", PING + b"\x00", 400, rpc_code=-32700, id=None),
    # -- text length ---------------------------------------------------------------------
    *[Row(f"{tool}: {field_name} of 100,000 characters", call(tool, arguments), 200, app="big",
          tool_error=(field_name, "must be at most 2000 characters")) for tool, arguments, field_name in TEXT_TOOLS],
    Row("text of 100,000 characters under the 64 KiB limit", call("classify_intent", {"text": LONG}), 413),
    Row("text of 2,001 characters", call("classify_intent", {"text": "血" * 2_001}), 200,
        tool_error=("text", "must be at most 2000 characters")),
    Row("text of 2,000 characters is served", call("classify_intent", {"text": "血" * 2_000}), 200,
        tool=("classify_intent", {"text": "血" * 2_000})),
    # -- Authorization -------------------------------------------------------------------
    Row("non-ASCII Authorization (UTF-8)", PING, 401, headers=[(b"authorization", "Bearer 令牌".encode()), JSON_TYPE]),
    Row("non-ASCII Authorization (Latin-1 bytes)", PING, 401, headers=[(b"authorization", b"Bearer \xe9\xff\xfe"), JSON_TYPE]),
    Row("the token plus a non-ASCII character", PING, 401, headers=[(b"authorization", b"Bearer " + TOKEN + "é".encode()), JSON_TYPE]),
    Row("Authorization of 10 kB", PING, 401, headers=[(b"authorization", b"Bearer " + b"x" * 10_000), JSON_TYPE]),
    Row("two Authorization headers, both valid", PING, 401, headers=[GOOD_AUTH, GOOD_AUTH, JSON_TYPE]),
    Row("two Authorization headers, one valid", PING, 401, headers=[(b"authorization", b"Bearer nope"), GOOD_AUTH, JSON_TYPE]),
    Row("Basic scheme with the token", PING, 401, headers=[(b"authorization", b"Basic " + TOKEN), JSON_TYPE]),
    Row("no Authorization", PING, 401, headers=[JSON_TYPE]),
    # -- X-Request-ID --------------------------------------------------------------------
    Row("X-Request-ID with CR/LF: a fresh id", PING, 200, result={}, headers=_with([(b"x-request-id", b"abc\r\nx-evil: 1")])),
    Row("X-Request-ID of 10 kB: a fresh id", PING, 200, result={}, headers=_with([(b"x-request-id", b"a" * 10_000)])),
    Row("X-Request-ID of 65 characters: a fresh id", PING, 200, result={}, headers=_with([(b"x-request-id", b"a" * 65)])),
    Row("non-ASCII X-Request-ID: a fresh id", PING, 200, result={}, headers=_with([(b"x-request-id", "请求".encode())])),
    Row("two X-Request-IDs: a fresh id", PING, 200, result={}, headers=_with([(b"x-request-id", b"a1"), (b"x-request-id", b"a2")])),
    Row("a well-formed X-Request-ID comes back", PING, 200, result={}, headers=_with([(b"x-request-id", b"req-1.A_b")]),
        request_id=b"req-1.A_b"),
    # -- framing and the other guards --------------------------------------------------------
    Row("a batch", b"[" + PING + b"]", 400, rpc_code=-32600, id=None),
    Row("an empty batch", b"[]", 400, rpc_code=-32600, id=None),
    Row("params as an array", b'{"jsonrpc":"2.0","id":1,"method":"ping","params":[]}', 400, rpc_code=-32600),
    Row("unknown method", json.dumps(envelope("resources/list")).encode(), 200, rpc_code=-32601),
    Row("unknown tool", call("drop_tables", {}), 200, rpc_code=-32602),
    Row("arguments as an array", call("classify_intent", ["孩子"]), 200, tool_error=("arguments", "must be an object")),
    Row("Origin: null", PING, 403, headers=_with([(b"origin", b"null")])),
    Row("Content-Type text/plain", PING, 415, headers=[GOOD_AUTH, (b"content-type", b"text/plain")]),
    Row("Content-Type with charset is served", PING, 200, result={},
        headers=[GOOD_AUTH, (b"content-type", b"application/json; charset=utf-8")]),
    # -- slow and vanishing clients ------------------------------------------------------------
    Row("a body trickling slower than the 0.5 s deadline", [PING[i:i + 4] for i in range(0, len(PING), 4)], 408,
        app="fast", delay=0.2, check=closes),
    Row("a client that disconnects mid-body", [PING[:10]], 408, disconnect=True),
]


@pytest.mark.parametrize("row", ROWS, ids=[row.name for row in ROWS])
def test_bad_input(services, row: Row):
    service = services[row.app]
    sent = row.body if isinstance(row.body, bytes) else b"".join(row.body)
    started = time.monotonic()
    response = service.request(headers=row.headers, body=row.body, delay=row.delay, disconnect=row.disconnect, timeout=15)
    elapsed = time.monotonic() - started
    sent_ids = [v for k, v in row.headers if k == b"x-request-id"]
    message = check_mcp_response(response, forbidden=(TOKEN,), sent=sent, sent_request_id=sent_ids)
    assert response.status == row.status, f"{row.name}: {response.status} {response.body[:200]!r}"
    if row.request_id is not None:
        assert response.header("x-request-id") == row.request_id
    if message is not None:
        assert message["id"] == row.id
    if row.rpc_code is not None:
        assert message["error"]["code"] == row.rpc_code
    if row.tool_error is not None:
        structured = message["result"]["structuredContent"]
        assert message["result"]["isError"] is True
        assert structured == {"error": {"code": "INVALID_ARGUMENT", "field": row.tool_error[0], "message": row.tool_error[1]}}
    if row.tool is not None:
        tool, arguments = row.tool
        check_tool_call(message, ROUTER, tool, arguments)
        assert message["result"]["isError"] is False
    if row.result is not None:
        assert message["result"] == row.result
    if row.check is not None:
        row.check(response)
    if row.app == "fast":
        assert elapsed < 0.5 + 1.0, "the slow body was not cut off at its deadline"
    # Whatever happened, the same app serves the next request normally.
    after = service.request(headers=[GOOD_AUTH, JSON_TYPE], body=PING)
    assert (after.status, after.body) == (200, b'{"jsonrpc":"2.0","id":1,"result":{}}')


def test_table_covers_every_documented_status():
    assert {row.status for row in ROWS} >= {200, 400, 401, 403, 408, 413, 415}


# ---------------------------------------------------------------------------------------------
# Over a real socket: uvicorn + the endpoint
# ---------------------------------------------------------------------------------------------

REAL_TIMEOUT = 1.0


@pytest.fixture(scope="module")
def real_server():
    server = RealServer(ROUTER_REQUEST_TIMEOUT_SECONDS=str(REAL_TIMEOUT), ROUTER_MCP_MAX_BODY_BYTES=str(LIMIT))
    remember(server.token)
    try:
        with server:
            yield server
        lines = server.log_lines()
        record_lines(lines)  # the session-wide privacy audit sees the subprocess' log too
        for line in lines:
            assert set(json.loads(line)) <= ALLOWED_KEYS
        stderr = server.stderr_text()
        assert "Traceback" not in stderr and "Exception" not in stderr, "the server logged an exception"
        assert server.token not in stderr
    finally:
        server.cleanup()


def next_request_is_served(server: RealServer) -> None:
    status, headers, body = server.post(PING)
    assert (status, body) == (200, b'{"jsonrpc":"2.0","id":1,"result":{}}')


def connect(server: RealServer) -> socket.socket:
    return socket.create_connection(("127.0.0.1", server.port), timeout=5)


def _read_or_reset(sock: socket.socket, timeout: float) -> tuple[int, dict, bytes] | None:
    """A response, or None when the server reset the connection first (allowed after a refusal
    while the client was still sending)."""
    try:
        return read_response(sock, timeout)
    except (ConnectionResetError, BrokenPipeError, ConnectionError):
        return None


@pytest.mark.network
def test_real_truthful_2mb_content_length_is_refused_before_the_body(real_server):
    with connect(real_server) as sock:
        sock.sendall(real_server.post_head(2_000_000))  # the head only: the answer must not wait for the body
        status, headers, body = read_response(sock, timeout=5)
        assert status == 413 and headers[b"connection"] == b"close"
        assert orjson.loads(body)["error"] == "payload_too_large"
        sock.settimeout(2)
        try:
            sock.sendall(b" " * 200_000)
            assert sock.recv(1) == b"", "the connection stays open after a 413"
        except (ConnectionResetError, BrokenPipeError):
            pass
    next_request_is_served(real_server)


@pytest.mark.network
def test_real_2mb_chunked_body_is_refused(real_server):
    with connect(real_server) as sock:
        sock.sendall(real_server.post_head(None, extra=b"Transfer-Encoding: chunked\r\n"))
        sent = 0
        try:
            while sent < 2_000_000:
                sock.sendall(b"8000\r\n" + b" " * 0x8000 + b"\r\n")
                sent += 0x8000
            sock.sendall(b"0\r\n\r\n")
        except (ConnectionResetError, BrokenPipeError):
            pass  # refused while we were still sending
        answer = _read_or_reset(sock, timeout=5)
        if answer is not None:
            assert answer[0] == 413 and answer[1][b"connection"] == b"close"
        assert sent > LIMIT
    next_request_is_served(real_server)


@pytest.mark.network
def test_real_body_trickling_slower_than_the_timeout(real_server):
    with connect(real_server) as sock:
        sock.sendall(real_server.post_head(len(PING)))
        started = time.monotonic()
        sock.settimeout(0.25)
        answer = b""
        for i in range(len(PING)):  # one byte every 0.25 s: 40 bytes would take 10 s
            try:
                sock.sendall(PING[i:i + 1])
                answer = sock.recv(65536)
                if answer:
                    break
            except socket.timeout:
                continue
            except (ConnectionResetError, BrokenPipeError):
                break
        elapsed = time.monotonic() - started
    assert elapsed < REAL_TIMEOUT + 2.0, f"not cut off at the {REAL_TIMEOUT} s deadline ({elapsed:.1f} s)"
    if answer:  # a 408, or the connection closed within the timeout
        assert answer.startswith(b"HTTP/1.1 408 ")
    next_request_is_served(real_server)


@pytest.mark.network
@pytest.mark.parametrize("value", [
    "Bearer 令牌".encode(), b"Bearer \xe9\xff\xfe", b"Bearer TOKEN\xc3\xa9", b"Bearer " + b"x" * 7_000,
], ids=["utf-8", "latin-1", "token+e-acute", "7kB"])  # over 8 KiB the head cap answers 431 first (test_hostile_clients)
def test_real_odd_authorization_is_401(real_server, value):
    value = value.replace(b"TOKEN", real_server.token.encode())
    raw = (b"POST /mcp HTTP/1.1\r\nHost: t\r\nAuthorization: " + value + b"\r\nContent-Type: application/json\r\n"
           b"Content-Length: " + str(len(PING)).encode() + b"\r\n\r\n" + PING)
    status, headers, body = http_exchange(real_server.port, raw)
    assert status == 401 and headers[b"www-authenticate"].startswith(b"Bearer")
    next_request_is_served(real_server)


@pytest.mark.network
def test_real_two_authorization_headers_is_401(real_server):
    extra = b"Authorization: Bearer " + real_server.token.encode() + b"\r\n"
    status, headers, body = real_server.post(PING, extra=extra)
    assert status == 401


@pytest.mark.network
def test_real_request_id_with_a_folded_line_is_not_echoed(real_server):
    status, headers, _ = real_server.post(PING, extra=b"X-Request-ID: " + b"r" * 7_000 + b"\r\n")
    assert status == 200 and len(headers[b"x-request-id"]) == 32


@pytest.mark.network
def test_real_huge_content_length_is_a_client_error(real_server):
    """uvicorn's parser refuses it (400) before the endpoint runs; never a 5xx."""
    raw = real_server.post_head(None, extra=b"Content-Length: " + b"9" * 5_000 + b"\r\n") + PING
    with connect(real_server) as sock:
        sock.sendall(raw)
        answer = _read_or_reset(sock, timeout=5)
    assert answer is None or answer[0] in (400, 413)
    next_request_is_served(real_server)


@pytest.mark.network
def test_real_keep_alive_after_refusals(real_server):
    """A 400 (a body that was read) keeps the connection usable; a 401 closes it (issue 11: the
    server stops reading, so a tokenless client cannot keep streaming its body)."""
    with connect(real_server) as sock:
        for body, token, expected in [(b"{", None, 400), (PING, None, 200)]:
            sock.sendall(real_server.post_head(len(body), token=token) + body)
            status, headers, _ = read_response(sock, timeout=5)
            assert status == expected
            assert headers.get(b"connection") != b"close"
        sock.sendall(real_server.post_head(len(PING), token=b"wrong-token-" + b"x" * 30) + PING)
        status, headers, _ = read_response(sock, timeout=5)
        assert status == 401 and headers[b"connection"] == b"close"
        sock.settimeout(2)
        assert sock.recv(1) == b""


SMUGGLED = b"GET /mcp HTTP/1.1\r\nHost: t\r\n\r\n"
SMUGGLING = {
    "Content-Length and Transfer-Encoding": b"Content-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n"
    + b"%x\r\n" % len(PING) + PING + b"\r\n0\r\n\r\n",
    "two differing Content-Lengths": b"Content-Length: %d\r\nContent-Length: 5\r\n\r\n" % len(PING) + PING,
    "Transfer-Encoding: xchunked": b"Transfer-Encoding: xchunked\r\n\r\n" + PING,
    "Transfer-Encoding: chunked, identity": b"Transfer-Encoding: chunked, identity\r\n\r\n" + b"%x\r\n" % len(PING)
    + PING + b"\r\n0\r\n\r\n",
    "Content-Length: +N": b"Content-Length: +%d\r\n\r\n" % len(PING) + PING,
    "obs-fold continuation line": b"Content-Length: %d\r\nX-A: a\r\n b\r\n\r\n" % len(PING) + PING,
    "NUL in a header value": b"X-A: a\x00b\r\nContent-Length: %d\r\n\r\n" % len(PING) + PING,
}


@pytest.mark.network
@pytest.mark.parametrize("name", list(SMUGGLING))
def test_real_smuggling_shapes_are_refused_and_nothing_is_smuggled(real_server, name):
    """Ambiguous framing is refused by uvicorn's parser (llhttp) with a 400 and the connection is
    closed, so the GET queued behind it is never read as a second request."""
    head = (b"POST /mcp HTTP/1.1\r\nHost: t\r\nAuthorization: Bearer " + real_server.token.encode()
            + b"\r\nContent-Type: application/json\r\n")
    with connect(real_server) as sock:
        sock.sendall(head + SMUGGLING[name] + SMUGGLED)
        answer = _read_or_reset(sock, timeout=5)
        assert answer is None or answer[0] == 400
        sock.settimeout(2)
        try:
            rest = sock.recv(65536)
        except (ConnectionResetError, socket.timeout):
            rest = b""
        assert not rest.startswith(b"HTTP/1.1"), "a second (smuggled) request was answered"
    next_request_is_served(real_server)
