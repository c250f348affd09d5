"""The generated projects' precision helper implements the CANN standards."""

from __future__ import annotations

import importlib.util
import sys

import pytest
from conftest import EXAMPLES

from opgen import prototype, render
from opgen.options import Options
from opgen.resources import templates_dir

torch = pytest.importorskip("torch")


@pytest.fixture(scope="module")
def precision(tmp_path_factory):
    proto = prototype.load(EXAMPLES / "gelu_custom.json")
    files = render.render(proto, Options("p", "p", "p"), templates_dir())
    (source,) = [f for f in files if f.path == "tests/precision.py"]
    path = tmp_path_factory.mktemp("precision") / "precision.py"
    path.write_bytes(source.content)
    spec = importlib.util.spec_from_file_location("precision", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules["precision"] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def golden(n=10_000):
    return torch.linspace(-3, 3, n, dtype=torch.float64)


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16, torch.float32])
def test_correctly_rounded_output_passes(precision, dtype):
    g = golden() + 0.5  # away from zero: relative errors stay meaningful
    result = precision.measure(g.to(dtype), g)
    assert result.passed, result.report()


def test_thresholds_are_the_cann_ones(precision):
    assert precision.MERE_THRESHOLD[torch.float16] == 2**-10
    assert precision.MERE_THRESHOLD[torch.bfloat16] == 2**-7
    assert precision.MERE_THRESHOLD[torch.float32] == 2**-13


def test_a_systematic_error_fails_on_mere(precision):
    g = golden() + 5.0
    actual = (g * (1 + 2e-3)).to(torch.float16)  # 2e-3 relative: MERE > 2^-10
    result = precision.measure(actual, g)
    assert not result.passed and "MERE" in result.reason


def test_a_single_bad_element_fails_on_mare_and_reports_it(precision):
    g = golden() + 5.0
    actual = g.clone().to(torch.float32)
    actual[1234] += 1.0
    result = precision.measure(actual, g)
    assert not result.passed and "MARE" in result.reason
    assert result.worst_index == (1234,)
    text = result.report()
    for field in ("max abs error", "max rel error", "MERE", "MARE", "failing ratio",
                  "worst element (1234,)"):
        assert field in text


def test_failing_ratio_counts_elements_outside_the_tolerance(precision):
    g = golden() + 5.0
    actual = g.clone()
    actual[:100] *= 1.01  # 1% of the elements, 1% off
    result = precision.measure(actual.to(torch.float32), g)
    assert result.failing_ratio == pytest.approx(0.01)
    assert "outside rtol" in result.reason


def test_integers_must_be_exact(precision):
    g = torch.arange(10, dtype=torch.float64)
    assert precision.measure(g.to(torch.int32), g).passed
    bad = g.to(torch.int32)
    bad[3] += 1
    assert not precision.measure(bad, g).passed


def test_empty_and_shape_mismatch(precision):
    assert precision.measure(torch.empty(0), torch.empty(0, dtype=torch.float64)).passed
    with pytest.raises(AssertionError, match="shape"):
        precision.measure(torch.zeros(3), torch.zeros(4, dtype=torch.float64))


def test_nan_where_the_golden_has_none_fails(precision):
    g = golden() + 5.0
    actual = g.clone().float()
    actual[7] = float("nan")
    assert not precision.measure(actual, g).passed
