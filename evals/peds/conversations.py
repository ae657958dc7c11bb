"""The price of asking, counted over whole conversations (issue 29, SPEC §4.7 revision 3).

    python -m evals.peds.conversations                 CMDD dev and test figures + the food questions
    python -m evals.peds.conversations --record        also rewrite evals/peds/CONVERSATIONS.md
    python -m evals.peds.conversations --food          the food questions only (no mirror needed)
    python -m evals.peds.conversations --asking 20     ids of dev messages that asked (no text): only
                                                       those marked ``open`` may be read to see why

**The dispatcher** follows SPEC §4.7's contract in-process (``app.router.Router``), as
``parent_assistant`` for session patient P0001 on 2026-12-01. For each parent message, in order, it
calls ``route_request`` with the conversation's acknowledged concept ids. ``halt`` counts one halt
(and the walk goes on with the next message: the figures count how often, not what follows).
``confirm`` counts **one question** (one turn, however many questions it lists); the simulated
parent answers no to all of them, so every concept id it asked (``severity_questions`` and the
``red_flags`` not yet acknowledged) is acknowledged for the rest of the conversation, and the
dispatcher resends the same message. A resend that asks again counts another question; one that
asks nothing new, or a fifth routing of one message, counts as ``unresolved`` and the walk moves on.

**CMDD** (local only: nothing of it is committed but ids and counts). The source, commit and text
rule are those of ``texts.py`` ``cmdd_items`` (README "How a text is built"): a dialogue is one JSON
file of ``data/CMDD`` at the pinned commit, its parent messages the ``dialogue-content[k].sentence``
entries whose speaker is 患者, stripped, in order; message id ``cmdd:<split>/<stem>:<k>``, dialogue id
``cmdd:<split>/<stem>``. Unlike the labelled set, bare acknowledgements (嗯, 好的) are kept: the
dispatcher sees every message (only empty ones are skipped). A dialogue holds messages of both
sha256 halves: every message goes through the router and only ids, statuses and counts leave it.

**Split** (so a conversation sits in one split): the SHA-256 of the UTF-8 dialogue id; first hex
digit ``0``–``7`` → ``dev``, ``8``–``f`` → ``test``. It is not the labelled set's split (which hashes
each text), and CMDD's own train / dev / test folders play no part.

**Food questions** (``food_questions.jsonl``, committed): kidney-nutrition questions about a child,
each labelled ``names_symptom`` (does it name a current symptom of the child). Each is routed alone,
with nothing acknowledged; it *asks* when the status is ``confirm`` or ``halt``. Target: ≤ 3 % of
those that name no symptom ask.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import statistics
import subprocess
import sys
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))
from evals.peds import texts  # noqa: E402

FOOD = HERE / "food_questions.jsonl"
RECORD = HERE / "CONVERSATIONS.md"
REFERENCE = date(2026, 12, 1)
CALLER = "parent_assistant"
SESSION_PATIENT = "P0001"
MAX_ROUTES = 4  # routings of one message, as the example dispatcher allows
MAX_ACKNOWLEDGED = 32  # SPEC §4.7: acknowledged_red_flags holds at most 32 ids
FOOD_TARGET = 0.03
COMMAND = "python -m evals.peds.conversations --record"


# --- the dispatcher ----------------------------------------------------------------------------------


@dataclass
class Walk:
    """One conversation walked: counts and concept ids only, never text."""

    messages: int = 0
    questions: int = 0
    halts: int = 0
    unresolved: int = 0
    asked: Counter[str] = field(default_factory=Counter)  # concept id → questions that asked it
    reasons: Counter[str] = field(default_factory=Counter)  # confirm reason_code → questions
    halted: Counter[str] = field(default_factory=Counter)  # concept id → halts naming it
    acknowledged: list[str] = field(default_factory=list)
    asking: list[tuple[int, str, list[str]]] = field(default_factory=list)  # (message index, reason, concepts)


def asked_concepts(result: Any) -> list[str]:
    """Every concept id one ``confirm`` asked about, in the router's order: its severity questions'
    concepts, then those of its red flags not acknowledged yet."""
    ids = [q.concept for q in result.severity_questions]
    ids += [f.concept for f in result.red_flags if not f.acknowledged]
    return list(dict.fromkeys(ids))


def route(router: Any, text: str, acknowledged: Sequence[str]) -> Any:
    """``route_request`` through the router's validating entry (unknown ids are an error, as on the wire)."""
    args: dict[str, Any] = {"text": text, "caller": CALLER, "patient_id": SESSION_PATIENT,
                            "reference_date": REFERENCE.isoformat()}
    if acknowledged:
        args["acknowledged_red_flags"] = list(acknowledged)
    return router.call("route_request", args)


