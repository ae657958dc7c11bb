"""route_request over a corpus of texts: another tree against this one, in ONE process.

    python bench/compare_corpus.py BASE_DIR CORPUS.jsonl [ROUNDS] [--split dev]

CORPUS holds one JSON object per line with a ``text`` field (the pediatric set's ``all.jsonl``, kept
outside the repository); with ``--split NAME`` only rows whose ``split`` field is NAME are read, and
only texts whose sha256 starts with 0–7 in any case (the licence rule of BRIEF.md). Both routers
are loaded side by side (``bench/compare_router.py``'s loader) and each round times one pass over
every text per tree, in alternating order (thread CPU time, garbage collector off), so a shared,
noisy machine slows both alike. Printed: how many texts took a different status (different work),
then, over all texts and over those with the same status in both trees, the ratio of the medians
of a pass and the median of the paired per-round ratios.
"""

from __future__ import annotations

import gc
import hashlib
import json
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.compare_router import load  # noqa: E402
from bench.router_bench import CALLER, PATIENT, REFERENCE  # noqa: E402


def texts(path: Path, split: str | None) -> list[str]:
    found = []
    for line in path.read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        if split is not None and row.get("split") != split:
            continue  # filtered before the text is looked at
        text = row["text"]
        if hashlib.sha256(text.strip().encode()).hexdigest()[0] in "01234567":
            found.append(text)
    return found


def main() -> int:
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    split = sys.argv[sys.argv.index("--split") + 1] if "--split" in sys.argv else None
    if split is not None:
        args.remove(split)
    if len(args) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    corpus = texts(Path(args[1]), split)
    rounds = int(args[2]) if len(args) > 2 else 9
    routers = {}
    for label, root in (("base", Path(args[0]).resolve()), ("this", ROOT)):
        module = load(root, f"router_{label}")
        routers[label] = module.Router(module.load_policy(), module.Limits())
    statuses = {label: [r.route_request(t, CALLER, PATIENT, REFERENCE).status for t in corpus] for label, r in routers.items()}
    same = [t for t, a, b in zip(corpus, statuses["base"], statuses["this"]) if a == b]
    print(f"python {sys.version.split()[0]}, {rounds} rounds, thread CPU time; texts whose status differs: "
          f"{len(corpus) - len(same)}/{len(corpus)} (a different decision is different work)")
    for name, texts_ in (("all texts", corpus), ("same status", same)):
        base, this, paired = _time(routers, texts_, rounds)
        print(f"{name:12s} {len(texts_):5d} texts  base {base:.1f} µs/text  this {this:.1f} µs/text  "
              f"ratio of medians {this / base:.3f}  median of paired ratios {paired:.3f}")
    return 0


def _time(routers: dict, corpus: list[str], rounds: int) -> tuple[float, float, float]:
    samples: dict[str, list[float]] = {"base": [], "this": []}
    gc.disable()
    for i in range(rounds):
        for label in ("base", "this") if i % 2 == 0 else ("this", "base"):
            route = routers[label].route_request
            started = time.thread_time_ns()
            for text in corpus:
                route(text, CALLER, PATIENT, REFERENCE)
            samples[label].append((time.thread_time_ns() - started) / len(corpus) / 1000)
    gc.enable()
    base, this = statistics.median(samples["base"]), statistics.median(samples["this"])
    return base, this, statistics.median(t / b for t, b in zip(samples["this"], samples["base"]))


if __name__ == "__main__":
    raise SystemExit(main())
