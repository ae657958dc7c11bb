"""Drive the Starlette app in-process through httpx2's ASGI transport, lifespan included."""

from __future__ import annotations

import asyncio
import io
import json
import secrets
from dataclasses import dataclass

import httpx2

from app.http.app import create_app
from app.http.observe import configure_logging
from app.router import Router


@dataclass
class Service:
    """One app with a fresh token and its own captured log."""

    app: object
    token: str
    log: io.StringIO

    def request(self, method: str, path: str = "/mcp", *, headers: dict | list | None = None, body: bytes | None = None, auth: bool = True, json_body=None):
        hdrs = list(headers.items()) if isinstance(headers, dict) else list(headers or [])
        names = {k.lower() for k, _ in hdrs}
        if auth and "authorization" not in names:
            hdrs.append(("Authorization", f"Bearer {self.token}"))
        if json_body is not None:
            body = json.dumps(json_body, ensure_ascii=False).encode()
            if "content-type" not in names:
                hdrs.append(("Content-Type", "application/json"))
        return asyncio.run(self._send(method, path, hdrs, body))

    async def _send(self, method, path, headers, body):
        async with self.app.router.lifespan_context(self.app):
            transport = httpx2.ASGITransport(app=self.app)
            async with httpx2.AsyncClient(transport=transport, base_url="http://testserver") as client:
                return await client.request(method, path, headers=headers, content=body)

    def rpc(self, method: str, params: dict | None = None, *, id=1, headers: dict | None = None):
        message = {"jsonrpc": "2.0", "id": id, "method": method}
        if params is not None:
            message["params"] = params
        return self.request("POST", json_body=message, headers=headers)

    def call(self, tool: str, arguments: dict):
        return self.rpc("tools/call", {"name": tool, "arguments": arguments})

    def log_lines(self) -> list[dict]:
        return [json.loads(line) for line in self.log.getvalue().splitlines() if line.strip()]

    def access_log(self) -> list[dict]:
        return [line for line in self.log_lines() if line.get("event") == "request"]


def make_service(router: Router, **options) -> Service:
    log = io.StringIO()
    configure_logging(log)
    token = secrets.token_urlsafe(32)
    return Service(create_app(router, [token.encode()], **options), token, log)
