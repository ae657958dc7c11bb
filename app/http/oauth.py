"""OAuth 2.1 resource server (SPEC §5.4a): platform-issued JWT access tokens, checked locally.

* **Keys** come from the issuer's JWKS (an https URL, loopback http, or a file), held by
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

import asyncio
import json
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, NamedTuple
from urllib.parse import urlsplit

import jwt
from jwt import PyJWK

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


def parse_jwks(data: bytes, algorithms: tuple[str, ...] = SIGNING_ALGORITHMS) -> dict[str | None, PyJWK]:
    """Signing keys by ``kid``: keys for encryption, of another algorithm or unusable are skipped."""
    if len(data) > JWKS_MAX_BYTES:
        raise JwksError("the key set exceeds the size limit")
    try:
        document = json.loads(data)
    except ValueError:
        raise JwksError("the key set is not JSON") from None
    entries = document.get("keys") if isinstance(document, dict) else None
    if not isinstance(entries, list):
        raise JwksError("the key set has no 'keys' list")
    keys: dict[str | None, PyJWK] = {}
    for entry in entries:
        if not isinstance(entry, dict) or entry.get("use", "sig") != "sig":
            continue
        try:
            key = PyJWK(entry)
        except jwt.PyJWTError:
            continue
        if key.algorithm_name in algorithms:
            keys[key.key_id] = key
    if not keys:
        raise JwksError("the key set has no usable signing key")
    return keys


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, req, fp, code, msg, headers, newurl):
        return None  # a redirect could lead off https or off loopback: it is an error instead


class KeySource:
    """Where the key set comes from: ``fetch()`` is blocking and runs in a worker thread."""

    def __init__(self, url: str = "", path: str = ""):
        if bool(url) == bool(path):
            raise ValueError("exactly one of url and path")
        self.url = url
        self.path = path
        handlers: list[Any] = [_NoRedirect()]
        if url and is_loopback(url):
            handlers.append(urllib.request.ProxyHandler({}))  # a proxy from the environment never sees loopback
        self._opener = urllib.request.build_opener(*handlers)

    def fetch(self) -> bytes:
        if self.path:
            with open(self.path, "rb") as handle:
                return handle.read(JWKS_MAX_BYTES + 1)
        request = urllib.request.Request(self.url, headers={"Accept": "application/json"})
        try:
            with self._opener.open(request, timeout=JWKS_TIMEOUT_SECONDS) as response:
                if response.status != 200:
                    raise JwksError(f"the key set answered HTTP {response.status}")
                return response.read(JWKS_MAX_BYTES + 1)
        except urllib.error.HTTPError as exc:
            raise JwksError(f"the key set answered HTTP {exc.code}") from None
        except (urllib.error.URLError, OSError) as exc:
            raise JwksError(f"the key set is unreachable ({type(exc).__name__})") from None


class JwksCache:
    """The issuer's signing keys, see the module docstring. ``clock`` is monotonic seconds."""

    def __init__(self, source: KeySource, cache_seconds: float, algorithms: tuple[str, ...] = SIGNING_ALGORITHMS,
                 clock: Callable[[], float] = time.monotonic):
        self.source = source
        self.cache_seconds = cache_seconds
        self.algorithms = algorithms
        self.clock = clock
        self.keys: dict[str | None, PyJWK] = {}
        self.generation = 0  # changes whenever the key set does (verified tokens are then checked again)
        self._data = b""
        self.fetches = 0  # attempts, successful or not (what the issuer sees)
        self._next_refresh_at = 0.0  # when the background refresh fetches next
        self._refetched_at: float | None = None  # last fetch caused by an unknown kid
        self._inflight: asyncio.Future[bool] | None = None
        self._task: asyncio.Task[None] | None = None

    @property
    def loaded(self) -> bool:
        return bool(self.keys)

    async def refresh(self) -> bool:
        """One fetch (shared by everyone who asks while it runs); False when it failed."""
        inflight = self._inflight
        if inflight is None or inflight.done():
            inflight = self._inflight = asyncio.ensure_future(self._fetch())
            inflight.add_done_callback(self._fetched)
        # shielded: a caller that goes away (its request cancelled) never cancels the others' fetch
        return await asyncio.shield(inflight)

    def _fetched(self, inflight: asyncio.Future[bool]) -> None:
        if self._inflight is inflight:
            self._inflight = None

    async def _fetch(self) -> bool:
        self.fetches += 1
        loop = asyncio.get_running_loop()
        try:
            data = await asyncio.wait_for(loop.run_in_executor(None, self.source.fetch), JWKS_TIMEOUT_SECONDS + 0.5)
            keys = parse_jwks(data, self.algorithms)
        except (JwksError, OSError, asyncio.TimeoutError):
            # The cached keys stay in use; the background refresh tries again in a minute (or
            # sooner while nothing was ever loaded: the service is not ready until then).
            self._next_refresh_at = self.clock() + (REFETCH_INTERVAL_SECONDS if self.keys else RETRY_SECONDS)
            return False
        if data != self._data:
            self.generation += 1
            self._data = data
        self.keys = keys
        self._next_refresh_at = self.clock() + self.cache_seconds
        return True

    async def key(self, kid: str | None) -> PyJWK | None:
        """The key for ``kid``; an unknown one refetches unless another unknown kid did so less
        than a minute ago (then None at once: the flood waits for nothing and costs nothing)."""
        key = self.keys.get(kid)
        if key is not None:
            return key
        now = self.clock()
        if self._refetched_at is not None and now - self._refetched_at < REFETCH_INTERVAL_SECONDS:
            if self._inflight is None or self._inflight.done():
                return None
            # this minute's fetch is still running (at most its timeout): its answer may hold the key
        else:
            self._refetched_at = now
        await self.refresh()
        return self.keys.get(kid)

    async def start(self) -> None:
        """Load the keys (readiness waits for them), then keep them fresh in the background."""
        await self.refresh()
        self._task = asyncio.ensure_future(self._keep_fresh())

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            try:
                await self._task
            except asyncio.CancelledError:
                pass
            self._task = None

    async def _keep_fresh(self) -> None:
        while True:
            await asyncio.sleep(max(0.0, self._next_refresh_at - self.clock()))
            if self.clock() >= self._next_refresh_at:  # else a refetch meanwhile moved the date
                await self.refresh()


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
_REASONS: tuple[tuple[type[Exception], str], ...] = (
    (jwt.ExpiredSignatureError, "expired"),
    (jwt.ImmatureSignatureError, "not_yet_valid"),
    (jwt.InvalidIssuerError, "issuer"),
    (jwt.InvalidAudienceError, "audience"),
    (jwt.InvalidAlgorithmError, "algorithm"),
    (jwt.InvalidSignatureError, "signature"),
    (jwt.MissingRequiredClaimError, "claims"),
    (jwt.InvalidIssuedAtError, "claims"),
)


