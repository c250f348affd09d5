"""Template data of the ops the user computes (`op.user`): ops without a compute expression
(model.Op.user_computed). Their kernel body, tiling and InferShape/InferDataType are user-owned
skeletons (templates/*/user_op/); the generated files around them assume no shape rule. The
tests take the inputs' shapes from "opgen": {"test_shapes"} and the outputs' from the golden."""

from __future__ import annotations

import json
from dataclasses import dataclass

from opgen.frontend.model import Op
from opgen.literals import py_string
from opgen.planning.kernel import KernelData
from opgen.planning.layout import LINE, doc_lines, split_pieces


@dataclass(frozen=True)
class GmTensor:
    """A tensor of the kernel skeleton: a dynamic one arrives as a list (ListTensorDesc), the
    others as one GM buffer each."""

    name: str
    address: str  # the kernel's GM_ADDR parameter
    macro: str  # its DTYPE_ macro
    member: str
    role: str  # in words, for the comment
    optional: bool
    dynamic: bool


@dataclass(frozen=True)
class ShapeCase:
    """A test_shapes entry: its pytest id and the input shapes, as JSON."""

    id: str
    shapes_json: str


@dataclass(frozen=True)
class PendingReasons:
    """Why each generated test of the op is pending until the user writes its files (each the
    pieces of a Python string literal)."""

    infer: list[str]
    kernel: list[str]
    aot: list[str]
    fake: list[str]


@dataclass(frozen=True)
class UserOpData:
    infer_header: str  # op_host/<op>_infer.h: InferShape, InferDataType (yours)
    infer_guard: str
    placeholder_macro: str  # defined by the infer skeleton until the user writes InferShape
    kernel_header: str  # op_kernel/<op>_kernel.h: the kernel body (yours)
    kernel_guard: str
    kernel_class: str
    # the kernel header may define it (KERNEL_TYPE_MIX_AIC_1_2 for a Matmul kernel): the entry
    # then declares KERNEL_TASK_TYPE_DEFAULT with it
    kernel_type_macro: str
    tiling_guard: str
    gm_addresses: list[str]  # the kernel class's Init() takes them all, then the tiling data
    init_args: list[str]  # what the entry passes it
    gm_tensors: list[GmTensor]
    files: list[str]  # every file the user writes, relative to the project
    pending: list[str]  # the files whose PLACEHOLDER banner makes the precision tests xfail
    test_shapes: list[ShapeCase]  # [] without test_shapes
    warnings: list[str]
    # the generated test file: its docstring's lines, and its xfail reasons (string pieces)
    doc: list[str]
    reasons: PendingReasons
    # why opcheck's AOT check is skipped (string pieces): the op leaves part of an output
    # undefined ("opgen": {"defined"}); [] when it defines every element
    undefined_reason: list[str]


def plan(
    op: Op, kernel_data: KernelData, written: str = "", complex_ok: bool = False
) -> UserOpData | None:
    """`written`: why the op's kernel and host files need no writing, when they do not: a
    matmul op's shell (project._build_matmul_op, opgen writes them) or an adopted project's op
    (the user's own files). `complex_ok`: the op's complex tensors need no elementwise stand-in
    (an index op's shell: the library moves them as words; one without outputs names what it
    overwrites)."""
    shell = complex_ok and op.compute == {} and (bool(op.outputs) or bool(op.apart))
    if not op.user_computed and not shell:
        return None
    snake, upper = op.snake_name, op.snake_name.upper()
    addresses = [t.kernel_param for t in op.tensors] + ["workspace"]
    infer = f"op_host/{snake}_infer.h"
    kernel = f"op_kernel/{snake}_kernel.h"
    files = [kernel, f"op_kernel/{snake}_tiling.h", f"op_host/{snake}_tiling_policy.h", infer]
    doc = (
        f"{op.op_type}, an op without a compute expression: yours to compute. The fake "
        "kernel, the PyTorch registration and the OpDef are checked now; InferShape against "
        "the golden's shapes, and precision on the CPU twin, once you write "
        f"{', '.join(files)}. "
        f"While {infer} defines {upper}_INFER_SHAPE_NOT_WRITTEN, the CPU op runs nothing and "
        "returns zeros of the fake kernel's shapes (csrc/ops.cpp)."
    )
    generated = bool(written)
    if generated:
        files = []
        doc = (
            f"{op.op_type}, {written}. The fake kernel (the golden on meta tensors), the "
            "PyTorch registration, the OpDef, InferShape against the golden's shapes, and "
            "precision on the CPU twin, over the prototype's test_shapes."
        )
    return UserOpData(
        infer_header=f"{snake}_infer.h",
        infer_guard=f"{upper}_INFER_H",
        placeholder_macro=f"{upper}_INFER_SHAPE_NOT_WRITTEN",
        kernel_header=f"{snake}_kernel.h",
        kernel_guard=f"{upper}_KERNEL_H",
        kernel_class=f"Kernel{op.op_type}",
        kernel_type_macro=f"{upper}_KERNEL_TYPE",
        tiling_guard=f"{upper}_TILING_H",
        gm_addresses=addresses,
        init_args=addresses + [kernel_data.entry_tiling_var],
        gm_tensors=_gm_tensors(op),
        files=files,
        pending=[] if generated else [kernel, infer],
        test_shapes=_test_cases(op),
        warnings=[] if generated else _warnings(op, files),
        doc=doc_lines(doc, LINE - 4),
        reasons=PendingReasons(
            **{
                k: [py_string(p) for p in split_pieces(v)]
                for k, v in _reasons(op, kernel, infer).items()
            }
        ),
        undefined_reason=[py_string(p) for p in split_pieces(_undefined_reason(op))],
    )


