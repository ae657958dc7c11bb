"""The report is built on the router alone: importing every module of app.policy_report pulls in no
HTTP, protocol, MCP or logging code (SPEC §2). A fresh interpreter, so other tests' imports hide nothing."""

from __future__ import annotations

import subprocess
import sys

from tests.router.test_layering import FORBIDDEN

from .conftest import PROJECT

PROBE = """
import importlib, pkgutil, sys
class Block:
    def find_spec(self, name, path=None, target=None):
        if any(name == b or name.startswith(b + '.') for b in {blocked}):
            raise ImportError('policy_report imported ' + name)
sys.meta_path.insert(0, Block())
import app.policy_report
for info in pkgutil.iter_modules(app.policy_report.__path__):
    importlib.import_module('app.policy_report.' + info.name)
print('ok', len(list(pkgutil.iter_modules(app.policy_report.__path__))))
"""


def test_the_report_imports_no_server_code():
    result = subprocess.run([sys.executable, "-c", PROBE.replace("{blocked}", repr(set(FORBIDDEN)))],
                            capture_output=True, text=True, cwd=PROJECT, timeout=60)
    assert result.returncode == 0, result.stderr[-2000:]
    assert result.stdout.startswith("ok")
