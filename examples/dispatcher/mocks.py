"""Mock business MCP servers with fixed demo data, served over streamable HTTP on 127.0.0.1.

Four small servers stand in for the business MCPs a dispatcher reaches after `proceed`:
M1 HIS (`get_patient_profile`, `push_to_emr`), M2 LIS (`get_lab_results`, `upsert_lab_result`),
M5 nutrition calculator (`get_food_nutrients`) and M11 knowledge (`search_knowledge`). Every call is
recorded server-side in `STATE.calls`, so an evaluation asserts on what really reached a server, not
on what the dispatcher believes it sent. Each tool also checks its caller itself (authorization in the
tool layer, as in the seed demo): a dispatcher bug cannot widen access past these lists.

`serve_stub_router(status)` is a router that answers every `route_request` with one fixed status
(`denied` or `halt`) while its gate and permission tools allow everything: replaying conversations
against it proves that the graph obeys `route_request` and never reads around it.

All data is invented. Nothing here is a real patient.
"""

from __future__ import annotations

import copy
import secrets
import socket
import threading
import time
from dataclasses import dataclass, field
from typing import Any

import uvicorn
from mcp.server.fastmcp import FastMCP
from mcp.server.fastmcp.exceptions import ToolError

HOST = "127.0.0.1"

# MCP registry names (SPEC §3.2) of the servers mocked here.
HIS = "a207-his-mcp"
LIS = "a207-lis-mcp"
NCALC = "a207-nutrition-calc-mcp"
KNOWLEDGE = "a207-knowledge-mcp"

# kidney_therapy / nephrotic: the coded fields a dispatcher passes to the router as patient facts
# (SPEC §4.5 revision 3, clients.patient_facts), with age_years.
PROFILES: dict[str, dict[str, Any]] = {
    "P0001": {"name": "小明", "age_years": 8, "sex": "M", "diagnosis": "CKD 3期（肾发育不良）", "weight_kg": 24.5,
              "allergies": ["花生"], "history": "2023年起随访", "phone": "138****0001", "kidney_therapy": "ckd", "nephrotic": False},
    "P0002": {"name": "小红", "age_years": 11, "sex": "F", "diagnosis": "肾病综合征", "weight_kg": 33.0,
              "allergies": [], "history": "激素治疗中", "phone": "138****0002", "kidney_therapy": "none", "nephrotic": True},
    "P0003": {"name": "小刚", "age_years": 5, "sex": "M", "diagnosis": "CKD 4期", "weight_kg": 17.2,
              "allergies": ["牛奶"], "history": "腹透评估中", "phone": "138****0003", "kidney_therapy": "ckd", "nephrotic": False},
}
# The limited view (`RL` cells): what a parent or nutritionist sees of the HIS record.
LIMITED_PROFILE_FIELDS = ("name", "age_years", "sex", "weight_kg", "allergies")

LABS: dict[str, list[dict[str, Any]]] = {
    "P0001": [{"date": "2026-11-20", "potassium": 5.1, "scr": 168, "phosphorus": 1.9, "albumin": 38, "note": "K偏高，建议复查"}],
    "P0002": [{"date": "2026-11-18", "potassium": 4.2, "scr": 62, "phosphorus": 1.4, "albumin": 24, "note": "低白蛋白"}],
    "P0003": [{"date": "2026-11-25", "potassium": 5.6, "scr": 310, "phosphorus": 2.3, "albumin": 33, "note": "需医生评估"}],
}
LIMITED_LAB_FIELDS = ("date", "potassium", "scr", "phosphorus", "albumin")  # no clinician note

# mg per 100 g (potassium, phosphorus), g per 100 g (protein): rounded demo figures.
FOODS: dict[str, dict[str, float]] = {
    "香蕉": {"potassium_mg": 358, "phosphorus_mg": 22, "protein_g": 1.1},
    "土豆": {"potassium_mg": 425, "phosphorus_mg": 57, "protein_g": 2.0},
    "牛奶": {"potassium_mg": 150, "phosphorus_mg": 93, "protein_g": 3.2},
    "米饭": {"potassium_mg": 35, "phosphorus_mg": 43, "protein_g": 2.6},
    "鸡蛋": {"potassium_mg": 138, "phosphorus_mg": 198, "protein_g": 13.0},
    "苹果": {"potassium_mg": 107, "phosphorus_mg": 11, "protein_g": 0.3},
    "豆浆": {"potassium_mg": 118, "phosphorus_mg": 49, "protein_g": 3.0},
}

KNOWLEDGE_BASE: list[tuple[str, str]] = [
    ("盐", "慢性肾病患儿限盐可以减轻水肿、帮助控制血压；具体每日用量请听从主治医生和营养师。"),
    ("喝水", "饮水量要按尿量和水肿情况由医生决定，少量多次，不要一次喝很多。"),
    ("钾", "高钾食物（香蕉、土豆、橙子等）要按化验结果控制，焯水可以去掉一部分钾。"),
]

