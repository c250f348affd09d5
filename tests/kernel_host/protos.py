"""Prototypes the kernel/host template tests render (besides examples/ and the shared protos)."""

from __future__ import annotations

import json


def tensor(name, types, param_type="required", fmt="ND"):
    return {"name": name, "param_type": param_type, "format": [fmt], "type": list(types)}


def op(op_type, inputs, outputs, attrs=(), compute=None, golden=None):
    data = {
        "op": op_type,
        "input_desc": list(inputs),
        "output_desc": list(outputs),
        "attr": list(attrs),
    }
    block = {}
    if compute:
        block["compute"] = compute
    if golden:
        block["golden"] = golden
    if block:
        data["opgen"] = block
    return data


FLOATS = ("fp16", "float", "bf16")

SILU = op(
    "SiluCustom",
    [tensor("x", FLOATS)],
    [tensor("y", FLOATS)],
    compute={"y": "x * sigmoid(x)"},
    golden={"y": "torch.nn.functional.silu(x)"},
)

# rsqrt(), reciprocal() and scalar / tensor lowered exactly (Duplicate + Div, Sqrt), never to
# the Rsqrt and Reciprocal instructions that miss the precision standard.
RECIP = op(
    "RecipCustom",
    [tensor("x", ("float", "fp16"))],
    [tensor("y", ("float", "fp16"))],
    compute={"y": "rsqrt(abs(x) + 1) + 2 / (x * x + 1) - reciprocal(abs(x) + 0.5)"},
)

# Two outputs sharing exp(x); scalar math of attrs (exp(alpha) on the host, y / k as a multiply
# by 1.0f / k), a bool attr, Mins, Max, scalar - tensor and scalar / tensor.
TWO_OUT = op(
    "TwoOutCustom",
    [tensor("x", ("fp16", "float")), tensor("y", ("fp16", "float"))],
    [tensor("s", ("fp16", "float")), tensor("d", ("fp16", "float"))],
    attrs=[
        {"name": "alpha", "param_type": "optional", "type": "float", "default_value": 0.5},
        {"name": "k", "param_type": "optional", "type": "int", "default_value": 3},
        {"name": "flag", "param_type": "optional", "type": "bool", "default_value": True},
    ],
    compute={
        "s": "exp(x) * exp(alpha) + y / k",
        "d": "min(exp(x), 4.0) + 2 / (1 + x * x) + max(y, x) * flag - (0.5 - y)",
    },
)

# An output updated in place: x is both an input and an output (kernel parameter x_ref).
INPLACE = op(
    "ScaleInplaceCustom",
    [tensor("x", ("float", "fp16"))],
    [tensor("x", ("float", "fp16"))],
    attrs=[{"name": "scale", "param_type": "required", "type": "float"}],
    compute={"x": "x * scale + 1"},
)

# No outputs: the op updates its inputs in place. compute names the inputs it overwrites (acc);
# x is only read. The kernel streams acc back to its own GM address.
IN_PLACE_ONLY = op(
    "AccumulateCustom",
    [tensor("acc", ("float", "fp16")), tensor("x", ("float", "fp16"))],
    [],
    attrs=[{"name": "alpha", "param_type": "optional", "type": "float", "default_value": 0.5}],
    compute={"acc": "acc + alpha * x"},
)

# An optional output (InstanceNorm, Addcdiv): OpDef OPTIONAL, computed like a required one.
OPTIONAL_OUT = op(
    "AddcdivCustom",
    [
        tensor("x", ("float", "fp16")),
        tensor("t1", ("float", "fp16")),
        tensor("t2", ("float", "fp16")),
    ],
    [tensor("y", ("float", "fp16")), tensor("ratio", ("float", "fp16"), "optional")],
    attrs=[{"name": "value", "param_type": "optional", "type": "float", "default_value": 0.5}],
    compute={"y": "x * t2 * value", "ratio": "t1 / t2"},
)

# No outputs and no compute: the placeholder step overwrites every input with zeros.
IN_PLACE_STUB = op("ScatterStubCustom", [tensor("var", ("float",)), tensor("idx", ("int32",))], [])

# Integer compute: int16 relu has no Relu API (Maxs 0 instead); abs of ints is max(v, -v).
INT_MIX = op(
    "IntMixCustom",
    [tensor("x", ("int16", "int32")), tensor("y", ("int16", "int32"))],
    [tensor("z", ("int16", "int32"))],
    attrs=[{"name": "k", "param_type": "optional", "type": "int", "default_value": 2}],
    compute={"z": "relu(x - y) * 3 + max(x, 2) - abs(y) * k + x ** 2"},
)

