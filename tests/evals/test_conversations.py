"""The price of asking (issue 29, SPEC §4.7 revision 3): ``evals/peds/conversations.py``.

Committed part, run everywhere: the food questions (kidney-nutrition questions about a child, our
own sentences and committable Huatuo-26M text) and the walker's counting, on a stub router whose
answers are scripted and on short dialogues of our own through the real router. The CMDD walk needs
the mirror (``PEDS_MIRROR``, default ``/work/.mirror``): skipped elsewhere, with the reason.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
spec = importlib.util.spec_from_file_location("peds_conversations", ROOT / "evals" / "peds" / "conversations.py")
assert spec and spec.loader
conv = importlib.util.module_from_spec(spec)
sys.modules[spec.name] = conv
spec.loader.exec_module(conv)

ROUTER = conv.make_router()
FOOD = conv.load_food()
PEDS_ROWS = {row["id"]: row for row in map(json.loads, (ROOT / "evals" / "peds" / "rows.jsonl").read_text(encoding="utf-8").splitlines())}


# --- the food questions ------------------------------------------------------------------------------


def test_the_food_population_is_its_size_and_labelled():
    assert len(FOOD) >= 150
    assert len({row["id"] for row in FOOD}) == len(FOOD)
    assert len({row["text"] for row in FOOD}) == len(FOOD)
    assert all(isinstance(row["names_symptom"], bool) and row["source"] in {"own", "huatuo"} for row in FOOD)
    assert sum(not row["names_symptom"] for row in FOOD) >= 120
    assert sum(row["names_symptom"] for row in FOOD) >= 20


def test_committable_source_rows_are_the_committed_allowed_half_text():
    """A huatuo row is Huatuo-26M's text exactly as the peds set committed it (same id, same hash, 0–7 half)."""
    borrowed = [row for row in FOOD if row["source"] != "own"]
    for row in borrowed:
        digest = hashlib.sha256(row["text"].encode("utf-8")).hexdigest()
        assert row["sha256"] == digest and digest[0] in "01234567", row["id"]
        assert PEDS_ROWS[row["id"]]["text"] == row["text"], row["id"]


def test_food_questions_that_name_no_symptom_rarely_ask():
    """SPEC §4.7 revision 3: at most 3 % of kidney-nutrition questions that name no symptom ask."""
    food = conv.score_food(ROUTER, FOOD)
    assert food["no_symptom_share_asking"] <= conv.FOOD_TARGET, food["no_symptom_asking"]


# --- the walker on a scripted router --------------------------------------------------------------------


@dataclass
class Flag:
    concept: str
    acknowledged: bool = False
    context: str = "current"


@dataclass
class Question:
    concept: str


@dataclass
class Result:
    status: str
    reason_code: str = ""
    red_flags: list[Flag] = field(default_factory=list)
    severity_questions: list[Question] = field(default_factory=list)


class ScriptedRouter:
    """Answers by message: ``asks`` maps a message to the concepts it asks until all are acknowledged
    (a ``then`` entry: after those, it asks the next ones); ``halts`` halts; anything else proceeds.
    Records every acknowledged list it was sent."""

    def __init__(self, asks: dict[str, list[list[str]]], halts: set[str] = frozenset(), stuck: set[str] = frozenset()):
        self.asks, self.halts, self.stuck = asks, halts, stuck
        self.sent: list[tuple[str, list[str]]] = []

    def call(self, tool: str, args: dict) -> Result:
        assert tool == "route_request" and args["caller"] == "parent_assistant" and args["patient_id"] == "P0001"
        text, acknowledged = args["text"], args.get("acknowledged_red_flags", [])
        self.sent.append((text, list(acknowledged)))
        if text in self.halts:
            return Result("halt", "p0_emergency", [Flag("seizure")])
        if text in self.stuck:  # asks the same thing whatever is acknowledged
            return Result("confirm", "p0_confirm_current", [Flag("seizure", context="historical")])
        for concepts in self.asks.get(text, []):
            open_ = [c for c in concepts if c not in acknowledged]
            if open_:
                return Result("confirm", "p0_confirm_severity",
                              [Flag(c, c in acknowledged) for c in concepts], [Question(c) for c in open_[:1]])
        return Result("proceed", "proceed")


