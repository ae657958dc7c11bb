"""``python -m app serve``: validate settings and policy, then listen (never the other way round)."""

from __future__ import annotations

import sys

import uvicorn

from .app import create_app
from .observe import Metrics, configure_logging
from .settings import ServiceSettings, SettingsError, load_settings


# The event loop, parser and quiet defaults every server here runs with; bench/servers/ starts the
# servers it compares ours against with the same options, so a comparison measures the app only.
UVICORN_OPTIONS = {
    "loop": "uvloop",
    "http": "httptools",
    "lifespan": "on",
    "access_log": False,
    "log_level": "warning",
    "server_header": False,
    "timeout_keep_alive": 5,
}


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
    app = create_app(
        router,
        settings.tokens(),
        origins=settings.origins(),
        max_body_bytes=settings.mcp_max_body_bytes,
        body_timeout_seconds=settings.request_timeout_seconds,
        metrics=metrics,
    )
    config = uvicorn.Config(
        app,
        host=host,
        port=port,
        **UVICORN_OPTIONS,
        proxy_headers=settings.proxy_headers,
        forwarded_allow_ips=settings.forwarded_allow_ips,
        timeout_graceful_shutdown=settings.shutdown_timeout_seconds,
        # Past this many open connections uvicorn answers 503 at once instead of queueing without
        # bound: overload sheds load instead of growing memory and every caller's latency.
        limit_concurrency=settings.max_connections,
    )
    server = uvicorn.Server(config)
    server.run()
    return 0 if server.started else 1
