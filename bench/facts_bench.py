#!/usr/bin/env python
"""What patient facts cost (issue 32): the same call with and without ``patient_facts``, side by side.

    .venv/bin/python bench/facts_bench.py            # the table and the ratios
    .venv/bin/python bench/facts_bench.py --quick    # fewer rounds (a smoke run)

Each row is one tool (through ``Router.call``, the validated entry the protocol layer uses) on one
text, once without facts and once with ``{"age_years": 8, "kidney_therapy": "transplant",
"nephrotic": true}`` — the facts that ask for every fact word and a temperature. The two variants
run in alternating batches (A B A B …, the collector off inside a batch) and each figure is the
median µs per call of its batches (and, beside it, the fastest batch of each: the least disturbed
by other processes), in CPU time of the thread (``time.thread_time_ns``: the machine
is shared, and wall time counted other processes' turns); the ratio is with / without of the same
run. "all texts" sums
the medians over the texts of a tool: the cost per call of that mix. A text where the facts make a
red flag halts with them and not without, so its two calls do different work (marked "decides
otherwise"). Last, the mix of real messages: the committed texts of evals/realtext, each called once
per round, with and without the same facts in alternating rounds (the mean µs per call).
"""

from __future__ import annotations

import argparse
import gc
import json
import statistics
import sys
import time
from datetime import date
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.router_bench import MESSAGE  # noqa: E402

FACTS = {"age_years": 8, "kidney_therapy": "transplant", "nephrotic": True}
TEXTS = {
    "bench MESSAGE (nutrition, labs, no fever)": MESSAGE,
    "fever question": "孩子昨天晚上开始发烧，今天早上量了体温37.6，能吃香蕉吗",
    "belly pain question": "孩子肚子有点疼，晚饭吃了两碗米饭和半个苹果，明天早餐吃什么好",
    "knowledge question": "慢性肾病的孩子一天能吃多少盐？",
    "fever now (the facts halt it)": "孩子今天烧到38.6，怎么办",
}


def call_args(tool: str, text: str, facts: dict[str, Any] | None) -> dict[str, Any]:
    args: dict[str, Any] = ({"text": text, "caller": "parent_assistant", "patient_id": "P0001", "reference_date": "2026-12-01"}
                            if tool == "route_request" else {"intent": text, "caller": "parent_assistant"})
    if facts is not None:
        args["patient_facts"] = facts
    return args


def batch(router: Any, tool: str, args: dict[str, Any], n: int) -> float:
    gc.collect()
    gc.disable()
    try:
        t0 = time.thread_time_ns()
        for _ in range(n):
            router.call(tool, args)
        return (time.thread_time_ns() - t0) / n / 1000
    finally:
        gc.enable()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args(argv)
    rounds, per_batch = (7, 100) if args.quick else (31, 300)

    from app.router import Limits, Router, load_policy

    router = Router(load_policy(), Limits(), today=lambda: date(2026, 12, 1))
    print(f"rounds {rounds} × {per_batch} calls per variant, alternating; policy {router.policy_version}; "
          f"python {sys.version.split()[0]}\n")
    print("| tool | text | without facts µs | with facts µs | ratio | fastest batches: without / with = ratio |")
    print("|---|---|---:|---:|---:|---:|")
    worst = 0.0
    for tool in ("route_request", "check_safety_gate"):
        sums = [0.0, 0.0]
        lows = [0.0, 0.0]
        for name, text in TEXTS.items():
            plain, facts = call_args(tool, text, None), call_args(tool, text, FACTS)
            differs = router.call(tool, plain).model_dump() != router.call(tool, facts).model_dump()
            for _ in range(3):  # warm-up
                batch(router, tool, plain, per_batch // 10 or 1)
                batch(router, tool, facts, per_batch // 10 or 1)
            times: list[list[float]] = [[], []]
            for _ in range(rounds):
                times[0].append(batch(router, tool, plain, per_batch))
                times[1].append(batch(router, tool, facts, per_batch))
            a, b = statistics.median(times[0]), statistics.median(times[1])
            low_a, low_b = min(times[0]), min(times[1])
            sums[0] += a
            sums[1] += b
            lows[0] += low_a
            lows[1] += low_b
            if not differs:
                worst = max(worst, b / a)
            print(f"| {tool} | {name}{' — decides otherwise' if differs else ''} | {a:.1f} | {b:.1f} | {b / a:.3f} "
                  f"| {low_a:.1f} / {low_b:.1f} = {low_b / low_a:.3f} |")
        print(f"| {tool} | **all texts** | {sums[0]:.1f} | {sums[1]:.1f} | **{sums[1] / sums[0]:.3f}** "
              f"| {lows[0]:.1f} / {lows[1]:.1f} = {lows[1] / lows[0]:.3f} |")
    print(f"\nworst ratio of a call the facts do not decide otherwise: {worst:.3f}")

    # The mix of real messages: every text of evals/realtext (committed), each called once per
    # round and variant, the variants alternating round by round.
    texts = [json.loads(line)["text"] for name in ("redflags.jsonl", "indomain.jsonl")
             for line in (ROOT / "evals" / "realtext" / name).read_text(encoding="utf-8").splitlines() if line.strip()]
    mix_rounds = 3 if args.quick else 9
    print(f"\n| tool | the {len(texts)} texts of evals/realtext, µs per call | without facts | with facts | ratio | fastest rounds |")
    print("|---|---|---:|---:|---:|---:|")
    for tool in ("route_request", "check_safety_gate"):
        variants = [[call_args(tool, t[:2000], None) for t in texts], [call_args(tool, t[:2000], FACTS) for t in texts]]
        totals: list[list[float]] = [[], []]
        for _ in range(mix_rounds):
            for k in (0, 1):
                gc.collect()
                gc.disable()
                try:
                    t0 = time.thread_time_ns()
                    for arguments in variants[k]:
                        router.call(tool, arguments)
                    totals[k].append((time.thread_time_ns() - t0) / len(texts) / 1000)
                finally:
                    gc.enable()
        a, b = statistics.median(totals[0]), statistics.median(totals[1])
        low_a, low_b = min(totals[0]), min(totals[1])
        print(f"| {tool} | mean of the mix | {a:.1f} | {b:.1f} | {b / a:.3f} | {low_a:.1f} / {low_b:.1f} = {low_b / low_a:.3f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
