"""The compute compiler: a compute expression -> a vector program -> tiles -> Ascend C calls.

Three steps, each a plain function over plain data:
1. `Lowerer` walks the compute trees (all outputs at once, common subexpressions shared) and
   emits a list of `Instr`: one vector operation each, over virtual registers (SSA values).
   Scalar-only subtrees become C++ scalar expressions: constants are folded here, attrs are
   read from the tiling struct, and math functions of attrs are computed on the host
   (`host_expr`).
2. `allocate` maps the virtual registers to UB tiles: the output tiles, input tiles after
   their last use, and as few scratch temporaries as it can (a linear scan).
3. `emit_body` prints the instructions as C++ statements.

What the kernel templates make of the result (signature, temporaries, SoC variants) is
`planning/kernel.py`'s. See ../shared/reference/ascend-c.md §3 for the API spellings.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Set
from dataclasses import dataclass, replace

from opgen.frontend import expr, functions
from opgen.frontend.catalog import SOC_FAMILIES
from opgen.frontend.expr import show
from opgen.frontend.model import Op
from opgen.literals import cpp_float, cpp_string


class LoweringError(ValueError):
    """The compute expression cannot be lowered to Ascend C vector calls for this op."""

    op: Op  # set by naming()

    def __init__(self, message: str, output: str = "") -> None:
        super().__init__(message)
        self.output = output  # the output whose expression failed, when known

    def naming(self, op: Op) -> LoweringError:
        """This error about `op`: its message after the op's name, as a SocDtypeError's;
        `.op` is the op, for the JSON path of the message."""
        error = LoweringError(f"{op.op_type}: {self}", self.output)
        error.op = op
        return error


# ---------------------------------------------------------------------------------------------
# the high-level APIs' scratch (the types a kernel computes in are catalog's)
# ---------------------------------------------------------------------------------------------

# The high-level APIs' sharedTmpBuffer needs (functions.Api.scratch) and the reductions':
# ReduceSum/Max/Min (count mode) need far less (one value per 64 floats, in whole 32-byte
# blocks: ReduceSum.md); one float per element keeps the rule simple.
SHARED_TMP_NEEDS = {
    **{api.name: api.scratch for api in functions.APIS if api.scratch},
    **{op: (1, 256) for op in ("RowSum", "RowMean", "RowMax", "RowMin")},
}
FLT_MAX = 3.4028234663852886e38
FLT_MIN_NORMAL = 2.0**-126

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

    op: str  # Add, Muls, Tanh, Pow3, RSub, RDiv, Copy, ... (see _emit_instr)
    dst: int  # virtual register it defines
    args: tuple[int, ...]  # virtual registers it reads
    scalar: CScalar | None = None
    inplace: bool = True  # may the destination share a tile with an argument
    shared_tmp: bool = False  # needs the high-level API sharedTmpBuffer
    text: str = ""  # the source subexpression, for a comment
    note: str = ""  # a comment line before it: what a composed sequence computes and why
    mode: str = ""  # Compare*: the CMPMODE (LT, GE, ...)
    scalar2: CScalar | None = None  # SelectSS: the value where the mask is 0
    level: int = 0  # Row*: the pass of a long row that accumulates it (reduce_level)
    scratch: bool = False  # needs a tile of its own for the instruction's duration ({x})


@dataclass
class Program:
    instrs: list[Instr]
    inputs: dict[str, int]  # input name -> its virtual register
    outputs: dict[str, int]  # output name -> the register holding its value (after copies)


# Operations whose result must not share a tile with an argument, and why.
_NOT_INPLACE = {
    **{api.name: api.not_inplace for api in functions.APIS if api.scratch},
    "Pow3": "x * x * x reads x after the first product",
    **{
        op: "a reduction's result is spread over the row it reads"
        for op in ("RowSum", "RowMean", "RowMax", "RowMin")
    },
    "AbsInt": "max(x, -x) reads x after negating",
    "AxisIndex": "the flat offsets are read again after the quotient",
    "Copy": "a copy needs a second tile",
    "RDiv": "s / x fills its tile with s, then divides: x must live elsewhere",
    "RsqrtDiv": "1 / x fills its tile with 1, then divides: x must live elsewhere",
    **{
        op: "FusedMulAdd reads its tile, filled with one factor first: the other operands must "
        "live elsewhere"
        for op in ("FMA", "FNMA")
    },
    "Compare": "a bit mask must not overlap the floats it compares",
    "Compares": "a bit mask must not overlap the floats it compares",
    **{
        op: "Select writes floats: its mask and its other operand must live elsewhere"
        for op in ("SelectTT", "SelectTS", "SelectST", "SelectSS")
    },
    **{
        op: "a bit mask must not overlap the values it compares"
        for op in ("CompareMask", "CompareScalarMask")
    },
    **{
        op: "an integer select writes its tile before it reads the operands"
        for op in ("ChooseTT", "ChooseTS", "ChooseST", "ChooseSS")
    },
}
# Ops whose destination register is a bit mask (1 bit per element, in a tile's first bytes)
MASK_OPS = ("Compare", "Compares", "CompareMask", "CompareScalarMask")
SELECT_OPS = (
    "SelectTT",
    "SelectTS",
    "SelectST",
    "SelectSS",
    "ChooseTT",
    "ChooseTS",
    "ChooseST",
    "ChooseSS",
)
# What an integer compute type (or a step templated over float and integer types) compares and
# selects with: opgen_kernel.h's CompareMask (against a tile, or a scalar: CompareScalarMask) and
# Choose, which take a scratch tile (Compare has int32_t for EQ only, Select no integer type).
INT_MASKS = {"Compare": "CompareMask", "Compares": "CompareScalarMask"}
INT_SELECTS = {f"Select{k}": f"Choose{k}" for k in ("TT", "TS", "ST", "SS")}
_SCRATCH_OPS = (*INT_MASKS.values(), *INT_SELECTS.values())
CMP_MODES = {"<": "LT", "<=": "LE", ">": "GT", ">=": "GE", "==": "EQ", "!=": "NE"}
_SWAPPED = {"<": ">", "<=": ">=", ">": "<", ">=": "<=", "==": "==", "!=": "!="}
# Compare and Compares take a count whose elements fill whole 256-byte blocks (asc-devkit
# Compare.md, Compares.md): 64 floats. The kernel compares the tile rounded up to them.
CMP_BLOCK_ELEMS = 64
# Select's VSEL_TENSOR_SCALAR_MODE and VSEL_TENSOR_TENSOR_MODE reserve 8 KB of UB on Atlas A2/A3
# and 310P (asc-devkit Select.md, 约束说明): the tiling leaves them out of the tiles.
SELECT_RESERVED_UB = 8192

# Reductions over the row (compute function -> the Instr op, the method of opgen_kernel.h's
# RowPass named without "Row") and the level-2 API each calls.
_REDUCE_OPS = {"sum": "RowSum", "mean": "RowMean", "amax": "RowMax", "amin": "RowMin"}
# The most reductions one row op may hold (opgen_kernel.h's RowPass keeps one float each).
MAX_ROW_REDUCTIONS = 16


def reduce_level(node: expr.Reduce) -> int:
    """The pass of a long row (one longer than a UB tile) in which a reduction accumulates:
    0 when its argument holds no reduction, else one more than the deepest one it holds (their
    values are known only after their own pass)."""
    return 1 + max(
        (reduce_level(n) for n in expr.walk(node.arg) if isinstance(n, expr.Reduce)), default=-1
    )


def row_passes(outputs: list[expr.Node]) -> list[list[str]]:
    """The passes over a long row, in order: the reductions each accumulates (shown, each
    distinct once), then a last pass, [], that writes the outputs."""
    passes: list[list[str]] = []
    for out in outputs:
        for node in expr.walk(out):
            if isinstance(node, expr.Reduce):
                level = reduce_level(node)
                passes.extend([] for _ in range(level + 1 - len(passes)))
                if show(node) not in passes[level]:
                    passes[level].append(show(node))
    return passes + [[]]


REDUCE_APIS = {
    "RowSum": "ReduceSum",
    "RowMean": "ReduceSum",
    "RowMax": "ReduceMax",
    "RowMin": "ReduceMin",
}

_FLOAT_ONLY_FUNCS = functions.names(lambda f: f.float_only)
# the instructions of the functions the scalar unit computes element by element (gcd)
_SCALAR_LOOP_INSTRS = tuple(f.instr for f in functions.FUNCTIONS.values() if f.scalar_loop)
# Functions lowered to a high-level API (sharedTmpBuffer) some SoCs lack; "pow" is `**` with an
# attr exponent (a non-integer constant one is an expr.Pow).
API_FUNCS = functions.names(lambda f: f.api is not None)


# index(dim): each element's coordinate along an output axis, from its flat offset o (the tile's
# offset plus CreateVecIndex's 0, 1, ...) as (o mod period) div stride, with period = stride * size
# (opgen_kernel.h's AxisIndex). In float each floor((v + 0.5) / p) is exact while v + count stays
# below 2^22 (the rounding of 1 / p and of the product is under 0.5 / p there), so TilingFunc
# refuses an axis whose period exceeds INDEX_MAX_PERIOD (the tile adds at most 2^17 elements).
INDEX_MAX_PERIOD = 2**22 - 2**17


@dataclass(frozen=True)
class IndexAxis:
    """The tiling fields of one index(dim), floats: 1 / stride, the period (stride * size) and
    1 / period."""

    dim: int | str  # an int, or the name of the int attr that holds it
    stride_inv: str
    period: str
    period_inv: str

    @property
    def fields(self) -> tuple[str, str, str]:
        return (self.stride_inv, self.period, self.period_inv)


def index_axes(trees: Iterable[expr.Node], taken: Set[str]) -> dict[int | str, IndexAxis]:
    """The distinct dims index() names in `trees`, in walk order, each with its tiling fields
    (names not in `taken`)."""
    axes: dict[int | str, IndexAxis] = {}
    used = set(taken)
    for tree in trees:
        for n in expr.walk(tree):
            if not isinstance(n, expr.Index) or n.dim in axes:
                continue
            k = len(axes)
            names = [
                fresh(f"index{k}{part}", used) for part in ("StrideInv", "Period", "PeriodInv")
            ]
            used |= set(names)
            axes[n.dim] = IndexAxis(n.dim, *names)
    return axes


# Functions whose Ascend C instructions (Max, Min, Maxs, Mins, Relu, ReduceMax, ReduceMin,
# Sign) do not promise torch's NaN and signed-zero results; torch_special_values rewrites them.
SPECIAL_VALUE_FUNCS = (*functions.names(lambda f: f.special_values), "amax", "amin")


def torch_special_values(node: expr.Node) -> expr.Node:
    """`node` as a float kernel computes it, so that NaN, +-inf and +-0 come out as torch's:
    min/max/relu/clamp compare and select (NaN propagates, and of two equal values the first
    is kept, as torch.maximum/minimum/relu/clamp do, -0 included); sign(x) is (x > 0) - (x < 0)
    (torch's CPU sign: 0 for NaN and -0); amax/amin(e) subtract sum(where(e != e, e, 0)), which
    is NaN exactly when the row holds one and +0 otherwise (x - 0 keeps x, -0 too).

    The instructions' own NaN rule is undocumented (asc-devkit Max.md, Min.md); the twin makes a
    NaN lose, so a kernel that skipped this would fail the NaN boundary tests."""
    node = expr.with_children(node, tuple(map(torch_special_values, expr.children(node))))
    zero = expr.Const(0.0)

    def where(cond: expr.Node, a: expr.Node, b: expr.Node) -> expr.Node:
        return expr.Call("where", (cond, a, b))

    def is_nan(v: expr.Node) -> expr.Node:
        return expr.Compare("!=", v, v)

    if isinstance(node, expr.Reduce) and node.func in ("amax", "amin"):
        # over the same axes, kept (it broadcasts like the row value it corrects)
        nans = replace(node, func="sum", arg=where(is_nan(node.arg), node.arg, zero))
        nans = replace(nans, keepdim=True) if node.dim_given else nans
        return expr.BinOp("-", node, nans)
    if not isinstance(node, expr.Call) or not node.is_tensor:
        return node  # a scalar subtree is folded or computed on the host
    if node.func == "relu":
        return where(expr.Compare("<", node.args[0], zero), zero, node.args[0])
    if node.func == "clamp":
        x, lo, hi = node.args
        return torch_special_values(expr.Call("min", (expr.Call("max", (x, lo)), hi)))
    if node.func == "sign":
        x = node.args[0]
        return expr.BinOp("-", expr.Compare(">", x, zero), expr.Compare("<", x, zero))
    if node.func in ("max", "min"):
        x, y = node.args
        beats = "<" if node.func == "max" else ">"  # y replaces x where x beats y fails
        if not x.is_tensor:  # max(s, x) is max(x, s): a number or attr is never NaN here
            x, y = y, x
        chosen = where(expr.Compare(beats, x, y), y, x)  # NaN in x: the compare fails, x stays
        return where(is_nan(y), y, chosen) if y.is_tensor else chosen
    return node


# Floor and Ceil on ascend310p take |x| <= 2147483647 only (asc-devkit Floor.md, Ceil.md; the
# catalog's has_wide_floor); a float with |x| >= 2^23 is integral already, so x itself is the
# answer there.
INTEGRAL_FROM = 2.0**23
SMALL_DOMAIN_FLOOR_SOCS = tuple(s for s, f in SOC_FAMILIES.items() if not f.has_wide_floor)


def guard_floor_domain(node: expr.Node) -> expr.Node:
    """floor(x) and ceil(x) as where(abs(x) < 2^23, floor(x), x): exact for huge values, +-inf and
    NaN on a SoC whose Floor/Ceil take a small domain (SMALL_DOMAIN_FLOOR_SOCS)."""
    node = expr.with_children(node, tuple(map(guard_floor_domain, expr.children(node))))
    if (
        isinstance(node, expr.Call)
        and functions.FUNCTIONS[node.func].small_domain
        and node.is_tensor
    ):
        x = node.args[0]
        small = expr.Compare("<", expr.Call(functions.ABS.name, (x,)), expr.Const(INTEGRAL_FROM))
        return expr.Call(functions.WHERE.name, (small, node, x))
    return node


def computed_tree(tree: expr.Node, special_values: bool, floor_domain: bool) -> expr.Node:
    """A compute tree as the kernel computes it: floor/ceil guarded for a target's small domain
    (guard_floor_domain), then torch's special values (torch_special_values, float only)."""
    tree = guard_floor_domain(tree) if floor_domain else tree
    return torch_special_values(tree) if special_values else tree


def is_simple_pow(node: expr.Pow) -> bool:
    """x ** 2, 3 or 4: products, kernel-side even for scalars."""
    return isinstance(node.exponent, int) and 2 <= node.exponent <= 4


def fused_mul_add(node: expr.Node) -> tuple[expr.Node, expr.Node, expr.Node, bool] | None:
    """(a, b, c, negated) when `node` is c + a * b, a * b + c (negated False) or c - a * b
    (True), over tensors: one FusedMulAdd, rounded once, as torch's CPU kernels round a
    multiply-add (and without the product's overflow where the sum is finite)."""
    if not isinstance(node, expr.BinOp) or node.op not in "+-" or not node.is_tensor:
        return None

    def product(n: expr.Node) -> tuple[expr.Node, expr.Node] | None:
        if isinstance(n, expr.BinOp) and n.op == "*" and n.left.is_tensor and n.right.is_tensor:
            return n.left, n.right
        return None

    if node.left.is_tensor and (p := product(node.right)):
        return p[0], p[1], node.left, node.op == "-"
    if node.op == "+" and node.right.is_tensor and (p := product(node.left)):
        return p[0], p[1], node.right, False
    return None


def api_funcs(node: expr.Node, mode: str) -> set[str]:
    """The API_FUNCS a compute tree calls for an API in compute mode `mode` (and "fma" for a
    float multiply-add: FusedMulAdd)."""
    found = set()
    for n in expr.walk(node):
        if not n.is_tensor:
            continue  # computed on the host
        if mode == "float" and fused_mul_add(n):
            found.add(functions.FMA_API.key)
        if isinstance(n, expr.Call) and n.func in API_FUNCS:
            # integer sign: Maxs and Mins; an attr exponent: the Power API
            if n.func != functions.SIGN.name or mode == "float":
                api = functions.FUNCTIONS[n.func].api
                found.add(api.key if api else n.func)
        if isinstance(n, expr.Pow) and isinstance(n.exponent, float) and abs(n.exponent) != 0.5:
            found.add(functions.POWER_API.key)
        if isinstance(n, expr.Index):  # CreateVecIndex
            found.add(functions.INDEX_API.key)
    return found


def _float_text(value: float) -> str:
    """A C++ float literal (folded in double, rounded once by the compiler); NaN as the
    compilers' builtin (spence()'s value outside its domain)."""
    if math.isnan(value):
        return '__builtin_nanf("")'
    return cpp_float(value)


def float_scalar_loop(func: str) -> str:
    """Why a function the scalar unit loops over (gcd) is refused in a float compute type."""
    return (
        f"{func}() takes integer tensors (torch.{func} has no floating-point kernel), but the op "
        "computes in float (float16, bfloat16 and float32 do, and int8, uint8 and bool through "
        "half): give every dtype combination int16, int32 or int64 tensors"
    )


class Lowerer:
    """Compute trees -> Program, for one compute type and one SoC variant.

    `mode` is "float" (every combination computes in float), "int" (every combination in the
    same integer type `ctype`) or "template" (the type is the template parameter T).
    """

    def __init__(
        self,
        op: Op,
        mode: str,
        ctype: str,
        api_ok: dict[str, bool],
        host_scalars: dict[expr.Node, str],
        tiling_names: set[str],
        attr_fields: dict[str, str],
        ctypes: frozenset[str] = frozenset(),
        special_values: bool = False,
        floor_domain: bool = False,
    ) -> None:
        self.op = op
        # compute torch's NaN/inf/-0 results (torch_special_values): float, or a step templated
        # over float and an integer type (kernel.special_values_exact)
        self.special_values = special_values and mode != "int"
        self.floor_domain = floor_domain  # guard_floor_domain: a target's Floor/Ceil need it
        self.mode = mode
        self.ctype = ctype
        self.ctypes = ctypes or frozenset({ctype})  # the concrete types T stands for
        self.api_ok = api_ok
        self.host_scalars = host_scalars  # shared across variants: node -> tiling field
        self.tiling_names = tiling_names
        self.attr_fields = attr_fields  # attr name -> its tiling field
        self.attrs = {a.name: a for a in op.attrs}
        self.instrs: list[Instr] = []
        # a tensor subtree's register; ("mask", condition): the condition's bit mask
        self.memo: dict[expr.Node | tuple[str, expr.Node], int] = {}
        self.next_reg = 0
        self.output = ""  # the output being lowered, for messages
        self.index_axes = index_axes(op.compute.values(), tiling_names)

    # -- errors --------------------------------------------------------------------------

    def fail(self, reason: str) -> LoweringError:
        return LoweringError(f"compute expression of output '{self.output}': {reason}", self.output)

    @property
    def is_int(self) -> bool:
        return self.mode != "float"

    # -- scalars -------------------------------------------------------------------------

    def fold(self, node: expr.Node) -> float | None:
        """The value of a constant-only subtree, or None if it reads an attr."""
        value: float | None
        if isinstance(node, expr.Const):
            value = node.value
        elif isinstance(node, (expr.Scalar, expr.TextCompare)):
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
            try:
                value = None if a is None else math.pow(a, node.exponent)
            except (ValueError, ZeroDivisionError, OverflowError):
                raise self.fail(f"'{show(node)}' has no finite value") from None
        elif isinstance(node, expr.Compare):
            a, b = self.fold(node.left), self.fold(node.right)
            if a is None or b is None:
                return None
            value = float(
                {"<": a < b, "<=": a <= b, ">": a > b, ">=": a >= b, "==": a == b, "!=": a != b}[
                    node.op
                ]
            )
        elif isinstance(node, expr.Call):
            args = [self.fold(a) for a in node.args]
            folded = [a for a in args if a is not None]
            if len(folded) < len(args):
                return None
            value = self._fold_call(node, folded)
        else:
            raise TypeError(node)
        # a NaN constant comes from a composed function (spence()'s value outside its domain);
        # the grammar has none
        nan_const = isinstance(node, expr.Const) and value is not None and math.isnan(value)
        if value is not None and not math.isfinite(value) and not nan_const:
            raise self.fail(f"the constant '{show(node)}' is not finite")
        return value

    def _fold_call(self, node: expr.Call, args: list[float]) -> float:
        try:
            return functions.FUNCTIONS[node.func].fold(*args)
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
            text = f"tiling.{self.host_field(node)}" if _needs_host(node) else self._int_expr(node)
            return CScalar(f"static_cast<{self.ctype}>({text})")
        if _needs_host(node):
            return CScalar(f"tiling.{self.host_field(node)}")
        return CScalar(self._float_expr(node, 0))

    def literal(self, value: float, node: expr.Node) -> str:
        if not self.is_int:
            return _float_text(value)
        if not float(value).is_integer():
            raise self.fail(
                f"'{show(node)}' = {value!r} is not an integer, but the op computes "
                "in an integer type"
            )
        text = str(int(value))
        return text if self.ctype == "int32_t" else f"static_cast<{self.ctype}>({text})"

    def host_field(self, node: expr.Node) -> str:
        if node not in self.host_scalars:
            name = fresh(f"scalar{len(self.host_scalars)}", self.tiling_names)
            self.tiling_names.add(name)
            self.host_scalars[node] = name
        return self.host_scalars[node]

    def _attr_field(self, name: str) -> str:
        return f"tiling.{self.attr_fields[name]}"

    def _float_expr(self, node: expr.Node, outer: int) -> str:
        """A kernel-side float expression of a call-free scalar subtree."""
        value = self.fold(node)
        if value is not None:
            text = _float_text(value)
            return f"({text})" if value < 0 and outer else text
        if isinstance(node, expr.Scalar):
            field = self._attr_field(node.name)
            return (
                field if self.attrs[node.name].type == "float" else f"static_cast<float>({field})"
            )
        if isinstance(node, expr.Neg):
            return f"-{self._float_expr(node.arg, 3)}"
        if isinstance(node, expr.BinOp):
            p = expr.PRECEDENCE[node.op]
            left = self._float_expr(node.left, p)
            text = f"{left} {node.op} {self._float_expr(node.right, p + 1)}"
            return f"({text})" if p < outer else text
        if isinstance(node, expr.Pow) and isinstance(node.exponent, int):  # 2..4 (_needs_host)
            base = self._float_expr(node.base, 3)
            return "(" + " * ".join([base] * node.exponent) + ")"
        raise TypeError(node)

    def int_why(self) -> str:
        """Which integer type the op computes in, and what to do about a float-only step."""
        if self.ctype != "T":
            return f"the op computes in an integer type ({self.ctype})"
        ints = ", ".join(sorted(t for t in self.ctypes if t not in ("float", "T")))
        return (
            f"the op's {ints} dtype combinations compute in that integer type (one compute step "
            "serves every combination): give those combinations an op of their own without it, "
            "or float dtypes"
        )

    def _check_int(self, node: expr.Node) -> None:
        """Reject what an integer compute type cannot express."""
        for n in expr.walk(node):
            if isinstance(n, expr.Scalar) and self.attrs[n.name].type == "float":
                raise self.fail(f"float attr '{n.name}' cannot scale an integer tensor")
            if isinstance(n, expr.BinOp) and n.op == "/":
                raise self.fail(f"'{show(n)}' divides, but {self.int_why()}")
            if isinstance(n, expr.Call) and n.func in _FLOAT_ONLY_FUNCS:
                raise self.fail(f"{n.func}() needs a float type, but {self.int_why()}")
            if isinstance(n, expr.Const) and not n.value.is_integer():
                raise self.fail(
                    f"'{show(n)}' is not an integer, but the op computes in an integer type"
                )
            if isinstance(n, expr.Pow):
                self._check_int_pow(n)

    def _check_int_pow(self, node: expr.Pow) -> None:
        if not isinstance(node.exponent, int):
            raise self.fail(
                f"'{show(node)}' has a non-integer exponent, but the op computes in an integer type"
            )
        if node.exponent < 0:
            raise self.fail(
                f"'{show(node)}' divides (a negative exponent), but the op computes "
                "in an integer type"
            )

    def _int_expr(self, node: expr.Node) -> str:
        """An int64 kernel expression of a call-free scalar subtree (integer compute types)."""
        value = self.fold(node)
        if value is not None:
            return str(int(value))
        if isinstance(node, expr.Scalar):
            field = self._attr_field(node.name)
            return (
                field if self.attrs[node.name].type == "int" else f"static_cast<int64_t>({field})"
            )
        if isinstance(node, expr.Neg):
            return f"-({self._int_expr(node.arg)})"
        if isinstance(node, expr.BinOp):
            return f"({self._int_expr(node.left)} {node.op} {self._int_expr(node.right)})"
        if isinstance(node, expr.Pow) and isinstance(node.exponent, int):  # _check_int_pow
            base = self._int_expr(node.base)
            return "(" + " * ".join([base] * node.exponent) + ")"
        raise TypeError(node)

    # -- tensors -------------------------------------------------------------------------

    def new_reg(self) -> int:
        self.next_reg += 1
        return self.next_reg - 1

    def emit(
        self,
        op: str,
        args: tuple[int, ...],
        node: expr.Node,
        scalar: CScalar | None = None,
        shared_tmp: bool = False,
    ) -> int:
        if op not in _SCALAR_LOOP_INSTRS and "int64_t" in self.ctypes:
            # streams.scalar_loop_only lets int64 combinations in for gcd() alone
            raise self.fail(
                f"'{show(node)}' needs a vector instruction, and none takes int64_t: an op "
                "with int64 tensors computes gcd() of its inputs only"
            )
        dst = self.new_reg()
        self.instrs.append(
            Instr(op, dst, args, scalar, op not in _NOT_INPLACE, shared_tmp, show(node))
        )
        self.instrs[-1].scratch = op in _SCRATCH_OPS
        return dst

    def value(self, node: expr.Node) -> int:
        """The register holding a tensor-valued subtree (computed once per program)."""
        if node in self.memo:
            return self.memo[node]
        reg = self._lower(node)
        self.memo[node] = reg
        return reg

    def composed(self, node: expr.Node, note: str, arg: expr.Node) -> int:
        """The register of `node`, which computes a function of `arg` (v in `note`) from other
        operations: the note says how, on the first instruction it emits."""
        start = len(self.instrs)
        reg = self.value(node)
        if len(self.instrs) > start:
            self.instrs[start].note = f"{note} (v = {show(arg)})"
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
        if isinstance(node, expr.Reduce):
            return self._reduce(node)
        if isinstance(node, expr.Index):
            return self._index(node)
        if isinstance(node, expr.Neg):
            (a,) = self._operands(node.arg)
            return self.emit("Muls", (a,), node, CScalar(self.literal(-1.0, node), -1.0))
        if isinstance(node, expr.Pow):
            if not is_simple_pow(node):
                return self._power(node)
            (a,) = self._operands(node.base)
            return self.emit(f"Pow{node.exponent}", (a,), node)
        if isinstance(node, expr.BinOp):
            return self._binop(node)
        if isinstance(node, expr.Call):
            if node.func == functions.WHERE.name:
                return self._where(node)
            return self._call(node)
        if isinstance(node, expr.Compare):
            # 1 where the comparison holds, else 0: Select between the two numbers
            mask = self.mask(node)
            return self.emit_select(
                "SelectSS",
                mask,
                (),
                node,
                self.literal_scalar(1.0, node),
                self.literal_scalar(0.0, node),
            )
        raise TypeError(node)

    def _index(self, node: expr.Index) -> int:
        """index(dim): the tile's flat offsets (CreateVecIndex from the tile's offset modulo the
        axis's period), then each one's coordinate (AxisIndex), all integers exact in float."""
        if self.mode != "float":
            raise self.fail(
                f"'{show(node)}' computes in float (CreateVecIndex, exact below 2^22), but the op "
                f"computes in {self.ctype}: give the op float dtypes (float16, bfloat16, float32)"
            )
        axis = self.index_axes[node.dim]
        offsets = self.emit("IndexBase", (), node, CScalar(f"tiling.{axis.period}"))
        fields = ", ".join(f"tiling.{f}" for f in axis.fields)
        reg = self.emit("AxisIndex", (offsets,), node)
        self.instrs[-1].scalar2 = CScalar(fields)
        return reg

    # -- comparisons and where -----------------------------------------------------------

    def literal_scalar(self, value: float, node: expr.Node) -> CScalar:
        return CScalar(self.literal(value, node), value)

    def _check_compare_type(self, node: expr.Node) -> None:
        if "int16_t" in self.ctypes:
            # only the int16_t combinations are to blame (an int32_t one compares)
            which, fix = (
                ("the op computes in int16_t", "give the op int32 or float dtypes")
                if self.ctype == "int16_t"
                else (
                    "the op's dtype combinations that compute in int16_t do (one compute step "
                    "serves every combination)",
                    "give those combinations int32 or float dtypes, or an op of their own",
                )
            )
            raise self.fail(
                f"'{show(node)}' compares or selects, but {which}, which asc-devkit's Compare "
                "and Select do not take (Compare.md, Select.md: half, float, and int32_t for "
                f"CMPMODE::EQ): {fix}"
            )

    def mask(self, cond: expr.Node) -> int:
        """The register holding the bit mask of a condition: a comparison, or any tensor
        expression (nonzero is true: a bool input holds 0 and 1). A condition on numbers and attrs
        alone (LpNorm's p > 1e30) the host computes (1 or 0) and the kernel fills a tile with, so
        that where() selects as for a tensor one: a * flag + b * (1 - flag) would make an inf of
        the branch not taken NaN."""
        self._check_compare_type(cond)
        key = ("mask", cond)
        if key in self.memo:
            return self.memo[key]
        if isinstance(cond, expr.Compare) and cond.is_tensor:
            op, left, right = cond.op, cond.left, cond.right
            if left.is_tensor and right.is_tensor:
                reg = self._emit_mask("Compare", self._operands(left, right), cond, CMP_MODES[op])
            else:
                if not left.is_tensor:  # s < x is x > s
                    op, left, right = _SWAPPED[op], right, left
                (a,) = self._operands(left)
                reg = self._emit_mask("Compares", (a,), cond, CMP_MODES[op], self.scalar(right))
        else:
            if cond.is_tensor:
                (a,) = self._operands(cond)
            else:
                a = self.emit("Fill", (), cond, self.scalar(cond))
            reg = self._emit_mask(
                "Compares",
                (a,),
                expr.Compare("!=", cond, expr.Const(0.0)),
                "NE",
                self.literal_scalar(0.0, cond),
            )
        self.memo[key] = reg
        return reg

    def _emit_mask(
        self,
        op: str,
        args: tuple[int, ...],
        node: expr.Node,
        mode: str,
        scalar: CScalar | None = None,
    ) -> int:
        reg = self.emit(INT_MASKS[op] if self.is_int else op, args, node, scalar)
        self.instrs[-1].mode = mode
        return reg

    def emit_select(
        self,
        op: str,
        mask: int,
        args: tuple[int, ...],
        node: expr.Node,
        scalar: CScalar | None = None,
        scalar2: CScalar | None = None,
    ) -> int:
        reg = self.emit(INT_SELECTS[op] if self.is_int else op, (mask, *args), node, scalar)
        self.instrs[-1].scalar2 = scalar2
        return reg

    def _where(self, node: expr.Call) -> int:
        cond, a, b = node.args
        self._check_compare_type(node)
        mask = self.mask(cond)
        if a.is_tensor and b.is_tensor:
            return self.emit_select("SelectTT", mask, self._operands(a, b), node)
        if a.is_tensor:
            (ra,) = self._operands(a)
            return self.emit_select("SelectTS", mask, (ra,), node, self.scalar(b))
        if b.is_tensor:
            (rb,) = self._operands(b)
            return self.emit_select("SelectST", mask, (rb,), node, self.scalar(a))
        return self.emit_select("SelectSS", mask, (), node, self.scalar(a), self.scalar(b))

    def _power(self, node: expr.Pow) -> int:
        """x ** e beyond 2..4: products for an integer e (and a division for a negative one),
        Sqrt for 0.5, sqrt(1 / x) for -0.5, else the Power API (exp(e * ln(x)) without it)."""
        base, e = node.base, node.exponent
        if self.is_int:
            self._check_int_pow(node)
        if isinstance(e, int):
            if e < 0:
                return self.value(expr.BinOp("/", expr.Const(1.0), _int_power(base, -e)))
            return self.value(_int_power(base, e))
        if abs(e) == 0.5:
            root = functions.SQRT if e > 0 else functions.RSQRT
            return self.value(expr.Call(root.name, (base,)))
        (a,) = self._operands(base)
        scalar = CScalar(self.literal(e, node), e)
        if self.api_ok[functions.POWER_API.key]:
            return self.emit("Power", (a,), node, scalar, shared_tmp=True)
        return self.emit("PowerExp", (a,), node, scalar)

    def _binop(self, node: expr.BinOp) -> int:
        op, left, right = node.op, node.left, node.right
        if (
            self.mode == "float"
            and self.api_ok.get(functions.FMA_API.key)
            and (fma := fused_mul_add(node))
        ):
            a, b, c = self._operands(*fma[:3])
            return self.emit("FNMA" if fma[3] else "FMA", (a, b, c), node)
        if (
            not self.api_ok[functions.TANH_API.key]
            and (saturating := _one_plus_minus_tanh(node)) is not None
        ):
            return self.composed(*saturating)
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
            return self.emit(
                "Muls", (a,), node, self.scalar(expr.BinOp("/", expr.Const(1.0), right))
            )
        (a,) = self._operands(right)  # scalar (op) tensor
        if op == "+":
            return self.emit("Adds", (a,), node, self.scalar(left))
        if op == "*":
            return self.emit("Muls", (a,), node, self.scalar(left))
        if op == "-":
            return self.emit("RSub", (a,), node, self.scalar(left))
        if self.op.fast_math:  # s * (1 / v), by the Reciprocal instruction
            s = self.scalar(left)
            r = self.emit("Reciprocal", (a,), expr.Call(functions.RECIPROCAL.name, (right,)))
            return r if s.value == 1.0 else self.emit("Muls", (r,), node, s)
        return self.emit("RDiv", (a,), node, self.scalar(left))

    def _reduce(self, node: expr.Reduce) -> int:
        """sum/mean/amax/amin over the row: the reduction API into the tile's first element,
        then that value over the whole row (so it broadcasts like any tile)."""
        if self.is_int:
            raise self.fail(
                f"{node.func}() needs a float type, but the op computes in an "
                f"integer type ({self.ctype})"
            )
        (a,) = self._operands(node.arg)
        dst = self.emit(_REDUCE_OPS[node.func], (a,), node, shared_tmp=True)
        self.instrs[-1].level = reduce_level(node)
        return dst

    def _call(self, node: expr.Call) -> int:
        composed = self._composed_call(node)
        if composed is not None:
            return composed
        func = functions.FUNCTIONS[node.func]
        if func in (functions.MIN, functions.MAX):
            x, y = node.args
            name = func.instr
            if x.is_tensor and y.is_tensor:
                return self.emit(name, self._operands(x, y), node)
            tensor, scalar = (x, y) if x.is_tensor else (y, x)
            (a,) = self._operands(tensor)
            return self.emit(name + "s", (a,), node, self.scalar(scalar))
        if func.scalar_loop:
            return self._scalar_loop(node)
        if self.is_int and func.float_only:
            raise self.fail(f"{func.name}() needs a float type, but {self.int_why()}")
        if func is functions.POW:
            return self._attr_power(node)
        return self._unary(node)

    def _scalar_loop(self, node: expr.Call) -> int:
        """gcd(a, b): torch's Euclid loop, run by the scalar unit over the tile (no vector
        instruction takes a remainder); integer compute types only, as torch.gcd's."""
        if "float" in self.ctypes:
            raise self.fail(float_scalar_loop(node.func))
        return self.emit(functions.FUNCTIONS[node.func].instr, self._operands(*node.args), node)

    def _attr_power(self, node: expr.Call) -> int:
        """e ** p with an exponent of attrs: the Power API with the exponent the host computes
        (std::pow's results, torch's: an integral p of a negative base too). exp(p * ln(e))
        would be NaN there, so a SoC without Power refuses it."""
        base, exponent = node.args
        if not self.api_ok[
            functions.POWER_API.key
        ]:  # the planner refuses such targets first, naming them
            raise self.fail(f"'{show(node)}' needs the Power API")
        (a,) = self._operands(base)
        return self.emit("Power", (a,), node, self.scalar(exponent), shared_tmp=True)

    def _composed_call(self, node: expr.Call) -> int | None:
        """A call computed through others (clamp; sign of an integer or without its API;
        log1p, expm1), or None."""
        func = functions.FUNCTIONS[node.func]
        one = expr.Const(1.0)
        if func is functions.CLAMP:  # Maxs, then Mins: the Clamp API exists on ascend950 only
            x, lo, hi = node.args
            return self.value(
                expr.Call(functions.MIN.name, (expr.Call(functions.MAX.name, (x, lo)), hi))
            )
        if func is functions.SIGN and self.is_int:
            if self.mode == "template":
                raise self.fail(
                    "sign() computes differently for float and integer types; give "
                    "every dtype combination one compute type"
                )
            return self.value(expr.Call(functions.CLAMP.name, (node.args[0], expr.Neg(one), one)))
        if func is functions.SIGN and not self.api_ok[functions.SIGN_API.key]:
            # v * 2**100 * 2**100 is beyond +-1 for every nonzero float, subnormals included
            big = expr.Const(2.0**100)
            scaled = expr.BinOp("*", expr.BinOp("*", node.args[0], big), big)
            return self.composed(
                expr.Call(functions.CLAMP.name, (scaled, expr.Neg(one), one)),
                "sign(v) = clamp(v * 2^100 * 2^100, -1, 1), exactly",
                node.args[0],
            )
        if func is functions.LOG1P and not self.is_int:
            return self.composed(
                _log1p(node.args[0]),
                "log1p(v) = log(u) + (v - (u - 1)) / u, u = v + 1",
                node.args[0],
            )
        if func is functions.SPENCE:
            if self.is_int:
                raise self.fail(f"{func.name}() needs a float type, but {self.int_why()}")
            return self.composed(
                _spence(node.args[0]),
                "spence(v): cephes' spence.c (scipy.special.spence), its pieces selected",
                node.args[0],
            )
        if func is functions.EXPM1 and not self.is_int:
            return self.composed(
                _expm1(node.args[0]),
                "expm1(v) = (e - 1) + m * (v - log(m)), e = exp(v), m = e within the normal floats",
                node.args[0],
            )
        return None

    def _unary(self, node: expr.Call) -> int:
        """A function of one tensor with its own vector instruction (or API)."""
        func = functions.FUNCTIONS[node.func]
        (a,) = self._operands(node.args[0])
        if func.api is not None:
            if self.api_ok.get(func.api.key, True):
                return self.emit(func.instr, (a,), node, shared_tmp=True)
            return self.value(_THROUGH_EXP[func](node.args[0]))
        if self.is_int and func is functions.ABS:
            return self.emit("AbsInt", (a,), node)
        if func is functions.RELU and "int16_t" in self.ctypes:  # Relu has no int16 form
            return self.emit("Maxs", (a,), node, CScalar(self.literal(0.0, node), 0.0))
        if func.fast_instr and self.op.fast_math:
            return self.emit(func.fast_instr, (a,), node)
        if func is functions.RECIPROCAL:
            return self.emit("RDiv", (a,), node, CScalar(self.literal(1.0, node), 1.0))
        if func is functions.RSQRT:
            return self.emit("RsqrtDiv", (a,), node)
        return self.emit(func.instr, (a,), node)

    # -- the whole op --------------------------------------------------------------------

    def tree(self, output: str) -> expr.Node:
        """The compute tree of `output` as this program computes it."""
        return computed_tree(self.op.compute[output], self.special_values, self.floor_domain)

    def lower(self, inputs: list[str], outputs: list[str]) -> Program:
        regs = {}
        for name in inputs:
            regs[name] = self.new_reg()
            self.memo[expr.Tensor(name)] = regs[name]
        results: dict[str, int] = {}
        claimed: set[int] = set()
        for out in outputs:
            self.output = out
            reg = self.value(self.tree(out))
            if reg in claimed or reg in regs.values():
                # the value already lives in another output or is an input: copy it
                reg = self.emit("Copy", (reg,), self.op.compute[out])
            claimed.add(reg)
            results[out] = reg
        return Program(self.instrs, regs, results)


def _tanh_through_exp(v: expr.Node) -> expr.Node:
    """tanh(v) through Exp, for a SoC without the API, divided exactly (no Reciprocal):
    tanh(v) = -2 / (exp(v * 2) + 1) + 1. It saturates correctly when exp overflows to inf."""
    one = expr.Const(1.0)
    e = expr.Call(functions.EXP.name, (expr.BinOp("*", v, expr.Const(2.0)),))
    return expr.BinOp("+", expr.BinOp("/", expr.Const(-2.0), expr.BinOp("+", e, one)), one)


def _sigmoid_through_exp(v: expr.Node) -> expr.Node:
    """sigmoid(v) = 1 / (exp(-v) + 1), for a SoC without the API (saturating as tanh's)."""
    one = expr.Const(1.0)
    return expr.BinOp("/", one, expr.BinOp("+", expr.Call(functions.EXP.name, (expr.Neg(v),)), one))


# The functions whose API has a fallback through Exp (functions.Api.fallback), rewritten.
_THROUGH_EXP = {functions.TANH: _tanh_through_exp, functions.SIGMOID: _sigmoid_through_exp}


def _one_plus_minus_tanh(node: expr.BinOp) -> tuple[expr.Node, str, expr.Node] | None:
    """1 + tanh(v) (or 1 - tanh(v)) as 2 / (exp(-2v) + 1) (or exp(2v)), with the note and v,
    for a SoC without Tanh: through Exp, 1 + (-2 / (exp(2v) + 1) + 1) cancels where tanh(v) is
    near -1 (GELU's 1 + tanh for x < -3 misses the float32 standard); this form does not."""

    def is_one(n: expr.Node) -> bool:
        return isinstance(n, expr.Const) and n.value == 1.0

    def tanh_arg(n: expr.Node) -> expr.Node | None:
        return n.args[0] if isinstance(n, expr.Call) and n.func == functions.TANH.name else None

    left, right = tanh_arg(node.left), tanh_arg(node.right)
    if node.op == "+" and is_one(node.left) and right is not None:
        v, factor, text = right, -2.0, "1 + tanh(v) = 2 / (exp(-2v) + 1)"
    elif node.op == "+" and is_one(node.right) and left is not None:
        v, factor, text = left, -2.0, "1 + tanh(v) = 2 / (exp(-2v) + 1)"
    elif node.op == "-" and is_one(node.left) and right is not None:
        v, factor, text = right, 2.0, "1 - tanh(v) = 2 / (exp(2v) + 1)"
    else:
        return None
    e = expr.Call("exp", (expr.BinOp("*", v, expr.Const(factor)),))
    return expr.BinOp("/", expr.Const(2.0), expr.BinOp("+", e, expr.Const(1.0))), text, v


def _need(node: expr.Node) -> int:
    """Registers a subtree needs (Sethi-Ullman number; inputs need none)."""
    if isinstance(node, expr.Tensor) or not node.is_tensor:
        return 0
    if isinstance(node, expr.Index):
        return 1
    if isinstance(node, expr.Neg):
        return max(1, _need(node.arg))
    if isinstance(node, expr.Pow):
        return max(1, _need(node.base))
    if isinstance(node, expr.Reduce):
        return max(1, _need(node.arg))
    if isinstance(node, (expr.BinOp, expr.Compare)):
        args = [node.left, node.right]
    elif isinstance(node, expr.Call):
        args = list(node.args)
    else:
        raise TypeError(node)  # Matmul, Expand: not lowered here (Lowerer._lower's TypeError)
    needs = sorted((_need(a) for a in args if a.is_tensor), reverse=True)
    if len(needs) == 2 and needs[0] == needs[1]:
        return needs[0] + 1
    return max(1, needs[0])


def _needs_host(node: expr.Node) -> bool:
    """Does a scalar subtree need the host's math library (a call, a power beyond 2..4), or a
    comparison (computed once on the host too)?"""
    return any(
        isinstance(n, (expr.Call, expr.Compare, expr.TextCompare))
        or (isinstance(n, expr.Pow) and not is_simple_pow(n))
        for n in expr.walk(node)
    )


def _int_power(base: expr.Node, n: int) -> expr.Node:
    """base ** n (n >= 1) as squares and products of the powers 2..4."""
    if n == 1:
        return base
    if n <= 4:
        return expr.Pow(base, n)
    if n % 2 == 0:
        return expr.Pow(_int_power(base, n // 2), 2)
    return expr.BinOp("*", _int_power(base, n - 1), base)


def _log1p(x: expr.Node) -> expr.Node:
    """log1p(x) = log(u) + (x - (u - 1)) / u with u = x + 1: the second term restores what
    rounding x + 1 lost (exactly x when u rounds to 1). x is bounded by FLT_MAX there so that
    log1p(inf) is inf, not inf - inf."""
    one = expr.Const(1.0)
    xc = expr.Call("min", (x, expr.Const(FLT_MAX)))
    uc = expr.BinOp("+", xc, one)
    lost = expr.BinOp("/", expr.BinOp("-", xc, expr.BinOp("-", uc, one)), uc)
    return expr.BinOp("+", expr.Call("log", (expr.BinOp("+", x, one),)), lost)


def _expm1(x: expr.Node) -> expr.Node:
    """expm1(x) = (u - 1) + m * (x - log(m)) with u = exp(x): exp(x) = u * exp(x - log(u)), so
    the second term restores the rounding error of u that u - 1 makes large near 0. m is u
    bounded to the normal floats and the correction to [-1, 1], so that overflow (u = inf),
    underflow (u = 0) and +-inf keep torch's inf and -1."""
    one = expr.Const(1.0)
    u = expr.Call("exp", (x,))
    m = expr.Call("clamp", (u, expr.Const(FLT_MIN_NORMAL), expr.Const(FLT_MAX)))
    c = expr.Call("clamp", (expr.BinOp("-", x, expr.Call("log", (m,))), expr.Neg(one), one))
    return expr.BinOp("+", expr.BinOp("-", u, one), expr.BinOp("*", m, c))


# cephes' spence.c (scipy/special/cephes): spence(x) = -w * A(w) / B(w) on [0.5, 1.5], w = x - 1
SPENCE_A = (
    4.65128586073990045278e-5,
    7.31589045238094711071e-3,
    1.33847639578309018650e-1,
    8.79691311754530315341e-1,
    2.71149851196553469920e0,
    4.25697156008121755724e0,
    3.29771340985225106936e0,
    1.00000000000000000126e0,
)
SPENCE_B = (
    6.90990488912553276999e-4,
    2.54043763932544379113e-2,
    2.82974860602568089943e-1,
    1.41172597751831069617e0,
    3.63800533345137075418e0,
    5.03278880143316990390e0,
    3.54771340985225096217e0,
    9.99999999999999998740e-1,
)


def _polevl(w: expr.Node, coefficients: tuple[float, ...]) -> expr.Node:
    """Horner's c0 w^n + ... + cn, as cephes' polevl."""
    value: expr.Node = expr.Const(coefficients[0])
    for c in coefficients[1:]:
        value = expr.BinOp("+", expr.BinOp("*", value, w), expr.Const(c))
    return value


def _spence(x: expr.Node) -> expr.Node:
    """spence(x) as cephes computes it, each branch over the whole tile and Select keeping the
    element's: x > 2 maps to xr = 1 / x; w = 1 / xr - 1 for xr > 1.5, -xr for xr < 0.5, else
    xr - 1; y = -w A(w) / B(w); then pi^2/6 - log(xr) log(1 - xr) - y for xr < 0.5, and
    -log(xr)^2 / 2 - y for x > 1.5. log(xr) is -log(x) for x > 2 (1 / x is subnormal near
    FLT_MAX) and log(max(x, FLT_MIN_NORMAL)) below, so that x = 0 or a subnormal gives
    pi^2/6 - (-87.3) * log(1) = pi^2/6 even where the hardware flushes subnormals. x = 1 gives
    0 - 0 = +0 (cephes' 0.0), and x < 0, +inf and NaN give NaN (scipy's: cephes' NaN for x < 0,
    and 1 / inf = 0 makes its log(0) * log(1) NaN)."""

    def where(cond: expr.Node, a: expr.Node, b: expr.Node) -> expr.Node:
        return expr.Call(functions.WHERE.name, (cond, a, b))

    def const(value: float) -> expr.Const:
        return expr.Const(value)

    def log(v: expr.Node) -> expr.Node:
        return expr.Call(functions.LOG.name, (v,))

    beyond_two = expr.Compare(">", x, const(2.0))
    inverse = expr.BinOp("/", const(1.0), x)
    xr = where(beyond_two, inverse, x)
    log_x = log(expr.Call(functions.MAX.name, (x, const(FLT_MIN_NORMAL))))
    z = where(beyond_two, expr.Neg(log_x), log_x)  # log(xr)
    below_half = expr.Compare("<", xr, const(0.5))
    w = where(
        expr.Compare(">", xr, const(1.5)),
        expr.BinOp("-", inverse, const(1.0)),
        where(below_half, expr.Neg(xr), expr.BinOp("-", xr, const(1.0))),
    )
    ratio = expr.BinOp("/", expr.BinOp("*", w, _polevl(w, SPENCE_A)), _polevl(w, SPENCE_B))
    reflected = expr.BinOp(
        "+",
        expr.BinOp(
            "-",
            const(math.pi**2 / 6),
            expr.BinOp("*", z, log(expr.BinOp("-", const(1.0), xr))),
        ),
        ratio,
    )
    y = where(below_half, reflected, expr.BinOp("-", const(0.0), ratio))
    inverted = expr.BinOp("-", expr.BinOp("*", expr.BinOp("*", z, z), const(-0.5)), y)
    y = where(expr.Compare(">", x, const(1.5)), inverted, y)
    nan = const(math.nan)
    finite = where(expr.Compare("<=", x, const(FLT_MAX)), y, nan)
    return where(expr.Compare(">=", x, const(0.0)), finite, nan)


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
    scratch: list[str]  # per instruction, the temporary it may overwrite ("" if none)


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
    final_at = {
        out: next(i for i, ins in enumerate(instrs) if ins.dst == reg)
        for out, reg in prog.outputs.items()
    }

    where: dict[int, str] = {}
    holder: dict[str, int | None] = {}  # tile -> live value in it
    for name, reg in prog.inputs.items():
        tile = f"in:{name}"
        where[reg] = tile
        holder[tile] = reg if reg in last_use else None
    for out in prog.outputs:
        holder[f"out:{out}"] = None
    dsts: list[str] = []
    args: list[tuple[str, ...]] = []
    scratch: list[str] = []

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
            tile = _pick(ins, i, dying, where, holder, prog, fits_output) or _free_temp(holder)
        scratch.append(_free_temp(holder, busy=tile) if ins.scratch else "")
        for a in dying:
            if holder.get(where[a]) == a:
                holder[where[a]] = None
        where[ins.dst] = tile
        holder[tile] = ins.dst
        dsts.append(tile)
    temps = max((int(t[4:]) + 1 for t in holder if t.startswith("tmp:")), default=0)
    return Allocation(where, dsts, args, temps, any(ins.shared_tmp for ins in instrs), scratch)


def _free_temp(holder: dict[str, int | None], busy: str = "") -> str:
    """The lowest temporary holding no live value (other than `busy`), or a new one."""
    temps = [t for t in holder if t.startswith("tmp:")]
    free = [t for t in temps if holder[t] is None and t != busy]
    tile = min(free, key=lambda t: int(t[4:])) if free else f"tmp:{len(temps)}"
    holder.setdefault(tile, None)
    return tile


def _pick(
    ins: Instr,
    i: int,
    dying: list[int],
    where: dict[int, str],
    holder: dict[str, int | None],
    prog: Program,
    fits_output: Callable[[str, int, int], bool],
) -> str | None:
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


# Each instruction's Ascend C text. {d} is the destination tile, {a0}..{a2} the operands, {s}
# and {s2} the scalars, {n} the element count ({cmp_n} for Compare, which counts whole blocks);
# {mask_d}/{mask_a0} are those tiles as the uint8_t bit masks Compare and Select take.
_TT = "AscendC::SELMODE::VSEL_TENSOR_TENSOR_MODE"
_TS = "AscendC::SELMODE::VSEL_TENSOR_SCALAR_MODE"
_INSTR_TEXT: dict[str, tuple[str, ...]] = {
    **dict.fromkeys(
        ("Add", "Sub", "Mul", "Div", "Max", "Min"), ("AscendC::{op}({d}, {a0}, {a1}, {n});",)
    ),
    **dict.fromkeys(("Adds", "Muls", "Maxs", "Mins"), ("AscendC::{op}({d}, {a0}, {s}, {n});",)),
    **dict.fromkeys(  # the functions' own instructions (Exp, Ln, ...; Rsqrt, Reciprocal)
        [f.instr for f in functions.CALLABLE if f.arity == 1 and f.instr and not f.api]
        + [f.fast_instr for f in functions.CALLABLE if f.fast_instr],
        ("AscendC::{op}({d}, {a0}, {n});",),
    ),
    **dict.fromkeys(  # the functions' high-level APIs (Tanh, Sigmoid, ...)
        [f.instr for f in functions.CALLABLE if f.arity == 1 and f.api],
        ("AscendC::{op}({d}, {a0}, {shared}, {n});",),
    ),
    "Power": ("AscendC::Power({d}, {a0}, {s}, {shared}, {n});",),
    "PowerExp": (
        "// v ** {s} = exp({s} * ln(v)) for v > 0",
        "AscendC::Ln({d}, {a0}, {n});",
        "AscendC::Muls({d}, {d}, {s}, {n});",
        "AscendC::Exp({d}, {d}, {n});",
    ),
    "Pow2": ("AscendC::Mul({d}, {a0}, {a0}, {n});",),
    "Pow3": ("AscendC::Mul({d}, {a0}, {a0}, {n});", "AscendC::Mul({d}, {d}, {a0}, {n});"),
    "Pow4": ("AscendC::Mul({d}, {a0}, {a0}, {n});", "AscendC::Mul({d}, {d}, {d}, {n});"),
    # a * b + c: b into the tile, then FusedMulAdd (tile = a * tile + c)
    "FMA": ("AscendC::Muls({d}, {a1}, {one}, {n});", "AscendC::FusedMulAdd({d}, {a0}, {a2}, {n});"),
    # c - a * b = a * (-b) + c
    "FNMA": (
        "AscendC::Muls({d}, {a1}, {minus_one}, {n});",
        "AscendC::FusedMulAdd({d}, {a0}, {a2}, {n});",
    ),
    # s - v = -v + s
    "RSub": ("AscendC::Muls({d}, {a0}, {minus_one}, {n});", "AscendC::Adds({d}, {d}, {s}, {n});"),
    # s / v, divided exactly (Reciprocal misses the precision standard)
    "RDiv": ("AscendC::Duplicate({d}, {s}, {n});", "AscendC::Div({d}, {d}, {a0}, {n});"),
    # 1 / sqrt(v) as sqrt(1 / v): Div and Sqrt, not Rsqrt
    "RsqrtDiv": (
        "AscendC::Duplicate({d}, {one}, {n});",
        "AscendC::Div({d}, {d}, {a0}, {n});",
        "AscendC::Sqrt({d}, {d}, {n});",
    ),
    # |v| = max(v, -v)
    "AbsInt": ("AscendC::Muls({d}, {a0}, {minus_one}, {n});", "AscendC::Max({d}, {d}, {a0}, {n});"),
    # gcd(a, b): opgen_kernel.h's Euclid loop on the scalar unit, element by element
    "Gcd": ("opgen_kernel::Gcd({d}, {a0}, {a1}, {n});",),
    # opgen_kernel.h's RowPass: the row's value over the whole tile
    **dict.fromkeys(
        REDUCE_APIS,
        ("{rows}.{pass_name}({level}, {d}, {a0}, {shared}.ReinterpretCast<float>(), {n});",),
    ),
    # a UB copy of any length: multiply by one
    "Copy": ("AscendC::Muls({d}, {a0}, {one}, {n});",),
    # a number or attr over the tile (a where() condition known per launch)
    "Fill": ("AscendC::Duplicate({d}, {s}, {n});",),
    # index(dim): the flat offsets of the tile's elements modulo the axis's period, then their
    # coordinates (opgen_kernel.h's AxisIndex)
    "IndexBase": ("AscendC::CreateVecIndex({d}, opgen_kernel::IndexStart({offset}, {s}), {n});",),
    "AxisIndex": ("opgen_kernel::AxisIndex({d}, {a0}, {s2}, {n});",),
    "Compare": ("AscendC::Compare({mask_d}, {a0}, {a1}, AscendC::CMPMODE::{mode}, {cmp_n});",),
    "Compares": ("AscendC::Compares({mask_d}, {a0}, {s}, AscendC::CMPMODE::{mode}, {cmp_n});",),
    "SelectTT": (f"AscendC::Select({{d}}, {{mask_a0}}, {{a1}}, {{a2}}, {_TT}, {{n}});",),
    "SelectTS": (f"AscendC::Select({{d}}, {{mask_a0}}, {{a1}}, {{s}}, {_TS}, {{n}});",),
    # s where the mask is set: fill with s, then select into place
    "SelectST": (
        "AscendC::Duplicate({d}, {s}, {n});",
        f"AscendC::Select({{d}}, {{mask_a0}}, {{d}}, {{a1}}, {_TT}, {{n}});",
    ),
    "SelectSS": (
        "AscendC::Duplicate({d}, {s}, {n});",
        f"AscendC::Select({{d}}, {{mask_a0}}, {{d}}, {{s2}}, {_TS}, {{n}});",
    ),
    # an integer compute type: opgen_kernel.h's forms (the mask is a tile of the compute type,
    # which they view as bits), with a scratch tile {x}
    "CompareMask": (
        "opgen_kernel::CompareMask({d}, {a0}, {a1}, AscendC::CMPMODE::{mode}, {cmp_n}, {x});",
    ),
    "CompareScalarMask": (
        "opgen_kernel::CompareMask({d}, {a0}, {s}, AscendC::CMPMODE::{mode}, {cmp_n}, {x});",
    ),
    "ChooseTT": ("opgen_kernel::Choose({d}, {a0}, {a1}, {a2}, {n}, {x});",),
    "ChooseTS": ("opgen_kernel::Choose({d}, {a0}, {a1}, {s}, {n}, {x});",),
    "ChooseST": ("opgen_kernel::Choose({d}, {a0}, {s}, {a1}, {n}, {x});",),
    "ChooseSS": ("opgen_kernel::Choose({d}, {a0}, {s}, {s2}, {n}, {x});",),
}


def _emit_instr(ins: Instr, d: str, a: list[str], ctx: dict[str, str], x: str = "") -> list[str]:
    """The Ascend C statements of one instruction on tiles d and a (and its scratch tile x)."""
    a0, a1, a2 = (a + ["", "", ""])[:3]
    fields = {
        **ctx,
        "op": ins.op,
        "pass_name": ins.op[3:],
        "level": ins.level,
        "mode": ins.mode,
        "d": d,
        "a0": a0,
        "a1": a1,
        "a2": a2,
        "s": ins.scalar.text if ins.scalar else "",
        "s2": ins.scalar2.text if ins.scalar2 else "",
        "x": x,
        "mask_d": _mask(d),
        "mask_a0": _mask(a0),
        "cmp_n": ctx.get("cmp_count", ctx["count"]),
        "n": ctx["count"],
    }
    return [line.format(**fields) for line in _INSTR_TEXT[ins.op]]


def _mask(tile: str) -> str:
    """A tile holding a Compare bit mask, as the uint8_t tensor Compare and Select take."""
    return f"{tile}.ReinterpretCast<uint8_t>()"


def emit_body(
    prog: Program, alloc: Allocation, names: dict[str, str], ctx: dict[str, str]
) -> list[str]:
    """The C++ statements of one lowered program (without the temporaries' declarations)."""
    lines: list[str] = []
    reused: set[str] = set()
    for i, ins in enumerate(prog.instrs):
        tile = alloc.dst[i]
        d = names[tile]
        a = [names[t] for t in alloc.args[i]]
        if ins.note:
            lines.append(f"// {ins.note}")
        comment = f"// {d} <- {ins.text}"
        if tile.startswith("in:") and tile not in reused:
            reused.add(tile)
            comment += f"  ({d} is not read again: its tile is reused)"
        if len(comment) <= 100:
            lines.append(comment)
        x = names[alloc.scratch[i]] if alloc.scratch[i] else ""
        lines += _emit_instr(ins, d, a, ctx, x)
    return lines


# ---------------------------------------------------------------------------------------------
# host-side scalars
# ---------------------------------------------------------------------------------------------


def _host_flag(condition: str, integer: bool) -> str:
    """1 where a host condition holds, else 0, in the host's number type."""
    return f"({condition} ? {'1' if integer else '1.0'} : {'0' if integer else '0.0'})"


def host_expr(
    node: expr.Node, attr_fields: dict[str, str], integer: bool, texts: dict[str, str]
) -> str:
    """A host C++ expression of a scalar subtree over the `tiling->` attr fields and TilingFunc's
    variables holding the string attrs (`texts`, read with GetAttrPointer<char>): in double for
    float ops, in int64_t for integer ones (whose subtrees hold only integer operations)."""
    num = "int64_t" if integer else "double"

    def h(n: expr.Node) -> str:
        if isinstance(n, expr.Const):
            return str(int(n.value)) if integer else repr(n.value)
        if isinstance(n, expr.Scalar):
            return f"static_cast<{num}>(tiling->{attr_fields[n.name]})"
        if isinstance(n, expr.Neg):
            return f"(-{h(n.arg)})"
        if isinstance(n, expr.BinOp):
            return f"({h(n.left)} {n.op} {h(n.right)})"
        if isinstance(n, expr.Pow):
            if isinstance(n.exponent, int) and n.exponent > 0:
                return "(" + " * ".join([h(n.base)] * n.exponent) + ")"
            return f"std::pow({h(n.base)}, {n.exponent!r})"
        if isinstance(n, expr.Compare):
            return _host_flag(f"{h(n.left)} {n.op} {h(n.right)}", integer)
        if isinstance(n, expr.TextCompare):
            return _host_flag(
                f"std::strcmp({texts[n.name]}, {cpp_string(n.value)}) {n.op} 0", integer
            )
        if isinstance(n, expr.Call):
            return functions.FUNCTIONS[n.func].host.format(
                *(h(a) for a in n.args),
                zero="0" if integer else "0.0",
                one="1" if integer else "1.0",
            )
        raise TypeError(n)

    return f"static_cast<{'int64_t' if integer else 'float'}>({h(node)})"


# ---------------------------------------------------------------------------------------------
# names and helpers
# ---------------------------------------------------------------------------------------------


def fresh(base: str, taken: Set[str]) -> str:
    """`base`, or `base1`, `base2`, ... : the first that is not taken."""
    name, n = base, 1
    while name in taken:
        name = f"{base}{n}"
        n += 1
    return name
