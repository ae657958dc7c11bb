"""Policy rollout without a restart (SPEC §5.8), in process: the app with its reloader on a real
event loop, the policy file in a temporary directory.

A valid file is swapped in within two intervals and every answer (results, ``/ready``, initialize
and server/discover instructions, the metrics) carries its version; each kind of broken file is
refused with the old policy serving and ``policy_reload_error`` set until a good file comes; a
request whose body is still arriving across a swap finishes on the policy it started with; one
``policy_reload`` line per attempt, with categories only and none of the file's content.
"""

from __future__ import annotations

import asyncio
import json
import os
import secrets
import time
from pathlib import Path

import pytest
from prometheus_client.parser import text_string_to_metric_families

from app.http.app import create_app
from app.http.observe import Metrics
from app.http.reload import ERROR_CATEGORIES, ReloadSetup
from app.http.settings import ServiceSettings, load_settings
from app.router.policy import default_policy_bytes
from tests.http.asgi import Lifespan, request
from tests.privacy_plugin import LogAudit, captured, remember

TOKEN = secrets.token_urlsafe(32).encode()
HEADERS = [(b"authorization", b"Bearer " + TOKEN), (b"content-type", b"application/json")]
SHIPPED = default_policy_bytes()
# Canaries in the broken files: none of them may reach a log line.
CANARY_WORD = "CanaryPolicyWord7e21"
CANARY_TEXT = "金丝雀策略词条"


def variant(version: str) -> bytes:
    """The shipped policy under another version string: a valid file with its own digest."""
    data = SHIPPED.replace(b'version = "2026.11.30"', f'version = "{version}"'.encode(), 1)
    assert data != SHIPPED
    return data


def with_auditor(data: bytes) -> bytes:
    """The same policy with one more role, ``auditor``, whose matrix row is risk_warning's."""
    row = next(line for line in data.decode().splitlines() if line.startswith("risk_warning     ="))
    return (data.replace(b'  "risk_warning",\n', b'  "risk_warning",\n  "auditor",\n', 1)
            .replace(row.encode(), (row + "\n" + row.replace("risk_warning", "auditor     ")).encode(), 1))


