# Set-up and the two everyday jobs. Needs only python3 (3.10+), a C++ compiler and make.
#   make demo   install opgen into .venv and generate, build and test the bundled GELU example
#   make test   install opgen with its test tools into .venv (and, for the NPU adapter checks,
#               torch_npu's headers into .venv-npu), then run the test suite
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
# torch is pinned: an unpinned torch pulls a multi-GB CUDA build.
TORCH := torch==2.13.0

VENV_NPU ?= .venv-npu
# torch_npu matching torch, without its dependencies: its headers compile without CANN.
TORCH_NPU := torch-npu==2.13.0

.PHONY: demo test clean

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q $(TORCH) ninja -e '.[test]'
	touch $@

# A second environment with torch_npu: importing torch there needs
# TORCH_DEVICE_BACKEND_AUTOLOAD=0 without CANN, so it is kept apart from .venv.
$(VENV_NPU)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV_NPU)
	$(VENV_NPU)/bin/python -m pip install -q --upgrade pip
	$(VENV_NPU)/bin/python -m pip install -q $(TORCH) ninja numpy setuptools pytest packaging pyyaml protobuf -e .
	$(VENV_NPU)/bin/python -m pip install -q --no-deps $(TORCH_NPU)
	touch $@

demo: $(VENV)/.installed
	$(BIN)/opgen new examples/gelu_custom.json -o build/gelu_custom --force

test: $(VENV)/.installed $(VENV_NPU)/.installed
	OPGEN_NPU_PYTHON=$(abspath $(VENV_NPU))/bin/python $(BIN)/python -m pytest

clean:
	rm -rf $(VENV) $(VENV_NPU) build
