"""route_request on the router benchmark's message: another tree against this one, in ONE process.

    python bench/compare_router.py BASE_DIR [ROUNDS]
    python bench/compare_router.py BASE_DIR [ROUNDS] --corpus FILE.jsonl [--split dev]
    python bench/compare_router.py BASE_DIR [ROUNDS] --mix

With ``--corpus`` each round routes every text of a JSON-lines file (its ``text`` field, cut at
2,000 characters; only rows whose ``split`` is the one given, ``dev`` by default, when the rows
have one) instead of the one message, and the figures are per text: the cost on real parents'
words, long histories and all (issue 20). With ``--mix`` each round sends bench/http_bench.py's 400
tools/call requests (every tool, route_request weighing most) through ``Router.call``: the
router's share of the HTTP path's CPU per request (issue 22), per request.

BASE_DIR holds another version's ``app/`` (for example ``git archive befbd5a app | tar -x -C /tmp/base``).
Both routers are loaded side by side and called in alternating batches of 1,000 (thread CPU time,
garbage collector off), so a shared, noisy machine slows both alike; the ratio of the two medians is
the figure an issue's "≤ N µs where it was M µs" target is held to. The statuses printed last show
whether both trees took the same decision (a different decision is different work).
"""

from __future__ import annotations

import argparse
import gc
import importlib.util
import json
import statistics
import sys
import time
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.router_bench import CALLER, MESSAGE, PATIENT, REFERENCE  # noqa: E402

BATCH = 1000


def load(root: Path, name: str) -> ModuleType:
    """``root``'s app.router as a package of its own name, so two versions live in one process."""
    spec = importlib.util.spec_from_file_location(name, root / "app" / "router" / "__init__.py",
                                                  submodule_search_locations=[str(root / "app" / "router")])
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def corpus(path: Path, split: str) -> list[str]:
    texts = []
    for line in path.read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        if row.get("split", split) == split:  # filter first: the other splits are never read
            texts.append(row["text"][:2000])
    return texts


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("base", type=Path)
    parser.add_argument("rounds", type=int, nargs="?", default=30)
    parser.add_argument("--corpus", type=Path)
    parser.add_argument("--split", default="dev")
    parser.add_argument("--mix", action="store_true", help="bench/http_bench.py's tools/call mix through Router.call")
    args = parser.parse_args()
    rounds = args.rounds
    texts = corpus(args.corpus, args.split) if args.corpus else [MESSAGE]
    requests = []
    if args.mix:
        from bench.http_bench import request_mix

        requests = [(m["params"]["name"], m["params"]["arguments"]) for m in request_mix(400)]
    units = len(requests) or len(texts)
    batch = max(1, BATCH // units)  # calls per sample: about 1,000 texts or requests
    per_sample = batch * units
    calls = {}
    for label, root in (("base", args.base.resolve()), ("this", ROOT)):
        module = load(root, f"router_{label}")
        router = module.Router(module.load_policy(), module.Limits())

        def call(router=router) -> None:
            if requests:
                for tool, arguments in requests:
                    router.call(tool, arguments)
                return
            for text in texts:
                router.route_request(text, CALLER, PATIENT, REFERENCE)

        calls[label] = call
        for _ in range(max(1, 2000 // units)):
            call()
    samples: dict[str, list[float]] = {"base": [], "this": []}
    gc.disable()
    for i in range(rounds):
        for label in ("base", "this") if i % 2 == 0 else ("this", "base"):
            run = calls[label]
            started = time.thread_time_ns()
            for _ in range(batch):
                run()
            samples[label].append((time.thread_time_ns() - started) / per_sample / 1000)
    gc.enable()
    base, this = statistics.median(samples["base"]), statistics.median(samples["this"])
    paired = statistics.median(t / b for b, t in zip(samples["base"], samples["this"], strict=True))
    print(f"python {sys.version.split()[0]}  base {base:.1f} µs  this {this:.1f} µs  ratio of medians {this / base:.3f}  "
          f"median of paired ratios {paired:.3f}  ({rounds} rounds × {per_sample} calls, thread CPU time"
          f"{f', {len(texts)} texts' if args.corpus else ''}{', the HTTP mix' if requests else ''})")
    if not args.corpus and not requests:
        first = sys.modules["router_base"]
        print("decisions: base / this on the message: " + " | ".join(
            f"{r.status} {r.intent}" for r in (
                first.Router(first.load_policy(), first.Limits()).route_request(MESSAGE, CALLER, PATIENT, REFERENCE),
                sys.modules["router_this"].Router(sys.modules["router_this"].load_policy(), sys.modules["router_this"].Limits())
                .route_request(MESSAGE, CALLER, PATIENT, REFERENCE))))
    return 0


if __name__ == "__main__":
    sys.exit(main())
