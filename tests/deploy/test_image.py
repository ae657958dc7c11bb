"""The container image itself: built from the production Dockerfile and run (issue 14).

CI cannot pull from a registry, so the Dockerfile's BASE_IMAGE argument gets a bookworm minbase
made here by mmdebstrap (scripts/ci-base-image.sh, cached by the hash of its recipe) instead of
debian:bookworm-slim; nothing else differs from a production build. Podman builds it
(`--isolation=chroot`, `--format docker` so HEALTHCHECK is kept) and runs it with runc and
`--network=host`: this kernel's hybrid cgroups defeat crun and bridge networking.

One container, read-only, all capabilities dropped, a generated token passed by name, then:
`/ready` answers, `python -m app probe` passes through it, the image's own HEALTHCHECK command
succeeds run inside it, the server runs as 10001 with no writable path outside /tmp, no compiler,
no pip (nor its cache), no source tree; finally SIGTERM (`podman kill`, what `docker stop` and the
kubelet send) with N requests in flight: all answer 200 and the container exits inside
ROUTER_SHUTDOWN_TIMEOUT_SECONDS. The image's size (≤ 200 MB) and digest are printed and written to
build/image.json for CI's log.

Host networking means the container shares the host's ports, and `make test` runs two workers
(other engineers run theirs too): the server's `--host/--port` are replaced in the image's CMD by
127.0.0.1 and a free port, and the same port in the HEALTHCHECK command — the only changes to
what the image says. Container names are unique per run.

podman, runc and mmdebstrap come from Debian (scripts/ensure-system-tools.sh installs them when
CI=true); without them, or without root, this test skips — on CI (CI=true) it fails instead.
One test on purpose: under pytest-xdist a module-scoped fixture would build the image once per
worker.
"""

from __future__ import annotations

import asyncio
import json
import os
import secrets
import shutil
import subprocess
import sys
import time
import tomllib
from pathlib import Path

import pytest

from .server import HOST, IN_CI, ROOT, free_port, get
from .test_graceful_shutdown import N, finish, health_round_trip, open_in_flight, parse_response

MAX_IMAGE_BYTES = 200 * 1000 * 1000  # 200 MB as podman and docker print sizes (10^6)
RUNTIME_UID = 10001
SHUTDOWN_TIMEOUT = 5  # ROUTER_SHUTDOWN_TIMEOUT_SECONDS given to the container
HOLD = 1.5  # bodies held back after SIGTERM (< SHUTDOWN_TIMEOUT)
REPORT = ROOT / "build" / "image.json"
VERSION = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["version"]
IMAGE_NAME = "localhost/a207-router-mcp"

# Run inside the container as its own user: facts about the filesystem it sees. Devices (/dev/null
# and friends are writable by design), /proc and /sys are not storage and are skipped; of /dev's
# directories, /dev and /dev/shm are checked (--ipc=none leaves no /dev/shm). /dev/mqueue stays
# writable (mode 1777) under every runtime's default spec, Kubernetes' too: it holds POSIX message
# queues of the container's own IPC namespace, capped by the kernel, not files.
FACTS = r"""
import importlib.util, json, os, shutil, stat, sys
NAMES = {"pyproject.toml", "requirements.lock", "install-runtime.sh", "gcc", "cc", "cc1", "collect2"}
facts = {"uid": os.getuid(), "gid": os.getgid()}
with open("/proc/1/status") as f:
    facts["pid1_uid"] = [int(x) for x in next(l for l in f if l.startswith("Uid:")).split()[1:]]
writable, found = [], []
for top, dirs, files in os.walk("/", onerror=None):
    if top in ("/proc", "/sys", "/dev"):
        dirs[:] = []
        continue
    for name in dirs + files:
        path = os.path.join(top, name)
        try:
            st = os.lstat(path)
        except OSError:
            continue
        is_dir = stat.S_ISDIR(st.st_mode)
        if (is_dir and name == "pip") or (not is_dir and name in NAMES):
            found.append(path)
        if (stat.S_ISDIR(st.st_mode) or stat.S_ISREG(st.st_mode)) and os.access(path, os.W_OK):
            writable.append(path)
if os.access("/", os.W_OK):
    writable.append("/")
dev = [d for d in ("/dev", "/dev/shm") if os.path.isdir(d) and os.access(d, os.W_OK)]
def can_create(directory):
    try:
        with open(os.path.join(directory, ".probe"), "w"):
            pass
        os.unlink(os.path.join(directory, ".probe"))
        return True
    except OSError:
        return False
import app
facts.update(
    writable=sorted(writable), writable_dev=dev, found=sorted(found),
    create={d: can_create(d) for d in ("/", "/opt/venv", "/tmp", "/var/tmp", "/run")},
    tools={t: shutil.which(t) for t in ("cc", "gcc", "g++", "c++", "clang", "ld", "as", "make", "pip", "pip3")},
    pip_module=importlib.util.find_spec("pip") is not None,
    src_exists=os.path.exists("/src"),
    app=app.__file__, prefix=sys.prefix, python=sys.version.split()[0],
    home=os.path.expanduser("~"),
)
print(json.dumps(facts))
"""


