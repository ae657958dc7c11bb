"""Refusals reach the client (issue 22): a close after an answer lingers, the way nginx's does.

A client still sending its body when the server answers 401 / 403 / 413 and closes got a TCP
reset instead of the answer (the unread bytes make the kernel reset the connection, and the reset
discards what the client had not read yet). Every test here uses raw sockets, so the client keeps
sending exactly as a naive uploader does, and always reads the status.

* a 2 MB chunked body sent in full before the client reads (the naive uploader);
* a declared 1 GB body streamed while the client watches for the answer: the server drains while
  the client sends (well more than the kernel's socket buffers pass after the answer), the client
  stops after 12 MiB, half-closes and reads the answer to its end — no reset, never the 1 GB;
* a client that never stops sending is cut off at the byte cap, one that trickles at the total
  time, one that goes quiet at the time between reads — and the service serves others meanwhile;
* at most ``max_requests_in_flight`` connections linger; past that a refusal closes at once.

401, 403 and 413 close the connection; 415 keeps it, and its close at the body's wire budget
lingers the same way.
"""

from __future__ import annotations

import asyncio
import json
import secrets
import select
import socket
import threading
import time
from dataclasses import dataclass

import pytest
import uvicorn

from app.http.app import create_app
from app.http.observe import Observer
from app.http.protocol import ConnectionLimits, protocol_class
from app.http.serve import UVICORN_OPTIONS
from app.router import Limits, Router, load_policy
from tests.privacy_plugin import ALLOWED_KEYS, record_lines, remember

from .asgi import RealServer, free_port, read_response

PING = b'{"jsonrpc":"2.0","id":1,"method":"ping"}'
PONG = b'{"jsonrpc":"2.0","id":1,"result":{}}'
REPEATS = 20
PIECE = b" " * 65_536
UPLOAD = 2 * 1000 * 1000  # "a 2 MB chunked upload"
STREAMED_AFTER = 12 * 1024 * 1024  # well past loopback's socket buffers, under the 16 MiB byte cap
CAP = ConnectionLimits().linger_max_bytes

pytestmark = pytest.mark.network


@pytest.fixture(scope="module")
def server():
    server = RealServer()
    remember(server.token)
    server.__enter__()
    yield server
    try:
        server.stop()
        lines = server.log_lines()
        record_lines(lines)
        for line in lines:
            assert set(json.loads(line)) <= ALLOWED_KEYS
        assert "Traceback" not in server.stderr_text()
    finally:
        server.cleanup()


@dataclass(frozen=True)
class Refusal:
    id: str
    status: int
    token: bool = True
    origin: bool = False
    content_type: bytes = b"application/json"


REFUSALS = [
    Refusal("401 without a token", 401, token=False),
    Refusal("403 for an Origin", 403, origin=True),
    Refusal("413 for the size", 413),
    # Answered with the connection kept: the body is read on, and the close at the wire budget lingers.
    Refusal("415 for the media type", 415, content_type=b"text/plain"),
]


def request_head(server: RealServer, refusal: Refusal, framing: bytes) -> bytes:
    out = b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: " + refusal.content_type + b"\r\n" + framing + b"\r\n"
    if refusal.token:
        out += b"Authorization: Bearer " + server.token.encode() + b"\r\n"
    if refusal.origin:
        out += b"Origin: https://evil.example\r\n"
    return out + b"\r\n"


def read_to_end(sock: socket.socket, timeout: float) -> bytes:
    """Everything the server sends until its end of stream; a reset raises (the failure shown)."""
    sock.settimeout(timeout)
    data = b""
    while chunk := sock.recv(65_536):
        data += chunk
    return data


def status_of(answer: bytes) -> int:
    assert answer.startswith(b"HTTP/1.1 "), answer[:100]
    return int(answer.split(b" ", 2)[1])


