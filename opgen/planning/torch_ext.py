"""The PyTorch package of a generated project, as template data (`op.torch`).

`plan(op, options)` turns one op of the model into what the `templates/torch_ext` templates
need to print it: the C++ types of the schema arguments, the CPU kernel's twin call, the NPU
adapter's `EXEC_NPU_CMD_EXT` arguments in aclnn order, the Python parameters, how the fake
kernel tells the output shapes, the goldens, the backward and the torchair converter. These are
decisions (names, types, kinds, flags); the templates and their macros (`macros/py.jinja`,
`macros/cpp.jinja`) print the code, laid out with planning.layout's filters.

Naming rules that keep generated code free of collisions (prototype names are identifiers that
never end in "_" and never hold "__", see `names.NAME_RE`):
- generated locals end in "_" (`inputs_`, `out_`), so they never meet a prototype name;
- the NPU adapter's `EXEC_NPU_CMD_EXT` arguments are `<aclnn name>_` (aclnn names hold no "_");
- a C++ parameter whose name would hide a namespace the body uses (`at`, `std`, ...) becomes
  `<name>_arg_`; Python parameters keep the schema names (callers may pass them by keyword).
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from opgen.compiler.lower import fresh
from opgen.frontend import expr, functions
from opgen.frontend.broadcast import broadcast_inputs, broadcasts, updated_inputs
from opgen.frontend.catalog import DTYPES
from opgen.frontend.matmuls import epilogue_inputs
from opgen.frontend.model import Aclnn, Attr, Op, TensorParam
from opgen.frontend.options import Options
from opgen.literals import (
    cpp_double,
    cpp_literal,
    cpp_string,
    py_literal,
    py_string,
    py_value,
    torch_literal,
)
from opgen.planning.layout import (
    LINE,
    wrap,
)

# Identifiers a C++ parameter must not hide: namespaces and free functions the generated bodies
# and the EXEC_NPU_CMD_EXT macro use unqualified or as a qualifier.
CPP_RESERVED = frozenset(
    "at c10 std torch c10_npu at_npu op_plugin ge gert fe ops optiling AscendC opgen_twin "
    "opgen_torch opgen_npu device_of".split()
)
# Module-level names of the generated Python modules that an op function must not replace.
PY_MODULE_NAMES = frozenset("torch Tensor Sequence annotations".split())
# Attributes of the generated package that an op function must not replace there.
PACKAGE_NAMES = frozenset("ops golden graph overrides load_npu npu_loaded".split())


def cpp_param_name(name: str) -> str:
    return f"{name}_arg_" if name in CPP_RESERVED else name


def py_function_name(snake: str) -> str:
    return f"{snake}_op" if snake in PY_MODULE_NAMES else snake


def dtype_label(dtypes: Sequence[str]) -> str:
    return ", ".join(dtypes)


# ---------------------------------------------------------------------------------------------
# schema arguments
# ---------------------------------------------------------------------------------------------


def schema_defaults(op: Op) -> dict[str, bool]:
    """Per schema argument, whether the schema kept a default (model.build_torch_schema's rule:
    a default survives only when every later argument has one too)."""
    params: list[tuple[str, bool]] = []
    for t in op.inputs:
        params.append((t.name, t.param_type == "optional" and not t.is_ref))
    for a in op.attrs:
        params.append((a.name, not a.required and torch_literal(a.type, a.default) is not None))
    kept: dict[str, bool] = {}
    trailing = True
    for name, has_default in reversed(params):
        trailing = trailing and has_default
        kept[name] = trailing
    return kept


@dataclass(frozen=True)
class Param:
    """A schema argument: an input (kind "tensor", "ref", "list" or "optional") or an attr
    (kind "attr"), as the C++ adapters and the Python functions declare it."""

    name: str
    kind: str
    is_tensor: bool
    cpp_name: str  # the schema name, or <name>_arg_ when it would hide a namespace
    cpp_literal: str  # the schema name as a C++ string
    cpp_type: str
    py_annotation: str
    py_default: str | None  # None: the schema keeps no default
    dtypes: list[str] = field(default_factory=list)  # an input's dtypes (its Args: entry)
    # an optional attr's prototype default as Python (its Args: entry), kept or not by the schema
    default: str | None = None
    input_index: int | None = None  # an input's position among the op's inputs
    attr_index: int | None = None  # an attr's position among the op's attrs
    attr_type: str | None = None  # an attr's prototype type
    ge_attr: str = ""  # an attr's torchair builder: _ge.attr.<ge_attr>(value)
    twin_value: str = ""  # an attr's value as the CPU twin takes it


def tensor_param(t: TensorParam, index: int, kept_default: bool) -> Param:
    if t.is_ref:
        kind, cpp_type, annotation = "ref", "at::Tensor&", "Tensor"
    elif t.param_type == "dynamic":
        kind, cpp_type, annotation = "list", "at::TensorList", "Sequence[Tensor]"
    elif t.param_type == "optional":
        kind, cpp_type, annotation = "optional", "const c10::optional<at::Tensor>&", "Tensor | None"
    else:
        kind, cpp_type, annotation = "tensor", "const at::Tensor&", "Tensor"
    return Param(
        name=t.name,
        kind=kind,
        is_tensor=True,
        input_index=index,
        cpp_name=cpp_param_name(t.name),
        cpp_literal=cpp_string(t.name),
        cpp_type=cpp_type,
        py_annotation=annotation,
        py_default="None" if kind == "optional" and kept_default else None,
        dtypes=list(dict.fromkeys(t.dtypes)),
    )


def attr_param(a: Attr, index: int, kept_default: bool) -> Param:
    default = None if a.required else py_literal(a.type, a.default)
    return Param(
        name=a.name,
        kind="attr",
        is_tensor=False,
        attr_index=index,
        attr_type=a.type,
        cpp_name=cpp_param_name(a.name),
        cpp_literal=cpp_string(a.name),
        cpp_type=a.info.cpp_param,
        py_annotation=a.info.py_annotation,
        py_default=default if kept_default else None,
        default=default,
        ge_attr=a.info.ge_builder,
        twin_value=a.info.twin_value.format(cpp_param_name(a.name)),
    )


# ---------------------------------------------------------------------------------------------
# outputs
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Output:
    """A prototype output, with where it sits among the op's returns."""

    name: str
    index: int  # among the prototype's outputs
    is_ref: bool
    is_list: bool
    return_index: int | None  # among the op's returns; None: updated in place
    dtypes: list[str]
    # An optional output (OpDef OPTIONAL, a nullable aclnn argument) is always allocated,
    # passed and returned: a PyTorch op cannot leave out one of its returns.
    optional: bool


