"""Rule-based intent classification (SPEC §4.2).

A current red flag (SPEC §4.7) forces ``emergency_red_flag``; a red flag in any other context does
not force an intent (it is reported in ``red_flags``). Otherwise each intent scores the sum of the lengths of its
distinct matched keywords (a keyword inside a longer matched keyword does not count); the highest
wins, ties going to the higher priority (P0 … P5), then to the order of the policy's table.
No hit is ``unknown`` with ``fallback="llm"``: the upper layer may classify softly, and its
answer must pass the gate again.
"""

from __future__ import annotations

from dataclasses import dataclass

from .analysis import Analysis
from .policy import Intent, Policy


@dataclass(slots=True)
class Scored:
    intent: Intent
    score: int
    keywords: tuple[str, ...]


@dataclass(slots=True)
class Classification:
    """The rule outcome; ``best`` is None for ``unknown``."""

    best: Scored | None
    ranked: tuple[Scored, ...]
    emergency: bool
    confidence: float = 0.0

    def __post_init__(self) -> None:
        if self.emergency:
            self.confidence = 1.0
        elif self.best is not None:
            self.confidence = round(min(0.95, 0.50 + 0.05 * self.best.score), 2)

    @property
    def intent_name(self) -> str:
        return self.best.intent.name if self.best else "unknown"

    @property
    def mcp(self) -> str | None:
        return self.best.intent.mcp if self.best else None

    def note(self) -> str | None:
        if self.best is None:
            return None
        notes = self.best.intent.keyword_notes
        for keyword in self.best.keywords:
            if keyword in notes:
                return notes[keyword]
        return None


def classify(policy: Policy, analysis: Analysis) -> Classification:
    if analysis.current:  # a red flag that describes the patient now (SPEC §4.7); others only report
        scored = Scored(policy.emergency, sum(map(len, analysis.current)), tuple(analysis.current))
        return Classification(scored, (scored,), emergency=True)
    # Keywords are read on the text view; only when it has none does the squashed view speak, so
    # "分 期" or "化 验 单" still classify while spacing never adds a second intent to a real match.
    hits = analysis.hits.get("intent") or policy.intent_lexicon.scan(analysis.views.squashed).get("intent")
    if not hits:
        return Classification(None, (), emergency=False)
    keywords: dict[str, dict[str, None]] = {}  # intent → its distinct keywords, in text order
    for hit in hits:
        found = keywords.get(hit.payload)
        if found is None:
            keywords[hit.payload] = {hit.term: None}
        else:
            found[hit.term] = None
    by_name = policy.intent_by_name
    ranked = [Scored(by_name[name], sum(map(len, words)), tuple(words)) for name, words in keywords.items()]
    if len(ranked) > 1:
        ranked.sort(key=_rank)
    return Classification(ranked[0], tuple(ranked), emergency=False)


def _rank(scored: Scored) -> tuple[int, int, int]:
    """Best first: the higher score, then the higher priority (P0 … P5), then the policy's order."""
    return -scored.score, scored.intent.priority, scored.intent.order

