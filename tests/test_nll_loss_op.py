"""nll_loss, the index ops' loss kind (NllLoss): the grammar (its tensors positional, ignore_index
and reduction by keyword, reduction a string attr), the shape rule against torch for each
reduction, the declared values of reduction, the dtypes, the plan (ignore_index skipped by the
range check, reduction read as text) and the rendered host and adapters. The kernel against torch
is tests/twin/test_index_loss.py."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import torch
import torch.nn.functional as F
from conftest import op
from kernel_host import twin

from opgen.frontend import expr, index_ops, prototype
from opgen.frontend.problems import PrototypeError
from opgen.planning import index_op
from opgen.planning import tests as tests_plan

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT / "tests" / "data" / "corpus" / "Qeeweew__AscendC-S3" / "NLLLoss__NLLLoss.json"
OVERLAY = ROOT / "tests" / "data" / "corpus_opgen" / "Qeeweew__AscendC-S3" / "NLLLoss__NLLLoss.json"
ATTR_TYPES = {"r": "string", "ig": "int", "k": "int"}
CALL = "nll_loss(x, t, w, ignore_index=ig, reduction=r)"


def parse(text: str) -> expr.Node:
    return expr.parse_compute(text, {"x", "t", "w"}, {"ig", "k"}, {}, ATTR_TYPES)


def tensor(name: str, dtypes: tuple[str, ...]) -> dict:
    return {"name": name, "param_type": "required", "format": ["ND"], "type": list(dtypes)}


REDUCTION = {"name": "r", "param_type": "optional", "type": "string", "default_value": "mean"}
IGNORE = {"name": "ig", "param_type": "optional", "type": "int", "default_value": -100}


def raw_op(compute: str = CALL, x=("float32",), target=("int32",), values=None) -> dict:
    raw = op(
        op="NllCustom",
        input_desc=[tensor("x", x), tensor("t", target), tensor("w", x)],
        output_desc=[tensor("y", x)],
        attr=[REDUCTION, IGNORE],
    )
    raw["opgen"] = {"compute": {"y": compute}}
    if values is not None:
        raw["opgen"]["values"] = {"r": values}
    return raw


def load(raw: dict):
    return prototype.loads(json.dumps([raw])).ops[0]


def problems(raw: dict) -> list[str]:
    with pytest.raises(PrototypeError) as err:
        prototype.loads(json.dumps([raw]))
    return [f"{p.path}: {p.text()}" for p in err.value.problems]


def test_the_call_parses_shows_and_spells_torch():
    call = parse(CALL)
    assert isinstance(call, expr.IndexCall)
    assert (call.x, call.index, call.src) == ("x", "t", "w")
    assert call.attrs == ("ig", "r")
    assert call.show() == CALL
    assert expr.to_torch(call) == (
        "torch.nn.functional.nll_loss(x, t.long(), w, ignore_index=ig, reduction=r)"
    )
    assert expr.to_torch(parse("nll_loss(x, t, w)")) == (
        "torch.nn.functional.nll_loss(x, t.long(), w)"
    )


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("nll_loss(x, t, w, -1)", "takes x, index, src positionally, the rest by keyword"),
        ('nll_loss(x, t, w, reduction="sum")', "reduction takes a string attr"),
        ("nll_loss(x, t, w, reduction=k)", "reduction takes a string attr"),
        ("nll_loss(x, t, w, ignore_index=r)", "ignore_index takes an int or an int attr"),
        ("nll_loss(x, t)", "needs its argument src"),
    ],
)
def test_call_refusals(text, message):
    with pytest.raises(expr.ExprError) as err:
        parse(text)
    assert message in str(err.value), str(err.value)


SHAPES = [
    ((37, 70), (37,), (70,)),
    ((1, 1), (1,), (1,)),
    ((11,), (), (11,)),
    ((11,), (1,), (11,)),
]


@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
@pytest.mark.parametrize(("x", "target", "weight"), SHAPES)
def test_shape_is_torchs(x, target, weight, reduction):
    call = parse(CALL)
    assert isinstance(call, expr.IndexCall)
    shapes = {"x": x, "t": target, "w": weight}
    want = F.nll_loss(
        torch.randn(x),
        torch.zeros(target, dtype=torch.long),
        torch.rand(weight),
        reduction=reduction,
    )
    assert index_ops.nll_loss_shape(call, shapes, reduction) == tuple(want.shape)


@pytest.mark.parametrize(
    ("x", "target", "weight", "reduction", "why"),
    [
        ((4, 3), (3,), (3,), "none", "the target t of x [4, 3] is [4], not [3]"),
        ((3,), (2,), (3,), "mean", "the target t of x [3] is [] or [1], not [2]"),
        ((4, 3), (4,), (1, 3), "sum", "the weight w of x [4, 3] is [3], not [1, 3]"),
        ((4, 3), (4,), (3,), "avg", "reduction='avg' is not one of torch's"),
        ((2, 3, 4), (2, 4), (3,), "none", "takes x [N, C] or [C], not [2, 3, 4]"),
    ],
)
def test_shapes_torch_refuses_are_refused(x, target, weight, reduction, why):
    call = parse(CALL)
    assert isinstance(call, expr.IndexCall)
    got = index_ops.nll_loss_shape(call, {"x": x, "t": target, "w": weight}, reduction)
    assert isinstance(got, str) and why in got, got
    if len(x) <= 2:  # torch refuses these too (its K-dim loss aside)
        with pytest.raises((ValueError, RuntimeError)):
            F.nll_loss(
                torch.randn(x),
                torch.zeros(target, dtype=torch.long),
                torch.rand(weight),
                reduction=reduction,
            )


def test_declared_values_are_torchs_only():
    assert load(raw_op(values=["none", "mean", "sum"])).index_call is not None
    assert load(raw_op(values=["mean"])).index_call is not None  # a subset: the rest refused
    found = problems(raw_op(values=["none", "mean", "avg"]))
    assert any("'r' takes torch's values only: 'none', 'mean', 'sum'" in p for p in found), found


def test_dtypes():
    found = problems(raw_op(x=("float16",)))
    assert any("takes x in float32, not float16" in p for p in found), found
    found = problems(raw_op(target=("float32",)))
    assert any("the index t is int32 or int64, not float32" in p for p in found), found
    assert load(raw_op(target=("int64",))).index_call is not None


def test_default_test_shapes_and_index_range():
    nll = load(raw_op())
    assert nll.test_shapes[0] == {"x": (37, 70), "t": (37,), "w": (70,)}
    assert nll.test_shapes[-1] == {"x": (11,), "t": (), "w": (11,)}
    assert nll.test_shapes[1] == {"x": (1, 9), "t": (1,), "w": (9,)}
    assert index_ops.index_range(nll) == 9  # targets in [0, 9): ignore_index=0 hits some


def test_the_tests_ignore_class_0():
    """The generated tests pass ignore_index=0, a class the drawn targets hit: some rows are
    ignored, as torch ignores any value."""
    nll = load(raw_op())
    attrs = {a.name: a for a in nll.attrs}
    assert tests_plan.attr_value(attrs["ig"], nll) == 0
    assert tests_plan.attr_value(attrs["r"], nll) == "mean"
    assert index_ops.optional_attr_sample(nll, "r") is None


def test_the_plan_reads_reduction_as_text_and_skips_ignore_index():
    plan = index_op.plan(load(raw_op(values=["none", "mean", "sum"])))
    assert plan.kind == "NllLoss" and plan.group == "loss"
    assert [(i.name, i.attr, i.getter, i.default, i.text_default) for i in plan.ints] == [
        ("ignore_index", "ig", "GetInt", -100, ""),
        ("reduction", "r", "AttrText", 0, "mean"),
    ]
    assert plan.gm_args == ["x", "t", "w", "y"]
    assert plan.range_tensor == "t" and plan.range_of == "x" and plan.dim.literal == -1
    assert plan.range_skip is not None and plan.range_skip.attr == "ig"


def test_the_corpus_op_renders_its_host_and_adapters():
    proto = json.loads(CORPUS.read_text())
    proto[0]["opgen"] = json.loads(OVERLAY.read_text())
    loaded = prototype.loads(json.dumps(proto))
    files = {
        f.path: f.content.decode() for f in twin.render_files(loaded, twin.options(), full=True)
    }
    from test_kernel_host_render import assert_tidy

    host = files["op_host/nll_loss.cpp"]
    assert 'opgen_index::ReductionCode(opgen::AttrText(attrs, 0, "mean"))' in host
    assert host.count('!opgen::AttrOneOf("NLLLoss", "reduction",') == 2  # TilingFunc, InferShape
    assert "opgen_index::TileNllLoss(a, tiling->index)" in host
    assert "op_kernel/opgen_index_loss.h" in files
    kernel = files["op_kernel/nll_loss.cpp"]
    assert "opgen_index::NllLoss<DTYPE_X, DTYPE_TARGET>(x, target, weight, y" in kernel
    cpu = next(t for p, t in files.items() if p.endswith("/csrc/ops.cpp"))
    assert "target.masked_select(target.ne(ignore_index))" in cpu
    test = files["tests/test_nll_loss.py"]
    assert "def test_out_of_range_index_refused" in test
    assert "def test_precision_reduction_values" in test
    assert "def test_reduction_refuses_an_undeclared_value" in test
    assert_tidy({p: t for p, t in files.items() if "nll_loss" in p and not p.endswith(".py")})
