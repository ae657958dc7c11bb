#!/usr/bin/env python
"""The HTTP path's CPU per request without the network, split into the router's work and the rest:
this tree against another (issue 22).

    .venv/bin/python bench/stack_cost.py --base /tmp/befbd5a            # git worktree add /tmp/befbd5a befbd5a
    .venv/bin/python bench/stack_cost.py --base /tmp/befbd5a --rounds 6 --passes 5

For each tree a subprocess builds the server exactly as ``python -m app serve`` does (its own
``serve()`` runs with ``uvicorn.Server.run`` replaced by a capture of the config: same settings,
protocol class, app and lifespan, access log written to /dev/null) and replays
bench/http_bench.py's 400 tools/call bodies (the heads wrk sends) through the protocol on an
in-memory transport, on uvloop, garbage collector on as in production. It alternates two passes:

* stack  — every request through protocol → app → endpoint → MCP server → router, answer written;
* handle — the same bodies straight into ``McpServer.handle`` (JSON-RPC, tools, the router): the
  contracted work, which the router's own changes may grow.

stack − handle is what the HTTP layers cost per request. The trees alternate (this base base this
…) and every figure is a median of process CPU time, so a loaded machine slows both alike.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
HEAD = (b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        b"Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2025-06-18\r\n"
        b"Authorization: Bearer %s\r\nContent-Length: %d\r\n\r\n")


class Transport:
    """Enough of an asyncio transport for uvicorn's protocol: writes are counted, not sent."""

    def __init__(self) -> None:
        self.closing = False
        self.writes = 0

    def write(self, data) -> None:
        self.writes += 1

    def close(self) -> None:
        self.closing = True

    def is_closing(self) -> bool:
        return self.closing

    def can_write_eof(self) -> bool:
        return False

    def get_extra_info(self, name, default=None):
        return {"sockname": ("127.0.0.1", 8000), "peername": ("127.0.0.1", 50000)}.get(name, default)

    def pause_reading(self) -> None:
        pass

    def resume_reading(self) -> None:
        pass


def captured_config(token: str):
    """The uvicorn config this tree's ``serve()`` builds, without listening."""
    import uvicorn

    from app.http import serve

    captured = {}

    def capture(self, sockets=None) -> None:
        captured["config"] = self.config

    os.environ["ROUTER_MCP_AUTH_TOKEN"] = token
    uvicorn.Server.run = capture  # type: ignore[method-assign]
    serve.serve("127.0.0.1", 8000)
    return captured["config"]


async def measure(bodies: list[bytes], token: str, passes: int) -> dict[str, float]:
    from uvicorn.lifespan.on import LifespanOn
    from uvicorn.server import ServerState

    from app.http.settings import ServiceSettings, load_settings
    from app.protocol.server import McpServer

    config = captured_config(token)
    config.load()
    lifespan = LifespanOn(config)
    await lifespan.startup()  # the app's own start-up (gc.freeze among it)
    server = McpServer(load_settings(ServiceSettings).router())
    requests = [HEAD % (token.encode(), len(b)) + b for b in bodies]
    loop = asyncio.get_running_loop()
    if os.environ.get("STACK_FIXED_REPLIES"):
        # The router's work taken out: each body's reply computed once, then looked up.
        replies = {body: server.handle(body) for body in bodies}
        McpServer.handle = lambda self, body, roles=None: replies[body]  # type: ignore[method-assign]

    # The router's share of a stack pass, timed where it runs (its caches warmed or cooled by the
    # HTTP layers around it, not by a loop of itself).
    in_context = [0.0]
    route = McpServer.handle

    def timed_handle(self, body, *roles):  # the endpoint hands in the token's roles (issue 22)
        started = time.process_time()
        try:
            return route(self, body, *roles)
        finally:
            in_context[0] += time.process_time() - started

    McpServer.handle = timed_handle  # type: ignore[method-assign]

    async def stack_pass() -> float:
        in_context[0] = 0.0
        state = ServerState()
        protocol = config.http_protocol_class(config=config, server_state=state, app_state={}, _loop=loop)
        transport = Transport()
        protocol.connection_made(transport)
        started = time.process_time()
        for raw in requests:
            protocol.data_received(raw)
            while state.tasks:
                await asyncio.sleep(0)
        elapsed = time.process_time() - started
        assert transport.writes >= 2 * len(requests) and not transport.closing, "requests were not answered"
        assert in_context[0] > 0, "no request reached McpServer.handle (refused, or a 500)"
        protocol.connection_lost(None)
        return elapsed / len(requests)

    def handle_pass() -> float:
        started = time.process_time()
        for body in bodies:
            route(server, body)
        return (time.process_time() - started) / len(bodies)

    await stack_pass()  # warm-up: lazily built state on both paths
    handle_pass()
    stack, handle, handle_in_stack = [], [], []
    for _ in range(passes):
        stack.append(await stack_pass())
        handle_in_stack.append(in_context[0] / len(requests))
        handle.append(handle_pass())
    gc_counts = gc.get_stats()
    await lifespan.shutdown()
    return {"stack_us": statistics.median(stack) * 1e6, "handle_us": statistics.median(handle) * 1e6,
            "in_stack_us": statistics.median(handle_in_stack) * 1e6,
            "gen2_collections": gc_counts[2]["collections"]}


