"""The dispatcher: a LangGraph StateGraph with one node per `route_request` status.

For each user turn the `route` node calls the router with the session's caller and patient (never a
role or patient taken from the text) and the graph acts on the status:

* `halt`     → `escalate`: no business call; emergency advice and a `trigger_warning_event` proposal
               for the risk_warning role's agent (a proposal only: that agent runs its own gate).
* `confirm`  → `confirm`: one `interrupt()` asks every question of that `confirm` at once — the
               router's `severity_questions` (`p0_confirm_severity`, `p0_confirm_symptom`) and, for
               its red flags not acknowledged and not covered by those questions, whether they are
               happening to the child now (`p0_confirm_current`) — with the emergency number. "yes" →
               the original text is routed again with every asked concept id in `confirmed_red_flags`
               (it halts; a router without that argument gets the answer routed instead, and a yes
               escalates even when the answer alone does not). "no" → the original text is routed
               again with them in `acknowledged_red_flags`. Both lists live in the graph state, never
               read from text; the acknowledged ids stay for the whole conversation (the thread), so
               each concept and symptom family asks once; the confirmed ones last one turn.
* `denied`   → `delegate` (handed to the `delegate_to` role's agent, never retried as another role)
               or `refuse`.
* `clarify`  → `clarify`: `interrupt()` for the missing / ambiguous slots, then the text plus the reply
               is routed again ("取消" ends the turn; at most MAX_ROUTES routings per turn).
* `review`   → `review`: a pluggable soft classifier proposes an intent; the proposal must pass
               `check_safety_gate` before anything runs.
* `proceed`  → `authorize` (`check_permission` first) → `approve` (`interrupt()` for a human when the
               write has `requires_confirmation`) → `execute` (the business MCP's tool).

Nodes that call `interrupt()` make no tool call before it: LangGraph re-runs an interrupted node from
its start on resume, and a call placed before the interrupt would be made twice.
"""

from __future__ import annotations

import operator
from collections.abc import Awaitable, Callable
from typing import Annotated, Any, TypedDict

from langgraph.graph import END, START, StateGraph
from langgraph.types import interrupt

from . import mocks
from .clients import ROUTER, ToolError, Tools

EMERGENCY_NUMBER = "120"
MAX_ROUTES = 4  # routings per turn: a clarify or confirm loop ends here instead of running forever
MAX_ACKNOWLEDGED = 32  # SPEC §4.7: acknowledged_red_flags holds at most 32 ids
CURRENT_QUESTION = "您提到的情况现在正发生在孩子身上吗？"
YES = frozenset({"是", "是的", "对", "有", "在", "yes", "y"})
NO = frozenset({"不是", "没有", "否", "不", "no", "n"})
CANCEL = frozenset({"取消", "算了", "cancel"})
APPROVE = frozenset({"approve", "批准", "同意", "确认"})

# Which business tool serves a read on each MCP (the sub-agents' tool table). An MCP with no entry has
# no agent in this demo: `proceed` there answers so and calls nothing.
READ_TOOLS: dict[str, str] = {
    mocks.HIS: "get_patient_profile",
    mocks.LIS: "get_lab_results",
    mocks.NCALC: "get_food_nutrients",
    mocks.KNOWLEDGE: "search_knowledge",
}
# Intent → MCP for the soft classifier's proposals (the same table as SPEC §4.2).
INTENT_MCP: dict[str, str] = {
    "patient_profile": mocks.HIS, "lab_result": mocks.LIS, "nutrition_calc": mocks.NCALC, "knowledge": mocks.KNOWLEDGE,
    "clinical_staging": "a207-ckd-clinical-calc-mcp", "risk_assessment": "a207-risk-rules-mcp",
    "nutrition_assessment": "a207-nutrition-assessment-mcp", "meal_plan": "a207-meal-plan-mcp",
    "gamification": "a207-gamification-mcp", "notify": "a207-notify-mcp", "report": "a207-report-mcp",
    "followup": "a207-followup-mcp",
}


class Proposal(TypedDict):
    intent: str


