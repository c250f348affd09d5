"""The generated project's tests (`templates/tests`), as template data (`op.tests`).

`plan(op, options, torch)` prepares what `tests/test_<op>.py` prints: the op's arguments with
the value ranges the tests draw from (derived from the compute expression), the dtype
combinations, which tests cannot pass yet and why (no compute, no golden, no fake kernel, a CPU
twin that cannot run the op), the OpDef the prototype declares, and the GE node its torchair
converter must emit. Python values are printed as Python literals (`py_value`/`py_block`), so
user text (attr names, string defaults) reaches the test file only escaped.
"""

from __future__ import annotations

import math
import struct
from dataclasses import dataclass, field, replace
from typing import Any

from opgen.compiler.compute import compute_types, special_values_exact
from opgen.compiler.streams import scalar_loop_only
from opgen.frontend import defined, expr, functions, index_functions, index_ops, soc_dtypes
from opgen.frontend.broadcast import broadcast_inputs, broadcasts, updated_inputs
from opgen.frontend.catalog import DTYPES
from opgen.frontend.model import Attr, Op, TensorParam
from opgen.frontend.options import Options
from opgen.frontend.rows import named_axes, row_first_axis, row_split
from opgen.literals import py_string, py_value
from opgen.planning.layout import LINE, doc_lines, split_pieces
from opgen.planning.torch_ext import TorchData, py_dtype_tuple

# Value ranges the tests draw inputs from (uniform; integers inclusive).
FLOAT_RANGE = (-4.0, 4.0)
POSITIVE_FLOAT_RANGE = (0.5, 4.0)
INT_RANGE = (-10, 10)
SMALL_INT_RANGE = (-5, 5)  # 8-bit integers: products stay in range more often
POSITIVE_INT_RANGE = (1, 10)
# an input whose first use is spence() (NaN below 0): [0, 4] holds all four of cephes' pieces
SPENCE_RANGE = (0.0, 4.0)
# Functions defined (or finite) only for positive (or nonnegative) arguments are
# functions.Function.domain's; a tensor divisor counts too, and so does the base of a power with
# a negative or non-integer exponent.

LIST_INSTANCES = 2  # tensors in each dynamic (list) input
# Compute functions with jumps: no finite-difference gradcheck for an op that uses them.
STEP_FUNCS = functions.names(lambda f: f.step)


# ---------------------------------------------------------------------------------------------
# value ranges from the compute expression
# ---------------------------------------------------------------------------------------------


def positive_inputs(node: expr.Node) -> dict[str, str]:
    """Inputs that must be positive for the expression to be defined: those inside the argument
    of log/sqrt/rsqrt/reciprocal/log1p, of a divisor or of the base of a negative or non-integer
    power. Maps each to the first use that says so."""
    found: dict[str, str] = {}

    def tensors_in(n: expr.Node) -> list[str]:
        return [m.name for m in expr.walk(n) if isinstance(m, expr.Tensor)]

    def visit(n: expr.Node) -> None:
        # an argument that is positive (or, for sqrt and log1p, nonnegative) whatever the
        # inputs are, as in log(abs(x) + sqrt(x * x + 1)), leaves them free
        domain = functions.FUNCTIONS[n.func].domain if isinstance(n, expr.Call) else ""
        if (
            isinstance(n, expr.Call)
            and domain
            and _sign(n.args[0]) < (1 if domain == functions.NONNEGATIVE else 2)
        ):
            for name in tensors_in(n.args[0]):
                found.setdefault(name, f"{n.func}() of it")
        if isinstance(n, expr.BinOp) and n.op == "/" and _sign(n.right) < 2:
            for name in tensors_in(n.right):
                found.setdefault(name, "a division by it")
        if (
            isinstance(n, expr.Pow)
            and (n.exponent < 0 or isinstance(n.exponent, float))
            and _sign(n.base) < 2
        ):
            for name in tensors_in(n.base):
                found.setdefault(name, f"a power of it with the exponent {n.exponent!r}")
        if isinstance(n, expr.Call) and n.func == functions.POW.name and _sign(n.args[0]) < 2:
            for name in tensors_in(n.args[0]):  # any exponent: a negative or non-integer one
                found.setdefault(name, f"a power of it with the exponent {expr.show(n.args[1])}")

    for n in expr.walk(node):
        visit(n)
    return found


def _sign(n: expr.Node) -> int:
    """2 if a subexpression is positive for every input, 1 if nonnegative, else 0 (not known)."""
    if isinstance(n, expr.Const):
        return 2 if n.value > 0 else (1 if n.value == 0 else 0)
    if isinstance(n, expr.Compare):
        return 1
    if isinstance(n, expr.Pow) and isinstance(n.exponent, int) and n.exponent % 2 == 0:
        return max(1, _sign(n.base))
    if isinstance(n, expr.BinOp) and n.op == "*" and n.left == n.right:  # x * x
        return max(1, _sign(n.left))
    if isinstance(n, expr.BinOp) and n.op in "+*/":
        a, b = _sign(n.left), _sign(n.right)
        if n.op == "+":
            return max(a, b) if min(a, b) >= 1 else 0
        return min(a, b)
    if isinstance(n, expr.Call):
        sign = functions.FUNCTIONS[n.func].sign
        if sign == functions.POSITIVE:
            return 2
        if sign == functions.NONNEGATIVE:
            return max(1, _sign(n.args[0]))
        if sign == functions.SAME_AS_ARG:
            return _sign(n.args[0])
        if n.func == functions.WHERE.name:
            return min(_sign(n.args[1]), _sign(n.args[2]))
    return 0


def comparison_ties(op: Op) -> dict[str, list[Any]]:
    """Per input, what the compute compares it with directly (x > 0, x == y): numbers, and
    inputs that come before it. The tests set some of its elements equal to them."""
    order = {t.name: i for i, t in enumerate(op.inputs)}
    ties: dict[str, list[Any]] = {}
    for tree in op.compute.values():
        for n in expr.walk(tree):
            if not isinstance(n, expr.Compare):
                continue
            for a, b in ((n.left, n.right), (n.right, n.left)):
                if not isinstance(a, expr.Tensor):
                    continue
                if isinstance(b, expr.Const):
                    tie: Any = b.value
                elif isinstance(b, expr.Tensor) and order[b.name] < order[a.name]:
                    tie = b.name
                else:
                    continue
                if tie not in ties.setdefault(a.name, []):
                    ties[a.name].append(tie)
    return ties


