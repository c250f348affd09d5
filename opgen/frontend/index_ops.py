"""Index ops: an output computed as one of torch's index functions (index_select, gather,
scatter_add, index_add, index_reduce, argmax, argmin, topk, sort, roll, one_hot, cumsum,
avg_pool2d, max_pool2d, cross, histc, nll_loss; expr.IndexCall). Their kernels are the index
library's templates (templates/kernel/index_lib/), one kind each. Here: the rules a prototype
must meet, the dtype rules, the shape rule the tests check (torch's; InferShape states it in
C++, the fake kernel is the golden on meta tensors), the values the tests pass for the attrs the
call reads, and the default test shapes. In this first version the call is its output's whole
expression (no epilogue after it); topk and sort may give both parts, .values and .indices, to
two outputs from the same call.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace

from opgen.frontend import expr
from opgen.frontend.broadcast import MAX_TEST_ELEMENTS, elements, limit_text
from opgen.frontend.index_functions import (
    FLOATS,
    FUNCTIONS,
    INDEX_DTYPES,
    NCHW_TO_NHWC,
    NHWC_TO_NCHW,
    NUMBER_PARAMS,
    ONE_HOT_OUT_DTYPES,
    STRING_CHOICES,
    STRING_PARAMS,
)
from opgen.frontend.model import Op, TensorParam
from opgen.frontend.problems import Problem, key_path

# The functions with a 1-D index along dim and src of x's shape but len(index) there
_ROW_INDEXED = ("index_add", "index_reduce")


def gives_index(call: expr.IndexCall) -> bool:
    """Is the call's value an index (argmax, argmin, topk/sort .indices)?"""
    return FUNCTIONS[call.func].gives_index or call.part == "indices"


def range_tensor(call: expr.IndexCall) -> str:
    """The input holding the indices the adapters and tests keep in range: one_hot's x (class
    ids), else the index ("" for a call without one)."""
    return call.x if call.func == "one_hot" else call.index


def index_problems(
    block_path: str, compute: dict[str, expr.Node], outputs: Sequence[TensorParam]
) -> list[Problem]:
    """An index call is its output's whole expression; an op has one call (topk and sort: its
    .values and .indices may be two outputs); every output of the op is computed by it."""
    problems = []
    calls: dict[str, expr.IndexCall] = {}
    for out_name, tree in compute.items():
        path = key_path(key_path(block_path, "compute"), out_name)
        found = [n for n in expr.walk(tree) if isinstance(n, expr.IndexCall)]
        if not found:
            continue
        if not isinstance(tree, expr.IndexCall):
            problems.append(
                Problem(
                    path,
                    f"compute expression: {found[0].show()} with an expression around it: an "
                    "epilogue after an index op is not supported yet; compute the call alone "
                    "(another op may take its output)",
                )
            )
            continue
        problems += _dim_problems(path, tree)
        if not outputs and out_name != tree.x:
            problems.append(
                Problem(
                    path,
                    f"compute expression: {tree.show()} updates {out_name}, an input without an "
                    f"output: an index op updates its x in place ({tree.x} = {tree.show()})",
                )
            )
        calls[out_name] = tree
    if not calls:
        return problems
    first_out, first = next(iter(calls.items()))
    for out_name, call in calls.items():
        path = key_path(key_path(block_path, "compute"), out_name)
        if replace(call, part="") != replace(first, part=""):
            problems.append(
                Problem(
                    path,
                    f"compute expression: {call.show()} beside {first.show()} ({first_out}): an "
                    "op computes one index call",
                )
            )
        elif out_name != first_out and (call.part == first.part or not call.part):
            problems.append(
                Problem(path, f"compute expression: {call.show()} is {first_out}'s already")
            )
    others = [o.name for o in outputs if o.name not in calls]
    if others and not problems:
        problems.append(
            Problem(
                key_path(block_path, "compute"),
                f"{', '.join(others)}: every output of an index op is its call's "
                f"({first.show()}); an op computes one index call",
            )
        )
    return problems