def output_info(op: Op) -> list[Output]:
    """Every prototype output, with where it sits among the op's returns (None: in place)."""
    outs = []
    position = 0
    for i, t in enumerate(op.outputs):
        info = Output(
            name=t.name,
            index=i,
            is_ref=t.is_ref,
            is_list=t.param_type == "dynamic",
            return_index=None if t.is_ref else position,
            dtypes=list(dict.fromkeys(t.dtypes)),
            optional=t.param_type == "optional",
        )
        if not t.is_ref:
            position += 1
        outs.append(info)
    return outs


# ---------------------------------------------------------------------------------------------
# dtype combinations and kernel variants
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Macro:
    """A #define of a kernel variant's source: the dtype the kernel compiles for."""

    name: str
    value: str


@dataclass(frozen=True)
class Variant:
    """The CPU twin's compiled kernel for one dtype combination (csrc/<op>_<dtypes>.cpp)."""

    comment: list[str]  # the lines of the comment on top of its source
    index: int  # of the dtype combination
    file: str
    symbol: str  # its entry
    namespace: str  # the namespace its copy of the kernel compiles in
    macros: list[Macro]
    ge_dtypes: list[str]  # the combination's ge:: dtypes (the twin's variant table)
    at_dtypes: list[str]  # ... its at:: dtypes (the NPU adapter's combination table)
    py_inputs: str  # the inputs' dtypes as a Python tuple of torch dtypes (ops.py)
    py_outputs: str  # the outputs' ones
    inputs: list[str]  # the inputs' dtypes (the Dtypes: line of ops.py's docstring)
    outputs: list[str]  # the outputs' ones (none: the op updates its inputs in place)


def variants(op: Op) -> list[Variant]:
    """One compiled kernel per dtype combination (the twin's "Dtype variants" pattern)."""
    out = []
    for k, combo in enumerate(op.dtype_combinations):
        suffix = combo[0] if len(set(combo)) == 1 else "_".join(combo)
        # an op without outputs: "float16, float32 -> in place"
        result_label = dtype_label(combo[len(op.inputs) :]) or "in place"
        macros = []
        for t, dtype in zip(op.tensors, combo, strict=True):
            macros.append(Macro(t.dtype_macro, DTYPES[dtype].c_type))
            macros.append(Macro("ORIG_" + t.dtype_macro, DTYPES[dtype].ge))
        symbol = f"opgen_kernel_{op.snake_name}_{suffix}"
        out.append(
            Variant(
                comment=wrap(
                    f"The kernel of {op.op_type} (op_kernel/{op.snake_name}.cpp) for the "
                    f"CPU twin, with one dtype combination: "
                    f"{dtype_label(combo[: len(op.inputs)])} -> "
                    f"{result_label}. Its entry {symbol} is what "
                    "csrc/ops.cpp runs for inputs of these dtypes.",
                    LINE - 3,
                ),
                index=k,
                file=f"{op.snake_name}_{suffix}.cpp",
                symbol=symbol,
                namespace=f"opgen_variant_{op.snake_name}_{suffix}",
                macros=macros,
                ge_dtypes=[DTYPES[d].ge for d in combo],
                at_dtypes=[DTYPES[d].at for d in combo],
                py_inputs=py_dtype_tuple(combo[: len(op.inputs)]),
                py_outputs=py_dtype_tuple(combo[len(op.inputs) :]),
                inputs=list(combo[: len(op.inputs)]),
                outputs=list(combo[len(op.inputs) :]),
            )
        )
    return out


def py_dtype_tuple(dtypes: Sequence[str]) -> str:
    items = [f"torch.{d}" for d in dtypes]
    return "(" + ", ".join(items) + ("," if len(items) == 1 else "") + ")"


# ---------------------------------------------------------------------------------------------
# the CPU kernel (opgen's CPU twin)
# ---------------------------------------------------------------------------------------------


def broadcast_params(op: Op, params: list[Param]) -> list[Param]:
    """The inputs an op that broadcasts (opgen/frontend/broadcast.py) broadcasts: its required
    ones."""
    return [p for p in params if p.kind in ("tensor", "ref")] if broadcasts(op) else []


@dataclass(frozen=True)
class BroadcastCheck:
    """An adapter's call of <helpers>::BroadcastShape (macros/cpp.jinja `checks`): the broadcast
    shape of the inputs, refused when they do not broadcast or would grow an input the op
    updates in place."""

    args: list[str]  # the op type, the inputs' names and tensors, the indices of updated ones
    # BroadcastShape; ExpandShape for expand(x, size) (args: the op type, x's name, x, the size)
    helper: str = "BroadcastShape"


@dataclass(frozen=True)
class FixedAttrCheck:
    """An adapter's call of <helpers>::FixedAttr<cpp_type> (macros/cpp.jinja `checks`): an attr
    no compute expression reads keeps its default (Op.fixed_attrs), as the kernel computes."""

    cpp_type: str  # FixedAttr's template argument: the parameter's type, or a list's item's
    args: list[str]  # the op type, the attr's name, its parameter and its default
    helper: str = "FixedAttr"  # FixedListAttr for a list attr


@dataclass(frozen=True)
class TextAttrCheck:
    """An adapter's call of <helpers>::AttrOneOf (macros/cpp.jinja `checks`): a string attr a
    compute expression compares holds one of its declared values ("opgen": {"values"})."""

    args: list[str]  # the op type, the attr's name, its parameter and its values


def cpp_text_attr_checks(op: Op) -> list[TextAttrCheck]:
    """The adapters' checks of the string attrs with declared values."""
    return [
        TextAttrCheck(
            [
                cpp_string(op.op_type),
                cpp_string(a.name),
                cpp_param_name(a.name),
                "{" + ", ".join(cpp_string(v) for v in a.values) + "}",
            ]
        )
        for a in op.checked_attrs
    ]


def cpp_shape_checks(op: Op, params: list[Param]) -> list[BroadcastCheck]:
    """The check of an op that broadcasts (an op with one required input has nothing to check;
    an op that does not broadcast, none)."""
    bparams = broadcast_params(op, params)
    if not bparams:
        return []
    node = op.expand
    if node is not None:  # the output's shape from the size: x.expand(size)'s
        size = next(p.cpp_name for p in params if p.name == node.attr)
        x = [cpp_string(op.op_type), cpp_string(node.x), bparams[0].cpp_name]
        return [BroadcastCheck([*x, size], "ExpandShape")]
    args = _shape_check_args(op, bparams)
    updated = {t.name for t in updated_inputs(op)}
    if updated:  # the indices of the inputs updated in place, which cannot grow
        args.append(
            "{" + ", ".join(str(i) for i, p in enumerate(bparams) if p.name in updated) + "}"
        )
    return [BroadcastCheck(args)]


