"""End-to-end evaluation: every case of ``evals/cases.jsonl`` through the official MCP client.

    python evals/run.py                       start a server on a free loopback port, run, report
    python evals/run.py --seed 7              reproduce a shuffled order
    python evals/run.py --url http://h:p/mcp  target a running server (token from ROUTER_MCP_AUTH_TOKEN)
    python evals/run.py --inprocess           same comparisons against the Router directly (triage)

Cases run in a shuffled order (the seed is printed): a result must not depend on what ran before.
Each ``expected`` key (dotted keys reach into nested objects) must equal the tool's
``structuredContent``; lists compare exactly, order included; a bool only equals a bool. A result
with ``isError`` fails unless the case expects an ``error``. The text content must be the same
object as ``structuredContent`` (SPEC §5.3).

Figures keep passes and refusals apart: the pass rate on ``should_pass`` cases and the correct
refusal rate on ``should_refuse`` cases are never merged into one number. "Chose the right MCP"
(``mcp`` / ``resolved_mcp`` matched) is reported apart from "reached the right final status"
(``status`` / ``allow`` matched): a request can name the right server and still have to be denied.

Writes ``<out>/report.json`` (every case: ok, mismatching fields got vs expected) and
``<out>/REPORT.md`` (the figures as markdown tables). Exit status: 0 when every ``spec_rule`` case
passes and intent accuracy on ``phrasing`` cases is at least 95 %; 1 otherwise; 2 when the run
itself could not happen (server did not start, bad arguments).
"""

from __future__ import annotations

import argparse
import asyncio
import datetime as dt
import json
import os
import random
import secrets
import shlex
import socket
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

EVALS = Path(__file__).resolve().parent
ROOT = EVALS.parent
MISSING = "<missing>"
PHRASING_INTENT_THRESHOLD = 0.95
MCP_KEYS = ("mcp", "resolved_mcp")
STATUS_KEYS = ("status", "allow")


# ------------------------------------------------------------------------------------------------
# Cases and comparison
# ------------------------------------------------------------------------------------------------


def load_cases(path: Path) -> list[dict]:
    cases = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        case = json.loads(line)
        for key in ("id", "tool", "arguments", "expected", "polarity", "kind", "rule"):
            if key not in case:
                raise ValueError(f"{path.name}:{number}: missing {key!r}")
        if case["polarity"] not in ("should_pass", "should_refuse"):
            raise ValueError(f"{path.name}:{number}: polarity {case['polarity']!r}")
        cases.append(case)
    ids = [c["id"] for c in cases]
    if len(set(ids)) != len(ids):
        raise ValueError(f"{path.name}: duplicate ids")
    return cases


def lookup(obj: Any, dotted: str) -> Any:
    for part in dotted.split("."):
        if isinstance(obj, dict) and part in obj:
            obj = obj[part]
        else:
            return MISSING
    return obj


def same(expected: Any, got: Any) -> bool:
    """JSON equality where a bool only equals a bool and 1 == 1.0; lists exact, order included."""
    if isinstance(expected, bool) or isinstance(got, bool):
        return isinstance(expected, bool) and isinstance(got, bool) and expected == got
    if expected is None or got is None:
        return expected is None and got is None
    if isinstance(expected, (int, float)) and isinstance(got, (int, float)):
        return float(expected) == float(got)
    if isinstance(expected, str) or isinstance(got, str):
        return isinstance(expected, str) and isinstance(got, str) and expected == got
    if isinstance(expected, list) and isinstance(got, list):
        return len(expected) == len(got) and all(same(e, g) for e, g in zip(expected, got))
    if isinstance(expected, dict) and isinstance(got, dict):
        return expected.keys() == got.keys() and all(same(v, got[k]) for k, v in expected.items())
    return False


