"""What the families of quantities share: the regex pieces their branches are built of, and the
``Draft`` their handlers fill in text order during one ``extract`` call."""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from datetime import date
from math import floor
from operator import itemgetter
from typing import Callable

from ..lexicon import Hit
from ..numerals import CHARS, LIMIT, SHORT, parse_number
from ..policy.slots import SlotWords
from ..text import SENTENCE_ENDS, TextViews
from .result import Quantity

AR = r"[0-9]+(?:\.[0-9]+)?"
CN = f"[{CHARS}]+"
NUM = f"{AR}|{CN}"
_SENTENCE_END = re.compile(f"[{SENTENCE_ENDS}]")
START = itemgetter(0)  # of a Hit or a (start, end) mask
PATIENT, OTHER, WRITER = 0, 1, 2  # whose a subject word is (``Draft.subjects``)


def fill(words: SlotWords) -> str:
    """Words allowed between a context word (体重, 身高) and its number: 体重是30斤, 身高：120."""
    return "(?:[ \\t:=]|" + "|".join(map(re.escape, words.numbers.fill)) + ")*"


def led(*words: str) -> str:
    """Words whose first character the leading class has already consumed: 最近 → (?<=最)近.

    Longest first, one look-behind per first character with its words' rests after it: a word
    that opens with another character cannot match there anyway, and a look-behind per word made a
    宝 that opens no age (宝宝发烧) try one per child word, a fifth of the whole scan."""
    rests: dict[str, list[str]] = {}
    for w in sorted(words, key=len, reverse=True):
        rests.setdefault(w[0], []).append(w[1:])
    return "(?:" + "|".join(f"(?<={first})(?:{'|'.join(after)})" for first, after in rests.items()) + ")"


def number(kind: str) -> str:
    """The number of a context-led branch (体重30斤, 最近7天), in the group ``<kind>_n``."""
    return f"(?P<{kind}_n>{NUM}|半)"


def masked(masks: list[tuple[int, int]], start: int) -> bool:
    """Whether ``start`` lies inside one of ``masks``: lexicon hits, in text order with increasing
    starts and ends, so the last one opening at or before ``start`` is the only candidate (a search,
    not a pass over every mask per number: hco3 written a thousand times)."""
    index = bisect_right(masks, start, key=START)
    return index > 0 and start < masks[index - 1][1]


class Grammar:
    """The slot grammar of one policy: its words, and the patterns the readers build of them and
    search outside the one scan (built once, with the extractor)."""

    __slots__ = ("words", "weight_unit", "frequency")

    def __init__(self, words: SlotWords, weight_unit: re.Pattern[str], frequency: re.Pattern[str]):
        self.words, self.weight_unit, self.frequency = words, weight_unit, frequency


