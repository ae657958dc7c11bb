"""``python -m app serve`` of whichever tree is first on PYTHONPATH, with the garbage collector
watched (and optionally cProfile): bench/http_gc.py starts it for this tree and another.

    python bench/servers/instrumented.py --port P --stats OUT.json [--profile OUT.pstats]

Every collection's generation and pause (``gc.callbacks``, perf_counter around it) is recorded
from the start, and again from zero on SIGUSR1 (sent when the measured load begins, which also starts cProfile if asked); at exit (SIGTERM: uvicorn's graceful shutdown) the counts, the pause
total and maximum and the pause percentiles per generation are written to ``--stats`` as JSON.
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import gc
import json
import signal
import sys
import time


class LoopWatch:
    """The event loop's turns, from a callback re-armed every millisecond: a turn that takes long
    delays every request in flight. Each gap over ``LONG`` is kept with the main thread's CPU time
    over it: near the gap, this process was working (its own stall: a slow request, a collection);
    near zero, the machine gave the core to another process (preemption: not this code's doing)."""

    LONG = 0.020

    def __init__(self) -> None:
        self.gaps: list[tuple[float, float]] = []
        self.turns = 0
        self._wall = self._cpu = 0.0

    def start(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._wall, self._cpu = time.perf_counter(), time.thread_time()
        self._loop.call_later(0.001, self._tick)

    def reset(self) -> None:
        self.gaps, self.turns = [], 0

    def _tick(self) -> None:
        wall, cpu = time.perf_counter(), time.thread_time()
        self.turns += 1
        if wall - self._wall > self.LONG:
            self.gaps.append((wall - self._wall, cpu - self._cpu))
        self._wall, self._cpu = wall, cpu
        self._loop.call_later(0.001, self._tick)

    def summary(self) -> dict:
        own = [g for g, c in self.gaps if c >= 0.5 * g]
        preempted = [g for g, c in self.gaps if c < 0.5 * g]
        return {"ticks": self.turns, "long_own": len(own), "long_preempted": len(preempted),
                "longest_own_ms": max(own, default=0.0) * 1000, "longest_preempted_ms": max(preempted, default=0.0) * 1000}


class ServerLatency:
    """Each request's time inside this process: from the parser's first callback of its head to
    the end of its answer (uvicorn's ``on_message_begin`` → ``on_response_complete``), on the wall
    clock and on the main thread's CPU clock. Against wrk's latency the wall figure tells a wait in
    this process from one in the kernel or the client; the CPU figure is the same wait with the
    time the machine gave the core to other processes left out (what this code's own work and
    ordering make of the tail)."""

    def __init__(self) -> None:
        self.seconds: list[float] = []
        self.cpu_seconds: list[float] = []  # the same span on the main thread's CPU clock

    def install(self) -> None:
        from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

        begin, complete = HttpToolsProtocol.on_message_begin, HttpToolsProtocol.on_response_complete
        seconds, cpu_seconds = self.seconds, self.cpu_seconds

        def on_message_begin(protocol) -> None:
            protocol._bench_began = time.perf_counter(), time.thread_time()
            begin(protocol)

        def on_response_complete(protocol) -> None:
            wall, cpu = protocol._bench_began
            seconds.append(time.perf_counter() - wall)
            cpu_seconds.append(time.thread_time() - cpu)
            complete(protocol)

        HttpToolsProtocol.on_message_begin = on_message_begin  # type: ignore[method-assign]
        HttpToolsProtocol.on_response_complete = on_response_complete  # type: ignore[method-assign]

    def reset(self) -> None:
        self.seconds.clear()
        self.cpu_seconds.clear()

    def summary(self) -> dict:
        out = {}
        for name, values in (("wall", sorted(self.seconds)), ("cpu", sorted(self.cpu_seconds))):
            if values:
                out[name] = {"p50_ms": values[len(values) // 2] * 1000, "p99_ms": values[int(len(values) * 0.99)] * 1000,
                             "max_ms": values[-1] * 1000}
            else:
                out[name] = {"p50_ms": 0.0, "p99_ms": 0.0, "max_ms": 0.0}
        return out


class GcWatch:
    def __init__(self) -> None:
        self.pauses: dict[int, list[float]] = {0: [], 1: [], 2: []}
        self.cpu = {0: 0.0, 1: 0.0, 2: 0.0}  # the longest collection's CPU time: below its wall time = preempted
        self.collected = 0
        self._started = 0.0

    def reset(self) -> None:
        self.cpu = {0: 0.0, 1: 0.0, 2: 0.0}
        self.pauses = {0: [], 1: [], 2: []}
        self.collected = 0

    def __call__(self, phase: str, info: dict) -> None:
        if phase == "start":
            self._started, self._cpu = time.perf_counter(), time.thread_time()
        else:
            self.pauses[info["generation"]].append(time.perf_counter() - self._started)
            self.cpu[info["generation"]] = max(self.cpu[info["generation"]], time.thread_time() - self._cpu)
            self.collected += info["collected"]

    def summary(self) -> dict:
        out: dict = {"collected": self.collected, "frozen": gc.get_freeze_count(), "tracked_after": len(gc.get_objects())}
        for gen, values in self.pauses.items():
            values = sorted(values)
            out[f"gen{gen}"] = {
                "count": len(values),
                "total_ms": sum(values) * 1000,
                "max_ms": (values[-1] * 1000) if values else 0.0,
                "p99_ms": (values[int(len(values) * 0.99)] * 1000) if values else 0.0,
                "max_cpu_ms": self.cpu[gen] * 1000,
            }
        return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--stats", required=True)
    parser.add_argument("--profile", default=None)
    args = parser.parse_args()

    import uvicorn

    from app.http import serve

    loop_watch = LoopWatch()
    latency = ServerLatency()
    latency.install()
    startup = uvicorn.Server.startup

    async def startup_then_watch(self, sockets=None) -> None:
        await startup(self, sockets)
        loop_watch.start()

    uvicorn.Server.startup = startup_then_watch  # type: ignore[method-assign]
    watch = GcWatch()
    gc.callbacks.append(watch)
    profiler = cProfile.Profile() if args.profile else None

    def measure_from_here(*_) -> None:
        watch.reset()
        loop_watch.reset()
        latency.reset()
        if profiler:
            profiler.enable()  # in the signal handler: the main thread, which runs the event loop

    signal.signal(signal.SIGUSR1, measure_from_here)
    # uvicorn re-raises the SIGTERM it drained on, after restoring this handler: an exit that runs
    # the finally block below instead of the default handler's immediate death.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    try:
        code = serve.serve(args.host, args.port)
    finally:
        if profiler:
            profiler.disable()
            profiler.dump_stats(args.profile)
        gc.callbacks.remove(watch)
        with open(args.stats, "w") as out:
            json.dump({**watch.summary(), "loop": loop_watch.summary(), "inside": latency.summary()}, out)
    return code


if __name__ == "__main__":
    raise SystemExit(main())