# --------------------------------------------------------------------------------------------
# helpers


def need_tools() -> None:
    problems = [f"{t} not installed" for t in ("podman", "runc", "mmdebstrap") if not shutil.which(t)]
    if os.geteuid() != 0:
        problems.append("not root (the CI recipe runs podman rootful)")
    if problems:
        message = "; ".join(problems) + " (scripts/ensure-system-tools.sh installs them when CI=true)"
        if IN_CI:
            pytest.fail(message)
        pytest.skip(message)


class Podman:
    """podman with the flags this machine kind needs, and a per-run containers.conf."""

    def __init__(self, workdir: Path):
        conf = workdir / "containers.conf"
        # podman's default ulimits make runc call setrlimit, which this kernel refuses.
        conf.write_text("[containers]\ndefault_ulimits = []\n", encoding="utf-8")
        self.env = {**os.environ, "CONTAINERS_CONF": str(conf)}
        self.base = ["podman", "--cgroup-manager=cgroupfs"]

    def run(self, *args: str, timeout: float = 60, check: bool = True, **kw) -> subprocess.CompletedProcess[str]:
        result = subprocess.run([*self.base, *args], env=kw.pop("env", self.env), capture_output=True,
                                text=True, timeout=timeout, **kw)
        if check:
            assert result.returncode == 0, f"podman {' '.join(args[:3])}… failed:\n{result.stdout[-3000:]}\n{result.stderr[-3000:]}"
        return result


def build_image(podman: Podman, workdir: Path) -> tuple[str, dict[str, float]]:
    timings: dict[str, float] = {}
    started = time.monotonic()
    base = subprocess.run(["bash", str(ROOT / "scripts" / "ci-base-image.sh")], cwd=ROOT, env=podman.env,
                          capture_output=True, text=True, timeout=600)
    assert base.returncode == 0, base.stderr[-3000:]
    base_ref = base.stdout.strip().splitlines()[-1]
    timings["base_s"] = round(time.monotonic() - started, 1)

    started = time.monotonic()
    iid = workdir / "iid"
    certs = "/etc/ssl/certs"
    podman.run(
        "build", "--isolation=chroot", "--network=host", "--format=docker", "--layers",
        f"--build-arg=BASE_IMAGE={base_ref}",
        # The machine's CA bundle for pip, read-only and for the builder's RUN only (an ARG).
        f"--volume={certs}:/run/host-certs:ro",
        "--build-arg=PIP_CERT=/run/host-certs/ca-certificates.crt",
        f"--iidfile={iid}", f"--tag={IMAGE_NAME}:{VERSION}", str(ROOT),
        timeout=900,
    )
    timings["build_s"] = round(time.monotonic() - started, 1)
    return iid.read_text().strip(), timings


def container_argv(config: dict, port: int) -> list[str]:
    argv = list(config["Cmd"])
    assert argv[:4] == ["python", "-m", "app", "serve"], argv
    argv[argv.index("--port") + 1] = str(port)
    argv[argv.index("--host") + 1] = HOST
    return argv


