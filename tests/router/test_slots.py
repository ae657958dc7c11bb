"""extract_slots (SPEC §4.4): one row per phrasing, table-driven; never a guess.

Each row names the fields it is about and their exact expected values; a refusing row expects
null or an empty list, and a correct refusal counts as much as a correct reading. Quantities are
compared with their value's type (120 is an int, 5.0 a float), since "keep the value as written"
is part of the contract. Relative dates resolve against a fixed Tuesday, 2026-03-10.
"""

from __future__ import annotations

from datetime import date

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import TypeAdapter, ValidationError

from app.router.slots import Quantity, SlotExtractor, SlotsResult
from app.router.text import views

REFERENCE = date(2026, 3, 10)  # a Tuesday


def q(value: int | float, unit: str | None, raw: str) -> dict:
    return {"value": value, "unit": unit, "raw": raw}


def typed(quantities: list[dict]) -> list[tuple]:
    return [(type(x["value"]).__name__, x["value"], x["unit"], x["raw"]) for x in quantities]


ROWS = [
    # --- Chinese numerals, only before a unit ---------------------------------------------------
    ("numeral 三 before a unit → 3", "吃了三天", {"number": [q(3, "天", "三天")]}),
    ("numeral 十二 before 岁 → 12", "十二岁", {"number": [q(12, "岁", "十二岁")], "age_years": 12.0}),
    ("numeral 一百二十 before 克 → 120", "米饭一百二十克",
     {"number": [q(120, "克", "一百二十克")], "measure": [q(120, "克", "一百二十克")]}),
    ("numeral 两 before 碗 → 2", "两碗粥", {"number": [q(2, "碗", "两碗")], "measure": [q(2, "碗", "两碗")]}),
    ("numeral 二十五 before 毫升 → 25", "喝了二十五毫升", {"number": [q(25, "毫升", "二十五毫升")]}),
    ("numeral 零点五 → 0.5", "零点五克盐", {"number": [q(0.5, "克", "零点五克")]}),
    ("numeral 三点五 → 3.5", "三点五公斤", {"number": [q(3.5, "公斤", "三点五公斤")]}),
    ("半 directly before a unit → 0.5", "半碗米饭", {"number": [q(0.5, "碗", "半碗")], "measure": [q(0.5, "碗", "半碗")]}),
    ("trailing 半 after a unit adds 0.5", "两碗半", {"number": [q(2.5, "碗", "两碗半")], "measure": [q(2.5, "碗", "两碗半")]}),
    ("一个半月 is 1.5 months, not a 个 portion", "吃了一个半月", {"number": [q(1.5, "个月", "一个半月")], "measure": []}),
    ("半 without a unit is no number", "吃了一半", {"number": []}),
    ("Chinese numeral without a unit is no number", "一起吃饭", {"number": []}),
    ("三四天 is a range: not 34, not 4, no window", "三四天没吃肉", {"number": [], "time_window_days": None}),
    ("一两个 is a range: no number, no measure", "吃一两个鸡蛋", {"number": [], "measure": [], "food": ["鸡蛋"]}),
    ("两三天前 is a range: no date", "两三天前", {"date": [], "number": []}),
    # --- number: every number, value / unit / raw as written ------------------------------------
    ("Arabic number always, unit null", "血钾5.2", {"number": [q(5.2, None, "5.2")], "analyte": ["potassium"]}),
    ("number keeps unit and raw as written", "K 6.8 mmol/L",
     {"number": [q(6.8, "mmol/L", "6.8 mmol/L")], "analyte": ["potassium"]}),
    ("μmol/L unit (micro sign folded by NFKC)", "肌酐120µmol/L", {"number": [q(120, "μmol/L", "120μmol/L")]}),
    ("5.0 keeps its decimal", "5.0克", {"number": [q(5.0, "克", "5.0克")]}),
    ("full-width digits are ASCII after NFKC", "３碗", {"number": [q(3, "碗", "3碗")]}),
    ("ASCII unit as written, compared folded", "100G", {"number": [q(100, "G", "100G")], "measure": [q(100, "G", "100G")]}),
    ("every number in text order", "每天3次，每次2片",
     {"number": [q(3, "次", "3次"), q(2, "片", "2片")], "measure": [q(2, "片", "2片")]}),
    ("digit inside an analyte word is no number", "HCO3 22", {"analyte": ["bicarbonate"], "number": [q(22, None, "22")]}),
    ("blanks and a tab between a number and its unit", "每天3 次，每次 2\t片",
     {"number": [q(3, "次", "3 次"), q(2, "片", "2\t片")], "measure": [q(2, "片", "2\t片")]}),
    ("blanks then no unit: a bare number", "血钾 5.2 偏高", {"number": [q(5.2, None, "5.2")]}),
    ("blanks before a unit, 半 after it", "两 碗半米饭", {"number": [q(2.5, "碗", "两 碗半")], "measure": [q(2.5, "碗", "两 碗半")]}),
    ("blanks before 个月大: months of age", "3 \t个月大", {"number": [q(3, "个月", "3 \t个月")], "age_years": 0.25}),
    ("blanks before 岁", "5  岁", {"number": [q(5, "岁", "5  岁")], "age_years": 5.0}),
    # --- 斤: body weight vs food measure --------------------------------------------------------
    ("斤 of body weight → kg", "体重30斤", {"weight_kg": 15.0, "number": [q(30, "斤", "30斤")], "measure": []}),
    ("重 … 斤 is a body weight", "孩子重36斤", {"weight_kg": 18.0}),
    ("斤重 after the number is a body weight", "宝宝30斤重", {"weight_kg": 15.0}),
    ("体重 with kg → weight_kg", "体重 15.5 kg", {"weight_kg": 15.5, "number": [q(15.5, "kg", "15.5 kg")]}),
    ("体重是 + Chinese numeral 公斤", "体重是十八公斤", {"weight_kg": 18.0}),
    ("体重 with 千克", "体重20千克", {"weight_kg": 20.0}),
    ("斤 of a food is a measure, not a weight", "买了一斤猪肉",
     {"weight_kg": None, "measure": [q(1, "斤", "一斤")], "food": ["猪肉"]}),
    ("两 of a food is a measure", "二两米饭", {"measure": [q(2, "两", "二两")], "height_cm": None}),
    ("斤 with neither body nor food: a number only", "体重长了两斤",
     {"weight_kg": None, "measure": [], "number": [q(2, "斤", "两斤")]}),
    ("超重 is not a body weight", "超重5公斤", {"weight_kg": None, "number": [q(5, "公斤", "5公斤")]}),
    ("body weight and a food's 斤 in one message", "体重30斤，吃了一斤猪肉",
     {"weight_kg": 15.0, "measure": [q(1, "斤", "一斤")]}),
    ("a food before 两 in the same clause", "猪肉二两，米饭一碗", {"measure": [q(2, "两", "二两"), q(1, "碗", "一碗")]}),
    ("kg without body-weight context is no weight", "买了15kg", {"weight_kg": None, "number": [q(15, "kg", "15kg")]}),
    # --- age ------------------------------------------------------------------------------------
    ("N岁 → years", "孩子5岁", {"age_years": 5.0}),
    ("N岁半 → N.5", "3岁半", {"age_years": 3.5, "number": [q(3.5, "岁", "3岁半")]}),
    ("Chinese 十岁半 → 10.5", "十岁半", {"age_years": 10.5}),
    ("N岁M个月 → years + months/12", "3岁2个月", {"age_years": 3.17}),
    ("N周岁 is an age, not a window", "两周岁", {"age_years": 2.0, "time_window_days": None}),
    ("月龄 N个月 → years", "月龄8个月", {"age_years": 0.67, "number": [q(8, "个月", "8个月")]}),
    ("N月龄 → years", "8月龄", {"age_years": 0.67}),
    ("N个月大 → years", "6个月大的宝宝", {"age_years": 0.5}),
    ("宝宝 N个月 → years", "宝宝才10个月", {"age_years": 0.83}),
    ("孩子 N个月 → years", "孩子18个月", {"age_years": 1.5}),
    ("the first age wins; a later one is still a number", "3岁，哥哥8岁",
     {"age_years": 3.0, "number": [q(3, "岁", "3岁"), q(8, "岁", "8岁")]}),
    ("3岁多 is a lower bound, approximate (§4.4 revision 2)", "3岁多",
     {"age_years": 3.0, "approximate": ["age_years"], "number": [q(3, "岁", "3岁")]}),
    ("3岁左右 is no age", "3岁左右", {"age_years": None, "approximate": []}),
    ("bare N个月 fills neither age nor window", "吃了3个月的药",
     {"age_years": None, "time_window_days": None, "number": [q(3, "个月", "3个月")]}),
    # --- time window ----------------------------------------------------------------------------
    ("最近7天 → 7", "最近7天的饮食", {"time_window_days": 7, "number": [q(7, "天", "7天")]}),
    ("近一周 → 7", "近一周", {"time_window_days": 7}),
    ("bare 两周 → 14", "两周的化验", {"time_window_days": 14}),
    ("最近一个月 → 30", "最近一个月", {"time_window_days": 30}),
    ("过去三天 → 3", "过去三天吃了什么", {"time_window_days": 3}),
    ("3天内 → 3", "3天内的血钾", {"time_window_days": 3}),
    ("近 N个月 → 30·N", "近3个月", {"time_window_days": 90, "age_years": None}),
    ("N个月内 → 30·N", "一个月内", {"time_window_days": 30}),
    ("近一年 → 365", "近一年", {"time_window_days": 365}),
    ("孩子最近3个月 is a window, not an age", "孩子最近3个月", {"time_window_days": 90, "age_years": None}),
    ("将近两周 is a duration, not a window", "将近两周", {"time_window_days": None}),
    ("第二周 is an ordinal, not a window", "第二周", {"time_window_days": None}),
    ("一周三次 is a frequency, not a window", "一周三次", {"time_window_days": None}),
    ("两周后 is a point in time, not a window", "两周后复查", {"time_window_days": None}),
    ("N天前 is a date, not a window", "3天前", {"date": ["2026-03-07"], "time_window_days": None, "number": []}),
    # --- height ---------------------------------------------------------------------------------
    ("1.2米 → 120 cm", "1.2米", {"height_cm": 120.0, "number": [q(1.2, "米", "1.2米")]}),
    ("一米二 → 120 cm", "一米二", {"height_cm": 120.0, "number": [q(1.2, "米", "一米二")]}),
    ("1米25 → 125 cm", "1米25", {"height_cm": 125.0}),
    ("身高120 → 120 cm, unit null", "身高120", {"height_cm": 120.0, "number": [q(120, None, "120")]}),
    ("身高 with cm", "身高125cm", {"height_cm": 125.0}),
    ("身高1.2 without a unit is metres", "身高1.2", {"height_cm": 120.0, "number": [q(1.2, None, "1.2")]}),
    ("身高是一米零五 → 105 cm", "身高是一米零五", {"height_cm": 105.0}),
    ("120cm without 身高 is no height", "120cm", {"height_cm": None, "number": [q(120, "cm", "120cm")]}),
    ("200米 is a distance, not a height", "走了200米", {"height_cm": None}),
    # --- date -----------------------------------------------------------------------------------
    ("ISO date", "2026-03-05复查", {"date": ["2026-03-05"], "number": []}),
    ("slash date", "2026/3/5", {"date": ["2026-03-05"]}),
    ("dotted date", "2026.3.5", {"date": ["2026-03-05"], "number": []}),
    ("年月日 date", "2026年3月5日", {"date": ["2026-03-05"]}),
    ("3月5日 takes the reference year", "3月5日", {"date": ["2026-03-05"]}),
    ("号 is 日", "12月25号", {"date": ["2026-12-25"]}),
    ("Chinese-numeral month and day", "三月五日", {"date": ["2026-03-05"]}),
    ("今天 → reference date", "今天", {"date": ["2026-03-10"]}),
    ("昨天 → reference − 1", "昨天", {"date": ["2026-03-09"]}),
    ("前天 → reference − 2", "前天", {"date": ["2026-03-08"]}),
    ("N天前 with a Chinese numeral", "两天前", {"date": ["2026-03-08"]}),
    ("N周前 → reference − 7·N", "两周前", {"date": ["2026-02-24"], "time_window_days": None}),
    ("明天 → reference + 1", "明天复查", {"date": ["2026-03-11"]}),
    ("上周 → reference − 7", "上周查的", {"date": ["2026-03-03"]}),
    ("上周三 → Wednesday of the previous week", "上周三", {"date": ["2026-03-04"]}),
    ("上周一次 is 上周 and a count, not Monday", "上周一次都没吃", {"date": ["2026-03-03"], "number": [q(1, "次", "一次")]}),
    ("2月30日 is no date and no number", "2月30日", {"date": [], "number": []}),
    ("the same date twice is one date", "3月5日，也就是2026-03-05", {"date": ["2026-03-05"]}),
    ("dates in order of appearance", "昨天和3月1日", {"date": ["2026-03-09", "2026-03-01"]}),
    ("numbers inside a date are not repeated", "2026-03-05血钾5.0", {"number": [q(5.0, None, "5.0")]}),
    ("之前天气 is not 前天", "之前天气很热", {"date": []}),
    # --- patient_id -----------------------------------------------------------------------------
    ("one patient ID", "P0012的化验", {"patient_id": "P0012", "ambiguous": []}),
    ("two distinct IDs → null and ambiguous", "P0012和P0034", {"patient_id": None, "ambiguous": ["patient_id"]}),
    ("the same ID twice is one ID", "P0012，还是P0012", {"patient_id": "P0012", "ambiguous": []}),
    ("lower-case p0012 is not an ID", "p0012", {"patient_id": None, "ambiguous": []}),
    ("full-width Ｐ００１２ is P0012 after NFKC", "Ｐ００１２的血钾", {"patient_id": "P0012"}),
    ("more than four digits is one ID", "P000123", {"patient_id": "P000123", "number": []}),
    ("three digits is not an ID", "P001", {"patient_id": None}),
    ("an ID glued to a letter is not an ID", "XP0012", {"patient_id": None}),
    ("ID digits are not repeated as numbers", "P0012体重30斤", {"patient_id": "P0012", "number": [q(30, "斤", "30斤")]}),
    # --- meal -----------------------------------------------------------------------------------
    ("早餐 → breakfast", "早餐吃了什么", {"meal": "breakfast"}),
    ("午饭 → lunch", "午饭", {"meal": "lunch"}),
    ("晚餐 → dinner", "晚餐", {"meal": "dinner"}),
    ("加餐 → snack", "下午加餐", {"meal": "snack"}),
    ("零食 → snack", "零食能吃吗", {"meal": "snack"}),
    ("two different meals → null and ambiguous", "早饭和晚饭", {"meal": None, "ambiguous": ["meal"]}),
    ("the same meal twice is that meal", "早餐就是早饭", {"meal": "breakfast", "ambiguous": []}),
    ("ambiguous lists patient_id before meal", "P0012和P0034的早饭和午饭",
     {"patient_id": None, "meal": None, "ambiguous": ["patient_id", "meal"]}),
    # --- measure --------------------------------------------------------------------------------
    ("measures 勺 杯 片 in text order", "两勺油、一杯牛奶、3片面包",
     {"measure": [q(2, "勺", "两勺"), q(1, "杯", "一杯"), q(3, "片", "3片")], "food": ["牛奶", "面包"]}),
    ("measures 个 and 克", "一个鸡蛋和50克瘦肉", {"measure": [q(1, "个", "一个"), q(50, "克", "50克")]}),
    ("measures ml and g", "牛奶200ml，米饭100g", {"measure": [q(200, "ml", "200ml"), q(100, "g", "100g")]}),
    ("次 is a count, not a portion", "每天3次", {"measure": []}),
    # --- analyte and food -----------------------------------------------------------------------
    ("血钾 → potassium", "血钾高", {"analyte": ["potassium"]}),
    ("钾 → potassium", "钾偏高", {"analyte": ["potassium"]}),
    ("K+ → potassium", "K+ 5.1", {"analyte": ["potassium"]}),
    ("K⁺ → potassium", "K⁺偏高", {"analyte": ["potassium"]}),
    ("肌酐 → scr", "肌酐多少", {"analyte": ["scr"]}),
    ("Scr → scr", "Scr 88", {"analyte": ["scr"]}),
    ("analytes distinct, in order of first appearance", "肌酐和血钾，还有Scr", {"analyte": ["scr", "potassium"]}),
    ("foods distinct, in order of first appearance", "苹果、米饭、苹果", {"food": ["苹果", "米饭"]}),
    ("the longest food wins", "小米粥", {"food": ["小米粥"]}),
    # --- nothing found --------------------------------------------------------------------------
    ("nothing found stays empty", "你好，谢谢",
     {"patient_id": None, "food": [], "analyte": [], "date": [], "number": [], "age_years": None, "weight_kg": None,
      "height_cm": None, "time_window_days": None, "meal": None, "measure": [], "ambiguous": []}),
]