def _int_bounds(size: int) -> tuple[int, int]:
    """The smallest and largest values of a signed integer of `size` bytes."""
    return -(2 ** (8 * size - 1)), 2 ** (8 * size - 1) - 1


def scalar_loop_ties(op: Op) -> dict[str, list[Any]]:
    """Per input of an op whose outputs are gcd() of inputs: 0 and the narrowest dtype's smallest
    value (whose abs() wraps to itself, torch's negative gcds), and 12 beside them in the inputs
    after the first, so that planted elements meet each other in every pair (the tests cycle
    through each input's values every fourth element)."""
    if not scalar_loop_only(op):
        return {}
    ties: dict[str, list[Any]] = {}
    for i, t in enumerate(op.inputs):
        low = _int_bounds(min(DTYPES[d].size for d in t.dtypes))[0]
        ties[t.name] = [0, low] if i == 0 else [low, 0, 12]
    return ties


def nan_blocked_inputs(node: expr.Node) -> set[str]:
    """Inputs inside a min/max/relu/clamp/sign/amax/amin, on targets without compare-and-select
    (compiler.compute.special_values_exact): there those take NaN by the hardware's rule (the twin's
    Max/Min return the other operand), not torch's, so the boundary cases pass them no NaN."""
    found: set[str] = set()
    for n in expr.walk(node):
        if isinstance(n, expr.Reduce) and n.func in ("amax", "amin"):
            found |= {m.name for m in expr.walk(n.arg) if isinstance(m, expr.Tensor)}
        if isinstance(n, expr.Call) and functions.FUNCTIONS[n.func].special_values:
            for arg in n.args:
                found |= {m.name for m in expr.walk(arg) if isinstance(m, expr.Tensor)}
    return found


def value_range(op: Op, name: str, positive: dict[str, str]) -> tuple[Any, Any, str]:
    """(low, high, why) of the values drawn for input `name`: one range for all its dtypes,
    the narrowest any of them needs."""
    dtypes = [DTYPES[d] for t in op.inputs if t.name == name for d in t.dtypes]
    if all(d.name == "bool" for d in dtypes):
        return 0, 1, "bool"
    if any(d.is_float or d.is_complex for d in dtypes):
        if name in positive and positive[name] == f"{functions.SPENCE.name}() of it":
            low, high = SPENCE_RANGE
            return low, high, "nonnegative: the compute takes spence() of it (its pieces in [0, 4])"
        if name in positive:
            low, high = POSITIVE_FLOAT_RANGE
            return low, high, f"positive: the compute takes {positive[name]}"
        low, high = FLOAT_RANGE
        why = "any real" if op.compute else "no compute expression to say more"
        if all(d.is_complex for d in dtypes):
            return low, high, why + "; real and imaginary parts in [-4, 4]"
        return low, high, why + "; [-4, 4] keeps exp() and x ** 4 finite in float16"
    if name in positive:
        low, high = POSITIVE_INT_RANGE
        return low, high, f"positive: the compute takes {positive[name]}"
    if scalar_loop_only(op):
        narrowest = min(dtypes, key=lambda d: d.size)
        low, high = _int_bounds(narrowest.size)
        return low, high, f"over {narrowest.name}'s range: gcd() neither overflows nor wraps"
    if any(d.name.startswith("uint") for d in dtypes):
        return 0, INT_RANGE[1], "unsigned integers in a small range"
    if any(d.size == 1 for d in dtypes):
        low, high = SMALL_INT_RANGE
        return low, high, "8-bit integers in a small range"
    low, high = INT_RANGE
    return low, high, "integers in a small range: sums and products do not overflow"


# ---------------------------------------------------------------------------------------------
# arguments, outputs, dtype combinations
# ---------------------------------------------------------------------------------------------


def attr_value(a: Attr, op: Op | None = None) -> Any:
    """The value the tests pass for an attr: its default, or a sample when it is required (the
    last axis for the attr naming the axes a row op reduces, a new leading dim for expand()'s
    size)."""
    if a.required and op is not None and op.is_row and op.row_axes.attr == a.name:
        return [-1] if a.type == "list_int" else -1
    if a.required and op is not None and op.expand is not None and op.expand.attr == a.name:
        # expand()'s size: a new leading dim of 2 over x's dims kept, x of the example's rank
        # (opgen new's printed call: 1-D, or its first test_shapes case's)
        case = op.test_shapes[0] if op.test_shapes else {}
        return [2] + [-1] * len(case.get(op.expand.x, (8,)))
    sample = index_ops.attr_sample(op, a.name) if a.required and op is not None else None
    if sample is not None:
        return sample  # an index call's argument, valid for its tests
    if a.required:
        return a.info.test_sample
    kept = index_ops.optional_attr_sample(op, a.name) if op is not None else None
    return a.default if kept is None else kept


def graph_attr_value(a: Attr, index: int) -> Any:
    """A value per attr for the converter test, unlike the default and every other attr's, so a
    swapped or dropped attr shows (exact in float32); a string attr with declared values, one of
    them."""
    if a.values:
        return next((v for v in a.values if v != a.default), a.values[0])
    kind = a.type
    if kind == "int":
        return 3 + index
    if kind == "float":
        return 0.5 + 0.25 * index
    if kind == "bool":
        return not a.default if not a.required else True
    if kind == "string":
        return f"s{index}"
    if kind == "list_int":
        return [index + 1, 2]
    if kind == "list_float":
        return [0.5, index + 0.25]
    if kind == "list_bool":
        return [True, False]
    return [[index, 1], [2]]  # list_list_int


def f32(value: float) -> float | str:
    """A float as float32 would hold it, as the twin's registry JSON prints it."""
    if math.isnan(value):
        return "nan"
    if math.isinf(value):
        return "inf" if value > 0 else "-inf"
    rounded = struct.unpack("f", struct.pack("f", value))[0]
    if math.isinf(rounded):
        return "inf" if rounded > 0 else "-inf"
    return rounded


