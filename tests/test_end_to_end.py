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
    # comparisons, where() and bool outputs; int8/uint8/bool inputs through half (Heaviside,
    # Asinh, x > y, a masked dequantize)
    "compare_where": ROOT / "tests" / "data" / "e2e" / "compare_where.json",
}


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
    finally:
        subprocess.run([sys.executable, "-m", "pip", "uninstall", "-y", "-q", Path(name).name],
                       capture_output=True)
