"""The documents hold together: the README stays a front page, every relative link and anchor
resolves, no citation points at a document the repository does not hold, and the map of where each
rule lives names functions and tests that exist (a rename fails here until the map follows it)."""

from __future__ import annotations

import importlib
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
DOCS = sorted((ROOT / "docs").glob("*.md"))
# Hand-written documents whose links are checked; generated reports (evals/*/REPORT.md,
# docs/policy-changes/) are checked by the tests of what generates them.
LINKED = [README, *DOCS, ROOT / "evals" / "README.md"]
README_MAX_LINES = 250

_FENCE = re.compile(r"^(```|~~~).*?^\1[^\n]*$", re.M | re.S)
_CODE_SPAN = re.compile(r"`[^`\n]*`")
_LINK = re.compile(r"\]\(([^)\s]+)\)")
_HEADING = re.compile(r"^#{1,6}\s+(.+?)\s*#*\s*$", re.M)


def _prose(text: str) -> str:
    """The text outside code: a link written inside a code block or span is an example, not a link.
    Code spans inside link text ([`x`](y)) keep their link: the span is dropped, the ](y) stays."""
    return _CODE_SPAN.sub("", _FENCE.sub("", text))


def _slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower-case, link syntax and punctuation dropped (letters of
    any script, digits, '_' and '-' kept), spaces to '-'."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading).strip().lower()
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def _anchors(path: Path) -> set[str]:
    seen: dict[str, int] = {}
    anchors = set()
    for heading in _HEADING.findall(_FENCE.sub("", path.read_text(encoding="utf-8"))):
        slug = _slug(heading)
        count = seen.get(slug, 0)
        anchors.add(slug if count == 0 else f"{slug}-{count}")
        seen[slug] = count + 1
    return anchors


def _links(path: Path) -> list[str]:
    return [t for t in _LINK.findall(_prose(path.read_text(encoding="utf-8"))) if not re.match(r"^[a-z][a-z0-9+.-]*:", t)]


def _broken(path: Path) -> list[str]:
    problems = []
    for target in _links(path):
        file_part, _, anchor = target.partition("#")
        dest = (path.parent / file_part).resolve() if file_part else path
        if not dest.exists():
            problems.append(f"{target}: no such file")
        elif anchor and dest.suffix == ".md" and anchor not in _anchors(dest):
            problems.append(f"{target}: no heading #{anchor}")
    return problems


def test_readme_is_a_front_page():
    lines = README.read_text(encoding="utf-8").count("\n")
    assert lines <= README_MAX_LINES, f"README.md has {lines} lines; the details belong in docs/, evals/ or bench/"


@pytest.mark.parametrize("path", LINKED, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_resolves(path):
    assert _broken(path) == []


def test_every_document_is_reachable_from_the_readme():
    linked = {(README.parent / t.partition("#")[0]).resolve() for t in _links(README)}
    wanted = [*DOCS, ROOT / "evals" / "README.md", ROOT / "evals" / "peds" / "README.md", ROOT / "bench" / "RESULTS.md"]
    assert [str(p.relative_to(ROOT)) for p in wanted if p.resolve() not in linked] == []


def test_readme_cites_the_contract_not_the_spec():
    assert "SPEC §" not in README.read_text(encoding="utf-8")


def test_docs_cite_no_spec_section():
    """docs/contract.md is the contract the docs cite; SPEC is not in the repository."""
    assert [p.name for p in DOCS if "SPEC §" in p.read_text(encoding="utf-8")] == []


# -- the map of where each rule lives -------------------------------------------------------------

WHERE = ROOT / "docs" / "where-rules-live.md"
_FUNCTION = re.compile(r"`((?:(?:slots|policy)/)?[a-z_]+)\.py(?::([A-Za-z_][\w.]*))?`")
_TEST_FILE = re.compile(r"`((?:test_[a-z0-9_]+|family_tables|context_corpus)\.py)`")


def _named_functions() -> list[tuple[str, str]]:
    """(module under app/router, function or "" for the module alone); test files are not functions."""
    text = WHERE.read_text(encoding="utf-8")
    tests = {name.removesuffix(".py") for name in _TEST_FILE.findall(text)}
    return sorted({(m, f) for m, f in _FUNCTION.findall(text) if m not in tests})


def test_where_rules_live_names_functions():
    assert len(_named_functions()) >= 40  # the map is a map, not a stub: one or more per rule


@pytest.mark.parametrize("module, name", _named_functions(), ids=lambda v: v or "")
def test_where_rules_live_names_a_function_that_exists(module, name):
    dotted = ("app.router." + module.replace("/", ".")).removesuffix(".__init__")
    found = importlib.import_module(dotted)
    for part in name.split(".") if name else []:
        assert hasattr(found, part), f"{dotted} has no {name}"
        found = getattr(found, part)


def test_where_rules_live_names_test_files_that_exist():
    names = set(_TEST_FILE.findall(WHERE.read_text(encoding="utf-8")))
    assert names
    assert sorted(n for n in names if not (ROOT / "tests" / "router" / n).exists()) == []
