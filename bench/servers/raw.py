"""raw: a bare ASGI callable with orjson around ``router.call`` — the floor of this stack
(uvicorn + httptools + uvloop + pydantic validation/dump of the router's own models)."""

from __future__ import annotations

from _common import router as make_router, run

import orjson

ROUTER = make_router()
_HEADERS = [(b"content-type", b"application/json")]


async def app(scope, receive, send) -> None:
    if scope["type"] == "lifespan":
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                await send({"type": "lifespan.shutdown.complete"})
                return
    chunks = []
    while True:
        message = await receive()
        chunks.append(message.get("body", b""))
        if not message.get("more_body", False):
            break
    request = orjson.loads(b"".join(chunks))
    params = request.get("params") or {}
    result = ROUTER.call(params.get("name"), params.get("arguments")).model_dump(mode="json")
    body = orjson.dumps(
        {
            "jsonrpc": "2.0",
            "id": request.get("id"),
            "result": {"content": [{"type": "text", "text": orjson.dumps(result).decode()}],
                       "structuredContent": result, "isError": False},
        }
    )
    await send({"type": "http.response.start", "status": 200,
                "headers": _HEADERS + [(b"content-length", str(len(body)).encode())]})
    await send({"type": "http.response.body", "body": body})


if __name__ == "__main__":
    run(app, __doc__)
