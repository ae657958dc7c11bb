"""The router on real words: hand-labelled questions from real patients and parents.

    python evals/realtext/run.py                 every section, targets checked, misses listed
    python evals/realtext/run.py --record        also rewrite evals/realtext/REPORT.md
    python evals/realtext/run.py --data DIR      the same figures on another labelled set (for
                                                 example the held-out half, kept off the repository)
    python evals/realtext/run.py --facts         route_request with the patient facts that
                                                 ``evals/facts/derive.py`` derives from each row

The labels were written blind to the router (see LABELS.md): a miss here is the router's, unless
the label is wrong, and a label is never changed to make a figure better.

Sections, each read from its own file in the data directory, each skipped when the file is absent:

* ``redflags.jsonl`` — ``route_request`` as ``parent_assistant`` for a session patient. Silent misses
  (``emergency_now`` that neither halts nor confirms), the halt rate on children's emergencies,
  false halts among ``not_now`` texts (which all mention a red flag), halts on texts that mention
  none, and every children's emergency that a context rule downgraded to ``confirm``.
* ``indomain.jsonl`` rows with ``intent`` — ``classify_intent`` agreement and the ``unknown`` rate.
* ``indomain.jsonl`` rows with ``slots`` — ``extract_slots``: age, weight and temperature exact to
  ±0.01, and values of another person that reached the patient's slots.

Exit status: 0 when every target is met, 1 when one is missed, 2 when nothing could be read.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
REFERENCE = date(2026, 12, 1)
CALLER = "parent_assistant"
SESSION_PATIENT = "P0001"
SLOT_FIELDS = ("age_years", "weight_kg", "temperature_c")
TOLERANCE = 0.01
ASKS = ("halt", "confirm")


@dataclass
class Target:
    name: str
    value: float | None  # None: no row to measure on
    bound: float
    at_most: bool  # True: value ≤ bound, False: value ≥ bound
    count: str

    @property
    def met(self) -> bool | None:
        if self.value is None:
            return None
        return self.value <= self.bound if self.at_most else self.value >= self.bound

    def row(self) -> str:
        shown = "–" if self.value is None else f"{self.value * 100:.1f} %"
        sign = "≤" if self.at_most else "≥"
        verdict = {True: "met", False: "**missed**", None: "no rows"}[self.met]
        return f"| {self.name} | {shown} ({self.count}) | {sign} {self.bound * 100:g} % | {verdict} |"


@dataclass
class Section:
    title: str
    targets: list[Target] = field(default_factory=list)
    tables: list[str] = field(default_factory=list)
    misses: list[str] = field(default_factory=list)


def load(path: Path) -> list[dict[str, Any]]:
    rows = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if line.strip():
            row = json.loads(line)
            if not isinstance(row.get("text"), str):
                raise ValueError(f"{path.name}:{number}: no text")
            rows.append(row)
    return rows


def rate(hits: int, total: int) -> tuple[float | None, str]:
    return (hits / total if total else None), f"{hits}/{total}"


def one_line(text: str) -> str:
    return text.replace("\n", " ⏎ ")


def flags(result: dict[str, Any]) -> str:
    found = result.get("red_flags") or []
    return ", ".join(f"{f.get('concept')}:{f.get('term')}:{f.get('context')}" for f in found) or "none"


# ------------------------------------------------------------------------------------------------
# Red flags
# ------------------------------------------------------------------------------------------------


def red_flag_section(router: Any, rows: list[dict[str, Any]], facts: bool = False) -> Section:
    section = Section("Red flags in context (`route_request`, caller parent_assistant" + (", patient facts derived)" if facts else ")"))
    outcome: list[tuple[dict[str, Any], dict[str, Any]]] = []
    if facts:
        from evals.facts.derive import facts_of
    for row in rows:
        extra = {"patient_facts": facts_of(row, row["text"])} if facts else {}
        result = router.route_request(row["text"], caller=CALLER, patient_id=SESSION_PATIENT,
                                      reference_date=REFERENCE, **extra).model_dump(mode="json")
        outcome.append((row, result))

    def status_counts(label: str, subject: str | None = None) -> Counter[str]:
        return Counter(r["status"] if r["status"] in ASKS else "passes" for row, r in outcome
                       if row["label"] == label and (subject is None or row.get("subject") == subject))

    emergencies = [(row, r) for row, r in outcome if row["label"] == "emergency_now"]
    silent = [(row, r) for row, r in emergencies if r["status"] not in ASKS]
    child = [(row, r) for row, r in emergencies if row.get("subject") == "child"]
    not_now = [(row, r) for row, r in outcome if row["label"] == "not_now"]
    none = [(row, r) for row, r in outcome if row["label"] == "no_mention"]

    value, count = rate(len(silent), len(emergencies))
    section.targets.append(Target("silent misses among emergency_now", value, 0.03, True, count))
    value, count = rate(sum(r["status"] == "halt" for _, r in child), len(child))
    section.targets.append(Target("children's emergency_now that halt", value, 0.90, False, count))
    value, count = rate(sum(r["status"] == "halt" for _, r in not_now), len(not_now))
    section.targets.append(Target("false halts among not_now (all mention a red flag)", value, 0.20, True, count))
    value, count = rate(sum(r["status"] == "halt" for _, r in none), len(none))
    section.targets.append(Target("halts on texts that mention no red flag", value, 0.005, True, count))

    table = ["| label | subject | rows | halt | confirm | passes (neither) |", "|---|---|---:|---:|---:|---:|"]
    for label in ("emergency_now", "borderline", "not_now", "no_mention"):
        for subject in ("child", "writer", "other"):
            c = status_counts(label, subject)
            if sum(c.values()):
                table.append(f"| {label} | {subject} | {sum(c.values())} | {c['halt']} | {c['confirm']} | {c['passes']} |")
    section.tables.append("\n".join(table))

    reasons = Counter((row.get("reason") or "–", r["status"] if r["status"] in ASKS else "passes") for row, r in not_now)
    table = ["| not_now reason | halt | confirm | passes |", "|---|---:|---:|---:|"]
    for reason in sorted({reason for reason, _ in reasons}):
        table.append(f"| {reason} | {reasons[reason, 'halt']} | {reasons[reason, 'confirm']} | {reasons[reason, 'passes']} |")
    section.tables.append("\n".join(table))

    for title, chosen in (
        ("silent miss (emergency_now, neither halt nor confirm)", silent),
        ("child emergency downgraded to confirm", [(row, r) for row, r in child if r["status"] == "confirm"]),
        ("false halt (not_now)", [(row, r) for row, r in not_now if r["status"] == "halt"]),
        ("halt without a red-flag mention (no_mention)", [(row, r) for row, r in none if r["status"] == "halt"]),
    ):
        for row, r in chosen:
            label = f"{row['label']}/{row.get('reason') or '-'}/{row.get('subject')}"
            section.misses.append(f"* {title} — `{row['id']}` [{label}; labelled {','.join(row.get('concepts') or [])}; "
                                  f"router {r['status']} {flags(r)}] {one_line(row['text'])}")
    return section


# ------------------------------------------------------------------------------------------------
# Intents and slots
# ------------------------------------------------------------------------------------------------


def intent_section(router: Any, rows: list[dict[str, Any]]) -> Section:
    section = Section("Intent on in-domain questions (`classify_intent`)")
    agree = unknown = 0
    confusion: Counter[tuple[str, str]] = Counter()
    for row in rows:
        got = router.classify_intent(row["text"]).model_dump(mode="json")["intent"]
        agree += got == row["intent"]
        unknown += got == "unknown"
        if got != row["intent"]:
            confusion[row["intent"], got] += 1
            section.misses.append(f"* intent — `{row['id']}` labelled {row['intent']}, router {got}: {one_line(row['text'])}")
    value, count = rate(agree, len(rows))
    section.targets.append(Target("intent agreement", value, 0.85, False, count))
    value, count = rate(unknown, len(rows))
    section.targets.append(Target("`unknown` on in-domain questions", value, 0.10, True, count))
    labels = Counter(row["intent"] for row in rows)
    table = ["| labelled intent | rows | router agrees |", "|---|---:|---:|"]
    for intent, total in labels.most_common():
        wrong = sum(n for (want, _), n in confusion.items() if want == intent)
        table.append(f"| {intent} | {total} | {total - wrong} |")
    section.tables.append("\n".join(table))
    table = ["| labelled → router | rows |", "|---|---:|"]
    table += [f"| {want} → {got} | {n} |" for (want, got), n in confusion.most_common()]
    section.tables.append("\n".join(table))
    return section


def same(want: Any, got: Any) -> bool:
    if want is None or got is None:
        return want is None and got is None
    return abs(float(want) - float(got)) <= TOLERANCE + 1e-9


def slot_section(router: Any, rows: list[dict[str, Any]]) -> Section:
    section = Section("Age, weight and temperature (`extract_slots`)")
    exact = others = other_rows = 0
    per_field: Counter[str] = Counter()
    for row in rows:
        result = router.extract_slots(row["text"], reference_date=REFERENCE).model_dump(mode="json")
        want = row["slots"]
        wrong = [name for name in SLOT_FIELDS if not same(want.get(name), result.get(name))]
        per_field.update(name for name in SLOT_FIELDS if name not in wrong)
        exact += not wrong
        if row.get("other_values"):
            other_rows += 1
            leaked = [name for name in SLOT_FIELDS if want.get(name) is None and result.get(name) is not None]
            others += bool(leaked)
        if wrong:
            detail = "; ".join(f"{name} labelled {want.get(name)} router {result.get(name)}" for name in wrong)
            section.misses.append(f"* slots — `{row['id']}` [{row.get('slot_subject')}] {detail}: {one_line(row['text'])}")
    value, count = rate(exact, len(rows))
    section.targets.append(Target("age, weight and temperature all exact", value, 0.95, False, count))
    value, count = rate(others, other_rows)
    section.targets.append(Target("rows where another person's value filled the patient's slots", value, 0.0, True, count))
    table = ["| field | exact |", "|---|---:|"]
    table += [f"| {name} | {per_field[name]}/{len(rows)} |" for name in SLOT_FIELDS]
    section.tables.append("\n".join(table))
    return section


# ------------------------------------------------------------------------------------------------
# Report
# ------------------------------------------------------------------------------------------------


def markdown(sections: list[Section], meta: dict[str, str]) -> str:
    out = ["# Real-text evaluation", "", "| | |", "|---|---|"]
    out += [f"| {key} | {value} |" for key, value in meta.items()]
    out += ["", "Labels were written blind to the router; see `LABELS.md` and `LABELS-indomain.md`.", ""]
    for section in sections:
        out += [f"## {section.title}", "", "| figure | value | target | |", "|---|---|---|---|"]
        out += [target.row() for target in section.targets]
        for table in section.tables:
            out += ["", table]
        out += ["", f"### Misses ({len(section.misses)})", ""]
        out += section.misses or ["none"]
        out.append("")
    return "\n".join(out)


def evaluate(data: Path, facts: bool = False) -> tuple[Any, list[Section]]:
    """The router and every section whose file is in ``data``."""
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    from app.router import Router, load_policy

    router = Router(load_policy(), today=lambda: REFERENCE)
    sections: list[Section] = []
    red = data / "redflags.jsonl"
    if red.is_file():
        sections.append(red_flag_section(router, load(red), facts))
    domain = data / "indomain.jsonl"
    if domain.is_file():
        rows = load(domain)
        sections.append(intent_section(router, [row for row in rows if row.get("intent")]))
        sections.append(slot_section(router, [row for row in rows if isinstance(row.get("slots"), dict)]))
    return router, sections


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=HERE, help="directory with redflags.jsonl / indomain.jsonl")
    parser.add_argument("--record", action="store_true", help="rewrite evals/realtext/REPORT.md")
    parser.add_argument("--facts", action="store_true", help="route with the patient facts derived from each row (evals/facts)")
    args = parser.parse_args(argv)
    if args.facts and args.record:
        parser.error("--facts figures are not the report's: run without --record")

    started = time.perf_counter()
    router, sections = evaluate(args.data, args.facts)
    if not sections:
        print(f"no redflags.jsonl or indomain.jsonl in {args.data}", file=sys.stderr)
        return 2
    meta = {
        "command": "`python evals/realtext/run.py" + (" --facts" if args.facts else "") + "`",
        "policy_version": router.policy_version,
        "data": str(args.data.resolve().relative_to(ROOT)) if args.data.resolve().is_relative_to(ROOT) else "outside the repository",
        "runtime": f"{time.perf_counter() - started:.2f} s",
    }
    report = markdown(sections, meta)
    print(report)
    if args.record:
        (HERE / "REPORT.md").write_text(report, encoding="utf-8")
    verdicts = [target.met for section in sections for target in section.targets]
    return 1 if False in verdicts else 0


if __name__ == "__main__":
    sys.exit(main())
