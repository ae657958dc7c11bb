"""Shared by the bench scripts. bench/RESULTS.md is shared too: each script owns one "## " section
and replaces only that one."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

RESULTS = Path(__file__).resolve().parent / "RESULTS.md"
ROOT = RESULTS.parents[1]


def code_state() -> str:
    """The commit measured, and which app/ files differed from it (others edit the tree meanwhile)."""
    try:
        head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--", "app"], cwd=ROOT, capture_output=True, text=True).stdout
    except OSError:
        return "unknown (no git)"
    changed = [line[3:] for line in dirty.splitlines() if line.strip()]
    return f"commit {head or '?'}" + (f" with uncommitted changes in {', '.join(changed)}" if changed else ", clean app/")


def write_section(title: str, section: str, path: Path = RESULTS) -> None:
    """Replace the section that starts with ``title`` (a "## " heading) by ``section``, or append it."""
    text = path.read_text(encoding="utf-8") if path.exists() else "# Benchmark results\n\n"
    start = text.find(title + "\n")
    if start == -1:
        text = text.rstrip("\n") + "\n\n" + section
    else:
        end = text.find("\n## ", start + len(title))
        text = text[:start] + section.rstrip("\n") + "\n" + ("\n" + text[end + 1:] if end != -1 else "")
    path.write_text(text.rstrip("\n") + "\n", encoding="utf-8")


def without_version(value: Any) -> Any:
    """A result with every ``policy_version`` removed: servers on different policies compare equal."""
    if isinstance(value, dict):
        return {k: without_version(v) for k, v in value.items() if k != "policy_version"}
    if isinstance(value, list):
        return [without_version(v) for v in value]
    return value
