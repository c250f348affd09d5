"""Kernel-side template data: the compute expression lowered to Ascend C vector calls, plus the
names, buffers, tiling fields and host-side snippets the kernel and host templates render.

The lowering runs in three steps, each a plain function over plain data:
1. `_Lowerer` walks the compute trees (all outputs at once, common subexpressions shared) and
   emits a list of `Instr`: one vector operation each, over virtual registers (SSA values).
   Scalar-only subtrees become C++ scalar expressions: constants are folded here, attrs are
   read from the tiling struct, and math functions of attrs are computed on the host.
2. `allocate` maps the virtual registers to UB tiles: the output tiles, input tiles after
   their last use, and as few scratch temporaries as it can (a linear scan).
3. `_emit_body` prints the instructions as C++ lines of the user-owned compute header.

Everything the templates need beyond loops and conditions is computed here (copier's Jinja has
no custom filters). See ../shared/reference/ascend-c.md §3 for the API spellings.
"""

from __future__ import annotations

import math
import textwrap
from dataclasses import dataclass
from typing import Any

from opgen import expr
from opgen.catalog import DTYPES
from opgen.context import cpp_float, cpp_literal, cpp_string, soc_short_names
from opgen.model import Attr, Op, TensorParam
from opgen.names import aclnn_name, pascal_name


class LoweringError(ValueError):
    """The compute expression cannot be lowered to Ascend C vector calls for this op."""


# ---------------------------------------------------------------------------------------------
# hardware facts (asc-devkit docs/zh/api, "产品支持情况" of each API)
# ---------------------------------------------------------------------------------------------

# __NPU_ARCH__ of each short SoC name (asc-devkit SIMD-BuiltIn关键字.md).
NPU_ARCH = {"ascend910": 1001, "ascend910b": 2201, "ascend910_93": 2201, "ascend310p": 2002,
            "ascend310b": 3002, "ascend950": 3510}
# High-level APIs missing on some SoCs: Tanh on Atlas training (910A) and Atlas 200I/500 A2
# (310B); Sigmoid on 310B.
API_MISSING = {"tanh": frozenset({"ascend910", "ascend310b"}),
               "sigmoid": frozenset({"ascend310b"})}
# DataCopyPad (GM<->UB) is not available on Atlas training (910A) and Atlas inference (310P).
NO_DATACOPYPAD = frozenset({"ascend910", "ascend310p"})

FLOAT_DTYPES = ("float16", "bfloat16", "float32")  # computed in float
INT_COMPUTE_DTYPES = ("int16", "int32")  # Add/Sub/Mul/Max/Min(+s) exist for these
# sharedTmpBuffer of the high-level APIs for float: maxLiveNodeCount of
# Get<Api>TmpBufferFactorSize (1 float per element) and the minimum of Get<Api>MaxMinTmpSize.
SHARED_TMP_LIVE_NODES = 1
SHARED_TMP_MIN_BYTES = 256

BASE_TILING_FIELDS = (
    ("uint64_t", "totalLength", "elements of every streamed tensor"),
    ("uint64_t", "blockLength", "elements per core (32-byte multiple); the last may have fewer"),
    ("uint32_t", "tileLength", "elements per UB tile (a multiple of 32 bytes of every dtype)"),
    ("uint32_t", "tmpCount", "scratch temporaries of the compute step, one tile each"),
    ("uint32_t", "tmpBytes", "bytes of one temporary"),
    ("uint32_t", "sharedTmpBytes", "bytes of the high-level APIs' sharedTmpBuffer"),
)


# ---------------------------------------------------------------------------------------------
# the vector program
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class CScalar:
    """A scalar operand as C++ text; `value` is set for a folded constant."""

    text: str
    value: float | None = None


@dataclass
class Instr:
    """One vector operation (some expand to a short fixed sequence of API calls)."""

    op: str  # Add, Muls, Tanh, TanhExp, Pow3, RSub, Copy, ... (see _emit_instr)
    dst: int  # virtual register it defines
    args: tuple[int, ...]  # virtual registers it reads
    scalar: CScalar | None = None
    inplace: bool = True  # may the destination share a tile with an argument
    shared_tmp: bool = False  # needs the high-level API sharedTmpBuffer
    text: str = ""  # the source subexpression, for a comment


@dataclass
class Program:
    instrs: list[Instr]
    inputs: dict[str, int]  # input name -> its virtual register
    outputs: dict[str, int]  # output name -> the register holding its value (after copies)


# Operations whose result must not share a tile with an argument, and why.
_NOT_INPLACE = {
    "Tanh": "the Tanh API does not allow overlapping source and destination",
    "Sigmoid": "the Sigmoid API does not allow overlapping source and destination",
    "Pow3": "x * x * x reads x after the first product",
    "AbsInt": "max(x, -x) reads x after negating",
    "Copy": "a copy needs a second tile",
}

_UNARY_OPS = {"exp": "Exp", "log": "Ln", "sqrt": "Sqrt", "rsqrt": "Rsqrt", "abs": "Abs",
              "reciprocal": "Reciprocal", "relu": "Relu"}
_FLOAT_ONLY_FUNCS = ("exp", "log", "sqrt", "rsqrt", "reciprocal", "tanh", "sigmoid")


def show(node: expr.Node) -> str:
    """A compute subexpression in the prototype's syntax, with minimal parentheses."""
    return _show(node, 0)


_PREC = {"+": 1, "-": 1, "*": 2, "/": 2}


def _show(node: expr.Node, outer: int) -> str:
    if isinstance(node, (expr.Tensor, expr.Scalar)):
        return node.name
    if isinstance(node, expr.Const):
        v = node.value
        return str(int(v)) if v.is_integer() and abs(v) < 1e15 else repr(v)
    if isinstance(node, expr.Neg):
        text = "-" + _show(node.arg, 3)
        return f"({text})" if outer > 2 else text
    if isinstance(node, expr.BinOp):
        p = _PREC[node.op]
        text = f"{_show(node.left, p)} {node.op} {_show(node.right, p + 1)}"
        return f"({text})" if p < outer else text
    if isinstance(node, expr.Pow):
        text = f"{_show(node.base, 5)} ** {node.exponent}"
        return f"({text})" if outer > 4 else text
    if isinstance(node, expr.Call):
        return f"{node.func}({', '.join(_show(a, 0) for a in node.args)})"
    raise TypeError(node)


def _float_text(value: float) -> str:
    """A C++ float literal (folded in double, rounded once by the compiler)."""
    return cpp_float(value)


