#!/usr/bin/env python
"""Router-layer micro-benchmark (issue "router layer", acceptance 4). A script, not a test.

    .venv/bin/python bench/router_bench.py            # tables and ratios
    .venv/bin/python bench/router_bench.py --json     # the same figures, machine-readable
    .venv/bin/python bench/router_bench.py --quick    # fewer batches (a smoke run)
    .venv/bin/python bench/router_bench.py --record   # also write its section of bench/RESULTS.md

Prints the median µs per call of each of the five tools on a realistic ~100-character Chinese
message (the method itself, the validated ``Router.call`` entry, and the whole JSON-RPC
``McpServer.handle`` round trip from request bytes to response bytes), then how the text tools'
cost grows with text length (100 / 1,000 / 2,000 characters) and with lexicon size (the shipped
word lists ×1, ×10, ×100: synthetic CJK terms added to the red-flag terms, staging terms, intent
keywords and foods of a copy of the policy).

The machine is assumed shared and noisy, so every comparison is measured side by side: the
variants of one table are interleaved batch by batch (A B C A B C …) and each figure is the median
of its batches; ratios are taken between medians of the same run. The collector is disabled
during a batch (it is re-enabled and run between batches).
"""

from __future__ import annotations

import argparse
import gc
import json
import platform
import random
import statistics
import sys
import time
import tomllib
import unicodedata
from datetime import date
from pathlib import Path
from typing import Any, Callable

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from app.router import Router, load_policy  # noqa: E402
from bench.results import code_state, without_version, write_section  # noqa: E402
from app.router.policy import default_policy_bytes, parse_policy  # noqa: E402
from app.router.text import fold  # noqa: E402

REFERENCE = date(2026, 3, 10)
PATIENT = "P0001"
CALLER = "doctor_assistant"

# ~100 characters, the shape of a real parent/doctor message: a patient, an age and a weight, a
# time window, a meal with portions, lab values, foods and a question. No P0 term (a P0 hit would
# short-circuit route_request and flatter it).
MESSAGE = (
    "医生您好，P0001今年8岁，体重25公斤。最近一周早餐吃了一碗小米粥和一个鸡蛋，"
    "午饭有米饭、冬瓜和100克瘦肉。昨天化验血钾5.2，肌酐86，白蛋白38。"
    "请问香蕉和橙子还能不能吃？下次什么时候复查？"
)

# Clauses that longer texts are built from: the same register as MESSAGE, no P0 term, no other
# patient ID (a second ID would turn route_request into clarify on every length).
CLAUSES = [
    "孩子这两天胃口一般，晚饭只吃了半碗面条和几片黄瓜。",
    "上周三复查的时候尿蛋白两个加号，医生说要注意蛋白质的摄入量。",
    "早上喝了一杯牛奶，中午吃了米饭、西兰花和一点鸡胸肉，下午加餐吃了两片饼干。",
    "最近三天每天喝水大概一千毫升，体重比上个月增加了1斤。",
    "我们想知道低钾的水果有哪些，苹果和梨是不是可以多吃一些。",
    "化验单上血磷1.8，血钙2.3，甲状旁腺素有点高，需要调整饮食吗？",
    "孩子身高125厘米，在学校中午吃食堂，经常有土豆和番茄炒蛋。",
    "周末去外婆家吃了饺子和骨头汤，回来以后有点不舒服但是精神还好。",
    "医生上次让我们记录饮食日记，我们每天都记了三餐和零食。",
    "请问做饭的时候用低钠盐可以吗，酱油每天放多少比较合适？",
]

TEXT_LENGTHS = (100, 1000, 2000)
LEXICON_SCALES = (1, 10, 100)


# ---------------------------------------------------------------------------------------------
# Inputs
# ---------------------------------------------------------------------------------------------


def text_of_length(n: int) -> str:
    """MESSAGE followed by clauses, cut to exactly ``n`` characters."""
    parts = [MESSAGE]
    i = 0
    while sum(map(len, parts)) < n:
        parts.append(CLAUSES[i % len(CLAUSES)])
        i += 1
    return "".join(parts)[:n]