# Authorization in the tool layer: which callers each mock tool serves (a second line behind the router).
TOOL_CALLERS: dict[str, frozenset[str]] = {
    "get_patient_profile": frozenset({"dispatcher", "doctor_assistant", "nutritionist", "parent_assistant", "risk_warning"}),
    "push_to_emr": frozenset({"doctor_assistant"}),
    "get_lab_results": frozenset({"doctor_assistant", "parent_assistant", "risk_warning"}),
    "upsert_lab_result": frozenset({"doctor_assistant"}),
    "get_food_nutrients": frozenset({"doctor_assistant", "nutritionist", "parent_assistant"}),
    "search_knowledge": frozenset({"dispatcher", "doctor_assistant", "nutritionist", "parent_assistant", "child_companion", "risk_warning"}),
}


@dataclass
class MockState:
    """What the mock servers hold and saw; reset before every evaluated conversation."""

    calls: list[dict[str, Any]] = field(default_factory=list)
    emr_notes: list[dict[str, Any]] = field(default_factory=list)
    labs: dict[str, list[dict[str, Any]]] = field(default_factory=lambda: copy.deepcopy(LABS))
    lock: threading.Lock = field(default_factory=threading.Lock)

    def reset(self) -> None:
        with self.lock:
            self.calls.clear()
            self.emr_notes.clear()
            self.labs = copy.deepcopy(LABS)

    def record(self, server: str, tool: str, args: dict[str, Any]) -> None:
        with self.lock:
            self.calls.append({"server": server, "tool": tool, "args": args})

    def snapshot(self) -> list[dict[str, Any]]:
        with self.lock:
            return copy.deepcopy(self.calls)


STATE = MockState()


def _authorize(tool: str, caller: str) -> None:
    if caller not in TOOL_CALLERS[tool]:
        raise ToolError(f"{tool}: caller {caller} not allowed by the business server")


def _patient(patient_id: str) -> None:
    if patient_id not in PROFILES:
        raise ToolError("unknown patient")


def _server(name: str) -> FastMCP:
    # Stateless + JSON answers: the same single-request profile as the router (no session id, no SSE).
    return FastMCP(name, stateless_http=True, json_response=True, log_level="WARNING")


def build_his() -> FastMCP:
    mcp = _server(HIS)

    @mcp.tool()
    def get_patient_profile(patient_id: str, caller: str, limited_view: bool = True) -> dict[str, Any]:
        """The patient's HIS profile; the limited view omits diagnosis, history and contact fields."""
        STATE.record(HIS, "get_patient_profile", {"patient_id": patient_id, "caller": caller, "limited_view": limited_view})
        _authorize("get_patient_profile", caller)
        _patient(patient_id)
        profile = PROFILES[patient_id]
        if limited_view:
            profile = {k: profile[k] for k in LIMITED_PROFILE_FIELDS}
        return {"patient_id": patient_id, "limited_view": limited_view, "profile": profile}

    @mcp.tool()
    def push_to_emr(patient_id: str, caller: str, note: str) -> dict[str, Any]:
        """Write a note back to the EMR (needs a human approval upstream: requires_confirmation)."""
        STATE.record(HIS, "push_to_emr", {"patient_id": patient_id, "caller": caller})
        _authorize("push_to_emr", caller)
        _patient(patient_id)
        with STATE.lock:
            STATE.emr_notes.append({"patient_id": patient_id, "note": note})
            count = len(STATE.emr_notes)
        return {"patient_id": patient_id, "written": True, "emr_entry": f"EMR-{patient_id}-{count}"}

    return mcp


def build_lis() -> FastMCP:
    mcp = _server(LIS)

    @mcp.tool()
    def get_lab_results(patient_id: str, caller: str, limited_view: bool = True) -> dict[str, Any]:
        """The patient's latest lab results; the limited view omits the clinician's note."""
        STATE.record(LIS, "get_lab_results", {"patient_id": patient_id, "caller": caller, "limited_view": limited_view})
        _authorize("get_lab_results", caller)
        _patient(patient_id)
        with STATE.lock:
            rows = copy.deepcopy(STATE.labs[patient_id])
        if limited_view:
            rows = [{k: row[k] for k in LIMITED_LAB_FIELDS if k in row} for row in rows]
        return {"patient_id": patient_id, "limited_view": limited_view, "results": rows}

    @mcp.tool()
    def upsert_lab_result(patient_id: str, caller: str, analyte: str, value: float) -> dict[str, Any]:
        """Record one lab value for today (doctor_assistant only)."""
        STATE.record(LIS, "upsert_lab_result", {"patient_id": patient_id, "caller": caller, "analyte": analyte, "value": value})
        _authorize("upsert_lab_result", caller)
        _patient(patient_id)
        with STATE.lock:
            STATE.labs[patient_id].append({"date": "2026-11-30", analyte: value, "note": "录入"})
        return {"patient_id": patient_id, "written": True, "analyte": analyte, "value": value}

    return mcp


