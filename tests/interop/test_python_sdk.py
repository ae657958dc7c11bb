"""The official Python MCP client (``mcp`` package) against the real server over HTTP.

Each tools/call answer must equal the in-process router result, both as ``structuredContent`` and as
the JSON text of its single ``TextContent`` (SPEC §5.3), and the client's own output-schema check
must accept it.
"""

from __future__ import annotations

import asyncio
import json
from contextlib import asynccontextmanager

import secrets

import httpx2
import mcp
from mcp.client.streamable_http import streamable_http_client

from app.http.app import create_app
from app.router import Router, load_policy
from tests.http.asgi import Lifespan

from .conftest import BAD_CALL, FIVE_TOOLS, BeforeDiscover

PROTOCOL_VERSION = "2025-06-18"
SERVER_NAME = "a207-router-mcp"
TIMEOUT_SECONDS = 20.0


def _http_client(token: str, seen: list | None = None) -> httpx2.AsyncClient:
    hooks = {}
    if seen is not None:

        async def record(request: httpx2.Request) -> None:
            body = json.loads(request.content) if request.method == "POST" and request.content else {}
            seen.append((request.method, body.get("method")))

        hooks = {"request": [record]}
    return httpx2.AsyncClient(
        headers={"Authorization": f"Bearer {token}"},
        timeout=httpx2.Timeout(10.0),
        trust_env=False,  # 127.0.0.1 never goes through an environment proxy
        event_hooks=hooks,
    )


@asynccontextmanager
async def _session(url: str, token: str):
    """An initialized `mcp.ClientSession` (the initialize handshake) over streamable HTTP."""
    async with _http_client(token) as http, streamable_http_client(url, http_client=http) as (read, write):
        async with mcp.ClientSession(read, write, read_timeout_seconds=TIMEOUT_SECONDS) as session:
            result = await session.initialize()
            yield session, result


def _run(coroutine):
    return asyncio.run(asyncio.wait_for(coroutine, TIMEOUT_SECONDS * 2))


def test_initialize_answers_2025_06_18(interop_server):
    async def scenario():
        async with _session(*interop_server) as (session, result):
            assert result.protocol_version == PROTOCOL_VERSION
            assert session.protocol_version == PROTOCOL_VERSION
            assert result.server_info.name == SERVER_NAME
            assert result.capabilities.tools is not None and result.capabilities.tools.list_changed is False
            assert result.instructions and "route_request" in result.instructions
            await session.send_ping()

    _run(scenario())


def test_default_client_probes_discover_then_falls_back_to_initialize(interop_server):
    """`mcp.Client` (mode="auto") sends server/discover first; our answer lists 2025-06-18 only, which
    the SDK (mcp/client/_probe.py, negotiate_auto) reads as a legacy advertisement: initialize."""
    url, token = interop_server
    seen: list[tuple[str, str | None]] = []

    async def scenario():
        async with _http_client(token, seen) as http:
            async with mcp.Client(streamable_http_client(url, http_client=http), read_timeout_seconds=TIMEOUT_SECONDS) as client:
                assert client.protocol_version == PROTOCOL_VERSION
                assert client.server_info is not None and client.server_info.name == SERVER_NAME
                tools = await client.list_tools()
                assert {t.name for t in tools.tools} == FIVE_TOOLS
                result = await client.call_tool("check_permission", {"caller": "doctor_assistant", "mcp": "a207-lis-mcp"})
                assert result.is_error is False and result.structured_content["allow"] is True

    _run(scenario())
    posted = [method for verb, method in seen if verb == "POST"]
    assert posted[:3] == ["server/discover", "initialize", "notifications/initialized"], seen


# ---------------------------------------------------------------------------------------------
# Requests per connect, before and after server/discover was answered (SPEC §5.2 revision 3)
# ---------------------------------------------------------------------------------------------


def _connect_requests(before: bool) -> tuple[list[str], list]:
    """The HTTP requests `mcp.Client` (mode="auto", the default) sends to connect, in process (httpx2's
    ASGI transport), and what it answered the discover probe with."""
    token = secrets.token_urlsafe(32).encode()
    router = Router(load_policy())
    app = create_app(router, [token])
    if before:
        app._mcp.server = BeforeDiscover(router)
    seen: list = []
    answers: list = []

    async def record(request: httpx2.Request) -> None:
        body = json.loads(request.content) if request.method == "POST" and request.content else {}
        seen.append(f"{request.method} {body.get('method')}")

    async def answer(response: httpx2.Response) -> None:
        await response.aread()
        if b"supportedVersions" in response.content or b"-32601" in response.content:
            answers.append(json.loads(response.content).get("result", {}).get("supportedVersions", "-32601"))

    async def scenario():
        async with Lifespan(app):
            transport = httpx2.ASGITransport(app=app)
            async with httpx2.AsyncClient(transport=transport, base_url="http://router.test",
                                          headers={"Authorization": f"Bearer {token.decode()}"},
                                          event_hooks={"request": [record], "response": [answer]}) as http:
                async with mcp.Client(streamable_http_client("http://router.test/mcp", http_client=http),
                                      read_timeout_seconds=TIMEOUT_SECONDS) as client:
                    assert client.protocol_version == PROTOCOL_VERSION
                    assert client.server_info is not None and client.server_info.name == SERVER_NAME
                    tools = await client.list_tools()
                    assert {t.name for t in tools.tools} == FIVE_TOOLS
        # The connect is everything before the first request of the session's own (the
        # initialized notification may leave after __aenter__ returned).
        return seen[:seen.index("POST tools/list")]

    return _run(scenario()), answers


