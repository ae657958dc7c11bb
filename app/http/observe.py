"""Access logging and metrics: categories only.

One JSON line per request on stdout with exactly ``event``, ``request_id``, ``method``, ``tool``,
``duration_ms``, ``status`` and ``outcome``. Never arguments, text, slots, results, tokens,
headers or the client's protocol version: the values logged are the request id (validated shape
or generated), fixed method/tool names from our own registry, and outcome categories.
"""

from __future__ import annotations

import sys

import orjson
import structlog

LOG_FIELDS = ("event", "request_id", "method", "tool", "duration_ms", "status", "outcome")


def configure_logging(stream=None) -> None:
    """JSON lines through orjson; a text stream (tests) gets str, stdout gets bytes."""
    if stream is None:
        factory = structlog.BytesLoggerFactory(sys.stdout.buffer)
        renderer = structlog.processors.JSONRenderer(serializer=orjson.dumps)
    else:
        factory = structlog.PrintLoggerFactory(stream)
        renderer = structlog.processors.JSONRenderer(serializer=lambda obj, **kw: orjson.dumps(obj).decode())
    structlog.configure(
        processors=[renderer],
        logger_factory=factory,
        wrapper_class=structlog.make_filtering_bound_logger(0),
        cache_logger_on_first_use=True,
    )


class Metrics:
    """Prometheus counters and a latency histogram by method / tool / outcome, on their own port;
    the decision counters and the policy in service (SPEC §5.5, §5.8). Every label value is a
    category of a closed set (the protocol layer maps anything else to ``other``)."""

    def __init__(self) -> None:
        from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram

        self.registry = CollectorRegistry()
        self.requests = Counter(
            "a207_router_requests", "MCP requests by method, tool and outcome category",
            ["method", "tool", "outcome", "status"], registry=self.registry,
        )
        self.latency = Histogram(
            "a207_router_request_duration_seconds", "MCP request latency by method",
            ["method"], registry=self.registry,
            buckets=(0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1.0),
        )
        self.decisions = Counter(
            "a207_router_decisions", "Decisions of route_request, check_safety_gate and check_permission "
            "by status (route_request's vocabulary) and reason code", ["tool", "status", "reason_code"],
            registry=self.registry,
        )
        self.policy_info = Gauge(
            "a207_router_policy_info", "The policy in service (1 for its version)", ["policy_version"], registry=self.registry,
        )
        self.policy_reloads = Counter(
            "a207_router_policy_reloads", "Policy reload attempts by outcome (applied, rejected)", ["outcome"],
            registry=self.registry,
        )
        self._policy_version: str | None = None

    def serve(self, port: int, host: str) -> None:
        from prometheus_client import start_http_server

        start_http_server(port, addr=host, registry=self.registry)

    def observe(self, method: str, tool: str, outcome: str, status: int, seconds: float) -> None:
        self.requests.labels(method, tool, outcome, str(status)).inc()
        self.latency.labels(method).observe(seconds)

    def serving(self, policy_version: str) -> None:
        """The policy now in service: its info series is 1, the previous one's is gone."""
        if self._policy_version is not None and self._policy_version != policy_version:
            self.policy_info.remove(self._policy_version)
        self.policy_info.labels(policy_version).set(1)
        self._policy_version = policy_version


class Observer:
    def __init__(self, metrics: Metrics | None = None):
        self.log = structlog.get_logger("a207.access")
        self.metrics = metrics

    def request(self, request_id: str, *, method: str | None, tool: str | None, status: int, outcome: str, seconds: float,
                metered: bool = True, decision: tuple[str, str] | None = None) -> None:
        """One access-log line; also a metrics observation unless ``metered`` is False (the health
        and readiness probes: an orchestrator's polling would swamp the request counters)."""
        self.log.info(
            "request",
            request_id=request_id,
            method=method,
            tool=tool,
            duration_ms=round(seconds * 1000, 3),
            status=status,
            outcome=outcome,
        )
        if metered and self.metrics is not None:
            self.metrics.observe(method or "none", tool or "none", outcome, status, seconds)
            if decision is not None:
                self.metrics.decisions.labels(tool, *decision).inc()

    def event(self, name: str, **categories: str | int | None) -> None:
        """Lifecycle lines (startup, shutdown, policy_reload): fixed names and non-sensitive values only."""
        self.log.info(name, **categories)
