"""bench/load.py, small: 3,000 checked requests at c=16 against a real server, bounded in time.

The full run (100,000 at c=64) is ``python bench/load.py``; this keeps the script working in CI
and proves its checker notices a wrong answer.
"""

from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
from pathlib import Path

import orjson
import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "bench" / "load.py"


def _load_module():
    spec = importlib.util.spec_from_file_location("a207_bench_load", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


@pytest.mark.network
def test_small_load_without_loss():
    result = subprocess.run(
        [sys.executable, str(SCRIPT), "--requests", "3000", "--concurrency", "16", "--warmup", "600", "--max-seconds", "30"],
        capture_output=True, text=True, timeout=90, cwd=ROOT,
    )
    summary = [line for line in result.stdout.splitlines() if line.startswith("load: ")]
    assert summary, result.stdout[-2000:] + result.stderr[-2000:]
    line = summary[-1]
    assert result.returncode == 0, line + "\n" + result.stdout[-2000:]
    figures = dict(re.findall(r"(\w+)=(\S+)", line))
    assert figures["requests"] == "3000"
    assert figures["5xx"] == figures["connection_errors"] == figures["mismatches"] == figures["tracebacks"] == "0"
    statuses = orjson.loads(line.split("statuses=", 1)[1])
    assert set(statuses) >= {"200", "202", "400", "401", "403", "405", "413", "415"}, "every path is exercised"


def test_the_checker_notices_a_wrong_answer():
    load = _load_module()
    cases, fresh = load.build_cases("t" * 43, load._policy_data(), 3, seed=1)
    tool = next(c for c in cases if c.kind == "tool" and c.tool == "route_request" and not c.is_error)
    refusal = next(c for c in cases if c.kind == "documented" and c.status == 401)

    def answer(structured, is_error=False):
        text = orjson.dumps(structured).decode()
        return orjson.dumps({"jsonrpc": "2.0", "id": 1, "result": {
            "content": [{"type": "text", "text": text}], "structuredContent": structured, "isError": is_error}})

    tally = load.Tally()
    load.check(tally, 0, tool, 200, {}, answer(tool.expected))
    assert tally.mismatches == 0
    wrong = dict(tool.expected, status="proceed" if tool.expected["status"] != "proceed" else "halt")
    load.check(tally, 1, tool, 200, {}, answer(wrong))
    load.check(tally, 2, tool, 200, {}, answer(tool.expected, is_error=True))
    load.check(tally, 3, tool, 502, {}, b"Bad Gateway")
    load.check(tally, 4, refusal, 401, {}, orjson.dumps(load.DOCUMENTED[401]))  # no WWW-Authenticate
    load.check(tally, 5, refusal, 401, {b"www-authenticate": b"Bearer"}, orjson.dumps(load.DOCUMENTED[401]))
    assert tally.mismatches == 4 and tally.server_errors == 1
    assert len(fresh) == 3 and all(c.kind == "tool" for c in fresh)
