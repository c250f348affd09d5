"""Broadcasting of ops with a compute expression (opgen/frontend/broadcast.py): which ops broadcast,
the shape rule, the check of test_shapes at validate time, and what the templates render for a
broadcasting op and for the others. The twin runs of the broadcast reads are in
test_kernel_host_render.py; the built projects in test_end_to_end.py and test_generated_suite.py."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from conftest import EXAMPLES, ROOT
from kernel_host import twin

from opgen.frontend import prototype
from opgen.frontend.broadcast import broadcast_shape, broadcasts, updated_inputs

BROADCAST_JSON = ROOT / "tests" / "data" / "e2e" / "broadcast.json"


def tensor(name: str) -> dict:
    return {"name": name, "param_type": "required", "format": ["ND"], "type": ["float"]}


def op(inputs, outputs=("y",), compute=None, test_shapes=None) -> dict:
    block = {"compute": compute or {"y": " + ".join(inputs)}}
    if test_shapes is not None:
        block["test_shapes"] = test_shapes
    return {
        "op": "BcastCustom",
        "input_desc": [tensor(n) for n in inputs],
        "output_desc": [tensor(n) for n in outputs],
        "opgen": block,
    }


@pytest.mark.parametrize(
    "shapes, expected",
    [
        ([(4, 37), (37,)], (4, 37)),
        ([(7, 1, 33), (1, 5, 33), (33,)], (7, 5, 33)),
        ([(3, 1), (1, 3)], (3, 3)),
        ([(1,), (0, 4)], (0, 4)),
        ([(), (2,)], (2,)),
        ([(4,), (3,)], None),
        ([(2, 3), (3, 2)], None),
        ([(0,), (3,)], None),
    ],
)
def test_broadcast_shape_is_torchs(shapes, expected):
    assert broadcast_shape(shapes) == expected


def test_which_ops_broadcast():
    def load(raw):
        return prototype.loads(json.dumps([raw])).ops[0]

    assert broadcasts(load(op(["x", "bias"])))
    assert not broadcasts(load(op(["x"], compute={"y": "x * 2"})))  # one input
    # updates x in place: y2 broadcasts into x's shape, which z has too
    in_place = load(op(["x", "y2"], outputs=("x", "z"), compute={"x": "x + y2", "z": "x * y2"}))
    assert broadcasts(in_place) and [t.name for t in updated_inputs(in_place)] == ["x"]
    # no outputs: the inputs the compute names are updated
    no_outputs = op(["m", "g", "lr"], outputs=(), compute={"m": "m - lr * g"})
    assert [t.name for t in updated_inputs(load(no_outputs))] == ["m"]
    no_compute = op(["x", "bias"])
    del no_compute["opgen"]
    assert not broadcasts(load(no_compute))


def validate(path):
    return subprocess.run(
        [sys.executable, "-m", "opgen", "validate", str(path)], capture_output=True, text=True
    )


def test_test_shapes_that_do_not_broadcast_exit_2_naming_the_case(write_proto):
    path = write_proto(
        [op(["x", "bias"], test_shapes=[{"x": [4, 37], "bias": [37]}, {"x": [4, 37], "bias": [4]}])]
    )
    proc = validate(path)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    text = " ".join(proc.stderr.translate(str.maketrans("", "", "│╭╮╰╯─")).split())
    assert "$[0].opgen.test_shapes[1]" in text and "test_shapes[0]" not in text
    assert "x [4, 37], bias [4] do not broadcast" in text


def test_test_shapes_of_an_op_updating_an_input_broadcast_into_it(write_proto):
    raw = op(
        ["x", "y2"],
        outputs=("x", "z"),
        compute={"x": "x + y2", "z": "x * y2"},
        test_shapes=[{"x": [4, 37], "y2": [37]}, {"x": [37], "y2": [4, 37]}],
    )
    proc = validate(write_proto([raw]))
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    text = " ".join(proc.stderr.translate(str.maketrans("", "", "│╭╮╰╯─")).split())
    assert "$[0].opgen.test_shapes[1]" in text and "test_shapes[0]" not in text
    assert "broadcast to [4, 37], but BcastCustom updates x in place, which cannot grow" in text


def test_broadcast_example_validates():
    assert validate(BROADCAST_JSON).returncode == 0


def rendered(raw, socs: tuple[str, ...] = ("ascend910b1",)) -> dict[str, str]:
    text = raw if isinstance(raw, str) else json.dumps(raw)
    files = twin.render_files(prototype.loads(text), twin.options(socs))
    return {f.path: f.content.decode() for f in files}


def test_a_broadcasting_op_renders_the_broadcast_machinery():
    files = rendered(BROADCAST_JSON.read_text())
    host = files["op_host/addcmul_custom.cpp"]
    assert "this->SetInferShape(optiling::opgen::InferShapeBroadcast<0, 1, 2, 3>)" in host
    assert (
        "opgen::PlanBroadcast(context, outShape, inputs, reads, facts, plan, tiling->outShape)"
        in host
    )
    assert "const gert::StorageShape* outShape = context->GetOutputShape(0);" in host
    assert "ReadFacts(context, outShape, facts)" in host
    kernel = files["op_kernel/addcmul_custom.cpp"]
    assert (
        "opgen_kernel::BroadcastInStream<DTYPE_VALUE, ADDCMUL_CUSTOM_BUFFER_NUM> valueIn_;"
        in kernel
    )
    assert "OpgenBroadcastInput valueRead;" in files["op_kernel/addcmul_custom_tiling.h"]
    assert "struct OpgenBroadcastInput {" in files["op_kernel/opgen_broadcast.h"]
    assert "class BroadcastInStream {" in files["op_kernel/opgen_kernel.h"]


def test_a_byte_op_broadcasts_through_half():
    """int8/uint8/bool inputs broadcast too: their streams widen through half to float."""
    raw = op(["a", "b"], compute={"y": "where(a > b, a, b)"})
    for t in raw["input_desc"] + raw["output_desc"]:
        t["type"] = ["int8"]
    assert broadcasts(prototype.loads(json.dumps([raw])).ops[0])
    files = rendered(json.dumps([raw]))
    kernel = files["op_kernel/bcast_custom.cpp"]
    # read-only (the step writes neither input tile), in float through half
    assert (
        "opgen_kernel::BroadcastInStream<DTYPE_A, BCAST_CUSTOM_BUFFER_NUM, true, float> aIn_;"
        in kernel
    )
    shared = files["op_kernel/opgen_kernel.h"]
    broadcast_stream = shared[shared.index("class BroadcastInStream {") :]
    assert "return WidenInput<Compute>(tile, cast_, half_, count);" in broadcast_stream
    widen_input = shared[shared.index("WidenInput(const") : shared.index("class StreamBuffers {")]
    assert "WidenThroughHalf(wide, staging.Get<half>(), tile, count);" in widen_input


def test_inputs_the_compute_step_never_writes_hand_out_their_row_without_a_copy():
    """READ_ONLY streams: x + bias writes no input tile, so a row-broadcast x or bias is read
    from its repeated row in place; with ascend910 (910A) among the targets, without FusedMulAdd,
    a * b + c keeps a * b in a's tile, so a's stream copies its row into each tile, and the
    compute header says which tiles are read-only (FusedMulAdd writes the output tile only)."""
    files = rendered(BROADCAST_JSON.read_text())
    bias = files["op_kernel/bias_add_custom.cpp"]
    assert "BroadcastInStream<DTYPE_X, BIAS_ADD_CUSTOM_BUFFER_NUM, true> xIn_;" in bias
    assert "BroadcastInStream<DTYPE_BIAS, BIAS_ADD_CUSTOM_BUFFER_NUM, true> biasIn_;" in bias
    assert "except x's and bias's" in files["op_kernel/bias_add_custom_compute.h"]
    fused = files["op_kernel/broadcast_fma_custom.cpp"]
    assert "BroadcastInStream<DTYPE_A, BROADCAST_FMA_CUSTOM_BUFFER_NUM, true> aIn_;" in fused
    fused = rendered(BROADCAST_JSON.read_text(), ("ascend310b1",))[
        "op_kernel/broadcast_fma_custom.cpp"
    ]
    assert "BroadcastInStream<DTYPE_A, BROADCAST_FMA_CUSTOM_BUFFER_NUM, true> aIn_;" in fused
    files = rendered(BROADCAST_JSON.read_text(), ("ascend910b1", "ascend910a"))
    fma = files["op_kernel/broadcast_fma_custom.cpp"]
    assert "BroadcastInStream<DTYPE_A, BROADCAST_FMA_CUSTOM_BUFFER_NUM> aIn_;" in fma
    assert "BroadcastInStream<DTYPE_B, BROADCAST_FMA_CUSTOM_BUFFER_NUM, true> bIn_;" in fma
    step = files["op_kernel/broadcast_fma_custom_compute.h"]
    assert "AscendC::Mul(a, a, b, count);" in step
    assert "except b's and c's: the kernel hands every tile" in step
    stream = files["op_kernel/opgen_kernel.h"]
    assert "template <typename T, int32_t BUFFERS, bool READ_ONLY = false, typename C" in stream
    assert "return;  // Load() hands out rows_ itself" in stream


def test_an_op_that_does_not_broadcast_renders_as_before():
    """The libraries (op_kernel/opgen_kernel.h, opgen_broadcast.h, op_host/opgen_tiling.h) are
    the same in every project; GELU's own files do not broadcast."""
    files = rendered((EXAMPLES / "gelu_custom.json").read_text())
    assert "Broadcast" not in files["op_host/gelu_custom.cpp"] + files["op_kernel/gelu_custom.cpp"]
    assert "InferShapeLikeInput<0>" in files["op_host/gelu_custom.cpp"]


