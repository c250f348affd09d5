"""The two expression languages of the prototype's "opgen" block.

- compute: an elementwise expression, possibly with reductions over the last axis (sum, mean,
  amax, amin), the kernel generator lowers to Ascend C vector calls. It is parsed with `ast` into
  the small typed tree below (`Node`), checked against a whitelist on the way, and never
  evaluated.
- golden: a torch expression used as the precision reference. It is checked against a
  whitelist and re-emitted with `ast.unparse`, so generated code only ever holds text that
  passed the check.
"""

from __future__ import annotations

import ast
import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace

from opgen.frontend import functions, index_functions
from opgen.frontend.index_functions import (
    BOOL_PARAMS,
    FLOAT_PARAMS,
    LIST_PARAMS,
    NCHW_TO_NHWC,
    NHWC_TO_NCHW,
    NUMBER_PARAMS,
    PAIR_PARAMS,
    PARTS,
    SOFTMAX,
    SOFTMAX_LONGHAND,
    STRING_CHOICES,
    STRING_PARAMS,
    STRING_REFUSED,
    TENSOR_PARAMS,
)


class ExprError(ValueError):
    """An expression outside the whitelist; the message names the offending part."""


# ---------------------------------------------------------------------------------------------
# compute
# ---------------------------------------------------------------------------------------------

# The functions a compute expression calls, each with its arity: functions.CALLABLE
# Reductions: over the last axis (the row) without dim=, inside a larger expression broadcast back
# over the row (keepdim); with torch's dim= and keepdim= over the axes they name.
REDUCE_FUNCS = ("sum", "mean", "amax", "amin")
BIN_OPS = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/"}
CMP_OPS = {ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">=", ast.Eq: "==", ast.NotEq: "!="}


@dataclass(frozen=True)
class Tensor:
    name: str
    is_tensor = True


@dataclass(frozen=True)
class Scalar:
    """An int, float or bool attr."""

    name: str
    is_tensor = False


@dataclass(frozen=True)
class Const:
    value: float
    is_tensor = False


@dataclass(frozen=True)
class Neg:
    arg: Node

    @property
    def is_tensor(self) -> bool:
        return self.arg.is_tensor


@dataclass(frozen=True)
class BinOp:
    op: str  # + - * /
    left: Node
    right: Node

    @property
    def is_tensor(self) -> bool:
        return self.left.is_tensor or self.right.is_tensor


@dataclass(frozen=True)
class Pow:
    base: Node
    exponent: int | float  # a nonzero constant: an int when it is integral

    @property
    def is_tensor(self) -> bool:
        return self.base.is_tensor


@dataclass(frozen=True)
class Compare:
    """A comparison: 1 where it holds, else 0 (a bool output holds it as true/false)."""

    op: str  # one of CMP_OPS' values
    left: Node
    right: Node

    @property
    def is_tensor(self) -> bool:
        return self.left.is_tensor or self.right.is_tensor


@dataclass(frozen=True)
class TextCompare:
    """A string attr compared with a string literal (== or != only): 1 when it holds, else 0.
    A condition on attrs alone, so the host computes it (strcmp) and the torch side in Python;
    the attr's accepted values are declared ("opgen": {"values"}), so that a value outside them
    is refused rather than unequal to every literal."""

    op: str  # == or !=
    name: str  # the string attr
    value: str  # the literal
    is_tensor = False

    def show(self) -> str:
        return f"{self.name} {self.op} {_text_literal(self.value)}"


def _text_literal(value: str) -> str:
    """A string as the prototype writes it in an expression: in double quotes where it can."""
    return f'"{value}"' if '"' not in value and "\\" not in value else repr(value)


@dataclass(frozen=True)
class Call:
    func: str  # a name in functions.FUNCTIONS (where(c, a, b): a where c
    # is nonzero (true), else b), or "pow" (e ** p with an exponent of attrs: a scalar)
    args: tuple[Node, ...]

    @property
    def is_tensor(self) -> bool:
        return any(a.is_tensor for a in self.args)


@dataclass(frozen=True)
class Axes:
    """The axes a reduction reduces, torch's `dim`: literal `dims` (a negative one counts from the
    end; () is every axis, as torch's dim=None and dim=[]) or, when `attr` is set, the value of
    that int or list_int attr."""

    dims: tuple[int, ...] = (-1,)
    attr: str = ""
    # A string attr choosing the output's shape ("compute": {"y": {"reduction": {...}}}, see
    # frontend/choices.py): while `text` holds one of `none`, the reductions reduce no axis (each
    # element its own value, the input's shape); else `dims`.
    text: str = ""
    none: tuple[str, ...] = ()

    def show(self) -> str:
        """The axes as the prototype writes them."""
        if self.text:
            plain = ", ".join(repr(v) for v in self.none)
            return (
                f"{replace(self, text='', none=()).show()} (no axis where {self.text} is {plain})"
            )
        if self.attr:
            return self.attr
        if not self.dims:
            return "None"
        return str(self.dims[0]) if len(self.dims) == 1 else str(self.dims)


LAST_AXIS = Axes()


@dataclass(frozen=True)
class Reduce:
    """sum/mean/amax/amin of a tensor expression over `axes`: one value per row (the kernel's
    row is those axes). `dim_given`: written with torch's dim= (else the last axis, and the row
    value broadcasts back over the row: today's row ops); `keepdim` then is torch's keepdim, a
    literal or the name of a bool attr."""

    func: str  # one of REDUCE_FUNCS
    arg: Node
    axes: Axes = LAST_AXIS
    keepdim: bool | str = False
    dim_given: bool = False
    is_tensor = True


@dataclass(frozen=True)
class Index:
    """index(dim): each element's coordinate (0-based, an integer value) along axis `dim` of the
    output (a negative dim counts from the end); `dim` an int, or the name of an int attr."""

    dim: int | str
    is_tensor = True

    def show(self) -> str:
        return f"index({self.dim})"


INDEX_FUNC = "index"


@dataclass(frozen=True)
class Matmul:
    """matmul(a, b): torch.matmul of two inputs on the cube unit, a [M, K] or [B, M, K], b
    [K, N] or [B, K, N] (each transposed first when its transpose_a=/transpose_b= holds: a bool
    literal or the name of a bool attr). The rest of its output's expression is the epilogue the
    vector unit computes over the product."""

    a: str
    b: str
    transpose_a: bool | str = False
    transpose_b: bool | str = False
    is_tensor = True

    def show(self) -> str:
        flags = [
            f"{key}={value}"
            for key, value in (("transpose_a", self.transpose_a), ("transpose_b", self.transpose_b))
            if value is not False
        ]
        return f"matmul({', '.join([self.a, self.b, *flags])})"

    @property
    def attrs(self) -> tuple[str, ...]:
        """The bool attrs it reads."""
        return tuple(t for t in (self.transpose_a, self.transpose_b) if isinstance(t, str))


MATMUL_FUNC = "matmul"


@dataclass(frozen=True)
class Expand:
    """expand(x, size): torch's x.expand(size), the whole expression of its output: input `x`
    broadcast to the shape the list_int attr `attr` gives: -1 keeps x's dim, new leading dims
    may be added, a dim of x other than 1 must equal its size. The output's shape comes from
    the attr's value, not from the inputs."""

    x: str
    attr: str
    is_tensor = True

    def show(self) -> str:
        return f"expand({self.x}, {self.attr})"


EXPAND_FUNC = "expand"

# An index-op argument: an int or bool literal, a tuple of ints (a pooling window), or the name
# of an attr (int, bool or list_int) holding it.
# A literal, or an attr's name (a str but for STRING_CHOICES' parameters, whose str is the literal)
IndexArg = int | bool | float | str | tuple[int, ...]