def _reason(exc: Exception) -> str:
    for kind, reason in _REASONS:
        if isinstance(exc, kind):
            return reason
    return "malformed"


def token_scopes(claims: dict[str, Any]) -> frozenset[str]:
    """``scope`` (RFC 9068: space-separated) and ``scp`` (a list, or a string, as some issuers send)."""
    found: set[str] = set()
    for name in ("scope", "scp"):
        value = claims.get(name)
        if isinstance(value, str):
            found.update(value.split())
        elif isinstance(value, list):
            found.update(v for v in value if isinstance(v, str))
    return frozenset(found)


class JwtVerifier:
    def __init__(self, rules: JwtRules, keys: JwksCache, now: Callable[[], float] = time.time):
        self.rules = rules
        self.keys = keys
        self.now = now
        self._algorithms = list(rules.algorithms)
        self._options = {"require": ["exp", "iss", "aud"]}
        self._verified: dict[bytes, Granted] = {}
        self._generation = keys.generation

    async def verify(self, token: bytes) -> Granted | Refused:
        if self._generation != self.keys.generation:
            self._verified.clear()
            self._generation = self.keys.generation
        seen = self._verified.get(token)
        if seen is not None:
            if self.now() < seen.until:
                return seen
            del self._verified[token]
        verdict = await self._verify(token)
        if isinstance(verdict, Granted) and self._generation == self.keys.generation:
            if len(self._verified) >= VERIFIED_CACHE_SIZE:
                del self._verified[next(iter(self._verified))]  # the oldest entry
            self._verified[token] = verdict
        return verdict

    async def _verify(self, token: bytes) -> Granted | Refused:
        if len(token) > MAX_TOKEN_BYTES:
            return Refused(401, "too_large")
        try:
            text = token.decode("ascii")
            header = jwt.get_unverified_header(text)
        except (UnicodeDecodeError, jwt.PyJWTError):
            return Refused(401, "malformed")
        if header.get("alg") not in self.rules.algorithms:
            return Refused(401, "algorithm")  # none, HS*, or not configured: no key is even looked up
        kid = header.get("kid")
        if kid is not None and not isinstance(kid, str):
            return Refused(401, "malformed")
        key = self.keys.keys.get(kid) or await self.keys.key(kid)
        if key is None:
            return Refused(401, "unknown_key")
        try:
            claims = jwt.decode(text, key, algorithms=self._algorithms, audience=self.rules.audience,
                                issuer=self.rules.issuer, leeway=self.rules.leeway_seconds, options=self._options)  # type: ignore[arg-type]
        except jwt.PyJWTError as exc:
            return Refused(401, _reason(exc))
        scopes = token_scopes(claims)
        if self.rules.required_scope not in scopes:
            return Refused(403, "insufficient_scope")
        roles = frozenset(s[len(ROLE_SCOPE_PREFIX):] for s in scopes if s.startswith(ROLE_SCOPE_PREFIX))
        return Granted(roles, float(claims["exp"]) + self.rules.leeway_seconds)


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


