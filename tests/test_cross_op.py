"""cross(x1, x2, dim), torch.cross as an index op: the grammar and its golden (CANN's unset dim
-65530 as torch's dim=None), torch's shape rule and refusals (frontend/index_ops.py), the dtype
rules, the default test shapes, the plan and the rendered kernel and host. The library's kernel
against torch on the twin: tests/twin/test_index_cross.py; the CANN sample built and tested:
bench/corpus_build.py on the corpus's CrossSample (tests/data/corpus/OPGEN.tsv)."""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import pytest
import torch
from conftest import op
from kernel_host import twin

from opgen.frontend import expr, index_functions, index_ops, prototype
from opgen.frontend.problems import PrototypeError
from opgen.planning import index_op

ROOT = Path(__file__).resolve().parents[1]
UNSET = index_functions.CROSS_UNSET_DIM
DIM_ATTR = {"name": "dim", "param_type": "optional", "type": "int", "default_value": UNSET}


def tensor(name: str, dtypes: tuple[str, ...] = ("float", "fp16", "int32", "int8")) -> dict:
    return {
        "name": name,
        "param_type": "required",
        "format": ["ND"] * len(dtypes),
        "type": list(dtypes),
    }


def cross_raw(compute: str = "cross(x1, x2, dim)", x2=None, y=None, attrs=(DIM_ATTR,), **opgen):
    raw = op(
        op="Cross",
        input_desc=[tensor("x1"), x2 or tensor("x2")],
        output_desc=[y or tensor("y")],
        attr=list(attrs),
    )
    raw["opgen"] = {"compute": {"y": compute}, **opgen}
    return raw


def load(raw: dict):
    return prototype.loads(json.dumps([raw])).ops[0]


def problems(raw: dict) -> list[str]:
    with pytest.raises(PrototypeError) as err:
        prototype.loads(json.dumps([raw]))
    return [f"{p.path}: {p.text()}" for p in err.value.problems]


def parse(text: str) -> expr.IndexCall:
    call = expr.parse_compute(text, {"x1", "x2"}, {"dim"}, {}, {"dim": "int"})
    assert isinstance(call, expr.IndexCall)
    return call


def torch_eval(text: str, tensors: dict[str, torch.Tensor]) -> torch.Tensor:
    with warnings.catch_warnings():  # torch.cross with dim=None is deprecated (still defined)
        warnings.simplefilter("ignore")
        return eval(text, {"torch": torch}, tensors)  # noqa: S307 (opgen's own golden text)


@pytest.mark.parametrize(
    ("text", "shown", "golden"),
    [
        (
            "cross(x1, x2, dim)",
            "cross(x1, x2, dim)",
            f"torch.cross(x1, x2, dim=(None if dim == {UNSET} else dim))",
        ),
        ("cross(x1, x2)", "cross(x1, x2)", "torch.cross(x1, x2)"),
        ("cross(x1, x2, -65530)", "cross(x1, x2, -65530)", "torch.cross(x1, x2, dim=None)"),
        ("cross(x1, x2, dim=-1)", "cross(x1, x2, -1)", "torch.cross(x1, x2, dim=-1)"),
    ],
)
def test_cross_parses_shows_and_spells_torch(text, shown, golden):
    call = parse(text)
    assert (call.x, call.src) == ("x1", "x2")
    assert call.show() == shown
    assert expr.to_torch(call) == golden


def test_the_unset_dim_is_torchs_none_and_another_is_torchs_dim():
    x1, x2 = torch.randn(4, 3, 5, 3), torch.randn(1, 3, 1, 3)
    spelled = expr.to_torch(parse("cross(x1, x2, dim)"))
    unset = torch_eval(spelled, {"x1": x1, "x2": x2, "dim": UNSET})
    assert torch.equal(unset, torch.linalg.cross(x1, x2, dim=1))  # the first dim of size 3
    last = torch_eval(spelled, {"x1": x1, "x2": x2, "dim": -1})
    assert torch.equal(last, torch.linalg.cross(x1, x2, dim=-1))


