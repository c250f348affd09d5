"""The normalized model of a prototype that every later stage (render, build, update) consumes.

`prototype.load` validates the JSON and builds these objects; nothing here reads files. Derived
names (snake name, aclnn signature, PyTorch schema) are computed once, here, so templates never
re-derive them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from opgen.frontend import expr, names
from opgen.frontend.catalog import ATTR_TYPES, DTYPES, AttrType, DType
from opgen.literals import torch_literal


@dataclass(frozen=True)
class TensorParam:
    """An input or output tensor."""

    name: str
    param_type: str  # required | optional | dynamic
    dtypes: tuple[str, ...]  # canonical dtype per combination
    formats: tuple[str, ...]  # format per combination
    # an input updated in place (by an output of its name, or by an op without outputs) / an
    # output that aliases its input
    is_ref: bool = False
    role: str = "input"  # input | output

    @property
    def dtype_infos(self) -> tuple[DType, ...]:
        return tuple(DTYPES[d] for d in self.dtypes)

    @property
    def kernel_param(self) -> str:
        """The kernel entry's parameter: the name, or <name>_ref for an in-place output."""
        return dtype_macro_base(self.name, self.role == "output" and self.is_ref)

    @property
    def dtype_macro(self) -> str:
        """DTYPE_<KERNEL_PARAM>: the macro the CANN build defines with the tensor's C type."""
        return f"DTYPE_{self.kernel_param.upper()}"


def dtype_macro_base(name: str, is_ref_output: bool) -> str:
    """The CANN build names an in-place output's kernel parameter (and so its DTYPE_ macro)
    <name>_ref."""
    return f"{name}_ref" if is_ref_output else name


@dataclass(frozen=True)
class Attr:
    name: str
    type: str  # msopgen attr type: int, float, bool, string, list_int, ...
    required: bool
    default: Any = None  # the JSON default of an optional attr
    # a string attr's accepted values ("opgen": {"values"}): the op refuses any other; () none
    values: tuple[str, ...] = ()

    @property
    def info(self) -> AttrType:
        return ATTR_TYPES[self.type]


@dataclass(frozen=True)
class AclnnArg:
    name: str
    c_type: str
    role: str  # input | attr | output
    source: str  # the prototype name it comes from

    def declaration(self) -> str:
        sep = "" if self.c_type.endswith("*") else " "
        return f"{self.c_type}{sep}{self.name}"


@dataclass(frozen=True)
class Aclnn:
    """The aclnn two-phase API the CANN build generates for the op (ascend-c.md §5)."""

    name: str  # aclnnGeluCustom
    args: tuple[AclnnArg, ...]  # GetWorkspaceSize's arguments before workspaceSize/executor

    @property
    def workspace_fn(self) -> str:
        return f"{self.name}GetWorkspaceSize"

    def prototype(self) -> str:
        params = [a.declaration() for a in self.args]
        params += ["uint64_t *workspaceSize", "aclOpExecutor **executor"]
        return f"aclnnStatus {self.workspace_fn}({', '.join(params)})"


