"""The combined pattern of the one scan (``scan``): every family's branches in one regex.

Shape: one character class of every character a slot can start with, then one branch per slot
kind, each guarded by a look-behind on that first character and closed by an empty group named
after the kind (so ``Match.lastgroup`` is the kind and ``Match.lastindex`` its index). The leading
class lets sre skip every other character in C; branches that opened with a capturing group would
be tried one by one at every position instead (8× slower on a 100-character message). A
number-led branch has no group for its number: the number runs from the match start to the empty
group ``e``.

Its alternatives are ordered so that, at any position, a reading with context wins over a bare
number — a patient ID, a date, a time window, an age, a body weight, a height, and only then a
plain number with its unit.
"""

from __future__ import annotations

import re

from ..numerals import CHARS
from ..patterns import heads
from ..policy.slots import SlotWords
from . import ages, body, dates, temperatures

# Where each family's branches sit among the others: at one position, the first branch that fits
# wins (a date before a plain number, an age in months before a portion of 个).
_TAIL_ORDER = ("md", "ago", "wsuf", "msum", "msub", "yweek", "kage", "amon", "lage", "age", "wt2", "jl", "mid", "metre", "temp", "q")
_LED_ORDER = ("pid", "num", "win", "mage", "yage", "kid", "born", "full", "now", "pro", "wt", "ht", "rel")


def units(words: SlotWords, measure_units: tuple[str, ...]) -> set[str]:
    """Every unit a number may carry: the policy's ``numbers.units`` and its measure units."""
    return set(words.numbers.units) | set(measure_units)


def _unit_pattern(unit_set: set[str], words: SlotWords) -> str:
    """Longest unit first. A unit ending in an ASCII letter must not run into another letter (kg,
    not kgs); the others form a trie, so a bare number fails on one character class instead of
    trying ninety units one by one."""
    metre = words.body.metre
    guarded = sorted((u for u in unit_set if u[-1].isascii() and u[-1].isalpha()), key=len, reverse=True)
    plain = {u for u in unit_set if u not in guarded and u != metre}
    parts = [_trie(plain), "|".join(re.escape(u) + "(?![a-z])" for u in guarded)]
    if metre in unit_set:
        parts.insert(0, body.metre(words))
    return "|".join(p for p in parts if p)


def _trie(words: set[str]) -> str:
    heads_of: dict[str, set[str]] = {}
    for word in words:
        heads_of.setdefault(word[0], set()).add(word[1:])
    branches, singles = [], []
    for head, tails in sorted(heads_of.items()):
        longer = {t for t in tails if t}
        if not longer:
            singles.append(re.escape(head))
            continue
        branches.append(re.escape(head) + _trie(longer) + ("?" if "" in tails else ""))
    if singles:
        branches.append(f"[{''.join(singles)}]")
    return "(?:" + "|".join(branches) + ")"


# Where a Chinese numeral may open: at most two characters into its run of numeral characters.
#
# Opening anywhere made the scan quadratic: at every position of a run with no unit after it
# (千千千…), ``[C]*`` ran to the end of the run and gave back one character at a time (1.9 s for
# 2,000 characters, issue 11). Refusing the later positions changes no reading. The scan reaches a
# position inside a run either after a failed attempt one character before it, or where a match
# just ended. A failed attempt had already tried every end this one can try (what follows a
# Chinese numeral decides alone whether a tail fits: no tail looks behind it), so this one fails
# too. And a match ends inside a run at most two characters into it: a unit 两 right after digits
# or 半 (5两三天), one or two numerals after 米 (一米二三), the weekday of 上周三 (上周三十天). A new
# match kind that ends deeper inside a run must widen this; tests/router/test_adversarial.py
# compares the scan with the unrestricted one.
RUN_OPENING = f"(?<![{CHARS}]{{4}})"


