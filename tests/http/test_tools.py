"""tools/list and tools/call on the wire (SPEC §4.6, §5.3), plus the access log's privacy (§5.5)."""

from __future__ import annotations

import json

import jsonschema
import mcp.types as types
import pytest

from tests.http.client import make_service

REF = "2026-11-30"
FIVE = {"route_request", "check_safety_gate", "classify_intent", "check_permission", "extract_slots"}

CALLS = [
    ("route_request", {"text": "孩子昨天抽搐了一次", "caller": "parent_assistant", "patient_id": "P0001", "reference_date": REF}),
    ("route_request", {"text": "帮我看看P0002最近一周的血钾和肌酐", "caller": "doctor_assistant", "reference_date": REF}),
    ("route_request", {"text": "孩子现在CKD几期了？", "caller": "parent_assistant", "patient_id": "P0001"}),
    ("route_request", {"text": "把今天的化验结果写回病历", "caller": "doctor_assistant", "patient_id": "P0003"}),
    ("route_request", {"text": "晚饭吃了两碗米饭和半个苹果，能吃香蕉吗", "caller": "parent_assistant", "patient_id": "P0001", "reference_date": REF}),
    ("route_request", {"text": "你好", "caller": "child_companion"}),
    ("route_request", {"text": "孩子今天烧到38.6", "caller": "parent_assistant", "patient_id": "P0001", "reference_date": REF,
                       "patient_facts": {"age_years": 7, "kidney_therapy": "transplant", "nephrotic": False}}),
    ("route_request", {"text": "孩子以前肚子疼过", "caller": "parent_assistant", "reference_date": REF,
                       "patient_facts": {"kidney_therapy": "pd"}}),
    ("route_request", {"text": "孩子今天发烧了", "caller": "parent_assistant", "reference_date": REF, "patient_facts": None}),
    ("route_request", {"text": "孩子今天发烧了", "caller": "parent_assistant", "reference_date": REF, "patient_facts": {}}),
    ("check_safety_gate", {"intent": "宝宝今天发烧了", "caller": "nutritionist", "patient_facts": {"age_years": 0.1}}),
    ("check_safety_gate", {"intent": "push_to_emr", "caller": "doctor_assistant"}),
    ("check_safety_gate", {"intent": "award_badge", "caller": "doctor_assistant", "target_mcp": "a207-gamification-mcp"}),
    ("check_safety_gate", {"intent": "孩子 无 尿 一天了", "caller": "nutritionist"}),
    ("classify_intent", {"text": "帮我排一周食谱，低钾低磷"}),
    ("classify_intent", {"text": "这个食谱怎么样"}),
    ("classify_intent", {"text": "asdfgh"}),
    ("check_permission", {"caller": "parent_assistant", "mcp": "a207-nutrition-assessment-mcp", "action": "upsert_food_diary"}),
    ("check_permission", {"caller": "dispatcher", "mcp": "a207-lis-mcp"}),
    ("check_permission", {"caller": "ghost", "mcp": "a207-lis-mcp"}),
    ("extract_slots", {"text": "P0012，6岁半，体重40斤，身高1.2米，3月5日早餐吃了一个鸡蛋、一杯牛奶", "reference_date": REF}),
    ("extract_slots", {"text": "最近两周血钾5.6mmol/L，P0001和P0002", "reference_date": REF}),
]


@pytest.fixture(scope="module")
def service(router):
    return make_service(router)


@pytest.fixture(scope="module")
def listed(service):
    return {tool["name"]: tool for tool in service.rpc("tools/list").json()["result"]["tools"]}


def test_tools_list_has_exactly_the_five_tools(listed):
    assert set(listed) == FIVE
    for tool in listed.values():
        types.Tool.model_validate(tool)
        assert tool["inputSchema"]["type"] == "object"
        assert tool["inputSchema"]["additionalProperties"] is False
        assert tool["outputSchema"]["type"] == "object"
        assert len(tool["description"]) > 80
        assert tool["annotations"]["readOnlyHint"] is True
        assert not {"execution", "icons"} & set(tool), "fields newer than 2025-06-18"
        jsonschema.Draft202012Validator.check_schema(tool["inputSchema"])
        jsonschema.Draft202012Validator.check_schema(tool["outputSchema"])


