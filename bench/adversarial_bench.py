#!/usr/bin/env python
"""Hostile texts against the router (issue 11): every pass over the text must stay linear in its
length whatever the text holds. A script, not a test.

    .venv/bin/python bench/adversarial_bench.py            # the table and the verdict
    .venv/bin/python bench/adversarial_bench.py --quick    # fewer, shorter batches (a smoke run)
    .venv/bin/python bench/adversarial_bench.py --record   # also write its section of bench/RESULTS.md
    make bench-adversarial                                 # the same, with BENCH_ARGS

For each generator of ``GENERATORS``: µs per ``route_request`` call (the method, so 10,000
characters is allowed although the service refuses text over ROUTER_MAX_TEXT_CHARS) at 200 /
1,000 / 2,000 / 10,000 characters, the log-log slope of that curve (1.0 = linear; a quadratic pass
shows as a slope towards 2), and the 2,000-character figure as a ratio to the ``ordinary``
generator's (a realistic message and clauses, the register of bench/router_bench.py). The verdict
is the worst such ratio against ``TARGET_RATIO``. Every figure is measured side by side with the
others in one run (batches interleaved across all variants, medians of batches: bench/router_bench.py's
``interleaved``), so a busy machine slows them all alike; the figures are the thread's CPU time,
which a scheduler taking the core away does not inflate.

``GENERATORS`` is also what tests/router/test_adversarial.py runs (at a looser bound): a new
pattern or context cue in the router gets its hostile generator here, and both pick it up.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path
from typing import Any, Callable

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from app.router import Router, load_policy  # noqa: E402
from bench.results import code_state, write_section  # noqa: E402
from bench.router_bench import CALLER, PATIENT, REFERENCE, interleaved, interpreter, text_of_length  # noqa: E402

LENGTHS = (200, 1000, 2000, 10000)
COMPARED = 2000  # the service's default ROUTER_MAX_TEXT_CHARS
TARGET_RATIO = 3.0


def repeated(unit: str) -> Callable[[int], str]:
    """``unit`` written again and again, cut to exactly ``n`` characters."""
    return lambda n: (unit * (n // len(unit) + 1))[:n]


# name → text of exactly n characters. Each names what it attacks; the units are the router's own
# vocabulary (numerals, units, analyte and P0 words, ID shapes, cue words) without the context that
# would let a pattern match and move on.
GENERATORS: dict[str, Callable[[int], str]] = {
    "ordinary": text_of_length,
    # Chinese numeral runs with no unit after them (the slot scan's numeral branch)
    "numeral 千": repeated("千"),
    "numeral 一": repeated("一"),
    "numeral 两": repeated("两"),
    "numeral 十": repeated("十"),
    "numeral 点": repeated("点"),
    "numerals mixed": repeated("一二三四五六七八九十百千万点两零"),
    "numeral, blank": repeated("一 "),
    # unit words without numbers, and numbers with units that repeat
    "unit 天": repeated("天"),
    "unit 个月": repeated("个月"),
    "unit 公斤": repeated("公斤"),
    "unit 米": repeated("米"),
    "numeral 米 numerals": repeated("一米二三四五"),
    "digit 两 numerals": repeated("5两三四"),
    "portion 一两 of a food": repeated("米饭一两"),
    # analyte and critical-value words (the critical-value scan)
    "analyte 钾": repeated("钾"),
    "analyte 血钾": repeated("血钾"),
    "analyte k": repeated("k "),
    "analyte 肌酐": repeated("肌酐"),
    "potassium 6.8": repeated("钾6.8"),
    "digit analyte hco3": repeated("hco3 1"),
    # patient-ID shapes
    "P run": repeated("P"),
    "P0 run": repeated("P0"),
    "P- run": repeated("P-"),
    "ID, other patient": repeated("P-0002 "),
    "ID, Cyrillic Р": repeated("Р0002 "),
    "ID, Arabic-Indic digits": repeated("P-\u0660\u0660\u0660\u0662 "),
    "ID, separators only": repeated("Р -_.:#"),
    "ID, full-width": repeated("Ｐ０"),
    # digits, dots and date shapes
    "digits": repeated("1"),
    "digit dot": repeated("9."),
    "digit dash": repeated("1-"),
    "digit blank": repeated("1 "),
    "year dot": repeated("2026.3."),
    # context words of the slot patterns, with no number after them
    "window 最近": repeated("最近"),
    "weight 体重是": repeated("体重是"),
    "child 宝宝今年": repeated("宝宝今年"),
    "last week 上周": repeated("上周"),
    # cue words (red-flag context) and red-flag terms
    "cue 没有": repeated("没有"),
    "cue 以前": repeated("以前"),
    "cue 现在": repeated("现在"),
    "cue 如果": repeated("如果"),
    "cue 不": repeated("不"),
    "red flag 抽搐": repeated("抽搐"),
    "red flag spaced 抽 搐": repeated("抽 搐 "),
    "red flag negated": repeated("没有抽搐"),
    # red flags in context (issue 12): every cue kind, subjects, patterns cut just short of a match
    "cue 和之前 (pseudo)": repeated("和之前"),
    "cue 一…就": repeated("一发烧就"),
    "cue N天前": repeated("3天前"),
    "after-cue 过": repeated("抽搐过"),
    "after-cue 的原因": repeated("抽搐的原因"),
    "negation enumeration": repeated("没有抽搐、呕吐、"),
    "subjects 同事的孩子 我": repeated("我同事的孩子"),
    "subjects 我 then 他": repeated("我以为他"),
    "cue 从三天前 (since)": repeated("从三天前"),
    "cue 当时 after a now cue": repeated("今天当时"),
    "habitual reach along a list": repeated("偶尔抽搐、"),
    "after-cue 过 in a clause of today": repeated("早上抽搐过"),
    "context mixture": repeated("以前没有抽搐，现在如果又抽搐了怎么办。"),
    "pattern 烧 gap, no 不退": repeated("烧一二三四五六七八"),
    "pattern 大便 / 拉, no 血": repeated("大便拉"),
    "pattern 没 before 尿血": repeated("没尿血"),
    "pattern 不停地吐": repeated("不停地吐"),
    "infant fever": repeated("宝宝47天体温38.5度"),
    "temperature, no age": repeated("体温39度"),
    # tool-name shapes (the write scan)
    "tool token a_": repeated("a_"),
    # what normalization rewrites: Traditional characters, astral symbols, invisible characters
    "traditional 體重鉀": repeated("體重鉀"),
    "emoji": repeated("\U0001f600"),
    "zero-width inside 抽搐": repeated("抽\u200b搐"),
    # mixtures
    "mixture": repeated("最近千钾P-0体重是一两米饭9.没有抽搐上周三十天hco3"),
}


def route(router: Router, text: str) -> Callable[[], Any]:
    return lambda: router.route_request(text, CALLER, PATIENT, REFERENCE)


def slope(figures: dict[int, float]) -> float:
    """Least-squares slope of log(µs) against log(characters)."""
    xs = [math.log(n) for n in figures]
    ys = [math.log(v) for v in figures.values()]
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)


def measure(router: Router, batches: int, target_ns: int) -> dict[str, Any]:
    variants = {f"{name}|{n}": route(router, make(n)) for name, make in GENERATORS.items() for n in LENGTHS}
    figures = interleaved(variants, batches, target_ns)
    rows: dict[str, Any] = {}
    for name in GENERATORS:
        us = {n: figures[f"{name}|{n}"]["cpu_median_us"] for n in LENGTHS}
        rows[name] = {"us": us, "slope": slope(us)}
    ordinary = rows["ordinary"]["us"][COMPARED]
    for row in rows.values():
        row["ratio"] = row["us"][COMPARED] / ordinary
    worst = max((name for name in rows if name != "ordinary"), key=lambda name: rows[name]["ratio"])
    return {"rows": rows, "worst": worst, "worst_ratio": rows[worst]["ratio"], "ok": rows[worst]["ratio"] <= TARGET_RATIO}


def report(result: dict[str, Any]) -> str:
    lines = [
        f"adversarial_bench — {result['interpreter']}; route_request (the method), {result['batches']} batches × "
        f"~{result['batch_ms']:g} ms interleaved across all variants; thread CPU µs per call, medians of batches",
        "",
        f"{'generator':<24}" + "".join(f"{f'{n:,} ch':>12}" for n in LENGTHS) + f"{'slope':>8}{f'÷ ordinary @ {COMPARED:,}':>20}",
    ]
    for name, row in result["rows"].items():
        cells = "".join(f"{row['us'][n]:>10.0f}µs" for n in LENGTHS)
        lines.append(f"{name:<24}{cells}{row['slope']:>8.2f}{row['ratio']:>19.2f}×")
    verdict = "PASS" if result["ok"] else "FAIL"
    lines += ["", f"[{verdict}] worst at {COMPARED:,} characters ≤ {TARGET_RATIO:g}× ordinary: "
              f"{result['worst']} at {result['worst_ratio']:.2f}×"]
    return "\n".join(lines)


SECTION = "## Adversarial inputs (router, in process)"


def record(text: str, command: str) -> None:
    code = code_state()
    when = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    section = (f"{SECTION}\n\n`{command}` — {when}, {code}. Generated by `bench/adversarial_bench.py`; rerun it "
               "rather than editing.\n\n```\n" + text + "\n```\n")
    write_section(SECTION, section)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="3 batches of ~5 ms (a smoke run)")
    parser.add_argument("--batches", type=int, default=None, help="batches per variant (default 7)")
    parser.add_argument("--batch-ms", type=float, default=None, help="target duration of one batch (default 20)")
    parser.add_argument("--record", action="store_true", help=f"also write the report to {SECTION!r} of bench/RESULTS.md")
    args = parser.parse_args(argv)
    batches = args.batches or (3 if args.quick else 7)
    batch_ms = args.batch_ms or (5.0 if args.quick else 20.0)
    router = Router(load_policy())
    result = measure(router, batches, int(batch_ms * 1e6))
    result.update(interpreter=interpreter()["label"], batches=batches, batch_ms=batch_ms)
    text = report(result)
    print(text)
    if args.record:
        record(text, " ".join(["python", "bench/adversarial_bench.py", *(argv if argv is not None else sys.argv[1:])]))
    return 0 if result["ok"] else 1


if __name__ == "__main__":
    sys.exit(main())
