"""Broadcasting of ops with a compute expression: which ops broadcast their inputs (torch's
rules), the broadcast shape of some input shapes, and the check of the prototype's test_shapes
against it."""

from __future__ import annotations

from opgen.model import Op, TensorParam
from opgen.problems import Problem, key_path

# Dims of a broadcast shape the kernels handle (Ascend's tensor rank limit).
MAX_RANK = 8


def broadcasts(op: Op) -> bool:
    """An op with a compute expression and outputs broadcasts its required inputs (the tensors
    its kernel streams) when it has two or more. An op that updates an input in place (no
    outputs, or an output that is an input) keeps one shape for all of them."""
    return (op.is_elementwise and not op.in_place_only and not any(t.is_ref for t in op.outputs)
            and len(broadcast_inputs(op)) >= 2)


def broadcast_inputs(op: Op) -> list[TensorParam]:
    """The inputs that take part in broadcasting: the required ones."""
    return [t for t in op.inputs if t.param_type == "required"]


def broadcast_shape(shapes: list[tuple[int, ...]]) -> tuple[int, ...] | None:
    """torch's broadcast shape of `shapes`, or None when they are incompatible."""
    rank = max((len(s) for s in shapes), default=0)
    out = []
    for d in range(rank):
        dim = 1
        for s in shapes:
            k = d - (rank - len(s))
            if k < 0 or s[k] == 1:
                continue
            if dim not in (1, s[k]):
                return None
            dim = s[k]
        out.append(dim)
    return tuple(out)


def test_shapes_problems(op: Op) -> list[Problem]:
    """Each test_shapes case of an op with a compute expression broadcasts (or, for an op that
    does not broadcast, gives its streamed inputs one shape)."""
    if not op.is_elementwise:
        return []
    problems = []
    names = [t.name for t in broadcast_inputs(op)]
    for k, case in enumerate(op.test_shapes):
        path = key_path(key_path(key_path(op.json_path, "opgen"), "test_shapes"), k)
        shapes = [case[n] for n in names if n in case]
        given = ", ".join(f"{n} {list(case[n])}" for n in names if n in case)
        if len(shapes) < 2:
            continue
        if broadcasts(op):
            if broadcast_shape(shapes) is None:
                problems.append(Problem(path, f"the shapes {given} do not broadcast (torch's "
                                        "rules: aligned from the last dim, each dim equal or 1)"))
            elif len(broadcast_shape(shapes)) > MAX_RANK:
                problems.append(Problem(path, f"the shapes {given} broadcast to more than "
                                        f"{MAX_RANK} dims, the most the kernel handles"))
        elif len(set(shapes)) > 1:
            problems.append(Problem(path, f"{op.op_type} updates an input in place, so its "
                                    f"inputs have one shape; got {given}"))
    return problems
