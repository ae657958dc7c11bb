"""Hostile clients over a real socket (issue 11): what uvicorn alone let through, now refused.

Every test drives ``python -m app serve`` on 127.0.0.1 with raw bytes and is bounded in time:
idle and trickling connections, oversized heads (status and server memory), a bearer token sent
only as a chunked trailer, a tokenless client streaming a declared 1 GB body after its 401 (cut off
at the lingering close's byte cap),
``POST /mcp/``, answers from outside the endpoint, ``Upgrade`` on a valid POST, and load shedding
by requests in flight. Each rule has a refusing row and a passing row.
"""

from __future__ import annotations

import json
import resource
import socket
import time
from dataclasses import dataclass
from pathlib import Path

import orjson
import pytest

from app.http.protocol import SILENT_FACTOR
from tests.privacy_plugin import ALLOWED_KEYS, record_lines, remember

from .asgi import RealServer, http_exchange, read_response

PING = b'{"jsonrpc":"2.0","id":1,"method":"ping"}'
PONG = b'{"jsonrpc":"2.0","id":1,"result":{}}'
HEAD_TIMEOUT = 1.0  # the deadline of the `deadline_server`
MARGIN = 2.5  # scheduling slack on a shared machine

pytestmark = pytest.mark.network


def _started(**env: str):
    server = RealServer(**env)
    remember(server.token)
    server.__enter__()
    return server


def _stopped(server: RealServer) -> None:
    try:
        server.stop()
        lines = server.log_lines()
        record_lines(lines)  # the session-wide privacy audit sees the subprocess' log too
        for line in lines:
            assert set(json.loads(line)) <= ALLOWED_KEYS
        stderr = server.stderr_text()
        assert "Traceback" not in stderr and server.token not in stderr
    finally:
        server.cleanup()


@pytest.fixture(scope="module")
def server():
    server = _started()
    yield server
    _stopped(server)


@pytest.fixture(scope="module")
def deadline_server():
    server = _started(ROUTER_HEADER_TIMEOUT_SECONDS=str(HEAD_TIMEOUT))
    yield server
    _stopped(server)


def connect(server: RealServer, timeout: float = 5.0) -> socket.socket:
    return socket.create_connection(("127.0.0.1", server.port), timeout=timeout)


def head(server: RealServer, *lines: bytes, path: bytes = b"/mcp", token: bool = True, length: int | None = len(PING)) -> bytes:
    out = b"POST " + path + b" HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
    if token:
        out += b"Authorization: Bearer " + server.token.encode() + b"\r\n"
    if length is not None:
        out += b"Content-Length: %d\r\n" % length
    return out + b"".join(line + b"\r\n" for line in lines) + b"\r\n"


def closed_within(sock: socket.socket, seconds: float) -> float | None:
    """Seconds until the server closed the connection (EOF or reset), or None if it did not."""
    started = time.monotonic()
    sock.settimeout(0.1)
    while time.monotonic() - started < seconds:
        try:
            if sock.recv(65536) == b"":
                return time.monotonic() - started
        except TimeoutError:
            continue
        except (ConnectionResetError, BrokenPipeError):
            return time.monotonic() - started
    return None


def rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise AssertionError("no VmRSS")


def logged(server: RealServer, rid: bytes) -> list[dict]:
    return [line for line in map(json.loads, server.log_lines()) if line.get("request_id") == rid.decode()]


def check_json_answer(server: RealServer, status: int, headers: dict, body: bytes, expected: int) -> None:
    """JSON, an X-Request-ID, and exactly one log line with that id and status."""
    assert status == expected, body[:200]
    assert headers[b"content-type"] == b"application/json"
    assert isinstance(orjson.loads(body), dict)
    rid = headers[b"x-request-id"]
    deadline = time.monotonic() + 2
    while not logged(server, rid) and time.monotonic() < deadline:
        time.sleep(0.02)
    lines = logged(server, rid)
    assert len(lines) == 1 and lines[0]["status"] == expected, lines


# ---------------------------------------------------------------------------------------------
# Point 2: idle connections cost nothing
# ---------------------------------------------------------------------------------------------

IDLE = 1_100


def test_1100_idle_connections_do_not_turn_a_ping_into_a_503(server):
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < IDLE + 200:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, 4 * IDLE), hard))
    idle = []
    try:
        for i in range(IDLE):
            sock = connect(server)
            if i % 2:
                sock.sendall(b"P")  # a head begun, one byte of it
            idle.append(sock)
        time.sleep(0.3)
        started = time.monotonic()
        status, _, body = server.post(PING)
        elapsed_ms = (time.monotonic() - started) * 1000
    finally:
        for sock in idle:
            sock.close()
    print(f"{IDLE} idle connections open: ping {status} in {elapsed_ms:.1f} ms")
    assert (status, body) == (200, PONG), (status, body[:200])


