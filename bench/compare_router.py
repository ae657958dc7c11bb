"""route_request on the router benchmark's message: another tree against this one, in ONE process.

    python bench/compare_router.py BASE_DIR [ROUNDS]

BASE_DIR holds another version's ``app/`` (for example ``git archive befbd5a app | tar -x -C /tmp/base``).
Both routers are loaded side by side and called in alternating batches of 1,000 (thread CPU time,
garbage collector off), so a shared, noisy machine slows both alike; the ratio of the two medians is
the figure an issue's "≤ N µs where it was M µs" target is held to. The statuses printed last show
whether both trees took the same decision (a different decision is different work).
"""

from __future__ import annotations

import gc
import importlib.util
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


def main() -> int:
    if len(sys.argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 30
    calls = {}
    for label, root in (("base", Path(sys.argv[1]).resolve()), ("this", ROOT)):
        module = load(root, f"router_{label}")
        router = module.Router(module.load_policy(), module.Limits())
        calls[label] = lambda router=router: router.route_request(MESSAGE, CALLER, PATIENT, REFERENCE)
        for _ in range(2000):
            calls[label]()
    samples: dict[str, list[float]] = {"base": [], "this": []}
    gc.disable()
    for i in range(rounds):
        for label in ("base", "this") if i % 2 == 0 else ("this", "base"):
            call = calls[label]
            started = time.thread_time_ns()
            for _ in range(BATCH):
                call()
            samples[label].append((time.thread_time_ns() - started) / BATCH / 1000)
    gc.enable()
    base, this = statistics.median(samples["base"]), statistics.median(samples["this"])
    paired = statistics.median(t / b for b, t in zip(samples["base"], samples["this"], strict=True))
    print(f"python {sys.version.split()[0]}  base {base:.1f} µs  this {this:.1f} µs  ratio of medians {this / base:.3f}  "
          f"median of paired ratios {paired:.3f}  ({rounds} rounds × {BATCH} calls, thread CPU time)")
    first, second = calls["base"](), calls["this"]()
    print(f"decisions: base {first.status} {first.intent} | this {second.status} {second.intent}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
