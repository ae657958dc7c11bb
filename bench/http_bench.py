#!/usr/bin/env python
"""HTTP benchmark (issue 5): ours against the official SDK, a bare Starlette app and a raw ASGI floor.

    .venv/bin/python bench/http_bench.py                 # full run, writes bench/RESULTS.md
    .venv/bin/python bench/http_bench.py --quick         # 1 s warm-up, 3 s runs, one round
    .venv/bin/python bench/http_bench.py --quick --only ours --duration 2 --warmup 1 --connections 4
    .venv/bin/python bench/http_bench.py --base /tmp/befbd5a --only ours,base --rounds 4 --connections 32

Servers, started one at a time on 127.0.0.1 and driven with the same request mix and headers:

* ours — ``python -m app serve`` with production settings: bearer auth on (a token generated
  here), the Origin guard, JSON access logging on (stdout to /dev/null), one uvicorn worker;
* sdk  — bench/servers/sdk.py: mcp 2.3.0 ``MCPServer`` serving the five router functions,
  ``streamable_http_app(stateless_http=True, json_response=True)``;
* bare — bench/servers/bare.py: a Starlette ``POST /mcp`` around ``router.call``, no checks;
* raw  — bench/servers/raw.py: a raw ASGI callable with orjson around ``router.call`` (the floor);
* base — ``python -m app serve`` of another tree (``--base DIR``, e.g. ``git worktree add /tmp/befbd5a
  befbd5a``) with the same settings and venv: a regression measured side by side in one run;
* reload — ours with policy reloading on (SPEC §5.8): ``ROUTER_POLICY_FILE`` a copy of the shipped
  policy, ``ROUTER_POLICY_RELOAD_SECONDS=1``, so the file is read and hashed every second and never
  changes: what watching costs between swaps (``--only ours,reload``; not in the default set).

All four run uvicorn with uvloop + httptools, one process. The server is pinned to one core and
wrk to another (``taskset``) when the machine has two. The request bodies (all five tools via
tools/call, Chinese text of 20–200 characters, every caller) are generated here into a Lua table
that bench/mix.lua replays in the same order for every server.

Before any load, every distinct body is sent once and must come back HTTP 200 with a JSON-RPC
result that is not a tool error; during the load, bench/mix.lua counts non-2xx statuses and error
bodies. A run with any bad response is flagged in every table (a failing server must not look
fast). Besides req/s, the tables give the server's CPU time per request (from /proc/PID/stat:
robust on a shared machine where req/s is not) and its peak RSS (VmHWM from /proc/PID/status).

Latency percentiles are each request's own, logged by bench/mix.lua, over every request but each
connection's first (its time includes waiting for the server to accept the connection: libuv
accepts one connection per event-loop turn); the slowest first request and wrk's own p99 are
columns of their own. wrk's percentiles are not the requests' latencies: wrk adds synthetic
samples below every request slower than twice a connection's mean round trip (coordinated-omission
correction), so a few slow first requests set its p99 (bench/RESULTS.md, "HTTP tail, session 3").
With ``--base``, each round also measures both trees' ``McpServer.handle`` in process
(bench/stack_cost.py): the router's own growth, which the CPU target allows for.
"""

from __future__ import annotations

import argparse
import datetime as dt
import http.client
import importlib.metadata
import json
import os
import platform
import random
import secrets
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))
from bench.results import code_state, without_version, write_section  # noqa: E402

BENCH = ROOT / "bench"
MIX_LUA = BENCH / "mix.lua"
RESULTS = BENCH / "RESULTS.md"
SERVERS = ("ours", "sdk", "bare", "raw", "base", "reload")
APP_SERVERS = ("ours", "base", "reload")  # `python -m app serve`
RELOAD_SECONDS = "1"
CALLERS = ("dispatcher", "doctor_assistant", "nutritionist", "parent_assistant", "child_companion", "risk_warning")
MCPS = (
    "a207-his-mcp", "a207-lis-mcp", "a207-ckd-clinical-calc-mcp", "a207-nutrition-assessment-mcp",
    "a207-nutrition-calc-mcp", "a207-risk-rules-mcp", "a207-meal-plan-mcp", "a207-gamification-mcp",
    "a207-notify-mcp", "a207-report-mcp", "a207-knowledge-mcp", "a207-followup-mcp", "a207-router-mcp",
)
CLK_TCK = os.sysconf("SC_CLK_TCK")

# ---------------------------------------------------------------------------------------------
# The request mix
# ---------------------------------------------------------------------------------------------

