"""ROUTER_AUTH_MODE and the ROUTER_JWT_* / ROUTER_PUBLIC_URL settings (SPEC §5.4a): every bad JWT
configuration refuses to start naming the variable, never the value, before anything listens."""

from __future__ import annotations

import json
import os
import secrets
import socket
import subprocess
import sys

import pytest

from app.http.settings import ServiceSettings, SettingsError, load_settings
from tests.http.jwt_kit import SigningKey
from tests.http.test_startup import ROOT, clean_env, free_port

ISSUER = "https://issuer.example.test"
GOOD = {
    "ROUTER_AUTH_MODE": "jwt",
    "ROUTER_PUBLIC_URL": "https://router.example.test",
    "ROUTER_JWT_ISSUER": ISSUER,
    "ROUTER_JWT_AUDIENCE": "https://router.example.test/mcp",
    "ROUTER_JWT_JWKS_URL": ISSUER + "/jwks",
}
# A value that must never show in a message: a marker inside the bad value.
MARK = "marker" + secrets.token_hex(6)


@pytest.fixture
def settings_from(monkeypatch, tmp_path):
    """Load ServiceSettings from exactly these variables (no .env, no inherited ROUTER_*)."""
    monkeypatch.chdir(tmp_path)
    for name in list(os.environ):
        if name.startswith("ROUTER_"):
            monkeypatch.delenv(name)

    def load(values: dict[str, str]) -> ServiceSettings:
        for name, value in values.items():
            monkeypatch.setenv(name, value)
        return load_settings(ServiceSettings)  # type: ignore[return-value]
    return load


def without(name: str) -> dict[str, str]:
    return {k: v for k, v in GOOD.items() if k != name}


REFUSALS = [
    ("jwt mode without issuer", without("ROUTER_JWT_ISSUER"), "ROUTER_JWT_ISSUER: is required"),
    ("jwt mode without audience", without("ROUTER_JWT_AUDIENCE"), "ROUTER_JWT_AUDIENCE: is required"),
    ("jwt mode without key source", without("ROUTER_JWT_JWKS_URL"), "ROUTER_JWT_JWKS_URL: a key source is required"),
    ("jwt mode without public URL", without("ROUTER_PUBLIC_URL"), "ROUTER_PUBLIC_URL: is required"),
    ("both key sources", {**GOOD, "ROUTER_JWT_JWKS_FILE": "/nonexistent"}, "ROUTER_JWT_JWKS_FILE: set either"),
    ("alg none", {**GOOD, "ROUTER_JWT_ALGORITHMS": "RS256,none"}, "ROUTER_JWT_ALGORITHMS: 'none' and HS*"),
    ("HS256", {**GOOD, "ROUTER_JWT_ALGORITHMS": "HS256"}, "ROUTER_JWT_ALGORITHMS: 'none' and HS*"),
    ("unknown algorithm", {**GOOD, "ROUTER_JWT_ALGORITHMS": "RS256," + MARK}, "ROUTER_JWT_ALGORITHMS: must be among"),
    ("plain http JWKS off loopback", {**GOOD, "ROUTER_JWT_JWKS_URL": f"http://{MARK}.example.test/jwks"},
     "ROUTER_JWT_JWKS_URL: must be an https:// URL"),
    ("http JWKS on a private address", {**GOOD, "ROUTER_JWT_JWKS_URL": "http://10.0.0.1/jwks"}, "ROUTER_JWT_JWKS_URL: must be an https:// URL"),
    ("JWKS URL with credentials", {**GOOD, "ROUTER_JWT_JWKS_URL": f"https://u:{MARK}@issuer.example.test/jwks"},
     "ROUTER_JWT_JWKS_URL: must be an https:// URL"),
    ("plain http public URL", {**GOOD, "ROUTER_PUBLIC_URL": f"http://{MARK}.example.test"}, "ROUTER_PUBLIC_URL: must be an https:// URL"),
    ("unreadable JWKS file", {**without("ROUTER_JWT_JWKS_URL"), "ROUTER_JWT_JWKS_FILE": f"/nonexistent/{MARK}.json"},
     "ROUTER_JWT_JWKS_FILE: cannot be read"),
    ("cache time under a minute", {**GOOD, "ROUTER_JWT_JWKS_CACHE_SECONDS": "5"}, "ROUTER_JWT_JWKS_CACHE_SECONDS"),
    ("required scope with a space", {**GOOD, "ROUTER_JWT_REQUIRED_SCOPE": f"router {MARK}"}, "ROUTER_JWT_REQUIRED_SCOPE"),
    ("unknown auth mode", {**GOOD, "ROUTER_AUTH_MODE": MARK}, "ROUTER_AUTH_MODE"),
    ("token+jwt without a static token", {**GOOD, "ROUTER_AUTH_MODE": "token+jwt"}, "ROUTER_MCP_AUTH_TOKEN: is required"),
    ("token mode without a static token", {"ROUTER_AUTH_MODE": "token"}, "ROUTER_MCP_AUTH_TOKEN: is required"),
]


