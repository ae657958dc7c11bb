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
from typing import Any, Iterable, NamedTuple

import ahocorasick


def _is_ascii_letter(ch: str) -> bool:
    return ("a" <= ch <= "z") or ("A" <= ch <= "Z")


class Hit(NamedTuple):
    start: int
    end: int  # exclusive
    term: str
    payload: Any


class Hits:
    """The occurrences found in one view, by group; ``group`` applies longest-match-wins once."""

    __slots__ = ("_raw", "_groups")

    def __init__(self, raw: dict[str, list[Hit]]):
        self._raw = raw  # group → hits in the automaton's order, before longest-match-wins
        self._groups: dict[str, list[Hit]] = {}

    def group(self, name: str) -> list[Hit]:
        found = self._groups.get(name)
        if found is None:
            found = self._groups[name] = _longest(self._raw.get(name, []))
        return found


def _longest(hits: list[Hit]) -> list[Hit]:
    """Drop every hit that a longer hit contains, in one sweep over (start, -end) order: a hit is
    contained exactly when an earlier-starting (or same-start, longer) hit already reached its end."""
    if len(hits) < 2:
        return hits
    kept: list[Hit] = []
    reach = -1
    for hit in sorted(hits, key=lambda h: (h.start, -h.end)):
        if hit.end > reach:
            kept.append(hit)
            reach = hit.end
    return kept


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
        if self._automaton is None or not view:
            return Hits({})
        raw: dict[str, list[Hit]] = {}
        last = len(view) - 1
        for end, (term, length, ascii_head, ascii_tail, owners) in self._automaton.iter(view):
            start = end - length + 1
            if ascii_head and start > 0 and _is_ascii_letter(view[start - 1]):
                continue
            if ascii_tail and end < last and _is_ascii_letter(view[end + 1]):
                continue
            for group, payload in owners:
                hit = Hit(start, end + 1, term, payload)
                found = raw.get(group)
                if found is None:
                    raw[group] = [hit]
                else:
                    found.append(hit)
        return Hits(raw)