# A soft classifier: (text, caller) → a proposed intent, or None when it has nothing to offer. A model
# would sit here in production; whatever it says goes through check_safety_gate first.
Classifier = Callable[[str, str], Awaitable[Proposal | None]]


class State(TypedDict, total=False):
    caller: str
    patient_id: str | None
    text: str  # the user's turn, as typed
    route_text: str  # what the next routing sends (the text, the text + a clarify reply, or a confirm answer)
    acknowledged: list[str]  # concept ids the user answered no to, for the whole thread (never from text)
    confirmed: list[str]  # concept ids the user said yes to in this turn (never from text)
    confirmed_now: bool  # the user answered "yes" to a confirm question
    flagged: list[str]  # the concepts of that question
    routes: int
    route: dict[str, Any]
    plan: dict[str, Any]
    handoff: dict[str, Any]
    proposals: list[dict[str, Any]]
    result: dict[str, Any]
    answer: str
    path: Annotated[list[str], operator.add]


def turn_input(text: str) -> State:
    """A new user turn: per-turn fields reset. `acknowledged` is not among them: a no holds for the
    rest of the conversation (SPEC §4.7's dispatcher contract), kept by the thread's checkpoint."""
    return {"text": text, "route_text": "", "confirmed": [], "confirmed_now": False, "flagged": [], "routes": 0,
            "plan": {}, "handoff": {}, "proposals": [], "result": {}, "answer": ""}


def asked(route_result: dict[str, Any]) -> tuple[list[str], list[str]]:
    """The concept ids one `confirm` asks about and its questions, all for one turn: every severity
    question (any reason code), then "is it happening now?" for the red flags not acknowledged that no
    severity question covers."""
    severity = route_result.get("severity_questions") or []
    concepts = list(dict.fromkeys(q["concept"] for q in severity))
    questions = [q["question"] for q in severity]
    current = [flag["concept"] for flag in route_result.get("red_flags") or []
               if not flag.get("acknowledged") and flag["concept"] not in concepts]
    current = list(dict.fromkeys(current))
    if current:
        questions.append(CURRENT_QUESTION)
    return concepts + current, questions


def _acknowledge(kept: list[str], new: list[str]) -> list[str]:
    """The conversation's acknowledged ids with `new` added; the router takes at most MAX_ACKNOWLEDGED,
    so the oldest drop out first (a dropped id may ask again: the safe side)."""
    merged = [c for c in kept if c not in new] + list(dict.fromkeys(new))
    return merged[-MAX_ACKNOWLEDGED:]


def _text_of(value: Any) -> str:
    return str(value).strip()