def cpp_fixed_attr_checks(op: Op) -> list[FixedAttrCheck]:
    """The adapters' checks that each attr no compute expression reads keeps its default."""

    def value(a: Attr) -> str:  # the schema's default as the adapter receives it (doubles)
        if a.type == "float":
            return cpp_double(a.default)
        if a.type == "list_float":
            return "{" + ", ".join(cpp_double(v) for v in a.default) + "}"
        return cpp_literal(a.type, a.default)

    def check(a: Attr) -> FixedAttrCheck:
        args = [cpp_string(op.op_type), cpp_string(a.name), cpp_param_name(a.name), value(a)]
        if a.type in _LIST_ITEM_TYPES:
            return FixedAttrCheck(_LIST_ITEM_TYPES[a.type], args, "FixedListAttr")
        return FixedAttrCheck(a.info.cpp_param, args)

    return [check(a) for a in op.fixed_attrs]


# FixedListAttr's item type for each list attr type
_LIST_ITEM_TYPES = {
    "list_int": "int64_t",
    "list_float": "double",
    "list_bool": "bool",
    "list_list_int": "std::vector<int64_t>",
}


def matmul_check_args(op: Op, params: list[Param], python: bool) -> list[str]:
    """The arguments of opgen_torch::MatmulShapes (C++) or _support._matmul_shapes (Python,
    `python`) for a matmul op: the op type, a's and b's names and tensors, their transposes (a
    bool attr's parameter or a literal) and the epilogue's inputs; [] for another op."""
    mm = op.matmul
    if mm is None:
        return []
    by_name = {p.name: p for p in params}

    def value(name: str) -> str:
        return name if python else by_name[name].cpp_name

    def flag(transpose: bool | str) -> str:
        if isinstance(transpose, str):
            return value(transpose)
        return str(transpose) if python else str(transpose).lower()

    quote = py_string if python else cpp_string
    args = [quote(op.op_type), quote(mm.a), value(mm.a), quote(mm.b), value(mm.b)]
    args += [flag(mm.transpose_a), flag(mm.transpose_b)]
    epilogue = [t.name for t in epilogue_inputs(op)]
    if python and epilogue:
        args.append("{" + ", ".join(quote(n) + ": " + n for n in epilogue) + "}")
    elif epilogue:
        args.append("{" + ", ".join(quote(n) for n in epilogue) + "}")
        args.append("{" + ", ".join(value(n) for n in epilogue) + "}")
    return args


def _shape_check_args(op: Op, checked: list[Param]) -> list[str]:
    """The arguments opgen's shape checks (BroadcastShape, RowShapes) start with: the op type,
    the checked inputs' names and their tensors."""
    names = "{" + ", ".join(cpp_string(p.name) for p in checked) + "}"
    tensors = "{" + ", ".join(p.cpp_name for p in checked) + "}"
    return [cpp_string(op.op_type), names, tensors]


def row_shapes_args(op: Op, params: list[Param]) -> list[str]:
    """The arguments of the CPU adapter's check of a row op's input shapes
    (opgen_torch::RowShapes: opgen/frontend/rows.py's rule, refused with its message before the
    twin runs op_host and the kernel); none for another op."""
    if not op.is_row:
        return []
    args = _shape_check_args(op, [p for p in params if p.kind in ("tensor", "ref")])
    if not op.dims_given:
        return args  # RowShapes' default: the last axis
    axes = op.row_axes
    if axes.text:  # no axis for some values of a string attr (frontend/choices.py)
        text = next(p for p in params if p.name == axes.text)
        values = "{" + ", ".join(cpp_string(v) for v in axes.none) + "}"
        dims = "{" + ", ".join(str(d) for d in axes.dims) + "}"
        return args + [dims, "opgen_torch::OneOf(" + text.cpp_name + ", " + values + ")"]
    if not axes.attr:
        return args + ["{" + ", ".join(str(d) for d in axes.dims) + "}"]
    attr = next(p for p in params if p.name == axes.attr)
    kind = next(a.type for a in op.attrs if a.name == axes.attr)
    return args + [attr.cpp_name if kind == "list_int" else "{" + attr.cpp_name + "}"]


def index_axes_args(op: Op, params: list[Param]) -> list[str]:
    """The arguments of the CPU adapter's check of the axes index() names (opgen_torch::IndexAxes);
    none when the compute does not use index()."""
    by_name = {p.name: p for p in params}

    def spell(dim: int | str) -> str:
        return str(dim) if isinstance(dim, int) else by_name[dim].cpp_name

    dims = _index_dims(op, spell, "{{{}}}")
    if not dims:
        return []
    tensors = [p for p in params if p.kind in ("tensor", "ref")]
    return [cpp_string(op.op_type), "{" + ", ".join(p.cpp_name for p in tensors) + "}", dims]


@dataclass(frozen=True)
class CopyBack:
    """An input the op updates in place: the CPU kernel copies the twin's tensor `index` (of
    its outputs, or of its inputs for an op without outputs) into the argument `target`."""

    target: str
    index: int


@dataclass(frozen=True)
class CpuKernel:
    """The op's CPU kernel (csrc/ops.cpp): the CPU twin runs op_host and the kernel."""

    function: str
    unsupported: list[str]  # why the twin cannot run the op (TORCH_CHECK's string pieces), or []
    op_type_literal: str
    attr_checks: list[FixedAttrCheck]
    text_checks: list[TextAttrCheck]
    shape_checks: list[BroadcastCheck]
    row_shapes_args: list[str]  # opgen_torch::RowShapes's, for a row op; []: no such check
    index_axes_args: list[str]  # opgen_torch::IndexAxes's, when index() is used; []: none
    host_inputs: list[Param]  # the inputs the twin takes (not a list one)
    attr_values: list[str]  # the attrs as the twin takes them
    in_place_only: bool  # no outputs: the twin hands back the inputs as the kernel left them
    updates: list[CopyBack]  # the inputs it updates in place, from the twin's tensors
    placeholder: CpuPlaceholder | None
    # An adopted op runs as its aclnn call does, the caller allocating the outputs: the CPU
    # kernel sizes them by the fake kernel on meta copies, as the NPU adapter does (the
    # project's InferShape, which may be missing or partial, has a test of its own).
    shapes_from_meta: bool = False
    # opgen_torch::MatmulShapes's, for a matmul op (its operands and epilogue inputs as the
    # kernel takes them); []: no such check
    matmul_args: list[str] = field(default_factory=list)


