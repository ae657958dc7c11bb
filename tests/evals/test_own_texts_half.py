"""Every committed text lies in the allowed hash half (sha256 of the stripped text starting 0–7),
our own sentences too: the other half is kept for an independent check, and a text there is
indistinguishable from one taken from it."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
FILES = ["evals/peds/food_questions.jsonl", "evals/facts/table.jsonl", "evals/peds/rows.jsonl",
         "evals/realtext/redflags.jsonl", "evals/realtext/indomain.jsonl"]


def other_half(path: Path) -> list[str]:
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    return [str(r.get("id")) for r in rows if "text" in r
            and hashlib.sha256(r["text"].strip().encode("utf-8")).hexdigest()[0] not in "01234567"]


@pytest.mark.parametrize("name", FILES)
def test_every_text_is_in_the_allowed_half(name):
    assert other_half(ROOT / name) == []


def test_a_text_of_the_other_half_is_caught(tmp_path):
    path = tmp_path / "rows.jsonl"
    texts = [f"句子{i}" for i in range(40)]
    path.write_text("\n".join(json.dumps({"id": t, "text": t}, ensure_ascii=False) for t in texts), encoding="utf-8")
    assert other_half(path) == [t for t in texts if hashlib.sha256(t.encode()).hexdigest()[0] in "89abcdef"] != []
