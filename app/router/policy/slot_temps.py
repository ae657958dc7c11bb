"""The body temperature families of the slot grammar: ``[slots.temperatures]`` (what a reading is,
``app/router/slots/temperatures.py``) and ``[slots.temperature_context]`` (which reading is the
child's current one, ``temperature_context.py``), models and compiled forms.

Their patterns are written as the other families' are (``slots.py``), with one more placeholder:
``{NUMERALS}`` names the characters a Chinese numeral is spelt with (``numerals.CHARS``), inside a
class (``[{NUMERALS}]+``), so a pattern never lists the number system. Where a pattern needs a run
that the policy's bounds forbid a written pattern (the comma between a temperature word and its
number, the particles after a reading, a clause's gap wider than ``MAX_GAP``), the file holds its
words and the model puts them into that run once (the ``cached_property`` forms below).
"""

from __future__ import annotations

import re
from functools import cached_property
from typing import Annotated, Any

from pydantic import BeforeValidator, Field, model_validator

from ..numerals import CHARS
from ..text import CLAUSE_ENDS, COMMA, LIST_MARK, SENTENCE_ENDS
from .slot_types import Chars, Table, Word, Words, _Family, _regex, either

_NUMERALS = "{NUMERALS}"


def _numerals(value: Any) -> Any:
    return value.replace(_NUMERALS, CHARS) if isinstance(value, str) else value


def _fragment(value: Any) -> Any:
    if not isinstance(value, str):
        return value
    return _regex(_numerals(value)).pattern


def _compiled(value: Any) -> Any:
    return _regex(_numerals(value))


# A pattern searched on its own, and a piece of one, that may name ``{NUMERALS}``.
Pattern = Annotated[re.Pattern[str], BeforeValidator(_compiled)]
Piece = Annotated[str, Field(min_length=1), BeforeValidator(_fragment)]


def _run(words: tuple[str, ...]) -> str:
    """Any number of ``words`` in a row (the particles after a reading)."""
    return f"(?:{either(words)})*"


def _groups(pattern: re.Pattern[str], name: str, needed: set[str]) -> None:
    missing = needed - set(pattern.groupindex)
    if missing:
        raise ValueError(f"{name}: needs the groups {sorted(missing)}")


class Temperatures(_Family):
    unit: Word
    meter: Piece
    after_word: Piece
    taken: Word
    amount_before: Chars
    listed: Pattern
    range_end: Pattern
    range_start: Pattern
    reply_opening: Pattern
    reading: Pattern
    decimal_reading: Pattern
    measure_before: Pattern
    lab_before: Pattern
    particles: Words
    ambient: Pattern
    threshold_before: Words
    below_before: Words
    below_after: Words
    almost: Words
    range_at: Pattern

    @model_validator(mode="after")
    def _named_groups(self) -> Temperatures:
        _groups(self.after_word_pattern, "after_word", {"n", "n2"})
        for name in ("listed", "range_end", "range_start"):
            _groups(getattr(self, name), name, {"n"})
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
    bounds: Piece
    asked: Words
    asked_end: Words
    question_lead: Piece
    asks_end: Words
    when_after: Pattern
    may: Word
    may_not_after: Chars
    resolved: Pattern
    lasting: Pattern
    day: Pattern
    day_marks: Chars
    ago_days: Table
    ago: Pattern
    ago_units: Table
    ago_counts: Table
    since: Word
    still: Pattern
    today: Pattern
    returned: Pattern
    goes_on: Word
    past_when: Pattern
    usual: Piece
    weather: Piece
    condition: Pattern
    had_fever: Pattern
    this_time: Pattern
    clues: Words
    instruction: Pattern
    instruction_words: Pattern
    clock: Pattern
    onset: Word

    @model_validator(mode="after")
    def _named_groups(self) -> TemperatureContext:
        _groups(self.ago, "ago", {"n", "u"})
        _groups(self.day, "day", {"d", "d2"})
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
