"""Chinese numerals → numbers, for the number + unit spans the slot extractor captures (SPEC §4.4).

Our own converter, small on purpose: a general-purpose library (cn2an) reads 三四天 ("three or four
days") as 34天, a guess the router must never make. This one accepts the positional forms people
write in a clinic message and refuses everything else:

* 三 → 3, 十二 → 12, 二十五 → 25, 一百二十 → 120, 一百零五 → 105, 两万三千 → 23000;
* the spoken short forms 一百二 → 120, 一千五 → 1500, 两万三 → 23000 (a last digit right after
  百 / 千 / 万 counts one place lower, as every speaker reads it);
* decimals 三点五 → 3.5, 零点五 → 0.5 (digits after 点 are read one by one);
* 半 → 0.5 (the extractor only passes it when a unit follows directly: 半碗, 半个月);
* 俩, the spoken 两个, alone → 2 (俩个月: parents write it with 个 as often as without).

Refused (``None``): digit runs without a place word (三四, 一二, 二零二六 — ranges, or a year read
digit by digit), places out of order (十百), a gap of places without 零 (一千五十), 零 where no
place is skipped (十零五), a trailing or doubled 零, 两 anywhere but before 百 / 千 / 万 or alone
(十两, 两十), more than one 万 (no 亿 in a nutrition message).
"""

from __future__ import annotations

import unicodedata
from functools import lru_cache

_DIGITS = {"零": 0, "〇": 0, "一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9}
_PLACES = {"十": 10, "百": 100, "千": 1000}
_ZEROS = frozenset("零〇")
_MYRIAD = "万"
_POINT = "点"
HALF = "半"
_PAIR = "俩"  # a numeral of its own only alone: 俩十 and 十俩 are no numbers

# Every character a numeral may be written with (for the extractor's regex class); 半 stands alone.
CHARS = "".join(_DIGITS) + "".join(_PLACES) + _MYRIAD + _POINT + _PAIR


# No quantity in a nutrition message comes near this; a float holds every integer below it exactly,
# so the extractor's arithmetic (斤 × 0.5, months ÷ 12) can neither overflow nor round.
LIMIT = 10**15


# Tokens up to this long are converted directly; a longer one has its whole part measured first.
SHORT = 16


def parse_number(token: str) -> int | float | None:
    """An ASCII-digit number (``120``, ``1.2``) or a Chinese numeral; ``None`` when refused.

    An integral spelling stays an ``int``; a spelling with a fractional part is a ``float``, even
    ``5.0`` (the value is kept as written). A run of 16 or more digits is refused: it is an
    identifier, not a quantity.
    """
    if "0" <= token[:1] <= "9":
        return parse_digits(token)
    return parse_chinese(token)


def parse_digits(token: str) -> int | float | None:
    """Decimal digits (any script's: the critical-value scan reads Unicode digits) with an optional
    fraction; ``None`` at or above ``LIMIT``.

    A long token is refused by the length of its whole part before any conversion: ``int()`` of a
    digit string costs the square of its length and raises past 4,300 digits (a 10,000-digit text
    crashed the extractor).
    """
    if len(token) > SHORT:
        whole, point, fraction = token.partition(".")
        lead = 0
        while lead < len(whole) - 1 and unicodedata.decimal(whole[lead], None) == 0:
            lead += 1  # leading zeros do not make a number larger
        if len(whole) - lead > SHORT:
            return None
        token = whole[lead:] + point + fraction
    value = float(token) if "." in token else int(token)
    return value if value < LIMIT else None


@lru_cache(maxsize=512)
def parse_chinese(numeral: str) -> int | float | None:
    if numeral == HALF:
        return 0.5
    if numeral == _PAIR:
        return 2
    whole, point, fraction = numeral.partition(_POINT)
    value = _integer(whole)
    if not point:
        return value
    if value is None or not fraction or any(ch not in _DIGITS or ch == "两" for ch in fraction):
        return None
    return float(f"{value}." + "".join(str(_DIGITS[ch]) for ch in fraction))


def _integer(numeral: str) -> int | None:
    if not numeral:
        return None
    if numeral in _ZEROS:
        return 0
    high, myriad, low = numeral.partition(_MYRIAD)
    if not myriad:
        return _section(numeral, above=None)
    if _MYRIAD in low:
        return None
    upper = _section(high, above=None)
    if upper is None:
        return None
    if not low:
        return upper * 10_000
    lower = _section(low, above=10_000)
    return None if lower is None else upper * 10_000 + lower


def _section(numeral: str, above: int | None) -> int | None:
    """A run of (digit, place) terms below 10,000; ``above`` is the place already read before it.

    ``above`` is 10,000 for the part after 万: it may then open with 零 (一万零五) and a lone last
    digit counts thousands (两万三).
    """
    value = 0
    last = above  # the place of the latest term: places must strictly decrease
    digit: int | None = None
    liang = False  # the pending digit was written 两
    zero = False  # a 零 since the latest term
    for index, ch in enumerate(numeral):
        if ch in _ZEROS:
            if digit is not None or zero or last is None:
                return None
            zero = True
        elif ch in _DIGITS:
            if digit is not None:
                return None  # 三四: two digits side by side are a range, not a number
            digit, liang = _DIGITS[ch], ch == "两"
        elif ch in _PLACES:
            place = _PLACES[ch]
            if digit is None:
                if place != 10 or index != 0 or above is not None:
                    return None  # a bare 十 opens a numeral (十二), nowhere else
                digit = 1
            if liang and place == 10:
                return None  # 两十
            if last is not None and not _follows(last, place, zero):
                return None
            value += digit * place
            last, digit, liang, zero = place, None, False, False
        else:
            return None
    if digit is None:
        return None if zero else value
    if last is None:
        return digit
    if liang:
        return None  # 十两, 一百零两: 两 is never a last digit
    if zero:
        return value + digit if _follows(last, 1, zero) else None
    if last == 10:
        return value + digit
    return value + digit * (last // 10)  # 一百二 = 120, 两万三 = 23000


def _follows(last: int, place: int, zero: bool) -> bool:
    """A term may follow the previous one directly (百 then 十) or after 零 across a gap (千零五)."""
    return last > place * 10 if zero else last == place * 10
