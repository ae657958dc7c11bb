"""Rule-based intent classification (SPEC §4.2).

A P0 hit forces ``emergency_red_flag``. Otherwise each intent scores the sum of the lengths of its
distinct matched keywords (a keyword inside a longer matched keyword does not count). No hit is
``unknown`` with ``fallback="llm"``: the upper layer may classify softly, and its answer must pass
the gate again.

Ranking — "what is asked counts first". Parents write a story, then a question; the story's nouns
must not outvote the question. Intents are ranked, best first, by

1. whether a consume verb in a question clause asks about them: 能喝 / 可以吃 + a food asks the
   food intent (nutrition_calc), + a medicine asks the medicine intent (knowledge: a medicine is
   not a food). The verb's object is the nearest food or medicine after it in its clause
   (能吃药吗), else the nearest before it (香蕉能不能吃);
2. their keywords inside the question clauses (a clause — a sentence cut at ，/, as §4.7 cuts it —
   that ends in ？/? or holds a question word of the policy): strong keywords, then weak ones;
3. their keywords over the whole text: strong, then weak;
4. their ``score`` (the whole text's sum of keyword lengths, weak words included);
5. priority (P0 … P5), then the order of the policy's table.

Weak keywords are the policy's generic question words and topic nouns (是什么, 怎么办, 肾病综合征):
they say what a text is about, not what it asks, so at the same level any other keyword beats them.
A consume verb whose object is a medicine counts for the medicine intent, and so does every
medicine mention.

``score`` and ``confidence`` stay the whole text's. A text whose only clause is a question, or with
no question clause at all, ranks by the whole text alone: as before question clauses existed, but
for the weak words and the consume verbs.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from operator import itemgetter
from dataclasses import dataclass

from .analysis import Analysis
from .lexicon import Hit
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


# Clause ends as the text view has them (NFKC turned ，？！； into ASCII): §4.7's sentence ends
# (。！？；!?; a newline, an ASCII . not between digits) and the clause cut ，/,.
_CUT = re.compile(r"[,。!?;\n]|\.(?![0-9])|(?<![0-9])\.")
_FIRST = _START = itemgetter(0)  # of a (start, …) tuple or a Hit
# A character before a medicine suffix that makes it a portion or no word at all (两片, 几粒).
_NOT_BEFORE_SUFFIX = frozenset("零〇一二两三四五六七八九十百千万半几多每整")


def classify(policy: Policy, analysis: Analysis) -> Classification:
    if analysis.p0:
        scored = Scored(policy.emergency, sum(map(len, analysis.p0)), tuple(analysis.p0))
        return Classification(scored, (scored,), emergency=True)
    # Keywords are read on the text view; only when it has none does the squashed view speak, so
    # "分 期" or "化 验 单" still classify while spacing never adds a second intent to a real match.
    hits = analysis.hits.get("intent") or policy.intent_lexicon.scan(analysis.views.squashed).get("intent") or []
    medicines = _medicines(analysis) if "medicine" in analysis.hits else []
    if not hits and not medicines:
        return Classification(None, (), emergency=False)
    asking = policy.asking
    cuts, questions = _clauses(analysis) if len(hits) + len(medicines) > 1 else ([], [True])
    # What each consume verb asks about: the nearest food or medicine after it in its clause
    # (能吃药吗, 能喝豆浆吗), else the nearest before it (香蕉能不能吃).
    objects: dict[int, list[tuple[int, Hit, bool]]] = {}  # clause → (start, thing, is a food), in text order
    if any(h.term in asking.consume_verbs for h in hits):
        things = sorted([(f.start, f, True) for f in analysis.hits.get("food") or ()] + [(m.start, m, False) for m in medicines])
        for thing in things:
            objects.setdefault(bisect_right(cuts, thing[0]), []).append(thing)
    # intent → {keyword: None} in text order, and its rank scores: [whole text, question clauses]
    # for strong keywords, then the same for weak ones.
    keywords: dict[str, dict[str, None]] = {}
    rank: dict[str, list[int]] = {}
    seen: set[tuple[str, str, bool]] = set()
    decided: set[str] = set()  # intents a question clause's consume verb asks about (能喝豆浆吗)

    def count(name: str, term: str, clause: int, weight: int, weak: bool = False) -> None:
        words = keywords.get(name)
        if words is None:
            keywords[name] = words = {}
            rank[name] = [0, 0, 0, 0]
        words[term] = None
        for in_question in (False, True) if questions[clause] else (False,):
            key = (name, term, in_question)
            if key not in seen:
                seen.add(key)
                rank[name][2 * weak + in_question] += weight

    for hit in hits:
        clause = bisect_right(cuts, hit.start)
        name, term = hit.payload, hit.term
        if term in asking.consume_verbs and name == asking.food_intent and clause in objects:
            thing, is_food = _object_of(hit, objects[clause])
            if not is_food:
                name = asking.medicine_intent
            if questions[clause]:
                decided.add(name)
        count(name, term, clause, len(term), term in asking.weak_keywords)
    for medicine in medicines:
        count(asking.medicine_intent, medicine.term, bisect_right(cuts, medicine.start), len(medicine.term))

    by_name = policy.intent_by_name
    ranked: list[tuple[bool, list[int], Scored]] = []
    for name, words in keywords.items():
        ranked.append((name in decided, rank[name], Scored(by_name[name], sum(map(len, words)), tuple(words))))
    if len(ranked) > 1:
        ranked.sort(key=_rank)
    return Classification(ranked[0][2], tuple(s for _, _, s in ranked), emergency=False)


def _object_of(verb: Hit, things: list[tuple[int, Hit, bool]]) -> tuple[Hit, bool]:
    """The first thing starting after the verb, else the last one before it (a search per verb:
    a clause of a thousand verbs and foods costs no product of the two)."""
    index = bisect_left(things, verb.end, key=_FIRST)
    _, thing, is_food = things[index] if index < len(things) else things[index - 1]
    return thing, is_food


def _rank(entry: tuple[bool, list[int], Scored]) -> tuple[int, ...]:
    """Best first: asked about by a consume verb in a question clause, strong then weak keywords
    inside the question clauses, strong then weak over the whole text, the score, the higher
    priority (P0 … P5), then the policy's order."""
    decided, (whole, asked, weak_whole, weak_asked), scored = entry
    return -decided, -asked, -weak_asked, -whole, -weak_whole, -scored.score, scored.intent.priority, scored.intent.order