def test_load_shedding_counts_requests_in_flight_not_sockets(tmp_path):
    """ROUTER_MAX_CONNECTIONS=2: five idle sockets change nothing; two requests waiting for their
    bodies make the third a 503 (JSON, request id, Connection: close); then capacity returns."""
    shed = _started(ROUTER_MAX_CONNECTIONS="2")
    held = []
    try:
        held = [connect(shed) for _ in range(5)]
        status, _, body = shed.post(PING)
        assert (status, body) == (200, PONG)  # passing row: idle sockets are not requests

        in_flight = [connect(shed) for _ in range(2)]
        held += in_flight
        for sock in in_flight:
            sock.sendall(head(shed) + PING[:10])
        time.sleep(0.3)
        status, headers, body = http_exchange(shed.port, head(shed, b"X-Request-ID: shed-1") + PING)
        check_json_answer(shed, status, headers, body, 503)  # refusing row
        assert headers[b"connection"] == b"close" and headers[b"x-request-id"] == b"shed-1"

        for sock in in_flight:
            sock.sendall(PING[10:])
            assert read_response(sock, 5)[0] == 200
        status, _, body = shed.post(PING)
        assert (status, body) == (200, PONG)
    finally:
        for sock in held:
            sock.close()
        _stopped(shed)


@dataclass(frozen=True)
class Trickle:
    id: str
    pieces: list[bytes]
    pause: float
    served: bool
    deadlines: int = 1  # head deadlines before the close: a socket that sends nothing gets SILENT_FACTOR


def _trickles(token: bytes) -> list[Trickle]:
    complete = (b"POST /mcp HTTP/1.1\r\nHost: t\r\nAuthorization: Bearer " + token
                + b"\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n" % len(PING))
    return [
        Trickle("sends nothing", [], 0.0, served=False, deadlines=SILENT_FACTOR),
        Trickle("a head one byte every 0.1 s", [complete[i:i + 1] for i in range(len(complete))], 0.1, served=False),
        Trickle("a head in three pieces within the deadline", [complete[:20], complete[20:60], complete[60:] + PING], 0.2,
                served=True),
    ]


@pytest.mark.parametrize("row", range(3), ids=[t.id for t in _trickles(b"")])
def test_request_head_deadline(deadline_server, row):
    trickle = _trickles(deadline_server.token.encode())[row]
    with connect(deadline_server) as sock:
        started = time.monotonic()
        answer = b""
        sock.settimeout(trickle.pause or 0.1)
        try:
            for piece in trickle.pieces:
                sock.sendall(piece)
                try:
                    answer += sock.recv(65536)
                except TimeoutError:
                    pass
                if answer or time.monotonic() - started > HEAD_TIMEOUT + MARGIN:
                    break
        except (BrokenPipeError, ConnectionResetError):
            pass
        if trickle.served:
            if not answer.endswith(PONG):
                sock.settimeout(5)
                answer += sock.recv(65536)
            assert answer.startswith(b"HTTP/1.1 200 ") and answer.endswith(PONG)
            return
        deadline = HEAD_TIMEOUT * trickle.deadlines
        closed = closed_within(sock, deadline + MARGIN - (time.monotonic() - started))
        elapsed = time.monotonic() - started
    assert closed is not None, f"connection still open {elapsed:.1f} s after a {deadline} s deadline"
    assert elapsed >= deadline - 0.2
    assert answer == b"" or answer.startswith(b"HTTP/1.1 408 "), answer[:100]
    print(f"{trickle.id}: closed after {elapsed:.2f} s")


# ---------------------------------------------------------------------------------------------
# Point 3: bounded heads
# ---------------------------------------------------------------------------------------------

HEADS = {
    # id: (extra header lines, request path, expected status)
    "90 headers are served": ([b"X-N%d: v" % i for i in range(90)], b"/mcp", 200),
    "101 headers are 431": ([b"X-N%d: v" % i for i in range(101)], b"/mcp", 431),
    "a 7,000-byte header line is served": ([b"X-Big: " + b"a" * 7_000], b"/mcp", 200),
    "a 9,000-byte header line is 431": ([b"X-Big: " + b"a" * 9_000], b"/mcp", 431),
    "30 KiB of head is served": ([b"X-B%d: " % i + b"a" * 3_000 for i in range(10)], b"/mcp", 200),
    "40 KiB of head is 431": ([b"X-B%d: " % i + b"a" * 4_000 for i in range(10)], b"/mcp", 431),
    "a 9,000-byte request target is 414": ([], b"/mcp?" + b"q" * 9_000, 414),
}


