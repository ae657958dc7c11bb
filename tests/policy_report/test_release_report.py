"""docs/policy-changes/ is current for the shipped policy: regenerated here, compared byte for byte."""

from __future__ import annotations

import shutil

import pytest

from app.policy_report.release import FOLDER, PROJECT, RELEASED, ReleasedPolicyRefused, release_report
from app.policy_report.sources import read_source


def test_the_committed_policy_report_is_current():
    stale = [name for name, content in release_report().items()
             if not (PROJECT / FOLDER / name).is_file() or (PROJECT / FOLDER / name).read_text(encoding="utf-8") != content]
    assert not stale, (f"{', '.join(f'{FOLDER}/{n}' for n in stale)} not current for app/router/policy.toml: "
                       "run `make policy-report` and commit the result")


def test_the_folder_names_the_released_policy():
    version = read_source(RELEASED, PROJECT).policy_version
    assert f"`{version}`" in (PROJECT / FOLDER / "README.md").read_text(encoding="utf-8")


def test_a_released_policy_the_code_refuses_says_what_to_do(tmp_path):
    project = tmp_path / "project"
    (project / FOLDER).mkdir(parents=True)
    (project / "app" / "router").mkdir(parents=True)
    shutil.copy(PROJECT / "app" / "router" / "policy.toml", project / "app" / "router" / "policy.toml")
    # A release that lacks a section this code requires: what merging a new required field does.
    released = (PROJECT / RELEASED).read_text(encoding="utf-8")
    start = released.index("[route]")
    (project / RELEASED).write_text(released[:start] + released[released.index("\n[", start + 1):], encoding="utf-8")
    with pytest.raises(ReleasedPolicyRefused) as refused:
        release_report(project)
    message = str(refused.value)
    assert "route: Field required" in message and "give the new field a default" in message and "make policy-report" in message
