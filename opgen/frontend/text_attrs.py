"""String attrs a compute expression compares with string literals, and the values each accepts.

`where(reduction == "mean", ..., ...)` selects on a string attr: the host computes the flag with
strcmp and the torch side in Python. A value the prototype never thought of would be unequal to
every literal and silently pick a branch, so the accepted values are declared in the opgen block
(`"values": {"reduction": ["none", "mean", "sum"]}`) and the generated op refuses any other.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace
from typing import Any

from opgen.frontend import choices, expr
from opgen.frontend.index_functions import STRING_PARAMS
from opgen.frontend.model import Attr
from opgen.frontend.problems import Problem, did_you_mean, key_path


def compared(compute: dict[str, expr.Node]) -> dict[str, list[expr.TextCompare]]:
    """Per output, the string comparisons of its compute expression, in walk() order, and
    those a choice of its shape makes (frontend/choices.py: its reductions' axes)."""
    return {
        out: [n for n in expr.walk(tree) if isinstance(n, expr.TextCompare)]
        + [
            expr.TextCompare("==", n.axes.text, value)
            for n in expr.reductions(tree)[:1]
            for value in n.axes.none
        ]
        for out, tree in compute.items()
    }


def with_values(attrs: tuple[Attr, ...], block: dict[str, Any]) -> tuple[Attr, ...]:
    """The attrs, each string attr holding the values the opgen block declares for it."""
    declared = block.get("values", {})
    return tuple(
        replace(a, values=tuple(declared[a.name]))
        if a.type == "string" and a.name in declared
        else a
        for a in attrs
    )


def values_problems(
    base: str, block: dict[str, Any], attrs: tuple[Attr, ...], compute: dict[str, expr.Node]
) -> list[Problem]:
    """opgen.values against the attrs and the compute expressions: each key a string attr some
    compute compares, the attr's default among its values, and each compared attr declared with
    each literal compared among them."""
    block_path = key_path(base, "opgen")
    by_name = {a.name: a for a in attrs}
    comparisons = compared(compute)
    read = {c.name for found in comparisons.values() for c in found}
    read |= choices.choice_attrs(block.get("compute", {}))  # checked there when it fails
    by_call = _index_call_reads(compute)
    read |= set(by_call)
    problems = []
    for name, values in block.get("values", {}).items():
        path = key_path(key_path(block_path, "values"), name)
        problems += _declared_problems(path, name, values, by_name, read)
        allowed = by_call.get(name, ())
        if allowed and isinstance(values, list) and not set(values) <= set(allowed):
            problems.append(
                Problem(path, f"'{name}' takes torch's values only: {_listed(allowed)}")
            )
    for out, found in comparisons.items():
        path = key_path(key_path(block_path, "compute"), out)
        for c in dict.fromkeys(found):  # each comparison once
            problems += _compared_problems(path, c, by_name[c.name])
    return problems


def _index_call_reads(compute: dict[str, expr.Node]) -> dict[str, tuple[str, ...]]:
    """The string attrs index calls read (nll_loss's reduction), each with torch's values."""
    reads: dict[str, tuple[str, ...]] = {}
    for tree in compute.values():
        for n in expr.walk(tree):
            if isinstance(n, expr.IndexCall):
                for param, value in n.args:
                    if param in STRING_PARAMS and isinstance(value, str):
                        reads[value] = STRING_PARAMS[param]
    return reads


def _declared_problems(
    path: str, name: str, values: list[str], by_name: dict[str, Attr], read: set[str]
) -> list[Problem]:
    attr = by_name.get(name)
    if attr is None:
        return [
            Problem(
                path,
                f"'{name}' is not an attr of this op; values lists a string attr's accepted values",
                suggestion=did_you_mean(name, [a.name for a in by_name.values()]),
            )
        ]
    if attr.type != "string":
        return [
            Problem(path, f"'{name}' is a {attr.type} attr; values lists a string attr's values")
        ]
    if name not in read and (attr.required or list(values) != [attr.default]):
        return [
            Problem(
                path,
                f"no compute expression compares '{name}' with a string literal, so its values "
                f'would check nothing the kernel reads (compare it: where({name} == "...", a, b)),'
                " unless they are its default alone, the one value the kernel computes for "
                f'("values": {{"{name}": [{attr.default!r}]}}): other values are refused',
            )
        ]
    if not attr.required and attr.default not in values:
        return [
            Problem(
                path,
                f"the default of '{name}', {attr.default!r}, is not one of its values "
                f"({_listed(values)}): a call without it would be refused",
                suggestion=did_you_mean(str(attr.default), values),
            )
        ]
    return []


def _compared_problems(path: str, c: expr.TextCompare, attr: Attr) -> list[Problem]:
    if not attr.values:
        return [
            Problem(
                path,
                f"{c.show()} compares the string attr '{c.name}', whose accepted values are not "
                f'declared: add "values": {{"{c.name}": [...]}} to the opgen block, so that '
                "the op refuses a value it does not know rather than treat it as unequal",
            )
        ]
    if c.value not in attr.values:
        outcome = "could never hold" if c.op == "==" else "would always hold"
        return [
            Problem(
                path,
                f"{c.show()}: {c.value!r} is not one of the values of '{c.name}' "
                f"({_listed(attr.values)}), so the comparison {outcome}",
                suggestion=did_you_mean(c.value, attr.values),
            )
        ]
    return []


def _listed(values: Iterable[object]) -> str:
    return ", ".join(repr(v) for v in values)