@pytest.mark.parametrize("name", list(HEADS))
def test_head_caps(server, name):
    lines, path, expected = HEADS[name]
    raw = head(server, *lines, b"X-Request-ID: caps-%d" % list(HEADS).index(name), path=path) + PING
    with connect(server) as sock:
        sock.sendall(raw)
        status, headers, body = read_response(sock, 5)
        if expected == 200:
            assert (status, body) == (200, PONG)
            return
        check_json_answer(server, status, headers, body, expected)
        assert headers[b"connection"] == b"close"
        assert closed_within(sock, 2) is not None


GROWTH_LIMIT_KIB = 8 * 1024  # "a few MiB"
ABORT_KIB = 128 * 1024  # stop early (and fail) instead of taking the machine's memory


SHAPES = {
    # id: (start of the request, piece repeated up to 25 MiB)
    "one endless header line": (lambda server: b"POST /mcp HTTP/1.1\r\nHost: t\r\nX-Pad: ", b"a" * 65_536),
    "endless small headers": (lambda server: b"POST /mcp HTTP/1.1\r\n", b"X-Pad: v\r\n" * 6_554),
    "one endless trailer field": (lambda server: head(server, b"Transfer-Encoding: chunked", length=None)
                                  + b"4\r\nping\r\n0\r\nX-Trailer: ", b"a" * 65_536),
}