def _clauses(analysis: Analysis) -> tuple[list[int], list[bool]]:
    """The clause ends (positions of the cutting marks) and, per clause, whether it is a question.
    Clause ``i`` runs from after ``cuts[i-1]`` to ``cuts[i]``; ``bisect_right(cuts, p)`` is the
    clause of position ``p``. One regex pass over the text, one look at each question word."""
    text = analysis.views.text
    cuts: list[int] = []
    questions: list[bool] = []
    for mark in _CUT.finditer(text):
        cuts.append(mark.start())
        questions.append(mark.group() == "?")
    questions.append(False)  # the clause after the last mark
    for word in analysis.hits.get("question") or ():
        questions[bisect_right(cuts, word.start)] = True
    return cuts, questions


def _medicines(analysis: Analysis) -> list[Hit]:
    """Medicine mentions: a name, or a suffix after a Chinese character that is not a numeral;
    never inside a food (薯片) or one of the policy's ordinary words (肉丸, 拍片)."""
    text = analysis.views.text
    foods = analysis.hits.get("food") or []
    found = []
    for hit in analysis.hits.group("medicine"):
        if hit.payload == "not":
            continue
        if hit.payload == "suffix":
            before = text[hit.start - 1] if hit.start else ""
            if not ("\u4e00" <= before <= "\u9fff") or before in _NOT_BEFORE_SUFFIX:
                continue
        if foods:
            # Foods are in text order with increasing starts and ends: only the last one opening
            # at or before the mention can hold it.
            index = bisect_right(foods, hit.start, key=_START)
            if index and hit.end <= foods[index - 1].end:
                continue
        found.append(hit)
    return found