class _Lowerer:
    """Compute trees -> Program, for one compute type and one SoC variant.

    `mode` is "float" (every combination computes in float), "int" (every combination in the
    same integer type `ctype`) or "template" (the type is the template parameter T).
    """

    def __init__(self, op: Op, mode: str, ctype: str, api_ok: dict[str, bool],
                 host_scalars: dict[expr.Node, str], tiling_names: set[str],
                 ctypes: frozenset[str] = frozenset()) -> None:
        self.op = op
        self.mode = mode
        self.ctype = ctype
        self.ctypes = ctypes or frozenset({ctype})  # the concrete types T stands for
        self.api_ok = api_ok
        self.host_scalars = host_scalars  # shared across variants: node -> tiling field
        self.tiling_names = tiling_names
        self.attrs = {a.name: a for a in op.attrs}
        self.instrs: list[Instr] = []
        self.memo: dict[expr.Node, int] = {}
        self.next_reg = 0
        self.output = ""  # the output being lowered, for messages

    # -- errors --------------------------------------------------------------------------

    def fail(self, reason: str) -> LoweringError:
        return LoweringError(f"compute expression of output '{self.output}': {reason}")

    @property
    def is_int(self) -> bool:
        return self.mode != "float"

    # -- scalars -------------------------------------------------------------------------

    def fold(self, node: expr.Node) -> float | None:
        """The value of a constant-only subtree, or None if it reads an attr."""
        if isinstance(node, expr.Const):
            value = node.value
        elif isinstance(node, expr.Scalar):
            return None
        elif isinstance(node, expr.Neg):
            a = self.fold(node.arg)
            value = None if a is None else -a
        elif isinstance(node, expr.BinOp):
            a, b = self.fold(node.left), self.fold(node.right)
            if a is None or b is None:
                return None
            if node.op == "/" and b == 0:
                raise self.fail(f"'{show(node)}' divides by zero")
            value = {"+": a + b, "-": a - b, "*": a * b, "/": a / b if b else 0.0}[node.op]
        elif isinstance(node, expr.Pow):
            a = self.fold(node.base)
            value = None if a is None else a ** node.exponent
        elif isinstance(node, expr.Call):
            args = [self.fold(a) for a in node.args]
            if any(a is None for a in args):
                return None
            value = self._fold_call(node, args)
        else:
            raise TypeError(node)
        if value is not None and not math.isfinite(value):
            raise self.fail(f"the constant '{show(node)}' is not finite")
        return value

    def _fold_call(self, node: expr.Call, args: list[float]) -> float:
        a = args[0]
        try:
            return {
                "exp": lambda: math.exp(a), "log": lambda: math.log(a),
                "sqrt": lambda: math.sqrt(a), "rsqrt": lambda: 1 / math.sqrt(a),
                "abs": lambda: abs(a), "reciprocal": lambda: 1 / a,
                "tanh": lambda: math.tanh(a), "sigmoid": lambda: 1 / (1 + math.exp(-a)),
                "relu": lambda: max(a, 0.0), "min": lambda: min(args), "max": lambda: max(args),
            }[node.func]()
        except (ValueError, ZeroDivisionError, OverflowError):
            raise self.fail(f"'{show(node)}' has no finite value") from None

    def scalar(self, node: expr.Node) -> CScalar:
        """A scalar operand of the compute type.

        Constants fold to a literal; + - * / of attrs stay a kernel expression over the tiling
        struct; anything with a function call (exp(a), min(a, 1), ...) is computed once on the
        host into a tiling field, since the vector core has no scalar math library.
        """
        value = self.fold(node)
        if value is not None:
            return CScalar(self.literal(value, node), value)
        if self.is_int:
            self._check_int(node)
            text = (f"tiling.{self.host_field(node)}" if _has_call(node)
                    else self._int_expr(node))
            return CScalar(f"static_cast<{self.ctype}>({text})")
        if _has_call(node):
            return CScalar(f"tiling.{self.host_field(node)}")
        return CScalar(self._float_expr(node, 0))

    def literal(self, value: float, node: expr.Node) -> str:
        if not self.is_int:
            return _float_text(value)
        if not float(value).is_integer():
            raise self.fail(f"'{show(node)}' = {value!r} is not an integer, but the op computes "
                            "in an integer type")
        text = str(int(value))
        return text if self.ctype == "int32_t" else f"static_cast<{self.ctype}>({text})"

    def host_field(self, node: expr.Node) -> str:
        if node not in self.host_scalars:
            name = _fresh(f"scalar{len(self.host_scalars)}", self.tiling_names)
            self.tiling_names.add(name)
            self.host_scalars[node] = name
        return self.host_scalars[node]

    def _attr_field(self, name: str) -> str:
        return f"tiling.{_attr_field(self.attrs[name], self.tiling_names)}"

    def _float_expr(self, node: expr.Node, outer: int) -> str:
        """A kernel-side float expression of a call-free scalar subtree."""
        value = self.fold(node)
        if value is not None:
            text = _float_text(value)
            return f"({text})" if value < 0 and outer else text
        if isinstance(node, expr.Scalar):
            field = self._attr_field(node.name)
            return field if self.attrs[node.name].type == "float" else \
                f"static_cast<float>({field})"
        if isinstance(node, expr.Neg):
            return f"-{self._float_expr(node.arg, 3)}"
        if isinstance(node, expr.BinOp):
            p = _PREC[node.op]
            left = self._float_expr(node.left, p)
            text = f"{left} {node.op} {self._float_expr(node.right, p + 1)}"
            return f"({text})" if p < outer else text
        if isinstance(node, expr.Pow):
            base = self._float_expr(node.base, 3)
            return "(" + " * ".join([base] * node.exponent) + ")"
        raise TypeError(node)

    def _check_int(self, node: expr.Node) -> None:
        """Reject what an integer compute type cannot express."""
        for n in _walk(node):
            if isinstance(n, expr.Scalar) and self.attrs[n.name].type == "float":
                raise self.fail(f"float attr '{n.name}' cannot scale an integer tensor")
            if isinstance(n, expr.BinOp) and n.op == "/":
                raise self.fail(f"'{show(n)}' divides, but the op computes in an integer type")
            if isinstance(n, expr.Call) and n.func in _FLOAT_ONLY_FUNCS:
                raise self.fail(f"{n.func}() needs a float type, but the op computes in an "
                                "integer type")
            if isinstance(n, expr.Const) and not n.value.is_integer():
                raise self.fail(f"'{show(n)}' is not an integer, but the op computes in an "
                                "integer type")

    def _int_expr(self, node: expr.Node) -> str:
        """An int64 kernel expression of a call-free scalar subtree (integer compute types)."""
        value = self.fold(node)
        if value is not None:
            return str(int(value))
        if isinstance(node, expr.Scalar):
            field = self._attr_field(node.name)
            return field if self.attrs[node.name].type == "int" else \
                f"static_cast<int64_t>({field})"
        if isinstance(node, expr.Neg):
            return f"-({self._int_expr(node.arg)})"
        if isinstance(node, expr.BinOp):
            return f"({self._int_expr(node.left)} {node.op} {self._int_expr(node.right)})"
        if isinstance(node, expr.Pow):
            base = self._int_expr(node.base)
            return "(" + " * ".join([base] * node.exponent) + ")"
        raise TypeError(node)

    # -- tensors -------------------------------------------------------------------------

    def new_reg(self) -> int:
        self.next_reg += 1
        return self.next_reg - 1

    def emit(self, op: str, args: tuple[int, ...], node: expr.Node,
             scalar: CScalar | None = None, shared_tmp: bool = False) -> int:
        dst = self.new_reg()
        self.instrs.append(Instr(op, dst, args, scalar, op not in _NOT_INPLACE, shared_tmp,
                                 show(node)))
        return dst

    def value(self, node: expr.Node) -> int:
        """The register holding a tensor-valued subtree (computed once per program)."""
        if node in self.memo:
            return self.memo[node]
        reg = self._lower(node)
        self.memo[node] = reg
        return reg

    def _operands(self, *nodes: expr.Node) -> tuple[int, ...]:
        """Evaluate tensor operands, the one needing more registers first (Sethi-Ullman)."""
        order = sorted(range(len(nodes)), key=lambda i: -_need(nodes[i]))
        regs: dict[int, int] = {}
        for i in order:
            regs[i] = self.value(nodes[i])
        return tuple(regs[i] for i in range(len(nodes)))

    def _lower(self, node: expr.Node) -> int:
        if isinstance(node, expr.Tensor):
            raise AssertionError("inputs are pre-registered")
        if isinstance(node, expr.Neg):
            (a,) = self._operands(node.arg)
            return self.emit("Muls", (a,), node, CScalar(self.literal(-1.0, node), -1.0))
        if isinstance(node, expr.Pow):
            (a,) = self._operands(node.base)
            return self.emit(f"Pow{node.exponent}", (a,), node)
        if isinstance(node, expr.BinOp):
            return self._binop(node)
        if isinstance(node, expr.Call):
            return self._call(node)
        raise TypeError(node)

    def _binop(self, node: expr.BinOp) -> int:
        op, left, right = node.op, node.left, node.right
        if op == "/" and self.is_int:
            raise self.fail(f"'{show(node)}' divides, but Ascend C has no integer vector division")
        if left.is_tensor and right.is_tensor:
            a, b = self._operands(left, right)
            return self.emit({"+": "Add", "-": "Sub", "*": "Mul", "/": "Div"}[op], (a, b), node)
        if left.is_tensor:  # tensor (op) scalar
            (a,) = self._operands(left)
            if op == "+":
                return self.emit("Adds", (a,), node, self.scalar(right))
            if op == "-":
                return self.emit("Adds", (a,), node, self.scalar(expr.Neg(right)))
            if op == "*":
                return self.emit("Muls", (a,), node, self.scalar(right))
            # division by a scalar: multiply by its reciprocal
            return self.emit("Muls", (a,), node,
                             self.scalar(expr.BinOp("/", expr.Const(1.0), right)))
        (a,) = self._operands(right)  # scalar (op) tensor
        if op == "+":
            return self.emit("Adds", (a,), node, self.scalar(left))
        if op == "*":
            return self.emit("Muls", (a,), node, self.scalar(left))
        if op == "-":
            return self.emit("RSub", (a,), node, self.scalar(left))
        return self.emit("RDiv", (a,), node, self.scalar(left))

    def _call(self, node: expr.Call) -> int:
        func = node.func
        if func in ("min", "max"):
            x, y = node.args
            name = "Min" if func == "min" else "Max"
            if x.is_tensor and y.is_tensor:
                return self.emit(name, self._operands(x, y), node)
            tensor, scalar = (x, y) if x.is_tensor else (y, x)
            (a,) = self._operands(tensor)
            return self.emit(name + "s", (a,), node, self.scalar(scalar))
        if self.is_int and func in _FLOAT_ONLY_FUNCS:
            raise self.fail(f"{func}() needs a float type, but the op computes in an integer "
                            f"type ({self.ctype})")
        (a,) = self._operands(node.args[0])
        if func in ("tanh", "sigmoid"):
            api = func.capitalize()
            if self.api_ok[func]:
                return self.emit(api, (a,), node, shared_tmp=True)
            return self.emit(api + "Exp", (a,), node)
        if self.is_int and func == "abs":
            return self.emit("AbsInt", (a,), node)
        if func == "relu" and "int16_t" in self.ctypes:  # Relu has no int16 form
            return self.emit("Maxs", (a,), node, CScalar(self.literal(0.0, node), 0.0))
        return self.emit(_UNARY_OPS[func], (a,), node)

    # -- the whole op --------------------------------------------------------------------

    def lower(self, inputs: list[str], outputs: list[str]) -> Program:
        regs = {}
        for name in inputs:
            regs[name] = self.new_reg()
            self.memo[expr.Tensor(name)] = regs[name]
        results: dict[str, int] = {}
        claimed: set[int] = set()
        for out in outputs:
            self.output = out
            reg = self.value(self.op.compute[out])
            if reg in claimed or reg in regs.values():
                # the value already lives in another output or is an input: copy it
                reg = self.emit("Copy", (reg,), self.op.compute[out])
            claimed.add(reg)
            results[out] = reg
        return Program(self.instrs, regs, results)


