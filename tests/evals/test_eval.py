"""The end-to-end evaluation, through the real protocol: ``python evals/run.py`` must exit 0.

It starts its own server on a free loopback port with a fresh random token, drives every case of
``evals/cases.jsonl`` through the official MCP client in a shuffled order, and fails when a
``spec_rule`` case fails or intent accuracy on ``phrasing`` cases drops below 95 %. Reports go to a
temporary directory so a test run never rewrites the committed ``evals/REPORT.md``.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.network

ROOT = Path(__file__).resolve().parents[2]


def test_evaluation_passes_through_the_mcp_endpoint(tmp_path):
    proc = subprocess.run(
        [sys.executable, str(ROOT / "evals" / "run.py"), "--out", str(tmp_path)],
        cwd=ROOT, capture_output=True, text=True, timeout=120,
    )
    summary = proc.stdout + ("\n--- stderr ---\n" + proc.stderr if proc.stderr.strip() else "")
    assert proc.returncode == 0, summary
    report = json.loads((tmp_path / "report.json").read_text(encoding="utf-8"))
    assert report["meta"]["mode"] == "mcp (own server)", summary
    assert report["figures"]["overall"]["cases"] == len(report["cases"]) > 0, summary
    assert (tmp_path / "REPORT.md").is_file()
