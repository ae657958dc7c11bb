"""POST /mcp as a plain ASGI callable: guards in SPEC §5.1's order, then the protocol layer.

A raw ASGI callable rather than a Starlette request handler: the endpoint reads the body itself,
incrementally and with a deadline, which is how the size limit and the slow-body timeout are
enforced without trusting Content-Length (uvicorn enforces neither).
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass

import orjson

from app.protocol.server import McpServer, Reply

from . import guards
from .oauth import Denied, OAuthGuard
from .observe import Observer

JSON = b"application/json"


@dataclass(frozen=True, slots=True)
class Limits:
    max_body_bytes: int
    body_timeout_seconds: float


# Bodies of the HTTP-level refusals are constants: none of them depends on the request.
_FORBIDDEN = orjson.dumps({"error": "forbidden", "message": "requests with an Origin header are not accepted"})
_UNAUTHORIZED = orjson.dumps({"error": "unauthorized", "message": "a valid bearer token is required"})
_UNSUPPORTED = orjson.dumps({"error": "unsupported_media_type", "message": "Content-Type must be application/json"})
_INSUFFICIENT_SCOPE = orjson.dumps({"error": "insufficient_scope", "message": "the access token lacks the required scope"})
_TOO_LARGE = orjson.dumps({"error": "payload_too_large", "message": "the request body exceeds the size limit"})
_TIMEOUT = orjson.dumps({"error": "request_timeout", "message": "the request body did not arrive in time"})
_INTERNAL = orjson.dumps({"error": "internal", "message": "internal error; quote the X-Request-ID"})
_NOT_ALLOWED = orjson.dumps({"error": "method_not_allowed", "message": "only POST is served at /mcp"})

# After a refusal that comes before the body is read (403, 401, 413) the connection is closed: the
# protocol's lingering close lets the client read the answer, then cuts it off (16 MiB, 30 s), so a
# client without a token cannot keep streaming a declared 1 GB body.
CLOSE = (b"connection", b"close")

STATUS_OF_KIND = {"ok": 200, "accepted": 202, "parse_error": 400, "invalid_request": 400}


class _BodyTooLarge(Exception):
    pass


class _Disconnected(Exception):
    pass


class _BodyTimeout(Exception):
    pass


class McpEndpoint:
    """``bearer`` is the static-token guard of ``token`` mode; ``oauth`` (the JWT modes) replaces it."""

    def __init__(self, server: McpServer, bearer: guards.BearerGuard | None, origins: frozenset[bytes], limits: Limits,
                 observer: Observer, oauth: OAuthGuard | None = None):
        self.server = server
        self.bearer = bearer
        self.oauth = oauth
        self.origins = origins
        self.limits = limits
        self.observer = observer

    async def __call__(self, scope, receive, send) -> None:
        started = time.perf_counter()
        headers = scope["headers"]
        rid = guards.request_id(headers)
        # The server (and so the policy) this request runs on, taken once as it starts: a policy
        # swapped in while its body is still arriving applies to the next request (SPEC §5.8).
        server = self.server
        try:
            status, body, reply, extra, outcome = await self._respond(server, scope, headers, receive)
        except asyncio.CancelledError:
            # The graceful-shutdown timeout ran out while this request waited for its body.
            self.observer.request(rid, method=None, tool=None, status=499, outcome="cancelled",
                                  seconds=time.perf_counter() - started)
            raise
        except Exception:  # a bug: a JSON 500 with the request id, no detail, and keep serving
            status, body, reply, extra, outcome = 500, _INTERNAL, None, [], None
        response_headers = [(b"content-type", JSON), (b"x-request-id", rid.encode())]
        response_headers.extend(extra)
        payload = body or b""
        response_headers.append((b"content-length", str(len(payload)).encode()))
        await send({"type": "http.response.start", "status": status, "headers": response_headers})
        await send({"type": "http.response.body", "body": payload})
        self.observer.request(
            rid,
            method=reply.method if reply else None,
            tool=reply.tool if reply else None,
            status=status,
            outcome=reply.outcome if reply else (outcome or _OUTCOME[status]),
            seconds=time.perf_counter() - started,
            decision=reply.decision if reply else None,
        )

    async def _respond(self, server: McpServer, scope, headers, receive) -> tuple[int, bytes | None, Reply | None, list, str | None]:
        """(status, body, the protocol's reply, extra headers, the logged outcome when it is not the
        status's own: the JWT guard's reason)."""
        if scope["method"] != "POST":
            return 405, _NOT_ALLOWED, None, [(b"allow", b"POST")], None
        if not guards.origin_allowed(headers, self.origins):
            return 403, _FORBIDDEN, None, [CLOSE], None
        roles = None
        if self.oauth is None:
            if not self.bearer.allows(headers):  # type: ignore[union-attr]
                return 401, _UNAUTHORIZED, None, [(b"www-authenticate", b'Bearer realm="a207-router-mcp"'), CLOSE], None
        else:
            access = await self.oauth.check(headers)
            if isinstance(access, Denied):
                body = _UNAUTHORIZED if access.status == 401 else _INSUFFICIENT_SCOPE
                return access.status, body, None, [(b"www-authenticate", access.www_authenticate), CLOSE], access.outcome
            roles = access.roles
        if not guards.is_json(headers):
            return 415, _UNSUPPORTED, None, [], None
        declared = guards.declared_length(headers)
        if declared is not None and declared > self.limits.max_body_bytes:
            return 413, _TOO_LARGE, None, [CLOSE], None
        try:
            body = await self._read_before_deadline(receive)
        except _BodyTooLarge:
            return 413, _TOO_LARGE, None, [CLOSE], None
        except (_BodyTimeout, _Disconnected):
            return 408, _TIMEOUT, None, [CLOSE], None
        reply = server.handle(body, roles)
        return STATUS_OF_KIND[reply.kind], reply.body, reply, [], None

    async def _read_before_deadline(self, receive) -> bytes:
        """The body, or _BodyTimeout once the deadline passes.

        One timer on the running task instead of asyncio.wait_for, which creates a task per
        request (4.7 µs, a tenth of a small request). A cancellation that is not ours (shutdown)
        propagates unchanged.
        """
        task = asyncio.current_task()
        expired = False

        def expire() -> None:
            nonlocal expired
            expired = True
            task.cancel()

        timer = asyncio.get_running_loop().call_later(self.limits.body_timeout_seconds, expire)
        try:
            return await self._read(receive)
        except asyncio.CancelledError:
            if expired and task.uncancel() == 0:
                raise _BodyTimeout from None
            raise
        finally:
            timer.cancel()

    async def _read(self, receive) -> bytes:
        limit = self.limits.max_body_bytes
        chunks: list[bytes] = []
        size = 0
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                raise _Disconnected
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > limit:
                raise _BodyTooLarge
            chunks.append(chunk)
            if not message.get("more_body", False):
                return chunks[0] if len(chunks) == 1 else b"".join(chunks)


_OUTCOME = {
    500: "internal",
    405: "method_not_allowed",
    403: "forbidden_origin",
    401: "unauthorized",
    415: "unsupported_media_type",
    413: "payload_too_large",
    408: "request_timeout",
}