def _need(node: expr.Node) -> int:
    """Registers a subtree needs (Sethi-Ullman number; inputs need none)."""
    if isinstance(node, expr.Tensor) or not node.is_tensor:
        return 0
    if isinstance(node, expr.Neg):
        return max(1, _need(node.arg))
    if isinstance(node, expr.Pow):
        return max(1, _need(node.base))
    args = [node.left, node.right] if isinstance(node, expr.BinOp) else list(node.args)
    needs = sorted((_need(a) for a in args if a.is_tensor), reverse=True)
    if len(needs) == 2 and needs[0] == needs[1]:
        return needs[0] + 1
    return max(1, needs[0])


def _has_call(node: expr.Node) -> bool:
    return any(isinstance(n, expr.Call) for n in _walk(node))


# ---------------------------------------------------------------------------------------------
# register allocation
# ---------------------------------------------------------------------------------------------


@dataclass
class Allocation:
    where: dict[int, str]  # virtual register -> tile: "in:<name>", "out:<name>", "tmp:<i>"
    dst: list[str]  # per instruction, the tile it writes
    args: list[tuple[str, ...]]  # per instruction, the tiles it reads
    temps: int  # scratch temporaries used
    shared_tmp: bool  # a high-level API needs the sharedTmpBuffer


def allocate(prog: Program) -> Allocation:
    """Linear scan over the instructions, reusing tiles as soon as their value is dead.

    Tiles, in order of preference for a new value: an argument dying here (in place, when the
    operation allows it), an input tile whose value is dead, an output tile whose final value
    comes later (and the value dies by then), a free temporary, a new temporary. An output's
    final value is always computed straight into its tile.
    """
    instrs = prog.instrs
    last_use: dict[int, int] = {}
    for i, ins in enumerate(instrs):
        for a in ins.args:
            last_use[a] = i
    final = {reg: out for out, reg in prog.outputs.items()}
    final_at = {out: next(i for i, ins in enumerate(instrs) if ins.dst == reg)
                for out, reg in prog.outputs.items()}

    where: dict[int, str] = {}
    holder: dict[str, int | None] = {}  # tile -> live value in it
    for name, reg in prog.inputs.items():
        tile = f"in:{name}"
        where[reg] = tile
        holder[tile] = reg if reg in last_use else None
    for out in prog.outputs:
        holder[f"out:{out}"] = None
    temps = 0
    dsts: list[str] = []
    args: list[tuple[str, ...]] = []

    def fits_output(out: str, reg: int, i: int) -> bool:
        """May `reg` (defined at i) live in output `out`'s tile until it dies?"""
        end = last_use.get(reg, i)
        f = final_at[out]
        return i < f and (end < f or (end == f and instrs[f].inplace))

    for i, ins in enumerate(instrs):
        args.append(tuple(where[a] for a in ins.args))
        dying = [a for a in dict.fromkeys(ins.args) if last_use[a] == i and a not in final]
        if ins.dst in final:
            tile = f"out:{final[ins.dst]}"
        else:
            tile = _pick(ins, i, dying, where, holder, prog, fits_output)
            if tile is None:
                free = [t for t, v in holder.items() if t.startswith("tmp:") and v is None]
                tile = min(free, key=lambda t: int(t[4:])) if free else f"tmp:{temps}"
                temps = max(temps, int(tile[4:]) + 1)
        for a in dying:
            if holder.get(where[a]) == a:
                holder[where[a]] = None
        where[ins.dst] = tile
        holder[tile] = ins.dst
        dsts.append(tile)
    return Allocation(where, dsts, args, temps, any(ins.shared_tmp for ins in instrs))


