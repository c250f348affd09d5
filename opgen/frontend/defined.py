"""The part of an output an op defines, when it is not all of it ("opgen": {"defined"}).

Some hand-written ops write an output larger than their result: a reduce that returns its sum
in element 0 of a [32] buffer (a whole 32-byte DMA block) and leaves the rest as the vector
unit left it. The golden gives the whole output (its shape is the output's), and
`"defined": {"z": "[:1]"}` says which elements the op defines: the precision tests compare
z[:1] only. The subscript holds integers, slices and `...`, nothing Python would evaluate.
Only an op without a compute expression takes it: what opgen computes, it defines everywhere.
"""

from __future__ import annotations

import ast
from typing import Any

from opgen.frontend.problems import Problem, did_you_mean, key_path

# what a subscript may hold, for the messages
SUBSCRIPT_RULE = 'a subscript of integers, slices and \'...\', such as "[:1]" or "[..., 0:4]"'


def defined_problems(
    base: str, block: dict[str, Any], output_names: list[str], has_compute: bool
) -> tuple[dict[str, str], list[Problem]]:
    """The opgen block's "defined": output name -> its subscript (as written, stripped), and
    the problems: an unknown output, a subscript that is not one of integers and slices, or an
    op with a compute expression."""
    defined = block.get("defined", {})
    path = key_path(key_path(base, "opgen"), "defined")
    if defined and has_compute:
        return {}, [
            Problem(
                path,
                "an op with a compute expression defines every element of its outputs; "
                '"defined" is for an op whose kernel is the user\'s (a golden, no compute)',
            )
        ]
    parts: dict[str, str] = {}
    problems: list[Problem] = []
    for name, text in defined.items():
        where = key_path(path, name)
        if name not in output_names:
            problems.append(
                Problem(
                    where,
                    f"'{name}' is not an output of this op",
                    suggestion=did_you_mean(name, output_names),
                )
            )
            continue
        why = subscript_problem(text)
        if why:
            problems.append(Problem(where, f"{why}; write {SUBSCRIPT_RULE}", value=text))
            continue
        parts[name] = text.strip()
    return parts, problems


def subscript_problem(text: str) -> str:
    """Why `text` is not a subscript of integers, slices and '...'; "" when it is one."""
    stripped = text.strip()
    if not (stripped.startswith("[") and stripped.endswith("]")):
        return "not a subscript in brackets"
    try:
        tree = ast.parse("t" + stripped, mode="eval").body
    except SyntaxError:
        return "not a Python subscript"
    if not isinstance(tree, ast.Subscript) or not isinstance(tree.value, ast.Name):
        return "not one subscript"
    items = tree.slice.elts if isinstance(tree.slice, ast.Tuple) else [tree.slice]
    for item in items:
        if isinstance(item, ast.Slice):
            step = None if item.step is None else _integer(item.step)
            if step is not None and step <= 0:
                return "a slice's step must be positive"
            bounds = (item.lower, item.upper, item.step)
            if any(b is not None and _integer(b) is None for b in bounds):
                return "a slice's bounds and step must be integers"
        elif not (_integer(item) is not None or _is_ellipsis(item)):
            return f"'{ast.unparse(item)}' is neither an integer, a slice nor '...'"
    if sum(_is_ellipsis(i) for i in items) > 1:
        return "'...' may appear once"
    return ""


def index_of(text: str) -> tuple:
    """The index a checked subscript stands for, as `tensor[index]` takes it: slices, integers
    and Ellipsis (the generated tests print it with py_value, never evaluating text)."""
    tree = ast.parse("t" + text.strip(), mode="eval").body
    assert isinstance(tree, ast.Subscript)
    items = tree.slice.elts if isinstance(tree.slice, ast.Tuple) else [tree.slice]
    index: list = []
    for item in items:
        if isinstance(item, ast.Slice):
            bounds = (item.lower, item.upper, item.step)
            index.append(slice(*(None if b is None else _integer(b) for b in bounds)))
        else:
            index.append(Ellipsis if _is_ellipsis(item) else _integer(item))
    return tuple(index)


def _integer(node: ast.expr) -> int | None:
    """An integer literal, negative ones too; None otherwise (bool is not one)."""
    sign = 1
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        sign, node = -1, node.operand
    if isinstance(node, ast.Constant) and type(node.value) is int:
        return sign * node.value
    return None


def _is_ellipsis(node: ast.expr) -> bool:
    return isinstance(node, ast.Constant) and node.value is Ellipsis
