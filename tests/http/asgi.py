"""A tiny in-process ASGI driver for the HTTP tests: full control over what a client can send.

Unlike a test client, it sends headers exactly as given (duplicates, odd case, non-ASCII bytes),
delivers the body in chunks with optional pauses between them (a trickling client), can disconnect
mid-body, and captures status, headers and body as bytes. An exception escaping the application
(what a server turns into a 500 and a traceback on stderr) is reported as ``Response.exception``
rather than raised, so a property test can say *which* input caused it.

    async with Lifespan(app):
        response = await request(app, headers=[(b"authorization", b"Bearer " + token)], body=b"{}")

Everything here is bounded: a request that produces no complete response within ``timeout``
seconds is reported with ``timed_out=True``.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import secrets
import signal
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Sequence

import orjson

Headers = list[tuple[bytes, bytes]]


@dataclass
class Response:
    status: int | None = None
    headers: Headers = field(default_factory=list)
    body: bytes = b""
    complete: bool = False  # the app sent the final http.response.body
    exception: BaseException | None = None  # escaped the app (a server would answer 500)
    timed_out: bool = False
    body_chunks_consumed: int = 0  # how many request-body messages the app received

    def header(self, name: str | bytes) -> bytes | None:
        values = self.header_values(name)
        return values[0] if values else None

    def header_values(self, name: str | bytes) -> list[bytes]:
        key = name.encode() if isinstance(name, str) else name
        return [v for k, v in self.headers if k.lower() == key.lower()]

    def json(self) -> Any:
        return orjson.loads(self.body)


def _scope(method: str, path: str, headers: Headers, query: bytes) -> dict:
    return {
        "type": "http",
        "asgi": {"version": "3.0", "spec_version": "2.4"},
        "http_version": "1.1",
        "method": method,
        "scheme": "http",
        "path": path,
        "raw_path": path.encode("latin-1"),
        "root_path": "",
        "query_string": query,
        "headers": [(bytes(k).lower(), bytes(v)) for k, v in headers],
        "client": ("127.0.0.1", 50000),
        "server": ("127.0.0.1", 8000),
        "state": {},
    }


async def request(
    app,
    method: str = "POST",
    path: str = "/mcp",
    *,
    headers: Iterable[tuple[bytes, bytes]] = (),
    body: bytes | Sequence[bytes] = b"",
    delay: float = 0.0,
    disconnect: bool = False,
    timeout: float = 10.0,
    query: bytes = b"",
) -> Response:
    """Run one HTTP request through ``app``.

    ``body`` is either one bytes object or a sequence of chunks (each one ``http.request``
    message; ``more_body`` is true on all but the last). ``delay`` seconds pass before each
    chunk after the first (a slow client). With ``disconnect`` the client vanishes after the
    chunks instead of finishing the body (the last chunk is sent with ``more_body`` true).
    After the body, ``receive`` blocks until the response is complete and then reports
    ``http.disconnect``, as servers do.
    """
    chunks = [body] if isinstance(body, (bytes, bytearray)) else list(body)
    if not chunks:
        chunks = [b""]
    response = Response()
    done = asyncio.Event()
    position = 0

    async def receive() -> dict:
        nonlocal position
        if position < len(chunks):
            if position > 0 and delay:
                await asyncio.sleep(delay)
            chunk = chunks[position]
            position += 1
            response.body_chunks_consumed = position
            more = position < len(chunks) or disconnect
            return {"type": "http.request", "body": bytes(chunk), "more_body": more}
        if not disconnect:
            await done.wait()
        return {"type": "http.disconnect"}

    parts: list[bytes] = []

    async def send(message: dict) -> None:
        kind = message["type"]
        if kind == "http.response.start":
            if response.status is not None:
                raise AssertionError("http.response.start sent twice")
            response.status = message["status"]
            response.headers = [(bytes(k), bytes(v)) for k, v in message.get("headers", [])]
        elif kind == "http.response.body":
            if response.status is None:
                raise AssertionError("http.response.body before http.response.start")
            parts.append(bytes(message.get("body", b"")))
            if not message.get("more_body", False):
                response.complete = True
                done.set()

    try:
        await asyncio.wait_for(app(_scope(method, path, list(headers), query), receive, send), timeout)
    except asyncio.TimeoutError:
        response.timed_out = True
    except Exception as exc:  # noqa: BLE001 - reported, the caller asserts on it
        response.exception = exc
    finally:
        done.set()
    response.body = b"".join(parts)
    return response


class Lifespan:
    """Drive the ASGI lifespan protocol: startup on enter, shutdown on exit (bounded)."""

    def __init__(self, app, timeout: float = 10.0):
        self.app = app
        self.timeout = timeout
        self._to_app: asyncio.Queue = asyncio.Queue()
        self._from_app: asyncio.Queue = asyncio.Queue()
        self._task: asyncio.Task | None = None

    async def __aenter__(self) -> "Lifespan":
        scope = {"type": "lifespan", "asgi": {"version": "3.0", "spec_version": "2.0"}, "state": {}}
        self._task = asyncio.ensure_future(self.app(scope, self._to_app.get, self._from_app.put))
        await self._to_app.put({"type": "lifespan.startup"})
        message = await asyncio.wait_for(self._from_app.get(), self.timeout)
        if message["type"] != "lifespan.startup.complete":
            raise RuntimeError(f"lifespan startup failed: {message.get('message', '')}")
        return self

    async def __aexit__(self, *exc_info) -> None:
        await self._to_app.put({"type": "lifespan.shutdown"})
        message = await asyncio.wait_for(self._from_app.get(), self.timeout)
        assert self._task is not None
        await asyncio.wait_for(self._task, self.timeout)
        if message["type"] != "lifespan.shutdown.complete":
            raise RuntimeError(f"lifespan shutdown failed: {message.get('message', '')}")


class AppRunner:
    """A started app on a private event loop, for synchronous (e.g. hypothesis) tests.

    One loop and one lifespan per module: ``runner.request(...)`` runs a single request to
    completion on that loop. Close with ``runner.close()`` (shutdown, then the loop).
    """

    def __init__(self, app):
        self.app = app
        self._runner = asyncio.Runner()
        self._lifespan = Lifespan(app)
        self._runner.run(self._lifespan.__aenter__())

    def run(self, coro):
        return self._runner.run(coro)

    def request(self, method: str = "POST", path: str = "/mcp", **kwargs) -> Response:
        return self._runner.run(request(self.app, method, path, **kwargs))

    def close(self) -> None:
        try:
            self._runner.run(self._lifespan.__aexit__(None, None, None))
        finally:
            self._runner.close()


# ---------------------------------------------------------------------------------------------
# Checks: what every answer of POST /mcp must look like (SPEC §4.6, §5.1)
# ---------------------------------------------------------------------------------------------

LEAK_MARKERS = (
    "Traceback", 'File "', "validation error", "pydantic", "input_value", "type=", "<class",
    "object at 0x", "Error(", "errors.pydantic.dev",
)

DOCUMENTED_BODIES = {
    403: {"error": "forbidden", "message": "requests with an Origin header are not accepted"},
    401: {"error": "unauthorized", "message": "a valid bearer token is required"},
    415: {"error": "unsupported_media_type", "message": "Content-Type must be application/json"},
    413: {"error": "payload_too_large", "message": "the request body exceeds the size limit"},
    408: {"error": "request_timeout", "message": "the request body did not arrive in time"},
    405: {"error": "method_not_allowed", "message": "only POST is served at /mcp"},
}
_REQUEST_ID = re.compile(rb"[A-Za-z0-9._-]{1,64}")
_GENERATED_ID = re.compile(rb"[0-9a-f]{32}")

# The argument-error messages the router may send (SPEC §4.6: they never echo the value).
_ARGUMENT_MESSAGES = re.compile(
    r"is required|is not an argument of this tool|must be a string|does not have the required format"
    r"|must be an object|must be null|is invalid|must be at most \d+ characters"
    r"|must be a calendar date written YYYY-MM-DD|must be P followed by at least 4 ASCII digits"
    r"|must be a date from 0001-01-14 to 9999-12-30"
)
_FIELD_PART = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,63}")


def plain_field(field: str) -> bool:
    """An argument path of plain names and indexes. Tolerated, as reported to the router's owner:
    ``safe_field`` lets one trailing newline through (``$`` in its pattern) and any ``str.isdigit``
    part (e.g. "²"): both are key names the caller chose, never a value."""
    return all(_FIELD_PART.fullmatch(part.removesuffix("\n")) or part.isdigit() for part in field.split("."))


def check_mcp_response(
    response: Response, *, forbidden: Iterable[bytes] = (), sent: bytes = b"", sent_request_id: list[bytes] | None = None
) -> Any:
    """The invariants of every /mcp answer; returns the parsed body (None when empty).

    Never an escaped exception, a hang or a 5xx; only documented statuses with their documented
    bodies or a JSON-RPC 2.0 envelope; no traceback / pydantic / repr text (unless the request
    itself carried that text, which a result may name); no secret; X-Request-ID echoed only when
    well-formed."""
    assert response.exception is None, f"exception escaped the app: {type(response.exception).__name__}"
    assert not response.timed_out, "no answer within the driver's timeout"
    assert response.complete, "response not completed"
    status = response.status
    assert status is not None and status < 500, f"5xx: {status}"
    assert status in (200, 202, 400, 401, 403, 405, 408, 413, 415), f"undocumented status {status}"
    text = response.body.decode("utf-8")  # every body is UTF-8
    for marker in LEAK_MARKERS:
        if marker.encode() in sent or json.dumps(marker)[1:-1].encode() in sent:
            continue  # an argument the result may legitimately name (e.g. an unregistered tool)
        assert marker not in text, f"leak marker {marker!r} in a {status} body"
    for secret in forbidden:
        assert secret.decode("latin-1") not in text, "a secret in the body"
    assert response.header_values("content-type") == [b"application/json"]
    assert response.header("content-length") == str(len(response.body)).encode()

    # X-Request-ID: the caller's when it is one well-formed value, else a fresh one.
    ids = response.header_values("x-request-id")
    assert len(ids) == 1
    if sent_request_id is not None:
        if len(sent_request_id) == 1 and _REQUEST_ID.fullmatch(sent_request_id[0]):
            assert ids[0] == sent_request_id[0]
        else:
            assert _GENERATED_ID.fullmatch(ids[0]), "a malformed X-Request-ID was echoed"

    if status in DOCUMENTED_BODIES:
        assert orjson.loads(response.body) == DOCUMENTED_BODIES[status]
        if status == 405:
            assert response.header_values("allow") == [b"POST"]
        if status == 401:
            assert response.header("www-authenticate").startswith(b"Bearer")
        return None
    if status == 202:
        assert response.body == b""
        return None
    message = orjson.loads(response.body)
    check_jsonrpc(message)
    if status == 400:
        assert "error" in message and message["error"]["code"] in (-32700, -32600)
    else:
        assert "result" in message or message["error"]["code"] in (-32601, -32602)
    return message


def check_jsonrpc(message: Any) -> None:
    """A JSON-RPC 2.0 response envelope: exactly jsonrpc, id and one of result / error."""
    assert isinstance(message, dict)
    assert message.get("jsonrpc") == "2.0"
    assert "id" in message
    rid = message["id"]
    assert rid is None or isinstance(rid, str) or (isinstance(rid, int) and not isinstance(rid, bool))
    assert ("result" in message) != ("error" in message)
    assert set(message) <= {"jsonrpc", "id", "result", "error"}
    if "error" in message:
        error = message["error"]
        assert isinstance(error, dict) and set(error) <= {"code", "message", "data"}
        assert isinstance(error["code"], int) and isinstance(error["message"], str)
        assert error["message"] in {
            "Parse error: the body is not a UTF-8 JSON document",
            "Invalid Request: batches are not supported",
            "Invalid Request: not a JSON-RPC 2.0 message",
            "Invalid Request: id must be a string or an integer",
            "Invalid Request: method must be a non-empty string",
            "Invalid Request: params must be an object",
            "Invalid Request: neither a request, a notification nor a response",
            "Method not found",
            "Unknown tool",
        }, "an error message that is not one of the fixed texts"
    else:
        assert isinstance(message["result"], dict)


def check_tool_call(message: dict, router, tool: str, arguments: Any) -> None:
    """A tools/call answer equals what ``router`` returns in-process for the same input."""
    from app.router import TOOLS, ArgumentError, UnknownTool

    try:
        expected = router.call(tool, arguments).model_dump(mode="json")
        expected_error = False
    except ArgumentError as exc:
        expected = exc.as_dict()
        expected_error = True
    except UnknownTool:
        assert message.get("error", {}).get("code") == -32602
        return
    assert "result" in message, f"expected a tool result, got {message.get('error')}"
    result = message["result"]
    assert set(result) == {"content", "structuredContent", "isError"}
    assert result["isError"] is expected_error
    structured = result["structuredContent"]
    assert structured == expected
    (content,) = result["content"]
    assert content["type"] == "text" and json.loads(content["text"]) == structured
    if expected_error:
        error = structured["error"]
        assert set(error) == {"code", "field", "message"}
        assert error["code"] == "INVALID_ARGUMENT", "INTERNAL: the router raised on this input"
        assert plain_field(error["field"]), "the field name is not a plain path"
        assert _ARGUMENT_MESSAGES.fullmatch(error["message"]), "an argument message that is not a fixed text"
    else:
        TOOLS[tool].result.model_validate(structured)


def mcp_headers(token: bytes | str | None, *, content_type: bytes = b"application/json", extra: Headers = ()) -> Headers:
    """The headers of a well-formed MCP POST (bearer, JSON), plus ``extra``."""
    headers: Headers = []
    if token is not None:
        raw = token.encode() if isinstance(token, str) else token
        headers.append((b"authorization", b"Bearer " + raw))
    if content_type is not None:
        headers.append((b"content-type", content_type))
    headers.extend(extra)
    return headers


def rpc(method: str, params: Any = None, id: Any = 1) -> bytes:
    message: dict[str, Any] = {"jsonrpc": "2.0", "id": id, "method": method}
    if params is not None:
        message["params"] = params
    return orjson.dumps(message)


def call(tool: str, arguments: Any, id: Any = 1) -> bytes:
    return rpc("tools/call", {"name": tool, "arguments": arguments}, id)


# -----------------------------------------------------------------------------------------------
# Over a real socket: `python -m app serve` in a subprocess, bytes written exactly as given.
# -----------------------------------------------------------------------------------------------

def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class RealServer:
    """``python -m app serve`` on 127.0.0.1 with a fresh random token; stdout (the access log) and
    stderr go to temporary files, read back by ``log_lines()`` / ``stderr_text()``. Always stopped
    (SIGTERM, then kill); the settings come from ``env`` only (cwd is an empty directory, no .env)."""

    def __init__(self, **env: str):
        self.token = secrets.token_urlsafe(32)
        self.port = free_port()
        self.env = {
            **{k: v for k, v in os.environ.items() if not k.startswith("ROUTER_")},
            "ROUTER_MCP_AUTH_TOKEN": self.token,
            **env,
        }
        self._dir = tempfile.TemporaryDirectory(prefix="a207-serve-")
        self.log_path = Path(self._dir.name) / "stdout.log"  # the access log (structlog, JSON lines)
        self.stderr_path = Path(self._dir.name) / "stderr.log"  # uvicorn's own warnings
        self.process: subprocess.Popen | None = None

    def __enter__(self) -> "RealServer":
        with open(self.log_path, "wb") as out, open(self.stderr_path, "wb") as err:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "app", "serve", "--host", "127.0.0.1", "--port", str(self.port)],
                env=self.env, cwd=self._dir.name, stdout=out, stderr=err, stdin=subprocess.DEVNULL,
            )
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"server exited with {self.process.returncode}: {self.stderr_text()[-2000:]}")
            try:
                status, _, _ = http_exchange(self.port, b"GET /ready HTTP/1.1\r\nHost: t\r\n\r\n", timeout=1.0)
                if status == 200:
                    return self
            except OSError:
                pass
            time.sleep(0.05)
        self.stop()
        raise RuntimeError("server did not become ready within 20 s")

    def __exit__(self, *exc_info) -> None:
        self.stop()

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=5)

    def log_lines(self) -> list[str]:
        return [line for line in self.log_path.read_text(encoding="utf-8", errors="replace").splitlines() if line.strip()]

    def stderr_text(self) -> str:
        return self.stderr_path.read_text(encoding="utf-8", errors="replace")

    def cleanup(self) -> None:
        self._dir.cleanup()

    def post_head(self, length: int | None, *, extra: bytes = b"", token: bytes | None = None) -> bytes:
        """The head of a POST /mcp (bearer, JSON) with an optional Content-Length."""
        token = self.token.encode() if token is None else token
        head = b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer " + token + b"\r\n"
        head += b"Content-Type: application/json\r\n"
        if length is not None:
            head += b"Content-Length: " + str(length).encode() + b"\r\n"
        return head + extra + b"\r\n"

    def post(self, body: bytes, *, extra: bytes = b"", timeout: float = 5.0) -> tuple[int, dict[bytes, bytes], bytes]:
        return http_exchange(self.port, self.post_head(len(body), extra=extra) + body, timeout=timeout)


def read_response(sock: socket.socket, timeout: float) -> tuple[int, dict[bytes, bytes], bytes]:
    """Read one HTTP/1.1 response with a Content-Length body (what this service sends)."""
    sock.settimeout(timeout)
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(65536)
        if not chunk:
            raise ConnectionError("connection closed before a response head")
        data += chunk
    head, _, rest = data.partition(b"\r\n\r\n")
    lines = head.split(b"\r\n")
    status = int(lines[0].split(b" ", 2)[1])
    headers: dict[bytes, bytes] = {}
    for line in lines[1:]:
        name, _, value = line.partition(b":")
        headers[name.strip().lower()] = value.strip()
    length = int(headers.get(b"content-length", b"0"))
    while len(rest) < length:
        chunk = sock.recv(65536)
        if not chunk:
            break
        rest += chunk
    return status, headers, rest[:length]


def http_exchange(port: int, raw: bytes, timeout: float = 5.0) -> tuple[int, dict[bytes, bytes], bytes]:
    """Send ``raw`` on a new connection and read one response."""
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as sock:
        sock.sendall(raw)
        return read_response(sock, timeout)
