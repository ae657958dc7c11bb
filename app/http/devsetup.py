"""``make run``'s first step: a working default configuration on a fresh checkout.

When no token is configured (neither in the environment nor in ``.env``), write a fresh random
one into ``.env`` (git-ignored, mode 0600) and say once where it is, with a curl probe to paste.
The token itself is never printed.
"""

from __future__ import annotations

import os
import secrets
from pathlib import Path

VARIABLE = "ROUTER_MCP_AUTH_TOKEN"


def _configured(env_file: Path) -> bool:
    if os.environ.get(VARIABLE):
        return True
    if not env_file.exists():
        return False
    for line in env_file.read_text(encoding="utf-8").splitlines():
        key, sep, value = line.partition("=")
        if sep and key.strip() == VARIABLE and value.strip():
            return True
    return False


def dev_setup(env_file: Path = Path(".env")) -> int:
    if _configured(env_file):
        return 0
    token = secrets.token_urlsafe(32)  # 43 characters of [A-Za-z0-9_-]
    existing = env_file.read_text(encoding="utf-8") if env_file.exists() else ""
    if existing and not existing.endswith("\n"):
        existing += "\n"
    env_file.write_text(existing + f"{VARIABLE}={token}\n", encoding="utf-8")
    env_file.chmod(0o600)
    print(f"Wrote a fresh random {VARIABLE} to {env_file.resolve()} (git-ignored). Probe the server with:")
    print(
        f"  export $(grep ^{VARIABLE}= {env_file}) && curl -sS http://127.0.0.1:8000/mcp "
        f"-H \"Authorization: Bearer ${{{VARIABLE}}}\" -H 'Content-Type: application/json' "
        "-d '{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-06-18\"}}'"
    )
    return 0
