#!/usr/bin/env python
"""Where the c=32 latency tail sits (issue 22): trees and variants side by side in one run.

    .venv/bin/python bench/http_tail.py this=. base=/tmp/befbd5a                 # git worktree add /tmp/befbd5a befbd5a
    .venv/bin/python bench/http_tail.py this=. one-accept=.:one-accept base=/tmp/befbd5a --rounds 3
    .venv/bin/python bench/http_tail.py this=. plain=.:uvicorn-protocol fixed=.:stand-in:320

Each LABEL=TREE[:VARIANT] is ``python -m app serve`` of TREE under bench/servers/tail.py (variants
there), driven by wrk with bench/http_bench.py's mix through bench/mix.lua, which logs each
request's own latency; the configurations alternate (a b c, c b a, …) so a loaded machine slows
them alike. Per run:

* wrk's own p50 / p99 — after wrk's coordinated-omission correction (stats_correct: for every
  request slower than twice a connection's mean round trip, synthetic samples at each multiple of
  that round trip below it);
* the same correction applied to the logged requests (it should reproduce wrk's figure), and to
  the logged requests without each connection's first;
* each request's own p50 / p99 without each connection's first (``steady``), and the slowest
  first request: a connection's first request waits for the server to accept the connection;
* the last ``connection_made`` after the first request was written (how long accepting took), and
  each request's time inside the server (first parser callback → answer written) p50 / p99;
* server CPU µs per request.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import statistics
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))
from bench.http_bench import BENCH, Latencies, Server, alternate, free_port, pin, side_by_side, wrk  # noqa: E402


@dataclass
class TailServer(Server):
    events: Path | None = None
    variant: str = "as-is"

    def command(self) -> list[str]:
        return pin(self.core) + [sys.executable, str(BENCH / "servers" / "tail.py"), "--port", str(self.port),
                                 "--events", str(self.events), "--variant", self.variant]


def percentile(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(len(values) * q))] if values else 0.0


def wrk_corrected(latencies: list[float], interval: float) -> list[float]:
    """wrk 4's stats_correct over a list of latencies (any unit, ``interval`` in the same)."""
    out = list(latencies)
    for value in latencies:
        if value >= 2 * interval:
            synthetic = value - interval
            while synthetic > interval:
                out.append(synthetic)
                synthetic -= interval
    return out


def one_run(label: str, root: Path, variant: str, args, token: str, bodies_lua: Path, workdir: Path, cores,
            round_no: int) -> dict:
    server_core, load_core = cores
    events = workdir / f"{label}-{round_no}.json"
    log = workdir / f"{label}-{round_no}.log"
    server = TailServer("ours", free_port(), token, server_core, workdir, root=root, events=events, variant=variant)
    try:
        server.start()
        wrk(server.port, token, bodies_lua, args.connections, args.warmup, load_core)
        server.proc.send_signal(signal.SIGUSR1)
        cpu0 = server.cpu_seconds()
        data = wrk(server.port, token, bodies_lua, args.connections, args.duration, load_core, log)
        cpu = server.cpu_seconds() - cpu0
    finally:
        server.stop()
    latencies = Latencies.read(log, args.connections)
    rows = sorted(tuple(float(x) for x in line.split()) for line in log.read_text().splitlines() if line)
    # wrk's interval: the run's duration over the requests each connection made.
    interval = data["duration_us"] / 1000 / (data["requests"] / args.connections)
    everything = latencies.steady + latencies.first
    corrected_all = wrk_corrected(everything, interval)
    corrected_steady = wrk_corrected(latencies.steady, interval)
    ev = json.loads(events.read_text())
    inside, opened = [], {}
    for kind, times, owners in (("b", ev["began"], ev["began_by"]), ("e", ev["ended"], ev["ended_by"])):
        for t, owner in zip(times, owners, strict=True):
            opened.setdefault(owner, []).append((t, kind))
    for marks in opened.values():
        marks.sort()
        inside += [(e - b) * 1000 for (b, k1), (e, k2) in zip(marks, marks[1:]) if k1 == "b" and k2 == "e"]
    first_write = min(w for _, w, _ in rows)
    n = data["requests"]
    return {
        "label": label, "round": round_no, "rps": n / (data["duration_us"] / 1e6), "requests": n,
        "bad": data["bad_status"] + data["bad_body"] + sum(data["errors"].values()),
        "wrk": (data["latency_us"]["p50"] / 1000, data["latency_us"]["p99"] / 1000),
        "wrk_emulated": (percentile(corrected_all, 0.5), percentile(corrected_all, 0.99)),
        "wrk_emulated_steady": (percentile(corrected_steady, 0.5), percentile(corrected_steady, 0.99)),
        "steady": (latencies.percentile(0.5), latencies.percentile(0.99)),
        "first_max": max(latencies.first, default=0.0), "split_ok": latencies.all_connections_opened,
        "accepted_ms": (max(ev["made"]) - first_write) * 1000 if ev["made"] else 0.0,
        "inside": (percentile(inside, 0.5), percentile(inside, 0.99)),
        "cpu_us": cpu / n * 1e6 if n else 0.0, "load": os.getloadavg()[0],
    }


