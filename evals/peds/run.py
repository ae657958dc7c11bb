"""The router on parents' own words: the pediatric real-text set (issue 19), per split and per source.

    python evals/peds/run.py                       every figure, targets checked, dev misses listed
    python evals/peds/run.py --record              also rewrite this tree's section of evals/peds/REPORT.md
    python evals/peds/run.py --app-root DIR --section "Baseline (main @ 295f4c9)" --record
                                                   the same with the router of another checkout
                                                   (a ``git worktree`` of an older commit)
    python evals/peds/run.py --facts               every route_request with the patient facts that
                                                   ``evals/facts/derive.py`` derives from the row
                                                   (its age label, a therapy its text states)

Labels come from ``rows.jsonl`` (written blind to the router, merged by ``merge.py``). Texts of the
committable sources are in ``rows.jsonl``; the local-only texts (cmdd, dxy) come from
``local/texts.jsonl`` (``python evals/peds/texts.py``). Without that file only the committed part
is measured, and the report says so.

Scoring rules (LABELS.md is the label side of them):

* Emergencies — ``route_request`` as ``parent_assistant`` for session patient P0001 on 2026-12-01.
  Silent miss: a ``now`` row that neither halts nor confirms. Children's now: ``now`` with
  ``who`` = child, halting. False halts: halts among all non-emergencies (``none`` + ``not_now``) and
  among ``not_now`` (every one mentions a sign). ``borderline`` rows are shown, never scored.
* Intent — ``classify_intent`` on in-domain questions (label ≠ ``out_of_scope``). The expected
  answer follows SPEC §4.2: on a ``now`` row whose signs are not all soft it is
  ``emergency_red_flag`` (a current red flag forces it); on a soft-only ``now`` row both the labelled
  intent and ``emergency_red_flag`` agree (a soft form is not a red flag of its own, §4.7 revision 2,
  but a router that reads it as one has not misread the question); on every other row, the labelled
  intent. ``unknown`` rate over the same rows: "in-domain with a domain word" (issue 21) is
  approximated by "labelled with an in-domain intent", so bare follow-ups the issue exempts count.
* Slots — ``extract_slots``: rows with a labelled age, weight or temperature are exact when all three
  agree to ±0.01 (a null agrees only with a null); rows without one pass when the router fills none.

Exit status: 0 when every target is met on the test split, 1 when one is missed, 2 when nothing
could be read.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import subprocess
import sys
import time
from collections import Counter
from datetime import date
from pathlib import Path
from typing import Any, Callable

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))
from evals.facts.derive import facts_of  # noqa: E402
from evals.realtext.run import Target, flags, one_line, rate, same  # noqa: E402

ROWS = HERE / "rows.jsonl"
LOCAL_TEXTS = HERE / "local" / "texts.jsonl"
POOL_ROWS = HERE / "pool_rows.jsonl"
LOCAL_POOL_TEXTS = HERE / "local" / "pool_texts.jsonl"
SEALED_ROWS = HERE / "sealed_rows.jsonl"
LOCAL_SEALED_TEXTS = HERE / "local" / "sealed_texts.jsonl"
REPORT = HERE / "REPORT.md"
REFERENCE = date(2026, 12, 1)
CALLER = "parent_assistant"
SESSION_PATIENT = "P0001"
SLOT_FIELDS = ("age_years", "weight_kg", "temperature_c")
ASKS = ("halt", "confirm")
COMMITTABLE = ("huatuo", "remedi")
SOURCES = ("huatuo", "remedi", "cmdd", "dxy")
POOL_SOURCES = ("cmdd", "imcs")  # README "The pool": the pool draws on these two
SPLITS = ("dev", "test")
THIS_TREE = "This branch"

Outcome = dict[str, Any]


# ------------------------------------------------------------------------------------------------
# Rows and the router
# ------------------------------------------------------------------------------------------------


def load_rows(local: Path | None = LOCAL_TEXTS, path: Path = ROWS) -> tuple[list[dict[str, Any]], bool]:
    """Every labelled row, with its text where one is at hand; True when the local texts were read."""
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    if local is None or not local.is_file():
        return rows, False
    texts = {}
    for line in local.read_text(encoding="utf-8").splitlines():
        item = json.loads(line)
        texts[item["id"]] = item
    for row in rows:
        item = texts.get(row["id"])
        if "text" not in row and item and hashlib.sha256(item["text"].encode("utf-8")).hexdigest() == row["sha256"]:
            row["text"] = item["text"]
    return rows, True


def make_router(app_root: Path | None) -> Any:
    """The router of this checkout, or of ``app_root`` (whose ``app`` package is imported instead)."""
    if app_root is not None:
        sys.path.insert(0, str(app_root.resolve()))
    from app.router import Router, load_policy

    return Router(load_policy(), today=lambda: REFERENCE)


def run_router(router: Any, rows: list[dict[str, Any]], facts: bool = False) -> list[Outcome]:
    """One outcome per row with a text: the gate's status, the intent and the slots. ``facts``: route
    with the patient facts derived from the row (``evals/facts/derive.py``)."""
    out = []
    for row in rows:
        if "text" not in row:
            continue
        extra = {"patient_facts": facts_of(row, row["text"])} if facts else {}
        routed = router.route_request(row["text"], caller=CALLER, patient_id=SESSION_PATIENT,
                                      reference_date=REFERENCE, **extra).model_dump(mode="json")
        intent = router.classify_intent(row["text"]).model_dump(mode="json")["intent"]
        slots = router.extract_slots(row["text"], reference_date=REFERENCE).model_dump(mode="json")
        # A matched term is words of the text: a local-only row shows only concept and context.
        shown = flags(routed) if row["source"] in COMMITTABLE else ", ".join(
            f"{f.get('concept')}:{f.get('context')}" for f in routed.get("red_flags") or []) or "none"
        out.append({"row": row, "status": routed["status"], "flags": shown, "intent": intent,
                    "slots": {name: slots.get(name) for name in SLOT_FIELDS}})
    return out


# ------------------------------------------------------------------------------------------------
# Figures
# ------------------------------------------------------------------------------------------------


def has_value(row: dict[str, Any]) -> bool:
    return any(row[name] is not None for name in SLOT_FIELDS)


def in_domain(row: dict[str, Any]) -> bool:
    return bool(row["intent"] != "out_of_scope")


# SPEC §4.7 revision 3: fever alone — however high or long — is a symptom that asks, not a hard sign.
# The labels were written under revision 2, where a fever that would not come down was the hard
# concept ``persistent_fever``; a row whose only hard sign is that one is read as a symptom row.
SYMPTOM_ONLY = frozenset({"persistent_fever"})


def hard_sign(row: dict[str, Any]) -> bool:
    return not row["soft"] and bool(set(row.get("concepts", ())) - SYMPTOM_ONLY)


def intent_agrees(row: dict[str, Any], got: str) -> bool:
    if row["emergency"] == "now" and hard_sign(row):
        return got == "emergency_red_flag"
    if row["emergency"] == "now":
        return got in (row["intent"], "emergency_red_flag")
    return bool(got == row["intent"])


def slots_exact(outcome: Outcome) -> bool:
    return all(same(outcome["row"][name], outcome["slots"][name]) for name in SLOT_FIELDS)


def fills_nothing(outcome: Outcome) -> bool:
    return all(outcome["slots"][name] is None for name in SLOT_FIELDS)


def targets(outcomes: list[Outcome]) -> list[Target]:
    """The targets of issues 20 and 21 on these outcomes."""
    now = [o for o in outcomes if o["row"]["emergency"] == "now"]
    # SPEC §4.7 rev 2, "Soft signs ask; they never pass": a current mild form asks for its
    # severity (confirm), so halting is measured on the children's current emergencies with a
    # hard sign; the soft-only ones count as silent misses when they pass (the first figure).
    child = [o for o in now if o["row"]["who"] == "child" and hard_sign(o["row"])]
    quiet = [o for o in outcomes if o["row"]["emergency"] in ("none", "not_now")]
    mentions = [o for o in outcomes if o["row"]["emergency"] == "not_now"]
    domain = [o for o in outcomes if in_domain(o["row"])]
    valued = [o for o in outcomes if has_value(o["row"])]
    empty = [o for o in outcomes if not has_value(o["row"])]
    measured = [
        ("silent misses among now (neither halt nor confirm)", sum(o["status"] not in ASKS for o in now), len(now), 0.02, True),
        ("children's now with a hard sign that halt", sum(o["status"] == "halt" for o in child), len(child), 0.85, False),
        ("false halts among non-emergencies (none + not_now)", sum(o["status"] == "halt" for o in quiet), len(quiet), 0.05, True),
        ("false halts among not_now mentions", sum(o["status"] == "halt" for o in mentions), len(mentions), 0.25, True),
        ("intent agreement on in-domain questions", sum(intent_agrees(o["row"], o["intent"]) for o in domain), len(domain),
         0.80, False),
        ("`unknown` on in-domain questions", sum(o["intent"] == "unknown" for o in domain), len(domain), 0.10, True),
        ("slots exact on rows with a labelled value", sum(slots_exact(o) for o in valued), len(valued), 0.95, False),
        ("no value filled on rows without one", sum(fills_nothing(o) for o in empty), len(empty), 0.98, False),
    ]
    out = []
    for name, hits, total, bound, at_most in measured:
        value, count = rate(hits, total)
        out.append(Target(name, value, bound, at_most, count))
    return out


def scopes(outcomes: list[Outcome], split: str,
           sources: tuple[str, ...] = SOURCES) -> list[tuple[str, list[Outcome]]]:
    """(name, outcomes) for one split: committed part, everything, then each source."""
    rows = [o for o in outcomes if o["row"]["split"] == split]
    out = [("committed", [o for o in rows if o["row"]["source"] in COMMITTABLE]), ("all measured", rows)]
    out += [(source, [o for o in rows if o["row"]["source"] == source]) for source in sources]
    return out


def status_of(outcome: Outcome) -> str:
    return str(outcome["status"]) if outcome["status"] in ASKS else "passes"


def emergency_table(outcomes: list[Outcome], sources: tuple[str, ...] = SOURCES) -> str:
    table = ["| split | source | emergency | who | rows | halt | confirm | passes (neither) |",
             "|---|---|---|---|---:|---:|---:|---:|"]
    present = {o["row"]["split"] for o in outcomes}
    for split in [s for s in SPLITS if s in present] + sorted(present - set(SPLITS)):
        for source in sources:
            for label in ("now", "borderline", "not_now", "none"):
                for who in ("child", "writer", "other", None):
                    chosen = [o for o in outcomes if (o["row"]["split"], o["row"]["source"], o["row"]["emergency"],
                                                      o["row"]["who"]) == (split, source, label, who)]
                    if chosen:
                        c = Counter(status_of(o) for o in chosen)
                        table.append(f"| {split} | {source} | {label} | {who or '–'} | {len(chosen)} | {c['halt']} | "
                                     f"{c['confirm']} | {c['passes']} |")
    return "\n".join(table)


def intent_table(outcomes: list[Outcome]) -> str:
    domain = [o for o in outcomes if in_domain(o["row"]) and o["row"]["split"] == "dev"]
    wrong = Counter((o["row"]["intent"] if o["row"]["emergency"] != "now" else "now:" + o["row"]["intent"], o["intent"])
                    for o in domain if not intent_agrees(o["row"], o["intent"]))
    table = ["| dev: labelled → router | rows |", "|---|---:|"]
    table += [f"| {want} → {got} | {n} |" for (want, got), n in wrong.most_common(25)]
    return "\n".join(table)


def misses(outcomes: list[Outcome]) -> list[str]:
    """Every dev miss, the text shown for committable rows, the id alone for local-only ones."""
    def shown(o: Outcome) -> str:
        row = o["row"]
        return one_line(row["text"]) if row["source"] in COMMITTABLE else "(local-only text)"

    def labelled(row: dict[str, Any]) -> str:
        return f"{row['emergency']}/{row['who'] or '-'}/{','.join(row['concepts']) or '-'}{'/soft' if row['soft'] else ''}"

    checks: list[tuple[str, Callable[[Outcome], bool], Callable[[Outcome], str]]] = [
        ("silent miss", lambda o: o["row"]["emergency"] == "now" and o["status"] not in ASKS,
         lambda o: f"[{labelled(o['row'])}; router {o['status']} {o['flags']}]"),
        ("child now downgraded to confirm", lambda o: o["row"]["emergency"] == "now" and o["row"]["who"] == "child"
         and o["status"] == "confirm", lambda o: f"[{labelled(o['row'])}; router confirm {o['flags']}]"),
        ("false halt", lambda o: o["row"]["emergency"] in ("none", "not_now") and o["status"] == "halt",
         lambda o: f"[{labelled(o['row'])}; router halt {o['flags']}]"),
        ("intent", lambda o: in_domain(o["row"]) and not intent_agrees(o["row"], o["intent"]),
         lambda o: f"[labelled {o['row']['intent']}{' (now)' if o['row']['emergency'] == 'now' else ''}; router {o['intent']}]"),
        ("slots", lambda o: has_value(o["row"]) and not slots_exact(o) or not has_value(o["row"]) and not fills_nothing(o),
         lambda o: "[" + "; ".join(f"{n} labelled {o['row'][n]} router {o['slots'][n]}" for n in SLOT_FIELDS
                                   if not same(o["row"][n], o["slots"][n])) + "]"),
    ]
    out = []
    dev = [o for o in outcomes if o["row"]["split"] == "dev"]
    for title, missed, detail in checks:
        chosen = [o for o in dev if missed(o)]
        out += [f"#### {title} ({len(chosen)})", ""]
        out += [f"* `{o['row']['id']}` {detail(o)} {shown(o)}" for o in chosen] or ["none"]
        out.append("")
    test = [o for o in outcomes if o["row"]["split"] == "test"]
    if test:
        counted = ", ".join(f"{title} {sum(missed(o) for o in test)}" for title, missed, _ in checks)
        out += [f"Test split misses, counted and not listed: {counted}.", ""]
    return out


# ------------------------------------------------------------------------------------------------
# Counts and agreement (labels only: no text needed)
# ------------------------------------------------------------------------------------------------


def counts_table(rows: list[dict[str, Any]]) -> str:
    table = ["| split | source | rows | candidates | now | not_now | borderline | none | children's now | "
             "in-domain questions | rows with age/weight/temp |", "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for split in (*SPLITS, "all"):
        for source in (*SOURCES, "all"):
            chosen = [r for r in rows if split in ("all", r["split"]) and source in ("all", r["source"])]
            c = Counter(r["emergency"] for r in chosen)
            name = (f"**{split}**", f"**{source}**") if "all" in (split, source) else (split, source)
            table.append(f"| {name[0]} | {name[1]} | {len(chosen)} | {sum(r['candidate'] for r in chosen)} | {c['now']} | "
                         f"{c['not_now']} | {c['borderline']} | {c['none']} | "
                         f"{sum(r['emergency'] == 'now' and r['who'] == 'child' for r in chosen)} | "
                         f"{sum(in_domain(r) for r in chosen)} | {sum(has_value(r) for r in chosen)} |")
    return "\n".join(table)


def pairs(rows: list[dict[str, Any]]) -> list[tuple[str, str]]:
    """(first, second) emergency readings of every row read twice."""
    out = []
    for row in rows:
        note = row["annotation"]
        if not note["second_reading"]:
            continue
        if "readings" in note:
            out.append((note["readings"]["A"]["emergency"], note["readings"]["B"]["emergency"]))
        else:  # agreed on emergency, intent and slots: both readings are the final one
            out.append((row["emergency"], row["emergency"]))
    return out


def kappa(pairs_: list[tuple[bool, bool]]) -> float | None:
    """Cohen's κ of two readers on a yes/no question; None when chance agreement is 1."""
    n = len(pairs_)
    if not n:
        return None
    observed = sum(a == b for a, b in pairs_) / n
    yes_a = sum(a for a, _ in pairs_) / n
    yes_b = sum(b for _, b in pairs_) / n
    chance = yes_a * yes_b + (1 - yes_a) * (1 - yes_b)
    return None if chance == 1 else (observed - chance) / (1 - chance)