@dataclass(frozen=True)
class IndexCall:
    """An index op (opgen/frontend/index_ops.py): torch's index_select, gather, scatter_add,
    index_add, index_reduce, argmax, argmin, topk, sort, roll, one_hot, cumsum, avg_pool2d,
    max_pool2d, cross, histc, nll_loss, or max or min along a dim, of inputs (`x`, and `index` and
    `src` where the function takes them; cross's `other` held as `src`; nll_loss's target and
    weight), its other arguments by torch's names in `args` (each an IndexArg), and for topk, sort,
    max and min the part of the result (`values` or `indices`), for topk and sort a row prologue
    computed on x first (`prologue`: "softmax" for
    topk(softmax(x, dim=-1), k)). The whole expression of its output (no epilogue yet). A pooling
    may be channels-last: pool(x.permute(0, 3, 1, 2), ...).permute(0, 2, 3, 1), x and y NHWC."""

    func: str
    x: str
    index: str = ""
    src: str = ""
    args: tuple[tuple[str, IndexArg], ...] = ()
    part: str = ""
    prologue: str = ""
    channels_last: bool = False
    is_tensor = True

    def arg(self, name: str) -> IndexArg | None:
        """The argument `name` as written (None: not given, torch's default)."""
        return dict(self.args).get(name)

    @property
    def attrs(self) -> tuple[str, ...]:
        """The attrs it reads."""
        return tuple(v for n, v in self.args if isinstance(v, str) and n not in STRING_CHOICES)

    def show(self) -> str:
        """As written: arguments positional until one is left out, then by keyword."""
        x = f"{self.prologue}({self.x}, dim=-1)" if self.prologue else self.x
        x = f"{x}.permute{NHWC_TO_NCHW}" if self.channels_last else x
        tensors = {"x": x, "index": self.index, "src": self.src, "other": self.src}
        shown, skipped = [], False
        fn = index_functions.FUNCTIONS[self.func]
        for i, name in enumerate(fn.params):
            value = tensors[name] if name in tensors else self.arg(name)
            skipped = skipped or bool(fn.positional and i >= fn.positional)
            if value is None or value == "":
                skipped = True
                continue
            text = str(list(value)) if isinstance(value, tuple) else str(value)
            text = f"'{value}'" if name in STRING_CHOICES else text
            shown.append(f"{name}={text}" if skipped else text)
        call = f"{self.func}({', '.join(shown)})"
        if self.channels_last:
            return f"{call}.permute{NCHW_TO_NHWC}"
        return f"{call}.{self.part}" if self.part else call


Node = (
    Tensor | Scalar | Const | Neg | BinOp | Pow | Compare | TextCompare | Call | Reduce | Index
) | (Matmul | Expand | IndexCall)


# Bounds on an expression, checked before anything walks it recursively or evaluates it: far
# beyond any real operator, well within Python's recursion limit and a test's time.
MAX_CHARS = 4000
MAX_NODES = 2000
MAX_DEPTH = 100
MAX_INT_LITERAL = 2**64
MAX_CONST_EXPONENT = 64  # `a ** b` of two numbers: larger b can take minutes to evaluate


def _parse(text: str) -> ast.expr:
    if len(text) > MAX_CHARS:
        raise ExprError(f"is {len(text)} characters long; opgen takes at most {MAX_CHARS}")
    try:
        tree = ast.parse(text.strip(), mode="eval").body
    except SyntaxError as exc:
        raise ExprError(f"not a valid expression: {exc.msg} at column {exc.offset}") from None
    except (RecursionError, MemoryError):
        raise ExprError(f"nests too deeply (at most {MAX_DEPTH} levels)") from None
    except ValueError as exc:  # e.g. an integer literal beyond Python's 4300 digits
        raise ExprError(f"not a valid expression: {exc}") from None
    _check_size(tree)
    return tree


def _check_size(tree: ast.AST) -> None:
    """The bounds above, walking without recursion."""
    nodes, stack = 0, [(tree, 1)]
    while stack:
        node, depth = stack.pop()
        nodes += 1
        if depth > MAX_DEPTH:
            raise ExprError(f"nests more than {MAX_DEPTH} levels deep")
        if nodes > MAX_NODES:
            raise ExprError(f"has more than {MAX_NODES} terms")
        if (
            isinstance(node, ast.Constant)
            and type(node.value) is int
            and abs(node.value) > MAX_INT_LITERAL
        ):
            raise ExprError(f"the literal {_digits(node.value)} is larger than 2**64")
        if (
            isinstance(node, ast.Constant)
            and isinstance(node.value, float)
            and not math.isfinite(node.value)
        ):
            raise ExprError(f"the literal {_snippet(node)} does not fit in a double")
        if (
            isinstance(node, ast.BinOp)
            and isinstance(node.op, ast.Pow)
            and isinstance(node.left, ast.Constant)
            and isinstance(node.right, ast.Constant)
            and isinstance(node.right.value, (int, float))
            and abs(node.right.value) > MAX_CONST_EXPONENT
        ):
            raise ExprError(
                f"'{_snippet(node)}': a power of two numbers takes an exponent of at "
                f"most {MAX_CONST_EXPONENT}"
            )
        stack += [(child, depth + 1) for child in ast.iter_child_nodes(node)]


def _operand(node: ast.AST) -> str:
    """A subexpression as the operand of `*`: parenthesized unless it is a name or a number."""
    text = _snippet(node)
    return text if isinstance(node, (ast.Name, ast.Constant)) else f"({text})"


def _digits(value: int) -> str:
    text = str(value)
    return text if len(text) <= 24 else f"{text[:10]}...({len(text)} digits)"


def _snippet(node: ast.AST) -> str:
    return ast.unparse(node)


def parse_compute(
    text: str,
    tensors: set[str],
    scalars: set[str],
    others: dict[str, str] | None = None,
    attr_types: dict[str, str] | None = None,
) -> Node:
    """Parse a compute expression over `tensors` (input names) and `scalars` (attr names).

    `others` maps names that exist but may not be used (an optional input, a list attr) to the
    reason, for a precise message; `attr_types` every attr's type (a reduction's dim= may name
    an int or list_int attr, its keepdim= a bool one).
    """
    node = _to_node(_parse(text), tensors, scalars, others or {}, attr_types or {})
    tensor_nodes = (Tensor, Matmul, Expand, IndexCall)
    if not node.is_tensor or not any(isinstance(n, tensor_nodes) for n in walk(node)):
        raise ExprError("uses no input tensor; an elementwise output needs at least one")
    return node


def _to_node(
    node: ast.AST,
    tensors: set[str],
    scalars: set[str],
    others: dict[str, str],
    attr_types: dict[str, str],
) -> Node:
    def conv(n: ast.AST) -> Node:
        return _to_node(n, tensors, scalars, others, attr_types)

    if isinstance(node, ast.Constant):
        if isinstance(node.value, str):
            raise ExprError(
                f"the string {_snippet(node)} may only be compared with a string attr "
                '(where(reduction == "mean", ...))'
            )
        if isinstance(node.value, bool) or not isinstance(node.value, (int, float)):
            raise ExprError(f"only numeric literals are allowed, not {_snippet(node)}")
        return Const(float(node.value))
    if isinstance(node, ast.Name):
        return _name_node(node.id, tensors, scalars, others)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return Neg(conv(node.operand))
    if isinstance(node, ast.BinOp) and type(node.op) in BIN_OPS:
        return BinOp(BIN_OPS[type(node.op)], conv(node.left), conv(node.right))
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Pow):
        if any(isinstance(n, ast.Name) and n.id in scalars for n in ast.walk(node.right)):
            return _attr_power(node, conv)
        return Pow(conv(node.left), _exponent(node, tensors, scalars))
    if isinstance(node, ast.Compare):
        if len(node.ops) != 1:
            raise ExprError(
                f"'{_snippet(node)}' chains comparisons; compare two operands at a "
                "time (where(a < b, ...) nested for a range)"
            )
        if type(node.ops[0]) not in CMP_OPS:
            raise ExprError(f"'{_snippet(node)}': compute compares with < <= > >= == != only")
        if _is_text(node.left, attr_types) or _is_text(node.comparators[0], attr_types):
            return _text_compare(node, attr_types)
        return Compare(CMP_OPS[type(node.ops[0])], conv(node.left), conv(node.comparators[0]))
    if isinstance(node, (ast.Call, ast.Attribute)):
        return _call_node(node, conv, attr_types)
    raise ExprError(
        f"'{_snippet(node)}' is not allowed: compute takes + - * /, unary -, "
        "** with a constant exponent, comparisons (< <= > >= == !=), numbers, names "
        "and the listed functions"
    )


