"""JWT verification and the issuer's key set (SPEC §5.4a), see ``oauth.py``'s docstring.

Imported only in the JWT modes: PyJWT and cryptography stay out of a ``token``-mode process.
"""

from __future__ import annotations

import asyncio
import base64
import json
import re
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any, Callable

import jwt
from jwt import PyJWK

from .oauth import (
    JWKS_MAX_BYTES,
    JWKS_TIMEOUT_SECONDS,
    MAX_TOKEN_BYTES,
    REFETCH_INTERVAL_SECONDS,
    RETRY_SECONDS,
    ROLE_SCOPE_PREFIX,
    SIGNING_ALGORITHMS,
    VERIFIED_CACHE_SIZE,
    Granted,
    JwksError,
    JwtRules,
    Refused,
    is_loopback,
)


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


_SEGMENT = re.compile(rb"[A-Za-z0-9_-]*")


class _Jws(jwt.PyJWS):
    """PyJWS whose segment check is one regex instead of a Python test per character.

    PyJWT 2.15 checks every character of every segment against the base64url alphabet in a
    generator (its fix for GHSA-hxm8-2xgr-2p9m); on a first use that loop was ~80 % of a token's
    check, four times the RSA verification (bench/jwt_bench.py). The same rule here: alphabet only,
    no length of 1 mod 4, canonical (decoding then encoding gives the segment back) — and stricter
    in one point: no '=' padding at all (RFC 7515 §2: base64url without padding). Everything else,
    the signature and the claims, stays PyJWT's. A test proves this method is the one in use (a
    padded token is refused, which PyJWT alone accepts).
    """

    @staticmethod
    def _decode_base64url_segment(segment: bytes, name: str) -> bytes:
        if len(segment) % 4 == 1 or _SEGMENT.fullmatch(segment) is None:
            raise jwt.DecodeError(f"Invalid {name} padding")
        decoded = base64.urlsafe_b64decode(segment + b"=" * (-len(segment) % 4))
        if base64.urlsafe_b64encode(decoded).rstrip(b"=") != segment:
            raise jwt.DecodeError(f"Invalid {name} padding")
        return decoded


def _header(token: bytes) -> dict[str, Any] | None:
    """The JOSE header alone, to find the key: the signature and claims are PyJWT's to check."""
    segment, dot, _ = token.partition(b".")
    if not dot:
        return None
    try:
        header = json.loads(_Jws._decode_base64url_segment(segment, "header"))
    except (jwt.PyJWTError, ValueError, RecursionError):
        return None
    return header if isinstance(header, dict) else None


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
        self._jwt = jwt.PyJWT({"require": ["exp", "iss", "aud"]})
        self._jws = _Jws(options={"verify_signature": True})
        self._jwt._jws = self._jws  # wired the way PyJWT wires its own module-level objects
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
        header = _header(token)
        if header is None:
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
            claims = self._jwt.decode(token, key, algorithms=self._algorithms, audience=self.rules.audience,
                                      issuer=self.rules.issuer, leeway=self.rules.leeway_seconds)
        except jwt.PyJWTError as exc:
            return Refused(401, _reason(exc))
        scopes = token_scopes(claims)
        if self.rules.required_scope not in scopes:
            return Refused(403, "insufficient_scope")
        roles = frozenset(s[len(ROLE_SCOPE_PREFIX):] for s in scopes if s.startswith(ROLE_SCOPE_PREFIX))
        return Granted(roles, float(claims["exp"]) + self.rules.leeway_seconds)


def read_jwks_file(path: str, algorithms: tuple[str, ...]) -> None:
    """Settings validation: the file exists and holds at least one usable signing key."""
    try:
        data = Path(path).read_bytes()[: JWKS_MAX_BYTES + 1]
    except OSError:
        raise JwksError("cannot be read") from None
    parse_jwks(data, algorithms)