def ratio(pair: tuple[float, float]) -> float:
    return pair[1] / pair[0] if pair[0] else 0.0


def show(row: dict) -> str:
    def pair(key: str) -> str:
        return f"{row[key][0]:.1f} / {row[key][1]:.1f} ({ratio(row[key]):.2f}×)"

    return (f"| {row['round']} | {row['label']} | {row['rps']:,.0f} | {pair('wrk')} | {pair('wrk_emulated')} | "
            f"{pair('wrk_emulated_steady')} | {pair('steady')} | {row['first_max']:.0f}{'' if row['split_ok'] else ' (?)'} | "
            f"{row['accepted_ms']:.0f} | {row['inside'][0]:.1f} / {row['inside'][1]:.1f} | {row['cpu_us']:.0f} | "
            f"{row['load']:.2f} | {row['bad']} |")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("configs", nargs="+", help="LABEL=TREE[:VARIANT] (variants: bench/servers/tail.py)")
    args = side_by_side(parser, rounds=2, duration=4.0, warmup=1.0)
    if shutil.which("wrk") is None:
        print("wrk is not installed (scripts/ensure-system-tools.sh installs it)", file=sys.stderr)
        return 2
    configs = []
    for spec in args.configs:
        label, _, rest = spec.partition("=")
        tree, _, variant = rest.partition(":")
        if not label or not tree:
            parser.error(f"not LABEL=TREE[:VARIANT]: {spec}")
        configs.append((label, Path(tree).resolve(), variant or "as-is"))
    print(f"http_tail: {' '.join(args.configs)}; c={args.connections}, {args.rounds} round(s) of {args.warmup} s "
          f"warm-up + {args.duration} s; load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print("| round | config | req/s | wrk p50 / p99 ms | wrk's correction on the logged requests | the same without "
          "first requests | each request p50 / p99 ms, first requests out | slowest first request ms | last accept "
          "ms after the first request | inside the server p50 / p99 ms | CPU µs/req | load | bad |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    rows = alternate(configs, args.rounds,
                     lambda config, token, bodies_lua, workdir, round_no: one_run(
                         *config, args, token, bodies_lua, workdir, args.cores, round_no),
                     show, "http_tail_")
    for label, _, _ in configs:
        mine = [r for r in rows if r["label"] == label]
        print(f"{label}: median p99/p50 — wrk {statistics.median(ratio(r['wrk']) for r in mine):.2f}×, each request "
              f"(first requests out) {statistics.median(ratio(r['steady']) for r in mine):.2f}×; CPU µs/req "
              f"{statistics.median(r['cpu_us'] for r in mine):.0f}; slowest first request "
              f"{statistics.median(r['first_max'] for r in mine):.0f} ms")
    return 0 if all(r["bad"] == 0 for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