def _is_text(node: ast.AST, attr_types: dict[str, str]) -> bool:
    """A string literal, or the name of a string attr."""
    if isinstance(node, ast.Constant):
        return isinstance(node.value, str)
    return isinstance(node, ast.Name) and attr_types.get(node.id) == "string"


def _text_compare(node: ast.Compare, attr_types: dict[str, str]) -> TextCompare:
    """`attr == "literal"` or `attr != "literal"` (either side first): a string attr and a string
    literal, compared for equality only (an order of strings means nothing to the kernel)."""
    op = CMP_OPS[type(node.ops[0])]
    left, right = node.left, node.comparators[0]
    if isinstance(left, ast.Constant):
        left, right = right, left
    attr = left.id if isinstance(left, ast.Name) and attr_types.get(left.id) == "string" else ""
    literal = right.value if isinstance(right, ast.Constant) else None
    if not (attr and isinstance(literal, str)):
        raise ExprError(
            f"{_snippet(node)} compares a string: compare a string attr with a string literal "
            '(reduction == "mean")'
        )
    if op not in ("==", "!="):
        raise ExprError(
            f"{_snippet(node)} orders strings: compare a string attr with == or != only "
            '(reduction == "mean")'
        )
    return TextCompare(op, attr, literal)


def _name_node(name: str, tensors: set[str], scalars: set[str], others: dict[str, str]) -> Node:
    """A name in a compute expression: a required input or a scalar attr."""
    if name in tensors:
        return Tensor(name)
    if name in scalars:
        return Scalar(name)
    if name in others:
        raise ExprError(
            f"'{name}' {others[name]}; compute may use required inputs and int, float or bool attrs"
        )
    raise ExprError(f"unknown name '{name}': use an input or an int, float or bool attr")


def _call_node(
    node: ast.Call | ast.Attribute, conv: Callable[[ast.AST], Node], attr_types: dict[str, str]
) -> Node:
    """A call in a compute expression: a reduction or a listed function with its arity; or a
    part of one (topk(...).values)."""
    if isinstance(node, ast.Attribute):
        return _part_node(node, conv, attr_types)
    if not isinstance(node.func, ast.Name):
        return _method_node(node, conv, attr_types)
    func = node.func.id
    if func in REDUCE_FUNCS:
        return _reduce_node(node, conv, attr_types)
    if func == INDEX_FUNC:
        return _index_node(node, attr_types)
    if func == MATMUL_FUNC:
        return _matmul_node(node, conv, attr_types)
    if func == EXPAND_FUNC:
        return _expand_node(node, conv, attr_types)
    if func in index_functions.FUNCTIONS and not _elementwise(node):
        found = _index_call(node, conv, attr_types)
        if index_functions.FUNCTIONS[func].has_parts:
            raise ExprError(
                f"{show(found)} returns values and indices: take one, "
                f"{show(found)}.values or {show(found)}.indices"
            )
        return found
    if node.keywords:
        raise ExprError(f"{func}() takes no keyword arguments")
    function = next((f for f in functions.CALLABLE if f.name == func), None)
    if function is None:
        raise _unknown_function(node, func)
    arity = function.arity
    if len(node.args) != arity:
        usage = f" ({function.usage})" if function.usage else ""
        raise ExprError(
            f"{func}() takes {arity} argument{'s' if arity > 1 else ''}, "
            f"got {len(node.args)}{usage}"
        )
    call = Call(func, tuple(conv(a) for a in node.args))
    _check_call_operands(function, call)
    return call


def _check_call_operands(function: functions.Function, call: Call) -> None:
    """clamp's bounds are numbers or attrs; gcd's operands tensors (the scalar unit's loop reads
    tiles), and spence's (no host spelling)."""
    if function is functions.CLAMP:
        for bound, arg in zip(("lo", "hi"), call.args[1:], strict=True):
            if arg.is_tensor:
                raise ExprError(
                    f"clamp() takes a number or an attr as its bound {bound}, "
                    f"not the tensor expression '{show(arg)}'; write "
                    "min(max(x, lo), hi) for tensor bounds"
                )
    if function.scalar_loop:
        for arg in call.args:
            if not arg.is_tensor:
                raise ExprError(
                    f"{call.func}() takes two integer tensors, not the number or attr "
                    f"'{show(arg)}' ({function.usage})"
                )
    if function.golden_helper and not call.args[0].is_tensor:
        raise ExprError(
            f"{call.func}() takes a tensor, not the number or attr '{show(call.args[0])}' "
            f"({function.usage})"
        )


def _unknown_function(node: ast.Call, func: str) -> ExprError:
    """The error of a call of no function the grammar has (softmax: where it may be)."""
    if func == SOFTMAX:
        takers = [f"{f.name}()" for f in index_functions.FUNCTIONS.values() if f.prologues]
        return ExprError(
            f"{_snippet(node)}: softmax(x, dim=-1) is supported as the x of "
            f"{' or '.join(takers)} only (a row prologue of their kernel)"
        )
    allowed = ", ".join(  # max and min are both elementwise and index functions: once
        dict.fromkeys(
            [f.name for f in functions.CALLABLE]
            + [*REDUCE_FUNCS, INDEX_FUNC, MATMUL_FUNC, EXPAND_FUNC, *index_functions.FUNCTIONS]
        )
    )
    return ExprError(f"unknown function '{func}'; allowed: {allowed}")


def _elementwise(node: ast.Call) -> bool:
    """max(a, b) / min(a, b): the elementwise function, also when its arity is wrong (torch.max(x,
    dim) returns values and indices: a keyword, a third argument or a part makes it that)."""
    name = node.func.id if isinstance(node.func, ast.Name) else ""
    is_function = any(f.name == name for f in functions.CALLABLE)
    return is_function and not node.keywords and len(node.args) != 3


def _matmul_node(
    node: ast.Call, conv: Callable[[ast.AST], Node], attr_types: dict[str, str]
) -> Matmul:
    """matmul(a, b, transpose_a=..., transpose_b=...): a and b inputs, each flag a bool literal
    or a bool attr."""
    usage = "matmul(a, b), with transpose_a= and transpose_b= a bool or a bool attr"
    if len(node.args) != 2:
        raise ExprError(f"matmul() takes two inputs: {usage}")
    operands = []
    for arg in node.args:
        operand = conv(arg)
        if not isinstance(operand, Tensor):
            raise ExprError(
                f"matmul() multiplies two inputs, not '{show(operand)}': compute the "
                "epilogue around it (matmul(a, b) * scale + bias)"
            )
        operands.append(operand.name)
    flags: dict[str, bool | str] = {}
    for keyword in node.keywords:
        if keyword.arg not in ("transpose_a", "transpose_b"):
            raise ExprError(f"matmul() takes the keywords transpose_a= and transpose_b=: {usage}")
        value = keyword.value
        if isinstance(value, ast.Constant) and isinstance(value.value, bool):
            flags[keyword.arg] = value.value
        elif isinstance(value, ast.Name) and attr_types.get(value.id) == "bool":
            flags[keyword.arg] = value.id
        else:
            raise ExprError(
                f"matmul({keyword.arg}={_snippet(value)}): {keyword.arg}= takes True, False "
                "or a bool attr"
            )
    return Matmul(operands[0], operands[1], **flags)


def _part_node(
    node: ast.Attribute, conv: Callable[[ast.AST], Node], attr_types: dict[str, str]
) -> IndexCall:
    """topk(...).values or .indices, sort(...).values or .indices."""
    call = node.value
    func = call.func.id if isinstance(call, ast.Call) and isinstance(call.func, ast.Name) else ""
    if func not in index_functions.FUNCTIONS or not index_functions.FUNCTIONS[func].has_parts:
        raise ExprError(
            f"'{_snippet(node)}' is not allowed: .values and .indices take a part of "
            "topk(...), sort(...), max(x, dim) or min(x, dim)"
        )
    assert isinstance(call, ast.Call)
    if node.attr not in PARTS:
        raise ExprError(f"{func}(...).{node.attr}: take .values or .indices")
    return replace(_index_call(call, conv, attr_types), part=node.attr)