def judge(case: dict, outcome: dict) -> dict:
    """Per-case record: which expected keys matched, and why the case failed if it did."""
    expected = case["expected"]
    expects_error = any(k == "error" or k.startswith("error.") for k in expected)
    record = {
        "id": case["id"],
        "tool": case["tool"],
        "kind": case["kind"],
        "rule": case["rule"],
        "polarity": case["polarity"],
        "ok": False,
        "mismatches": [],
        "fields": {},
    }
    if outcome.get("exception"):
        record["error"] = outcome["exception"]
        record["fields"] = {k: False for k in expected}
        return record
    result = outcome.get("structured")
    problems = []
    if outcome.get("is_error") and not expects_error:
        problems.append({"field": "<isError>", "expected": False, "got": True})
    if outcome.get("text_mismatch"):
        problems.append({"field": "<content.text>", "expected": "same object as structuredContent", "got": outcome["text_mismatch"]})
    for key, want in expected.items():
        got = lookup(result, key)
        good = got is not MISSING and same(want, got)
        record["fields"][key] = good
        if not good:
            problems.append({"field": key, "expected": want, "got": got})
    record["mismatches"] = problems
    record["ok"] = not problems
    if problems:
        record["arguments"] = case["arguments"]
        record["result"] = result
    return record


# ------------------------------------------------------------------------------------------------
# Figures
# ------------------------------------------------------------------------------------------------


def _rate(hit: int, total: int) -> dict:
    return {"ok": hit, "n": total, "rate": round(hit / total, 4) if total else None}


def split(records: list[dict]) -> dict:
    passes = [r for r in records if r["polarity"] == "should_pass"]
    refusals = [r for r in records if r["polarity"] == "should_refuse"]
    return {
        "cases": len(records),
        "ok": sum(r["ok"] for r in records),
        "pass_rate": _rate(sum(r["ok"] for r in passes), len(passes)),
        "correct_refusal_rate": _rate(sum(r["ok"] for r in refusals), len(refusals)),
    }


def field_rate(records: list[dict], keys: tuple[str, ...]) -> dict:
    """Share of cases whose expected has any of ``keys`` where all of those keys matched."""
    scoped = [r for r in records if any(k in r["fields"] for k in keys)]
    hit = sum(all(r["fields"][k] for k in keys if k in r["fields"]) for r in scoped)
    return _rate(hit, len(scoped))


def figures(records: list[dict]) -> dict:
    by: dict[str, dict[str, list[dict]]] = {"tool": defaultdict(list), "rule": defaultdict(list), "kind": defaultdict(list)}
    for r in records:
        for dim in by:
            by[dim][r[dim]].append(r)
    intent = field_rate(records, ("intent",))
    intent_by_kind = {k: field_rate(v, ("intent",)) for k, v in sorted(by["kind"].items())}
    slots = [r for r in records if r["tool"] == "extract_slots"]
    route = [r for r in records if r["tool"] == "route_request"]
    both = [r for r in records if any(k in r["fields"] for k in MCP_KEYS) and any(k in r["fields"] for k in STATUS_KEYS)]

    def mcp_ok(r):
        return all(r["fields"][k] for k in MCP_KEYS if k in r["fields"])

    def status_ok(r):
        return all(r["fields"][k] for k in STATUS_KEYS if k in r["fields"])

    return {
        "overall": split(records),
        "by_tool": {k: split(v) for k, v in sorted(by["tool"].items())},
        "by_rule": {k: split(v) for k, v in sorted(by["rule"].items())},
        "by_kind": {k: split(v) for k, v in sorted(by["kind"].items())},
        "intent_accuracy": intent,
        "intent_accuracy_by_kind": intent_by_kind,
        "slot_exact_match": _rate(sum(r["ok"] for r in slots), len(slots)),
        "route_status_accuracy": field_rate(route, ("status",)),
        "chose_right_mcp": field_rate(records, MCP_KEYS),
        "reached_right_final_status": field_rate(records, STATUS_KEYS),
        "mcp_vs_status_crosstab": {
            "cases_with_both": len(both),
            "right_mcp_right_status": sum(mcp_ok(r) and status_ok(r) for r in both),
            "right_mcp_wrong_status": sum(mcp_ok(r) and not status_ok(r) for r in both),
            "wrong_mcp_right_status": sum(not mcp_ok(r) and status_ok(r) for r in both),
            "wrong_mcp_wrong_status": sum(not mcp_ok(r) and not status_ok(r) for r in both),
            "right_mcp_correctly_refused": sum(mcp_ok(r) and status_ok(r) for r in both if r["polarity"] == "should_refuse"),
            "should_refuse_with_both": sum(r["polarity"] == "should_refuse" for r in both),
        },
    }


