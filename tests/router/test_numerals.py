"""The project's own Chinese-numeral converter (app/router/numerals.py), one row per spelling.

A refusal (``None``) is as much a result as a number: 三四 is "three or four", never 34.
"""

from __future__ import annotations

import pytest

from app.router.numerals import parse_chinese, parse_number

ACCEPTED = [
    ("single digit 三 → 3", "三", 3),
    ("两 alone → 2", "两", 2),
    ("零 alone → 0", "零", 0),
    ("bare 十 → 10", "十", 10),
    ("十二 → 12", "十二", 12),
    ("二十 → 20", "二十", 20),
    ("二十五 → 25", "二十五", 25),
    ("formal 一十五 → 15", "一十五", 15),
    ("一百二十 → 120", "一百二十", 120),
    ("两百 → 200", "两百", 200),
    ("一百零五 → 105 (零 marks the skipped ten)", "一百零五", 105),
    ("一千零五十 → 1050", "一千零五十", 1050),
    ("spoken short form 一百二 → 120", "一百二", 120),
    ("spoken short form 一千五 → 1500", "一千五", 1500),
    ("两万 → 20000", "两万", 20000),
    ("十万 → 100000", "十万", 100000),
    ("一万五千 → 15000", "一万五千", 15000),
    ("spoken short form 两万三 → 23000", "两万三", 23000),
    ("一万零五 → 10005", "一万零五", 10005),
    ("零点五 → 0.5", "零点五", 0.5),
    ("三点五 → 3.5", "三点五", 3.5),
    ("三点一四 → 3.14 (decimals read digit by digit)", "三点一四", 3.14),
    ("十二点五 → 12.5", "十二点五", 12.5),
    ("半 → 0.5", "半", 0.5),
]

REFUSED = [
    ("三四 is a range, not 34", "三四"),
    ("一二 is a range, not 12", "一二"),
    ("一两 is 'one or two', not 12", "一两"),
    ("二零二六 is a year read digit by digit", "二零二六"),
    ("十两: 两 is never a last digit", "十两"),
    ("两十: 两 never counts tens", "两十"),
    ("一百十: a bare 十 only opens a numeral", "一百十"),
    ("一千五十: a skipped place needs 零", "一千五十"),
    ("十零五: 零 where no place is skipped", "十零五"),
    ("一百零: trailing 零", "一百零"),
    ("零零五: doubled 零", "零零五"),
    ("零五: leading 零", "零五"),
    ("十百: places out of order", "十百"),
    ("百: a place without a digit", "百"),
    ("点五: no integer part", "点五"),
    ("三点: no decimals", "三点"),
    ("三点两: 两 is not a decimal digit", "三点两"),
    ("一万万: no 亿 in a nutrition message", "一万万"),
    ("empty string", ""),
    ("a character that is no numeral", "三个"),
]


@pytest.mark.parametrize(("numeral", "expected"), [r[1:] for r in ACCEPTED], ids=[r[0] for r in ACCEPTED])
def test_accepted(numeral: str, expected: int | float) -> None:
    value = parse_chinese(numeral)
    assert value == expected
    assert type(value) is type(expected)


@pytest.mark.parametrize("numeral", [r[1] for r in REFUSED], ids=[r[0] for r in REFUSED])
def test_refused(numeral: str) -> None:
    assert parse_chinese(numeral) is None


ARABIC = [
    ("integral spelling stays an int", "120", 120),
    ("leading zeros are dropped", "0012", 12),
    ("a fractional spelling is a float", "1.2", 1.2),
    ("5.0 stays a float: the value is kept as written", "5.0", 5.0),
    ("a Chinese token goes to the converter", "十二", 12),
    ("15 digits are still a number", "999999999999999", 999999999999999),
]

IDENTIFIERS = [
    ("16 digits are an identifier, not a quantity", "1000000000000000"),
    ("a decimal beyond float range is refused", "1" * 400 + ".5"),
]


@pytest.mark.parametrize("token", [r[1] for r in IDENTIFIERS], ids=[r[0] for r in IDENTIFIERS])
def test_parse_number_refuses_identifiers(token: str) -> None:
    assert parse_number(token) is None


@pytest.mark.parametrize(("token", "expected"), [r[1:] for r in ARABIC], ids=[r[0] for r in ARABIC])
def test_parse_number(token: str, expected: int | float) -> None:
    value = parse_number(token)
    assert value == expected
    assert type(value) is type(expected)
