"""The pediatric real-text set's texts (issue 19): built from fetched mirrors, never guessed.

Two commands:

* ``select`` — the one-off selection (phase A). Reads every source from the mirrors, keeps the
  pediatric texts of the allowed half (sha256 starting 0-7), marks the emergency candidates with
  ``redflag_words.txt``, draws the seeded sample and writes ``rows.jsonl`` (text only for committable
  sources), the git-ignored ``local/texts.jsonl`` and, outside the repo, the annotators' shards.
  Refuses to overwrite a ``rows.jsonl`` that already carries labels.
* ``rebuild`` (default) — for a fresh checkout: rebuilds the local-only texts of the rows named in
  ``rows.jsonl`` from the mirrors into ``local/texts.jsonl``, refusing (exit 1) any row whose text no
  longer hashes to the committed sha256, and checks the committed texts the same way.

Mirror root: env ``PEDS_MIRROR`` (default ``/work/.mirror``), bare git dirs ``owner+name/repo``.
Shards: env ``PEDS_LOCAL`` (default ``/work/peds-local``), never inside the repository.

The 8-f half of the hashes is never returned by ``allowed``: it is counted and dropped before any
other step looks at a text.
"""

from __future__ import annotations

import argparse
import ast
import hashlib
import json
import os
import random
import re
import subprocess
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROWS = HERE / "rows.jsonl"
LOCAL_TEXTS = HERE / "local" / "texts.jsonl"
# The labelled pool (README "The pool"): dev-side texts outside the set, no text committed at all.
POOL_ROWS = HERE / "pool_rows.jsonl"
LOCAL_POOL_TEXTS = HERE / "local" / "pool_texts.jsonl"
# The sealed part (issue 29, README "The sealed part"): unread texts, labelled blind, scored once.
SEALED_ROWS = HERE / "sealed_rows.jsonl"
LOCAL_SEALED_TEXTS = HERE / "local" / "sealed_texts.jsonl"
REDFLAG_WORDS = HERE / "redflag_words.txt"

SEED = 19
TARGET_TOTAL = 3200
SECOND_FRACTION = 0.20
SHARD_SIZE = 400

# Source -> (mirror dir, commit, path or path prefix). Commits are pinned so the hash check means something.
HUATUO = ("SupritYoung+Zhongjing", "a105934245c265b84f77dbb070b568e2a79688b4", "data/huatuo26M_test.json")
REMEDI = ("yanguojun123+Medical-Dialogue", "f94bb9abfba48f467669d2454771bbe263cc4ae5", "data/dev_human_annotation.txt")
CMDD = ("alibaba-research+ChineseBLUE", "52eefc9d5cb1839348546c8a473c633d4d9d60a8", "data/CMDD")
DXY = ("lemuria-wchen+imcs21", "836048f491704011dba229a5bd04db5f7f4d2bbe", "task/DDP/KRDS/dataset_dxy/dxy_dialog_data_dialog_v2.txt")
# IMCS-21's dialogue-act files (its own dialogues are over the mirror's size limit); pool only.
IMCS = ("csmust+imcs21", "9cf1e9ab0f2f464894ff8de6cdfd9ca0ff6ead40", "task/DAC/BERT-DAC/THUCNews/data")

COMMITTABLE = {"huatuo", "remedi"}


@dataclass(frozen=True)
class Item:
    id: str
    source: str
    text: str
    in_domain: bool  # a plausible question of its own: a first message, a self-report, a single question

    @property
    def sha256(self) -> str:
        return sha256(self.text)


def sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def split_of(digest: str) -> str:
    return "dev" if digest[1] in "0123456789ab" else "test"


def allowed(digest: str) -> bool:
    return digest[0] in "01234567"


# --- reading the mirrors ------------------------------------------------------------------------


def mirror_root() -> Path:
    return Path(os.environ.get("PEDS_MIRROR", "/work/.mirror"))


def git_show(source: tuple[str, str, str], path: str | None = None) -> str:
    repo, commit, default = source
    out = subprocess.run(
        ["git", "-C", str(mirror_root() / repo / "repo"), "show", f"{commit}:{path or default}"],
        check=True, capture_output=True,
    )
    return out.stdout.decode("utf-8")