def _dim_problems(path: str, call: expr.IndexCall) -> list[Problem]:
    """topk and sort with a literal dim other than -1: the library sorts the last dim."""
    fn = FUNCTIONS[call.func]
    dim = call.arg(fn.dim) if fn.dim else None
    if not fn.last_dim_only or not isinstance(dim, int) or dim == -1:
        return []
    return [
        Problem(
            path,
            f"compute expression: {call.show()}: opgen's {fn.kind} kernel sorts the last dim; "
            "write dim=-1 (move another dim last, e.g. with a transpose, before the op)",
        )
    ]


def dtype_problems(base: str, op: Op) -> list[Problem]:
    """Per dtype combination: x a dtype the kind's kernel takes, the index int32 or int64, src
    x's dtype, each output the dtype torch gives (an index in int32 or int64, one_hot's in the
    listed ones, cumsum of ints int64)."""
    call = op.index_call
    if call is None:
        return []
    sections = (("input_desc", op.inputs), ("output_desc", op.outputs))
    where = {t.name: (key, i) for key, ts in sections for i, t in enumerate(ts)}
    tensors = {t.name: t for t in op.tensors}

    def path(name: str, k: int) -> str:
        key, i = where[name]
        return key_path(key_path(key_path(key_path(base, key), i), "type"), k)

    problems = []
    shown = call.show()
    for k, dx in enumerate(tensors[call.x].dtypes):
        x_problem = _x_dtype_problem(call, dx)
        if x_problem:
            problems.append(Problem(path(call.x, k), x_problem))
        if call.index and tensors[call.index].dtypes[k] not in INDEX_DTYPES:
            di = tensors[call.index].dtypes[k]
            problems.append(
                Problem(
                    path(call.index, k),
                    f"{shown}: the index {call.index} is int32 or int64, not {di}",
                )
            )
        problems += _alpha_problems(path(call.x, k), call, dx)
        if call.src and tensors[call.src].dtypes[k] != dx:
            ds = tensors[call.src].dtypes[k]
            problems.append(
                Problem(
                    path(call.src, k), f"{shown}: {call.src} is {ds}, {call.x} {dx}; give one type"
                )
            )
        for out_name, tree in op.compute.items():
            assert isinstance(tree, expr.IndexCall)
            wanted = _output_dtypes(tree, dx)
            got = tensors[out_name].dtypes[k]
            if got not in wanted:
                problems.append(
                    Problem(
                        path(out_name, k),
                        f"{tree.show()} of {call.x} {dx} is {' or '.join(wanted)} (as torch "
                        f"computes it), not {got}",
                    )
                )
    return problems


def _alpha_problems(path: str, call: expr.IndexCall, dx: str) -> list[Problem]:
    """A float alpha for an integer x: torch's index_add truncates it (torch.add refuses it)."""
    alpha = call.arg("alpha")
    if not isinstance(alpha, float) or dx in FLOATS:
        return []
    return [
        Problem(
            path,
            f"{call.show()} of {call.x} {dx}: alpha is a float; torch's index_add truncates it "
            f"for an integer tensor ({alpha} -> {int(alpha)}): give an int alpha, or {call.x} a "
            "float dtype",
        )
    ]


def _x_dtype_problem(call: expr.IndexCall, dx: str) -> str:
    """Why the kind's kernel (or the softmax prologue) does not take x of dtype dx, or ""."""
    fn = FUNCTIONS[call.func]
    if dx not in fn.data_dtypes:
        allowed = ", ".join(fn.data_dtypes)
        return f"{call.show()} takes {call.x} in {allowed}, not {dx}" + dict(fn.dtype_notes).get(
            dx, ""
        )
    if call.prologue and dx not in FLOATS:
        return (
            f"{call.show()}: softmax of {call.x} {dx}: torch.softmax takes float16, bfloat16 or "
            "float32 only"
        )
    return ""


def _output_dtypes(call: expr.IndexCall, dx: str) -> tuple[str, ...]:
    """The dtypes an output of `call` may have for x of dtype dx."""
    if gives_index(call):
        return INDEX_DTYPES
    if call.func == "one_hot":
        return ONE_HOT_OUT_DTYPES
    if call.func == "cumsum" and dx not in FLOATS:
        return ("int64",)  # torch.cumsum of an integer tensor is int64
    return (dx,)


