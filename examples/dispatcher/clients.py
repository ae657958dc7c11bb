"""MCP connections through `langchain-mcp-adapters` (streamable HTTP, bearer header).

The router and each business server are one `MultiServerMCPClient` connection. Tools are loaded
once; each call opens a short session (initialize + call), which suits a stateless server and
survives a graph-process restart: nothing about a connection lives in the graph state.

A call goes in as a LangChain `ToolCall` so the adapter hands back a `ToolMessage`: its `artifact`
holds the MCP `structuredContent`, and an `isError: true` result arrives as `status="error"` with the
error JSON as text (the adapter raises nothing for it; transport failures do raise).
"""

from __future__ import annotations

import json
import uuid
from dataclasses import dataclass, field
from typing import Any

from langchain_core.messages import ToolMessage
from langchain_core.tools import BaseTool
from langchain_mcp_adapters.client import MultiServerMCPClient

from . import mocks

ROUTER = "router"
FACT_KEYS = ("age_years", "kidney_therapy", "nephrotic")


def patient_facts(patient_id: str | None) -> dict[str, Any] | None:
    """The session patient's facts for the router (SPEC §4.5 revision 3): read from the patient
    profile that the dispatcher's authenticated session holds — here the stub HIS's records — and
    never from the user's words. None without a session patient or a profile."""
    profile = mocks.PROFILES.get(patient_id) if patient_id else None
    if profile is None:
        return None
    return {key: profile[key] for key in FACT_KEYS if key in profile}


class ToolError(RuntimeError):
    """An MCP tool answered `isError: true` (for the router: INVALID_ARGUMENT or INTERNAL)."""

    def __init__(self, server: str, tool: str, payload: dict[str, Any]) -> None:
        super().__init__(f"{server}.{tool}: {payload.get('error', payload)}")
        self.payload = payload


def connection(url: str, token: str) -> dict[str, Any]:
    return {"transport": "streamable_http", "url": url, "headers": {"Authorization": f"Bearer {token}"}, "timeout": 10.0}


@dataclass
class Tools:
    """Every MCP tool the dispatcher may call, by server name, plus a log of the calls it made."""

    client: MultiServerMCPClient
    by_server: dict[str, dict[str, BaseTool]] = field(default_factory=dict)
    log: list[dict[str, Any]] = field(default_factory=list)

    @classmethod
    async def connect(cls, connections: dict[str, dict[str, Any]]) -> Tools:
        tools = cls(MultiServerMCPClient(connections))
        for server in connections:
            loaded = await tools.client.get_tools(server_name=server)
            tools.by_server[server] = {tool.name: tool for tool in loaded}
        return tools

    def accepts(self, server: str, tool: str, argument: str) -> bool:
        """Whether a tool's input schema has `argument` (feature detection, e.g. acknowledged_red_flags)."""
        schema = self.by_server.get(server, {}).get(tool)
        if schema is None:
            return False
        args = schema.args_schema if isinstance(schema.args_schema, dict) else {}
        return argument in args.get("properties", {})

    def facts_for(self, tool: str, patient_id: str | None) -> dict[str, Any]:
        """`{"patient_facts": …}` for a router call about the session patient, when the router takes
        them (feature detection, as for acknowledged_red_flags); else nothing."""
        facts = patient_facts(patient_id)
        if not facts or not self.accepts(ROUTER, tool, "patient_facts"):
            return {}
        return {"patient_facts": facts}

    async def call(self, server: str, tool: str, args: dict[str, Any]) -> dict[str, Any]:
        """structuredContent of the result; ToolError on `isError: true`."""
        entry = {"server": server, "tool": tool, "caller": args.get("caller")}
        if "patient_facts" in args:
            entry["patient_facts"] = args["patient_facts"]
        if "acknowledged_red_flags" in args:
            entry["acknowledged_red_flags"] = args["acknowledged_red_flags"]
        if "confirmed_red_flags" in args:
            entry["confirmed_red_flags"] = args["confirmed_red_flags"]
        self.log.append(entry)
        message = await self.by_server[server][tool].ainvoke({"type": "tool_call", "id": uuid.uuid4().hex, "name": tool, "args": args})
        assert isinstance(message, ToolMessage)
        if message.status == "error":
            raise ToolError(server, tool, _error_payload(message))
        if not message.artifact or "structured_content" not in message.artifact:
            raise ToolError(server, tool, {"error": {"code": "NO_STRUCTURED_CONTENT"}})
        structured: dict[str, Any] = message.artifact["structured_content"]
        return structured


def _error_payload(message: ToolMessage) -> dict[str, Any]:
    blocks = message.content if isinstance(message.content, list) else [message.content]
    for block in blocks:
        text = block.get("text") if isinstance(block, dict) else block
        if isinstance(text, str):
            try:
                parsed = json.loads(text)
            except ValueError:
                return {"error": {"code": "TOOL_ERROR", "message": text}}
            return parsed if isinstance(parsed, dict) else {"error": {"code": "TOOL_ERROR"}}
    return {"error": {"code": "TOOL_ERROR"}}