def test_tools_list_has_no_newer_fields(service):
    result = service.rpc("tools/list").json()["result"]
    assert set(result) == {"tools"}


@pytest.mark.parametrize(("tool", "arguments"), CALLS, ids=[f"{t} {i}" for i, (t, _) in enumerate(CALLS)])
def test_structured_content_matches_schema_text_and_router(service, listed, router, tool, arguments):
    jsonschema.validate(arguments, listed[tool]["inputSchema"])
    result = service.call(tool, arguments).json()["result"]
    types.CallToolResult.model_validate(result)
    assert result["isError"] is False
    structured = result["structuredContent"]
    jsonschema.validate(structured, listed[tool]["outputSchema"])
    assert [c["type"] for c in result["content"]] == ["text"]
    assert json.loads(result["content"][0]["text"]) == structured
    if "reference_date" in arguments or tool in ("check_safety_gate", "check_permission"):
        assert structured == router.call(tool, arguments).model_dump(mode="json")
    assert structured["policy_version"] == router.policy_version


def test_text_projection_keeps_chinese_readable(service):
    result = service.call("classify_intent", {"text": "香蕉含钾多少"}).json()["result"]
    assert "香蕉" in result["content"][0]["text"]


BAD_ARGUMENTS = [
    ("wrong type", "classify_intent", {"text": 42}, "text"),
    ("missing argument", "check_permission", {"caller": "doctor_assistant"}, "mcp"),
    ("extra key", "extract_slots", {"text": "x", "patient": "P0001"}, "patient"),
    ("odd extra key is not echoed", "extract_slots", {"text": "x", "我的秘密 key": 1}, "arguments"),
    ("key with a trailing newline is not echoed", "extract_slots", {"text": "x", "abc\n": 1}, "arguments"),
    ("non-ASCII digit key is not echoed", "extract_slots", {"text": "x", "²": 1}, "arguments"),
    ("text over the limit", "route_request", {"text": "化" * 2001, "caller": "doctor_assistant"}, "text"),
    ("malformed session patient", "route_request", {"text": "查化验单", "caller": "doctor_assistant", "patient_id": "p-secret-1"}, "patient_id"),
    ("impossible reference date", "extract_slots", {"text": "昨天", "reference_date": "2026-02-30"}, "reference_date"),
    ("arguments not an object", "classify_intent", ["secret text"], "arguments"),
    ("null argument", "check_safety_gate", {"intent": None, "caller": "doctor_assistant"}, "intent"),
    ("unknown patient fact is not echoed", "route_request",
     {"text": "孩子发烧了", "caller": "parent_assistant", "patient_facts": {"secret_fact_key": 1}}, "patient_facts"),
    ("unknown kidney therapy", "route_request",
     {"text": "孩子发烧了", "caller": "parent_assistant", "patient_facts": {"kidney_therapy": "secret_therapy"}},
     "patient_facts.kidney_therapy"),
    ("negative age", "check_safety_gate",
     {"intent": "孩子发烧了", "caller": "parent_assistant", "patient_facts": {"age_years": -3}}, "patient_facts.age_years"),
    ("age as a string", "check_safety_gate",
     {"intent": "孩子发烧了", "caller": "parent_assistant", "patient_facts": {"age_years": "0.1secret"}},
     "patient_facts.age_years"),
    ("nephrotic as a string", "route_request",
     {"text": "孩子发烧了", "caller": "parent_assistant", "patient_facts": {"nephrotic": "secret-yes"}}, "patient_facts.nephrotic"),
    ("facts not an object", "route_request",
     {"text": "孩子发烧了", "caller": "parent_assistant", "patient_facts": "transplant-secret"}, "patient_facts"),
]


