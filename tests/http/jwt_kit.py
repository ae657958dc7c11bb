"""A local token issuer for the JWT tests and the bench: keys generated at run time, a JWKS served
on 127.0.0.1 (it counts the fetches it sees), and tokens minted with PyJWT — or by hand, for the
tokens no library will sign (HS256 keyed with a public key, ``alg: none``).
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import secrets
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import jwt
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec, rsa

from app.http.app import JwtSetup
from app.http.oauth import JwtRules
from app.http.verify import JwksCache, KeySource

PUBLIC_URL = "https://router.example.test"
AUDIENCE = PUBLIC_URL + "/mcp"
METADATA_URL = PUBLIC_URL + "/.well-known/oauth-protected-resource/mcp"
ALL_ROLES = ("dispatcher", "doctor_assistant", "nutritionist", "parent_assistant", "child_companion", "risk_warning")


def b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


class SigningKey:
    def __init__(self, kind: str = "RSA"):
        self.kid = secrets.token_hex(8)
        if kind == "RSA":
            self.private = rsa.generate_private_key(public_exponent=65537, key_size=2048)
            self.alg = "RS256"
            self.algorithm = jwt.algorithms.RSAAlgorithm
        else:
            self.private = ec.generate_private_key(ec.SECP256R1())
            self.alg = "ES256"
            self.algorithm = jwt.algorithms.ECAlgorithm
        self.public_pem = self.private.public_key().public_bytes(
            serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)

    def jwk(self) -> dict[str, Any]:
        jwk = json.loads(self.algorithm.to_jwk(self.private.public_key()))
        jwk.update({"kid": self.kid, "use": "sig", "alg": self.alg})
        return jwk


class Issuer:
    """Keys, a loopback JWKS endpoint and a token factory. ``fetches`` counts JWKS requests served."""

    def __init__(self, *kinds: str):
        self.issuer = f"https://issuer-{secrets.token_hex(4)}.example.test"
        self.keys = [SigningKey(kind) for kind in (kinds or ("RSA",))]
        self.published = list(self.keys)
        self.fetches = 0
        self.available = True
        self.body_override: bytes | None = None
        self.delay = 0.0
        issuer = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self):  # noqa: N802 - http.server's naming
                issuer.fetches += 1
                if issuer.delay:
                    time.sleep(issuer.delay)
                if not issuer.available:
                    self.send_response(503)
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                body = issuer.body_override or json.dumps({"keys": [k.jwk() for k in issuer.published]}).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                try:
                    self.wfile.write(body)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the size-cap test hangs up after the cap

            def log_message(self, *args):
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self.jwks_url = f"http://127.0.0.1:{self._server.server_address[1]}/jwks"
        self._thread = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.1}, daemon=True)
        self._thread.start()

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    def rules(self, required_scope: str = "router") -> JwtRules:
        return JwtRules(self.issuer, AUDIENCE, ("RS256", "ES256", "EdDSA"), 30, required_scope)

    def setup(self, clock=time.monotonic, cache_seconds: float = 300) -> JwtSetup:
        keys = JwksCache(KeySource(url=self.jwks_url), cache_seconds, clock=clock)
        return JwtSetup(self.rules(), keys, PUBLIC_URL)

    def claims(self, scope: str = "router router:parent_assistant", **overrides: Any) -> dict[str, Any]:
        now = int(time.time())
        claims = {"iss": self.issuer, "aud": AUDIENCE, "sub": "client-" + secrets.token_hex(6), "iat": now, "nbf": now,
                  "exp": now + 300, "scope": scope, "client_id": "client-" + secrets.token_hex(6), "jti": secrets.token_hex(12)}
        claims.update(overrides)
        return {k: v for k, v in claims.items() if v is not None}

    def mint(self, key: SigningKey | None = None, headers: dict[str, Any] | None = None, **claims: Any) -> str:
        key = key or self.keys[0]
        return jwt.encode(self.claims(**claims), key.private, algorithm=key.alg,
                          headers={"kid": key.kid, "typ": "at+jwt", **(headers or {})})

    def mint_none(self, **claims: Any) -> str:
        header = {"alg": "none", "typ": "JWT", "kid": self.keys[0].kid}
        return f"{b64(json.dumps(header).encode())}.{b64(json.dumps(self.claims(**claims)).encode())}."

    def mint_hs256_with_public_key(self, **claims: Any) -> str:
        """The classic algorithm-confusion token: HMAC keyed with the issuer's public key (PEM)."""
        header = {"alg": "HS256", "typ": "JWT", "kid": self.keys[0].kid}
        signing_input = f"{b64(json.dumps(header).encode())}.{b64(json.dumps(self.claims(**claims)).encode())}"
        signature = hmac.new(self.keys[0].public_pem, signing_input.encode(), hashlib.sha256).digest()
        return f"{signing_input}.{b64(signature)}"

    def tamper(self, token: str, **changes: Any) -> str:
        """The same header and signature over a changed payload."""
        header, payload, signature = token.split(".")
        claims = json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
        claims.update(changes)
        return f"{header}.{b64(json.dumps(claims).encode())}.{signature}"
