"""Strings of the policy's own words through every text tool, looking for an exception.

    python scripts/fuzz_words.py [SEED] [SECONDS] [--long]

Every word of app/router/policy.toml (a list's item or a table's key, up to six characters, no
pattern) and a few numbers, readings and marks, strung 1–12 at random (5–40 with ``--long``, with
traditional, full-width and English pieces too), go through ``Router.call`` — route_request (three
callers, with and without patient facts), extract_slots, classify_intent and check_safety_gate —
until SECONDS pass. Prints how many texts ran and each kind of exception with one text that raised
it and the last lines of its traceback (our own words: the pieces are the policy's). Exit status 1
when anything raised. Parents' 两个多月前发烧39度 raised KeyError on main at 83967c1; the committed
regression guard is tests/router/test_grammar_products.py, this is the long search beside it.
"""

from __future__ import annotations

import random
import re
import sys
import time
import tomllib
import traceback
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from app.router import ArgumentError, Limits, Router, load_policy  # noqa: E402

_PATTERN_CHARS = re.compile(r"[\\()\[\]?*+|{}^$.]")
NUMBERS = ["两", "3", "十二", "1.5", "半", "38.5", "39度", "6.8", "120/80"]
MARKS = ["，", "。", "？", " ", "了", "前", "后", "个", "多", "月", "天", "岁"]
LONG = ["發燒", "抽搐", "ＡＢＣ", "３８．５", "℃", "°", "kg", "mmol/L", "Fever", "不", "没", "吗", "孩子", "我", "他家"]
FACTS = [None, {"age_years": 0.1}, {"age_years": 5, "kidney_therapy": "hd"}, {"age_years": 10, "nephrotic": True},
         {"age_years": 8, "kidney_therapy": "transplant"}]
CALLERS = ["parent_assistant", "nutritionist", "doctor_assistant"]


def policy_words(longest: int = 6) -> list[str]:
    """Every word of the shipped policy file: list items and table keys, no pattern, sorted."""
    raw = tomllib.loads((ROOT / "app/router/policy.toml").read_text("utf-8"))
    found: set[str] = set()

    def walk(value: object) -> None:
        if isinstance(value, str):
            if 1 <= len(value) <= longest and not _PATTERN_CHARS.search(value):
                found.add(value)
        elif isinstance(value, list):
            for item in value:
                walk(item)
        elif isinstance(value, dict):
            for key, item in value.items():
                if not key.isascii():
                    walk(key)
                walk(item)

    walk(raw)
    return sorted(found)


def calls(text: str, caller: str, facts: dict[str, object] | None) -> list[tuple[str, dict[str, object]]]:
    """The four text tools' calls on ``text``."""
    given = {"patient_facts": facts} if facts else {}
    return [
        ("route_request", {"text": text, "caller": caller, "patient_id": "P0001", **given}),
        ("extract_slots", {"text": text, "reference_date": "2026-03-10"}),
        ("classify_intent", {"text": text}),
        ("check_safety_gate", {"intent": text, "caller": "parent_assistant", "target_mcp": "a207-meal-plan-mcp", **given}),
    ]


def main(argv: list[str]) -> int:
    long = "--long" in argv
    args = [a for a in argv if a != "--long"]
    seed = int(args[0]) if args else 1
    seconds = float(args[1]) if len(args) > 1 else 60.0
    router = Router(load_policy(), Limits())
    pieces = policy_words() + NUMBERS + MARKS + (LONG if long else [])
    rng = random.Random(seed)
    raised: Counter[tuple[str, str, str]] = Counter()
    example: dict[tuple[str, str, str], tuple[str, list[str]]] = {}
    count, stop = 0, time.monotonic() + seconds
    while time.monotonic() < stop:
        text = "".join(rng.choice(pieces) for _ in range(rng.randint(5, 40) if long else rng.randint(1, 12)))
        for tool, arguments in calls(text, rng.choice(CALLERS), rng.choice(FACTS)):
            try:
                router.call(tool, arguments)
            except ArgumentError:
                continue  # a refusal of the arguments (a text over the limit): the answer, not a fault
            except Exception as exc:  # noqa: BLE001 — every other exception is what this looks for
                key = (tool, type(exc).__name__, str(exc)[:60])
                raised[key] += 1
                example.setdefault(key, (text, traceback.format_exc().splitlines()[-3:]))
        count += 1
    print(f"{count} texts, {len(pieces)} pieces, seed {seed}, {'long' if long else 'short'}: {sum(raised.values())} raised")
    for key, number in raised.most_common():
        text, lines = example[key]
        print(f"  {number} × {key}: {text!r}", *lines, sep="\n    ")
    return 1 if raised else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
