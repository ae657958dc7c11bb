#!/usr/bin/env python
"""Connection-layer micro-benchmark (issue 11): what the bounded protocol costs per request.

    .venv/bin/python bench/protocol_bench.py            # 10 batches of 5,000 requests per protocol
    .venv/bin/python bench/protocol_bench.py --quick    # 3 batches of 2,000

uvicorn's ``HttpToolsProtocol`` and ours (``app/http/protocol.py``: head deadline, head caps,
trailers and Upgrade ignored, shedding by requests in flight) each serve the same keep-alive
stream of POST /mcp requests (a realistic head of 7 fields, a 140-byte body) through an in-memory
transport to a trivial ASGI app, on uvloop. Only the connection layer differs, so the difference is
its cost. Batches alternate (A B A B …) and each figure is the median of its batches' process CPU
per request, so both sides see the same machine load; the ratio is taken inside one run.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import statistics
import sys
import time
from pathlib import Path

import uvicorn
import uvloop
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol
from uvicorn.server import ServerState

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))
from app.http.observe import Observer  # noqa: E402
from app.http.protocol import ConnectionLimits, protocol_class  # noqa: E402

BODY = (b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"check_permission","arguments":'
        b'{"caller":"doctor_assistant","mcp":"a207-lis-mcp","action":"read"}}}')
REQUEST = (b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:8000\r\nUser-Agent: bench\r\nAccept: application/json\r\n"
           b"Authorization: Bearer " + b"t" * 43 + b"\r\nContent-Type: application/json\r\n"
           b"X-Request-ID: bench-1\r\nContent-Length: %d\r\n\r\n" % len(BODY) + BODY)
ANSWER = b'{"jsonrpc":"2.0","id":1,"result":{}}'


class Transport:
    """Enough of an asyncio transport for uvicorn's protocol: writes are counted, not sent."""

    def __init__(self):
        self.closing = False
        self.writes = 0

    def write(self, data):
        self.writes += 1

    def close(self):
        self.closing = True

    def is_closing(self):
        return self.closing

    def get_extra_info(self, name, default=None):
        return {"sockname": ("127.0.0.1", 8000), "peername": ("127.0.0.1", 50000)}.get(name, default)

    def pause_reading(self):
        pass

    def resume_reading(self):
        pass

    def set_write_buffer_limits(self, *args, **kwargs):
        pass


async def app(scope, receive, send):
    while (await receive()).get("more_body"):
        pass
    await send({"type": "http.response.start", "status": 200,
                "headers": [(b"content-type", b"application/json"), (b"content-length", b"%d" % len(ANSWER))]})
    await send({"type": "http.response.body", "body": ANSWER})


async def batch(cls, config, requests: int) -> float:
    """Process CPU seconds per request for ``requests`` keep-alive requests on one connection."""
    state = ServerState()
    protocol = cls(config=config, server_state=state, app_state={}, _loop=asyncio.get_running_loop())
    transport = Transport()
    protocol.connection_made(transport)
    gc.disable()
    started = time.process_time()
    for _ in range(requests):
        protocol.data_received(REQUEST)
        while state.tasks:  # let the app task answer before the next request arrives
            await asyncio.sleep(0)
    elapsed = time.process_time() - started
    gc.enable()
    assert transport.writes >= requests, "requests were not answered"
    protocol.connection_lost(None)
    return elapsed / requests


async def run(batches: int, requests: int) -> dict[str, list[float]]:
    configs = {}
    for name, http in (("uvicorn", HttpToolsProtocol), ("ours", protocol_class(ConnectionLimits(), Observer()))):
        config = uvicorn.Config(app=app, http=http, ws="none", lifespan="off", log_level="warning", access_log=False)
        config.load()
        configs[name] = (http, config)
    results: dict[str, list[float]] = {name: [] for name in configs}
    for name, (cls, config) in configs.items():  # warm-up
        await batch(cls, config, requests // 4)
    for _ in range(batches):
        for name, (cls, config) in configs.items():
            results[name].append(await batch(cls, config, requests))
    return results


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="3 batches of 2,000 requests")
    args = parser.parse_args()
    batches, requests = (3, 2_000) if args.quick else (10, 5_000)
    results = uvloop.run(run(batches, requests))
    medians = {name: statistics.median(values) * 1e6 for name, values in results.items()}
    print(f"{batches} alternating batches of {requests:,} keep-alive requests per protocol, process CPU per request:")
    for name, value in medians.items():
        print(f"  {name:8s} {value:7.2f} µs  (batches {min(results[name]) * 1e6:.2f}–{max(results[name]) * 1e6:.2f})")
    print(f"  ours / uvicorn: {medians['ours'] / medians['uvicorn']:.3f}×  (+{medians['ours'] - medians['uvicorn']:.2f} µs per request)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