def _pick(ins: Instr, i: int, dying: list[int], where, holder, prog: Program, fits_output):
    if ins.inplace:
        for a in dying:
            tile = where[a]
            if not tile.startswith("out:") or fits_output(tile[4:], ins.dst, i):
                return tile
    for name in prog.inputs:
        if holder[f"in:{name}"] is None:
            return f"in:{name}"
    for out in prog.outputs:
        if holder[f"out:{out}"] is None and fits_output(out, ins.dst, i):
            return f"out:{out}"
    return None


# ---------------------------------------------------------------------------------------------
# C++ emission
# ---------------------------------------------------------------------------------------------


def _emit_instr(ins: Instr, d: str, a: list[str], ctx: dict[str, str]) -> list[str]:
    n = ctx["count"]
    s = ins.scalar.text if ins.scalar else ""
    one, minus_one = ctx["one"], ctx["minus_one"]
    op = ins.op
    if op in ("Add", "Sub", "Mul", "Div", "Max", "Min"):
        return [f"AscendC::{op}({d}, {a[0]}, {a[1]}, {n});"]
    if op in ("Adds", "Muls", "Maxs", "Mins"):
        return [f"AscendC::{op}({d}, {a[0]}, {s}, {n});"]
    if op in ("Exp", "Ln", "Sqrt", "Rsqrt", "Abs", "Reciprocal", "Relu"):
        return [f"AscendC::{op}({d}, {a[0]}, {n});"]
    if op in ("Tanh", "Sigmoid"):
        return [f"AscendC::{op}({d}, {a[0]}, {ctx['shared']}, {n});"]
    if op == "TanhExp":
        return ["// tanh(v) = 1 - 2 / (exp(2v) + 1)",
                f"AscendC::Muls({d}, {a[0]}, {ctx['two']}, {n});",
                f"AscendC::Exp({d}, {d}, {n});",
                f"AscendC::Adds({d}, {d}, {one}, {n});",
                f"AscendC::Reciprocal({d}, {d}, {n});",
                f"AscendC::Muls({d}, {d}, {ctx['minus_two']}, {n});",
                f"AscendC::Adds({d}, {d}, {one}, {n});"]
    if op == "SigmoidExp":
        return ["// sigmoid(v) = 1 / (1 + exp(-v))",
                f"AscendC::Muls({d}, {a[0]}, {minus_one}, {n});",
                f"AscendC::Exp({d}, {d}, {n});",
                f"AscendC::Adds({d}, {d}, {one}, {n});",
                f"AscendC::Reciprocal({d}, {d}, {n});"]
    if op == "Pow2":
        return [f"AscendC::Mul({d}, {a[0]}, {a[0]}, {n});"]
    if op == "Pow3":
        return [f"AscendC::Mul({d}, {a[0]}, {a[0]}, {n});",
                f"AscendC::Mul({d}, {d}, {a[0]}, {n});"]
    if op == "Pow4":
        return [f"AscendC::Mul({d}, {a[0]}, {a[0]}, {n});",
                f"AscendC::Mul({d}, {d}, {d}, {n});"]
    if op == "RSub":  # s - v = -v + s
        return [f"AscendC::Muls({d}, {a[0]}, {minus_one}, {n});",
                f"AscendC::Adds({d}, {d}, {s}, {n});"]
    if op == "RDiv":  # s / v = s * (1 / v)
        lines = [f"AscendC::Reciprocal({d}, {a[0]}, {n});"]
        if ins.scalar.value != 1.0:
            lines.append(f"AscendC::Muls({d}, {d}, {s}, {n});")
        return lines
    if op == "AbsInt":  # |v| = max(v, -v)
        return [f"AscendC::Muls({d}, {a[0]}, {minus_one}, {n});",
                f"AscendC::Max({d}, {d}, {a[0]}, {n});"]
    if op == "Copy":  # a UB copy of any length: multiply by one
        return [f"AscendC::Muls({d}, {a[0]}, {one}, {n});"]
    raise AssertionError(op)


def _emit_body(prog: Program, alloc: Allocation, names: dict[str, str],
               ctx: dict[str, str]) -> list[str]:
    """The C++ statements of one lowered program (without the temporaries' declarations)."""
    lines: list[str] = []
    reused: set[str] = set()
    for i, ins in enumerate(prog.instrs):
        tile = alloc.dst[i]
        d = names[tile]
        a = [names[t] for t in alloc.args[i]]
        comment = f"// {d} <- {ins.text}"
        if tile.startswith("in:") and tile not in reused:
            reused.add(tile)
            comment += f"  ({d} is not read again: its tile is reused)"
        if len(comment) <= 100:
            lines.append(comment)
        lines += _emit_instr(ins, d, a, ctx)
    return lines


# ---------------------------------------------------------------------------------------------
# names and helpers
# ---------------------------------------------------------------------------------------------


def _fresh(base: str, taken: set[str]) -> str:
    name, n = base, 1
    while name in taken:
        name = f"{base}{n}"
        n += 1
    return name


def _attr_field(a: Attr, taken: set[str]) -> str:
    """The tiling field of a scalar attr: its own name unless a base field has it."""
    reserved = {f[1] for f in BASE_TILING_FIELDS}
    return f"attr_{a.name}" if a.name in reserved else a.name


def cpp_wrap(head: str, items: list[str], tail: str, width: int = 110, indent: str = "") -> str:
    """`head(item, item, ...)tail`, wrapped after commas and aligned under the first item."""
    one_line = f"{indent}{head}{', '.join(items)}{tail}"
    if len(one_line) <= width:
        return one_line
    pad = " " * (len(indent) + len(head))
    lines: list[str] = []
    current = f"{indent}{head}"
    for k, item in enumerate(items):
        piece = item + (", " if k < len(items) - 1 else tail)
        if current.strip() and len(current) + len(piece.rstrip()) > width and \
                current != f"{indent}{head}":
            lines.append(current.rstrip())
            current = pad
        current += piece
    lines.append(current.rstrip())
    return "\n".join(lines)


def wrap_condition(terms: list[str], indent: str, width: int = 100) -> str:
    """`a || b || c`, broken after `||` to stay within `width` (continuation lines indented)."""
    lines = [""]
    for k, term in enumerate(terms):
        piece = term + (" ||" if k < len(terms) - 1 else "")
        if lines[-1] and len(indent) + len(lines[-1]) + 1 + len(piece) > width:
            lines.append("")
        lines[-1] = f"{lines[-1]} {piece}" if lines[-1] else piece
    return ("\n" + indent).join(lines)


def compute_type(dtypes: list[str]) -> str | None:
    """The C type a combination of dtypes computes in, or None when they do not share one."""
    if all(d in FLOAT_DTYPES for d in dtypes):
        return "float"
    if len(set(dtypes)) == 1 and dtypes[0] in INT_COMPUTE_DTYPES:
        return DTYPES[dtypes[0]].c_type
    return None