def git_ls(source: tuple[str, str, str]) -> list[str]:
    repo, commit, prefix = source
    out = subprocess.run(
        ["git", "-C", str(mirror_root() / repo / "repo"), "ls-tree", "-r", "--name-only", commit, prefix + "/"],
        check=True, capture_output=True, text=True,
    )
    return [p for p in out.stdout.splitlines() if p.endswith(".json")]


# --- pediatric filter (Huatuo; ReMeDi uses its own age tag) -------------------------------------------

CN_DIGITS = {"零": 0, "一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9}


def cn_number(s: str) -> int | None:
    """Arabic or simple Chinese numerals up to 99 (十, 十二, 二十, 二十三); None otherwise."""
    if s.isdigit():
        return int(s)
    if "十" in s:
        tens, _, ones = s.partition("十")
        t = CN_DIGITS.get(tens, -1) if tens else 1
        o = CN_DIGITS.get(ones, -1) if ones else 0
        return None if t < 0 or o < 0 else t * 10 + o
    return CN_DIGITS.get(s) if len(s) == 1 else None


NUM = r"(\d{1,3}|[零一二两三四五六七八九十]{1,3})"
CHILD_WORDS = re.compile(
    "宝宝|宝贝|孩子|小孩|小儿|儿子|女儿|闺女|婴儿|婴幼儿|幼儿|新生儿|儿童|患儿|小朋友|男孩|女孩|男童|女童|男宝|女宝|娃"
    "|孙子|孙女|外孙|小学|初中|初[一二三]|高[一二三]|幼儿园|奶粉|吃奶|喂奶|母乳|辅食|满月|周岁|囟门|纸尿裤|尿布"
)
AGE = re.compile(NUM + r"(?:周)?岁|年龄[:：]\s*" + NUM)
INFANT_AGE = re.compile(NUM + r"(?:个)?多?月(?:大|的宝宝|的孩子|的婴儿|的小孩|婴儿)|出生" + NUM + "天")
ADULT_CHILD = re.compile(r"(?:儿子|女儿|孩子|闺女)(?:今年|已经)?" + NUM + r"(?:周)?岁")
# Pregnancy, birth and the mother's own postpartum questions use 宝宝/孩子 for a fetus or a plan.
NOT_A_CHILD = re.compile(
    "孕|怀不上|怀上|胎儿|胎心|胎动|胎芽|产检|流产|保胎|试管|分娩|生产时"
    "|生孩子|生完孩子|剖腹产|剖宫产|顺产|产后|坐月子|哺乳期|要孩子|怀孩子|要个孩子|要二胎|生二胎"
)


def is_pediatric(text: str) -> bool:
    if NOT_A_CHILD.search(text):
        return False
    for m in ADULT_CHILD.finditer(text):
        n = cn_number(m.group(1))
        if n is not None and n >= 18:
            return False
    if CHILD_WORDS.search(text) or INFANT_AGE.search(text):
        return True
    return any((n := cn_number(m.group(1) or m.group(2))) is not None and n < 18 for m in AGE.finditer(text))


# --- scrubbing check for committed texts ---------------------------------------------------------------

# Committed texts are never edited: a text that might carry a phone, QQ, WeChat id, e-mail or a
# self-introduced name is dropped instead, so the committed text is exactly the source text and its
# hash stays reproducible.
# 谢 is left out: 谢谢医生 is thanks, not a name.
SURNAMES = "李王张刘陈杨赵黄周吴徐孙胡朱高林何郭马罗梁宋郑韩唐冯于董萧程曹袁邓许傅沈曾彭吕苏卢蒋蔡贾丁魏薛叶阎余潘杜戴夏钟汪田任姜范方石姚谭廖邹熊金陆郝孔白崔康毛邱秦江史顾侯邵孟龙万段雷钱汤尹黎易常武乔贺赖龚文"
PII = re.compile(
    r"\d{7,}|[qQ][qQ]|扣扣|微信|[vV][xX]|weixin|wechat|@|我叫|名叫|名字叫|姓名|电话|手机号"
    f"|[{SURNAMES}](?:医生|大夫|主任|教授|老师|护士|阿姨|叔叔|先生|女士|小姐)"
)


def needs_scrub(text: str) -> bool:
    return PII.search(text) is not None


# --- sources ----------------------------------------------------------------------------------------------


def huatuo_items(stats: dict[str, int]) -> Iterator[Item]:
    data = json.loads(git_show(HUATUO))
    stats["items"] = len(data)
    for i, row in enumerate(data):
        # One field: "input" is empty and "instruction" holds one string in every row (checked in select).
        assert row["input"] == "" and len(row["instruction"]) == 1, f"huatuo row {i} has a second field"
        yield Item(f"huatuo:{i}", "huatuo", row["instruction"][0].strip(), True)


REMEDI_TURN = re.compile(r"<\|currentuser\|>(.*?)<\|endofcurrentuser\|>")
REMEDI_TAG = re.compile(r"[（(]\s*[男女]\s*[，,]\s*(\d+)\s*(岁|个月|月)?[^（）()]*[）)]\s*$")


def remedi_child_tag(first_turn: str) -> bool:
    m = REMEDI_TAG.search(first_turn)
    if not m:
        return False
    if m.group(2) in ("个月", "月") or "个月" in m.group(0):
        return True
    return int(m.group(1)) < 18 and m.group(2) == "岁"


def remedi_items(stats: dict[str, int]) -> Iterator[Item]:
    """Each line is one patient turn with its context; a line with empty context opens a dialogue."""
    dialogue, turn, child = -1, 0, False
    dialogues = child_dialogues = 0
    for line in git_show(REMEDI).splitlines():
        m = REMEDI_TURN.search(line)
        if not m:
            continue
        text = m.group(1).strip()
        if "<|context|> <|endofcontext|>" in line:
            dialogue, turn = dialogue + 1, 0
            child = remedi_child_tag(text)
            dialogues += 1
            child_dialogues += child
        else:
            turn += 1
        if child:
            yield Item(f"remedi:{dialogue}:{turn}", "remedi", text, turn == 0)
    stats["items"] = dialogues
    stats["child_dialogues"] = child_dialogues


# Acknowledgements with nothing to label beyond out_of_scope; dropped to spend annotators' time on
# content. Compared after removing punctuation, symbols and whitespace.
CMDD_TRIVIAL = {
    "", "嗯", "嗯嗯", "嗯嗯嗯", "恩", "恩恩", "好", "好的", "好滴", "好吧", "好嘞", "哦", "哦哦", "噢", "噢噢", "额",
    "谢谢", "谢谢你", "谢谢您", "谢谢医生", "谢谢大夫", "好的谢谢", "好的谢谢你", "好的谢谢您", "好的谢谢医生",
    "嗯嗯好的", "嗯好的", "嗯谢谢", "ok", "OK", "在", "在的", "你好", "您好", "医生你好", "医生您好", "大夫你好", "大夫您好",
}
PUNCT = re.compile(r"[\s\W_]+", re.UNICODE)


def cmdd_items(stats: dict[str, int]) -> Iterator[Item]:
    turns = trivial = 0
    paths = sorted(git_ls(CMDD))
    stats["items"] = len(paths)
    for path in paths:
        d = json.loads(git_show(CMDD, path))
        split, stem = path.split("/")[-2], Path(path).stem
        first = True
        for k, t in enumerate(d["dialogue-content"]):
            if t["speaker"] != "患者":
                continue
            turns += 1
            text = t["sentence"].strip()
            if PUNCT.sub("", text) in CMDD_TRIVIAL:
                trivial += 1
                continue
            yield Item(f"cmdd:{split}/{stem}:{k}", "cmdd", text, first)
            first = False
    stats["parent_turns"] = turns
    stats["trivial_dropped"] = trivial


def dxy_items(stats: dict[str, int]) -> Iterator[Item]:
    """Only the self-reports: the later turns of this file are templated, not the parents' words."""
    n = 0
    for line in git_show(DXY).splitlines():
        if not line.strip():
            continue
        split, _, rest = line.partition("@")
        for i, row in enumerate(ast.literal_eval(rest)):
            n += 1
            yield Item(f"dxy:{split}:{i}", "dxy", row["self_repo"].strip(), True)
    stats["items"] = n


def imcs_items(stats: dict[str, int]) -> Iterator[Item]:
    """The parents' turns of IMCS-21's dialogue-act files, one ``speaker：sentence<TAB>act`` per line."""
    n = 0
    for split in ("test", "dev"):
        for i, line in enumerate(git_show(IMCS, f"{IMCS[2]}/{split}.txt").split("\n")):
            utterance = line.rpartition("\t")[0]
            speaker, _, text = utterance.partition("：")
            if speaker == "患者" and text.strip():
                n += 1
                yield Item(f"imcs-dac:{split}:{i}", "imcs", text.strip(), False)
    stats["parent_turns"] = n


SOURCES = {"huatuo": huatuo_items, "remedi": remedi_items, "cmdd": cmdd_items, "dxy": dxy_items}
POOL_ONLY_SOURCES = {"imcs": imcs_items}  # README "The pool": labelled for tuning, in no split of the set


def all_items(sources: dict[str, Callable[[dict[str, int]], Iterator[Item]]] = SOURCES
              ) -> tuple[dict[str, Item], dict[str, dict[str, int]]]:
    """Every text of every source by id, with per-source stats; the 8-f half is not kept."""
    out: dict[str, Item] = {}
    stats: dict[str, dict[str, int]] = {}
    for name, reader in sources.items():
        s: dict[str, int] = {}
        for item in reader(s):
            out[item.id] = item
        stats[name] = s
    return out, stats


# --- red-flag candidates --------------------------------------------------------------------------------


def load_redflags(path: Path = REDFLAG_WORDS) -> tuple[list[str], list[str], list[str]]:
    plain: list[str] = []
    fever: list[str] = []
    infant: list[str] = []
    section = plain
    for raw in path.read_text(encoding="utf-8").splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line == "[fever]":
            section = fever
        elif line == "[infant_age]":
            section = infant
        else:
            section.append(line)
    return plain, fever, infant


def redflag_hits(text: str, lists: tuple[list[str], list[str], list[str]]) -> list[str]:
    plain, fever, infant = lists
    hits = [w for w in plain if w in text]
    if any(w in text for w in infant):
        hits += [w for w in fever if w in text]
    return hits


# --- select --------------------------------------------------------------------------------------------


def select(local_root: Path, force: bool) -> None:
    if ROWS.exists() and not force:
        for line in ROWS.read_text(encoding="utf-8").splitlines():
            if set(json.loads(line)) - {"id", "source", "sha256", "split", "text"}:
                sys.exit("rows.jsonl already carries labels: refusing to overwrite it")
    items, stats = all_items()
    lists = load_redflags()
    seen: set[str] = set()
    pool: list[Item] = []
    for name in SOURCES:
        s = stats[name]
        s.update(pediatric=0, dropped_8f=0, duplicate=0, scrub_dropped=0, empty=0, allowed=0)
        for item in (i for i in items.values() if i.source == name):
            if not item.text:
                s["empty"] += 1
                continue
            if name == "huatuo" and not is_pediatric(item.text):
                continue
            s["pediatric"] += 1
            digest = item.sha256
            if not allowed(digest):
                s["dropped_8f"] += 1
                continue
            if digest in seen:
                s["duplicate"] += 1
                continue
            if name in COMMITTABLE and needs_scrub(item.text):
                s["scrub_dropped"] += 1
                continue
            seen.add(digest)
            s["allowed"] += 1
            pool.append(item)

    rng = random.Random(SEED)
    candidates = [i for i in pool if redflag_hits(i.text, lists)]
    rest = [i for i in pool if not redflag_hits(i.text, lists)]
    # Every in-domain text of the rest (Huatuo, ReMeDi first turns, DXY self-reports, CMDD first parent
    # turns) is taken; later dialogue turns are sampled at random to reach the target size.
    in_domain = [i for i in rest if i.in_domain or i.source in COMMITTABLE]
    others = [i for i in rest if not (i.in_domain or i.source in COMMITTABLE)]
    need = max(0, TARGET_TOTAL - len(candidates) - len(in_domain))
    sampled = rng.sample(others, min(need, len(others)))
    stratum = {i.id: "candidate" for i in candidates}
    stratum.update({i.id: "in_domain" for i in in_domain})
    stratum.update({i.id: "sample" for i in sampled})
    chosen = sorted(candidates + in_domain + sampled, key=lambda i: (list(SOURCES).index(i.source), order_key(i.id)))
    non_cand = sorted((i.id for i in chosen if stratum[i.id] != "candidate"), key=order_key)
    second = {i.id for i in candidates} | set(rng.sample(non_cand, round(SECOND_FRACTION * len(non_cand))))

    for name in SOURCES:
        s = stats[name]
        s["candidates"] = sum(1 for i in candidates if i.source == name)
        s["in_domain_taken"] = sum(1 for i in in_domain if i.source == name)
        s["sampled"] = sum(1 for i in sampled if i.source == name)
        s["selected"] = sum(1 for i in chosen if i.source == name)
        s["second"] = sum(1 for i in chosen if i.source == name and i.id in second)
        s["in_domain_selected"] = sum(1 for i in chosen if i.source == name and (i.in_domain or name in COMMITTABLE))

    write_jsonl(ROWS, [row(i, with_text=i.source in COMMITTABLE) for i in chosen])
    write_jsonl(LOCAL_TEXTS, [{"id": i.id, "source": i.source, "sha256": i.sha256, "text": i.text}
                              for i in chosen if i.source not in COMMITTABLE])
    everything = [dict(row(i, with_text=True), candidate=stratum[i.id] == "candidate", second=i.id in second,
                       stratum=stratum[i.id]) for i in chosen]
    write_jsonl(local_root / "all.jsonl", everything)
    shards_dir = local_root / "shards"
    shards_dir.mkdir(parents=True, exist_ok=True)
    for old in shards_dir.glob("shard_*.jsonl"):
        old.unlink()
    shuffled = [{"id": r["id"], "source": r["source"], "split": r["split"], "text": r["text"]} for r in everything]
    rng.shuffle(shuffled)
    n_shards = max(1, round(len(shuffled) / SHARD_SIZE))
    for k in range(n_shards):
        write_jsonl(shards_dir / f"shard_{k:02d}.jsonl", shuffled[k::n_shards])
    (shards_dir / "second.txt").write_text("".join(f"{i}\n" for i in sorted(second, key=order_key)), encoding="utf-8")
    print(json.dumps({"per_source": stats, "total_selected": len(chosen), "candidates": len(candidates),
                      "second": len(second), "shards": n_shards,
                      "in_domain_selected": sum(s["in_domain_selected"] for s in stats.values())},
                     ensure_ascii=False, indent=1))


def order_key(item_id: str) -> tuple[str | int, ...]:
    """Ids in source order: numeric parts compare as numbers."""
    return tuple(int(p) if p.isdigit() else p for p in re.split(r"[:/_]", item_id))


def row(item: Item, with_text: bool) -> dict[str, str]:
    digest = item.sha256
    r = {"id": item.id, "source": item.source, "sha256": digest, "split": split_of(digest)}
    if with_text:
        r["text"] = item.text
    return r


def write_jsonl(path: Path, rows: list[dict[str, object]] | list[dict[str, str]]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8") as f:
        for r in rows:
            f.write(json.dumps(r, ensure_ascii=False) + "\n")


# --- rebuild -------------------------------------------------------------------------------------------


def rebuild() -> int:
    """Local texts of the committed rows, the pool rows and the sealed rows, each checked against its committed sha256."""
    items, _ = all_items(SOURCES | POOL_ONLY_SOURCES)
    bad = 0
    for rows, local, every in ((ROWS, LOCAL_TEXTS, False), (POOL_ROWS, LOCAL_POOL_TEXTS, True),
                               (SEALED_ROWS, LOCAL_SEALED_TEXTS, True)):
        if not rows.exists():
            continue
        out = []
        for line in rows.read_text(encoding="utf-8").splitlines():
            r = json.loads(line)
            item = items.get(r["id"])
            text = item.text if item else None
            if text is None or sha256(text) != r["sha256"] or ("text" in r and r["text"] != text):
                print(f"refused {r['id']}: the source text no longer hashes to the committed sha256", file=sys.stderr)
                bad += 1
                continue
            if every or r["source"] not in COMMITTABLE:
                out.append({"id": r["id"], "source": r["source"], "sha256": r["sha256"], "text": text})
        write_jsonl(local, out)
        print(f"{len(out)} local texts written to {local}")
    print(f"{bad} refused")
    return 1 if bad else 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("command", nargs="?", default="rebuild", choices=["rebuild", "select"])
    ap.add_argument("--force", action="store_true", help="select: overwrite rows.jsonl even if it has labels")
    args = ap.parse_args()
    if args.command == "select":
        select(Path(os.environ.get("PEDS_LOCAL", "/work/peds-local")), args.force)
        return 0
    return rebuild()


if __name__ == "__main__":
    sys.exit(main())
