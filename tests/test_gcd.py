"""gcd(a, b): torch.gcd's semantics bit for bit (aten's calc_gcd: abs, which wraps the smallest
value to itself, then Euclid's loop), computed by opgen_kernel.h's Gcd on the scalar unit over the
tile in int16, int32 and int64. The rules and the lowering (quick), then the kernel on the CPU
twin against torch.gcd for each dtype: zeros, negatives, the smallest value, broadcasting, several
cores, and gcd inside a larger int16/int32 expression (slow; one shared build)."""

from __future__ import annotations

import json
import os
import re
import zlib
from pathlib import Path

import numpy as np
import pytest
import torch
from kernel_host import protos, twin
from kernel_host.step import step_body

from opgen.compiler import checks
from opgen.compiler.lower import LoweringError
from opgen.compiler.streams import scalar_loop_only
from opgen.frontend import expr, prototype
from opgen.frontend.catalog import compute_type
from opgen.frontend.options import Options
from opgen.frontend.problems import PrototypeError
from opgen.planning import kernel

INTS = ("int16", "int32", "int64")


def gcd_op(compute: str, types=INTS, op_type="GcdCustom", inputs=("x1", "x2")) -> dict:
    return protos.op(
        op_type,
        [protos.tensor(n, types) for n in inputs],
        [protos.tensor("y", types)],
        compute={"y": compute},
    )


def lowered(data: dict):
    """The kernel's compute data, or the error the compiler's checks find first."""
    op = prototype.loads(json.dumps(data)).ops[0]
    options = Options("p", "p", "p", socs=("ascend910b1",))
    error = checks.op_error(op, options.soc_short_names)
    if error is not None:
        raise error
    return kernel.plan(op, options).compute


# --- the rules and the lowering -----------------------------------------------------------------


def test_gcd_is_one_scalar_loop_call_templated_over_the_integer_types():
    c = lowered(gcd_op("gcd(x1, x2)"))
    assert c.template_params == ["T"]
    assert re.findall(r"(?:AscendC|opgen_kernel)::\w+\(", step_body(c)) == ["opgen_kernel::Gcd("]
    assert "opgen_kernel::Gcd(y, x1, x2, count);" in step_body(c)


def test_gcd_inside_an_int16_or_int32_expression_uses_the_vector_calls_around_it():
    body = step_body(lowered(gcd_op("gcd(x1 * 2, x2) + x1", types=("int16", "int32"))))
    assert body.index("AscendC::Muls(") < body.index("opgen_kernel::Gcd(")
    assert body.index("opgen_kernel::Gcd(") < body.index("AscendC::Add(")


def test_int64_computes_in_int64_t_only_for_gcd_of_inputs():
    op = prototype.loads(json.dumps([gcd_op("gcd(gcd(x1, x2), x1)")])).ops[0]
    assert scalar_loop_only(op)
    for text in ("gcd(x1, x2) + x1", "x1 + x2", "x1"):
        other = prototype.loads(json.dumps([gcd_op(text)])).ops[0]
        assert not scalar_loop_only(other), text
    assert compute_type(["int64"] * 3, through_half=True, scalar_loop=True) == "int64_t"
    assert compute_type(["int64"] * 3, through_half=True) is None
    assert compute_type(["int64", "int32"], through_half=True, scalar_loop=True) is None


@pytest.mark.parametrize(
    "compute, types, message",
    [
        # torch.gcd has no floating-point kernel
        ("gcd(x1, x2)", ("float", "fp16"), r"gcd\(\) takes integer tensors .* computes in float"),
        # int8/uint8/bool compute in float (through half)
        ("gcd(x1, x2)", ("int8", "uint8"), r"gcd\(\) takes integer tensors"),
        ("gcd(x1, x2)", ("int32", "float"), r"gcd\(\) takes integer tensors"),
        # int64 has no vector arithmetic around the loop
        ("gcd(x1, x2) + x1", INTS, r"int64 only in an op whose outputs are gcd\(\) of its inputs"),
        ("gcd(x1, x2) * 2", ("int64",), r"int64 only in an op whose outputs are gcd\(\)"),
    ],
)
def test_what_gcd_cannot_compute_is_refused_naming_the_output(compute, types, message):
    with pytest.raises(LoweringError, match="compute expression of output 'y'.*" + message):
        lowered(gcd_op(compute, types))


def test_two_outputs_of_one_int64_gcd_need_a_vector_copy_and_are_refused():
    data = protos.op(
        "GcdTwiceCustom",
        [protos.tensor("x1", ("int64",)), protos.tensor("x2", ("int64",))],
        [protos.tensor("y", ("int64",)), protos.tensor("z", ("int64",))],
        compute={"y": "gcd(x1, x2)", "z": "gcd(x1, x2)"},
    )
    with pytest.raises(LoweringError, match="needs a vector instruction, and none takes int64_t"):
        lowered(data)