CLAUSES = [
    "孩子这两天胃口一般，晚饭只吃了半碗面条和几片黄瓜。",
    "上周三复查的时候尿蛋白两个加号，医生说要注意蛋白质的摄入量。",
    "早上喝了一杯牛奶，中午吃了米饭、西兰花和一点鸡胸肉，下午加餐吃了两片饼干。",
    "最近三天每天喝水大概一千毫升，体重比上个月增加了1斤。",
    "低钾的水果有哪些，苹果和梨是不是可以多吃一些？",
    "化验单上血磷1.8，血钙2.3，甲状旁腺素有点高，需要调整饮食吗？",
    "孩子8岁，身高125厘米，体重25公斤，在学校中午吃食堂。",
    "帮我看一下最近一个月的化验结果，肌酐和尿素氮有没有变化。",
    "请帮忙排一周食谱，三餐怎么安排比较好。",
    "香蕉含钾多少，一根香蕉能不能吃？",
    "下次复诊时间是什么时候，需要预约门诊吗？",
    "帮我生成这个月的营养报告，导出给医生看。",
    "今天的饮食打卡完成了，可以领勋章吗？",
    "慢性肾病的孩子为什么要限制蛋白质，有什么注意事项？",
    "做一下营养评估，看看最近饮食记录里的摄入量够不够。",
    "评估一下这个孩子的风险等级，有没有恶化风险。",
    "这个孩子CKD几期了，帮我算一下eGFR。",
    "请把今天的医嘱写回病历。",
    "通知家长明天来复查。",
    "孩子昨晚开始抽搐，现在叫不醒。",  # P0: the mix has emergencies too
    "血钾6.8怎么办？",  # P0 critical value
    "請問孩子最近的檢驗結果怎麼樣？",  # Traditional script
]
INTENT_NAMES = ("lab_result", "meal_plan", "nutrition_calc", "report", "knowledge", "gamification", "followup")
WRITE_TOOLS = ("upsert_lab_result", "upsert_food_diary", "push_to_emr", "notify_parent", "award_badge", "delete_record")


def _text(rng: random.Random) -> str:
    """Chinese text of 20–200 characters, built from whole clauses (cut at 200)."""
    target = rng.randint(20, 200)
    parts: list[str] = []
    while sum(map(len, parts)) < target:
        parts.append(rng.choice(CLAUSES))
    text = "".join(parts)
    return text[:200] if len(text) > 200 else text


def request_mix(size: int, seed: int = 5) -> list[dict[str, Any]]:
    """``size`` JSON-RPC tools/call requests; route_request weighs most, as it does in production."""
    rng = random.Random(seed)
    weights = {"route_request": 4, "check_safety_gate": 2, "classify_intent": 1, "check_permission": 2, "extract_slots": 1}
    tools = [t for t, w in weights.items() for _ in range(w)]
    mix = []
    for i in range(size):
        tool = tools[i % len(tools)]
        caller = rng.choice(CALLERS)
        if tool == "route_request":
            args: dict[str, Any] = {"text": _text(rng), "caller": caller}
            if rng.random() < 0.7:
                args["patient_id"] = f"P{rng.randint(1, 40):04d}"
            if rng.random() < 0.5:
                args["reference_date"] = "2026-03-10"
        elif tool == "check_safety_gate":
            kind = rng.random()
            intent = _text(rng) if kind < 0.6 else rng.choice(INTENT_NAMES if kind < 0.8 else WRITE_TOOLS)
            args = {"intent": intent, "caller": caller}
            if rng.random() < 0.5:
                args["target_mcp"] = rng.choice(MCPS)
        elif tool == "classify_intent":
            args = {"text": _text(rng)}
        elif tool == "check_permission":
            args = {"caller": caller, "mcp": rng.choice(MCPS), "action": rng.choice(("read", "write") + WRITE_TOOLS)}
        else:
            args = {"text": _text(rng)}
            if rng.random() < 0.5:
                args["reference_date"] = "2026-03-10"
        mix.append({"jsonrpc": "2.0", "id": i + 1, "method": "tools/call", "params": {"name": tool, "arguments": args}})
    return mix


def _lua_string(data: bytes) -> str:
    """A Lua string literal for any bytes: three-digit decimal escapes (so a following digit is never
    read as part of one); Lua strings are 8-bit clean."""
    out = []
    for b in data:
        if b in (0x22, 0x5C) or b < 0x20 or b > 0x7E:
            out.append(f"\\{b:03d}")
        else:
            out.append(chr(b))
    return '"' + "".join(out) + '"'


def write_lua_bodies(bodies: list[bytes], path: Path) -> None:
    path.write_text("return {\n" + "".join(f"  {_lua_string(b)},\n" for b in bodies) + "}\n", encoding="ascii")


# ---------------------------------------------------------------------------------------------
# Servers
# ---------------------------------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def pin(core: str | None) -> list[str]:
    return ["taskset", "-c", core] if core is not None else []


def side_by_side(parser: argparse.ArgumentParser, rounds: int, duration: float, warmup: float) -> argparse.Namespace:
    """The options every side-by-side HTTP benchmark shares; parsed, with ``cores`` as (server, wrk)."""
    parser.add_argument("--rounds", type=int, default=rounds)
    parser.add_argument("--duration", type=float, default=duration)
    parser.add_argument("--warmup", type=float, default=warmup)
    parser.add_argument("--connections", type=int, default=32)
    parser.add_argument("--cores", default="0,1", help="server core, wrk core ('none' to not pin)")
    args = parser.parse_args()
    args.cores = pinned_cores(args.cores)
    return args