@dataclass(frozen=True)
class Op:
    op_type: str
    snake_name: str
    inputs: tuple[TensorParam, ...]
    outputs: tuple[TensorParam, ...]
    attrs: tuple[Attr, ...]
    compute: dict[str, expr.Node] = field(default_factory=dict)  # output -> compute tree
    golden: dict[str, str] = field(default_factory=dict)  # output -> torch source (float64)
    aclnn: Aclnn | None = None  # None: CANN's aclnn generator cannot express the op
    aclnn_missing_reason: str = ""
    torch_schema: str = ""
    json_path: str = "$"  # where the op stands in its prototype file: $ or $[i]
    # the ratio standard's level for the precision tests ("opgen": {"precision": ...})
    precision: str = "L0"
    # rsqrt/reciprocal/number / tensor as Rsqrt and Reciprocal ("opgen": {"fast_math": true})
    fast_math: bool = False
    # extra precision cases, each the shape of every input given ("opgen": {"test_shapes"})
    test_shapes: tuple[dict[str, tuple[int, ...]], ...] = ()
    # an output reduced over the row keeps the last axis as 1 ("opgen": {"keepdim": true})
    keepdim: bool = False
    # output -> the part of it the op defines, a subscript such as "[:1]" ("opgen": {"defined"})
    defined: dict[str, str] = field(default_factory=dict)
    # an index op's shell's compute, planned apart (planning/project.py: the shell has none):
    # which inputs an op without outputs overwrites, which attrs the call reads
    apart: dict[str, expr.Node] = field(default_factory=dict)

    @property
    def tensors(self) -> tuple[TensorParam, ...]:
        return self.inputs + self.outputs

    @property
    def dtype_combinations(self) -> tuple[tuple[str, ...], ...]:
        """Per supported combination, the dtype of every input then every output."""
        return tuple(zip(*(t.dtypes for t in self.tensors), strict=True))

    @property
    def is_elementwise(self) -> bool:
        return bool(self.compute) and not self.is_row and not self.is_matmul and not self.is_index

    @property
    def matmul(self) -> expr.Matmul | None:
        """The op's matmul(a, b) (a matmul op has one, in its one output's expression)."""
        for tree in self.compute.values():
            for node in expr.walk(tree):
                if isinstance(node, expr.Matmul):
                    return node
        return None

    @property
    def expand(self) -> expr.Expand | None:
        """The op's expand(x, size) (an expand op has one, its one output's whole expression):
        its output's shape comes from the size."""
        for tree in self.compute.values():
            if isinstance(tree, expr.Expand):
                return tree
        return None

    @property
    def index_call(self) -> expr.IndexCall | None:
        """The op's index call (an index op's outputs are each its whole expression; topk's and
        sort's two may take .values and .indices of one call)."""
        for tree in self.compute.values():
            if isinstance(tree, expr.IndexCall):
                return tree
        return None

    @property
    def is_index(self) -> bool:
        """Is the op an index op (frontend/index_ops.py): its kernel the index library's
        template of its kind, its tests shaped as a matmul's (test_shapes and the golden)?"""
        return self.index_call is not None

    @property
    def is_matmul(self) -> bool:
        """Does the op multiply matrices on the cube unit (matmul(a, b) and an epilogue)? Its
        kernel, tiling and InferShape are generated; like an op the user computes, its tests
        take the inputs' shapes from test_shapes and the outputs' from the golden."""
        return self.matmul is not None

    @property
    def shaped_by_golden(self) -> bool:
        """Do the op's fake kernel and tests take the output shapes from the golden and the
        inputs' from test_shapes (no elementwise or row shape rule holds)?"""
        return self.user_computed or self.is_matmul or self.is_index

    @property
    def is_row(self) -> bool:
        """Does a compute expression reduce over the last axis (the row kernel computes it)?"""
        return any(expr.has_reduce(tree) for tree in self.compute.values())

    @property
    def unread_attrs(self) -> tuple[Attr, ...]:
        """The attrs no compute expression reads, when it has some: its kernel computes the same
        whatever their values (opgen warns; the adapters refuse a value other than the default
        of an optional one)."""
        if not self.compute:  # an index op's shell: its call's
            return replace(self, compute=self.apart, apart={}).unread_attrs if self.apart else ()
        read = {
            n.name
            for tree in self.compute.values()
            for n in expr.walk(tree)
            if isinstance(n, (expr.Scalar, expr.TextCompare))
        }
        read |= {  # an index() dim's attr
            n.dim
            for tree in self.compute.values()
            for n in expr.walk(tree)
            if isinstance(n, expr.Index) and isinstance(n.dim, str)
        }
        for tree in self.compute.values():  # a reduction's dim= and keepdim= attrs
            for n in expr.reductions(tree):
                read |= {n.axes.attr, n.axes.text}
                read |= {n.keepdim} if isinstance(n.keepdim, str) else set()
        if self.matmul is not None:  # its transpose_a= and transpose_b= attrs
            read |= set(self.matmul.attrs)
        if self.expand is not None:  # expand()'s size
            read.add(self.expand.attr)
        if self.index_call is not None:  # an index call's arguments
            read |= set(self.index_call.attrs)
        # a string attr whose values are declared: the op refuses the others on every path
        read |= {a.name for a in self.checked_attrs}
        return tuple(a for a in self.attrs if a.name not in read)

    @property
    def fixed_attrs(self) -> tuple[Attr, ...]:
        """The unread attrs whose value the PyTorch op checks: the optional ones, of every type,
        which must keep their default (another value would be ignored silently)."""
        return tuple(a for a in self.unread_attrs if not a.required)

    @property
    def checked_attrs(self) -> tuple[Attr, ...]:
        """The string attrs with declared values ("opgen": {"values"}), which the generated op
        checks on every path (the adapters, the fake kernel, InferShape, TilingFunc)."""
        return tuple(a for a in self.attrs if a.values)

    @property
    def row_axes(self) -> expr.Axes:
        """The axes the op's reductions reduce (every reduction reduces the same ones; the
        prototype check sees to it): the kernel's row."""
        for tree in self.compute.values():
            for node in expr.reductions(tree):
                return node.axes
        return expr.LAST_AXIS

    @property
    def dims_given(self) -> bool:
        """Do the op's reductions name their axes (torch's dim=; then none of them is a plain
        last-axis sum(e), the prototype check sees to it)?"""
        return any(n.dim_given for tree in self.compute.values() for n in expr.reductions(tree))

    def output_keepdim(self, name: str) -> bool | str:
        """Does reduced output `name` keep the reduced axes as 1: its reductions' keepdim (a
        literal or a bool attr's name), or the opgen block's keepdim for reductions without
        dim=."""
        tree = self.compute.get(name)
        if tree is None or not self.dims_given:
            return self.keepdim
        broadcast = expr.broadcast_reductions(tree)
        for node in expr.reductions(tree):
            if not any(node is b for b in broadcast):
                return node.keepdim
        return self.keepdim

    def is_reduced_output(self, name: str) -> bool:
        """Has output `name` one value per row (the reduced shape)?"""
        return name in self.compute and expr.is_row_valued(self.compute[name])

    @property
    def user_computed(self) -> bool:
        """An op without a compute expression that opgen scaffolds as the user's to compute: it
        has outputs (an in-place one reaches the kernel as <name>_ref) and no complex tensors (a
        dynamic tensor reaches the kernel as a ListTensorDesc). Its kernel body, tiling and
        InferShape/InferDataType are user-owned skeletons; nothing generated assumes a shape
        rule. (Ops without compute outside this class, those without outputs or with complex
        tensors, keep opgen's elementwise stand-ins.)"""
        return (
            not self.compute
            and bool(self.outputs)
            and not any(any(d.is_complex for d in t.dtype_infos) for t in self.tensors)
        )

    @property
    def in_place_only(self) -> bool:
        """An op without outputs: it updates its (required) inputs in place."""
        return not self.outputs

    @property
    def results(self) -> tuple[TensorParam, ...]:
        """The tensors the op computes, which compute/golden give values to and the tests
        check: its outputs; for an op without outputs, one in-place stand-in output per input
        it overwrites (named as the input; the kernel copies it back to the input's GM
        address). Those inputs are the ones the compute names, or every input without a
        compute (opgen's placeholder kernel overwrites them all)."""
        if self.outputs:
            return self.outputs
        named = self.compute or self.apart
        written = [t for t in self.inputs if not named or t.name in named]
        return tuple(
            TensorParam(t.name, "required", t.dtypes, t.formats, True, "output") for t in written
        )

    def as_json(self) -> dict[str, Any]:
        return {
            "op_type": self.op_type,
            "snake_name": self.snake_name,
            "aclnn": None
            if self.aclnn is None
            else {
                "name": self.aclnn.name,
                "args": [
                    {"name": a.name, "type": a.c_type, "role": a.role, "source": a.source}
                    for a in self.aclnn.args
                ],
            },
            "torch_schema": self.torch_schema,
            "dtypes": [list(c) for c in self.dtype_combinations],
        }


