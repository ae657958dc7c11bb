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
from typing import Any, Iterable, Mapping, NamedTuple

import ahocorasick_rs


def _is_ascii_letter(ch: str) -> bool:
    return ("a" <= ch <= "z") or ("A" <= ch <= "Z")


class Hit(NamedTuple):
    start: int
    end: int  # exclusive
    term: str
    payload: Any


# NamedTuple's own __new__ is Python code; tuple.__new__ builds the same object in C, and a scan
# builds one per occurrence.
_new_hit = tuple.__new__


class Hits(defaultdict[str, list[Hit]]):
    """The occurrences found in one view: group name → hits in text order, longest match already
    applied. ``group(name)`` is the mapping's own C-level look-up (an absent group is empty): the
    router asks for a dozen groups per request, and a Python method per look-up showed up."""

    group = defaultdict.__getitem__


_EDGES = {(False, False): None, (True, False): (True, False), (False, True): (False, True), (True, True): (True, True)}


class Lexicon:
    def __init__(self, groups: Mapping[str, Iterable[tuple[str, Any]]]):
        entries: dict[str, list[tuple[str, Any]]] = defaultdict(list)
        for group, pairs in groups.items():
            for term, payload in pairs:
                if not term:
                    raise ValueError(f"empty term in group {group!r}")
                entries[term].append((group, payload))
        # What the scan reads per match: the term, its ASCII-letter edges to check (None: neither,
        # most terms), its only owner's group and payload (None: several owners), and its
        # (group, payload) owners. One tuple per term and nothing else kept: the lexicon is most of
        # the router's resident memory.
        self._entries = [
            (term, _EDGES[_is_ascii_letter(term[0]), _is_ascii_letter(term[-1])],
             owners[0][0] if len(owners) == 1 else None, owners[0][1], tuple(owners))
            for term, owners in entries.items()
        ]
        # A DFA built once: its cost per character does not grow with the number of terms
        # (pyahocorasick's trie walk did: ×7 slower at 43,000 terms, bench/router_bench.py).
        self._automaton = ahocorasick_rs.AhoCorasick(
            [t[0] for t in self._entries], matchkind=ahocorasick_rs.MatchKind.Standard
        ) if self._entries else None
        self.size = len(self._entries)
        # A lexicon of one group (the context cues) also keeps, per term, the payload its scan keeps:
        # the last owner's (each owner replaces the one before it at the same place).
        groups_of = {group for owners in entries.values() for group, _ in owners}
        self._group = next(iter(groups_of)) if len(groups_of) == 1 else None
        self._one = [(t[0], t[1], t[4][-1][1]) for t in self._entries] if self._group is not None else []

    def scan(self, view: str) -> Hits:
        """Every occurrence of every term, longest match applied per group in the same pass.

        The automaton reports overlapping matches in order of their end, the longer first when two
        end together. So, per group, a new hit contains every kept hit that starts at or after it
        (they all end no later: they are popped), and is contained in the last kept hit exactly
        when that one ends where it does (it started earlier). Kept hits are then in text order,
        with increasing starts and ends, and none contains another.
        """
        hits = Hits(list)  # no __init__ of our own: a Python call per scan showed up
        if self._automaton is None or not view:
            return hits
        last = len(view) - 1
        entries = self._entries
        for index, start, end in self._automaton.find_matches_as_indexes(view, overlapping=True):
            term, edges, group, payload, owners = entries[index]
            if edges is not None:
                ascii_head, ascii_tail = edges
                if ascii_head and start > 0 and _is_ascii_letter(view[start - 1]):
                    continue
                if ascii_tail and end <= last and _is_ascii_letter(view[end]):
                    continue
            if group is not None:  # one owner, most terms: the loop below without its tuple walk
                found = hits[group]
                while found and found[-1][0] >= start:
                    found.pop()
                if not (found and found[-1][1] == end):
                    found.append(_new_hit(Hit, (start, end, term, payload)))
                continue
            for group, payload in owners:
                found = hits[group]
                while found and found[-1][0] >= start:
                    found.pop()
                if found and found[-1][1] == end:
                    continue
                found.append(_new_hit(Hit, (start, end, term, payload)))
        return hits

    def scan_group(self, view: str) -> list[Hit]:
        """``scan(view).group(g)`` of a lexicon with one group g, built without the mapping and
        its per-match look-ups (the context cues, scanned for every text with a symptom word).

        A second pass over the text view, on purpose: the cues in the words' automaton were no
        faster (×0.95–×1.05, bench/RESULTS.md "One scan"), since the frequent cue words (我, 了,
        不) would then be matched in every text, and only 39 % of dev texts need them."""
        if self._group is None:
            raise ValueError("scan_group needs a lexicon of one group")
        found: list[Hit] = []
        if self._automaton is None or not view:
            return found
        last = len(view) - 1
        entries = self._one
        for index, start, end in self._automaton.find_matches_as_indexes(view, overlapping=True):
            term, edges, payload = entries[index]
            if edges is not None:
                ascii_head, ascii_tail = edges
                if ascii_head and start > 0 and _is_ascii_letter(view[start - 1]):
                    continue
                if ascii_tail and end <= last and _is_ascii_letter(view[end]):
                    continue
            while found and found[-1][0] >= start:
                found.pop()
            if not (found and found[-1][1] == end):
                found.append(_new_hit(Hit, (start, end, term, payload)))
        return found