def build(tools: Tools, classifier: Classifier, *, reference_date: str | None = None) -> StateGraph:
    """The uncompiled graph; compile it with a checkpointer (interrupts need one)."""
    ack_supported = tools.accepts(ROUTER, "route_request", "acknowledged_red_flags")
    confirm_supported = tools.accepts(ROUTER, "route_request", "confirmed_red_flags")

    async def route(state: State) -> State:
        args: dict[str, Any] = {"text": state.get("route_text") or state["text"], "caller": state["caller"]}
        if state.get("patient_id"):
            args["patient_id"] = state["patient_id"]
        if reference_date:
            args["reference_date"] = reference_date
        confirmed = state.get("confirmed") or []
        # A concept is never in both lists (the router refuses that): a yes in this turn wins.
        acknowledged = [c for c in state.get("acknowledged") or [] if c not in confirmed]
        if acknowledged and ack_supported:
            args["acknowledged_red_flags"] = acknowledged
        if confirmed and confirm_supported:
            args["confirmed_red_flags"] = confirmed
        args.update(tools.facts_for("route_request", state.get("patient_id")))  # the session's, never the text's
        try:
            result = await tools.call(ROUTER, "route_request", args)
        except ToolError as exc:
            result = {"status": "error", "error": exc.payload.get("error")}
        return {"route": result, "routes": state.get("routes", 0) + 1, "path": ["route"]}

    def after_route(state: State) -> str:
        status = state["route"].get("status")
        if state.get("confirmed_now") and status != "halt":
            return "escalate"  # the user said the event is happening now: fail safe
        if status in {"confirm", "clarify"} and state.get("routes", 0) >= MAX_ROUTES:
            return "escalate" if status == "confirm" else "give_up"  # an unresolved red flag fails safe
        return {
            "halt": "escalate", "confirm": "confirm", "denied": "denied", "clarify": "clarify",
            "review": "review", "proceed": "authorize",
        }.get(status, "error")

    async def escalate(state: State) -> State:
        route_result = state["route"]
        # The confirm question's concepts count too: after a bare "yes" the answer itself may flag nothing.
        concepts = sorted({*(flag["concept"] for flag in route_result.get("red_flags") or []), *state.get("flagged", [])})
        proposal = {
            "for_role": "risk_warning", "tool": "trigger_warning_event", "mcp": "a207-notify-mcp",
            "args": {"patient_id": state.get("patient_id"), "concepts": concepts, "reason_code": route_result.get("reason_code")},
        }
        answer = (f"这可能是紧急情况：请立即拨打 {EMERGENCY_NUMBER} 或马上去最近的急诊。"
                  "已通知风险预警助手，我不会继续查询其他信息。")
        return {"proposals": [proposal], "answer": answer, "path": ["escalate"]}

    async def confirm(state: State) -> State:
        route_result = state["route"]
        flags = route_result.get("red_flags") or []
        # Every question of this confirm in one turn: the severity questions (policy text) and, for the
        # other flagged concepts, whether it is happening now. One answer covers them all.
        concepts, questions = asked(route_result)
        if not concepts:  # a confirm that names nothing: ask the generic question about its red flags
            concepts, questions = sorted({flag["concept"] for flag in flags}), [CURRENT_QUESTION]
        reply = interrupt({
            "kind": "confirm",
            "question": " ".join(questions) + "（是/不是）",
            "questions": questions,
            "concepts": concepts,
            "red_flags": flags,
            "emergency": f"如有任何人正处于危险中，请立即拨打 {EMERGENCY_NUMBER}。",
        })
        text = _text_of(reply)
        if text.lower() in NO:
            acknowledged = _acknowledge(state.get("acknowledged") or [], concepts)
            return {"acknowledged": acknowledged, "route_text": state["text"], "path": ["confirm:no"]}
        # Anything but a clear "no" is treated as "yes". The original text goes back with the concepts
        # confirmed, and halts; a router without `confirmed_red_flags` gets the answer routed instead.
        if confirm_supported:
            confirmed = sorted({*state.get("confirmed", []), *concepts})
            # A yes takes the concepts out of the conversation's acknowledged ids: they ask again later.
            acknowledged = [c for c in state.get("acknowledged") or [] if c not in confirmed]
            return {"confirmed": confirmed, "acknowledged": acknowledged, "confirmed_now": True, "flagged": concepts,
                    "route_text": state["text"], "path": ["confirm:yes"]}
        return {"confirmed_now": True, "flagged": concepts, "route_text": text, "path": ["confirm:yes"]}

    async def denied(state: State) -> State:
        route_result = state["route"]
        delegate_to = route_result.get("delegate_to")
        if delegate_to:
            # Handed to that role's agent with the same patient and text; this graph never re-asks the
            # router as delegate_to (its own caller stays the session's).
            handoff = {"to": delegate_to, "patient_id": route_result.get("patient_id"), "text": state["text"],
                       "reason_code": route_result.get("reason_code")}
            answer = f"这个问题需要由{_ROLE_NAMES.get(delegate_to, delegate_to)}回答，已为您转交。"
            return {"handoff": handoff, "answer": answer, "path": ["delegate"]}
        return {"answer": f"抱歉，这个请求不能处理（{route_result.get('reason_code')}）。", "path": ["refuse"]}

    async def clarify(state: State) -> State:
        route_result = state["route"]
        reply = _text_of(interrupt({
            "kind": "clarify",
            "missing_slots": route_result.get("missing_slots") or [],
            "ambiguous_slots": route_result.get("ambiguous_slots") or [],
            "reason_code": route_result.get("reason_code"),
        }))
        if reply.lower() in CANCEL:
            return {"route_text": "", "answer": "好的，已取消。", "path": ["clarify:cancel"]}
        base = state.get("route_text") or state["text"]
        return {"route_text": f"{base} {reply}", "path": ["clarify"]}

    def after_clarify(state: State) -> str:
        return END if state.get("answer") else "route"

    async def review(state: State) -> State:
        proposal = await classifier(state["text"], state["caller"])
        if proposal is None:
            return {"answer": "抱歉，这个问题不在我能帮忙的范围内。", "path": ["review:none"]}
        intent = proposal["intent"]
        target = INTENT_MCP.get(intent, "")
        gate_args: dict[str, Any] = {"intent": intent, "caller": state["caller"], "target_mcp": target}
        if state.get("acknowledged") and ack_supported:
            gate_args["acknowledged_red_flags"] = state["acknowledged"]
        gate_args.update(tools.facts_for("check_safety_gate", state.get("patient_id")))
        try:
            gate = await tools.call(ROUTER, "check_safety_gate", gate_args)
        except ToolError:
            return {"answer": _ROUTER_ERROR, "path": ["review:error"]}
        if not gate.get("allow"):
            route_result = {**state["route"], "status": "denied", "delegate_to": gate.get("delegate_to"),
                            "reason_code": gate.get("reason_code")}
            return {"route": route_result, "path": ["review:denied"]}
        plan = {"mcp": target, "write_tool": gate.get("write_tool"), "requires_confirmation": bool(gate.get("requires_confirmation")),
                "limited_view": bool(gate.get("limited_view")), "patient_id": state.get("patient_id"), "slots": state["route"].get("slots") or {}}
        return {"plan": plan, "path": ["review:gated"]}

    def after_review(state: State) -> str:
        if state.get("answer"):
            return END
        return "authorize" if state.get("plan") else "denied"

    async def authorize(state: State) -> State:
        plan = state.get("plan") or _plan_from_route(state["route"])
        action = plan["write_tool"] or "read"
        try:
            permission = await tools.call(ROUTER, "check_permission", {"caller": state["caller"], "mcp": plan["mcp"], "action": action})
        except ToolError:
            return {"plan": plan, "answer": _ROUTER_ERROR, "path": ["authorize:error"]}
        if not permission.get("allow"):
            return {"plan": plan, "answer": f"抱歉，没有权限（{permission.get('reason_code')}）。", "path": ["authorize:denied"]}
        plan = {**plan, "requires_confirmation": plan["requires_confirmation"] or bool(permission.get("requires_confirmation")),
                "limited_view": plan["limited_view"] or bool(permission.get("limited_view"))}
        return {"plan": plan, "path": ["authorize"]}

    def after_authorize(state: State) -> str:
        if state.get("answer"):
            return END
        return "approve" if state["plan"]["requires_confirmation"] else "execute"

    async def approve(state: State) -> State:
        plan = state["plan"]
        decision = _text_of(interrupt({"kind": "approve", "tool": plan["write_tool"], "mcp": plan["mcp"],
                                       "patient_id": plan["patient_id"], "text": state["text"]}))
        if decision.lower() in APPROVE:
            return {"path": ["approve:yes"]}
        return {"answer": "已取消写入，没有修改任何记录。", "path": ["approve:no"]}

    def after_approve(state: State) -> str:
        return END if state.get("answer") else "execute"

    async def execute(state: State) -> State:
        plan = state["plan"]
        call = _business_call(plan, state)
        if call is None:
            return {"answer": f"{plan['mcp']} 在本演示中没有对应的代理，未调用任何业务工具。", "path": ["execute:unwired"]}
        server, tool, args = call
        try:
            result = await tools.call(server, tool, args)
        except ToolError as exc:
            return {"answer": f"业务服务拒绝了请求：{exc.payload.get('error', {})}", "path": ["execute:error"]}
        return {"result": {"tool": tool, **result}, "answer": _summarize(tool, result), "path": ["execute"]}

    async def give_up(state: State) -> State:
        return {"answer": "没能确定您的请求，请换个说法或联系医生。", "path": ["give_up"]}

    async def error(state: State) -> State:
        # A router error or an unknown status: fail closed, nothing runs.
        return {"answer": _ROUTER_ERROR, "path": ["error"]}

    graph = StateGraph(State)
    for name, node in [("route", route), ("escalate", escalate), ("confirm", confirm), ("denied", denied),
                       ("clarify", clarify), ("review", review), ("authorize", authorize), ("approve", approve),
                       ("execute", execute), ("give_up", give_up), ("error", error)]:
        graph.add_node(name, node)
    graph.add_edge(START, "route")
    graph.add_conditional_edges("route", after_route)
    graph.add_edge("confirm", "route")
    graph.add_conditional_edges("clarify", after_clarify)
    graph.add_conditional_edges("review", after_review)
    graph.add_conditional_edges("authorize", after_authorize)
    graph.add_conditional_edges("approve", after_approve)
    for terminal in ("escalate", "denied", "execute", "give_up", "error"):
        graph.add_edge(terminal, END)
    return graph


