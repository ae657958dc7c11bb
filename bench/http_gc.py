#!/usr/bin/env python
"""Where the HTTP path's CPU and tail go (issue 22): this tree against another, garbage collector watched.

    .venv/bin/python bench/http_gc.py --base /tmp/befbd5a --rounds 4     # git worktree add /tmp/befbd5a befbd5a
    .venv/bin/python bench/http_gc.py --base /tmp/befbd5a --rounds 1 --profile /tmp/prof

Each tree's ``python -m app serve`` runs under bench/servers/instrumented.py (every collection's
generation and pause through ``gc.callbacks``; cProfile with ``--profile DIR``) and gets
bench/http_bench.py's request mix from wrk at one concurrency, the two trees alternating in one run
(this base base this …, so a loaded machine slows both alike). Printed per run: req/s, p50, p99,
p99/p50, max (each request's own latency from bench/mix.lua's log, each connection's first left
out: see bench/http_bench.py), the same percentiles of each request's time inside the server process (head
parsed → answer written), server CPU per request, and per 1,000 requests the collections of each generation,
their pause time and the longest pause, and the event loop's turns over 20 ms (from a 1 ms tick):
its own (the main thread was on CPU through most of it) or preempted (the machine ran something
else); then the medians' ratios this/base.
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
class Instrumented(Server):
    stats: Path | None = None
    profile: Path | None = None

    def command(self) -> list[str]:
        cmd = pin(self.core) + [sys.executable, str(BENCH / "servers" / "instrumented.py"),
                                "--port", str(self.port), "--stats", str(self.stats)]
        return cmd + (["--profile", str(self.profile)] if self.profile else [])


def one_run(label: str, root: Path, args, token: str, bodies_lua: Path, workdir: Path, cores, round_no: int) -> dict:
    server_core, load_core = cores
    stats = workdir / f"{label}-{round_no}.json"
    profile = Path(args.profile) / f"{label}-{round_no}.pstats" if args.profile else None
    server = Instrumented("ours", free_port(), token, server_core, workdir, root=root, stats=stats, profile=profile)
    try:
        server.start()
        wrk(server.port, token, bodies_lua, args.connections, args.warmup, load_core)
        server.proc.send_signal(signal.SIGUSR1)  # count collections from here
        cpu0 = server.cpu_seconds()
        log = workdir / f"{label}-{round_no}.log"
        data = wrk(server.port, token, bodies_lua, args.connections, args.duration, load_core, log)
        cpu = server.cpu_seconds() - cpu0
    finally:
        server.stop()
    gc_stats = json.loads(stats.read_text())
    n = data["requests"]
    latencies = Latencies.read(log, args.connections)
    bad = data["bad_status"] + data["bad_body"] + sum(data["errors"].values())
    row = {
        "tree": label, "round": round_no, "requests": n, "bad": bad,
        # Each request's own latency, each connection's first left out (bench/http_bench.py's Latencies).
        "rps": n / (data["duration_us"] / 1e6), "p50": latencies.percentile(0.5), "p99": latencies.percentile(0.99),
        "max": max(latencies.steady, default=0.0), "cpu_us": cpu / n * 1e6 if n else 0.0,
    }
    for gen in (0, 1, 2):
        g = gc_stats[f"gen{gen}"]
        row[f"gen{gen}_per_k"] = g["count"] / n * 1000
        row[f"gen{gen}_us_per_req"] = g["total_ms"] * 1000 / n
        row[f"gen{gen}_max_ms"] = g["max_ms"]
    row["gc_us_per_req"] = sum(row[f"gen{g}_us_per_req"] for g in (0, 1, 2))
    row["gc_max_ms"] = max(row[f"gen{g}_max_ms"] for g in (0, 1, 2))
    row["gc_max_cpu_ms"] = max(gc_stats[f"gen{g}"]["max_cpu_ms"] for g in (0, 1, 2))
    row["gc_counts"] = [gc_stats[f"gen{g}"]["count"] for g in (0, 1, 2)]
    loop = gc_stats["loop"]
    row["own_stalls_per_k"] = loop["long_own"] / n * 1000
    row["preempted_per_k"] = loop["long_preempted"] / n * 1000
    row["longest_own_ms"] = loop["longest_own_ms"]
    row["longest_preempted_ms"] = loop["longest_preempted_ms"]
    inside = gc_stats["inside"]
    row["inside_p50"], row["inside_p99"] = inside["wall"]["p50_ms"], inside["wall"]["p99_ms"]
    row["cpu_p50"], row["cpu_p99"] = inside["cpu"]["p50_ms"], inside["cpu"]["p99_ms"]
    return row


def show(row: dict) -> str:
    return (f"| {row['round']} | {row['tree']} | {row['rps']:,.0f} | {row['p50']:.2f} | {row['p99']:.2f} | "
            f"{row['p99'] / row['p50']:.2f}× | {row['max']:.1f} | {row['inside_p50']:.2f} / {row['inside_p99']:.2f} | "
            f"{row['cpu_p50']:.2f} / {row['cpu_p99']:.2f} ({row['cpu_p99'] / row['cpu_p50'] if row['cpu_p50'] else 0:.2f}×) | "
            f"{row['cpu_us']:.0f} | "
            f"{row['gen0_per_k']:.1f} / {row['gen1_per_k']:.2f} / {row['gen2_per_k']:.3f} | "
            f"{row['gc_us_per_req']:.1f} | {row['gc_max_ms']:.2f} ({row['gc_max_cpu_ms']:.2f} CPU) | {row['own_stalls_per_k']:.2f} / {row['longest_own_ms']:.0f} | "
            f"{row['preempted_per_k']:.2f} / {row['longest_preempted_ms']:.0f} | {row['bad']} |")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--base", required=True, help="the other tree (its app/ is served)")
    parser.add_argument("--profile", default=None, help="write a cProfile per run into this directory")
    args = side_by_side(parser, rounds=4, duration=5.0, warmup=2.0)
    if shutil.which("wrk") is None:
        print("wrk is not installed (scripts/ensure-system-tools.sh installs it)", file=sys.stderr)
        return 2
    if args.profile:
        Path(args.profile).mkdir(parents=True, exist_ok=True)
    trees = {"this": ROOT, "base": Path(args.base).resolve()}
    print(f"http_gc: this {ROOT} against base {trees['base']}; c={args.connections}, {args.rounds} round(s) of "
          f"{args.warmup} s warm-up + {args.duration} s; load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print("| round | tree | req/s | p50 ms | p99 ms | p99/p50 | max ms | in the server p50 / p99 ms | same on its CPU clock p50 / p99 ms | CPU µs/req | GC gen0 / gen1 / gen2 per 1k req "
          "| GC µs/req | longest GC ms | own loop stalls > 20 ms per 1k req / longest ms "
          "| preempted > 20 ms per 1k req / longest ms | bad |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    rows = alternate(["this", "base"], args.rounds,
                     lambda label, token, bodies_lua, workdir, round_no: one_run(
                         label, trees[label], args, token, bodies_lua, workdir, args.cores, round_no),
                     show, "http_gc_")

    def med(tree: str, key: str) -> float:
        return statistics.median(r[key] for r in rows if r["tree"] == tree)

    for key, name in (("cpu_us", "CPU µs/req"), ("p50", "p50"), ("p99", "p99"), ("gc_us_per_req", "GC µs/req")):
        print(f"median {name}: this {med('this', key):.1f}, base {med('base', key):.1f}, this/base {med('this', key) / med('base', key):.2f}×")
    spread = {t: statistics.median(r["p99"] / r["p50"] for r in rows if r["tree"] == t) for t in trees}
    print(f"median p99/p50 (each request, first requests out): this {spread['this']:.2f}×, base {spread['base']:.2f}×")
    own = {t: statistics.median(r["cpu_p99"] / r["cpu_p50"] for r in rows if r["tree"] == t and r["cpu_p50"]) for t in trees}
    print(f"median p99/p50 inside the server on its CPU clock (preemption left out): this {own['this']:.2f}×, "
          f"base {own['base']:.2f}×")
    paired = [t["cpu_us"] / b["cpu_us"] for t, b in zip([r for r in rows if r["tree"] == "this"],
                                                         [r for r in rows if r["tree"] == "base"], strict=True)]
    print(f"CPU per request this/base, paired by round: {' '.join(f'{p:.2f}×' for p in paired)}; median {statistics.median(paired):.2f}×")
    return 0 if all(r["bad"] == 0 for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
