"""With torch_npu installed (no CANN), `opgen build` compiles the NPU adapter and checks that it
uses no symbol outside what libtorch_npu, torch and the C/C++ runtime export (torch-side.md §2.1).
The project holds GELU and LayerNorm: a row op's adapter uses thread_local, whose __tls_get_addr
comes from the dynamic loader."""

from __future__ import annotations

import json
import os
import subprocess

import pytest
from conftest import EXAMPLES, ROOT

pytestmark = pytest.mark.slow


def npu_python() -> str | None:
    python = os.environ.get("OPGEN_NPU_PYTHON")
    if not python:
        return None
    probe = (
        "import importlib.util, sys; sys.exit(importlib.util.find_spec('torch_npu') is None "
        "or importlib.util.find_spec('opgen') is None)"
    )
    return python if subprocess.run([python, "-c", probe]).returncode == 0 else None


def test_build_compiles_the_npu_adapter_and_checks_its_symbols(tmp_path):
    python = npu_python()
    if python is None:
        pytest.skip(
            "OPGEN_NPU_PYTHON does not name a Python with torch_npu and opgen installed "
            "(make test sets one up in .venv-npu)"
        )
    env = {**os.environ, "TORCH_DEVICE_BACKEND_AUTOLOAD": "0"}
    norms = json.loads((ROOT / "tests" / "data" / "e2e" / "norms.json").read_text())
    ops = json.loads((EXAMPLES / "gelu_custom.json").read_text())
    ops += [o for o in norms if o["op"] == "LayerNormCustom"]
    # attrs of every scalar type, one the compute never reads (its default is checked)
    ops += json.loads((ROOT / "tests" / "data" / "e2e" / "swish_pair.json").read_text())
    prototype = tmp_path / "gelu_and_layer_norm.json"
    prototype.write_text(json.dumps(ops))
    project = tmp_path / "gelu_npu"
    subprocess.run(
        [
            python,
            "-m",
            "opgen",
            "new",
            str(prototype),
            "-o",
            str(project),
            "--no-build",
            "--no-msopgen",
        ],
        check=True,
        env=env,
        capture_output=True,
    )
    result = subprocess.run(
        [python, "-m", "opgen", "build", str(project), "--json"],
        capture_output=True,
        text=True,
        env=env,
    )
    summary = json.loads(result.stdout)
    steps = {s["step"]: s for s in summary["steps"]}
    assert result.returncode == 0, (summary, result.stderr[-3000:])
    assert (
        steps["build PyTorch extension"]["detail"]
        == "CPU extension built (with the NPU adapter); gelu_npu installed (editable)"
    )
    symbols = steps["check NPU adapter symbols"]
    assert symbols["status"] == "passed", symbols
    assert list((project / "gelu_npu").glob("_C_npu*.so"))
    subprocess.run([python, "-m", "pip", "uninstall", "-y", "-q", "gelu_npu"], env=env)