@pytest.mark.parametrize(
    "compute, message",
    [
        ("gcd(x1, 6)", "gcd() takes two integer tensors, not the number or attr '6'"),
        ("gcd(x1, k)", "gcd() takes two integer tensors, not the number or attr 'k'"),
        ("gcd(x1)", r"gcd() takes 2 arguments, got 1 (gcd(a, b), of two integer tensors)"),
    ],
)
def test_gcd_of_a_number_or_attr_is_refused_by_the_grammar(compute, message):
    with pytest.raises(expr.ExprError) as info:
        expr.parse_compute(compute, {"x1", "x2"}, {"k": "int"})
    assert message in str(info.value)


def test_validate_names_the_path_of_a_float_gcd(tmp_path):
    path = tmp_path / "p.json"
    path.write_text(protos.text(gcd_op("gcd(x1, x2)", ("float",))))
    with pytest.raises(PrototypeError) as info:
        checks.check(prototype.load(path), Options("p", "p", "p", socs=("ascend910b1",)))
    ((path_text, message),) = [(p.path, p.message) for p in info.value.problems]
    assert path_text == "$[0].opgen.compute.y"
    assert message.startswith(
        "GcdCustom: compute expression of output 'y': gcd() takes integer tensors (torch.gcd has "
        "no floating-point kernel)"
    )


def test_the_default_golden_is_torch_gcd():
    op = prototype.loads(protos.text(gcd_op("gcd(x1, x2)"))).ops[0]
    assert op.golden["y"] == "torch.gcd(x1, x2)"


# --- the kernel on the CPU twin, against torch.gcd ----------------------------------------------

SMALLEST = {d: int(torch.iinfo(getattr(torch, d)).min) for d in INTS}
NPU2002 = twin.KernelSet("npu2002", ("-D__NPU_ARCH__=2002",))  # ascend310p


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    base = tmp_path_factory.mktemp("gcd")
    ops = [
        gcd_op("gcd(x1, x2)"),
        gcd_op("gcd(x1 * 2, x2) + x1", types=("int16", "int32"), op_type="GcdMixCustom"),
    ]
    # ascend310p3 too: without DataCopyPad, tails are copied in whole 32-byte blocks
    socs = ("ascend910b1", "ascend310p3")
    ctx = twin.render_project(protos.text(*ops), base / "project", socs=socs)
    builds = [
        twin.OpBuild(base / "project", op, (twin.KernelSet("default"), NPU2002))
        if op["op_type"] == "GcdCustom"
        else twin.OpBuild(base / "project", op)
        for op in ctx["ops"]
    ]
    cache = os.environ.get("OPGEN_TEST_CACHE")
    return twin.build(builds, base / "build", Path(cache) if cache else None), base


def special_pairs(dtype: str) -> tuple[np.ndarray, np.ndarray]:
    """Zeros, signs, the smallest value against each, equal values, 1 and -1."""
    low = SMALLEST[dtype]
    values = [0, 1, -1, 6, -6, 12, -4, 7, -7, 2**14, -(2**14), low, low + 1, -(low + 1)]
    a, b = np.meshgrid(values, values)
    return a.ravel(), b.ravel()


