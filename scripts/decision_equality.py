"""Do two trees decide alike? Every public router tool over every corpus we have, in both trees, in
ONE process, the full JSON results compared.

    python scripts/decision_equality.py TREE_A TREE_B [--extra FILE.jsonl ...] [--quick]
        [--ignore-policy-version] [--ignore-null-field NAME ...]

TREE_A / TREE_B: two checkouts (``/work/main`` and a worktree, or ``git worktree add /tmp/x REV``);
each is loaded with its own ``app/router`` and its own ``policy.toml``. Texts are read from both
trees and run through both routers, so a corpus one branch extends is compared too:

* the pediatric set's texts, every split (``evals/peds/rows.jsonl`` and the git-ignored
  ``evals/peds/local/texts.jsonl``; rebuild the latter with ``python evals/peds/texts.py``),
* the adult real texts (``evals/realtext/*.jsonl``), the end-to-end cases of ``evals/cases.jsonl``
  (each with its own tool and arguments, as written),
* the context corpus of ``tests/router/context_corpus.py``, the text files of ``tests/data/``, and
  every string literal with a non-ASCII character in ``tests/**/*.py`` (the test tables' texts),
* ``--extra``: any JSON-lines file with a ``text`` field (the unlabelled pool, for instance).

Texts read from files keep the licence rule: only those whose sha256 starts with 0–7. The check
compares results and prints ids and the names of the fields that differ, never a text or a value:
it may run over the pediatric test split, whose texts and router output nobody may look at.

Per text: ``route_request`` for every caller role (patient id given; and once without one, and
once with a token role scope that excludes the caller), again with every flagged concept
acknowledged, then confirmed; ``classify_intent``; ``extract_slots``; ``check_safety_gate`` for
every caller, once with a target MCP and once with the flagged concepts acknowledged. Then
``check_permission`` over every role × MCP × action. All through ``Router.call``, the untrusted
entry the protocol layer uses, with today's date fixed. Exit status 1 when anything differs.
"""

from __future__ import annotations

import argparse
import ast
import hashlib
import json
import sys
from collections import Counter
from datetime import date
from pathlib import Path
from types import ModuleType
from typing import Any, Iterator

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.compare_router import load  # noqa: E402

TODAY = date(2026, 3, 10)
REFERENCE = TODAY.isoformat()
PATIENT = "P0001"
SHOWN = 40  # differences listed one by one; the rest are counted


def allowed(text: str) -> bool:
    return hashlib.sha256(text.strip().encode()).hexdigest()[0] in "01234567"


def _jsonl(path: Path) -> Iterator[dict[str, Any]]:
    if path.is_file():
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                yield json.loads(line)


def _literals(path: Path) -> Iterator[str]:
    try:
        tree = ast.parse(path.read_text(encoding="utf-8"))
    except SyntaxError:
        return
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and not node.value.isascii():
            yield node.value


def _context_corpus(tree: Path) -> list[tuple[str, str]]:
    path = tree / "tests" / "router" / "context_corpus.py"
    if not path.is_file():
        return []
    namespace: dict[str, Any] = {"__name__": f"context_corpus_{abs(hash(str(tree)))}"}
    exec(compile(path.read_text(encoding="utf-8"), str(path), "exec"), namespace)  # noqa: S102 - our own test module
    rows = namespace["emergencies"]() + namespace["controls"]()
    return [(f"context:{row.id}", row.text) for row in rows]


