"""The router layer: pure decisions over a validated policy. No web, MCP, logging or env code.

    from app.router import Router, load_policy
    router = Router(load_policy())
    router.route_request("孩子血钾6.8怎么办", caller="parent_assistant", patient_id="P0001")
"""

from .engine import TOOLS, Limits, Router, ToolSpec, UnknownTool
from .models import ArgumentError
from .policy import Policy, PolicyError, load_policy

__all__ = [
    "TOOLS",
    "ArgumentError",
    "Limits",
    "Policy",
    "PolicyError",
    "Router",
    "ToolSpec",
    "UnknownTool",
    "load_policy",
]
