# The README's commands. Each one sets itself up on a fresh machine with Python 3.11.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
PYTEST_ARGS ?= -n 2

.PHONY: demo test test-portable test-nojit bench docs dist lint mutate clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --upgrade pip

$(VENV)/.core: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install -e .
	touch $@

$(VENV)/.test: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install -e ".[test]"
	touch $@

$(VENV)/.docs: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install -e ".[test,docs]"
	touch $@

demo: $(VENV)/.core
	$(BIN)/statlearn reproduce --quick all --out results

# Three passes: the whole suite; the suite again as a CPU without AVX-512 runs it
# (NumPy's AVX-512 loops, OpenBLAS's and Numba's AVX-512 code switched off, see
# tests/cpu_features.py), so that a test holding on one CPU's last-bit rounding fails
# here too; the kernels with Numba switched off. Run once: the whole-study, notebook
# and gallery tests, which assert no exact floats, the benchmarks' command lines (no
# numbers), and the contract suite and
# scikit-learn checks, which compare a call only with the same call on the same CPU
# (another input type, a clone, a pickle), so no CPU's rounding can change their verdict.
PORTABLE_ONCE := --ignore=tests/test_notebooks.py --ignore=tests/test_examples.py \
	--ignore=tests/test_benchmark_cli.py \
	--ignore=tests/test_contracts.py --ignore=tests/test_common.py \
	--ignore=tests/studies $(addprefix --ignore=,$(wildcard tests/*/test_study.py tests/*/test_*_study.py))

test: $(VENV)/.test
	$(BIN)/python -m pytest $(PYTEST_ARGS)
	env $$($(BIN)/python tests/cpu_features.py) $(BIN)/python -m pytest $(PYTEST_ARGS) \
		-p no:cacheprovider $(PORTABLE_ONCE)
	NUMBA_DISABLE_JIT=1 $(BIN)/python -m pytest $(PYTEST_ARGS) -m numba -p no:cacheprovider tests

# The suite as a CPU without AVX-512 runs it (the second pass of `make test`).
test-portable: $(VENV)/.test
	env $$($(BIN)/python tests/cpu_features.py) $(BIN)/python -m pytest $(PYTEST_ARGS) \
		-p no:cacheprovider $(PORTABLE_ONCE)

# The kernels again with numba switched off: the pure-Python path must pass too.
test-nojit: $(VENV)/.test
	NUMBA_DISABLE_JIT=1 $(BIN)/python -m pytest $(PYTEST_ARGS) -m "numba"

bench: $(VENV)/.test
	$(BIN)/python benchmarks/run_all.py

docs: $(VENV)/.docs
	$(BIN)/python -m sphinx -W --keep-going -b html docs docs/_build/html

# A wheel in dist/ (install it anywhere with: python -m pip install dist/*.whl).
dist: | $(BIN)/python
	rm -rf dist build
	$(BIN)/python -m pip wheel --no-deps --wheel-dir dist .

# Mutation testing of the guarantee-carrying modules (slow, not part of CI).
# MUTATE_ARGS selects modules and options, e.g.
#   make mutate MUTATE_ARGS="conformal._core._quantile unlearning._privacy --max-children 2"
#   make mutate MUTATE_ARGS="--sample 150 --sample-seed 0 conformal._classification._socop"
# (--sample N tests a seeded uniform sample of N mutants per module; the report
# then gives the score as an estimate with its exact binomial 95% interval)
# Prints the per-module table (mutants, killed, survived, equivalent); the full
# report with the surviving mutants' diffs is written to .mutation/report.md.
MUTATE_ARGS ?=
mutate: $(VENV)/.test
	$(BIN)/python mutation/run.py $(MUTATE_ARGS)

lint: $(VENV)/.test
	$(BIN)/ruff check statlearn tests benchmarks examples

clean:
	rm -rf dist build docs/_build docs/auto_examples docs/api/generated results .pytest_cache .mutation