@pytest.mark.parametrize("refusal", REFUSALS, ids=[r.id for r in REFUSALS])
def test_a_2_mb_chunked_upload_sent_in_full_reads_its_refusal(server, refusal):
    chunk = b"%x\r\n" % len(PIECE) + PIECE + b"\r\n"
    body = chunk * (UPLOAD // len(PIECE)) + b"0\r\n\r\n"
    statuses, lost = [], []
    for _ in range(REPEATS):
        with socket.create_connection(("127.0.0.1", server.port), timeout=10) as sock:
            try:
                sock.sendall(request_head(server, refusal, b"Transfer-Encoding: chunked") + body)
                statuses.append(status_of(read_to_end(sock, 10)))
            except OSError as exc:
                lost.append(type(exc).__name__)
    print(f"{refusal.id}, 2 MB chunked: {statuses.count(refusal.status)}/{REPEATS} got it, lost {lost}")
    assert statuses == [refusal.status] * REPEATS and not lost


@pytest.mark.parametrize("refusal", REFUSALS, ids=[r.id for r in REFUSALS])
def test_a_declared_1_gb_body_streamed_past_the_refusal_reads_it(server, refusal):
    head = request_head(server, refusal, b"Content-Length: 1000000000")
    outcomes, sent_after = [], []
    for _ in range(REPEATS):
        with socket.create_connection(("127.0.0.1", server.port), timeout=10) as sock:
            sock.sendall(head)
            sent, answer, answered_at = 0, b"", None
            started = time.monotonic()
            try:
                # Keep sending the whole time; read whatever the server has answered so far.
                while sent - (answered_at or sent) < STREAMED_AFTER and time.monotonic() - started < 10:
                    sock.sendall(PIECE)
                    sent += len(PIECE)
                    if select.select([sock], [], [], 0)[0]:
                        answer += sock.recv(65_536)
                        if answered_at is None and b"\r\n\r\n" in answer:
                            answered_at = sent
                sock.shutdown(socket.SHUT_WR)
                answer += read_to_end(sock, 10)
                outcomes.append(status_of(answer))
            except OSError as exc:
                outcomes.append(type(exc).__name__)
            sent_after.append((sent - (answered_at or sent)) / 2**20)
    print(f"{refusal.id}, 1 GB declared: {outcomes.count(refusal.status)}/{REPEATS} got it; "
          f"MiB streamed after the answer, min {min(sent_after):.1f}")
    assert outcomes == [refusal.status] * REPEATS
    assert min(sent_after) >= STREAMED_AFTER / 2**20  # the server drained while the client sent


def test_a_client_that_never_stops_sending_is_cut_off_at_the_byte_cap(server):
    with socket.create_connection(("127.0.0.1", server.port), timeout=10) as sock:
        sock.sendall(request_head(server, REFUSALS[0], b"Content-Length: 1000000000"))
        answer = sock.recv(65_536)
        sent, cut_off = 0, False
        served_meanwhile = None
        started = time.monotonic()
        sock.settimeout(2)
        try:
            while sent < 4 * CAP and time.monotonic() - started < 10:
                sock.sendall(PIECE)
                sent += len(PIECE)
                if served_meanwhile is None and sent >= CAP // 2:
                    served_meanwhile = server.post(PING)[::2]
        except (BrokenPipeError, ConnectionResetError, TimeoutError):
            cut_off = True
    print(f"never stops: cut off {cut_off} after {sent / 2**20:.1f} MiB (cap {CAP / 2**20:.0f} MiB), "
          f"{time.monotonic() - started:.2f} s")
    assert status_of(answer) == 401
    assert cut_off and sent < CAP + 16 * 1024 * 1024  # the cap, plus what the socket buffers hold
    assert served_meanwhile == (200, PONG)
    assert server.post(PING)[::2] == (200, PONG)


# -- time limits: an in-process server with short ones (the defaults are nginx's 5 s and 30 s) ---

SHORT = ConnectionLimits(linger_read_seconds=0.5, linger_total_seconds=1.5)
MARGIN = 2.0  # scheduling slack on a shared machine


class ThreadServer:
    """uvicorn with the service's app and protocol (``SHORT`` limits by default) in a thread of this process;
    ``lingering`` is the protocol's own set of lingering connections, watched by the tests."""

    def __init__(self, token: str, limits: ConnectionLimits = SHORT):
        app = create_app(Router(load_policy(), Limits()), [token.encode()])
        self.port = free_port()
        protocol = protocol_class(limits, Observer())
        self.lingering = protocol.lingering
        config = uvicorn.Config(app, host="127.0.0.1", port=self.port, **{
            **UVICORN_OPTIONS, "http": protocol, "log_level": "critical"})
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, daemon=True)

    def __enter__(self) -> "ThreadServer":
        self.thread.start()
        deadline = time.monotonic() + 20
        while not self.server.started:
            assert time.monotonic() < deadline and self.thread.is_alive(), "in-process server did not start"
            time.sleep(0.02)
        return self

    def __exit__(self, *exc) -> None:
        self.server.should_exit = True
        self.thread.join(15)


