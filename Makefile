# silo_gym: `make demo` runs the reference solver on the demo tasks; `make test` runs the suite.
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed-dev

.PHONY: setup demo test lint typecheck bench clean

$(STAMP): pyproject.toml setup.py
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e ".[dev,openai,data,ray]"
	touch $(STAMP)

setup: $(STAMP)

demo: setup
	$(PY) examples/demo.py

lint: setup
	$(VENV)/bin/ruff check silo_gym environments examples benchmarks tests

typecheck: setup
	$(VENV)/bin/mypy silo_gym

test: setup lint typecheck
	$(VENV)/bin/pytest -n 2 --dist loadgroup tests

bench: setup
	$(PY) -m benchmarks

clean:
	rm -rf $(VENV) build dist *.egg-info .pytest_cache .ruff_cache .mypy_cache