def random_values(dtype: str, shape, seed: int) -> np.ndarray:
    """Values over the dtype's whole range, with many common factors and some of each kind
    that special_pairs holds."""
    rng = np.random.default_rng(seed)
    info = torch.iinfo(getattr(torch, dtype))
    bits = info.bits - 1
    values = rng.integers(info.min, info.max, shape, dtype=np.int64, endpoint=True)
    # multiples of powers of two and of 3 * 5 * 7: gcds beyond 1
    factors = rng.choice([1, 2**5, 105, 2 ** (bits // 2) * 3], shape)
    scaled = values - np.fmod(values, factors)  # toward 0: within the range
    values = np.where(rng.random(shape) < 0.5, scaled, values)
    picks = rng.random(shape)
    values = np.where(picks < 0.05, 0, values)
    return np.where(picks > 0.97, info.min, values)


def run_gcd(built, dtype, x1, x2, op_type="GcdCustom", **kw):
    result, base = built
    exact = {"int64": np.int64}.get(dtype, np.float64)  # float64 holds int16/int32 exactly
    out = twin.run(
        result.driver,
        op_type,
        [(dtype, np.asarray(x1, dtype=exact)), (dtype, np.asarray(x2, dtype=exact))],
        workdir=base,
        exact=True,
        **kw,
    )
    assert out["ok"], f"{out['stage']}: {out['error']}"
    return out


def torch_gcd(dtype: str, x1, x2) -> np.ndarray:
    to = getattr(torch, dtype)
    a = torch.as_tensor(np.asarray(x1, dtype=np.int64)).to(to)
    b = torch.as_tensor(np.asarray(x2, dtype=np.int64)).to(to)
    return torch.gcd(a, b).numpy()


@pytest.mark.slow
@pytest.mark.parametrize("dtype", INTS)
def test_twin_gcd_of_zeros_signs_and_the_smallest_value_is_torchs(built, dtype):
    x1, x2 = special_pairs(dtype)
    (y,) = run_gcd(built, dtype, x1, x2)["outputs"]
    expected = torch_gcd(dtype, x1, x2)
    np.testing.assert_array_equal(y["values"], expected)
    low = SMALLEST[dtype]
    # torch's own values at the smallest one: abs() leaves it negative, Euclid keeps the sign
    pairs = {
        (low, 0): low,
        (0, low): low,
        (low, low): low,
        (low, 6): -2,
        (6, low): -2,
        (low, 12): 4,
        (low, low + 1): -1,
        (-6, -4): 2,
        (0, -7): 7,
    }
    for (a, b), want in pairs.items():
        (at,) = np.flatnonzero((x1 == a) & (x2 == b))
        assert y["values"][at] == want == expected[at], (a, b)


@pytest.mark.slow
@pytest.mark.parametrize("dtype", INTS)
@pytest.mark.parametrize(
    "shape1, shape2",
    [
        ((5001,), (5001,)),  # several cores, a tail that is no whole block
        ((5, 37), (37,)),  # a repeated row (read-only: the step writes only y)
        ((5, 37), (1,)),  # one element (int64: read through its strides, no Duplicate)
        ((4, 1, 33), (3, 1)),  # strided
    ],
)
def test_twin_gcd_of_random_values_and_broadcasts_is_torchs(built, dtype, shape1, shape2):
    seed = zlib.crc32(f"{dtype}/{shape1}/{shape2}".encode())
    x1, x2 = random_values(dtype, shape1, seed), random_values(dtype, shape2, seed + 1)
    (y,) = run_gcd(built, dtype, x1, x2)["outputs"]
    expected = torch_gcd(dtype, x1, x2)
    assert list(y["values"].shape) == list(expected.shape)
    np.testing.assert_array_equal(y["values"], expected)


@pytest.mark.slow
@pytest.mark.parametrize("dtype", INTS)
def test_twin_gcd_on_a_soc_without_datacopypad_is_torchs(built, dtype):
    x1, x2 = random_values(dtype, (5, 37), 3), random_values(dtype, (37,), 4)
    (y,) = run_gcd(built, dtype, x1, x2, kernel_set=NPU2002.name)["outputs"]
    np.testing.assert_array_equal(y["values"], torch_gcd(dtype, x1, x2))
    x1, x2 = random_values(dtype, (1037,), 5), random_values(dtype, (1037,), 6)
    (y,) = run_gcd(built, dtype, x1, x2, kernel_set=NPU2002.name)["outputs"]
    np.testing.assert_array_equal(y["values"], torch_gcd(dtype, x1, x2))


@pytest.mark.slow
def test_twin_gcd_orders_the_scalar_unit_without_the_compilers_auto_sync(built, monkeypatch):
    """The step's barriers order the tiles' copies in before the scalar reads and the scalar
    writes before the copy out, which the pipe check verifies with the S pipe checked too."""
    monkeypatch.setitem(os.environ, "OPGEN_TWIN_CCE_AUTO_SYNC", "0")
    x1, x2 = random_values("int32", (3000,), 7), random_values("int32", (3000,), 8)
    (y,) = run_gcd(built, "int32", x1, x2)["outputs"]
    np.testing.assert_array_equal(y["values"], torch_gcd("int32", x1, x2))


@pytest.mark.slow
@pytest.mark.parametrize("dtype", ("int16", "int32"))
def test_twin_gcd_inside_an_expression_is_torchs(built, dtype):
    x1, x2 = special_pairs(dtype)
    info = torch.iinfo(getattr(torch, dtype))
    # x1 * 2 and gcd(x1 * 2, x2) + x1 stay in range (torch would wrap, the kernel as well)
    x1 = np.clip(x1, info.min // 4, info.max // 4)
    (y,) = run_gcd(built, dtype, x1, x2, op_type="GcdMixCustom")["outputs"]
    a = torch.as_tensor(x1).to(getattr(torch, dtype))
    b = torch.as_tensor(x2).to(getattr(torch, dtype))
    np.testing.assert_array_equal(y["values"], (torch.gcd(a * 2, b) + a).numpy())


def test_the_generated_tests_draw_over_the_dtype_range_with_gcds_special_values():
    from opgen.planning.tests import tensor_args

    op = prototype.loads(protos.text(gcd_op("gcd(x1, x2)"))).ops[0]
    x1, x2 = tensor_args(op, ["ascend910b1"])
    assert (x1.low, x1.high) == (x2.low, x2.high) == ("-32768", "32767")  # int16's, the narrowest
    assert x1.ties_literal == "(0, -32768)" and x2.ties_literal == "(-32768, 0, 12)"
    assert x1.gcd_ties and x2.gcd_ties
    int32 = prototype.loads(protos.text(gcd_op("gcd(x1, x2)", ("int32",)))).ops[0]
    assert tensor_args(int32, ["ascend910b1"])[0].ties_literal == "(0, -2147483648)"
    mixed = prototype.loads(protos.text(gcd_op("gcd(x1, x2) + x1", ("int32",)))).ops[0]
    x1 = tensor_args(mixed, ["ascend910b1"])[0]  # + may overflow: the small range, no ties
    assert (x1.low, x1.high, x1.ties_literal, x1.gcd_ties) == ("-10", "10", "()", False)