def agreement(rows: list[dict[str, Any]]) -> dict[str, tuple[float | None, int, float | None, int]]:
    """Per source (and all): κ now vs not_now where both gave a mention, κ now vs everything else."""
    out = {}
    for source in (*SOURCES, "all"):
        both = pairs([r for r in rows if source in ("all", r["source"])])
        mention = [(a == "now", b == "now") for a, b in both if a in ("now", "not_now") and b in ("now", "not_now")]
        out[source] = (kappa(mention), len(mention), kappa([(a == "now", b == "now") for a, b in both]), len(both))
    return out


def agreement_table(rows: list[dict[str, Any]]) -> str:
    def shown(value: float | None) -> str:
        return "–" if value is None else f"{value:.2f}"

    table = ["| source | κ now vs not_now (both gave a mention) | rows | κ now vs everything else | rows read twice |",
             "|---|---:|---:|---:|---:|"]
    for source, (k1, n1, k2, n2) in agreement(rows).items():
        table.append(f"| {source} | {shown(k1)} | {n1} | {shown(k2)} | {n2} |")
    settled = Counter(r["annotation"]["settled"] for r in rows if "settled" in r["annotation"])
    table.append("")
    table.append(f"Third readings: {sum(settled.values())} rows (settled A {settled['A']}, B {settled['B']}, "
                 f"third {settled['third']}).")
    return "\n".join(table)