def walk(router: Any, messages: Iterable[str]) -> Walk:
    """The contract's dispatcher over one conversation's parent messages (see the module doc)."""
    out = Walk()
    for index, text in enumerate(messages):
        if not text:
            continue
        out.messages += 1
        for routes in range(1, MAX_ROUTES + 1):
            result = route(router, text, out.acknowledged)
            if result.status == "halt":
                out.halts += 1
                out.halted.update(list(dict.fromkeys(f.concept for f in result.red_flags if f.context == "current")))
                break
            if result.status != "confirm":
                break
            out.questions += 1
            out.reasons[result.reason_code] += 1
            asked = asked_concepts(result)
            out.asking.append((index, result.reason_code, asked))
            out.asked.update(asked)
            new = [c for c in asked if c not in out.acknowledged]
            if not new or routes == MAX_ROUTES:
                out.unresolved += 1  # the no changed nothing: the dispatcher gives up on this message
                break
            out.acknowledged += new
            if len(out.acknowledged) > MAX_ACKNOWLEDGED:
                raise RuntimeError(f"more than {MAX_ACKNOWLEDGED} acknowledged ids in one conversation")
    return out


def make_router() -> Any:
    from app.router import Router, load_policy

    return Router(load_policy(), today=lambda: REFERENCE)


# --- CMDD --------------------------------------------------------------------------------------------


def conversation_split(dialogue_id: str) -> str:
    return "dev" if hashlib.sha256(dialogue_id.encode("utf-8")).hexdigest()[0] in "01234567" else "test"


def mirror_present() -> bool:
    repo, commit, _ = texts.CMDD
    git_dir = texts.mirror_root() / repo / "repo"
    if not git_dir.is_dir():
        return False
    probe = subprocess.run(["git", "-C", str(git_dir), "cat-file", "-e", f"{commit}^{{commit}}"], capture_output=True)
    return probe.returncode == 0


def cmdd_dialogues() -> Iterator[tuple[str, list[tuple[str, str]]]]:
    """(dialogue id, [(message id, text)…]) for every CMDD dialogue, in path order; one ``git cat-file
    --batch`` for all files (the same blobs ``texts.git_show`` reads one process at a time)."""
    repo, commit, _ = texts.CMDD
    paths = sorted(texts.git_ls(texts.CMDD))
    request = "".join(f"{commit}:{path}\n" for path in paths).encode("utf-8")
    batch = subprocess.run(["git", "-C", str(texts.mirror_root() / repo / "repo"), "cat-file", "--batch"],
                           input=request, capture_output=True, check=True).stdout
    at = 0
    for path in paths:
        header_end = batch.index(b"\n", at)
        header = batch[at:header_end].split()
        if len(header) != 3 or header[1] != b"blob":
            raise RuntimeError(f"git cat-file could not read {path}")
        size = int(header[2])
        blob = batch[header_end + 1: header_end + 1 + size]
        at = header_end + 1 + size + 1
        split, stem = path.split("/")[-2], Path(path).stem
        content = json.loads(blob.decode("utf-8"))["dialogue-content"]
        messages = [(f"cmdd:{split}/{stem}:{k}", t["sentence"].strip()) for k, t in enumerate(content) if t["speaker"] == "患者"]
        yield f"cmdd:{split}/{stem}", messages


def p90(values: Sequence[int]) -> int:
    """Nearest rank: the smallest value that at least 90 % of the values do not exceed."""
    ordered = sorted(values)
    return ordered[max(0, math.ceil(0.9 * len(ordered)) - 1)] if ordered else 0


