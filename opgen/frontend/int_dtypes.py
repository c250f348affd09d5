"""The integer dtypes torch computes a compute expression's parts in, per dtype combination.

The golden (and torch) evaluates `x * y + x - y` over int8 tensors in int8, wrapping modulo 256,
and only then converts it to a float output; a kernel computing int8/uint8/bool tensors in
float (through half) does not wrap. An int8/uint8 output wraps its result (byte_values); any
other output takes a part torch computes in int8, uint8 or bool only while it cannot leave that
dtype's range. torch also refuses `-` of a bool tensor (a comparison's value included).

The golden prints every number as a float (`2.0`), so a number makes torch compute in float;
an int attr is a Python int, which keeps the tensor's dtype.
"""

from __future__ import annotations

from opgen.frontend import expr, functions
from opgen.frontend.byte_values import INT_RANGES, ValueBounds, _num
from opgen.frontend.expr import show

PY_INT = "int"  # a Python int (an int attr): it keeps an integer tensor's dtype
# torch's dtype of an integer call (functions.Function.int_dtype)
_SAME_AS_ARG = functions.names(lambda f: f.int_dtype == "arg")
_PROMOTING = functions.names(lambda f: f.int_dtype == "promote")
_BITS = {"int8": 8, "uint8": 8, "int16": 16, "int32": 32, "int64": 64}


def promote(a: str | None, b: str | None) -> str | None:
    """torch's result dtype of two integer operands (None: a float one, which wins)."""
    if a is None or b is None:
        return None
    if a == PY_INT or b == PY_INT:
        other = b if a == PY_INT else a
        return "int64" if other == "bool" else other
    if a == b or b == "bool":
        return a
    if a == "bool":
        return b
    if {a, b} == {"int8", "uint8"}:
        return "int16"
    return a if _BITS[a] >= _BITS[b] else b


class TorchDtypes:
    """The integer dtype torch computes each part of a compute tree in, given the inputs'
    dtypes (input -> dtype) and the attrs' types (attr -> int/float/bool/...)."""

    def __init__(self, ins: dict[str, str], attr_types: dict[str, str]):
        self.ins, self.attr_types = ins, attr_types

    def of(self, n: expr.Node) -> str | None:
        """int8/uint8/int16/int32/int64/bool, PY_INT for an int attr, None for float."""
        if isinstance(n, expr.Tensor):
            return self.ins.get(n.name) if self.ins.get(n.name) in INT_RANGES else None
        if isinstance(n, expr.Scalar):
            return PY_INT if self.attr_types.get(n.name) in ("int", "bool") else None
        if isinstance(n, expr.Compare):
            return "bool"
        if isinstance(n, expr.Neg):
            return self.of(n.arg)
        if isinstance(n, expr.BinOp):
            return None if n.op == "/" else promote(self.of(n.left), self.of(n.right))
        if isinstance(n, expr.Pow):
            good = isinstance(n.exponent, int) and n.exponent >= 0
            return self.of(n.base) if good else None
        if isinstance(n, expr.Call):
            return self._call(n)
        return None

    def _call(self, n: expr.Call) -> str | None:
        if n.func in _SAME_AS_ARG:
            return self.of(n.args[0])
        where = n.func == functions.WHERE.name
        args = n.args[1:] if where else n.args
        if n.func not in _PROMOTING and not where:
            return None
        kinds = [self.of(a) for a in args]
        result = kinds[0]
        for k in kinds[1:]:
            result = promote(result, k)
        return result


def bool_subtraction(tree: expr.Node, ins: dict[str, str], attr_types: dict[str, str]) -> str:
    """The first `-` (or unary minus) of a bool value in `tree`, which torch refuses, as a
    message, or ""."""
    dt = TorchDtypes(ins, attr_types)
    for n in expr.walk(tree):
        if isinstance(n, expr.Neg) and n.is_tensor and dt.of(n.arg) == "bool":
            operand = n.arg
        elif isinstance(n, expr.BinOp) and n.op == "-" and n.is_tensor:
            bools = [a for a in (n.left, n.right) if a.is_tensor and dt.of(a) == "bool"]
            if not bools:
                continue
            operand = bools[0]
        else:
            continue
        return (
            f"'{show(n)}' applies `-` to a bool value ('{show(operand)}'), which torch refuses "
            "(Subtraction, the `-` operator, with a bool tensor is not supported); use "
            "'a != b' for the exclusive or of two bools, or where(c, 1.0, 0.0) for a number"
        )
    return ""


def _may_leave(n: expr.Node) -> bool:
    """An arithmetic step whose value may leave its operands' range (abs and - of int8's -128)."""
    if isinstance(n, expr.Call):
        return n.func == functions.ABS.name
    return isinstance(n, (expr.BinOp, expr.Pow, expr.Neg))


def wrapped_part(
    tree: expr.Node, ins: dict[str, str], attr_types: dict[str, str], out_dtype: str
) -> str:
    """Why a part torch computes in int8/uint8/bool may differ from the kernel's float value
    of it (it may leave the dtype's range, where torch wraps), as a message, or "". For an
    output other than int8/uint8 (those wrap their result: byte_values)."""
    dt = TorchDtypes(ins, attr_types)
    found = []
    for n in expr.walk(tree):
        kind = dt.of(n)
        if kind not in ("int8", "uint8", "bool") or not _may_leave(n):
            continue
        lo, hi = INT_RANGES[kind]
        vb = ValueBounds(
            {name: INT_RANGES.get(d) for name, d in ins.items()},
            {a: (lo, hi) if t == "int" else None for a, t in attr_types.items()},
            (lo, hi),
        )
        b = vb.of(n)
        if b is not None and (b[0] < lo or b[1] > hi):
            found.append((n, kind, b))
    if not found:
        return ""
    n, kind, (low, high) = min(found, key=lambda f: len(show(f[0])))
    pairs = ", ".join(f"{name} is {d}" for name, d in ins.items())
    how = (
        "a bool result is true or false (True + True is True)"
        if kind == "bool"
        else f"it wraps modulo 256 outside {INT_RANGES[kind][0]}..{INT_RANGES[kind][1]}"
    )
    fix = "float inputs" if kind == "bool" else "an int8/uint8 output (which wraps as torch)"
    return (
        f"where {pairs}, torch computes '{show(n)}' in {kind} ({how}; it may reach "
        f"{_num(low)}..{_num(high)}) and only then converts it to the {out_dtype} output, while "
        f"the kernel computes it in float: the values would differ. Give that combination {fix}, "
        "or multiply its first input by 1.0 so that torch computes it in float too"
    )