def _undefined_reason(op: Op) -> str:
    """Why opcheck's AOT check cannot judge an op that leaves part of an output undefined;
    "" when it defines all of them."""
    if not op.defined:
        return ""
    parts = "; ".join(
        f"{name} is undefined outside {name}{sub}" for name, sub in op.defined.items()
    )
    return (
        f'{op.op_type}: {parts} ("opgen": {{"defined"}}): opcheck\'s AOT '
        "check compares every element, where NaN is unequal to NaN; test_compile compares "
        "eager and torch.compile instead, NaN equal"
    )


def _gm_tensors(op: Op) -> list[GmTensor]:
    """The kernel's GM tensors."""
    return [
        GmTensor(
            name=t.name,
            address=t.kernel_param,
            macro=t.dtype_macro,
            member=f"{t.kernel_param}{'List' if t.param_type == 'dynamic' else 'Gm'}_",
            # an in-place output: on the NPU the same memory as its input
            role=f"{t.role}, input {t.name} updated in place"
            if t.role == "output" and t.is_ref
            else t.role,
            optional=t.param_type == "optional",
            dynamic=t.param_type == "dynamic",
        )
        for t in op.tensors
    ]


def _test_cases(op: Op) -> list[ShapeCase]:
    """The prototype's test_shapes, each with a pytest id (the JSON as Jinja's tojson wrote it:
    keys sorted)."""
    return [
        ShapeCase(
            id="-".join(
                f"{name}{'x'.join(map(str, shape)) or 'scalar'}" for name, shape in case.items()
            ),
            shapes_json=json.dumps(
                {name: list(shape) for name, shape in case.items()}, sort_keys=True
            ),
        )
        for case in op.test_shapes
    ]


def _warnings(op: Op, files: list[str]) -> list[str]:
    """What `opgen new` says of an op the user computes."""
    snake = op.snake_name
    what = (
        "a golden but no compute expression"
        if op.golden
        else "neither a compute expression nor a golden"
    )
    warnings = [
        f"{op.op_type} has {what}: it is yours to compute, and opgen assumes no shape "
        f"rule for it. Write {', '.join(files)} (each carries TODOs; the tests name "
        "what is still missing)"
    ]
    if not op.golden:
        warnings.append(
            f"{op.op_type} has no golden: its tests cannot check shapes or values "
            f'until you give one ("opgen": {{"golden": ...}}) or define golden() '
            f"and fake() in overrides/{snake}.py"
        )
    elif not op.test_shapes and len(op.inputs) > 1:
        warnings.append(
            f'{op.op_type}: without "opgen": {{"test_shapes": ...}} its tests give '
            "every input one shape, which its golden may not take (a matmul does "
            "not): give the inputs' shapes there"
        )
    return warnings


def _reasons(op: Op, kernel: str, infer: str) -> dict[str, str]:
    """Why each generated test of the op is pending, skipped or failing until the user writes
    its files."""
    snake, upper = op.snake_name, op.snake_name.upper()
    return {
        "infer": f"{infer} is opgen's placeholder: write InferShape there, then delete its "
        f"#define {upper}_INFER_SHAPE_NOT_WRITTEN line",
        "kernel": f"{op.op_type} is yours to compute: write the kernel in {kernel} (then delete "
        f"its PLACEHOLDER banner), its tiling in op_kernel/{snake}_tiling.h and "
        f"op_host/{snake}_tiling_policy.h, and InferShape in {infer}"
        + ("" if op.golden else f", and a golden: define golden() in overrides/{snake}.py"),
        "aot": f"{kernel} is opgen's placeholder, which writes no output: eager and compiled "
        "runs see different values",
        "fake": f"{op.op_type} has no golden to take output shapes from: define fake() in "
        f"overrides/{snake}.py",
    }
