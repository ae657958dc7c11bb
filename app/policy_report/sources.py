"""Where a policy comes from: a file, or ``REV:PATH`` read from git (``main:app/router/policy.toml``).

Either way the bytes are validated exactly as the service validates its policy at start-up
(``parse_policy``: the models, then every cross-check), so a report is never made from a file the
service would refuse to serve.
"""

from __future__ import annotations

import subprocess
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from app.router import Policy, PolicyError
from app.router.policy import PolicyFile, parse_policy

GIT_TIMEOUT_S = 30


class SourceError(ValueError):
    """A policy that cannot be read or must not be served; the message says which and why."""


@dataclass(frozen=True)
class PolicySource:
    label: str  # as the user named it: a path or REV:PATH
    policy: Policy  # compiled once, shared by every decision of the run
    sections: dict[str, Any]  # the validated file as plain data, defaults filled in, for the data diff

    @property
    def policy_version(self) -> str:
        return self.policy.policy_version


def read_source(name: str, cwd: Path | None = None) -> PolicySource:
    data = _read_bytes(name, cwd or Path.cwd())
    try:
        policy = parse_policy(data)
    except PolicyError as exc:
        raise SourceError(f"{name}: {exc}") from None
    # parse_policy accepted these bytes, so they are UTF-8 TOML that validates.
    spec = PolicyFile.model_validate(tomllib.loads(data.decode("utf-8")))
    return PolicySource(name, policy, spec.model_dump(mode="json", by_alias=True))


def _read_bytes(name: str, cwd: Path) -> bytes:
    path = cwd / name
    if path.is_file():
        try:
            return path.read_bytes()
        except OSError as exc:
            raise SourceError(f"{name}: cannot read: {exc.strerror or exc.__class__.__name__}") from None
    revision, colon, inside = name.partition(":")
    if not colon or not revision or not inside or revision.startswith("-"):
        raise SourceError(f"{name}: no such file, and not a git REV:PATH such as main:app/router/policy.toml")
    try:
        shown = subprocess.run(
            ["git", "show", f"{revision}:{inside}"], cwd=cwd, capture_output=True, timeout=GIT_TIMEOUT_S, check=False
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise SourceError(f"{name}: git could not run: {exc.__class__.__name__}") from None
    if shown.returncode != 0:
        reason = shown.stderr.decode("utf-8", "replace").strip().splitlines()
        raise SourceError(f"{name}: git show failed: {reason[-1] if reason else 'exit ' + str(shown.returncode)}")
    return shown.stdout