@dataclass(frozen=True)
class Prototype:
    ops: tuple[Op, ...]
    warnings: tuple[str, ...] = ()
    source: str = ""  # the file it was read from, for messages
    text: str = ""  # the JSON text it was read from (the answer copier records)

    def as_json(self) -> dict[str, Any]:
        return {"ops": [op.as_json() for op in self.ops], "warnings": list(self.warnings)}


# ---------------------------------------------------------------------------------------------
# derived names and signatures
# ---------------------------------------------------------------------------------------------


def build_aclnn(
    op_type: str,
    inputs: Sequence[TensorParam],
    outputs: Sequence[TensorParam],
    attrs: Sequence[Attr],
) -> tuple[Aclnn | None, str]:
    """aclnn<Op>'s arguments by the rules of CANN's aclnn generator.

    Inputs in order (optional: <name>Optional; dynamic: aclTensorList; with an output of the
    same name: non-const <name>Ref), then attrs (float as double; an optional string or list
    attr gets "Optional"), then outputs other than in-place ones (one output: "out"; several:
    <name>Out, counting in-place ones too). An op without outputs: inputs and attrs only.
    """
    args: list[AclnnArg] = []
    output_names = {t.name for t in outputs}
    for t in inputs:
        name = names.aclnn_name(t.name)
        # Ref comes from a same-name output only: an op without outputs updates its inputs
        # through plain `const aclTensor *` parameters (the generator names them as inputs).
        if t.name in output_names:
            args.append(AclnnArg(name + "Ref", "aclTensor *", "input", t.name))
        elif t.param_type == "dynamic":
            args.append(AclnnArg(name, "const aclTensorList *", "input", t.name))
        elif t.param_type == "optional":
            args.append(AclnnArg(name + "Optional", "const aclTensor *", "input", t.name))
        else:
            args.append(AclnnArg(name, "const aclTensor *", "input", t.name))
    for a in attrs:
        info = a.info
        if info.aclnn_type is None:
            return None, (
                f"attr '{a.name}' is {a.type}, which CANN's aclnn generator does not "
                'support ("Data type of attr ... is not support")'
            )
        name = names.aclnn_name(a.name)
        if not a.required and info.aclnn_optional_suffix:
            name += "Optional"
        args.append(AclnnArg(name, info.aclnn_type, "attr", a.name))
    for t in outputs:
        if t.is_ref:
            continue  # the <name>Ref input stands for it
        # An optional output keeps these names: ascend-c.md §5's rules name no suffix for it
        # (CANN's hand-written aclnn APIs say <name>OutOptional, but opgen found no source for
        # what the generator of a custom op's API does). Its pointer is nullable on the aclnn
        # side; opgen's callers always pass a tensor.
        name = "out" if len(outputs) == 1 else names.aclnn_name(t.name) + "Out"
        c_type = "const aclTensorList *" if t.param_type == "dynamic" else "const aclTensor *"
        args.append(AclnnArg(name, c_type, "output", t.name))
    return Aclnn(f"aclnn{op_type}", tuple(args)), ""


