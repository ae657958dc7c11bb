"""One cutter (issue 30): where a sentence and a clause end is defined in ``text.py`` and nowhere
else, and a text is cut once (``text.Cut``), the cut the analysis carries.

The cut's rows say where sentences and clauses end; the scan below fails on a second definition:
any module of app/ whose code (not its comments or docstrings) holds a string of sentence-end
marks — a regex class or a constant of its own — instead of building it from ``text.py``'s names.
"""

from __future__ import annotations

import ast
import random
from pathlib import Path, PurePosixPath

import pytest

from app.router.analysis import analyze
from app.router.engine import Router
from app.router.facts import PatientFacts
from app.router.lexicon import Hit, Lexicon
from app.router.policy import Policy
from app.router.questions import question_clauses
from app.router.text import CLAUSE_ENDS, COMMA, PERIOD, SENTENCE_ENDS, Cut, sentence_bounds

ROOT = Path(__file__).resolve().parents[2]
HOME = "app/router/text.py"
# Modules let off the scan while they move to ``text.py``'s names: none is left (issue 30).
EXEMPT: tuple[str, ...] = ()

CUT_CASES = [
    ("sentence marks and a newline", "好。好!好?好;好\n", [(1, True), (3, True), (5, True), (7, True), (9, True)]),
    ("a comma ends a clause only", "发烧,咳嗽", [(2, False)]),
    ("a decimal point ends nothing", "体温38.5度", []),
    ("a point after a digit, before a letter", "吃了3.好", [(3, True)]),
    ("a point before a digit, after a letter", "好.5", [(1, True)]),
    ("a point at the text's ends", ".好.", [(0, True), (2, True)]),
    ("points in a row", "3..5", [(1, True), (2, True)]),
    ("a list mark ends no clause", "发烧、咳嗽了", []),
]


@pytest.mark.parametrize(("text", "expected"), [c[1:] for c in CUT_CASES], ids=[c[0] for c in CUT_CASES])
def test_cut_bounds(text: str, expected: list[tuple[int, bool]]) -> None:
    _assert_cut(text, expected)


def _assert_cut(text: str, expected: list[tuple[int, bool]]) -> None:
    """The same cut whichever form is asked first (each has its own pattern), and without a Cut."""
    marks = [start for start, _ in expected]
    bounds_first, marks_first = Cut(text), Cut(text)
    assert (list(bounds_first.bounds), list(bounds_first.marks)) == (expected, marks)
    assert (list(marks_first.marks), list(marks_first.bounds)) == (marks, expected)
    assert sentence_bounds(text) == expected


def _by_definition(text: str) -> list[tuple[int, bool]]:
    """The cut as ``text.py``'s names define it, one character at a time."""
    out = []
    for i, ch in enumerate(text):
        decimal = ch == PERIOD and 0 < i < len(text) - 1 and text[i - 1].isdigit() and text[i + 1].isdigit()
        if ch in CLAUSE_ENDS or (ch == PERIOD and not decimal):
            out.append((i, ch != COMMA))
    return out


def test_the_cut_is_the_definition() -> None:
    """Random texts over every mark, digits and a letter: the cut marks what the names say."""
    rng = random.Random(30)
    alphabet = CLAUSE_ENDS + PERIOD + "、好5 "
    for _ in range(2000):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 12)))
        _assert_cut(text, _by_definition(text))


SENTENCE_CASES = [
    # (text, lo, hi, a sentence ends within, … when an ASCII point ends none)
    ("a comma between", "透析,发烧", 2, 3, False, False),
    ("a full stop between", "透析。发烧", 2, 3, True, True),
    ("an ASCII point between", "透析.发烧", 2, 3, True, False),
    ("a point and a full stop between", "透析.。发烧", 2, 4, True, True),
    ("a decimal point is no end", "透析3.5发烧", 2, 5, False, False),
    ("the end itself is outside the span", "透析。发烧", 3, 5, False, False),
    ("an empty span", "透析。发烧", 3, 2, False, False),
]


@pytest.mark.parametrize(("text", "lo", "hi", "expected", "without_points"), [c[1:] for c in SENTENCE_CASES],
                         ids=[c[0] for c in SENTENCE_CASES])
