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
from ..numerals import CHARS, LIMIT, SHORT, parse_digits, parse_number
from ..policy import Policy
from ..text import TextViews
from . import ages, body, bounds, dates, temperature_context, temperatures
from .draft import METRE, OTHER, PATIENT, WRITER, Draft, Handler, masked
from .foods import FOOD_BOUND_UNITS, food_in_clause, outside
from .result import SlotsResult

# ---------------------------------------------------------------------------------------------
# The combined pattern.
#
# Shape: one character class of every character a slot can start with, then one branch per slot
# kind, each guarded by a look-behind on that first character and closed by an empty group named
# after the kind (so ``Match.lastgroup`` is the kind and ``Match.lastindex`` its index). The
# leading class lets sre skip every other character in C; branches that opened with a capturing
# group would be tried one by one at every position instead (8× slower on a 100-character
# message). A number-led branch has no group for its number: the number runs from the match
# start to the empty group ``e``.
# ---------------------------------------------------------------------------------------------


# Units a number may carry besides the policy's measure units; folded like the text view.
# 日 and 号 are left out on purpose: 3日 is a day of the month as often as a duration.
_BASE_UNITS = (
    "mmol/l", "μmol/l", "umol/l", "mg/dl", "g/dl", "mg/l", "g/l", "ml/min/1.73m2", "ml/min", "mg/kg", "g/kg",
    "kcal", "mmhg", "kg", "mg", "ml", "cm", "mm", "m2", "g", "l", "m", "h", "min", "%", "°c",
    "个小时", "个钟头", "个星期", "个礼拜", "个月", "个", "小时", "钟头", "分钟", "秒", "天", "周岁", "周", "星期",
    "礼拜", "月", "年", "岁", "次", "回", "顿", "期", "度", "公斤", "千克", "毫克", "微克", "克", "斤", "两", "毫升",
    "升", "厘米", "公分", "毫米", "碗", "勺", "汤匙", "茶匙", "杯", "片", "块", "根", "盒", "袋", "包", "瓶", "粒",
    "颗", "只", "条", "份", "口", "千卡", "大卡", "卡",
)
_TERM, _PAYLOAD, _START = attrgetter("term"), attrgetter("payload"), attrgetter("start")
# Where each family's branches sit among the others: at one position, the first branch that fits
# wins (a date before a plain number, an age in months before a portion of 个).
_TAIL_ORDER = ("md", "ago", "wsuf", "msum", "msub", "yweek", "kage", "amon", "lage", "age", "wt2", "jl", "mid", "metre", "temp", "q")
_LED_ORDER = ("pid", "num", "win", "mage", "yage", "kid", "born", "full", "now", "pro", "wt", "ht", "rel")


def _unit_pattern(units: set[str]) -> str:
    """Longest unit first. A unit ending in an ASCII letter must not run into another letter (kg,
    not kgs); the others form a trie, so a bare number fails on one character class instead of
    trying ninety units one by one."""
    guarded = sorted((u for u in units if u[-1].isascii() and u[-1].isalpha()), key=len, reverse=True)
    plain = {u for u in units if u not in guarded and u != "米"}
    parts = [_trie(plain), "|".join(re.escape(u) + "(?![a-z])" for u in guarded)]
    if "米" in units:
        parts.insert(0, METRE)
    return "|".join(p for p in parts if p)


def _trie(words: set[str]) -> str:
    heads: dict[str, set[str]] = {}
    for word in words:
        heads.setdefault(word[0], set()).add(word[1:])
    branches, singles = [], []
    for head, tails in sorted(heads.items()):
        longer = {t for t in tails if t}
        if not longer:
            singles.append(re.escape(head))
            continue
        branches.append(re.escape(head) + _trie(longer) + ("?" if "" in tails else ""))
    if singles:
        branches.append(f"[{''.join(singles)}]")
    return "(?:" + "|".join(branches) + ")"


# A numeral right after 老 is a child's rank, not a number: 老二两岁 is 两岁 of the second child, not 二两.
#
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


