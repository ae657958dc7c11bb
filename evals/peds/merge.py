"""Merge the blind labels of the pediatric set into ``rows.jsonl`` (issue 19, phase B).

    python evals/peds/merge.py            read $PEDS_LOCAL/labels (default /work/peds-local), rewrite rows.jsonl

Inputs, outside the repository (the annotators' files, never edited here):

* ``labels/shard_NN.<annotator>.jsonl`` — the first reading of every row;
* ``labels/second_NN.<annotator>.jsonl`` — the second reading (every emergency candidate and a seeded
  20 % of the rest);
* ``labels/adjudicated.jsonl`` — the third reading of every row where the two disagreed on emergency,
  intent or a slot, with ``settled`` (A = the first reading's answer, B = the second's, third = neither);
* ``all.jsonl`` — the selection, for ``candidate``.

The final label is the adjudicated one where it exists, else the first reading (the second, when
there is one, agrees with it on emergency, intent and the three slots — checked here). Every
disagreement keeps both readings and the verdict in ``annotation``. The reasons of local-only rows
(cmdd, dxy) are committed without their Chinese characters: annotators quote the deciding words, and
a short chat reply is often quoted whole. The committed part of each row
(id, source, sha256, split, text of committable sources only) is read back from ``rows.jsonl``
itself, so the merge can be run again and writes the same bytes.
"""

from __future__ import annotations

import json
import os
import re
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROWS = HERE / "rows.jsonl"
BASE_FIELDS = ("id", "source", "sha256", "split", "text")
LABEL_FIELDS = ("emergency", "who", "concepts", "soft", "intent", "age_years", "weight_kg", "temperature_c",
                "approximate", "reason")
# The fields a disagreement is judged on (what run.py scores); concepts, who and soft follow them.
DECIDING = ("emergency", "intent", "age_years", "weight_kg", "temperature_c")
SLOTS = ("age_years", "weight_kg", "temperature_c")
TOLERANCE = 0.01
EMERGENCY = {"now", "not_now", "none", "borderline"}
WHO = {"child", "writer", "other"}
INTENTS = {"knowledge", "nutrition_calc", "meal_plan", "lab_result", "risk_assessment", "followup", "clinical_staging",
           "nutrition_assessment", "patient_profile", "report", "notify", "gamification", "out_of_scope"}
COMMITTABLE = ("huatuo", "remedi")
# Chinese characters and full-width punctuation: what an annotator quotes from the text. A short chat
# reply (是的, 没有发烧) is often quoted whole, so a local-only row keeps none of it.
QUOTED = re.compile(r"[\u3000-\u303f\u3400-\u9fff\uf900-\ufaff\uff00-\uffef]+")
FILE_NAME = re.compile(r"(shard|second)_(\d\d)\.(\w+)\.jsonl")


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def same_value(a: float | None, b: float | None) -> bool:
    if a is None or b is None:
        return a is None and b is None
    return abs(a - b) <= TOLERANCE + 1e-9


def agree(a: dict[str, Any], b: dict[str, Any]) -> bool:
    return a["emergency"] == b["emergency"] and a["intent"] == b["intent"] and all(same_value(a[s], b[s]) for s in SLOTS)


def problems(label: dict[str, Any]) -> list[str]:
    """A label that breaks the guide's schema is refused, never repaired."""
    found = [f"missing {name}" for name in LABEL_FIELDS if name not in label]
    if found:
        return found
    if label["emergency"] not in EMERGENCY:
        found.append("emergency")
    if label["intent"] not in INTENTS:
        found.append("intent")
    if (label["who"] is None) != (label["emergency"] == "none") or (label["who"] is not None and label["who"] not in WHO):
        found.append("who")
    if (not label["concepts"]) != (label["emergency"] == "none"):
        found.append("concepts")
    if any(not isinstance(label[s], (int, float, type(None))) or isinstance(label[s], bool) for s in SLOTS):
        found.append("slot type")
    if not set(label["approximate"]) <= set(SLOTS):
        found.append("approximate")
    return found


def readings(labels: Path, kind: str) -> dict[str, tuple[str, dict[str, Any]]]:
    """Row id → (annotator, label) over every ``<kind>_NN.<annotator>.jsonl``."""
    out: dict[str, tuple[str, dict[str, Any]]] = {}
    for path in sorted(labels.glob(f"{kind}_*.jsonl")):
        match = FILE_NAME.fullmatch(path.name)
        if not match:
            continue
        for label in read_jsonl(path):
            if label["id"] in out:
                raise SystemExit(f"{path.name}: {label['id']} read twice in the {kind} pass")
            out[label["id"]] = (match.group(3), label)
    return out


def label_of(label: dict[str, Any], local_only: bool) -> dict[str, Any]:
    """The label fields; a local-only row's reason loses its quoted words, which are the source's text."""
    out = {name: label[name] for name in LABEL_FIELDS}
    if local_only:
        out["reason"] = QUOTED.sub("…", out["reason"])
    return out


def merge(local: Path) -> list[dict[str, Any]]:
    labels = local / "labels"
    first = readings(labels, "shard")
    second = readings(labels, "second")
    third = {label["id"]: label for label in read_jsonl(labels / "adjudicated.jsonl")}
    selection = {row["id"]: row for row in read_jsonl(local / "all.jsonl")}
    base = [{name: row[name] for name in BASE_FIELDS if name in row} for row in read_jsonl(ROWS)]

    errors: list[str] = []
    ids = [row["id"] for row in base]
    if set(first) != set(ids) or not set(second) <= set(ids) or set(selection) != set(ids):
        errors.append("the label files and rows.jsonl do not hold the same ids")
    for source, table in (("first", first), ("second", second)):
        errors += [f"{source} {i}: {p}" for i, (_, label) in table.items() for p in problems(label)]
    errors += [f"adjudicated {i}: {p}" for i, label in third.items() for p in problems(label)]
    errors += [f"adjudicated {i}: bad settled" for i, label in third.items() if label.get("settled") not in ("A", "B", "third")]
    disagree = {i for i, (_, b) in second.items() if i in first and not agree(first[i][1], b)}
    if disagree != set(third):
        errors.append(f"adjudicated rows ≠ disagreements: {len(set(third) - disagree)} extra, {len(disagree - set(third))} missing")
    if errors:
        raise SystemExit("refused:\n" + "\n".join(errors[:40]))

    merged = []
    for row in base:
        i = row["id"]
        local_only = row["source"] not in COMMITTABLE
        annotator, reading_a = first[i]
        final = third.get(i, reading_a)
        annotation: dict[str, Any] = {"first": annotator, "second": None, "second_reading": False, "agreed": None}
        if i in second:
            annotation.update(second=second[i][0], second_reading=True, agreed=i not in third)
        if i in third:
            annotation.update(readings={"A": label_of(reading_a, local_only), "B": label_of(second[i][1], local_only)},
                              settled=third[i]["settled"], adjudicated=True)
        merged.append({**row, "candidate": bool(selection[i]["candidate"]), **label_of(final, local_only), "annotation": annotation})
    return merged


def main() -> int:
    local = Path(os.environ.get("PEDS_LOCAL", "/work/peds-local"))
    rows = merge(local)
    text = "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows)
    ROWS.write_text(text, encoding="utf-8")
    print(f"{len(rows)} rows written to {ROWS.name}: {sum(r['annotation']['second_reading'] for r in rows)} read twice, "
          f"{sum('settled' in r['annotation'] for r in rows)} settled by a third reading", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