def verdict(records: list[dict], figs: dict) -> tuple[int, list[str]]:
    reasons = []
    spec_failures = [r["id"] for r in records if r["kind"] == "spec_rule" and not r["ok"]]
    if spec_failures:
        reasons.append(f"{len(spec_failures)} spec_rule case(s) failed")
    phrasing = figs["intent_accuracy_by_kind"].get("phrasing")
    if phrasing and phrasing["n"] and phrasing["rate"] < PHRASING_INTENT_THRESHOLD:
        reasons.append(f"intent accuracy on phrasing cases {phrasing['rate']:.2%} < {PHRASING_INTENT_THRESHOLD:.0%}")
    return (1 if reasons else 0), reasons


# ------------------------------------------------------------------------------------------------
# Running the cases
# ------------------------------------------------------------------------------------------------


def _text_mismatch(content: list, structured: Any) -> str | None:
    texts = [getattr(block, "text", None) for block in content or [] if getattr(block, "type", None) == "text"]
    if len(texts) != 1:
        return f"{len(texts)} text blocks"
    try:
        parsed = json.loads(texts[0])
    except ValueError:
        return "text is not JSON"
    return None if parsed == structured else "text differs from structuredContent"


async def run_protocol(url: str, token: str, cases: list[dict], concurrency: int) -> tuple[dict[str, dict], dict]:
    import httpx2
    from mcp import ClientSession
    from mcp.client.streamable_http import streamable_http_client

    outcomes: dict[str, dict] = {}
    meta: dict = {}
    limiter = asyncio.Semaphore(concurrency)
    headers = {"Authorization": f"Bearer {token}"}
    async with httpx2.AsyncClient(headers=headers, timeout=httpx2.Timeout(30.0)) as http:
        async with streamable_http_client(url, http_client=http) as (read, write):
            async with ClientSession(read, write) as session:
                init = await session.initialize()
                meta["protocol_version"] = getattr(init, "protocol_version", None)
                info = getattr(init, "server_info", None)
                meta["server"] = f"{getattr(info, 'name', '?')} {getattr(info, 'version', '?')}"
                tools = await session.list_tools()
                meta["tools"] = sorted(t.name for t in tools.tools)

                async def one(case: dict) -> None:
                    async with limiter:
                        try:
                            result = await session.call_tool(case["tool"], case["arguments"])
                        except Exception as exc:  # a JSON-RPC error or a schema violation is a failed case
                            outcomes[case["id"]] = {"exception": f"{type(exc).__name__}: {exc}"[:500]}
                            return
                        structured = result.structured_content
                        outcomes[case["id"]] = {
                            "structured": structured,
                            "is_error": bool(result.is_error),
                            "text_mismatch": _text_mismatch(result.content, structured),
                        }

                await asyncio.gather(*(one(c) for c in cases))
    return outcomes, meta