def test_other_is_an_input_not_a_keyword():
    with pytest.raises(expr.ExprError, match="cross\\(\\) takes no keyword other"):
        parse("cross(x1, other=x2)")
    with pytest.raises(expr.ExprError, match="cross\\(\\) takes an input as its other"):
        parse("cross(x1, x2 * 2)")


SHAPES = [
    ("cross(x1, x2)", (4, 3, 6, 5), (1, 3, 1, 1)),  # the CANN sample's: x2 broadcast
    ("cross(x1, x2)", (2, 4, 3), (2, 4, 3)),
    ("cross(x1, x2)", (3, 3), (3, 1)),  # two dims of size 3: the first
    ("cross(x1, x2, -1)", (1024, 4, 3), (1, 4, 3)),  # the sample's test
    ("cross(x1, x2, 1)", (1, 3, 7), (5, 3, 1)),  # both broadcast
    ("cross(x1, x2, 0)", (3, 0), (3, 1)),  # empty
]


@pytest.mark.parametrize(("text", "s1", "s2"), SHAPES)
def test_output_shape_is_torchs(text, s1, s2):
    call = parse(text)
    values = {n: v for n, v in call.args if not isinstance(v, str)}
    want = torch_eval(expr.to_torch(call), {"x1": torch.randn(s1), "x2": torch.randn(s2)})
    assert index_ops.output_shape(call, {"x1": s1, "x2": s2}, values) == tuple(want.shape)


REFUSED = [
    ("cross(x1, x2)", (2, 3), (3,), "x1 and x2 have one rank, at least 1 (torch), not 2 and 1"),
    ("cross(x1, x2)", (2, 4), (2, 4), "no dimension of size 3 in x1 (torch.cross with dim=None)"),
    ("cross(x1, x2)", (2, 4), (2, 3), "no dimension of size 3 in x1 (torch.cross with dim=None)"),
    ("cross(x1, x2, 2)", (4, 3), (4, 3), "dim=2 is outside the 2 dims (torch)"),
    ("cross(x1, x2, -65529)", (4, 3), (4, 3), "dim=-65529 is outside the 2 dims (torch)"),
    ("cross(x1, x2, 1)", (2, 3), (2, 1), "x1 and x2 have size 3 along dim 1 (torch), not 3 and 1"),
    ("cross(x1, x2)", (3, 3), (1, 3), "x1 and x2 have size 3 along dim 0 (torch), not 3 and 1"),
    ("cross(x1, x2, 1)", (4, 3), (3, 3), "x1 [4, 3] and x2 [3, 3] do not broadcast (torch)"),
]


@pytest.mark.parametrize(("text", "s1", "s2", "why"), REFUSED)
def test_shapes_torch_refuses_are_refused(text, s1, s2, why):
    call = parse(text)
    values = {n: v for n, v in call.args if not isinstance(v, str)}
    assert index_ops.output_shape(call, {"x1": s1, "x2": s2}, values) == why
    with pytest.raises((RuntimeError, IndexError)):
        torch_eval(expr.to_torch(call), {"x1": torch.randn(s1), "x2": torch.randn(s2)})


def test_test_shapes_torch_refuses_are_refused_at_their_path():
    raw = cross_raw(test_shapes=[{"x1": [4, 3], "x2": [4, 3]}, {"x1": [2, 4], "x2": [2, 4]}])
    (found,) = problems(raw)
    assert found.startswith("$[0].opgen.test_shapes[1]:")
    assert "no dimension of size 3 in x1" in found


@pytest.mark.parametrize(
    ("x2", "y", "message"),
    [
        (
            tensor("x2", ("float", "float", "int32", "int8")),
            None,
            "cross(x1, x2, dim): x2 is float32, x1 float16; give one type",
        ),
        (
            None,
            tensor("y", ("float", "fp16", "int64", "int8")),
            "cross(x1, x2, dim) of x1 int32 is int32 (as torch computes it), not int64",
        ),
    ],
)
def test_dtype_rules(x2, y, message):
    found = problems(cross_raw(x2=x2, y=y))
    assert any(message in f for f in found), found


