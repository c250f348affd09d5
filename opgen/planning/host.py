"""Template data of `templates/host` (`op.host`): TilingFunc, InferShape, InferDataType, the
OpDef registration (per SoC: soc_dtypes.py) and the tiling policy header. Built from
the kernel's data: the host mirrors the kernel's buffers and fills its tiling struct."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from opgen.frontend import expr, soc_dtypes
from opgen.frontend.broadcast import broadcasts, updated_inputs
from opgen.frontend.catalog import DTYPES
from opgen.frontend.model import Op
from opgen.frontend.names import aclnn_name
from opgen.frontend.options import Options
from opgen.literals import cpp_literal, cpp_string
from opgen.planning.kernel import AttrField, HostScalar, KernelData, _Tensor, text_var


@dataclass(frozen=True)
class OpDefTensor:
    """An Input/Output line of the OpDef: .Input("x").ParamType(REQUIRED).DataType({...})..."""

    method: str  # Input or Output
    name_literal: str
    option: str  # REQUIRED, OPTIONAL or DYNAMIC
    ge_dtypes: list[str]  # ge::DataType names, one per dtype combination
    formats: list[str]  # ge::Format names without FORMAT_


@dataclass(frozen=True)
class SocOwnDtypes:
    """The OpAICoreConfig of a SoC that runs only some of the dtype combinations."""

    var: str
    tensors: list[OpDefTensor]


@dataclass(frozen=True)
class SocConfig:
    """AddConfig for one SoC (own_dtypes None: the OpDef's lists hold for it)."""

    short_name: str
    literal: str
    config: SocOwnDtypes | None


@dataclass(frozen=True)
class ShapeRef:
    """The input whose shape every output takes and whose element count is tiled."""

    kind: str  # its param_type, or "none" for an op without inputs
    index: int
    name: str
    accessor: str  # the InferShape/TilingFunc context call that reads its shape
    template_args: str  # InferShapeLikeInput<ref, others...>'s arguments
    same_names: str  # the other required inputs that must have its shape


@dataclass(frozen=True)
class StreamDesc:
    """A streamed tensor's desc, whose dtype TilingFunc adds to the UB needs."""

    name: str
    role: str
    through_half: bool
    from_input: (
        bool  # the input's desc (a write-back stream has its input's dtype), else the output's
    )
    index: int  # the input's index, or the output's IR index
    after_dynamic: bool  # an output after a dynamic one: its instance index is looked up


@dataclass(frozen=True)
class DtypeCase:
    """One case of InferDataType's switch: an input's ge::DataType and the output's."""

    from_dtype: str
    to: str


@dataclass(frozen=True)
class DtypeRule:
    """How InferDataType sets one output: "copy" an input's dtype (same lists), "fixed", or
    "map" it from an input's dtype by a switch."""

    kind: str
    dtype: str  # the ge::DataType a fixed rule sets, a map's default (a dynamic output's too)
    name: str = ""
    var: str = ""
    ir_index: int = 0
    after_dynamic: bool = False  # a dynamic output before it: its instance index is looked up
    dynamic: bool = False
    info_var: str = ""
    from_index: int | None = None  # the input copied or mapped
    from_name: str = ""
    from_dynamic: bool = False  # that input is dynamic: the dtype of its first tensor
    cases: list[DtypeCase] = field(default_factory=list)


@dataclass(frozen=True)
class RowStride:
    """A row-op input's stride field in the tiling struct."""

    index: int
    field: str
    first: bool
    period: str  # after the first input: its field of values when it has one per row


@dataclass(frozen=True)
class RowOutput:
    """A row-op output: reduced (the row's axes dropped or kept as 1) or with the input's shape."""

    index: int
    name: str
    reduced: str  # a C++ bool literal
    keepdim: str  # a C++ bool literal, or the variable holding a bool attr's value
    keepdim_text: str  # keepdim as the prototype gives it: "true", "false" or the attr's name


@dataclass(frozen=True)
class KeepdimAttr:
    """A bool attr a reduced output's keepdim reads: InferShape's variable holding its value."""

    index: int  # among the op's attrs
    var: str
    default: str  # C++ bool literal (false for a required attr, which is always set)


@dataclass(frozen=True)
class RowDims:
    """The axes a row op reduces, when its reductions name them (torch's dim=): TilingFunc's and
    InferShape's opgen::RowDims `dims`, from literal dims or an int or list_int attr."""

    text: str  # dim= as the prototype writes it
    literal: list[str]  # the literal dims, or an optional attr's default (C++ ints)
    attr_index: int | None  # the attr holding them, else None
    attr_is_list: bool
    attr_required: bool  # a required attr: no default to fall back on
    keepdim_attrs: list[KeepdimAttr]
    no_axes: NoAxes | None = None  # a string attr choosing no axis for some values


@dataclass(frozen=True)
class NoAxes:
    """The string attr whose values choose no axis (frontend/choices.py; opgen::NoAxesWhen)."""

    name: str
    index: int
    default: str  # C++: its default's literal, or nullptr
    values: list[str]  # C++ string literals: the values that reduce no axis


@dataclass(frozen=True)
class HostBroadcast:
    """TilingFunc's and InferShape's broadcasting of an op's required inputs."""

    inputs: list[int]  # their indexes
    names: str  # in words: "x, y and z"
    # the inputs the op updates in place, if any: the first is the shape they broadcast into
    # (else the output's shape is the broadcast shape)
    updated: list[int]
    updated_names: list[str]
    reads: list[str]  # per input, the tiling field PlanBroadcast fills with how it is read
    shape: str  # the tiling field PlanBroadcast fills with the shape
    # expand(x, size): the output's shape comes from the size, not from the inputs
    expand: HostExpand | None = None


@dataclass(frozen=True)
class HostExpand:
    """expand(x, size): InferShape and TilingFunc take the output's shape from the list_int attr
    `size` by torch's rule (opgen_tiling.h's ExpandShape)."""

    input: int  # x's index
    op_literal: str  # the op type and x's name, C++ string literals (the refusal names them)
    name_literal: str
    size_text: str  # the attr's name (the comments)
    attr_index: int  # its index among GetAttrs()


@dataclass(frozen=True)
class HostIndexAxis:
    """index(dim) of the compute expression: TilingFunc's opgen::IndexAxis call for it."""

    dim: str  # as the expression writes it: an int, or an int attr's name
    attr_field: str  # that attr's tiling field ("": an int)
    fields: tuple[str, ...]  # 1 / stride, period, 1 / period
    attr_index: int = 0  # the attr's index among GetAttrs() (InferShape reads it there)
    attr_default: str = "0"  # its C++ default (0 for a required attr, which is always set)


@dataclass(frozen=True)
class HostTextAttr:
    """A string attr with declared values ("opgen": {"values"}): TilingFunc reads it into `var`
    (for the flags its comparisons give the kernel), and TilingFunc and InferShape refuse a value
    outside `values` (opgen_tiling.h's AttrOneOf)."""

    name: str
    index: int  # among the op's attrs
    var: str
    default: str  # C++ string literal of an optional attr's default; "nullptr": required
    op_literal: str  # the op type, a C++ string literal (the message names it)
    name_literal: str
    values: list[str]  # C++ string literals


@dataclass(frozen=True)
class HostData:
    """Everything the host templates render for one op (they read `op.kernel` for the tiling
    struct and the kernel's buffer count)."""

    namespace: str  # optiling::<namespace>
    policy_header: str
    policy_guard: str
    opdef_tensors: list[OpDefTensor]
    # per SoC short name: its AddConfig literal, and the OpAICoreConfig listing its own dtype
    # combinations when it cannot run them all (None: the OpDef's lists hold for it)
    socs: list[SocConfig]
    attr_fields: list[AttrField]  # int/float/bool attrs TilingFunc copies into the struct
    scalars: list[HostScalar]  # attr math TilingFunc computes (the kernel has no libm)
    text_attrs: list[HostTextAttr]  # string attrs TilingFunc and InferShape check
    shape_ref: ShapeRef
    descs: list[StreamDesc]
    dtype_rules: list[DtypeRule]  # InferDataType, per output
    # The index of the required input whose shape and dtype every output takes, when that is
    # all InferShape and InferDataType do: the OpDef then registers opgen_tiling.h's shared
    # InferShapeLikeInput/InferDataTypeLikeInput instead of functions of the op's own. Else None.
    like_input: int | None
    has_dynamic_output: bool
    has_outputs: bool  # an op without outputs updates its inputs: nothing to infer
    # the row kernel: per input its row stride field; per output its reduced shape
    row_strides: list[RowStride]
    row_outputs: list[RowOutput]
    row_dims: RowDims | None  # None: the last axis (the row functions' default)
    warnings: list[str]  # the SoCs that leave dtype combinations out
    # An op that broadcasts its required inputs: their indexes and names for InferShapeBroadcast,
    # and the tiling fields PlanBroadcast fills. None: the inputs share one shape.
    broadcast: HostBroadcast | None = None
    index_axes: tuple[HostIndexAxis, ...] = ()


def plan(op: Op, options: Options, kernel: KernelData) -> HostData:
    infer = _infer_and_tiling(op, kernel.tensors, kernel.streams)
    upper = op.snake_name.upper()
    return HostData(
        namespace=op.snake_name,
        policy_header=f"{op.snake_name}_tiling_policy.h",
        policy_guard=f"{upper}_TILING_POLICY_H",
        opdef_tensors=[_opdef_tensor(t) for t in kernel.tensors],
        socs=[_soc_config(op, kernel.tensors, s) for s in options.soc_short_names],
        attr_fields=kernel.attr_fields,
        scalars=kernel.compute.host_scalars,
        text_attrs=_text_attrs(op),
        has_outputs=bool(op.outputs),
        **_row(op, kernel),
        warnings=soc_dtypes.warnings(op, options.soc_short_names),
        broadcast=_broadcast(op, kernel),
        index_axes=_index_axes(kernel),
        **infer,
    )


def _text_attrs(op: Op) -> list[HostTextAttr]:
    """The string attrs with declared values, which the host checks and reads."""
    return [
        HostTextAttr(
            name=a.name,
            index=i,
            var=text_var(a.name),
            default="nullptr" if a.required else cpp_string(a.default),
            op_literal=cpp_string(op.op_type),
            name_literal=cpp_string(a.name),
            values=[cpp_string(v) for v in a.values],
        )
        for i, a in enumerate(op.attrs)
        if a.values
    ]


def _index_axes(kernel: KernelData) -> tuple[HostIndexAxis, ...]:
    """TilingFunc's index(dim) axes: each dim an int or an int attr's tiling field."""
    attrs = {a.name: a for a in kernel.attr_fields}
    axes = []
    for a in kernel.compute.index_axes:
        attr = attrs.get(a.dim) if isinstance(a.dim, str) else None
        if attr is None or not isinstance(a.dim, str):
            axes.append(HostIndexAxis(str(a.dim), "", a.fields))
        else:
            default = attr.default or "0"
            axes.append(HostIndexAxis(a.dim, attr.field, a.fields, attr.index, default))
    return tuple(axes)


def _broadcast(op: Op, kernel: KernelData) -> HostBroadcast | None:
    """TilingFunc's and InferShape's broadcasting: the inputs, the tiling fields PlanBroadcast
    fills, and the shape they broadcast to: the output's, or for an op that updates inputs in
    place, that of the first of them (InferShape checks that each has it)."""
    if kernel.broadcast is None:
        return None
    ins = [t for t in kernel.streams if t.role == "input"]
    updated = [t for t in ins if t.param.name in {u.name for u in updated_inputs(op)}]
    return HostBroadcast(
        inputs=[t.index for t in ins],
        names=(", ".join(t.param.name for t in ins[:-1]) + " and " if len(ins) > 1 else "")
        + ins[-1].param.name,
        updated=[t.index for t in updated],
        updated_names=[t.param.name for t in updated],
        reads=[kernel.broadcast.read_of(t.param.name) for t in ins],
        shape=kernel.broadcast.shape,
        expand=_expand(op, ins[0]),
    )


def _expand(op: Op, x: _Tensor) -> HostExpand | None:
    """InferShape's and TilingFunc's size of expand(x, size)."""
    node = op.expand
    if node is None:
        return None
    attrs = [a.name for a in op.attrs]
    return HostExpand(
        input=x.index,
        op_literal=cpp_string(op.op_type),
        name_literal=cpp_string(node.x),
        size_text=node.attr,
        attr_index=attrs.index(node.attr),
    )


def _row(op: Op, kernel: KernelData) -> dict[str, Any]:
    """The row kernel's host data (empty lists for an elementwise op)."""
    if kernel.row is None:
        return {"row_strides": [], "row_outputs": [], "row_dims": None}
    ins = [t for t in kernel.tensors if t.role == "input"]
    outs = [t for t in kernel.tensors if t.role == "output"]
    strides = [
        RowStride(
            t.index,
            kernel.row.stride_of(t.param.name),
            t is ins[0],
            kernel.row.period_of(t.param.name),
        )
        for t in ins
    ]
    keepdim_attrs = {
        a.name: KeepdimAttr(i, aclnn_name(a.name) + "Attr", cpp_literal("bool", a.default))
        for i, a in enumerate(op.attrs)
        if any(op.output_keepdim(t.param.name) == a.name for t in outs)
    }
    outputs = []
    for t in outs:
        keepdim = op.output_keepdim(t.param.name)
        attr = keepdim_attrs.get(keepdim) if isinstance(keepdim, str) else None
        outputs.append(
            RowOutput(
                t.index,
                t.param.name,
                reduced=cpp_literal("bool", t.param.name in kernel.row.reduced),
                keepdim=attr.var if attr else cpp_literal("bool", keepdim),
                keepdim_text=(
                    keepdim if attr and isinstance(keepdim, str) else cpp_literal("bool", keepdim)
                ),
            )
        )
    dims = _row_dims(op, list(keepdim_attrs.values())) if op.dims_given else None
    return {"row_strides": strides, "row_outputs": outputs, "row_dims": dims}


def _row_dims(op: Op, keepdim_attrs: list[KeepdimAttr]) -> RowDims:
    """How TilingFunc and InferShape tell the axes the op reduces."""
    axes = op.row_axes
    if axes.text:
        index, attr = next((i, a) for i, a in enumerate(op.attrs) if a.name == axes.text)
        default = "nullptr" if attr.required else cpp_string(attr.default)
        none = NoAxes(attr.name, index, default, [cpp_string(v) for v in axes.none])
        dims = [str(d) for d in axes.dims]
        return RowDims(axes.show(), dims, None, False, False, keepdim_attrs, none)
    if not axes.attr:
        return RowDims(axes.show(), [str(d) for d in axes.dims], None, False, False, keepdim_attrs)
    index, attr = next((i, a) for i, a in enumerate(op.attrs) if a.name == axes.attr)
    default = [] if attr.required else attr.default
    literal = [str(d) for d in (default if isinstance(default, list) else [default])]
    return RowDims(axes.attr, literal, index, attr.type == "list_int", attr.required, keepdim_attrs)


def _soc_config(op: Op, tensors: list[_Tensor], soc: str) -> SocConfig:
    """AddConfig for one SoC; with an OpAICoreConfig of its own dtype lists when it runs only
    some of the combinations (metadef merges them over the OpDef's, tensor by tensor)."""
    columns = [i for i, c in enumerate(op.dtype_combinations) if soc_dtypes.runs_on(c, soc, op)]
    config = None
    if len(columns) < len(op.dtype_combinations):
        config = SocOwnDtypes(f"{soc}Config", [_opdef_tensor(t, columns) for t in tensors])
    return SocConfig(soc, cpp_string(soc), config)


def _opdef_tensor(t: _Tensor, columns: list[int] | None = None) -> OpDefTensor:
    """An Input/Output line of the OpDef: every dtype combination, or those at `columns`."""
    dtypes, formats = list(t.param.dtypes), list(t.param.formats)
    if columns is not None:
        dtypes, formats = [dtypes[i] for i in columns], [formats[i] for i in columns]
    return OpDefTensor(
        method="Input" if t.role == "input" else "Output",
        name_literal=cpp_string(t.param.name),
        option=t.param.param_type.upper(),
        ge_dtypes=[DTYPES[d].ge for d in dtypes],
        formats=list(formats),
    )


def _infer_and_tiling(op: Op, tensors: list[_Tensor], streamed: list[_Tensor]) -> dict[str, Any]:
    inputs = [t for t in tensors if t.role == "input"]
    outputs = [t for t in tensors if t.role == "output"]
    has_dynamic_output = any(t.param.param_type == "dynamic" for t in outputs)
    shape = _shape_ref(op, inputs)
    after_dynamic = _after_dynamic(outputs)
    dtype_rules = _dtype_rules(op, inputs, outputs, after_dynamic)
    like_input = None  # else the op's own InferShape and InferDataType
    into = broadcasts(op) and bool(updated_inputs(op))  # InferShape checks their shapes
    if (
        not op.is_row
        and shape.kind == "required"
        and outputs
        and not has_dynamic_output
        and all(r.kind == "copy" and r.from_index == shape.index for r in dtype_rules)
        and not into
        and not any(isinstance(n, expr.Index) for t in op.compute.values() for n in expr.walk(t))
        and not op.checked_attrs  # InferShape checks their values
        and op.expand is None  # InferShape reads the size
    ):
        like_input = shape.index
    return {
        "shape_ref": shape,
        "dtype_rules": dtype_rules,
        "like_input": like_input,
        "has_dynamic_output": has_dynamic_output,
        "descs": _stream_descs(streamed, after_dynamic),
    }


def _shape_ref(op: Op, inputs: list[_Tensor]) -> ShapeRef:
    """The tensor whose shape every output takes (and whose element count is tiled): the first
    required input, else the first input."""
    ref = next((t for t in inputs if t.param.param_type == "required"), None)
    chosen = ref or (inputs[0] if inputs else None)
    kind = chosen.param.param_type if chosen else "none"
    index = chosen.index if chosen else 0
    accessor = {
        "required": "GetRequiredInputShape({i})",
        "optional": "GetOptionalInputShape({i})",
        "dynamic": "GetDynamicInputShape({i}, 0)",
    }.get(kind, "")
    # An elementwise kernel reads its required inputs in step, so InferShape checks that they
    # have the reference's shape (InferShapeLikeInput<ref, others...> in opgen_tiling.h).
    same = (
        [t for t in inputs if t.param.param_type == "required" and t is not ref]
        if op.is_elementwise and ref is not None
        else []
    )
    return ShapeRef(
        kind=kind,
        index=index,
        name=chosen.param.name if chosen else "",
        accessor=accessor.format(i=index),
        template_args=", ".join(str(t.index) for t in [ref, *same]) if ref else "",
        same_names=" and ".join(t.param.name for t in same),
    )


def _after_dynamic(outputs: list[_Tensor]) -> dict[str, bool]:
    """Whether a dynamic output comes before each output: its instance index is then looked up
    (OutputIndex), else it is its IR index."""
    after = {}
    dynamic_before = False
    for t in outputs:
        after[t.param.name] = dynamic_before
        dynamic_before = dynamic_before or t.param.param_type == "dynamic"
    return after


def _dtype_rules(
    op: Op, inputs: list[_Tensor], outputs: list[_Tensor], after_dynamic: dict[str, bool]
) -> list[DtypeRule]:
    """InferDataType: copy an input's dtype when the lists agree, else map or fix it."""
    return [
        replace(
            _dtype_rule(op, t, inputs),
            name=t.param.name,
            var=t.param.kernel_param,
            ir_index=t.index,
            after_dynamic=after_dynamic[t.param.name],
            dynamic=t.param.param_type == "dynamic",
            info_var=aclnn_name(t.param.name) + "Info",
        )
        for t in outputs
    ]


def _stream_descs(streamed: list[_Tensor], after_dynamic: dict[str, bool]) -> list[StreamDesc]:
    """The desc of every streamed tensor, whose dtype TilingFunc adds to the UB needs."""
    return [
        StreamDesc(
            t.param.name,
            t.role,
            t.through_half,
            from_input=t.role == "input" or t.writeback,
            index=t.index,
            after_dynamic=after_dynamic.get(t.param.name, False),
        )
        for t in streamed
    ]


def _dtype_rule(op: Op, out: _Tensor, inputs: list[_Tensor]) -> DtypeRule:
    """How InferDataType sets an output: copy an input's dtype (same lists), a fixed dtype, or
    a switch over an input's dtype. The input is a required one, else a dynamic one (the dtype
    of its first tensor: the dtype combinations give all of its tensors one dtype)."""
    dts = out.param.dtypes
    sources = [t for kind in ("required", "dynamic") for t in inputs if t.param.param_type == kind]
    first = DTYPES[dts[0]].ge

    def from_input(t: _Tensor) -> dict[str, Any]:
        dynamic = t.param.param_type == "dynamic"
        return {"from_index": t.index, "from_name": t.param.name, "from_dynamic": dynamic}

    for t in sources:
        if t.param.dtypes == dts:
            return DtypeRule("copy", first, **from_input(t))
    if len(set(dts)) == 1:
        return DtypeRule("fixed", first)
    for t in sources:
        mapping: dict[str, str] = {}
        if all(mapping.setdefault(i, o) == o for i, o in zip(t.param.dtypes, dts, strict=True)):
            cases = [DtypeCase(DTYPES[i].ge, DTYPES[o].ge) for i, o in mapping.items()]
            return DtypeRule("map", first, cases=cases, **from_input(t))
    return DtypeRule("fixed", first)
