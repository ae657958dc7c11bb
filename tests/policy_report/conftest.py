"""Policies changed by one edit of the shipped file, small corpora, and the report as JSON."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from app.policy_report.command import PROJECT, diff_command

SHIPPED = PROJECT / "app" / "router" / "policy.toml"


@pytest.fixture(autouse=True, scope="module")
def _no_build_check():
    """The reports run both routers over ~2,000 texts; validating every result the router builds
    (tests/conftest.py) would multiply that by several. The router's own tests keep that check; this
    module tests the report, not the router's result models."""
    from app.router import built

    saved, built.CHECK = built.CHECK, False
    yield
    built.CHECK = saved


def edited_policy(tmp_path: Path, *edits: tuple[str, str], name: str = "new.toml") -> Path:
    """The shipped policy with each (old, new) snippet replaced; each old snippet must occur once."""
    text = SHIPPED.read_text(encoding="utf-8")
    for old, new in edits:
        assert text.count(old) == 1, f"snippet not unique in policy.toml: {old!r}"
        text = text.replace(old, new)
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def corpus(tmp_path: Path, rows: list[dict], name: str = "corpus.jsonl") -> Path:
    path = tmp_path / name
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    return path


def run_diff(old: Path | str, new: Path | str, *corpora: Path, fmt: str = "json", fail_on_safety: bool = False,
             cwd: Path = PROJECT) -> tuple[int, str]:
    out = io.StringIO()
    code = diff_command(str(old), str(new), [str(c) for c in corpora] or None, fmt, fail_on_safety, cwd=cwd, out=out)
    return code, out.getvalue()


def report_json(old: Path | str, new: Path | str, *corpora: Path, fail_on_safety: bool = False) -> tuple[int, dict]:
    code, text = run_diff(old, new, *corpora, fail_on_safety=fail_on_safety)
    return code, json.loads(text)


def rows_of(report: dict) -> list[dict]:
    return [dict(row, kind=group["kind"]) for group in report["groups"] for row in group["rows"]]