def test_one_question_per_confirm_acknowledges_every_asked_id_for_the_conversation():
    router = ScriptedRouter({"a": [["lethargy", "symptom.general"]], "b": [["lethargy"]]})
    walked = conv.walk(router, ["a", "", "b", "a", "thanks"])
    assert (walked.messages, walked.questions, walked.halts, walked.unresolved) == (4, 1, 0, 0)
    # the severity question's concept and the red flag's both count as asked, and stay acknowledged
    assert walked.acknowledged == ["lethargy", "symptom.general"]
    assert router.sent == [("a", []), ("a", ["lethargy", "symptom.general"]), ("b", ["lethargy", "symptom.general"]),
                           ("a", ["lethargy", "symptom.general"]), ("thanks", ["lethargy", "symptom.general"])]
    assert walked.asked == {"lethargy": 1, "symptom.general": 1} and walked.reasons == {"p0_confirm_severity": 1}
    assert walked.asking == [(0, "p0_confirm_severity", ["lethargy", "symptom.general"])]


def test_a_resend_that_asks_something_new_is_another_question():
    router = ScriptedRouter({"a": [["lethargy"], ["symptom.urine"]]})
    walked = conv.walk(router, ["a", "a"])
    assert (walked.questions, walked.unresolved, walked.acknowledged) == (2, 0, ["lethargy", "symptom.urine"])


def test_a_halt_is_counted_and_the_walk_goes_on():
    router = ScriptedRouter({"b": [["anuria"]]}, halts={"h"})
    walked = conv.walk(router, ["h", "b", "h"])
    assert (walked.halts, walked.questions, walked.halted) == (2, 1, {"seizure": 2})


def test_a_no_that_changes_nothing_is_unresolved_not_a_loop():
    router = ScriptedRouter({}, stuck={"s"})
    walked = conv.walk(router, ["s", "ok"])
    assert (walked.questions, walked.unresolved, walked.messages) == (2, 1, 2)
    assert len(router.sent) == 3


def test_the_figures_of_a_split():
    walks = [conv.Walk(messages=10, questions=q) for q in (0, 0, 0, 1, 1, 2, 0, 0, 3, 0)]
    figures = conv.burden(walks)
    assert figures["questions_per_conversation"] == {"mean": 0.7, "median": 0.0, "p90": 2, "max": 3}
    assert (figures["conversations_asked"], figures["share_asked"], figures["questions_per_100_messages"]) == (4, 0.4, 7.0)
    assert conv.p90([0] * 9 + [5]) == 0 and conv.p90([0] * 8 + [1, 5]) == 1


# --- the walker on the real router, dialogues of our own ------------------------------------------------------


def test_a_sick_child_is_asked_once_in_a_conversation():
    """A soft sign asks on the first message; the parent's no holds for the rest of the conversation."""
    walked = conv.walk(ROUTER, ["孩子今天精神不好，能吃香蕉吗", "孩子还是精神不好，苹果可以吃吗", "好的，谢谢",
                                "孩子精神不好，晚饭喝点粥行吗"])
    assert (walked.messages, walked.questions, walked.halts, walked.unresolved) == (4, 1, 0, 0)
    assert "lethargy" in walked.acknowledged


def test_a_new_sign_later_in_the_conversation_still_asks_and_a_hard_sign_still_halts():
    walked = conv.walk(ROUTER, ["孩子今天精神不好，能吃香蕉吗", "孩子以前便血过，能吃鸡蛋吗", "孩子刚才抽搐了，叫不醒"])
    assert (walked.questions, walked.halts) == (2, 1)
    assert {"lethargy", "gi_bleeding"} <= set(walked.acknowledged)


def test_the_split_is_the_dialogue_ids_hash_so_a_conversation_sits_in_one_split():
    ids = [f"cmdd:train/train_{i}" for i in range(40)]
    for dialogue_id in ids:  # the documented rule: first hex digit of the id's SHA-256, 0–7 → dev
        first = hashlib.sha256(dialogue_id.encode("utf-8")).hexdigest()[0]
        assert conv.conversation_split(dialogue_id) == ("dev" if first in "01234567" else "test")
    assert {conv.conversation_split(i) for i in ids} == {"dev", "test"}


# --- CMDD (local only) ------------------------------------------------------------------------------------


@pytest.mark.skipif(not conv.mirror_present(), reason="CMDD mirror not present (PEDS_MIRROR, default /work/.mirror): local only")
def test_cmdd_whole_dialogues_are_walked():
    figures = conv.walk_cmdd(ROUTER)
    dev, test = figures["dev"], figures["test"]
    assert dev["conversations"] + test["conversations"] == 2067 and min(dev["conversations"], test["conversations"]) > 900
    for split in (dev, test):
        assert split["messages"] > 10 * split["conversations"]
        assert split["questions"] == sum(split["reason_codes"].values())
        assert split["unresolved"] == 0
        # SPEC §4.7 revision 3's price: at most one question per conversation on average, p90 ≤ 2 (issue 29)
        assert split["questions_per_conversation"]["mean"] <= 1.0 and split["questions_per_conversation"]["p90"] <= 2
