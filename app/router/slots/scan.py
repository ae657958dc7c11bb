"""The one shared scan: a single combined regex pass over the ``text`` view that every family of
quantities (``ages``, ``body``, ``dates``, ``foods``) contributes branches and handlers to.

Its alternatives are ordered so that, at any position, a reading with context wins over a bare
number — a patient ID, a date, a time window, an age, a body weight, a height, and only then a
plain number with its unit. Whatever a match's number turns out to be (refused by the numeral
converter, for instance 三四天), the span is consumed, so 四天 is not read from it afterwards.
``text`` and ``cased`` have the same length, so a span found in one is sliced from the other to
report units and raw text as written.

Decisions where the spec is silent that belong to the scan itself (each has a row in
tests/router/test_slots.py):

* a lower-case ``p0012`` is not an ID, its digits are an ordinary number;
* numbers inside an analyte word (hco3, co2结合力) are part of the word, not numbers;
* a value belongs to the nearest subject word before it (policy ``[context]``); another person's
  value fills no slot unless a patient word follows it right away (我表姐四岁的儿子); unlike a red
  flag's subject (§4.7), a child of another person (同事的孩子) is a child: its values fill, unless
  the writer names their own child too (…，我家宝宝1岁: the other child's fill nothing); the
  writer's own value (after 我 / 本人) fills when nobody is named after it (我今年15岁，体重50公斤),
  none when another person is named after it (我今年二十九岁我奶奶…: the grandmother's question),
  and only until the patient's own value when a patient word follows it (我今年29岁，孩子3岁 → 3;
  我今年29岁，准备要个孩子 → 29);
* a Chinese numeral written right after Arabic digits (孩子2十八周岁) is no number;
* a full-width 。 between digits is a decimal point (PH6。0); a comma between 1–2 digits and 1–2
  digits is one only right after an analyte word (血钾5,3 = 5.3; 血脂5,3 stays 5 and 3).
"""

from __future__ import annotations

import re
from datetime import date
from operator import attrgetter

from ..built import builder
from ..lexicon import Hit, Hits
from ..numerals import LIMIT, SHORT, parse_digits, parse_number
from ..policy import Policy
from ..text import COMMA, SENTENCE_ENDS, TextViews
from . import ages, body, bounds, combined, dates, temperature_context, temperatures
from .draft import Draft, Grammar, Handler, masked
from .foods import food_in_clause, outside
from .result import SlotsResult
from .subjects import Subjects

_TERM, _PAYLOAD = attrgetter("term"), attrgetter("payload")
# The full-width full stop, the one sentence end NFKC keeps: between digits parents write it for
# a decimal point (PH6。0).
_STOP = "".join(ch for ch in SENTENCE_ENDS if not ch.isascii())
_POINTS = _STOP + COMMA  # what ``_decimals`` may read as a decimal point



def _on_pid(m: re.Match[str], d: Draft) -> None:
    token = d.cased[m.start() : m.end()]
    if token[0] == "P":
        d.ids[token] = None
    else:  # p0012 is not an ID; its digits are an ordinary number (unless too long to be one)
        value = parse_digits(token[1:])
        if value is not None:
            d.numbers.append({"value": value, "unit": None, "raw": token[1:]})


def _on_mid_half(m: re.Match[str], d: Draft) -> None:
    value = parse_number(d.text[m.start() : m.start("e")])
    if value is not None:
        unit = d.words.numbers.counter + m.group("mid_u")
        d.numbers.append({"value": value + 0.5, "unit": unit, "raw": d.cased[m.start() : m.end()]})