def healthcheck_argv(info: dict, port: int) -> list[str]:
    test = info["Healthcheck"]["Test"]  # podman keeps it beside the OCI config, not in it
    assert test[0] == "CMD", test  # exec form: no shell in between
    return [w.replace("127.0.0.1:8000", f"{HOST}:{port}") for w in test[1:]]


def running(podman: Podman, name: str) -> bool:
    result = podman.run("container", "inspect", "--format", "{{.State.Running}}", name, check=False)
    return result.stdout.strip() == "true"


# --------------------------------------------------------------------------------------------


def test_image_builds_runs_read_only_and_stops_gracefully(tmp_path):
    need_tools()
    podman = Podman(tmp_path)
    image_id, timings = build_image(podman, tmp_path)

    (info,) = json.loads(podman.run("image", "inspect", image_id).stdout)
    config = info["Config"]
    size, digest = info["Size"], info["Digest"]
    report = {"image": f"{IMAGE_NAME}:{VERSION}", "id": image_id, "digest": digest, "size_bytes": size,
              "size_mb": round(size / 1e6, 1), **timings}
    REPORT.parent.mkdir(exist_ok=True)
    REPORT.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    print(f"image {report['image']}: {report['size_mb']} MB, digest {digest}, "
          f"base {timings['base_s']} s, build {timings['build_s']} s (written to {REPORT})")
    assert size <= MAX_IMAGE_BYTES, f"image is {size / 1e6:.1f} MB > {MAX_IMAGE_BYTES / 1e6:.0f} MB"
    assert config["User"] == f"{RUNTIME_UID}:{RUNTIME_UID}", config["User"]
    assert info.get("Healthcheck"), "HEALTHCHECK lost (an OCI-format build drops it)"

    port = free_port()
    token = secrets.token_urlsafe(32)
    name = f"a207-image-test-{os.getpid()}-{secrets.token_hex(4)}"
    log = tmp_path / "container.log"
    env = {**podman.env, "ROUTER_MCP_AUTH_TOKEN": token}
    run = [
        *podman.base, "--runtime=runc", "run", "--rm", f"--name={name}", "--network=host",
        # Root filesystem read-only and no tmpfs but the one /tmp (podman adds /run, /var/tmp and
        # /dev/shm by default); no capabilities, no privilege escalation.
        "--read-only", "--read-only-tmpfs=false", "--tmpfs=/tmp:rw,size=16m,mode=1777", "--ipc=none",
        "--cap-drop=ALL", "--security-opt=no-new-privileges",
        # The token by name only: its value stays off every command line.
        "--env=ROUTER_MCP_AUTH_TOKEN", f"--env=ROUTER_SHUTDOWN_TIMEOUT_SECONDS={SHUTDOWN_TIMEOUT}",
        "--env=ROUTER_REQUEST_TIMEOUT_SECONDS=120",
        image_id, *container_argv(config, port),
    ]
    with open(log, "wb") as out:
        proc = subprocess.Popen(run, env=env, stdout=out, stderr=subprocess.STDOUT)
    facts: dict[str, float] = {}
    try:
        deadline = time.monotonic() + 60
        while True:
            assert proc.poll() is None, f"container exited with {proc.returncode}:\n{log.read_text(errors='replace')[-3000:]}"
            try:
                status, body = get(f"http://{HOST}:{port}/ready", timeout=1)
                if status == 200:
                    break
            except OSError:
                pass
            assert time.monotonic() < deadline, f"/ready not 200 within 60 s:\n{log.read_text(errors='replace')[-3000:]}"
            time.sleep(0.1)
        ready = json.loads(body)
        assert ready["status"] == "ready" and ready["policy_version"], ready

        probe = subprocess.run(
            [sys.executable, "-m", "app", "probe", f"http://{HOST}:{port}/mcp"], cwd=tmp_path,
            env={**os.environ, "ROUTER_MCP_AUTH_TOKEN": token, "PYTHONPATH": str(ROOT)},
            capture_output=True, text=True, timeout=60,
        )
        lines = probe.stdout.splitlines()
        assert probe.returncode == 0, probe.stdout + probe.stderr
        assert [line.split(":")[0] for line in lines] == [
            "PASS initialize", "PASS notifications/initialized", "PASS tools/list", "PASS tools/call"], lines

        health = podman.run("exec", name, *healthcheck_argv(info, port), check=False)
        assert health.returncode == 0, health.stderr
        # Negative control: the same command against a port where nothing listens fails.
        down = podman.run("exec", name, *healthcheck_argv(info, free_port()), check=False)
        assert down.returncode != 0

        inside = json.loads(podman.run("exec", name, "python", "-c", FACTS).stdout)
        expectations = [
            ("exec-runs-as-10001", (inside["uid"], inside["gid"]), (RUNTIME_UID, RUNTIME_UID)),
            ("server-runs-as-10001", set(inside["pid1_uid"]), {RUNTIME_UID}),
            ("nothing-writable-but-tmp", [p for p in inside["writable"] if not p.startswith("/tmp")], []),
            ("no-writable-dev-dirs", inside["writable_dev"], []),
            ("tmp-writable-rest-not", inside["create"],
             {"/": False, "/opt/venv": False, "/tmp": True, "/var/tmp": False, "/run": False}),
            ("no-compiler-no-pip", {t: p for t, p in inside["tools"].items() if p}, {}),
            ("no-pip-module", inside["pip_module"], False),
            ("no-source-tree-or-pip-cache", inside["found"], []),
            ("no-src-dir", inside["src_exists"], False),
            ("app-from-the-venv", inside["app"].startswith(inside["prefix"] + "/lib/"), True),
            ("debian-python-3.11", inside["python"].rsplit(".", 1)[0], "3.11"),
        ]
        wrong = {rid: (got, want) for rid, got, want in expectations if got != want}
        assert not wrong, f"inside the container (got, wanted): {wrong}"

        # ---- SIGTERM with N requests in flight ----
        async def scenario() -> list[bytes]:
            connections = await open_in_flight(port, token)
            await health_round_trip(port)
            sent = time.monotonic()
            podman.run("kill", "--signal=TERM", name)
            await asyncio.sleep(max(0.0, HOLD - (time.monotonic() - sent)))
            facts["running_after_hold"] = float(running(podman, name))
            answers = await asyncio.wait_for(asyncio.gather(*(finish(*c) for c in connections)), 15)
            facts["answered_after"] = round(time.monotonic() - sent, 2)
            while proc.poll() is None and time.monotonic() < sent + SHUTDOWN_TIMEOUT + 5:
                await asyncio.sleep(0.02)
            facts["exited_after"] = round(time.monotonic() - sent, 2)
            return answers

        answers = asyncio.run(scenario())
    finally:
        if proc.poll() is None:
            podman.run("rm", "--force", "--time=0", name, check=False)
            proc.wait(30)

    text = log.read_text(errors="replace")
    assert facts["running_after_hold"] == 1.0, "the container stopped with requests in flight"
    for i, raw in enumerate(answers):
        status, headers, body = parse_response(raw)
        assert status == 200, raw[:300]
        assert headers["x-request-id"] == f"drain-{100 + i}"
        assert json.loads(body)["result"]["isError"] is False
    # uvicorn re-raises SIGTERM after a clean drain; as PID 1 with no handler left the kernel
    # ignores it and the process returns 0 instead of dying by it (143): both are a clean stop.
    assert proc.returncode in (0, 143), f"exit {proc.returncode}:\n{text[-3000:]}"
    assert facts["exited_after"] <= SHUTDOWN_TIMEOUT, facts
    lines = [json.loads(line) for line in text.splitlines() if line.startswith("{")]
    assert lines[0]["event"] == "startup" and lines[-1]["event"] == "shutdown", text[-3000:]
    drained = [line for line in lines if str(line.get("request_id", "")).startswith("drain-")]
    assert len(drained) == N and {line["status"] for line in drained} == {200}, text[-3000:]
    assert token not in text
    print(f"image shutdown facts: {facts}, exit {proc.returncode}")
