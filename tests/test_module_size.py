"""No app module over 500 lines, and any over 400 says why at its top (STYLE: "No module over ~400
lines without a reason written at its top"; issue 30). The reason is found as the words "400 lines"
in the module's opening docstring or comments."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
LIMIT, REASON_FROM = 500, 400
MODULES = sorted(p.relative_to(ROOT).as_posix() for p in (ROOT / "app").rglob("*.py"))


def too_long(source: str) -> str | None:
    """What is wrong with a module's length, or None."""
    lines = source.splitlines()
    if len(lines) > LIMIT:
        return f"{len(lines)} lines, over {LIMIT}"
    opening = " ".join(lines[:45])
    if len(lines) > REASON_FROM and "400" not in opening:
        return f"{len(lines)} lines and no reason at its top"
    return None


@pytest.mark.parametrize("module", MODULES)
def test_module_length(module: str) -> None:
    assert too_long((ROOT / module).read_text(encoding="utf-8")) is None


CASES = [
    ("short", "x = 1\n" * 10, False),
    ("long with a reason", '"""Runs past 400 lines: one table."""\n' + "x = 1\n" * 420, False),
    ("long without a reason", '"""A module."""\n' + "x = 1\n" * 420, True),
    ("over the limit, reason or not", '"""Past 400 lines."""\n' + "x = 1\n" * 520, True),
]


@pytest.mark.parametrize(("source", "wrong"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_the_check_itself(source: str, wrong: bool) -> None:
    assert (too_long(source) is not None) is wrong