def _method_node(
    node: ast.Call, conv: Callable[[ast.AST], Node], attr_types: dict[str, str]
) -> IndexCall:
    """A method call: only a channels-last pooling's .permute()."""
    if isinstance(node.func, ast.Attribute) and node.func.attr == "permute":
        return _channels_last_node(node, conv, attr_types)
    raise ExprError(f"only plain function calls are allowed, not {_snippet(node.func)}")


def _permute_dims(node: ast.AST | None) -> tuple[int, ...] | None:
    """The dims of `name.permute(0, 3, 1, 2)` (or of one tuple or list literal), else None."""
    if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Attribute) or node.keywords:
        return None
    args = node.args
    if len(args) == 1 and isinstance(args[0], (ast.Tuple, ast.List)):
        args = args[0].elts
    dims = [_small_int(a) for a in args]
    return tuple(d for d in dims if d is not None) if None not in dims else None


def _channels_last_node(
    node: ast.Call, conv: Callable[[ast.AST], Node], attr_types: dict[str, str]
) -> IndexCall:
    """pool(x.permute(0, 3, 1, 2), ...).permute(0, 2, 3, 1): a pooling of NHWC x into NHWC y
    as torch spells it (the library's channels-last kind); no other permute."""
    assert isinstance(node.func, ast.Attribute)
    inner = node.func.value
    func = inner.func.id if isinstance(inner, ast.Call) and isinstance(inner.func, ast.Name) else ""
    fn = index_functions.FUNCTIONS.get(func)
    pools = [f.name for f in index_functions.FUNCTIONS.values() if f.nhwc_kind]
    written = f"(x.permute{NHWC_TO_NCHW}, ...).permute{NCHW_TO_NHWC}"
    if fn is None or not fn.nhwc_kind or not isinstance(inner, ast.Call):
        raise ExprError(
            f"'{_snippet(node)}' is not allowed: .permute() is taken only around a channels-last "
            f"pooling, {pools[0]}{written} (or {', '.join(pools[1:])}), x and the output NHWC"
        )
    x = inner.args[0] if inner.args else None
    base = x.func.value if isinstance(x, ast.Call) and isinstance(x.func, ast.Attribute) else None
    dims = (_permute_dims(x), _permute_dims(node))
    if not isinstance(base, ast.Name) or dims != (NHWC_TO_NCHW, NCHW_TO_NHWC):
        raise ExprError(
            f"'{_snippet(node)}': opgen pools NCHW x, {func}(x, ...), or NHWC x written "
            f"{func}{written}, these permutes exactly (x [N, H, W, C]); no other permute"
        )
    bare = ast.Call(inner.func, [base, *inner.args[1:]], inner.keywords)
    return replace(_index_call(bare, conv, attr_types), channels_last=True)


def _index_call(
    node: ast.Call, conv: Callable[[ast.AST], Node], attr_types: dict[str, str]
) -> IndexCall:
    """An index function's call: its tensors inputs, each other argument a literal or an attr
    of its type, positional or by torch's keyword."""
    assert isinstance(node.func, ast.Name)
    func = node.func.id
    params = index_functions.FUNCTIONS[func].params
    usage = f"{func}({', '.join(params)})"
    if len(node.args) > len(params):
        raise ExprError(f"{func}() takes at most {len(params)} arguments: {usage}")
    positional = index_functions.FUNCTIONS[func].positional
    if positional and len(node.args) > positional:
        raise ExprError(
            f"{func}() takes {', '.join(params[:positional])} positionally, the rest by "
            f"keyword: {usage}"
        )
    given: dict[str, ast.AST] = dict(zip(params, node.args, strict=False))
    for keyword in node.keywords:
        if keyword.arg is None or keyword.arg not in params or keyword.arg in TENSOR_PARAMS:
            raise ExprError(f"{func}() takes no keyword {keyword.arg or '**'}: {usage}")
        if keyword.arg in given:
            raise ExprError(f"{func}() got {keyword.arg} twice")
        given[keyword.arg] = keyword.value
    tensors: dict[str, str] = {}
    args: list[tuple[str, IndexArg]] = []
    prologue = ""
    for name in params:
        if name not in given:
            if name in TENSOR_PARAMS or name in index_functions.FUNCTIONS[func].required:
                raise ExprError(f"{func}() needs its argument {name}: {usage}")
            continue
        if name == "x" and index_functions.FUNCTIONS[func].prologues:
            tensors[name], prologue = _prologue_x(func, given[name], conv)
        elif name in TENSOR_PARAMS:
            operand = conv(given[name])
            if not isinstance(operand, Tensor):
                raise ExprError(
                    f"{func}() takes an input as its {name}, not '{show(operand)}' (an index op "
                    "reads its inputs as they are)"
                )
            tensors[name] = operand.name
        else:
            args.append((name, _index_arg(func, name, given[name], attr_types)))
    second = tensors.get("src", tensors.get("other", ""))  # cross's other is held as src
    return IndexCall(
        func,
        tensors["x"],
        tensors.get("index", ""),
        second,
        tuple(args),
        prologue=prologue,
    )


def _prologue_x(func: str, node: ast.AST, conv: Callable[[ast.AST], Node]) -> tuple[str, str]:
    """topk's / sort's x: an input, or softmax of one over the last dim (softmax(x, dim=-1), or
    the expression SOFTMAX_LONGHAND spells out), which the kernel computes on the row first.
    Returns the input and the prologue ("" for none)."""
    usage = f"{func}() takes an input as its x, or softmax(input, dim=-1)"
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == SOFTMAX:
        args = [*node.args, *(k.value for k in node.keywords)]
        keywords = [k.arg for k in node.keywords]
        operand = conv(node.args[0]) if node.args else None
        if len(args) != 2 or keywords not in ([], ["dim"]) or not isinstance(operand, Tensor):
            raise ExprError(f"{_snippet(node)}: {usage}")
        if _small_int(args[1]) != -1:
            raise ExprError(
                f"{_snippet(node)}: opgen computes softmax over the last dim, the one {func}() "
                "sorts: write dim=-1"
            )
        return operand.name, SOFTMAX
    operand = conv(node)
    if isinstance(operand, Tensor):
        return operand.name, ""
    inputs = {n.name for n in walk(operand) if isinstance(n, Tensor)}
    if len(inputs) == 1:
        (name,) = inputs
        longhand = ast.parse(SOFTMAX_LONGHAND.format(x=name), mode="eval").body
        if operand == conv(longhand):
            return name, SOFTMAX
    raise ExprError(
        f"{usage} (a row prologue its kernel computes: "
        f"{SOFTMAX_LONGHAND.format(x='x')} is softmax too), not '{show(operand)}' (an index op "
        "reads its inputs as they are)"
    )


def _index_arg(func: str, name: str, node: ast.AST, attr_types: dict[str, str]) -> IndexArg:
    """One argument of an index function: a literal of its type or the name of an attr."""
    if name in STRING_PARAMS:
        return _string_attr_arg(func, name, node, attr_types)
    if name in STRING_CHOICES:
        return _string_literal_arg(func, name, node)
    if name in NUMBER_PARAMS:
        return _number_arg(func, name, node, attr_types)
    return _typed_index_arg(func, name, node, attr_types)


def _typed_index_arg(func: str, name: str, node: ast.AST, attr_types: dict[str, str]) -> IndexArg:
    """A bool, int, pair, list or float argument: a literal, or an attr of its type."""
    kinds: tuple[str, ...]
    if name in BOOL_PARAMS:
        kinds, what = ("bool",), "True, False or a bool attr"
    elif name in PAIR_PARAMS:
        kinds, what = ("int", "list_int"), "an int, a pair of ints, or an int or list_int attr"
    elif name in LIST_PARAMS:
        kinds, what = ("int", "list_int"), "an int, a list of ints, or an int or list_int attr"
    elif name in FLOAT_PARAMS:
        kinds, what = ("float",), "a number or a float attr"
    else:
        kinds, what = ("int",), "an int or an int attr"
    if isinstance(node, ast.Name) and attr_types.get(node.id) in kinds:
        return node.id
    if name in BOOL_PARAMS and isinstance(node, ast.Constant):
        if isinstance(node.value, bool):
            return node.value
    elif name in PAIR_PARAMS and isinstance(node, (ast.Tuple, ast.List)):
        pair = [_small_int(e) for e in node.elts]
        if len(pair) == 2 and pair[0] is not None and pair[1] is not None:
            return (pair[0], pair[1])
    elif name in LIST_PARAMS and isinstance(node, (ast.Tuple, ast.List)):
        items = [_small_int(e) for e in node.elts]
        if all(v is not None for v in items):
            return tuple(v for v in items if v is not None)
    elif name in FLOAT_PARAMS and _number(node) is not None:
        number = _number(node)
        assert number is not None
        return number
    elif _small_int(node) is not None and not isinstance(node, ast.Name):
        value = _small_int(node)
        assert value is not None
        return value
    raise ExprError(f"{func}({name}={_snippet(node)}): {name} takes {what}")


