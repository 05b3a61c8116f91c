# Every target bootstraps .venv from nothing: a fresh clone needs only python3.11+.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
BENCH_STAMP := $(VENV)/.bench-installed

.PHONY: demo test lint typecheck unit bench bench-peers clean

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev,openai,anthropic]'
	touch $(STAMP)

demo: $(STAMP)
	$(BIN)/pod demo

lint: $(STAMP)
	$(BIN)/ruff check src mypy_plugin tests bench
	$(BIN)/ruff format --check src mypy_plugin tests bench
	$(BIN)/lint-imports

typecheck: $(STAMP)
	$(BIN)/mypy
	$(BIN)/pyright

unit: $(STAMP)
	$(BIN)/python -m pytest -q

test: lint typecheck unit

# The bench extra (matplotlib, pyinstrument) is for benchmarks only: `make test` never needs it.
$(BENCH_STAMP): $(STAMP)
	$(BIN)/python -m pip install --quiet -e '.[dev,openai,anthropic,bench]'
	touch $(BENCH_STAMP)

bench: $(BENCH_STAMP)
	$(BIN)/python -m bench

bench-peers: $(BENCH_STAMP)
	$(BIN)/python -m bench.peers

clean:
	rm -rf $(VENV) .mypy_cache .pytest_cache