def numeral_end(unit_set: set[str]) -> str:
    """Where a Chinese numeral may end: before a character that is no numeral, or before a unit
    that opens with one (两, 千克). A tail can fit nowhere else, so the scan does not try every
    tail at every end it gives back inside a run (千 written 2,000 times cost 2.7 ordinary
    messages of 2,000 characters with those tries, issue 11)."""
    led = sorted((u for u in unit_set if u[0] in CHARS), key=len, reverse=True)
    return f"(?:(?![{CHARS}])|(?={'|'.join(map(re.escape, led))}))" if led else f"(?![{CHARS}])"


def _openers(tails: dict[str, str]) -> str:
    """Every character a unit tail can open with, as a class body. ``patterns.heads`` reads a
    look-around as empty, so the set is never smaller than the true one: the class only sends a
    number that no tail can follow straight to the bare-number branch."""
    found: set[str] = set()
    for kind, tail in tails.items():
        opening = heads(tail, 1)
        if opening is None:
            raise ValueError(f"the unit tail {kind!r} may open with any character")
        found |= opening
    return "".join(re.escape(ch) for ch in sorted(found))


def pattern(unit_set: set[str], kid_words: tuple[str, ...], words: SlotWords) -> re.Pattern[str]:
    unit_alternation = _unit_pattern(unit_set, words)
    kids = "|".join(re.escape(w) for w in sorted(kid_words, key=len, reverse=True))
    n = words.numbers
    tails = (
        dates.tails(words)
        | ages.tails(unit_alternation, kids, words)
        | body.tails(words)
        | temperatures.tails(words)
        | {
            # 一个半月 = 1.5 个月, not 一个 + 半月
            "mid": f"{re.escape(n.counter)}半(?P<mid_u>{'|'.join(map(re.escape, n.half_units))})",
            "q": f"(?P<q_u>{unit_alternation})(?P<q_h>半(?!{unit_alternation}))?",
        }
    )
    unit_tails = {kind: tails[kind] for kind in _TAIL_ORDER}
    # After a number that starts at the match start, in order of precedence: a date, then the
    # tails that open with optional blanks and a unit word, then a bare Arabic number.
    #
    # The blanks are read once for all unit tails, and the look-ahead on the class of what they
    # open with sends a number followed by anything else straight to the bare-number branch: the
    # scan takes a fifth less time on bench/router_bench.py's MESSAGE, a quarter less on longer
    # texts. The matches are those of one ``[ \t]*`` per tail, since no tail but ``q`` can open
    # with a blank (a policy unit might), so only the longest run of blanks can lead into any
    # other tail, and ``q`` is tried last.
    number_tails = (
        f"{dates.date_tail(words)}(?P<ymd>)"
        f"|[ \\t]*(?=[{_openers(unit_tails)}])(?:"
        + "|".join(f"{tail}(?P<{kind}>)" for kind, tail in unit_tails.items())
        + ")"
        + "|(?<=[0-9])(?P<bare>)"  # an Arabic number needs no unit; a Chinese one does
    )
    # A numeral right after the rank word is a child's rank, not a number: 老二两岁 is 两岁 of the
    # second child, not 二两.
    rank = re.escape(n.rank)
    branches_by_kind = (
        dates.led_branches(words)
        | ages.led_branches(kid_words, words)
        | body.led_branches(words)
        | {
            "pid": ("p", r"(?<![a-z0-9]p)[0-9]{4,}"),
            "num": (
                f"0-9{CHARS}半",
                # 2026.3.5 is a date: no decimal part when another dot and digit follow it.
                f"(?:(?<=[0-9])[0-9]*(?:\\.[0-9]+(?!\\.[0-9]))?|(?<=[{CHARS}])(?<!{rank}[{CHARS}]){RUN_OPENING}[{CHARS}]*{numeral_end(unit_set)}|(?<=半))(?P<e>)(?:"
                + number_tails
                + ")",
            ),
        }
    )
    led = {kind: branches_by_kind[kind] for kind in _LED_ORDER}
    trigger = "".join(dict.fromkeys("".join(first for first, _ in led.values())))
    branches = "|".join(
        f"(?<=[{first}]){branch}" + ("" if kind == "num" else f"(?P<{kind}>)") for kind, (first, branch) in led.items()
    )
    return re.compile(f"[{trigger}](?:{branches})")

