#!/usr/bin/env python
"""route_request of two trees counted in instructions (callgrind), over a corpus's dev texts.

    .venv/bin/python bench/route_instructions.py BASE_DIR CORPUS.jsonl [N]    # N texts (600)

``bench/compare_corpus.py`` times the same calls in one process; on a machine shared with other
work its ratios swing by several per cent between runs. ``valgrind --tool=callgrind`` counts the
instructions a process executes, whatever else the machine does. For each tree: one process that
builds the router and routes the first N dev texts of CORPUS (sha256 of the stripped text starting
0–7, as compare_corpus reads them), minus one that builds it and routes none (the start-up),
divided by N. The start-ups of two processes of one tree differ by a few million instructions
(±2.5 % of a text's count at N = 600; a fixed hash seed narrows it). Printed: instructions per text of each tree, the ratio, and each start-up. The four
processes run two at a time. Needs valgrind.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

# Run inside valgrind: the tree's router over the first N dev texts of the corpus.
CHILD = """
import datetime, hashlib, json, sys
root, corpus, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
sys.path.insert(0, root)
from app.router import Limits, Router, load_policy
router = Router(load_policy(), Limits())
texts = []
for line in open(corpus, encoding="utf-8"):
    row = json.loads(line)
    if row.get("split") == "dev" and hashlib.sha256(row["text"].strip().encode()).hexdigest()[0] in "01234567":
        texts.append(row["text"])
for text in texts[:n]:
    router.route_request(text, "parent_assistant", "P0001", datetime.date(2026, 3, 5))
"""


def instructions(root: Path, corpus: Path, n: int) -> int:
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "callgrind.out"
        run = subprocess.run(
            ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", sys.executable, "-c", CHILD,
             str(root), str(corpus), str(n)],
            capture_output=True, text=True, check=True,
            env={**os.environ, "PYTHONHASHSEED": "0"},  # set iteration orders alike in every process
        )
    found = re.search(r"Collected : ([0-9]+)", run.stderr)
    if found is None:
        raise RuntimeError("callgrind printed no total")
    return int(found.group(1))


def main() -> int:
    if len(sys.argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    base, corpus = Path(sys.argv[1]).resolve(), Path(sys.argv[2]).resolve()
    n = int(sys.argv[3]) if len(sys.argv) > 3 else 600
    jobs = [(tree, count) for tree in (base, ROOT) for count in (0, n)]
    with ThreadPoolExecutor(max_workers=2) as pool:
        totals = dict(zip(jobs, pool.map(lambda job: instructions(job[0], corpus, job[1]), jobs)))
    per_text = {tree: (totals[(tree, n)] - totals[(tree, 0)]) / n for tree in (base, ROOT)}
    for label, tree in (("base", base), ("this", ROOT)):
        print(f"{label}  {tree}: {per_text[tree]:,.0f} instructions per text, start-up {totals[(tree, 0)]:,}")
    print(f"ratio this/base: {per_text[ROOT] / per_text[base]:.3f} over {n} dev texts")
    return 0


if __name__ == "__main__":
    sys.exit(main())
