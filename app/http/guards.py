"""The request guards of POST /mcp, each a small pure check over ASGI headers (SPEC §5.1).

They run in ``endpoint.McpEndpoint`` in this order, each failing closed:
Origin (403) → bearer (401) → Content-Type (415) → body size (413, read incrementally).
"""

from __future__ import annotations

import hashlib
import hmac
import random
import re
import secrets

Headers = list[tuple[bytes, bytes]]

_REQUEST_ID = re.compile(rb"[A-Za-z0-9._-]{1,64}")


def header_values(headers: Headers, name: bytes) -> list[bytes]:
    return [value for key, value in headers if key == name]


def origin_allowed(headers: Headers, allowed: frozenset[bytes]) -> bool:
    """Service-to-service only: any non-empty Origin (the string "null" included) is refused,
    unless it is on the operator's allow-list."""
    origins = header_values(headers, b"origin")
    if not origins:
        return True
    if len(origins) > 1:
        return False
    origin = origins[0].strip()
    return not origin or origin in allowed


class BearerGuard:
    """Constant-time comparison of SHA-256 digests against every configured token.

    Comparing digests (bytes of equal length) rather than ``str`` means a non-ASCII or very long
    header can never raise (``hmac.compare_digest`` raises TypeError on non-ASCII ``str``) and the
    comparison time does not depend on the token's length.
    """

    def __init__(self, tokens: list[bytes]):
        if not tokens:
            raise ValueError("at least one token is required")
        self._digests = [hashlib.sha256(t).digest() for t in tokens]

    def allows(self, headers: Headers) -> bool:
        token = bearer_token(headers)
        return token is not None and self.matches(token)

    def matches(self, token: bytes) -> bool:
        presented = hashlib.sha256(token).digest()
        ok = False
        for digest in self._digests:  # no early exit: every token is compared every time
            ok |= hmac.compare_digest(presented, digest)
        return ok


def bearer_token(headers: Headers) -> bytes | None:
    """The token of the one ``Authorization: Bearer`` header; None when the header is missing,
    repeated, of another scheme or empty (every mode refuses those alike)."""
    values = header_values(headers, b"authorization")
    if len(values) != 1:
        return None
    scheme, _, token = values[0].strip().partition(b" ")
    token = token.strip()
    return token if scheme.lower() == b"bearer" and token else None


def is_json(headers: Headers) -> bool:
    values = header_values(headers, b"content-type")
    if len(values) != 1:
        return False
    media_type = values[0].split(b";", 1)[0].strip().lower()
    return media_type == b"application/json"


def declared_length(headers: Headers) -> int | None:
    values = header_values(headers, b"content-length")
    if len(values) != 1 or not values[0].strip().isdigit():
        return None
    digits = values[0].strip()
    # int() refuses digit strings longer than sys.get_int_max_str_digits() (a ValueError, i.e. a
    # 500): a length with more than 18 digits is over any limit anyway.
    return int(digits) if len(digits) <= 18 else 10**18


# Generated ids: 128 bits from a process-local generator seeded from the OS once — unique across
# replicas and restarts without a system call per request (ids correlate log lines; they are not
# secrets, so a non-cryptographic generator is enough).
_ID_BITS = random.Random(secrets.randbits(128)).getrandbits


def request_id(headers: Headers) -> str:
    """The caller's X-Request-ID when well-formed (≤ 64 of [A-Za-z0-9._-]), else a fresh one."""
    values = header_values(headers, b"x-request-id")
    if len(values) == 1 and _REQUEST_ID.fullmatch(values[0]):
        return values[0].decode("ascii")
    return f"{_ID_BITS(128):032x}"
