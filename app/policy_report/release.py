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

import sys
from pathlib import Path

from .corpora import load_corpora
from .decisions import build_report
from .render import render
from .sources import SourceError, read_source

PROJECT = Path(__file__).resolve().parents[2]
FOLDER = "docs/policy-changes"
RELEASED = f"{FOLDER}/released.toml"
SHIPPED = "app/router/policy.toml"
OUTPUTS = {"REPORT.md": "md", "REPORT.html": "html"}


class ReleasedPolicyRefused(SourceError):
    """The released policy no longer validates under this code: no report can compare the two."""


def release_report(project: Path = PROJECT) -> dict[str, str]:
    """File name → content of each committed report."""
    try:
        released = read_source(RELEASED, project)
    except SourceError as exc:
        # Both policies are read by the code being shipped, so the report shows what the policy
        # change does and nothing else. A field made required since the release breaks that, and
        # also breaks every operator's ROUTER_POLICY_FILE written for the release.
        raise ReleasedPolicyRefused(
            f"{exc}\nThe released policy ({FOLDER}/README.md) does not validate under this code. A policy field made "
            "required since the release refuses every policy file written for it: give the new field a default that "
            "keeps the released behaviour (an absent section = the rule off), then run `make policy-report`."
        ) from None
    corpora = load_corpora(None, project, project, local_texts=False)
    report = build_report(released, read_source(SHIPPED, project), corpora)
    return {name: render(report, fmt) for name, fmt in OUTPUTS.items()}


def main() -> int:
    try:
        reports = release_report()
    except SourceError as exc:
        print(str(exc), file=sys.stderr)
        return 1
    for name, content in reports.items():
        path = PROJECT / FOLDER / name
        path.write_text(content, encoding="utf-8")
        print(f"wrote {path.relative_to(PROJECT)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
