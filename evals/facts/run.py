"""Patient facts (issue 32, SPEC §4.5 revision 3): our own sentences, both ways, per fact × concept.

    python evals/facts/run.py            the table, every miss listed; exit 1 on a miss

``table.jsonl`` holds sentences written for this table (none from a real-text set). Each row has
the facts a dispatcher's session would pass and a case:

* ``now`` — the event is the patient's, now: with the facts it halts and its red flag names the
  fact; the same text without facts does not halt (column "without facts");
* ``past``, ``negated``, ``other_person``, ``hypothetical`` — with the facts it does not halt (a red
  flag the fact made then asks: ``confirm``);
* ``not_this_fact`` — a word of another rule (belly pain for a transplant, fever alone for
  nephrotic syndrome): the facts make no red flag.

``route_request`` as parent_assistant for session patient P0001 on 2026-12-01.
"""

from __future__ import annotations

import json
import sys
from collections import defaultdict
from datetime import date
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

TABLE = HERE / "table.jsonl"
REFERENCE = date(2026, 12, 1)
CASES = ("now", "without facts", "past", "negated", "other_person", "hypothetical", "not_this_fact")


def check(router: Any, row: dict[str, Any]) -> list[tuple[str, bool, str]]:
    """(case, passed, what the router did) for one row; a ``now`` row gives two."""
    def route(facts: dict[str, Any] | None) -> dict[str, Any]:
        return router.route_request(row["text"], caller="parent_assistant", patient_id="P0001", reference_date=REFERENCE,
                                    patient_facts=facts).model_dump(mode="json")

    result = route(row["facts"])
    made = [f for f in result["red_flags"] if f["fact"] is not None]
    shown = f"{result['status']} " + (", ".join(f"{f['concept']}:{f['context']}:{f['fact']}" for f in made) or "no fact flag")
    case = row["case"]
    if case == "now":
        named = any((f["concept"], f["fact"], f["context"]) == (row["concept"], row["fact"], "current") for f in made)
        without = route(None)
        return [("now", result["status"] == "halt" and named, shown),
                ("without facts", without["status"] != "halt", f"{without['status']} without facts")]
    if case == "not_this_fact":
        return [(case, not made and result["status"] == route(None)["status"], shown)]
    return [(case, result["status"] != "halt" and (not made or result["status"] == "confirm"), shown)]


def main() -> int:
    from app.router import Router, load_policy

    router = Router(load_policy(), today=lambda: REFERENCE)
    rows = [json.loads(line) for line in TABLE.read_text(encoding="utf-8").splitlines() if line.strip()]
    counts: dict[tuple[str, str], list[int]] = defaultdict(lambda: [0, 0])
    misses: list[str] = []
    keys: list[str] = []
    for row in rows:
        key = f"{row['fact']} {json.dumps(row['facts'])} → {row['concept']}"
        if key not in keys:
            keys.append(key)
        for case, passed, shown in check(router, row):
            cell = counts[key, case]
            cell[0] += passed
            cell[1] += 1
            if not passed:
                misses.append(f"* `{row['id']}` ({case}): {row['text']} — router {shown}")
    print(f"# Patient facts, both ways ({len(rows)} sentences of `evals/facts/table.jsonl`, policy {router.policy_version})\n")
    print("Each cell: rows that behave as the rule says / rows. now: halts with the fact, red flag naming it; "
          "without facts: the same text does not halt; past … hypothetical: does not halt (asks when the fact made a flag); "
          "not_this_fact: the facts make no flag.\n")
    print("| fact → concept | " + " | ".join(CASES) + " |")
    print("|---|" + "---:|" * len(CASES))
    for key in keys:
        cells = [f"{counts[key, c][0]}/{counts[key, c][1]}" if counts[key, c][1] else "–" for c in CASES]
        print(f"| {key} | " + " | ".join(cells) + " |")
    total = sum(n for _, n in counts.values())
    good = sum(k for k, _ in counts.values())
    print(f"\n{good} of {total} checks as the rule says.")
    if misses:
        print("\nMisses:\n" + "\n".join(misses))
    return 1 if misses else 0


if __name__ == "__main__":
    sys.exit(main())
