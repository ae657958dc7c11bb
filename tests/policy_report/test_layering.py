"""The report is built on the router alone: importing every module of app.policy_report pulls in no
HTTP, protocol, MCP or logging code (SPEC §2). A fresh interpreter, so other tests' imports hide nothing."""

from __future__ import annotations

from tests.router.test_layering import imports_nothing_forbidden


def test_the_report_imports_no_server_code():
    result = imports_nothing_forbidden("app.policy_report")
    assert result.returncode == 0, result.stderr[-2000:]
    assert result.stdout.startswith("ok")
