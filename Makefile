# The commands people type. Each installs what it needs into .venv first.
VENV ?= .venv
PY := $(VENV)/bin/python

.PHONY: serve test lint unit bench install install-dev clean

$(VENV)/.installed: pyproject.toml setup.py src/magdagdon/ai/_fast.c
	python3 -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e .
	touch $@

$(VENV)/.installed-dev: pyproject.toml setup.py src/magdagdon/ai/_fast.c
	python3 -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e '.[dev]'
	touch $@ $(VENV)/.installed

install: $(VENV)/.installed
install-dev: $(VENV)/.installed-dev

serve: install  ## install and serve the game (SQLite in the user's data directory)
	$(VENV)/bin/magdagdon serve $(ARGS)

test: install-dev lint unit  ## install and run the whole test suite with the linters

lint: install-dev
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/mypy

unit: install-dev
	$(PY) -m pytest $(PYTEST_ARGS)

bench: install-dev
	$(PY) -m benchmarks.engine

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache .hypothesis
