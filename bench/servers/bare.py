"""bare: a Starlette ``POST /mcp`` that parses JSON, calls ``router.call`` and returns a JSON-RPC
result. No guards, no logging, no protocol checks: what the framework costs around the router."""

from __future__ import annotations

import json

from _common import router as make_router, run

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

ROUTER = make_router()


async def mcp(request: Request) -> JSONResponse:
    message = await request.json()
    params = message.get("params") or {}
    result = ROUTER.call(params.get("name"), params.get("arguments")).model_dump(mode="json")
    return JSONResponse(
        {
            "jsonrpc": "2.0",
            "id": message.get("id"),
            "result": {
                "content": [{"type": "text", "text": json.dumps(result, ensure_ascii=False)}],
                "structuredContent": result,
                "isError": False,
            },
        }
    )


app = Starlette(routes=[Route("/mcp", mcp, methods=["POST"])])

if __name__ == "__main__":
    run(app, __doc__)
