"""The release notes' policy report (SPEC §3.0): the shipped policy against the last released one.

    python -m app.policy_report.release      rewrite docs/policy-changes/REPORT.md and REPORT.html

``make policy-report`` runs this; tests/policy_report/test_release_report.py regenerates both in
memory and fails when the committed files differ. The released policy is a byte copy in
``docs/policy-changes/released.toml`` (its commit is named in that folder's README), so neither
needs the git history, which a shallow CI clone does not have. Paths are written relative to the
project, nothing depends on the clock, and the git-ignored local texts of evals/peds are not read
(those rows are counted as skipped), so the files come out the same on every machine.
"""

from __future__ import annotations

from pathlib import Path

from .corpora import load_corpora
from .decisions import build_report
from .render import render
from .sources import read_source

PROJECT = Path(__file__).resolve().parents[2]
FOLDER = "docs/policy-changes"
RELEASED = f"{FOLDER}/released.toml"
SHIPPED = "app/router/policy.toml"
OUTPUTS = {"REPORT.md": "md", "REPORT.html": "html"}


def release_report(project: Path = PROJECT) -> dict[str, str]:
    """File name → content of each committed report."""
    corpora = load_corpora(None, project, project, local_texts=False)
    report = build_report(read_source(RELEASED, project), read_source(SHIPPED, project), corpora)
    return {name: render(report, fmt) for name, fmt in OUTPUTS.items()}


def main() -> int:
    for name, content in release_report().items():
        path = PROJECT / FOLDER / name
        path.write_text(content, encoding="utf-8")
        print(f"wrote {path.relative_to(PROJECT)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
