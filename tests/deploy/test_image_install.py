"""The Dockerfile's install and start-up, proven without a Docker engine (issue 4).

The Dockerfile is read, not duplicated: the builder stage's ENV, WORKDIR, COPY and the one RUN
(`sh ./scripts/install-runtime.sh /opt/venv /src`) are replayed into a temporary directory — a
clean copy of exactly what the builder COPYs (filtered by .dockerignore), a fresh venv made by that
same script — and then the runtime stage's CMD starts the server from that venv, in an empty
working directory, with the runtime ENV. `python -m app probe` from the same venv must pass, the
HEALTHCHECK command must pass, and the venv must hold the runtime closure only (no [dev] extras).

Differences from a real build, on purpose: the local interpreter instead of Debian's python3 from
the builder's apt-get RUN (that RUN is skipped), paths under tmp instead of /opt/venv and /src,
and the server binds 127.0.0.1 and a free port instead of 0.0.0.0:8000. This test downloads the
locked runtime dependencies (pip runs with --no-cache-dir, as in the image) and takes ~15-60 s; it
stays in the default run, and runs where podman does not (tests/deploy/test_image.py builds and
runs the real image).
"""

from __future__ import annotations

import fnmatch
import json
import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from .server import HOST, ROOT, free_port, new_token, start_server

DOCKERFILE = ROOT / "Dockerfile"
DOCKERIGNORE = ROOT / ".dockerignore"
INSTALL_SCRIPT = "scripts/install-runtime.sh"


# --------------------------------------------------------------------------------------------
# A small Dockerfile reader: enough for this Dockerfile, and strict about what it does not know.


def instructions(text: str) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    pending = ""
    for raw in text.splitlines():
        line = raw.strip()
        if not pending and (not line or line.startswith("#")):
            continue
        if pending and line.startswith("#"):
            continue  # comment lines inside a continuation are dropped by Docker too
        if line.endswith("\\"):
            pending += line[:-1] + " "
            continue
        full = (pending + line).strip()
        pending = ""
        kind, _, args = full.partition(" ")
        out.append((kind.upper(), args.strip()))
    assert not pending, "dangling line continuation"
    return out


def stages(text: str) -> list[list[tuple[str, str]]]:
    result: list[list[tuple[str, str]]] = []
    for kind, args in instructions(text):
        if kind == "FROM":
            result.append([])
        if result:
            result[-1].append((kind, args))
    return result


def env_of(stage: list[tuple[str, str]]) -> dict[str, str]:
    env: dict[str, str] = {}
    for kind, args in stage:
        if kind == "ENV":
            for word in shlex.split(args):
                name, eq, value = word.partition("=")
                assert eq, f"only the ENV key=value form is supported: {args}"
                env[name] = value
    return env


def ignored(relative: str, patterns: list[str]) -> bool:
    """.dockerignore semantics for the plain patterns this repository uses (no `!` exceptions)."""
    parts = relative.split("/")
    for pattern in patterns:
        pattern = pattern.rstrip("/")
        if pattern.startswith("**/"):
            tail = pattern[3:]
            if any(fnmatch.fnmatchcase("/".join(parts[i:j]), tail)
                   for i in range(len(parts)) for j in range(i + 1, len(parts) + 1)):
                return True
        elif any(fnmatch.fnmatchcase("/".join(parts[:j]), pattern) for j in range(1, len(parts) + 1)):
            return True
    return False


def dockerignore_patterns() -> list[str]:
    patterns = [line.strip() for line in DOCKERIGNORE.read_text().splitlines()
                if line.strip() and not line.strip().startswith("#")]
    assert not [p for p in patterns if p.startswith("!")], "exception patterns are not modelled here"
    return patterns


def replay_copy(args: str, workdir: Path, patterns: list[str]) -> list[str]:
    """COPY SRC... DEST from the build context (ROOT) into `workdir`; returns the sources."""
    words = shlex.split(args)
    assert not [w for w in words if w.startswith("--")], f"builder COPY flags are not modelled: {args}"
    *sources, dest = words
    target = workdir / dest
    for source in sources:
        assert not ignored(source.rstrip("/"), patterns), f"{source} is excluded by .dockerignore"
        origin = ROOT / source
        if origin.is_dir():
            def skip(directory: str, names: list[str]) -> set[str]:
                rel = Path(directory).relative_to(ROOT).as_posix()
                return {n for n in names if ignored(f"{rel}/{n}", patterns)}

            shutil.copytree(origin, target, ignore=skip, dirs_exist_ok=True)
        else:
            into = target / origin.name if dest.endswith("/") or len(sources) > 1 else target
            into.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(origin, into)
    return sources