def run_inprocess(cases: list[dict]) -> tuple[dict[str, dict], dict]:
    sys.path.insert(0, str(ROOT))
    from app.http.settings import RouterSettings, load_settings
    from app.router import ArgumentError, Router, UnknownTool

    settings = load_settings(RouterSettings, _env_file=None)
    router = Router(settings.load_policy(), settings.limits())
    outcomes: dict[str, dict] = {}
    for case in cases:
        try:
            structured = router.call(case["tool"], case["arguments"]).model_dump(mode="json")
            outcomes[case["id"]] = {"structured": structured, "is_error": False}
        except ArgumentError as exc:
            outcomes[case["id"]] = {"structured": exc.as_dict(), "is_error": True}
        except UnknownTool:
            outcomes[case["id"]] = {"exception": "UnknownTool: unknown tool"}
        except Exception as exc:
            outcomes[case["id"]] = {"exception": f"{type(exc).__name__}: {exc}"[:500]}
    return outcomes, {"server": "in-process Router", "policy_version": router.policy_version}


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    """``python -m app serve`` on a free loopback port with a fresh token, run from a scratch cwd
    (so a developer's ``.env`` does not leak in) with the checkout first on PYTHONPATH."""

    def __init__(self, startup_timeout: float = 30.0):
        self.token = secrets.token_urlsafe(32)
        self.startup_timeout = startup_timeout
        self.proc: subprocess.Popen | None = None
        self.port = 0
        self._scratch = tempfile.TemporaryDirectory(prefix="a207-evals-")
        self._log = open(Path(self._scratch.name) / "server.log", "w+b")

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/mcp"

    def start(self) -> float:
        env = dict(os.environ)
        for name in ("ROUTER_MCP_AUTH_TOKEN_PREVIOUS", "ROUTER_MCP_ALLOWED_CALLERS", "ROUTER_METRICS_PORT", "ROUTER_MCP_ALLOWED_ORIGINS"):
            env.pop(name, None)
        env["ROUTER_MCP_AUTH_TOKEN"] = self.token
        env["ROUTER_MCP_SCOPE_MODE"] = "all"  # the cases assume every role may be evaluated
        env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
        began = time.monotonic()
        for _attempt in range(3):  # a port picked free can be taken before uvicorn binds it
            self.port = _free_port()
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "app", "serve", "--host", "127.0.0.1", "--port", str(self.port)],
                cwd=self._scratch.name, env=env, stdin=subprocess.DEVNULL, stdout=self._log, stderr=subprocess.STDOUT,
            )
            if self._wait_ready():
                return time.monotonic() - began
            self.stop()
        raise RuntimeError("the server did not become ready:\n" + self.log_tail())

    def _wait_ready(self) -> bool:
        import httpx2

        deadline = time.monotonic() + self.startup_timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                return False
            try:
                if httpx2.get(f"http://127.0.0.1:{self.port}/ready", timeout=1.0).status_code == 200:
                    return True
            except Exception:
                pass
            time.sleep(0.05)
        return False

    def log_tail(self, limit: int = 4000) -> str:
        self._log.flush()
        self._log.seek(0)
        return self._log.read().decode("utf-8", "replace")[-limit:]

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.proc = None

    def close(self) -> None:
        self.stop()
        self._log.close()
        self._scratch.cleanup()


# ------------------------------------------------------------------------------------------------
# Reports
# ------------------------------------------------------------------------------------------------


def _pct(rate: dict) -> str:
    if not rate["n"]:
        return "—"
    return f"{rate['rate'] * 100:.1f} % ({rate['ok']}/{rate['n']})"


def _split_table(title: str, rows: dict[str, dict]) -> list[str]:
    lines = [f"| {title} | cases | ok | pass rate (should_pass) | correct refusals (should_refuse) |", "|---|---|---|---|---|"]
    for name, s in rows.items():
        lines.append(f"| {name} | {s['cases']} | {s['ok']} | {_pct(s['pass_rate'])} | {_pct(s['correct_refusal_rate'])} |")
    return lines


