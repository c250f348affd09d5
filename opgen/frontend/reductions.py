"""The rules a compute's reductions keep, so that the row kernel computes what torch would.

The kernel reduces one set of axes, its row: every reduction of an op names the same axes
(torch's dim=, or none of them does: the last axis, today's row ops). A reduction whose value
broadcasts back over the elements beside it (`x - amax(x, dim=0, keepdim=True)`) keeps its
reduced axes, as torch's broadcasting needs (keepdim=True), unless it reduces every axis (a 0-d
value broadcasts anywhere); the reductions that give a row-valued output its value agree on
keepdim, which sets the output's shape. Literal dims must be adjacent axes of some shape (the
kernel reduces one run of them: rows.row_split); an attr's value is checked at run time.
"""

from __future__ import annotations

from opgen.frontend import expr, rows
from opgen.frontend.problems import Problem, key_path


def reduction_problems(
    block_path: str, compute: dict[str, expr.Node], keepdim_option: bool
) -> list[Problem]:
    """What breaks the rules above, per output (at its compute expression's path)."""
    problems: list[Problem] = []
    found = [(out, n) for out, tree in compute.items() for n in expr.reductions(tree)]
    given = [(out, n) for out, n in found if n.dim_given]
    if given and keepdim_option:
        problems.append(
            Problem(
                key_path(block_path, "keepdim"),
                "is for reductions without dim=; these name their axes: write keepdim= in "
                f"the call ({expr.show(given[0][1])})",
            )
        )
    if given and len(given) != len(found):
        out, plain = next((out, n) for out, n in found if not n.dim_given)
        problems.append(
            _at(
                block_path,
                out,
                f"'{expr.show(plain)}' has no dim= where "
                f"'{expr.show(given[0][1])}' has one: give every reduction its dim=, or none",
            )
        )
    elif given:
        problems += _axes_problems(block_path, given) + _keepdim_problems(block_path, compute)
    return problems


def never_reducible(axes: expr.Axes) -> bool:
    """Are literal dims adjacent in no shape (dim=(0, 2)): the row kernel could never run?"""
    return not axes.attr and not any(
        isinstance(rows.row_split((2,) * rank, axes.dims), tuple) for rank in range(9)
    )


def _at(block_path: str, out: str, message: str) -> Problem:
    return Problem(key_path(key_path(block_path, "compute"), out), message)


def _axes_problems(block_path: str, given: list[tuple[str, expr.Reduce]]) -> list[Problem]:
    """Every reduction names the same axes: the kernel's row."""
    first = given[0][1]
    if never_reducible(first.axes):
        return [
            _at(
                block_path,
                given[0][0],
                f"'{expr.show(first)}': dim={first.axes.show()} are adjacent axes of no shape, "
                "and opgen's row kernel reduces one run of adjacent axes",
            )
        ]
    for out, node in given[1:]:
        if node.axes != first.axes:
            return [
                _at(
                    block_path,
                    out,
                    f"'{expr.show(node)}' reduces dim={node.axes.show()} where "
                    f"'{expr.show(first)}' reduces dim={first.axes.show()}: the kernel reduces "
                    "one set of axes, so every reduction of an op names the same",
                )
            ]
    return []


def _keepdim_problems(block_path: str, compute: dict[str, expr.Node]) -> list[Problem]:
    problems = []
    for out, tree in compute.items():
        broadcast = expr.broadcast_reductions(tree)
        for node in broadcast:
            if node.keepdim is not True and node.axes.dims != () or isinstance(node.keepdim, str):
                problems.append(
                    _at(
                        block_path,
                        out,
                        f"'{expr.show(node)}' broadcasts back over the elements beside it: "
                        "write keepdim=True, so that torch broadcasts it over the reduced axes",
                    )
                )
                break
        roots = [n for n in expr.reductions(tree) if not any(n is b for b in broadcast)]
        if len({repr(n.keepdim) for n in roots}) > 1:
            problems.append(
                _at(
                    block_path,
                    out,
                    f"'{expr.show(roots[0])}' and '{expr.show(roots[-1])}' give the output its "
                    "value with different keepdim=: give them the same",
                )
            )
    return problems