def _string_attr_arg(func: str, name: str, node: ast.AST, attr_types: dict[str, str]) -> str:
    """A string argument (nll_loss's reduction): the name of a string attr."""
    if isinstance(node, ast.Name) and attr_types.get(node.id) == "string":
        return node.id
    values = ", ".join(repr(v) for v in STRING_PARAMS[name])
    raise ExprError(
        f"{func}({name}={_snippet(node)}): {name} takes a string attr (one of {values}, read "
        "when the op runs; a literal is not supported yet)"
    )


def _number(node: ast.AST) -> float | None:
    """A finite int or float literal (negative too), as a float, else None."""
    negative = isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub)
    value = node.operand if isinstance(node, ast.UnaryOp) and negative else node
    if not isinstance(value, ast.Constant) or type(value.value) not in (int, float):
        return None
    assert isinstance(value.value, (int, float))
    number = float(value.value)
    if number - number != 0.0:
        return None
    return -number if negative else number


def _string_literal_arg(func: str, name: str, node: ast.AST) -> str:
    """A string literal among STRING_CHOICES[name] (torch's others refused by name)."""
    choices = STRING_CHOICES[name]
    shown = ", ".join(f"'{c}'" for c in choices)
    if not isinstance(node, ast.Constant) or not isinstance(node.value, str):
        raise ExprError(f"{func}({name}={_snippet(node)}): {name} takes a string literal, {shown}")
    if node.value in STRING_REFUSED.get(name, ()):
        raise ExprError(
            f"{func}({name}='{node.value}'): opgen's kernel computes {shown}, not torch's "
            f"'{node.value}'"
        )
    if node.value not in choices:
        raise ExprError(f"{func}({name}='{node.value}'): {name} is one of {shown}")
    return node.value


def _number_arg(
    func: str, name: str, node: ast.AST, attr_types: dict[str, str]
) -> int | float | str:
    """An int or float literal (negative too), or an int attr."""
    if isinstance(node, ast.Name) and attr_types.get(node.id) == "int":
        return node.id
    if isinstance(node, ast.Name) and attr_types.get(node.id) == "float":
        raise ExprError(
            f"{func}({name}={node.id}): a float attr is not supported yet as {name}; write the "
            "number, or use an int attr"
        )
    negative = isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub)
    value = node.operand if isinstance(node, ast.UnaryOp) and negative else node
    literal = value.value if isinstance(value, ast.Constant) else None
    if type(literal) is float and math.isfinite(literal):
        return -literal if negative else literal
    if type(literal) is int and -(2**31) <= (-literal if negative else literal) < 2**31:
        return -literal if negative else literal
    raise ExprError(
        f"{func}({name}={_snippet(node)}): {name} takes a finite number (an int within int32) "
        "or an int attr"
    )


def _small_int(node: ast.AST) -> int | None:
    """An int literal (negative too) within int32, else None."""
    negative = isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub)
    value = node.operand if isinstance(node, ast.UnaryOp) and negative else node
    if isinstance(value, ast.Constant) and type(value.value) is int and value.value < 2**31:
        return -value.value if negative else value.value
    return None


def _expand_node(
    node: ast.Call, conv: Callable[[ast.AST], Node], attr_types: dict[str, str]
) -> Expand:
    """expand(x, size): x an input, size a list_int attr."""
    usage = "expand(x, size), x an input and size a list_int attr"
    if node.keywords or len(node.args) != 2:
        raise ExprError(f"expand() takes two arguments: {usage}")
    operand = conv(node.args[0])
    if not isinstance(operand, Tensor):
        raise ExprError(f"expand() broadcasts an input, not '{show(operand)}': {usage}")
    size = node.args[1]
    if isinstance(size, ast.Name):
        if attr_types.get(size.id) != "list_int":
            what = f"a {attr_types[size.id]} attr" if size.id in attr_types else "no attr"
            raise ExprError(
                f"expand({operand.name}, {size.id}): '{size.id}' is {what}; expand() takes a "
                "list_int attr as its size"
            )
        return Expand(operand.name, size.id)
    raise ExprError(
        f"expand({operand.name}, {_snippet(size)}): give the size as a list_int attr (the "
        "generated tests pass it sizes made from x's shapes)"
    )


def _index_node(node: ast.Call, attr_types: dict[str, str]) -> Index:
    """index(dim): dim an int literal (negative from the end) or an int attr."""
    if node.keywords or len(node.args) != 1:
        raise ExprError("index() takes one argument, the dim: index(-1), index(dim)")
    arg = node.args[0]
    if isinstance(arg, ast.Name):
        if attr_types.get(arg.id) != "int":
            what = f"a {attr_types[arg.id]} attr" if arg.id in attr_types else "no attr"
            raise ExprError(f"index({arg.id}): '{arg.id}' is {what}; index() takes an int attr")
        return Index(arg.id)
    return Index(_int_literal("index", arg))


def _reduce_node(
    node: ast.Call, conv: Callable[[ast.AST], Node], attr_types: dict[str, str]
) -> Reduce:
    """sum/mean/amax/amin(e) over the last axis, or with torch's dim (positional or dim=) and
    keepdim= over the axes dim names."""
    assert isinstance(node.func, ast.Name)  # _call_node's check
    func = node.func.id
    keywords = {k.arg: k.value for k in node.keywords}
    unknown = sorted(k for k in keywords if k is not None and k not in ("dim", "keepdim"))
    if unknown or None in keywords:
        raise ExprError(f"{func}() takes the keywords dim= and keepdim=, not {unknown or '**'}")
    positional = list(node.args[1:])
    if not node.args or len(node.args) > 3 or (len(positional) == 2 and "keepdim" in keywords):
        raise ExprError(f"{func}() takes a tensor, then dim= and keepdim= ({func}(x, dim=-1))")
    if positional:
        if "dim" in keywords:
            raise ExprError(f"{func}() got dim twice")
        keywords["dim"] = positional[0]
    if len(positional) == 2:
        keywords["keepdim"] = positional[1]
    arg = conv(node.args[0])
    if not arg.is_tensor:
        raise ExprError(f"{func}() reduces a tensor, not the scalar '{show(arg)}'")
    if "dim" not in keywords:
        if "keepdim" in keywords:
            raise ExprError(f"{func}(): keepdim= goes with dim= ({func}(x, dim=-1, keepdim=True))")
        return Reduce(func, arg)
    keepdim = _keepdim(func, keywords.get("keepdim"), attr_types)
    return Reduce(func, arg, _axes(func, keywords["dim"], attr_types), keepdim, dim_given=True)


def _axes(func: str, node: ast.AST, attr_types: dict[str, str]) -> Axes:
    """dim=: an int, a tuple or list of ints, None (every axis) or an int or list_int attr."""
    if isinstance(node, ast.Name) and attr_types.get(node.id) in ("int", "list_int"):
        return Axes(attr=node.id)
    if isinstance(node, ast.Name):
        what = f"a {attr_types[node.id]} attr" if node.id in attr_types else "no attr"
        raise ExprError(
            f"{func}(dim={node.id}): '{node.id}' is {what}; dim= takes an int or list_int attr"
        )
    if isinstance(node, ast.Constant) and node.value is None:
        return Axes(())
    items = node.elts if isinstance(node, (ast.Tuple, ast.List)) else [node]
    dims = tuple(_int_literal(func, item) for item in items)
    if len(set(dims)) != len(dims):
        raise ExprError(f"{func}(dim={_snippet(node)}) names an axis twice")
    return Axes(dims)