# ------------------------------------------------------------------------------------------------
# Report
# ------------------------------------------------------------------------------------------------


# Tuning reads the dev split only; the test split is scored on purpose (--test, or --record), so a
# run made while tuning does not show it (each deliberate scoring is counted in the closing notes).
TEST_NOT_SHOWN = "not shown: score the test split on purpose with `--test` (or `--record`)"


def cell(target: Target) -> str:
    if target.value is None:
        return "–"
    return f"{target.value * 100:.1f} % ({target.count}){'' if target.met else ' ✗'}"


def target_table(outcomes: list[Outcome], split: str, sources: tuple[str, ...] = SOURCES) -> str:
    """One row per target, one column per scope; ✗ marks a missed target, – a scope without rows."""
    measured = [(scope, targets(chosen) if chosen else None) for scope, chosen in scopes(outcomes, split, sources)]
    names = [t for t in targets([])]
    table = ["| figure | target | " + " | ".join(scope for scope, _ in measured) + " |",
             "|---|---|" + "---:|" * len(measured)]
    for index, blank in enumerate(names):
        sign = "≤" if blank.at_most else "≥"
        cells = [cell(found[index]) if found else "not measured" for _, found in measured]
        table.append(f"| {blank.name} | {sign} {blank.bound * 100:g} % | " + " | ".join(cells) + " |")
    return "\n".join(table)