def tensor_compute_bytes(dtype: str) -> int:
    """sizeof the compute type the kernel widens one tensor to (16-bit floats -> float)."""
    return 4 if dtype in FLOAT_DTYPES else DTYPES[dtype].size


# ---------------------------------------------------------------------------------------------
# the context
# ---------------------------------------------------------------------------------------------


@dataclass
class _Tensor:
    param: TensorParam
    index: int  # IR index among inputs or outputs
    role: str  # input | output

    @property
    def kernel_param(self) -> str:
        return f"{self.param.name}_ref" if self.role == "output" and self.param.is_ref \
            else self.param.name

    @property
    def macro(self) -> str:
        return f"DTYPE_{self.kernel_param.upper()}"

    @property
    def streamed(self) -> bool:
        return self.param.param_type == "required"


def _tags(tensors: list[_Tensor]) -> dict[str, str]:
    """camelCase identifiers per tensor (x_ref -> xRef); by position if two would clash."""
    tags = {t.kernel_param: aclnn_name(t.kernel_param) for t in tensors}
    if len(set(tags.values())) < len(tags):
        tags = {t.kernel_param: f"{t.role[:2] if t.role == 'input' else 'out'}{t.index}"
                for t in tensors}
    return tags


def kernel_context(op: Op, options) -> dict[str, Any]:
    """Everything the kernel and host templates render for one op (`op.kernel`).

    Names: class_name, compute_fn, host_namespace, *_header / *_guard, buffer_num_const,
    entry_tiling_var, entry_kernel_var, init_offset / init_rest / init_scratch_bytes.
    Code fragments (already indented and wrapped): entry_signature, init_signature, init_args,
    compute_call, compute.signature, compute.template, compute.body, compute.scratch_note.
    Tensors: streamed / streamed_inputs / streamed_outputs (required tensors the kernel copies
    through UB, each with its param, macro, identifiers and can_widen), other_tensors (optional
    and dynamic ones it does not stream), opdef_tensors (the OpDef lines). Tiling: tiling_fields
    (decl + comment, widest first), attr_fields (int/float/bool attrs and how TilingFunc reads
    them), host_scalars (attr math done on the host). Compute facts: combinations (compute type
    per dtype combination), compute.temps / shared_tmp / shared_tmp_live_nodes /
    shared_tmp_min_bytes / shared_tmp_apis / exp_fallbacks / soc_variants / mode / type. Host:
    host.shape_ref / descs / dtype_rules / null_checks / add_tensors / has_dynamic_output.
    SoCs: soc_literals, socs_without_datacopypad, warnings (for the CLI to show).
    Raises LoweringError when the compute expression cannot be lowered.
    """
    socs = soc_short_names(options.socs)
    tensors = [_Tensor(t, i, "input") for i, t in enumerate(op.inputs)] + \
              [_Tensor(t, i, "output") for i, t in enumerate(op.outputs)]
    streamed = [t for t in tensors if t.streamed]
    ins = [t for t in streamed if t.role == "input"]
    outs = [t for t in streamed if t.role == "output"]
    tags = _tags(tensors)
    struct = f"{op.op_type}TilingData"

    # compute types per dtype combination (streamed tensors only)
    combos = []
    for combo in op.dtype_combinations:
        dtypes = [combo[t.index if t.role == "input" else len(op.inputs) + t.index]
                  for t in streamed]
        combos.append({"dtypes": list(combo), "compute_type": compute_type(dtypes),
                       "streamed_dtypes": dtypes})

    tiling_names = {f[1] for f in BASE_TILING_FIELDS}
    attr_fields = []
    for i, a in enumerate(op.attrs):
        if not a.info.is_scalar:
            continue
        name = _attr_field(a, tiling_names)
        tiling_names.add(name)
        c_type = {"int": "int64_t", "float": "float", "bool": "bool"}[a.type]
        getter = {"int": "GetInt", "float": "GetFloat", "bool": "GetBool"}[a.type]
        attr_fields.append({
            "name": a.name, "index": i, "field": name, "c_type": c_type, "getter": getter,
            "var": _fresh(aclnn_name(a.name) + "Attr", set()),
            "required": a.required,
            "default": None if a.required else cpp_literal(a.type, a.default),
            "name_literal": cpp_string(a.name),
        })

    compute = _compute_context(op, socs, streamed, ins, outs, combos, tiling_names, struct)

    params = {t.kernel_param for t in tensors}
    entry_tiling = _fresh("tilingData", params)
    entry_kernel = _fresh("op", params | {entry_tiling})
    init_locals = {base: _fresh(base, params) for base in ("offset", "rest", "scratchBytes")}
    any_widen = any(_can_widen(t) for t in streamed)
    views = [tags[t.kernel_param] + ("View" if _can_widen(t) else "Tile") for t in outs + ins]
    compute_call = cpp_wrap(compute["fn"] + "(", views + ["scratch_", "count", "tiling_"], ");",
                            indent=" " * 8)
    init_params = [f"GM_ADDR {t.kernel_param}" for t in streamed] + [f"const {struct}& tiling"]
    entry_params = [f"GM_ADDR {p}" for p in [t.kernel_param for t in tensors]
                    + ["workspace", "tiling"]]

    ctx: dict[str, Any] = {
        "any_widen": any_widen,
        "init_signature": cpp_wrap("__aicore__ inline void Init(", init_params, ")",
                                   indent=" " * 4),
        "init_args": [t.kernel_param for t in streamed] + [entry_tiling],
        "init_offset": init_locals["offset"],
        "init_rest": init_locals["rest"],
        "init_scratch_bytes": init_locals["scratchBytes"],
        "compute_call": compute_call,
        "entry_signature": cpp_wrap(f'extern "C" __global__ __aicore__ void {op.snake_name}(',
                                    entry_params, ")"),
        "guard": f"{op.snake_name.upper()}_TILING_H",
        "compute_guard": f"{op.snake_name.upper()}_COMPUTE_H",
        "policy_guard": f"{op.snake_name.upper()}_TILING_POLICY_H",
        "buffer_num_const": f"{op.snake_name.upper()}_BUFFER_NUM",
        "class_name": f"Kernel{op.op_type}",
        "compute_fn": compute["fn"],
        "compute_header": f"{op.snake_name}_compute.h",
        "tiling_header": f"{op.snake_name}_tiling.h",
        "policy_header": f"{op.snake_name}_tiling_policy.h",
        "host_namespace": op.snake_name,
        "base_header": f"{op.snake_name}_tiling_base.h",
        "base_guard": f"{op.snake_name.upper()}_TILING_BASE_H",
        "opdef_tensors": [_opdef_tensor(t) for t in tensors],
        "soc_literals": [cpp_string(s) for s in socs],
        "tiling_fields": _tiling_fields(attr_fields, compute["host_scalars"]),
        "attr_fields": attr_fields,
        "host_scalars": compute["host_scalars"],
        "streamed": [_tensor_ctx(t, tags) for t in streamed],
        "streamed_inputs": [_tensor_ctx(t, tags) for t in ins],
        "streamed_outputs": [_tensor_ctx(t, tags) for t in outs],
        "other_tensors": [{"name": t.param.name, "role": t.role,
                           "param_type": t.param.param_type} for t in tensors if not t.streamed],
        "entry_tiling_var": entry_tiling,
        "entry_kernel_var": entry_kernel,
        "combinations": combos,
        "compute": compute,
        "socs_without_datacopypad": sorted(set(socs) & NO_DATACOPYPAD),
        "host": _host_context(op, tensors, streamed, tags),
        "warnings": compute["warnings"] + _soc_warnings(socs),
    }
    return ctx


