"""The ASGI application: POST /mcp, /health and /ready, composed in one visible place."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import time
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING

import orjson
from starlette.applications import Starlette

from app.protocol.server import McpServer
from app.router import Router

from . import guards
from .endpoint import Limits, McpEndpoint
from .guards import BearerGuard
from .oauth import JwtRules, OAuthGuard, protected_resource_metadata
from .observe import Metrics, Observer
from .reload import PolicyReloader, ReloadSetup

if TYPE_CHECKING:
    from .verify import JwksCache

# RFC 9728 §3.1: the path for the resource https://host/mcp, and the bare one some clients try first.
METADATA_PATHS = ("/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-protected-resource")

_NOT_FOUND = orjson.dumps({"error": "not_found", "message": "only /mcp, /health and /ready are served"})
_GET_ONLY = orjson.dumps({"error": "method_not_allowed", "message": "only GET is served here"})
_HEALTHY = orjson.dumps({"status": "ok"})
_NOT_READY = orjson.dumps({"status": "not_ready"})


@dataclass(frozen=True)
class JwtSetup:
    """The JWT modes (SPEC §5.4a): the rules a token must meet, its issuer's keys, this server's public base URL."""

    rules: JwtRules
    keys: "JwksCache"
    public_url: str


def create_app(
    router: Router,
    tokens: list[bytes],
    *,
    jwt: JwtSetup | None = None,
    origins: frozenset[str] = frozenset(),
    max_body_bytes: int = 65_536,
    body_timeout_seconds: float = 10.0,
    metrics: Metrics | None = None,
    reload: ReloadSetup | None = None,
) -> RouterService:
    """``tokens`` alone: token mode; ``jwt`` alone: jwt mode; both: token+jwt. ``reload``: watch
    the policy file and swap in a valid new one (SPEC §5.8)."""
    observer = Observer(metrics)
    if metrics is not None:
        metrics.serving(router.policy_version)
    static = BearerGuard(tokens) if tokens else None
    oauth = None
    if jwt is not None:
        from .verify import JwtVerifier  # PyJWT and cryptography: JWT modes only

        oauth = OAuthGuard(JwtVerifier(jwt.rules, jwt.keys), jwt.public_url, static)
    endpoint = McpEndpoint(
        McpServer(router),
        static,
        frozenset(o.encode() for o in origins),
        Limits(max_body_bytes, body_timeout_seconds),
        observer,
        oauth,
    )
    ready = {"value": False}
    keys = jwt.keys if jwt else None
    reloader = PolicyReloader(reload, endpoint, observer) if reload is not None else None

    @asynccontextmanager
    async def lifespan(app: Starlette):
        if keys is not None:
            await keys.start()  # readiness waits for a loaded key set (retried in the background)
        # Everything allocated so far (policy, automaton, schemas) lives as long as the process:
        # moving it out of the collector's generations keeps GC pauses off the request path.
        gc.collect()
        gc.freeze()
        ready["value"] = True
        observer.event("startup", policy_version=router.policy_version)
        watching = asyncio.create_task(reloader.run()) if reloader is not None else None
        try:
            yield
        finally:
            ready["value"] = False  # drain: orchestrators stop routing here first
            if watching is not None:
                watching.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await watching
            if keys is not None:
                await keys.stop()
            observer.event("shutdown")

    def readiness() -> tuple[int, bytes, str]:
        if ready["value"] and (keys is None or keys.loaded):
            answer = {"status": "ready", "policy_version": endpoint.server.router.policy_version}
            if reloader is not None and reloader.error:
                answer["policy_reload_error"] = True  # a refused file; the version above still serves
            return 200, orjson.dumps(answer), "ready"
        return 503, _NOT_READY, "not_ready"

    probes = {"/health": lambda: (200, _HEALTHY, "health"), "/ready": readiness}
    if jwt is not None:
        rules = jwt.rules
        documents: dict[str, bytes] = {}

        def metadata() -> tuple[int, bytes, str]:
            """The role scopes of the policy in service (a reload may change its roles)."""
            current = endpoint.server.router
            document = documents.get(current.policy_version)
            if document is None:
                roles = [r for r in current.policy.roles if current.scope is None or r in current.scope]
                document = documents.setdefault(current.policy_version, orjson.dumps(protected_resource_metadata(rules, roles)))
            return 200, document, "resource_metadata"

        for path in METADATA_PATHS:
            probes[path] = metadata
    service = RouterService(endpoint, probes, observer, lifespan=lifespan)
    service.reloader = reloader
    return service


class RouterService(Starlette):
    """Starlette for the lifespan; every HTTP request is answered here, without its router.

    /mcp is one exact path served by a raw ASGI endpoint that handles every method and error
    itself; sending it through Starlette's middleware stack and router first measured as ~40 µs of
    CPU per request (a quarter of the whole request at c=32, bench/RESULTS.md). The two probes and
    every other path are answered here too, so that every answer is JSON with an X-Request-ID and
    one log line, and no path is ever redirected (Starlette's slash redirect built its Location
    from the Host header).
    """

    def __init__(self, mcp_endpoint: McpEndpoint, probes: dict, observer: Observer, **options):
        super().__init__(**options)
        self._mcp = mcp_endpoint
        self._probes = probes
        self.observer = observer
        self.reloader: PolicyReloader | None = None

    @property
    def mcp_server(self) -> McpServer:
        """The server (and so the policy) a request starting now runs on."""
        return self._mcp.server

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] == "http":
            if scope["path"] == "/mcp":
                await self._mcp(scope, receive, send)
            else:
                await self._plain(scope, send)
            return
        await super().__call__(scope, receive, send)

    async def _plain(self, scope, send) -> None:
        started = time.perf_counter()
        rid = guards.request_id(scope["headers"])
        probe = self._probes.get(scope["path"])
        extra = []
        answered_probe = False  # probe answers are logged but not metered (see Observer.request)
        if probe is None:
            status, body, outcome = 404, _NOT_FOUND, "not_found"
        elif scope["method"] not in ("GET", "HEAD"):
            status, body, outcome = 405, _GET_ONLY, "method_not_allowed"
            extra.append((b"allow", b"GET, HEAD"))
        else:
            status, body, outcome = probe()
            answered_probe = True
        headers = [(b"content-type", b"application/json"), (b"x-request-id", rid.encode()),
                   (b"content-length", str(len(body)).encode()), *extra]
        await send({"type": "http.response.start", "status": status, "headers": headers})
        await send({"type": "http.response.body", "body": body})
        self.observer.request(rid, method=None, tool=None, status=status, outcome=outcome,
                              seconds=time.perf_counter() - started, metered=not answered_probe)
