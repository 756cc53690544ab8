# silo_gym: `make demo` runs the reference solver on the demo tasks; `make test` runs the suite.
#
# What each target installs into .venv (created on first use):
#   setup / demo  silo_gym and its core dependencies only (gymnasium, pydantic, jsonschema-rs, jsonschema, numpy, orjson, tqdm)
#   setup-dev     the above plus the dev tools (pytest, hypothesis, ruff, mypy) and every optional
#                 extra the tests exercise (openai, anthropic, aiohttp, data, ray, mcp, view, trl, skyrl); torch first,
#                 pinned to torch==2.13.0 (from PyPI on Linux that is the CUDA build, several GB; for the
#                 CPU build: make setup-dev TORCH_INDEX_URL=https://download.pytorch.org/whl/cpu);
#                 and, first of all, the browser the viewer's tests drive (setup-browser)
#   setup-browser Debian's chromium and chromium-driver, installed with apt-get as root or with
#                 passwordless sudo; otherwise it stops at once with the command to run
#                 (scripts/ensure_browser.sh)
#   test          setup-dev, then lint, typecheck and the whole suite
#   test-fast     the suite without the tests marked slow, for development (no lint, no browser set-up)
#   lint / typecheck / bench   the dev tools (no browser)
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
PIP := $(PY) -m pip --disable-pip-version-check
CORE_STAMP := $(VENV)/.installed-core
DEV_STAMP := $(VENV)/.installed-dev
DEV_EXTRAS := dev,openai,anthropic,aiohttp,data,ray,mcp,view,trl,skyrl
TORCH := torch==2.13.0
# Where pip takes torch from: PyPI by default; PyTorch's CPU index keeps a Linux machine off CUDA.
TORCH_INDEX_URL ?=

.PHONY: setup setup-dev setup-browser demo test test-fast lint typecheck bench clean

$(VENV)/bin/python:
	$(PYTHON) -m venv $(VENV)
	$(PIP) install -q --upgrade pip

$(CORE_STAMP): pyproject.toml setup.py | $(VENV)/bin/python
	@echo "== installing silo_gym (core dependencies only) into $(VENV)"
	$(PIP) install --progress-bar off -e .
	touch $(CORE_STAMP)

$(DEV_STAMP): pyproject.toml setup.py | $(VENV)/bin/python
	@echo "== installing silo_gym with the [$(DEV_EXTRAS)] extras into $(VENV)"
	$(PIP) install --progress-bar off "$(TORCH)"$(if $(TORCH_INDEX_URL), --index-url $(TORCH_INDEX_URL))
	$(PIP) install --progress-bar off -e ".[$(DEV_EXTRAS)]"
	touch $(CORE_STAMP) $(DEV_STAMP)

setup: $(CORE_STAMP)

setup-dev: setup-browser $(DEV_STAMP)

setup-browser:
	@sh scripts/ensure_browser.sh

demo: setup
	$(PY) examples/demo.py

lint: $(DEV_STAMP)
	$(VENV)/bin/ruff check silo_gym environments examples benchmarks tests

typecheck: $(DEV_STAMP)
	$(VENV)/bin/mypy silo_gym

# SILO_GYM_REQUIRE_EXTRAS: a test whose optional extra is missing fails instead of skipping.
# setup-browser comes first, so a machine without the browser is told in the first seconds.
test: setup-browser setup-dev lint typecheck
	SILO_GYM_REQUIRE_EXTRAS=1 $(VENV)/bin/pytest -n 2 --dist loadgroup tests

# The suite without the heavy sweeps (tests marked slow): minutes instead of a quarter hour.
test-fast: $(DEV_STAMP)
	$(VENV)/bin/pytest -n 2 --dist loadgroup -m "not slow" tests

bench: $(DEV_STAMP)
	$(PY) -m benchmarks

clean:
	rm -rf $(VENV) build dist *.egg-info .pytest_cache .ruff_cache .mypy_cache .hypothesis
