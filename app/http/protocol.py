"""uvicorn's httptools protocol with the connection-level limits uvicorn does not have (issue 11).

* **Head deadline.** A request head not complete within ``head_timeout_seconds`` of its first byte
  closes the connection (a head one byte at a time is dropped instead of held forever); a socket
  that sends nothing at all is closed after ``SILENT_FACTOR`` deadlines of its opening. One lazy timer per connection, re-armed only
  when it fires, so a request costs a timestamp, not a timer.
* **Bounded heads.** At most ``max_headers`` fields, ``max_line_bytes`` per field or request line,
  ``max_head_bytes`` in all → 431 (414 for the request line), then close. httptools buffers a
  field until it is complete, so raw bytes received while a head is pending are counted too: what
  a connection can make the process hold is bounded by ``max_head_bytes`` plus one read.
* **Load shedding counts requests in flight** (uvicorn's ``limit_concurrency`` also counts open
  sockets, so idle connections turned every real request into a 503).
* **Trailers are ignored.** uvicorn appends chunked-body trailer fields to ``scope["headers"]``; a
  bearer token sent only as a trailer authenticated. A body's bytes on the wire (chunk framing and
  trailers included) may exceed ``max_body_bytes`` by at most ``max_head_bytes``, else the
  parser is fed no more (``_beyond_wire_budget``), so trailers cannot grow httptools' buffers.
* **Upgrade is ignored.** llhttp stops parsing at the head of a request with ``Connection:
  upgrade`` (httptools makes it skip the body), so the body never reached the app. Here the body is
  parsed by a second parser from the same framing headers, the request is served as plain
  HTTP/1.1, and the connection is closed after the answer (what followed the body is not parsed).
* **A close after an answer lingers** (nginx's ``lingering_close``, issue 22). Closing a socket
  with unread bytes in it makes the kernel reset the connection, and the reset discards what the
  client had not read yet: a client still sending its body when it was refused (401, 403, 413)
  saw "connection reset" instead of the status. So every close that follows an answer (the app's
  ``Connection: close``, a refusal written here, a body beyond the wire budget once answered)
  writes the answer, half-closes (shutdown of the write side), and reads and discards what still
  comes — never parsed, never buffered — until the client closes, ``linger_read_seconds`` pass
  without a byte (nginx's ``lingering_timeout``, 5 s), ``linger_total_seconds`` in all
  (``lingering_time``, 30 s) or ``linger_max_bytes`` were discarded. Lingering connections stay
  counted in uvicorn's open connections (a graceful shutdown closes them at once) and are at most
  ``max_requests_in_flight`` at a time, past which a close is immediate again: an unauthenticated
  client can hold a socket for 30 s but cannot turn real requests into 503s.
* Every answer written here (400, 414, 431, 408, 503) is JSON with an ``X-Request-ID`` and one log
  line, like the app's own answers.

The uvicorn internals this relies on are checked by tests/http/test_protocol_internals.py, and the
uvicorn versions it was tested with are pinned in pyproject.toml. One module over the usual ~400
lines: every limit above overrides the same uvicorn class and shares its per-connection state.
"""

from __future__ import annotations

import http
from dataclasses import dataclass

import httptools
import orjson
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from . import guards
from .observe import Observer


# A connection that has sent nothing at all is closed after this many head deadlines (60 s by
# default, nginx's client_header_timeout), not after one: a pooled HTTP client may open a socket
# well before it writes on it, and a starved client (seen under CPU load in the evaluation: the
# official MCP client's pool) then found its fresh connection closed under its first request. A
# head that has begun still gets one deadline; an idle socket still costs no 503 (load shedding
# counts requests in flight) and is still closed.
SILENT_FACTOR = 6


@dataclass(frozen=True, slots=True)
class ConnectionLimits:
    head_timeout_seconds: float = 10.0
    max_headers: int = 100
    max_line_bytes: int = 8_192
    max_head_bytes: int = 32_768
    max_requests_in_flight: int = 1_024
    max_body_bytes: int = 65_536
    # nginx's lingering_timeout and lingering_time. The byte cap is the largest body limit an
    # operator can set (ROUTER_MCP_MAX_BODY_BYTES ≤ 16 MiB): a client that sends such a body whole
    # before reading still gets its answer, and draining it costs a few milliseconds of reads.
    linger_read_seconds: float = 5.0
    linger_total_seconds: float = 30.0
    linger_max_bytes: int = 16 * 1024 * 1024


def _error(kind: str, message: str) -> bytes:
    return orjson.dumps({"error": kind, "message": message})


