#!/bin/sh
# Install the service's runtime (never the [dev] extras) into a fresh virtual environment.
#
#   scripts/install-runtime.sh VENV SRC
#
# VENV  directory of the virtual environment to create (e.g. /opt/venv)
# SRC   source tree holding requirements.lock, pyproject.toml, README.md and app/ (e.g. /src)
#
# This is the ONE install path: the Dockerfile's builder stage runs it, and the deploy tests run it
# too, so what the image ships is what the tests install. The dependencies come from
# requirements.lock only, every file checked against its hash; the project itself is then
# installed without dependencies, so nothing unlocked can slip in. Uses whichever `python3` is
# first on PATH unless PYTHON is set.
set -eu

if [ "$#" -ne 2 ]; then
    echo "usage: $0 VENV SRC" >&2
    exit 2
fi

VENV=$1
SRC=$2
PYTHON=${PYTHON:-python3}

for f in pyproject.toml requirements.lock; do
    if [ ! -f "$SRC/$f" ]; then
        echo "install-runtime: $SRC/$f not found" >&2
        exit 2
    fi
done

# The venv gets no pip and no setuptools (an installer has no business in the image); pip runs
# from a throwaway venv next to it and installs into VENV through --python.
"$PYTHON" -m venv --without-pip "$VENV"
tools=$(mktemp -d)
trap 'rm -rf "$tools"' EXIT
"$PYTHON" -m venv "$tools"
pip() {
    PIP_DISABLE_PIP_VERSION_CHECK=1 "$tools/bin/pip" --python "$VENV/bin/python" "$@"
}
pip install --no-cache-dir --require-hashes --no-deps -r "$SRC/requirements.lock"
pip install --no-cache-dir --no-deps "$SRC"
# Every requirement of the project is met by what the lock installed (fails otherwise).
pip check
# Fail here, not at container start, when the package did not land in the venv (-I: the source
# tree in the working directory must not shadow the installed copy).
"$VENV/bin/python" -I -c 'import sys, app; sys.exit(0 if app.__file__.startswith(sys.prefix) else 1)'
