"""The router layer is pure: importing every router module pulls in no web, MCP, logging or
HTTP-client code (SPEC §2). Run in a fresh interpreter so other tests' imports don't hide a leak."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import app.router

FORBIDDEN = ("starlette", "uvicorn", "structlog", "mcp", "mcp_types", "httpx", "httpx2", "logging", "prometheus_client", "app.http", "app.protocol")
PROJECT = Path(app.router.__file__).parents[2]

PROBE = """
import importlib, pkgutil, sys
class Block:
    def find_spec(self, name, path=None, target=None):
        if name.split('.')[0] in {blocked} or any(name == b or name.startswith(b + '.') for b in {blocked}):
            raise ImportError('{package} imported ' + name)
sys.meta_path.insert(0, Block())
package = importlib.import_module('{package}')
modules = [info.name for info in pkgutil.walk_packages(package.__path__, '{package}.')]
for name in modules:
    importlib.import_module(name)
print('ok', len(modules))
"""


def imports_nothing_forbidden(package: str) -> subprocess.CompletedProcess[str]:
    """Every module of ``package`` (subpackages too) imported in a fresh interpreter that refuses
    the forbidden ones."""
    code = PROBE.replace("{blocked}", repr(set(FORBIDDEN))).replace("{package}", package)
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=PROJECT, timeout=60)


def test_router_imports_no_server_code():
    result = imports_nothing_forbidden("app.router")
    assert result.returncode == 0, result.stderr[-2000:]
    assert result.stdout.startswith("ok")
    assert int(result.stdout.split()[1]) > len(list(Path(app.router.__file__).parent.glob("*.py")))  # subpackages too


def test_router_source_reads_no_environment():
    for path in Path(app.router.__file__).parent.rglob("*.py"):
        source = path.read_text(encoding="utf-8")
        assert "os.environ" not in source and "getenv" not in source, path.name


def test_the_server_does_not_load_the_mcp_sdk():
    """Wire shapes come from mcp_types (the objects mcp.types re-exports); the SDK itself (client,
    server, transports) costs ~30 MiB of resident memory and is only needed by the tests' clients."""
    code = "import sys, app.http.app, app.http.serve; print(sorted(m for m in sys.modules if m == 'mcp' or m.startswith('mcp.')))"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=Path(app.router.__file__).parents[2])
    assert result.returncode == 0, result.stderr[-2000:]
    assert result.stdout.strip() == "[]"
