# Every target bootstraps .venv from nothing: a fresh clone needs only python3.11+.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test lint typecheck unit bench clean

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

clean:
	rm -rf $(VENV) .mypy_cache .pytest_cache