def clean_env(**extra: str) -> dict[str, str]:
    drop = {"PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV", "PYTHON"}
    env = {k: v for k, v in os.environ.items() if k not in drop and not k.startswith("ROUTER_")}
    env.update(extra)
    return env


# The closure check reads the new venv's site-packages (it has no pip, so no packaging either:
# this runs with the test's interpreter): every installed distribution must be reachable from
# a207-router-mcp's requirements without extras.
CLOSURE = r"""
import json, sys
from importlib import metadata
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

installed = {canonicalize_name(d.metadata["Name"]): d for d in metadata.distributions(path=[sys.argv[1]])}
seen, done, todo = set(), set(), [("a207-router-mcp", "")]
while todo:
    name, extra = todo.pop()
    name = canonicalize_name(name)
    if (name, extra) in done or name not in installed:
        continue
    done.add((name, extra))
    seen.add(name)
    for spec in installed[name].requires or []:
        req = Requirement(spec)
        if req.marker is None or req.marker.evaluate({"extra": extra}):
            # a dependency's own extras (e.g. pyjwt[crypto]) are part of the runtime closure;
            # the root is walked with extra="" only, so [dev] never is
            todo += [(req.name, "")] + [(req.name, e) for e in req.extras]
print(json.dumps({"installed": sorted(installed), "closure": sorted(seen)}))
"""


# --------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def dockerfile():
    # python (base + Debian's python3 + user), then builder and runtime FROM it; the python stage
    # is what this interpreter stands in for.
    python, builder, runtime = stages(DOCKERFILE.read_text(encoding="utf-8"))
    assert python[0][1].endswith(" AS python") and builder[0][1] == "python AS builder", python[0]
    return builder, runtime