def _int_literal(func: str, node: ast.AST) -> int:
    negative = isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub)
    value = node.operand if isinstance(node, ast.UnaryOp) and negative else node
    if not (isinstance(value, ast.Constant) and type(value.value) is int) or value.value > 64:
        raise ExprError(
            f"{func}(): dim= takes ints (up to 64), a tuple or list of them, None or an attr; "
            f"not '{_snippet(node)}'"
            if func != INDEX_FUNC
            else f"index() takes an int (up to 64) or an int attr as its dim, not "
            f"'{_snippet(node)}'"
        )
    return -value.value if negative else value.value


def _keepdim(func: str, node: ast.AST | None, attr_types: dict[str, str]) -> bool | str:
    """keepdim=: True, False (torch's default) or a bool attr."""
    if node is None:
        return False
    if isinstance(node, ast.Constant) and isinstance(node.value, bool):
        return node.value
    if isinstance(node, ast.Name) and attr_types.get(node.id) == "bool":
        return node.id
    raise ExprError(f"{func}(): keepdim= takes True, False or a bool attr, not '{_snippet(node)}'")


def _attr_power(power: ast.BinOp, conv: Callable[[ast.AST], Node]) -> Call:
    """`e ** p` whose exponent reads attrs (and numbers): pow(e, p), the exponent a scalar the
    host computes."""
    base, exponent = conv(power.left), conv(power.right)
    if exponent.is_tensor:
        raise ExprError(
            f"'**' takes a number or an expression of attrs as its exponent, not the tensor "
            f"expression '{show(exponent)}'"
        )
    if not base.is_tensor:
        raise ExprError(f"'{_snippet(power)}': a power of numbers and attrs needs a tensor in it")
    return Call(functions.POW.name, (base, exponent))


def _exponent(power: ast.BinOp, tensors: set[str], scalars: set[str]) -> int | float:
    """The exponent of `**`: a nonzero real constant (+ - * / of numbers are folded)."""
    node = power.right

    def value(n: ast.AST) -> float:
        if isinstance(n, ast.Constant) and not isinstance(n.value, bool):
            if isinstance(n.value, (int, float)):
                return float(n.value)
        if isinstance(n, ast.UnaryOp) and isinstance(n.op, (ast.USub, ast.UAdd)):
            v = value(n.operand)
            return -v if isinstance(n.op, ast.USub) else v
        if isinstance(n, ast.BinOp) and type(n.op) in BIN_OPS:
            a, b = value(n.left), value(n.right)
            if isinstance(n.op, ast.Div) and b == 0:
                raise ExprError(f"the exponent '{_snippet(node)}' divides by zero")
            return {ast.Add: a + b, ast.Sub: a - b, ast.Mult: a * b, ast.Div: a / b if b else 0.0}[
                type(n.op)
            ]
        if isinstance(n, ast.Name) and n.id in tensors:
            raise ExprError(
                f"'**' takes a constant exponent, not the tensor '{n.id}'; "
                f"write exp({_operand(node)} * log({_snippet(power.left)})) for a "
                "positive base"
            )
        raise ExprError(f"'**' takes a constant exponent (a number), not '{_snippet(node)}'")

    exponent = value(node)
    if not math.isfinite(exponent):
        raise ExprError(f"the exponent '{_snippet(node)}' is not finite")
    if exponent == 0:
        raise ExprError(f"'** {_snippet(node)}': a power of 0 is the constant 1; write 1")
    if abs(exponent) > MAX_CONST_EXPONENT:
        raise ExprError(
            f"'** {_snippet(node)}': the exponent may be at most {MAX_CONST_EXPONENT} in magnitude"
        )
    return int(exponent) if exponent.is_integer() else exponent


def children(node: Node) -> tuple[Node, ...]:
    """The direct subtrees of a compute node."""
    if isinstance(node, Neg):
        return (node.arg,)
    if isinstance(node, (BinOp, Compare)):
        return (node.left, node.right)
    if isinstance(node, Pow):
        return (node.base,)
    if isinstance(node, Call):
        return node.args
    if isinstance(node, Reduce):
        return (node.arg,)
    return ()


def with_children(node: Node, new: tuple[Node, ...]) -> Node:
    """`node` with its direct subtrees replaced (in children()'s order)."""
    if isinstance(node, Neg):
        return Neg(new[0])
    if isinstance(node, (BinOp, Compare)):
        return type(node)(node.op, new[0], new[1])
    if isinstance(node, Pow):
        return Pow(new[0], node.exponent)
    if isinstance(node, Call):
        return Call(node.func, new)
    if isinstance(node, Reduce):
        return replace(node, arg=new[0])
    return node


def walk(node: Node) -> Iterator[Node]:
    """Every node of a compute tree, parents before their children, left to right: the one
    tree walker of opgen (lowering, test value ranges and name checks all use it)."""
    yield node
    for child in children(node):
        yield from walk(child)


def has_reduce(node: Node) -> bool:
    """Does the tree reduce over the row anywhere?"""
    return any(isinstance(n, Reduce) for n in walk(node))


def is_row_valued(node: Node) -> bool:
    """One value per row: every input the tree reads is inside a reduction (and it has one). An
    output with such an expression has the reduced shape x.shape[:-1]."""
    if isinstance(node, Reduce):
        return True
    if isinstance(node, Tensor):
        return False
    kids = children(node)
    return any(isinstance(n, Reduce) for n in walk(node)) and all(
        is_row_valued(k) or not k.is_tensor for k in kids
    )


def reductions(node: Node) -> list[Reduce]:
    """Every reduction in a compute tree, in walk() order."""
    return [n for n in walk(node) if isinstance(n, Reduce)]


def broadcast_reductions(node: Node) -> list[Reduce]:
    """The reductions whose value broadcasts back over the elements beside it: those inside an
    expression that also reads inputs outside reductions, and those inside another reduction's
    argument. The others give the value of a row-valued output (its shape is theirs)."""
    found: list[Reduce] = []

    def visit(n: Node, broadcast: bool) -> None:
        if isinstance(n, Reduce) and broadcast:
            found.append(n)
        inner = broadcast or isinstance(n, Reduce) or not is_row_valued(n)
        for child in children(n):
            visit(child, inner)

    visit(node, False)
    return found


def names_in(node: Node) -> set[str]:
    """Every input and attr name a compute tree uses (an index() dim's attr too)."""
    names = {n.name for n in walk(node) if isinstance(n, (Tensor, Scalar, TextCompare))}
    names |= {n.x for n in walk(node) if isinstance(n, Expand)}
    names |= {n.attr for n in walk(node) if isinstance(n, Expand)}
    for n in walk(node):
        if isinstance(n, IndexCall):
            names |= {t for t in (n.x, n.index, n.src) if t} | set(n.attrs)
    return names | {n.dim for n in walk(node) if isinstance(n, Index) and isinstance(n.dim, str)}


PRECEDENCE = {"+": 1, "-": 1, "*": 2, "/": 2}
CMP_PRECEDENCE = 0  # below + -, as in Python


def show(node: Node) -> str:
    """A compute subexpression in the prototype's syntax, with minimal parentheses (for comments
    and messages)."""
    return _show(node, 0)


def _show(node: Node, outer: int) -> str:
    if isinstance(node, (Tensor, Scalar)):
        return node.name
    if isinstance(node, (Index, Matmul, Expand, IndexCall)):
        return node.show()
    if isinstance(node, TextCompare):
        return f"({node.show()})" if outer > CMP_PRECEDENCE else node.show()
    if isinstance(node, Const):
        v = node.value
        return str(int(v)) if v.is_integer() and abs(v) < 1e15 else repr(v)
    if isinstance(node, Neg):
        text = "-" + _show(node.arg, 3)
        return f"({text})" if outer > 2 else text
    if isinstance(node, BinOp):
        p = PRECEDENCE[node.op]
        text = f"{_show(node.left, p)} {node.op} {_show(node.right, p + 1)}"
        return f"({text})" if p < outer else text
    if isinstance(node, Pow):
        text = f"{_show(node.base, 5)} ** {node.exponent!r}"
        return f"({text})" if outer > 4 else text
    if isinstance(node, Compare):
        text = f"{_show(node.left, 1)} {node.op} {_show(node.right, 1)}"
        return f"({text})" if outer > CMP_PRECEDENCE else text
    if isinstance(node, Call) and node.func == functions.POW.name:  # written e ** p
        text = f"{_show(node.args[0], 5)} ** {_show(node.args[1], 5)}"
        return f"({text})" if outer > 4 else text
    if isinstance(node, Call):
        return f"{node.func}({', '.join(_show(a, 0) for a in node.args)})"
    if isinstance(node, Reduce):
        if not node.dim_given:
            return f"{node.func}({_show(node.arg, 0)})"
        keepdim = f", keepdim={node.keepdim}" if node.keepdim is not False else ""
        return f"{node.func}({_show(node.arg, 0)}, dim={node.axes.show()}{keepdim})"
    raise TypeError(node)


