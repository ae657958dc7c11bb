"""Rule-based intent classification (SPEC §4.2).

A P0 hit forces ``emergency_red_flag``. Otherwise each intent scores the sum of the lengths of its
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

    @property
    def intent_name(self) -> str:
        return self.best.intent.name if self.best else "unknown"

    @property
    def mcp(self) -> str | None:
        return self.best.intent.mcp if self.best else None

    @property
    def confidence(self) -> float:
        if self.emergency:
            return 1.0
        if self.best is None:
            return 0.0
        return round(min(0.95, 0.50 + 0.05 * self.best.score), 2)

    def note(self) -> str | None:
        if self.best is None:
            return None
        notes = self.best.intent.keyword_notes
        for keyword in self.best.keywords:
            if keyword in notes:
                return notes[keyword]
        return None


def classify(policy: Policy, analysis: Analysis) -> Classification:
    if analysis.p0:
        scored = Scored(policy.emergency, sum(len(t) for t in analysis.p0), tuple(analysis.p0))
        return Classification(scored, (scored,), emergency=True)
    keywords: dict[str, list[str]] = {}
    # Keywords are read on the text view; only when it has none does the squashed view speak, so
    # "分 期" or "化 验 单" still classify while spacing never adds a second intent to a real match.
    hits = analysis.hits.group("intent") or policy.intent_lexicon.scan(analysis.views.squashed).group("intent")
    for hit in hits:
        found = keywords.setdefault(hit.payload, [])
        if hit.term not in found:
            found.append(hit.term)
    if not keywords:
        return Classification(None, (), emergency=False)
    ranked = sorted(
        (
            Scored(policy.intent_by_name[name], sum(len(k) for k in words), tuple(words))
            for name, words in keywords.items()
        ),
        key=lambda s: (-s.score, s.intent.priority, s.intent.order),
    )
    return Classification(ranked[0], tuple(ranked), emergency=False)