def child(args) -> int:
    import uvloop

    bodies = [json.loads(line).encode() for line in Path(args.bodies).read_text().splitlines()]
    # The access log goes to stdout (bytes), as in production; the figures go to stderr's file.
    result = uvloop.run(measure(bodies, "t" * 48, args.passes))
    Path(args.out).write_text(json.dumps(result))
    return 0


def run_tree(root: Path, bodies_path: Path, out: Path, passes: int, fixed: bool) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith("ROUTER_")}
    env["PYTHONPATH"] = str(root)
    if fixed:
        env["STACK_FIXED_REPLIES"] = "1"
    subprocess.run(
        [sys.executable, str(Path(__file__).resolve()), "--child", "--bodies", str(bodies_path), "--out", str(out),
         "--passes", str(passes)],
        env=env, cwd=out.parent, stdout=subprocess.DEVNULL, check=True, timeout=600,
    )
    return json.loads(out.read_text())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--base", help="the other tree")
    parser.add_argument("--rounds", type=int, default=6)
    parser.add_argument("--passes", type=int, default=5, help="passes over the 400 bodies per pass kind and round")
    parser.add_argument("--fixed-replies", action="store_true",
                        help="replace McpServer.handle by a lookup of precomputed replies: the HTTP layers alone")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--bodies", help=argparse.SUPPRESS)
    parser.add_argument("--out", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        return child(args)
    if not args.base:
        parser.error("--base DIR is required")
    import tempfile

    sys.path.insert(0, str(ROOT))
    from bench.http_bench import request_mix

    trees = {"this": ROOT, "base": Path(args.base).resolve()}
    rows: dict[str, list[dict]] = {"this": [], "base": []}
    print(f"stack_cost: this {ROOT} against base {trees['base']}; {args.rounds} rounds × {args.passes} passes "
          f"over 400 bodies; load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    with tempfile.TemporaryDirectory(prefix="stack_cost_") as tmp:
        bodies_path = Path(tmp) / "bodies.jsonl"
        bodies_path.write_text("\n".join(json.dumps(json.dumps(m, ensure_ascii=False, separators=(",", ":")))
                                         for m in request_mix(400)))
        for r in range(args.rounds):
            for label in ("this", "base") if r % 2 == 0 else ("base", "this"):
                row = run_tree(trees[label], bodies_path, Path(tmp) / f"{label}-{r}.json", args.passes, args.fixed_replies)
                rows[label].append(row)
                print(f"  round {r + 1} {label}: stack {row['stack_us']:6.1f} µs  handle {row['handle_us']:6.1f} µs  "
                      f"HTTP layers {row['stack_us'] - row['handle_us']:6.1f} µs  handle inside the stack {row['in_stack_us']:6.1f} µs",
                      flush=True)
    med = {t: {k: statistics.median(x[k] for x in rows[t]) for k in ("stack_us", "handle_us", "in_stack_us")} for t in trees}
    for t in trees:
        med[t]["layers_us"] = statistics.median(x["stack_us"] - x["handle_us"] for x in rows[t])
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print("| figure (median µs per request) | base | this | this/base | this − base |")
    print("|---|---:|---:|---:|---:|")
    for key, name in (("stack_us", "whole HTTP path (stack)"), ("handle_us", "McpServer.handle (router + MCP)"),
                      ("in_stack_us", "McpServer.handle timed inside the stack"),
                      ("layers_us", "HTTP layers (stack − handle)")):
        b, t = med["base"][key], med["this"][key]
        print(f"| {name} | {b:.1f} | {t:.1f} | {t / b:.2f}× | {t - b:+.1f} |")
    allowed = 1.15 * med["base"]["stack_us"] + (med["this"]["handle_us"] - med["base"]["handle_us"])
    verdict = "PASS" if med["this"]["stack_us"] <= allowed else "FAIL"
    print(f"[{verdict}] stack ≤ 1.15 × base's + the growth of handle: {med['this']['stack_us']:.1f} ≤ {allowed:.1f} µs")
    return 0


if __name__ == "__main__":
    sys.exit(main())
