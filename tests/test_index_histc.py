"""histc(x, bins, min, max), the index library's Histc: the grammar (float arguments, torch's
spelling with an int32 x binned as x.float()), the shape and dtype rules, the SoC refusal (the
hardware SyncAll), the plan (floats[] from float attrs, the workspace) and the rendered kernel,
host and adapter code. The kernel itself runs against torch in tests/twin/test_index_histogram.py;
the corpus's Histogram builds and passes its tests with bench/corpus_build.py."""

from __future__ import annotations

import json

import pytest
import torch
from kernel_host import twin
from test_index_ops import index_op_raw, load, parse, problems, tensor

from opgen.frontend import expr, index_ops, prototype
from opgen.frontend.problems import PrototypeError
from opgen.planning import index_op

RANGE_ATTRS = [
    {"name": "bins", "param_type": "optional", "type": "int", "default_value": 100},
    {"name": "min", "param_type": "optional", "type": "float", "default_value": 0.0},
    {"name": "max", "param_type": "optional", "type": "float", "default_value": 0.0},
]


def histc_raw(compute: str = "histc(x, bins, min, max)", dtypes=("fp32", "fp16", "int32")) -> dict:
    def data(name: str, types: tuple[str, ...]) -> dict:
        return dict(tensor(name, types), format=["ND"] * len(types))

    return index_op_raw(
        {"y": compute}, inputs=[data("x", dtypes)], outputs=[data("y", dtypes)], attrs=RANGE_ATTRS
    )


@pytest.mark.parametrize(
    ("text", "shown", "golden"),
    [
        (
            "histc(x, k, f, f)",
            "histc(x, k, f, f)",
            "torch.histc((x if x.is_floating_point() else x.float()), bins=k, min=f, max=f)"
            ".to(x.dtype)",
        ),
        (
            "histc(x, 10, -1.5, 2)",
            "histc(x, 10, -1.5, 2.0)",
            "torch.histc((x if x.is_floating_point() else x.float()), bins=10, min=-1.5, max=2.0)"
            ".to(x.dtype)",
        ),
        (
            "histc(x)",
            "histc(x)",
            "torch.histc((x if x.is_floating_point() else x.float())).to(x.dtype)",
        ),
    ],
)
def test_histc_parses_shows_and_spells_torch(text, shown, golden):
    node = parse(text)
    assert isinstance(node, expr.IndexCall)
    assert expr.show(node) == shown
    assert expr.to_torch(node) == golden


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.int32])
def test_the_golden_is_torch_histc_in_xs_dtype(dtype):
    """An int32 x has no torch.histc kernel: the golden bins x.float() and casts back."""
    x = (torch.randn(300) * 4).to(dtype)
    golden = eval(expr.to_torch(parse("histc(x, 10, -3, 3)")), {"torch": torch}, {"x": x})  # noqa: S307
    want = torch.histc(x if dtype != torch.int32 else x.float(), 10, -3, 3).to(dtype)
    assert golden.dtype == dtype and torch.equal(golden, want)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("histc(x, 10, ids, 1)", "histc(min=ids): min takes a number or a float attr"),
        ("histc(x, 10, 0, k)", "max takes a number or a float attr"),
        ("histc(x, f)", "bins takes an int or an int attr"),
        ("histc(x, 10, 0, float('inf'))", "max takes a number or a float attr"),
    ],
)
def test_histc_refusals_name_the_argument(text, message):
    with pytest.raises(expr.ExprError) as err:
        parse(text)
    assert message in str(err.value), str(err.value)


def test_the_output_is_bins_long_whatever_x():
    call = parse("histc(x, 7, 0, 1)")
    assert isinstance(call, expr.IndexCall)
    assert index_ops.output_shape(call, {"x": (3, 50, 9)}, {"bins": 7}) == (7,)
    assert "bins must be > 0" in str(index_ops.output_shape(call, {"x": (3,)}, {"bins": 0}))
    op_ = load(histc_raw())
    assert index_ops.arg_values(op_, op_.index_call) == {"bins": 100}