def _opdef_tensor(t: _Tensor) -> dict[str, str]:
    return {
        "method": "Input" if t.role == "input" else "Output",
        "name_literal": cpp_string(t.param.name),
        "option": t.param.param_type.upper(),
        "ge_dtypes": ", ".join(f"ge::{DTYPES[d].ge}" for d in t.param.dtypes),
        "ge_formats": ", ".join(f"ge::FORMAT_{f}" for f in t.param.formats),
    }


def _can_widen(t: _Tensor) -> bool:
    """Does some dtype combination give the tensor a compute type other than its dtype?"""
    return any(d in ("float16", "bfloat16") for d in t.param.dtypes)


def _tiling_fields(attr_fields: list[dict], host_scalars: list[dict]) -> list[dict[str, str]]:
    """The tiling struct's fields, widest first so host and device agree on the layout."""
    fields = [{"type": t, "name": n, "comment": c} for t, n, c in BASE_TILING_FIELDS]
    extra = [{"type": f["c_type"], "name": f["field"], "comment": f"attr {f['name']}"}
             for f in attr_fields]
    extra += [{"type": h["c_type"], "name": h["field"],
               "comment": f"{h['text']}, computed on the host"} for h in host_scalars]
    size = {"int64_t": 8, "float": 4, "bool": 1}
    fields += sorted(extra, key=lambda f: -size[f["type"]])
    width = max(len(f"{f['type']} {f['name']};") for f in fields)
    for f in fields:
        f["decl"] = f"{f['type']} {f['name']};".ljust(width)
    return fields


def _tensor_ctx(t: _Tensor, tags: dict[str, str]) -> dict[str, Any]:
    tag = tags[t.kernel_param]
    up = tag[:1].upper() + tag[1:]
    return {
        "name": t.param.name,
        "param": t.kernel_param,
        "index": t.index,
        "role": t.role,
        "macro": t.macro,
        "tag": tag,
        "gm": f"{tag}Gm_",
        "queue": f"{tag}Queue_",
        "cast": f"{tag}Cast_",
        "tile": f"{tag}Tile",
        "view": f"{tag}View",
        "compute_alias": f"Compute{up}",
        "position": "VECIN" if t.role == "input" else "VECOUT",
        "dtypes": list(t.param.dtypes),
        "can_widen": _can_widen(t),
    }


def _soc_warnings(socs: list[str]) -> list[str]:
    lacking = sorted(set(socs) & NO_DATACOPYPAD)
    if not lacking:
        return []
    verb = "has" if len(lacking) == 1 else "have"
    return [f"{', '.join(lacking)} {verb} no DataCopyPad, which the kernel uses for tensor "
            "tails that are not a multiple of 32 bytes; on those SoCs the kernel stops with an "
            "error on such a tail"]


def _compute_context(op: Op, socs: list[str], streamed: list[_Tensor], ins: list[_Tensor],
                     outs: list[_Tensor], combos: list[dict], tiling_names: set[str],
                     struct: str) -> dict[str, Any]:
    fn = f"{op.op_type}Compute"
    taken = {t.kernel_param for t in streamed} | {fn}
    count = _fresh("count", taken)
    scratch = _fresh("scratch", taken | {count})
    reserved = taken | {count, scratch, "tiling", "T"}
    types = {c["compute_type"] for c in combos}
    warnings: list[str] = []
    host_scalars: dict[expr.Node, str] = {}

    if not op.compute:
        return _stub_context(op, streamed, outs, combos, fn, count, scratch, struct)

    # per combination, every streamed tensor computes in one type
    for c in combos:
        if c["compute_type"] is None:
            bad = [d for d in c["streamed_dtypes"] if d not in FLOAT_DTYPES + INT_COMPUTE_DTYPES]
            out = outs[0].param.name if outs else "?"
            if bad:
                why = (f"dtype {bad[0]} has no Ascend C vector arithmetic opgen can lower to "
                       "(float16, bfloat16, float32, int16 and int32 do)")
            else:
                pairs = ", ".join(f"{t.param.name}={d}" for t, d in zip(
                    streamed, c["streamed_dtypes"], strict=True))
                why = (f"the dtype combination ({pairs}) mixes types that do not compute in one "
                       "type; give every tensor of a combination float types, or one integer type")
            raise LoweringError(f"compute expression of output '{out}': {why}. Drop the compute "
                                "expression to write the compute step by hand.")
    if len(types) == 1:
        mode = "float" if types == {"float"} else "int"
        ctype = types.pop()
    else:
        mode, ctype = "template", "T"

    short_missing = {f: sorted(set(socs) & missing) for f, missing in API_MISSING.items()}
    used_funcs = {n.func for tree in op.compute.values() for n in _walk(tree)
                  if isinstance(n, expr.Call)}
    need_variants = any(short_missing[f] and len(short_missing[f]) < len(socs)
                        for f in ("tanh", "sigmoid") if f in used_funcs)
    in_names = [t.param.name for t in ins]
    out_names = [t.param.name for t in outs]

    ctypes = frozenset(c["compute_type"] for c in combos)

    def lower_variant(api_ok: dict[str, bool]):
        lw = _Lowerer(op, mode, ctype, api_ok, host_scalars, tiling_names, ctypes)
        prog = lw.lower(in_names, out_names)
        return prog, allocate(prog)

    variants = []
    if need_variants:
        # Some targets lack an API: emit both sequences, chosen by __NPU_ARCH__.
        fallback = {f: not short_missing[f] for f in API_MISSING}
        arches = sorted({NPU_ARCH[s] for f in ("tanh", "sigmoid") if f in used_funcs
                         for s in short_missing[f]})
        cond = " || ".join(f"__NPU_ARCH__ == {a}" for a in arches)
        variants.append({"cond": f"defined(__NPU_ARCH__) && ({cond})",
                         "note": _missing_note(short_missing, used_funcs), "api_ok": fallback})
        variants.append({"cond": None, "note": "", "api_ok": {f: True for f in API_MISSING}})
    else:
        variants.append({"cond": None, "note": _missing_note(short_missing, used_funcs),
                         "api_ok": {f: not short_missing[f] for f in API_MISSING}})
    lowered = [lower_variant(v["api_ok"]) for v in variants]
    temps = max(a.temps for _, a in lowered)
    shared = any(a.shared_tmp for _, a in lowered)
    apis = sorted({ins_.op for p, _ in lowered for ins_ in p.instrs if ins_.shared_tmp})
    exp_fallbacks = sorted({ins_.op[:-3] for p, _ in lowered for ins_ in p.instrs
                            if ins_.op.endswith("Exp")})

    # C++ names of the tiles
    names = {f"in:{t.param.name}": t.kernel_param for t in ins}
    names.update({f"out:{t.param.name}": t.kernel_param for t in outs})
    tmp_names = []
    for i in range(temps):
        tmp_names.append(_fresh(f"tmp{i}", reserved))
        names[f"tmp:{i}"] = tmp_names[-1]
    shared_name = _fresh("sharedTmp", reserved | set(tmp_names))
    t = ctype if mode != "template" else "T"
    lit = _literal_fn(mode, ctype)
    ectx = {"count": count, "shared": shared_name, "one": lit(1), "minus_one": lit(-1),
            "two": lit(2), "minus_two": lit(-2)}

    def offset(i: int) -> str:  # of scratch slot i: the temporaries, then the sharedTmpBuffer
        return "" if i == 0 else ("[tiling.tmpBytes]" if i == 1 else f"[{i} * tiling.tmpBytes]")

    body: list[str] = []
    for v, (prog, alloc) in zip(variants, lowered, strict=True):
        if len(variants) > 1:
            body.append(f"#if {v['cond']}" if v["cond"] else "#else")
        if v["note"]:
            body.append(f"// {v['note']}")
        for i in range(alloc.temps):  # declared per branch: each uses what it needs
            body.append(f"const AscendC::LocalTensor<{t}> {tmp_names[i]} = "
                        f"{scratch}{offset(i)}.ReinterpretCast<{t}>();")
        if alloc.shared_tmp:
            body.append(f"const AscendC::LocalTensor<uint8_t> {shared_name} = "
                        f"{scratch}{offset(temps)};")
        body += _emit_body(prog, alloc, names, ectx)
    if len(variants) > 1:
        body.append("#endif")

    params = [f"const AscendC::LocalTensor<{t}>& {x.kernel_param}" for x in outs + ins]
    params += [f"const AscendC::LocalTensor<uint8_t>& {scratch}", f"uint32_t {count}",
               f"const {struct}& tiling"]
    head = "__aicore__ inline void " + fn + "("
    signature = cpp_wrap(head, params, ")")
    template = "template <typename T>" if mode == "template" else ""

    host = [{"field": name, "text": show(node), "expr": _host_expr(node, op, mode != "float"),
             "c_type": "float" if mode == "float" else "int64_t"}
            for node, name in host_scalars.items()]
    plural = "temporary" if temps == 1 else "temporaries"
    note = f"opgen's lowering of the compute expression uses {temps} {plural}"
    if shared:
        note += (f" and the sharedTmpBuffer of {' and '.join(apis)} (Get<API>TmpBufferFactorSize: "
                 f"{SHARED_TMP_LIVE_NODES} float per element; Get<API>MaxMinTmpSize: at least "
                 f"{SHARED_TMP_MIN_BYTES} bytes)")
    if exp_fallbacks:
        note += (f"; {' and '.join(exp_fallbacks)} through Exp where the SoC lacks the API")
    return {
        "fn": fn,
        "has_expression": True,
        "expressions": [{"output": o, "text": show(op.compute[o])} for o in out_names],
        "mode": mode,
        "type": t,
        "template": template,
        "signature": signature,
        "body": _indent(body),
        "temps": temps,
        "shared_tmp": shared,
        "shared_tmp_apis": apis,
        "shared_tmp_live_nodes": SHARED_TMP_LIVE_NODES if shared else 0,
        "shared_tmp_min_bytes": SHARED_TMP_MIN_BYTES if shared else 0,
        "exp_fallbacks": exp_fallbacks,
        "soc_variants": len(variants) > 1,
        "scratch_note": _comment(note + "."),
        "host_scalars": host,
        "warnings": warnings,
    }