def burden(walks: Sequence[Walk], top: int = 8) -> dict[str, Any]:
    """The figures of one split."""
    if not walks:
        return {"conversations": 0}
    questions = [w.questions for w in walks]
    messages = sum(w.messages for w in walks)
    asked: Counter[str] = Counter()
    reasons: Counter[str] = Counter()
    halted: Counter[str] = Counter()
    for w in walks:
        asked.update(w.asked)
        reasons.update(w.reasons)
        halted.update(w.halted)
    families = Counter({c: n for c, n in asked.items() if c.startswith("symptom.")})
    concepts = Counter({c: n for c, n in asked.items() if not c.startswith("symptom.")})
    return {
        "conversations": len(walks),
        "messages": messages,
        "questions": sum(questions),
        "questions_per_conversation": {"mean": round(statistics.fmean(questions), 3), "median": float(statistics.median(questions)),
                                       "p90": p90(questions), "max": max(questions)},
        "conversations_asked": sum(q > 0 for q in questions),
        "share_asked": round(sum(q > 0 for q in questions) / len(walks), 3),
        "questions_per_100_messages": round(100 * sum(questions) / messages, 2) if messages else None,
        "halts": sum(w.halts for w in walks),
        "conversations_halted": sum(w.halts > 0 for w in walks),
        "unresolved": sum(w.unresolved for w in walks),
        "reason_codes": dict(reasons.most_common()),
        "families": dict(families.most_common(top)),
        "concepts": dict(concepts.most_common(top)),
        "halt_concepts": dict(halted.most_common(top)),
    }


def readable_ids() -> set[str]:
    """Messages that may be opened: those already read and labelled on the dev side — the labelled
    set's dev split and the pool's ``tune`` part (both of the 0–7 half). Not the 8–f half, not the
    set's test split, not the pool's held-out part, and no unread line (issue 29's sealed part is drawn
    from those)."""
    ids = set()
    for path, keep in ((texts.ROWS, lambda r: r.get("split") == "dev"), (texts.POOL_ROWS, lambda r: r.get("part") == "tune")):
        for line in path.read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            if keep(row) and texts.allowed(row["sha256"]):
                ids.add(row["id"])
    return ids


def asking_in_dev(router: Any, limit: int) -> list[dict[str, Any]]:
    """The first ``limit`` questions asked in the dev split, as ids: message id, reason, concepts, and
    ``open`` — true only for a message of ``readable_ids`` whose text still hashes to 0–7. Never text."""
    readable = readable_ids()
    found: list[dict[str, Any]] = []
    for dialogue_id, messages in cmdd_dialogues():
        if conversation_split(dialogue_id) != "dev":
            continue
        walked = walk(router, [text for _, text in messages])
        for index, reason, concepts in walked.asking:
            message_id, text = messages[index]
            found.append({"id": message_id, "reason_code": reason, "concepts": concepts,
                          "open": message_id in readable and texts.allowed(texts.sha256(text))})
            if len(found) >= limit:
                return found
    return found


def walk_cmdd(router: Any) -> dict[str, Any]:
    walks: dict[str, list[Walk]] = {"dev": [], "test": []}
    for dialogue_id, messages in cmdd_dialogues():
        walks[conversation_split(dialogue_id)].append(walk(router, (text for _, text in messages)))
    return {split: burden(ws) for split, ws in walks.items()}


# --- food questions ----------------------------------------------------------------------------------