def opdef_default(a: Attr) -> Any:
    if a.required:
        return None
    if a.type == "float":
        return f32(a.default)
    if a.type == "list_float":
        return [f32(v) for v in a.default]
    return a.default


def combination_id(combo: tuple[str, ...]) -> str:
    """The test id of a dtype combination: as the kernel variant files are named."""
    return combo[0] if len(set(combo)) == 1 else "_".join(combo)


@dataclass(frozen=True)
class Combination:
    """A dtype combination the twin's SoC registers: one COMBINATIONS entry of the tests."""

    id: str  # the test id: as the kernel variant files are named
    id_literal: str  # the test id as a Python string literal
    inputs: str  # the input dtypes as a tuple literal: (torch.float16,)
    outputs: str  # the dtypes of what the tests check, likewise
    float: bool  # a floating-point input and output: gradients
    has_float32: bool  # a float32 input, and no float narrower than float32
    has_float64: bool  # a float64 input, and no other float


@dataclass(frozen=True)
class Gradcheck:
    """The combination test_gradcheck runs in: float64, else float32 (coarser steps)."""

    dtype: str  # "float64" or "float32"
    combo: Combination


def combinations(op: Op, twin_soc: str) -> list[Combination]:
    """Per dtype combination the SoC the twin emulates (the project's first) registers: the
    input dtypes and the dtypes of what the tests check (the outputs; for an op without
    outputs, the inputs it overwrites)."""
    out = []
    n = len(op.inputs)
    positions = {t.name: i for i, t in enumerate(op.inputs)}
    for combo in op.dtype_combinations:
        if not soc_dtypes.runs_on(combo, twin_soc, op):
            continue
        ins, outs = combo[:n], combo[n:]
        if op.in_place_only:
            outs = tuple(combo[positions[t.name]] for t in op.results)
        inputs, outputs = py_dtype_tuple(ins), py_dtype_tuple(outs)
        ident = py_string(combination_id(combo))
        out.append(
            Combination(
                id=combination_id(combo),
                id_literal=ident,
                inputs=inputs,
                outputs=outputs,
                float=any(DTYPES[d].is_float for d in ins)
                and any(DTYPES[d].is_float for d in outs),
                has_float32="float32" in ins
                and all(d in ("float32", "float64") or not DTYPES[d].is_float for d in combo),
                has_float64="float64" in ins
                and all(d == "float64" or not DTYPES[d].is_float for d in combo),
            )
        )
    return out


@dataclass(frozen=True)
class TensorArgSpec:
    """A TensorArg of the OpSpec, after a comment that says why its values are what they are."""

    name: str
    why: str  # the comment's text after the name: why the values are what they are
    name_literal: str  # the input's name as a Python string literal
    low: str  # the range drawn from, as Python literals
    high: str
    kind_literal: str  # "optional" or "list" as a Python string literal; "": a tensor
    positive: bool
    ties_shown: str  # what the compute compares it with, for the comment; "": nothing
    ties_literal: str  # the same as a Python tuple literal
    # the ties are gcd()'s special values (scalar_loop_ties), not what the compute compares with
    gcd_ties: bool
    no_nan: bool  # the boundary cases pass it no NaN (min/max/... on SoCs without NaN rules)
    lacking: str  # those SoCs, for the comment


@dataclass(frozen=True)
class AttrArgSpec:
    """An AttrArg of the OpSpec, after a comment that says where its value comes from: its
    default, or (`required`) a sample value."""

    name: str
    type: str  # the attr's prototype type, for the comment
    required: bool
    name_literal: str  # the attr's name as a Python string literal
    value: str  # its value as a Python literal, wrapped after `AttrArg(<name>, ` at indent 8
    # expand(x, size)'s size: the input whose shape the tests make each value from (ExpandSize)
    expand_of: str = ""
    why: str = ""  # why an optional attr is passed another value than its default


def tensor_args(op: Op, socs: list[str]) -> list[TensorArgSpec]:
    """The OpSpec's TensorArg per input, with the values the tests draw for it."""
    positive: dict[str, str] = {}
    no_nan: set[str] = set()
    ctypes = compute_types(op)
    for tree in op.compute.values():
        for name, why in positive_inputs(tree).items():
            positive.setdefault(name, why)
        if "float" in ctypes and not special_values_exact(socs, ctypes):
            no_nan |= nan_blocked_inputs(tree)
    ties = comparison_ties(op)
    gcd_ties = scalar_loop_ties(op)
    for name, values in gcd_ties.items():
        ties.setdefault(name, []).extend(values)
    specs = []
    for t in op.inputs:
        low, high, why = value_range(op, t.name, positive)
        kind = {"optional": "optional", "dynamic": "list"}.get(t.param_type, "tensor")
        if t.is_ref:
            kind = "tensor"
            why += "; updated in place"
        if kind == "optional":
            why = "optional: left out (None) in the tests"
        if kind == "list":
            why += f"; a list of {LIST_INSTANCES} tensors"
        tie_values = [v for v in ties.get(t.name, []) if isinstance(v, str) or low <= v <= high]
        specs.append(
            TensorArgSpec(
                name=t.name,
                why=why,
                name_literal=py_string(t.name),
                low=py_value(low),
                high=py_value(high),
                kind_literal="" if kind == "tensor" else py_string(kind),
                positive=t.name in positive,
                ties_shown=", ".join(v if isinstance(v, str) else py_value(v) for v in tie_values),
                ties_literal=py_value(tuple(tie_values)),
                gcd_ties=t.name in gcd_ties,
                no_nan=t.name in no_nan,
                lacking=", ".join(s for s in socs if not special_values_exact([s], ctypes)),
            )
        )
    return specs


def attr_args(op: Op) -> list[AttrArgSpec]:
    """The OpSpec's AttrArg per attr: its default, or a sample value when it is required."""
    specs = []
    for a in op.attrs:
        name = py_string(a.name)
        specs.append(
            AttrArgSpec(
                name=a.name,
                type=a.type,
                required=a.required,
                name_literal=name,
                value=py_value(attr_value(a, op)),
                expand_of=op.expand.x if op.expand and op.expand.attr == a.name else "",
                why=index_ops.optional_attr_why(op, a.name),
            )
        )
    return specs


