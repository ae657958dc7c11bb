"""The policy impact report (SPEC §3.0): what a policy change does to decisions, not to TOML lines.

    python -m app policy diff OLD NEW [--corpus FILE…] [--format md|json|html] [--fail-on-safety]

Built on the router alone (never the HTTP or protocol layer): both policies are loaded and
validated as the service does at start-up, compiled once each, and every text of the corpora goes
through both. ``sources`` reads a policy from a file or a git revision, ``data_diff`` compares the
two files section by section, ``corpora`` reads the labelled sets, ``decisions`` runs and groups the
changed decisions, ``render`` writes Markdown, JSON or one self-contained HTML page.
"""

from __future__ import annotations

from .corpora import DEFAULT_CORPORA, Corpus, load_corpora
from .decisions import KINDS, Report, build_report
from .render import render
from .sources import PolicySource, SourceError, read_source

__all__ = [
    "DEFAULT_CORPORA",
    "KINDS",
    "Corpus",
    "PolicySource",
    "Report",
    "SourceError",
    "build_report",
    "load_corpora",
    "read_source",
    "render",
]