# ---------------------------------------------------------------------------------------------
# the attrs' test values and the shape rule
# ---------------------------------------------------------------------------------------------

# The value the tests pass for a required attr an index call reads, by the argument it fills
_ATTR_SAMPLES: dict[str, int | bool | float | list[int]] = {
    "dim": -1,
    "dims": -1,
    "k": 3,
    "shifts": 3,
    "num_classes": 7,
    "kernel_size": [2, 2],
    "stride": [2, 2],
    "padding": [0, 0],
    "dilation": [1, 1],
    "bins": 10,
    "min": -2.0,  # histc's range: some of the normal test data outside it
    "max": 2.0,
    "alpha": -2,  # not 1: the scaling is tested; a power of two: exact products
}


def attr_sample(op: Op, attr: str) -> int | bool | float | list[int] | None:
    """The value the tests pass for required attr `attr` when the op's index call reads it
    (None: the call does not)."""
    call = op.index_call
    if call is None:
        return None
    for name, value in call.args:
        if value == attr and name not in STRING_CHOICES:
            if name in ("dim", "dims") and call.func in ("index_select", *_ROW_INDEXED):
                return 0  # an embedding's rows
            sample = _ATTR_SAMPLES.get(name, False)
            a = next(a for a in op.attrs if a.name == attr)
            if call.func == "roll" and a.type == "list_int":
                return _roll_list_sample(op, call, name)
            if a.type == "float":
                return float(sample) if isinstance(sample, (int, float)) else 0.0
            if a.type == "list_int" and isinstance(sample, int):
                return [sample, sample]
            if a.type == "int" and isinstance(sample, list):
                return sample[0]  # pooling's kernel_size=2 for both sides, as torch reads an int
            return sample
    return None


def optional_attr_sample(op: Op, attr: str) -> int | None:
    """The value the tests pass for an optional attr instead of its default, or None: nll_loss's
    ignore_index attr is 0, a class the drawn targets hit, so that the tests ignore some rows
    (and, when drawn, the one row of a [C] x: 'mean' NaN), as torch does for any ignore_index."""
    call = op.index_call
    if call is None or call.func != "nll_loss" or call.arg("ignore_index") != attr:
        return None
    return 0


def optional_attr_why(op: Op, attr: str) -> str:
    """Why the tests pass optional_attr_sample's value ("": they pass the default)."""
    if optional_attr_sample(op, attr) is None:
        return ""
    return "not its default: a class the drawn targets hit, so the tests ignore some rows"


def _roll_list_sample(op: Op, call: expr.IndexCall, name: str) -> list[int]:
    """roll's list_int shifts or dims in the tests: two pairs over the first and last dims when
    both are lists (a multi-dim roll, a negative shift and dim), else a list of one."""
    types = {a.name: a.type for a in op.attrs}
    both = all(
        isinstance(v, str) and types.get(v) == "list_int"
        for v in (call.arg("shifts"), call.arg("dims"))
    )
    if name == "shifts":
        return [3, -2] if both else [3]
    return [0, -1] if both else [-1]


def arg_values(op: Op, call: expr.IndexCall) -> dict[str, int | bool | tuple[int, ...]]:
    """The call's arguments as the tests pass them: literals, and each attr's test value."""
    attrs = {a.name: a for a in op.attrs}
    values: dict[str, int | bool | tuple[int, ...]] = {}
    for name, value in call.args:
        if name in STRING_CHOICES or name in NUMBER_PARAMS:
            continue  # no shape depends on them
        if isinstance(value, str):
            a = attrs[value]
            given = attr_sample(op, value) if a.required else a.default
            if isinstance(given, float):
                continue  # histc's range: no shape depends on it
            if isinstance(given, list):
                values[name] = tuple(int(v) for v in given)
            elif isinstance(given, (bool, int)):
                values[name] = given
        elif not isinstance(value, float):
            values[name] = value
    return values


def _int(values: dict[str, int | bool | tuple[int, ...]], name: str, default: int = 0) -> int:
    """An int argument's test value (a pair's first)."""
    value = values.get(name, default)
    return int(value[0]) if isinstance(value, tuple) else int(value)