_TORCH_REDUCE = {
    "sum": "torch.sum",
    "mean": "torch.mean",
    "amax": "torch.amax",
    "amin": "torch.amin",
}


def to_torch(node: Node) -> str:
    """The compute tree as a torch expression (the default golden), fully parenthesized. A
    comparison is torch's bool at the root (a bool output) and a number (`* 1`) inside
    arithmetic, where torch's bool + bool would be a logical or. Reductions keep the reduced axis
    (keepdim=True) so that they broadcast back over the row."""
    if isinstance(node, Compare):
        return f"({_torch(node.left)} {node.op} {_torch(node.right)})"
    if isinstance(node, TextCompare):
        return f"({node.name} {node.op} {node.value!r})"
    return _torch(node)


def _torch(node: Node) -> str:
    if isinstance(node, Reduce) and node.dim_given:
        dims = node.axes.attr or (str(list(node.axes.dims)) if node.axes.dims else "None")
        keepdim = f", keepdim={node.keepdim}" if node.keepdim is not False else ""
        return f"{_TORCH_REDUCE[node.func]}({_torch(node.arg)}, dim={dims}{keepdim})"
    if isinstance(node, Reduce):
        return f"{_TORCH_REDUCE[node.func]}({_torch(node.arg)}, -1, keepdim=True)"
    if isinstance(node, (Tensor, Scalar)):
        return node.name
    if isinstance(node, Matmul):
        return f"torch.matmul({_torch_operand(node.a, node.transpose_a)}, " + (
            f"{_torch_operand(node.b, node.transpose_b)})"
        )
    if isinstance(node, Expand):
        return f"{node.x}.expand({node.attr})"
    if isinstance(node, IndexCall):
        return _torch_index_call(node)
    if isinstance(node, Index):
        raise ExprError(
            f"{node.show()} has no default golden: give the output a golden expression "
            "(torch.tril(x, diagonal) for a Tril)"
        )
    if isinstance(node, Const):
        return repr(node.value)
    if isinstance(node, Neg):
        return f"(-{_torch(node.arg)})"
    if isinstance(node, BinOp):
        return f"({_torch(node.left)} {node.op} {_torch(node.right)})"
    if isinstance(node, Pow):
        return f"({_torch(node.base)} ** {node.exponent!r})"
    if isinstance(node, (Compare, TextCompare)):
        return f"({to_torch(node)} * 1)"
    if isinstance(node, Call):
        return _torch_call(node)
    raise TypeError(node)


def _torch_operand(name: str, transpose: bool | str) -> str:
    """A matmul operand, transposed over its last two axes where the flag holds."""
    if transpose is False:
        return name
    swapped = f"torch.transpose({name}, -2, -1)"
    return swapped if transpose is True else f"({swapped} if {transpose} else {name})"


def _torch_x(node: IndexCall) -> str:
    """An index call's x in torch: the input, or its row prologue (torch.softmax)."""
    return f"torch.{node.prologue}({node.x}, dim=-1)" if node.prologue else node.x


def _torch_index_call(node: IndexCall) -> str:
    """An index op as torch calls it (the default golden): the tensors positionally, the other
    arguments by keyword, an int32 index widened where torch takes int64 only."""
    if node.func == "nll_loss":  # torch's input, target and weight are positional
        rest = "".join(f", {name}={value}" for name, value in node.args)
        return f"torch.nn.functional.nll_loss({node.x}, {node.index}.long(), {node.src}{rest})"
    parts = []
    for name in index_functions.FUNCTIONS[node.func].params:
        if name == "x" and node.channels_last:
            parts.append(f"{node.x}.permute{NHWC_TO_NCHW}")
        elif name == "x" and index_functions.FUNCTIONS[node.func].float_golden:
            # torch has no integer kernel: an integer x is binned as x.float(), cast back below
            parts.append(f"({node.x} if {node.x}.is_floating_point() else {node.x}.float())")
        elif name == "x":
            parts.append(f"{node.x}.long()" if node.func == "one_hot" else _torch_x(node))
        elif name == "index":
            long = index_functions.FUNCTIONS[node.func].long_index
            parts.append(f"index={node.index}.long()" if long else f"index={node.index}")
        elif name == "src":  # torch.index_add and index_reduce call it source
            keyword = "source" if node.func in ("index_add", "index_reduce") else "src"
            parts.append(f"{keyword}={node.src}")
        elif name == "other":
            parts.append(node.src)
        elif name == "dim" and index_functions.FUNCTIONS[node.func].unset_dim is not None:
            parts += _unset_dim_arg(node)
        else:
            value = node.arg(name)
            if value is not None:
                text = str(list(value)) if isinstance(value, tuple) else str(value)
                text = repr(value) if name in STRING_CHOICES else text
                parts.append(f"{name}={text}")
    if node.func == "sort":  # ties in the order they come, as opgen's merge sort keeps them
        parts.append("stable=True")
    if node.func == "topk":  # torch's order of ties is unspecified: opgen's is a stable sort's
        return _torch_topk(node)
    call = f"{index_functions.FUNCTIONS[node.func].torch}({', '.join(parts)})"
    if node.channels_last:  # the same permutes as written: torch's channels-last result
        return f"{call}.permute{NCHW_TO_NHWC}"
    if index_functions.FUNCTIONS[node.func].float_golden:
        return f"{call}.to({node.x}.dtype)"
    return f"{call}.{node.part}" if node.part else call


def _unset_dim_arg(node: IndexCall) -> list[str]:
    """cross's dim as torch.cross takes it: the unset value (CANN's -65530) as None, not given
    left out (torch's None too)."""
    unset = index_functions.FUNCTIONS[node.func].unset_dim
    value = node.arg("dim")
    if value is None or value == unset:
        return [] if value is None else ["dim=None"]
    if isinstance(value, str):
        return [f"dim=(None if {value} == {unset} else {value})"]
    return [f"dim={value}"]


def _torch_topk(node: IndexCall) -> str:
    """topk as the first k of a stable sort (torch.topk's values; its indices with ties in the
    order they come, the lower index first, where torch's CPU order is unspecified)."""
    dim = node.arg("dim")
    dim_text = "-1" if dim is None else str(dim)
    largest = node.arg("largest")
    descending = "True" if largest is None else str(largest)
    return (
        f"torch.sort({_torch_x(node)}, dim={dim_text}, descending={descending}, stable=True)"
        f".{node.part}.narrow({dim_text}, 0, {node.arg('k')})"
    )


def _torch_call(node: Call) -> str:
    args = [_torch(a) for a in node.args]
    if node.func == functions.WHERE.name:
        compares = isinstance(node.args[0], (Compare, TextCompare))
        cond = to_torch(node.args[0]) if compares else f"({args[0]} != 0)"
        if not node.args[0].is_tensor:  # a number or attr condition: pick a branch
            return f"({args[1]} if {cond} else {args[2]})"
        return f"torch.where({cond}, {args[1]}, {args[2]})"
    if node.func == functions.CLAMP.name:
        if not node.args[0].is_tensor:
            return f"min(max({args[0]}, {args[1]}), {args[2]})"
        return f"torch.clamp({args[0]}, min={args[1]}, max={args[2]})"
    spelling = functions.FUNCTIONS[node.func].torch
    if spelling:
        if not node.args[0].is_tensor:  # a scalar argument: keep it a Python number
            return f"{spelling}(torch.tensor({args[0]}, dtype=torch.float64))"
        return f"{spelling}({args[0]})"
    if node.func == functions.POW.name:  # a tensor to the power of a number or an attr expression
        return f"torch.pow({args[0]}, {args[1]})"
    if node.func == functions.GCD.name:
        return f"torch.gcd({args[0]}, {args[1]})"
    if helper := functions.FUNCTIONS[node.func].golden_helper:  # torch has none
        return f"{helper}({args[0]})"
    a, b = node.args
    bound = "max" if node.func == "min" else "min"
    if a.is_tensor and b.is_tensor:
        return f"torch.{node.func}imum({args[0]}, {args[1]})"
    if a.is_tensor:
        return f"torch.clamp({args[0]}, {bound}={args[1]})"
    if b.is_tensor:
        return f"torch.clamp({args[1]}, {bound}={args[0]})"
    return f"{node.func}({args[0]}, {args[1]})"