# Both high-level APIs; rendered for ascend910b1 + ascend310b1, where Tanh and Sigmoid are
# missing, so the compute step carries an __NPU_ARCH__ == 3002 branch that uses Exp.
TANH_SIGMOID = op(
    "TanhSigmoidCustom",
    [tensor("x", ("float", "fp16"))],
    [tensor("y", ("float", "fp16"))],
    compute={"y": "tanh(x) * sigmoid(x) + x / (1 + x * x)"},
)

# Optional and dynamic inputs next to required ones; only required tensors are streamed.
OPTIONAL_DYNAMIC = op(
    "OptDynCustom",
    [
        tensor("x", ("fp16", "float")),
        tensor("bias", ("fp16", "float"), "optional"),
        tensor("extras", ("fp16", "float"), "dynamic"),
        tensor("y", ("fp16", "float")),
    ],
    [tensor("z", ("fp16", "float"))],
    compute={"z": "x * y + 1"},
)

# Attrs of every type, required and optional, with defaults that need escaping.
ALL_ATTRS = op(
    "AllAttrsCustom",
    [tensor("x", ("float",))],
    [tensor("y", ("float",))],
    attrs=[
        {"name": "i_req", "param_type": "required", "type": "int"},
        {"name": "f_opt", "param_type": "optional", "type": "float", "default_value": 0.01},
        {"name": "b_opt", "param_type": "optional", "type": "bool", "default_value": True},
        {
            "name": "s_opt",
            "param_type": "optional",
            "type": "string",
            "default_value": 'a "quoted" \\ path\n',
        },
        {"name": "li_opt", "param_type": "optional", "type": "list_int", "default_value": [1, 2]},
        {
            "name": "lf_opt",
            "param_type": "optional",
            "type": "list_float",
            "default_value": [0.5, -1.25],
        },
        {
            "name": "lb_opt",
            "param_type": "optional",
            "type": "list_bool",
            "default_value": [True, False],
        },
        {
            "name": "lli_opt",
            "param_type": "optional",
            "type": "list_list_int",
            "default_value": [[1, 2], [3]],
        },
        {"name": "s_req", "param_type": "required", "type": "string"},
        {"name": "tileLength", "param_type": "optional", "type": "int", "default_value": 7},
    ],
    compute={"y": "x * f_opt + i_req - tileLength * b_opt"},
)

# A dynamic (list) output and a second output without compute: the stub path.
DYNAMIC_OUT = op(
    "DynOutCustom",
    [tensor("x", ("fp16", "int8"))],
    [tensor("parts", ("fp16", "int8"), "dynamic"), tensor("y", ("fp16", "int8"))],
)

# Names that collide with identifiers the generated code uses.
NAME_CLASH = op(
    "NameClashCustom",
    [tensor("count", ("float",)), tensor("scratch", ("float",)), tensor("offset", ("float",))],
    [tensor("tmp0", ("float",)), tensor("op", ("float",))],
    compute={"tmp0": "exp(count) * scratch + offset", "op": "tanh(count + offset)"},
)


def text(*ops) -> str:
    return json.dumps(list(ops), indent=1)


# The richer grammar (sign, floor, ceil, clamp, log1p, expm1, erf, real powers). The first three
# are rendered for ascend910b1 + ascend310b1: 310B lacks Sign and Power, so their compute steps
# carry an __NPU_ARCH__ == 3002 branch through basic APIs. ROUNDING needs Floor, Ceil and Erf,
# which have no fallback: ascend910b1 only.
LOG1P_EXPM1 = op(
    "Log1pExpm1Custom",
    [tensor("x", FLOATS)],
    [tensor("a", FLOATS), tensor("b", FLOATS)],
    compute={"a": "log1p(x)", "b": "expm1(x)"},
)
POWERS = op(
    "PowersCustom",
    [tensor("x", ("float", "fp16"))],
    [tensor("y", ("float", "fp16"))],
    compute={"y": "x ** -1.5 + x ** 3.7 + x ** 0.5 * x ** 5 + x ** (1 / 3)"},
)
SIGN_CLAMP = op(
    "SignClampCustom",
    [tensor("x", ("float", "fp16")), tensor("y", ("float", "fp16"))],
    [tensor("z", ("float", "fp16"))],
    attrs=[{"name": "hi", "param_type": "optional", "type": "float", "default_value": 0.75}],
    compute={"z": "sign(x) * clamp(y, -0.5, hi)"},
)
ROUNDING = op(
    "RoundingCustom",
    [tensor("x", FLOATS)],
    [tensor("y", FLOATS)],
    compute={"y": "floor(x * 3) + ceil(x) + erf(x)"},
)
