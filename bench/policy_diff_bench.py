"""The policy impact report's cost (issue 23): both decisions per text against one route_request.

    python bench/policy_diff_bench.py [ROUNDS] [--size N]

1. Side by side in one process: the report's per-text work (``Differ.compare``: the old and the
   new policy's ``route_request`` and the comparison of the two) against one ``route_request`` of
   the old policy, over the same texts — every plain text of the project's corpora — in alternating
   rounds (thread CPU time, garbage collector off), so a loaded machine slows both alike. Target:
   the median of the paired ratios ≤ 2.2.
2. End to end: ``python -m app policy diff`` on a corpus of N texts (default 5,000: the corpora's
   texts, cycled, each made distinct by its row number) with the HTML format, wall time. Target:
   under a minute on this machine.

The new policy is the shipped one without the seizure term 抽搐, so that some rows really change
and take the report's slower path (the JSON of both results, the row, its label).
"""

from __future__ import annotations

import argparse
import gc
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from app.policy_report import load_corpora, read_source  # noqa: E402
from app.policy_report.decisions import Differ  # noqa: E402

TARGET_RATIO = 2.2
TARGET_SECONDS = 60.0
SHIPPED = ROOT / "app" / "router" / "policy.toml"


def edited_policy(folder: Path) -> Path:
    text = SHIPPED.read_text(encoding="utf-8")
    old = '  "抽搐", "惊厥", "抽风",'
    assert text.count(old) == 1
    path = folder / "new.toml"
    path.write_text(text.replace(old, '  "惊厥", "抽风",'), encoding="utf-8")
    return path


def side_by_side(new: Path, rounds: int) -> tuple[float, float, float, int, int]:
    old_source, new_source = read_source(str(SHIPPED)), read_source(str(new))
    differ = Differ(old_source, new_source)
    items = [i for c in load_corpora(None, ROOT, ROOT) for i in c.items if i.direct and differ.fits(i)]
    one = differ.old

    def single() -> None:
        for item in items:
            a = item.arguments
            one.route_request(a["text"], a["caller"], a["patient_id"], a["reference_date"])

    def both() -> int:
        return sum(differ.compare(item) is not None for item in items)

    single()
    changed = both()
    samples: dict[str, list[float]] = {"single": [], "both": []}
    gc.disable()
    for n in range(rounds):
        for name in ("single", "both") if n % 2 == 0 else ("both", "single"):
            started = time.thread_time_ns()
            single() if name == "single" else both()
            samples[name].append((time.thread_time_ns() - started) / len(items) / 1000)
    gc.enable()
    paired = statistics.median(b / s for s, b in zip(samples["single"], samples["both"], strict=True))
    return statistics.median(samples["single"]), statistics.median(samples["both"]), paired, len(items), changed


def end_to_end(new: Path, size: int, folder: Path) -> tuple[float, int]:
    texts = [i.arguments["text"] for c in load_corpora(None, ROOT, ROOT) for i in c.items if i.direct]
    corpus = folder / "corpus.jsonl"
    with corpus.open("w", encoding="utf-8") as out:
        for n in range(size):
            out.write(json.dumps({"id": f"r{n}", "text": f"{texts[n % len(texts)]}（{n}）"}, ensure_ascii=False) + "\n")
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "app", "policy", "diff", str(SHIPPED), str(new), "--corpus", str(corpus),
                           "--format", "html"], cwd=ROOT, capture_output=True, text=True, timeout=600)
    elapsed = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"policy diff failed: {done.stderr[-2000:]}")
    return elapsed, len(done.stdout)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("rounds", nargs="?", type=int, default=7)
    parser.add_argument("--size", type=int, default=5000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        new = edited_policy(folder)
        single, both, paired, count, changed = side_by_side(new, args.rounds)
        ok_ratio = paired <= TARGET_RATIO
        print(f"python {sys.version.split()[0]}  {count} texts ({changed} decisions change), {args.rounds} rounds, thread CPU time")
        print(f"one route_request {single:.1f} µs/text  both decisions + comparison {both:.1f} µs/text  "
              f"median of paired ratios {paired:.3f} (target ≤ {TARGET_RATIO}: {'PASS' if ok_ratio else 'MISS'})")
        elapsed, size = end_to_end(new, args.size, folder)
        ok_time = elapsed < TARGET_SECONDS
        print(f"python -m app policy diff on {args.size} texts, --format html: {elapsed:.1f} s wall "
              f"({size} characters of report; target < {TARGET_SECONDS:.0f} s: {'PASS' if ok_time else 'MISS'})")
    return 0 if ok_ratio and ok_time else 1


if __name__ == "__main__":
    sys.exit(main())
