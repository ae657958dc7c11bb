"""The pediatric real-text set's committed rows keep the licence and hash rules (issue 19).

Only texts of the allowed half (sha256 starting 0-7) are committed, local-only sources carry no
text (not even quoted in a label's reason), every committed text hashes to its sha256 and the split
follows the hash.
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
ROWS = [json.loads(line) for line in (ROOT / "evals" / "peds" / "rows.jsonl").read_text(encoding="utf-8").splitlines()]
COMMITTABLE = {"huatuo", "remedi"}
# What an annotator quotes from a text: a local-only row's reasons must keep none of it.
QUOTED = re.compile(r"[\u3000-\u303f\u3400-\u9fff\uf900-\ufaff\uff00-\uffef]")


def reasons(row):
    readings = row.get("annotation", {}).get("readings", {})
    return [row.get("reason") or "", *(reading["reason"] for reading in readings.values())]


def broken(rule, rows):
    return [row["id"] for row in rows if not rule(row)]


RULES = [
    pytest.param(lambda r: r["sha256"][0] in "01234567", id="only the allowed half (sha256 0-7)"),
    pytest.param(lambda r: r["source"] in COMMITTABLE or "text" not in r, id="no local-only text committed"),
    pytest.param(lambda r: r["source"] not in COMMITTABLE or "text" in r, id="committable rows carry their text"),
    pytest.param(lambda r: "text" not in r or hashlib.sha256(r["text"].encode("utf-8")).hexdigest() == r["sha256"],
                 id="committed text hashes to its sha256"),
    pytest.param(lambda r: "text" not in r or r["text"] == r["text"].strip(), id="committed text is whitespace-stripped"),
    pytest.param(lambda r: r["source"] in COMMITTABLE or not any(QUOTED.search(reason) for reason in reasons(r)),
                 id="no quoted words in a local-only reason"),
    pytest.param(lambda r: r["split"] == ("dev" if r["sha256"][1] in "0123456789ab" else "test"),
                 id="split by the second hex digit"),
]


@pytest.mark.parametrize("rule", RULES)
def test_rule_holds_on_every_row(rule):
    assert broken(rule, ROWS) == []


@pytest.mark.parametrize(
    "row",
    [
        pytest.param({"id": "x", "source": "cmdd", "sha256": "9" + "0" * 63, "split": "dev"}, id="refuses an 8-f hash"),
        pytest.param({"id": "x", "source": "cmdd", "sha256": "0" * 64, "split": "dev", "text": "t"}, id="refuses a local text"),
        pytest.param({"id": "x", "source": "huatuo", "sha256": "0" * 64, "split": "dev", "text": "t"}, id="refuses a wrong hash"),
        pytest.param({"id": "x", "source": "huatuo", "sha256": "0f" + "0" * 62, "split": "dev"}, id="refuses a wrong split"),
        pytest.param({"id": "x", "source": "dxy", "sha256": "0" * 64, "split": "dev", "reason": "说 是的"},
                     id="refuses a quoted local reason"),
        pytest.param({"id": "x", "source": "cmdd", "sha256": "0" * 64, "split": "dev", "reason": "r",
                      "annotation": {"readings": {"A": {"reason": "r"}, "B": {"reason": "没有"}}}},
                     id="refuses a quoted word in a kept reading"),
    ],
)
def test_a_broken_row_is_caught(row):
    assert any(broken(param.values[0], [row]) for param in RULES)


def test_ids_are_unique_and_the_set_is_its_size():
    assert len({row["id"] for row in ROWS}) == len(ROWS) >= 3000