class SlotExtractor:
    def __init__(self, policy: Policy) -> None:
        slots, words = policy.slots, policy.slot_words
        self._measure_units = frozenset(slots.measure_units)
        self._weight_units = frozenset(words.body.weight_units)
        self._week_units = frozenset(words.dates.week_units)
        self._food_bound_units = frozenset(words.portions.food_bound_units)
        self._grammar = Grammar(words, body.weight_unit(words), dates.frequency(words))
        # Whether a text names a weight and a height (``body.measure_pairs``; most do not): one
        # search each, in C.
        self._weighs = re.compile("|".join(map(re.escape, words.body.weight_words))).search
        self._measures = re.compile("|".join(map(re.escape, words.body.pair_height_words))).search
        self._subjects = Subjects(words, frozenset(slots.age_child_words), slots.self_words, slots.self_not_inside)
        self._digit_analytes = frozenset(term for term in slots.analytes if any(ch.isdigit() for ch in term))
        kid_words = ages.kid_words(slots.patient_words, slots.age_child_words, words)
        unit_set = combined.units(words, slots.measure_units)
        self.unit_set = unit_set  # every unit a number may carry (tests/router/test_adversarial.py)
        pattern = combined.pattern(unit_set, kid_words, words)
        self._bounds = bounds.UpperBounds(kid_words, words)
        self._scan = pattern.finditer
        # The §4.7 cue words, read only when a body temperature is: a past or hypothetical reading
        # is not the child's temperature now.
        self._cues = policy.red_flags.context.lexicon.scan
        self._cue_patterns = policy.red_flags.context.patterns
        self._comma_decimal = re.compile(
            f"[ :={''.join(words.numbers.decimal_lead)}]{{0,2}}[0-9]{{1,2}}({re.escape(COMMA)})[0-9]{{1,2}}"
            f"(?![0-9.{re.escape(COMMA)}{''.join(words.numbers.decimal_not_before)}])"
        )
        self._handlers: dict[str, Handler] = (
            {"pid": _on_pid, "mid": _on_mid_half} | dates.HANDLERS | ages.HANDLERS | body.HANDLERS | temperatures.HANDLERS
        )
        # "q" and "bare", the most frequent kinds, are read in ``extract`` itself.
        # ``Match.lastindex`` is the index of the kind's closing empty group: a tuple indexed by it
        # finds the handler without the name lookup of ``lastgroup``.
        groups = pattern.groupindex
        # Indices that are no kind's closing group stay None: no match ends with one of them.
        table: list[Handler | None] = [None] * (max(groups.values()) + 1)
        for kind, handler in self._handlers.items():
            table[groups[kind]] = handler
        self._groups = (tuple(table), groups["bare"], groups["q"], groups["e"], groups["q_u"], groups["q_h"])

    def _read(self, views: TextViews, hits: Hits, reference_date: date) -> tuple[Draft, list[Hit]]:
        """The one scan: every quantity read into a ``Draft``, with the analyte words it kept."""
        analytes = hits.group("analyte")
        if analytes and "medicine" in hits:
            analytes = outside(analytes, hits.group("medicine"))
        digit_analytes = self._digit_analytes
        masks = [(h.start, h.end) for h in analytes if h.term in digit_analytes] if digit_analytes and analytes else []
        foods = hits.group("food")
        draft = Draft(views, reference_date, foods, masks, self._grammar)
        text, cased, numbers = views.text, views.cased, draft.numbers
        if (_STOP in text or COMMA in text) and _DECIMAL_HINT.search(text):
            text = draft.text = _decimals(text, analytes + hits.group("temperature") if "temperature" in hits else analytes, self._comma_decimal)
        if "other" in hits or "patient" in hits:
            self._subjects.read(draft, text, hits)
        if "temperature" in hits:
            draft.temperature_words = hits.group("temperature")
        handlers, bare, quantity, number_end, unit_group, half_group = self._groups
        measure_units, food_bound_units = self._measure_units, self._food_bound_units
        # A bare number and a number with its unit are most of what a message holds: they are read
        # here, without a handler and a ``Draft.quantity`` call each (1 µs of 23 on the bench MESSAGE).
        for m in self._scan(text):
            kind = m.lastindex
            if kind == bare:  # ASCII digits only: parse_number's own branch, inlined
                start, stop = m.span()
                token = text[start:stop]
                value = (float(token) if "." in token else int(token)) if len(token) <= SHORT else parse_digits(token)
                if value is not None and value < LIMIT and not (masks and masked(masks, start)):
                    numbers.append({"value": value, "unit": None, "raw": cased[start:stop]})
                    if type(value) is float and 35 <= value <= 43 and not draft.others(start):
                        draft.replies[start] = value  # 38.5 alone: temperatures.reply_readings decides
            elif kind == quantity:  # Draft.quantity inlined; the unit always matched, 半 may follow it
                start, stop = m.start(), m.start(number_end)
                token = text[start:stop]
                if "0" <= token[0] <= "9" and len(token) <= SHORT:
                    value = float(token) if "." in token else int(token)
                    if value >= LIMIT:
                        continue
                else:
                    value = parse_number(token)
                    if value is None or (start and "0" <= text[start - 1] <= "9"):
                        continue  # 2十八: digits and numerals mixed are no number
                if masks and masked(masks, start):
                    continue
                unit_start, unit_end = m.span(unit_group)
                half_start, end = m.span(half_group)
                if half_start >= 0:
                    value += 0.5
                else:
                    end = unit_end
                numbers.append({"value": value, "unit": cased[unit_start:unit_end], "raw": cased[start:end]})
                unit = text[unit_start:unit_end]
                if unit in measure_units and (unit not in food_bound_units or food_in_clause(draft, m)):
                    draft.measures.append(len(numbers) - 1)
                elif unit in self._weight_units:
                    body.bare_weight(draft, start, value, unit)
                elif unit in self._week_units and draft.window is None and dates.is_bare_span(draft, m):
                    if not draft.others(start):
                        draft.window = dates.round_half_up(value * 7)
            else:
                # A match ends with a kind's closing group, and every kind not read above has a handler.
                assert kind is not None
                handler = handlers[kind]
                assert handler is not None
                handler(m, draft)
        return draft, analytes

    def values(self, views: TextViews, hits: Hits) -> Values:
        """The child's age and current temperature as ``extract`` reads them: the one reader of
        each, which the red flags take too (an infant's fever, SPEC §4.7 revision 3). The date only
        resolves dates, never an age or a temperature."""
        draft, analytes = self._read(views, hits, _ANY_DAY)
        self.finish(draft, analytes)
        return Values(draft, self._bounds)

    def finish(self, draft: Draft, analytes: list[Hit]) -> None:
        """What is read after the scan: the readings without a unit or a word, then the child's
        current temperature among them. Once per draft: the red flags and the slots share it."""
        if draft.finished:
            return
        draft.finished = True
        if draft.age_provisional:
            ages.settle_writer(draft)
        if draft.temperature_words:
            temperatures.unitless_readings(draft)
        if draft.replies:
            temperatures.reply_readings(draft, analytes)
        if draft.readings:
            draft.temperature = temperature_context.temperature(draft, self._cues, self._cue_patterns)

    def reading(self, reference_date: date) -> Reading:
        """One request's read, shared by the red flags' age question and ``Reading.extract``."""
        return Reading(self, reference_date)

    def extract(
        self, views: TextViews, hits: Hits, reference_date: date, policy_version: str,
        read: tuple[Draft, list[Hit]] | None = None,
    ) -> SlotsResult:
        """``read``: what ``_read`` gave for these views, hits and date, when it ran already."""
        draft, analytes = read or self._read(views, hits, reference_date)
        foods, numbers = draft.foods, draft.numbers
        self.finish(draft, analytes)
        temperature = draft.temperature
        if (draft.weight is None or draft.height is None) and self._weighs(draft.text) and self._measures(draft.text):
            body.measure_pairs(draft)
        # Most texts name no meal, food or analyte: an empty list without the map and dict to dedupe it.
        meal_hits = hits.get("meal")
        meals = list(dict.fromkeys(map(_PAYLOAD, meal_hits))) if meal_hits else []
        ambiguous = []
        if len(draft.ids) > 1:
            ambiguous.append("patient_id")
        if len(meals) > 1:
            ambiguous.append("meal")
        return _build_result(
            {
                "patient_id": next(iter(draft.ids)) if len(draft.ids) == 1 else None,
                "food": list(dict.fromkeys(map(_TERM, foods))) if foods else [],
                "analyte": list(dict.fromkeys(map(_PAYLOAD, analytes))) if analytes else [],
                "date": list(draft.dates),
                "number": numbers,
                "age_years": draft.age,
                "weight_kg": draft.weight,
                "height_cm": draft.height,
                "temperature_c": temperature,
                "time_window_days": draft.window,
                "meal": meals[0] if len(meals) == 1 else None,
                "measure": [numbers[i] for i in draft.measures] if draft.measures else [],  # a measure is one of the numbers
                "ambiguous": ambiguous,
                "approximate": _approximate(draft, temperature),
                "policy_version": policy_version,
            }
        )


