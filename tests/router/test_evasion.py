"""P0 red-line robustness (SPEC §3.5, §4.0, §4.1, §4.2, §4.7), one parametrized case per data line.

* ``tests/data/p0_evasions.txt``: adversarial spellings of red flags (zero-width and bidi
  characters, soft hyphens, full-width forms, fillers between the characters, Traditional script,
  toneless pinyin, English whole words, critical potassium values, prompt injection), each
  describing the patient now. Every line MUST halt: ``classify_intent`` → ``emergency_red_flag``
  and ``check_safety_gate(line, "parent_assistant")`` → gate ``P0_EMERGENCY``.
* ``tests/data/p0_ask.txt``: red flags in another context (negated, another person's, past,
  hypothetical, habitual), several spelled adversarially. Every line MUST ask: gate
  ``P0_CONFIRM`` and route_request ``confirm`` — never halt, never pass silently.
* ``tests/data/p0_benign.txt``: ordinary texts that contain pieces of red-line words (safe
  phrases, clause punctuation, ASCII words containing a P0 word, potassium below 6.5 or in food).
  None may halt, and none may ask a red-flag question either: a ``confirm`` there is a false
  positive too — except the symptom check's own question (SPEC §4.7 revision 3): a benign line that
  names a symptom of the child (孩子尿里有泡沫) asks its family's question, and nothing once the
  family is acknowledged.

Lines starting with ``#`` and empty lines are comments. Files are split on ``\\n`` only: some lines
carry U+2028 and other invisible characters on purpose, which ``str.splitlines`` would break.
"""

from __future__ import annotations

from pathlib import Path

import pytest

DATA = Path(__file__).resolve().parent.parent / "data"
EVASIONS_FILE = DATA / "p0_evasions.txt"
ASK_FILE = DATA / "p0_ask.txt"
BENIGN_FILE = DATA / "p0_benign.txt"
CALLER = "parent_assistant"


def load(path: Path) -> list[tuple[int, str]]:
    raw = path.read_bytes().decode("utf-8")
    return [
        (number, line)
        for number, line in enumerate(raw.split("\n"), start=1)
        if line.strip() and not line.startswith("#")
    ]


def case_id(number: int, line: str) -> str:
    shown = ascii(line)[1:-1]
    return f"L{number:03d}:{shown[:48]}{'…' if len(shown) > 48 else ''}"


EVASIONS = load(EVASIONS_FILE)
ASK = load(ASK_FILE)
BENIGN = load(BENIGN_FILE)


def halts(router, line: str) -> tuple[bool, bool, list[str]]:
    c = router.classify_intent(line)
    g = router.check_safety_gate(intent=line, caller=CALLER)
    return c.intent == "emergency_red_flag", g.gate == "P0_EMERGENCY", list(g.matched_keywords)


def stops(router, line: str) -> bool:
    """Halts or asks: what "no red flag passes silently" means for one text."""
    return router.route_request(line, CALLER, "P0001").status in ("halt", "confirm")


def red_flag_stops(router, line: str) -> bool:
    """Halts or asks a red-flag question (the symptom check's question is not one: SPEC §4.7 rev 3)."""
    route = router.route_request(line, CALLER, "P0001")
    return route.status == "halt" or (route.status == "confirm" and route.reason_code != "p0_confirm_symptom")


def symptoms_only(flags) -> bool:
    return all(f.concept.startswith("symptom.") and f.context == "current" for f in flags)


@pytest.mark.parametrize("line", [pytest.param(line, id=case_id(n, line)) for n, line in EVASIONS])
def test_evasion_halts_at_p0(router, line):
    c = router.classify_intent(line)
    assert (c.intent, c.mcp, c.fallback, c.confidence) == ("emergency_red_flag", "a207-router-mcp", "halt", 1.0), c.matched_keywords
    g = router.check_safety_gate(intent=line, caller=CALLER)
    assert (g.allow, g.gate, g.reason_code) == (False, "P0_EMERGENCY", "p0_emergency")
    assert g.matched_keywords