@dataclass(frozen=True)
class OutputSpec:
    """An Output of the OpSpec: the op returns it (at `returned`) or writes it into its input
    `updates`; ir=False: no IR output but an input an op without outputs overwrites."""

    name_literal: str  # the output's name as a Python string literal
    returned: int | None = None
    updates: int | None = None
    ir: bool = True
    # the part the op defines ("opgen": {"defined"}): its subscript as a Python string literal
    # and as an index tuple literal; "" for the whole output
    defined_literal: str = ""
    defined_index: str = ""


def output_specs(op: Op) -> list[OutputSpec]:
    """The outputs the tests check, in prototype order."""
    input_names = [t.name for t in op.inputs]
    if op.in_place_only:  # the inputs the op overwrites, which the tests check
        return [
            OutputSpec(py_string(t.name), updates=input_names.index(t.name), ir=False)
            for t in op.results
        ]
    specs, position = [], 0
    for t in op.outputs:
        part = op.defined.get(t.name, "")
        literal = py_string(part) if part else ""
        index = py_value(defined.index_of(part)) if part else ""
        if t.is_ref:
            specs.append(
                OutputSpec(
                    py_string(t.name),
                    updates=input_names.index(t.name),
                    defined_literal=literal,
                    defined_index=index,
                )
            )
        else:
            specs.append(
                OutputSpec(
                    py_string(t.name),
                    returned=position,
                    defined_literal=literal,
                    defined_index=index,
                )
            )
            position += 1
    return specs


# ---------------------------------------------------------------------------------------------
# expectations: the OpDef and the GE node
# ---------------------------------------------------------------------------------------------


def expected_opdef(op: Op, options: Options) -> dict[str, Any]:
    """What the OP_ADD registry must hold for the op, in opdef_summary()'s form (op_testing)."""

    def tensor(t: TensorParam) -> dict[str, Any]:
        return {
            "name": t.name,
            "param_type": t.param_type,
            "dtypes": [DTYPES[d].ge for d in t.dtypes],
            "formats": [f"FORMAT_{f}" for f in t.formats],
        }

    return {
        "inputs": [tensor(t) for t in op.inputs],
        "outputs": [tensor(t) for t in op.outputs],
        "attrs": [
            {"name": a.name, "type": a.type, "required": a.required, "default": opdef_default(a)}
            for a in op.attrs
        ],
        "socs": sorted(options.soc_short_names),  # registered in any order
    }


def ir_def(op: Op) -> dict[str, Any]:
    """The GE IR the op package registers, as torchair's get_registered_ir_def answers it."""
    return {
        "inputs": [[t.name, t.param_type] for t in op.inputs],
        "outputs": [
            [t.name, "dynamic" if t.param_type == "dynamic" else "required"] for t in op.outputs
        ],
        "attrs": [[a.name, a.info.ge_tag] for a in op.attrs],
    }


def graph_case(op: Op) -> dict[str, Any]:
    """The converter call of the torchair test and the GE node it must produce.

    Every tensor argument becomes a Data node named after it (list items: <name>_<i>; optional
    inputs are passed); attrs get distinct non-default values (graph_attr_value).
    """
    combo = op.dtype_combinations[0]
    args, inputs, input_desc = [], [], []
    for t, dtype in zip(op.inputs, combo, strict=False):
        ge = DTYPES[dtype].ge
        if t.param_type == "dynamic":
            names = [f"{t.name}_{i}" for i in range(LIST_INSTANCES)]
            args.append({"kind": "list", "names": names, "dtype": ge, "shape": [2, 3]})
            inputs += [f"{n}:0" for n in names]
            input_desc += [f"{t.name}{i}" for i in range(LIST_INSTANCES)]
        else:
            args.append({"kind": "tensor", "names": [t.name], "dtype": ge, "shape": [2, 3]})
            inputs.append(f"{t.name}:0")
            input_desc.append(t.name)
    attrs = {}
    for i, a in enumerate(op.attrs):
        value = graph_attr_value(a, i)
        args.append({"kind": "attr", "value": value})
        attrs[a.name] = {"type": a.type, "value": value}
    output_desc, returned = [], []
    index = 0
    for t in op.outputs:
        count = LIST_INSTANCES if t.param_type == "dynamic" else 1
        names = [f"{t.name}{i}" for i in range(count)] if t.param_type == "dynamic" else [t.name]
        output_desc += names
        if not t.is_ref:
            returned += [f"{op.op_type}:{index + i}" for i in range(count)]
        index += count
    node = {
        "type": op.op_type,
        "input": inputs,
        "input_desc": input_desc,
        "attr": attrs,
        "output_desc": output_desc,
        "returned": returned,
    }
    return {"args": args, "node": node}


# ---------------------------------------------------------------------------------------------
# the op's tests context
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class InputShape:
    """An input's shape in a precision case."""

    name_literal: str  # the input's name as a Python string literal
    dims: list[int]


@dataclass(frozen=True)
class ShapeCase:
    """A precision case with a shape per input: a SHAPE_CASES entry, a pytest.param."""

    shapes: list[InputShape]
    id_literal: str  # the test id as a Python string literal


