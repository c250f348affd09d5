"""The compute language's functions, one entry each: what every stage knows about a function.

An entry (`Function`) holds the function's name and arity, the dtypes it computes in, its
Ascend C lowering (the instruction, or the high-level API with its scratch needs and the SoCs
that lack it: `Api`), its value on constants (folding), its host C++ and torch spellings and
what the generated tests draw for it. The front end reads the grammar (`CALLABLE`) and the
torch spellings from here, the compiler the lowering, folding and host spellings, the planners
the APIs, the SoCs lacking them and the value ranges, and the catalog each SoC family's
missing APIs (`lacking_apis`). Adding a function is one entry here (and, when its lowering is
composed of other operations, its rewrite in compiler/lower.py's `_COMPOSED`).

The reductions (sum, mean, amax, amin), index(), matmul() and expand() are not functions of
elements; expr.py holds their grammar.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

# What a value's sign is, whatever the inputs are (the tests' positive-input rule)
POSITIVE = "positive"
NONNEGATIVE = "nonnegative"
SAME_AS_ARG = "same as the argument"


@dataclass(frozen=True)
class Api:
    """An Ascend C API that some SoC families lack (asc-devkit's 产品支持情况 of each API).

    `key` names it in the catalog's missing_apis and opgen_soc.h's OPGEN_SOC_HAS_API_<KEY>;
    `scratch`, for a high-level API taking a sharedTmpBuffer, is its (maxLiveNodeCount of
    Get<Api>TmpBufferFactorSize, minimum bytes of Get<Api>MaxMinTmpSize) for float, from
    asc-devkit impl/adv_api/tiling/math/*_tiling*.cpp; such an API does not allow overlapping
    source and destination."""

    key: str
    name: str  # Ascend C's spelling
    lacking: tuple[str, ...]  # the SoC families (short names) without it
    fallback: str = ""  # what a kernel computes through where it is lacking; "": an error
    scratch: tuple[int, int] | None = None

    @property
    def not_inplace(self) -> str:
        return f"the {self.name} API does not allow overlapping source and destination"


# sharedTmpBuffer of the high-level APIs for float: maxLiveNodeCount 1 (1 float per element)
# and the minimum of Get<Api>MaxMinTmpSize.
SHARED_TMP_LIVE_NODES = 1
SHARED_TMP_MIN_BYTES = 256

# Atlas training (910A) has no Tanh, Sign, Floor, Ceil, Erf, Power; Atlas 200I/500 A2 (310B)
# no Tanh, Sigmoid, Sign, Ceil, Erf, Power (Floor exists). FusedMulAdd (a fused multiply-add)
# is documented for Atlas A2/A3, 310P's AI Core and 310B in half and float (FusedMulAdd.md;
# vmadd in dav_c220, dav_m200, dav_m300); CreateVecIndex (index()) for Atlas A2/A3 only.
TANH_API = Api(
    "tanh",
    "Tanh",
    ("ascend910", "ascend310b"),
    "Exp",
    (SHARED_TMP_LIVE_NODES, SHARED_TMP_MIN_BYTES),
)
SIGMOID_API = Api(
    "sigmoid", "Sigmoid", ("ascend310b",), "Exp", (SHARED_TMP_LIVE_NODES, SHARED_TMP_MIN_BYTES)
)
SIGN_API = Api("sign", "Sign", ("ascend910", "ascend310b"), "Muls, Maxs and Mins", (3, 768))
# Power(tensor, scalar): the most any SoC needs (310P: 6 nodes, 7 repeats); the fallback of a
# constant non-integer exponent (an attr exponent has none)
POWER_API = Api("pow", "Power", ("ascend910", "ascend310b"), "Ln and Exp", (6, 1792))
FMA_API = Api("fma", "FusedMulAdd", ("ascend910", "ascend950", "bs9sx1a"), "Mul and Add")
# Floor needs no scratch in float: one repeat keeps the buffer non-empty.
FLOOR_API = Api("floor", "Floor", ("ascend910",), scratch=(0, 256))
CEIL_API = Api("ceil", "Ceil", ("ascend910", "ascend310b"), scratch=(1, 256))
ERF_API = Api("erf", "Erf", ("ascend910", "ascend310b"), scratch=(3, 768))
INDEX_API = Api(
    "index", "CreateVecIndex", ("ascend910", "ascend310p", "ascend310b", "ascend950", "bs9sx1a")
)
# in this order: those with a fallback (the kernel's SoC variants), then those without
APIS = (
    TANH_API,
    SIGMOID_API,
    SIGN_API,
    POWER_API,
    FMA_API,
    FLOOR_API,
    CEIL_API,
    ERF_API,
    INDEX_API,
)


def lacking_apis(soc: str) -> frozenset[str]:
    """The keys of the APIs SoC family `soc` lacks (the catalog's missing_apis)."""
    return frozenset(a.key for a in APIS if soc in a.lacking)


@dataclass(frozen=True)
class Function:
    """One function of the compute language."""

    name: str
    arity: int
    fold: Callable[..., float]  # its value on constants, in Python floats
    # host C++ (TilingFunc) of a call on scalars: {0}.. the arguments, {zero} and {one} the
    # number type's 0 and 1
    host: str
    torch: str = ""  # torch's function of a tensor; "": expr.to_torch spells the call
    float_only: bool = False  # no integer compute type
    # the Ascend C instruction of its plain lowering ("": composed of others, see lower.py)
    instr: str = ""
    api: Api | None = None  # the high-level API it lowers to (`instr` is its name)
    fast_instr: str = ""  # the instruction "fast_math": true uses (else an exact division)
    usage: str = ""  # the call's form, for a wrong number of arguments
    callable: bool = True  # written as a call (pow is written e ** p)
    # the tests' value ranges: the argument must be POSITIVE or NONNEGATIVE; the value's sign
    domain: str = ""
    sign: str = ""
    step: bool = False  # has jumps: no finite-difference gradcheck
    # its Ascend C instruction does not promise torch's NaN and signed-zero results
    special_values: bool = False
    small_domain: bool = False  # Floor/Ceil on ascend310p: |x| <= 2147483647 only
    integral: bool = False  # integer values only
    # torch's dtype of an integer call: "arg" (the argument's), "promote" (the arguments'
    # common one), "": float
    int_dtype: str = ""
    ordered: bool = False  # its value is one of its operands' or ordered by them (byte bounds)
    # integer tensors only (torch has no float kernel), computed element by element by the
    # scalar unit over the tile (no vector instruction): in int16, int32 and int64 alike
    scalar_loop: bool = False
    # the generated package's _support function its golden calls, where torch has none
    # (spence: mpmath); the parser refuses a number or attr argument (no host or fold spelling)
    golden_helper: str = ""


def _unary(name: str, fold: Callable[[float], float], host: str, **facts: Any) -> Function:
    return Function(name, 1, fold, host, torch=f"torch.{name}", **facts)


def _std(name: str, fold: Callable[[float], float], **facts: Any) -> Function:
    """A float function with a C++ <cmath> namesake."""
    return _unary(name, fold, f"std::{name}({{0}})", float_only=True, **facts)


def _api(api: Api, **facts: Any) -> dict[str, Any]:
    return {"instr": api.name, "api": api, **facts}


EXP = _std("exp", math.exp, instr="Exp", sign=POSITIVE)
LOG = _std("log", math.log, instr="Ln", domain=POSITIVE)
SQRT = _std("sqrt", math.sqrt, instr="Sqrt", domain=NONNEGATIVE, sign=SAME_AS_ARG)
# rsqrt() and reciprocal() lower to Div (and Sqrt), not to the Rsqrt and Reciprocal
# instructions, which miss the CANN precision standard (asc-devkit Rsqrt.md, Reciprocal.md):
# a kernel that passes on the twin must pass on the NPU. "fast_math": true in the prototype
# (Op.fast_math) trades that precision for speed and uses them.
RSQRT = _unary(
    "rsqrt",
    lambda a: 1 / math.sqrt(a),
    "(1.0 / std::sqrt({0}))",
    float_only=True,
    fast_instr="Rsqrt",
    domain=POSITIVE,
    sign=SAME_AS_ARG,
)
ABS = _unary(
    "abs",
    abs,
    "({0} < {zero} ? -{0} : {0})",
    instr="Abs",
    sign=NONNEGATIVE,
    int_dtype="arg",
    ordered=True,
)
RECIPROCAL = _unary(
    "reciprocal",
    lambda a: 1 / a,
    "(1.0 / {0})",
    float_only=True,
    fast_instr="Reciprocal",
    domain=POSITIVE,
    sign=SAME_AS_ARG,
)
TANH = _std("tanh", math.tanh, **_api(TANH_API))
SIGMOID = _unary(
    "sigmoid",
    lambda a: 1 / (1 + math.exp(-a)),
    "(1.0 / (1.0 + std::exp(-{0})))",
    float_only=True,
    sign=POSITIVE,
    **_api(SIGMOID_API),
)
RELU = _unary(
    "relu",
    lambda a: max(a, 0.0),
    "({0} > {zero} ? {0} : {zero})",
    instr="Relu",
    sign=NONNEGATIVE,
    special_values=True,
    int_dtype="arg",
    ordered=True,
)
SIGN = _unary(
    "sign",
    lambda a: float((a > 0) - (a < 0)),
    "({0} > {zero} ? {one} : ({0} < {zero} ? -{one} : {zero}))",
    step=True,
    special_values=True,
    int_dtype="arg",
    ordered=True,
    **_api(SIGN_API),
)
FLOOR = _std(
    "floor",
    lambda a: float(math.floor(a)),
    step=True,
    small_domain=True,
    integral=True,
    int_dtype="arg",
    **_api(FLOOR_API),
)
CEIL = _std(
    "ceil",
    lambda a: float(math.ceil(a)),
    step=True,
    small_domain=True,
    integral=True,
    int_dtype="arg",
    **_api(CEIL_API),
)
# log1p needs > -1; nonnegative inputs keep the tests simple
LOG1P = _std("log1p", math.log1p, domain=NONNEGATIVE)
EXPM1 = _std("expm1", math.expm1)
ERF = _std("erf", math.erf, **_api(ERF_API))
MIN = Function(
    "min",
    2,
    lambda a, b: min(a, b),
    "({0} < {1} ? {0} : {1})",
    instr="Min",
    special_values=True,
    int_dtype="promote",
    ordered=True,
)
MAX = Function(
    "max",
    2,
    lambda a, b: max(a, b),
    "({0} > {1} ? {0} : {1})",
    instr="Max",
    special_values=True,
    int_dtype="promote",
    ordered=True,
)
# clamp(x, lo, hi): lo and hi numbers or attrs; Maxs, then Mins (the Clamp API exists on
# ascend950 only)
CLAMP = Function(
    "clamp",
    3,
    lambda a, lo, hi: min(max(a, lo), hi),
    "(({0} > {1} ? {0} : {1}) < {2} ? ({0} > {1} ? {0} : {1}) : {2})",
    usage="clamp(x, lo, hi)",
    special_values=True,
    int_dtype="promote",
    ordered=True,
)
# where(c, a, b): a where c is nonzero (true), else b
WHERE = Function(
    "where",
    3,
    lambda c, a, b: a if c != 0 else b,
    "({0} != {zero} ? {1} : {2})",
    usage="where(cond, a, b)",
    ordered=True,
)
# e ** p with an exponent of attrs (a scalar the host computes): the Power API
POW = Function(
    "pow",
    2,
    math.pow,
    "std::pow({0}, {1})",
    float_only=True,
    callable=False,
    **_api(POWER_API),
)

# gcd(a, b) of two integer tensors: torch's calc_gcd (aten/src/ATen/native/Math.h), Euclid's loop
# after abs (which wraps the smallest value to itself: gcd(INT_MIN, 6) is -2, as torch's). No
# vector instruction takes a remainder, so opgen_kernel.h's Gcd loops over the tile on the scalar
# unit (GetValue/SetValue): exact in int16, int32 and int64, and slow. The parser refuses a
# number or attr operand, so `host` and `fold` (of constants) never run in a kernel.
GCD = Function(
    "gcd",
    2,
    lambda a, b: float(math.gcd(int(a), int(b))),
    "opgen_gcd({0}, {1})",
    usage="gcd(a, b), of two integer tensors",
    instr="Gcd",
    int_dtype="promote",
    scalar_loop=True,
)


def _spence_value(x: float) -> float:
    """scipy.special.spence(x) in float64: mpmath's polylog(2, 1 - x) (Li2(1 - x)), with scipy's
    NaN for x < 0, +inf and NaN (cephes: 1 / inf is 0, then log(0) * log(1) is NaN)."""
    from mpmath import fp  # type: ignore[import-untyped]  # torch needs sympy, which needs it

    if not 0.0 <= x < math.inf:
        return math.nan
    return float(fp.polylog(2, 1.0 - x))


# spence(x): scipy.special.spence, Spence's dilogarithm (the integral from 1 to x of
# log(t) / (1 - t) dt, Li2(1 - x)), NaN for x < 0. torch has no such function: the golden is
# _support's _spence (mpmath), and compiler/lower.py composes the kernel from cephes' spence.c
# (its rational approximation and transforms) with vector instructions, Compare and Select.
SPENCE = Function(
    "spence",
    1,
    _spence_value,
    "opgen_spence({0})",
    float_only=True,
    usage="spence(x), of a float tensor (scipy.special.spence)",
    domain=NONNEGATIVE,
    golden_helper="_spence",
)

FUNCTIONS: dict[str, Function] = {
    f.name: f
    for f in (
        EXP,
        LOG,
        SQRT,
        RSQRT,
        ABS,
        RECIPROCAL,
        TANH,
        SIGMOID,
        RELU,
        SIGN,
        FLOOR,
        CEIL,
        LOG1P,
        EXPM1,
        ERF,
        MIN,
        MAX,
        CLAMP,
        WHERE,
        POW,
        GCD,
        SPENCE,
    )
}
# the functions a compute expression calls by name, in the order the docs list them
CALLABLE = tuple(f for f in FUNCTIONS.values() if f.callable)


def names(which: Callable[[Function], object]) -> tuple[str, ...]:
    """The names of the functions for which `which` holds, in FUNCTIONS' order."""
    return tuple(f.name for f in FUNCTIONS.values() if which(f))
