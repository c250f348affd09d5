"""Expand ops: an output computed as expand(x, size), torch's x.expand(size). The output's shape
comes from the list_int attr `size`, not from the inputs. Here: the rules a prototype must meet.
InferShape and TilingFunc (op_host/opgen_tiling.h's ExpandShape), the adapters
(opgen_checks.h's ExpandShape) and the fake kernel (_support.py's _expand_shape) apply torch's
rule to the attr's value at run time. The kernel broadcasts x into that shape with the
broadcasting kernel's reads (opgen/frontend/broadcast.py), moving elements as words of their
width, so any dtype expands."""

from __future__ import annotations

from collections.abc import Sequence

from opgen.frontend import expr
from opgen.frontend.model import Op, TensorParam
from opgen.frontend.problems import Problem, key_path


def expand_problems(
    block_path: str,
    compute: dict[str, expr.Node],
    inputs: Sequence[TensorParam],
    outputs: Sequence[TensorParam],
) -> list[Problem]:
    """An op with an expand() has one output, whose whole expression it is, and one required
    input, the one it expands."""
    problems = []
    for out_name, tree in compute.items():
        path = key_path(key_path(block_path, "compute"), out_name)
        found = [n for n in expr.walk(tree) if isinstance(n, expr.Expand)]
        if not found:
            continue
        if not isinstance(tree, expr.Expand):
            problems.append(
                Problem(
                    path,
                    f"compute expression: {found[0].show()} is the whole expression of its "
                    "output (expand moves x's elements; compute nothing around it)",
                )
            )
            continue
        if len(outputs) != 1:
            problems.append(
                Problem(path, f"an op with expand() has one output, not {len(outputs)}")
            )
        required = [t.name for t in inputs if t.param_type == "required"]
        if required != [tree.x]:
            problems.append(
                Problem(
                    path,
                    f"compute expression: {tree.show()}: an op with expand() has one required "
                    f"input, the one it expands (this one has {', '.join(required) or 'none'})",
                )
            )
    return problems


def dtype_problems(base: str, op: Op) -> list[Problem]:
    """Per dtype combination, the output has x's dtype (expand moves x's elements)."""
    node = op.expand
    if node is None:
        return []
    x = next(t for t in op.inputs if t.name == node.x)
    out = op.outputs[0]
    problems = []
    for i, (a, b) in enumerate(zip(x.dtypes, out.dtypes, strict=True)):
        if a != b:
            problems.append(
                Problem(
                    key_path(key_path(key_path(base, "output_desc"), 0), "type"),
                    f"{op.op_type}: combination {i} expands {x.name} of {a} into "
                    f"{out.name} of {b}; {node.show()} keeps the dtype: give {out.name} {a}",
                )
            )
    return problems