def read_jwks_file(path: str, algorithms: tuple[str, ...]) -> None:
    """Settings validation: the file exists and holds at least one usable signing key."""
    try:
        data = Path(path).read_bytes()[: JWKS_MAX_BYTES + 1]
    except OSError:
        raise JwksError("cannot be read") from None
    parse_jwks(data, algorithms)


class Admitted(NamedTuple):
    roles: frozenset[str] | None  # None: a static service token (only the server scope applies)


class Denied(NamedTuple):
    status: int
    outcome: str  # unauthorized:<reason> or forbidden:insufficient_scope
    www_authenticate: bytes


class OAuthGuard:
    """The bearer check of the JWT modes (SPEC §5.1 step 2 with §5.4a): a static token first when
    ``static`` is given (token+jwt), else the JWT. Every 401 points at the resource metadata."""

    def __init__(self, verifier: JwtVerifier, public_url: str, static: Any = None):
        self.verifier = verifier
        self.static = static
        url = metadata_url(public_url)
        self._missing = f'Bearer resource_metadata="{url}"'.encode()
        self._invalid = f'Bearer error="invalid_token", resource_metadata="{url}"'.encode()
        self._scope = (f'Bearer error="insufficient_scope", scope="{verifier.rules.required_scope}", '
                       f'resource_metadata="{url}"').encode()

    async def check(self, headers: list[tuple[bytes, bytes]]) -> Admitted | Denied:
        values = [value for key, value in headers if key == b"authorization"]
        if not values:
            return Denied(401, "unauthorized:missing", self._missing)
        scheme, _, token = values[0].strip().partition(b" ")
        token = token.strip()
        if len(values) > 1 or scheme.lower() != b"bearer" or not token:
            return Denied(401, "unauthorized:malformed", self._invalid)
        if self.static is not None and self.static.allows(headers):
            return Admitted(None)
        verdict = await self.verifier.verify(token)
        if isinstance(verdict, Granted):
            return Admitted(verdict.roles)
        if verdict.status == 403:
            return Denied(403, "forbidden:" + verdict.reason, self._scope)
        return Denied(401, "unauthorized:" + verdict.reason, self._invalid)
