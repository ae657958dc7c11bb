"""What every section of the policy shares: its string types, the strict model base, the checks of a
word list (a word listed twice, a word of two owners, a hider that hides nothing), and the shipped
file's value of a key that a policy written before it (the released one) lacks."""

from __future__ import annotations

import re
import tomllib
from functools import lru_cache
from importlib import resources
from typing import Annotated, Any, Mapping, Sequence, TypeVar

from pydantic import BaseModel, ConfigDict, Field, StringConstraints

from ..text import fold

# The shipped file sits in app/router, beside this package (the package data of app.router).
_HOME = __name__.rsplit(".", 2)[0]

NonEmpty = Annotated[str, StringConstraints(min_length=1)]
Terms = Annotated[list[NonEmpty], Field(min_length=1)]
Name = Annotated[str, StringConstraints(pattern=r"^[a-z][a-z0-9_]*$")]

# Lexicon groups: group name → (folded term, payload) pairs; each group's payload has its own type.
Groups = dict[str, Sequence[tuple[str, object]]]


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


# An owner's name: a plain string, or a Literal one such as a meal (Mapping is invariant in its key).
_Owner = TypeVar("_Owner", bound=str)


def overlaps(problems: list[str], where: str, words_of: Mapping[_Owner, list[str]]) -> None:
    """A word (after folding) may belong to one owner only: 钾 cannot be two analytes."""
    owner: dict[str, _Owner] = {}
    for name, words in words_of.items():
        for word in words:
            key = fold(word)
            if key in owner and owner[key] != name:
                problems.append(f"{where}.{name}: {word!r} overlaps a word of {owner[key]}")
            owner[key] = name


def owned_by(problems: list[str], where: str, words: list[str], intent: str | None,
             keyword_owner: Mapping[str, str]) -> None:
    """Every word is a keyword of ``intent`` (its owner after folding)."""
    for word in words:
        if keyword_owner.get(fold(word)) != intent:
            problems.append(f"{where}: {word!r} is not a keyword of {intent}")


def duplicates(problems: list[str], where: str, words: list[str]) -> None:
    seen: set[str] = set()
    for word in words:
        key = fold(word)
        if key in seen:
            problems.append(f"{where}: {word!r} is listed twice")
        seen.add(key)


def hides(problems: list[str], where: str, words: list[str], inside: list[str], what: str) -> None:
    """Words whose whole point is to hide a shorter word (matched longest first): each must hold one."""
    for word in words:
        if not any(w in fold(word) for w in inside):
            problems.append(f"{where}: {word!r} holds no {what}, so it hides nothing")


def alternation(words: list[str]) -> str:
    """A regex alternation of the folded words, longest first (还可以 before 可以)."""
    return "|".join(re.escape(fold(w)) for w in sorted(words, key=len, reverse=True))


SHIPPED_FILE = "policy.toml"


def shipped_bytes() -> bytes:
    """The shipped policy file, as it is packaged."""
    return resources.files(_HOME).joinpath(SHIPPED_FILE).read_bytes()


@lru_cache(maxsize=1)
def _shipped_file() -> dict[str, Any]:
    return tomllib.loads(shipped_bytes().decode("utf-8"))


def shipped(path: str) -> Any:
    """The shipped file's value at ``path`` ("asking.vehicles"): what a policy written before the key
    (the released one) reads, since its words were code when that policy was released. A shipped
    file without it is a bug: ``KeyError`` here."""
    value: Any = _shipped_file()
    for key in path.split("."):
        value = value[key]
    return value


def given_or_shipped(entry: BaseModel, where: str, key: str) -> Any:
    """``entry``'s ``key``, or, where it is absent (None), the shipped file's at ``where.key``."""
    value = getattr(entry, key)
    return shipped(f"{where}.{key}") if value is None else value
