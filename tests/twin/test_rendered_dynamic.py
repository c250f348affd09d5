"""The generated project of an op with an optional input, a dynamic input and a dynamic output
(no compute expression: opgen's skeletons of an op the user computes, rendered here) compiles
against the twin unchanged and, once the user has written InferShape (below, as a user would),
runs end to end through opgen_twin::RunOp: the generated InferDataType types every instance of
the list output (GetIrOutputInstanceInfo), and the kernel skeleton takes the dynamic tensors as
tensor-list descriptors (ListTensorDesc::Init checks them). The skeleton's Process() computes
nothing; the outputs are checked for their shapes and dtypes."""

from __future__ import annotations

import concurrent.futures
import json
import subprocess
import time

import pytest
from test_runner import encode
from twin_support import CPP, CXX, CXXFLAGS, compile_cmd

PROTO = json.dumps(
    [
        {
            "op": "OptDynCustom",
            "input_desc": [
                {"name": "x", "type": ["fp16", "float"]},
                {"name": "bias", "param_type": "optional", "type": ["fp16", "float"]},
                {"name": "parts", "param_type": "dynamic", "type": ["fp16", "float"]},
            ],
            "output_desc": [
                {"name": "y", "type": ["fp16", "float"]},
                {"name": "rest", "param_type": "dynamic", "type": ["fp16", "float"]},
            ],
            "attr": [],
        }
    ]
)
# The user's InferShape: y and every tensor of rest take x's shape.
PLACEHOLDER_INFER = """    (void)context;
    return ge::GRAPH_FAILED;
}"""
USER_INFER = """    const gert::Shape* x = context->GetRequiredInputShape(0);
    const gert::AnchorInstanceInfo* rest = context->GetIrOutputInstanceInfo(1);
    if (x == nullptr || rest == nullptr) {
        return ge::GRAPH_FAILED;
    }
    *context->GetOutputShape(0) = *x;
    for (size_t i = 0; i < rest->GetInstanceNum(); ++i) {
        *context->GetOutputShape(rest->GetInstanceStart() + i) = *x;
    }
    return ge::GRAPH_SUCCESS;
}"""
MACROS = ["DTYPE_X", "DTYPE_BIAS", "DTYPE_PARTS", "DTYPE_Y", "DTYPE_REST"]
VARIANTS = {"fp16": ("half", "DT_FLOAT16"), "fp32": ("float", "DT_FLOAT")}


def variants_unit() -> str:
    """Both dtype variants of the unchanged kernel, per the README's variant pattern."""
    lines = [
        '#include "kernel_operator.h"',
        '#include "opt_dyn_custom_tiling.h"',
    ]
    for name, (ctype, _) in VARIANTS.items():
        lines += [f"#define {m} {ctype}" for m in MACROS]
        lines += [
            f"#define opt_dyn_custom opgen_kernel_opt_dyn_custom_{name}",
            f"namespace opgen_variant_opt_dyn_custom_{name} {{",
            "#undef OPT_DYN_CUSTOM_KERNEL_H",  # the user's kernel class is per dtype variant
            '#include "opt_dyn_custom.cpp"',
            "}",
            "#undef opt_dyn_custom",
        ]
        lines += [f"#undef {m}" for m in MACROS]
    return "\n".join(lines) + "\n"


def variants_table() -> str:
    """DriverVariants() for runner_driver.cpp built with -DOPGEN_DRIVER_VARIANTS."""
    params = ", ".join(["GM_ADDR"] * 7)
    lines = [f'extern "C" void opgen_kernel_opt_dyn_custom_{n}({params});' for n in VARIANTS]
    rows = []
    for name, (_, ge) in VARIANTS.items():
        dts = ", ".join([f"ge::{ge}"] * 5)
        rows.append(f"{{{{{dts}}}, opgen_twin::MakeKernel(opgen_kernel_opt_dyn_custom_{name})}}")
    lines += [
        "inline std::vector<opgen_twin::KernelVariant> DriverVariants(const std::string& op) {",
        f'    if (op == "OptDynCustom") return {{{", ".join(rows)}}};',
        "    return {};",
        "}",
    ]
    return "\n".join(lines) + "\n"


