"""`opgen new` end to end, as a user runs it: render, build the extension, run the generated
tests, exit 0. The generated package is installed into this environment and removed after."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import EXAMPLES, ROOT, SHARED_PROTOS

pytestmark = pytest.mark.slow

# Package names of their own: installing one of these must not replace the package
# `make demo` installed (gelu_custom), and the uninstall below must not remove it.
CASES = {
    "e2e_gelu": EXAMPLES / "gelu_custom.json",  # README's main command
    "gelu_seed": SHARED_PROTOS / "gelu_custom.seed.json",  # tutorial format, no compute
    # attrs of every scalar kind and a string, two outputs, bf16
    "swish_pair": ROOT / "tests" / "data" / "e2e" / "swish_pair.json",
    # log1p, expm1, erf, floor, ceil, sign, clamp and real powers (boundary values included)
    "grammar_mix": ROOT / "tests" / "data" / "e2e" / "grammar_mix.json",
    # the row kernel: RMSNorm (gamma [H], epsilon), a row sum, Softmax, LayerNorm
    "norms": ROOT / "tests" / "data" / "e2e" / "norms.json",
}


RMS_NORM_CHECK = """
import torch
import norms
from precision import assert_precision
for dtype in (torch.float16, torch.float32, torch.bfloat16):
    for shape in ((4, 37), (2, 3, 4096)):
        g = torch.Generator().manual_seed(0)
        x = (torch.rand(shape, generator=g) * 8 - 4).to(dtype)
        gamma = (torch.rand(shape[-1:], generator=g) * 8 - 4).to(dtype)
        actual = torch.ops.norms.rms_norm_custom(x, gamma, epsilon=1e-6)
        golden = torch.nn.functional.rms_norm(x.double(), shape[-1:], gamma.double(), 1e-6)
        bench = torch.nn.functional.rms_norm(x, shape[-1:], gamma, 1e-6)
        assert_precision(actual, golden, what=f"RmsNormCustom vs rms_norm {dtype} {shape}",
                         benchmark=bench)
"""


@pytest.mark.parametrize("name", list(CASES))
def test_opgen_new_builds_and_passes_its_tests(name, tmp_path):
    project = tmp_path / name
    try:
        proc = subprocess.run([sys.executable, "-m", "opgen", "new", str(CASES[name]), "-o",
                               str(project), "--no-msopgen", "--json"],
                              capture_output=True, text=True, timeout=900)
        render_summary = json.loads(proc.stdout)
        report = render_summary["build"]
        assert proc.returncode == 0, (report, proc.stderr[-4000:])
        steps = {s["step"]: s for s in report["steps"]}
        assert steps["build PyTorch extension"]["status"] == "passed"
        tests = steps["run tests"]
        assert tests["status"] == "passed" and " passed" in tests["detail"], tests
        if name == "gelu_seed":  # no compute: precision waits for the user's kernel
            log = (project / ".opgen" / "logs" / "test.log").read_text()
            assert "xfailed" in log
        assert any(f["owner"] == "user" and f["path"].endswith("_compute.h")
                   for f in render_summary["files"])
        if name == "norms":  # RMSNorm against torch's own, by the precision standard
            check = subprocess.run([sys.executable, "-c", RMS_NORM_CHECK], cwd=project / "tests",
                                   capture_output=True, text=True, timeout=300)
            assert check.returncode == 0, check.stderr[-4000:]
    finally:
        subprocess.run([sys.executable, "-m", "pip", "uninstall", "-y", "-q", Path(name).name],
                       capture_output=True)
