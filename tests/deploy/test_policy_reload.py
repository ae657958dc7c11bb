"""Policy reload in the real process (SPEC §5.8), the way Kubernetes publishes a ConfigMap.

The kubelet mounts a ConfigMap as ``<dir>/..data -> ..<timestamp>/`` with ``<dir>/policy.toml ->
..data/policy.toml`` and publishes an update by writing a new timestamped directory and renaming a
new ``..data`` symlink over the old one. The server watches ``<dir>/policy.toml`` every 0.2 s while
4 clients call route_request without pause; the test publishes two files in turn, 20 times,
waiting each time until /ready serves the new version. Every request must succeed and carry one of
the two versions; the metrics count 20 applied reloads, the policy in service and the decisions by
category; the log has one ``policy_reload`` line per swap with no file content.
"""

from __future__ import annotations

import json
import os
import threading
import time
from collections import Counter
from pathlib import Path

from prometheus_client.parser import text_string_to_metric_families

from app.router.policy import default_policy_bytes, parse_policy
from tests.privacy_plugin import LogAudit, harvest_policy_file, record_lines, remember

from .server import HOST, free_port, get, post, start_server, tool_call

SHIPPED = default_policy_bytes()
SWAPS = 20
CLIENTS = 4
INTERVAL = 0.2


def variant(version: str) -> bytes:
    return SHIPPED.replace(b'version = "2026.11.30"', f'version = "{version}"'.encode(), 1)


class ConfigMapVolume:
    """A directory laid out and updated as the kubelet does it (atomic ..data symlink swap)."""

    def __init__(self, root: Path, name: str = "policy.toml"):
        self.root = root
        self.name = name
        self.generation = 0
        root.mkdir(parents=True, exist_ok=True)

    @property
    def path(self) -> Path:
        return self.root / self.name

    def publish(self, data: bytes) -> None:
        self.generation += 1
        stamp = f"..2026_12_02_{self.generation:06d}"
        (self.root / stamp).mkdir()
        (self.root / stamp / self.name).write_bytes(data)
        temporary = self.root / "..data_tmp"
        os.symlink(stamp, temporary)
        os.replace(temporary, self.root / "..data")  # the atomic swap
        if not self.path.is_symlink():
            os.symlink(f"..data/{self.name}", self.path)


def ready(server) -> dict:
    status, body = get(f"{server.base}/ready")
    assert status == 200
    return json.loads(body)


def scrape(port: int) -> list:
    status, body = get(f"http://{HOST}:{port}/metrics")
    assert status == 200
    return [s for family in text_string_to_metric_families(body.decode()) for s in family.samples]


ROUTE_ARGS = [
    {"text": "孩子抽搐了", "caller": "parent_assistant", "patient_id": "P0001", "reference_date": "2026-11-30"},
    {"text": "香蕉的钾含量高吗", "caller": "parent_assistant", "patient_id": "P0001", "reference_date": "2026-11-30"},
    {"text": "帮我算一下孩子的eGFR，看看是CKD几期", "caller": "nutritionist", "patient_id": "P0002", "reference_date": "2026-11-30"},
]


def test_four_clients_through_twenty_configmap_swaps(tmp_path):
    files = {"a": variant("rollout-a"), "b": variant("rollout-b")}
    versions = {key: parse_policy(data).policy_version for key, data in files.items()}
    for data in files.values():
        harvest_policy_file(data)
    volume = ConfigMapVolume(tmp_path / "config")
    volume.publish(files["a"])
    metrics_port = free_port()
    server = start_server(tmp_path / "run", metrics_port=metrics_port, extra_env={
        "ROUTER_POLICY_FILE": str(volume.path), "ROUTER_POLICY_RELOAD_SECONDS": str(INTERVAL)})
    remember(server.token)
    seen: Counter = Counter()
    failures: list[str] = []
    stop = threading.Event()

    def client(number: int) -> None:
        rid = 0
        while not stop.is_set():
            rid += 1
            arguments = ROUTE_ARGS[(number + rid) % len(ROUTE_ARGS)]
            try:
                status, _, body = post(server.mcp, tool_call(rid, "route_request", arguments), server.token)
                result = json.loads(body)["result"] if status == 200 else None
            except Exception as exc:  # noqa: BLE001 - counted as a failure, reported below
                failures.append(f"client {number}: {type(exc).__name__}")
                continue
            if result is None or result.get("isError"):
                failures.append(f"client {number}: HTTP {status}")
                continue
            seen[result["structuredContent"]["policy_version"]] += 1

    threads = [threading.Thread(target=client, args=(n,), daemon=True) for n in range(CLIENTS)]
    try:
        assert ready(server)["policy_version"] == versions["a"]
        for thread in threads:
            thread.start()
        swap_seconds = []
        for swap in range(SWAPS):
            key = "b" if swap % 2 == 0 else "a"
            started = time.monotonic()
            volume.publish(files[key])
            deadline = started + 15
            while ready(server)["policy_version"] != versions[key]:
                assert time.monotonic() < deadline, f"swap {swap + 1} not served within 15 s"
                time.sleep(0.02)
            swap_seconds.append(time.monotonic() - started)
        stop.set()
        for thread in threads:
            thread.join(20)
        samples = scrape(metrics_port)
        final = ready(server)
    finally:
        stop.set()
        server.stop()
    lines = server.log_text().splitlines()
    record_lines(lines)

    assert failures == []
    assert set(seen) <= set(versions.values()), seen
    assert set(seen) == set(versions.values()) and sum(seen.values()) > SWAPS * CLIENTS
    assert final == {"status": "ready", "policy_version": versions["b" if SWAPS % 2 else "a"]}

    reloads = [json.loads(line) for line in lines if '"policy_reload"' in line]
    assert [r["outcome"] for r in reloads] == ["applied"] * SWAPS
    assert all(r["policy_version"] in versions.values() and r["previous_policy_version"] in versions.values()
               for r in reloads)
    assert LogAudit().problems(lines) == []
    assert str(volume.root) not in server.log_text()

    def value(name: str, **labels: str) -> float:
        return sum(s.value for s in samples if s.name == name and all(s.labels.get(k) == v for k, v in labels.items()))

    assert value("a207_router_policy_reloads_total", outcome="applied") == SWAPS
    assert value("a207_router_policy_reloads_total", outcome="rejected") == 0
    info = [s for s in samples if s.name == "a207_router_policy_info"]
    assert [(s.labels, s.value) for s in info] == [({"policy_version": final["policy_version"]}, 1.0)]
    assert value("a207_router_decisions_total", tool="route_request") == sum(seen.values())
    assert value("a207_router_decisions_total", tool="route_request", status="halt", reason_code="p0_emergency") > 0
    assert value("a207_router_decisions_total", tool="route_request", status="denied", reason_code="mx1_staging_delegate") > 0
    print(f"{SWAPS} swaps, {sum(seen.values())} requests from {CLIENTS} clients, 0 failed; "
          f"publish→served median {sorted(swap_seconds)[SWAPS // 2]:.2f} s, max {max(swap_seconds):.2f} s")
