"""Multi-pattern keyword matching: one Aho-Corasick pass per view, whatever the lexicon size.

A ``Lexicon`` holds every word list of the policy, each under a group name ("p0", "staging",
"intent", "food"…). ``scan`` finds every occurrence of every term in one pass, then ``Hits.group``
keeps, for one group, the occurrences that no longer occurrence of the same group contains
("longest match wins": 一周食谱 hides the 食谱 inside it, 减少尿蛋白 hides its 少尿).

Terms are stored folded (``text.fold``) and matched against already-folded views. A term that
starts or ends with an ASCII letter matches only where no ASCII letter touches it on that side —
``coma`` must not fire inside ``glaucoma`` — and there is never a ``\\b`` around CJK.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import Any, Iterable

import ahocorasick


def _is_ascii_letter(ch: str) -> bool:
    return ("a" <= ch <= "z") or ("A" <= ch <= "Z")


@dataclass(frozen=True, slots=True)
class Hit:
    start: int
    end: int  # exclusive
    term: str
    payload: Any


class Hits:
    """The occurrences found in one view, grouped; ``group`` applies longest-match-wins."""

    __slots__ = ("_by_group",)

    def __init__(self, by_group: dict[str, list[Hit]]):
        self._by_group = by_group

    def group(self, name: str) -> list[Hit]:
        hits = self._by_group.get(name)
        if not hits:
            return []
        if len(hits) == 1:
            return hits
        return [h for h in hits if not any(_contains(o, h) for o in hits)]


def _contains(outer: Hit, inner: Hit) -> bool:
    return (
        outer.start <= inner.start
        and inner.end <= outer.end
        and (outer.end - outer.start) > (inner.end - inner.start)
    )


class Lexicon:
    def __init__(self, groups: dict[str, Iterable[tuple[str, Any]]]):
        entries: dict[str, list[tuple[str, Any]]] = defaultdict(list)
        for group, pairs in groups.items():
            for term, payload in pairs:
                if not term:
                    raise ValueError(f"empty term in group {group!r}")
                entries[term].append((group, payload))
        automaton = ahocorasick.Automaton()
        for term, owners in entries.items():
            automaton.add_word(
                term,
                (term, len(term), _is_ascii_letter(term[0]), _is_ascii_letter(term[-1]), tuple(owners)),
            )
        if entries:
            automaton.make_automaton()
        self._automaton = automaton if entries else None
        self.size = len(entries)

    def scan(self, view: str) -> Hits:
        by_group: dict[str, list[Hit]] = defaultdict(list)
        if self._automaton is None or not view:
            return Hits(by_group)
        last = len(view) - 1
        for end, (term, length, ascii_head, ascii_tail, owners) in self._automaton.iter(view):
            start = end - length + 1
            if ascii_head and start > 0 and _is_ascii_letter(view[start - 1]):
                continue
            if ascii_tail and end < last and _is_ascii_letter(view[end + 1]):
                continue
            for group, payload in owners:
                by_group[group].append(Hit(start, end + 1, term, payload))
        return Hits(by_group)