@pytest.fixture(scope="module")
def short():
    with ThreadServer(secrets.token_urlsafe(32)) as server:
        yield server


REFUSED_HEAD = b"POST /mcp HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\nContent-Length: 1000000000\r\n\r\n"


def trickle(sock: socket.socket) -> None:
    """One KiB every 0.1 s (a send error once the server has closed ends the sending)."""
    try:
        sock.sendall(b" " * 1024)
    except OSError:
        pass


def go_quiet(sock: socket.socket) -> None:
    """Nothing more, and no close."""


@pytest.mark.parametrize(("keep_sending", "low", "high"), [
    (trickle, SHORT.linger_total_seconds, SHORT.linger_total_seconds + MARGIN),
    (go_quiet, SHORT.linger_read_seconds, SHORT.linger_read_seconds + MARGIN),
], ids=["a trickle is cut at the total time", "a quiet client is closed at the time between reads"])
def test_lingering_is_bounded_in_time(short, keep_sending, low, high):
    """A tokenless POST declaring 1 GB: its 401, then the client trickles or goes quiet; the
    connection leaves the server's lingering set (it is closed) at the bound, not before."""
    with socket.create_connection(("127.0.0.1", short.port), timeout=10) as sock:
        sock.sendall(REFUSED_HEAD)
        status, _, _ = read_response(sock, 10)
        answered = time.monotonic()
        assert len(short.lingering) == 1  # linger() runs right after the answer is written
        while short.lingering and time.monotonic() - answered < high + MARGIN:
            keep_sending(sock)
            time.sleep(0.1)
        closed_after = time.monotonic() - answered
    print(f"{keep_sending.__name__}: closed {closed_after:.2f} s after the answer")
    assert status == 401
    assert low - 0.1 <= closed_after <= high


def accepts_more(sock: socket.socket) -> bool:
    """Whether the server still reads this connection: bytes sent to a closed socket come back as a
    reset, which the next send reports; a lingering one discards them."""
    try:
        sock.sendall(b" " * 1024)
        time.sleep(0.2)
        sock.sendall(b" " * 1024)
        return True
    except (BrokenPipeError, ConnectionResetError):
        return False


def test_lingering_connections_are_bounded_by_the_requests_in_flight_limit():
    """ROUTER_MAX_CONNECTIONS=2: two refused clients that go quiet linger; a third refusal is
    answered and closed at once (its client still reads the status), and a request is served."""
    token = secrets.token_urlsafe(32)
    with ThreadServer(token, ConnectionLimits(max_requests_in_flight=2, linger_read_seconds=5.0)) as server:
        socks = [socket.create_connection(("127.0.0.1", server.port), timeout=10) for _ in range(3)]
        try:
            statuses = []
            for sock in socks:
                sock.sendall(REFUSED_HEAD)
                statuses.append(read_response(sock, 10)[0])
            lingering = len(server.lingering)
            still_read = [accepts_more(sock) for sock in socks]
            with socket.create_connection(("127.0.0.1", server.port), timeout=10) as sock:
                sock.sendall(b"POST /mcp HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\nAuthorization: Bearer "
                             + token.encode() + b"\r\nContent-Length: %d\r\n\r\n" % len(PING) + PING)
                served = read_response(sock, 10)
        finally:
            for sock in socks:
                sock.close()
    assert statuses == [401, 401, 401]
    assert lingering == 2 and still_read == [True, True, False]
    assert (served[0], served[2]) == (200, PONG)


