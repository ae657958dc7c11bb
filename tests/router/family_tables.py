"""The four checks every table of a red-flag family gets: a strong form halts, a mild form asks its
severity question, a look-alike is no mention, a form not of the child now never halts.

A family's test module keeps its own tables and binds the checks to its own test names::

    (test_a_strong_form_halts, test_a_mild_form_asks_its_severity_question, test_a_look_alike_is_no_mention,
     test_a_form_not_of_the_child_now_never_halts) = family_checks(HARD, SOFT, LOOK_ALIKES, NEVER_HALTS)

Rows are ``(id, text, concept)`` for HARD and SOFT, ``(id, text)`` for the other two.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import pytest

from app.router import Router

from .test_parent_vocabulary import PARENT
from .test_parent_vocabulary import test_a_look_alike_is_no_mention as no_mention
from .test_parent_vocabulary import test_a_mild_form_asks_its_severity_question as asks_severity
from .test_parent_vocabulary import test_a_strong_form_halts as halts


def family_checks(hard: Sequence[tuple[str, ...]], soft: Sequence[tuple[str, ...]],
                  look_alikes: Sequence[tuple[str, ...]], never_halts: Sequence[tuple[str, ...]]
                  ) -> tuple[Callable[..., None], ...]:
    @pytest.mark.parametrize(("text", "concept"), [r[1:] for r in hard], ids=[r[0] for r in hard])
    def strong_form_halts(router: Router, text: str, concept: str) -> None:
        halts(router, text, concept)

    @pytest.mark.parametrize(("text", "concept"), [r[1:] for r in soft], ids=[r[0] for r in soft])
    def mild_form_asks(router: Router, policy, text: str, concept: str) -> None:
        asks_severity(router, policy, text, concept)

    @pytest.mark.parametrize("text", [r[1] for r in look_alikes], ids=[r[0] for r in look_alikes])
    def look_alike_is_no_mention(router: Router, text: str) -> None:
        no_mention(router, text)

    @pytest.mark.parametrize("text", [r[1] for r in never_halts], ids=[r[0] for r in never_halts])
    def not_now_never_halts(router: Router, text: str) -> None:
        assert router.route_request(text, PARENT, "P0001").status != "halt"

    return strong_form_halts, mild_form_asks, look_alike_is_no_mention, not_now_never_halts
