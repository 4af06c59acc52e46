# Two commands do all the set-up on a fresh machine:
#   make demo   creates .venv, installs simlab, runs the quickstart scenario
#   make test   creates .venv, installs simlab with its test extras, runs the tests
# and `make notebook` opens the notebooks in JupyterLab (the `notebook` extra).
VENV ?= .venv
PY := $(VENV)/bin/python
SCENARIO ?= scenarios/shattered-spirits/quickstart.yaml

.PHONY: demo test test-slow lint bench clean notebook

# The virtualenv's own pip installs uv, which installs everything else: it downloads
# and unpacks the packages side by side, about three times as fast as pip (README,
# "Design notes"). uv reads the system's certificate store (--system-certs), not pip's
# configuration: a package index of your own goes in UV_DEFAULT_INDEX.
$(PY):
	python3 -m venv $(VENV)

$(VENV)/.installed-uv: | $(PY)
	$(PY) -m pip install --quiet --disable-pip-version-check "uv>=0.11"
	touch $@

# uv installs without compiling to bytecode; compileall then compiles the environment on
# every core (-j 0), leaving out the packages' own test suites, and passes over a file
# it cannot compile. simlab's own modules are compiled too: an editable install leaves
# them uncompiled, and where PYTHONDONTWRITEBYTECODE is set every command would compile
# them again (about 0.1 s of each run).
PIP_INSTALL := $(PY) -m uv pip install --quiet --system-certs --python $(PY)
COMPILE := ($(PY) -m compileall -qq -j 0 -x '/tests?/' $(VENV)/lib || true) \
	&& $(PY) -m compileall -q simlab

$(VENV)/.installed-demo: pyproject.toml | $(VENV)/.installed-uv
	$(PIP_INSTALL) -e .
	$(COMPILE)
	touch $@

$(VENV)/.installed-test: pyproject.toml | $(VENV)/.installed-uv
	$(PIP_INSTALL) -e ".[test]"
	$(COMPILE)
	touch $@ $(VENV)/.installed-demo

$(VENV)/.installed-notebook: pyproject.toml | $(VENV)/.installed-uv
	$(PIP_INSTALL) -e ".[notebook]"
	$(COMPILE)
	touch $@

$(VENV)/.installed-lint: pyproject.toml | $(VENV)/.installed-uv
	$(PIP_INSTALL) -e ".[lint]"
	$(COMPILE)
	touch $@

# Opens the notebooks in JupyterLab (installs simlab with its `notebook` extra first).
notebook: $(VENV)/.installed-notebook
	$(VENV)/bin/jupyter lab notebooks/quickstart.ipynb

demo: $(VENV)/.installed-demo
	$(VENV)/bin/simlab run $(SCENARIO) --out out/quickstart

# One test process per core (pytest-xdist); each test file stays on one process, so a
# rule system's kernels are compiled once while another system's compile on the other core.
PYTEST_WORKERS ?= auto

# The fast tier plays every run on each rule system's traced kernel (the same tallies,
# tests/engine/test_determinism.py), so a fresh clone compiles 5 kernels, not 22; the
# slow tier runs the checks marked `kernels` again on the kernels a run uses. The files
# run in the order tests/conftest.py gives (FIRST_FILES), not largest first.
test: $(VENV)/.installed-test
	SIMLAB_ONE_KERNEL=1 $(PY) -m pytest -n $(PYTEST_WORKERS) --dist loadfile --no-loadscope-reorder

# The slow set also checks that JupyterLab starts, so it installs the notebook extra.
test-slow: $(VENV)/.installed-test $(VENV)/.installed-notebook
	$(PY) -m pytest -n $(PYTEST_WORKERS) --dist loadfile --no-loadscope-reorder -m "slow or kernels"

lint: $(VENV)/.installed-lint
	$(VENV)/bin/ruff check simlab tests bench notebooks
	$(VENV)/bin/ruff format --check simlab tests bench notebooks
	$(VENV)/bin/mypy

bench: $(VENV)/.installed-demo
	$(PY) bench/bench_ss_duel.py
	$(PY) -m bench.bench_duels
	$(PY) -m bench.bench_scenarios
	$(PY) bench/bench_startup.py
	$(PY) bench/bench_sweep.py
	$(PY) bench/bench_memory.py
	$(PY) bench/bench_rng.py

clean:
	rm -rf $(VENV) out .pytest_cache .mypy_cache .ruff_cache