_ROUTER_ERROR = "路由服务暂时无法做出决定，未执行任何操作。"
_ROLE_NAMES = {"doctor_assistant": "医生助手", "nutritionist": "营养师", "risk_warning": "风险预警助手"}


def _plan_from_route(route_result: dict[str, Any]) -> dict[str, Any]:
    gate = route_result.get("gate") or {}
    return {"mcp": route_result["mcp"], "write_tool": gate.get("write_tool"),
            "requires_confirmation": bool(route_result.get("requires_confirmation")),
            "limited_view": bool(route_result.get("limited_view")), "patient_id": route_result.get("patient_id"),
            "slots": route_result.get("slots") or {}}


def _business_call(plan: dict[str, Any], state: State) -> tuple[str, str, dict[str, Any]] | None:
    """(server, tool, arguments) for the plan, or None when the demo has no agent for that MCP."""
    caller, patient, slots = state["caller"], plan["patient_id"], plan["slots"]
    write = plan["write_tool"]
    if write == "push_to_emr":
        return mocks.HIS, write, {"patient_id": patient, "caller": caller, "note": state["text"]}
    if write == "upsert_lab_result" and slots.get("analyte") and slots.get("number"):
        return mocks.LIS, write, {"patient_id": patient, "caller": caller, "analyte": slots["analyte"][0], "value": slots["number"][-1]["value"]}
    if write:
        return None
    tool = READ_TOOLS.get(plan["mcp"])
    if tool is None:
        return None
    if tool == "get_food_nutrients":
        return plan["mcp"], tool, {"foods": list(slots.get("food") or []), "caller": caller}
    if tool == "search_knowledge":
        return plan["mcp"], tool, {"query": state["text"], "caller": caller}
    return plan["mcp"], tool, {"patient_id": patient, "caller": caller, "limited_view": plan["limited_view"]}


def _summarize(tool: str, result: dict[str, Any]) -> str:
    if tool == "get_lab_results":
        latest = result["results"][-1]
        return f"{result['patient_id']} 最近一次化验（{latest['date']}）：血钾 {latest.get('potassium')} mmol/L，肌酐 {latest.get('scr')} μmol/L。"
    if tool == "get_patient_profile":
        profile = result["profile"]
        return f"{result['patient_id']}：{profile['name']}，{profile['age_years']}岁，体重 {profile['weight_kg']} kg。"
    if tool == "get_food_nutrients":
        parts = [f"{food}每100克含钾 {values['potassium_mg']:.0f} mg" for food, values in result["per_100g"].items()]
        return "；".join(parts) or "没有这些食物的数据。"
    if tool == "search_knowledge":
        return result["passages"][0]
    if tool == "push_to_emr":
        return f"已写回病历（{result['emr_entry']}）。"
    return f"已录入 {result['analyte']} = {result['value']}。"