@dataclass(frozen=True)
class TestsData:
    """Everything `tests/test_<op>.py` renders (`op.tests`); reasons are lists of string literal
    pieces, concatenated implicitly in the generated file."""

    title: list[str]
    imports: list[str]
    # the row kernel (a compute that reduces over the last axis): its precision shapes are rows,
    # and the prototype's test_shapes (per input, as literals) run too
    row: bool
    row_test_shapes: list[str]
    row_shapes: list[RowShape]
    row_layout: str  # the OpSpec's rows, as Python source ("": it needs none)
    empty_shape: str  # the fake kernel's and InferShape's case of no elements ("": none)
    row_sums: bool  # a sum() or mean(): float accumulation overflows at float32's extremes
    expressions: list[ShownExpression]  # what the file docstring shows
    package: str
    op_path: str
    infer_path: str
    golden_name: str  # <package>.golden's function of the op
    uses_overrides: bool
    user_module: str
    op_type_literal: str
    tensor_args: list[TensorArgSpec]  # the OpSpec's args: these, then the attrs'
    attr_args: list[AttrArgSpec]
    outputs: list[OutputSpec]
    combinations: list[Combination]
    float_combinations: list[Combination]
    has_compute: bool
    has_golden: bool
    compute_file_literal: str
    pending_reason: list[str]
    fake_missing_reason: list[str]
    host_pending_reason: list[str]
    fake_marks: list[str]
    twin_unsupported_reason: list[str]
    differentiable: bool
    not_differentiable_reason: list[str]
    gradcheck: Gradcheck | None
    gradcheck_missing_reason: list[str]
    npu_enabled: bool
    npu_reason: list[str]
    benchmark_name: str | None  # <package>.golden's <op>_formula: the ratio standard's benchmark
    precision_level_literal: str
    has_float_input: bool  # some combination has a floating-point input: boundary cases
    expected_opdef: str
    ir_def: str
    graph_args: str
    expected_node: str
    # An op that broadcasts its inputs (opgen/frontend/broadcast.py): the different-shapes
    # test checks broadcasting instead of refusal
    broadcasts: bool = False
    # expand(x, size): the refusal test of sizes torch refuses replaces the different-shapes one
    expands: bool = False
    # precision cases with a shape per input: the prototype's test_shapes
    # of an op with a compute expression, then, for an op that broadcasts, built-in ones
    shape_cases: list[ShapeCase] = field(default_factory=list)
    # the fewest dims the op's inputs need (index(dim) of the compute names an axis of the output)
    min_rank: int = 1
    index_shapes: list[tuple[str, str]] = field(default_factory=list)  # (literal, id)
    # string attrs with declared values: each value's precision, an undeclared one's refusal
    text_attrs: list[TextAttrCase] = field(default_factory=list)


# The precision shapes of an op whose compute reads index(): matrices (the last axis no multiple
# of 32 bytes, a tall and a wide one), batched, and one a tile or core split ends mid-row.
INDEX_SHAPES = ((0, 4), (1, 1), (5, 37), (9, 3), (3, 5, 17), (2, 67, 131))


def index_shapes(rank: int) -> list[tuple[str, str]]:
    """INDEX_SHAPES with leading 1s up to `rank` dims, as (literal, id)."""
    shapes = [(1,) * (rank - len(s)) + s for s in INDEX_SHAPES]
    return [(py_value(s), "x".join(map(str, s))) for s in shapes]


def min_rank(op: Op) -> int:
    """The fewest dims of the shapes the tests give an op whose compute reads index(dim): the
    dims it names (an int attr's default)."""
    attrs = {a.name: a.default for a in op.attrs}
    rank = 1
    for tree in op.compute.values():
        for n in expr.walk(tree):
            if isinstance(n, expr.Index):
                dim = n.dim if isinstance(n.dim, int) else int(attrs.get(n.dim) or 0)
                rank = max(rank, -dim if dim < 0 else dim + 1)
    return rank


def shape_case_params(op: Op) -> list[ShapeCase]:
    """The precision cases with a shape per input: every test_shapes entry of an op with a
    compute expression, and for an op that broadcasts, a row broadcast (the others over the
    first's trailing dim), a one-element last input and a strided one."""
    if not op.is_elementwise:
        return []
    cases = [
        (
            case,
            "test-shapes-" + "-".join(n + ("x".join(map(str, s)) or "0d") for n, s in case.items()),
        )
        for case in op.test_shapes
    ]
    names = [t.name for t in broadcast_inputs(op)]
    # the inputs of the broadcast shape: those the op updates in place (which cannot grow), else
    # the first; the others broadcast to them
    updated = {t.name for t in updated_inputs(op)}
    full = [n for n in names if n in updated] or names[:1]
    others = [n for n in names if n not in full]
    if broadcasts(op) and others:
        last = others[-1]
        cases.append(({n: (5, 37) if n in full else (37,) for n in names}, "broadcast-rows"))
        cases.append(({n: (1,) if n == last else (5, 37) for n in names}, "broadcast-one-element"))
        strided = (4, 3, 33) if updated else (4, 1, 33)
        cases.append(({n: strided if n in full else (3, 1) for n in names}, "broadcast-strided"))
    return [
        ShapeCase(
            shapes=[InputShape(py_string(n), list(s)) for n, s in case.items()],
            id_literal=py_string(case_id),
        )
        for case, case_id in cases
    ]


@dataclass(frozen=True)
class Pending:
    """Why tests cannot pass yet, as prose ("" when they can)."""

    kernel: str  # the precision tests xfail (strictly) while the kernel is a placeholder
    fake: str  # no fake kernel: the tests that need one xfail (strictly)
    host: str  # the kernel's shapes may disagree with the fake kernel's (not strict)
    twin: str  # the CPU kernel refuses to run: the CPU tests are skipped


def pending_reasons(op: Op, options: Options, torch: TorchData) -> Pending:
    """What the op's tests wait for: a compute expression, a golden, a fake kernel, a twin
    that runs it."""
    compute_file = compute_file_of(op)
    overrides_file = f"{options.package}/overrides/{op.snake_name}.py"
    kernel = ""
    if not op.compute:
        kernel = (
            f"the prototype has no compute expression, so {compute_file} is opgen's "
            "placeholder that writes zeros: write the op's computation there"
        )
        if not has_golden(op):
            kernel += f", and a golden: define golden() in {overrides_file}"
        kernel += (
            f". Once these tests pass (XPASS), delete the PLACEHOLDER banner from {compute_file}"
        )
    fake = ""
    if torch.fake.mode == "none":
        fake = (
            f"opgen wrote no fake kernel ({op.op_type} has no compute and no golden "
            f"expression to take output shapes from): define fake() in "
            f"{overrides_file}"
        )
    host = ""
    if not op.compute and torch.fake.mode == "golden":
        host = (
            f"{op.op_type} has no compute expression: while {compute_file} is the "
            "placeholder, its host InferShape and kernel are opgen's elementwise "
            "stand-ins, and its fake kernel takes the output shapes from the golden, "
            "which need not be elementwise"
        )
    twin = ""
    if torch.cpu.unsupported:  # the CPU kernel is a TORCH_CHECK(false, ...)
        twin = (
            f"the CPU kernel of {op.op_type} (csrc/ops.cpp) refuses to run: it has "
            "a dynamic (list) input or output, which opgen's CPU kernels do not "
            "hand to the twin yet"
        )
    return Pending(kernel=kernel, fake=fake, host=host, twin=twin)