def _pair(value: int | bool | tuple[int, ...] | None, default: tuple[int, int]) -> tuple[int, int]:
    if value is None:
        return default
    if isinstance(value, tuple):
        return (value[0], value[1]) if len(value) == 2 else (value[0], value[0])
    return (int(value), int(value))


def pool_window(values: dict[str, int | bool | tuple[int, ...]]) -> tuple[int, ...]:
    """kH, kW, sH, sW, pH, pW (stride defaults to the kernel, as torch's)."""
    kernel = _pair(values.get("kernel_size"), (1, 1))
    stride = values.get("stride")
    strides = kernel if stride is None or stride == () else _pair(stride, kernel)
    return (*kernel, *strides, *_pair(values.get("padding"), (0, 0)))


def output_shape(
    call: expr.IndexCall,
    shapes: dict[str, tuple[int, ...]],
    values: dict[str, int | bool | tuple[int, ...]],
) -> tuple[int, ...] | str:
    """torch's output shape of the call for these input shapes and argument values, or why
    torch refuses them."""
    x = shapes[call.x]
    func = call.func
    if func == "nll_loss":
        return nll_loss_shape(call, shapes, "mean")
    if func == "one_hot":
        return (*x, _int(values, "num_classes"))
    if func in ("avg_pool2d", "max_pool2d"):
        return _pool_shape(call, x, values)
    if func == "roll":
        return _roll_shape(call, x, values)
    if func == "cross":
        return _cross_shape(call, x, shapes[call.src], values)
    if func == "histc":
        bins = _int(values, "bins", 100)
        return (bins,) if bins > 0 else "torch.histc: bins must be > 0"
    dim_name = FUNCTIONS[func].dim
    dim = _int(values, dim_name, FUNCTIONS[func].dim_default)
    rank = max(len(x), 1)
    if not -rank <= dim < rank:
        return f"{dim_name}={dim} is outside {call.x}'s {len(x)} dims"
    d = dim % rank
    if func in ("index_select", *_ROW_INDEXED, "gather", "scatter_add"):
        return _indexed_shape(call, shapes, d)
    if FUNCTIONS[func].shape_fn == "ShapeArgReduce":  # argmax, argmin, max, min
        keep = bool(values.get("keepdim", False))
        return tuple(1 if i == d else n for i, n in enumerate(x) if keep or i != d)
    if func == "topk":
        k = _int(values, "k")
        if not 0 <= k <= (x[d] if x else 1):
            return f"k={k} is outside [0, {x[d] if x else 1}], {call.x}'s size along dim {d}"
        return tuple(k if i == d else n for i, n in enumerate(x))
    return x  # sort, cumsum


def nll_loss_shape(
    call: expr.IndexCall, shapes: dict[str, tuple[int, ...]], reduction: str
) -> tuple[int, ...] | str:
    """torch's nll_loss: x [N, C] with target [N], or x [C] with target [] or [1]; weight [C];
    'none' gives [N] ([] for x [C]), 'mean' and 'sum' []."""
    x, target, weight = shapes[call.x], shapes[call.index], shapes[call.src]
    if len(x) not in (1, 2):
        return (
            f"opgen's NllLoss kernel takes {call.x} [N, C] or [C], not {list(x)} (torch's "
            "K-dimensional nll_loss is not supported)"
        )
    if len(x) == 2 and target != x[:1]:
        return f"the target {call.index} of {call.x} {list(x)} is [{x[0]}], not {list(target)}"
    if len(x) == 1 and target not in ((), (1,)):
        return f"the target {call.index} of {call.x} {list(x)} is [] or [1], not {list(target)}"
    if weight != x[-1:]:
        return f"the weight {call.src} of {call.x} {list(x)} is [{x[-1]}], not {list(weight)}"
    if reduction not in STRING_PARAMS["reduction"]:
        return f"reduction={reduction!r} is not one of torch's: 'none', 'mean', 'sum'"
    return x[:1] if reduction == "none" and len(x) == 2 else ()


