# The commands people type. Each installs what it needs into .venv first.
VENV ?= .venv
PY := $(VENV)/bin/python

.PHONY: serve test check lint unit coverage bench install install-dev clean

$(VENV)/.installed: pyproject.toml setup.py src/magdagdon/ai/_fast.c src/magdagdon/engine/_fastgame.c
	@echo "Installing MAGDAGDON and what it needs into $(VENV) (about a minute the first time)..."
	python3 -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e '.[server]'
	touch $@

$(VENV)/.installed-dev: pyproject.toml setup.py src/magdagdon/ai/_fast.c src/magdagdon/engine/_fastgame.c
	@echo "Installing MAGDAGDON with its test tools into $(VENV) (a few minutes the first time)..."
	python3 -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e '.[dev]'
	touch $@ $(VENV)/.installed  # dev holds the server extra's packages too

install: $(VENV)/.installed
install-dev: $(VENV)/.installed-dev

serve: install  ## install and serve the game (SQLite in the user's data directory)
	$(VENV)/bin/magdagdon serve $(ARGS)

test: install-dev lint unit  ## install and run the whole test suite with the linters

lint: install-dev
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/mypy

# The suite runs on three processes (pytest-xdist), each module's tests on one of them: one
# more than CI's two cores, as a test that waits (for a server's start, a page, a deadline)
# leaves its core to the others (BENCHMARKS.md: 743 s against 815 s on two processes).
TEST_WORKERS ?= 3
# The quick loop's tests wait for nothing: two processes, one a core.
CHECK_WORKERS ?= 2

# The slowest 15 tests are said at the end of the run. Test modules' bytecode is kept even where
# the environment says not to write any (pytest rewrites a module's asserts once, not in every
# process of every run).
TEST_ENV := PYTHONDONTWRITEBYTECODE=

unit: install-dev
	$(TEST_ENV) $(PY) -m pytest -n $(TEST_WORKERS) --dist loadfile --durations=15 $(PYTEST_ARGS)

# The whole suite with the branch coverage of src/ (the tests' own process and its pytest
# workers; a server the tests start as a process of its own is not counted).
coverage: install-dev
	$(TEST_ENV) $(PY) -m pytest -n $(TEST_WORKERS) --dist loadfile --cov=magdagdon --cov-branch --cov-report=term:skip-covered $(PYTEST_ARGS)

# The quick loop while editing: lint, types, and the tests that start no server process and no
# browser and are not marked slow (about a minute and a half on two cores).
check: install-dev
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/mypy
	$(TEST_ENV) $(PY) -m pytest -q -n $(CHECK_WORKERS) --dist loadfile -m "not slow and not process" --durations=5 $(PYTEST_ARGS)

bench: install-dev  ## every benchmark with its defaults (long: the AI's takes most of an hour)
	$(PY) -m benchmarks.engine
	$(PY) -m benchmarks.log_length
	$(PY) -m benchmarks.client_weight
	$(PY) -m benchmarks.server_load
	MAGDAGDON_TEST_DATABASE_URL=$${MAGDAGDON_TEST_DATABASE_URL:-postgresql+psycopg://postgres@127.0.0.1:5432/test} $(PY) -m benchmarks.hosts
	$(PY) -m benchmarks.ai
	$(PY) -m benchmarks.rl
	$(PY) -m benchmarks.agents

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache .hypothesis
