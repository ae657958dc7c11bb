"""The sealed part (issue 29, item 5): parents' messages nobody tuned on, scored once after the last merge.

``draw`` (once, before any rule of issue 29 was tuned): every CMDD and IMCS-21 parent message of the
allowed hash half (sha256 starting 0-7) whose **second** hex digit is c-f — the side the pool never
drew from, so no annotator or engineer has read them — that is in no split of the set and no part of
the pool (by id or sha256), kept once per sha256, matching the same broad symptom / age / temperature
expression as the IMCS pool part (README "The pool"). Shuffled with seed 29, the first ``N`` taken.
Writes ``sealed_rows.jsonl`` (id, source, sha256 — no text), the git-ignored
``local/sealed_texts.jsonl`` and the annotators' shards outside the repository.

``merge`` writes the two blind readings (and the adjudicated third where they disagree) into
``sealed_rows.jsonl``, as ``merge.py`` did for the set. ``texts.py`` rebuilds the local texts.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import texts  # noqa: E402  (a script beside this one, not a package)

HERE = Path(__file__).resolve().parent
SEALED_ROWS = texts.SEALED_ROWS
LOCAL_SEALED_TEXTS = texts.LOCAL_SEALED_TEXTS
SEED = 29
SIZE = 1050
SHARDS = 3
# The IMCS pool part's expression (README "The pool"), as a plain substring search.
EXPRESSION = re.compile(
    "烧|发热|体温|高热|喘|呼吸|憋|吐|拉肚|腹泻|拉稀|尿|精神|没劲|蔫|睡|哭|闹|抽|惊厥|吃奶|喝奶|不吃|不喝|喝水|"
    "血|肿|昏|嗜|软|疹|紫|发青|发白|凉|哼|度|岁|个月|斤|公斤|kg|天了"
)
LABEL_FIELDS = ("emergency", "who", "concepts", "soft", "intent", "age_years", "weight_kg", "temperature_c", "approximate")


def unread_side(digest: str) -> bool:
    """The allowed half, second digit c-f: the pool (dev side, 0-b) never drew these."""
    return texts.allowed(digest) and digest[1] in "cdef"


def draw(local_root: Path) -> None:
    if SEALED_ROWS.exists():
        sys.exit("sealed_rows.jsonl exists: the sealed part is drawn once")
    items, _ = texts.all_items({"cmdd": texts.cmdd_items, "imcs": texts.imcs_items})
    taken_ids: set[str] = set()
    taken_hashes: set[str] = set()
    for path in (texts.ROWS, texts.POOL_ROWS):
        for line in path.read_text(encoding="utf-8").splitlines():
            r = json.loads(line)
            taken_ids.add(r["id"])
            taken_hashes.add(r["sha256"])
    seen: set[str] = set()
    eligible = []
    counts = {"items": len(items), "unread_side": 0, "in_set_or_pool": 0, "duplicate": 0, "expression": 0}
    for item in items.values():
        digest = item.sha256
        if not unread_side(digest):
            continue
        counts["unread_side"] += 1
        if item.id in taken_ids or digest in taken_hashes:
            counts["in_set_or_pool"] += 1
            continue
        if digest in seen:
            counts["duplicate"] += 1
            continue
        seen.add(digest)
        if EXPRESSION.search(item.text):
            counts["expression"] += 1
            eligible.append(item)
    eligible.sort(key=lambda i: texts.order_key(i.id))
    random.Random(SEED).shuffle(eligible)
    chosen = eligible[:SIZE]
    print(json.dumps(counts), f"chosen {len(chosen)}", file=sys.stderr)
    texts.write_jsonl(SEALED_ROWS, [{"id": i.id, "source": i.source, "sha256": i.sha256} for i in chosen])
    texts.write_jsonl(LOCAL_SEALED_TEXTS, [{"id": i.id, "source": i.source, "sha256": i.sha256, "text": i.text} for i in chosen])
    shard_dir = local_root / "sealed" / "shards"
    shard_dir.mkdir(parents=True, exist_ok=True)
    size = -(-len(chosen) // SHARDS)
    for n in range(SHARDS):
        part = chosen[n * size:(n + 1) * size]
        texts.write_jsonl(shard_dir / f"sealed_{n}.jsonl", [{"id": i.id, "source": i.source, "text": i.text} for i in part])


def _read(path: Path) -> dict[str, dict[str, object]]:
    return {r["id"]: r for r in map(json.loads, path.read_text(encoding="utf-8").splitlines())}


def _agree(a: dict[str, object], b: dict[str, object]) -> bool:
    for f in ("emergency", "intent"):
        if a[f] != b[f]:
            return False
    for f in ("age_years", "weight_kg", "temperature_c"):
        x, y = a[f], b[f]
        if (x is None) != (y is None) or (x is not None and abs(float(x) - float(y)) > 0.01):  # type: ignore[arg-type]
            return False
    return True


def _mask(reading: dict[str, object]) -> str:
    """A reason with every Chinese or full-width character replaced: annotators quote the deciding words."""
    return re.sub(r"[\u3000-\u303f\u3400-\u9fff\uf900-\ufaff\uff00-\uffef]+", "…", str(reading.get("reason", "")))


def merge(local_root: Path) -> None:
    """Two readings per row (shard n read by annotator n and by annotator n+1), the adjudicator's
    third reading where they disagree on emergency, intent or a slot; reasons masked like the pool's."""
    labels = local_root / "sealed" / "labels"
    rows = [json.loads(line) for line in SEALED_ROWS.read_text(encoding="utf-8").splitlines()]
    shard_of = {}
    for n in range(SHARDS):
        for r in _read(local_root / "sealed" / "shards" / f"sealed_{n}.jsonl"):
            shard_of[r] = n
    third = _read(labels / "adjudicated.jsonl") if (labels / "adjudicated.jsonl").exists() else {}
    out = []
    for r in rows:
        n = shard_of[r["id"]]
        first = _read(labels / f"sealed_{n}.first.jsonl")[r["id"]]
        second = _read(labels / f"sealed_{n}.second.jsonl")[r["id"]]
        agreed = _agree(first, second)
        final = first
        annotation: dict[str, object] = {"first": f"sealed{n}", "second": f"sealed{(n + 1) % SHARDS}", "agreed": agreed}
        if not agreed:
            if r["id"] not in third:
                sys.exit(f"{r['id']}: the readings disagree and no third reading is there")
            final = third[r["id"]]
            annotation["readings"] = {name: {f: reading[f] for f in LABEL_FIELDS} | {"reason": _mask(reading)}
                                      for name, reading in (("A", first), ("B", second))}
            annotation["settled"] = final.get("settled", "third")
        out.append(r | {f: final[f] for f in LABEL_FIELDS} | {"reason": _mask(final), "annotation": annotation})
    texts.write_jsonl(SEALED_ROWS, out)
    print(f"{len(out)} sealed rows labelled, {sum(1 for o in out if not o['annotation']['agreed'])} adjudicated")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("command", choices=["draw", "merge"])
    args = ap.parse_args()
    local_root = Path(os.environ.get("PEDS_LOCAL", "/work/peds-local"))
    draw(local_root) if args.command == "draw" else merge(local_root)
    return 0


if __name__ == "__main__":
    sys.exit(main())
