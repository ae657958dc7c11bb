#!/usr/bin/env python
"""What patient facts cost (issue 32), counted in instructions instead of seconds.

    .venv/bin/python bench/facts_instructions.py          # the real-text mix and every bench text (~10 min)
    .venv/bin/python bench/facts_instructions.py --mix    # the real-text mix only (~4 min)

``bench/facts_bench.py`` times the same calls with and without facts; on a shared machine its
ratios swung 0.93–1.20× between runs for the same rows, far more than the 5 % it is meant to judge.
``valgrind --tool=callgrind`` counts the instructions a process executes, whatever else the machine
does. Each figure here is one process that builds the router and makes N calls, minus one that
builds it and makes none (the start-up), divided by N: instructions per call, with and without
``bench/facts_bench.py``'s facts (those that read every rule), side by side. Needs valgrind.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.facts_bench import FACTS, TEXTS  # noqa: E402

TOOLS = ("route_request", "check_safety_gate")
PASSES = 2  # passes over the real-text mix (1,083 texts each)
REPEATS = 300  # calls of one bench text


def _child(argv: list[str]) -> None:
    """Inside valgrind: build the router, make the calls ``argv`` names, nothing else."""
    from datetime import date

    from app.router import Router, load_policy

    router = Router(load_policy(), today=lambda: date(2026, 12, 1))
    tool, facts, what, count = argv[0], argv[1] == "with", argv[2], int(argv[3])
    if what == "mix":
        texts = [json.loads(line)["text"] for name in ("redflags", "indomain")
                 for line in (ROOT / "evals" / "realtext" / f"{name}.jsonl").read_text(encoding="utf-8").splitlines()]
    else:
        texts = [list(TEXTS.values())[int(what)]]
    for _ in range(count):
        for text in texts:
            args = ({"text": text, "caller": "parent_assistant", "patient_id": "P0001"} if tool == "route_request"
                    else {"intent": text, "caller": "parent_assistant"})
            if facts:
                args["patient_facts"] = FACTS
            router.call(tool, args)


def _instructions(*argv: str) -> int:
    done = subprocess.run(
        ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", sys.executable, __file__, "--child", *argv],
        capture_output=True, text=True, check=True)
    line = next(line for line in done.stderr.splitlines() if "Collected" in line)
    return int(line.split()[-1])


def main() -> int:
    if sys.argv[1:2] == ["--child"]:
        _child(sys.argv[2:])
        return 0
    start = _instructions("route_request", "without", "0", "0")
    rows = [("mix", PASSES * 1083, "the 1,083 texts of evals/realtext")]
    if "--mix" not in sys.argv:
        rows += [(str(i), REPEATS, name) for i, name in enumerate(TEXTS) if "halt" not in name]
    print("| tool | text | without facts, instructions per call | with facts | ratio |\n|---|---|---:|---:|---:|")
    for what, calls, name in rows:
        count = str(PASSES if what == "mix" else REPEATS)
        for tool in TOOLS:
            without = (_instructions(tool, "without", what, count) - start) / calls
            with_facts = (_instructions(tool, "with", what, count) - start) / calls
            print(f"| {tool} | {name} | {without:,.0f} | {with_facts:,.0f} | {with_facts / without:.3f} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
