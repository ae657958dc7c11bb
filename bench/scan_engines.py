#!/usr/bin/env python
"""Multi-pattern engines against today's matching, on the dev texts (issue 30 item 1).

    .venv/bin/pip install hyperscan google-re2      # measured here only; the router needs neither
    .venv/bin/python bench/scan_engines.py CORPUS.jsonl [ROUNDS]

CORPUS is the pediatric set's ``all.jsonl`` (kept outside the repository); only rows of the dev
split whose text hashes 0–7 are read. What the router matches per view today, and what each engine
would replace:

* the lexicon (one ``ahocorasick_rs`` DFA over every policy word, leftmost-longest per group in
  Python) on the text view, the red-line lexicon on the squashed view when it differs, and the
  context cues (a second automaton, one group) on the text view;
* the red-flag patterns (``redflags._patterns``: a prefilter regex finds where a pattern may open,
  and each pattern that opens there is tried with ``re.match``).

The slot scan (``slots/scan.py``, one combined ``re`` pass) is timed for scale only: its branches
look behind and ahead, its alternatives are ordered (the first that fits wins) and it consumes
what it matched, none of which an engine that reports every match of every pattern reproduces.

Engines:

* ``hyperscan`` (Vectorscan wheels): the words as literals over UTF-32-LE bytes (a character is
  four bytes, so a match's offsets divided by four are ``str`` offsets, and a match not on a
  four-byte boundary is dropped), sorted into the automaton's order and selected by the same
  leftmost-longest walk; the relaxed patterns (below) as one prefiltering database, a gate as RE2's
  is (it reports a superset of the patterns that match anywhere; SOM_LEFTMOST is refused in
  prefilter mode and by 112 of the 201 patterns in exact mode: "zero-width assertions are not
  supported").
* ``re2`` (google-re2) ``Set``: answers which patterns match somewhere, not where. For the words it
  gives the terms present, whose places are then found with ``str.find``; for the patterns
  (``relax``: RE2 has no lookaround) it is a gate: only the patterns it names are tried where they
  open, none when it names none.

Both pattern gates read the relaxed patterns: a pattern's leading look-behind matched as text,
every other lookaround dropped (measured once with every lookaround dropped: ``(?<=全部)吐`` became 吐
and the gate let 523 of the 2,393 texts through; relaxed, 124, of which 115 hold a pattern's match).

Besides the engines: the words and the cues in one ``ahocorasick_rs`` automaton against today's two,
each scanning what route_request scans (the cues only where and as often as it scans them).

Every engine's hits are checked equal to today's on every text before anything is timed (the
patterns: the mentions found with the gate equal those found without it). Then ROUNDS rounds, in
alternating order, thread CPU time, garbage collector off: ratios to today's matching, min and
median over rounds. Memory: RSS and its peak (VmHWM) before and after each engine is built in this
process, then what each engine's parts add in a fresh interpreter each (``PROBES``).
"""

from __future__ import annotations

import gc
import statistics
import sys
import time
from pathlib import Path
from typing import Any, Callable

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.compare_corpus import texts  # noqa: E402
from bench.router_bench import CALLER, PATIENT, REFERENCE  # noqa: E402
from app.router import Limits, Router, load_policy, redflags  # noqa: E402
from app.router.lexicon import Hit, Hits, Lexicon, _is_ascii_letter  # noqa: E402
from app.router.slots import SlotExtractor  # noqa: E402
from app.router.text import views  # noqa: E402

_new_hit = tuple.__new__


def memory() -> tuple[float, float]:
    """(VmRSS, VmHWM) of this process in MiB."""
    found = {}
    for line in Path("/proc/self/status").read_text().splitlines():
        key, _, value = line.partition(":")
        if key in ("VmRSS", "VmHWM"):
            found[key] = int(value.split()[0]) / 1024
    return found["VmRSS"], found["VmHWM"]