# -- a body beyond the wire budget, in process: two reads before the app runs ---------------------

class FakeTransport:
    """An asyncio transport that keeps what is written and whether it was half- or fully closed."""

    def __init__(self) -> None:
        self.written = b""
        self.eof = self.closed = self.paused = False

    def write(self, data: bytes) -> None:
        assert not self.eof, "written after the half-close"
        self.written += data

    def write_eof(self) -> None:
        self.eof = True

    def can_write_eof(self) -> bool:
        return True

    def close(self) -> None:
        self.closed = True

    def is_closing(self) -> bool:
        return self.closed

    def pause_reading(self) -> None:
        self.paused = True

    def resume_reading(self) -> None:
        self.paused = False

    def get_extra_info(self, name, default=None):
        return {"sockname": ("127.0.0.1", 8000), "peername": ("127.0.0.1", 50000)}.get(name, default)


def _chunk(data: bytes) -> bytes:
    return b"%x\r\n" % len(data) + data + b"\r\n"


@dataclass(frozen=True)
class TwoReads:
    id: str
    content_type: bytes
    first: bytes  # after the head, in the head's read
    second: bytes  # the next read, which takes the body past the wire budget
    answer: int | None  # None: closed unanswered
    lingers: bool


TWO_READS = [
    TwoReads("a body past the limit: the 413 first, then the lingering close", b"application/json",
             _chunk(b" " * 65_536), _chunk(b" " * 150_000), 413, lingers=True),
    TwoReads("a 415 kept the connection: answered, then the lingering close", b"text/plain",
             _chunk(b" " * 65_536), _chunk(b" " * 150_000), 415, lingers=True),
    TwoReads("framing beyond any honest body (a small body, an endless trailer): closed unanswered",
             b"application/json", _chunk(PING) + b"0\r\nX-Trailer: ", b"a" * 200_000, None, lingers=False),
]


@pytest.mark.parametrize("row", TWO_READS, ids=[r.id for r in TWO_READS])
def test_a_body_beyond_the_wire_budget_before_the_app_ran(row):
    token = secrets.token_urlsafe(32)

    async def drive():
        from uvicorn.server import ServerState

        app = create_app(Router(load_policy(), Limits()), [token.encode()])
        protocol_cls = protocol_class(ConnectionLimits(), Observer())
        config = uvicorn.Config(app, **{**UVICORN_OPTIONS, "http": protocol_cls, "lifespan": "off"})
        config.load()
        state = ServerState()
        protocol = config.http_protocol_class(config=config, server_state=state, app_state={},
                                              _loop=asyncio.get_running_loop())
        transport = FakeTransport()
        protocol.connection_made(transport)
        protocol.data_received(b"POST /mcp HTTP/1.1\r\nHost: t\r\nContent-Type: " + row.content_type
                               + b"\r\nAuthorization: Bearer " + token.encode()
                               + b"\r\nTransfer-Encoding: chunked\r\n\r\n" + row.first)
        protocol.data_received(row.second)
        for _ in range(20):  # the app's task: it answers at once, or waits for a body that never comes
            await asyncio.sleep(0)
        outcome = (transport.written, transport.closed, transport.eof, protocol in protocol_cls.lingering)
        protocol.connection_lost(None)
        return outcome

    written, closed, half_closed, lingering = asyncio.run(drive())
    if row.answer is None:
        assert written == b"" and closed
    else:
        assert written.startswith(b"HTTP/1.1 %d " % row.answer), written[:100]
        assert not closed
    assert lingering is row.lingers and half_closed is row.lingers
