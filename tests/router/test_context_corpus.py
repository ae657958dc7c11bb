"""The adversarial context corpus (tests/router/context_corpus.py), measured as issue 20 asks:
≥ 90 % of the current child emergencies halt, none passes silently — with or without an
acknowledgement of its concept — and no benign control halts."""

from __future__ import annotations

import pytest

from app.router import Router

from .context_corpus import controls, emergencies

PARENT = "parent_assistant"


def test_the_corpus_is_large_enough():
    assert len(emergencies()) >= 500 and len(controls()) >= 200


def test_current_child_emergencies_halt(router: Router):
    rows = emergencies()
    halted, silent, silent_acknowledged, asked = 0, [], [], []
    for row in rows:
        result = router.route_request(row.text, PARENT, "P0001")
        if result.status == "halt":
            halted += 1
        elif result.status == "confirm":
            asked.append(row.id)
        else:
            silent.append(row.id)
        told = router.route_request(row.text, PARENT, "P0001", acknowledged_red_flags=[row.concept])
        if told.status not in ("halt", "confirm"):
            silent_acknowledged.append(row.id)
    print(f"\ncontext corpus: {halted}/{len(rows)} halt ({halted / len(rows):.1%}), {len(asked)} ask, "
          f"{len(silent)} silent, {len(silent_acknowledged)} silent with the concept acknowledged")
    assert silent == []
    assert silent_acknowledged == []
    assert halted / len(rows) >= 0.90, asked


@pytest.mark.parametrize("row", controls(), ids=lambda r: r.id)
def test_benign_control_never_halts(router: Router, row):
    assert router.route_request(row.text, PARENT, "P0001").status != "halt"
