"""A string attr choosing an output's expression, and with it the output's shape.

`"compute": {"y": {"reduction": {"none": "(predict - label) ** 2", "mean": "mean((predict -
label) ** 2, dim=None)", "sum": "sum((predict - label) ** 2, dim=None)"}}}` is torch's MseLoss:
per declared value of the string attr `reduction` ("opgen": {"values"}), the output's
expression. The choices either reduce nothing (elementwise: the inputs' shape) or give the
output one value per row of the axes their reductions name (the same literal dim= in all of
them, keepdim=False: a 0-d output for dim=None). opgen lowers the choice to one row op whose
reductions' axes follow the attr (expr.Axes' `text` and `none`): where the attr holds an
elementwise choice they reduce no axis, so `sum(e, dim=...)` is `e` and the output keeps the
inputs' shape; TilingFunc, InferShape, the PyTorch adapters and the fake kernel read the attr for
the axes, and the choices are selected by the attr as where(reduction == "mean", ...) is. The
default golden is torch's choice in Python (`a if reduction == "none" else b ...`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import fields, is_dataclass, replace
from typing import Any

from opgen.frontend import expr
from opgen.frontend.model import Attr
from opgen.frontend.problems import Problem, did_you_mean, key_path


def parse_choice(
    path: str,
    choice: dict[str, Any],
    attrs: tuple[Attr, ...],
    declared: dict[str, list[str]],
    parse: Callable[[str], expr.Node],
) -> tuple[expr.Node | None, str | None, list[Problem]]:
    """The output's compute tree and default golden (torch text) for a choice
    {attr: {value: expression}} at `path`, or the problems that stop it."""
    if len(choice) != 1:
        return (
            None,
            None,
            [
                Problem(
                    path,
                    f"chooses by {_listed(choice)}: a choice of expressions is keyed by one string "
                    "attr, {attr: {value: expression}}",
                )
            ],
        )
    ((name, by_value),) = choice.items()
    attr_path = key_path(path, name)
    problems = _attr_problems(attr_path, name, attrs, declared)
    if problems:
        return None, None, problems
    values = declared[name]
    problems = _value_problems(attr_path, name, by_value, values)
    trees: dict[str, expr.Node] = {}
    for value in values:
        if value not in by_value:
            continue
        try:
            trees[value] = parse(by_value[value])
        except expr.ExprError as exc:
            problems.append(
                Problem(key_path(attr_path, value), f"compute expression: {exc}", by_value[value])
            )
    if problems:
        return None, None, problems
    return _lowered(attr_path, name, trees)


def _attr_problems(
    path: str, name: str, attrs: tuple[Attr, ...], declared: dict[str, list[str]]
) -> list[Problem]:
    by_name = {a.name: a for a in attrs}
    attr = by_name.get(name)
    if attr is None:
        return [
            Problem(
                path,
                f"'{name}' is not an attr of this op; a choice of expressions is keyed by a "
                "string attr",
                suggestion=did_you_mean(name, list(by_name)),
            )
        ]
    if attr.type != "string":
        return [
            Problem(
                path,
                f"'{name}' is an attr of type {attr.type}; a choice of expressions takes a string "
                "attr",
            )
        ]
    if name not in declared:
        return [
            Problem(
                path,
                f"chooses by the string attr '{name}', whose accepted values are not declared: "
                f'add "values": {{"{name}": [...]}} to the opgen block, one expression each',
            )
        ]
    return []


def _value_problems(
    path: str, name: str, by_value: dict[str, str], values: list[str]
) -> list[Problem]:
    problems = [
        Problem(
            key_path(path, value),
            f"{value!r} is not one of the values of '{name}' ({_listed(values)})",
            suggestion=did_you_mean(value, values),
        )
        for value in by_value
        if value not in values
    ]
    missing = [v for v in values if v not in by_value]
    if missing:
        problems.append(
            Problem(
                path,
                f"has no expression for {name}={_listed(missing)}: give every declared value "
                f"of '{name}' ({_listed(values)}) one",
            )
        )
    return problems


def _lowered(
    path: str, name: str, trees: dict[str, expr.Node]
) -> tuple[expr.Node | None, str | None, list[Problem]]:
    """One tree for the choices: each reduced choice over the attr-chosen axes, each elementwise
    one as a sum over them (no axis where it is chosen), selected by where(name == value)."""
    reduced = {v: t for v, t in trees.items() if expr.reductions(t)}
    plain = [v for v in trees if v not in reduced]
    problems, dims = _reduced_problems(path, name, reduced)
    if problems:
        return None, None, problems
    if dims is None or not plain:
        return None, None, [_same_shape(path, name)]
    axes = expr.Axes(dims=dims, text=name, none=tuple(plain))
    chosen = {
        v: _with_axes(t, axes) if v in reduced else expr.Reduce("sum", t, axes, False, True)
        for v, t in trees.items()
    }
    values = list(chosen)
    tree = default = chosen[values[-1]]
    for value in reversed(values[:-1]):
        if chosen[value] != default:
            tree = expr.Call("where", (expr.TextCompare("==", name, value), chosen[value], tree))
    parts = [f"({expr.to_torch(trees[v])}) if {name} == {v!r} else" for v in values[:-1]]
    golden = " ".join([*parts, f"({expr.to_torch(trees[values[-1]])})"])
    return tree, golden, []


def _reduced_problems(
    path: str, name: str, reduced: dict[str, expr.Node]
) -> tuple[list[Problem], tuple[int, ...] | None]:
    """The reduced choices give one value per row of the same literal axes, keepdim=False."""
    axes = None
    for value, tree in reduced.items():
        found = expr.reductions(tree)
        bad = next(
            (n for n in found if not n.dim_given or n.axes.attr or n.keepdim is not False),
            None,
        )
        if bad is not None:
            return [
                Problem(
                    key_path(path, value),
                    f"'{expr.show(bad)}': a choice's reductions name literal axes with dim= "
                    "(dim=None: every axis) and keepdim=False, so that the attr picks the "
                    "output's shape: the inputs' or one value per row",
                )
            ], None
        if not expr.is_row_valued(tree) or expr.broadcast_reductions(tree):
            return [
                Problem(
                    key_path(path, value),
                    f"'{expr.show(tree)}' mixes reduced values with the elements beside them; a "
                    "choice is elementwise or reads the inputs only through its reductions",
                )
            ], None
        if axes is not None and found[0].axes != axes:
            return [
                Problem(
                    key_path(path, value),
                    f"reduces dim={found[0].axes.show()} where another choice of '{name}' "
                    f"reduces dim={axes.show()}: the reduced choices name the same axes",
                )
            ], None
        axes = found[0].axes
    return [], None if axes is None else axes.dims


def _same_shape(path: str, name: str) -> Problem:
    return Problem(
        path,
        f"every choice of '{name}' has the same shape (all elementwise, or all reduced): "
        f'write one expression with where({name} == "...", a, b)',
    )


def _with_axes(node: Any, axes: expr.Axes) -> Any:
    """The tree with every reduction over `axes`."""
    if isinstance(node, expr.Reduce):
        return replace(node, arg=_with_axes(node.arg, axes), axes=axes)
    if isinstance(node, tuple):
        return tuple(_with_axes(n, axes) for n in node)
    if not is_dataclass(node) or isinstance(node, type):
        return node
    changes = {f.name: _with_axes(getattr(node, f.name), axes) for f in fields(node)}
    return replace(node, **changes)


def choice_attrs(compute_block: dict[str, Any]) -> set[str]:
    """The string attrs the block's choices are keyed by."""
    return {next(iter(v)) for v in compute_block.values() if isinstance(v, dict) and v}


def _listed(values: Iterable[object]) -> str:
    return ", ".join(repr(v) for v in values)
