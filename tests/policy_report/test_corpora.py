"""Corpora: the pediatric set's rows without published texts, its held-out split, and labels that
tell a fix from a break."""

from __future__ import annotations

import json
from pathlib import Path

from app.policy_report import build_report, load_corpora, read_source
from app.policy_report.render import as_json, render

from .conftest import SHIPPED, edited_policy, rows_of

NO_SEIZURE = ('  "抽搐", "惊厥", "抽风",', '  "惊厥", "抽风",')
NEW_TERM = ('  "抽搐", "惊厥", "抽风",', '  "打摆子", "抽搐", "惊厥", "抽风",')


def write_jsonl(path: Path, rows: list[dict]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")


def peds_project(tmp_path: Path) -> Path:
    project = tmp_path / "project"
    write_jsonl(project / "evals" / "peds" / "rows.jsonl", [
        {"id": "hua-1", "source": "huatuo", "split": "dev", "text": "宝宝抽搐了", "emergency": "now", "intent": "emergency_red_flag"},
        {"id": "cmdd-7", "source": "cmdd", "split": "dev", "emergency": "now"},
        {"id": "cmdd-8", "source": "cmdd", "split": "dev", "emergency": "none"},
        {"id": "hua-9", "source": "huatuo", "split": "test", "text": "宝宝抽搐了", "emergency": "now"},
    ])
    write_jsonl(project / "evals" / "peds" / "local" / "texts.jsonl", [{"id": "cmdd-7", "text": "孩子刚才抽搐了"}])
    return project


def report_for(tmp_path: Path, project: Path, *edits: tuple[str, str]):
    new = read_source(str(edited_policy(tmp_path, *edits)))
    return build_report(read_source(str(SHIPPED)), new, load_corpora(None, tmp_path, project))


def test_peds_rows_without_text_come_from_local_texts_and_are_shown_by_id_only(tmp_path):
    report = report_for(tmp_path, peds_project(tmp_path), NO_SEIZURE)
    data = as_json(report)
    peds = next(c for c in data["corpora"] if c["name"] == "evals/peds/rows.jsonl")
    assert peds["run"] == 2
    assert peds["skipped"] == {"held-out test split": 1, "no text (local texts not present)": 1}
    rows = {r["id"]: r for r in rows_of(data)}
    assert set(rows) == {"hua-1", "cmdd-7"}
    assert rows["hua-1"]["text"] == "宝宝抽搐了"
    assert rows["cmdd-7"]["text"] is None and rows["cmdd-7"]["emergency_label"]
    for fmt in ("md", "json", "html"):
        page = render(report, fmt)
        assert "孩子刚才" not in page, fmt  # the local-only text never reaches a report
        assert "cmdd-7" in page, fmt
    assert len(report.safety_failures) == 2


def test_a_committed_report_never_reads_the_local_texts(tmp_path):
    project = peds_project(tmp_path)
    [peds] = [c for c in load_corpora(None, tmp_path, project, local_texts=False) if c.name == "evals/peds/rows.jsonl"]
    assert [i.id for i in peds.items] == ["hua-1"]
    assert peds.skipped == {"held-out test split": 1, "no text in the committed set (local texts not read)": 2}


def test_labels_tell_fixed_from_broke(tmp_path):
    project = tmp_path / "project"
    write_jsonl(project / "evals" / "realtext" / "redflags.jsonl", [
        {"id": "now", "text": "孩子打摆子了", "label": "emergency_now"},
        {"id": "none", "text": "孩子打摆子了", "label": "no_mention"},
        {"id": "border", "text": "孩子打摆子了", "label": "borderline"},
        {"id": "plain", "text": "孩子打摆子了"},
    ])
    rows = {r["id"]: r for r in rows_of(as_json(report_for(tmp_path, project, NEW_TERM)))}
    assert {i: (r["kind"], r["verdict"]) for i, r in rows.items()} == {
        "now": ("silent_to_halt", "fixed"), "none": ("silent_to_halt", "broke"),
        "border": ("silent_to_halt", None), "plain": ("silent_to_halt", None)}
    assert rows["border"]["label"] == "borderline" and rows["plain"]["label"] is None


def test_the_decision_tables_expect_halt_confirm_or_neither(tmp_path):
    project = tmp_path / "project"
    for name in ("p0_evasions.txt", "p0_ask.txt", "p0_benign.txt"):
        path = project / "tests" / "data" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("# table\n孩子抽搐了\n", encoding="utf-8")
    rows = {r["corpus"].rsplit("/", 1)[1]: r for r in rows_of(as_json(report_for(tmp_path, project, NO_SEIZURE)))}
    assert {n: (r["label"], r["verdict"]) for n, r in rows.items()} == {
        "p0_evasions.txt": ("expects halt", "broke"),
        "p0_ask.txt": ("expects confirm", None),
        "p0_benign.txt": ("expects neither halt nor confirm", "fixed"),
    }
