"""The three formats: escaping, one self-contained HTML page, and that page in a real browser.

The browser test drives Debian's Chromium headless (scripts/ensure-system-tools.sh installs it):
``--dump-dom`` gives the page as the browser parsed it, ``--screenshot`` proves it renders. It
asserts on the text, never on pixels. Without Chromium it skips, and on CI (CI=true) it fails."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from html.parser import HTMLParser

import pytest

from .conftest import SHIPPED, corpus, edited_policy, run_diff

IN_CI = os.environ.get("CI", "").lower() in {"1", "true", "yes"}
HOSTILE = '孩子抽搐了 | </td><script>document.title="pwned"</script> "引号" & 换行\n第二行'


@pytest.fixture
def hostile_report(tmp_path):
    new = edited_policy(tmp_path, ('  "抽搐", "惊厥", "抽风",', '  "惊厥", "抽风",'))
    rows = corpus(tmp_path, [{"id": "x<1>", "text": HOSTILE, "label": "emergency_now"}, {"id": "calm", "text": "孩子能吃苹果吗"}])
    return {fmt: run_diff(SHIPPED, new, rows, fmt=fmt)[1] for fmt in ("md", "json", "html")}


def test_markdown_keeps_a_hostile_text_in_one_cell(hostile_report):
    md = hostile_report["md"]
    [line] = [line for line in md.splitlines() if "x&lt;1&gt;" in line]
    assert len(re.findall(r"(?<!\\)\|", line)) == 8  # seven cells, nothing broke out of its cell
    assert "<script>" not in md and "第二行" in line


def test_html_escapes_every_text_and_loads_nothing(hostile_report):
    page = hostile_report["html"]
    assert "<script" not in page and "&lt;script&gt;" in page
    assert not re.search(r"(?i)\b(src|href)\s*=|<link|@import|url\(", page)
    assert "http://" not in page and "https://" not in page


class Text(HTMLParser):
    def __init__(self):
        super().__init__()
        self.title, self.details, self.parts, self._in = "", 0, [], None

    def handle_starttag(self, tag, attrs):
        self._in = tag
        self.details += tag == "details"

    def handle_endtag(self, tag):
        self._in = None

    def handle_data(self, data):
        if self._in == "title":
            self.title += data
        self.parts.append(data)


def chromium() -> str:
    found = shutil.which("chromium") or shutil.which("chromium-browser")
    if found:
        return found
    reason = "chromium is not installed (scripts/ensure-system-tools.sh installs Debian's chromium)"
    if IN_CI:
        pytest.fail(reason)
    pytest.skip(reason)


def test_the_html_page_in_a_headless_browser(hostile_report, tmp_path):
    browser = chromium()
    page = tmp_path / "report.html"
    page.write_text(hostile_report["html"], encoding="utf-8")
    shot = tmp_path / "report.png"
    common = [browser, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
              f"--user-data-dir={tmp_path / 'profile'}", "--blink-settings=scriptEnabled=true"]
    dom = subprocess.run([*common, "--dump-dom", page.as_uri()], capture_output=True, text=True, timeout=120)
    assert dom.returncode == 0, dom.stderr[-2000:]
    parsed = Text()
    parsed.feed(dom.stdout)
    text = " ".join(" ".join(parsed.parts).split())
    assert parsed.title == "Policy impact report"  # the row's <script> stayed text: it never ran
    assert "1 decision changed on 2 texts: 1 safety-relevant; by their labels 0 fixed, 1 broke. 1 data change." in text
    assert "halt → passes silently" in text and "Decision changes by kind" in text
    assert 'document.title="pwned"' in text and "x<1>" in text and "emergency_now" in text and "broke" in text
    assert parsed.details == 2  # one data section, one group, each folded
    snap = subprocess.run([*common, f"--screenshot={shot}", "--window-size=1280,900", page.as_uri()],
                          capture_output=True, text=True, timeout=120)
    assert snap.returncode == 0, snap.stderr[-2000:]
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and shot.stat().st_size > 5000