def _pattern(unit_set: set[str], kid_words: tuple[str, ...]) -> re.Pattern[str]:
    units = _unit_pattern(unit_set)
    kids = "|".join(re.escape(w) for w in sorted(kid_words, key=len, reverse=True))
    tails = (
        dates.TAILS
        | ages.tails(units, kids)
        | body.TAILS
        | temperatures.TAILS
        | {
            "mid": "个半(?P<mid_u>月|小时|钟头|星期|礼拜)",  # 一个半月 = 1.5 个月, not 一个 + 半月
            "q": f"(?P<q_u>{units})(?P<q_h>半(?!{units}))?",
        }
    )
    unit_tails = {kind: tails[kind] for kind in _TAIL_ORDER}
    # After a number that starts at the match start, in order of precedence: a date, then the
    # tails that open with optional blanks and a unit word, then a bare Arabic number.
    #
    # Every character a unit tail can open with (the words above, then the units). The blanks are
    # read once for all unit tails, and the look-ahead on this class sends a number followed by
    # anything else straight to the bare-number branch: the scan takes a fifth less time on
    # bench/router_bench.py's MESSAGE, a quarter less on longer texts. The matches are those of one
    # ``[ \t]*`` per tail, since no tail but ``q`` can open with a blank (a policy unit might), so
    # only the longest run of blanks can lead into any other tail, and ``q`` is tried last.
    openers = set("月天周个星礼年岁公千k斤米m度°多几") | {u[0] for u in unit_set}
    number_tails = (
        f"{dates.DATE_TAIL}(?P<ymd>)"
        f"|[ \\t]*(?=[{''.join(re.escape(ch) for ch in sorted(openers))}])(?:"
        + "|".join(f"{tail}(?P<{kind}>)" for kind, tail in unit_tails.items())
        + ")"
        + "|(?<=[0-9])(?P<bare>)"  # an Arabic number needs no unit; a Chinese one does
    )
    branches_by_kind = (
        dates.LED
        | ages.led_branches(kid_words)
        | body.LED
        | {
            "pid": ("p", r"(?<![a-z0-9]p)[0-9]{4,}"),
            "num": (
                f"0-9{CHARS}半",
                # 2026.3.5 is a date: no decimal part when another dot and digit follow it.
                f"(?:(?<=[0-9])[0-9]*(?:\\.[0-9]+(?!\\.[0-9]))?|(?<=[{CHARS}])(?<!老[{CHARS}]){RUN_OPENING}[{CHARS}]*{numeral_end(unit_set)}|(?<=半))(?P<e>)(?:"
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
        unit = "个" + m.group("mid_u")
        d.numbers.append({"value": value + 0.5, "unit": unit, "raw": d.cased[m.start() : m.end()]})


class SlotExtractor:
    def __init__(self, policy: Policy) -> None:
        slots = policy.slots
        self._measure_units = frozenset(slots.measure_units)
        # Child words that are also other-person words (侄子, 侄女, policy [slots] age_child_words): for
        # slots, the child the text asks about (a red flag of theirs stays another person's, §4.7).
        self._kin_children = frozenset(slots.age_child_words)
        self._digit_analytes = frozenset(term for term in slots.analytes if any(ch.isdigit() for ch in term))
        kid_words = ages.kid_words(slots.patient_words, slots.age_child_words)
        pattern = _pattern(set(_BASE_UNITS) | set(slots.measure_units), kid_words)
        self._bounds = bounds.UpperBounds(kid_words)
        self._scan = pattern.finditer
        # The §4.7 cue words, read only when a body temperature is: a past or hypothetical reading
        # is not the child's temperature now.
        self._cues = policy.red_flags.context.lexicon.scan
        self._cue_patterns = policy.red_flags.context.patterns
        # The writer's words (我, 本人) as subjects of a value; the words that hide one (我们, 我觉得)
        # come first and match without a group. 自己 is left out: a reflexive after a subject
        # (孩子自己) names no new one.
        hiders = sorted(slots.self_not_inside, key=len, reverse=True)
        selves = sorted((w for w in slots.self_words if w != "自己"), key=len, reverse=True)
        self._selves = tuple(selves)
        self._writers = re.compile(
            "|".join(map(re.escape, hiders)) + f"|({'|'.join(map(re.escape, selves))})"
            if hiders
            else f"({'|'.join(map(re.escape, selves))})"
        ).finditer
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
        draft = Draft(views, reference_date, foods, masks)
        text, cased, numbers = views.text, views.cased, draft.numbers
        if ("。" in text or "," in text) and _DECIMAL_HINT.search(text):
            text = draft.text = _decimals(text, analytes + hits.group("temperature") if "temperature" in hits else analytes)
        if "other" in hits or "patient" in hits:
            patients, others = hits.group("patient"), hits.group("other")
            if others and self._kin_children:  # 我七岁的侄子: a relative's child is a child
                patients = sorted(patients + [h for h in others if h.term in self._kin_children], key=_START)
                others = [h for h in others if h.term not in self._kin_children]
            if patients and others:  # 朋友 inside 小朋友 is the patient word, not a friend
                others = _not_inside(others, patients)
            if patients and others and any(h.term.startswith("我") for h in patients):
                # 同事的孩子烧到39度，我家宝宝1岁: with the writer's own child named, another person's child is
                # another child, whose values fill nothing (LABELS.md: other people's values never fill).
                theirs = _governed(text, patients, others)
                if theirs:
                    others = sorted(others + [h for h in patients if h.start in theirs], key=_START)
                    patients = [h for h in patients if h.start not in theirs]
            if patients and "大" in text:
                elders = [h for h in patients if h.term in _ELDER or (h.term in _CHILD_NOUNS and text.endswith(("大", "大的"), 0, h.start))]
                if elders and _two_children(text, elders[0].end):  # 大宝今年12岁，他也…: the other child
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
        if "temperature" in hits:
            draft.temperature_words = hits.group("temperature")
        handlers, bare, quantity, number_end, unit_group, half_group = self._groups
        measure_units = self._measure_units
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
                if unit in measure_units and (unit not in FOOD_BOUND_UNITS or food_in_clause(draft, m)):
                    draft.measures.append(len(numbers) - 1)
                elif unit in body.WEIGHT_UNITS:
                    body.bare_weight(draft, start, value, unit)
                elif unit in dates.WEEK_UNITS and draft.window is None and dates.is_bare_span(draft, m):
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
        if (draft.weight is None or draft.height is None) and "体重" in views.text and ("身高" in views.text or "身长" in views.text):
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


# An elder child of several (大宝, 老大, 大儿子, 大的孩子) is another child than the one the text asks
# about when it names two children (老二, 小的, 两个孩子) or says the other one too (大宝5岁，她也…):
# the elder's values fill nothing (evals/peds/LABELS.md: 老大8岁 when the patient is 老二).
_ELDER = frozenset({"大宝", "老大"})
_CHILD_NOUNS = frozenset({"儿子", "女儿", "孩子", "小孩", "宝宝", "闺女", "宝"})
_TWO_CHILDREN = re.compile("二宝|老二|小宝|小的|二胎|小儿子|小女儿|(?:两个|俩|二个)(?:小孩|孩子|宝宝|娃|宝)")
_ALSO = re.compile("[他她][^,。!?;\n]{0,6}也")


def _two_children(text: str, after: int) -> bool:
    """Whether the text names a second child (``_TWO_CHILDREN``), or says of the elder after it that
    it too (``_ALSO``)."""
    return _TWO_CHILDREN.search(text) is not None or _ALSO.search(text, after) is not None


def _governed(text: str, patients: list[Hit], others: list[Hit]) -> set[int]:
    """Where the patient words start that another person's word governs (同事的孩子, 表哥家孩子), other
    than the writer's own (我家宝宝)."""
    after = {h.end for h in others} | {h.end + 1 for h in others if text.startswith(("的", "家"), h.end)}
    return {h.start for h in patients if h.start in after and not h.term.startswith("我")}


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


def _decimals(text: str, analytes: list[Hit]) -> str:
    """Decimal points written another way, rewritten in place (the same length, so spans still
    slice ``cased``): a full-width 。 between digits (PH6。0; not after a number that has a point
    already: 38.4。10日), and a comma between digits right
    after an analyte word, a colon or a blank between (血钾5,3 → 5.3, 血钾：5,3). Any other comma
    between digits stays a separator: 血脂5,3 is 5 and 3 (血脂 is not an analyte of the
    dictionary, and a list is as likely), and so are 血钾5,3,4 and 血钾5,3天前."""
    points: list[int] = []
    index = text.find("。")
    while index != -1:  # a handful of sentence ends: a look at each, not a regex pass
        if 0 < index < len(text) - 1 and "0" <= text[index - 1] <= "9" and "0" <= text[index + 1] <= "9" and not _has_point(text, index):
            points.append(index)
        index = text.find("。", index + 1)
    if "," in text:
        for hit in analytes:  # one anchored match after each analyte word
            m = _COMMA_DECIMAL.match(text, hit.end)
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
_DECIMAL_HINT = re.compile("[0-9][。,][0-9]")  # where ``_decimals`` could change anything at all
_COMMA_DECIMAL = re.compile("[ :=是为在到]{0,2}[0-9]{1,2}(,)[0-9]{1,2}(?![0-9.,天个次岁周月年号日点])")
