"""``python -m app policy diff``: policies from files and git revisions, bad input, corpora."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from .conftest import PROJECT, SHIPPED, corpus, edited_policy, report_json, rows_of, run_diff


def git(cwd, *args: str) -> None:
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@example.invalid", *args], cwd=cwd, check=True,
                   capture_output=True, timeout=30)


def test_the_command_runs_through_python_dash_m(tmp_path):
    rows = corpus(tmp_path, [{"id": "a", "text": "孩子抽搐了"}])
    new = edited_policy(tmp_path, ('  "抽搐", "惊厥", "抽风",', '  "惊厥", "抽风",'))
    result = subprocess.run([sys.executable, "-m", "app", "policy", "diff", str(SHIPPED), str(new), "--corpus", str(rows),
                             "--format", "json", "--fail-on-safety"], capture_output=True, text=True, cwd=PROJECT, timeout=120)
    # The row has no label, so nothing is a *labelled* emergency: exit 0, the row still reported.
    assert result.returncode == 0, result.stderr
    assert [r["kind"] for r in rows_of(json.loads(result.stdout))] == ["halt_to_silent"]


def test_old_and_new_may_be_git_revisions(tmp_path):
    repo = tmp_path / "repo"
    (repo / "app" / "router").mkdir(parents=True)
    target = repo / "app" / "router" / "policy.toml"
    target.write_bytes(SHIPPED.read_bytes())
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", ".")
    git(repo, "commit", "-qm", "shipped")
    target.write_bytes(edited_policy(tmp_path, ('  "抽搐", "惊厥", "抽风",', '  "惊厥", "抽风",')).read_bytes())
    git(repo, "commit", "-qam", "one term fewer")
    rows = corpus(tmp_path, [{"id": "a", "text": "孩子抽搐了", "label": "emergency_now"}])
    code, text = run_diff("HEAD~1:app/router/policy.toml", "main:app/router/policy.toml", rows, fail_on_safety=True, cwd=repo)
    report = json.loads(text)
    assert code == 3
    assert report["old"]["source"] == "HEAD~1:app/router/policy.toml"
    assert [c["path"] for c in report["data_changes"]] == ["p0.concepts[seizure].terms"]
    code, _ = run_diff("HEAD~1:app/router/policy.toml", "app/router/policy.toml", rows, cwd=repo)
    assert code == 0


@pytest.mark.parametrize("old, message", [
    ("no/such/file.toml", "no such file, and not a git REV:PATH"),
    ("no-such-revision:app/router/policy.toml", "git show failed"),
    ("--output:x", "no such file, and not a git REV:PATH"),
], ids=["missing file", "unknown revision", "an option is never passed to git"])
def test_an_unreadable_policy_is_a_clear_error(capsys, old, message):
    code, out = run_diff(old, SHIPPED)
    assert (code, out) == (1, "")
    assert message in capsys.readouterr().err


def test_a_policy_the_service_would_refuse_is_refused(tmp_path, capsys):
    bad = edited_policy(tmp_path, ('delegate_to = "doctor_assistant"', 'delegate_to = "surgeon"'))
    code, _ = run_diff(SHIPPED, bad)
    assert code == 1
    err = capsys.readouterr().err
    assert "invalid policy" in err and "unknown role 'surgeon'" in err


def test_a_named_corpus_must_exist(capsys):
    assert run_diff(SHIPPED, SHIPPED, PROJECT / "no-such-corpus.jsonl")[0] == 1
    assert "no such file" in capsys.readouterr().err


def test_a_corpus_line_that_is_not_json_names_its_line(tmp_path, capsys):
    path = tmp_path / "bad.jsonl"
    path.write_text('{"text": "孩子抽搐了"}\nnot json\n', encoding="utf-8")
    assert run_diff(SHIPPED, SHIPPED, path)[0] == 1
    assert "bad.jsonl:2: not JSON" in capsys.readouterr().err


def test_any_jsonl_with_a_text_field_and_any_table_work(tmp_path):
    new = edited_policy(tmp_path, ('  "抽搐", "惊厥", "抽风",', '  "惊厥", "抽风",'))
    jsonl = corpus(tmp_path, [{"text": "孩子抽搐了"}, {"text": "孩子抽搐了", "caller": "doctor_assistant", "patient_id": "P0002"},
                              {"note": "no text here"}])
    table = tmp_path / "table.txt"
    table.write_text("# a comment\n孩子抽搐了\n\n今天吃什么\n", encoding="utf-8")
    code, report = report_json(SHIPPED, new, jsonl, table)
    assert code == 0
    assert [(r["corpus"], r["id"]) for r in rows_of(report)] == [(str(jsonl), "L001"), (str(jsonl), "L002"), (str(table), "L002")]
    assert report["corpora"][0]["skipped"] == {"no text (local texts not present)": 1}