def cpu_context(op: Op, params: list[Param], outs: list[Output]) -> CpuKernel:
    by_name = {p.name: p for p in params}
    unsupported = ""
    if any(t.param_type == "dynamic" for t in op.tensors):
        unsupported = (
            f"{op.op_type} has a dynamic (list) input or output, which the CPU twin "
            "cannot run; use an NPU"
        )
    if op.in_place_only:
        # No outputs: the kernel writes the inputs; the twin hands back every input as the
        # kernel left it (none when they are empty), and those it updates go back into their
        # arguments.
        updates = [
            CopyBack(by_name[t.name].cpp_name, i) for i, t in enumerate(op.inputs) if t.is_ref
        ]
    else:
        updates = [CopyBack(by_name[o.name].cpp_name, o.index) for o in outs if o.is_ref]
    pieces = wrap(unsupported, LINE - 30)
    return CpuKernel(
        function=f"{op.snake_name}_cpu",
        unsupported=[
            cpp_string(piece + (" " if i < len(pieces) - 1 else ""))
            for i, piece in enumerate(pieces)
        ],
        op_type_literal=cpp_string(op.op_type),
        attr_checks=cpp_fixed_attr_checks(op),
        text_checks=cpp_text_attr_checks(op),
        shape_checks=cpp_shape_checks(op, params),
        row_shapes_args=row_shapes_args(op, params),
        index_axes_args=index_axes_args(op, params),
        host_inputs=[p for p in params if p.kind in ("tensor", "ref", "optional")],
        attr_values=[p.twin_value for p in params if p.kind == "attr"],
        in_place_only=op.in_place_only,
        updates=updates,
        placeholder=cpu_placeholder(op, params, outs),
    )


@dataclass(frozen=True)
class CpuPlaceholder:
    """The CPU kernel of an op the user computes, while its InferShape is not written."""

    header: str  # op_host/<op>_infer.h
    macro: str  # its "not written" macro
    returns: bool  # the op returns outputs (zeros of the fake kernel's)


def cpu_placeholder(op: Op, params: list[Param], outs: list[Output]) -> CpuPlaceholder | None:
    """For an op the user computes (Op.user_computed): while op_host/<op>_infer.h defines its
    "not written" macro, the CPU kernel runs nothing and returns zeros of the shapes and dtypes
    of the op's fake kernel (the golden on meta tensors), run on meta copies of the arguments
    (an input it updates in place is left as it is)."""
    if not op.user_computed:
        return None
    return CpuPlaceholder(
        header=op.snake_name + "_infer.h",
        macro=op.snake_name.upper() + "_INFER_SHAPE_NOT_WRITTEN",
        returns=any(not o.is_ref for o in outs),
    )


# ---------------------------------------------------------------------------------------------
# the NPU adapter (EXEC_NPU_CMD_EXT -> aclnn<Op>)
# ---------------------------------------------------------------------------------------------


def device_param(params: list[Param]) -> Param | None:
    """The tensor argument whose device the NPU adapter guards (a required one if any)."""
    for kinds in (("tensor", "ref"), ("list",), ("optional",)):
        for p in params:
            if p.kind in kinds:
                return p
    return None


@dataclass(frozen=True)
class NpuAdapter:
    """The op's NPU adapter (csrc_npu/<op>_npu.cpp): EXEC_NPU_CMD_EXT -> aclnn<Op>; when
    disabled, only why."""

    enabled: bool
    reason: str  # why it has none ("" when enabled)
    reason_lines: list[str] = field(default_factory=list)  # that, for a comment
    uses_float_array: bool = False
    function: str = ""
    aclnn: str = ""
    header: list[str] = field(default_factory=list)
    guard: str = ""  # the argument whose device it runs on
    guard_required: bool = False  # a required tensor (else a list or an optional one)
    attr_checks: list[FixedAttrCheck] = field(default_factory=list)
    text_checks: list[TextAttrCheck] = field(default_factory=list)
    # its BroadcastShape keeps the shape (broadcast_shape_) for the outputs it allocates
    shape_checks: list[BroadcastCheck] = field(default_factory=list)
    args: list[NpuArg] = field(default_factory=list)  # the aclnn inputs and attrs, in order
    needs_dtypes: bool = False
    # not elementwise: the output shapes are the op's fake kernel's (ops.py), run on meta
    # copies of the arguments
    shapes_from_meta: bool = False
    outputs: list[NpuOutput] = field(default_factory=list)  # the returned ones
    like: str = ""  # the input an elementwise op's outputs take their shape and options from
    broadcasts: bool = False  # ... their shape is the inputs' broadcast shape
    call_args: list[str] = field(default_factory=list)  # EXEC_NPU_CMD_EXT's, after the aclnn name


def _npu_disabled(op: Op, reason: str) -> NpuAdapter:
    return NpuAdapter(
        enabled=False,
        reason=reason,
        reason_lines=wrap(f"{op.op_type} has no NPU adapter: {reason}.", LINE - 3),
    )


@dataclass(frozen=True)
class NpuArg:
    """An aclnn input or attr argument: the NPU adapter's local `<name>_` made of the op's
    argument `source`, as its `kind` says: an input's ("tensor", "ref", "list", "optional"),
    made contiguous (one updated in place, "ref", is copied back after the call), or an attr's
    ("string", "list_float", "list_bool", or "attr": passed as it is, as a `cpp_type`)."""

    name: str  # the aclnn name
    kind: str
    source: str  # the C++ parameter
    cpp_type: str


def _npu_arg(name: str, p: Param) -> NpuArg:
    if p.is_tensor:
        kind = p.kind
    elif p.attr_type in ("string", "list_float", "list_bool"):
        kind = p.attr_type
    else:
        kind = "attr"
    return NpuArg(name=name, kind=kind, source=p.cpp_name, cpp_type=p.cpp_type)


def _npu_args(op: Op, aclnn: Aclnn, params: list[Param], outs: list[Output]) -> dict[str, Any]:
    """The aclnn arguments in aclnn order: the inputs and attrs, the call's arguments and each
    output's local."""
    by_name = {p.name: p for p in params}
    args: list[NpuArg] = []
    call_args: list[str] = []
    out_vars: dict[str, str] = {}  # output name -> its local variable
    for arg in aclnn.args:
        local = arg.name + "_"
        if arg.role == "output":
            out_vars[arg.source] = local
            is_list = outs_by_name(outs)[arg.source].is_list
            call_args.append(arg.name + "_list_" if is_list else local)
            continue
        args.append(_npu_arg(arg.name, by_name[arg.source]))
        call_args.append(local)
    return {"args": args, "call_args": call_args, "out_vars": out_vars}


@dataclass(frozen=True)
class NpuOutput:
    """An output the NPU adapter allocates and returns: its local `<name>_` (and, a list one,
    `<name>_list_`, the TensorList aclnn takes)."""

    name: str  # the aclnn name
    is_list: bool
    dtype_index: int  # an elementwise op's: its dtype's place in the matched combination
    meta_index: int | None  # where the meta run returns it; None: the run's only result