def test_sentence_ends_within(text: str, lo: int, hi: int, expected: bool, without_points: bool) -> None:
    cut = Cut(text)
    assert cut.sentence_ends_within(lo, hi) is expected
    assert cut.sentence_ends_within(lo, hi, points=False) is without_points


FACT_SESSION_CASES = [
    ("HD: a point after the session keeps the fever in its sentence", "透析完.晚上开始发烧", ["dialysis_access"]),
    ("HD: a full stop ends the session's sentence", "透析完。晚上开始发烧", []),
]


@pytest.mark.parametrize(("text", "expected"), [c[1:] for c in FACT_SESSION_CASES], ids=[c[0] for c in FACT_SESSION_CASES])
def test_the_facts_session_rule_reads_no_point_as_an_end(policy: Policy, text: str, expected: list[str]) -> None:
    """``sentence_ends_within(points=False)``, the facts' variant: the decision it kept."""
    analysis = analyze(policy, text, "parent", facts=PatientFacts(kidney_therapy="hd"))
    assert [f.concept for f in analysis.red_flags if f.fact] == expected


# Slot rules that read a sentence end after a value (a whole message: 6个月。 is how long, 39.5。 bare
# numbers, 宝宝38.5。 a reply's reading) read every end of ``SENTENCE_ENDS`` alike: ; and line breaks too.
ENDED_TEXTS = ["6个月{}", "宝宝38.5{}", "39.5{}", "38.5{}37.8", "现在有39.5了{}"]


@pytest.mark.parametrize("mark", list(SENTENCE_ENDS), ids=repr)
@pytest.mark.parametrize("text", ENDED_TEXTS)
def test_every_sentence_end_reads_as_a_full_stop(router: Router, text: str, mark: str) -> None:
    full_stop = router.extract_slots(text.format("。"))
    assert router.extract_slots(text.format(mark)) == full_stop
    assert router.extract_slots(text.format(mark * 2)) == full_stop


def test_classify_reads_the_carried_cut(policy: Policy) -> None:
    """The question clauses are the analysis's cut, not one of their own."""
    analysis = analyze(policy, "孩子肾病三年了,最近血钾5.5。香蕉能吃吗?")
    cuts, questions = question_clauses(analysis, policy.asking)
    assert cuts is analysis.cut.marks
    assert len(questions) == len(cuts) + 1


# ------------------------------------------------------------------------------------------------
# A second definition
# ------------------------------------------------------------------------------------------------

_FULL_WIDTH = frozenset("，！？；")
_ASCII = frozenset("!?;")
_LINE = ("\n", "\\n")  # a line break, or its escape in a regex's source


def _defines_ends(value: str) -> bool:
    """A string that reads as a set of sentence or clause ends: any full-width twin (the text view
    has none, so a string holding one is a pattern's own class), 。 beside another end, or three of
    the ASCII ends and a line break (a single ; or ! with a newline is CSS, not a cut)."""
    if _FULL_WIDTH & set(value):
        return True
    line = any(mark in value for mark in _LINE)
    others = len(_ASCII & set(value)) + line + (COMMA in value)
    if "。" in value:
        return others >= 1
    return len(_ASCII & set(value)) + line >= 3


def second_definitions(source: str) -> list[int]:
    """The lines of ``source`` whose code holds a string of sentence ends: a literal, a part of an
    f-string, or a tuple, list or set of literals read together. Docstrings and other bare strings
    are prose; comments never reach the tree."""
    tree = ast.parse(source)
    prose = {id(node.value) for node in ast.walk(tree) if isinstance(node, ast.Expr)}
    found: list[int] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in prose:
            value = node.value
        elif isinstance(node, (ast.Tuple, ast.List, ast.Set)) and node.elts and all(
            isinstance(e, ast.Constant) and isinstance(e.value, str) for e in node.elts
        ):
            value = "".join(e.value for e in node.elts if isinstance(e, ast.Constant))
        else:
            continue
        if _defines_ends(value):
            found.append(node.lineno)
    return sorted(set(found))