@pytest.fixture(scope="module")
def extractor(policy) -> SlotExtractor:
    return SlotExtractor(policy)


def extract(policy, extractor: SlotExtractor, text: str) -> SlotsResult:
    v = views(text)
    return extractor.extract(v, policy.lexicon.scan(v.text), REFERENCE, policy.policy_version)


@pytest.mark.parametrize(("text", "expected"), [r[1:] for r in ROWS], ids=[r[0] for r in ROWS])
def test_extract(policy, extractor: SlotExtractor, text: str, expected: dict) -> None:
    got = extract(policy, extractor, text).model_dump()
    for field, want in expected.items():
        if field in ("number", "measure"):
            assert typed(got[field]) == typed(want), field
        else:
            assert got[field] == want, field
            assert type(got[field]) is type(want), field


def test_realistic_message(policy, extractor: SlotExtractor) -> None:
    text = "P0012宝宝3岁半，体重30斤，身高一米二，最近7天早餐吃了两碗米饭和半个苹果，昨天血钾5.2 mmol/L"
    got = extract(policy, extractor, text)
    assert got.patient_id == "P0012"
    assert (got.age_years, got.weight_kg, got.height_cm, got.time_window_days) == (3.5, 15.0, 120.0, 7)
    assert got.food == ["米饭", "苹果"] and got.analyte == ["potassium"] and got.meal == "breakfast"
    assert got.date == ["2026-03-09"]
    assert [x["raw"] for x in got.number] == ["3岁半", "30斤", "一米二", "7天", "两碗", "半个", "5.2 mmol/L"]
    assert [x["raw"] for x in got.measure] == ["两碗", "半个"]
    assert got.policy_version == policy.policy_version