def select(view: str, entries: list[tuple[Any, ...]], matches: list[tuple[int, int, int]]) -> Hits:
    """``Lexicon.scan``'s walk over (index, start, end) matches in its automaton's order: by end,
    the longer first when two end together."""
    hits = Hits(list)
    last = len(view) - 1
    for index, start, end in matches:
        term, edges, group, payload, owners = entries[index]
        if edges is not None:
            ascii_head, ascii_tail = edges
            if ascii_head and start > 0 and _is_ascii_letter(view[start - 1]):
                continue
            if ascii_tail and end <= last and _is_ascii_letter(view[end]):
                continue
        for group, payload in owners:
            found = hits[group]
            while found and found[-1][0] >= start:
                found.pop()
            if found and found[-1][1] == end:
                continue
            found.append(_new_hit(Hit, (start, end, term, payload)))
    return hits


def _utf32_literal(term: str) -> bytes:
    # The binding hands expressions to Hyperscan as C strings: a NUL byte, in every UTF-32 unit of
    # a CJK character, has to be written as an escape.
    return "".join(f"\\x{b:02x}" for b in term.encode("utf-32-le")).encode()


def _group_end(pattern: str, i: int) -> int:
    """The index of the ``)`` closing the group that opens at ``i``."""
    depth, j = 0, i
    while True:
        c = pattern[j]
        if c == "\\":
            j += 2
            continue
        if c == "[":
            j = _class_end(pattern, j)
        elif c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
            if depth == 0:
                return j
        j += 1


def _class_end(pattern: str, i: int) -> int:
    """The index of the ``]`` closing the character class that opens at ``i``."""
    j = i + 1
    if pattern[j] == "^":
        j += 1
    if pattern[j] == "]":
        j += 1
    while pattern[j] != "]":
        j += 2 if pattern[j] == "\\" else 1
    return j


def relax(pattern: str) -> str:
    """The pattern for RE2, which has no lookaround: a lookbehind that nothing matched before can
    precede (it opens the pattern, or a branch of unrepeated groups that open it) is matched
    instead (全部吐 for ``(?<=全部)吐``), every other lookaround is dropped. Either way what is left
    matches somewhere wherever the pattern does: a gate, never a reader of places."""
    out: list[str] = []
    # per open group: whether nothing can be matched before it, and where it ends
    opened: list[tuple[bool, int]] = []
    fresh = True  # nothing matched yet on this branch
    i, n = 0, len(pattern)
    while i < n:
        ch = pattern[i]
        if pattern.startswith(("(?=", "(?!", "(?<=", "(?<!"), i):
            end = _group_end(pattern, i)
            if pattern.startswith("(?<=", i) and fresh:
                out.append("(?:" + relax(pattern[i + 4 : end]) + ")")
                fresh = False
            i = end + 1
        elif ch == "(":
            end = _group_end(pattern, i)
            repeated = end + 1 < n and pattern[end + 1] in "*+?{"
            opened.append((fresh and not repeated, end))
            fresh = fresh and not repeated
            head = 3 if pattern.startswith("(?:", i) else 1
            out.append(pattern[i : i + head])
            i += head
        elif ch == "|":
            fresh = opened[-1][0] if opened else True
            out.append(ch)
            i += 1
        elif ch == ")":
            opened.pop()
            fresh = False
            out.append(ch)
            i += 1
        elif ch == "[":
            end = _class_end(pattern, i)
            out.append(pattern[i : end + 1])
            fresh = False
            i = end + 1
        else:
            step = 2 if ch == "\\" else 1
            out.append(pattern[i : i + step])
            fresh = False
            i += step
    return "".join(out)


# ---------------------------------------------------------------------------------------------
# The engines: each gives, for a text view, the lexicon's hits, the cues' hits and the patterns'
# mentions.
# ---------------------------------------------------------------------------------------------


class Today:
    def __init__(self, lexicon: Lexicon, cues: Lexicon, rules: Any) -> None:
        self.lexicon, self.cues, self.rules = lexicon, cues, rules

    def scan(self, view: str) -> Hits:
        return self.lexicon.scan(view)

    def cue_scan(self, view: str) -> list[Hit]:
        return self.cues.scan_group(view)

    def patterns(self, view: str, p0: list[Hit] | None) -> list[Any]:
        return redflags._patterns(self.rules, view, p0)