def _roll_shape(
    call: expr.IndexCall, x: tuple[int, ...], values: dict[str, int | bool | tuple[int, ...]]
) -> tuple[int, ...] | str:
    """torch.roll's checks: as many shifts as dims (no dims: one shift, x flattened), each dim
    within x's."""
    shifts, dims = (_ints(values.get(name, ())) for name in ("shifts", "dims"))
    if not shifts:
        return "roll needs a shift (torch: `shifts` required)"
    if len(shifts) != len(dims) and not (not dims and len(shifts) == 1):
        return f"shifts and dims must align (torch): {len(shifts)} shifts, {len(dims)} dims"
    rank = max(len(x), 1)
    for dim in dims:
        if not -rank <= dim < rank:
            return f"dims={dim} is outside {call.x}'s {len(x)} dims"
    return x


def cross_dim(x: tuple[int, ...], values: dict[str, int | bool | tuple[int, ...]]) -> int | str:
    """torch.cross's dim in [0, rank): the given one, or for the unset value (not given, or
    CANN's -65530: torch's None) the first of x's dims of size 3; or why torch refuses it."""
    unset = FUNCTIONS["cross"].unset_dim
    dim = _int(values, "dim", FUNCTIONS["cross"].dim_default)
    if dim == unset:
        first = next((i for i, n in enumerate(x) if n == 3), None)
        return (
            "no dimension of size 3 in x1 (torch.cross with dim=None)" if first is None else first
        )
    if not x or not -len(x) <= dim < len(x):
        return f"dim={dim} is outside the {len(x)} dims (torch)"
    return dim % len(x)


def _cross_shape(
    call: expr.IndexCall,
    x: tuple[int, ...],
    other: tuple[int, ...],
    values: dict[str, int | bool | tuple[int, ...]],
) -> tuple[int, ...] | str:
    """torch.cross's checks: one rank, size 3 along dim in both, the other dims broadcast; y is
    the broadcast shape."""
    if len(x) != len(other) or not x:
        return (
            f"{call.x} and {call.src} have one rank, at least 1 (torch), not {len(x)} and "
            f"{len(other)}"
        )
    dim = cross_dim(x, values)
    if isinstance(dim, str):
        return dim
    if x[dim] != 3 or other[dim] != 3:
        return (
            f"{call.x} and {call.src} have size 3 along dim {dim} (torch), not {x[dim]} and "
            f"{other[dim]}"
        )
    if any(m != n and 1 not in (m, n) for m, n in zip(x, other, strict=True)):
        return f"{call.x} {list(x)} and {call.src} {list(other)} do not broadcast (torch)"
    return tuple(max(m, n) if 0 not in (m, n) else 0 for m, n in zip(x, other, strict=True))


def _ints(value: int | bool | tuple[int, ...]) -> tuple[int, ...]:
    return tuple(value) if isinstance(value, tuple) else (int(value),)


def _indexed_shape(
    call: expr.IndexCall, shapes: dict[str, tuple[int, ...]], d: int
) -> tuple[int, ...] | str:
    x, index = shapes[call.x], shapes[call.index]
    if call.func == "index_select":
        if len(index) != 1:
            return f"the index {call.index} is 1-D, not {list(index)}"
        return tuple(index[0] if i == d else n for i, n in enumerate(x))
    if call.func in _ROW_INDEXED:
        src = shapes[call.src]
        want = tuple(index[0] if i == d else n for i, n in enumerate(x)) if len(index) == 1 else ()
        if len(index) != 1 or src != want:
            return f"{call.func} takes a 1-D index and src {list(want) or '...'}, not {list(src)}"
        return x
    if len(index) != len(x):
        return f"the index {call.index} {list(index)} has {call.x}'s rank ({len(x)})"
    src = shapes[call.src] if call.src else index
    if len(src) != len(x) or any(n > m for n, m in zip(index, src, strict=True)):
        return f"the index {call.index} {list(index)} is no larger than {call.src} {list(src)}"
    if any(n != x[i] for i, n in enumerate(index) if i != d):
        return (
            f"opgen's {FUNCTIONS[call.func].kind} kernel takes an index {call.index} of {call.x}'s "
            f"sizes off dim ({list(x)}), not {list(index)} (torch also takes a smaller one)"
        )
    return x if call.func == "scatter_add" else index