GOOD_A = variant("rollout-a")
GOOD_B = variant("rollout-b")
# A list entry of the canary's inside an intent table that is then broken by kind.
BROKEN = {
    "syntax": GOOD_B.replace(b"roles = [", f'roles = [ "{CANARY_WORD}" "{CANARY_TEXT}"'.encode(), 1),
    "invalid": GOOD_B.replace(b'  "dispatcher",\n', f'  "dispatcher",\n  "{CANARY_WORD}",\n  "{CANARY_WORD}",\n'.encode(), 1),
    "empty": b"",
    # cut at a line's end, so the half holds whole characters: a cut inside one is "not_utf8" instead
    "half-written": GOOD_B[: GOOD_B.rindex(b"\n", 0, len(GOOD_B) // 2) + 1] + f'# {CANARY_TEXT}\nroles = ["{CANARY_WORD}'.encode(),
    "not_utf8": GOOD_B.replace(b"roles = [", b'roles = [ "\xff\xfe' + CANARY_WORD.encode() + b'", ', 1),
}
EXPECTED_CATEGORY = {"syntax": "syntax", "invalid": "invalid", "empty": "empty", "half-written": "syntax",
                     "not_utf8": "not_utf8", "missing": "missing", "scope": "scope"}


def version_of(data: bytes) -> str:
    """What the router reports for these bytes (the file's version + 12 hex of its sha256)."""
    from app.router.policy import parse_policy

    return parse_policy(data).policy_version


def publish(path: Path, data: bytes) -> None:
    """As an editor or a deploy tool does: a temporary file renamed over the path."""
    temporary = path.with_name(f".{path.name}.{secrets.token_hex(4)}")
    temporary.write_bytes(data)
    os.replace(temporary, path)


def settings_for(path: Path, interval: float, **extra) -> ServiceSettings:
    return load_settings(ServiceSettings, _env_file=None, mcp_auth_token=TOKEN.decode(), policy_file=str(path),
                         policy_reload_seconds=interval, **extra)


def make(path: Path, interval: float, **extra):
    settings = settings_for(path, interval, **extra)
    metrics = Metrics()
    app = create_app(settings.router(), [TOKEN], metrics=metrics,
                     reload=ReloadSetup(str(path), interval, settings.router_from))
    return app, metrics


def rpc(method: str, params: dict | None = None, rid: int = 1) -> bytes:
    message = {"jsonrpc": "2.0", "id": rid, "method": method}
    if params is not None:
        message["params"] = params
    return json.dumps(message, ensure_ascii=False).encode()


ROUTE = rpc("tools/call", {"name": "route_request", "arguments": {
    "text": "孩子抽搐了", "caller": "parent_assistant", "patient_id": "P0001", "reference_date": "2026-11-30"}})


async def result_version(app, body: bytes = ROUTE, **options) -> str:
    response = await request(app, headers=HEADERS, body=body, **options)
    assert response.status == 200, response.body[:200]
    result = response.json()["result"]
    assert result["isError"] is False
    return result["structuredContent"]["policy_version"]


async def ready(app) -> dict:
    response = await request(app, "GET", "/ready")
    assert response.status == 200
    return response.json()


async def wait_until(predicate, seconds: float):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        value = await predicate()
        if value:
            return value
        await asyncio.sleep(0.02)
    return None


def reload_lines(lines: list[str]) -> list[dict]:
    return [json.loads(line) for line in lines if '"policy_reload"' in line]


def scrape(metrics: Metrics) -> dict:
    from prometheus_client import generate_latest

    text = generate_latest(metrics.registry).decode()
    found: dict = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            found[(sample.name, tuple(sorted(sample.labels.items())))] = sample.value
    return found


# ---------------------------------------------------------------------------------------------


def test_a_valid_file_is_swapped_in_within_two_intervals(tmp_path):
    # Detection waits at most one interval, then the second read (0.25 s) and the compile (0.3 s on a
    # quiet core, 0.6 s measured under load): 2 s leaves the second interval as the margin.
    interval = 2.0
    path = tmp_path / "policy.toml"
    path.write_bytes(GOOD_A)
    app, metrics = make(path, interval)
    a, b = version_of(GOOD_A), version_of(GOOD_B)

    async def scenario():
        async with Lifespan(app):
            assert (await ready(app)) == {"status": "ready", "policy_version": a}
            assert await result_version(app) == a
            before = len(captured())
            publish(path, GOOD_B)
            published = time.monotonic()
            seen = await wait_until(lambda: _ready_is(app, b), 2 * interval)
            elapsed = time.monotonic() - published
            assert seen, f"the new policy was not served within two intervals ({2 * interval} s)"
            assert await result_version(app) == b
            init = (await request(app, headers=HEADERS, body=rpc("initialize", {}))).json()["result"]
            discover = (await request(app, headers=HEADERS, body=rpc("server/discover", {}))).json()["result"]
            await asyncio.sleep(interval * 1.5)  # more ticks on the same file: no further attempt
            return elapsed, init, discover, captured()[before:]

    elapsed, init, discover, lines = asyncio.run(scenario())
    assert elapsed < 2 * interval
    assert b in init["instructions"] and a not in init["instructions"]
    assert b in discover["instructions"] and discover["supportedVersions"] == ["2025-06-18"]
    assert reload_lines(lines) == [{"event": "policy_reload", "outcome": "applied", "policy_version": b,
                                    "previous_policy_version": a}]
    samples = scrape(metrics)
    assert samples[("a207_router_policy_reloads_total", (("outcome", "applied"),))] == 1
    assert samples[("a207_router_policy_info", (("policy_version", b),))] == 1
    assert ("a207_router_policy_info", (("policy_version", a),)) not in samples  # the old series is gone


async def _ready_is(app, version: str) -> bool:
    return (await ready(app)).get("policy_version") == version


@pytest.mark.parametrize("kind", [*BROKEN, "missing", "scope"])
def test_a_broken_file_is_refused_and_the_old_policy_serves_on(tmp_path, kind):
    interval = 0.3
    path = tmp_path / "policy.toml"
    first, good, extra = GOOD_A, GOOD_B, {}
    if kind == "scope":  # a valid file, but without a role the operator's caller allow-list names
        first, good = with_auditor(GOOD_A), with_auditor(GOOD_B)
        extra = {"mcp_scope_mode": "caller_allowlist", "mcp_allowed_callers": "auditor,doctor_assistant"}
    path.write_bytes(first)
    app, metrics = make(path, interval, **extra)
    a, b = version_of(first), version_of(good)
    broken = GOOD_B if kind == "scope" else BROKEN.get(kind)
    if broken is not None:
        remember(broken.decode("utf-8", "replace"), CANARY_WORD, CANARY_TEXT)

    async def scenario():
        async with Lifespan(app):
            before = len(captured())
            if kind == "missing":
                path.unlink()
            else:
                publish(path, broken)
            flagged = await wait_until(lambda: _flagged(app), 4 * interval + 2)
            assert flagged == {"status": "ready", "policy_version": a, "policy_reload_error": True}
            assert await result_version(app) == a  # the old policy serves on
            await asyncio.sleep(interval * 3)  # the same broken state: no second attempt, still flagged
            assert (await ready(app)).get("policy_reload_error") is True
            publish(path, good)
            cleared = await wait_until(lambda: _ready_is(app, b), 4 * interval + 2)
            assert cleared and "policy_reload_error" not in await ready(app)
            assert await result_version(app) == b
            return captured()[before:]

    lines = asyncio.run(scenario())
    category = EXPECTED_CATEGORY[kind]
    assert category in ERROR_CATEGORIES
    assert reload_lines(lines) == [
        {"event": "policy_reload", "outcome": "rejected", "policy_version": a, "error": category},
        {"event": "policy_reload", "outcome": "applied", "policy_version": b, "previous_policy_version": a},
    ]
    for line in lines:
        assert CANARY_WORD not in line and CANARY_TEXT not in line and str(tmp_path) not in line
    assert LogAudit().problems(lines) == []
    samples = scrape(metrics)
    assert samples[("a207_router_policy_reloads_total", (("outcome", "rejected"),))] == 1
    assert samples[("a207_router_policy_reloads_total", (("outcome", "applied"),))] == 1


async def _flagged(app) -> dict | None:
    answer = await ready(app)
    return answer if answer.get("policy_reload_error") else None


def test_the_flag_clears_when_the_serving_file_comes_back(tmp_path):
    """An operator who undoes a bad publish (the old file again) clears the flag without a swap."""
    interval = 0.3
    path = tmp_path / "policy.toml"
    path.write_bytes(GOOD_A)
    app, _ = make(path, interval)
    a = version_of(GOOD_A)

    async def scenario():
        async with Lifespan(app):
            server = app.mcp_server
            publish(path, BROKEN["syntax"])
            assert await wait_until(lambda: _flagged(app), 4 * interval + 2)
            publish(path, GOOD_A)
            assert await wait_until(lambda: _unflagged(app), 4 * interval + 2)
            assert app.mcp_server is server  # nothing was rebuilt
            return await ready(app)

    assert asyncio.run(scenario()) == {"status": "ready", "policy_version": a}


async def _unflagged(app) -> bool:
    return "policy_reload_error" not in await ready(app)


def test_a_file_written_in_place_slowly_is_never_tried_half_written(tmp_path):
    """A writer that truncates the file and writes it in pieces (no rename): the two reads of a
    changed file differ while it grows, so nothing is tried until it is complete."""
    interval = 1.0
    path = tmp_path / "policy.toml"
    path.write_bytes(GOOD_A)
    app, _ = make(path, interval)
    b = version_of(GOOD_B)

    async def scenario():
        async with Lifespan(app):
            before = len(captured())
            pieces = 30
            size = len(GOOD_B) // pieces + 1
            with open(path, "wb") as out:
                for i in range(pieces):
                    out.write(GOOD_B[i * size:(i + 1) * size])
                    out.flush()
                    await asyncio.sleep(0.05)  # 1.5 s of writing: at least one tick lands mid-write
            assert await wait_until(lambda: _ready_is(app, b), 2 * interval + 1)
            return captured()[before:]

    lines = asyncio.run(scenario())
    assert [line["outcome"] for line in reload_lines(lines)] == ["applied"]


def test_a_request_in_flight_finishes_on_the_policy_it_started_with(tmp_path):
    """The body of a request is still arriving while a swap happens: its result carries the old
    version; a request that starts after the swap carries the new one."""
    path = tmp_path / "policy.toml"
    path.write_bytes(GOOD_A)
    app, _ = make(path, 3600)  # the timer never fires here: the test drives the check itself
    a, b = version_of(GOOD_A), version_of(GOOD_B)
    half = len(ROUTE) // 2

    async def scenario():
        async with Lifespan(app):
            held = asyncio.create_task(result_version(app, body=[ROUTE[:half], ROUTE[half:]], delay=6.0))
            await asyncio.sleep(0.2)  # the held request has started and read its first chunk
            publish(path, GOOD_B)
            outcome = await app.reloader.check()
            swapped_before_held_finished = not held.done()
            after = await result_version(app)
            return outcome, swapped_before_held_finished, await held, after

    outcome, in_flight, held, after = asyncio.run(scenario())
    assert outcome == "applied" and in_flight
    assert (held, after) == (a, b)


def test_reload_needs_a_policy_file_and_a_sane_interval():
    from app.http.settings import SettingsError

    with pytest.raises(SettingsError, match="ROUTER_POLICY_RELOAD_SECONDS: needs ROUTER_POLICY_FILE"):
        load_settings(ServiceSettings, _env_file=None, mcp_auth_token=TOKEN.decode(), policy_reload_seconds=30)
    with pytest.raises(SettingsError, match="ROUTER_POLICY_RELOAD_SECONDS: must be 0"):
        load_settings(ServiceSettings, _env_file=None, mcp_auth_token=TOKEN.decode(), policy_file="x.toml",
                      policy_reload_seconds=0.01)
    assert load_settings(ServiceSettings, _env_file=None, mcp_auth_token=TOKEN.decode()).policy_reload_seconds == 0
