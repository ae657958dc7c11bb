"""Small subprocess helpers for the dynamic deployment tests: free ports, start the real server,
wait for /ready, stop it. Everything binds 127.0.0.1 and every wait is bounded.

Kept local on purpose (tests/http and tests/interop have their own): these tests exercise the
process as an operator runs it, `python -m app serve`, with nothing shared in-process.
"""

from __future__ import annotations

import json
import os
import secrets
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
IN_CI = os.environ.get("CI", "").lower() in {"1", "true", "yes"}
HOST = "127.0.0.1"


def free_port() -> int:
    """A port that was free a moment ago (bind to 0, read it back, release it)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((HOST, 0))
        return sock.getsockname()[1]


def new_token() -> str:
    return secrets.token_urlsafe(32)


def server_env(token: str, **extra: str) -> dict[str, str]:
    """The caller's environment without any ROUTER_* / PYTHONPATH leaking in, plus `extra`."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("ROUTER_") and k != "PYTHONPATH"}
    env["PYTHONUNBUFFERED"] = "1"
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    env["ROUTER_MCP_AUTH_TOKEN"] = token
    env.update(extra)
    return env


@dataclass
class Server:
    proc: subprocess.Popen
    port: int
    token: str
    log: Path
    metrics_port: int | None = None
    exit_seconds: float | None = field(default=None)

    @property
    def base(self) -> str:
        return f"http://{HOST}:{self.port}"

    @property
    def mcp(self) -> str:
        return f"{self.base}/mcp"

    def log_text(self) -> str:
        try:
            return self.log.read_text(errors="replace")
        except FileNotFoundError:
            return ""

    def log_lines(self) -> list[dict]:
        lines = []
        for raw in self.log_text().splitlines():
            try:
                lines.append(json.loads(raw))
            except ValueError:
                continue
        return lines

    def stop(self, timeout: float = 15.0) -> int:
        """SIGTERM, wait (bounded), SIGKILL as a last resort. Returns the Popen returncode."""
        if self.proc.poll() is None:
            started = time.monotonic()
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)
            self.exit_seconds = time.monotonic() - started
        return self.proc.returncode

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            try:
                self.proc.wait(5)
            except subprocess.TimeoutExpired:  # pragma: no cover - a kernel problem, not ours
                pass


def start_server(
    workdir: Path,
    *,
    argv: list[str] | None = None,
    python: str | None = None,
    token: str | None = None,
    port: int | None = None,
    extra_env: dict[str, str] | None = None,
    metrics_port: int | None = None,
    ready_timeout: float = 30.0,
    hup_ignored: bool = False,
) -> Server:
    """Start `python -m app serve --host 127.0.0.1 --port P` (or `argv`) with cwd=`workdir`.

    `workdir` is a neutral, empty directory: no `.env` is read from it and no source tree shadows
    the installed package. stdout and stderr go to `workdir/server.log`. SIGHUP starts at its
    default action, whatever the test runner inherited (CI under `nohup` ignores it), or ignored
    with `hup_ignored` (a service started under `nohup`).
    """
    port = port or free_port()
    token = token or new_token()
    extra = dict(extra_env or {})
    if metrics_port is not None:
        extra["ROUTER_METRICS_PORT"] = str(metrics_port)
    argv = argv or [python or sys.executable, "-m", "app", "serve", "--host", HOST, "--port", str(port)]
    workdir.mkdir(parents=True, exist_ok=True)
    log = workdir / "server.log"
    with open(log, "wb") as out:
        hup = signal.SIG_IGN if hup_ignored else signal.SIG_DFL
        proc = subprocess.Popen(argv, cwd=workdir, env=server_env(token, **extra), stdout=out, stderr=subprocess.STDOUT,
                                preexec_fn=lambda: signal.signal(signal.SIGHUP, hup))
    server = Server(proc, port, token, log, metrics_port)
    try:
        wait_ready(server, ready_timeout)
    except BaseException:
        server.kill()
        raise
    return server


def wait_ready(server: Server, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if server.proc.poll() is not None:
            raise RuntimeError(f"server exited with {server.proc.returncode} before /ready:\n{server.log_text()[-2000:]}")
        try:
            with urllib.request.urlopen(f"{server.base}/ready", timeout=1) as response:
                if response.status == 200:
                    return
        except (urllib.error.URLError, OSError):
            pass
        time.sleep(0.05)
    raise TimeoutError(f"server not ready within {timeout}s:\n{server.log_text()[-2000:]}")


def post(url: str, payload: dict | bytes, token: str | None, *, headers: dict[str, str] | None = None,
         timeout: float = 10.0, context=None) -> tuple[int, dict[str, str], bytes]:
    """POST JSON; returns (status, headers with lower-case names, body) for any HTTP status."""
    data = payload if isinstance(payload, bytes) else json.dumps(payload, ensure_ascii=False).encode()
    all_headers = {"Content-Type": "application/json"}
    if token is not None:
        all_headers["Authorization"] = f"Bearer {token}"
    all_headers.update(headers or {})
    request = urllib.request.Request(url, data=data, method="POST", headers=all_headers)
    try:
        with urllib.request.urlopen(request, timeout=timeout, context=context) as response:
            return response.status, {k.lower(): v for k, v in response.headers.items()}, response.read()
    except urllib.error.HTTPError as exc:
        return exc.code, {k.lower(): v for k, v in exc.headers.items()}, exc.read()


def get(url: str, *, timeout: float = 5.0, context=None) -> tuple[int, bytes]:
    try:
        with urllib.request.urlopen(url, timeout=timeout, context=context) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read()


def tool_call(rid: int, name: str, arguments: dict) -> dict:
    return {"jsonrpc": "2.0", "id": rid, "method": "tools/call", "params": {"name": name, "arguments": arguments}}


def listening_ports(pid: int) -> set[tuple[str, int]]:
    """TCP (address, port) pairs in LISTEN state owned by `pid` (Linux /proc; IPv4 and IPv6)."""
    inodes = set()
    fd_dir = Path(f"/proc/{pid}/fd")
    for fd in fd_dir.iterdir():
        try:
            target = os.readlink(fd)
        except OSError:
            continue
        if target.startswith("socket:["):
            inodes.add(target[8:-1])
    found = set()
    for table, width in (("/proc/net/tcp", 8), ("/proc/net/tcp6", 32)):
        try:
            rows = Path(table).read_text().splitlines()[1:]
        except FileNotFoundError:
            continue
        for row in rows:
            fields = row.split()
            local, state, inode = fields[1], fields[3], fields[9]
            if state != "0A" or inode not in inodes:
                continue
            address, port = local.split(":")
            if width == 8:
                host = socket.inet_ntop(socket.AF_INET, bytes.fromhex(address)[::-1])
            else:
                raw = bytes.fromhex(address)
                host = socket.inet_ntop(socket.AF_INET6, b"".join(raw[i:i + 4][::-1] for i in range(0, 16, 4)))
            found.add((host, int(port, 16)))
    return found