def build_ncalc() -> FastMCP:
    mcp = _server(NCALC)

    @mcp.tool()
    def get_food_nutrients(foods: list[str], caller: str) -> dict[str, Any]:
        """Potassium, phosphorus and protein per 100 g of each named food (unknown foods listed apart)."""
        STATE.record(NCALC, "get_food_nutrients", {"foods": foods, "caller": caller})
        _authorize("get_food_nutrients", caller)
        return {"per_100g": {f: FOODS[f] for f in foods if f in FOODS}, "unknown": [f for f in foods if f not in FOODS]}

    return mcp


def build_knowledge() -> FastMCP:
    mcp = _server(KNOWLEDGE)

    @mcp.tool()
    def search_knowledge(query: str, caller: str) -> dict[str, Any]:
        """Knowledge-base passages for a question (the corpus would be sliced by role downstream)."""
        STATE.record(KNOWLEDGE, "search_knowledge", {"caller": caller})
        _authorize("search_knowledge", caller)
        hits = [text for word, text in KNOWLEDGE_BASE if word in query]
        return {"passages": hits or ["知识库里没有直接相关的条目，请咨询主治医生。"]}

    return mcp


def build_stub_router(status: str) -> FastMCP:
    """A router that answers every route_request with `status` (denied / halt) and allows everything else."""
    mcp = _server("stub-router")

    @mcp.tool()
    def route_request(text: str, caller: str, patient_id: str | None = None, reference_date: str | None = None,
                      acknowledged_red_flags: list[str] | None = None) -> dict[str, Any]:
        """Always the same decision, whatever the text."""
        denied = status == "denied"
        return {"status": status, "intent": "lab_result" if denied else "emergency_red_flag",
                "mcp": LIS if denied else "a207-router-mcp", "patient_id": patient_id, "confidence": 1.0,
                "slots": {"food": ["香蕉"], "analyte": []}, "missing_slots": [], "ambiguous_slots": [],
                "gate": {"allow": True, "write_tool": "push_to_emr", "requires_confirmation": False},
                "delegate_to": "doctor_assistant" if denied else None, "requires_confirmation": False,
                "limited_view": False, "red_flags": [], "reason": "stub", "reason_code": "stub", "policy_version": "stub"}

    @mcp.tool()
    def check_safety_gate(intent: str, caller: str, target_mcp: str = "", acknowledged_red_flags: list[str] | None = None) -> dict[str, Any]:
        """Allows everything: only route_request's status may stop the graph here."""
        return {"allow": True, "gate": "PASS", "reason_code": "pass", "delegate_to": None, "requires_confirmation": False,
                "limited_view": False, "write_tool": None, "policy_version": "stub"}

    @mcp.tool()
    def check_permission(caller: str, mcp: str, action: str = "read") -> dict[str, Any]:
        """Allows everything."""
        return {"allow": True, "access": "R/W", "reason_code": "pass", "requires_confirmation": False,
                "limited_view": False, "write_tool": None, "policy_version": "stub"}

    return mcp


class _Bearer:
    """ASGI guard: 401 unless `Authorization: Bearer <token>` matches (the mocks are token-protected too)."""

    def __init__(self, app: Any, token: str) -> None:
        self.app = app
        self.expected = f"Bearer {token}".encode()

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            given = dict(scope["headers"]).get(b"authorization", b"")
            if not secrets.compare_digest(given, self.expected):
                await send({"type": "http.response.start", "status": 401,
                            "headers": [(b"www-authenticate", b"Bearer"), (b"content-length", b"0")]})
                await send({"type": "http.response.body", "body": b""})
                return
        await self.app(scope, receive, send)


@dataclass
class Running:
    url: str
    server: uvicorn.Server
    thread: threading.Thread


def _serve(mcp: FastMCP, token: str) -> Running:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((HOST, 0))  # bound here, so no other process can take the port between choosing and serving
    port = sock.getsockname()[1]
    config = uvicorn.Config(_Bearer(mcp.streamable_http_app(), token), log_level="warning", lifespan="on")
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError(f"mock server {mcp.name} did not start")
        time.sleep(0.02)
    return Running(f"http://{HOST}:{port}/mcp", server, thread)


class MockServers:
    """The four mock business servers (and optionally a stub router), each on its own free port."""

    def __init__(self, stub_router: str | None = None) -> None:
        self.token = secrets.token_urlsafe(32)
        builders = {HIS: build_his, LIS: build_lis, NCALC: build_ncalc, KNOWLEDGE: build_knowledge}
        self.running: dict[str, Running] = {name: _serve(build(), self.token) for name, build in builders.items()}
        self.stub: Running | None = _serve(build_stub_router(stub_router), self.token) if stub_router else None

    @property
    def urls(self) -> dict[str, str]:
        return {name: run.url for name, run in self.running.items()}

    def close(self) -> None:
        for run in [*self.running.values(), *([self.stub] if self.stub else [])]:
            run.server.should_exit = True
        for run in [*self.running.values(), *([self.stub] if self.stub else [])]:
            run.thread.join(timeout=5)
