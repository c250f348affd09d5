"""The values an int8/uint8 output's expression takes, per dtype combination.

Such an output computes in float (through half) and wraps its result modulo 256 into its range
as torch's integer arithmetic does (opgen_kernel.h's WrapByte). That is torch's result when the
expression takes integer values (else truncating it would differ from torch's float result),
stays within 2^22 in magnitude (float is exact there, and so is WrapByte), and wraps nowhere
before an order-dependent step: `+ - *` commute with wrapping, but min/max/abs/relu/sign/clamp,
where's condition and comparisons of a torch int8 value that wrapped see the wrapped value.
"""

from __future__ import annotations

import math

from opgen.frontend import expr, functions
from opgen.frontend.expr import show

INTEGRAL_DTYPES = ("int8", "uint8", "bool", "int16", "int32")
INT_RANGES = {
    "bool": (0, 1),
    "int8": (-128, 127),
    "uint8": (0, 255),
    "int16": (-(2**15), 2**15 - 1),
    "int32": (-(2**31), 2**31 - 1),
}
EXACT = 2**22  # WrapByte's float computation is exact below this magnitude
Bounds = tuple[float, float] | None  # None: not known (a float value)
# functions whose value is one of their operands' or ordered by them (functions.Function.ordered)
_ORDERED_FUNCS = functions.names(lambda f: f.ordered)


def integral(n: expr.Node, tensors: dict[str, bool], attrs: dict[str, bool]) -> bool:
    """Whether an expression takes integer values only, given which tensors hold integers."""
    if isinstance(n, expr.Tensor):
        return tensors[n.name]
    if isinstance(n, expr.Scalar):
        return attrs[n.name]
    if isinstance(n, expr.Const):
        return n.value.is_integer()
    if isinstance(n, expr.Compare):
        return True
    if isinstance(n, expr.Call) and functions.FUNCTIONS[n.func].integral:
        return True
    if isinstance(n, expr.Pow):
        return isinstance(n.exponent, int) and n.exponent > 0 and integral(n.base, tensors, attrs)
    if isinstance(n, expr.BinOp):
        return n.op != "/" and all(integral(a, tensors, attrs) for a in (n.left, n.right))
    if isinstance(n, expr.Call) and n.func == functions.WHERE.name:
        return all(integral(a, tensors, attrs) for a in n.args[1:])
    if isinstance(n, expr.Call) and n.func in _ORDERED_FUNCS:
        return all(integral(a, tensors, attrs) for a in n.args)
    return isinstance(n, expr.Neg) and integral(n.arg, tensors, attrs)


def torch_range(dtypes: list[str], out_dtype: str) -> tuple[int, int]:
    """The range torch's intermediate integer values stay in (wrapping beyond): the integer
    inputs' common range (int8 and uint8 together: both), else the output's."""
    ranges = [INT_RANGES[d] for d in dtypes if d in INT_RANGES and d != "bool"]
    if not ranges:
        return INT_RANGES[out_dtype]
    return max(r[0] for r in ranges), min(r[1] for r in ranges)


class ValueBounds:
    """Interval bounds of an expression's values, noting the operands of order-dependent steps
    that may leave `safe` (where torch would have wrapped them) and the largest magnitude."""

    def __init__(self, tensors: dict[str, Bounds], attrs: dict[str, Bounds], safe: tuple[int, int]):
        self.tensors, self.attrs, self.safe = tensors, attrs, safe
        self.wrapped: list[tuple[expr.Node, tuple[float, float], str]] = []
        self.widest = 0.0

    def of(self, n: expr.Node) -> Bounds:
        b = self._of(n)
        if b is not None:
            self.widest = max(self.widest, abs(b[0]), abs(b[1]))
        return b

    def _of(self, n: expr.Node) -> Bounds:
        if isinstance(n, expr.Tensor):
            return self.tensors[n.name]
        if isinstance(n, expr.Scalar):
            return self.attrs[n.name]
        if isinstance(n, expr.Const):
            return (n.value, n.value)
        if isinstance(n, expr.Neg):
            b = self.of(n.arg)
            return None if b is None else (-b[1], -b[0])
        if isinstance(n, expr.BinOp):
            return _ring(n.op, self.of(n.left), self.of(n.right))
        if isinstance(n, expr.Pow):
            b = self.of(n.base)
            if b is None or not isinstance(n.exponent, int) or n.exponent < 0:
                return None
            m = max(abs(b[0]), abs(b[1])) ** n.exponent
            return (0, m) if n.exponent % 2 == 0 else (-m, m)
        if isinstance(n, expr.Compare):
            self._ordered((n.left, n.right), f"'{show(n)}'")
            return (0, 1)
        if isinstance(n, expr.Call):
            return self._call(n)
        return None

    def _ordered(self, args: tuple[expr.Node, ...], step: str) -> list[Bounds]:
        """The bounds of an order-dependent step's operands, noting those that may wrap."""
        bounds = [self.of(a) for a in args]
        for a, b in zip(args, bounds, strict=True):
            if b is not None and a.is_tensor:
                if b[0] < self.safe[0] or b[1] > self.safe[1]:
                    self.wrapped.append((a, b, step))
        return bounds

    def _call(self, n: expr.Call) -> Bounds:
        if functions.FUNCTIONS[n.func].integral:  # floor, ceil: within the argument's bounds
            return self.of(n.args[0])
        if n.func not in _ORDERED_FUNCS:
            for a in n.args:
                self.of(a)
            return None
        bounds = self._ordered(n.args, f"{n.func}()")
        if n.func == functions.WHERE.name:
            bounds = bounds[1:]
        known = [b for b in bounds if b is not None]
        if len(known) < len(bounds):
            return None
        return _order_bounds(n.func, known)


