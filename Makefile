# Set-up and the two everyday jobs. Needs only python3 (3.10+), a C++ compiler and make.
#   make demo   install opgen into .venv and generate the bundled GELU example
#   make test   install opgen with its test tools into .venv and run the test suite
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
# torch is pinned: an unpinned torch pulls a multi-GB CUDA build.
TORCH := torch==2.13.0

.PHONY: demo test clean

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q $(TORCH) ninja -e '.[test]'
	touch $@

demo: $(VENV)/.installed
	$(BIN)/opgen new examples/gelu_custom.json -o build/gelu_custom --force

test: $(VENV)/.installed
	$(BIN)/python -m pytest

clean:
	rm -rf $(VENV) build
