"""OAuth 2.1 resource server (SPEC §5.4a): platform-issued JWT access tokens, checked locally.

This module is what every mode loads (the guard, the rules, the metadata document); the JOSE work
is in ``verify.py``, imported only in the JWT modes, so ``token`` mode never loads PyJWT or
cryptography (+8 MiB resident).

* **Keys** (``verify.py``) come from the issuer's JWKS (an https URL, loopback http, or a file), held by
  ``JwksCache``: loaded before readiness, refreshed every ``cache_seconds`` in the background, and
  kept through an issuer outage (a failed fetch never drops a key; a successful one replaces the
  set, which is how a key retired at the issuer leaves). A token whose ``kid`` is not cached
  refetches at most once per ``REFETCH_INTERVAL_SECONDS``; every other unknown ``kid`` in that
  minute is refused at once, without waiting and without a fetch, so a flood of random kids costs
  the issuer one request a minute and this service nothing. A fetch runs in a worker thread, never
  on the event loop, with a 2 s timeout, a size cap and no redirects.
* **Verification** is PyJWT's (``jwt.decode`` with a ``PyJWK``): the signature with the key the
  ``kid`` names, bound to that key's own algorithm (an HS256 token signed with the public key as
  its secret, or ``alg: none``, never reaches a verifier), then ``iss``, ``aud`` (RFC 8707: this
  resource), ``exp`` / ``nbf`` / ``iat`` with the leeway. PyJWT rather than joserfc: it is what
  the official MCP Python SDK already uses, its scope is JWS/JWT only (no JWE, no key management
  to misconfigure), it insists on an explicit algorithm list, and since 2.10 a ``PyJWK`` pins the
  algorithm a key verifies with (the algorithm-confusion class of bugs is closed in the library).
* **Scopes bind roles**: the required scope must be in ``scope`` (space-separated) or ``scp`` (a
  list or a string); ``router:<role>`` scopes name the caller roles the token may have evaluated,
  handed to the protocol layer per request (the router intersects them with the server scope).

A refusal carries a reason category for the access log (``unauthorized:expired``…), never the
token, its claims or its subject.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, NamedTuple
from urllib.parse import urlsplit

from .guards import BearerGuard, bearer_token, header_values

if TYPE_CHECKING:
    from .verify import JwtVerifier

# Longer tokens are refused before any parsing: real access tokens are 1–2 KiB, and 8 KiB is the
# common header-line limit of gateways (nginx's large_client_header_buffers, our own default).
MAX_TOKEN_BYTES = 8_192
JWKS_TIMEOUT_SECONDS = 2.0
# A JWKS of a dozen RSA-4096 keys is ~10 KiB; anything past 64 KiB is not a key set we want to parse.
JWKS_MAX_BYTES = 65_536
REFETCH_INTERVAL_SECONDS = 60.0  # an unknown kid refetches at most this often (SPEC §5.4a)
RETRY_SECONDS = 5.0  # while no key set was ever loaded (not ready yet), retry this often
ROLE_SCOPE_PREFIX = "router:"
# Tokens already verified, kept until they expire or the key set changes. A platform reuses one
# access token for its whole lifetime (minutes), and a full check costs about as much as the
# decision itself (RSA verification plus PyJWT's pure-Python base64 alphabet check: ~1.8x a
# static-token call, bench/jwt_bench.py). 4,096 entries of ~1-2 KiB is a few MiB at most.
VERIFIED_CACHE_SIZE = 4_096

# Asymmetric algorithms only: with a shared secret the issuer's key would have to live here too.
SIGNING_ALGORITHMS = ("RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA")
DEFAULT_ALGORITHMS = ("RS256", "ES256", "EdDSA")
LOOPBACK_HOSTS = frozenset({"127.0.0.1", "::1", "localhost"})


class JwksError(ValueError):
    """A key set that cannot be used (not JSON, no usable signing key, too large, unreachable)."""


def is_loopback(url: str) -> bool:
    return (urlsplit(url).hostname or "") in LOOPBACK_HOSTS


@dataclass(frozen=True, slots=True)
class JwtRules:
    issuer: str
    audience: str
    algorithms: tuple[str, ...] = DEFAULT_ALGORITHMS
    leeway_seconds: int = 30
    required_scope: str = "router"


class Granted(NamedTuple):
    roles: frozenset[str]  # the caller roles of the token's router:<role> scopes
    until: float  # exp + leeway: a verified token is reused until then (or until the keys change)


class Refused(NamedTuple):
    status: int  # 401, or 403 for a missing scope
    reason: str  # the log category after "unauthorized:" / "forbidden:"


# PyJWT's exceptions → the reason logged. Order matters: the specific subclasses come first.


def metadata_url(public_url: str) -> str:
    """RFC 9728 §3.1: the well-known path inserted before the resource's path (/mcp)."""
    return public_url.rstrip("/") + "/.well-known/oauth-protected-resource/mcp"


def protected_resource_metadata(rules: JwtRules, roles: list[str]) -> dict[str, Any]:
    return {
        "resource": rules.audience,
        "authorization_servers": [rules.issuer],
        "scopes_supported": [rules.required_scope, *(ROLE_SCOPE_PREFIX + role for role in roles)],
        "bearer_methods_supported": ["header"],
        "resource_name": "a207-router-mcp",
    }


class Admitted(NamedTuple):
    roles: frozenset[str] | None  # None: a static service token (only the server scope applies)


class Denied(NamedTuple):
    status: int
    outcome: str  # unauthorized:<reason> or forbidden:insufficient_scope
    www_authenticate: bytes


class OAuthGuard:
    """The bearer check of the JWT modes (SPEC §5.1 step 2 with §5.4a): a static token first when
    ``static`` is given (token+jwt), else the JWT. Every 401 points at the resource metadata."""

    def __init__(self, verifier: JwtVerifier, public_url: str, static: BearerGuard | None = None):
        self.verifier = verifier
        self.static = static
        url = metadata_url(public_url)
        self._missing = f'Bearer resource_metadata="{url}"'.encode()
        self._invalid = f'Bearer error="invalid_token", resource_metadata="{url}"'.encode()
        self._scope = (f'Bearer error="insufficient_scope", scope="{verifier.rules.required_scope}", '
                       f'resource_metadata="{url}"').encode()

    async def check(self, headers: list[tuple[bytes, bytes]]) -> Admitted | Denied:
        token = bearer_token(headers)
        if token is None:
            if not header_values(headers, b"authorization"):
                return Denied(401, "unauthorized:missing", self._missing)
            return Denied(401, "unauthorized:malformed", self._invalid)
        if self.static is not None and self.static.matches(token):
            return Admitted(None)
        verdict = await self.verifier.verify(token)
        if isinstance(verdict, Granted):
            return Admitted(verdict.roles)
        if verdict.status == 403:
            return Denied(403, "forbidden:" + verdict.reason, self._scope)
        return Denied(401, "unauthorized:" + verdict.reason, self._invalid)