def golden_py(raw, tmp_path) -> str:
    proto = tmp_path / "p.json"
    proto.write_text(raw if isinstance(raw, str) else json.dumps(raw))
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "opgen",
            "new",
            str(proto),
            "-o",
            str(tmp_path / "out"),
            "--package",
            "bcast",
            "--no-build",
            "--no-msopgen",
        ],
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0, proc.stderr
    return (tmp_path / "out" / "bcast" / "golden.py").read_text()


def test_a_golden_reading_only_some_inputs_is_expanded_to_the_broadcast_shape(tmp_path):
    """Every output of a broadcasting op has the inputs' broadcast shape: a golden that reads
    only x is broadcast to it (torch.broadcast_to); one that reads every input stays as it is.
    The shape's name does not clash with an input's."""
    golden = golden_py(
        [op(["x", "shape"], outputs=("a", "b"), compute={"a": "x * 2", "b": "x + shape"})], tmp_path
    )
    assert "    shape1 = torch.broadcast_shapes(x.shape, shape.shape)\n" in golden
    assert "return (torch.broadcast_to((x * 2.0), shape1), (x + shape))" in golden


def test_goldens_reading_every_input_are_not_expanded(tmp_path):
    assert "broadcast_to" not in golden_py(BROADCAST_JSON.read_text(), tmp_path)
