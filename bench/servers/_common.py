"""What every comparison server shares with ``python -m app serve``: the router and the uvicorn
settings (uvloop, httptools, one worker, no access log), so only the stack above them differs."""

from __future__ import annotations

import argparse
import gc
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


def router():
    from app.router import Router, load_policy

    return Router(load_policy(os.environ.get("ROUTER_POLICY_FILE") or None))


def run(app, description: str) -> None:
    import uvicorn

    from app.http.serve import UVICORN_OPTIONS

    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, required=True)
    args = parser.parse_args()
    gc.collect()
    gc.freeze()  # as ours does in its lifespan: fair GC behaviour for long-lived objects
    uvicorn.run(app, host=args.host, port=args.port, **UVICORN_OPTIONS)