def _restricted(rules: Any, allowed: frozenset[int], view: str, p0: list[Hit] | None) -> list[Any]:
    """``redflags._patterns`` trying only the patterns whose index (in ``_pattern_index``) is
    allowed; none when none is."""
    if not allowed:
        return []
    index = _pattern_index(rules)
    mentions: list[Any] = []
    starts = rules.pattern_starts
    safe = [h for h in p0 if h.payload is None] if p0 else []
    n, j = len(safe), 0
    for candidate in rules.pattern_prefilter.finditer(view):
        position = candidate.start()
        tried = starts.get(view[position : position + 2]) or starts[view[position]]
        while j < n and safe[j].end <= position:
            j += 1
        for compiled in tried:
            if index[compiled] not in allowed:
                continue
            pattern, name, concept = compiled
            m = pattern.match(view, position)
            if m is None or (j < n and safe[j].start <= position and m.end() <= safe[j].end):
                continue
            mentions.append(redflags.Mention(position, m.end(), name, concept))
    return mentions


_INDEX: dict[int, dict[Any, int]] = {}


def _pattern_index(rules: Any) -> dict[Any, int]:
    if id(rules) in _INDEX:
        return _INDEX[id(rules)]
    distinct = dict.fromkeys(p for tried in rules.pattern_starts.values() for p in tried)
    _INDEX[id(rules)] = found = {p: i for i, p in enumerate(distinct)}
    return found


def hyperscan_words(terms: list[str]) -> Any:
    import hyperscan

    db = hyperscan.Database(mode=hyperscan.HS_MODE_BLOCK)
    db.compile(expressions=[_utf32_literal(t) for t in terms], ids=list(range(len(terms))), flags=0)
    return db


def hyperscan_gate(rules: Any) -> Any:
    import hyperscan

    index = _pattern_index(rules)
    flags = hyperscan.HS_FLAG_UTF8 | hyperscan.HS_FLAG_UCP | hyperscan.HS_FLAG_PREFILTER | hyperscan.HS_FLAG_SINGLEMATCH
    db = hyperscan.Database(mode=hyperscan.HS_MODE_BLOCK)
    db.compile(expressions=[relax(p[0].pattern).encode() for p in index], ids=list(index.values()), flags=flags)
    return db


def re2_set(patterns: list[str]) -> Any:
    import re2

    options = re2.Options()
    # The default 8 MiB leaves the DFA of either set thrashing: 100 µs a text for the pattern gate.
    options.max_mem = 64 << 20
    found = re2.Set.SearchSet(options)
    for p in patterns:
        found.Add(p)
    found.Compile()
    return found


class HyperscanEngine:
    def __init__(self, lexicon: Lexicon, cues: Lexicon, rules: Any) -> None:
        import hyperscan

        self._entries = lexicon._entries
        self._lengths = [4 * len(e[0]) for e in self._entries]
        self._words = hyperscan_words([e[0] for e in self._entries])
        self._words_scratch = hyperscan.Scratch(self._words)
        self._cue_entries = cues._entries
        self._cue_lengths = [4 * len(e[0]) for e in self._cue_entries]
        self._cue_db = hyperscan_words([e[0] for e in self._cue_entries])
        self._cue_scratch = hyperscan.Scratch(self._cue_db)
        self.rules = rules
        self._patterns = hyperscan_gate(rules)
        self._patterns_scratch = hyperscan.Scratch(self._patterns)

    def _matches(self, db: Any, scratch: Any, lengths: list[int], view: str) -> list[tuple[int, int, int]]:
        found: list[tuple[int, int, int]] = []
        add = found.append
        db.scan(view.encode("utf-32-le"), match_event_handler=lambda i, _s, e, _f, _c: add((e, -lengths[i], i)), scratch=scratch)
        found.sort()
        return [(i, (e + neg) >> 2, e >> 2) for e, neg, i in found if not e & 3]

    def scan(self, view: str) -> Hits:
        return select(view, self._entries, self._matches(self._words, self._words_scratch, self._lengths, view))

    def cue_scan(self, view: str) -> list[Hit]:
        return select(view, self._cue_entries, self._matches(self._cue_db, self._cue_scratch, self._cue_lengths, view)).get("ctx", [])

    def gate(self, view: str) -> frozenset[int]:
        named: set[int] = set()
        self._patterns.scan(view.encode(), match_event_handler=lambda i, _s, _e, _f, _c: named.add(i), scratch=self._patterns_scratch)
        return frozenset(named)

    def patterns(self, view: str, p0: list[Hit] | None) -> list[Any]:
        return _restricted(self.rules, self.gate(view), view, p0)


