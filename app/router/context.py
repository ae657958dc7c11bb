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
then           (当时) a now or a past cue, as the time cue before it was (none: past)
past, hypo…    (after) the mention right before it, at most ``max_gap`` characters between
hypothetical   (before) the rest of the sentence (如果) or of the clause (担心)
habitual       the rest of the clause, each mention at most ``max_gap`` characters after the cue
               or the mention before it; any now cue in the sentence cancels it
manner         nothing: the mention is happening (突然, 一直, 了)
contrast       ends every scope that started before it
pseudo         nothing: a longer word that hides a cue (不停 is not 不)
=============  ===========================================================================

A mention's context is the first that applies: negated → other_person → historical →
hypothetical (a hypothetical cue and no now cue in its clause, or a habitual cue and no now cue in
its sentence) → current, the fail-safe default.

The module runs past 400 lines because the table above is one walk: each cue kind sets state the
others read (a contrast ends a time scope, a subject word ends the writer's turn); split by kind,
every piece would take the whole walk's state as arguments.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import NamedTuple

from .lexicon import Hit, Lexicon
from .text import Cut

CURRENT, NEGATED, OTHER, HISTORICAL, HYPOTHETICAL = "current", "negated", "other_person", "historical", "hypothetical"


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
    patterns: tuple[tuple[re.Pattern[str], Cue, str], ...]  # cue patterns (N天前, 一…就), each with a character every match holds
    self_is_patient_for: frozenset[str]
    governing_links: frozenset[str]
    enumeration: re.Pattern[str]  # the text between two mentions of one enumeration
    negation_filler: re.Pattern[str]  # what may stand between a negation and its mention
    place_after: tuple[str, ...]  # an other-person word followed by one names a place (姥姥家)
    carer_before: frozenset[str]  # … or preceded by one a carer (被奶奶, 在我身上)
    carer_before_if_patient: frozenset[str]  # … and these when a patient word came earlier in the sentence
    # pattern name → pattern: a negation standing in a pattern's gap (嘴唇不发紫) still acts
    patterns_by_name: dict[str, re.Pattern[str]]
    reflexive: frozenset[str]  # self words that name no one new right after a subject word (孩子自己)
    perfect: frozenset[str]  # past after-cue words that are the perfect in a clause of today (抽搐过)
    event_marks: frozenset[str]  # manner cue words that make the mention right before them a stated event (惊厥了)


class Mention(NamedTuple):
    """Laid out like ``lexicon.Hit`` (start, end, term, payload): a term's hit is its mention."""

    start: int
    end: int
    term: str
    concept: str


def contexts(
    rules: ContextRules, cut: Cut, mentions: list[Mention], caller: str | None, scanned: list[Hit],
    stated: list[bool] | None = None,
) -> list[str]:
    """The context of each mention (sorted, non-overlapping) in ``cut.text``, for ``caller`` (None:
    no caller, as in classify_intent, where 我 is never the patient). ``stated``, when given, is filled
    with whether each mention is told as an event (a manner cue or 了, a recurrence, a habitual cue, a
    now cue or a part of today in its clause): the symptom check reads it (SPEC §4.7 revision 3: a
    symptom told as an event under a question's cue, or one that keeps coming back, is the child's
    now). ``cut`` and ``scanned`` (the cue lexicon's hits on the text) are the analysis's, which cuts
    and scans the text once for every walk."""
    text = cut.text
    cues, mentions = _cues(rules, text, mentions, scanned)
    # The cue kinds present, read once (a walk is asked of most texts with a symptom word).
    kinds = {h.payload.kind for h in cues}
    if "then" in kinds:
        cues = _anchored(cues)
        kinds = {h.payload.kind for h in cues}
    if kinds.isdisjoint(_MOVING):
        # no cue and no subject word that can move a mention off the default (孩子, 了, 现在 cannot):
        # every mention is current, and whether it was told is not read
        if stated is not None:
            stated.extend([False] * len(mentions))
        return [CURRENT] * len(mentions)
    bounds = cut.bounds  # (start, sentence end?) of each clause end
    # Only a past scope and an after-cue ask which clauses speak of now; most texts have neither.
    speaking = (_clauses_of_now(cues, bounds) if "past" in kinds or any(h.payload.direction == "after" for h in cues)
                else frozenset())
    end = len(text)
    walk = _Walk(rules, text, mentions, caller, cues, bounds[0][0] if bounds else end, speaking)
    # Boundaries, cues and mentions merged in text order: three sorted lists, one pass. ``at`` and
    # ``cue_at``: where the next boundary and the next cue start (past the text when none is left).
    nb, nc, past = len(bounds), len(cues), end + 1
    b = c = 0
    at = bounds[0][0] if nb else past
    cue_at = cues[0].start if nc else past
    boundary, cue = walk.boundary, walk.cue
    for index, mention in enumerate(mentions):
        start = mention.start
        while at <= start or cue_at < start:
            if at <= start and at <= cue_at:  # a boundary first, where a cue starts at it
                b += 1
                at = bounds[b][0] if b < nb else past
                boundary(bounds[b - 1][1], at if b < nb else end)
            else:
                cue(cues[c])
                c += 1
                cue_at = cues[c].start if c < nc else past
        walk.mention(index, mention)
    while at < past or cue_at < past:  # after-cues may follow the last mention
        if at <= cue_at:
            if bounds[b][1]:
                break  # its sentence has ended: nothing after it reads back (after-cues, now cues stay in it)
            b += 1
            at = bounds[b][0] if b < nb else past
            boundary(False, at if b < nb else end)
        else:
            cue(cues[c])
            c += 1
            cue_at = cues[c].start if c < nc else past
    if stated is not None:
        stated.extend(walk.stated())
    return walk.decide()


_SPEAKS_OF_NOW = frozenset(("now", "now_clause", "ongoing"))
# The cue and subject kinds that can make a mention anything but current (decide(): negated, another
# person's, past, hypothetical or habitual; 当时 may be a past cue). Without one, the walk is not needed.
_MOVING = frozenset(("negation", "past", "hypothetical", "habitual", "other", "self", "third", "then"))


def _clauses_of_now(cues: list[Hit], bounds: Sequence[tuple[int, bool]]) -> frozenset[int]:
    """The clauses that hold a now cue, a part of today or an ongoing marker: a past scope from an
    earlier clause stops there (SPEC §4.7 revision 2). The walk needs it before it reaches them."""
    found: set[int] = set()
    b = 0
    for hit in cues:
        while b < len(bounds) and bounds[b][0] <= hit.start:
            b += 1
        if hit.payload.kind in _SPEAKS_OF_NOW:
            found.add(b)  # clause index = the boundaries before the cue
    return frozenset(found)


class _Walk:
    # slots: the walk reads and sets these once per cue and mention
    __slots__ = (
        "rules", "text", "mentions", "self_is_patient", "negated", "other", "past", "past_cue", "recurrence",
        "manner", "hypothetical", "asked_after", "habitual", "where", "now_clauses", "now_sentences",
        "clauses_of_now", "ongoing", "sentence", "clause", "time", "time_start", "hypothetical_sentence",
        "hypothetical_clause", "habitual_clause", "habitual_end", "habitual_gap", "manner_clause", "negation_end",
        "negation_gap", "recurrence_end", "recurrence_gap", "subject_other", "writer_subject", "before_writer",
        "child_named", "patient_in_sentence", "other_end", "subject_end", "last", "cues", "patients", "next_patient",
        "clause_end",
    )

    def __init__(self, rules: ContextRules, text: str, mentions: list[Mention], caller: str | None,
                 cues: list[Hit], clause_end: int, clauses_of_now: frozenset[int]):
        self.rules, self.text, self.mentions = rules, text, mentions
        self.self_is_patient = caller in rules.self_is_patient_for
        n = len(mentions)
        self.negated = [False] * n
        self.other = [False] * n
        self.past = [False] * n
        self.past_cue = [-1] * n  # where the past before-cue that covers the mention starts
        self.recurrence = [False] * n
        self.manner = [False] * n  # a manner cue in its clause before it, or 了 right after it
        self.hypothetical = [False] * n
        self.asked_after = [False] * n  # a hypothetical after-cue (是什么原因) follows it
        self.habitual = [False] * n
        self.where = [(0, 0)] * n  # (sentence, clause) of each mention
        self.now_clauses: set[int] = set()
        self.now_sentences: set[int] = set()
        self.clauses_of_now = clauses_of_now
        self.ongoing: dict[int, int] = {}  # sentence → start of its last ongoing marker
        self.sentence = self.clause = 0
        self.time: str | None = None  # "now" / "past": the time cue whose scope we are in
        self.time_start = -1
        self.hypothetical_sentence = self.hypothetical_clause = self.habitual_clause = False
        self.habitual_end, self.habitual_gap = -1, 0
        self.manner_clause = False
        self.negation_end, self.negation_gap = -1, 0
        self.recurrence_end, self.recurrence_gap = -1, 0
        self.subject_other = False
        # 我 / 本人 / 自己 as another person: 他 / 她 after them is never the writer, so it returns to
        # the subject before them (我给他喂了药，他又抽了 is the child's)
        self.writer_subject = False
        self.before_writer = False
        # … and in a story about a named child, the writer's own clause ends their turn too (孩子奶奶在
        # 带，我在上班，刚才抽搐了 is the child's; with no child named the writer's story goes on)
        self.child_named = False
        self.patient_in_sentence = False
        self.other_end = -1  # end of the last other-person word (it may govern a patient word)
        self.subject_end = -1  # end of the last subject word or 他 / 她 (自己 right after it is no subject)
        self.last = -1  # index of the last mention seen
        self.cues = cues
        self.patients: list[int] | None = None  # where the patient words start, read at the first self word
        self.next_patient = 0
        self.clause_end = clause_end

    def boundary(self, sentence_end: bool, clause_end: int) -> None:
        self.clause += 1
        self.clause_end = clause_end
        self.hypothetical_clause = self.habitual_clause = self.manner_clause = False
        self.negation_end = self.recurrence_end = -1
        if self.writer_subject and self.child_named:
            self.subject_other, self.writer_subject = self.before_writer, False
        if sentence_end:
            self.sentence += 1
            self.time = None
            self.hypothetical_sentence = self.patient_in_sentence = False
        elif self.time == "past" and self.clause in self.clauses_of_now:
            self.time = None  # a past scope stops at a clause that speaks of now

    def mention(self, index: int, m: Mention) -> None:
        last = self.last
        if self.negation_end >= 0 and m.start - self.negation_end <= self.negation_gap and (
            self.rules.negation_filler.fullmatch(self.text, self.negation_end, m.start)
        ):
            self.negated[index] = True
        elif (last >= 0 and self.negated[last] and self.where[last][1] == self.clause
              and self.rules.enumeration.fullmatch(self.text, self.mentions[last].end, m.start)):
            self.negated[index] = True  # 没有抽搐、呕吐或昏迷: the negation carries along the list
        self.negation_end = -1  # a negation covers the next mention only
        if self.recurrence_end >= 0 and m.start - self.recurrence_end <= self.recurrence_gap:
            self.recurrence[index] = True
        self.recurrence_end = -1
        self.manner[index] = self.manner_clause or self.recurrence[index]
        self.other[index] = self.subject_other
        if self.time == "past":
            self.past[index] = True
            self.past_cue[index] = self.time_start
        self.hypothetical[index] = self.hypothetical_sentence or self.hypothetical_clause
        if self.habitual_clause and m.start - self.habitual_end <= self.habitual_gap:
            self.habitual[index] = True
            self.habitual_end = m.end  # the reach runs on from each sign it covers (经常嘴唇发紫、口吐白沫)
        self.where[index] = (self.sentence, self.clause)
        self.last = index

    def cue(self, hit: Hit) -> None:
        cue: Cue = hit.payload
        kind = cue.kind
        if kind in ("patient", "other", "self", "third"):
            self._subject(hit, kind)
        elif cue.direction == "after":
            last = self.last
            if last >= 0 and self.where[last][0] == self.sentence and hit.start - self.mentions[last].end <= cue.max_gap:
                if kind == "past":
                    # 过 in a clause of today, with no past cue in force, is the perfect, not the past:
                    # 今天早上抽搐过一次 has happened today (前天半夜抽搐过 stays past)
                    if not (hit.term in self.rules.perfect and self.time != "past" and self.where[last][1] in self.clauses_of_now):
                        self.past[last] = True
                else:
                    self.asked_after[last] = True
        elif kind == "negation":
            text = self.text
            if len(hit.term) == 1 and 0 < hit.start and hit.end < len(text) and text[hit.start - 1] == text[hit.end]:
                return  # X不X (要睡不睡) asks, it does not deny
            self.negation_end, self.negation_gap = hit.end, cue.max_gap
        elif kind in ("now", "past", "ongoing"):
            self.time, self.time_start = ("past" if kind == "past" else "now"), hit.start
            if kind != "past":
                self.now_clauses.add(self.clause)
                self.now_sentences.add(self.sentence)
            if kind == "ongoing":
                self.ongoing[self.sentence] = hit.start
                self.manner_clause = True
        elif kind == "recurrence":
            self.recurrence_end, self.recurrence_gap = hit.end, cue.max_gap
        elif kind == "manner":
            last = self.last
            if hit.term in self.rules.event_marks and last >= 0 and hit.start == self.mentions[last].end:
                self.manner[last] = True  # 惊厥了: a stated event
            else:
                self.manner_clause = True
        elif kind == "hypothetical":
            if cue.scope == "sentence":
                self.hypothetical_sentence = True
            else:
                self.hypothetical_clause = True
        elif kind == "habitual":
            self.habitual_clause = True
            self.habitual_end, self.habitual_gap = hit.end, cue.max_gap
        elif kind == "contrast":
            self.time = None
            self.hypothetical_sentence = self.hypothetical_clause = self.habitual_clause = False
            self.negation_end = -1
        # now_clause and pseudo: nothing here (clauses_of_now holds the former; the latter hides a cue)

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
            self.writer_subject = False
            self.patient_in_sentence = self.patient_in_sentence or not governed
            self.child_named = self.child_named or not governed
        elif kind == "other":
            if not self._place_or_carer(hit):
                self.subject_other, self.writer_subject = True, False
            self.other_end = hit.end
        elif kind == "self":
            if self.self_is_patient:
                self.subject_other = False
            elif (not (hit.term in self.rules.reflexive and after_subject) and not self._patient_word_follows(hit.end)
                  and not self._place_or_carer(hit)):
                if not self.writer_subject:
                    self.before_writer, self.writer_subject = self.subject_other, True
                self.subject_other = True
        elif self.writer_subject:
            self.subject_other, self.writer_subject = self.before_writer, False
        self.subject_end = hit.end

    def _place_or_carer(self, hit: Hit) -> bool:
        """姥姥家, 在我身上, 被奶奶, 跟爷爷 (after the child was named): where or with whom, not whose
        (SPEC §4.7 revision 2)."""
        rules, text = self.rules, self.text
        if text.startswith(rules.place_after, hit.end):
            return True
        before = text[hit.start - 1] if hit.start else ""
        return before in rules.carer_before or (self.patient_in_sentence and before in rules.carer_before_if_patient)

    def _patient_word_follows(self, position: int) -> bool:
        """A patient word after ``position`` in the same clause (我孩子, 我的宝宝)."""
        patients = self.patients
        if patients is None:
            patients = self.patients = [h.start for h in self.cues if h.payload.kind == "patient"]
        while self.next_patient < len(patients) and patients[self.next_patient] < position:
            self.next_patient += 1
        return self.next_patient < len(patients) and patients[self.next_patient] < self.clause_end

    def stated(self) -> list[bool]:
        now = self.now_clauses | self.clauses_of_now
        return [manner or habitual or where[1] in now for manner, habitual, where in zip(self.manner, self.habitual, self.where)]

    def decide(self) -> list[str]:
        out: list[str] = []
        ongoing, now_clauses, of_now, now_sentences = self.ongoing, self.now_clauses, self.clauses_of_now, self.now_sentences
        negated, other, past, recurrence, past_cue = self.negated, self.other, self.past, self.recurrence, self.past_cue
        hypothetical, asked_after, manner, habitual = self.hypothetical, self.asked_after, self.manner, self.habitual
        for i, (sentence, clause) in enumerate(self.where):
            if negated[i]:
                out.append(NEGATED)
            elif other[i]:
                out.append(OTHER)
            elif past[i] and not recurrence[i] and not (past_cue[i] >= 0 and ongoing.get(sentence, -1) > past_cue[i]):
                out.append(HISTORICAL)
            elif (hypothetical[i] and clause not in now_clauses) or (
                # a stated event (了, a manner cue, a now cue or a part of today in its clause) is no
                # question about the word: 宝宝晚上囟门就鼓起来是怎么回事 stays current
                asked_after[i] and clause not in of_now and not manner[i]
            ) or (habitual[i] and sentence not in now_sentences):
                out.append(HYPOTHETICAL)
            else:
                out.append(CURRENT)
        return out


def _cues(
    rules: ContextRules, text: str, mentions: list[Mention], hits: list[Hit]
) -> tuple[list[Hit], list[Mention]]:
    """Cue and subject words in text order, leftmost-longest among them (目前天 is 目前, 没有过 a
    negation), none inside a term (terms match first: the 不 of 叫不醒 is not a negation). A pattern
    never swallows a negation in its gap (嘴唇不发紫): the mention then starts after the cue, which
    negates it as any cue before a mention does. ``hits``: the cue lexicon's hits on ``text``.
    Returns the cues and the mentions so placed."""
    for pattern, cue, needed in rules.patterns:
        if needed not in text:
            continue  # patterns.required_char: one C look spares most texts the scan
        found = [Hit(m.start(), m.end(), pattern.pattern, cue) for m in pattern.finditer(text)]
        if found:
            hits = sorted(hits + found, key=leftmost_longest)  # a handful of hits: both lists are short
    kept: list[Hit] = []
    given = mentions
    n = len(mentions)
    j = 0
    for hit in hits:
        while j < n and mentions[j].end <= hit.start:
            j += 1
        if j < n and mentions[j].start < hit.end:
            m = mentions[j]
            if (hit.payload.kind == "negation" and m.start < hit.start and hit.end < m.end
                    and _in_gap(rules, text, m, hit)):
                if mentions is given:
                    mentions = list(given)
                mentions[j] = Mention(hit.end, m.end, m.term, m.concept)
                kept.append(hit)
            continue  # overlaps a mention
        if kept and hit.start < kept[-1].end and not (
            hit.payload.kind in _SUBJECTS and kept[-1].payload.kind in _SUBJECTS
        ):
            continue  # inside or across the word before it: the leftmost, then the longest, acts
        kept.append(hit)
    return kept, mentions


# 当时 names the time told before it: a now cue's (昨天晚上抽搐，当时叫不醒 is last night) or a past
# cue's; with none before it, the past.
_THEN_NOW, _THEN_PAST = Cue("now", "before", "sentence"), Cue("past", "before", "sentence")


def _anchored(cues: list[Hit]) -> list[Hit]:
    out: list[Hit] = []
    then = _THEN_PAST
    for hit in cues:
        cue: Cue = hit.payload
        if cue.direction == "before" and cue.kind in _SPEAKS_OF_NOW:
            then = _THEN_NOW
        elif cue.direction == "before" and cue.kind == "past":
            then = _THEN_PAST
        elif cue.kind == "then":
            hit = Hit(hit.start, hit.end, hit.term, then)
        out.append(hit)
    return out


def _in_gap(rules: ContextRules, text: str, m: Mention, hit: Hit) -> bool:
    """The negation sits in the pattern's gap, not in its own words (喘不上气, 烧没退): the pattern
    still matches with the cue taken out."""
    pattern = rules.patterns_by_name.get(m.term)
    return pattern is not None and pattern.match(text[:hit.start] + text[hit.end:m.end], m.start) is not None


# Subject words may overlap (我姐|姐姐, 小宝|宝宝): the walk lets the first decide and the second
# extend it, so 我姐姐家的孩子 is still governed.
_SUBJECTS = frozenset(("patient", "other", "self", "third"))


def leftmost_longest(hit: Hit) -> tuple[int, int]:
    """The sort key that puts, of hits starting together, the longest first."""
    return hit.start, -hit.end