@pytest.mark.parametrize("shape", list(SHAPES))
def test_unfinished_heads_keep_memory_bounded(server, shape):
    """10 connections × 25 MiB of a head (or a trailer) that never ends: the server's RSS may not
    grow by more than a few MiB (uvicorn alone went from 67 MiB to 2.5 GiB)."""
    make_start, piece = SHAPES[shape]
    start = make_start(server)
    pid = server.process.pid
    before = rss_kib(pid)
    peak = before
    socks, sent = [], 0
    try:
        for _ in range(10):
            sock = connect(server)
            socks.append(sock)
            try:
                sock.sendall(start)
                for _ in range(25 * 1024 * 1024 // len(piece)):
                    sock.sendall(piece)
                    sent += len(piece)
                    if sent % (1024 * 1024) < len(piece):
                        peak = max(peak, rss_kib(pid))
                        assert peak - before < ABORT_KIB, f"RSS grew by {(peak - before) / 1024:.0f} MiB; stopped early"
            except (TimeoutError, BrokenPipeError, ConnectionResetError):
                pass  # refused: the server closed this connection
        time.sleep(0.5)
        peak = max(peak, rss_kib(pid))
    finally:
        for sock in socks:
            sock.close()
    growth = peak - before
    print(f"{shape}: {sent / 2**20:.1f} MiB accepted by the socket, RSS {before / 1024:.1f} → peak "
          f"{peak / 1024:.1f} MiB (+{growth / 1024:.1f} MiB)")
    assert growth < GROWTH_LIMIT_KIB
    status, _, body = server.post(PING)
    assert (status, body) == (200, PONG)


# ---------------------------------------------------------------------------------------------
# Point 4: trailers are never headers
# ---------------------------------------------------------------------------------------------

def chunked(body: bytes, trailers: list[bytes]) -> bytes:
    return b"%x\r\n" % len(body) + body + b"\r\n0\r\n" + b"".join(t + b"\r\n" for t in trailers) + b"\r\n"


def test_a_token_sent_only_as_a_trailer_does_not_authenticate(server):
    trailers = [b"Authorization: Bearer " + server.token.encode(), b"X-Request-ID: from-a-trailer"]
    raw = head(server, b"Transfer-Encoding: chunked", token=False, length=None) + chunked(PING, trailers)
    statuses, echoed = [], 0
    for _ in range(5):
        status, headers, _ = http_exchange(server.port, raw)  # the whole request in one write
        statuses.append(status)
        echoed += headers[b"x-request-id"] == b"from-a-trailer"
    print(f"trailer-only token: authenticated {statuses.count(200)}/5, trailer request id echoed {echoed}/5")
    assert statuses == [401] * 5 and echoed == 0


def test_a_request_with_trailers_is_served_and_the_trailers_ignored(server):
    trailers = [b"Origin: https://evil.example", b"Content-Type: text/plain"]  # would be a 403 / 415 as headers
    raw = head(server, b"Transfer-Encoding: chunked", length=None) + chunked(PING, trailers)
    status, _, body = http_exchange(server.port, raw)
    assert (status, body) == (200, PONG)


# ---------------------------------------------------------------------------------------------
# After a 401 / 403 / 413 the connection is closed: the rest of the body is drained for a bounded
# size (tests/http/test_lingering_close.py), then the client is cut off
# ---------------------------------------------------------------------------------------------

REFUSALS = {
    "401 without a token": ({"token": False}, [], 401),
    "403 with an Origin": ({}, [b"Origin: https://evil.example"], 403),
    "413 by Content-Length": ({}, [], 413),
}


@pytest.mark.parametrize("name", list(REFUSALS))
def test_a_refused_client_cannot_keep_streaming_its_body(server, name):
    options, lines, expected = REFUSALS[name]
    with connect(server) as sock:
        sock.sendall(head(server, *lines, length=1_000_000_000, **options))
        status, headers, _ = read_response(sock, 5)
        sock.settimeout(0.5)
        started, sent = time.monotonic(), 0
        try:
            while time.monotonic() - started < 3 and sent < 512 * 1024 * 1024:
                sock.sendall(b" " * 65_536)
                sent += 65_536
            cut_off = False
        except (TimeoutError, BrokenPipeError, ConnectionResetError):
            cut_off = True
    print(f"{name}: {sent / 2**20:.1f} MiB of body accepted after the answer, then cut off: {cut_off}")
    assert status == expected and headers.get(b"connection") == b"close"
    assert cut_off, f"the server kept reading the body ({sent / 2**20:.0f} MiB in 3 s)"


def test_a_served_request_keeps_the_connection(server):
    with connect(server) as sock:
        for _ in range(2):
            sock.sendall(head(server) + PING)
            status, headers, body = read_response(sock, 5)
            assert (status, body) == (200, PONG) and headers.get(b"connection") != b"close"


# ---------------------------------------------------------------------------------------------
# Point 6: no slash redirect; every answer JSON with a request id and one log line; Upgrade
# ---------------------------------------------------------------------------------------------

def test_post_mcp_slash_is_not_redirected_to_the_host_header(server):
    raw = head(server, path=b"/mcp/").replace(b"Host: 127.0.0.1", b"Host: evil.example") + PING
    status, headers, body = http_exchange(server.port, raw)
    assert b"location" not in headers
    check_json_answer(server, status, headers, body, 404)


OUTSIDE = {
    "GET of an unknown path is 404": (b"GET /admin HTTP/1.1\r\nHost: t\r\n\r\n", 404),
    "POST /health is 405": (b"POST /health HTTP/1.1\r\nHost: t\r\nContent-Length: 0\r\n\r\n", 405),
    "a request line that is not HTTP is 400": (b"GARBAGE\r\n\r\n", 400),
    "a bare LF inside a header is 400": (b"GET /health HTTP/1.1\r\nHost: t\r\nX-A: a\nb\r\n\r\n", 400),
    "GET /health is 200": (b"GET /health HTTP/1.1\r\nHost: t\r\n\r\n", 200),
    "GET /ready is 200": (b"GET /ready HTTP/1.1\r\nHost: t\r\n\r\n", 200),
}


@pytest.mark.parametrize("name", list(OUTSIDE))
def test_answers_outside_the_endpoint_are_json_with_a_request_id_and_a_log_line(server, name):
    raw, expected = OUTSIDE[name]
    status, headers, body = http_exchange(server.port, raw)
    check_json_answer(server, status, headers, body, expected)


UPGRADES = {
    "h2c with Content-Length": [b"Connection: Upgrade, HTTP2-Settings", b"Upgrade: h2c", b"HTTP2-Settings: AAMAAABkAARAAAAAAAIAAAAA"],
    "websocket with Content-Length": [b"Connection: upgrade", b"Upgrade: websocket"],
    "Upgrade without Connection: upgrade": [b"Upgrade: h2c"],
}


@pytest.mark.parametrize("name", list(UPGRADES))
def test_upgrade_is_ignored_and_the_body_read(server, name):
    status, _, body = http_exchange(server.port, head(server, *UPGRADES[name]) + PING)
    assert (status, body) == (200, PONG)


def test_upgrade_with_a_chunked_body_is_ignored_and_the_body_read(server):
    raw = head(server, b"Connection: Upgrade", b"Upgrade: h2c", b"Transfer-Encoding: chunked", length=None)
    with connect(server) as sock:
        sock.sendall(raw)
        time.sleep(0.1)  # the body in a later read than the head
        sock.sendall(chunked(PING, []))
        status, headers, body = read_response(sock, 5)
    assert (status, body) == (200, PONG)
    assert headers[b"connection"] == b"close"  # served as plain HTTP/1.1, then closed


def test_upgrade_leaves_no_warning_on_stderr(server):
    http_exchange(server.port, head(server, *UPGRADES["h2c with Content-Length"]) + PING)
    time.sleep(0.2)
    assert "upgrade" not in server.stderr_text().lower()