# status → (outcome logged, constant body): none depends on the request.
_REFUSALS = {
    400: ("bad_request", _error("bad_request", "the request is not valid HTTP/1.1")),
    408: ("header_timeout", _error("request_timeout", "the request head did not arrive in time")),
    414: ("uri_too_long", _error("uri_too_long", "the request line exceeds the size limit")),
    431: ("headers_too_large", _error("headers_too_large", "the request head exceeds the size or count limit")),
    503: ("overloaded", _error("overloaded", "too many requests in flight; retry shortly")),
}


class _Refused(Exception):
    """Raised inside a parser callback to stop parsing; the status is kept on the protocol."""


class ShedApp:
    """The app a request gets when too many are in flight: 503 JSON, Connection: close."""

    def __init__(self, observer: Observer):
        self.observer = observer

    async def __call__(self, scope, receive, send) -> None:
        rid = guards.request_id(scope["headers"])
        outcome, body = _REFUSALS[503]
        await send({"type": "http.response.start", "status": 503, "headers": [
            (b"content-type", b"application/json"), (b"x-request-id", rid.encode()),
            (b"content-length", str(len(body)).encode()), (b"retry-after", b"1"), (b"connection", b"close"),
        ]})
        await send({"type": "http.response.body", "body": body})
        self.observer.request(rid, method=None, tool=None, status=503, outcome=outcome, seconds=0.0)


class _BodySink:
    """Parses the body of a request whose head asked for an Upgrade, from its own framing headers.

    The first parser has stopped at that head; this one is primed with a synthetic head carrying
    the same Content-Length / Transfer-Encoding fields and hands the body to the protocol. Nothing
    after the body is delivered (``done``); trailers are ignored (no ``on_header``).
    """

    def __init__(self, protocol: BoundedHttpToolsProtocol, framing: bytes):
        self.protocol = protocol
        self.done = False
        self.parser = httptools.HttpRequestParser(self)
        self.parser.feed_data(b"POST / HTTP/1.1\r\n" + framing + b"\r\n")

    def feed(self, data: bytes) -> None:
        if not self.done:
            self.parser.feed_data(data)

    def on_body(self, body: bytes) -> None:
        if not self.done:
            self.protocol.on_body(body)

    def on_message_complete(self) -> None:
        if not self.done:
            self.done = True
            self.protocol.finish_upgraded_body()


class _CycleTransport:
    """The transport a request's cycle writes through: uvicorn's cycle closes the transport after
    an answer with ``Connection: close``; here that close lingers. ``write`` and ``is_closing``
    are the real transport's bound methods (no extra call on the hot path)."""

    __slots__ = ("close", "write", "is_closing")

    def __init__(self, protocol: BoundedHttpToolsProtocol, transport) -> None:
        self.close = protocol.linger
        self.write = transport.write
        self.is_closing = transport.is_closing