def texts(trees: list[Path], extra: list[Path]) -> dict[str, str]:
    """text → an id that names where it came from (the first place it was found)."""
    found: dict[str, str] = {}

    def add(ident: str, text: Any) -> None:
        if isinstance(text, str) and text not in found:
            found[text] = ident

    for tree in trees:
        for row in _jsonl(tree / "evals" / "peds" / "rows.jsonl"):
            if "text" in row and allowed(row["text"]):
                add(f"peds:{row['id']}", row["text"])
        for row in _jsonl(tree / "evals" / "peds" / "local" / "texts.jsonl"):
            if allowed(row["text"]):
                add(f"peds-local:{row['id']}", row["text"])
        for path in sorted((tree / "evals" / "realtext").glob("*.jsonl")):
            for row in _jsonl(path):
                if "text" in row and allowed(row["text"]):
                    add(f"realtext:{row.get('id')}", row["text"])
        for ident, text in _context_corpus(tree):
            add(ident, text)
        for path in sorted((tree / "tests" / "data").glob("*.txt")):
            for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
                if line.strip() and not line.startswith("#"):
                    add(f"tests/data/{path.name}:{number}", line)
        for path in sorted((tree / "tests").rglob("*.py")):
            for text in _literals(path):
                add(f"{path.relative_to(tree)}:literal", text)
    for path in extra:
        for number, row in enumerate(_jsonl(path), 1):
            if allowed(row["text"]):
                add(f"{path.name}:{row.get('id', number)}", row["text"])
    return found


def cases(trees: list[Path]) -> dict[str, tuple[str, Any]]:
    found: dict[str, tuple[str, Any]] = {}
    for tree in trees:
        for row in _jsonl(tree / "evals" / "cases.jsonl"):
            found.setdefault(f"case:{row['id']}", (row["tool"], row["arguments"]))
    return found


def outcome(router: Any, tool: str, arguments: Any, roles: frozenset[str] | None = None) -> Any:
    """The JSON a client would get: the result, or the error's type and message."""
    try:
        return router.call(tool, arguments, roles).model_dump(mode="json")
    except Exception as exc:  # noqa: BLE001 - an error is an outcome to compare too
        return {"error": type(exc).__name__, "message": str(exc)}


def concepts(results: list[Any]) -> list[str]:
    seen: dict[str, None] = {}
    for result in results:
        for flag in result.get("red_flags") or []:
            seen[flag["concept"]] = None
    return sorted(seen)


def _without_version(value: Any) -> Any:
    """The result with every ``policy_version`` left out: a policy edited only in its comments gets
    a new version (a hash of the file) and must still decide alike."""
    if isinstance(value, dict):
        return {k: _without_version(v) for k, v in value.items() if k != "policy_version"}
    if isinstance(value, list):
        return [_without_version(v) for v in value]
    return value


def _without_nulls(value: Any, names: frozenset[str]) -> Any:
    """The result with every key of ``names`` left out where it is null: a field one tree added, null
    whenever the other tree has nothing to say (``red_flags[].fact`` without patient facts)."""
    if isinstance(value, dict):
        return {k: _without_nulls(v, names) for k, v in value.items() if not (k in names and v is None)}
    if isinstance(value, list):
        return [_without_nulls(v, names) for v in value]
    return value


class Comparison:
    def __init__(self, routers: list[Any], ignore_version: bool = False, null_fields: frozenset[str] = frozenset()):
        self.routers = routers
        self.ignore_version = ignore_version
        self.null_fields = null_fields
        self.calls = Counter[str]()
        self.differences = Counter[str]()
        self.shown: list[str] = []

    def run(self, ident: str, tool: str, arguments: Any, roles: frozenset[str] | None = None) -> list[Any]:
        results = [outcome(router, tool, arguments, roles) for router in self.routers]
        if self.ignore_version:
            results = [_without_version(r) for r in results]
        if self.null_fields:
            results = [_without_nulls(r, self.null_fields) for r in results]
        self.calls[tool] += 1
        if results[0] != results[1]:
            self.differences[tool] += 1
            if len(self.shown) < SHOWN:
                self.shown.append(f"{ident} {tool} {sorted(k for k in _fields(arguments))}: {_differing(*results)}")
        return results


def _fields(arguments: Any) -> list[str]:
    return [f"{k}={v}" for k, v in arguments.items() if k not in ("text", "intent")] if isinstance(arguments, dict) else []


def _differing(a: Any, b: Any) -> list[str]:
    if isinstance(a, dict) and isinstance(b, dict):
        return sorted(k for k in a.keys() | b.keys() if a.get(k) != b.get(k))
    return ["<whole result>"]


