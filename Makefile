# Every target sets up .venv on first use: torch is pinned to the local CPU build (2.13.0)
# and installed first, so nothing pulls a multi-GB CUDA wheel.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
TOOL := $(VENV)/bin/leapp-codemod
STAMP := $(VENV)/.installed-stamp
TORCH := torch==2.13.0

.PHONY: setup demo test test-fast bench clean-demo

$(STAMP): pyproject.toml
	@test -x $(PY) || { echo "setup 1/4: creating $(VENV)"; $(PYTHON) -m venv $(VENV); }
	@echo "setup 2/4: upgrading pip and setuptools"
	@$(PY) -m pip install -q --upgrade pip "setuptools>=77"
	@echo "setup 3/4: installing $(TORCH) (CPU build; the largest download)"
	@$(PY) -m pip install -q $(TORCH)
	@echo "setup 4/4: installing leapp-codemod with the run and dev extras (editable)"
	@$(PY) -m pip install -q -e '.[run,dev]' $(TORCH)
	@touch $(STAMP)
	@echo "setup done: $(VENV) is ready"

setup: $(STAMP)
	@echo "to put leapp-codemod on your PATH:  source $(VENV)/bin/activate"

# Every test, on all cores (pytest-xdist); tests sharing a module fixture stay on one worker (tests/conftest.py).
# pytest's exit 5 (no test collected) fails too.
# Bytecode (pytest's rewritten test modules too) is cached under $(PYCACHE), never beside the sources, even
# where the environment sets PYTHONDONTWRITEBYTECODE: each worker and each CLI process then compiles nothing
# twice (collection costs a third less CPU), and the applications' trees the tests hash stay untouched.
PYCACHE ?= $(abspath $(VENV))/pycache
PYTEST = env -u PYTHONDONTWRITEBYTECODE PYTHONPYCACHEPREFIX=$(PYCACHE) \
	$(PY) -m pytest -q -p no:cacheprovider -n $(TEST_JOBS) --dist loadgroup
TEST_JOBS ?= auto

test: $(STAMP)
	@$(PYTEST); rc=$$?; \
	if [ $$rc -eq 5 ]; then echo "pytest collected no tests: failing" >&2; exit 1; fi; exit $$rc

# The edit loop: everything except the tests marked e2e (real exports) or slow (tests/conftest.py).
test-fast: $(STAMP)
	@$(PYTEST) --fast; rc=$$?; \
	if [ $$rc -eq 5 ]; then echo "pytest collected no tests: failing" >&2; exit 1; fi; exit $$rc

bench: $(STAMP)
	$(PY) -m pip install -q -e '.[run,dev,bench]' $(TORCH)
	$(PY) benchmarks/scan_speed.py
	$(PY) benchmarks/lint_latency.py
	$(PY) benchmarks/run_overhead.py

-include mk/demo.mk

demo: $(STAMP)