def test_bins_zero_is_refused_in_the_test_shapes():
    found = problems(histc_raw("histc(x, 0, min, max)"))
    assert any("torch.histc: bins must be > 0" in p for p in found), found


@pytest.mark.parametrize(
    ("dtypes", "out", "message"),
    [
        (("bf16", "fp16"), None, "takes x in float16, float32, int32, not bfloat16"),
        (("int64", "fp16"), None, "not int64"),
        (("fp16", "fp32"), ("fp32", "fp32"), "histc(x, bins, min, max) of x float16 is float16"),
    ],
)
def test_histc_dtype_rules(dtypes, out, message):
    raw = histc_raw(dtypes=dtypes)
    if out:
        raw["output_desc"] = [dict(tensor("y", out), format=["ND"] * len(out))]
    found = problems(raw)
    assert any(message in p for p in found), found


def test_required_range_attrs_get_test_values():
    raw = histc_raw()
    raw["attr"] = [dict(a, param_type="required") for a in RANGE_ATTRS]
    for a in raw["attr"]:
        a.pop("default_value")
    op_ = load(raw)
    assert [index_ops.attr_sample(op_, n) for n in ("bins", "min", "max")] == [10, -2.0, 2.0]


def test_socs_without_the_hardware_syncall_are_refused():
    proto = prototype.loads(json.dumps([histc_raw()]))
    with pytest.raises(PrototypeError) as err:
        twin.render_files(proto, twin.options(("ascend910b1", "ascend310b1")))
    (problem,) = err.value.problems
    assert "SyncAll (the hardware form) (not on ascend310b)" in problem.text(), problem.text()


def test_the_plan_and_the_rendered_files():
    op_ = load(histc_raw())
    plan = index_op.plan(op_)
    assert (plan.kind, plan.group, plan.uses_workspace, plan.checks_data_range) == (
        "Histc",
        "histogram",
        True,
        True,
    )
    assert plan.gm_args == ["x", "y", "workspace"]
    assert plan.template_args == ["DTYPE_X", "DTYPE_Y"]
    assert [(f.name, f.attr, f.attr_index, f.default) for f in plan.floats] == [
        ("min", "min", 1, 0.0),
        ("max", "max", 2, 0.0),
    ]
    assert [(i.name, i.attr, i.default) for i in plan.ints] == [("bins", "bins", 100)]
    proto = prototype.loads(json.dumps([histc_raw()]))
    files = {
        f.path: f.content.decode() for f in twin.render_files(proto, twin.options(), full=True)
    }
    kernel = files["op_kernel/index_custom.cpp"]
    assert "KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_MIX_AIV_1_0);" in kernel
    assert "opgen_index::Histc<DTYPE_X, DTYPE_Y>(x, y, workspace, tilingData.index);" in kernel
    host = files["op_host/index_custom.cpp"]
    assert "a.floats[0] = minF0 != nullptr ? *minF0 : 0.0f;" in host
    assert "GetLibApiWorkSpaceSize() + tiling->index.workspaceBytes" in host
    cpu = next(t for p, t in files.items() if p.endswith("/csrc/ops.cpp"))
    assert '"torch.histc: range of [", low_' in cpu
    test = files["tests/test_index_custom.py"]
    assert "def test_histc_data_range_not_finite_refused(dtypes, bad):" in test
    assert "args[2] = 0.0  # min: min == max" in test and "args[3] = 0.0  # max" in test
    for path in ("op_kernel/opgen_index_histogram.h", "op_host/opgen_index_histogram_tiling.h"):
        assert path in files


def test_the_rendered_files_are_tidy():
    from test_kernel_host_render import assert_tidy

    proto = prototype.loads(json.dumps([histc_raw()]))
    files = {
        f.path: f.content.decode()
        for f in twin.render_files(proto, twin.options(), full=True)
        if f.path.endswith((".cpp", ".h")) and ("histogram" in f.path or "index_custom" in f.path)
    }
    assert len(files) >= 5, sorted(files)
    assert_tidy(files)