class Re2Engine:
    def __init__(self, lexicon: Lexicon, cues: Lexicon, rules: Any) -> None:
        import re2

        self._entries = lexicon._entries
        self._words = re2_set([re2.escape(e[0]) for e in self._entries])
        self._cue_entries = cues._entries
        self._cue_set = re2_set([re2.escape(e[0]) for e in self._cue_entries])
        self.rules = rules
        self._gate = re2_set([relax(p[0].pattern) for p in _pattern_index(rules)])

    @staticmethod
    def _places(view: str, entries: list[tuple[Any, ...]], present: list[int]) -> list[tuple[int, int, int]]:
        matches: list[tuple[int, int, int]] = []
        for index in present:
            term = entries[index][0]
            size = len(term)
            at = view.find(term)
            while at >= 0:
                matches.append((at + size, -size, index))
                at = view.find(term, at + 1)
        matches.sort()
        return [(i, e + neg, e) for e, neg, i in matches]

    def scan(self, view: str) -> Hits:
        return select(view, self._entries, self._places(view, self._entries, self._words.Match(view) or ()))

    def cue_scan(self, view: str) -> list[Hit]:
        return select(view, self._cue_entries, self._places(view, self._cue_entries, self._cue_set.Match(view) or ())).get("ctx", [])

    def gate(self, view: str) -> frozenset[int]:
        return frozenset(self._gate.Match(view) or ())

    def patterns(self, view: str, p0: list[Hit] | None) -> list[Any]:
        return _restricted(self.rules, self.gate(view), view, p0)


def merged(lexicon: Lexicon, cues: Lexicon) -> Lexicon:
    """The words and the cues in one automaton: the "one scan" of the words, the cues a group of it."""
    groups: dict[str, list[tuple[str, Any]]] = {}
    for lex in (lexicon, cues):
        for term, *_, owners in lex._entries:
            for group, payload in owners:
                groups.setdefault(group, []).append((term, payload))
    return Lexicon(groups)


def cue_scans(router: Any, corpus: list[str]) -> list[int]:
    """How many times route_request scans each text for cues (the red flags' walks, a temperature's
    context): the cue lexicon's own scans, counted."""
    cues = router.policy.red_flags.context.lexicon
    counts = [0]

    def counted(method: Callable[[str], Any]) -> Callable[[str], Any]:
        def scan(view: str) -> Any:
            counts[0] += 1
            return method(view)
        return scan

    cues.scan, cues.scan_group = counted(cues.scan), counted(cues.scan_group)
    found = []
    try:
        for text in corpus:
            counts[0] = 0
            router.route_request(text, CALLER, PATIENT, REFERENCE)
            found.append(counts[0])
    finally:
        del cues.scan, cues.scan_group
    return found


# ---------------------------------------------------------------------------------------------
# Equality, then timing
# ---------------------------------------------------------------------------------------------


def check(engine: Any, today: Today, texts_: list[str]) -> list[str]:
    problems = []
    for n, view in enumerate(texts_):
        hits = today.scan(view)
        if dict(engine.scan(view)) != dict(hits):
            problems.append(f"text {n}: lexicon hits differ")
        if engine.cue_scan(view) != today.cue_scan(view):
            problems.append(f"text {n}: cue hits differ")
        if engine.patterns(view, hits.get("p0")) != today.patterns(view, hits.get("p0")):
            problems.append(f"text {n}: pattern mentions differ")
    return problems


def timed(jobs: dict[str, Callable[[], None]], rounds: int, count: int) -> dict[str, list[float]]:
    samples: dict[str, list[float]] = {name: [] for name in jobs}
    order = list(jobs)
    gc.disable()
    for r in range(rounds):
        for name in order if r % 2 == 0 else reversed(order):
            started = time.thread_time_ns()
            jobs[name]()
            samples[name].append((time.thread_time_ns() - started) / count / 1000)
    gc.enable()
    return samples