def load_food(path: Path = FOOD) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def score_food(router: Any, rows: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Each question alone, nothing acknowledged: which ask (confirm or halt), by label."""
    asking: dict[bool, list[str]] = {False: [], True: []}
    statuses: dict[str, str] = {}
    for row in rows:
        result = route(router, row["text"], ())
        statuses[row["id"]] = result.status
        if result.status in ("confirm", "halt"):
            asking[row["names_symptom"]].append(row["id"])
    plain = [r for r in rows if not r["names_symptom"]]
    sick = [r for r in rows if r["names_symptom"]]
    return {
        "rows": len(rows),
        "no_symptom": len(plain),
        "no_symptom_asking": asking[False],
        "no_symptom_share_asking": round(len(asking[False]) / len(plain), 4) if plain else None,
        "with_symptom": len(sick),
        "with_symptom_asking": len(asking[True]),
        "with_symptom_share_asking": round(len(asking[True]) / len(sick), 4) if sick else None,
        "statuses": dict(Counter(statuses.values()).most_common()),
    }


# --- report --------------------------------------------------------------------------------------------


def git_head() -> str:
    done = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"], capture_output=True, text=True)
    return done.stdout.strip() or "unknown"


def markdown(cmdd: dict[str, Any] | None, food: dict[str, Any]) -> str:
    lines = [
        "# Conversations: the price of asking (issue 29)",
        "",
        f"Generated by `{COMMAND}` on the tree at `{git_head()}` (before this file's own commit); the rules",
        "(dispatcher, split, what counts) are in the module doc of `evals/peds/conversations.py`.",
        "Counts and concept ids only: no text of CMDD is committed.",
        "",
    ]
    if cmdd is None:
        lines += ["CMDD: the mirror was not present, nothing measured.", ""]
    else:
        lines += ["## CMDD whole dialogues", "",
                  "| | dev | test |", "|---|---|---|"]
        rows = [
            ("conversations", lambda s: s["conversations"]),
            ("parent messages", lambda s: s["messages"]),
            ("questions (confirm turns)", lambda s: s["questions"]),
            ("questions per conversation: mean", lambda s: s["questions_per_conversation"]["mean"]),
            ("… median", lambda s: s["questions_per_conversation"]["median"]),
            ("… p90", lambda s: s["questions_per_conversation"]["p90"]),
            ("… max", lambda s: s["questions_per_conversation"]["max"]),
            ("conversations asked at least once", lambda s: f"{s['conversations_asked']} ({100 * s['share_asked']:.1f} %)"),
            ("questions per 100 messages", lambda s: s["questions_per_100_messages"]),
            ("halts (messages)", lambda s: s["halts"]),
            ("conversations with a halt", lambda s: s["conversations_halted"]),
            ("unresolved (a no that changed nothing)", lambda s: s["unresolved"]),
        ]
        for name, get in rows:
            lines.append(f"| {name} | {get(cmdd['dev'])} | {get(cmdd['test'])} |")
        lines.append("")
        for split in ("dev", "test"):
            s = cmdd[split]
            lines += [f"**{split}** — by reason: {_counts(s['reason_codes'])}; symptom families asked: "
                      f"{_counts(s['families'])}; concepts asked: {_counts(s['concepts'])}; halting concepts: "
                      f"{_counts(s['halt_concepts'])}.", ""]
    share = food["no_symptom_share_asking"]
    lines += [
        "## Food questions (`food_questions.jsonl`)", "",
        f"{food['rows']} kidney-nutrition questions about a child; {food['no_symptom']} name no symptom, "
        f"{food['with_symptom']} name one. Routed one by one, nothing acknowledged.", "",
        f"* Name no symptom and ask (confirm or halt): **{len(food['no_symptom_asking'])} of {food['no_symptom']}"
        f" = {100 * share:.1f} %** (target ≤ {100 * FOOD_TARGET:.0f} %)"
        + (f": {', '.join(food['no_symptom_asking'])}" if food["no_symptom_asking"] else ""),
        f"* Name a symptom and ask: {food['with_symptom_asking']} of {food['with_symptom']}",
        f"* Statuses: {_counts(food['statuses'])}", "",
    ]
    return "\n".join(lines)


def _counts(counts: dict[str, int]) -> str:
    return ", ".join(f"`{k}` {v}" for k, v in counts.items()) or "none"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m evals.peds.conversations", description=__doc__.splitlines()[0])
    parser.add_argument("--record", action="store_true", help=f"rewrite {RECORD.relative_to(ROOT)}")
    parser.add_argument("--food", action="store_true", help="the food questions only")
    parser.add_argument("--asking", type=int, metavar="N", help="list the ids of the first N questions of the dev split")
    args = parser.parse_args(argv)
    router = make_router()
    if args.asking:
        if not mirror_present():
            print(f"CMDD mirror not found under {texts.mirror_root()}", file=sys.stderr)
            return 2
        for entry in asking_in_dev(router, args.asking):
            print(json.dumps(entry, ensure_ascii=False))
        return 0
    food = score_food(router, load_food())
    cmdd = None
    if not args.food:
        if mirror_present():
            cmdd = walk_cmdd(router)
        else:
            print(f"CMDD mirror not found under {texts.mirror_root()}: food questions only", file=sys.stderr)
    print(json.dumps({"cmdd": cmdd, "food": food}, ensure_ascii=False, indent=1))
    if args.record:
        if cmdd is None:
            print("--record needs the CMDD mirror: nothing written", file=sys.stderr)
            return 2
        RECORD.write_text(markdown(cmdd, food), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
