"""Whose a value is (SPEC §4.7 "Subjects", for slots): the subject words of a text in order.

A value belongs to the nearest subject word before it (policy ``[context]``); another person's
value fills no slot unless a patient word follows it right away (我表姐四岁的儿子); unlike a red
flag's subject (§4.7), a child of another person (同事的孩子) is a child: its values fill, unless the
writer names their own child too (…，我家宝宝1岁: the other child's fill nothing); an elder child of
several (policy ``subjects``) is another child. The writer's own value is ``WRITER``'s
(``Draft.owner`` decides what it fills).
"""

from __future__ import annotations

import re
from operator import attrgetter
from typing import Callable, Iterator

from ..lexicon import Hit, Hits
from ..policy.slots import SlotWords
from .draft import OTHER, PATIENT, WRITER, Draft

_START = attrgetter("start")


class Subjects:
    """The subject readers of one policy: its kin children, writer words and elder-child words."""

    __slots__ = ("_kin_children", "_selves", "_writers", "_words")

    def __init__(self, words: SlotWords, kin_children: frozenset[str], self_words: tuple[str, ...],
                 self_not_inside: tuple[str, ...]) -> None:
        # Child words that are also other-person words (侄子, 侄女, policy [slots] age_child_words): for
        # slots, the child the text asks about (a red flag of theirs stays another person's, §4.7).
        self._kin_children = kin_children
        self._words = words.subjects
        # The writer's words (我, 本人) as subjects of a value; the words that hide one (我们, 我觉得)
        # come first and match without a group. The reflexive (自己) is left out: after a subject
        # (孩子自己) it names no new one.
        hiders = sorted(self_not_inside, key=len, reverse=True)
        selves = sorted((w for w in self_words if w != self._words.reflexive), key=len, reverse=True)
        self._selves = tuple(selves)
        writers = f"({'|'.join(map(re.escape, selves))})"
        self._writers: Callable[[str], Iterator[re.Match[str]]] = re.compile(
            "|".join(map(re.escape, hiders)) + "|" + writers if hiders else writers
        ).finditer

    def read(self, draft: Draft, text: str, hits: Hits) -> None:
        """Set the draft's subjects when the text names another person or the writer."""
        words = self._words
        patients, others = hits.group("patient"), hits.group("other")
        if others and self._kin_children:  # 我七岁的侄子: a relative's child is a child
            patients = sorted(patients + [h for h in others if h.term in self._kin_children], key=_START)
            others = [h for h in others if h.term not in self._kin_children]
        if patients and others:  # 朋友 inside 小朋友 is the patient word, not a friend
            others = _not_inside(others, patients)
        if patients and others and any(h.term.startswith(words.writer) for h in patients):
            # 同事的孩子烧到39度，我家宝宝1岁: with the writer's own child named, another person's child is
            # another child, whose values fill nothing (LABELS.md: other people's values never fill).
            theirs = self._governed(text, patients, others)
            if theirs:
                others = sorted(others + [h for h in patients if h.start in theirs], key=_START)
                patients = [h for h in patients if h.start not in theirs]
        if patients and words.elder_mark in text:
            elders = [h for h in patients if h.term in words.elder
                      or (h.term in words.child_nouns and text.endswith(words.elder_before, 0, h.start))]
            if elders and self._two_children(text, elders[0].end):  # 大宝今年12岁，他也…: the other child
                elder_starts = {h.start for h in elders}
                patients = [h for h in patients if h.start not in elder_starts]
                others = sorted(others + elders, key=_START)
        writers: list[int] = []
        if any(word in text for word in self._selves):  # most texts name no writer: no pass for one
            # 我 opening a subject word (我儿子, 我爸) is that word, not the writer.
            named = {h.start for h in patients} | {h.start for h in others}
            writers = [m.start() for m in self._writers(text) if m.lastindex and m.start() not in named]
        if others or writers:
            draft.subjects = _subjects(patients, others, writers)
            draft.children = frozenset(h.start for h in patients)
            draft.last_patient = patients[-1].start if patients else -1
            draft.last_other = others[-1].start if others else -1

    def _two_children(self, text: str, after: int) -> bool:
        """Whether the text names a second child (二宝, 两个孩子), or says of the elder after it that
        it too (大宝5岁，她也…): an elder child of several is another child than the one the text
        asks about (evals/peds/LABELS.md: 老大8岁 when the patient is 老二)."""
        return self._words.two_children.search(text) is not None or self._words.also.search(text, after) is not None

    def _governed(self, text: str, patients: list[Hit], others: list[Hit]) -> set[int]:
        """Where the patient words start that another person's word governs (同事的孩子, 表哥家孩子),
        other than the writer's own (我家宝宝)."""
        words = self._words
        after = {h.end for h in others} | {h.end + len(w) for h in others for w in words.governs if text.startswith(w, h.end)}
        return {h.start for h in patients if h.start in after and not h.term.startswith(words.writer)}


def _not_inside(hits: list[Hit], words: list[Hit]) -> list[Hit]:
    """The hits inside none of ``words``. Both lists are in text order with increasing starts and
    ends, so of the words that start at or before a hit the last one reaches furthest: it alone
    can hold the hit. One merge (a test of every pair made 我同事的孩子 written 700 times cost
    0.1 s, the adversarial bench's worst text)."""
    kept: list[Hit] = []
    last = -1  # the last word starting at or before the hit
    for hit in hits:
        while last + 1 < len(words) and words[last + 1].start <= hit.start:
            last += 1
        if last < 0 or hit.end > words[last].end:
            kept.append(hit)
    return kept


def _subjects(patients: list[Hit], others: list[Hit], writers: list[int]) -> list[tuple[int, int]]:
    """Every subject word as (start, whose), in text order. Unlike a red flag's subject (§4.7), a
    patient word governed by another person (朋友的孩子今年8岁) stays a child's: the values said of
    that child are the ones the text asks about."""
    return sorted(
        [(h.start, PATIENT) for h in patients] + [(h.start, OTHER) for h in others] + [(start, WRITER) for start in writers]
    )
