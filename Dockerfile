# syntax=docker/dockerfile:1
# a207-router-mcp: stateless streamable-HTTP MCP service.
#
#   docker build -t a207-router-mcp:0.1.0 .
#   docker run --rm --read-only --tmpfs /tmp --env-file .env -p 127.0.0.1:8000:8000 a207-router-mcp:0.1.0
#
# Bookworm on purpose: its tzdata is a required package, so zoneinfo finds Asia/Shanghai
# (ROUTER_TIMEZONE) without an extra install. Bump PYTHON_IMAGE for security patches.
ARG PYTHON_IMAGE=python:3.13.5-slim-bookworm

# ---- builder: the one install path (scripts/install-runtime.sh), runtime dependencies only ----
FROM ${PYTHON_IMAGE} AS builder
ENV PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PIP_NO_CACHE_DIR=1 \
    PYTHONDONTWRITEBYTECODE=1
WORKDIR /src
COPY pyproject.toml README.md ./
COPY app/ ./app/
COPY scripts/install-runtime.sh ./scripts/install-runtime.sh
RUN sh ./scripts/install-runtime.sh /opt/venv /src

# ---- runtime: the venv and nothing else; no compiler, no source tree, no pip cache ----
FROM ${PYTHON_IMAGE} AS runtime
ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PATH=/opt/venv/bin:$PATH
RUN groupadd --system --gid 10001 router \
    && useradd --system --uid 10001 --gid 10001 --no-create-home --no-log-init \
       --home-dir /nonexistent --shell /usr/sbin/nologin router
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
