"""The context of each red-flag mention (SPEC §4.7), in the manner of NegEx and ConText.

The cue words are policy data (``[context]`` in policy.toml): each has a kind, a direction and a
scope, like a medspaCy ``ConTextRule``; this module only applies them. One left-to-right walk over
the text's sentences, clauses, subject words, cues and mentions — every one found once, in text
order — so the cost is linear in the text length.

The table the walk implements:

=============  ===========================================================================
cue kind       what it covers
=============  ===========================================================================
negation       the first mention starting at most ``max_gap`` characters after it, same
               clause; carried along an enumeration joined by 、/和/或/及
now, past      (before) the rest of the sentence, until the next time cue or a contrast
past, hypo…    (after) the mention right before it, at most ``max_gap`` characters between
hypothetical   (before) the rest of the sentence (如果) or of the clause (担心)
habitual       the rest of the clause; any now cue in the sentence cancels it
manner         nothing: the mention is happening (突然, 一直, 了)
contrast       ends every scope that started before it
pseudo         nothing: a longer word that hides a cue (不停 is not 不)
=============  ===========================================================================

A mention's context is the first that applies: negated → other_person → historical →
hypothetical (a hypothetical cue and no now cue in its clause, or a habitual cue and no now cue in
its sentence) → current, the fail-safe default.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Iterator

from .lexicon import Hit, Lexicon

CURRENT, NEGATED, OTHER, HISTORICAL, HYPOTHETICAL = "current", "negated", "other_person", "historical", "hypothetical"

# A sentence ends at 。！？；!?; (NFKC has made the full-width ones ASCII), a newline, or an ASCII
# "." that is not a decimal point; a clause also ends at a comma.
_BOUNDARY = re.compile(r"[。!?;\n]|(?<![0-9])\.|\.(?![0-9])|(,)")


@dataclass(frozen=True, slots=True)
class Cue:
    """One word's role: a cue kind (negation, now, past…) or a subject kind (patient, other, self,
    third); ``direction`` before / after; ``scope`` as in the policy file."""

    kind: str
    direction: str = "before"
    scope: str = "none"
    max_gap: int = 0


@dataclass(frozen=True, slots=True)
class ContextRules:
    lexicon: Lexicon  # cue and subject words, one group "ctx", payload Cue: leftmost-longest among them
    patterns: tuple[tuple[re.Pattern[str], Cue], ...]  # cue patterns (N天前, 一…就)
    self_is_patient_for: frozenset[str]
    governing_links: frozenset[str]
    enumeration: re.Pattern[str]  # the text between two mentions of one enumeration


@dataclass(frozen=True, slots=True)
class Mention:
    start: int
    end: int
    concept: str
    term: str


def contexts(rules: ContextRules, text: str, mentions: list[Mention], caller: str | None) -> list[str]:
    """The context of each mention (sorted, non-overlapping), for ``caller`` (None: no caller, as in
    classify_intent, where 我 is never the patient)."""
    cues = _cues(rules, text, mentions)
    bounds = [(m.start(), m.group(1) is None) for m in _BOUNDARY.finditer(text)]
    walk = _Walk(rules, text, mentions, caller, cues, bounds[0][0] if bounds else len(text))
    for kind, item in _events(text, mentions, cues, bounds):
        walk.step(kind, item)
    return walk.decide()


class _Walk:
    def __init__(self, rules: ContextRules, text: str, mentions: list[Mention], caller: str | None,
                 cues: list[Hit], clause_end: int):
        self.rules, self.text, self.mentions = rules, text, mentions
        self.self_is_patient = caller in rules.self_is_patient_for
        n = len(mentions)
        self.negated = [False] * n
        self.other = [False] * n
        self.past = [False] * n
        self.hypothetical = [False] * n
        self.habitual = [False] * n
        self.where = [(0, 0)] * n  # (sentence, clause) of each mention
        self.now_clauses: set[int] = set()
        self.now_sentences: set[int] = set()
        self.sentence = self.clause = 0
        self.time: str | None = None  # "now" / "past": the time cue whose scope we are in
        self.hypothetical_sentence = self.hypothetical_clause = self.habitual_clause = False
        self.negation_end, self.negation_gap = -1, 0
        self.subject_other = False
        self.other_end = -1  # end of the last other-person word (it may govern a patient word)
        self.subject_end = -1  # end of the last subject word or 他 / 她 (自己 right after it is no subject)
        self.last = -1  # index of the last mention seen
        self.patients = [h.start for h in cues if h.payload.kind == "patient"]
        self.next_patient = 0
        self.clause_end = clause_end

    def step(self, kind: str, item: Any) -> None:
        if kind == "boundary":
            self._boundary(*item)
        elif kind == "mention":
            self._mention(item)
        else:
            self._cue(item)

    def _boundary(self, position: int, sentence_end: bool, clause_end: int) -> None:
        self.clause += 1
        self.clause_end = clause_end
        self.hypothetical_clause = self.habitual_clause = False
        self.negation_end = -1
        if sentence_end:
            self.sentence += 1
            self.time = None
            self.hypothetical_sentence = False

    def _mention(self, index: int) -> None:
        m = self.mentions[index]
        last = self.mentions[self.last] if self.last >= 0 else None
        if self.negation_end >= 0 and m.start - self.negation_end <= self.negation_gap:
            self.negated[index] = True
        elif (last is not None and self.negated[self.last] and self.where[self.last][1] == self.clause
              and self.rules.enumeration.fullmatch(self.text, last.end, m.start)):
            self.negated[index] = True  # 没有抽搐、呕吐或昏迷: the negation carries along the list
        self.negation_end = -1  # a negation covers the next mention only
        self.other[index] = self.subject_other
        self.past[index] = self.time == "past"
        self.hypothetical[index] = self.hypothetical_sentence or self.hypothetical_clause
        self.habitual[index] = self.habitual_clause
        self.where[index] = (self.sentence, self.clause)
        self.last = index

    def _cue(self, hit: Hit) -> None:
        cue: Cue = hit.payload
        kind = cue.kind
        if kind in ("patient", "other", "self", "third"):
            self._subject(hit, kind)
        elif cue.direction == "after":
            last = self.last
            if last >= 0 and self.where[last][0] == self.sentence and hit.start - self.mentions[last].end <= cue.max_gap:
                if kind == "past":
                    self.past[last] = True
                else:
                    self.hypothetical[last] = True
        elif kind == "negation":
            text = self.text
            if len(hit.term) == 1 and 0 < hit.start and hit.end < len(text) and text[hit.start - 1] == text[hit.end]:
                return  # X不X (要睡不睡) asks, it does not deny
            self.negation_end, self.negation_gap = hit.end, cue.max_gap
        elif kind in ("now", "past"):
            self.time = kind
            if kind == "now":
                self.now_clauses.add(self.clause)
                self.now_sentences.add(self.sentence)
        elif kind == "hypothetical":
            if cue.scope == "sentence":
                self.hypothetical_sentence = True
            else:
                self.hypothetical_clause = True
        elif kind == "habitual":
            self.habitual_clause = True
        elif kind == "contrast":
            self.time = None
            self.hypothetical_sentence = self.hypothetical_clause = self.habitual_clause = False
            self.negation_end = -1
        # manner and pseudo: nothing to do (the mention stays current / the cue inside is hidden)

    def _subject(self, hit: Hit, kind: str) -> None:
        after_subject = hit.start == self.subject_end
        if hit.start < self.subject_end:
            # overlapping the subject word before it (小宝|宝宝, 我姐|姐姐): that word decided, this
            # one only extends it (姐姐家的孩子 is still governed)
            if kind == "other":
                self.other_end = hit.end
            self.subject_end = hit.end
            return
        if kind == "patient":
            governed = self.other_end >= 0 and (
                hit.start == self.other_end or self.text[self.other_end:hit.start] in self.rules.governing_links
            )
            self.subject_other = governed  # 同事的孩子 is the colleague's child
        elif kind == "other":
            self.subject_other = True
            self.other_end = hit.end
        elif kind == "self":
            if self.self_is_patient:
                self.subject_other = False
            elif not (hit.term == "自己" and after_subject) and not self._patient_word_follows(hit.end):
                self.subject_other = True
        self.subject_end = hit.end

    def _patient_word_follows(self, position: int) -> bool:
        """A patient word after ``position`` in the same clause (我孩子, 我的宝宝)."""
        patients = self.patients
        while self.next_patient < len(patients) and patients[self.next_patient] < position:
            self.next_patient += 1
        return self.next_patient < len(patients) and patients[self.next_patient] < self.clause_end

    def decide(self) -> list[str]:
        out: list[str] = []
        for i in range(len(self.mentions)):
            sentence, clause = self.where[i]
            if self.negated[i]:
                out.append(NEGATED)
            elif self.other[i]:
                out.append(OTHER)
            elif self.past[i]:
                out.append(HISTORICAL)
            elif (self.hypothetical[i] and clause not in self.now_clauses) or (
                self.habitual[i] and sentence not in self.now_sentences
            ):
                out.append(HYPOTHETICAL)
            else:
                out.append(CURRENT)
        return out


def _cues(rules: ContextRules, text: str, mentions: list[Mention]) -> list[Hit]:
    """Cue and subject words in text order, leftmost-longest among them, none inside a mention
    (terms and patterns match first: the 不 of 叫不醒 is not a negation)."""
    hits = rules.lexicon.scan(text).group("ctx")
    for pattern, cue in rules.patterns:
        found = [Hit(m.start(), m.end(), pattern.pattern, cue) for m in pattern.finditer(text)]
        if found:
            hits = _longest(sorted(hits + found))  # a handful of hits: both lists are short
    kept: list[Hit] = []
    j = 0
    for hit in hits:
        while j < len(mentions) and mentions[j].end <= hit.start:
            j += 1
        if j < len(mentions) and mentions[j].start < hit.end:
            continue  # overlaps a mention
        kept.append(hit)
    return kept


def _longest(hits: list[Hit]) -> list[Hit]:
    """Drop every hit that a longer one contains (hits sorted by start)."""
    kept: list[Hit] = []
    for hit in hits:
        while kept and kept[-1].start == hit.start and kept[-1].end <= hit.end:
            kept.pop()
        if kept and kept[-1].end >= hit.end:
            continue
        kept.append(hit)
    return kept


def _events(
    text: str, mentions: list[Mention], cues: list[Hit], bounds: list[tuple[int, bool]]
) -> Iterator[tuple[str, object]]:
    """Boundaries, mentions and cues merged in text order (three sorted lists, one pass)."""
    b = c = 0
    for index, mention in enumerate(mentions):
        while True:
            nb = bounds[b][0] if b < len(bounds) else len(text)
            nc = cues[c].start if c < len(cues) else len(text)
            if nb <= mention.start and nb <= nc and b < len(bounds):
                yield "boundary", (nb, bounds[b][1], bounds[b + 1][0] if b + 1 < len(bounds) else len(text))
                b += 1
            elif nc < mention.start and c < len(cues):
                yield "cue", cues[c]
                c += 1
            else:
                break
        yield "mention", index
    while b < len(bounds) or c < len(cues):
        nb = bounds[b][0] if b < len(bounds) else len(text) + 1
        nc = cues[c].start if c < len(cues) else len(text) + 1
        if nb <= nc:
            yield "boundary", (nb, bounds[b][1], bounds[b + 1][0] if b + 1 < len(bounds) else len(text))
            b += 1
        else:
            yield "cue", cues[c]
            c += 1
