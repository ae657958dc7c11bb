"""Settings from the environment (and an optional ``.env``), validated before anything listens.

A refusal names the variable and the rule, never the value: a mistyped token must not end up in a
deployment log.
"""

from __future__ import annotations

from typing import Literal
from urllib.parse import urlsplit
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from pydantic import Field, SecretStr, ValidationError, field_validator, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from app.router import Limits, Policy, PolicyError, Router, load_policy
from app.router.policy import parse_policy

from .oauth import DEFAULT_ALGORITHMS, SIGNING_ALGORITHMS, JwksError, JwtRules, is_loopback
from .protocol import ConnectionLimits

ENV_PREFIX = "ROUTER_"
MIN_TOKEN_CHARS = 32
MIN_RELOAD_SECONDS = 0.2


class SettingsError(ValueError):
    """Bad configuration: ``problems`` are 'VARIABLE: rule' lines without values."""

    def __init__(self, problems: list[str]):
        self.problems = problems
        super().__init__("invalid configuration:\n" + "\n".join(f"  - {p}" for p in problems))


class RouterSettings(BaseSettings):
    """What the decisions need: enough for `python -m app decide` without a server or token."""

    model_config = SettingsConfigDict(env_prefix=ENV_PREFIX, env_file=".env", extra="ignore", frozen=True)

    policy_file: str = ""
    max_text_chars: int = Field(2000, ge=1, le=100_000)
    min_confidence: float = Field(0.6, ge=0.0, le=1.0)
    timezone: str = "Asia/Shanghai"

    @field_validator("timezone")
    @classmethod
    def _known_zone(cls, value: str) -> str:
        try:
            ZoneInfo(value)
        except (ZoneInfoNotFoundError, ValueError):
            raise ValueError("is not a known IANA time zone") from None
        return value

    def limits(self) -> Limits:
        return Limits(self.max_text_chars, self.min_confidence, self.timezone)

    def load_policy(self) -> Policy:
        try:
            return load_policy(self.policy_file or None)
        except PolicyError as exc:
            raise SettingsError([f"{ENV_PREFIX}POLICY_FILE: {p}" for p in exc.problems]) from None