def tool_calls(text: str) -> dict[str, tuple[Callable[[Router], Any], dict[str, Any]]]:
    """For each tool: a direct call on a Router, and the same call's MCP ``arguments``."""
    ref = REFERENCE.isoformat()
    return {
        "route_request": (
            lambda r: r.route_request(text, CALLER, PATIENT, REFERENCE),
            {"text": text, "caller": CALLER, "patient_id": PATIENT, "reference_date": ref},
        ),
        "check_safety_gate": (
            lambda r: r.check_safety_gate(text, CALLER),
            {"intent": text, "caller": CALLER},
        ),
        "classify_intent": (lambda r: r.classify_intent(text), {"text": text}),
        "check_permission": (
            lambda r: r.check_permission(CALLER, "a207-lis-mcp", "upsert_lab_result"),
            {"caller": CALLER, "mcp": "a207-lis-mcp", "action": "upsert_lab_result"},
        ),
        "extract_slots": (lambda r: r.extract_slots(text, REFERENCE), {"text": text, "reference_date": ref}),
    }


TEXT_TOOLS = ("route_request", "check_safety_gate", "classify_intent", "extract_slots")


# ---------------------------------------------------------------------------------------------
# A policy with ×k word lists
# ---------------------------------------------------------------------------------------------


def _cjk_alphabet() -> list[str]:
    """The 3,755 most common Simplified ideographs (GB 2312 level 1, rows 16–55), those that fold to
    themselves. Real Chinese word lists draw on about this many characters, so a synthetic lexicon
    built from them has a realistic spread of first characters (what a trie's fan-out depends on)."""
    chars = []
    for hi in range(0xB0, 0xD8):
        for lo in range(0xA1, 0xFF):
            try:
                ch = bytes((hi, lo)).decode("gb2312")
            except UnicodeDecodeError:
                continue
            if unicodedata.normalize("NFKC", ch) == ch:
                chars.append(ch)
    folded = fold("".join(chars))
    if len(folded) == len(chars):
        return [c for c, f in zip(chars, folded) if c == f]
    return [c for c in chars if fold(c) == c]


def synthetic_terms(count: int, taken: set[str], avoid: list[str], rng: random.Random, alphabet: list[str]) -> list[str]:
    """``count`` distinct 2–5 character CJK terms, none already in ``taken`` and none occurring in
    any text of ``avoid`` (a synthetic hit would change the decisions being timed)."""
    out: list[str] = []
    while len(out) < count:
        term = "".join(rng.choice(alphabet) for _ in range(rng.randint(2, 5)))
        if term in taken or any(term in t for t in avoid):
            continue
        taken.add(term)
        out.append(term)
    return out


def scaled_policy_bytes(scale: int, avoid: list[str], seed: int = 20261130) -> bytes:
    """The shipped policy with its red-flag terms, staging terms, intent keywords and foods ×``scale``."""
    raw = tomllib.loads(default_policy_bytes().decode("utf-8"))
    if scale == 1:
        return default_policy_bytes()
    rng = random.Random(seed)
    alphabet = _cjk_alphabet()
    taken: set[str] = set()
    concepts = raw["p0"]["concepts"]
    for words in (*(c["terms"] for c in concepts), raw["staging"]["terms"], raw["slots"]["foods"],
                  *(i["keywords"] for i in raw["intents"])):
        taken.update(fold(w) for w in words)
    extra = scale - 1
    for concept in concepts:  # each red-flag concept's terms ×scale
        concept["terms"] += synthetic_terms(len(concept["terms"]) * extra, taken, avoid, rng, alphabet)
    raw["staging"]["terms"] += synthetic_terms(len(raw["staging"]["terms"]) * extra, taken, avoid, rng, alphabet)
    raw["slots"]["foods"] += synthetic_terms(len(raw["slots"]["foods"]) * extra, taken, avoid, rng, alphabet)
    for intent in raw["intents"]:
        if intent["keywords"]:  # the emergency intent stays keyword-free
            intent["keywords"] += synthetic_terms(len(intent["keywords"]) * extra, taken, avoid, rng, alphabet)
    return dumps_toml(raw).encode("utf-8")


def _toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)  # a JSON string is a valid TOML basic string
    if isinstance(value, list):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{json.dumps(k, ensure_ascii=False)} = {_toml_value(v)}" for k, v in value.items()) + "}"
    raise TypeError(f"cannot write {type(value).__name__} as TOML")


def dumps_toml(data: dict[str, Any]) -> str:
    """A minimal TOML writer: every top-level key as one line with inline tables and arrays."""
    return "".join(f"{json.dumps(k, ensure_ascii=False)} = {_toml_value(v)}\n" for k, v in data.items())


def lexicon_terms(router: Router) -> int:
    return router.policy.lexicon.size


# ---------------------------------------------------------------------------------------------
# Timing
# ---------------------------------------------------------------------------------------------


