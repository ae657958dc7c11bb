"""extract_slots over every text the tests and evals hold, as one JSON line per text, and its digest.

    python scripts/slot_table.py TREE OUT

TREE is a checkout whose ``app/`` is imported; the texts are always this checkout's, so two trees
are compared on the same texts: every string literal of tests/**/*.py, every ``text`` field of
evals/**/*.jsonl and every line of tests/data/*.txt, but never a text of the pediatric set's test
split (its texts and router output are for the lead's final score only: a row whose ``split`` is
``test``, a text hashed as one in evals/peds/rows.jsonl, or a pediatric text whose sha256 is not of
the dev side, hex 0–7 then 0–b), each read against the fixed reference date
2026-03-10. OUT receives the table (keep it outside the repository). Two trees print the same
digest when no slot moved — the proof a refactoring of app/router/slots/ owes (issue 21).
"""

from __future__ import annotations

import ast
import hashlib
import json
import sys
from datetime import date
from pathlib import Path


def texts(root: Path) -> list[str]:
    found: set[str] = set()
    for path in sorted((root / "tests").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and 0 < len(node.value) <= 2000:
                found.add(node.value)
    for path in sorted((root / "evals").rglob("*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            row = json.loads(line) if line.strip() else {}
            if isinstance(row, dict) and isinstance(row.get("text"), str) and _not_held_out(path, row):
                found.add(row["text"])
    for path in sorted((root / "tests" / "data").glob("*.txt")):
        found.update(line for line in path.read_text(encoding="utf-8").splitlines() if line.strip())
    held_out = _test_split(root)
    return sorted(t for t in found if hashlib.sha256(t.strip().encode()).hexdigest() not in held_out)


def _test_split(root: Path) -> set[str]:
    rows = (root / "evals" / "peds" / "rows.jsonl").read_text(encoding="utf-8").splitlines()
    return {row["sha256"] for row in map(json.loads, filter(str.strip, rows)) if row["split"] == "test"}


def _not_held_out(path: Path, row: dict[str, object]) -> bool:
    if row.get("split") == "test":
        return False
    if "peds" not in path.parts:
        return True
    digest = hashlib.sha256(str(row["text"]).strip().encode()).hexdigest()
    return digest[0] in "01234567" and digest[1] in "0123456789ab"


def main() -> int:
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    sys.path.insert(0, str(Path(sys.argv[1]).resolve()))
    from app.router import Limits, Router, load_policy

    router = Router(load_policy(), Limits())
    lines = []
    for text in texts(Path(__file__).resolve().parents[1]):
        slots = router.extract_slots(text, date(2026, 3, 10)).model_dump(exclude={"policy_version"})
        lines.append(json.dumps([text, slots], ensure_ascii=False, sort_keys=True))
    table = "\n".join(lines)
    Path(sys.argv[2]).write_text(table, encoding="utf-8")
    print(len(lines), "texts, sha256", hashlib.sha256(table.encode()).hexdigest())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