def markdown(report: dict) -> str:
    m, f = report["meta"], report["figures"]
    cross = f["mcp_vs_status_crosstab"]
    lines = [
        "# Evaluation report",
        "",
        "| | |",
        "|---|---|",
        f"| date | {m['date']} |",
        f"| command | `{m['command']}` |",
        f"| mode | {m['mode']} ({m.get('server', '')}, protocol {m.get('protocol_version') or '—'}) |",
        f"| policy_version | {m.get('policy_version') or '—'} |",
        f"| seed | {m['seed']} |",
        f"| cases | {f['overall']['cases']} ({m['kinds']}) |",
        f"| runtime | {m['runtime_seconds']:.1f} s (server start {m.get('server_start_seconds', 0):.1f} s) |",
        f"| exit | {m['exit']} — {'; '.join(m['exit_reasons']) if m['exit_reasons'] else 'every spec_rule case passes, phrasing intent accuracy ≥ 95 %'} |",
        "",
        "## Headline figures",
        "",
        "| figure | value |",
        "|---|---|",
        f"| pass rate on should_pass | {_pct(f['overall']['pass_rate'])} |",
        f"| correct-refusal rate on should_refuse | {_pct(f['overall']['correct_refusal_rate'])} |",
        f"| intent accuracy (cases that expect `intent`) | {_pct(f['intent_accuracy'])} |",
    ]
    for kind, rate in f["intent_accuracy_by_kind"].items():
        if rate["n"]:
            lines.append(f"| intent accuracy, {kind} | {_pct(rate)} |")
    lines += [
        f"| slot exact match (extract_slots, all expected fields) | {_pct(f['slot_exact_match'])} |",
        f"| route_request status accuracy | {_pct(f['route_status_accuracy'])} |",
        f"| chose the right MCP (`mcp` / `resolved_mcp`) | {_pct(f['chose_right_mcp'])} |",
        f"| reached the right final status (`status` / `allow`) | {_pct(f['reached_right_final_status'])} |",
        f"| cases with both: right MCP + right status / right MCP + wrong status / wrong MCP + right status / both wrong | "
        f"{cross['right_mcp_right_status']} / {cross['right_mcp_wrong_status']} / {cross['wrong_mcp_right_status']} / {cross['wrong_mcp_wrong_status']} (of {cross['cases_with_both']}) |",
        f"| of those, right MCP chosen **and** correctly refused (denied / clarify / review / halt) | "
        f"{cross['right_mcp_correctly_refused']} of {cross['should_refuse_with_both']} should_refuse |",
        "",
        "## Per tool",
        "",
        *_split_table("tool", f["by_tool"]),
        "",
        "## Per rule",
        "",
        *_split_table("rule", f["by_rule"]),
        "",
        "## Per kind",
        "",
        *_split_table("kind", f["by_kind"]),
        "",
    ]
    failed = [r for r in report["cases"] if not r["ok"]]
    lines += ["## Failing cases", ""]
    if not failed:
        lines.append("None.")
    else:
        lines += ["| id | kind | polarity | field: expected → got |", "|---|---|---|---|"]
        for r in sorted(failed, key=lambda r: r["id"]):
            detail = r.get("error") or "; ".join(
                f"`{p['field']}`: {json.dumps(p['expected'], ensure_ascii=False)} → {json.dumps(p['got'], ensure_ascii=False)}" for p in r["mismatches"]
            )
            detail = detail.replace("|", "\\|")
            lines.append(f"| {r['id']} | {r['kind']} | {r['polarity']} | {detail} |")
    lines.append("")
    lines += realtext_figures()
    return "\n".join(lines)


def realtext_figures() -> list[str]:
    """The target tables of the real-text evaluation (``evals/realtext/REPORT.md``, written by
    ``python evals/realtext/run.py --record``): the cases above are ours, those texts are not."""
    report = EVALS / "realtext" / "REPORT.md"
    if not report.is_file():
        return []
    out = ["## Real texts (hand-labelled, blind to the router)", "",
           "From [`realtext/REPORT.md`](realtext/REPORT.md) (`python evals/realtext/run.py`), which lists every miss.", ""]
    for block in report.read_text(encoding="utf-8").split("\n## ")[1:]:
        title, _, rest = block.partition("\n")
        targets = next(chunk for chunk in rest.split("\n\n") if "| figure |" in chunk)
        table = [line for line in targets.splitlines() if line.startswith("|")]
        out += [f"### {title}", "", *table, ""]
    return out


def summary_text(report: dict) -> str:
    f, m = report["figures"], report["meta"]
    out = [
        f"mode={m['mode']} seed={m['seed']} cases={f['overall']['cases']} runtime={m['runtime_seconds']:.1f}s policy={m.get('policy_version')}",
        f"pass rate (should_pass)        {_pct(f['overall']['pass_rate'])}",
        f"correct refusals (should_refuse) {_pct(f['overall']['correct_refusal_rate'])}",
        f"intent accuracy                {_pct(f['intent_accuracy'])}  phrasing {_pct(f['intent_accuracy_by_kind'].get('phrasing', {'n': 0}))}",
        f"slot exact match               {_pct(f['slot_exact_match'])}",
        f"route status accuracy          {_pct(f['route_status_accuracy'])}",
        f"chose the right MCP            {_pct(f['chose_right_mcp'])}",
        f"reached the right final status {_pct(f['reached_right_final_status'])}",
        "per tool:",
        *(f"  {k:18} pass {_pct(v['pass_rate']):22} refuse {_pct(v['correct_refusal_rate'])}" for k, v in f["by_tool"].items()),
        "per rule:",
        *(f"  {k:18} pass {_pct(v['pass_rate']):22} refuse {_pct(v['correct_refusal_rate'])}" for k, v in f["by_rule"].items()),
    ]
    failed = [r for r in report["cases"] if not r["ok"]]
    if failed:
        out.append(f"failing cases ({len(failed)}):")
        for r in sorted(failed, key=lambda r: r["id"]):
            detail = r.get("error") or "; ".join(
                f"{p['field']}: want {json.dumps(p['expected'], ensure_ascii=False)} got {json.dumps(p['got'], ensure_ascii=False)}" for p in r["mismatches"]
            )
            out.append(f"  {r['id']} [{r['kind']}] {detail}")
    out.append(f"exit {m['exit']}" + (": " + "; ".join(m["exit_reasons"]) if m["exit_reasons"] else ""))
    return "\n".join(out)