@pytest.mark.parametrize("line", [pytest.param(line, id=case_id(n, line)) for n, line in ASK])
def test_red_flag_in_another_context_asks(router, line):
    c = router.classify_intent(line)
    assert c.intent != "emergency_red_flag" and c.fallback != "halt", c.red_flags
    red = [f for f in c.red_flags if not f.concept.startswith("symptom.")]
    assert red and all(f.context != "current" for f in red)
    # SPEC §4.5: a current symptom of the child (每次发烧都惊厥: a fever that keeps coming) asks its
    # family's question first; answered, the red flag asks whether it is happening now.
    families = [f.concept for f in c.red_flags if f.concept.startswith("symptom.")]
    route = router.route_request(line, CALLER, "P0001")
    assert (route.status, route.gate) == ("confirm", None)
    assert route.reason_code == ("p0_confirm_symptom" if families else "p0_confirm_current")
    # A family's no also answers whether the signs its question named are happening now (the general
    # question asks about a fit and hard breathing): those red flags ask nothing more; any other does.
    answers_now = router.policy.red_flags.answers_now
    answered = set(families).union(*(answers_now.get(f, frozenset()) for f in families))
    still = [f for f in red if f.concept not in answered]
    g = router.check_safety_gate(intent=line, caller=CALLER, acknowledged_red_flags=families)
    route = router.route_request(line, CALLER, "P0001", acknowledged_red_flags=families)
    if still:
        assert (g.allow, g.gate, g.reason_code) == (False, "P0_CONFIRM", "p0_confirm_current"), g.red_flags
        assert (route.status, route.reason_code, route.gate) == ("confirm", "p0_confirm_current", None)
    else:
        assert g.gate not in ("P0_EMERGENCY", "P0_CONFIRM") and route.status not in ("halt", "confirm")


@pytest.mark.parametrize("line", [pytest.param(line, id=case_id(n, line)) for n, line in BENIGN])
def test_benign_does_not_halt(router, line):
    c = router.classify_intent(line)
    assert c.intent != "emergency_red_flag", c.matched_keywords
    assert c.fallback != "halt"
    assert symptoms_only(c.red_flags), c.red_flags
    g = router.check_safety_gate(intent=line, caller=CALLER)
    assert g.gate != "P0_EMERGENCY", g.matched_keywords
    assert g.gate != "P0_CONFIRM" or g.reason_code == "p0_confirm_symptom", g.matched_keywords
    route = router.route_request(line, CALLER, "P0001")
    assert route.status != "halt" and not red_flag_stops(router, line)
    families = [f.concept for f in route.red_flags]
    assert router.route_request(line, CALLER, "P0001", acknowledged_red_flags=families).status not in ("halt", "confirm")


def test_data_files_keep_their_invisible_characters():
    """An editor that silently drops U+200B & co. would turn the evasion file into plain text."""
    text = EVASIONS_FILE.read_text(encoding="utf-8")
    required = {
        "\u200b": "ZERO WIDTH SPACE",
        "\u200c": "ZERO WIDTH NON-JOINER",
        "\u200d": "ZERO WIDTH JOINER",
        "\u2060": "WORD JOINER",
        "\ufeff": "BOM / ZERO WIDTH NO-BREAK SPACE",
        "\u202e": "RIGHT-TO-LEFT OVERRIDE",
        "\u00ad": "SOFT HYPHEN",
        "\ufe0f": "VARIATION SELECTOR-16",
        "\U000e0041": "TAG LATIN CAPITAL LETTER A",
        "\u3000": "IDEOGRAPHIC SPACE",
        "\uff23": "FULLWIDTH LATIN CAPITAL LETTER C",
        "\uff16": "FULLWIDTH DIGIT SIX",
    }
    missing = [name for ch, name in required.items() if ch not in text]
    assert missing == []


def test_recall_and_false_positives(router, capsys):
    assert len(EVASIONS) >= 100, "p0_evasions.txt must keep at least 100 cases"
    assert len(BENIGN) >= 100, "p0_benign.txt must keep at least 100 cases"
    missed = [(n, ascii(line)) for n, line in EVASIONS if not all(halts(router, line)[:2])]
    silent = [(n, ascii(line)) for n, line in ASK if not stops(router, line)]
    false_pos = [(n, ascii(line)) for n, line in BENIGN if any(halts(router, line)[:2]) or red_flag_stops(router, line)]
    recall = (len(EVASIONS) - len(missed)) / len(EVASIONS)
    with capsys.disabled():
        print(
            f"\nP0 evasions: {len(EVASIONS) - len(missed)}/{len(EVASIONS)} halted (recall {recall:.0%}); "
            f"other contexts: {len(ASK) - len(silent)}/{len(ASK)} asked or halted; "
            f"benign: {len(false_pos)}/{len(BENIGN)} false positives (halt or a red-flag confirm)"
        )
    assert missed == [], f"missed evasions: {missed}"
    assert silent == [], f"silent red flags: {silent}"
    assert false_pos == [], f"false positives: {false_pos}"
