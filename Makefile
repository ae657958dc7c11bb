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

.PHONY: run test lint install system-tools bench bench-adversarial clean dispatcher-venv dispatcher-chat

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

lint: $(STAMP)
	$(PY) -m ruff check .

test: $(STAMP) $(DISPATCHER_STAMP) system-tools lint
	$(PY) -m pytest -n 2 -q $(PYTEST_ARGS)

bench: $(STAMP)
	$(PY) bench/router_bench.py $(BENCH_ARGS)

# Hostile texts (issue 11): µs per call and slope per generator; exits 1 when the worst exceeds 3× ordinary.
bench-adversarial: $(STAMP)
	$(PY) bench/adversarial_bench.py $(BENCH_ARGS)

clean:
	rm -rf $(VENV) .venv-* $(DISPATCHER_VENV) .pytest_cache .hypothesis
