"""New connections on a busy server: accepted ``ACCEPTS_PER_TURN`` per event-loop turn, not one.

libuv (under uvloop) accepts one connection per turn; GracefulServer adds handles on the same
listening socket. Counted in turns of the loop, not in seconds: each ``await asyncio.sleep(0)`` of
the test is one turn, in which a busy server would also serve its requests in flight.
"""

from __future__ import annotations

import asyncio
import inspect
import math
import re
import socket

import pytest
import uvicorn
import uvloop
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from app.http import serve
from app.http.serve import ACCEPTS_PER_TURN, UVICORN_OPTIONS, GracefulServer


async def hello(scope, receive, send) -> None:
    await send({"type": "http.response.start", "status": 200, "headers": [(b"content-length", b"2")]})
    await send({"type": "http.response.body", "body": b"ok"})


async def accept_burst(connections: int) -> tuple[int, bytes, bool]:
    """(turns until every connection was made, one answer over the last one, whether the port
    still accepted a connection after shutdown)."""
    made: list[object] = []

    class Counting(HttpToolsProtocol):
        def connection_made(self, transport) -> None:  # type: ignore[override]
            made.append(self)
            super().connection_made(transport)

    options = {**UVICORN_OPTIONS, "http": Counting, "lifespan": "off"}
    config = uvicorn.Config(hello, host="127.0.0.1", port=0, **options)
    config.load()
    server = GracefulServer(config)
    server.lifespan = config.lifespan_class(config)
    await server.startup()
    port = server.servers[0].sockets[0].getsockname()[1]
    clients = [socket.create_connection(("127.0.0.1", port)) for _ in range(connections)]  # the kernel completes them
    turns = 0
    while len(made) < connections and turns < 4 * connections:
        await asyncio.sleep(0)
        turns += 1
    clients[-1].sendall(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
    reader = asyncio.get_running_loop().sock_recv
    clients[-1].setblocking(False)
    answer = await asyncio.wait_for(reader(clients[-1], 4096), 5)
    for client in clients:
        client.close()
    server.should_exit = True
    await server.shutdown()
    try:
        socket.create_connection(("127.0.0.1", port), timeout=1).close()
        still_open = True
    except OSError:
        still_open = False
    return turns, answer, still_open


@pytest.mark.parametrize(("connections", "handles"), [
    (16, ACCEPTS_PER_TURN),
    (48, ACCEPTS_PER_TURN),
    (48, 1),  # libuv alone: what the extra handles are for (this row fails once libuv accepts in a loop again)
], ids=["a burst of 16", "a burst of 48", "a burst of 48, libuv's one handle"])
def test_a_burst_of_connections_is_accepted_in_a_few_turns(monkeypatch, connections, handles):
    monkeypatch.setattr(serve, "ACCEPTS_PER_TURN", handles)
    turns, answer, still_open = uvloop.run(accept_burst(connections))
    # connection_made runs a turn after its accept: up to two turns more than the accepts need.
    assert math.ceil(connections / handles) <= turns <= math.ceil(connections / handles) + 2, turns
    assert answer.startswith(b"HTTP/1.1 200"), answer
    assert not still_open, "the listening socket outlived shutdown (a descriptor of it was left open)"


def test_the_extra_handles_build_protocols_as_uvicorn_does():
    # GracefulServer.startup restates Server.startup's create_protocol: the same class and arguments.
    source = inspect.getsource(uvicorn.Server.startup)
    call = source[source.index("config.http_protocol_class("):]
    call = call[:call.index(")")]
    assert re.findall(r"(\w+)=", call) == ["config", "server_state", "app_state", "_loop"], call
    assert "server_state=self.server_state" in call and "app_state=self.lifespan.state" in call, call