@pytest.mark.parametrize(("tool", "arguments", "field"), [r[1:] for r in BAD_ARGUMENTS], ids=[r[0] for r in BAD_ARGUMENTS])
def test_bad_arguments_are_tool_errors_without_echo(service, listed, tool, arguments, field):
    response = service.rpc("tools/call", {"name": tool, "arguments": arguments})
    assert response.status_code == 200
    result = response.json()["result"]
    assert result["isError"] is True
    error = result["structuredContent"]["error"]
    jsonschema.validate(result["structuredContent"], listed[tool]["outputSchema"])
    assert error["code"] == "INVALID_ARGUMENT"
    assert error["field"] == field
    assert json.loads(result["content"][0]["text"]) == result["structuredContent"]
    for value in (arguments.values() if isinstance(arguments, dict) else arguments):
        if isinstance(value, str) and len(value) > 2:
            assert value not in response.text
    assert "我的秘密" not in response.text and "secret" not in response.text
    assert service.access_log()[-1]["outcome"] == "invalid_argument"


@pytest.mark.parametrize("name", ["drop_tables", 42, None, "Route_Request"], ids=repr)
def test_unknown_tool_is_a_protocol_error(service, name):
    response = service.rpc("tools/call", {"name": name, "arguments": {}})
    assert response.json()["error"]["code"] == -32602


def test_an_unexpected_exception_is_internal_without_detail(router, monkeypatch):
    service = make_service(router)

    def boom(*args, **kwargs):
        raise RuntimeError("secret internal detail P0001")

    monkeypatch.setattr(router, "classify_intent", boom)
    monkeypatch.setitem(router._methods, "classify_intent", boom)
    response = service.call("classify_intent", {"text": "香蕉"})
    result = response.json()["result"]
    assert result["isError"] is True
    assert result["structuredContent"]["error"]["code"] == "INTERNAL"
    assert "secret" not in response.text and "Traceback" not in response.text
    assert service.access_log()[-1]["outcome"] == "internal"
    # and the service keeps serving
    monkeypatch.undo()
    assert service.rpc("ping").status_code == 200


def test_a_whole_session_logs_only_categories(router):
    """Successes, every error path and a P0 halt; nothing but ids and categories in the log."""
    service = make_service(router)
    secrets_used = [service.token, "Bearer"]
    texts = ["孩子抽搐了怎么办", "P0002的血钾5.1", "把结果写回病历", "香蕉含钾多少"]
    service.rpc("initialize", {"protocolVersion": "2024-01-01-secret-version"})
    service.request("POST", json_body={"jsonrpc": "2.0", "method": "notifications/initialized"})
    service.rpc("tools/list")
    for text in texts:
        service.call("route_request", {"text": text, "caller": "parent_assistant", "patient_id": "P0009"})
        service.call("check_safety_gate", {"intent": text, "caller": "nutritionist"})
        service.call("extract_slots", {"text": text, "reference_date": REF})
    service.call("classify_intent", {"text": 123456789})
    service.call("nope", {})
    service.rpc("secret/method-name")
    service.request("POST", headers={"Origin": "https://origin-secret.evil", "Content-Type": "application/json"}, body=b"{}")
    service.request("POST", headers={"Authorization": "Bearer wrong-token-secret-value-0123456789", "Content-Type": "application/json"}, body=b"{}")
    service.request("POST", headers={"Content-Type": "text/secret"}, body=b"{}")
    service.request("POST", headers={"Content-Type": "application/json"}, body=b"{secret-unparsable")
    service.request("GET")
    raw = service.log.getvalue()
    lines = service.access_log()
    assert len(lines) >= 20
    for line in service.log_lines():
        assert set(line) <= {"event", "request_id", "method", "tool", "duration_ms", "status", "outcome", "policy_version"}
    for line in lines:
        assert line["request_id"] and line["outcome"]
    for needle in [*secrets_used, *texts, "P0009", "P0002", "123456789", "secret", "evil", "example", "application/json", "香蕉", "potassium"]:
        assert needle not in raw, needle
    outcomes = {line["outcome"] for line in lines}
    assert {"compatibility_success", "halt:P0", "invalid_argument", "unknown_tool", "method_not_found", "forbidden_origin",
            "unauthorized", "unsupported_media_type", "parse_error", "method_not_allowed", "accepted"} <= outcomes