# What each engine adds to a process that has loaded the policy, measured in a fresh interpreter
# each (in one process the allocator reuses what an engine built before freed), every engine's
# module imported first: its database built, then one pass over the texts (RE2 builds its DFA lazily).
PROBES: dict[str, Callable[[Any], Any]] = {
    "ahocorasick_rs: the lexicon's words (today)": lambda policy: __import__("ahocorasick_rs").AhoCorasick(
        [e[0] for e in policy.lexicon._entries]),
    "hyperscan: the words": lambda policy: hyperscan_words([e[0] for e in policy.lexicon._entries]),
    "hyperscan: the pattern gate": lambda policy: hyperscan_gate(policy.red_flags),
    "re2 Set: the words": lambda policy: re2_set([__import__("re2").escape(e[0]) for e in policy.lexicon._entries]),
    "re2 Set: the pattern gate": lambda policy: re2_set([relax(p[0].pattern) for p in _pattern_index(policy.red_flags)]),
}


def probe(name: str, corpus_path: str) -> None:
    import ahocorasick_rs  # noqa: F401  (imported before the first figure, as the others)
    import hyperscan  # noqa: F401
    import re2  # noqa: F401

    corpus = [views(t).text for t in texts(Path(corpus_path), "dev")]
    policy = load_policy()
    gc.collect()
    rss, hwm = memory()
    built = PROBES[name](policy)
    after, hwm_after = memory()
    scan = getattr(built, "find_matches_as_indexes", None) or getattr(built, "Match", None)
    for view in corpus:
        if scan is not None:
            scan(view)
        else:  # a hyperscan database: the gate's is UTF-8, the words' UTF-32
            built.scan(view.encode("utf-8" if "gate" in name else "utf-32-le"), match_event_handler=lambda *_: None)
    used, hwm_used = memory()
    print(f"{after - rss:.1f} {hwm_after - hwm:.1f} {used - rss:.1f}")


def memory_table(corpus_path: str) -> None:
    import subprocess

    print("\nMemory each engine adds to a process with the policy loaded (MiB, a fresh interpreter each; the "
          "modules are imported before the first figure): built / peak while building / after one pass over the texts")
    for name in PROBES:
        out = subprocess.run([sys.executable, __file__, corpus_path, "--probe", name],
                             capture_output=True, text=True, check=True).stdout.split()
        print(f"  {name:46s} +{out[0]} / +{out[1]} / +{out[2]}")
    print("The module alone, imported after the policy is loaded (MiB of RSS; the router imports ahocorasick_rs):")
    for module in ("hyperscan", "re2"):
        code = (f"import sys; sys.path.insert(0, {str(ROOT)!r}); from bench.scan_engines import memory, load_policy; "
                f"load_policy(); a = memory()[0]; import {module}; print(f'{{memory()[0] - a:.1f}}')")
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()
        print(f"  {module:46s} +{out}")