def build_torch_schema(
    snake: str, inputs: Sequence[TensorParam], outputs: Sequence[TensorParam], attrs: Sequence[Attr]
) -> tuple[str, list[str]]:
    """The op's schema for TORCH_LIBRARY, and warnings about defaults it had to drop.

    Arguments keep the prototype order (inputs, then attrs); PyTorch rejects a positional
    argument without default after one with a default, so a default is kept only when every
    later argument has one too.
    """
    params: list[tuple[str, str | None, str]] = []  # (declaration, default, name)
    letters = iter("abcdefghijklmnopqrstuvwxyz")
    for t in inputs:
        if t.is_ref:
            params.append((f"Tensor({next(letters)}!) {t.name}", None, t.name))
        elif t.param_type == "dynamic":
            params.append((f"Tensor[] {t.name}", None, t.name))
        elif t.param_type == "optional":
            params.append((f"Tensor? {t.name}", "None", t.name))
        else:
            params.append((f"Tensor {t.name}", None, t.name))
    for a in attrs:
        default = None if a.required else torch_literal(a.type, a.default)
        params.append((f"{a.info.torch} {a.name}", default, a.name))

    warnings = []
    rendered: list[str] = []
    trailing_defaults = True
    for decl, default, name in reversed(params):
        if default is not None and trailing_defaults:
            rendered.append(f"{decl}={default}")
            continue
        if default is not None and default != "None":
            warnings.append(
                f"the PyTorch schema cannot keep the default of '{name}' because a "
                "later argument has none; callers must pass it"
            )
        elif default is None and name in {a.name for a in attrs if not a.required}:
            warnings.append(
                f"the PyTorch schema cannot express the default of '{name}'; callers must pass it"
            )
        trailing_defaults = False
        rendered.append(decl)
    rendered.reverse()

    returned = [t for t in outputs if not t.is_ref]
    kinds = ["Tensor[]" if t.param_type == "dynamic" else "Tensor" for t in returned]
    if len(kinds) == 1:
        returns = kinds[0]
    else:
        returns = "(" + ", ".join(kinds) + ")"
    return f"{snake}({', '.join(rendered)}) -> {returns}", warnings