def _pool_shape(
    call: expr.IndexCall, x: tuple[int, ...], values: dict[str, int | bool | tuple[int, ...]]
) -> tuple[int, ...] | str:
    if call.channels_last:  # torch pools x.permute(0, 3, 1, 2), then permutes the result back
        if len(x) != len(NHWC_TO_NCHW):
            return f"{call.show()} takes {call.x} [N, H, W, C] (torch's permute), not {list(x)}"
        nchw = _pool_shape(replace(call, channels_last=False), (x[0], x[3], x[1], x[2]), values)
        return nchw if isinstance(nchw, str) else tuple(nchw[i] for i in NCHW_TO_NHWC)
    if len(x) not in (3, 4):
        return f"{call.func} takes {call.x} [N, C, H, W] or [C, H, W], not {list(x)}"
    if _pair(values.get("dilation"), (1, 1)) != (1, 1):
        return f"{call.func}: dilation other than 1 is not supported"
    kh, kw, sh, sw, ph, pw = pool_window(values)
    if min(kh, kw, sh, sw) <= 0 or ph > kh // 2 or pw > kw // 2 or min(ph, pw) < 0:
        return "the kernel and stride are positive, the padding at most half the kernel (torch)"
    ceil = bool(values.get("ceil_mode", False))
    sizes = []
    for n, k, s, p in ((x[-2], kh, sh, ph), (x[-1], kw, sw, pw)):
        span = n + 2 * p - k
        if span < 0:
            return f"{call.func}: a {k}-wide window is larger than {call.x}'s padded {n + 2 * p}"
        out = (math.ceil(span / s) if ceil else span // s) + 1
        if ceil and (out - 1) * s >= n + p:  # torch: the last window starts inside the input
            out -= 1
        sizes.append(out)
    return (*x[:-2], *sizes)


def index_range(op: Op) -> int:
    """The index values the tests draw lie in [0, this): the size of the indexed dim (the
    smallest over the test cases), one_hot's num_classes; 0 when the op takes no index."""
    call = op.index_call
    if call is None or not call.index and call.func != "one_hot":
        return 0
    values = arg_values(op, call)
    if call.func == "one_hot":
        return _int(values, "num_classes")
    if call.func == "nll_loss":  # the classes: x's last dim
        values = {"dim": -1}
    sizes = []
    for case in op.test_shapes:
        x = case[call.x]
        dim = _int(values, "dim", 0)
        sizes.append(x[dim % max(len(x), 1)] if x else 1)
    return min(sizes) if sizes else 1


def test_shapes_problems(op: Op) -> list[Problem]:
    """Each test_shapes case gives every input and has torch's output shape."""
    call = op.index_call
    if call is None:
        return []
    problems = []
    values = arg_values(op, call)
    for k, case in enumerate(op.test_shapes):
        path = key_path(key_path(key_path(op.json_path, "opgen"), "test_shapes"), k)
        missing = [t for t in (call.x, call.index, call.src) if t and t not in case]
        if missing:
            problems.append(Problem(path, f"give the shapes of {', '.join(missing)}"))
            continue
        shape = output_shape(call, case, values)
        given = ", ".join(f"{n} {list(s)}" for n, s in case.items())
        if not isinstance(shape, str):
            shape = _kernel_limit(call, case, values) or shape
        if isinstance(shape, str):
            problems.append(Problem(path, f"{call.show()} of {given}: {shape}"))
        elif elements(shape) > MAX_TEST_ELEMENTS:
            problems.append(
                Problem(
                    path,
                    f"{call.show()} of {given} is {list(shape)}, {elements(shape)} elements; a "
                    f"test tensor holds at most {limit_text(MAX_TEST_ELEMENTS)}",
                )
            )
    if call.index and index_range(op) <= 0:
        problems.append(
            Problem(
                key_path(key_path(op.json_path, "opgen"), "test_shapes"),
                f"{call.show()}: a test case indexes a dim of size 0; no index can be drawn",
            )
        )
    return problems


def _kernel_limit(
    call: expr.IndexCall,
    shapes: dict[str, tuple[int, ...]],
    values: dict[str, int | bool | tuple[int, ...]],
) -> str | None:
    """Why opgen's kernel cannot run a case torch runs (topk and sort along another dim than the
    last), or None."""
    fn = FUNCTIONS[call.func]
    x = shapes[call.x]
    dim = _int(values, fn.dim, fn.dim_default)
    if not fn.last_dim_only or len(x) <= 1 or dim % len(x) == len(x) - 1:
        return None
    return (
        f"opgen's {fn.kind} kernel sorts the last dim, not dim {dim} (move that dim last, e.g. "
        "with a transpose, before the op)"
    )


@dataclass(frozen=True)
class _Default:
    """A default test case: x's shape, the index's (and src's) as functions of it."""

    x: tuple[int, ...]
    index: tuple[int, ...] = ()


def default_test_shapes(op: Op) -> tuple[dict[str, tuple[int, ...]], ...]:
    """Cases for an index op without test_shapes: tails, one element, several cores; the index
    (and src) shaped as the kind takes them."""
    call = op.index_call
    assert call is not None
    func = call.func
    values = arg_values(op, call)
    if func == "cross":
        return _cross_test_shapes(call, values)
    if call.channels_last:  # NHWC: C = 1, and C past a 64-lane block with a tail
        xs: list[tuple[int, ...]] = [(2, 17, 19, 3), (1, 8, 8, 1), (2, 9, 10, 70)]
    elif func in ("avg_pool2d", "max_pool2d"):
        xs = [(2, 3, 17, 19), (1, 1, 8, 8), (3, 30, 31)]
    else:
        xs = [(37, 70), (1, 1), (3, 50, 9)]
    if func == "nll_loss":  # a batch over several cores, one row, a [C] x of 0-d target; 9
        # classes at least: the targets are drawn in [0, the fewest classes)
        xs = [(37, 70), (1, 9), (300, 9), (11,)]
    cases = []
    for x in xs:
        case = {call.x: x}
        if func == "nll_loss":
            cases.append({call.x: x, call.index: x[:-1], call.src: x[-1:]})
            continue
        if call.index:
            dim = _int(values, "dim", 0) % len(x)
            if func in ("index_select", *_ROW_INDEXED):
                case[call.index] = (2 * x[dim] + 3,)  # more than the dim: duplicates
                if call.src:
                    case[call.src] = tuple(
                        case[call.index][0] if i == dim else n for i, n in enumerate(x)
                    )
            else:  # gather, scatter_add: the index of x's sizes off dim (the kernels' rule)
                case[call.index] = tuple(2 * n + 3 if i == dim else n for i, n in enumerate(x))
                if call.src:
                    case[call.src] = case[call.index]
        cases.append(case)
    if func == "topk":  # k within every case's dim
        dim = _int(values, "dim", -1)
        k = _int(values, "k")
        cases = [c for c in cases if c[call.x][dim % len(c[call.x])] >= k] or cases
    return tuple(cases)


def _cross_test_shapes(
    call: expr.IndexCall, values: dict[str, int | bool | tuple[int, ...]]
) -> tuple[dict[str, tuple[int, ...]], ...]:
    """cross's cases: size 3 along its dim (the unset dim: dim 1, no 3 before it), other sizes
    with tails, over several cores, one element per run (x2 broadcast on the last dim), x2 and
    x1 broadcast in turn (the CANN sample's x2 [1, 3, 1, ...])."""
    dim = _int(values, "dim", FUNCTIONS["cross"].dim_default)
    if dim == FUNCTIONS["cross"].unset_dim:
        rank, at = 3, 1
    else:  # rank 3, or the dim's when it reaches further
        rank = max(3, dim + 1 if dim >= 0 else -dim)
        at = dim % rank

    def shape(sizes: tuple[int, ...]) -> tuple[int, ...]:
        padded = (sizes + (1,) * rank)[:rank]
        return tuple(3 if i == at else n for i, n in enumerate(padded))

    pairs = [
        ((4, 5, 37), (1, 1, 1)),  # x2 one vector, broadcast
        ((2, 7, 600), (2, 7, 600)),  # runs over cores, no broadcast
        ((5, 4, 9), (5, 1, 1)),  # x2 broadcast on the last dims
        ((1, 6, 33), (6, 6, 33)),  # x1 broadcast
    ]
    return tuple({call.x: shape(a), call.src: shape(b)} for a, b in pairs)