def test_dtypes_the_kernel_does_not_take_are_refused():
    raw = op(
        op="Cross",
        input_desc=[tensor("x1", ("bfloat16", "uint8")), tensor("x2", ("bfloat16", "uint8"))],
        output_desc=[tensor("y", ("bfloat16", "uint8"))],
        attr=[DIM_ATTR],
    )
    raw["opgen"] = {"compute": {"y": "cross(x1, x2, dim)"}}
    found = problems(raw)
    for dtype in ("bfloat16", "uint8"):
        assert any(f"takes x1 in float16, float32, int32, int8, not {dtype}" in f for f in found)


@pytest.mark.parametrize(
    ("compute", "attrs", "dim"),
    [
        ("cross(x1, x2, dim)", (DIM_ATTR,), 1),  # the unset default: the first dim of size 3
        ("cross(x1, x2)", (), 1),
        ("cross(x1, x2, -1)", (), 2),
        ("cross(x1, x2, 4)", (), 4),
        ("cross(x1, x2, d)", ({"name": "d", "param_type": "required", "type": "int"},), 2),
    ],
)
def test_default_test_shapes_run_in_torch(compute, attrs, dim):
    """Each default case is one torch runs, size 3 along the dim, x2 and x1 broadcast in turn."""
    op_ = load(cross_raw(compute, attrs=attrs))
    call = op_.index_call
    values = index_ops.arg_values(op_, call)
    golden = expr.to_torch(call)
    broadcast = {"x1": False, "x2": False}
    for case in op_.test_shapes:
        x1, x2 = torch.randn(case["x1"]), torch.randn(case["x2"])
        env = {"x1": x1, "x2": x2, **{a["name"]: values["dim"] for a in attrs}}
        want = torch_eval(golden, env)
        assert index_ops.output_shape(call, case, values) == tuple(want.shape)
        assert want.shape[dim] == 3
        broadcast = {n: broadcast[n] or case[n] != tuple(want.shape) for n in broadcast}
    assert broadcast == {"x1": True, "x2": True}


def test_the_plan_leaves_the_dim_to_tile_cross():
    plan = index_op.plan(load(cross_raw()))
    assert (plan.kind, plan.group, plan.shape_fn) == ("Cross", "cross", "ShapeCross")
    assert plan.gm_args == ["x1", "x2", "y"] and plan.template_args == ["DTYPE_X1"]
    assert not plan.has_dim  # NormaliseDim would refuse -65530: TileCross resolves it
    assert (plan.dim.attr, plan.dim.getter, plan.dim.default) == ("dim", "GetInt", UNSET)
    literal = index_op.plan(load(cross_raw("cross(x1, x2)", attrs=())))
    assert (literal.dim.attr, literal.dim.literal) == ("", UNSET)


def test_the_rendered_kernel_and_host_call_the_cross_group():
    proto = prototype.loads(json.dumps([cross_raw()]))
    files = {
        f.path: f.content.decode() for f in twin.render_files(proto, twin.options(), full=True)
    }
    kernel = files["op_kernel/cross.cpp"]
    assert '#include "opgen_index_cross.h"' in kernel
    assert "opgen_index::Cross<DTYPE_X1>(x1, x2, y, tilingData.index);" in kernel
    host = files["op_host/cross.cpp"]
    assert "opgen_index::TileCross(a, tiling->index)" in host
    assert "opgen_index::ShapeCross(a, outShape)" in host
    assert "NormaliseDim" not in host
    assert f"a.dim = dim0 != nullptr ? *dim0 : {UNSET};  // dim: attr dim" in host
    assert "ReadShape(src, a.src)" in host  # x2's shape
    assert "op_kernel/opgen_index_cross.h" in files
    assert "op_host/opgen_index_cross_tiling.h" in files
    test = files["tests/test_cross.py"]
    for name in ("x1", "x2"):  # int8 products that wrap, as torch's
        assert f'TensorArg("{name}", -100.0, 100.0)' in test
