"""The shape rule of a row op (a compute that reduces over the last axis, Op.is_row), stated once.

The row kernel (op_host's RowStride and ReadRows, op_kernel's row streams) reads its first input
x as rows: x's last axis is the row, every other axis counts rows. Every other input is read
beside it either with x's shape (a row per row) or, when x has at least one dim, as x's row
[x.shape[-1]] (the same row for every row); nothing else broadcasts. Rows of 0 elements
(x.shape[-1] == 0) are refused: torch's sum over them is 0, its mean nan and its amax/amin an
error, which the kernel does not compute. Zero rows (x [0, 37]) are fine: the outputs are empty.

The generated code applies this rule in its own languages, with this module's message: the
fake kernel (_support._row_shapes), the CPU adapter (opgen_torch::RowShapes, before the twin
runs the kernel), the NPU adapter (through the fake kernel on meta) and op_host's InferShape and
TilingFunc (RowStride, ReadRows); `opgen validate` checks the prototype's test_shapes with it.
"""

from __future__ import annotations

from opgen.frontend.model import Op
from opgen.frontend.problems import Problem, key_path


def row_shape_problem(op_type: str, shapes: dict[str, tuple[int, ...]]) -> str | None:
    """Why the row kernel of `op_type` refuses these input shapes (`shapes`: by input name, in
    input order, x first), or None when it takes them."""
    (ref, rows), *others = shapes.items()
    accepted = f"{ref}'s shape {list(rows)}" + (f" or its row [{rows[-1]}]" if rows else "")
    for name, shape in others:
        if tuple(shape) != tuple(rows) and not (rows and tuple(shape) == tuple(rows[-1:])):
            return f"{op_type}: {name} has shape {list(shape)}; a row op's inputs take {accepted}"
    if rows and rows[-1] == 0:
        return (
            f"{op_type}: {ref} has shape {list(rows)}: rows of 0 elements, which the row "
            "kernel does not reduce (torch: sum 0, mean nan, amax/amin an error)"
        )
    return None


def test_shapes_problems(op: Op) -> list[Problem]:
    """Each test_shapes case of a row op that gives its first input's shape follows the rule
    (an input the case leaves out takes that shape)."""
    if not op.is_row or not op.inputs:
        return []
    problems = []
    ref = op.inputs[0].name
    for k, case in enumerate(op.test_shapes):
        if ref not in case:
            continue
        shapes = {t.name: tuple(case.get(t.name, case[ref])) for t in op.inputs}
        message = row_shape_problem(op.op_type, shapes)
        if message is not None:
            path = key_path(key_path(key_path(op.json_path, "opgen"), "test_shapes"), k)
            problems.append(Problem(path, message))
    return problems