def calibrate(fn: Callable[[], Any], target_ns: int) -> int:
    """Calls per batch so that one batch lasts about ``target_ns``."""
    fn()
    n = 1
    while True:
        t0 = time.perf_counter_ns()
        for _ in range(n):
            fn()
        elapsed = time.perf_counter_ns() - t0
        if elapsed >= target_ns // 4 or n >= 1 << 20:
            return max(1, int(n * target_ns / max(elapsed, 1)))
        n *= 2


def interleaved(variants: dict[str, Callable[[], Any]], batches: int, target_ns: int) -> dict[str, dict[str, float]]:
    """Median / min / p90 µs per call of each variant, batches interleaved across variants."""
    counts = {name: calibrate(fn, target_ns) for name, fn in variants.items()}
    samples: dict[str, list[float]] = {name: [] for name in variants}
    cpu_samples: dict[str, list[float]] = {name: [] for name in variants}
    gc_was_enabled = gc.isenabled()
    try:
        for _ in range(batches):
            for name, fn in variants.items():
                n = counts[name]
                gc.collect()
                gc.disable()
                c0 = time.thread_time_ns()
                t0 = time.perf_counter_ns()
                for _ in range(n):
                    fn()
                elapsed = time.perf_counter_ns() - t0
                cpu = time.thread_time_ns() - c0
                gc.enable()
                samples[name].append(elapsed / n / 1000)
                cpu_samples[name].append(cpu / n / 1000)
    finally:
        if gc_was_enabled:
            gc.enable()
    return {
        name: {
            "median_us": statistics.median(s),
            "min_us": min(s),
            "max_us": max(s),
            # CPU time of this thread: what the call costs when the scheduler takes the core away
            # (a shared machine); equal to median_us on a quiet one.
            "cpu_median_us": statistics.median(cpu_samples[name]),
            "calls_per_batch": counts[name],
            "batches": len(s),
        }
        for name, s in samples.items()
    }


# ---------------------------------------------------------------------------------------------
# The three measurements
# ---------------------------------------------------------------------------------------------