def compute_file_of(op: Op) -> str:
    """The op's compute header, where its kernel's computation is written."""
    return f"op_kernel/{op.snake_name}_compute.h"


def has_golden(op: Op) -> bool:
    """Whether the prototype gives a golden expression for every output."""
    return bool(op.golden) and all(t.name in op.golden for t in op.results)


def has_float_input(op: Op) -> bool:
    """Whether some dtype combination has a floating-point input (the boundary cases)."""
    return any(DTYPES[d].is_float for c in op.dtype_combinations for d in c[: len(op.inputs)])


def step_functions(op: Op) -> list[str]:
    """The compute's functions with jumps (STEP_FUNCS), sorted."""
    return sorted(
        {
            n.func
            for tree in op.compute.values()
            for n in expr.walk(tree)
            if isinstance(n, expr.Call) and n.func in STEP_FUNCS and n.is_tensor
        }
    )


def gradcheck_case(
    combos: list[Combination], torch: TorchData, steps: list[str]
) -> Gradcheck | None:
    """The combination test_gradcheck runs in, float64 before float32; None: no gradcheck (no
    backward, steps in the compute, or no combination in those dtypes throughout)."""
    if not torch.differentiable or steps:
        return None
    float64 = [Gradcheck("float64", c) for c in combos if c.has_float64]
    float32 = [Gradcheck("float32", c) for c in combos if c.has_float32]
    return next(iter(float64 + float32), None)


def gradcheck_missing(steps: list[str]) -> str:
    """Why there is no gradcheck, when there is none."""
    if steps:
        why = (
            f"the compute has steps ({', '.join(steps)}): finite differences across a jump "
            "are not the gradient; "
        )
    else:
        why = (
            "no dtype combination of the prototype is float32 or float64 throughout "
            "(the CPU kernels take only those), and finite differences in 16-bit floats "
            "measure rounding, not the gradient; "
        )
    return why + "test_backward_matches_the_float64_golden_gradient checks the backward"


@dataclass(frozen=True)
class ShownExpression:
    """An output's compute or golden expression, as the file docstring shows it."""

    kind: str  # compute | golden
    output: str
    text: str  # the expression as the prototype spells it (compute: normalized by expr.show)


def shown_expressions(op: Op) -> list[ShownExpression]:
    """The compute and golden expressions the file docstring shows, output by output."""
    shown = []
    for t in op.results:
        if t.name in op.compute:
            shown.append(ShownExpression("compute", t.name, expr.show(op.compute[t.name])))
        if t.name in op.golden:
            shown.append(ShownExpression("golden", t.name, op.golden[t.name]))
    return shown


def op_testing_imports(
    op: Op,
    torch: TorchData,
    pending: Pending,
    gradcheck: Gradcheck | None,
    float_combos: list[Combination],
) -> list[str]:
    """What test_<op>.py imports from op_testing, in ruff's isort order: constants, classes,
    functions."""
    imports = [
        "BOUNDARY_CASES",
        "BEYOND_TILES",
        "LAYOUTS",
        "OpSpec",
        "Output",
        "TensorArg",
        "check_compile",
        "check_fake_matches_host_infer",
        "check_precision",
        "opdef_summary",
        "registered_opdef",
    ]
    if op.is_row:  # rows have their own shapes (the row kernel has no multi-pass form yet)
        imports.remove("BEYOND_TILES")
    if op.attrs:
        imports.append("AttrArg")
    if op.is_row and op.dims_given and column_shapes(op):  # the long-columns case
        imports.append("SameLines")
    if op.expand is not None:
        imports.append("ExpandSize")
    if has_float_input(op):
        imports.append("has_float_input")
    else:
        imports.remove("BOUNDARY_CASES")
    if torch.differentiable:
        imports.append("check_backward")
    imports += mutable_imports(torch, gradcheck, float_combos)
    if torch.cpu.shape_checks:
        imports.append("check_expand_refused" if op.expand else "check_broadcasting")
    if op.checked_attrs:  # an undeclared value's refusal by the fake kernel and InferShape
        imports += ["fake_outputs", "host_infer"]
    if pending.kernel or pending.host:
        imports.append("kernel_is_placeholder")
    return sorted(imports, key=lambda n: (0 if n.isupper() else 1 if n[0].isupper() else 2, n))


def mutable_imports(
    torch: TorchData, gradcheck: Gradcheck | None, float_combos: list[Combination]
) -> list[str]:
    """The op_testing checks of an op that updates inputs in place."""
    if torch.mutable and torch.differentiable:  # autograd of an in-place update
        imports = [
            "check_autograd_registration",
            "check_compile_backward",
            "check_leaf_update_refused",
            "updating_copies",
        ]
        return imports + (["out_of_place"] if gradcheck else [])
    if torch.mutable and float_combos:
        return ["check_grad_refused"]
    return []


def literal_pieces(text: str) -> list[str]:
    """A reason as the string literals of an implicit concatenation (none when it is "")."""
    return [py_string(p) for p in split_pieces(text)]


def title_lines(op: Op, torch: TorchData) -> list[str]:
    """The first lines of the file docstring: what the file tests."""
    title = (
        f"{op.op_type} ({torch.op_path}): precision on the CPU twin, the PyTorch "
        "registration, the OpDef, the torchair converter, and precision on an NPU where "
        "there is one."
    )
    return doc_lines(title, LINE - 4)


def sums_in_rows(op: Op) -> bool:
    """A sum() or mean(): float accumulation overflows at float32's extremes."""
    return any(
        isinstance(n, expr.Reduce) and n.func in ("sum", "mean")
        for tree in op.compute.values()
        for n in expr.walk(tree)
    )