def _missing_note(short_missing: dict[str, list[str]], used: set[str]) -> str:
    """"ascend910 has no Tanh API: ..." for the SoCs that lack an API the expression uses."""
    lacking: dict[str, list[str]] = {}
    for f in ("tanh", "sigmoid"):
        for soc in short_missing[f] if f in used else ():
            lacking.setdefault(soc, []).append(f.capitalize())
    if not lacking:
        return ""
    return "; ".join(f"{soc} has no {' or '.join(apis)} API" for soc, apis in
                     sorted(lacking.items())) + ": computed through Exp"


def _literal_fn(mode: str, ctype: str):
    def lit(v: int) -> str:
        if mode == "float":
            return _float_text(float(v))
        if ctype == "int32_t":
            return str(v)
        return f"static_cast<{ctype}>({v})"
    return lit


def _stub_context(op: Op, streamed: list[_Tensor], outs: list[_Tensor], combos: list[dict],
                  fn: str, count: str, scratch: str, struct: str) -> dict[str, Any]:
    """No compute expression: a compiling placeholder that writes zeros, loudly marked."""
    types = {c["compute_type"] for c in combos}
    per_tensor = None in types
    taken = {x.kernel_param for x in streamed} | {fn, count, scratch, "tiling"}
    body = ["// TODO(opgen): the prototype has no compute expression, so this step only writes",
            "// zeros. Replace it with the op's computation (AscendC::Add, Muls, Exp, ...)."]
    if per_tensor:
        tparams = {x.kernel_param: "T" + pascal_name(aclnn_name(x.kernel_param)) for x in streamed}
        if len(set(tparams.values())) < len(tparams):
            tparams = {x.kernel_param: f"T{i}" for i, x in enumerate(streamed)}
        template = "template <" + ", ".join(f"typename {tparams[x.kernel_param]}"
                                            for x in outs + [s for s in streamed
                                                             if s.role == "input"]) + ">"
        ptype = tparams
    elif len(types) == 1:
        template = ""
        only = types.pop()
        ptype = {x.kernel_param: only for x in streamed}
    else:
        template = "template <typename T>"
        ptype = {x.kernel_param: "T" for x in streamed}
    for x in outs:
        ty = ptype[x.kernel_param]
        duplicable = all(tensor_compute_bytes(d) in (2, 4) and d != "bool"
                         for d in x.param.dtypes)
        if duplicable:
            zero = "0.0f" if ty == "float" else f"static_cast<{ty}>(0)"
            body.append(f"AscendC::Duplicate({x.kernel_param}, {zero}, {count});")
        else:
            # Duplicate has no 1- or 8-byte form: zero the tile's bytes as uint16_t, rounded up
            # to whole 32-byte blocks (the tile holds them).
            words = _fresh(f"{aclnn_name(x.kernel_param)}Words", taken)
            taken.add(words)
            body.append(f"const int32_t {words} = static_cast<int32_t>(({count} * sizeof({ty}) "
                        "+ 31) / 32 * 16);")
            view = f"{x.kernel_param}.template ReinterpretCast<uint16_t>()"
            body.append(f"AscendC::Duplicate({view}, static_cast<uint16_t>(0), {words});")
    ins = [s for s in streamed if s.role == "input"]
    params = [f"const AscendC::LocalTensor<{ptype[x.kernel_param]}>& {x.kernel_param}"
              for x in outs + ins]
    params += [f"const AscendC::LocalTensor<uint8_t>& {scratch}", f"uint32_t {count}",
               f"const {struct}& tiling"]
    signature = cpp_wrap("__aicore__ inline void " + fn + "(", params, ")")
    return {
        "fn": fn,
        "has_expression": False,
        "expressions": [],
        "mode": "stub",
        "type": "",
        "template": template,
        "signature": signature,
        "body": _indent(body),
        "temps": 0,
        "shared_tmp": False,
        "shared_tmp_apis": [],
        "shared_tmp_live_nodes": 0,
        "shared_tmp_min_bytes": 0,
        "exp_fallbacks": [],
        "soc_variants": False,
        "scratch_note": "// The placeholder compute step uses none; reserve what your code needs.",
        "host_scalars": [],
        "warnings": [],
    }


