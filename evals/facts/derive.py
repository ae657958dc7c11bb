"""Patient facts for a labelled real text (issue 32): what a dispatcher's session would know.

The real-text sets have no patient profile, so the facts are derived by one committed rule, applied
before the router sees the row and never tuned on its figures:

* ``age_years`` — the row's ``age_years`` label, where it has one (the pediatric set's labels);
* ``kidney_therapy`` — only where the text itself states it: ``transplant`` (肾移植, 换肾, 移植肾,
  移植的肾), else ``pd`` (腹透, 腹膜透析), else ``hd`` (血透, 血液透析, 内瘘);
* ``nephrotic`` — true where the text names nephrotic syndrome (肾病综合征 / 肾病综合症 / 肾综).

The rule reads words, not meaning: a text that says the child has *no* transplant gets the fact too
(a profile would not), and a text about a relative's dialysis gives its writer's session that fact.
It stands in for a profile, so the figures with facts are an estimate of what facts add, not a
measurement on real profiles. None when nothing is derived.
"""

from __future__ import annotations

import re
from typing import Any

THERAPIES = (
    ("transplant", re.compile("肾移植|换肾|移植肾|移植的肾")),
    ("pd", re.compile("腹透|腹膜透析")),
    ("hd", re.compile("血透|血液透析|内瘘")),
)
NEPHROTIC = re.compile("肾病综合[征症]|肾综")


def facts_of(row: dict[str, Any], text: str) -> dict[str, Any] | None:
    facts: dict[str, Any] = {}
    age = row.get("age_years")
    if isinstance(age, (int, float)) and not isinstance(age, bool) and age >= 0:
        facts["age_years"] = age
    for therapy, words in THERAPIES:
        if words.search(text):
            facts["kidney_therapy"] = therapy
            break
    if NEPHROTIC.search(text):
        facts["nephrotic"] = True
    return facts or None
