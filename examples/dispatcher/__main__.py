"""`python -m examples.dispatcher chat --caller parent_assistant --patient P0001` — try the dispatcher.

chat   talks to the router of `make run` (http://127.0.0.1:8000/mcp; the token from ROUTER_MCP_AUTH_TOKEN
       or the .env that `make run` wrote) and starts the mock business servers in this process.
       Interrupts (confirm, clarify, a write's approval) are asked in the terminal. Checkpoints go to
       a SQLite file (--db), so a pending approval survives quitting: start again with the same
       --thread and it is asked again.
step   one turn, then exit, printing where it stopped as JSON (the evaluation's restart case uses it;
       servers come from DISPATCHER_* variables).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import uuid
from pathlib import Path

from . import mocks
from .clients import ROUTER, Tools, connection
from .graph import Proposal
from .runner import Dispatcher, Step, open_graph

ROLES = ["dispatcher", "doctor_assistant", "nutritionist", "parent_assistant", "child_companion", "risk_warning"]


def _token() -> str:
    token = os.environ.get("ROUTER_MCP_AUTH_TOKEN", "")
    env_file = Path(".env")
    if not token and env_file.exists():
        for line in env_file.read_text().splitlines():
            if line.startswith("ROUTER_MCP_AUTH_TOKEN="):
                token = line.split("=", 1)[1].strip().strip("'\"")
    if not token:
        sys.exit("no token: set ROUTER_MCP_AUTH_TOKEN or run from the checkout where `make run` wrote .env")
    return token


def _soft(intent: str | None):
    """The soft classifier for chat: none by default (a model would go here), or one fixed intent."""

    async def classify(text: str, caller: str) -> Proposal | None:
        return {"intent": intent} if intent else None

    return classify


def _prompt(pending: dict) -> str:
    kind = pending["kind"]
    if kind == "confirm":
        concepts = ", ".join(pending.get("concepts") or [flag["concept"] for flag in pending.get("red_flags") or []])
        questions = "\n".join(f"  - {q}" for q in pending.get("questions") or [pending["question"]])
        return f"[confirm: {concepts}] 请一次回答全部（任何一项是就答“是”，都不是就答“不是”）：\n{questions}\n{pending['emergency']}\n> "
    if kind == "clarify":
        wanted = pending.get("missing_slots") or pending.get("ambiguous_slots") or [pending.get("reason_code")]
        return f"[clarify] 请补充：{', '.join(map(str, wanted))}（或输入 取消）\n> "
    return f"[approve] {pending['tool']} → {pending['mcp']} for {pending['patient_id']}: approve / reject?\n> "


def _show(step: Step) -> None:
    state = step.state
    print(state.get("answer", ""))
    print(f"  path: {' → '.join(step.turn_path)}")
    if state.get("handoff"):
        print(f"  handed to: {state['handoff']['to']}")
    for proposal in state.get("proposals") or []:
        print(f"  proposal for {proposal['for_role']}: {proposal['tool']} {json.dumps(proposal['args'], ensure_ascii=False)}")


async def chat(args: argparse.Namespace) -> None:
    servers = mocks.MockServers()
    try:
        connections = {ROUTER: connection(args.url, _token()),
                       **{name: connection(url, servers.token) for name, url in servers.urls.items()}}
        tools = await Tools.connect(connections)
        async with open_graph(tools, _soft(args.soft_intent), args.db) as graph:
            dispatcher = Dispatcher(graph, args.caller, args.patient, args.thread)
            print(f"caller {args.caller}, patient {args.patient or '-'}, thread {args.thread}; empty line or Ctrl-D quits")
            pending = await dispatcher.pending()
            while True:
                try:
                    line = input(_prompt(pending) if pending else "you> ").strip()
                except EOFError:
                    break
                if not line:
                    break
                step = await (dispatcher.reply(line) if pending else dispatcher.say(line))
                pending = step.pending
                if pending is None:
                    _show(step)
    finally:
        servers.close()


async def step(args: argparse.Namespace) -> None:
    mock_urls = json.loads(os.environ["DISPATCHER_MOCKS"])
    connections = {ROUTER: connection(os.environ["DISPATCHER_ROUTER_URL"], _token()),
                   **{name: connection(url, os.environ["DISPATCHER_MOCKS_TOKEN"]) for name, url in mock_urls.items()}}
    tools = await Tools.connect(connections)
    async with open_graph(tools, _soft(None), args.db, args.reference_date) as graph:
        result = await Dispatcher(graph, args.caller, args.patient, args.thread).say(args.text)
    print(json.dumps({"pending": result.pending, "path": result.state.get("path"), "calls": tools.log}, ensure_ascii=False))


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m examples.dispatcher", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    for name in ("chat", "step"):
        command = sub.add_parser(name)
        command.add_argument("--caller", choices=ROLES, required=True)
        command.add_argument("--patient", help="the session's patient (e.g. P0001)")
        command.add_argument("--thread", default=uuid.uuid4().hex)
        command.add_argument("--db", default="dispatcher-checkpoints.sqlite" if name == "chat" else None, required=name == "step")
    chat_parser = sub.choices["chat"]
    chat_parser.add_argument("--url", default="http://127.0.0.1:8000/mcp")
    chat_parser.add_argument("--soft-intent", help="what the stand-in soft classifier proposes on `review` (default: nothing)")
    step_parser = sub.choices["step"]
    step_parser.add_argument("--text", required=True)
    step_parser.add_argument("--reference-date")
    args = parser.parse_args()
    asyncio.run(chat(args) if args.command == "chat" else step(args))


if __name__ == "__main__":
    main()
