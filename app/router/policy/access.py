"""Who may reach what: roles, the MCP registry, the permission matrix, the MX rules, the write tools
and their aliases, the staging words and the session-only callers — models, checks, compiled form."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Iterable, Literal, Mapping, Sequence

from pydantic import Field, StringConstraints

from ..text import fold
from .common import NonEmpty, Strict, Terms, duplicates

# ------------------------------------------------------------------------------------------------
# The sections: roles, mcps, matrix, rules, write_tools, staging, route
# ------------------------------------------------------------------------------------------------


class McpEntry(Strict):
    name: NonEmpty
    serves: NonEmpty


class Mx1(Strict):
    staging_denied_callers: Terms
    delegate_to: NonEmpty
    calc_mcp: NonEmpty
    calc_callers: Terms


class Mx2(Strict):
    gamification_mcp: NonEmpty
    gamification_callers: Terms
    child_caller: NonEmpty
    child_denied_mcps: Terms


class Mx3(Strict):
    write_prefixes: Terms


class Rules(Strict):
    mx1: Mx1 = Field(alias="MX-1")
    mx2: Mx2 = Field(alias="MX-2")
    mx3: Mx3 = Field(alias="MX-3")


class WriteToolEntry(Strict):
    name: Annotated[str, StringConstraints(pattern=r"^[a-z][a-z0-9_]*\*?$")]
    mcp: NonEmpty
    callers: Terms
    requires_confirmation: bool
    aliases: Annotated[dict[NonEmpty, NonEmpty], Field(min_length=1)]


class StagingEntry(Strict):
    terms: Terms


class RouteEntry(Strict):
    write_required_slots: list[Literal["patient_id", "food"]]
    session_only_callers: Terms


Cell = Literal["R", "RL", "R/W", "-"]

# ------------------------------------------------------------------------------------------------
# Checks: every role and MCP a rule names exists, every matrix cell is there, aliases overlap nowhere
# ------------------------------------------------------------------------------------------------


def unknown_roles(where: str, names: Iterable[str], roles: set[str]) -> list[str]:
    return [f"{where}: unknown role {name!r}" for name in names if name not in roles]


def unregistered(where: str, mcp_id: str, ids: set[str]) -> list[str]:
    return [] if mcp_id in ids else [f"{where}: unregistered MCP {mcp_id!r}"]


def check(roles: list[str], mcps: Mapping[str, McpEntry], matrix: Mapping[str, Mapping[str, Cell]], rules: Rules,
          write_tools: list[WriteToolEntry], staging: StagingEntry, route: RouteEntry) -> list[str]:
    problems: list[str] = []
    known, ids = set(roles), set(mcps)
    if len(known) != len(roles):
        problems.append("roles: a role is listed twice")
    names = [m.name for m in mcps.values()]
    if len(set(names)) != len(names):
        problems.append("mcps: two MCPs share a registry name")

    for role in roles:
        if role not in matrix:
            problems.append(f"matrix: no row for role {role!r}")
    for role, row in matrix.items():
        problems += unknown_roles("matrix", [role], known)
        for mcp_id in ids - set(row):
            problems.append(f"matrix.{role}: no cell for MCP {mcp_id}")
        for mcp_id in set(row) - ids:
            problems.append(f"matrix.{role}: unregistered MCP {mcp_id!r}")

    mx1, mx2 = rules.mx1, rules.mx2
    problems += unknown_roles("rules.MX-1.staging_denied_callers", mx1.staging_denied_callers, known)
    problems += unknown_roles("rules.MX-1.delegate_to", [mx1.delegate_to], known)
    problems += unknown_roles("rules.MX-1.calc_callers", mx1.calc_callers, known)
    problems += unregistered("rules.MX-1.calc_mcp", mx1.calc_mcp, ids)
    problems += unknown_roles("rules.MX-2.gamification_callers", mx2.gamification_callers, known)
    problems += unknown_roles("rules.MX-2.child_caller", [mx2.child_caller], known)
    problems += unregistered("rules.MX-2.gamification_mcp", mx2.gamification_mcp, ids)
    for mcp_id in mx2.child_denied_mcps:
        problems += unregistered("rules.MX-2.child_denied_mcps", mcp_id, ids)

    tool_names: set[str] = set()
    alias_owner: dict[str, str] = {}
    for tool in write_tools:
        where = f"write_tools.{tool.name}"
        if tool.name in tool_names:
            problems.append(f"{where}: write tool registered twice")
        tool_names.add(tool.name)
        problems += unregistered(where, tool.mcp, ids)
        problems += unknown_roles(where + ".callers", tool.callers, known)
        for alias, target in tool.aliases.items():
            family = tool.name[:-1] if tool.name.endswith("*") else None
            if target != tool.name and not (family and target.startswith(family) and target[len(family):].isidentifier()):
                problems.append(f"{where}.aliases: alias {alias!r} names {target!r}, not this tool")
            key = fold(alias)
            if key in alias_owner and alias_owner[key] != tool.name:
                problems.append(f"{where}.aliases: alias {alias!r} overlaps an alias of {alias_owner[key]}")
            alias_owner[key] = tool.name

    duplicates(problems, "staging.terms", staging.terms)
    problems += unknown_roles("route.session_only_callers", route.session_only_callers, known)
    return problems


# ------------------------------------------------------------------------------------------------
# Compiled form: MCPs by registry name (an M-id only in the matrix rows of the file)
# ------------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class WriteTool:
    name: str  # "notify_*" for a prefix family
    mcp: str  # registry name
    callers: frozenset[str]
    requires_confirmation: bool

    @property
    def is_family(self) -> bool:
        return self.name.endswith("*")


@dataclass(frozen=True, slots=True)
class Mx1Rule:
    staging_denied_callers: frozenset[str]
    delegate_to: str
    calc_mcp: str
    calc_callers: frozenset[str]


@dataclass(frozen=True, slots=True)
class Mx2Rule:
    gamification_mcp: str
    gamification_callers: frozenset[str]
    child_caller: str
    child_denied_mcps: frozenset[str]


def compile_matrix(matrix: Mapping[str, Mapping[str, Cell]], name_of: Mapping[str, str]) -> dict[tuple[str, str], str]:
    """(role, registry name) → cell."""
    return {(role, name_of[mcp_id]): cell for role, row in matrix.items() for mcp_id, cell in row.items()}


def compile_mx1(mx1: Mx1, name_of: Mapping[str, str]) -> Mx1Rule:
    return Mx1Rule(frozenset(mx1.staging_denied_callers), mx1.delegate_to, name_of[mx1.calc_mcp], frozenset(mx1.calc_callers))


def compile_mx2(mx2: Mx2, name_of: Mapping[str, str]) -> Mx2Rule:
    return Mx2Rule(
        name_of[mx2.gamification_mcp],
        frozenset(mx2.gamification_callers),
        mx2.child_caller,
        frozenset(name_of[m] for m in mx2.child_denied_mcps),
    )


def compile_write_tools(entries: list[WriteToolEntry], name_of: Mapping[str, str]) -> dict[str, WriteTool]:
    return {t.name: WriteTool(t.name, name_of[t.mcp], frozenset(t.callers), t.requires_confirmation) for t in entries}


def staging_words(staging: StagingEntry) -> Sequence[tuple[str, object]]:
    """The red-line lexicon's "staging" group."""
    return [(fold(t), None) for t in staging.terms]


def alias_words(entries: list[WriteToolEntry]) -> Sequence[tuple[str, object]]:
    """The red-line lexicon's "write" group: each alias, payload the tool it names."""
    return [(fold(alias), target) for t in entries for alias, target in t.aliases.items()]