def main() -> int:
    if "--probe" in sys.argv:
        probe(sys.argv[sys.argv.index("--probe") + 1], sys.argv[1])
        return 0
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    if not args:
        print(__doc__, file=sys.stderr)
        return 2
    try:
        import hyperscan  # noqa: F401
        import re2  # noqa: F401
    except ImportError:
        print("needs the engines: .venv/bin/pip install hyperscan google-re2", file=sys.stderr)
        return 2
    rounds = int(args[1]) if len(args) > 1 else 9
    corpus = texts(Path(args[0]), "dev")
    before = memory()
    policy = load_policy()
    rules = policy.red_flags
    extractor = SlotExtractor(policy)
    loaded = memory()
    text_views = [views(t) for t in corpus]
    view = [v.text for v in text_views]
    squashed = [v.squashed for v in text_views if v.squashed != v.text]
    today = Today(policy.lexicon, rules.context.lexicon, rules)
    print(f"python {sys.version.split()[0]}; {len(view)} dev texts (hash 0–7), {sum(map(len, view)) / len(view):.1f} "
          f"characters each on average; lexicon {policy.lexicon.size} terms, cues {rules.context.lexicon.size}, "
          f"red-flag patterns {len(_pattern_index(rules))}; policy loaded: RSS {before[0]:.1f} → {loaded[0]:.1f} MiB")
    engines: dict[str, Any] = {}
    for name, build in (("hyperscan", HyperscanEngine), ("re2 Set", Re2Engine)):
        rss, hwm = memory()
        engines[name] = build(policy.lexicon, rules.context.lexicon, rules)
        after, hwm_after = memory()
        problems = check(engines[name], today, view)
        used, hwm_used = memory()
        print(f"{name:10s} built: RSS +{after - rss:.1f} MiB, peak (VmHWM) +{hwm_after - hwm:.1f} MiB; after one pass "
              f"over the texts: RSS +{used - rss:.1f} MiB, peak +{hwm_used - hwm:.1f} MiB")
        print(f"{name:10s} hits equal to today's on {len(view) - len({p.split(':')[0] for p in problems})}/{len(view)} texts"
              + (f"; first differences: {problems[:3]}" if problems else ""))
        if problems:
            return 1
    p0 = [today.scan(v).get("p0") for v in view]
    matched = sum(bool(today.patterns(v, None)) for v in view)
    for name, engine in engines.items():
        print(f"{name:10s} pattern gate lets {sum(bool(engine.gate(v)) for v in view)} texts through; "
              f"{matched} hold a pattern's match")
    jobs: dict[str, Callable[[], None]] = {}
    for name, engine in {"today": today, **engines}.items():
        jobs[f"{name}: lexicon, text view"] = lambda e=engine: [e.scan(v) for v in view] and None
        jobs[f"{name}: cues, text view"] = lambda e=engine: [e.cue_scan(v) for v in view] and None
        jobs[f"{name}: red-flag patterns"] = lambda e=engine: [e.patterns(v, h) for v, h in zip(view, p0)] and None
    jobs["today: lexicon, squashed views (when they differ)"] = lambda: [policy.redline.scan(v) for v in squashed] and None
    jobs["today: slot scan regex alone (for scale)"] = lambda: [list(extractor._scan(v)) for v in view] and None
    jobs["today: slot _read (scan and handlers, for scale)"] = (
        lambda: [extractor._read(v, today.scan(v.text), REFERENCE) for v in text_views] and None)
    router = Router(policy, Limits())
    # One automaton for the words and the cues against today's two, each scanning what route_request
    # scans: the words every text, the cues the texts (and as many times) route_request scans them.
    both = merged(policy.lexicon, rules.context.lexicon)
    if any({g: h for g, h in both.scan(v).items() if g != "ctx"} != dict(today.scan(v)) or both.scan(v).get("ctx", [])
           != today.cue_scan(v) for v in view):
        print("words and cues in one automaton: hits differ from the two scans'")
        return 1
    scans = cue_scans(router, corpus)
    again = [v for v, n in zip(view, scans) for _ in range(n)]
    print(f"route_request scans {sum(1 for n in scans if n)} of the {len(view)} texts for cues ({len(again)} cue scans); "
          f"words and cues in one automaton: hits equal to the two scans' on {len(view)}/{len(view)} texts")
    jobs["today: words every text + cues where route_request scans them"] = (
        lambda: ([today.scan(v) for v in view], [today.cue_scan(v) for v in again]) and None)
    jobs["one automaton: words every text + cues where route_request scans them"] = lambda: [both.scan(v) for v in view] and None
    jobs["today: route_request (whole, for scale)"] = lambda: [router.route_request(t, CALLER, PATIENT, REFERENCE) for t in corpus] and None
    samples = timed(jobs, rounds, len(view))
    print(f"\n{rounds} rounds, alternating order, thread CPU time; µs per dev text (median), and each engine's "
          "ratio to today's same job (min / median of the per-round ratios)")
    for name, values in samples.items():
        line = f"  {name:70s} {statistics.median(values):7.2f} µs"
        engine, _, job = name.partition(": ")
        if engine != "today":
            base = samples[f"today: {job}"]
            ratios = [a / b for a, b in zip(values, base)]
            line += f"   ×{min(ratios):.2f} / ×{statistics.median(ratios):.2f}"
        print(line)
    whole = statistics.median(samples["today: route_request (whole, for scale)"])
    matching = sum(statistics.median(samples[f"today: {job}"]) for job in ("lexicon, text view", "red-flag patterns"))
    print(f"  today's lexicon and pattern passes are {matching / whole:.0%} of route_request, the cues at most "
          f"{statistics.median(samples['today: cues, text view']) / whole:.0%} more (they run on texts with a symptom word)")
    memory_table(args[0])
    return 0


if __name__ == "__main__":
    sys.exit(main())