def compare(modules: list[ModuleType], corpus: dict[str, str], cases_: dict[str, tuple[str, Any]], quick: bool,
            ignore_version: bool = False, null_fields: frozenset[str] = frozenset()) -> Comparison:
    routers = [m.Router(m.load_policy(), m.Limits(), today=lambda: TODAY) for m in modules]
    policy = routers[1].policy
    roles = list(dict.fromkeys(list(routers[0].policy.roles) + list(policy.roles)))
    mcps = list(dict.fromkeys(list(routers[0].policy.mcp_id) + list(policy.mcp_id)))
    check = Comparison(routers, ignore_version, null_fields)
    callers = roles[:2] if quick else roles
    for text, ident in corpus.items():
        text = text[:2000]
        base = {"text": text, "patient_id": PATIENT, "reference_date": REFERENCE}
        routed = [r for caller in callers for r in check.run(ident, "route_request", base | {"caller": caller})]
        check.run(ident, "route_request", {"text": text, "caller": "parent_assistant", "reference_date": REFERENCE})
        check.run(ident, "route_request", base | {"caller": "doctor_assistant"}, frozenset({"parent_assistant"}))
        flagged = concepts(routed)
        if flagged:
            for name in ("acknowledged_red_flags", "confirmed_red_flags"):
                for caller in ("parent_assistant", "doctor_assistant"):
                    check.run(ident, "route_request", base | {"caller": caller, name: flagged})
        check.run(ident, "classify_intent", {"text": text})
        check.run(ident, "extract_slots", {"text": text, "reference_date": REFERENCE})
        for caller in callers:
            check.run(ident, "check_safety_gate", {"intent": text, "caller": caller})
        check.run(ident, "check_safety_gate", {"intent": text, "caller": "nutritionist", "target_mcp": "a207-meal-plan-mcp"})
        if flagged:
            check.run(ident, "check_safety_gate", {"intent": text, "caller": "parent_assistant", "acknowledged_red_flags": flagged})
    actions = ["read", "write", "", "WRITE", "push_to_emr", "notify_parent", "upsert_lab_result", "delete_everything", "ｐｕｓｈ＿ｔｏ＿ｅｍｒ"]
    actions += [name for name in policy.write_tools if name not in actions]
    for caller in roles + ["nobody"]:
        for mcp in mcps + ["a207-unknown-mcp"]:
            for action in actions:
                check.run(f"permission:{caller}:{mcp}:{action}", "check_permission", {"caller": caller, "mcp": mcp, "action": action})
                check.run(f"permission-scoped:{caller}", "check_permission", {"caller": caller, "mcp": mcp, "action": action},
                          frozenset({"parent_assistant"}))
    for ident, (tool, arguments) in cases_.items():
        check.run(ident, tool, arguments)
    return check


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("tree_a", type=Path)
    parser.add_argument("tree_b", type=Path)
    parser.add_argument("--extra", type=Path, action="append", default=[], help="a JSON-lines file of texts (repeatable)")
    parser.add_argument("--quick", action="store_true", help="two caller roles instead of every role")
    parser.add_argument("--ignore-policy-version", action="store_true",
                        help="leave policy_version out of the comparison (a policy edited only in its comments)")
    parser.add_argument("--ignore-null-field", action="append", default=[], metavar="NAME",
                        help="leave out a result field NAME where it is null (a field one tree added; repeatable)")
    args = parser.parse_args()
    trees = [args.tree_a.resolve(), args.tree_b.resolve()]
    modules = [load(tree, f"router_equality_{i}") for i, tree in enumerate(trees)]
    corpus = texts(trees, args.extra)
    cases_ = cases(trees)
    check = compare(modules, corpus, cases_, args.quick, args.ignore_policy_version, frozenset(args.ignore_null_field))
    print(f"{trees[0]} against {trees[1]}: {len(corpus)} texts, {len(cases_)} cases; calls per tool: {dict(check.calls)}")
    for line in check.shown:
        print("  differs:", line)
    total = sum(check.differences.values())
    print(f"differences: {total} of {sum(check.calls.values())} calls" + (f" {dict(check.differences)}" if total else ""))
    return 1 if total else 0


if __name__ == "__main__":
    sys.exit(main())
