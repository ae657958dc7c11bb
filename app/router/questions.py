"""Question clauses (SPEC §4.2, ranking step 2): which clauses of a text ask.

A clause is a sentence cut at ，/, as §4.7 cuts it (``text.Cut``, the one cut the analysis
carries); it asks when it ends in ？/?, holds a question word of the policy, or ends in a colloquial
question ending (可以吃香蕉嘛). ``classify`` ranks by what these clauses name.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Sequence

from .analysis import Analysis
from .lexicon import Hit
from .policy import Asking

Cuts = Sequence[int]  # the offsets of a text's clause ends, in text order (``text.Cut.marks``)


def clause_bounds(cuts: Cuts, clause: int, length: int) -> tuple[int, int]:
    """Where clause number ``clause`` starts and ends, ``cuts`` being the clause breaks' offsets."""
    return (cuts[clause - 1] + 1 if clause else 0), (cuts[clause] if clause < len(cuts) else length)


def outside(hits: list[Hit], forms: list[Hit]) -> list[Hit]:
    """The keyword hits outside every form heading (远程诊断 names no diagnosis). Both lists are in
    text order with increasing starts and ends: one merge."""
    kept, index = [], 0
    for hit in hits:
        while index < len(forms) and forms[index].end <= hit.start:
            index += 1
        if index < len(forms) and forms[index].start <= hit.start and hit.end <= forms[index].end:
            continue
        kept.append(hit)
    return kept


def question_clauses(analysis: Analysis, asking: Asking) -> tuple[Cuts, list[bool]]:
    """The clause ends (the text's one cut, ``text.Cut.marks``) and, per clause, whether it is a
    question. Clause ``i`` runs from after ``cuts[i-1]`` to ``cuts[i]``; ``bisect_right(cuts, p)``
    is the clause of position ``p``. The few question marks are looked at one by one; each clause's
    end is looked at once, back over its trailing particles and at most the longest question ending."""
    text = analysis.views.text
    cuts = analysis.cut.marks
    questions = [False] * (len(cuts) + 1)
    if asking.endings:
        lo = 0
        for clause, hi in enumerate([*cuts, len(text)]):
            questions[clause] = ends_asking(text, lo, hi, asking)
            lo = hi + 1
    mark = text.find("?")
    while mark != -1:  # a clause that ends in ? (the mark is the clause's own end)
        questions[bisect_left(cuts, mark)] = True
        mark = text.find("?", mark + 1)
    forms = analysis.hits.get("form")
    for word in analysis.hits.get("question") or ():
        if word.payload == "not":
            continue  # 这几天, 没什么: a question word used as an indefinite asks nothing
        if forms and outside([word], forms) == []:
            continue  # 想得到怎样的帮助: the form asks, not the writer
        questions[bisect_right(cuts, word.start)] = True
    return cuts, questions


def clause_end(text: str, lo: int, hi: int, asking: Asking) -> int:
    """The end of the clause ``text[lo:hi]`` before its trailing particles (可以吃香蕉嘛啊, 没事吧~)."""
    trailing = asking.trailing
    while hi > lo and text[hi - 1] in trailing:
        hi -= 1
    return hi


def ends_asking(text: str, lo: int, hi: int, asking: Asking) -> bool:
    """A clause that ends in a colloquial question ending after a predicate (可以吃香蕉嘛, 能喝酸奶不,
    现在可以加蛋黄了是吧): the longest policy ending decides, so 什么, 那么 or 好吧 ask nothing. The
    ending must follow something: a bare 不 or 是吧 is an answer."""
    end = clause_end(text, lo, hi, asking)
    if end == lo or text[end - 1] not in asking.ending_last:
        return False
    for size in range(min(asking.ending_max, end - lo), 0, -1):
        asks = asking.endings.get(text[end - size : end])
        if asks is not None:
            return asks and size < end - lo
    return False