def pinned_cores(spec: str) -> tuple[str | None, str | None]:
    """(server core, wrk core) from ``--cores`` ("0,1"); unpinned with "none", without taskset or on one CPU."""
    if spec == "none" or not shutil.which("taskset") or (os.cpu_count() or 1) < 2:
        return None, None
    server, load = spec.split(",")
    return server, load


def alternate(configs: list[Any], rounds: int, run: Any, show: Any, prefix: str) -> list[dict[str, Any]]:
    """``run(config, token, bodies_lua, workdir, round_no)`` for every config, in a b c, c b a … order (a
    loaded machine slows them alike), each row printed with ``show`` as it comes; one token per run."""
    token = secrets.token_urlsafe(36)
    bodies = [json.dumps(m, ensure_ascii=False, separators=(",", ":")).encode() for m in request_mix(400)]
    rows: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix=prefix) as tmp:
        workdir = Path(tmp)
        bodies_lua = workdir / "bodies.lua"
        write_lua_bodies(bodies, bodies_lua)
        for round_no in range(1, rounds + 1):
            for config in configs if round_no % 2 else configs[::-1]:
                rows.append(run(config, token, bodies_lua, workdir, round_no))
                print(show(rows[-1]), flush=True)
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    return rows


@dataclass
class Server:
    name: str
    port: int
    token: str
    core: str | None
    workdir: Path
    root: Path = ROOT  # the tree whose app/ serves (another one for "base")
    proc: subprocess.Popen | None = None
    log_path: Path | None = None

    def command(self) -> list[str]:
        py = sys.executable
        if self.name in APP_SERVERS:
            return pin(self.core) + [py, "-m", "app", "serve", "--host", "127.0.0.1", "--port", str(self.port)]
        return pin(self.core) + [py, str(BENCH / "servers" / f"{self.name}.py"), "--port", str(self.port)]

    def start(self) -> None:
        env = {k: v for k, v in os.environ.items() if not k.startswith("ROUTER_")}
        env["PYTHONPATH"] = str(self.root) + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
        env["PYTHONUNBUFFERED"] = "0"
        if self.name in APP_SERVERS:
            env["ROUTER_MCP_AUTH_TOKEN"] = self.token
        if self.name == "reload":
            from app.router.policy import default_policy_bytes

            policy = self.workdir / "reload-policy.toml"
            policy.write_bytes(default_policy_bytes())
            env["ROUTER_POLICY_FILE"] = str(policy)
            env["ROUTER_POLICY_RELOAD_SECONDS"] = RELOAD_SECONDS
        self.log_path = self.workdir / f"{self.name}-{self.port}.stderr"
        # Ours logs one JSON line per request on stdout: production logging, written to /dev/null.
        self.proc = subprocess.Popen(
            self.command(),
            cwd=self.workdir,  # no stray .env is picked up
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=self.log_path.open("wb"),
        )
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"{self.name} exited with {self.proc.returncode}: {self.log_tail()}")
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.5):
                    return
            except OSError:
                time.sleep(0.1)
        raise RuntimeError(f"{self.name} did not listen within 60 s: {self.log_tail()}")

    def log_tail(self) -> str:
        if self.log_path and self.log_path.exists():
            return self.log_path.read_text(errors="replace")[-2000:]
        return ""

    def stop(self) -> None:
        if self.proc is None or self.proc.poll() is not None:
            return
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(timeout=5)

    def cpu_seconds(self) -> float:
        fields = Path(f"/proc/{self.proc.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / CLK_TCK  # utime + stime

    def memory_kib(self) -> dict[str, int]:
        out = {}
        for line in Path(f"/proc/{self.proc.pid}/status").read_text().splitlines():
            key, _, value = line.partition(":")
            if key in ("VmHWM", "VmRSS"):
                out[key] = int(value.split()[0])
        return out


HEADERS = {
    "Content-Type": "application/json",
    "Accept": "application/json, text/event-stream",
    "MCP-Protocol-Version": "2025-06-18",
}


def post(port: int, token: str, body: bytes) -> tuple[int, bytes]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        conn.request("POST", "/mcp", body, {**HEADERS, "Authorization": f"Bearer {token}"})
        response = conn.getresponse()
        return response.status, response.read()
    finally:
        conn.close()


def verify(server: Server, bodies: list[bytes]) -> dict[str, Any]:
    """Every body once: HTTP 200 and a JSON-RPC result that is not a tool error. Returns the
    structured results by request id, to compare the servers' answers."""
    answers: dict[int, Any] = {}
    for body in bodies:
        status, payload = post(server.port, server.token, body)
        try:
            message = json.loads(payload)
        except ValueError:
            message = None
        ok = status == 200 and isinstance(message, dict) and isinstance(message.get("result"), dict)
        if not ok or message["result"].get("isError"):
            raise RuntimeError(
                f"{server.name} answered {status} {payload[:300]!r} to {body[:200]!r}\n{server.log_tail()}"
            )
        answers[message["id"]] = message["result"].get("structuredContent")
    return answers


# ---------------------------------------------------------------------------------------------
# Load
# ---------------------------------------------------------------------------------------------


@dataclass
class Run:
    server: str
    round: int
    connections: int
    rps: float = 0.0
    p50_ms: float = 0.0  # p50, p99, max: every request but each connection's first (Latencies)
    p99_ms: float = 0.0
    max_ms: float = 0.0
    first_max_ms: float = 0.0  # the slowest first request of a connection (accept queue included)
    wrk_p50_ms: float = 0.0  # wrk's own figures, after its coordinated-omission correction
    wrk_p99_ms: float = 0.0
    logged: int = 0
    split_ok: bool = True  # all connections had a request in flight at once: first requests told apart
    requests: int = 0
    bad: int = 0
    socket_errors: int = 0
    cpu_us_per_req: float = 0.0
    hwm_mib: float = 0.0
    raw: dict[str, Any] = field(default_factory=dict)

    @property
    def core_busy(self) -> float:
        """Share of one core the server used: ~100 % at c=32 when it is CPU-bound and undisturbed;
        less means other processes took its core (req/s of that run understate the server)."""
        return self.rps * self.cpu_us_per_req / 1e6

    @property
    def clean(self) -> bool:
        return self.bad == 0 and self.socket_errors == 0 and self.requests > 0


def wrk(port: int, token: str, bodies_lua: Path, connections: int, seconds: float, core: str | None,
        log: Path | None = None) -> dict[str, Any]:
    """One wrk run; with ``log``, bench/mix.lua also writes every request's latency there."""
    cmd = pin(core) + [
        "wrk", "-t1", f"-c{connections}", f"-d{max(1, round(seconds))}s", "--latency", "--timeout", "10s",
        "-s", str(MIX_LUA), f"http://127.0.0.1:{port}/mcp", "--", str(bodies_lua), token,
    ] + (["0", str(log)] if log else [])
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=seconds + 60)
    if done.returncode != 0:
        raise RuntimeError(f"wrk failed ({done.returncode}): {done.stderr[-1000:]}")
    for line in done.stdout.splitlines():
        if line.startswith("BENCH_JSON "):
            data = json.loads(line[len("BENCH_JSON "):])
            data["stdout"] = done.stdout
            return data
    raise RuntimeError(f"wrk printed no BENCH_JSON line:\n{done.stdout}\n{done.stderr}")