def test_requests_per_connect_are_no_more_than_before():
    """Before: discover → -32601 → initialize → initialized. After: discover → supportedVersions
    ["2025-06-18"] → initialize → initialized. The same three requests; the probe now succeeds."""
    before, before_answers = _connect_requests(before=True)
    after, after_answers = _connect_requests(before=False)
    expected = ["POST server/discover", "POST initialize", "POST notifications/initialized"]
    assert before == expected, before
    assert after == expected, after
    assert len(after) <= len(before) == 3
    assert (before_answers, after_answers) == (["-32601"], [["2025-06-18"]])


def test_tools_list_is_exactly_the_five_tools(interop_server):
    async def scenario():
        async with _session(*interop_server) as (session, _):
            return await session.list_tools()

    listing = _run(scenario())
    assert sorted(t.name for t in listing.tools) == sorted(FIVE_TOOLS)
    assert listing.next_cursor is None
    for tool in listing.tools:
        assert tool.description
        assert tool.input_schema.get("type") == "object"
        assert tool.input_schema.get("additionalProperties") is False, tool.name
        assert tool.output_schema and tool.output_schema.get("type") == "object", tool.name


def test_every_call_equals_the_in_process_result(interop_server, interop_cases):
    calls = [(call, expected) for call, expected in interop_cases if call is not BAD_CALL]
    assert len(calls) >= 10

    async def scenario():
        async with _session(*interop_server) as (session, _):
            await session.list_tools()  # primes the client's output-schema validators
            # call_tool re-validates structuredContent against the tool's outputSchema
            return [await session.call_tool(call.tool, call.arguments) for call, _ in calls]

    results = _run(scenario())
    for (call, expected), result in zip(calls, results, strict=True):
        where = f"{call.tool}({json.dumps(call.arguments, ensure_ascii=False)})"
        assert result.is_error is False, where
        assert result.structured_content == expected, where
        assert len(result.content) == 1 and result.content[0].type == "text", where
        assert json.loads(result.content[0].text) == expected, where


def test_bad_argument_is_a_tool_error(interop_server, interop_cases):
    (expected,) = [result for call, result in interop_cases if call is BAD_CALL]

    async def scenario():
        async with _session(*interop_server) as (session, _):
            return await session.call_tool(BAD_CALL.tool, BAD_CALL.arguments)

    result = _run(scenario())
    assert result.is_error is True
    assert result.structured_content["error"]["code"] == "INVALID_ARGUMENT"
    assert result.structured_content == expected
    assert len(result.content) == 1 and json.loads(result.content[0].text) == expected


def test_acknowledgement_round_trip(interop_server):
    """SPEC §4.7 dispatcher contract: confirm → the user says "not now" → the same text with the
    reported concept ids in acknowledged_red_flags proceeds; a current red flag still halts."""
    text = "孩子以前有过高热惊厥，现在能吃香蕉吗"
    args = {"text": text, "caller": "parent_assistant", "patient_id": "P0001", "reference_date": "2026-11-30"}

    async def scenario():
        async with _session(*interop_server) as (session, _):
            await session.list_tools()
            first = await session.call_tool("route_request", args)
            concepts = sorted({f["concept"] for f in first.structured_content["red_flags"]})
            second = await session.call_tool("route_request", {**args, "acknowledged_red_flags": concepts})
            now = await session.call_tool("route_request", {**args, "text": "孩子现在又抽搐了", "acknowledged_red_flags": concepts})
            return first, concepts, second, now

    first, concepts, second, now = _run(scenario())
    assert (first.structured_content["status"], first.structured_content["reason_code"]) == ("confirm", "p0_confirm_current")
    assert concepts == ["seizure"]
    assert second.structured_content["status"] == "proceed"
    assert [f["acknowledged"] for f in second.structured_content["red_flags"]] == [True]
    assert now.structured_content["status"] == "halt"


