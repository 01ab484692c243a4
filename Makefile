# Set-up and everyday commands; `make demo` and `make test` work on a fresh machine.
PYTHON ?= $(shell command -v python3.11 || command -v python3.10 || command -v python3)
VENV ?= .venv
BIN = $(VENV)/bin

.PHONY: demo test bench gallery clean

demo: $(VENV)/.installed
	$(BIN)/triva3d render examples/small.trace --topology topologies/two_site_grid.dot \
		--mapping examples/small_on_two_site_grid.csv -o demo.png

test: $(VENV)/.installed
	$(BIN)/python -m pytest -q

gallery: $(VENV)/.installed
	$(BIN)/python examples/gallery.py ../shared/data gallery

bench: $(VENV)/.installed
	$(BIN)/python benchmarks/bench_load.py
	$(BIN)/python benchmarks/bench_bases.py
	$(BIN)/python benchmarks/bench_scene.py
	$(BIN)/python benchmarks/bench_timeslice.py
	$(BIN)/python benchmarks/bench_otf2.py
	$(BIN)/python benchmarks/bench_startup.py
	$(BIN)/python benchmarks/bench_generate.py
	$(BIN)/python benchmarks/bench_memory.py
	$(BIN)/python benchmarks/bench_deep.py

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e '.[test,hatchet]'
	touch $@

clean:
	rm -rf $(VENV) *.egg-info demo.png gallery
