# Two commands do all set-up: `make run` and `make test`. Both create .venv when it is missing
# and (re)install when pyproject.toml changed since the last install.
PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed

# The dispatcher example (examples/dispatcher) has its own venv and requirements: its LangGraph /
# langchain-mcp-adapters stack never enters the service's venv or image.
DISPATCHER_VENV  := examples/dispatcher/.venv
DISPATCHER_STAMP := $(DISPATCHER_VENV)/.installed

.PHONY: run test lint install system-tools bench bench-adversarial policy-report lock sbom clean dispatcher-venv dispatcher-chat

$(STAMP): pyproject.toml
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[dev]'
	@touch $(STAMP)

install: $(STAMP)

$(DISPATCHER_STAMP): examples/dispatcher/requirements.txt
	@test -x $(DISPATCHER_VENV)/bin/python || $(PYTHON) -m venv $(DISPATCHER_VENV)
	$(DISPATCHER_VENV)/bin/python -m pip install --quiet --upgrade pip
	$(DISPATCHER_VENV)/bin/python -m pip install --quiet -r examples/dispatcher/requirements.txt
	@touch $(DISPATCHER_STAMP)

dispatcher-venv: $(DISPATCHER_STAMP)

# Talk to the router of `make run` (another terminal) as a parent of P0001; CALLER / PATIENT override.
dispatcher-chat: $(DISPATCHER_STAMP)
	$(DISPATCHER_VENV)/bin/python -m examples.dispatcher chat --caller $(or $(CALLER),parent_assistant) --patient $(or $(PATIENT),P0001)

run: $(STAMP)
	@$(PY) -m app dev-setup
	$(PY) -m app serve --host 127.0.0.1 --port 8000

system-tools:
	@bash scripts/ensure-system-tools.sh

# mypy checks what pyproject.toml's [tool.mypy] names: app/router and app/policy_report, strictly.
lint: $(STAMP)
	$(PY) -m ruff check .
	$(PY) -m mypy

test: $(STAMP) $(DISPATCHER_STAMP) system-tools lint
	$(PY) -m pytest -n 2 -q $(PYTEST_ARGS)

# requirements.lock: the runtime dependencies of pyproject.toml, pinned with every file's hash (the
# image installs exactly these). Existing pins are kept while they still fit; LOCK_ARGS=--upgrade
# moves everything to the newest allowed. The machine's pip configuration (extra indexes, local
# wheel directories, constraints) is ignored so that it cannot leak into the lock.
lock: $(STAMP)
	env -u PIP_FIND_LINKS -u PIP_CONSTRAINT -u PIP_EXTRA_INDEX_URL PIP_CONFIG_FILE=/dev/null \
	  $(PY) -m piptools compile --quiet --generate-hashes --strip-extras --allow-unsafe \
	  --no-emit-index-url --output-file requirements.lock $(LOCK_ARGS) pyproject.toml

# CycloneDX SBOM of what the image installs (requirements.lock), written under build/.
SBOM := build/sbom/requirements.cdx.json
sbom: $(STAMP)
	@mkdir -p $(dir $(SBOM))
	$(PY) -m cyclonedx_py requirements --pyproject pyproject.toml --output-reproducible --of JSON -o $(SBOM) requirements.lock
	@echo "SBOM: $(CURDIR)/$(SBOM)"

bench: $(STAMP)
	$(PY) bench/router_bench.py $(BENCH_ARGS)

# Hostile texts (issue 11): µs per call and slope per generator; exits 1 when the worst exceeds 3× ordinary.
bench-adversarial: $(STAMP)
	$(PY) bench/adversarial_bench.py $(BENCH_ARGS)

# docs/policy-changes/REPORT.md and REPORT.html: every decision of the labelled corpora that the shipped
# policy changes against the last released one (docs/policy-changes/README.md). Rerun after any change
# to app/router/policy.toml or to the corpora; `make test` fails while they are stale.
policy-report: $(STAMP)
	$(PY) -m app.policy_report.release

clean:
	rm -rf $(VENV) .venv-* $(DISPATCHER_VENV) .pytest_cache .hypothesis build