def test_severity_confirmation_round_trip(interop_server):
    """SPEC §4.7 "Soft signs ask": a soft sign asks its severity question; "yes" → the same text with
    the concept in confirmed_red_flags halts; "no" → in acknowledged_red_flags it proceeds; both at
    once is INVALID_ARGUMENT; null lists are empty (SPEC §5.3)."""
    text = "孩子今天精神不好，能吃香蕉吗"
    args = {"text": text, "caller": "parent_assistant", "patient_id": "P0001", "reference_date": "2026-11-30"}

    async def scenario():
        async with _session(*interop_server) as (session, _):
            await session.list_tools()
            first = await session.call_tool("route_request", args)
            concepts = sorted({q["concept"] for q in first.structured_content["severity_questions"]})
            yes = await session.call_tool("route_request", {**args, "confirmed_red_flags": concepts})
            no = await session.call_tool("route_request", {**args, "acknowledged_red_flags": concepts})
            both = await session.call_tool("route_request", {**args, "acknowledged_red_flags": concepts,
                                                             "confirmed_red_flags": concepts})
            nulls = await session.call_tool("route_request", {**args, "acknowledged_red_flags": None,
                                                              "confirmed_red_flags": None})
            return first, concepts, yes, no, both, nulls

    first, concepts, yes, no, both, nulls = _run(scenario())
    assert (first.structured_content["status"], first.structured_content["reason_code"]) == ("confirm", "p0_confirm_severity")
    # the concept's own question first; the general danger signs of every sick child asked beside it
    assert concepts == ["lethargy", "symptom.general"] and first.structured_content["severity_questions"][0]["question"]
    assert (yes.structured_content["status"], yes.structured_content["reason_code"]) == ("halt", "p0_emergency")
    assert no.structured_content["status"] == "proceed"
    assert both.is_error is True and both.structured_content["error"]["code"] == "INVALID_ARGUMENT"
    assert nulls.structured_content == first.structured_content


def test_unknown_acknowledged_concept_is_invalid_and_not_echoed(interop_server):
    secret = "not_a_concept_zq"

    async def scenario():
        async with _session(*interop_server) as (session, _):
            return await session.call_tool(
                "check_safety_gate", {"intent": "孩子以前抽搐过", "caller": "parent_assistant", "acknowledged_red_flags": [secret]}
            )

    result = _run(scenario())
    assert result.is_error is True
    error = result.structured_content["error"]
    assert (error["code"], error["field"]) == ("INVALID_ARGUMENT", "acknowledged_red_flags")
    assert secret not in result.content[0].text


def test_patient_facts_validate_against_the_listed_schema_and_halt(interop_server):
    """SPEC §4.5 revision 3 with the official Python client: the listed inputSchema accepts facts
    (and null / {}), refuses an unknown therapy; the fever of a transplanted child halts with the
    fact named; a bad value is an INVALID_ARGUMENT that echoes nothing."""
    import jsonschema

    text = "孩子今天烧到38.6"
    args = {"text": text, "caller": "parent_assistant", "patient_id": "P0001", "reference_date": "2026-11-30"}

    async def scenario():
        async with _session(*interop_server) as (session, _):
            listing = await session.list_tools()
            schema = next(t.input_schema for t in listing.tools if t.name == "route_request")
            with_facts = await session.call_tool("route_request", {**args, "patient_facts": {"kidney_therapy": "transplant"}})
            without = await session.call_tool("route_request", args)
            empty = await session.call_tool("route_request", {**args, "patient_facts": {}})
            bad = await session.call_tool("route_request", {**args, "patient_facts": {"kidney_therapy": "xenograft_zq"}})
            return schema, with_facts, without, empty, bad

    schema, with_facts, without, empty, bad = _run(scenario())
    for facts in ({"kidney_therapy": "transplant"}, {"age_years": 0.1, "nephrotic": True}, {}, None):
        jsonschema.validate({**args, "patient_facts": facts}, schema)
    for facts in ({"kidney_therapy": "xenograft_zq"}, {"age_years": -1}, {"age_years": "1"}, {"extra": 1}):
        assert not jsonschema.Draft202012Validator(schema).is_valid({**args, "patient_facts": facts}), facts
    assert with_facts.structured_content["status"] == "halt"
    assert [(f["concept"], f["fact"]) for f in with_facts.structured_content["red_flags"] if f["fact"]] == [
        ("transplant_alert", "kidney_therapy")]
    assert without.structured_content["status"] != "halt"
    assert empty.structured_content == without.structured_content
    assert bad.is_error is True
    error = bad.structured_content["error"]
    assert (error["code"], error["field"]) == ("INVALID_ARGUMENT", "patient_facts.kidney_therapy")
    assert "xenograft_zq" not in json.dumps(bad.structured_content)
