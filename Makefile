# Set-up and the two everyday jobs. Needs only python3 (3.10+), a C++ compiler and make.
#   make demo   install opgen into .venv and generate, build and test the bundled GELU example
#   make test   install opgen with its test tools into .venv (and, for the NPU adapter checks,
#               torch_npu's headers into .venv-npu), then run the test suite
# Every path is the repository's, so `make -C path/to/opgen demo` works from any folder.
ROOT := $(patsubst %/,%,$(dir $(abspath $(lastword $(MAKEFILE_LIST)))))
PYTHON ?= python3
VENV ?= $(ROOT)/.venv
BIN := $(VENV)/bin
# torch is pinned: an unpinned torch pulls a multi-GB CUDA build. Where the package index serves
# the CUDA build for this pin (PyPI on Linux x86_64), name the CPU wheels' index:
#   make demo TORCH_INDEX=https://download.pytorch.org/whl/cpu
TORCH := torch==2.13.0
TORCH_INDEX ?=
PIP_TORCH_INDEX := $(if $(TORCH_INDEX),--extra-index-url $(TORCH_INDEX))

VENV_NPU ?= $(ROOT)/.venv-npu
# torch_npu matching torch, without its dependencies: its headers compile without CANN.
TORCH_NPU := torch-npu==2.13.0

.PHONY: demo test clean

# pip's own progress shows while torch and the rest download and install (about 3 minutes on
# 2 busy cores; README's "How long things take").
$(VENV)/.installed: $(ROOT)/pyproject.toml
	@echo "Creating $(VENV) and installing $(TORCH), ninja and opgen into it, once (a few minutes)..."
	$(PYTHON) -m venv "$(VENV)"
	"$(BIN)/python" -m pip install -q --upgrade pip
	"$(BIN)/python" -m pip install --progress-bar on $(PIP_TORCH_INDEX) $(TORCH) ninja -e "$(ROOT)[test]"
	touch "$@"
	@echo "$(VENV) is ready."

# A second environment with torch_npu: importing torch there needs
# TORCH_DEVICE_BACKEND_AUTOLOAD=0 without CANN, so it is kept apart from .venv.
$(VENV_NPU)/.installed: $(ROOT)/pyproject.toml
	$(PYTHON) -m venv "$(VENV_NPU)"
	"$(VENV_NPU)/bin/python" -m pip install -q --upgrade pip
	"$(VENV_NPU)/bin/python" -m pip install -q $(PIP_TORCH_INDEX) $(TORCH) ninja numpy setuptools pytest packaging \
		pyyaml protobuf -e "$(ROOT)"
	"$(VENV_NPU)/bin/python" -m pip install -q --no-deps $(TORCH_NPU)
	touch "$@"

# The project's path is absolute, so the next steps opgen prints work from any folder.
demo: $(VENV)/.installed
	"$(BIN)/opgen" new "$(ROOT)/examples/gelu_custom.json" -o "$(ROOT)/build/gelu_custom" --force

test: $(VENV)/.installed $(VENV_NPU)/.installed
	cd "$(ROOT)" && OPGEN_NPU_PYTHON="$(VENV_NPU)/bin/python" "$(BIN)/python" -m pytest

clean:
	rm -rf "$(VENV)" "$(VENV_NPU)" "$(ROOT)/build"