PATIENT_IDS = [
    # (id, text, patient_id, ambiguous)
    ("none", "孩子血钾高", None, False),
    ("the same ID twice is one ID", "P0034和P0034", "P0034", False),
    ("distinct IDs are ambiguous", "P0034和P0012，再看P0034", None, True),
    ("read before lower-casing", "p0012和P0013", "P0013", False),
    ("full-width after NFKC", "Ｐ００１２", "P0012", False),
]


@pytest.mark.parametrize(("text", "patient_id", "ambiguous"), [r[1:] for r in PATIENT_IDS], ids=[r[0] for r in PATIENT_IDS])
def test_patient_ids(policy, extractor: SlotExtractor, text: str, patient_id, ambiguous: bool) -> None:
    got = extract(policy, extractor, text)
    assert got.patient_id == patient_id
    assert ("patient_id" in got.ambiguous) is ambiguous


def test_models_forbid_extra_and_describe_every_field() -> None:
    schema = SlotsResult.model_json_schema()
    assert SlotsResult.model_config["extra"] == "forbid"
    assert all(field.description for field in SlotsResult.model_fields.values())
    assert schema.get("additionalProperties") is False
    quantity = schema["$defs"]["Quantity"]
    assert quantity.get("additionalProperties") is False
    assert set(quantity["properties"]) == set(quantity["required"]) == set(Quantity.__annotations__)
    assert all(p.get("description") for p in quantity["properties"].values())
    with pytest.raises(ValidationError):
        TypeAdapter(Quantity).validate_python({"value": 1, "unit": None, "raw": "1", "extra": 1})


# Characters the grammar cares about, mixed with arbitrary text, so that generated messages reach
# every branch of the combined pattern.
_GRAMMAR = "0123456789.-/:年月日号天周个岁半两一二三四五六七八九十百千万零点斤公kgm米厘体重身高最近过去内以来前后上今昨明大宝孩龄碗克杯pP，。 "


@settings(max_examples=300, deadline=None)
@given(st.text(st.sampled_from(_GRAMMAR), max_size=40) | st.text(max_size=40))
def test_any_text_is_read_without_error(policy, extractor: SlotExtractor, text: str) -> None:
    got = extract(policy, extractor, text)
    cased = views(text).cased
    assert all(x["raw"] in cased for x in got.number)
    assert all(any(m is n for n in got.number) for m in got.measure)
    assert got.date == sorted(set(got.date), key=got.date.index)