def bench_tools(router: Router, batches: int, target_ns: int) -> dict[str, Any]:
    from app.protocol.server import McpServer

    server = McpServer(router)
    variants: dict[str, Callable[[], Any]] = {}
    for name, (direct, arguments) in tool_calls(MESSAGE).items():
        body = json.dumps(
            {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": name, "arguments": arguments}},
            ensure_ascii=False,
        ).encode()
        reply = server.handle(body)
        answer = json.loads(reply.body)
        if reply.kind != "ok" or "result" not in answer or answer["result"].get("isError"):
            raise SystemExit(f"{name}: McpServer.handle did not return a tool result: {reply.body[:300]!r}")
        variants[f"{name}|method"] = lambda d=direct: d(router)
        variants[f"{name}|call"] = lambda n=name, a=arguments: router.call(n, a)
        variants[f"{name}|handle"] = lambda b=body: server.handle(b)
    figures = interleaved(variants, batches, target_ns)
    table: dict[str, Any] = {}
    for key, value in figures.items():
        name, how = key.split("|")
        table.setdefault(name, {})[how] = value
    return {"message_chars": len(MESSAGE), "tools": table}


def bench_lengths(router: Router, batches: int, target_ns: int) -> dict[str, Any]:
    texts = {n: text_of_length(n) for n in TEXT_LENGTHS}
    variants = {}
    for n, text in texts.items():
        calls = tool_calls(text)
        for tool in TEXT_TOOLS:
            variants[f"{tool}|{n}"] = lambda d=calls[tool][0]: d(router)
    figures = interleaved(variants, batches, target_ns)
    out: dict[str, Any] = {}
    for tool in TEXT_TOOLS:
        med = {n: figures[f"{tool}|{n}"]["median_us"] for n in TEXT_LENGTHS}
        a, b, c = TEXT_LENGTHS
        slope_low = (med[b] - med[a]) / (b - a) * 1000  # µs per 1,000 chars, 100 → 1,000
        slope_high = (med[c] - med[b]) / (c - b) * 1000  # µs per 1,000 chars, 1,000 → 2,000
        out[tool] = {
            "median_us": {str(n): med[n] for n in TEXT_LENGTHS},
            "ratio_vs_100": {str(n): med[n] / med[a] for n in TEXT_LENGTHS},
            "us_per_1000_chars_100_to_1000": slope_low,
            "us_per_1000_chars_1000_to_2000": slope_high,
            # 1.0 = exactly linear (a fixed cost plus a constant cost per character).
            "linearity": slope_high / slope_low if slope_low > 0 else float("nan"),
        }
    return {"lengths": list(TEXT_LENGTHS), "tools": out}


def _decision(router: Router) -> Any:
    return without_version(router.route_request(MESSAGE, CALLER, PATIENT, REFERENCE).model_dump(mode="json"))


def bench_lexicon(batches: int, target_ns: int) -> dict[str, Any]:
    avoid = [MESSAGE, *CLAUSES]
    routers: dict[int, Router] = {}
    build_ms: dict[int, float] = {}
    for k in LEXICON_SCALES:
        t0 = time.perf_counter()
        routers[k] = Router(parse_policy(scaled_policy_bytes(k, avoid)))
        build_ms[k] = (time.perf_counter() - t0) * 1000
    # Same decisions at every scale (the synthetic terms never occur in the text), so the timings
    # compare equal work.
    base = _decision(routers[1])
    for k, r in routers.items():
        if _decision(r) != base:
            raise SystemExit(f"lexicon ×{k}: route_request decided differently from ×1; the synthetic terms leak")
    variants = {}
    for k, r in routers.items():
        calls = tool_calls(MESSAGE)
        for tool in TEXT_TOOLS:
            variants[f"{tool}|{k}"] = lambda d=calls[tool][0], rr=r: d(rr)
    figures = interleaved(variants, batches, target_ns)
    out: dict[str, Any] = {}
    for tool in TEXT_TOOLS:
        med = {k: figures[f"{tool}|{k}"]["median_us"] for k in LEXICON_SCALES}
        out[tool] = {
            "median_us": {f"x{k}": med[k] for k in LEXICON_SCALES},
            "ratio_vs_x1": {f"x{k}": med[k] / med[1] for k in LEXICON_SCALES},
        }
    return {
        "scales": [f"x{k}" for k in LEXICON_SCALES],
        "lexicon_terms": {f"x{k}": lexicon_terms(r) for k, r in routers.items()},
        "build_ms": {f"x{k}": build_ms[k] for k in LEXICON_SCALES},
        "tools": out,
    }


# ---------------------------------------------------------------------------------------------
# Report
# ---------------------------------------------------------------------------------------------

TARGET_ROUTE_US = 50.0
TARGET_LEXICON_RATIO = 1.5
TARGET_LINEARITY = 1.5  # slope 1,000→2,000 at most 1.5× slope 100→1,000: "roughly linear"


def verdicts(result: dict[str, Any]) -> list[dict[str, Any]]:
    route = result["tools"]["tools"]["route_request"]["method"]["median_us"]
    lex = result["lexicon"]["tools"]["route_request"]["ratio_vs_x1"]["x100"]
    lin = result["lengths"]["tools"]["route_request"]["linearity"]
    return [
        {"target": "route_request median at ~100 chars ≤ 50 µs", "value": round(route, 2), "ok": route <= TARGET_ROUTE_US},
        {"target": "route_request ×100 lexicon ≤ 1.5× ×1", "value": round(lex, 3), "ok": lex <= TARGET_LEXICON_RATIO},
        {"target": "route_request roughly linear in text length (slope ratio ≤ 1.5)", "value": round(lin, 3),
         "ok": lin <= TARGET_LINEARITY},
    ]


def print_report(result: dict[str, Any]) -> None:
    env = result["environment"]
    print(f"router_bench — python {env['python']}, {env['machine']}, {result['batches']} batches × "
          f"~{result['batch_ms']} ms, gc disabled in batches; medians of batches")
    print(f"interpreter: {env['interpreter']['label']}")
    tools = result["tools"]
    print(f"\n1. The five tools on a {tools['message_chars']}-character message (µs per call: median [min] "
          "{thread CPU median})")
    print(f"{'tool':<20}{'method':>24}{'Router.call':>24}{'McpServer.handle':>24}{'handle/method':>15}")
    for name, row in tools["tools"].items():
        cells = "".join(
            f"{v['median_us']:>9.1f} [{v['min_us']:>5.1f}] {{{v['cpu_median_us']:>5.1f}}}"
            for v in (row["method"], row["call"], row["handle"])
        )
        print(f"{name:<20}{cells}{row['handle']['median_us'] / row['method']['median_us']:>14.2f}×")

    lengths = result["lengths"]
    ns = lengths["lengths"]
    print("\n2. Cost against text length (µs per call, median; ratio to 100 chars)")
    print(f"{'tool':<20}" + "".join(f"{str(n) + ' ch':>18}" for n in ns) + f"{'µs/1k ch lo→hi':>20}{'linearity':>11}")
    for name, row in lengths["tools"].items():
        cells = "".join(f"{row['median_us'][str(n)]:>10.1f} ({row['ratio_vs_100'][str(n)]:>4.1f}×)" for n in ns)
        print(f"{name:<20}{cells}{row['us_per_1000_chars_100_to_1000']:>10.1f} →{row['us_per_1000_chars_1000_to_2000']:>7.1f}"
              f"{row['linearity']:>11.2f}")

    lex = result["lexicon"]
    scales = lex["scales"]
    print("\n3. Cost against lexicon size (µs per call at ~100 chars, median; ratio to ×1)")
    print("   lexicon terms: " + ", ".join(f"{s} {lex['lexicon_terms'][s]}" for s in scales)
          + "; policy build ms: " + ", ".join(f"{s} {lex['build_ms'][s]:.0f}" for s in scales))
    print(f"{'tool':<20}" + "".join(f"{s:>18}" for s in scales))
    for name, row in lex["tools"].items():
        print(f"{name:<20}" + "".join(f"{row['median_us'][s]:>10.1f} ({row['ratio_vs_x1'][s]:>4.2f}×)" for s in scales))

    busy = [v for row in result["tools"]["tools"].values() for v in row.values()
            if v["median_us"] > 1.2 * v["cpu_median_us"]]
    if busy:
        print(f"\nnote: {len(busy)} figures ran ≥ 20 % longer on the wall clock than on the CPU: the machine was "
              "busy; the CPU figures are the steadier ones")
    print("\nTargets")
    for v in result["verdicts"]:
        print(f"  [{'PASS' if v['ok'] else 'FAIL'}] {v['target']}: {v['value']}")


RESULTS = ROOT / "bench" / "RESULTS.md"
SECTION = "## Router layer (in process)"


def interpreter() -> dict[str, Any]:
    """Which CPython runs the benchmark, and whether its core is a shared libpython.

    The interpreter's build moves every figure here: a CPython built without profile-guided and
    link-time optimization, against a shared libpython (pyenv's default build, the ``python3`` on
    this machine's PATH), ran route_request ~15 % slower than Debian's /usr/bin/python3.11 (PGO + LTO,
    static core) on the same code. The official python:*-slim images that the Dockerfile builds
    on are PGO + LTO builds.
    """
    shared = None
    try:
        with open("/proc/self/maps", encoding="ascii", errors="replace") as maps:
            shared = any("libpython" in line for line in maps)
    except OSError:
        pass
    core = {True: "shared libpython", False: "static core", None: "core unknown"}[shared]
    return {"executable": sys.executable, "base": sys.base_prefix, "version": platform.python_version(),
            "shared_libpython": shared, "label": f"python {platform.python_version()} at {sys.base_prefix} ({core})"}


def record(result: dict[str, Any], command: str) -> None:
    """Replace this benchmark's ``## `` section of bench/RESULTS.md, keeping the other sections."""
    import contextlib
    import io

    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer):
        print_report(result)
    code = code_state()
    when = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    title = f"{SECTION}, {result['environment']['interpreter']['label']}"
    section = (f"{title}\n\n`{command}` — {when}, {code}. Generated by `bench/router_bench.py`; rerun it "
               "rather than editing.\n\n```\n" + buffer.getvalue().rstrip("\n") + "\n```\n")
    write_section(title, section, RESULTS)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--json", action="store_true", help="print the figures as one JSON document")
    parser.add_argument("--quick", action="store_true", help="5 batches of ~10 ms (a smoke run)")
    parser.add_argument("--batches", type=int, default=None, help="batches per variant (default 15)")
    parser.add_argument("--batch-ms", type=float, default=None, help="target duration of one batch (default 40)")
    parser.add_argument("--record", action="store_true", help=f"also write the report to {SECTION!r} of bench/RESULTS.md")
    args = parser.parse_args(argv)
    batches = args.batches or (5 if args.quick else 15)
    batch_ms = args.batch_ms or (10.0 if args.quick else 40.0)
    target_ns = int(batch_ms * 1e6)

    router = Router(load_policy())
    result: dict[str, Any] = {
        "environment": {"python": platform.python_version(), "machine": platform.machine(),
                        "interpreter": interpreter(), "policy_version": router.policy_version},
        "batches": batches,
        "batch_ms": batch_ms,
    }
    result["tools"] = bench_tools(router, batches, target_ns)
    result["lengths"] = bench_lengths(router, batches, target_ns)
    result["lexicon"] = bench_lexicon(batches, target_ns)
    result["verdicts"] = verdicts(result)
    if args.json:
        print(json.dumps(result, ensure_ascii=False, indent=2))
    else:
        print_report(result)
    if args.record:
        record(result, " ".join(["python", "bench/router_bench.py", *(argv if argv is not None else sys.argv[1:])]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
