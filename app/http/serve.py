"""``python -m app serve``: validate settings and policy, then listen (never the other way round)."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import os
import signal
import socket
import sys
import threading

import uvicorn

from .app import JwtSetup, create_app
from .observe import Metrics, configure_logging
from .protocol import protocol_class
from .reload import ReloadSetup
from .settings import ServiceSettings, SettingsError, load_settings

# The event loop, parser and quiet defaults every server here runs with; bench/servers/ starts the
# servers it compares ours against with the same options, so a comparison measures the app only.
# No WebSocket protocol: nothing here speaks it, and an Upgrade is then ignored like any other.
UVICORN_OPTIONS = {
    "loop": "uvloop",
    "http": "httptools",
    "ws": "none",
    "lifespan": "on",
    "access_log": False,
    "log_level": "warning",
    "server_header": False,
    "timeout_keep_alive": 5,
}


# libuv (uvloop's core) accepts one connection per event-loop turn since 1.45 ("don't accept() in a
# loop"), and a turn under load serves every request in flight: 32 connections opened at once on a
# busy server waited for 32 turns, the last one 0.3–1 s (bench/RESULTS.md, "HTTP tail, session 3").
# Each extra libuv handle on the same listening socket (a dup'ed descriptor) accepts one more per
# turn; an idle handle costs nothing, a new connection wakes them all (one accept each, the rest
# find the queue empty).
ACCEPTS_PER_TURN = 16


class GracefulServer(uvicorn.Server):
    """uvicorn's server with SIGHUP handled like SIGTERM: in-flight requests finish, the lifespan
    logs ``shutdown``, then the process dies by the signal (a terminal closing, or a supervisor
    sending HUP, must not cut requests off mid-answer) — unless the process was started with HUP
    ignored (``nohup``), which it keeps; and up to ``ACCEPTS_PER_TURN`` new
    connections accepted per event-loop turn instead of one."""

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        await super().startup(sockets)
        config = self.config
        # uvicorn's own protocol factory (Server.startup's create_protocol), for the extra handles.
        factory = functools.partial(config.http_protocol_class, config=config, server_state=self.server_state,
                                    app_state=self.lifespan.state)
        loop = asyncio.get_running_loop()
        for server in list(self.servers):
            for listener in server.sockets:
                for _ in range(ACCEPTS_PER_TURN - 1):
                    twin = socket.socket(listener.family, listener.type, fileno=os.dup(listener.fileno()))
                    # uvicorn's shutdown closes every server in this list: the listening socket
                    # closes with its last descriptor.
                    self.servers.append(await loop.create_server(factory, sock=twin, ssl=config.ssl, backlog=config.backlog))

    @contextlib.contextmanager
    def capture_signals(self):
        with super().capture_signals():
            # Started with HUP ignored (nohup, a supervisor that asks for it): it stays ignored.
            if threading.current_thread() is not threading.main_thread() or signal.getsignal(signal.SIGHUP) == signal.SIG_IGN:
                yield
                return
            previous = signal.signal(signal.SIGHUP, self.handle_exit)
            try:
                yield
            finally:
                # Restored before uvicorn re-raises the captured signals, so a HUP ends the process.
                signal.signal(signal.SIGHUP, previous)


def serve(host: str, port: int) -> int:
    try:
        settings = load_settings(ServiceSettings)
        router = settings.router()
    except SettingsError as exc:
        print(str(exc), file=sys.stderr)
        return 2
    configure_logging()
    metrics = None
    if settings.metrics_port is not None:
        metrics = Metrics()
        metrics.serve(settings.metrics_port, host)
    jwt = None
    if settings.uses_jwt:
        from .verify import JwksCache, KeySource  # PyJWT and cryptography: JWT modes only

        source = KeySource(url=settings.jwt_jwks_url, path=settings.jwt_jwks_file)
        keys = JwksCache(source, settings.jwt_jwks_cache_seconds, settings.algorithms())
        jwt = JwtSetup(settings.jwt_rules(), keys, settings.public_url)
    app = create_app(
        router,
        settings.tokens(),
        jwt=jwt,
        origins=settings.origins(),
        max_body_bytes=settings.mcp_max_body_bytes,
        body_timeout_seconds=settings.request_timeout_seconds,
        metrics=metrics,
        reload=ReloadSetup(settings.policy_file, settings.policy_reload_seconds, settings.router_from)
        if settings.policy_reload_seconds else None,
    )
    options = {
        **UVICORN_OPTIONS,
        # Head deadline, head caps, trailers and Upgrade ignored, and load shedding by requests in
        # flight (a 503 past ROUTER_MAX_CONNECTIONS of them; idle sockets never count).
        "http": protocol_class(settings.connection_limits(), app.observer),
    }
    config = uvicorn.Config(
        app,
        host=host,
        port=port,
        **options,
        proxy_headers=settings.proxy_headers,
        forwarded_allow_ips=settings.forwarded_allow_ips,
        timeout_graceful_shutdown=settings.shutdown_timeout_seconds,
    )
    server = GracefulServer(config)
    server.run()
    return 0 if server.started else 1
