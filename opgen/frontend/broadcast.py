"""Broadcasting of ops with a compute expression: which ops broadcast their inputs (torch's
rules), the broadcast shape of some input shapes, and the check of the prototype's test_shapes
against it."""

from __future__ import annotations

from opgen.frontend.model import Op, TensorParam
from opgen.frontend.problems import Problem, key_path

# Dims of a broadcast shape the kernels handle (Ascend's tensor rank limit).
MAX_RANK = 8
# The most elements of one tensor of a test_shapes case (each input, and the shape the inputs
# broadcast to) and of all the inputs of all an op's cases together: the generated tests run
# them on the CPU twin, on a laptop, with a float64 golden (2**24 elements take 128 MiB). The
# default sweep's largest shape (beyond tile x cores) holds fewer than 2**23 elements.
MAX_TEST_ELEMENTS = 2**24
MAX_TEST_ELEMENTS_TOTAL = 2**26


def elements(shape: tuple[int, ...]) -> int:
    count = 1
    for dim in shape:
        count *= dim
    return count


def limit_text(limit: int) -> str:
    """16777216 (2**24)"""
    return f"{limit} (2**{limit.bit_length() - 1})"


def broadcasts(op: Op) -> bool:
    """An op with a compute expression broadcasts its required inputs (the tensors its kernel
    streams) when it has two or more. An op that updates inputs in place (no outputs, or an
    output that is an input) broadcasts into them: their shape is the broadcast shape."""
    return op.is_elementwise and (len(broadcast_inputs(op)) >= 2 or op.expand is not None)


def updated_inputs(op: Op) -> list[TensorParam]:
    """The inputs an op updates in place (its results that are inputs), in input order. When
    the op broadcasts, each must already have the broadcast shape: a tensor updated in place
    cannot grow (torch's rule for x.add_(y))."""
    names = {t.name for t in op.results if t.is_ref}
    return [t for t in op.inputs if t.name in names]


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
    """Each test_shapes case of an op with a compute expression broadcasts, to the shape of
    the inputs it updates in place if any."""
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
        shape = broadcast_shape(shapes)
        if shape is None:
            problems.append(
                Problem(
                    path,
                    f"the shapes {given} do not broadcast (torch's "
                    "rules: aligned from the last dim, each dim equal or 1)",
                )
            )
        elif len(shape) > MAX_RANK:
            problems.append(
                Problem(
                    path,
                    f"the shapes {given} broadcast to more than "
                    f"{MAX_RANK} dims, the most the kernel handles",
                )
            )
        elif elements(shape) > MAX_TEST_ELEMENTS:
            problems.append(
                Problem(
                    path,
                    f"the shapes {given} broadcast to {list(shape)}, "
                    f"{elements(shape)} elements; a test tensor holds at most "
                    f"{limit_text(MAX_TEST_ELEMENTS)}",
                )
            )
        else:
            for t in updated_inputs(op):
                if t.name in case and tuple(case[t.name]) != shape:
                    problems.append(
                        Problem(
                            path,
                            f"the shapes {given} broadcast to "
                            f"{list(shape)}, but {op.op_type} updates {t.name} "
                            "in place, which cannot grow: give it that shape",
                        )
                    )
    return problems