@pytest.fixture(scope="module")
def rendered_driver(tmp_path_factory):
    from opgen.frontend import prototype
    from opgen.frontend.options import Options
    from opgen.planning import plan_project
    from opgen.rendering.render import render
    from opgen.resources import templates_dir

    root = tmp_path_factory.mktemp("opt_dyn")
    proj = root / "proj"
    proto, options = prototype.loads(PROTO), Options("p", "p", "p")
    for f in render(proto, options, templates_dir(), plan_project(proto, options)):
        path = proj / f.path
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(f.content)
    infer = proj / "op_host" / "opt_dyn_custom_infer.h"
    assert PLACEHOLDER_INFER in infer.read_text()
    infer.write_text(infer.read_text().replace(PLACEHOLDER_INFER, USER_INFER))
    (root / "variants.cpp").write_text(variants_unit())
    (root / "opt_dyn_variants.inc").write_text(variants_table())
    kernel_dir = proj / "op_kernel"
    jobs = {
        "kernel": [CXX, *CXXFLAGS, "-I", str(kernel_dir), "-c", str(root / "variants.cpp")],
        "host": [CXX, *CXXFLAGS, "-c", str(proj / "op_host" / "opt_dyn_custom.cpp")],
        "driver": [
            CXX,
            *CXXFLAGS,
            "-I",
            str(root),
            '-DOPGEN_DRIVER_VARIANTS="opt_dyn_variants.inc"',
            "-c",
            str(CPP / "runner_driver.cpp"),
        ],
    }
    seconds = {}
    with concurrent.futures.ThreadPoolExecutor(max_workers=3) as pool:
        futs = {
            pool.submit(compile_cmd, cmd + ["-o", str(root / f"{name}.o")]): name
            for name, cmd in jobs.items()
        }
        for fut in concurrent.futures.as_completed(futs):
            name = futs[fut]
            seconds[name], proc = fut.result()
            assert proc.returncode == 0, f"{name}: {' '.join(jobs[name])}\n{proc.stderr}"
    print("rendered OptDynCustom compile seconds:", seconds)
    exe = root / "driver"
    link = subprocess.run(
        [CXX, "-o", str(exe), *(str(root / f"{n}.o") for n in jobs)], capture_output=True, text=True
    )
    assert link.returncode == 0, link.stderr
    return exe


def run(exe, tmp_path, command, dtype, x_shape, parts_shapes, bias=False, rest=None):
    args = [str(exe), command, "OptDynCustom"] + ([str(tmp_path)] if command == "run" else [])

    def tensor(name, shape):
        n = 1
        for d in shape:
            n *= d
        f = tmp_path / f"{name}.bin"
        f.write_bytes(encode(dtype, [float(i % 7) for i in range(n)]))
        return ["--in", dtype, ",".join(map(str, shape)), str(f)]

    args += tensor("x", x_shape)
    args += tensor("bias", x_shape) if bias else ["--absent"]
    args += ["--list", str(len(parts_shapes))]
    for j, shape in enumerate(parts_shapes):
        args += tensor(f"part{j}", shape)
    if rest is not None:
        args += ["--out-instances", f"1,{rest}"]
    start = time.monotonic()
    proc = subprocess.run(args, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    out["seconds"] = time.monotonic() - start
    return out


@pytest.mark.slow
@pytest.mark.parametrize(
    "dtype,x_shape,parts,bias,rest",
    [
        pytest.param("DT_FLOAT", [4, 33], [[4, 33], [4, 33]], False, 3, id="fp32-2parts-3rest"),
        pytest.param("DT_FLOAT16", [5000], [[5000]], True, 1, id="fp16-bias-multicore"),
        pytest.param("DT_FLOAT", [7], [[7], [7], [7], [7]], True, 2, id="fp32-unaligned-4parts"),
    ],
)
def test_rendered_op_with_dynamic_output_runs(
    rendered_driver, tmp_path, dtype, x_shape, parts, bias, rest
):
    res = run(rendered_driver, tmp_path, "run", dtype, x_shape, parts, bias=bias, rest=rest)
    assert res["ok"], f"{res['stage']}: {res['error']}"
    assert res["launched"] and res["block_dim"] >= 1
    y, rest_out = res["outputs"]
    assert y["shape"] == x_shape and y["dtype"] == dtype
    # The user's InferShape gives every output x's shape, the generated InferDataType x's dtype.
    assert [o["shape"] for o in rest_out["list"]] == [x_shape] * rest
    assert [o["dtype"] for o in rest_out["list"]] == [dtype] * rest


@pytest.mark.slow
def test_rendered_op_infer_counts_instances(rendered_driver, tmp_path):
    out = run(rendered_driver, tmp_path, "infer", "DT_FLOAT16", [2, 3], [[2, 3]] * 3, rest=4)
    assert out["ok"], out["error"]
    assert out["instances"] == [[0, 1], [1, 4]]
    assert [o["shape"] for o in out["outputs"]] == [[2, 3]] * 5
    assert {o["dtype"] for o in out["outputs"]} == {"DT_FLOAT16"}