class Values:
    """What the gate takes from the slot readers (SPEC §4.7 revision 3, "One reading of every
    value"): the child's age, the current temperature and where its reading starts (-1: none), every
    reading read (a past or hypothetical one too), and
    on demand the lowest upper bound of the age in days (``bounds.UpperBounds``: 不到3个月, 新生儿)."""

    __slots__ = ("age", "temperature", "temperature_at", "readings", "_draft", "_bounds")

    def __init__(self, draft: Draft, bounds: bounds.UpperBounds) -> None:
        self.age, self.temperature, self.temperature_at = draft.age, draft.temperature, draft.temperature_at
        self.readings = draft.readings  # every body temperature read, current or not, by where it starts
        self._draft, self._bounds = draft, bounds

    def age_below(self) -> float | None:
        return self._bounds.bound(self._draft)


class Reading:
    """The slots of one request, read once. The red flags take the child's age and temperature
    (SPEC §4.7 revision 3) before the slots are built, and ``extract`` reuses that read. The date
    changes the dates read, never the age or the temperature."""

    __slots__ = ("_extractor", "_reference", "_views", "_hits", "_read")

    def __init__(self, extractor: SlotExtractor, reference_date: date) -> None:
        self._extractor, self._reference = extractor, reference_date
        self._views: TextViews | None = None
        self._hits: Hits | None = None
        self._read: tuple[Draft, list[Hit]] | None = None

    def values(self, views: TextViews, hits: Hits) -> Values:
        self._views, self._hits = views, hits
        self._read = read = self._extractor._read(views, hits, self._reference)
        self._extractor.finish(*read)
        return Values(read[0], self._extractor._bounds)

    def extract(self, views: TextViews, hits: Hits, policy_version: str) -> SlotsResult:
        read = self._read if views is self._views and hits is self._hits else None
        return self._extractor.extract(views, hits, self._reference, policy_version, read)