# ------------------------------------------------------------------------------------------------
# Entry
# ------------------------------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cases", type=Path, default=EVALS / "cases.jsonl")
    parser.add_argument("--seed", type=int, default=None, help="shuffle seed (default: random, printed)")
    parser.add_argument("--url", help="a running server's MCP endpoint; the token comes from ROUTER_MCP_AUTH_TOKEN")
    parser.add_argument("--inprocess", action="store_true", help="call the Router directly instead of the MCP endpoint")
    parser.add_argument("--concurrency", type=int, default=4, help="calls in flight on the one MCP session")
    parser.add_argument("--out", type=Path, default=EVALS, help="directory for report.json and REPORT.md")
    parser.add_argument("--quiet", action="store_true", help="print only the exit line")
    args = parser.parse_args(argv)
    if args.url and args.inprocess:
        parser.error("--url and --inprocess exclude each other")
    if args.concurrency < 1:
        parser.error("--concurrency must be at least 1")

    seed = args.seed if args.seed is not None else secrets.randbelow(2**31)
    print(f"seed {seed}", flush=True)
    try:
        cases = load_cases(args.cases)
    except (OSError, ValueError) as exc:
        print(f"cannot load cases: {exc}", file=sys.stderr)
        return 2
    order = list(cases)
    random.Random(seed).shuffle(order)

    began = time.monotonic()
    meta: dict = {}
    server: Server | None = None
    try:
        if args.inprocess:
            mode = "in-process"
            outcomes, meta = run_inprocess(order)
        else:
            if args.url:
                mode, url = "mcp --url", args.url
                token = os.environ.get("ROUTER_MCP_AUTH_TOKEN", "")
                if not token:
                    print("--url needs the bearer token in ROUTER_MCP_AUTH_TOKEN", file=sys.stderr)
                    return 2
            else:
                mode = "mcp (own server)"
                server = Server()
                meta["server_start_seconds"] = round(server.start(), 2)
                url, token = server.url, server.token
            outcomes, proto = asyncio.run(run_protocol(url, token, order, args.concurrency))
            meta.update(proto)
    except Exception as exc:
        print(f"the run could not complete: {type(exc).__name__}: {exc}", file=sys.stderr)
        if server is not None and server.proc is not None:
            print(server.log_tail(), file=sys.stderr)
        return 2
    finally:
        if server is not None:
            server.close()
    runtime = time.monotonic() - began

    records = [judge(case, outcomes.get(case["id"], {"exception": "no outcome"})) for case in cases]
    figs = figures(records)
    code, reasons = verdict(records, figs)
    if "policy_version" not in meta:
        versions = {lookup(outcomes[c["id"]].get("structured"), "policy_version") for c in cases if "structured" in outcomes.get(c["id"], {})}
        versions.discard(MISSING)
        meta["policy_version"] = ", ".join(sorted(str(v) for v in versions)) or None
    kinds = defaultdict(int)
    for c in cases:
        kinds[c["kind"]] += 1
    command = "python evals/run.py" + ("".join(f" {shlex.quote(a)}" for a in (argv if argv is not None else sys.argv[1:])))
    report = {
        "meta": {
            "date": dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
            "command": command,
            "mode": mode,
            "seed": seed,
            "runtime_seconds": round(runtime, 2),
            "kinds": ", ".join(f"{k} {n}" for k, n in sorted(kinds.items())),
            "exit": code,
            "exit_reasons": reasons,
            **meta,
        },
        "figures": figs,
        "cases": records,
    }
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "report.json").write_text(json.dumps(report, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    (args.out / "REPORT.md").write_text(markdown(report), encoding="utf-8")
    text = summary_text(report)
    print(text.splitlines()[-1] if args.quiet else text)
    return code


if __name__ == "__main__":
    raise SystemExit(main())
