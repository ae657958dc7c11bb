"""Smoke test of bench/http_bench.py: it runs end to end against our server and reports a figure.

No speed is asserted (CI cores are shared); what is asserted is that the benchmark starts ours with
production settings, that every request of the mix is answered correctly before and during the
load (the script exits non-zero otherwise), and that a req/s figure comes out.

wrk is a system package (Debian/Ubuntu: ``apt-get install -y wrk``). Without it the test skips on
a workstation, but fails on CI (``CI`` set), where .ci/run installs it.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
ON_CI = os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no")


@pytest.mark.network
def test_http_bench_quick_ours():
    if shutil.which("wrk") is None:
        if ON_CI:
            pytest.fail("wrk is not installed on CI (apt-get install -y wrk)")
        pytest.skip("wrk is not installed (apt-get install -y wrk)")
    done = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "http_bench.py"), "--quick", "--only", "ours",
         "--duration", "2", "--warmup", "1", "--connections", "4", "--mix-size", "60"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert done.returncode == 0, f"exit {done.returncode}\nstdout:\n{done.stdout}\nstderr:\n{done.stderr}"
    assert re.search(r"ours\s+c=4\s+[\d,]+ req/s", done.stdout), done.stdout
    assert "NOT CLEAN" not in done.stdout, done.stdout
