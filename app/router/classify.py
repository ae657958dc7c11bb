"""Rule-based intent classification (SPEC §4.2).

A current red flag (SPEC §4.7) forces ``emergency_red_flag``; a red flag in any other context does
not force an intent (it is reported in ``red_flags``). Otherwise each intent scores the sum of the lengths of its
distinct matched keywords (a keyword inside a longer matched keyword does not count). No hit is
``unknown`` with ``fallback="llm"``: the upper layer may classify softly, and its answer must pass
the gate again.

Ranking — "what is asked counts first". Parents write a story, then a question; the story's nouns
must not outvote the question. Intents are ranked, best first, by

1. whether a consume verb in a question clause asks about them: 能喝 / 可以吃 + a food asks the
   food intent (nutrition_calc), + a medicine asks the medicine intent (knowledge: a medicine is
   not a food). The verb's object is the nearest food or medicine after it in its clause
   (能吃药吗), else the nearest before it (香蕉能不能吃);
2. their keywords inside the question clauses (a clause — a sentence cut at ，/, as §4.7 cuts it —
   that ends in ？/? or holds a question word of the policy): strong keywords, then weak ones;
3. their keywords over the whole text: strong, then weak;
4. their ``score`` (the whole text's sum of keyword lengths, weak words included);
5. priority (P0 … P5), then the order of the policy's table.

Weak keywords are the policy's generic question words and topic nouns (是什么, 怎么办, 肾病综合征):
they say what a text is about, not what it asks, so at the same level any other keyword beats them.
A consume verb whose object is a medicine counts for the medicine intent, and so does every
medicine mention. In a text that names no food, a consume verb followed by nothing but particles
(下午还能吃么) counts for the advice intent; a food named in a clause that ends asking (奶粉还喂吗) is a
weak keyword of the food intent (SPEC §4.2 revision 2: nutrition_calc needs a named food or drink).

The module is over 400 lines because every rule above reads the same clause cuts and keyword hits
of one text; split, each piece would take the whole ranking state as arguments.

``score`` and ``confidence`` stay the whole text's. A text whose only clause is a question, or with
no question clause at all, ranks by the whole text alone: as before question clauses existed, but
for the weak words and the consume verbs.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from operator import itemgetter
from dataclasses import dataclass

from .analysis import Analysis
from .lexicon import Hit
from .policy import Asking, Intent, Policy
from .questions import Cuts, clause_bounds, clause_end, ends_asking, outside, question_clauses


@dataclass(slots=True)
class Scored:
    intent: Intent
    score: int
    keywords: tuple[str, ...]


@dataclass(slots=True)
class Classification:
    """The rule outcome; ``best`` is None for ``unknown``."""

    best: Scored | None
    ranked: tuple[Scored, ...]
    emergency: bool
    confidence: float = 0.0

    def __post_init__(self) -> None:
        if self.emergency:
            self.confidence = 1.0
        elif self.best is not None:
            self.confidence = round(min(0.95, 0.50 + 0.05 * self.best.score), 2)

    @property
    def intent_name(self) -> str:
        return self.best.intent.name if self.best else "unknown"

    @property
    def mcp(self) -> str | None:
        return self.best.intent.mcp if self.best else None

    def note(self) -> str | None:
        if self.best is None:
            return None
        notes = self.best.intent.keyword_notes
        for keyword in self.best.keywords:
            if keyword in notes:
                return notes[keyword]
        return None


_FIRST = _START = itemgetter(0)  # of a (start, …) tuple or a Hit
# The CJK Unified Ideographs block: a medicine suffix after one of them (that is no numeral) names a medicine.
_IDEOGRAPHS = range(0x4E00, 0x9FFF + 1)


def classify(policy: Policy, analysis: Analysis) -> Classification:
    if analysis.current:  # a red flag that describes the patient now (SPEC §4.7); others only report
        scored = Scored(policy.emergency, sum(map(len, analysis.current)), tuple(analysis.current))
        return Classification(scored, (scored,), emergency=True)
    # Keywords are read on the text view; only when it has none does the squashed view speak, so
    # "分 期" or "化 验 单" still classify while spacing never adds a second intent to a real match.
    # (A squashed view equal to the text view has nothing more to say: no second scan of it.)
    v = analysis.views
    hits = analysis.hits.get("intent") or (v.squashed != v.text and policy.intent_lexicon.scan(v.squashed).get("intent")) or []
    forms = analysis.hits.get("form")
    if forms and hits:
        hits = outside(hits, forms)
    asking = policy.asking
    medicines = _medicines(analysis, asking) if "medicine" in analysis.hits else []
    if not hits and not medicines:
        return _asked_food(policy, analysis)

    verbs = analysis.hits.get("consume")  # the lexicon's own group of the consume verbs
    first: str = hits[0].payload if hits else ""
    foods = _foods(analysis, asking)
    # Diet advice redirects only in a text that names no food (SPEC §4.2 revision 2), and only under
    # a policy that names where it goes (a policy written before the revision has no advice intent).
    advising = not foods and bool(asking.advice_intent)
    feeding = asking.feeding if foods else None
    if (
        not (medicines or verbs or feeding)
        and first != asking.reading_intent
        and not (advising and first == asking.food_intent)
        and all(h.payload == first for h in hits)
    ):
        # One intent and nothing to redirect: no clause to look at, no ranking.
        terms = tuple(dict.fromkeys(h.term for h in hits))
        only = Scored(policy.intent_by_name[first], sum(map(len, terms)), terms)
        return Classification(only, (only,), emergency=False)
    cuts, questions = question_clauses(analysis, asking)
    # intent → {keyword: said in a question clause}, keywords in text order
    keywords: dict[str, dict[str, bool]] = {}
    decided: set[str] = set()  # intents a question clause's consume verb asks about (能喝豆浆吗)
    redirected = _medicine_verbs(analysis, verbs, medicines, cuts, questions, decided, asking) if verbs else {}
    if feeding is not None and foods:
        _feeding_questions(analysis.views.text, foods, medicines, cuts, questions, feeding, keywords, decided, asking.food_intent)
    for start, _, term, name in hits:
        asked = questions[bisect_right(cuts, start)]
        if redirected and start in redirected:
            name = redirected[start]
        elif advising and name == asking.food_intent and (
            term in asking.diet_advice or (term in asking.consume_verbs and _no_object(analysis.views.text, term, start, cuts, asking))
        ):
            name = asking.advice_intent
        words = keywords.get(name)
        if words is None:
            keywords[name] = {term: asked}
        elif not words.get(term):
            words[term] = asked
    for medicine in medicines:
        words = keywords.setdefault(asking.medicine_intent, {})
        if not words.get(medicine.term):
            words[medicine.term] = questions[bisect_right(cuts, medicine.start)]

    by_name = policy.intent_by_name
    weak = asking.weak_keywords
    # A consume verb or feeding question that decided the food intent lists its own words (能喝 of 能喝豆浆吗).
    if feeding is not None and foods and asking.food_intent not in decided:
        weak = _asked_foods(analysis.views.text, foods, cuts, keywords, weak, asking)
    reading = keywords.get(asking.reading_intent)
    if reading is not None and not _has_reading(analysis, hits, cuts, asking):
        # Nothing to read (尿常规主要查什么): the test's words ask about the test, as weak words.
        del keywords[asking.reading_intent]
        target = keywords.setdefault(asking.advice_intent, {})
        for term, asked in reading.items():
            if not target.get(term):
                target[term] = asked
        weak = weak | reading.keys()
        reading = None
    if asking.effect_questions and (foods or medicines):
        _effect_questions(hits, foods or [], medicines, cuts, questions, keywords, decided, asking)
    if asking.serious_intent and reading is None and not medicines:
        # A result to read (白细胞偏高要紧吗) or a medicine (退烧药和止咳药一起吃没事吧) is what such a
        # question asks about: their own rules decide.
        _serious_questions(analysis.views.text, hits, cuts, questions, decided, asking)
    ranked: list[tuple[tuple[int, ...], str, dict[str, bool]]] = []
    for name, words in keywords.items():
        # [strong, weak] × [whole text, question clauses], negated: the best sorts first
        strong = strong_asked = weak_sum = weak_asked = 0
        for term, asked in words.items():
            if term in weak:
                weak_sum -= len(term)
                if asked:
                    weak_asked -= len(term)
            else:
                strong -= len(term)
                if asked:
                    strong_asked -= len(term)
        intent = by_name[name]
        key = (-(name in decided), strong_asked, weak_asked, strong, weak_sum, strong + weak_sum, intent.priority, intent.order)
        ranked.append((key, name, words))
    ranked.sort(key=_FIRST)
    order = tuple([Scored(by_name[name], -key[5], tuple(words)) for key, name, words in ranked])
    return Classification(order[0], order, emergency=False)


def _medicine_verbs(
    analysis: Analysis, verbs: list[Hit], medicines: list[Hit], cuts: Cuts, questions: list[bool],
    decided: set[str], asking: Asking,
) -> dict[int, str]:
    """What each consume verb asks about: the nearest food or medicine after it in its clause
    (能吃药吗, 能喝豆浆吗), else the nearest before it (香蕉能不能吃). A verb whose object is a
    medicine asks the medicine intent (returned: verb start → that intent); a verb with an object
    in a question clause decides its intent. A clause's foods and medicines are gathered once, by two
    searches per list, and each verb's object is one search: no product of verbs and foods. A verb
    with no object in its clause stays the food intent here (classify sends one followed by nothing but
    particles, in a text with no food, to the advice intent: 下午还能吃么)."""
    foods = _foods(analysis, asking) or []
    redirected: dict[int, str] = {}
    in_clause: dict[int, list[tuple[int, bool]]] = {}  # clause → (start, is a food), built once per clause
    for verb in verbs:
        clause = bisect_right(cuts, verb.start)
        things = in_clause.get(clause)
        if things is None:
            lo, hi = clause_bounds(cuts, clause, len(analysis.views.text))
            things = [(f.start, True) for f in foods[bisect_left(foods, lo, key=_START) : bisect_left(foods, hi, key=_START)]]
            if medicines:
                things += [(m.start, False) for m in medicines[bisect_left(medicines, lo, key=_START) : bisect_left(medicines, hi, key=_START)]]
                things.sort()
            in_clause[clause] = things
        if not things:
            continue
        index = bisect_left(things, verb.end, key=_FIRST)
        is_food = things[index][1] if index < len(things) else things[index - 1][1]
        name = asking.food_intent if is_food else asking.medicine_intent
        if not is_food:
            redirected[verb.start] = name
        if questions[clause]:
            decided.add(name)
    return redirected


def _serious_questions(text: str, hits: list[Hit], cuts: Cuts, questions: list[bool], decided: set[str], asking: Asking) -> None:
    """A question clause that ends asking how serious (疹子没事吧, 这样严重吗) decides the intent
    of that question (issue 21): its symptom nouns say what it is about, its last words what it
    asks. The word must end the clause, but for trailing particles: 这算是严重的肺炎吗 asks about
    the diagnosis and is left to the keywords; so is a clause about people in general
    (女性肾脏囊肿要紧吗 asks about the disease). Each clause is searched at most once: the first
    clause that ends asking decides."""
    for hit in hits:
        if hit.payload != asking.serious_intent or hit.term not in asking.serious_questions:
            continue
        clause = bisect_right(cuts, hit.start)
        if not questions[clause]:
            continue
        lo, hi = clause_bounds(cuts, clause, len(text))
        if hit.end == clause_end(text, lo, hi, asking) and (asking.general is None or not asking.general.search(text, lo, hi)):
            decided.add(asking.serious_intent)
            return


def _effect_questions(
    hits: list[Hit], foods: list[Hit], medicines: list[Hit], cuts: Cuts, questions: list[bool],
    keywords: dict[str, dict[str, bool]], decided: set[str], asking: Asking,
) -> None:
    """A question clause that asks what a thing did to the child (吃了虾有没有影响, 再吃一个疗程的
    阿莫西林有什么影响) asks about that thing, not how serious the illness is (issue 21): the nearest food
    or medicine before the effect word, in its clause or the one before, decides its intent
    (a food the food intent, a medicine the medicine intent). Without one (连着烧了两天，记忆力有影响吗) the
    keywords decide as before. Each effect word costs two searches."""
    for hit in hits:
        if hit.payload != asking.serious_intent or hit.term not in asking.effect_questions:
            continue
        clause = bisect_right(cuts, hit.start)
        if not questions[clause]:
            continue
        lo = clause_bounds(cuts, clause - 1 if clause else 0, hit.start)[0]
        food = _last_before(foods, lo, hit.start)
        medicine = _last_before(medicines, lo, hit.start)
        if medicine is not None and (food is None or medicine.start > food.start):
            decided.add(asking.medicine_intent)
        elif food is not None:
            decided.add(asking.food_intent)
            keywords.setdefault(asking.food_intent, {})[food.term] = True


def _last_before(found: list[Hit], lo: int, hi: int) -> Hit | None:
    """The last of ``found`` (in text order) that starts in [lo, hi)."""
    index = bisect_left(found, hi, key=_START) - 1
    return found[index] if index >= 0 and found[index].start >= lo else None


def _feeding_questions(
    text: str, foods: list[Hit], medicines: list[Hit], cuts: Cuts, questions: list[bool], feeding: re.Pattern[str],
    keywords: dict[str, dict[str, bool]], decided: set[str], food_intent: str,
) -> None:
    """A question clause that names a food and asks whether to feed it with the verb apart from its
    modal (奶粉可以照常喝吗, 米糊能给宝宝吃吗, 要不要停母乳) decides ``food_intent``: whether of a
    named food or drink (SPEC §4.2 revision 2). The clause's foods become its keywords. A clause that
    also names a medicine is left to the consume verbs (喝了奶粉可以吃药吗 asks about the medicine).
    Each question clause with a food is searched once, within its bounds."""
    medicine_clauses = {bisect_right(cuts, m.start) for m in medicines}
    searched: dict[int, bool] = {}
    for food in foods:
        clause = bisect_right(cuts, food.start)
        if not questions[clause] or clause in medicine_clauses:
            continue
        found = searched.get(clause)
        if found is None:
            lo, hi = clause_bounds(cuts, clause, len(text))
            found = searched[clause] = feeding.search(text, lo, hi) is not None
        if found:
            decided.add(food_intent)
            keywords.setdefault(food_intent, {})[food.term] = True


def _asked_foods(
    text: str, foods: list[Hit], cuts: Cuts, keywords: dict[str, dict[str, bool]], weak: frozenset[str], asking: Asking,
) -> frozenset[str]:
    """A food or drink named in a clause that ends asking — in ?, in 吗 / 呢 / 多少 or a colloquial
    ending (嘛, 么, 是吧) — is a weak keyword of the food intent (SPEC §4.2 revision 2: whether or how
    much of a named food — 奶粉还喂吗, 配方奶要少冲点吗): a question about it and nothing else is the
    food intent (the tie with a feeding word such as 奶粉 goes to the food intent by priority),
    while any other topic the question names (拉肚子, 过敏, 怎么办) outweighs it. A clause that only
    holds a question word (喂了几口粥, 怎么不吃奶了) does not ask about its food. A food asked that is
    also a feeding word of the advice intent (母乳, 奶粉) is the food there, not a feeding topic asked:
    the story's topics still count over the whole text (上午拉了两次肚子，睡前的母乳还照常吗 asks the food). Each
    clause with a food is looked at once. Returns the weak words with those foods added."""
    asked: list[str] = []
    ends: dict[int, bool] = {}
    for food in foods:
        clause = bisect_right(cuts, food.start)
        found = ends.get(clause)
        if found is None:
            lo, hi = clause_bounds(cuts, clause, len(text))
            found = ends[clause] = (
                text.startswith("?", hi)
                or text.endswith(asking.food_question_ends, lo, clause_end(text, lo, hi, asking))
                or ends_asking(text, lo, hi, asking)
            )
        if found:
            asked.append(food.term)
    if not asked:
        return weak
    words = keywords.setdefault(asking.food_intent, {})
    topic = keywords.get(asking.advice_intent) if asking.advice_intent != asking.food_intent else None
    for term in asked:
        words[term] = True
        if topic is not None and term in topic:
            topic[term] = False  # the food asked (母乳还照常吗) is no feeding topic asked; the story's still counts
    return weak | frozenset(asked)


def _asked_food(policy: Policy, analysis: Analysis) -> Classification:
    """No keyword at all: a question about a named food or drink is the food intent (SPEC §4.2
    revision 2: whether or how much of a named food — 给孩子喝温开水么, 萝卜要多少啊); anything else
    is ``unknown``."""
    foods = _foods(analysis, policy.asking)
    if foods:
        cuts, questions = question_clauses(analysis, policy.asking)
        asked = tuple(dict.fromkeys(f.term for f in foods if questions[bisect_right(cuts, f.start)]))
        if asked:
            scored = Scored(policy.intent_by_name[policy.asking.food_intent], sum(map(len, asked)), asked)
            return Classification(scored, (scored,), emergency=False)
    return Classification(None, (), emergency=False)


def _has_reading(analysis: Analysis, hits: list[Hit], cuts: Cuts, asking: Asking) -> bool:
    """A result to read (SPEC §4.2 revision 2): a reading word (偏高, 化验单, 帮我看), a direction
    right after one of the intent's keywords (肌酐高), or a number in a clause that holds one (血钾5.2; not an age: 6岁).
    A reading word that asks (多少) reads nothing in a clause with a reference word: 儿童血钾正常值是多少
    asks the norm (issue 21), 肌酐和尿素氮多少 asks for the child's values. Each clause is searched
    once per rule."""
    text = analysis.views.text
    intent, generic = asking.reading_intent, asking.reading_generic
    if asking.reading is not None:
        norms: dict[int, bool] = {}  # clause → it holds a reference word
        for word in asking.reading.finditer(text):
            if word.group() in asking.not_reading:
                continue  # 去医院看看 visits, it reads nothing
            if word.group() not in asking.reading_questions or asking.reference is None:
                return True
            clause = bisect_right(cuts, word.start())
            norm = norms.get(clause)
            if norm is None:
                lo, hi = clause_bounds(cuts, clause, len(text))
                norm = norms[clause] = asking.reference.search(text, lo, hi) is not None
            if not norm:
                return True
    searched: set[int] = set()
    for hit in hits:
        if hit.payload != intent or hit.term in generic:
            continue  # 正常吗 after an age (20多天的宝宝咳嗽正常吗) reads no result
        if text.startswith(asking.value_directions, hit.end):
            return True
        clause = bisect_right(cuts, hit.start)
        if clause in searched:
            continue
        searched.add(clause)
        lo, hi = clause_bounds(cuts, clause, len(text))
        if asking.value.search(text, lo, hi):
            return True
    return False


def _no_object(text: str, verb: str, start: int, cuts: Cuts, asking: Asking) -> bool:
    """Whether the consume verb ``verb`` at ``start`` is followed by nothing but particles to its clause's
    end (下午还能吃么): it names no food or drink. A verb of amount (喝多少, 可以多吃) asks about a
    quantity of something named before it (榴莲可以多吃吗): never without an object."""
    if asking.amount_mark in verb:
        return False
    end = start + len(verb)
    clause = bisect_left(cuts, end)
    hi = cuts[clause] if clause < len(cuts) else len(text)
    run = asking.no_object.match(text, end, hi)
    return run is not None and run.end() == hi


def _foods(analysis: Analysis, asking: Asking) -> list[Hit] | None:
    """The foods a question can ask about: a food right before 里 / 中 / 内 is the vehicle of what is
    put in it (米糊里拌上药粉, 兑到奶粉中), not the thing asked (issue 21). One look per food."""
    foods = analysis.hits.get("food")
    if not foods:
        return foods
    text = analysis.views.text
    return [f for f in foods if not text.startswith(asking.vehicles, f.end)]


def _medicines(analysis: Analysis, asking: Asking) -> list[Hit]:
    """Medicine mentions: a name, or a suffix after a Chinese character that is not a numeral; a
    dosage form of two characters or more also after a brand's Latin letters or digits (ad滴剂,
    999冲剂: no portion reads so); never inside a food (薯片) or one of the policy's ordinary words
    (肉丸, 拍片)."""
    text = analysis.views.text
    foods = analysis.hits.get("food") or []
    found = []
    for hit in analysis.hits.group("medicine"):
        if hit.payload == "not":
            continue
        if hit.payload == "suffix":
            before = text[hit.start - 1] if hit.start else ""
            if before in asking.not_before_suffix or not (
                (before != "" and ord(before) in _IDEOGRAPHS) or (len(hit.term) > 1 and before.isascii() and before.isalnum())
            ):
                continue
        if foods:
            # Foods are in text order with increasing starts and ends: only the last one opening
            # at or before the mention can hold it.
            index = bisect_right(foods, hit.start, key=_START)
            if index and hit.end <= foods[index - 1].end:
                continue
        found.append(hit)
    return found
