"""The age families of the slot grammar: ``[slots.ages]`` (an age said in years, months, days or
weeks, ``app/router/slots/ages.py``), ``[slots.milestones]`` (满月, the days to go) and
``[slots.bounds]`` (an age said as "not yet N" or "almost N"). Shapes as the other families'
(``slots.py``): lists are words folded like the text view, fragments are pieces of the slot scan's
branches, patterns are searched on their own; the readers hold the algorithm.
"""

from __future__ import annotations

from .slots import Chars, Fragment, Regex, Table, Word, Words, _Family


class Ages(_Family):
    pass


class Bounds(_Family):
    almost: Words
    almost_after: Words
    below: Words
    between: Words
    born: Word
    spans: Fragment
    half_month: Word
    old: Word
    newborn: Fragment
    days: Table
    vague: Chars


class Milestones(_Family):
    to_go: Words
    not_full_month: Words
    past_full_month: Words
    since_full_month: Regex
    month: Word
    day: Word
    months: Word
