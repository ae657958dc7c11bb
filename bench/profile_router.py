#!/usr/bin/env python
"""Where a request's time goes: the router's stages, cProfile, the in-process ASGI path, py-spy.

    .venv/bin/python bench/profile_router.py              # stages + cProfile (router, handle, ASGI)
    .venv/bin/python bench/profile_router.py --live 10    # also: py-spy on `python -m app serve`
                                                          # under wrk for 10 s (needs py-spy, wrk)
    .venv/bin/python bench/profile_router.py --corpus /work/peds-local/all.jsonl   # only: cProfile of
                                                          # route_request over the dev texts

1. Stages of route_request on router_bench's 100-character message, timed side by side (median
   µs of interleaved batches, and the share of one route_request), plus the protocol layer around
   it (JSON-RPC parse, argument validation, model_dump, orjson) and the HTTP endpoint in process.
2. cProfile of route_request, of McpServer.handle over the HTTP mix, and of the whole ASGI app
   (guards, access log, Starlette routing) over that mix: the top functions by own time.
3. ``--live``: py-spy samples ours (production settings) while wrk drives the mix; the top
   functions by own and inclusive samples, and a speedscope file to open in https://speedscope.app.

Internal functions are timed through their current signatures; a stage whose API has moved is
reported as skipped rather than failing the script.
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import collections
import io
import json
import os
import pstats
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Callable

ROOT = Path(__file__).resolve().parents[1]
for p in (ROOT, ROOT / "bench"):
    if str(p) not in sys.path:
        sys.path.insert(0, str(p))

import http_bench  # noqa: E402
import router_bench  # noqa: E402
from app.router import Router, load_policy  # noqa: E402

MESSAGE, CALLER, PATIENT, REFERENCE = router_bench.MESSAGE, router_bench.CALLER, router_bench.PATIENT, router_bench.REFERENCE


def _body(tool: str, arguments: dict[str, Any]) -> bytes:
    return json.dumps({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"name": tool, "arguments": arguments}},
                      ensure_ascii=False).encode()


# ---------------------------------------------------------------------------------------------
# An in-process ASGI driver (no sockets): what the endpoint, guards and logging cost
# ---------------------------------------------------------------------------------------------


def asgi_app(router: Router, token: str):
    from app.http.app import create_app
    from app.http.observe import configure_logging

    configure_logging(open(os.devnull, "w"))  # production logging, to /dev/null
    return create_app(router, [token.encode()])


def asgi_driver(app, token: str) -> Callable[[bytes], Any]:
    headers = [
        (b"host", b"127.0.0.1:8000"),
        (b"content-type", b"application/json"),
        (b"accept", b"application/json, text/event-stream"),
        (b"mcp-protocol-version", b"2025-06-18"),
        (b"authorization", b"Bearer " + token.encode()),
    ]
    try:
        import uvloop

        loop = uvloop.new_event_loop()  # what uvicorn runs ours on
    except ImportError:
        loop = asyncio.new_event_loop()

    async def one(body: bytes) -> int:
        scope = {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": "POST", "scheme": "http",
                 "path": "/mcp", "raw_path": b"/mcp", "query_string": b"", "root_path": "",
                 "headers": headers + [(b"content-length", str(len(body)).encode())],
                 "client": ("127.0.0.1", 50000), "server": ("127.0.0.1", 8000)}
        sent = False
        status = 0

        async def receive():
            nonlocal sent
            if not sent:
                sent = True
                return {"type": "http.request", "body": body, "more_body": False}
            return {"type": "http.disconnect"}

        async def send(message):
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]

        await app(scope, receive, send)
        return status

    def run(body: bytes) -> int:
        return loop.run_until_complete(one(body))

    run.loop = loop
    return run


# ---------------------------------------------------------------------------------------------
# 1. Stages
# ---------------------------------------------------------------------------------------------


def stages(router: Router, batches: int, target_ns: int) -> list[tuple[str, float | None]]:
    from app.protocol import jsonrpc
    from app.protocol.server import McpServer, tool_result_json
    from app.router import analysis as an
    from app.router import classify as cl
    from app.router import gate as gt
    from app.router import text as tx

    policy = router.policy
    server = McpServer(router)
    token = "t" * 40
    drive = asgi_driver(asgi_app(router, token), token)
    arguments = {"text": MESSAGE, "caller": CALLER, "patient_id": PATIENT, "reference_date": REFERENCE.isoformat()}
    body = _body("route_request", arguments)
    assert drive(body) == 200, "the in-process app did not answer 200"

    from app.http import guards
    from app.http.observe import Observer

    async def noop(scope, receive, send):
        await receive()
        await send({"type": "http.response.start", "status": 200, "headers": [(b"content-type", b"application/json")]})
        await send({"type": "http.response.body", "body": b"{}"})

    floor = asgi_driver(noop, token)
    observer = Observer()
    bearer = guards.BearerGuard([token.encode()])
    hdrs = [(b"host", b"127.0.0.1:8000"), (b"content-type", b"application/json"),
            (b"accept", b"application/json, text/event-stream"), (b"mcp-protocol-version", b"2025-06-18"),
            (b"authorization", b"Bearer " + token.encode()), (b"content-length", str(len(body)).encode())]

    def guards_only():
        guards.request_id(hdrs)
        guards.origin_allowed(hdrs, frozenset())
        bearer.allows(hdrs)
        guards.is_json(hdrs)
        guards.declared_length(hdrs)

    async def _immediate():
        return {"type": "http.request", "body": body, "more_body": False}

    async def _read():
        return (await _immediate())["body"]

    wait_loop = drive.loop

    def wait_for_read():
        return wait_loop.run_until_complete(asyncio.wait_for(_read(), 10.0))

    def plain_read():
        return wait_loop.run_until_complete(_read())

    v = tx.views(MESSAGE)
    a = an.analyze(policy, MESSAGE)
    verdict, resolution = gt.gate(policy, None, a, CALLER, "")
    result = router.route_request(MESSAGE, CALLER, PATIENT, REFERENCE)
    dumped = result.model_dump_json().encode()
    from app.router.engine import TOOLS

    spec = TOOLS["route_request"]
    candidates: dict[str, Callable[[], Any]] = {
        "route_request (total)": lambda: router.route_request(MESSAGE, CALLER, PATIENT, REFERENCE),
        "  text.views (NFKC, Cf, t2s, lower, squash)": lambda: tx.views(MESSAGE),
        "  lexicon.scan text view": lambda: policy.lexicon.scan(v.text),
        "  lexicon.scan squashed view": lambda: policy.lexicon.scan(v.squashed),
        "  analyze (views + 2 scans + p0/staging/writes groups)": lambda: an.analyze(policy, MESSAGE),
        "  classify (on a fresh analysis: groups included)": lambda: cl.classify(policy, an.analyze(policy, MESSAGE)),
        "  classify (analysis reused)": lambda: cl.classify(policy, a),
        "  gate (analysis reused; resolves by classify again)": lambda: gt.gate(policy, None, a, CALLER, ""),
        "  slots extract (analysis reused)": lambda: router._extract(a, REFERENCE),
        "  GateResult build": lambda: router._gate_result(verdict, resolution),
        "Router.call argument validation (RouteArgs)": lambda: spec.args.model_validate(arguments),
        "Router.call (validate + route_request + model_dump of args)": lambda: router.call("route_request", arguments),
        "result.model_dump_json()": lambda: result.model_dump_json(),
        "tool_result_json (one serialization, spliced)": lambda: tool_result_json(dumped),
        "jsonrpc.parse": lambda: jsonrpc.parse(body),
        "McpServer.handle (bytes → bytes)": lambda: server.handle(body),
        "ASGI app in process (guards, log, routing, handle)": lambda: drive(body),
        "  driver floor: a no-op ASGI app, same driver": lambda: floor(body),
        "  endpoint guards (origin, bearer sha256, content-type, length, request id)": lambda: guards_only(),
        "  access log line (Observer.request → structlog JSON → /dev/null)": lambda: observer.request(
            "0123456789abcdef0123456789abcdef", method="tools/call", tool="route_request", status=200,
            outcome="proceed", seconds=0.000123),
        "  asyncio.wait_for around an immediate body read": lambda: wait_for_read(),
        "  the same read awaited directly (no wait_for)": lambda: plain_read(),
    }
    variants: dict[str, Callable[[], Any]] = {}
    skipped = []
    for name, fn in candidates.items():
        try:
            fn()
            variants[name] = fn
        except Exception as exc:  # an internal API moved: report, do not fail
            skipped.append((name, f"{type(exc).__name__}: {exc}"))
    figures = router_bench.interleaved(variants, batches, target_ns)
    rows = [(name, figures[name]["median_us"], figures[name]["cpu_median_us"]) for name in variants]
    rows += [(f"{name} — skipped ({why[:60]})", None, None) for name, why in skipped]
    return rows


# ---------------------------------------------------------------------------------------------
# 1b. Inclusive time per internal function, by wrapping a handful of them
# ---------------------------------------------------------------------------------------------

# (module or class path, attribute, label). Names imported into a module are wrapped where they
# are looked up (engine.analyze, gate.classify…), so each label is one call site family.
INSTRUMENTED = [
    ("app.router.engine", "analyze", "analyze"),
    ("app.router.analysis", "views", "  text.views"),
    ("app.router.lexicon:Lexicon", "scan", "  Lexicon.scan (per view)"),
    ("app.router.slots.analytes", "critical_values", "  critical-value regex"),
    ("app.router.gate", "find_writes", "  write refs"),
    ("app.router.lexicon:Hits", "group", "Hits.group (all callers; longest-match-wins)"),
    ("app.router.engine", "classify", "classify (route_request's own)"),
    ("app.router.engine", "gate", "gate"),
    ("app.router.gate", "classify", "  classify again inside gate.resolve"),
    ("app.router.slots:SlotExtractor", "extract", "slots extract"),
    ("app.router.engine:Router", "_gate_result", "GateResult build"),
    ("app.router.engine:_Route", "done", "RouteResult build"),
]


def instrumented(fn: Callable[[], Any], n: int) -> list[tuple[str, float, float]]:
    import importlib

    totals: dict[str, int] = collections.Counter()
    calls: dict[str, int] = collections.Counter()
    restore = []
    for target, attr, label in INSTRUMENTED:
        module_name, _, cls = target.partition(":")
        owner = importlib.import_module(module_name)
        if cls:
            owner = getattr(owner, cls, None)
        original = owner.__dict__.get(attr) if owner is not None else None
        if original is None:
            continue

        def wrapper(*args, __orig=original, __label=label, **kwargs):
            t0 = time.perf_counter_ns()
            try:
                return __orig(*args, **kwargs)
            finally:
                totals[__label] += time.perf_counter_ns() - t0
                calls[__label] += 1

        setattr(owner, attr, wrapper)
        restore.append((owner, attr, original))
    batches: list[tuple[float, dict[str, int], dict[str, int]]] = []
    try:
        for _ in range(200):
            fn()
        per_batch = max(1, n // 9)
        for _ in range(9):  # the least disturbed third of the batches decides (a shared machine)
            totals.clear()
            calls.clear()
            t0 = time.perf_counter_ns()
            for _ in range(per_batch):
                fn()
            batches.append(((time.perf_counter_ns() - t0) / per_batch, dict(totals), dict(calls)))
    finally:
        for owner, attr, original in reversed(restore):
            setattr(owner, attr, original)
    batches.sort(key=lambda b: b[0])
    best = batches[: max(1, len(batches) // 3)]
    n = per_batch * len(best)
    whole = sum(b[0] for b in best) * per_batch
    totals = collections.Counter()
    calls = collections.Counter()
    for _, t, c in best:
        totals.update(t)
        calls.update(c)
    rows = [("route_request (whole, wrappers included)", whole / n / 1000, 1.0)]
    for _, _, label in INSTRUMENTED:
        if calls.get(label):
            rows.append((label, totals[label] / n / 1000, calls[label] / n))
    return rows


# ---------------------------------------------------------------------------------------------
# 2. cProfile
# ---------------------------------------------------------------------------------------------


def cprofile(fn: Callable[[], Any], n: int, top: int, inclusive: bool = False) -> str:
    """The top functions by own time (``inclusive``: by time with their callees)."""
    for _ in range(min(n, 200)):
        fn()
    profile = cProfile.Profile()
    profile.enable()
    for _ in range(n):
        fn()
    profile.disable()
    out = io.StringIO()
    stats = pstats.Stats(profile, stream=out)
    total = stats.total_tt
    rows = sorted(stats.stats.items(), key=lambda kv: kv[1][3 if inclusive else 2], reverse=True)[:top]
    lines = [f"  total {total / n * 1e6:.1f} µs per iteration under cProfile ({n} iterations)",
             f"  {'own %':>6} {'cum %':>6} {'calls/it':>9}  function"]
    for (filename, line, func), (cc, nc, tt, ct, callers) in rows:
        short = filename.replace(str(ROOT) + "/", "").replace(sys.prefix + "/", "")
        if "site-packages/" in short:
            short = short.split("site-packages/", 1)[1]
        lines.append(f"  {tt / total * 100:6.1f} {ct / total * 100:6.1f} {nc / n:9.1f}  {short}:{line}({func})")
    return "\n".join(lines)


# ---------------------------------------------------------------------------------------------
# 3. py-spy on the live server
# ---------------------------------------------------------------------------------------------


def live(seconds: float, connections: int, out_dir: Path, rate: int) -> str:
    pyspy = shutil.which("py-spy") or str(Path(sys.executable).parent / "py-spy")
    if not Path(pyspy).exists() or shutil.which("wrk") is None:
        return "  skipped: needs py-spy (pip install py-spy) and wrk"
    mix = http_bench.request_mix(400)
    bodies = [json.dumps(m, ensure_ascii=False, separators=(",", ":")).encode() for m in mix]
    token = __import__("secrets").token_urlsafe(36)
    with tempfile.TemporaryDirectory(prefix="profile_live_") as tmp:
        work = Path(tmp)
        lua = work / "bodies.lua"
        http_bench.write_lua_bodies(bodies, lua)
        cores = (os.cpu_count() or 1) >= 2 and shutil.which("taskset")
        server = http_bench.Server("ours", http_bench.free_port(), token, "0" if cores else None, work)
        server.start()
        try:
            http_bench.verify(server, bodies[:20])
            http_bench.wrk(server.port, token, lua, connections, 2, "1" if cores else None)  # warm-up
            raw = out_dir / "profile_ours.txt"
            speedscope = out_dir / "profile_ours.speedscope.json"
            load = subprocess.Popen(http_bench.pin("1" if cores else None) + [
                "wrk", "-t1", f"-c{connections}", f"-d{int(seconds) + 4}s", "-s", str(http_bench.MIX_LUA),
                f"http://127.0.0.1:{server.port}/mcp", "--", str(lua), token], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
            time.sleep(1)
            # Blocking mode (the default): py-spy pauses the process for each sample, so every stack
            # is whole; --nonblocking tears stacks under load and loses their roots.
            common = ["--pid", str(server.proc.pid), "--duration", str(int(seconds)), "--rate", str(rate)]
            subprocess.run([pyspy, "record", *common, "--format", "raw", "--output", str(raw)],
                           capture_output=True, timeout=seconds + 60, check=True)
            load.wait(timeout=seconds + 60)
            load2 = subprocess.Popen(http_bench.pin("1" if cores else None) + [
                "wrk", "-t1", f"-c{connections}", f"-d{int(seconds) + 4}s", "-s", str(http_bench.MIX_LUA),
                f"http://127.0.0.1:{server.port}/mcp", "--", str(lua), token], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
            time.sleep(1)
            subprocess.run([pyspy, "record", *common, "--format", "speedscope", "--output", str(speedscope)],
                           capture_output=True, timeout=seconds + 60)
            load2.wait(timeout=seconds + 60)
        finally:
            server.stop()
    return summarize_collapsed(raw.read_text()) + f"\n  collapsed stacks: {raw}\n  speedscope: {speedscope}"


def _frame_name(frame: str) -> str:
    # py-spy raw frames look like "function (path/to/file.py:123)"
    name, _, where = frame.rpartition(" (")
    where = where.rstrip(")")
    path, _, _line = where.rpartition(":")
    short = path.replace(str(ROOT) + "/", "")
    if "site-packages/" in short:
        short = short.split("site-packages/", 1)[1]
    elif "/lib/python3" in short:
        short = "stdlib/" + short.split("/lib/python3", 1)[1].split("/", 1)[-1]
    return f"{short}:{name or frame}"


CATEGORIES = [  # first match wins; by the frame that owns the sample (the leaf)
    ("router: text views (NFKC, t2s, squash)", ("app/router/text.py", "opencc/", "unicodedata")),
    ("router: lexicon scan + groups", ("app/router/lexicon.py",)),
    ("router: slots", ("app/router/slots/", "app/router/numerals.py")),
    ("router: analysis/classify/gate/engine", ("app/router/",)),
    ("pydantic (validate, construct, dump)", ("pydantic",)),
    ("protocol (JSON-RPC, orjson)", ("app/protocol/", "orjson")),
    ("endpoint (guards, body read)", ("app/http/endpoint.py", "app/http/guards.py", "hashlib", "hmac", "secrets")),
    ("access log (structlog)", ("app/http/observe.py", "structlog")),
    ("starlette (routing, middleware)", ("starlette/",)),
    ("uvicorn/httptools/socket", ("uvicorn/", "httptools")),
    ("asyncio/uvloop (tasks, wait_for, loop)", ("asyncio", "uvloop")),
]


def _category(frame: str) -> str:
    for name, keys in CATEGORIES:
        if any(k in frame for k in keys):
            return name
    return "other"


def summarize_collapsed(text: str, top: int = 25) -> str:
    own: collections.Counter[str] = collections.Counter()
    cats: collections.Counter[str] = collections.Counter()
    incl: collections.Counter[str] = collections.Counter()
    total = 0
    for line in text.splitlines():
        stack, _, count = line.rpartition(" ")
        if not stack or not count.isdigit():
            continue
        n = int(count)
        frames = [_frame_name(f) for f in stack.split(";") if f and not f.startswith("process ") and not f.startswith("thread ")]
        if not frames:
            continue
        total += n
        own[frames[-1]] += n
        cats[_category(frames[-1])] += n
        for f in set(frames):
            incl[f] += n
    if not total:
        return "  no samples"
    lines = [f"  {total} samples", "  own %  category (by the sampled leaf frame)"]
    lines += [f"  {c / total * 100:5.1f}  {name}" for name, c in cats.most_common()]
    lines += ["", "  own %  function (top by own samples)"]
    lines += [f"  {c / total * 100:5.1f}  {f}" for f, c in own.most_common(top)]
    lines += ["", "  incl % function (top by inclusive samples, app/ and key library frames)"]
    keep = [(f, c) for f, c in incl.most_common(400)
            if f.startswith("app/") or any(k in f for k in ("uvicorn", "starlette", "pydantic", "structlog", "orjson", "opencc", "asyncio", "uvloop", "httptools"))]
    lines += [f"  {c / total * 100:5.1f}  {f}" for f, c in keep[:top]]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--batches", type=int, default=11)
    parser.add_argument("--batch-ms", type=float, default=30.0)
    parser.add_argument("--top", type=int, default=22)
    parser.add_argument("--live", type=float, default=0, metavar="SECONDS", help="py-spy the live server for SECONDS")
    parser.add_argument("--connections", type=int, default=32, help="wrk concurrency for --live")
    parser.add_argument("--rate", type=int, default=250, help="py-spy samples per second")
    parser.add_argument("--out", default=None, help="directory for --live profiles (default: a temp dir, kept)")
    parser.add_argument("--corpus", default=None, metavar="ALL_JSONL",
                        help="only profile route_request over this corpus's dev texts (hash 0–7), one text a call")
    args = parser.parse_args(argv)
    router = Router(load_policy())
    if args.corpus:
        from compare_corpus import texts

        corpus = texts(Path(args.corpus), "dev")
        it = iter(range(1 << 62))

        def one() -> None:
            router.route_request(corpus[next(it) % len(corpus)], CALLER, PATIENT, REFERENCE)

        print(f"cProfile: route_request over the {len(corpus)} dev texts, twice; by time with callees, then by own time")
        print(cprofile(one, 2 * len(corpus), args.top, inclusive=True))
        print(cprofile(one, 2 * len(corpus), args.top))
        return 0

    print(f"1. Stages on the {len(MESSAGE)}-character message (median µs of {args.batches} interleaved batches; "
          "% of one route_request)")
    rows = stages(router, args.batches, int(args.batch_ms * 1e6))
    total = rows[0][1]
    print(f"   {'stage':<66}{'wall µs':>9}{'cpu µs':>9}{'% route':>9}")
    for name, us, cpu in rows:
        if us is None:
            print(f"   {name}")
        else:
            print(f"   {name:<66}{us:>9.1f}{cpu:>9.1f}{us / total * 100:>8.0f}%")

    print("\n1b. Inclusive µs per route_request by internal function (a dozen wrapped functions; nested rows "
          "are inside the row above)")
    rows = instrumented(lambda: router.route_request(MESSAGE, CALLER, PATIENT, REFERENCE), 3000)
    whole = rows[0][1]
    print(f"   {'function':<52}{'µs':>8}{'% route':>9}{'calls':>7}")
    for label, us, per in rows:
        print(f"   {label:<52}{us:>8.1f}{us / whole * 100:>8.0f}%{per:>7.1f}")

    print("\n2a. cProfile: route_request on the 100-character message")
    print(cprofile(lambda: router.route_request(MESSAGE, CALLER, PATIENT, REFERENCE), 3000, args.top))

    from app.protocol.server import McpServer

    server = McpServer(router)
    bodies = [json.dumps(m, ensure_ascii=False, separators=(",", ":")).encode() for m in http_bench.request_mix(400)]
    it = iter(range(1 << 62))
    print("\n2b. cProfile: McpServer.handle over the HTTP benchmark's mix (400 bodies, all five tools)")
    print(cprofile(lambda: server.handle(bodies[next(it) % len(bodies)]), 4000, args.top))

    token = "t" * 40
    drive = asgi_driver(asgi_app(router, token), token)
    print("\n2c. cProfile: the ASGI app in process (endpoint, guards, access log, routing) over the same mix")
    print(cprofile(lambda: drive(bodies[next(it) % len(bodies)]), 4000, args.top))

    if args.live:
        out_dir = Path(args.out) if args.out else Path(tempfile.mkdtemp(prefix="profile_"))
        out_dir.mkdir(parents=True, exist_ok=True)
        print(f"\n3. py-spy: ours under wrk c={args.connections}, {args.live:.0f} s at {args.rate} Hz")
        print(live(args.live, args.connections, out_dir, args.rate))
    return 0


if __name__ == "__main__":
    sys.exit(main())