def test_image_install_and_start_from_the_dockerfile(tmp_path, dockerfile):
    builder, runtime = dockerfile
    patterns = dockerignore_patterns()

    # ---- builder stage: WORKDIR, then COPY and the install script's RUNs in order ----
    (workdir,) = [a for k, a in builder if k == "WORKDIR"]
    src = tmp_path / workdir.lstrip("/")
    src.mkdir(parents=True)
    installs = [shlex.split(a) for k, a in builder if k == "RUN" and INSTALL_SCRIPT in a]
    assert installs and all(w[:2] == ["sh", f"./{INSTALL_SCRIPT}"] for w in installs), installs
    venv_in_image, src_in_image = installs[-1][-2:]
    assert {tuple(w[-2:]) for w in installs} == {(venv_in_image, src_in_image)}
    assert src_in_image == workdir, "the script installs the WORKDIR the sources were copied to"
    runtime_copies = [a for k, a in runtime if k == "COPY"]
    assert runtime_copies == [f"--from=builder {venv_in_image} {venv_in_image}"]

    venv = tmp_path / venv_in_image.lstrip("/")
    mapping = {venv_in_image: str(venv), src_in_image: str(src)}
    # `python3` first on PATH is what the script uses in the image; here it is this interpreter.
    shim = tmp_path / "bin"
    shim.mkdir()
    (shim / "python3").symlink_to(sys.executable)
    build_env = clean_env(**env_of(builder))
    build_env["PATH"] = f"{shim}{os.pathsep}{build_env.get('PATH', '')}"

    # In the Dockerfile's order: each COPY, each RUN of the script (the apt-get RUN that brings
    # Debian's python3 is skipped: this interpreter stands in for it).
    copied: list[str] = []
    for kind, args in builder:
        if kind == "COPY":
            copied += replay_copy(args, src, patterns)
            assert not list(src.rglob("__pycache__")) and not list(src.rglob("*.pyc"))
        elif kind == "RUN" and INSTALL_SCRIPT in args:
            command = [mapping.get(w, w) for w in shlex.split(args)]
            install = subprocess.run(command, cwd=src, env=build_env, capture_output=True, text=True, timeout=600)
            assert install.returncode == 0, (
                f"{args} failed:\n{install.stdout[-3000:]}\n{install.stderr[-3000:]}")
    assert sorted(s.rstrip("/") for s in copied) == sorted(
        ["requirements.lock", "pyproject.toml", "README.md", "app", INSTALL_SCRIPT])
    python = venv / "bin" / "python"
    assert python.exists()

    # ---- the venv: runtime closure only, the package installed (not the source tree) ----
    neutral = tmp_path / "root"  # WORKDIR / of the runtime stage: nothing importable there
    neutral.mkdir()
    (site,) = (venv / "lib").glob("python3.*/site-packages")
    report = subprocess.run([sys.executable, "-I", "-c", CLOSURE, str(site)], cwd=neutral,
                            capture_output=True, text=True, timeout=60)
    assert report.returncode == 0, report.stderr
    facts = json.loads(report.stdout)
    located = subprocess.run([str(python), "-I", "-c", "import app; print(app.__file__)"], cwd=neutral,
                             capture_output=True, text=True, timeout=60)
    assert Path(located.stdout.strip()).is_relative_to(venv), located.stdout + located.stderr
    extras = set(facts["installed"]) - set(facts["closure"])
    assert not extras, f"installed but not required at run time: {sorted(extras)}"
    for module in ("pip", "setuptools", "pytest", "hypothesis", "xdist", "yaml", "kubernetes_validate"):
        probe = subprocess.run([str(python), "-I", "-c", f"import {module}"], cwd=neutral, capture_output=True, timeout=60)
        assert probe.returncode != 0, f"dev package {module} is importable from the image venv"

    # ---- runtime stage: ENV, CMD (host and port substituted), from an empty working directory ----
    runtime_env = env_of(runtime)
    runtime_env = {k: v.replace(venv_in_image, str(venv)).replace("$PATH", os.environ.get("PATH", ""))
                   for k, v in runtime_env.items()}
    (cmd,) = [a for k, a in runtime if k == "CMD"]
    argv = json.loads(cmd)  # exec form, or json.loads fails
    (expose,) = [a for k, a in runtime if k == "EXPOSE"]
    assert argv[:4] == ["python", "-m", "app", "serve"], argv
    assert argv[argv.index("--port") + 1] == expose
    port = free_port()
    argv[argv.index("--port") + 1] = str(port)
    argv[argv.index("--host") + 1] = HOST  # 0.0.0.0 in the container; loopback only here
    argv[0] = shutil.which(argv[0], path=runtime_env["PATH"])
    assert Path(argv[0]).parent == venv / "bin", f"CMD's python resolved outside the venv: {argv[0]}"

    token = new_token()
    server = start_server(neutral, argv=argv, port=port, token=token, extra_env=runtime_env, ready_timeout=60)
    try:
        probe = subprocess.run(
            [str(python), "-m", "app", "probe", f"http://{HOST}:{port}/mcp"],
            cwd=neutral, env=clean_env(ROUTER_MCP_AUTH_TOKEN=token, **runtime_env),
            capture_output=True, text=True, timeout=60,
        )
        lines = probe.stdout.splitlines()
        assert probe.returncode == 0, probe.stdout + probe.stderr
        assert len(lines) == 4 and all(line.startswith("PASS ") for line in lines), lines
        assert [line.split(":")[0] for line in lines] == [
            "PASS initialize", "PASS notifications/initialized", "PASS tools/list", "PASS tools/call"]

        # The image's HEALTHCHECK command, pointed at this port, with the venv's interpreter.
        (health,) = [a for k, a in runtime if k == "HEALTHCHECK"]
        health_argv = json.loads(health.split(" CMD ", 1)[1])
        assert health_argv[0] == "python"
        health_argv[0] = argv[0]
        health_argv = [w.replace("127.0.0.1:8000", f"{HOST}:{port}") for w in health_argv]
        check = subprocess.run(health_argv, cwd=neutral, env=clean_env(**runtime_env), capture_output=True, timeout=30)
        assert check.returncode == 0, check.stderr
    finally:
        server.stop()
    log = server.log_lines()
    events = [line.get("event") for line in log]
    assert events[0] == "startup" and "shutdown" in events, server.log_text()
    assert token not in server.log_text()