def section(title: str, rows: list[dict[str, Any]], outcomes: list[Outcome], meta: dict[str, str],
            show_test: bool = True) -> str:
    out = [f"## {title}", "", "| | |", "|---|---|"]
    out += [f"| {key} | {value} |" for key, value in meta.items()]
    for split in ("test", "dev"):
        table = target_table(outcomes, split) if split == "dev" or show_test else TEST_NOT_SHOWN
        out += ["", f"### Targets of issues 20 and 21, {split} split", "", table, ""]
    shown = outcomes if show_test else [o for o in outcomes if o["row"]["split"] == "dev"]
    out += ["### Gate status by label", "", emergency_table(shown), "", "### Intent confusions (dev, top 25)", "",
            intent_table(outcomes), "", "### Every dev miss", ""]
    out += misses(shown)
    return "\n".join(out)


def replace_section(report: str, title: str, body: str) -> str:
    """The report with the section ``title`` replaced (or appended); other sections kept as recorded."""
    start, end = f"<!-- section: {title} -->", f"<!-- end: {title} -->"
    block = f"{start}\n{body}\n{end}"
    pattern = re.compile(re.escape(start) + r".*?" + re.escape(end), re.S)
    if pattern.search(report):
        return pattern.sub(lambda _: block, report)
    return report.rstrip("\n") + "\n\n" + block + "\n"


