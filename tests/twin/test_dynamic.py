"""Dynamic (list) inputs and outputs end to end: the hand-written ListSumCustom op
(kernels/list_sum: optional `bias`, dynamic input `parts`, dynamic output `rest`) run through
opgen_twin::RunOp by runner_driver. Its kernel decodes the tensor lists with
AscendC::ListTensorDesc; the values are checked against Python."""

from __future__ import annotations

import json
import struct

import pytest
from test_runner import decode, encode

# Every test runs runner_driver, which the twin_build fixture compiles (conftest.py).
pytestmark = pytest.mark.slow


def run_list_sum(build, tmp_path, x, parts, bias=None, rest=None, dtype="DT_FLOAT", command="run"):
    """x, bias: (shape, values); parts: list of (shape, values); rest: instance count or None."""
    args = [command, "ListSumCustom"] + ([str(tmp_path)] if command == "run" else [])

    def tensor(name, shape, values):
        f = tmp_path / f"{name}.bin"
        f.write_bytes(encode(dtype, values))
        return ["--in", dtype, ",".join(str(d) for d in shape), str(f)]

    args += tensor("x", *x)
    args += tensor("bias", *bias) if bias is not None else ["--absent"]
    args += ["--list", str(len(parts))]
    for j, part in enumerate(parts):
        args += tensor(f"part{j}", *part)
    if rest is not None:
        args += ["--out-instances", f"1,{rest}"]
    proc = build.run("runner_driver", *args)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def read(tmp_path, out):
    return decode(out["dtype"], (tmp_path / out["file"].split("/")[-1]).read_bytes())


def test_dynamic_input_and_output_values(twin_build, tmp_path):
    x = ([2, 3], [1.0, 2.0, 3.0, 4.0, 5.0, 6.0])
    parts = [([2, 3], [10.0 * (j + 1) + i for i in range(6)]) for j in range(3)]
    res = run_list_sum(twin_build, tmp_path, x, parts, rest=4)
    assert res["ok"], res["error"]
    y, rest = res["outputs"]
    assert y["shape"] == [2, 3] and y["dtype"] == "DT_FLOAT"
    assert read(tmp_path, y) == [x[1][i] + sum(p[1][i] for p in parts) for i in range(6)]
    assert [o["shape"] for o in rest["list"]] == [[2, 3]] * 4
    assert [o["dtype"] for o in rest["list"]] == ["DT_FLOAT"] * 4
    for r, out in enumerate(rest["list"]):  # rest[r] = parts[r % 3] * (r + 1)
        assert read(tmp_path, out) == [v * (r + 1) for v in parts[r % 3][1]]
    # The tiling the host wrote: totalLength, numParts, numRest, hasBias.
    assert struct.unpack("<4I", bytes.fromhex(res["tiling_hex"])) == (6, 3, 4, 0)


def test_optional_input_with_dynamic_lists(twin_build, tmp_path):
    x = ([5], [1.0, 2.0, 3.0, 4.0, 5.0])
    bias = ([5], [0.5] * 5)
    parts = [([5], [100.0] * 5)]
    res = run_list_sum(twin_build, tmp_path, x, parts, bias=bias, rest=1)
    assert res["ok"], res["error"]
    assert read(tmp_path, res["outputs"][0]) == [v + 100.5 for v in x[1]]
    assert struct.unpack("<4I", bytes.fromhex(res["tiling_hex"]))[3] == 1
    assert len(res["outputs"][1]["list"]) == 1  # given count 1


def test_list_entries_of_other_shapes(twin_build, tmp_path):
    """Same rank, other shapes: each list entry is read with its own descriptor shape."""
    x = ([2, 3], [0.0] * 6)
    parts = [([2, 3], [1.0] * 6), ([3, 2], [2.0] * 6), ([1, 6], [3.0] * 6)]
    res = run_list_sum(twin_build, tmp_path, x, parts, rest=3)
    assert res["ok"], res["error"]
    assert read(tmp_path, res["outputs"][0]) == [6.0] * 6
    assert [o["shape"] for o in res["outputs"][1]["list"]] == [[2, 3], [3, 2], [1, 6]]


def test_mixed_rank_list_is_a_hardware_error(twin_build, tmp_path):
    """The NPU's ListTensorDesc assumes one rank for the whole list."""
    x = ([6], [0.0] * 6)
    parts = [([6], [1.0] * 6), ([2, 3], [2.0] * 6)]
    res = run_list_sum(twin_build, tmp_path, x, parts, rest=1)
    assert not res["ok"] and res["stage"] == "launch"
    assert res["error"].startswith(
        "kernel block 0 of 1: ListTensorDesc::GetSize: tensor 1 of the list has 2 dims"
    )


def test_empty_tensors_in_lists_skip_the_launch(twin_build, tmp_path):
    res = run_list_sum(twin_build, tmp_path, ([0, 4], []), [([0, 4], []), ([4, 0], [])], rest=2)
    assert res["ok"], res["error"]
    assert res["block_dim"] == 0 and not res["launched"]
    assert [o["shape"] for o in res["outputs"][1]["list"]] == [[0, 4], [4, 0]]


def test_dynamic_validation_and_variant_selection(twin_build, tmp_path):
    res = run_list_sum(
        twin_build, tmp_path, ([2], [1.0, 2.0]), [([2], [1.0, 1.0])], dtype="DT_FLOAT16"
    )
    assert not res["ok"] and res["stage"] == "launch"
    assert "no compiled kernel variant" in res["error"]  # only the float variant is built
    res = run_list_sum(twin_build, tmp_path, ([2], [1.0, 2.0]), [([3], [1.0] * 3)])
    assert not res["ok"] and res["stage"] == "infer_shape"  # parts must match x's element count


def test_infer_reports_instances(twin_build, tmp_path):
    out = run_list_sum(
        twin_build,
        tmp_path,
        ([2, 2], [0.0] * 4),
        [([4], [0.0] * 4), ([1, 4], [0.0] * 4)],
        rest=3,
        command="infer",
    )
    assert out["ok"], out["error"]
    assert [o["shape"] for o in out["outputs"]] == [[2, 2], [4], [1, 4], [4]]
    assert out["instances"] == [[0, 1], [1, 3]]
