#!/bin/sh
# Install the service's runtime (never the [dev] extras) into a fresh virtual environment.
#
#   scripts/install-runtime.sh VENV SRC
#
# VENV  directory of the virtual environment to create (e.g. /opt/venv)
# SRC   source tree holding pyproject.toml, README.md and app/ (e.g. /src)
#
# This is the ONE install path: the Dockerfile's builder stage runs it, and the deploy tests run it
# too, so what the image ships is what the tests install. Uses whichever `python` is first on PATH
# unless PYTHON is set.
set -eu

if [ "$#" -ne 2 ]; then
    echo "usage: $0 VENV SRC" >&2
    exit 2
fi

VENV=$1
SRC=$2
PYTHON=${PYTHON:-python}

if [ ! -f "$SRC/pyproject.toml" ]; then
    echo "install-runtime: $SRC/pyproject.toml not found" >&2
    exit 2
fi

"$PYTHON" -m venv "$VENV"
PIP_DISABLE_PIP_VERSION_CHECK=1 "$VENV/bin/pip" install --no-cache-dir "$SRC"
# Fail here, not at container start, when the package did not land in the venv (-I: the source
# tree in the working directory must not shadow the installed copy).
"$VENV/bin/python" -I -c 'import sys, app; sys.exit(0 if app.__file__.startswith(sys.prefix) else 1)'
