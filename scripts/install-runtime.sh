#!/bin/sh
# Install the service's runtime (never the [dev] extras) into a virtual environment.
#
#   scripts/install-runtime.sh [--deps|--project] VENV SRC
#
# VENV  directory of the virtual environment (e.g. /opt/venv)
# SRC   source tree holding requirements.lock, pyproject.toml, README.md and app/ (e.g. /src)
#
#   --deps     create VENV and install requirements.lock into it (needs SRC/requirements.lock only)
#   --project  install the project from SRC into the existing VENV, then check the result
#   (neither)  both, in that order
#
# This is the ONE install path: the Dockerfile's builder stage runs it (in two steps, so that the
# dependency layer stays cached while app/ or README.md change), and the deploy tests run it too,
# so what the image ships is what the tests install. The dependencies come from requirements.lock
# only, every file checked against its hash; the project itself is installed without
# dependencies, so nothing unlocked can slip in. Uses whichever `python3` is first on PATH unless
# PYTHON is set.
set -eu

phase=all
case ${1:-} in
    --deps) phase=deps; shift ;;
    --project) phase=project; shift ;;
esac
if [ "$#" -ne 2 ]; then
    echo "usage: $0 [--deps|--project] VENV SRC" >&2
    exit 2
fi

VENV=$1
SRC=$2
PYTHON=${PYTHON:-python3}

need() {
    if [ ! -f "$SRC/$1" ]; then
        echo "install-runtime: $SRC/$1 not found" >&2
        exit 2
    fi
}
case $phase in
    deps) need requirements.lock ;;
    project) need pyproject.toml ;;
    all) need pyproject.toml; need requirements.lock ;;
esac

# The venv gets no pip and no setuptools (an installer has no business in the image); pip runs
# from a throwaway venv beside it and installs into VENV through --python.
tools=$(mktemp -d)
trap 'rm -rf "$tools"' EXIT
"$PYTHON" -m venv "$tools"
pip() {
    PIP_DISABLE_PIP_VERSION_CHECK=1 "$tools/bin/pip" --python "$VENV/bin/python" "$@"
}

if [ "$phase" != project ]; then
    "$PYTHON" -m venv --without-pip "$VENV"
    pip install --no-cache-dir --require-hashes --no-deps -r "$SRC/requirements.lock"
fi
if [ "$phase" != deps ]; then
    pip install --no-cache-dir --no-deps "$SRC"
    # Every requirement of the project is met by what the lock installed (fails otherwise).
    pip check
    # Fail here, not at container start, when the package did not land in the venv (-I: the
    # source tree in the working directory must not shadow the installed copy).
    "$VENV/bin/python" -I -c 'import sys, app; sys.exit(0 if app.__file__.startswith(sys.prefix) else 1)'
fi
