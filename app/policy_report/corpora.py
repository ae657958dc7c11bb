"""The texts a policy change is measured on, and what their labels expect.

A corpus is a JSONL file (one object a line) or a text table (one text a line, ``#`` comments,
split on ``\\n`` only because some lines carry U+2028 on purpose). A JSONL row is

* an end-to-end case (``tool`` + ``arguments``, ``expected`` optional, evals/cases.jsonl): that
  tool with those arguments;
* any row with a ``text``: ``route_request`` as the row's ``caller`` (default parent_assistant)
  for the row's ``patient_id`` (default the session patient P0001);
* a row without a ``text`` (evals/peds/rows.jsonl keeps only ids of sources that may not be
  published): its text from the git-ignored ``local/texts.jsonl`` beside it, keyed by id, and
  then shown by its id only; skipped and counted when that file does not have it.

Labels the project's sets use are read where present: ``label`` (evals/realtext/redflags.jsonl:
emergency_now, not_now, no_mention, borderline), ``emergency`` (evals/peds: now, not_now, none,
borderline), ``intent``, the slots ``age_years`` / ``weight_kg`` / ``temperature_c`` (top level or
under ``slots``), ``expected`` (a case); the three decision tables of tests/data expect halt, confirm,
or neither. A label scores a decision: a higher score is closer to the label, so a changed row is
"fixed" or "broke".
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import Any, Callable

from .outcomes import STOPS, outcome

REFERENCE = date(2026, 12, 1)  # relative dates resolve against a fixed day: a report is reproducible
CALLER = "parent_assistant"
SESSION_PATIENT = "P0001"
SLOT_LABELS = ("age_years", "weight_kg", "temperature_c")
SLOT_TOLERANCE = 0.01

# The project's own sets, in report order; those missing from a checkout are named and skipped.
DEFAULT_CORPORA = (
    "evals/realtext/redflags.jsonl",
    "evals/realtext/indomain.jsonl",
    "evals/peds/rows.jsonl",
    "evals/cases.jsonl",
    "tests/data/p0_evasions.txt",
    "tests/data/p0_ask.txt",
    "tests/data/p0_benign.txt",
)
# evals/peds is split dev / test by hash (issue 19): its test split is scored only for a finished
# change, so the default report leaves it out; name the file with --corpus to run every row.
HELD_OUT_SPLIT = "test"

Score = Callable[[str, dict[str, Any]], int]


@dataclass(frozen=True)
class Label:
    name: str  # as shown: "emergency_now", "intent knowledge", "expects halt"
    scores: tuple[Score, ...]
    emergency: bool  # the label says an emergency is happening now: it must halt

    def score(self, tool: str, result: dict[str, Any]) -> tuple[int, ...]:
        return tuple(s(tool, result) for s in self.scores)


@dataclass(frozen=True)
class Item:
    corpus: str
    id: str
    tool: str
    arguments: dict[str, Any]
    text: str | None  # None where the set may not publish its texts: the report shows the id only
    label: Label | None
    direct: bool  # a plain text for route_request: called without re-validating the arguments

    @property
    def shown(self) -> str:
        if self.text is not None:
            return self.text
        if self.direct:
            return f"(text not published: {self.id})"
        return json.dumps(self.arguments, ensure_ascii=False, sort_keys=True)


@dataclass
class Corpus:
    name: str
    items: list[Item] = field(default_factory=list)
    skipped: dict[str, int] = field(default_factory=dict)
    present: bool = True

    def skip(self, reason: str) -> None:
        self.skipped[reason] = self.skipped.get(reason, 0) + 1


class CorpusError(ValueError):
    """A corpus file that cannot be read; the message names the file and the line."""


def load_corpora(names: list[str] | None, cwd: Path, project: Path, local_texts: bool = True) -> list[Corpus]:
    """The named corpora, from ``cwd`` (each must exist), or the project's defaults (each where present).

    ``local_texts=False`` reads committed files only: a committed report must come out the same on a
    machine that has the git-ignored local texts and on one (CI) that does not."""
    if names:
        return [_load(cwd, name, explicit=True, local_texts=local_texts) for name in names]
    return [_load(project, name, explicit=False, local_texts=local_texts) for name in DEFAULT_CORPORA]


def _load(root: Path, name: str, explicit: bool, local_texts: bool) -> Corpus:
    path = root / name
    corpus = Corpus(name)
    if not path.is_file():
        if explicit:
            raise CorpusError(f"{name}: no such file")
        corpus.present = False
        return corpus
    try:
        raw = path.read_bytes().decode("utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise CorpusError(f"{name}: cannot read as UTF-8: {exc.__class__.__name__}") from None
    if path.suffix == ".jsonl":
        _load_jsonl(corpus, path, raw, held_out=not explicit, local_texts=local_texts)
    else:
        _load_table(corpus, raw)
    return corpus


def _load_table(corpus: Corpus, raw: str) -> None:
    label = TABLE_LABELS.get(Path(corpus.name).name)
    for number, line in enumerate(raw.split("\n"), start=1):
        if line.strip() and not line.startswith("#"):
            corpus.items.append(_text_item(corpus.name, f"L{number:03d}", line, {}, label, published=True))


def _load_jsonl(corpus: Corpus, path: Path, raw: str, held_out: bool, local_texts: bool) -> None:
    local = _local_texts(path.parent / "local" / "texts.jsonl") if local_texts else {}
    no_text = "no text (local texts not present)" if local_texts else "no text in the committed set (local texts not read)"
    for number, line in enumerate(raw.split("\n"), start=1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except ValueError:
            raise CorpusError(f"{corpus.name}:{number}: not JSON") from None
        if not isinstance(row, dict):
            raise CorpusError(f"{corpus.name}:{number}: not a JSON object")
        row_id = str(row.get("id", f"L{number:03d}"))
        if held_out and row.get("split") == HELD_OUT_SPLIT:
            corpus.skip("held-out test split")
        elif isinstance(row.get("tool"), str) and isinstance(row.get("arguments"), dict):
            corpus.items.append(_case_item(corpus.name, row_id, row))
        elif isinstance(row.get("text"), str):
            corpus.items.append(_text_item(corpus.name, row_id, row["text"], row, row_label(row), published=True))
        elif row_id in local:
            corpus.items.append(_text_item(corpus.name, row_id, local[row_id], row, row_label(row), published=False))
        else:
            corpus.skip(no_text)


def _local_texts(path: Path) -> dict[str, str]:
    if not path.is_file():
        return {}
    texts: dict[str, str] = {}
    for line in path.read_text(encoding="utf-8").split("\n"):
        if line.strip():
            row = json.loads(line)
            if isinstance(row, dict) and isinstance(row.get("text"), str):
                texts[str(row.get("id"))] = row["text"]
    return texts


def _text_item(corpus: str, row_id: str, text: str, row: dict[str, Any], label: Label | None, published: bool) -> Item:
    caller = row.get("caller") if isinstance(row.get("caller"), str) else CALLER
    patient = row.get("patient_id") if isinstance(row.get("patient_id"), str) else SESSION_PATIENT
    arguments = {"text": text, "caller": caller, "patient_id": patient, "reference_date": REFERENCE}
    return Item(corpus, row_id, "route_request", arguments, text if published else None, label, direct=True)


def _case_item(corpus: str, row_id: str, row: dict[str, Any]) -> Item:
    arguments = row["arguments"]
    text = arguments.get("text", arguments.get("intent"))
    expected = row.get("expected")
    label = _expected_label(expected) if isinstance(expected, dict) and expected else None
    return Item(corpus, row_id, row["tool"], arguments, text if isinstance(text, str) else None, label, direct=False)


# ------------------------------------------------------------------------------------------------
# Labels
# ------------------------------------------------------------------------------------------------


def _emergency_score(kind: str) -> Score:
    """now: halt best, confirm (it still stops) next, passing silently worst. Not now: a halt is a
    false alarm. None: a halt is a false alarm and a confirm asks for nothing."""

    def score(tool: str, result: dict[str, Any]) -> int:
        status = outcome(tool, result)
        if kind == "now":
            return 2 if status == "halt" else 1 if status == "confirm" else 0
        if kind == "not_now":
            return 0 if status == "halt" else 1
        return 0 if status == "halt" else 1 if status == "confirm" else 2

    return score


REALTEXT_EMERGENCY = {"emergency_now": "now", "not_now": "not_now", "no_mention": "none"}
PEDS_EMERGENCY = {"now": "now", "not_now": "not_now", "none": "none"}


def row_label(row: dict[str, Any]) -> Label | None:
    labels = row["labels"] if isinstance(row.get("labels"), dict) else row
    names: list[str] = []
    scores: list[Score] = []
    emergency = False
    for key, kinds in (("label", REALTEXT_EMERGENCY), ("emergency", PEDS_EMERGENCY)):
        value = labels.get(key)
        if isinstance(value, str):
            names.append(value if key == "label" else f"emergency {value}")
            if value in kinds:
                scores.append(_emergency_score(kinds[value]))
                emergency = emergency or kinds[value] == "now"
    intent = labels.get("intent")
    if isinstance(intent, str):
        names.append(f"intent {intent}")
        scores.append(_intent_score(intent))
    slots = labels["slots"] if isinstance(labels.get("slots"), dict) else labels
    for name in SLOT_LABELS:
        if name in slots and (slots[name] is None or isinstance(slots[name], (int, float))):
            names.append(f"{name} {slots[name]}")
            scores.append(_slot_score(name, slots[name]))
    if not names:
        return None
    return Label("; ".join(names), tuple(scores), emergency)


def _intent_score(want: str) -> Score:
    def score(tool: str, result: dict[str, Any]) -> int:
        return int(result.get("intent") == want)

    return score


def _slot_score(name: str, want: float | None) -> Score:
    def score(tool: str, result: dict[str, Any]) -> int:
        got = (result.get("slots") or {}).get(name)
        if want is None or got is None:
            return int(want is got)
        return int(abs(float(got) - float(want)) <= SLOT_TOLERANCE)

    return score


def _expected_label(expected: dict[str, Any]) -> Label:
    def score(tool: str, result: dict[str, Any]) -> int:
        return int(all(_lookup(result, key) == value for key, value in expected.items()))

    emergency = (expected.get("status") == "halt" or expected.get("gate") == "P0_EMERGENCY"
                 or expected.get("intent") == "emergency_red_flag")
    shown = ", ".join(f"{k}={json.dumps(v, ensure_ascii=False)}" for k, v in expected.items())
    return Label(f"expected {shown}", (score,), emergency)


def _lookup(result: Any, dotted: str) -> Any:
    for part in dotted.split("."):
        if not isinstance(result, dict) or part not in result:
            return _MISSING
        result = result[part]
    return result


_MISSING = object()


def _expects(statuses: frozenset[str] | None, name: str, emergency: bool = False) -> Label:
    """A decision table's expectation: one of ``statuses``, or (None) neither halt nor confirm."""

    def score(tool: str, result: dict[str, Any]) -> int:
        status = outcome(tool, result)
        return int(status not in STOPS) if statuses is None else int(status in statuses)

    return Label(name, (score,), emergency)


TABLE_LABELS = {
    "p0_evasions.txt": _expects(frozenset({"halt"}), "expects halt", emergency=True),
    "p0_ask.txt": _expects(frozenset({"confirm"}), "expects confirm"),
    "p0_benign.txt": _expects(None, "expects neither halt nor confirm"),
}