def _ring(op: str, left: Bounds, right: Bounds) -> Bounds:
    if left is None or right is None or op == "/":
        return None
    if op == "+":
        return (left[0] + right[0], left[1] + right[1])
    if op == "-":
        return (left[0] - right[1], left[1] - right[0])
    products = [a * b for a in left for b in right]
    return (min(products), max(products))


def _order_bounds(func: str, bounds: list[tuple[float, float]]) -> tuple[float, float]:
    """Bounds of min/max/abs/relu/sign/clamp/where's values from their operands'."""
    lo, hi = min(b[0] for b in bounds), max(b[1] for b in bounds)
    if func == "abs":
        return (0, max(abs(lo), abs(hi)))
    if func == "relu":
        return (max(lo, 0), max(hi, 0))
    if func == "sign":
        return (-1, 1)
    return (lo, hi)


def byte_output_problem(
    tree: expr.Node,
    out_dtype: str,
    ins: dict[str, str],
    int_attrs: dict[str, bool],
    int_compute: str = "",
) -> str:
    """Why the kernel's value of an int8/uint8 output could differ from torch's in the dtype
    combination `ins` (input -> dtype), or "". `int_compute`: the integer types other
    combinations compute in (where floor() and ceil() do not exist)."""
    pairs = ", ".join(f"{n} is {d}" for n, d in ins.items())
    integer = {n: d in INTEGRAL_DTYPES for n, d in ins.items()}
    if not integral(tree, integer, int_attrs):
        return (
            f"where {pairs}, the {out_dtype} output takes integer values (integer inputs, attrs "
            "and numbers, + - *, min, max, abs, clamp, sign, floor, ceil, where, comparisons), "
            f"and '{show(tree)}' may not have them; " + _float_valued_fix(ins, int_compute)
        )
    return _wrap_problem(tree, out_dtype, ins, int_attrs, pairs)


def _float_valued_fix(ins: dict[str, str], int_compute: str) -> str:
    """What makes a float-valued expression of an int8/uint8 output work."""
    fix = "give that combination a float output dtype (torch computes it in float)"
    floats = [n for n, d in ins.items() if d not in INTEGRAL_DTYPES]
    if floats:
        fix = (
            f"give that combination integer inputs ({', '.join(floats)} "
            f"{'is' if len(floats) == 1 else 'are'} float) or a float output dtype"
        )
    if int_compute:  # floor() would fail in those combinations
        return (
            f"{fix} (floor() and ceil() do not fit: the op's {int_compute} combinations "
            "compute in that integer type, where they do not exist)"
        )
    return f"{fix}, or wrap it in floor() or ceil() to say how it rounds"


def _wrap_problem(
    tree: expr.Node,
    out_dtype: str,
    ins: dict[str, str],
    int_attrs: dict[str, bool],
    pairs: str,
) -> str:
    """Why the float value wrapped into the int8/uint8 output may not be torch's, or ""."""
    safe = torch_range(list(ins.values()), out_dtype)
    vb = ValueBounds(
        {n: INT_RANGES.get(d) for n, d in ins.items()},
        {n: safe if is_int else None for n, is_int in int_attrs.items()},
        safe,
    )
    vb.of(tree)
    if vb.wrapped:
        node, (lo, hi), step = vb.wrapped[0]
        return (
            f"where {pairs}, '{show(node)}' may leave {safe[0]}..{safe[1]} (it spans "
            f"{_num(lo)}..{_num(hi)}) before {step}: torch wraps it there (integer arithmetic "
            "modulo 256), the kernel computes it in float and wraps only the result; give the "
            "combination a wider integer type (int16 or int32 inputs and output) or keep that "
            "operand in range"
        )
    if vb.widest >= EXACT:
        return (
            f"where {pairs}, '{show(tree)}' may reach {_num(vb.widest)} in magnitude, beyond the "
            f"2^22 below which the kernel's float computation (and its wrap into {out_dtype}) is "
            "exact; give the combination int16 or int32 inputs and output"
        )
    return ""


def _num(v: float) -> str:
    return str(int(v)) if math.isfinite(v) and float(v).is_integer() else str(v)
