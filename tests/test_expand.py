"""expand(x, size) (opgen/frontend/expands.py): the output's shape from a list_int attr by torch's
x.expand rule. The spelling and its refusals at validate time, and what the templates render for
it: InferShape and TilingFunc reading the attr, the adapters' and the fake kernel's check, the
kernel moving words through the broadcast reads. The built project runs in test_end_to_end.py
(expand_attr.json) and bench/corpus_build.py (the corpus's Expand)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
import torch
from conftest import ROOT, render_files

from opgen import resources
from opgen.frontend import expr, prototype
from opgen.frontend.broadcast import broadcasts
from opgen.frontend.options import Options
from opgen.frontend.prototype import PrototypeError

DTYPES = ["bfloat16", "bool", "float32", "float16", "int32", "int8", "int64", "int16", "uint16",
          "uint32", "uint64", "uint8"]  # fmt: skip
EXPAND_JSON = ROOT / "tests" / "data" / "e2e" / "expand_attr.json"


def op(compute="expand(x, size)", inputs=("x",), outputs=("out",), attrs=None, dtypes=None) -> dict:
    dtypes = dtypes or DTYPES

    def tensor(name: str, types=None) -> dict:
        return {"name": name, "param_type": "required", "format": ["ND"] * len(dtypes),
                "type": types or dtypes}  # fmt: skip

    return {
        "op": "Expand",
        "input_desc": [tensor(n) for n in inputs],
        "output_desc": [tensor(n) for n in outputs],
        "attr": attrs
        if attrs is not None
        else [{"name": "size", "type": "list_int", "param_type": "required"}],
        "opgen": {"compute": {o: compute for o in outputs}},
    }


def problems(raw) -> str:
    with pytest.raises(PrototypeError) as info:
        prototype.loads(json.dumps([raw]))
    return " ".join(f"{p.path}: {p.text()}" for p in info.value.problems)


def test_the_spelling_parses_to_an_expand_of_the_attr():
    loaded = prototype.loads(json.dumps([op()])).ops[0]
    assert loaded.expand == expr.Expand("x", "size")
    assert broadcasts(loaded)  # one input, broadcast into the attr's shape
    assert loaded.unread_attrs == ()  # size is read
    assert loaded.golden == {"out": "x.expand(size)"}


@pytest.mark.parametrize(
    "raw, message",
    [
        (op("expand(x, [2, -1])"), "expand(x, [2, -1]): give the size as a list_int attr"),
        (
            op(attrs=[{"name": "size", "type": "int", "param_type": "required"}]),
            "expand(x, size): 'size' is a int attr; expand() takes a list_int attr",
        ),
        (op("expand(x, shape)"), "'shape' is no attr"),
        (op("expand(x * 2, size)"), "expand() broadcasts an input, not 'x * 2'"),
        (op("expand(x)"), "expand() takes two arguments"),
        (op("expand(x, size) + 1"), "expand(x, size) is the whole expression of its output"),
        (op(outputs=("a", "b")), "an op with expand() has one output, not 2"),
        (op(inputs=("x", "y")), "has one required input, the one it expands (this one has x, y)"),
    ],
)
def test_misspellings_are_refused_naming_what_is_wrong(raw, message):
    assert message in problems(raw)


def test_the_output_keeps_the_dtype():
    raw = op(dtypes=["float32", "int64"])
    raw["output_desc"][0]["type"] = ["float32", "int32"]
    assert "combination 1 expands x of int64 into out of int32" in problems(raw)


def test_a_misspelling_exits_2_naming_the_op(write_proto):
    path = write_proto([op("expand(x, [2, 3])")])
    proc = subprocess.run(
        [sys.executable, "-m", "opgen", "validate", str(path)], capture_output=True, text=True
    )
    text = " ".join(proc.stderr.translate(str.maketrans("", "", "│╭╮╰╯─")).split())
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert "$[0].opgen.compute.out" in text and "give the size as a list_int attr" in text


@pytest.fixture(scope="module")
def files() -> dict[str, str]:
    """The whole project (render.render: the PyTorch package and tests too)."""
    options = Options(package="e1", namespace="e1", vendor="v", socs=("ascend910b1",))
    rendered = render_files(prototype.loads(json.dumps([op()])), options, resources.templates_dir())
    return {f.path: f.content.decode() for f in rendered}


def test_every_dtype_moves_as_words_of_its_width(files):
    kernel = files["op_kernel/expand.cpp"]
    for ge, word in [("DT_BF16", "uint16_t"), ("DT_BOOL", "uint8_t"), ("DT_INT64", "uint64_t"),
                     ("DT_UINT64", "uint64_t"), ("DT_FLOAT", "uint32_t")]:  # fmt: skip
        assert f"#elif ORIG_DTYPE_X == {ge}\nusing XElement = {word};" in kernel.replace(
            "#if ORIG", "#elif ORIG"
        )
    assert "opgen_kernel::BroadcastInStream<XElement, EXPAND_BUFFER_NUM, true> xIn_;" in kernel
    assert "opgen_kernel::OutStream<OutElement, EXPAND_BUFFER_NUM> outOut_;" in kernel
    step = files["op_kernel/expand_compute.h"]
    assert "opgen_kernel::MoveTile(out, x, count);" in step and "Cast" not in step


def test_infer_shape_and_tiling_read_the_attr(files):
    host = files["op_host/expand.cpp"]
    assert host.count("opgen::AttrListInt(context->GetAttrs(), 0, expandSize, expandDims)") == 2
    size = '"Expand", "x", expandSize, expandDims)'
    assert f"return opgen::InferShapeExpand(context, 0, {size};" in host
    assert f"opgen::CheckExpand(context, 0, outShape, {size}" in host
    assert "optiling::expand::InferShape" in host  # not the shared broadcast InferShape


def test_the_adapters_and_the_fake_kernel_check_the_size(files):
    def ending(suffix: str) -> str:
        return next(v for k, v in files.items() if k.endswith(suffix))

    assert '::ExpandShape("Expand", "x", x, size);' in ending("csrc/ops.cpp")
    npu = ending("csrc_npu/expand_npu.cpp")
    assert 'broadcast_shape_ = opgen_npu::ExpandShape("Expand", "x", x, size);' in npu
    assert 'shape_ = _expand_shape("Expand", "x", x, size)' in ending("/ops.py")


@pytest.mark.parametrize(
    "shape, size",
    [
        ((3, 1), [3, 4]),
        ((37,), [2, -1]),
        ((2, 1, 5), [4, -1, 3, -1]),
        ((), [2, 3]),
        ((0,), [2, -1]),
    ],
)
def test_the_fake_kernels_rule_is_torchs(shape, size):
    support = {}
    path = ROOT / "templates" / "torch_ext" / "project" / "{{ project.package }}" / "_support.py"
    exec(compile(path.read_text(), str(path), "exec"), support)  # noqa: S102 (opgen's own file)
    x = torch.zeros(shape)
    assert support["_expand_shape"]("Expand", "x", x, size) == x.expand(size).shape


def test_opgen_news_printed_call_passes_a_size_torch_takes():
    from opgen.commands.new import call_example

    loaded = prototype.loads(json.dumps([op()])).ops[0]
    call = call_example(loaded, "e1")
    assert call == "torch.ops.e1.expand(torch.randn(8, dtype=torch.bfloat16), size=(2, -1))"
    assert torch.randn(8).expand((2, -1)).shape == (2, 8)


def test_bfloat16_needs_no_cast_so_every_soc_registers_it():
    """ascend310p has no float <-> bfloat16 Cast, which computing ops need; expand() moves
    bfloat16 as 16-bit words (the twin runs it for ascend310p3 too)."""
    from opgen.frontend import soc_dtypes

    loaded = prototype.loads(json.dumps([op()])).ops[0]
    assert soc_dtypes.check(loaded, ["ascend310p", "ascend910b"]) == []
    assert soc_dtypes.per_soc(loaded, ["ascend310p"])["ascend310p"] == list(
        loaded.dtype_combinations
    )