@dataclass(frozen=True)
class RowShape:
    """A precision shape of a row op (SHAPES' pytest.param)."""

    literal: str  # the shape as a Python tuple
    id: str
    comment: str = ""
    same_lines: bool = False  # every input repeats its first line (op_testing.SameLines)


def tested_row_dims(op: Op) -> tuple[int, ...]:
    """The axes the row op reduces in its tests: its dim=, or the value the tests pass for the
    attr that names them."""
    axes = op.row_axes
    if not axes.attr:
        return axes.dims
    value = attr_value(next(a for a in op.attrs if a.name == axes.attr), op)
    return tuple(value) if isinstance(value, list) else (value,)


def row_layout(op: Op) -> tuple[int, int] | None:
    """How many axes of rows, then of a row (those its reductions' dim= names, the last ones),
    the inputs of the row op's tests have, when the tests' usual shapes (rows, then a row on
    the last axis) are not all of a rank its dims take: the fewest dims where they are the last
    ones and, if they can be, after an axis of rows. None: they fit as they are."""
    if not op.is_row:
        return None
    dims = tested_row_dims(op)
    if all(isinstance(row_split((2,) * r, dims), tuple) for r in range(1, 9)):
        return None
    firsts = [(r, row_first_axis((2,) * r, dims)) for r in range(1, 9)]
    valid = [(r, f) for r, f in firsts if f is not None]
    rank, first = next(((r, f) for r, f in valid if f >= 1), valid[0])
    return first, rank - first


def empty_shape(op: Op) -> str:
    """A shape of no elements for the tests that compare the fake kernel with InferShape: no
    rows, rather than rows of no elements, which the row kernel refuses ("": there is none, the
    op reduces every axis)."""
    if min_rank(op) > 1:
        return index_shapes(min_rank(op))[0][0]
    if not op.is_row or not op.dims_given or row_layout(op) is not None:
        return "(0, 4)"  # fit_rows keeps its rows
    dims = tested_row_dims(op)
    if not dims:
        return ""
    for shape in ((0, 4), (4, 0), (4, 3, 0), (0, 4, 3)):
        split = row_split(shape, dims)
        if isinstance(split, tuple) and split[1] > 0:
            return py_value(shape)
    return "(0, 4)"


def column_shapes(op: Op) -> list[RowShape]:
    """Shapes where the reduced axes have more after them (the kernel's column mode), when the
    dims the tests reduce are such axes of some rank: lines of 37 values, and lines wider than
    the UB holds (in tiles across them)."""
    dims = tested_row_dims(op)
    for rank in range(2, 9):
        shape = (3, 5, 17, 4, 3, 2, 2, 2)[:rank]
        split = row_split(shape, dims)
        if isinstance(split, tuple) and split[2] > 1:
            last = [a for a in range(rank) if a not in named_axes(shape, dims)][-1]
            narrow = tuple(37 if a == last else n for a, n in enumerate(shape))
            wide = tuple(20000 if a == last else 2 for a in range(rank))
            names = [t.name for t in op.inputs]  # every input that shape (as it is, unfitted)
            return [
                RowShape(py_value(dict.fromkeys(names, narrow)), "columns", "the column mode"),
                RowShape(py_value(dict.fromkeys(names, wide)), "columns-wider-than-ub", ""),
                RowShape(
                    py_value(dict.fromkeys(names, long_columns(shape, dims))),
                    "long-columns",
                    "lines of one value per column: sums add them accurately",
                    same_lines=True,
                ),
            ]
    return []


# The lines of the long-columns case: a float32 tile that adds them one at a time drifts by some
# 3e-4 of the sum (the threshold standard allows 1.2e-4); the kernel's cascade stays near 6e-6.
LONG_COLUMN = 65536


def long_columns(shape: tuple[int, ...], dims: tuple[int, ...]) -> tuple[int, ...]:
    """`shape` with LONG_COLUMN lines (its first reduced axis; the other reduced axes 1) of 16
    values (its last axis; the others 1)."""
    reduced = sorted(named_axes(shape, dims))
    rank = len(shape)
    return tuple(
        LONG_COLUMN if a == reduced[0] else 16 if a == rank - 1 else 1 for a in range(rank)
    )


def fit_rows(shape: tuple[int, ...], layout: tuple[int, int]) -> tuple[int, ...]:
    """`shape` (rows, then a row on its last axis) laid out on `layout`'s axes of rows and of a
    row: the generated op_testing.fit_rows, which the tests' shapes go through."""
    lead, row = layout
    *rows, last = shape or (1,)
    if lead == 0:
        return (*(1,) * (row - 1), math.prod(rows) * last)
    if len(rows) < lead:
        rows = [1] * (lead - len(rows)) + rows
    cut = len(rows) - lead + 1
    return (math.prod(rows[:cut]), *rows[cut:], *(1,) * (row - 1), last)


# A row op's precision shapes: (rows, row length, id, comment).
ROW_CASES = [
    (1, 1, "row-of-1", ""),
    (1, 37, "row-of-37", "no multiple of 32 bytes in any dtype"),
    (1, 4096, "row-of-4096", ""),
    (2, 40000, "rows-longer-than-ub", "in chunks, over several passes"),
    (300, 37, "many-short-rows", ""),
]


def row_shapes(op: Op) -> list[RowShape]:
    """The shapes of the precision sweep of a row op: rows of several lengths, many short rows
    and an input of several dims, each side (x [rows, row] for the last axis; laid out on
    row_layout's axes where that is not the row)."""
    shapes: list[tuple[int, ...]] = [(r, n) if r > 1 else (n,) for r, n, _, _ in ROW_CASES]
    cases = [(case[2], case[3]) for case in ROW_CASES]
    layout = row_layout(op)
    if layout is None:
        shapes.append((3, 5, 17))
        cases.append(("3d", ""))
    else:
        shapes = [fit_rows(shape, layout) for shape in shapes]
        lead, row = layout
        shapes.append(tuple([3, 5, 2, 2][:lead] + [17, 4, 3, 2][:row]))
        cases.append((f"{lead + row}d", ""))
    rows = [RowShape(py_value(s), c[0], c[1]) for s, c in zip(shapes, cases, strict=True)]
    return rows + column_shapes(op) if op.dims_given else rows


