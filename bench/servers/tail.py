"""``python -m app serve`` of whichever tree is first on PYTHONPATH, with the times bench/http_tail.py
needs and one of its variants.

    python bench/servers/tail.py --port P --events OUT.json [--variant NAME]

From SIGUSR1 (sent when the measured load begins) every ``connection_made`` and each request's
first parser callback and end of answer (uvicorn's ``on_message_begin`` → ``on_response_complete``)
are recorded on the monotonic clock — the clock bench/mix.lua logs on — and written to ``--events``
at exit (SIGTERM). Variants, each one change to the tree's own serving:

* ``as-is``           — nothing changed;
* ``one-accept``      — app.http.serve's extra listening handles off (libuv's one accept per turn);
* ``uvicorn-protocol`` — uvicorn's own HttpToolsProtocol instead of app/http/protocol.py's;
* ``stand-in:US``     — ``McpServer.handle`` replaced by each body's first reply, returned after
  spinning US µs of CPU: the router's cost made constant (its variation taken out).
"""

from __future__ import annotations

import argparse
import json
import signal
import sys
import time
from array import array


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--events", required=True)
    parser.add_argument("--variant", default="as-is")
    args = parser.parse_args()

    from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

    from app.http import serve

    clock = time.perf_counter  # CLOCK_MONOTONIC on Linux, as bench/mix.lua's
    on = [False]
    made, began, ended = array("d"), array("d"), array("d")
    began_by, ended_by = array("q"), array("q")
    connection_made, begin, complete = (HttpToolsProtocol.connection_made, HttpToolsProtocol.on_message_begin,
                                        HttpToolsProtocol.on_response_complete)

    def timed_connection_made(protocol, transport) -> None:
        if on[0]:
            made.append(clock())
        connection_made(protocol, transport)

    def timed_begin(protocol) -> None:
        if on[0]:
            began.append(clock())
            began_by.append(id(protocol))
        begin(protocol)

    def timed_complete(protocol) -> None:
        if on[0]:
            ended.append(clock())
            ended_by.append(id(protocol))
        complete(protocol)

    HttpToolsProtocol.connection_made = timed_connection_made  # type: ignore[method-assign]
    HttpToolsProtocol.on_message_begin = timed_begin  # type: ignore[method-assign]
    HttpToolsProtocol.on_response_complete = timed_complete  # type: ignore[method-assign]

    variant = args.variant
    if variant == "one-accept":
        if not hasattr(serve, "ACCEPTS_PER_TURN"):
            raise SystemExit("this tree accepts one connection per turn already")
        serve.ACCEPTS_PER_TURN = 1  # type: ignore[attr-defined]
    elif variant == "uvicorn-protocol":
        serve.protocol_class = lambda limits, observer: "httptools"  # type: ignore[assignment]
    elif variant.startswith("stand-in:"):
        import dataclasses
        import re

        from app.protocol.server import McpServer

        route = McpServer.handle
        spin = float(variant.split(":", 1)[1]) / 1e6
        # bench/mix.lua gives every request its own id: replies are kept by the body without it,
        # and each answer gets its request's id back.
        request_id = re.compile(rb'"id":(\d+)')
        replies: dict = {}

        def stand_in(self, body, *roles):
            found = request_id.search(body)
            key = request_id.sub(b'"id":0', body, count=1)
            reply = replies.get(key)
            if reply is None:
                reply = replies[key] = route(self, key, *roles)
            started = time.thread_time()
            while time.thread_time() - started < spin:
                pass
            if found is None or reply.body is None:
                return reply
            return dataclasses.replace(reply, body=reply.body.replace(b'"id":0', b'"id":' + found.group(1), 1))

        McpServer.handle = stand_in  # type: ignore[method-assign]
    elif variant != "as-is":
        raise SystemExit(f"unknown variant {variant}")

    def measure_from_here(*_) -> None:
        on[0] = True

    signal.signal(signal.SIGUSR1, measure_from_here)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    try:
        return serve.serve("127.0.0.1", args.port)
    finally:
        with open(args.events, "w") as out:
            json.dump({"made": made.tolist(), "began": began.tolist(), "began_by": began_by.tolist(),
                       "ended": ended.tolist(), "ended_by": ended_by.tolist()}, out)


if __name__ == "__main__":
    raise SystemExit(main())
