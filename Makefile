# Two commands do all set-up: `make run` and `make test`. Both create .venv when it is missing
# and (re)install when pyproject.toml changed since the last install.
PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed

.PHONY: run test lint install system-tools bench bench-adversarial clean

$(STAMP): pyproject.toml
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[dev]'
	@touch $(STAMP)

install: $(STAMP)

run: $(STAMP)
	@$(PY) -m app dev-setup
	$(PY) -m app serve --host 127.0.0.1 --port 8000

system-tools:
	@bash scripts/ensure-system-tools.sh

lint: $(STAMP)
	$(PY) -m ruff check .

test: $(STAMP) system-tools lint
	$(PY) -m pytest -n 2 -q $(PYTEST_ARGS)

bench: $(STAMP)
	$(PY) bench/router_bench.py $(BENCH_ARGS)

# Hostile texts (issue 11): µs per call and slope per generator; exits 1 when the worst exceeds 3× ordinary.
bench-adversarial: $(STAMP)
	$(PY) bench/adversarial_bench.py $(BENCH_ARGS)

clean:
	rm -rf $(VENV) .venv-* .pytest_cache .hypothesis