class BoundedHttpToolsProtocol(HttpToolsProtocol):
    """See the module docstring. ``limits``, ``observer``, ``shed_app`` and ``lingering`` (the
    server's lingering connections) are set by ``protocol_class``."""

    limits: ConnectionLimits
    observer: Observer
    shed_app: ShedApp
    lingering: set[BoundedHttpToolsProtocol]

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.limit_concurrency = None  # replaced by the in-flight check in on_headers_complete
        self.served_app = self.app
        limits = self.limits
        self._max_line = limits.max_line_bytes
        self._max_headers = limits.max_headers
        self._max_head = limits.max_head_bytes
        self._max_in_flight = limits.max_requests_in_flight
        # Raw bytes a message body may take on the wire: the body limit plus the head budget for
        # chunk framing and trailers (httptools buffers a trailer field until it is complete).
        self._max_body_wire = limits.max_body_bytes + limits.max_head_bytes
        self._head_since: float | None = None  # loop time a pending head began; None: no head pending
        self._head_bytes = 0  # raw bytes received while a head was pending
        self._body_bytes = 0  # raw bytes received while the current message's body was pending
        self._head_size = 0  # exact size of the header fields parsed so far
        self._silent = True  # nothing received yet on this connection: a timeout closes silently
        self._refusal = 400
        self._sink: _BodySink | None = None
        self._upgraded = False
        self._head_timer = None
        self._parsed_body = 0  # body bytes the parser delivered for the current message
        self._discarding = False  # the parser is fed no more: bytes received are dropped
        self._linger_since: float | None = None  # loop time the lingering close began
        self._linger_last = 0.0  # loop time of the last read while lingering
        self._linger_bytes = 0
        self._linger_timer = None
        self._shutting_down = False

    # -- connection lifecycle ---------------------------------------------------------------

    def connection_made(self, transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._cycle_transport = _CycleTransport(self, transport)
        self._head_since = self.loop.time()
        self._head_timer = self.loop.call_later(self.limits.head_timeout_seconds, self._check_head_deadline)

    def connection_lost(self, exc: Exception | None) -> None:
        if self._head_timer is not None:
            self._head_timer.cancel()
            self._head_timer = None
        if self._linger_since is not None:
            self.lingering.discard(self)
            if self._linger_timer is not None:
                self._linger_timer.cancel()
                self._linger_timer = None
        super().connection_lost(exc)

    def shutdown(self) -> None:
        self._shutting_down = True  # from now on a close is immediate: nothing waits 30 s on a drain
        super().shutdown()

    def _check_head_deadline(self) -> None:
        self._head_timer = None
        if self.transport.is_closing():
            return
        now = self.loop.time()
        since = self._head_since
        timeout = self.limits.head_timeout_seconds * (SILENT_FACTOR if self._silent else 1)
        if since is not None and now - since >= timeout:
            if self._silent:
                self.transport.close()  # an idle socket: nothing was asked, nothing to answer
            else:
                self._refuse(408)
            return
        delay = timeout if since is None else since + timeout - now
        self._head_timer = self.loop.call_later(delay, self._check_head_deadline)

    # -- bytes in ---------------------------------------------------------------------------

    def _in_body(self) -> bool:
        """The current message's head is parsed and its body (or trailers) still pending. uvicorn
        gives each parsed head a cycle holding that head's scope; a new message replaces
        ``self.scope`` at its first byte."""
        cycle = self.cycle
        return cycle is not None and cycle.scope is self.scope and cycle.more_body

    def data_received(self, data: bytes) -> None:
        # uvicorn's data_received, with the byte accounting around the parser and our answers to
        # its errors (JSON, request id, log line) instead of a text/plain 400.
        if self._discarding:
            self._discard(len(data))
            return
        self._unset_keepalive_if_required()
        self._silent = False
        if self._upgraded:
            self._feed_sink(data)
            return
        in_body = self._in_body()
        if in_body:
            self._body_bytes += len(data)
        else:
            if self._head_since is None:
                self._head_since = self.loop.time()
            self._head_bytes += len(data)
        try:
            self.parser.feed_data(data)
        except httptools.HttpParserUpgrade as exc:
            self._upgraded = True
            if self._sink is not None:
                # llhttp skipped the body and uvicorn marked it complete; the app has not run yet
                # (its task only starts when we return): the sink completes the body instead.
                self.cycle.more_body = True
                self.cycle.message_event.clear()
            self._feed_sink(data[exc.args[0]:])
            return
        except httptools.HttpParserError:
            self._refuse(self._refusal)
            return
        if self._head_since is None and (self.cycle is None or self.cycle.scope is not self.scope):
            self._head_since = self.loop.time()  # the next head began in this read
        if self._head_bytes > self._max_head:
            self._refuse(431)
        elif in_body and self._body_bytes > self._max_body_wire and self._in_body():
            self._beyond_wire_budget()

    def _beyond_wire_budget(self) -> None:
        """More body on the wire than any accepted request has. The parser is fed no more. An
        answered request (415 keeps the connection) lingers now; a body already past the limit
        gets the app's refusal first (it needs no more bytes to give one; reading pauses till
        then); anything else is framing or trailers beyond any honest body: closed unanswered."""
        if self.cycle.response_complete:
            self.linger()
        elif self._parsed_body > self.limits.max_body_bytes:
            self._discarding = True
            self.flow.pause_reading()
        else:
            self.transport.close()

    def _feed_sink(self, data: bytes) -> None:
        if self._sink is None or not data:
            return  # an Upgrade without a body: nothing more is read, the connection closes after the answer
        try:
            self._sink.feed(data)
        except httptools.HttpParserError:
            if not self._sink.done:
                self._refuse(400)

    # -- parser callbacks -------------------------------------------------------------------

    def on_header(self, name: bytes, value: bytes) -> None:
        # Called once per field of every request: uvicorn's body is inlined rather than reached
        # through super() (bench/protocol_bench.py); tests/http/test_protocol_internals.py pins
        # what it duplicates.
        cycle = self.cycle
        if cycle is not None and cycle.scope is self.scope:
            return  # a trailer field (this head is already parsed): never a request header
        line = len(name) + len(value) + 4
        self._head_size += line
        if line > self._max_line or self._head_size > self._max_head or len(self.headers) >= self._max_headers:
            self._stop(431)
        name = name.lower()
        if name == b"expect" and value.lower() == b"100-continue":
            self.expect_100_continue = True
        self.headers.append((name, value))

    def on_headers_complete(self) -> None:
        size, self._head_size = self._head_size, 0
        if len(self.url) > self._max_line:
            self._stop(414)
        if size + len(self.url) > self._max_head:
            self._stop(431)
        self._head_since = None
        self._head_bytes = 0
        self._body_bytes = 0
        self._parsed_body = 0
        self.app = self.shed_app if len(self.tasks) >= self._max_in_flight else self.served_app
        super().on_headers_complete()
        self.cycle.transport = self._cycle_transport
        if self.parser.should_upgrade() and not self._should_upgrade():
            self._ignore_upgrade()

    def on_body(self, body: bytes) -> None:
        self._parsed_body += len(body)
        super().on_body(body)

    def on_response_complete(self) -> None:
        if self._discarding and self._linger_since is None:
            self.linger()  # answered mid-body with the parser stopped (a 415 keeps the connection): no next request
        if self._linger_since is None:
            super().on_response_complete()
        else:
            self.server_state.total_requests += 1  # and no keep-alive timer, no pipelined request

    # -- Upgrade ----------------------------------------------------------------------------

    def _ignore_upgrade(self) -> None:
        self.cycle.keep_alive = False
        framing = b"".join(
            name + b": " + value + b"\r\n" for name, value in self.headers
            if name in (b"content-length", b"transfer-encoding")
        )
        if framing:
            try:
                self._sink = _BodySink(self, framing)
            except httptools.HttpParserError:
                self._stop(400)

    def finish_upgraded_body(self) -> None:
        HttpToolsProtocol.on_message_complete(self)

    # -- refusals ---------------------------------------------------------------------------

    def _stop(self, status: int) -> None:
        self._refusal = status
        raise _Refused

    def _refuse(self, status: int) -> None:
        """Answer ``status`` (JSON, request id, one log line) and close; if the app is already
        answering a request on this connection, only close (never two answers on the wire)."""
        since, self._head_since = self._head_since, None
        if self.transport.is_closing():
            return
        if self.cycle is not None and not self.cycle.response_complete:
            self.transport.close()
            return
        # The request id of the head being refused; none if no new head began (the last parsed
        # head belongs to a request that was already answered and logged).
        began = self.cycle is None or self.cycle.scope is not self.scope
        rid = guards.request_id(self.headers or [] if began else [])
        outcome, body = _REFUSALS[status]
        head = [b"HTTP/1.1 %d %s\r\n" % (status, http.HTTPStatus(status).phrase.encode())]
        for name, value in self.server_state.default_headers:
            head.append(name + b": " + value + b"\r\n")
        head.append(b"content-type: application/json\r\nx-request-id: %s\r\ncontent-length: %d\r\n"
                    b"connection: close\r\n\r\n" % (rid.encode(), len(body)))
        self.transport.write(b"".join(head) + body)
        self.linger()
        self.observer.request(rid, method=None, tool=None, status=status, outcome=outcome,
                              seconds=0.0 if since is None else self.loop.time() - since)

    # -- the lingering close -----------------------------------------------------------------

    def linger(self) -> None:
        """Close after the answer written: half-close now, drop what still comes (bounded)."""
        transport = self.transport
        if transport.is_closing() or self._linger_since is not None:
            return
        if self._shutting_down or len(self.lingering) >= self._max_in_flight or not transport.can_write_eof():
            transport.close()
            return
        self._unset_keepalive_if_required()
        if self._head_timer is not None:
            self._head_timer.cancel()
            self._head_timer = None
        self._discarding = True
        self._linger_since = self._linger_last = self.loop.time()
        self.lingering.add(self)
        transport.write_eof()  # after the buffered answer: the client reads it, then its end
        self.flow.resume_reading()  # uvicorn pauses reading while a body waits for the app
        self._linger_timer = self.loop.call_later(self.limits.linger_read_seconds, self._check_linger)

    def _discard(self, size: int) -> None:
        if self._linger_since is None:
            self.flow.pause_reading()  # over the wire budget, the app's answer pending: read no more yet
            return
        self._linger_bytes += size
        self._linger_last = self.loop.time()
        if self._linger_bytes > self.limits.linger_max_bytes:
            self.transport.close()

    def _check_linger(self) -> None:
        """One lazy timer: re-armed for the earlier of the two deadlines, only when it fires."""
        self._linger_timer = None
        if self.transport.is_closing() or self._linger_since is None:
            return
        limits = self.limits
        now = self.loop.time()
        deadline = min(self._linger_last + limits.linger_read_seconds, self._linger_since + limits.linger_total_seconds)
        if now >= deadline:
            self.transport.close()
        else:
            self._linger_timer = self.loop.call_later(deadline - now, self._check_linger)


def protocol_class(limits: ConnectionLimits, observer: Observer) -> type[BoundedHttpToolsProtocol]:
    """A protocol class for ``uvicorn.Config(http=...)`` bound to these limits and this observer."""
    return type("RouterHttpProtocol", (BoundedHttpToolsProtocol,), {
        "limits": limits, "observer": observer, "shed_app": ShedApp(observer), "lingering": set(),
    })