@dataclass
class Latencies:
    """Each request's latency from bench/mix.lua's log, in ms. Requests written while wrk was still
    opening its connections are kept apart (``first``): a connection's first request includes the
    wait for the server to accept the connection, one loop turn per connection queued before it
    (libuv), which is connection set-up, not a request's service."""

    steady: list[float]
    first: list[float]
    all_connections_opened: bool

    @classmethod
    def read(cls, log: Path, connections: int) -> Latencies:
        rows = [tuple(float(x) for x in line.split()) for line in log.read_text().splitlines() if line]
        # wrk keeps one request in flight per connection: once ``connections`` requests are in flight
        # at the same moment, every connection has been opened and has written its first request.
        # Whatever was written up to then is set-up (a fast server may already have answered a few
        # first requests, whose connections' second requests are then set aside too).
        events = sorted([(w, 1) for _, w, _ in rows] + [(r, -1) for _, _, r in rows])
        in_flight, opened = 0, None
        for t, step in events:
            in_flight += step
            if in_flight >= connections:
                opened = t
                break
        if opened is None:  # fewer connections than asked ever had a request in flight together
            return cls(sorted((r - w) * 1000 for _, w, r in rows), [], False)
        first = [(r - w) * 1000 for _, w, r in rows if w <= opened]
        steady = sorted((r - w) * 1000 for _, w, r in rows if w > opened)
        return cls(steady, first, True)

    def percentile(self, q: float) -> float:
        return self.steady[min(len(self.steady) - 1, int(len(self.steady) * q))] if self.steady else 0.0


def measure(server: Server, round_no: int, connections: int, args, bodies_lua: Path, load_core: str | None) -> Run:
    if args.warmup > 0:
        wrk(server.port, server.token, bodies_lua, connections, args.warmup, load_core)
    log = bodies_lua.parent / f"latency-{server.name}-{round_no}-{connections}.log"
    cpu0 = server.cpu_seconds()
    data = wrk(server.port, server.token, bodies_lua, connections, args.duration, load_core, log)
    cpu = server.cpu_seconds() - cpu0
    latencies = Latencies.read(log, connections)
    lat = data["latency_us"]
    e = data["errors"]
    run = Run(
        server=server.name,
        round=round_no,
        connections=connections,
        rps=data["requests"] / (data["duration_us"] / 1e6),
        p50_ms=latencies.percentile(0.50),
        p99_ms=latencies.percentile(0.99),
        max_ms=max(latencies.steady, default=0.0),
        first_max_ms=max(latencies.first, default=0.0),
        wrk_p50_ms=lat["p50"] / 1000,
        wrk_p99_ms=lat["p99"] / 1000,
        logged=len(latencies.steady) + len(latencies.first),
        requests=data["requests"],
        bad=data["bad_status"] + data["bad_body"] + e["status"],
        split_ok=latencies.all_connections_opened,
        socket_errors=e["connect"] + e["read"] + e["write"] + e["timeout"],
        cpu_us_per_req=cpu / data["requests"] * 1e6 if data["requests"] else 0.0,
        raw={k: v for k, v in data.items() if k != "stdout"},
    )
    return run