class Draft:
    """What one ``extract`` call has read so far; the handlers fill it in text order."""

    __slots__ = ("cased", "text", "reference", "foods", "masks", "ids", "dates", "numbers", "measures",
                 "age", "weight", "height", "window", "clause_marks", "age_end", "weight_rank",
                 "subjects", "children", "last_patient", "last_other", "age_provisional", "temperature_words",
                 "sentence_ends", "readings", "replies", "replied", "age_approximate", "age_current", "dosage",
                 "weight_approximate", "temperature_approximate", "temperature", "temperature_at", "finished", "age_below",
                 "grammar", "words")

    def __init__(self, views: TextViews, reference: date, foods: list[Hit], masks: list[tuple[int, int]], grammar: Grammar):
        self.cased, self.text, self.reference, self.foods, self.masks = views.cased, views.text, reference, foods, masks
        self.grammar, self.words = grammar, grammar.words
        # Dicts as ordered sets: a membership test per ID or date costs the same however many came before.
        self.ids: dict[str, None] = {}
        self.dates: dict[str, None] = {}
        # Quantity dicts; a measure is the index of its number.
        self.numbers: list[Quantity] = []
        self.measures: list[int] = []
        self.age: float | None = None
        self.weight: float | None = None
        self.height: float | None = None
        self.window: int | None = None
        self.clause_marks: list[int] | None = None  # where the clause marks are, read on first need
        self.readings: dict[int, float] = {}  # body temperatures read, by where their number starts
        # numbers that would be readings without a temperature word (temperatures.reply_readings), by start
        self.replies: dict[int, float] = {}
        self.replied: set[int] = set()  # the readings temperatures.reply_readings took from ``replies``
        self.age_end = -1  # where the age read ends: a weight may follow it without 体重
        self.weight_rank = 0  # of the weight read: body.BIRTH_RANK, read only once a weight is set
        # (start, whose: PATIENT, OTHER or WRITER) of every subject word, in text order; None
        # when the text names no other person and no writer before a patient word, so that
        # everything belongs to the patient.
        self.subjects: list[tuple[int, int]] | None = None
        self.children: frozenset[int] = frozenset()  # where patient words start, with subjects
        # where the last patient and the last other-person word start (-1: none), with subjects
        self.last_patient = self.last_other = -1
        self.age_approximate = False  # the age read is a lower bound (两岁多, 五个多月) or "almost N" (快两岁)
        self.age_below: float | None = None  # the age read is "almost N" (快三个月): N in days, an upper bound
        self.weight_approximate = False  # the weight read is a lower bound (16斤多)
        self.temperature_approximate = False  # the reading that won is a lower bound (39度多)
        self.temperature: float | None = None  # the child's current temperature (``temperature_context.temperature``)
        self.temperature_at = -1  # where the reading that won starts
        self.finished = False  # the readings after the scan are done (``SlotExtractor.finish``)
        self.age_current = False  # an age said as now (现在5个月) was read: it replaces an earlier one
        self.age_provisional = False  # the age read is the writer's, and a patient word follows it
        self.temperature_words: list[Hit] = []
        self.sentence_ends: list[int] | None = None  # read on first need
        self.dosage: bool | None = None  # whether a dose's word is in the text (ages._not_now), on first need

    def quantity(
        self, m: re.Match[str], start: int, stop: int, unit: str | None = None, half: str | None = None
    ) -> Quantity | None:
        """Record ``text[start:stop]`` with the unit and trailing 半 groups that follow it, if they matched."""
        token = self.text[start:stop]
        value: int | float | None
        if "0" <= token[:1] <= "9" and len(token) <= SHORT:  # parse_number, inlined: this runs for most handled matches
            value = float(token) if "." in token else int(token)
            if value >= LIMIT:
                return None
        else:
            value = parse_number(token)
            if value is None or (start and "0" <= self.text[start - 1] <= "9"):
                return None  # 2十八: digits and numerals mixed are no number
        if self.masks and masked(self.masks, start):
            return None
        end, unit_text = stop, None
        if unit is not None:
            unit_start, unit_end = m.span(unit)
            if unit_start >= 0:
                end, unit_text = unit_end, self.cased[unit_start:unit_end]
                if half is not None:
                    half_start, half_end = m.span(half)
                    if half_start >= 0:
                        value, end = value + 0.5, half_end
        quantity: Quantity = {"value": value, "unit": unit_text, "raw": self.cased[start:end]}
        self.numbers.append(quantity)
        return quantity

    def add_date(self, day: date) -> None:
        self.dates[day.isoformat()] = None

    def owner(self, position: int, end: int = -1) -> int:
        """Whose the value at ``position`` (ending at ``end``) is: ``OTHER`` when its nearest
        subject word before (or at: 宝宝17个月 opens with it) is another person's (SPEC §4.7), or the
        writer's with an other-person word somewhere after it; ``WRITER`` when it is the writer's
        and a patient word comes after it (the patient's own value, said later, replaces it);
        else ``PATIENT``. A patient word right after the value makes it the child's
        (我表姐四岁的儿子 is a child's age)."""
        subjects = self.subjects
        if not subjects:
            return PATIENT
        index = bisect_right(subjects, position, key=START)
        if index == 0:
            return PATIENT
        owner = subjects[index - 1][1]
        possessive = self.words.numbers.possessive
        if owner == PATIENT or (
            end >= 0
            and (end in self.children or (self.text.startswith(possessive, end) and end + len(possessive) in self.children))
        ):
            return PATIENT
        if owner == WRITER and self.last_other < position:
            return WRITER if self.last_patient > position else PATIENT
        return OTHER

    def others(self, position: int, end: int = -1) -> bool:
        """Whether the value at ``position`` fills no patient slot (``owner``)."""
        return self.owner(position, end) == OTHER

    def set_age(
        self, start: int, end: int, years: float, approximate: bool = False, current: bool = False, below: float | None = None
    ) -> None:
        """The patient's age, in years; ``approximate`` when the text gives a lower bound (两岁多).
        The first age stays, unless a later one is said as now (``current``: 现在四个多月 after 42天
        of a past stay in hospital) and the first was not."""
        if supposed(self, start):
            return
        replace = current and not self.age_current
        if self.subjects is None:  # everything is the patient's: the first age stays
            if self.age is None or replace:
                self.age, self.age_end, self.age_approximate = _two_decimals(years), end, approximate
                self.age_current, self.age_below = current, below
            return
        if self.age is not None and not self.age_provisional and not replace:
            return
        owner = self.owner(start, end)
        if owner == OTHER or (self.age is not None and owner == WRITER):
            return
        self.age, self.age_end, self.age_provisional = _two_decimals(years), end, owner == WRITER
        self.age_approximate, self.age_current, self.age_below = approximate, current, below

    def same_sentence(self, start: int, end: int) -> bool:
        """No sentence end in ``text[start:end]``; the ends are found once per text, on first need."""
        ends = self.sentence_ends
        if ends is None:
            ends = self.sentence_ends = [mark.start() for mark in _SENTENCE_END.finditer(self.text)]
        index = bisect_left(ends, start)
        return index == len(ends) or ends[index] >= end


Handler = Callable[[re.Match[str], Draft], None]

# How far before a value its supposition may open (the policy's ``numbers.supposed``).
_SUPPOSED_REACH = 14


def supposed(d: Draft, start: int) -> bool:
    """Whether the value at ``start`` is said under a supposition (如果孩子体重10公斤, 要是两岁) or a
    rule said in general (一般体重15公斤的孩子) in its clause: no value of the child (SPEC §4.4
    revision 2: hypothetical values never fill). The words are looked for before the pattern."""
    numbers = d.words.numbers
    window = d.text[max(0, start - _SUPPOSED_REACH) : start]
    return any(word in window for word in numbers.supposed_words) and numbers.supposed.search(d.text, max(0, start - _SUPPOSED_REACH), start) is not None


def _two_decimals(years: float) -> float:
    """Half up, as a parent would round: 一个半月 is 0.125 years, 0.13 (``round`` gives 0.12)."""
    return floor(years * 100 + 0.5 + 1e-9) / 100
