"""Another patient named in the text, however written (SPEC §4.5 ``patient_out_of_context``).

``extract_slots`` reads a patient ID strictly (``P`` and four or more ASCII digits, SPEC §4.4): it
reports what the text says. The out-of-context check asks a different question — could a reader,
human or model, take this text to name another patient? — and fails closed, so it has its own,
lenient reading: ``P`` or ``p`` or a letter drawn like it, optional separators, then four or more
decimal digits of any script. ``P-0002``, ``p 0002``, ``Р0002`` (Cyrillic), ``P٠٠٠٢`` (Arabic-Indic)
all name patient P0002; full-width and mathematical forms are already ASCII in the text view (NFKC).

The one exception: a ``p`` right after an ASCII letter is the end of a word (``checkup 2025``),
not an ID, as in the strict reading.
"""

from __future__ import annotations

import re
import unicodedata

# Letters drawn like P after NFKC and ASCII lower-casing: Latin p, Cyrillic Р р, Greek Ρ ρ, Coptic
# Ⲣ ⲣ, and the small capital ᴘ (NFKC leaves all but the Latin one alone).
_P = "pРрΡρⲢⲣᴘ"
# What may stand between the letter and the digits: blanks and the marks people put in IDs, dashes
# of every width included (NFKC has already folded the full-width ones).
_SEPARATORS = r"\s\-‐‑‒–—―−_.:#·"
# ``\d`` is any Unicode decimal digit in a str pattern. One linear scan: the leading class lets sre
# skip to each candidate letter, and an attempt reads only separators and digits, none of them such
# a letter, so each character is read by at most one attempt.
_ID = re.compile(f"(?<![a-z])[{_P}][{_SEPARATORS}]*(\\d{{4,}})")


def _digits(run: str) -> str:
    return run if run.isascii() else "".join(str(unicodedata.decimal(ch)) for ch in run)


def other_patient(text: str, session: str) -> bool:
    """Whether ``text`` (the text view) names a patient other than ``session`` (``P`` + digits)."""
    own = session[1:]
    return any(_digits(match.group(1)) != own for match in _ID.finditer(text))