def _decimals(text: str, analytes: list[Hit], comma_decimal: re.Pattern[str]) -> str:
    """Decimal points written another way, rewritten in place (the same length, so spans still
    slice ``cased``): a full-width 。 between digits (PH6。0; not after a number that has a point
    already: 38.4。10日), and a comma between digits right
    after an analyte word, a colon or a blank between (血钾5,3 → 5.3, 血钾：5,3). Any other comma
    between digits stays a separator: 血脂5,3 is 5 and 3 (血脂 is not an analyte of the
    dictionary, and a list is as likely), and so are 血钾5,3,4 and 血钾5,3天前."""
    points: list[int] = []
    index = text.find(_STOP)
    while index != -1:  # a handful of sentence ends: a look at each, not a regex pass
        if 0 < index < len(text) - 1 and "0" <= text[index - 1] <= "9" and "0" <= text[index + 1] <= "9" and not _has_point(text, index):
            points.append(index)
        index = text.find(_STOP, index + 1)
    if COMMA in text:
        for hit in analytes:  # one anchored match after each analyte word
            m = comma_decimal.match(text, hit.end)
            if m:
                points.append(m.start(1))
    if not points:
        return text
    chars = list(text)
    for index in points:
        chars[index] = "."
    return "".join(chars)


def _has_point(text: str, end: int) -> bool:
    """The number that ends at ``end`` has a decimal point already (体温39.2。3号下午: the 。 ends a
    sentence, it is no second point)."""
    start = end - 1
    while start > 0 and "0" <= text[start - 1] <= "9":
        start -= 1
    return start > 1 and text[start - 1] == "." and "0" <= text[start - 2] <= "9"


def _approximate(draft: Draft, temperature: float | None) -> list[str]:
    """The slots filled with a lower bound (两岁多, 16斤多, 39度多), in the result's order."""
    return [
        name
        for name, value, rough in (
            ("age_years", draft.age, draft.age_approximate),
            ("weight_kg", draft.weight, draft.weight_approximate),
            ("temperature_c", temperature, draft.temperature_approximate),
        )
        if rough and value is not None
    ]


_build_result = builder(SlotsResult)
_ANY_DAY = date(2000, 1, 1)
_DECIMAL_HINT = re.compile(f"[0-9][{_POINTS}][0-9]")  # where ``_decimals`` could change anything at all
