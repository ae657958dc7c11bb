# syntax=docker/dockerfile:1
# a207-router-mcp: stateless streamable-HTTP MCP service.
#
#   docker build -t a207-router-mcp:0.1.0 .
#   docker run --rm --read-only --tmpfs /tmp --env-file .env -p 127.0.0.1:8000:8000 a207-router-mcp:0.1.0
#
# Base: Debian bookworm's own python3 (3.11, built by Debian with PGO + LTO, security support from
# Debian) on debian:bookworm-slim: Python 3.11, the version `make test` runs on, and the same
# distribution and interpreter as the image CI builds and tests (tests/deploy/test_image.py). CI
# cannot pull from a registry, so it builds this very file with BASE_IMAGE set to a bookworm
# minbase made locally by mmdebstrap (scripts/ci-base-image.sh) — the only difference between the
# image CI tests and the one you ship.
# bench/router_bench.py, one run each, back to back, on the shared 2-core machine under heavy load
# (load average ~9, so 6-15x the quiet figures of bench/RESULTS.md): route_request median 290 µs
# in this image (Debian 3.11.2) against 815 µs outside it (the dev venv's pyenv 3.11.7); CPU-time
# medians 208 against 325 µs. Not slower in that pair, in line with bench/RESULTS.md's quiet runs
# of the two interpreters outside any container (Debian 3.11.2 46.4 µs, pyenv 3.11.7 54.0 µs).
# tzdata is a required package of bookworm, so zoneinfo finds Asia/Shanghai (ROUTER_TIMEZONE).
#
# Reproducible where it matters: the Python dependencies come from requirements.lock, pinned with
# hashes (pip --require-hashes), and the project itself is installed without dependencies. The
# Debian packages follow bookworm's security updates on purpose; pin BASE_IMAGE by digest to
# freeze them as well.
ARG BASE_IMAGE=debian:bookworm-slim

# ---- python: the base, Debian's python3 and the service's user; both stages below start here ----
FROM ${BASE_IMAGE} AS python
# Versions are not pinned: within bookworm they only move for security fixes, which we want.
# hadolint ignore=DL3008
RUN apt-get update \
    && apt-get install -y --no-install-recommends python3 \
    && apt-get clean \
    && rm -rf /var/lib/apt/lists/* /var/cache/debconf/*-old \
    && groupadd --system --gid 10001 router \
    && useradd --system --uid 10001 --gid 10001 --no-create-home --no-log-init \
       --home-dir /nonexistent --shell /usr/sbin/nologin router

# ---- builder: + venv support, then the one install path (scripts/install-runtime.sh) ----
FROM python AS builder
# ca-certificates: Debian's pip verifies PyPI against the system bundle. Builder stage only.
# hadolint ignore=DL3008
RUN apt-get update \
    && apt-get install -y --no-install-recommends python3-venv ca-certificates \
    && apt-get clean \
    && rm -rf /var/lib/apt/lists/*
ENV PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PIP_NO_CACHE_DIR=1 \
    PYTHONDONTWRITEBYTECODE=1
# A CA bundle for pip behind a TLS-intercepting proxy (CI mounts the host's): a build argument,
# so it reaches this stage's RUN only and never the runtime image. Unset by default.
ARG PIP_CERT
WORKDIR /src
# Two steps of the same script: the locked dependencies first, so their layer stays cached while
# app/, pyproject.toml or README.md change.
COPY scripts/install-runtime.sh ./scripts/install-runtime.sh
COPY requirements.lock ./
RUN sh ./scripts/install-runtime.sh --deps /opt/venv /src
COPY pyproject.toml README.md ./
COPY app/ ./app/
RUN sh ./scripts/install-runtime.sh --project /opt/venv /src

# ---- runtime: Debian's python3 and the venv, nothing else; no compiler, no source tree, no pip cache ----
# The venv's interpreter is a symlink to /usr/bin/python3.11: the very package the builder used.
FROM python AS runtime
ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PATH=/opt/venv/bin:$PATH
COPY --from=builder /opt/venv /opt/venv
# A neutral working directory: `python -m` puts it on sys.path, so nothing writable there.
WORKDIR /
USER 10001:10001
EXPOSE 8000
# The slim image has no curl: probe with the interpreter that is already there.
HEALTHCHECK --interval=15s --timeout=3s --start-period=10s --retries=3 \
    CMD ["python", "-c", "import sys, urllib.request; sys.exit(0 if urllib.request.urlopen('http://127.0.0.1:8000/health', timeout=2).status == 200 else 1)"]
# Exec form: the server is PID 1 and receives SIGTERM itself (graceful shutdown,
# ROUTER_SHUTDOWN_TIMEOUT_SECONDS).
CMD ["python", "-m", "app", "serve", "--host", "0.0.0.0", "--port", "8000"]
