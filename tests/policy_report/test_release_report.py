"""docs/policy-changes/ is current for the shipped policy: regenerated here, compared byte for byte."""

from __future__ import annotations

from app.policy_report.release import FOLDER, PROJECT, RELEASED, release_report
from app.policy_report.sources import read_source


def test_the_committed_policy_report_is_current():
    stale = [name for name, content in release_report().items()
             if not (PROJECT / FOLDER / name).is_file() or (PROJECT / FOLDER / name).read_text(encoding="utf-8") != content]
    assert not stale, (f"{', '.join(f'{FOLDER}/{n}' for n in stale)} not current for app/router/policy.toml: "
                       "run `make policy-report` and commit the result")


def test_the_folder_names_the_released_policy():
    version = read_source(RELEASED, PROJECT).policy_version
    assert f"`{version}`" in (PROJECT / FOLDER / "README.md").read_text(encoding="utf-8")