def _npu_outputs(op: Op, aclnn: Aclnn, outs: list[Output]) -> list[NpuOutput]:
    returned = [o for o in outs if not o.is_ref]
    names = {a.source: a.name for a in aclnn.args if a.role == "output"}
    return [
        NpuOutput(
            name=names[o.name],
            is_list=o.is_list,
            dtype_index=len(op.inputs) + o.index,
            meta_index=None if len(returned) == 1 else o.return_index,
        )
        for o in returned
    ]


def _npu_header(op: Op, aclnn: Aclnn) -> list[str]:
    return wrap(
        f"{op.op_type} on the NPU (the PrivateUse1 dispatch key): calls "
        f"{aclnn.name} of the op package this project builds, which torch_npu "
        "finds at run time (libcust_opapi.so in the vendor directories of "
        "ASCEND_CUSTOM_OPP_PATH / ASCEND_OPP_PATH). Its first phase:",
        LINE - 3,
    )


def npu_context(op: Op, params: list[Param], outs: list[Output]) -> NpuAdapter:
    if op.aclnn is None:
        return _npu_disabled(op, op.aclnn_missing_reason)
    guard = device_param(params)
    if guard is None:
        return _npu_disabled(op, "it has no tensor input to take the device from")
    args = _npu_args(op, op.aclnn, params, outs)
    returned = [o for o in outs if not o.is_ref]
    # an elementwise op's outputs have the shape and options of its first required input
    first = next((p for p in params if p.kind in ("tensor", "ref")), None)
    return NpuAdapter(
        enabled=True,
        reason="",
        function=f"{op.snake_name}_npu",
        aclnn=op.aclnn.name,
        header=_npu_header(op, op.aclnn),
        guard=guard.cpp_name,
        guard_required=guard.kind in ("tensor", "ref"),
        attr_checks=cpp_fixed_attr_checks(op),
        text_checks=cpp_text_attr_checks(op),
        shape_checks=cpp_shape_checks(op, params),
        args=args["args"],
        needs_dtypes=op.is_elementwise and bool(returned),
        shapes_from_meta=not (op.is_elementwise or op.in_place_only),
        outputs=_npu_outputs(op, op.aclnn, outs),
        like=first.cpp_name if first else "",
        broadcasts=broadcasts(op),
        call_args=args["call_args"],
        uses_float_array=any(a.kind == "list_float" for a in args["args"]),
    )


def outs_by_name(outs: list[Output]) -> dict[str, Output]:
    return {o.name: o for o in outs}


# ---------------------------------------------------------------------------------------------
# Python: fake kernel, autograd, golden, converter
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class FakeReturn:
    """An output the fake kernel returns: an empty tensor (or list) of dtype dtypes_[index]."""

    index: int
    is_list: bool


@dataclass(frozen=True)
class PyFixedAttr:
    """An attr the fake kernel checks keeps its default (Op.fixed_attrs): _fixed_attr."""

    name: str
    default: str  # as Python source


@dataclass(frozen=True)
class PyTextAttr:
    """A string attr the fake kernel checks holds one of its declared values: _attr_one_of."""

    name: str
    values: str  # as Python source: a tuple of strings


@dataclass(frozen=True)
class Fake:
    """The op's fake (meta) kernel in ops.py (macros/py.jinja fake_lines prints its body)."""

    # how it tells the output shapes: "host" (as the generated InferShape), "elementwise",
    # "golden" (the golden run on the fake tensors), "in_place" (no outputs) or "none" (it
    # cannot: it raises, asking for the user's fake())
    mode: str
    # where the returned outputs' shapes come from: "input" (that of `like`), "broadcast" (the
    # inputs' broadcast shape, shape_), "golden" (the golden's results'); "": no return to print
    shape_from: str
    like: str  # the first required input: the returned outputs are new_empty of it
    returns: list[FakeReturn]
    broadcasts: bool  # it calls _support's _broadcast_shape (ops.py imports it then)
    updated: str  # the inputs updated in place, which the broadcast shape must be of ("": none)
    row_shapes: bool  # it calls _row_shapes (a row op's shape rule)
    # _row_shapes' dims as Python source, when the reductions name them (torch's dim=; else its
    # default, the last axis): a literal tuple or the attr's name
    row_dims: str
    fixed_attrs: list[PyFixedAttr]  # it checks them with _fixed_attr (but in mode "none")
    text_attrs: list[PyTextAttr]  # it checks them with _attr_one_of (but in mode "none")
    # the dims index() names in the compute expression, as Python source for _index_axes (an int
    # or an int attr's name each); "": none
    index_dims: str
    message: str  # mode "none": what it raises NotImplementedError with
    # expand(x, size): the output's shape is _expand_shape's (x.expand(size)'s, refused as the
    # host refuses): x's name and the size attr's; ""
    expand_x: str = ""
    expand_size: str = ""
    # _matmul_shapes's arguments as Python source, for a matmul op; "": none
    matmul: str = ""


def fake_context(op: Op, options: Options, params: list[Param], outs: list[Output]) -> Fake:
    """How the fake (meta) kernel computes the output metadata, and which of _support's helpers
    it calls (ops.py imports them then)."""
    required = [p.name for p in params if p.kind in ("tensor", "ref")]
    mode, shape_from = _fake_mode(op, params, outs)
    updated = [t.name for t in updated_inputs(op)]
    return Fake(
        mode=mode,
        shape_from=shape_from,
        like=required[0] if required else "",
        returns=[FakeReturn(o.index, o.is_list) for o in outs if not o.is_ref],
        broadcasts=shape_from == "broadcast" or (mode == "in_place" and broadcasts(op)),
        updated=py_literal("list_string", updated) if updated else "",
        row_shapes=op.is_row and mode != "none",
        row_dims=_py_row_dims(op) if op.is_row and op.dims_given else "",
        fixed_attrs=[PyFixedAttr(a.name, py_literal(a.type, a.default)) for a in op.fixed_attrs],
        text_attrs=[PyTextAttr(a.name, py_value(a.values)) for a in op.checked_attrs],
        index_dims=_index_dims(op, str, "[{}]") if mode != "none" else "",
        message=_fake_unknown(op, options) if mode == "none" else "",
        expand_x=op.expand.x if op.expand else "",
        expand_size=op.expand.attr if op.expand else "",
    )


def _index_dims(op: Op, spell: Callable[[int | str], str], brackets: str) -> str:
    """The distinct dims index() names in the op's compute expressions, each an int or an int
    attr's name (`spell`ed), inside `brackets`; "" when it names none."""
    dims: list[int | str] = []
    for tree in op.compute.values():
        for n in expr.walk(tree):
            if isinstance(n, expr.Index) and n.dim not in dims:
                dims.append(n.dim)
    return brackets.format(", ".join(spell(d) for d in dims)) if dims else ""