# ---------------------------------------------------------------------------------------------
# golden
# ---------------------------------------------------------------------------------------------

# Module paths a golden may call into, and torch names it may use as values.
GOLDEN_NAMESPACES = ("torch", "torch.nn.functional", "torch.special", "torch.linalg", "torch.fft")
TORCH_VALUES = frozenset(
    "float16 bfloat16 float32 float64 half float double int8 int16 int32 int64 uint8 bool "
    "pi e inf nan".split()
)
# Functions with side effects or that reach outside the expression.
GOLDEN_BLOCKED = frozenset(
    "load save from_file set_default_dtype set_default_device set_printoptions manual_seed seed "
    "use_deterministic_algorithms set_num_threads set_grad_enabled compile export hub ops jit "
    "classes library cuda npu backends distributed utils autograd multiprocessing "
    "set_rng_state get_rng_state initial_seed".split()
)
# What a golden may read of a tensor (`x.shape[-1]`, `x.dtype`) and the tensor methods it may
# call (`x.to(torch.float32)`, `x.float().sum(-1)`): each returns a new value and changes
# nothing. An in-place method (`add_`) or one that leaves torch (`numpy`, `tolist`) is refused.
TENSOR_ATTRS = frozenset("shape ndim dtype T mT real imag".split())
TENSOR_METHODS = frozenset(
    "to type_as float double half bfloat16 int long short bool size dim numel "
    "reshape view view_as expand expand_as broadcast_to unsqueeze squeeze flatten unflatten "
    "transpose permute movedim contiguous clone flip roll narrow select gather index_select "
    "masked_fill where clamp clip abs neg reciprocal sqrt rsqrt exp log log1p pow square "
    "sigmoid tanh sin cos sum mean amax amin max min prod var std norm cumsum logsumexp "
    "softmax log_softmax matmul mul add sub div".split()
)
_GOLDEN_BINOPS = (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.Pow, ast.FloorDiv, ast.Mod)
_GOLDEN_CMPOPS = (ast.Lt, ast.LtE, ast.Gt, ast.GtE, ast.Eq, ast.NotEq)


def _dotted(node: ast.AST) -> str | None:
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return ".".join(reversed(parts))
    return None


def parse_golden(text: str, names: set[str]) -> str:
    """Check a golden torch expression over `names`; return its normalized source."""
    tree = _parse(text)
    _check_golden(tree, names)
    return ast.unparse(tree)


def _check_golden(node: ast.AST, names: set[str]) -> None:
    if isinstance(node, ast.Constant):
        if not isinstance(node.value, (int, float, bool, str, type(None), type(...))):
            raise ExprError(f"literal {_snippet(node)} is not allowed")
    elif isinstance(node, ast.Name):
        if node.id not in names:
            raise ExprError(f"unknown name '{node.id}': use an input, an attr, or torch.*")
    elif isinstance(node, ast.Attribute):
        _check_golden_attribute(node, names)
    elif isinstance(node, ast.Call):
        _check_golden_call(node, names)
    else:
        for part in _golden_operands(node):
            _check_golden(part, names)


def _check_golden_attribute(node: ast.Attribute, names: set[str]) -> None:
    """torch.float32 and the like, or a tensor's shape, ndim or dtype."""
    namespace, _, attr = (_dotted(node) or "").rpartition(".")
    if namespace in GOLDEN_NAMESPACES and attr in TORCH_VALUES:
        return
    if attr in TENSOR_ATTRS and not _torch_path(node.value):
        _check_golden(node.value, names)
        return
    raise ExprError(
        f"'{_snippet(node)}' is not allowed here: call torch.* or torch.nn.functional.* functions"
    )


def _golden_operands(node: ast.AST) -> list[ast.AST]:
    """The parts of an operator, tuple, list, subscript or slice in a golden, each to check;
    anything else is refused."""
    if isinstance(node, ast.BinOp) and isinstance(node.op, _GOLDEN_BINOPS):
        return [node.left, node.right]
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        return [node.operand]
    if isinstance(node, ast.Compare) and all(isinstance(o, _GOLDEN_CMPOPS) for o in node.ops):
        return [node.left, *node.comparators]
    if isinstance(node, (ast.Tuple, ast.List)):
        return list(node.elts)
    if isinstance(node, ast.IfExp):  # a choice on attrs: x.numel() if reduction == "mean" else 1
        return [node.test, node.body, node.orelse]
    if isinstance(node, ast.Subscript):  # x.shape[-1], x[..., :1]
        return [node.value, node.slice]
    if isinstance(node, ast.Slice):
        return [p for p in (node.lower, node.upper, node.step) if p is not None]
    raise ExprError(f"'{_snippet(node)}' is not allowed in a golden expression")


def _torch_path(node: ast.AST) -> bool:
    """`torch`, `torch.nn.functional` and the like: a module, not a value."""
    path = _dotted(node)
    return path is not None and (path == "torch" or path.startswith("torch."))


def _check_golden_call(node: ast.Call, names: set[str]) -> None:
    """A call in a golden: a torch function (not a private or blocked one) with checked args."""
    path = _dotted(node.func)
    namespace, _, func = (path or "").rpartition(".")
    receiver = node.func.value if isinstance(node.func, ast.Attribute) else None
    method = receiver is not None and not _torch_path(receiver)
    if method and isinstance(receiver, ast.Name) and receiver.id not in names:
        method = False  # os.system(...): not a value's method, a module's function
    if method and isinstance(node.func, ast.Attribute) and node.func.attr in TENSOR_METHODS:
        # x.to(torch.float32)
        _check_golden(node.func.value, names)
    elif method:
        raise ExprError(
            f"'{_snippet(node.func)}' is not allowed: a golden may call these tensor methods: "
            + ", ".join(sorted(TENSOR_METHODS))
        )
    elif namespace not in GOLDEN_NAMESPACES or not func:
        raise ExprError(
            f"only {', '.join(n + '.*' for n in GOLDEN_NAMESPACES)} functions "
            f"may be called, not {_snippet(node.func)}"
        )
    if func.startswith("_") or func in GOLDEN_BLOCKED:
        raise ExprError(f"'{path}' is not allowed in a golden expression")
    if not method:
        _check_torch_function(namespace, func)
    for arg in node.args:
        if isinstance(arg, ast.Starred):
            raise ExprError("*args is not allowed")
        _check_golden(arg, names)
    for kw in node.keywords:
        if kw.arg is None:
            raise ExprError("**kwargs is not allowed")
        _check_golden(kw.value, names)


def _check_torch_function(namespace: str, func: str) -> None:
    """`namespace.func` is a function of the installed torch, which the generated tests call
    (a misspelt one, torch.nn.functional.gelux, would fail only there). Without torch nothing
    is known: the check is left to the tests."""
    import importlib
    import importlib.util

    if importlib.util.find_spec("torch") is None:
        return
    module = importlib.import_module(namespace)
    if callable(getattr(module, func, None)):
        return
    import difflib

    names = [n for n in dir(module) if not n.startswith("_") and callable(getattr(module, n))]
    near = difflib.get_close_matches(func, names, n=1)
    raise ExprError(
        f"'{namespace}.{func}' is not a function of torch {_torch_version()}"
        + (f"; did you mean '{namespace}.{near[0]}'?" if near else "")
    )


def _torch_version() -> str:
    import torch

    return str(torch.__version__).split("+")[0]
