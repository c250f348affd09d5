"""The shape rule of a row op (a compute that reduces over the last axis, Op.is_row), stated once.

The row kernel (op_host's RowStride and ReadRows, op_kernel's row streams) reads its first input
x as rows: x's last axis is the row, every other axis counts rows. Every other input is read
beside it with x's shape (a row per row); when x has at least one dim, as x's row
[x.shape[-1]] (the same row for every row); or, when the reduced axes are x's last ones, as a
value per row: 1s over the row's axes, and before them x's dims before the row or their last
ones (InstanceNorm's gamma [C, 1] over x [N, C, L]: row r reads gamma[r % C]); nothing else
broadcasts. Rows of 0 elements
(x.shape[-1] == 0) are refused: torch's sum over them is 0, its mean nan and its amax/amin an
error, which the kernel does not compute. Zero rows (x [0, 37]) are fine: the outputs are empty.

The generated code applies this rule in its own languages, with this module's message: the
fake kernel (_support._row_shapes), the CPU adapter (opgen_torch::RowShapes, before the twin
runs the kernel), the NPU adapter (through the fake kernel on meta) and op_host's InferShape and
TilingFunc (RowStride, ReadRows); `opgen validate` checks the prototype's test_shapes with it.
"""

from __future__ import annotations

import math

from opgen.frontend.model import Op
from opgen.frontend.problems import Problem, key_path


def named_axes(shape: tuple[int, ...], dims: tuple[int, ...]) -> set[int] | str:
    """The axes of `shape` that `dims` names (torch's dim: negative ones count from the end, ()
    every axis), or why torch refuses them: a dim out of range or named twice."""
    rank = len(shape)
    span = max(rank, 1)  # a 0-d tensor takes dim 0 and -1, as torch's sum does
    normal = []
    for d in dims:
        if not -span <= d < span:
            return f"dim={_dims_text(dims)} names axis {d}, and {{ref}} {list(shape)} has {rank}"
        normal.append(d % span)
    if len(set(normal)) != len(normal):
        return f"dim={_dims_text(dims)} names an axis of {{ref}} {list(shape)} twice"
    return set(normal) if dims else set(range(rank))


def row_split(shape: tuple[int, ...], dims: tuple[int, ...]) -> tuple[int, int, int] | str:
    """`shape` under `dims` as (lead, reduce, trail): the elements before the reduced axes, those
    reduced and those after them (1: the reduced axes are the last ones, the row kernel's rows;
    more: its column mode, CANN's RA and ARA patterns). Axes of one element count neither way.
    Or why the row kernel cannot reduce them: named_axes' reasons, or reduced axes (of more than
    one element) that are not adjacent."""
    named = named_axes(shape, dims)
    if isinstance(named, str):
        return named
    parts = [1, 1, 1]
    part = 0  # before the reduced axes, among them, after them
    for axis, size in enumerate(shape):
        if size == 1:
            continue
        if axis in named and part == 2:
            return (
                f"dim={_dims_text(dims)} of {{ref}} {list(shape)} are not adjacent axes; opgen's "
                "row kernel reduces one run of them"
            )
        part = 1 if axis in named else 0 if part == 0 else 2
        parts[part] *= size
    return parts[0], parts[1], parts[2]


def row_first_axis(shape: tuple[int, ...], dims: tuple[int, ...]) -> int | None:
    """The first axis of `shape`'s row when `dims` names its last axes (the row, which another
    input may be, read for every row), else None."""
    named = named_axes(shape, dims)
    if isinstance(named, str):
        return None
    first = len(shape)
    while first - 1 in named:
        first -= 1
    return first if all(a >= first for a in named) else None


def row_value_period(
    shape: tuple[int, ...], rows: tuple[int, ...], dims: tuple[int, ...]
) -> int | None:
    """When `shape` is a value per row of `rows` reduced over `dims` (the reduced axes are
    rows' last ones; `shape`, right-aligned, has 1s over them and before them rows' dims or their
    last ones after leading 1s), the number of values it holds: row r reads value r % period.
    Else None."""
    first = row_first_axis(rows, dims)
    if first is None or len(shape) > len(rows):
        return None
    padded = (1,) * (len(rows) - len(shape)) + tuple(shape)
    if any(n != 1 for n in padded[first:]):
        return None
    start = next((i for i in range(first) if padded[i] != 1), first)
    if padded[start:first] != tuple(rows[start:first]):
        return None
    return math.prod(rows[start:first])


def _dims_text(dims: tuple[int, ...]) -> str:
    return "None" if not dims else str(dims[0]) if len(dims) == 1 else str(list(dims))


def row_shape_problem(
    op_type: str, shapes: dict[str, tuple[int, ...]], dims: tuple[int, ...] = (-1,)
) -> str | None:
    """Why the row kernel of `op_type` refuses these input shapes (`shapes`: by input name, in
    input order, x first) when it reduces `dims`, or None when it takes them."""
    (ref, rows), *others = shapes.items()
    split = row_split(tuple(rows), dims)
    if isinstance(split, str):
        return f"{op_type}: " + split.format(ref=ref)
    first = row_first_axis(tuple(rows), dims)
    row = None if first is None or not rows else list(rows[first:])
    accepted = accepted_shapes(ref, list(rows), first)
    for name, shape in others:
        if tuple(shape) == tuple(rows) or list(shape) == row:
            continue
        if row_value_period(tuple(shape), tuple(rows), dims) is not None:
            continue
        return f"{op_type}: {name} has shape {list(shape)}; a row op's inputs take {accepted}"
    if split[1] == 0:
        return (
            f"{op_type}: {ref} has shape {list(rows)}: rows of 0 elements, which the row "
            "kernel does not reduce (torch: sum 0, mean nan, amax/amin an error)"
        )
    return None


def accepted_shapes(ref: str, rows: list[int], first: int | None) -> str:
    """The shapes another input of a row op may have, in words (`first`: row_first_axis)."""
    if first is None or not rows:
        return f"{ref}'s shape {rows}"
    if first == 0:
        return f"{ref}'s shape {rows} or its row {rows}"
    value = rows[:first] + [1] * (len(rows) - first)
    return (
        f"{ref}'s shape {rows}, its row {rows[first:]} or a value per row ({value}, or without "
        "its first dims)"
    )


def default_dims(op: Op) -> tuple[int, ...] | None:
    """The axes the op reduces with its attrs' defaults (None: a required attr names them)."""
    axes = op.row_axes
    if not axes.attr:
        return axes.dims
    attr = next(a for a in op.attrs if a.name == axes.attr)
    if attr.required:
        return None
    value = attr.default
    return tuple(value) if isinstance(value, list) else (value,)


def test_shapes_problems(op: Op) -> list[Problem]:
    """Each test_shapes case of a row op that gives its first input's shape follows the rule
    (an input the case leaves out takes that shape)."""
    dims = default_dims(op)
    if not op.is_row or not op.inputs or dims is None:
        return []
    problems = []
    ref = op.inputs[0].name
    for k, case in enumerate(op.test_shapes):
        if ref not in case:
            continue
        shapes = {t.name: tuple(case.get(t.name, case[ref])) for t in op.inputs}
        message = row_shape_problem(op.op_type, shapes, dims)
        if message is not None:
            path = key_path(key_path(key_path(op.json_path, "opgen"), "test_shapes"), k)
            problems.append(Problem(path, message))
    return problems