# ---------------------------------------------------------------------------------------------
# Report
# ---------------------------------------------------------------------------------------------


def versions() -> dict[str, str]:
    out = {"python": platform.python_version()}
    for dist in ("uvicorn", "starlette", "mcp", "pydantic", "orjson", "uvloop", "httptools"):
        try:
            out[dist] = importlib.metadata.version(dist)
        except importlib.metadata.PackageNotFoundError:
            out[dist] = "-"
    try:
        out["wrk"] = subprocess.run(["wrk", "-v"], capture_output=True, text=True).stdout.split("\n")[0].split(" [")[0]
    except OSError:
        out["wrk"] = "-"
    return out


def ratio(a: Run | None, b: Run | None) -> str:
    if a is None or b is None or not b.rps:
        return "-"
    flag = "" if a.clean and b.clean else " (!)"
    return f"{a.rps / b.rps:.2f}×{flag}"


def tables(runs: list[Run], servers: list[str], connections: list[int], rounds: int) -> str:
    lines = []
    for c in connections:
        lines.append(f"#### c={c}\n")
        lines.append("| round | server | req/s | p50 ms | p99 ms | p99/p50 | max ms | first request max ms | wrk's p99 ms (p99/p50) "
                     "| CPU µs/req | core busy | peak RSS MiB | requests | bad |")
        lines.append("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
        for r in range(1, rounds + 1):
            for s in servers:
                run = next((x for x in runs if x.server == s and x.round == r and x.connections == c), None)
                if run is None:
                    continue
                bad = f"{run.bad + run.socket_errors}" + ("" if run.clean else " ⚠")
                first = f"{run.first_max_ms:.1f}" + ("" if run.split_ok else " (?)")
                wrk_spread = run.wrk_p99_ms / run.wrk_p50_ms if run.wrk_p50_ms else 0
                lines.append(
                    f"| {r} | {s} | {run.rps:,.0f} | {run.p50_ms:.2f} | {run.p99_ms:.2f} | "
                    f"{run.p99_ms / run.p50_ms if run.p50_ms else 0:.2f}× | {run.max_ms:.1f} | {first} | "
                    f"{run.wrk_p99_ms:.2f} ({wrk_spread:.2f}×) | "
                    f"{run.cpu_us_per_req:,.0f} | {run.core_busy:.0%} | {run.hwm_mib:.1f} | {run.requests:,} | {bad} |"
                )
        if "ours" in servers and len(servers) > 1:
            lines.append("")
            others = [s for s in servers if s != "ours"]
            lines.append("| round | " + " | ".join(f"ours/{s} req/s" for s in others) + " | "
                         + " | ".join(f"ours/{s} CPU/req" for s in others) + " |")
            lines.append("|---|" + "---:|" * (2 * len(others)))
            for r in range(1, rounds + 1):
                get = {s: next((x for x in runs if x.server == s and x.round == r and x.connections == c), None) for s in servers}
                cpu = []
                for s in others:
                    a, b = get["ours"], get[s]
                    # Throughput ratio on the CPU side: how many of the other's requests one of ours costs.
                    cpu.append(f"{b.cpu_us_per_req / a.cpu_us_per_req:.2f}×" if a and b and a.cpu_us_per_req else "-")
                lines.append(f"| {r} | " + " | ".join(ratio(get["ours"], get[s]) for s in others) + " | " + " | ".join(cpu) + " |")
        lines.append("")
    return "\n".join(lines)


def watch_tick_us(checks: int = 200) -> float:
    """CPU µs of one reload check of an unchanged policy file (what watching costs between swaps),
    measured in process on the reloader's own worker-thread function."""
    from app.http.app import create_app
    from app.http.reload import PolicyReloader, ReloadSetup
    from app.router import Router, load_policy
    from app.router.policy import default_policy_bytes

    with tempfile.TemporaryDirectory(prefix="http_bench_watch_") as tmp:
        path = Path(tmp) / "policy.toml"
        path.write_bytes(default_policy_bytes())
        router = Router(load_policy(path))
        app = create_app(router, [secrets.token_urlsafe(32).encode()])
        reloader = PolicyReloader(ReloadSetup(str(path), 1.0, lambda data: router), app._mcp, app.observer)
        serving = app.mcp_server
        started = time.process_time()
        for _ in range(checks):
            assert reloader._attempt(serving) is None
        return (time.process_time() - started) / checks * 1e6


def targets(runs: list[Run], handle_us: dict[str, list[float]] | None = None) -> list[str]:
    """``handle_us``: per tree ("ours", "base"), McpServer.handle's CPU µs per request measured in
    process in the same run (bench/stack_cost.py), for the router's own growth."""
    c32 = [r for r in runs if r.connections == 32]
    out = []

    def median(server: str, attr: str) -> float | None:
        values = [getattr(r, attr) for r in c32 if r.server == server]
        return statistics.median(values) if values else None

    ours_rps, bare_rps, sdk_rps = median("ours", "rps"), median("bare", "rps"), median("sdk", "rps")
    ours_cpu, bare_cpu, sdk_cpu = median("ours", "cpu_us_per_req"), median("bare", "cpu_us_per_req"), median("sdk", "cpu_us_per_req")
    if ours_rps and bare_rps:
        v = ours_rps / bare_rps
        out.append(f"[{'PASS' if v >= 0.6 else 'FAIL'}] ours ≥ 0.6× bare at c=32: {v:.2f}× req/s (median of rounds); "
                   f"by CPU per request {bare_cpu / ours_cpu:.2f}×")
    if ours_rps and sdk_rps:
        v = ours_rps / sdk_rps
        out.append(f"[{'PASS' if v >= 4 else 'FAIL'}] ours ≥ 4× sdk at c=32: {v:.2f}× req/s (median of rounds); "
                   f"by CPU per request {sdk_cpu / ours_cpu:.2f}×")
    p99 = median("ours", "p99_ms")
    if p99 is not None:
        out.append(f"[{'PASS' if p99 <= 5 else 'FAIL'}] ours p99 ≤ 5 ms at c=32: {p99:.2f} ms (median of rounds)")
    hwm = [r.hwm_mib for r in runs if r.server == "ours"]
    if hwm:
        out.append(f"[{'PASS' if max(hwm) <= 60 else 'FAIL'}] ours peak RSS ≤ 60 MiB: {max(hwm):.1f} MiB (max of rounds)")
    ratios = [r.p99_ms / r.p50_ms for r in c32 if r.server == "ours" and r.p50_ms]
    if ratios:
        spread = statistics.median(ratios)
        need = 32 * spread / 0.005
        out.append(
            f"[NOTE] with 32 requests in flight on one core, p50 ≈ 32 / throughput (Little's law) and ours' p99 was "
            f"{spread:.2f}× its p50: p99 ≤ 5 ms needs ≈ {need:,.0f} req/s, ≈ {1e6 / need:.0f} µs of server CPU per request all in"
        )
    spreads = {s: [r.p99_ms / r.p50_ms for r in c32 if r.server == s and r.p50_ms] for s in ("ours", "base")}
    if spreads["ours"] and spreads["base"]:
        wrk_spread = statistics.median(r.wrk_p99_ms / r.wrk_p50_ms for r in c32 if r.server == "ours" and r.wrk_p50_ms)
        v, b = statistics.median(spreads["ours"]), statistics.median(spreads["base"])
        first = {s: statistics.median(r.first_max_ms for r in c32 if r.server == s) for s in ("ours", "base")}
        out.append(f"[{'PASS' if v <= 2.5 else 'FAIL'}] ours p99 ≤ 2.5× p50 at c=32: {v:.2f}× (median of rounds; "
                   f"rounds {', '.join(f'{x:.2f}×' for x in spreads['ours'])}), base {b:.2f}× — every request but each "
                   f"connection's first; wrk's own figure (coordinated-omission corrected) {wrk_spread:.2f}×; slowest "
                   f"first request of a connection (accept queue) ours {first['ours']:.0f} ms, base {first['base']:.0f} ms")
    cpu = {s: median(s, "cpu_us_per_req") for s in ("ours", "base")}
    if handle_us and cpu["ours"] and cpu["base"]:
        ours_h, base_h = statistics.median(handle_us["ours"]), statistics.median(handle_us["base"])
        allowed = 1.15 * cpu["base"] + (ours_h - base_h)
        out.append(f"[{'PASS' if cpu['ours'] <= allowed else 'FAIL'}] ours CPU per request ≤ 1.15× base's + the router's "
                   f"own growth at c=32: {cpu['ours']:.0f} ≤ 1.15 × {cpu['base']:.0f} + ({ours_h:.0f} − {base_h:.0f}) = "
                   f"{allowed:.0f} µs (medians of rounds; {cpu['ours'] / cpu['base']:.2f}× base; McpServer.handle in "
                   f"process, same run, {ours_h / base_h:.2f}× base)")
    reload_cpu, reload_rps = median("reload", "cpu_us_per_req"), median("reload", "rps")
    if reload_cpu and cpu["ours"] and reload_rps and ours_rps:
        per_round = []
        for r in sorted({x.round for x in c32}):
            a = next((x for x in c32 if x.server == "ours" and x.round == r), None)
            b = next((x for x in c32 if x.server == "reload" and x.round == r), None)
            if a and b and a.cpu_us_per_req:
                per_round.append(b.cpu_us_per_req / a.cpu_us_per_req)
        v = reload_cpu / cpu["ours"]
        tick = watch_tick_us()
        share = tick / (float(RELOAD_SECONDS) * 1e6) * 100
        out.append(f"[{'PASS' if v <= 1.02 else 'FAIL'}] reload on ({RELOAD_SECONDS} s) costs ≤ 1.02× off by CPU per request "
                   f"at c=32: {v:.3f}× ({reload_cpu:.0f} / {cpu['ours']:.0f} µs, medians of rounds; rounds "
                   f"{', '.join(f'{x:.3f}×' for x in per_round)}); req/s off/on {ours_rps / reload_rps:.3f}×; one check of "
                   f"an unchanged file (read, sha256, compare) {tick:.0f} µs of CPU in process = {share:.3f} % of a core")
    unmatched = [f"{r.server} c={r.connections} round {r.round}" for r in runs if r.logged < r.requests]
    if unmatched:
        out.append("[WARN] fewer latencies logged than requests counted (an answer without its request's id): "
                   + ", ".join(unmatched))
    if any(not r.split_ok for r in runs):
        out.append("[WARN] in a run marked (?) the connections never all had a request in flight at once: "
                   "no first request was set apart")
    if any(not r.clean for r in runs):
        out.append("[WARN] some runs had bad responses or socket errors (marked ⚠): their req/s do not count")
    return out


SECTION = "## HTTP: ours against the official SDK, bare Starlette and raw ASGI"


def write_results(path: Path, meta: dict[str, Any], body: str, verdicts: list[str]) -> None:
    """Replace this benchmark's ``## `` section of the shared results file, keeping the others
    (bench/load.py keeps its own section there the same way)."""
    v = meta["versions"]
    section = f"""{SECTION}

`{meta['command']}` — {meta['date']}. Generated by `bench/http_bench.py`; rerun it rather than editing.

* versions: python {v['python']}, uvicorn {v['uvicorn']}, starlette {v['starlette']}, mcp {v['mcp']},
  pydantic {v['pydantic']}, orjson {v['orjson']}, uvloop {v['uvloop']}, httptools {v['httptools']}, {v['wrk']}
* code: {meta['code']}
* machine: {meta['machine']}; server on core {meta['server_core']}, wrk on core {meta['load_core']};
  load average before / after: {meta['load_before']} / {meta['load_after']}
* mix: {meta['mix_size']} tools/call bodies (route_request 40 %, check_safety_gate 20 %, check_permission 20 %,
  classify_intent 10 %, extract_slots 10 %; text 20–200 characters; six callers; some P0 and Traditional
  texts), replayed in the same order for every server; every body verified (HTTP 200, JSON-RPC result, no
  tool error) on every server before load; {meta['answers']}
* sdk: `MCPServer` tools declared `async def` (a plain `def` tool runs in a worker thread: slower); clients send
  `Accept: application/json, text/event-stream` and `MCP-Protocol-Version: 2025-06-18` (all servers get them)
* per server start: warm-up {meta['warmup']} s then {meta['duration']} s measured at each concurrency, one wrk thread;
  rounds: {meta['rounds']} (servers alternated: {' '.join(meta['servers'])} …)
* CPU µs/req: the server process's user+system CPU time over the measured run divided by its requests —
  less sensitive to a shared machine than req/s; core busy = req/s × CPU per request (under 100 % at c=32:
  the server's core was shared with other work, and that run's req/s understate it). Peak RSS: VmHWM of the
  server process after its runs.

### Targets (c=32)

{chr(10).join('* ' + x for x in verdicts)}

{body}
"""
    write_section(SECTION, section, path)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="1 s warm-up, 3 s runs, one round")
    parser.add_argument("--only", default=None, help="comma-separated servers among " + ",".join(SERVERS))
    parser.add_argument("--duration", type=float, default=None, help="measured seconds per run (default 10, quick 3)")
    parser.add_argument("--warmup", type=float, default=None, help="warm-up seconds per run (default 3, quick 1)")
    parser.add_argument("--rounds", type=int, default=None, help="alternations of the servers (default 2, quick 1)")
    parser.add_argument("--connections", default="1,32", help="comma-separated wrk concurrencies (default 1,32)")
    parser.add_argument("--mix-size", type=int, default=400, help="distinct request bodies in the mix")
    parser.add_argument("--cores", default="0,1", help="server core, wrk core (default 0,1; 'none' to not pin)")
    parser.add_argument("--results", default=None,
                        help="markdown output (default bench/RESULTS.md on a full run of all servers; "
                             "nothing on --quick / --only unless given)")
    parser.add_argument("--json", default=None, help="also write every run's figures as JSON to this file")
    parser.add_argument("--base", default=None, help="another tree whose `python -m app serve` is the server 'base'")
    args = parser.parse_args(argv)
    # A TERM (a timeout, a CI cancel) unwinds through the finally blocks, which stop the server.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    args.duration = args.duration if args.duration is not None else (3.0 if args.quick else 10.0)
    args.warmup = args.warmup if args.warmup is not None else (1.0 if args.quick else 3.0)
    rounds = args.rounds or (1 if args.quick else 2)
    default = [s for s in SERVERS if s != "reload" and (s != "base" or args.base)]
    servers = [s.strip() for s in args.only.split(",")] if args.only else default
    unknown = [s for s in servers if s not in SERVERS]
    if unknown:
        parser.error(f"unknown server(s): {', '.join(unknown)}")
    if ("base" in servers) != (args.base is not None):
        parser.error("--base DIR and the server 'base' go together")
    connections = [int(c) for c in args.connections.split(",")]

    if shutil.which("wrk") is None:
        print("wrk is not installed (Debian/Ubuntu: apt-get install -y wrk)", file=sys.stderr)
        return 2
    server_core, load_core = pinned_cores(args.cores)

    token = secrets.token_urlsafe(36)  # 48 characters, generated per run, never printed
    mix = request_mix(args.mix_size)
    bodies = [json.dumps(m, ensure_ascii=False, separators=(",", ":")).encode() for m in mix]
    meta = {
        "date": dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "command": " ".join(["python", "bench/http_bench.py", *(argv if argv is not None else sys.argv[1:])]),
        "versions": versions(),
        "machine": f"{platform.machine()}, {os.cpu_count()} CPUs, {platform.system()} {platform.release()}",
        "server_core": server_core or "any",
        "load_core": load_core or "any",
        "load_before": " ".join(f"{x:.2f}" for x in os.getloadavg()),
        "code": code_state(),
        "mix_size": len(bodies),
        "warmup": args.warmup,
        "duration": args.duration,
        "rounds": rounds,
        "servers": servers,
    }
    print(f"http_bench: servers {', '.join(servers)}; c={args.connections}; warm-up {args.warmup} s, "
          f"{args.duration} s runs, {rounds} round(s); server core {meta['server_core']}, wrk core {meta['load_core']}")

    runs: list[Run] = []
    answers: dict[str, dict[int, Any]] = {}
    handle_us: dict[str, list[float]] = {"ours": [], "base": []}
    with tempfile.TemporaryDirectory(prefix="http_bench_") as tmp:
        workdir = Path(tmp)
        bodies_lua = workdir / "bodies.lua"
        write_lua_bodies(bodies, bodies_lua)
        bodies_jsonl = workdir / "bodies.jsonl"
        bodies_jsonl.write_text("\n".join(json.dumps(b.decode()) for b in bodies))
        for round_no in range(1, rounds + 1):
            if "ours" in servers and "base" in servers:
                # The router's own cost in each tree, in process and in this run (the trees alternating):
                # what the CPU target allows on top of 1.15× the base's HTTP path.
                from bench.stack_cost import run_tree

                for name in ("ours", "base") if round_no % 2 else ("base", "ours"):
                    root = Path(args.base).resolve() if name == "base" else ROOT
                    cost = run_tree(root, bodies_jsonl, workdir / f"cost-{name}-{round_no}.json", 2, False)
                    handle_us[name].append(cost["handle_us"])
                print(f"  round {round_no} McpServer.handle in process: ours {handle_us['ours'][-1]:.0f} µs, "
                      f"base {handle_us['base'][-1]:.0f} µs", flush=True)
            for name in servers:
                server = Server(name, free_port(), token, server_core, workdir,
                                root=Path(args.base).resolve() if name == "base" else ROOT)
                try:
                    server.start()
                    got = verify(server, bodies)
                    answers.setdefault(name, got)
                    for c in connections:
                        run = measure(server, round_no, c, args, bodies_lua, load_core)
                        runs.append(run)
                    hwm = server.memory_kib().get("VmHWM", 0) / 1024
                    for run in runs:
                        if run.server == name and run.round == round_no:
                            run.hwm_mib = hwm
                            print(f"  round {round_no} {name:<5} c={run.connections:<3} {run.rps:>9,.0f} req/s  "
                                  f"p50 {run.p50_ms:6.2f} ms  p99 {run.p99_ms:6.2f} ms  first {run.first_max_ms:6.1f} ms  "
                                  f"wrk p99 {run.wrk_p99_ms:6.2f} ms  "
                                  f"CPU {run.cpu_us_per_req:6,.0f} µs/req ({run.core_busy:4.0%} of a core)  peak RSS {hwm:5.1f} MiB  "
                                  f"bad {run.bad + run.socket_errors}{'' if run.clean else '  ⚠ NOT CLEAN'}",
                                  flush=True)
                finally:
                    server.stop()

    meta["load_after"] = " ".join(f"{x:.2f}" for x in os.getloadavg())
    # The servers share one router: their structured answers should be the same.
    notes = []
    if "ours" in answers:
        for name, got in answers.items():
            differ = [i for i in got if without_version(got[i]) != without_version(answers["ours"].get(i))]
            if differ:
                notes.append(f"{name} answered {len(differ)}/{len(got)} bodies differently from ours "
                             f"(structuredContent), e.g. id {differ[0]}")
                print("  note: " + notes[-1])
    if len(answers) > 1 and "ours" in answers:
        meta["answers"] = ("; ".join(notes) if notes else
                           "all servers returned the same structuredContent as ours for every body (policy_version aside)")
    else:
        meta["answers"] = "answers not compared (one server)"
    body = tables(runs, servers, connections, rounds)
    verdicts = targets(runs, handle_us if handle_us["ours"] else None)
    print()
    print(body)
    print("\n".join(verdicts))
    results = Path(args.results) if args.results else (RESULTS if not args.quick and not args.only else None)
    if results is not None:
        write_results(results, meta, body, verdicts)
        print(f"\nwrote {results}")
    if args.json:
        Path(args.json).write_text(json.dumps({"meta": meta, "runs": [r.__dict__ for r in runs]}, indent=2, ensure_ascii=False))
    return 0 if all(r.clean for r in runs) else 1


if __name__ == "__main__":
    sys.exit(main())
