# silo_gym: `make demo` runs the reference solver on the demo tasks; `make test` runs the suite.
#
# What each target installs into .venv (created on first use):
#   setup / demo  silo_gym and its core dependencies only (gymnasium, pydantic, jsonschema-rs, jsonschema, numpy, orjson, tqdm)
#   setup-dev     the above plus the dev tools (pytest, hypothesis, ruff, mypy) and every optional
#                 extra the tests exercise (openai, anthropic, aiohttp, data, ray, mcp, view, trl, skyrl, openenv); torch first,
#                 pinned to the CPU build (torch==2.13.0: other versions pull a multi-GB CUDA build). verifiers
#                 (mcp==2.0.0) and NeMo Gym (Python 3.13) cannot share it: their tests build venvs of their own
#   test / lint / typecheck / bench   setup-dev
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
PIP := $(PY) -m pip --disable-pip-version-check
CORE_STAMP := $(VENV)/.installed-core
DEV_STAMP := $(VENV)/.installed-dev
DEV_EXTRAS := dev,openai,anthropic,aiohttp,data,ray,mcp,view,trl,skyrl,openenv
TORCH_CPU := torch==2.13.0

.PHONY: setup setup-dev demo test lint typecheck bench clean

$(VENV)/bin/python:
	$(PYTHON) -m venv $(VENV)
	$(PIP) install -q --upgrade pip

$(CORE_STAMP): pyproject.toml setup.py | $(VENV)/bin/python
	@echo "== installing silo_gym (core dependencies only) into $(VENV)"
	$(PIP) install --progress-bar off -e .
	touch $(CORE_STAMP)

$(DEV_STAMP): pyproject.toml setup.py | $(VENV)/bin/python
	@echo "== installing silo_gym with the [$(DEV_EXTRAS)] extras into $(VENV)"
	$(PIP) install --progress-bar off "$(TORCH_CPU)"
	$(PIP) install --progress-bar off -e ".[$(DEV_EXTRAS)]"
	touch $(CORE_STAMP) $(DEV_STAMP)

setup: $(CORE_STAMP)

setup-dev: $(DEV_STAMP)

demo: setup
	$(PY) examples/demo.py

lint: setup-dev
	$(VENV)/bin/ruff check silo_gym environments examples benchmarks tests

typecheck: setup-dev
	$(VENV)/bin/mypy silo_gym

# SILO_GYM_REQUIRE_EXTRAS: a test whose optional extra is missing fails instead of skipping.
test: setup-dev lint typecheck
	SILO_GYM_REQUIRE_EXTRAS=1 $(VENV)/bin/pytest -n 2 --dist loadgroup tests

bench: setup-dev
	$(PY) -m benchmarks

clean:
	rm -rf $(VENV) build dist *.egg-info .pytest_cache .ruff_cache .mypy_cache .hypothesis