def header(rows: list[dict[str, Any]]) -> str:
    return "\n".join([
        "# Pediatric real-text evaluation (issue 19)", "",
        "Labels were written blind to the router (`LABELS.md`, `README.md`); the figures below are the router's "
        "against them. A section is rewritten only by `run.py --record --section <its title>`; the set, agreement and "
        "scoring come from this checkout, the router of a section from the `app/` its `router` line names. A baseline "
        "is measured from a worktree of its commit: `git worktree add /tmp/base295 295f4c9`, then "
        "`python evals/peds/run.py --app-root /tmp/base295 --section 'Baseline (main @ 295f4c9)' --record` "
        "(`--app-root` puts that tree first on `sys.path`, so its `app.router` and policy are the ones imported).", "",
        "## The set", "", counts_table(rows), "",
        "## Agreement of the two readings (1,056 rows read twice)", "", agreement_table(rows), "",
    ])


def tree_of(root: Path) -> str:
    """The checkout the router came from, as a commit (and a note when its tree differs from it)."""
    def git(*args: str) -> str:
        return subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True, check=False).stdout.strip()

    commit = git("rev-parse", "--short", "HEAD") or "unknown"
    dirty = git("status", "--porcelain", "--", "app")
    return f"`app/` of commit {commit}" + (" with uncommitted changes" if dirty else "")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--record", action="store_true", help="rewrite this run's section of evals/peds/REPORT.md")
    parser.add_argument("--app-root", type=Path, help="measure the router of another checkout (its app/ package)")
    parser.add_argument("--section", default=THIS_TREE, help="the report section this run writes")
    parser.add_argument("--local", type=Path, default=LOCAL_TEXTS, help="local-only texts (texts.py writes them)")
    parser.add_argument("--test", action="store_true", help="also show the test split's targets (a deliberate scoring)")
    parser.add_argument("--facts", action="store_true", help="route with the patient facts derived from each row (evals/facts)")
    parser.add_argument("--pool", choices=("tune", "heldout"),
                        help="score a part of the labelled pool instead (pool_rows.jsonl; README \"The pool\")")
    parser.add_argument("--sealed", action="store_true",
                        help="score the sealed part (sealed_rows.jsonl; README \"The sealed part\"): once, after the last merge")
    args = parser.parse_args(argv)
    if args.facts and (args.record or args.test or args.pool):
        parser.error("--facts measures the dev split only: no --record, --test or --pool")
    if args.pool:
        return score_pool(args.pool, make_router(args.app_root))
    if args.sealed:
        return score_sealed(make_router(args.app_root))

    started = time.perf_counter()
    rows, local = load_rows(args.local)
    router = make_router(args.app_root)
    outcomes = run_router(router, rows, args.facts)
    if not outcomes:
        print("no row has a text", file=sys.stderr)
        return 2
    measured = Counter(o["row"]["source"] for o in outcomes)
    meta = {
        "command": "`python evals/peds/run.py" + (f" --app-root {args.app_root}" if args.app_root else "")
        + (f" --section '{args.section}'" if args.section != THIS_TREE else "") + (" --facts" if args.facts else "")
        + (" --record" if args.record else "") + "`",
        "router": tree_of(Path(sys.modules["app"].__file__ or "").parent.parent),
        "policy_version": router.policy_version,
        "measured": ", ".join(f"{source} {measured[source]}" for source in SOURCES) + f" ({len(outcomes)} of {len(rows)} rows)",
        "local-only part": "measured (texts from `local/texts.jsonl`)" if local and measured["cmdd"] else
        "**not measured**: `local/texts.jsonl` is absent (`python evals/peds/texts.py` rebuilds it)",
        "runtime": f"{time.perf_counter() - started:.2f} s",
    }
    show_test = args.test or args.record
    body = section(args.section, rows, outcomes, meta, show_test)
    print(header(rows) + "\n" + body)
    if args.record:
        existing = REPORT.read_text(encoding="utf-8") if REPORT.is_file() else ""
        kept = existing.split("<!-- section:", 1)[1] if "<!-- section:" in existing else ""
        report = header(rows) + ("\n<!-- section:" + kept if kept else "")
        REPORT.write_text(replace_section(report, args.section, body), encoding="utf-8")
    scored = [o for o in outcomes if o["row"]["split"] == ("test" if show_test else "dev")]
    return 1 if any(t.met is False for t in targets(scored)) else 0


