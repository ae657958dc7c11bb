"""The invariant of SPEC §4.7 revision 3 ("One reading of every value") over every text the
repository holds: the pediatric set (committed texts, and the git-ignored local texts when present),
the adult real texts, the project cases, the test data files and the adversarial corpus.

For each text, route_request (a parent's call) must halt when
* its own slots read ``age_years < 0.25`` and a current ``temperature_c ≥ 38``;
* the one analyte reader (``slots.analytes``, the reading the gate takes) gives potassium a value at
  or above the threshold that is current (the slots carry no potassium field);
* a blood-pressure reading at or above the limits is current.
Failures are reported by id only: the local texts may not be printed.
"""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path
from typing import Iterator

import pytest

from app.router import Limits, Router, analysis, load_policy, redflags
from app.router.slots import analytes
from bench.adversarial_bench import COMPARED, GENERATORS

ROOT = Path(__file__).resolve().parents[2]
PARENT = "parent_assistant"
REFERENCE = date(2026, 3, 10)


def _jsonl(path: Path) -> Iterator[dict]:
    if path.is_file():
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                yield json.loads(line)


def corpus() -> dict[str, str]:
    """id → text, every text once."""
    found: dict[str, str] = {}
    seen: set[str] = set()

    def add(ident: str, text: object) -> None:
        if isinstance(text, str) and text and text not in seen:
            seen.add(text)
            found[ident] = text[:COMPARED]

    for row in _jsonl(ROOT / "evals" / "peds" / "rows.jsonl"):
        add(f"peds:{row['id']}", row.get("text"))
    for row in _jsonl(ROOT / "evals" / "peds" / "local" / "texts.jsonl"):  # absent in CI: skipped
        add(f"peds-local:{row['id']}", row.get("text"))
    for path in sorted((ROOT / "evals" / "realtext").glob("*.jsonl")):
        for number, row in enumerate(_jsonl(path), 1):
            add(f"realtext:{path.stem}:{row.get('id', number)}", row.get("text"))
    for row in _jsonl(ROOT / "evals" / "cases.jsonl"):
        arguments = row.get("arguments") or {}
        add(f"case:{row['id']}", arguments.get("text") or arguments.get("intent"))
    for path in sorted((ROOT / "tests" / "data").glob("*.txt")):
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if line.strip() and not line.startswith("#"):
                add(f"tests-data:{path.name}:{number}", line)
    for name, generate in GENERATORS.items():
        add(f"adversarial:{name}", generate(COMPARED))
    return found


@pytest.fixture(scope="module")
def texts() -> dict[str, str]:
    return corpus()


def test_the_corpus_holds_the_committed_sets(texts):
    kinds = {ident.split(":")[0] for ident in texts}
    assert {"peds", "realtext", "case", "tests-data", "adversarial"} <= kinds
    assert len(texts) > 1000


def violations(router: Router, texts: dict[str, str]) -> dict[str, list[str]]:
    policy = router.policy
    fever = policy.red_flags.infant_fever
    found: dict[str, list[str]] = {"infant_fever": [], "potassium": [], "blood_pressure": []}
    bp = policy.red_flags.blood_pressure
    for ident, text in texts.items():
        result = router.route_request(text, PARENT, reference_date=REFERENCE)
        if result.status == "halt":
            continue
        slots = result.slots
        if slots.age_years is not None and slots.age_years < 0.25 and slots.temperature_c is not None \
                and slots.temperature_c >= fever.min_celsius:
            found["infant_fever"].append(ident)
        read = analysis.analyze(policy, text, PARENT)
        hits = read.hits
        rules = policy.red_flags
        if "critical" in hits and redflags.critical_readings(rules, analytes.critical_values(
                read.views.text, hits.group("critical"), hits.group("analyte"), rules.time_opening,
                policy.slot_words.lab_values.units)):
            names = {rule.name for rule in policy.red_flags.critical_values}
            if any(f.term in names and f.context == "current" for f in read.red_flags):
                found["potassium"].append(ident)
        if bp is not None and any(f.term == bp.name and f.context == "current" for f in read.red_flags):
            found["blood_pressure"].append(ident)
    return found


def test_every_current_critical_value_halts(texts):
    router = Router(load_policy(), Limits(max_text_chars=COMPARED))
    assert violations(router, texts) == {"infant_fever": [], "potassium": [], "blood_pressure": []}


@pytest.mark.parametrize(("text", "kind"), [
    ("宝宝两个月，高热38.6", "infant_fever"),
    ("血钾那一项，7.1", "potassium"),
    ("孩子血压一百七十/一百一十", "blood_pressure"),
], ids=["an infant fever is checked", "a potassium value is checked", "a pressure is checked"])
def test_the_check_sees_a_value_the_gate_would_miss(monkeypatch, text, kind):
    """The check itself can fail: with the gate's halt taken away, each value is a violation."""
    router = Router(load_policy(), Limits())
    original = router.route_request

    def never_halts(*args, **kwargs):
        result = original(*args, **kwargs)
        return result.model_copy(update={"status": "proceed"})

    monkeypatch.setattr(router, "route_request", never_halts)
    assert violations(router, {"own": text})[kind] == ["own"]
