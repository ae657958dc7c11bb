"""``extract_slots`` (SPEC §4.4): regex + dictionaries, and never a guess.

Foods, analytes and meals come from the policy lexicon's single Aho-Corasick scan (the router runs
it once per request). Everything numeric comes from **one** combined regex pass, ``scan``, whose
branches and handlers come from one module per family of quantities, each with its rules and the
decisions it makes where the spec is silent. The words of their grammar are the policy's
``[slots.*]`` families (``app/router/policy/slots.py``); the modules hold the algorithm.

* ``ages`` — N岁, months of age, an age said of a child in months, days or weeks, 满月;
* ``body`` — body weight and height; ``temperatures`` — body temperature readings, and
  ``temperature_context`` — which of them is the child's current one;
* ``dates`` — calendar and relative dates, look-back windows;
* ``foods`` — portions of a food, and the analyte words that name a result;
* ``combined`` — the one pattern and the order of its branches; ``scan`` — the scan, plain
  numbers, patient IDs; ``subjects`` — whose a value is; ``draft`` — what one call has read so
  far; ``result`` — the result's shape.
"""

from ..lexicon import Hits
from ..policy import Policy
from ..text import TextViews
from .dates import REFERENCE_RANGE
from .result import Quantity, SlotsResult
from .combined import RUN_OPENING, numeral_end
from .scan import SlotExtractor, Values

__all__ = ["REFERENCE_RANGE", "RUN_OPENING", "Quantity", "SlotExtractor", "SlotsResult", "Values", "child_values", "numeral_end"]

# One extractor per policy loaded (a process holds one or two; tests a few): building one compiles
# the combined pattern, too slow to do per request.
_EXTRACTORS: dict[int, tuple[Policy, SlotExtractor]] = {}
_EXTRACTORS_MAX = 8


def child_values(policy: Policy, views: TextViews, hits: Hits) -> Values:
    """The child's age and temperature by the slot readers (``SlotExtractor.values``), for callers
    that hold a policy and no extractor: the red flags' infant rule (SPEC §4.7 revision 3)."""
    entry = _EXTRACTORS.get(id(policy))
    if entry is None or entry[0] is not policy:
        if len(_EXTRACTORS) >= _EXTRACTORS_MAX:
            _EXTRACTORS.clear()
        entry = _EXTRACTORS[id(policy)] = (policy, SlotExtractor(policy))
    return entry[1].values(views, hits)