def _py_row_dims(op: Op) -> str:
    """The axes the op's reductions name, as _row_shapes takes them."""
    axes = op.row_axes
    if axes.text:  # and whether a string attr's value reduces no axis (frontend/choices.py)
        dims = py_literal("list_int", list(axes.dims))
        return dims + ", " + axes.text + " in " + repr(axes.none)
    return axes.attr or py_literal("list_int", list(axes.dims))


def _fake_unknown(op: Op, options: Options) -> str:
    """What a fake kernel that cannot tell the output shapes raises with: it asks for one."""
    what = (
        "has no compute and no golden expression"
        if op.user_computed
        else "is not elementwise and has no golden expression"
    )
    return (
        f"{op.op_type} {what}, so opgen "
        f"cannot tell its output shapes: define fake() in "
        f"{options.package}/{options_path(op)}"
    )


def _fake_mode(op: Op, params: list[Param], outs: list[Output]) -> tuple[str, str]:
    """How the fake kernel tells the output shapes (its mode) and where the returned ones come
    from: an op without outputs returns nothing ("in_place"); one that neither computes nor has
    a golden mirrors what the generated InferShape does (op_host/<op>.cpp), so the two agree
    until the user changes one (the tests compare them); else the shapes are those of the first
    required input ("input"), the inputs' broadcast shape ("broadcast"), or the golden's results'
    ("golden"); "none" when opgen cannot tell them."""
    if op.in_place_only:
        return "in_place", ""
    required = [p.name for p in params if p.kind in ("tensor", "ref")]
    has_golden = bool(op.golden) and all(o.name in op.golden for o in op.outputs)
    if (
        not op.is_elementwise
        and not has_golden
        and required
        and not op.user_computed
        and not any(o.is_list for o in outs)
    ):
        return "host", "input"
    if broadcasts(op):
        return "elementwise", "broadcast"
    if op.is_elementwise:  # one required input
        return "elementwise", "input"
    if has_golden:
        return "golden", "golden"
    return "none", ""


def options_path(op: Op) -> str:
    return f"overrides/{op.snake_name}.py"


def is_differentiable(op: Op) -> tuple[bool, str]:
    """Whether opgen registers a backward (autograd of the golden); else the reason. An op that
    updates inputs in place differentiates its results (op.results: the new values of those
    inputs, and its other outputs) like any op; its Autograd kernel is _support's
    _register_mutable (torch.library.register_autograd takes only functional ops)."""
    results = op.results
    if not op.golden or any(o.name not in op.golden for o in results):
        return False, "it has no golden expression for every output to differentiate"
    if any(o.param_type == "dynamic" for o in results):
        return False, "it has a dynamic (list) output"
    if not any(DTYPES[d].is_float for t in op.inputs for d in t.dtypes):
        return False, "no input takes a floating-point dtype"
    if not any(DTYPES[d].is_float for t in results for d in t.dtypes):
        return False, "no output has a floating-point dtype"
    for name, text in op.golden.items():
        func = next((f for f in golden_calls(text) if f in NO_DERIVATIVE), None)
        if func is not None:
            return False, (
                f"the golden of output {name} calls torch.{func}, which torch has no derivative for"
            )
    for name, text in op.golden.items():
        helper = next(iter(golden_helpers(text)), None)
        if helper is not None:
            return False, (
                f"the golden of output {name} calls {helper}, which computes each element by "
                "mpmath (torch has no such function) and has no derivative"
            )
    if all(is_comparison(op.golden[o.name]) for o in results):
        return False, "every output's golden is a comparison, whose result has no gradient"
    return True, ""


# torch's comparisons: their results (bool, or cast to another dtype) carry no gradient
COMPARISONS = frozenset(
    {"eq", "ne", "ge", "gt", "le", "lt", "greater", "greater_equal", "less", "less_equal"}
    | {"not_equal", "isnan", "isinf", "isfinite", "isclose", "signbit"}
)


def is_comparison(text: str) -> bool:
    """Is a (checked) golden expression a comparison, perhaps cast: x >= y, torch.ge(x, y),
    torch.ge(x, y).to(x.dtype)?"""
    node = ast.parse(text, mode="eval").body
    while (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr in ("to", "float", "half", "int")
    ):
        node = node.func.value
    if isinstance(node, ast.Compare):
        return True
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr in COMPARISONS
    )


# torch functions autograd has no derivative for ("derivative for aten::heaviside is not
# implemented"): a golden calling one has no backward to register.
NO_DERIVATIVE = frozenset(
    {
        "heaviside",
        "bitwise_and",
        "bitwise_or",
        "bitwise_xor",
        "bitwise_not",
        "logical_and",
        "logical_or",
        "logical_xor",
        "logical_not",
    }
)


def golden_calls(text: str) -> list[str]:
    """The names of the functions a (checked) golden expression calls: torch.heaviside ->
    heaviside."""
    return [
        n.func.attr
        for n in ast.walk(ast.parse(text, mode="eval"))
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
    ]


# _support's goldens of the functions torch lacks (spence: mpmath), which have no derivative
GOLDEN_HELPERS = frozenset(f.golden_helper for f in functions.FUNCTIONS.values() if f.golden_helper)


def golden_helpers(text: str) -> list[str]:
    """The _support goldens a golden expression calls by name: _spence(x) -> _spence."""
    return [
        n.func.id
        for n in ast.walk(ast.parse(text, mode="eval"))
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id in GOLDEN_HELPERS
    ]


@dataclass(frozen=True)
class GoldenResult:
    """A result of the op (op.results, the golden's order) as its golden computes it."""

    name: str
    expr: str | None  # its golden expression as the prototype writes it; None: it has none
    # A broadcasting op gives every output the inputs' broadcast shape, also an output whose
    # expression reads only some of them: that one is expanded to it (torch.broadcast_to).
    broadcast_to: bool


@dataclass(frozen=True)
class Golden:
    """The op's golden (golden.py): the float64 reference of what it computes (op.results)."""

    has_golden: bool  # some result has a golden expression
    complete: bool  # every result has one
    function: str  # golden.<function>: the reference, or the user's (overrides/)
    formula: str  # golden.<formula>: the expressions themselves
    results: list[GoldenResult]
    shape: str  # the local holding the broadcast shape of shape_inputs ("": none needed)
    shape_inputs: list[str]
    uses_torch: bool  # its formula calls torch (golden.py imports it then)
    missing: list[str]  # the results without an expression
    # the _support functions its formula calls where torch has none (functions.golden_helper)
    helpers: list[str]


