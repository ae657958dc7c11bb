"""Policy rollout without a restart (SPEC §5.8): ``ROUTER_POLICY_FILE`` watched by content digest.

Every ``interval`` seconds a worker thread reads the file (through any symlink: a Kubernetes
ConfigMap update swaps one; an editor writes a temporary file and renames it over the path) and
hashes it. A digest that is neither the one in service nor the last one tried is read once more
after a short pause — a file still being written in place reads differently and waits for the next
tick, so a half-written file is not even tried — then validated and compiled in that thread
exactly as at start-up (``ServiceSettings.router_from``) into a new ``McpServer``. Back on the
event loop the endpoint's server reference is replaced: one assignment, so a request uses the
server it took when it started, old or new, never a mix.

A refused file leaves the old policy serving and raises the flag ``/ready`` reports as
``policy_reload_error`` until a good file (or the serving one again) is in place. Each attempt —
one per distinct file state, not one per tick — gives one ``policy_reload`` log line with the
versions and, when refused, the error's category: never a path, a problem text or file content.
"""

from __future__ import annotations

import asyncio
import hashlib
import time
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Callable

from app.protocol.server import McpServer
from app.router import PolicyError, Router

if TYPE_CHECKING:
    from .endpoint import McpEndpoint
    from .observe import Observer

# Why a file was refused: the log line's and nothing else's vocabulary.
ERROR_CATEGORIES = ("missing", "unreadable", "empty", "not_utf8", "syntax", "invalid", "scope", "internal")
OUTCOMES = ("applied", "rejected")


@dataclass(frozen=True)
class ReloadSetup:
    path: str
    interval: float
    build: Callable[[bytes], Router]  # ServiceSettings.router_from: raises PolicyError or SettingsError

    @property
    def settle(self) -> float:
        """The pause between the two reads of a changed file."""
        return min(0.25, self.interval / 4)


@dataclass(frozen=True, slots=True)
class _Attempt:
    key: str  # the state tried: the file's digest, or "error:<category>" when it could not be read
    server: McpServer | None  # the server to swap in (the serving one when the file is back to it)
    error: str | None = None


def _digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()[:12]  # what Policy.digest holds for the same bytes


def _category(data: bytes) -> str:
    """The category of a refused file's problem, found without keeping any of its text."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return "not_utf8"
    try:
        tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        return "syntax"
    return "invalid"


class PolicyReloader:
    def __init__(self, setup: ReloadSetup, endpoint: "McpEndpoint", observer: "Observer"):
        self.setup = setup
        self.endpoint = endpoint
        self.observer = observer
        self.error = False  # the last attempt was refused and nothing good has been applied since
        self._tried: str | None = None  # the last state attempted: one log line per state, not per tick

    async def run(self) -> None:
        while True:
            await asyncio.sleep(self.setup.interval)
            try:
                await self.check()
            except Exception:  # a bug must not end the watching; the next tick tries again
                pass

    async def check(self) -> str | None:
        """One tick: 'applied' or 'rejected' when a new file state was attempted, else None."""
        attempt = await asyncio.to_thread(self._attempt, self.endpoint.server)
        return None if attempt is None else self._settle(attempt)

    # -- in the worker thread ----------------------------------------------------------------

    def _read(self) -> tuple[bytes | None, str]:
        try:
            data = Path(self.setup.path).read_bytes()
        except FileNotFoundError:  # also a dangling symlink
            return None, "error:missing"
        except OSError:
            return None, "error:unreadable"
        return data, _digest(data)

    def _attempt(self, serving: McpServer) -> _Attempt | None:
        data, key = self._read()
        if key == serving.router.policy.digest:
            # The file is the policy in service: nothing to do, unless a refused file is being
            # replaced by it (the flag clears).
            return _Attempt(key, serving) if self.error else None
        if key == self._tried:
            return None
        if data is None:
            return _Attempt(key, None, key.split(":", 1)[1])
        time.sleep(self.setup.settle)
        again, second = self._read()
        if second != key:
            return None  # still being written (or replaced again): the next tick sees where it settled
        if not data.strip():
            return _Attempt(key, None, "empty")
        try:
            router = self.setup.build(data)
        except PolicyError:
            return _Attempt(key, None, _category(data))
        except ValueError:  # SettingsError: the scope's callers are not roles of this policy
            return _Attempt(key, None, "scope")
        except Exception:  # noqa: BLE001 - a bug in compiling: refused like a bad file, old policy serves
            return _Attempt(key, None, "internal")
        return _Attempt(key, McpServer(router, serving.tools))

    # -- on the event loop -------------------------------------------------------------------

    def _settle(self, attempt: _Attempt) -> str:
        self._tried = attempt.key
        previous = self.endpoint.server.router.policy_version
        metrics = self.observer.metrics
        if attempt.server is None:
            self.error = True
            self.observer.event("policy_reload", outcome="rejected", policy_version=previous, error=attempt.error)
            if metrics is not None:
                metrics.policy_reloads.labels("rejected").inc()
            return "rejected"
        self.endpoint.server = attempt.server  # the swap: one reference, taken once per request
        self.error = False
        version = attempt.server.router.policy_version
        self.observer.event("policy_reload", outcome="applied", policy_version=version, previous_policy_version=previous)
        if metrics is not None:
            metrics.policy_reloads.labels("applied").inc()
            metrics.serving(version)
        return "applied"