def row_test_shapes(op: Op) -> list[str]:
    """The prototype's test_shapes of a row op, as literals (a dict of shapes per case)."""
    if not op.is_row:
        return []
    return [py_value({n: list(v) for n, v in case.items()}) for case in op.test_shapes]


@dataclass(frozen=True)
class TextAttrCase:
    """A string attr with declared values ("opgen": {"values"}): the precision tests pass each
    value, and a refusal test one it does not declare."""

    name: str  # an identifier: the tests' names take it
    name_literal: str
    values: str  # as a Python list literal
    undeclared: str  # a value outside them, as a Python string literal
    message: str  # the refusal's start, as a Python string literal of a regular expression
    # It chooses the output's shape (frontend/choices.py): each value over the op's SHAPES, and
    # the fake kernel against InferShape for each.
    shapes: bool = False


def text_attr_cases(op: Op) -> list[TextAttrCase]:
    cases = []
    for a in op.checked_attrs:
        undeclared = "undeclared"
        while undeclared in a.values:
            undeclared += "_"
        # names are identifiers and the value letters: the message holds no regex syntax
        message = f"{op.op_type}: {a.name}={undeclared!r} is not one of its values"
        values = py_value(list(a.values))
        cases.append(
            TextAttrCase(
                a.name,
                py_string(a.name),
                values,
                py_string(undeclared),
                py_string(message),
                shapes=op.is_row and op.row_axes.text == a.name,
            )
        )
    return cases


def plan(op: Op, options: Options, torch: TorchData) -> TestsData:
    """What the op's test file prints (`op.tests`)."""
    pending = pending_reasons(op, options, torch)
    combos = combinations(op, options.soc_short_names[0])
    float_combos = [c for c in combos if c.float]
    steps = step_functions(op)
    gradcheck = gradcheck_case(combos, torch, steps)
    graph = graph_case(op)
    layout = row_layout(op)
    return TestsData(
        title=title_lines(op, torch),
        row=op.is_row,
        row_sums=sums_in_rows(op),
        row_test_shapes=row_test_shapes(op),
        row_shapes=row_shapes(op) if op.is_row else [],
        row_layout=py_value(layout) if layout else "",
        empty_shape=empty_shape(op),
        imports=op_testing_imports(op, torch, pending, gradcheck, float_combos),
        expressions=shown_expressions(op),
        package=options.package,
        op_path=torch.op_path + ".default",
        infer_path=torch.introspection.op_path,
        golden_name=torch.py_name,  # from <package> import golden
        # from <package>.overrides import <op> as overrides, when a test looks into it
        uses_overrides=bool(pending.fake or (pending.kernel and not has_golden(op))),
        user_module="overrides",
        op_type_literal=py_string(op.op_type),
        tensor_args=tensor_args(op, options.soc_short_names),
        attr_args=attr_args(op),
        outputs=output_specs(op),
        combinations=combos,
        float_combinations=float_combos,
        has_compute=bool(op.compute),
        has_golden=has_golden(op),
        compute_file_literal=py_string(compute_file_of(op)),
        pending_reason=literal_pieces(pending.kernel),
        fake_missing_reason=literal_pieces(pending.fake),
        host_pending_reason=literal_pieces(pending.host),
        # the marks of the tests that compare the kernel's output shapes with the fake kernel's
        fake_marks=(["NEEDS_FAKE"] if pending.fake else [])
        + (["PENDING_HOST"] if pending.host else []),
        twin_unsupported_reason=literal_pieces(pending.twin),
        differentiable=torch.differentiable,
        not_differentiable_reason=literal_pieces(f"no backward: {torch.not_differentiable_reason}"),
        gradcheck=gradcheck,
        gradcheck_missing_reason=literal_pieces(gradcheck_missing(steps)),
        benchmark_name=torch.golden.formula if torch.golden.complete else None,
        precision_level_literal=py_string(op.precision),
        min_rank=min_rank(op),
        index_shapes=index_shapes(min_rank(op)) if min_rank(op) > 1 else [],
        has_float_input=has_float_input(op),
        npu_enabled=torch.npu.enabled,
        npu_reason=literal_pieces(f"no NPU kernel: {torch.npu.reason}"),
        expected_opdef=py_value(expected_opdef(op, options)),
        ir_def=py_value(ir_def(op)),
        graph_args=py_value(graph["args"]),
        expected_node=py_value(graph["node"]),
        **extra_cases(op),
    )


def extra_cases(op: Op) -> dict[str, Any]:
    """The precision cases beyond the default sweep: the prototype's test_shapes (and, for an op
    that broadcasts, built-in ones), and each declared value of a string attr."""
    return {
        "broadcasts": broadcasts(op),
        "expands": op.expand is not None,
        "shape_cases": shape_case_params(op),
        "text_attrs": text_attr_cases(op),
    }


def index_ranges(data: TestsData, op: Op) -> TestsData:
    """An index op's tests (planned for its shell, an op without compute): the index input drawn
    in [0, the indexed dim's size) (duplicates come with more draws than values), and the attrs
    the call reads passed values its test shapes take; the data inputs drawn from the function's
    data_range where it has one (cross: int8 products that wrap)."""
    call = op.index_call
    assert call is not None
    tensor = index_ops.range_tensor(call)
    bound = index_ops.index_range(op)
    data_range = index_functions.FUNCTIONS[call.func].data_range
    args = [
        replace(
            a,
            why=f"indices drawn in [0, {bound}), the smallest size {call.show()} indexes in the "
            "test cases (out-of-range ones are refused, as torch refuses them)",
            low="0",
            high=str(bound - 1),
        )
        if a.name == tensor
        else a
        for a in data.tensor_args
    ]
    if data_range is not None:
        low, high, why = data_range
        args = [
            replace(a, why=why, low=repr(float(low)), high=repr(float(high)))
            if a.name in (call.x, call.src)
            else a
            for a in args
        ]
    return replace(data, tensor_args=args, attr_args=attr_args(op))
