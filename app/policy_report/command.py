"""``python -m app policy diff``: exit 0, 1 when a policy or corpus cannot be used, 3 with
``--fail-on-safety`` when a labelled emergency that halted no longer halts (SPEC §3.0)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TextIO

from .corpora import CorpusError, load_corpora
from .decisions import build_report
from .render import render
from .sources import SourceError, read_source

PROJECT = Path(__file__).resolve().parents[2]
EXIT_SAFETY = 3


def diff_command(old: str, new: str, corpora: list[str] | None, fmt: str, fail_on_safety: bool,
                 cwd: Path | None = None, out: TextIO | None = None) -> int:
    here = cwd or Path.cwd()
    try:
        report = build_report(read_source(old, here), read_source(new, here), load_corpora(corpora, here, PROJECT))
    except (SourceError, CorpusError) as exc:
        print(str(exc), file=sys.stderr)
        return 1
    (out or sys.stdout).write(render(report, fmt))
    failures = report.safety_failures
    if failures:
        print(f"{len(failures)} labelled emergencies no longer halt", file=sys.stderr)
    return EXIT_SAFETY if fail_on_safety and failures else 0
