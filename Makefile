# Two commands do all set-up: `make run` and `make test`. Both create .venv when it is missing
# and (re)install when pyproject.toml changed since the last install.
PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed

.PHONY: run test lint install system-tools bench lock sbom clean

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

clean:
	rm -rf $(VENV) .venv-* .pytest_cache .hypothesis build
