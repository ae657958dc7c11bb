"""``extract_slots`` (SPEC §4.4): regex + dictionaries, and never a guess.

Foods, analytes and meals come from the policy lexicon's single Aho-Corasick scan (the router runs
it once per request). Everything numeric comes from **one** combined regex pass, ``scan``, whose
branches and handlers come from one module per family of quantities, each with its rules and the
decisions it makes where the spec is silent:

* ``ages`` — N岁, months of age, an age said of a child in months, days or weeks, 满月;
* ``body`` — body weight, height and temperature;
* ``dates`` — calendar and relative dates, look-back windows;
* ``foods`` — portions of a food, and the analyte words that name a result;
* ``scan`` — the one pattern, the order of its branches, plain numbers, patient IDs, and whose a
  value is; ``draft`` — what one call has read so far; ``result`` — the result's shape.
"""

from .dates import REFERENCE_RANGE
from .result import Quantity, SlotsResult
from .scan import RUN_OPENING, SlotExtractor, numeral_end

__all__ = ["REFERENCE_RANGE", "RUN_OPENING", "Quantity", "SlotExtractor", "SlotsResult", "numeral_end"]