@pytest.mark.parametrize(("values", "message"), [r[1:] for r in REFUSALS], ids=[r[0] for r in REFUSALS])
def test_bad_jwt_configuration_is_refused(settings_from, values, message):
    with pytest.raises(SettingsError) as refused:
        settings_from(values)
    text = str(refused.value)
    assert message in text
    assert MARK not in text


def test_jwks_file_without_a_signing_key_is_refused(settings_from, tmp_path):
    path = tmp_path / "jwks.json"
    path.write_text(json.dumps({"keys": [{"kty": "oct", "k": "c2VjcmV0", "kid": "shared"}]}))
    with pytest.raises(SettingsError, match="ROUTER_JWT_JWKS_FILE: the key set has no usable signing key"):
        settings_from({**without("ROUTER_JWT_JWKS_URL"), "ROUTER_JWT_JWKS_FILE": str(path)})


ACCEPTED = [
    ("jwt mode over https", GOOD, []),
    ("jwt mode with a loopback http JWKS", {**GOOD, "ROUTER_JWT_JWKS_URL": "http://127.0.0.1:9999/jwks"}, []),
    ("token+jwt", {**GOOD, "ROUTER_AUTH_MODE": "token+jwt", "ROUTER_MCP_AUTH_TOKEN": "T" * 40}, [b"T" * 40]),
    ("jwt mode ignores a static token", {**GOOD, "ROUTER_MCP_AUTH_TOKEN": "T" * 40}, []),
    ("token mode ignores the JWT settings", {"ROUTER_MCP_AUTH_TOKEN": "T" * 40, "ROUTER_JWT_ALGORITHMS": "HS256"}, [b"T" * 40]),
]


@pytest.mark.parametrize(("values", "tokens"), [r[1:] for r in ACCEPTED], ids=[r[0] for r in ACCEPTED])
def test_good_configuration_is_accepted(settings_from, values, tokens):
    settings = settings_from(values)
    assert settings.tokens() == tokens
    if settings.uses_jwt:
        rules = settings.jwt_rules()
        assert (rules.issuer, rules.algorithms, rules.leeway_seconds, rules.required_scope) == (
            ISSUER, ("RS256", "ES256", "EdDSA"), 30, "router")


def test_jwks_file_with_a_signing_key_is_accepted(settings_from, tmp_path):
    path = tmp_path / "jwks.json"
    path.write_text(json.dumps({"keys": [SigningKey("EC").jwk()]}))
    assert settings_from({**without("ROUTER_JWT_JWKS_URL"), "ROUTER_JWT_JWKS_FILE": str(path)}).uses_jwt


@pytest.mark.parametrize("values", [
    {**GOOD, "ROUTER_JWT_ALGORITHMS": "HS256"},
    {**GOOD, "ROUTER_JWT_JWKS_URL": f"http://{MARK}.example.test/jwks"},
], ids=["HS256", "plain http JWKS"])
def test_the_server_refuses_to_start_before_listening(tmp_path, values):
    port = free_port()
    process = subprocess.run(
        [sys.executable, "-m", "app", "serve", "--host", "127.0.0.1", "--port", str(port)],
        env={**clean_env(**values), "PYTHONPATH": str(ROOT)}, cwd=tmp_path, capture_output=True, text=True, timeout=60,
    )
    assert process.returncode == 2
    assert "ROUTER_JWT_" in process.stderr and MARK not in process.stderr + process.stdout
    with socket.socket() as s:
        assert s.connect_ex(("127.0.0.1", port)) != 0


def test_env_example_lists_every_setting():
    text = (ROOT / ".env.example").read_text(encoding="utf-8")
    names = sorted(f"ROUTER_{name.upper()}" for name in ServiceSettings.model_fields)
    assert [n for n in names if f"\n{n}=" not in text] == []


def test_token_mode_never_loads_pyjwt_or_cryptography():
    """The JOSE stack (+8 MiB resident) is imported in the JWT modes only."""
    code = ("import sys, secrets; from app.http.serve import serve; from app.http.app import create_app; "
            "from app.http.settings import ServiceSettings; from app.router import Router, load_policy; "
            "create_app(Router(load_policy()), [secrets.token_urlsafe(32).encode()]); "
            "print(sorted(m for m in ('jwt', 'cryptography') if m in sys.modules))")
    done = subprocess.run([sys.executable, "-c", code], env={**clean_env(), "PYTHONPATH": str(ROOT)}, cwd=ROOT,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == "[]"