def _exempt(name: str) -> bool:
    return name == HOME or any(PurePosixPath(name).match(pattern) for pattern in EXEMPT)


def test_no_second_definition() -> None:
    """Every module but ``text.py`` (and, for now, EXEMPT) builds its marks from ``text.py``."""
    offenders = {}
    for path in sorted((ROOT / "app").rglob("*.py")):
        name = path.relative_to(ROOT).as_posix()
        if not _exempt(name):
            lines = second_definitions(path.read_text(encoding="utf-8"))
            if lines:
                offenders[name] = lines
    assert offenders == {}


def test_the_home_is_found() -> None:
    """The scan sees the one definition, so it would see a copy of it."""
    assert second_definitions((ROOT / HOME).read_text(encoding="utf-8")) != []


FAKE_MODULES = [
    ("a class of its own", 'import re\n_END = re.compile("[。!?;\\n]")\n', True),
    ("a constant of its own", '_ENDS = "。!?;\\n"\n', True),
    ("an escaped line break in a raw pattern", '_B = r"。|!|\\?|;|\\n"\n', True),
    ("a negated class in an f-string", 'W = 3\nP = f"[^，。！？；,!?;\\\\n]{{0,{W}}}"\n', True),
    ("a full-width comma alone", 'JOINERS = "，,"\n', True),
    ("a tuple of marks", 'ENDS = ("。", "!", "?")\n', True),
    ("ASCII ends and a line break", 'ENDS = "!?;\\n"\n', True),
    ("the names of text.py", 'from .text import CLAUSE_ENDS\nimport re\nP = re.compile(f"[^{CLAUSE_ENDS}]{{0,4}}")\n', False),
    ("a docstring", '"""Cut at 。！？； and a newline."""\nX = 1\n', False),
    ("a comment", '# 。！？；\nX = 1\n', False),
    ("a bare 。 looked for", 'def f(t):\n    return t.find("。")\n', False),
    ("CSS", '_STYLE = """\nbody{font:15px}\ntd{padding:0}\n"""\n', False),
    ("a question mark looked for", 'def f(t):\n    return t.find("?")\n', False),
]


@pytest.mark.parametrize(("source", "defines"), [c[1:] for c in FAKE_MODULES], ids=[c[0] for c in FAKE_MODULES])
def test_a_fake_module(source: str, defines: bool) -> None:
    """A module outside text.py that defines its own marks fails the scan; one that uses the names,
    or only writes marks in prose, passes."""
    assert (second_definitions(source) != []) is defines


def test_only_exempt_and_home_are_skipped(monkeypatch: pytest.MonkeyPatch) -> None:
    """The exemption names modules, not the rest of app/: a module anywhere else is scanned."""
    assert _exempt(HOME) and not _exempt("app/router/slots/ages.py")
    monkeypatch.setattr(__name__ + ".EXEMPT", ("app/router/slots/ages.py",))
    assert _exempt("app/router/slots/ages.py") and _exempt(HOME)
    assert not _exempt("app/router/slots/temperatures.py") and not _exempt("app/router/context.py")
    assert not _exempt("app/router/new_stage.py") and not _exempt("app/server.py")


def test_the_cue_words_are_scanned_once_for_every_walk(policy: Policy, monkeypatch: pytest.MonkeyPatch) -> None:
    """The red flags' two walks and the facts' walk read the analysis's one scan of the cue words."""
    cue_lexicon = policy.red_flags.context.lexicon
    scanned: list[str] = []
    scan_group = type(cue_lexicon).scan_group

    def counted(self: Lexicon, view: str) -> list[Hit]:
        if self is cue_lexicon:
            scanned.append(view)
        return scan_group(self, view)

    monkeypatch.setattr(type(cue_lexicon), "scan_group", counted)
    analysis = analyze(policy, "孩子以前抽搐过，现在肚子疼，还发烧了", "parent", facts=PatientFacts(kidney_therapy="pd"))
    assert [f.context for f in analysis.red_flags if not f.fact] == ["historical"]
    assert analysis.symptoms and any(f.fact for f in analysis.red_flags)
    assert scanned == [analysis.views.text]
