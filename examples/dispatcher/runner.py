"""Running the graph: a checkpointer, a thread per session, and turns that may stop at an interrupt.

The checkpointer is `AsyncSqliteSaver` (langgraph-checkpoint-sqlite) on a file: an approval that is
pending when the graph process stops can be resumed by a new process that opens the same file with
the same thread id. `InMemorySaver` (`db=None`) keeps nothing across processes. A production
deployment with several dispatcher replicas needs a shared, durable store instead (the
langgraph-checkpoint-postgres saver on a managed PostgreSQL, with backups and a retention policy for
threads, since checkpoints hold the conversation).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver
from langgraph.types import Command

from .clients import Tools
from .graph import Classifier, build, turn_input


@dataclass
class Step:
    """Where a turn stopped: at an interrupt (`pending` is its payload) or at the end (`state`)."""

    pending: dict[str, Any] | None
    state: dict[str, Any]
    turn_path: list[str]  # the nodes of this turn only (`state["path"]` is the whole thread's)


class Dispatcher:
    def __init__(self, graph: Any, caller: str, patient_id: str | None, thread_id: str) -> None:
        self.graph = graph
        self.caller = caller
        self.patient_id = patient_id
        self.config = {"configurable": {"thread_id": thread_id}}
        self.turn_start = 0

    async def say(self, text: str) -> Step:
        snapshot = await self.graph.aget_state(self.config)
        self.turn_start = len(snapshot.values.get("path", []))
        first = {"caller": self.caller, "patient_id": self.patient_id, **turn_input(text)}
        return await self._run(first)

    async def reply(self, value: str) -> Step:
        return await self._run(Command(resume=value))

    async def pending(self) -> dict[str, Any] | None:
        """The interrupt this thread waits at, as stored by the checkpointer (None when none)."""
        snapshot = await self.graph.aget_state(self.config)
        for task in snapshot.tasks:
            for item in task.interrupts:
                value: dict[str, Any] = item.value
                return value
        return None

    async def _run(self, payload: Any) -> Step:
        result = await self.graph.ainvoke(payload, self.config)
        interrupts = result.get("__interrupt__") or []
        state = {k: v for k, v in result.items() if k != "__interrupt__"}
        return Step(interrupts[0].value if interrupts else None, state, state.get("path", [])[self.turn_start:])


@asynccontextmanager
async def open_graph(tools: Tools, classifier: Classifier, db: str | None, reference_date: str | None = None) -> AsyncIterator[Any]:
    """The compiled graph with a SQLite checkpointer on `db`, or in memory when `db` is None."""
    graph = build(tools, classifier, reference_date=reference_date)
    if db is None:
        yield graph.compile(checkpointer=InMemorySaver())
        return
    async with AsyncSqliteSaver.from_conn_string(db) as saver:
        yield graph.compile(checkpointer=saver)