def golden_context(op: Op, options: Options, params: list[Param]) -> Golden:
    """The golden returns what the op computes (op.results): its outputs, or, for an op without
    outputs, the new values of the inputs it overwrites (in input order)."""
    results = op.results
    complete = bool(op.golden) and all(o.name in op.golden for o in results)
    exprs = [op.golden.get(o.name) for o in results]
    shape_inputs, short = _broadcast_goldens(op, [e or "None" for e in exprs])
    shape = fresh("shape", {t.name for t in op.inputs} | {a.name for a in op.attrs})
    return Golden(
        has_golden=bool(op.golden),
        complete=complete,
        function=py_function_name(op.snake_name),
        formula=f"{op.snake_name}_formula",
        results=[GoldenResult(o.name, e, s) for o, e, s in zip(results, exprs, short, strict=True)],
        shape=shape if shape_inputs else "",
        shape_inputs=shape_inputs,
        uses_torch=bool(shape_inputs) or any("torch." in e for e in exprs if e),
        missing=[o.name for o in results if o.name not in op.golden],
        helpers=sorted({h for e in exprs if e for h in golden_helpers(e)}),
    )


def _broadcast_goldens(op: Op, exprs: list[str]) -> tuple[list[str], list[bool]]:
    """For a broadcasting op, the inputs it broadcasts, when some golden does not read them all,
    and per golden whether it is expanded to their broadcast shape (it does not)."""
    if not broadcasts(op):
        return [], [False for _ in exprs]
    names = [t.name for t in broadcast_inputs(op)]
    short = [
        e != "None"
        and not set(names)
        <= {n.id for n in ast.walk(ast.parse(e, mode="eval")) if isinstance(n, ast.Name)}
        for e in exprs
    ]
    if not any(short):
        return [], short
    return names, short


@dataclass(frozen=True)
class GeInput:
    """An input of the converter's GE node: the op's argument `name`, under its name."""

    name: str
    literal: str  # its name as a Python string


@dataclass(frozen=True)
class GeAttr:
    """An attr of the converter's GE node: `_ge.attr.<builder>(<name>)`."""

    name: str
    literal: str
    builder: str


@dataclass(frozen=True)
class GeOutput:
    """An output of the converter's GE node; a list output with its count, the length of its
    meta output: `meta_outputs` itself, or the one at `meta_index` when the op returns more."""

    literal: str
    is_list: bool
    meta_index: int | None


@dataclass(frozen=True)
class Converter:
    """The torchair converter (graph.py): one GE node of the op's IR."""

    function: str
    needs_meta_outputs: bool  # a list output's count is that of its meta output
    inputs: list[GeInput]
    attrs: list[GeAttr]
    outputs: list[GeOutput]
    returned: list[int]  # the node's outputs the op returns (outputs_[i])
    returns_node: bool  # the op returns the node's only output: outputs_ itself


def converter_context(op: Op, params: list[Param], outs: list[Output]) -> Converter:
    """The torchair converter: one GE node of the op's IR (the op package registers it)."""
    by_name = {p.name: p for p in params}
    returned = [o for o in outs if not o.is_ref]
    return Converter(
        function=f"convert_{op.snake_name}",
        needs_meta_outputs=any(o.is_list for o in outs),
        inputs=[GeInput(t.name, py_string(t.name)) for t in op.inputs],
        attrs=[GeAttr(a.name, py_string(a.name), by_name[a.name].ge_attr) for a in op.attrs],
        outputs=[
            GeOutput(py_string(o.name), o.is_list, None if len(returned) == 1 else o.return_index)
            for o in outs
        ],
        returned=[o.index for o in returned],
        returns_node=bool(returned) and len(outs) == 1,
    )


# ---------------------------------------------------------------------------------------------
# the op's torch context
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class TorchData:
    """Everything the torch_ext templates render for one op (`op.torch`)."""

    qualname: str
    qualname_literal: str
    op_path: str
    op_type_literal: str
    name_literal: str
    schema: str
    schema_literal: str
    py_name: str
    exported: bool
    upper: str
    params: list[Param]
    tensor_params: list[Param]
    attr_params: list[Param]
    outputs: list[Output]
    returned: list[Output]
    variants: list[Variant]
    nothing_returned: list[str]  # the Returns: text of an op that returns nothing
    readme_notes: list[str]  # what the generated README says about in-place and optional outputs
    uses_sequence: bool
    uses_golden: bool
    mutable_results: str  # _register_mutable's `results` ("" for an op that updates no input)
    mutable: bool  # updates inputs in place: registered by _support._register_mutable
    fake: Fake
    differentiable: bool
    not_differentiable_reason: str
    register_comment: list[str]  # above the registration: how autograd sees the op
    golden: Golden
    converter: Converter
    overrides_file: str
    overrides_file_literal: str
    overrides_module: str
    overrides_example: str  # the input a commented-out fake() returns empty tensors like
    cpu: CpuKernel
    npu: NpuAdapter
    introspection: Introspection
    warnings: list[str]  # for the CLI to show


def plan(op: Op, options: Options) -> TorchData:
    kept = schema_defaults(op)
    params = [tensor_param(t, i, kept[t.name]) for i, t in enumerate(op.inputs)]
    params += [attr_param(a, i, kept[a.name]) for i, a in enumerate(op.attrs)]
    outs = output_info(op)
    returned = [o for o in outs if not o.is_ref]
    py_name = py_function_name(op.snake_name)
    return TorchData(
        # names
        qualname=f"{options.namespace}::{op.snake_name}",  # ns::op
        qualname_literal=py_string(f"{options.namespace}::{op.snake_name}"),
        op_type_literal=py_string(op.op_type),
        name_literal=cpp_string(op.snake_name),
        schema=op.torch_schema,
        schema_literal=cpp_string(op.torch_schema),
        py_name=py_name,  # the function in ops.py (and the package, when "exported")
        exported=py_name not in PACKAGE_NAMES,
        upper=op.snake_name.upper(),
        # arguments and results
        params=params,
        tensor_params=[p for p in params if p.is_tensor],
        attr_params=[p for p in params if not p.is_tensor],
        outputs=outs,  # every prototype output; return_index None when updated in place
        returned=returned,  # the outputs the op returns
        variants=variants(op),  # one per dtype combination
        nothing_returned=_nothing_returned(op),
        readme_notes=_readme_notes(op),
        **_python_fields(op, options, params, outs, py_name),
        **_cpp_fields(op, params, outs),
        # the underscored introspection op the generated tests call (csrc/ops.cpp)
        introspection=introspection_context(op, options, params),
        warnings=_warnings(op, options, py_name),
    )


