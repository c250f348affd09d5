"""Prototypes that exercise every corner of the PyTorch package templates."""

from __future__ import annotations

import json


def t(name, types=("fp16", "float"), param_type="required"):
    return {"name": name, "param_type": param_type, "format": ["ND"], "type": list(types)}


def attr(name, attr_type, default=None, required=False):
    entry = {"name": name, "type": attr_type, "param_type": "required" if required else "optional"}
    if not required:
        entry["default_value"] = default
    return entry


# Every attr type that aclnn takes, an optional input, awkward string defaults.
ALL_ATTRS = {
    "op": "AllAttrsCustom",
    "input_desc": [t("x"), t("bias", param_type="optional")],
    "output_desc": [t("y")],
    "attr": [
        attr("alpha", "float", 0.5),
        attr("count", "int", -3),
        attr("flag", "bool", True),
        attr("mode", "string", 'say "hi"\\ \u00e9\n'),
        attr("dims", "list_int", [1, 2]),
        attr("scales", "list_float", [0.25]),
        attr("masks", "list_bool", [True, False]),
    ],
    # every scalar attr read, so that calls may pass other values (an unread one is fixed)
    "opgen": {"compute": {"y": "x * alpha + count * flag"}},
}

# A required attr after optional ones, and list_list_int (no aclnn, no NPU adapter).
NO_ACLNN = {
    "op": "PadsCustom",
    "input_desc": [t("x")],
    "output_desc": [t("y")],
    "attr": [
        attr("scale", "float", 2.0),
        attr("pads", "list_list_int", [[1, 2]]),
        attr("level", "int", required=True),
    ],
    "opgen": {"compute": {"y": "x * scale"}},
}

# Two outputs, one with another dtype than the inputs.
TWO_OUTPUTS = {
    "op": "SplitSignCustom",
    "input_desc": [t("x", ("fp16", "float")), t("y", ("fp16", "float"))],
    "output_desc": [t("pos", ("fp16", "float")), t("neg", ("float", "fp16"))],
    "opgen": {"compute": {"pos": "max(x, 0.0) + y", "neg": "min(x, 0.0) - y"}},
}

# An input updated in place (x is an input and an output), plus a second output.
IN_PLACE = {
    "op": "AccumulateCustom",
    "input_desc": [t("x"), t("y")],
    "output_desc": [t("x"), t("z")],
    "attr": [attr("rate", "float", 0.5)],
    "opgen": {"compute": {"x": "x + rate * y", "z": "x * y"}},
}

# Only in place: the op returns nothing.
ONLY_IN_PLACE = {
    "op": "ScaleInplaceCustom",
    "input_desc": [t("x")],
    "output_desc": [t("x")],
    "attr": [attr("factor", "float", 2.0)],
    "opgen": {"compute": {"x": "x * factor"}},
}

# No outputs: the op updates its inputs in place (mutable arguments, returns nothing); compute
# names the input it overwrites (var), updates is only read.
NO_OUTPUTS = {
    "op": "ScatterMaxCustom",
    "input_desc": [t("var"), t("updates")],
    "output_desc": [],
    "attr": [attr("scale", "float", 1.0)],
    "opgen": {"compute": {"var": "max(var, updates * scale)"}},
}

# An optional output (InstanceNorm, Addcdiv): the op always computes and returns it.
OPTIONAL_OUTPUT = {
    "op": "AddcdivCustom",
    "input_desc": [t("x"), t("t1"), t("t2")],
    "output_desc": [t("y"), t("ratio", param_type="optional")],
    "attr": [attr("value", "float", 0.5)],
    "opgen": {"compute": {"y": "x * t2 * value", "ratio": "t1 / t2"}},
}

# Not elementwise, with a golden: the fake kernel runs the golden on fake tensors.
REDUCE = {
    "op": "RowSumCustom",
    "input_desc": [t("x")],
    "output_desc": [t("y")],
    "attr": [attr("dim", "int", 1)],
    "opgen": {"golden": {"y": "torch.sum(x, dim=dim)"}},
}

# A dynamic (list) input, not elementwise.
CONCAT = {
    "op": "ConcatCustom",
    "input_desc": [t("xs", param_type="dynamic")],
    "output_desc": [t("y")],
    "opgen": {"golden": {"y": "torch.cat(xs)"}},
}

# A dynamic (list) output.
CHUNKS = {
    "op": "ChunkCustom",
    "input_desc": [t("x")],
    "output_desc": [t("ys", param_type="dynamic")],
    "attr": [attr("chunks", "int", 2)],
    "opgen": {"golden": {"ys": "torch.chunk(x, chunks)"}},
}

# No compute, no golden: the fake kernel mirrors the generated InferShape.
OPAQUE = {
    "op": "OpaqueCustom",
    "input_desc": [t("x", ("int32",)), t("w", ("int32",), "optional")],
    "output_desc": [t("y", ("int32",))],
}

# Parameter names that would hide C++ namespaces.
SHADOWING = {
    "op": "ShadowCustom",
    "input_desc": [t("at"), t("std")],
    "output_desc": [t("level")],
    "attr": [attr("result", "float", 1.0)],
    "opgen": {"compute": {"level": "at + std * result"}},
}

KITCHEN_SINK = [
    ALL_ATTRS,
    NO_ACLNN,
    TWO_OUTPUTS,
    IN_PLACE,
    ONLY_IN_PLACE,
    NO_OUTPUTS,
    OPTIONAL_OUTPUT,
    REDUCE,
    CONCAT,
    CHUNKS,
    OPAQUE,
    SHADOWING,
]


def text(ops) -> str:
    return json.dumps(ops, indent=2)
