"""The shipped policy file as text, and one edit of it, for the tests that load a changed policy."""

from __future__ import annotations

from app.router.policy import default_policy_bytes

SHIPPED = default_policy_bytes().decode()


def edit(old: str, new: str) -> bytes:
    """The shipped file with its one ``old`` replaced by ``new`` (``old`` must occur exactly once)."""
    assert SHIPPED.count(old) == 1, old
    return SHIPPED.replace(old, new).encode()
