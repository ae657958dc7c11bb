"""The body temperature families of the slot grammar: ``[slots.temperatures]`` (what a reading is,
``app/router/slots/temperatures.py``) and ``[slots.temperature_context]`` (which reading is the
child's current one, ``temperature_context.py``), models and compiled forms.

Their patterns are written as the other families' are (``slot_types.py``; ``[{NUMERALS}]+`` names
the characters a Chinese numeral is spelt with, as in any family). Where a pattern needs a run
that the policy's bounds forbid a written pattern (the comma between a temperature word and its
number, the particles after a reading, a clause's gap wider than ``MAX_GAP``), the file holds its
words and the model puts them into that run once (the ``cached_property`` forms below).
"""

from __future__ import annotations

import re
from functools import cached_property

from pydantic import model_validator

from ..text import CLAUSE_ENDS, COMMA, LIST_MARK, SENTENCE_ENDS
from .slot_types import Chars, Fragment, Regex, Table, Word, Words, _Family, either, needs_groups


def _run(words: tuple[str, ...]) -> str:
    """Any number of ``words`` in a row (the particles after a reading)."""
    return f"(?:{either(words)})*"


class Temperatures(_Family):
    unit: Word
    meter: Fragment
    after_word: Fragment
    taken: Word
    amount_before: Chars
    listed: Regex
    range_end: Regex
    range_start: Regex
    reply_opening: Regex
    reading: Regex
    decimal_reading: Regex
    measure_before: Regex
    lab_before: Regex
    particles: Words
    ambient: Regex
    threshold_before: Words
    below_before: Words
    below_after: Words
    almost: Words
    range_at: Regex

    @model_validator(mode="after")
    def _named_groups(self) -> Temperatures:
        needs_groups(self.after_word_pattern, "after_word", {"n", "n2"})
        for name in ("listed", "range_end", "range_start"):
            needs_groups(getattr(self, name), name, {"n"})
        return self

    @cached_property
    def after_word_pattern(self) -> re.Pattern[str]:
        """Right after a temperature word: the meter's words, blanks, colons and commas, then the rest."""
        return re.compile(f"{self.meter}[ \\t:{re.escape(COMMA)}]*{self.after_word}")

    @cached_property
    def ends_message(self) -> re.Pattern[str]:
        """Particles, blanks and sentence ends up to the end of the text (38度多, 37.5左右吧)."""
        return re.compile(f"{_run(self.particles)}[ \\t{re.escape(SENTENCE_ENDS)}]*$")

    @cached_property
    def clause_rest(self) -> re.Pattern[str]:
        """Particles, blanks, then the clause's end (39度，…)."""
        return re.compile(f"{_run(self.particles)}[ \\t]*(?:[{re.escape(CLAUSE_ENDS + LIST_MARK)}~]|$)")

    @cached_property
    def bare_message(self) -> re.Pattern[str]:
        """Numbers, particles and marks only (38.5, 38.5，37.8吧). Possessive throughout: a run of
        digits is never split between two numbers on a failing text."""
        return re.compile(
            f"(?:[ \\t]*+[0-9]++(?:\\.[0-9]++)?+{_run(self.particles)}+[ \\t]*+[{re.escape(CLAUSE_ENDS + LIST_MARK)}~]*+)++"
        )


class TemperatureContext(_Family):
    bounds: Fragment
    asked: Words
    asked_end: Words
    question_lead: Fragment
    asks_end: Words
    when_after: Regex
    may: Word
    may_not_after: Chars
    resolved: Regex
    lasting: Regex
    day: Regex
    day_marks: Chars
    ago_days: Table
    ago: Regex
    ago_units: Table
    ago_counts: Table
    since: Word
    still: Regex
    today: Regex
    returned: Regex
    goes_on: Word
    past_when: Regex
    usual: Fragment
    weather: Fragment
    condition: Regex
    had_fever: Regex
    this_time: Regex
    clues: Words
    instruction: Regex
    instruction_words: Regex
    clock: Regex
    onset: Word

    @model_validator(mode="after")
    def _named_groups(self) -> TemperatureContext:
        needs_groups(self.ago, "ago", {"n", "u"})
        needs_groups(self.day, "day", {"d", "d2"})
        return self

    @cached_property
    def asked_after(self) -> re.Pattern[str]:
        """After a reading: a bound, blanks or a comma, a word of meaning and its question (37.8算发烧吗)."""
        return re.compile(
            f"{self.bounds}[ \\t{re.escape(COMMA)}]*(?:{either(self.asked)})[^{re.escape(CLAUSE_ENDS)}]{{0,5}}?"
            f"(?:{either(self.asked_end)}|[?])"
        )

    @cached_property
    def question_lead_pattern(self) -> re.Pattern[str]:
        """A sentence's opening before a reading asked about: blanks, a lead, blanks and commas."""
        return re.compile(f"[ \\t]*{self.question_lead}[ \\t{re.escape(COMMA)}]*")

    @cached_property
    def asks(self) -> re.Pattern[str]:
        """A question's end a few characters on in the clause (会烧到40度吗)."""
        return re.compile(f"[^{re.escape(CLAUSE_ENDS)}]{{0,6}}?(?:{either(self.asks_end)}|[?])")

    @cached_property
    def dated(self) -> re.Pattern[str]:
        """A character a day of the month needs: a day mark or a point (one search in C for a text)."""
        return re.compile(f"[{re.escape(''.join(self.day_marks))}.]")

    @cached_property
    def clue(self) -> re.Pattern[str]:
        """Any one of the clues (one search in C for a text)."""
        return re.compile(either(self.clues))

    @cached_property
    def usual_pattern(self) -> re.Pattern[str]:
        """A usual-temperature word (group 1) in the reading's clause before it."""
        return re.compile(f"({self.usual})[^{re.escape(CLAUSE_ENDS)}()]*$")

    @cached_property
    def weather_pattern(self) -> re.Pattern[str]:
        """The weather's or a room's temperature in the reading's clause before it."""
        return re.compile(f"(?:{self.weather})[^{re.escape(CLAUSE_ENDS)}()]*$")