def _python_fields(
    op: Op, options: Options, params: list[Param], outs: list[Output], py_name: str
) -> dict[str, Any]:
    """The TorchData fields of the Python modules: ops.py, golden.py, graph.py, overrides/."""
    differentiable, not_differentiable = is_differentiable(op)
    op_path = f"torch.ops.{options.namespace}.{op.snake_name}"
    fake = fake_context(op, options, params, outs)
    overrides_file = f"{options.package}/{options_path(op)}"
    return {
        "op_path": op_path,  # torch.ops.ns.op
        "uses_sequence": any("Sequence" in p.py_annotation for p in params),
        "uses_golden": differentiable or fake.mode == "golden",
        "mutable_results": mutable_results(op, outs) if any(t.is_ref for t in op.inputs) else "",
        "mutable": any(t.is_ref for t in op.inputs),
        "fake": fake,
        "differentiable": differentiable,
        "not_differentiable_reason": not_differentiable,
        "register_comment": register_comment(op, differentiable, not_differentiable),
        "golden": golden_context(op, options, params),
        "converter": converter_context(op, params, outs),
        "overrides_file": overrides_file,
        "overrides_file_literal": py_string(overrides_file),
        "overrides_module": f"_{op.snake_name}_user",
        "overrides_example": overrides_example(params, outs),
    }


def _cpp_fields(op: Op, params: list[Param], outs: list[Output]) -> dict[str, Any]:
    """The TorchData fields of the C++ sources: csrc/ops.cpp and csrc_npu/."""
    return {
        "cpu": cpu_context(op, params, outs),
        "npu": npu_context(op, params, outs),
    }


def mutable_results(op: Op, outs: list[Output]) -> str:
    """_register_mutable's `results`: per result of the op (op.results, the golden's order), the
    name of the input it is the new value of, or its position among the op's returns."""
    if op.in_place_only:
        items = [py_string(t.name) for t in op.results]
    else:
        items = [py_string(o.name) if o.is_ref else str(o.return_index) for o in outs]
    return "(" + ", ".join(items) + ("," if len(items) == 1 else "") + ")"


def register_comment(op: Op, differentiable: bool, reason: str) -> list[str]:
    """The comment above an op's registration in ops.py, when there is something to say: how an
    op that updates inputs in place meets autograd, or why an op has no backward."""
    updated = [t.name for t in op.inputs if t.is_ref]
    names = ", ".join(updated)
    if updated and differentiable:
        text = (
            f"{op.op_type} updates {names} in place. Its Autograd kernel "
            "(_support._register_mutable) computes the new values out of place under an "
            "autograd.Function whose backward is autograd of the golden, then writes them "
            f"into {names} with copy_, as x.add_(y) does: the gradient reaches {names} as "
            "it was before and the other inputs."
        )
    elif updated:
        text = (
            f"No backward from opgen: {reason}. {op.op_type} updates {names} in place, so it "
            "refuses inputs that require grad (grad mode on) rather than leave their "
            "gradients wrong."
        )
    elif not differentiable:
        text = f"No backward from opgen: {reason}."
    else:
        return []
    return wrap(text, LINE - 2)


def _readme_notes(op: Op) -> list[str]:
    notes = []
    if op.in_place_only:
        notes.append(
            f"{op.op_type} has no outputs: it updates its inputs in place. Its PyTorch op marks "
            "the inputs it updates mutable (`Tensor(a!)`) and returns nothing, its aclnn API "
            "takes only the inputs and attrs, its kernel writes "
            f"{', '.join(t.name for t in op.results)} "
            "back to the input's own memory, and its golden returns the new values of those "
            "inputs, which the tests compare with the mutated arguments."
        )
    optional = [t.name for t in op.outputs if t.param_type == "optional"]
    if optional:
        notes.append(
            f"{op.op_type}: output {', '.join(optional)} is optional in the OpDef "
            "(`.ParamType(OPTIONAL)`, a nullable aclnn argument). The PyTorch op always "
            "allocates it, passes it to aclnn and returns it (a PyTorch op cannot leave out one "
            "of its returns), and the kernel computes it like a required output."
        )
    return notes


def _nothing_returned(op: Op) -> list[str]:
    if op.in_place_only:
        names = ", ".join(t.name for t in op.results)
        their = "its new value" if len(op.results) == 1 else "their new values"
        text = (
            f"Nothing: {op.op_type} has no outputs and updates its inputs in place (the "
            f"kernel writes {names}; the golden returns {their})."
        )
    else:
        text = (
            f"Nothing: {', '.join(t.name for t in op.outputs)} "
            f"{'is' if len(op.outputs) == 1 else 'are'} updated in place."
        )
    return wrap(text, LINE - 8)


def overrides_example(params: list[Param], outs: list[Output]) -> str:
    """The input whose like a commented-out fake() returns, for an op whose output shapes opgen
    cannot tell: its first required one ("": no example, the op has none or returns nothing)."""
    tensors = [p.name for p in params if p.kind in ("tensor", "ref")]
    if not tensors or all(o.is_ref for o in outs):
        return ""
    return tensors[0]


# ---------------------------------------------------------------------------------------------
# introspection ops for the generated tests (csrc/ops.cpp)
# ---------------------------------------------------------------------------------------------


def infer_op_name(op: Op) -> str:
    return f"_opgen_infer_{op.snake_name}"


@dataclass(frozen=True)
class Introspection:
    """The op's introspection op (csrc/ops.cpp) and the project's registry op."""

    name: str
    schema: str
    schema_literal: str
    op_path: str  # torch.ops.<ns>.<name>.default
    function: str  # its C++ function (its parameters: the op's, an in-place one made const)


def introspection_context(op: Op, options: Options, params: list[Param]) -> Introspection:
    """`torch.ops.<ns>._opgen_infer_<op>(<the op's arguments>) -> str`: the op's InferShape and
    InferDataType (op_host/) run on the twin for these arguments, as JSON (opgen_torch.h
    InferJson). Its schema is the op's with in-place annotations dropped (it mutates nothing)
    and a string result; its C++ function converts the arguments as the CPU kernel does."""
    import dataclasses

    from opgen.frontend.model import build_torch_schema

    name = infer_op_name(op)
    plain = [dataclasses.replace(t, is_ref=False) for t in op.inputs]
    schema, _ = build_torch_schema(name, plain, [], op.attrs)
    schema = schema.rsplit(" -> ", 1)[0] + " -> str"
    return Introspection(
        name=name,
        schema=schema,
        schema_literal=cpp_string(schema),
        op_path=f"torch.ops.{options.namespace}.{name}.default",
        function=f"{op.snake_name}_infer",
    )


def _warnings(op: Op, options: Options, py_name: str) -> list[str]:
    if py_name in PACKAGE_NAMES:
        return [
            f"{op.op_type}: the function {py_name}() would replace the package's own "
            f"'{py_name}', so it is only in {options.package}.ops and "
            f"torch.ops.{options.namespace}"
        ]
    if py_name != op.snake_name:
        return [
            f"{op.op_type}: its Python function is {options.package}.{py_name}() "
            f"('{op.snake_name}' would shadow a name ops.py uses)"
        ]
    return []