class ServiceSettings(RouterSettings):
    auth_mode: Literal["token", "jwt", "token+jwt"] = "token"
    mcp_auth_token: SecretStr | None = None
    mcp_auth_token_previous: SecretStr | None = None
    mcp_scope_mode: Literal["all", "caller_allowlist"] = "all"
    mcp_allowed_callers: str = ""
    mcp_allowed_origins: str = ""
    mcp_max_body_bytes: int = Field(65_536, ge=1_024, le=16 * 1024 * 1024)
    request_timeout_seconds: float = Field(10.0, gt=0, le=300)
    shutdown_timeout_seconds: int = Field(10, ge=1, le=300)
    max_connections: int = Field(1024, ge=1, le=1_000_000)
    header_timeout_seconds: float = Field(10.0, gt=0, le=300)
    max_header_count: int = Field(100, ge=16, le=10_000)
    max_header_line_bytes: int = Field(8_192, ge=1_024, le=1024 * 1024)
    max_head_bytes: int = Field(32_768, ge=4_096, le=16 * 1024 * 1024)
    metrics_port: int | None = Field(None, ge=1, le=65_535)
    # SPEC §5.8: 0 is off; else how often ROUTER_POLICY_FILE's content digest is checked.
    policy_reload_seconds: float = Field(0, ge=0, le=86_400)
    proxy_headers: bool = False
    forwarded_allow_ips: str = "127.0.0.1"
    # SPEC §5.4a, read in the JWT modes only.
    public_url: str = ""
    jwt_issuer: str = ""
    jwt_audience: str = ""
    jwt_jwks_url: str = ""
    jwt_jwks_file: str = ""
    jwt_algorithms: str = ",".join(DEFAULT_ALGORITHMS)
    jwt_leeway_seconds: int = Field(30, ge=0, le=300)
    jwt_jwks_cache_seconds: int = Field(300, ge=60, le=86_400)
    jwt_required_scope: str = Field("router", pattern=r"^[\x21\x23-\x5b\x5d-\x7e]+$")  # RFC 6749 scope-token

    @field_validator("mcp_auth_token", "mcp_auth_token_previous", mode="before")
    @classmethod
    def _empty_is_unset(cls, value):
        return None if value == "" else value

    @field_validator("mcp_auth_token", "mcp_auth_token_previous")
    @classmethod
    def _strong_token(cls, value: SecretStr | None) -> SecretStr | None:
        if value is None:
            return None
        secret = value.get_secret_value()
        if len(secret) < MIN_TOKEN_CHARS:
            raise ValueError(f"must be at least {MIN_TOKEN_CHARS} characters")
        if not all("\x21" <= ch <= "\x7e" for ch in secret):
            raise ValueError("must be printable ASCII without whitespace")
        return value

    @model_validator(mode="after")
    def _consistent(self) -> "ServiceSettings":
        previous = self.mcp_auth_token_previous
        if self.uses_tokens and self.mcp_auth_token is None:
            raise ValueError(f"ROUTER_MCP_AUTH_TOKEN: is required when ROUTER_AUTH_MODE={self.auth_mode}")
        if previous is not None and self.mcp_auth_token is not None \
                and previous.get_secret_value() == self.mcp_auth_token.get_secret_value():
            raise ValueError("ROUTER_MCP_AUTH_TOKEN_PREVIOUS: must differ from ROUTER_MCP_AUTH_TOKEN")
        if self.uses_jwt:
            problems = self._jwt_problems()
            if problems:
                raise ValueError("\n".join(problems))
        if self.max_head_bytes < self.max_header_line_bytes:
            raise ValueError("ROUTER_MAX_HEAD_BYTES: must be at least ROUTER_MAX_HEADER_LINE_BYTES")
        if self.mcp_scope_mode == "all" and self.callers():
            raise ValueError("ROUTER_MCP_ALLOWED_CALLERS: must be empty when ROUTER_MCP_SCOPE_MODE=all")
        if self.mcp_scope_mode == "caller_allowlist" and not self.callers():
            raise ValueError("ROUTER_MCP_ALLOWED_CALLERS: must list at least one role in caller_allowlist mode")
        if self.policy_reload_seconds and not self.policy_file:
            raise ValueError("ROUTER_POLICY_RELOAD_SECONDS: needs ROUTER_POLICY_FILE (the shipped policy never changes)")
        if 0 < self.policy_reload_seconds < MIN_RELOAD_SECONDS:
            raise ValueError(f"ROUTER_POLICY_RELOAD_SECONDS: must be 0 (off) or at least {MIN_RELOAD_SECONDS}")
        return self

    @property
    def uses_tokens(self) -> bool:
        return self.auth_mode in ("token", "token+jwt")

    @property
    def uses_jwt(self) -> bool:
        return self.auth_mode in ("jwt", "token+jwt")

    def algorithms(self) -> tuple[str, ...]:
        return tuple(a.strip() for a in self.jwt_algorithms.split(",") if a.strip())

    def _jwt_problems(self) -> list[str]:
        """Every JWT-mode rule broken, one 'VARIABLE: rule' line each (never a value)."""
        mode = f"ROUTER_AUTH_MODE={self.auth_mode}"
        problems = []
        for name, value in (("PUBLIC_URL", self.public_url), ("JWT_ISSUER", self.jwt_issuer)):
            if not value:
                problems.append(f"{ENV_PREFIX}{name}: is required when {mode}")
            elif not _web_url(value):
                problems.append(f"{ENV_PREFIX}{name}: must be an https:// URL (http:// only on loopback) without query or fragment")
        if not self.jwt_audience:
            problems.append(f"{ENV_PREFIX}JWT_AUDIENCE: is required when {mode} (this server's resource URI)")
        if not self.jwt_jwks_url and not self.jwt_jwks_file:
            problems.append(f"{ENV_PREFIX}JWT_JWKS_URL: a key source is required when {mode} (or ROUTER_JWT_JWKS_FILE)")
        elif self.jwt_jwks_url and self.jwt_jwks_file:
            problems.append(f"{ENV_PREFIX}JWT_JWKS_FILE: set either it or ROUTER_JWT_JWKS_URL, not both")
        elif self.jwt_jwks_url and not _web_url(self.jwt_jwks_url):
            problems.append(f"{ENV_PREFIX}JWT_JWKS_URL: must be an https:// URL (http:// only on loopback) without query or fragment")
        algorithms = self.algorithms()
        if not algorithms:
            problems.append(f"{ENV_PREFIX}JWT_ALGORITHMS: must list at least one algorithm")
        for algorithm in algorithms:
            if algorithm.lower() == "none" or algorithm.upper().startswith("HS"):
                problems.append(f"{ENV_PREFIX}JWT_ALGORITHMS: 'none' and HS* (shared-secret) algorithms are refused")
                break
            if algorithm not in SIGNING_ALGORITHMS:
                problems.append(f"{ENV_PREFIX}JWT_ALGORITHMS: must be among {', '.join(SIGNING_ALGORITHMS)}")
                break
        if self.jwt_jwks_file and not problems:
            from .verify import read_jwks_file  # PyJWT: JWT modes only

            try:
                read_jwks_file(self.jwt_jwks_file, algorithms)
            except JwksError as exc:
                problems.append(f"{ENV_PREFIX}JWT_JWKS_FILE: {exc}")
        return problems

    def jwt_rules(self) -> JwtRules:
        return JwtRules(self.jwt_issuer, self.jwt_audience, self.algorithms(), self.jwt_leeway_seconds, self.jwt_required_scope)

    def connection_limits(self) -> ConnectionLimits:
        return ConnectionLimits(
            head_timeout_seconds=self.header_timeout_seconds,
            max_headers=self.max_header_count,
            max_line_bytes=self.max_header_line_bytes,
            max_head_bytes=self.max_head_bytes,
            max_requests_in_flight=self.max_connections,
            max_body_bytes=self.mcp_max_body_bytes,
        )

    def callers(self) -> list[str]:
        return [c.strip() for c in self.mcp_allowed_callers.split(",") if c.strip()]

    def origins(self) -> frozenset[str]:
        return frozenset(o.strip() for o in self.mcp_allowed_origins.split(",") if o.strip())

    def tokens(self) -> list[bytes]:
        """The static tokens accepted: none in jwt mode (ROUTER_MCP_AUTH_TOKEN* are then ignored)."""
        if not self.uses_tokens or self.mcp_auth_token is None:
            return []
        tokens = [self.mcp_auth_token.get_secret_value().encode()]
        if self.mcp_auth_token_previous is not None:
            tokens.append(self.mcp_auth_token_previous.get_secret_value().encode())
        return tokens

    def scope(self, policy: Policy) -> frozenset[str] | None:
        if self.mcp_scope_mode == "all":
            return None
        unknown = [c for c in self.callers() if c not in policy.roles]
        if unknown:
            raise SettingsError([f"ROUTER_MCP_ALLOWED_CALLERS: {len(unknown)} entr{'y is' if len(unknown) == 1 else 'ies are'} not a role of the policy"])
        return frozenset(self.callers())

    def router(self) -> Router:
        policy = self.load_policy()
        return Router(policy, self.limits(), self.scope(policy))

    def router_from(self, data: bytes) -> Router:
        """A policy file's bytes validated as at start-up (``load_policy`` is a read and this
        ``parse_policy``), with the same limits and scope. Raises PolicyError or SettingsError."""
        policy = parse_policy(data)
        return Router(policy, self.limits(), self.scope(policy))


def _web_url(value: str) -> bool:
    """https, or http on a loopback host; no query or fragment (they would not survive joining)."""
    try:
        parts = urlsplit(value)
    except ValueError:
        return False
    if not parts.hostname or parts.query or parts.fragment or parts.username or parts.password:
        return False
    return parts.scheme == "https" or (parts.scheme == "http" and is_loopback(value))


def _describe(exc: ValidationError) -> list[str]:
    problems = []
    for error in exc.errors(include_input=False, include_url=False):
        loc = error.get("loc") or ()
        message = str(error.get("ctx", {}).get("error", "")) if error.get("type") == "value_error" else error.get("msg", "is invalid")
        if loc:
            problems.append(f"{ENV_PREFIX}{str(loc[0]).upper()}: {message or 'is invalid'}")
        else:
            problems.extend(message.splitlines())
    return problems


def load_settings(kind: type[RouterSettings] = RouterSettings, **overrides) -> RouterSettings:
    try:
        return kind(**overrides)
    except ValidationError as exc:
        raise SettingsError(_describe(exc)) from None