def score_pool(part: str, router: Any) -> int:
    """The targets on one part of the pool: its rows are dev-side texts outside the set, labelled
    blind like the set; ``tune`` may be read while changing the rules, ``heldout`` is scored only."""
    rows, local = load_rows(LOCAL_POOL_TEXTS, POOL_ROWS)
    split = f"pool-{part}"
    for row in rows:
        row["split"] = f"pool-{row['part']}"
    outcomes = run_router(router, [row for row in rows if row["split"] == split])
    if not outcomes:
        print("no pool text at hand: `python evals/peds/texts.py` rebuilds local/pool_texts.jsonl", file=sys.stderr)
        return 2
    print(f"## The pool, part {part}: {len(outcomes)} rows, router policy {router.policy_version}\n")
    print(target_table(outcomes, split, POOL_SOURCES) + "\n\n" + emergency_table(outcomes, POOL_SOURCES))
    return 0


def score_sealed(router: Any) -> int:
    """The targets on the sealed part: unread texts of the pool's sources (test side of the hash),
    labelled blind by two readers; scored once, after the last merge of issue 29."""
    rows, _ = load_rows(LOCAL_SEALED_TEXTS, SEALED_ROWS)
    unlabelled = [row for row in rows if "emergency" not in row]
    if unlabelled:
        print(f"{len(unlabelled)} sealed rows carry no label yet (`python evals/peds/sealed.py merge`)", file=sys.stderr)
        return 2
    for row in rows:
        row["split"] = "sealed"
    outcomes = run_router(router, rows)
    if not outcomes:
        print("no sealed text at hand: `python evals/peds/texts.py` rebuilds local/sealed_texts.jsonl", file=sys.stderr)
        return 2
    print(f"## The sealed part: {len(outcomes)} rows, router policy {router.policy_version}\n")
    print(target_table(outcomes, "sealed", POOL_SOURCES) + "\n\n" + emergency_table(outcomes, POOL_SOURCES))
    return 0


if __name__ == "__main__":
    sys.exit(main())