def _comment(text: str, width: int = 100) -> str:
    """`text` as // comment lines."""
    return "\n".join("// " + line for line in textwrap.wrap(text, width - 3))


def _indent(lines: list[str]) -> str:
    return "\n".join(line if line.startswith("#") else "    " + line for line in lines)


def _walk(node: expr.Node):
    yield node
    if isinstance(node, expr.Neg):
        yield from _walk(node.arg)
    elif isinstance(node, expr.BinOp):
        yield from _walk(node.left)
        yield from _walk(node.right)
    elif isinstance(node, expr.Pow):
        yield from _walk(node.base)
    elif isinstance(node, expr.Call):
        for a in node.args:
            yield from _walk(a)


def _host_expr(node: expr.Node, op: Op, integer: bool) -> str:
    """A host C++ expression of a scalar subtree over the `tiling->` attr fields: in double for
    float ops, in int64_t for integer ones (whose subtrees hold only integer operations)."""
    attrs = {a.name: a for a in op.attrs}
    reserved = {f[1] for f in BASE_TILING_FIELDS}
    num = "int64_t" if integer else "double"

    def h(n: expr.Node) -> str:
        if isinstance(n, expr.Const):
            return str(int(n.value)) if integer else repr(n.value)
        if isinstance(n, expr.Scalar):
            return f"static_cast<{num}>(tiling->{_attr_field(attrs[n.name], reserved)})"
        if isinstance(n, expr.Neg):
            return f"(-{h(n.arg)})"
        if isinstance(n, expr.BinOp):
            return f"({h(n.left)} {n.op} {h(n.right)})"
        if isinstance(n, expr.Pow):
            return "(" + " * ".join([h(n.base)] * n.exponent) + ")"
        if isinstance(n, expr.Call):
            args = [h(a) for a in n.args]
            a = args[0]
            zero = "0" if integer else "0.0"
            return {
                "exp": f"std::exp({a})", "log": f"std::log({a})", "sqrt": f"std::sqrt({a})",
                "rsqrt": f"(1.0 / std::sqrt({a}))", "reciprocal": f"(1.0 / {a})",
                "tanh": f"std::tanh({a})", "sigmoid": f"(1.0 / (1.0 + std::exp(-{a})))",
                "abs": f"({a} < {zero} ? -{a} : {a})", "relu": f"({a} > {zero} ? {a} : {zero})",
                "min": f"({args[0]} < {args[-1]} ? {args[0]} : {args[-1]})",
                "max": f"({args[0]} > {args[-1]} ? {args[0]} : {args[-1]})",
            }[n.func]
        raise TypeError(n)

    return f"static_cast<{'int64_t' if integer else 'float'}>({h(node)})"


# ---------------------------------------------------------------------------------------------
# host side: shape reference, InferShape, InferDataType
# ---------------------------------------------------------------------------------------------


def _host_context(op: Op, tensors: list[_Tensor], streamed: list[_Tensor],
                  tags: dict[str, str]) -> dict[str, Any]:
    inputs = [t for t in tensors if t.role == "input"]
    outputs = [t for t in tensors if t.role == "output"]
    has_dynamic_output = any(t.param.param_type == "dynamic" for t in outputs)

    # The tensor whose shape every output takes (and whose element count is tiled).
    ref = next((t for t in inputs if t.param.param_type == "required"), None)
    if ref is not None:
        shape = {"kind": "required", "index": ref.index, "name": ref.param.name}
    else:
        first = inputs[0] if inputs else None
        if first is None:
            shape = {"kind": "none", "index": 0, "name": ""}
        else:
            shape = {"kind": first.param.param_type, "index": first.index,
                     "name": first.param.name}
    accessor = {
        "required": "GetRequiredInputShape({i})",
        "optional": "GetOptionalInputShape({i})",
        "dynamic": "GetDynamicInputShape({i}, 0)",
    }.get(shape["kind"], "")
    shape["accessor"] = accessor.format(i=shape["index"]) if accessor else ""

    # Output instance index: the IR index unless a dynamic output comes before it.
    out_index = {}
    dynamic_before = False
    for t in outputs:
        out_index[t.param.name] = (f"OutputIndex(context, {t.index})" if dynamic_before
                                   else str(t.index))
        dynamic_before = dynamic_before or t.param.param_type == "dynamic"

    # InferDataType: copy an input's dtype when the lists agree, else map or fix it.
    dtype_rules = []
    for t in outputs:
        rule = _dtype_rule(op, t, inputs)
        rule.update({"name": t.param.name, "index": out_index[t.param.name], "ir_index": t.index,
                     "dynamic": t.param.param_type == "dynamic",
                     "info_var": aclnn_name(t.param.name) + "Info"})
        if rule["kind"] == "copy":
            rule["value"] = f"context->GetRequiredInputDataType({rule['from']})"
        elif rule["kind"] == "map":
            rule["value"] = rule["default"]  # a dynamic output: the first combination's dtype
        dtype_rules.append(rule)

    # dtype of every streamed tensor in TilingFunc
    sizes = []
    for t in streamed:
        if t.role == "input":
            desc = f"context->GetRequiredInputDesc({t.index})"
        else:
            desc = f"context->GetOutputDesc({out_index[t.param.name]})"
        var = tags[t.kernel_param] + "Desc"
        decl = f"const gert::CompileTimeTensorDesc* {var} = {desc};"
        if len(decl) > 96:
            decl = f"const gert::CompileTimeTensorDesc* {var} =\n        {desc};"
        sizes.append({"name": t.param.name, "desc": desc, "var": var, "decl": decl,
                      "role": t.role})
    checks = ["tiling == nullptr", "shape == nullptr"] + [f"{d['var']} == nullptr" for d in sizes]
    return {
        "shape_ref": shape,
        "null_checks": wrap_condition(checks, " " * 8),
        "add_tensors": wrap_condition([f"!AddTensor(facts, {d['var']}->GetDataType())"
                                       for d in sizes], " " * 8),
        "dtype_rules": dtype_rules,
        "has_dynamic_output": has_dynamic_output,
        "descs": sizes,
    }


def _dtype_rule(op: Op, out: _Tensor, inputs: list[_Tensor]) -> dict[str, Any]:
    """How InferDataType sets an output: copy an input's dtype (same lists), a fixed dtype, or
    a switch over an input's dtype."""
    D = DTYPES  # noqa: N806
    dts = out.param.dtypes
    for t in inputs:
        if t.param.param_type == "required" and t.param.dtypes == dts:
            return {"kind": "copy", "from": t.index, "from_name": t.param.name}
    if len(set(dts)) == 1:
        return {"kind": "fixed", "value": f"ge::{D[dts[0]].ge}"}
    for t in inputs:
        if t.param.param_type != "required":
            continue
        mapping: dict[str, str] = {}
        if all(mapping.setdefault(i, o) == o for i, o in zip(t.param.dtypes, dts, strict=True)):
            cases = [{"from": f"ge::{D[i].ge}", "to": f"ge::{D[o].ge}"}
                     for i, o in mapping.items()]
            return {"kind": "map", "from": t.index, "from_name": t.param.name, "cases": cases,
                    "default": f"ge::{D[dts[0]].ge}"}
    return {"kind": "fixed", "value": f"ge::{D[dts[0]].ge}"}
