"""Read a prototype JSON file, validate it, and build the model.

Validation runs in two passes that report in one format (a `Problem` per finding), after
msopgen's looser spellings are rewritten into the canonical form (`spelling.py`, with warnings):
1. the JSON Schema (`schema/op.schema.json`), with jsonschema's messages rewritten in the
   prototype's terms and a "did you mean" for near misses;
2. the rules a schema cannot express: msopgen's own checks, made errors where msopgen only warns
   and would then write a broken project, plus opgen's (ascend-c.md §1.2).
Every problem is collected before anything fails, so the user fixes the file in one round.
"""

from __future__ import annotations

import functools
import json
import math
from collections.abc import Callable, Iterable
from dataclasses import replace
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

from opgen.frontend import (
    broadcast,
    choices,
    defined,
    expands,
    expr,
    functions,
    index_functions,
    index_ops,
    matmuls,
    names,
    reductions,
    rows,
    spelling,
    text_attrs,
)
from opgen.frontend.catalog import (
    ATTR_TYPES,
    DTYPE_ALIASES,
    DTYPE_SUGGESTIONS,
    DTYPES,
    NO_ELEMENT_TYPE,
    UNSUPPORTED_ATTR_TYPES,
    UNSUPPORTED_DTYPES,
)
from opgen.frontend.model import (
    Aclnn,
    Attr,
    Op,
    Prototype,
    TensorParam,
    build_aclnn,
    build_torch_schema,
    dtype_macro_base,
)
from opgen.frontend.problems import (
    Problem,
    PrototypeError,
    did_you_mean,
    key_path,
    number_text,
    short_json,
)
from opgen.resources import schema_path

if TYPE_CHECKING:
    from jsonschema import Draft202012Validator, ValidationError

INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1
Tensors = tuple[TensorParam, ...]  # an op's inputs or outputs


def load(path: str | Path) -> Prototype:
    """Validate the prototype file at `path` and return its model; raise PrototypeError."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise PrototypeError([Problem("$", f"no such file: {path}")], str(path)) from None
    except IsADirectoryError:
        raise PrototypeError(
            [Problem("$", f"{path} is a directory, not a JSON file")], str(path)
        ) from None
    except UnicodeDecodeError as exc:
        raise PrototypeError(
            [Problem("$", f"not UTF-8 text: {exc.reason} at byte {exc.start}")], str(path)
        ) from None
    except OSError as exc:
        raise PrototypeError(
            [Problem("$", f"cannot read {path}: {exc.strerror}")], str(path)
        ) from None
    return loads(text, source=str(path))


def loads(text: str, source: str = "<string>") -> Prototype:
    data = parse_json(text, source)
    return from_data(data, source, text)


def parse_json(text: str, source: str = "<string>") -> Any:
    """json.loads that reports line and column, rejects NaN/Infinity and duplicate keys."""
    duplicates: list[str] = []

    def pairs(items: list[tuple[str, Any]]) -> dict[str, Any]:
        obj: dict[str, Any] = {}
        for key, value in items:
            if key in obj:
                duplicates.append(key)
            obj[key] = value
        return obj

    def bad_constant(name: str) -> Any:
        raise ValueError(f"{name} is not valid JSON")

    try:
        data = json.loads(
            text,
            object_pairs_hook=pairs,
            parse_constant=bad_constant,
            parse_int=_parse_int,
            parse_float=_parse_float,
        )
    except json.JSONDecodeError as exc:
        # some messages end in "at" ("Invalid control character at")
        _refuse(
            source,
            f"not valid JSON: {exc.msg.removesuffix(' at')} at line {exc.lineno}, "
            f"column {exc.colno} (msopgen cannot read it either)",
        )
    except ValueError as exc:
        _refuse(source, f"not valid JSON: {exc}")
    except RecursionError:
        data = None
    _check_parsed(data, duplicates, source)
    return data


def _refuse(source: str, message: str) -> NoReturn:
    raise PrototypeError([Problem("$", message)], source) from None


def _check_parsed(data: Any, duplicates: list[str], source: str) -> None:
    """What json.loads accepts but a prototype may not hold: deep nesting, integers of more
    digits than any field takes, duplicate keys."""
    depth = _depth(data) if data is not None else MAX_JSON_DEPTH + 1
    if depth > MAX_JSON_DEPTH:
        _refuse(source, f"nests more than {MAX_JSON_DEPTH} levels deep; a prototype needs about 5")
    too_long = _long_integers(data)
    if too_long:
        raise PrototypeError(too_long, source)
    if duplicates:
        keys = ", ".join(sorted(set(duplicates)))
        _refuse(
            source,
            f"duplicate key(s) in an object: {keys} (JSON readers disagree on which one wins)",
        )


MAX_JSON_DEPTH = 64  # checked before anything walks the document recursively
# Digits of a JSON integer opgen reads: more than any field takes (int64 has 19, float32's largest
# value 39, a double's 309), and below any setting of Python's int-conversion limit (640 at least).
MAX_JSON_INT_DIGITS = 600
INT64_RANGE = "-2**63 to 2**63-1"
FLOAT32_MAX = 3.4028234663852886e38
FLOAT32_MIN_SUBNORMAL = 1.401298464324817e-45


class _LongInteger:
    """A JSON integer of more than MAX_JSON_INT_DIGITS digits, reported with its JSON path."""

    def __init__(self, digits: int) -> None:
        self.digits = digits


class RoundedToZero(float):
    """A JSON number that is not 0 but reads as 0.0 (1e-400): 0.0 everywhere, and a problem
    where a number is checked (attr defaults, test_shapes)."""

    text: str

    def __new__(cls, value: float, text: str = "") -> RoundedToZero:
        obj = super().__new__(cls, value)
        obj.text = text
        return obj

    # copy.deepcopy keeps the mark: __new__ takes the text after float's one argument
    def __getnewargs__(self) -> tuple[float, str]:  # type: ignore[override]
        return float(self), self.text


def _parse_int(text: str) -> int | _LongInteger:
    digits = len(text.lstrip("-"))
    return _LongInteger(digits) if digits > MAX_JSON_INT_DIGITS else int(text)


def _parse_float(text: str) -> float:
    value = float(text)
    mantissa = text.lower().partition("e")[0]
    if value == 0 and any(c in "123456789" for c in mantissa):
        return RoundedToZero(value, text)
    return value


def _long_integers(data: Any) -> list[Problem]:
    """A problem for each integer too long to read, found without recursion (after the depth
    check), in file order."""
    found, stack = [], [(data, "$")]
    while stack:
        node, path = stack.pop()
        if isinstance(node, _LongInteger):
            found.append(
                Problem(
                    path,
                    f"an integer of {node.digits} digits; opgen reads at most "
                    f"{MAX_JSON_INT_DIGITS}, and no field of a prototype "
                    "takes a number near that size",
                )
            )
        elif isinstance(node, dict):
            stack += [(v, key_path(path, k)) for k, v in reversed(node.items())]
        elif isinstance(node, list):
            stack += [(v, key_path(path, i)) for i, v in reversed(list(enumerate(node)))]
    return found


def _depth(data: Any) -> int:
    """How deeply lists and objects nest in `data`, found without recursion."""
    deepest, stack = 0, [(data, 1)]
    while stack:
        node, depth = stack.pop()
        deepest = max(deepest, depth)
        if depth > MAX_JSON_DEPTH:
            break
        children = (
            node.values() if isinstance(node, dict) else node if isinstance(node, list) else ()
        )
        stack += [(child, depth + 1) for child in children]
    return deepest


def from_data(data: Any, source: str = "<string>", text: str | None = None) -> Prototype:
    """Validate already-parsed JSON and build the model. `text` is the JSON it was parsed from
    (copier records it); without it, the data's JSON."""
    if isinstance(data, dict):
        entries = [("$", data)]
    elif isinstance(data, list):
        if not data:
            raise PrototypeError([Problem("$", "the list holds no op")], source)
        entries = [(f"$[{i}]", op) for i, op in enumerate(data)]
    else:
        raise PrototypeError(
            [Problem("$", "a prototype is an op object or a list of op objects", data)], source
        )

    problems: list[Problem] = []
    warnings: list[str] = []
    located: list[tuple[str, Op]] = []
    for path, raw in entries:
        raw, respelt, misspelt = spelling.normalise(raw, path)
        warnings += respelt
        reported = {p.path for p in misspelt}
        found = misspelt + [p for p in schema_problems(raw, path) if p.path not in reported]
        if found:
            problems += found
            continue  # the rule pass assumes the schema's shapes
        op, found, warned = check_op(raw, path)
        problems += found
        warnings += warned
        if op is not None:
            located.append((path, op))
    problems += check_across_ops(located)
    if problems:
        raise PrototypeError(in_file_order(problems, data), source, tuple(op for _, op in located))
    if text is None:
        text = json.dumps(data, indent=2, ensure_ascii=False) + "\n"
    return Prototype(tuple(op for _, op in located), tuple(warnings), source, text)


def in_file_order(problems: list[Problem], data: Any) -> list[Problem]:
    """Sort problems by where their path first appears in the document."""
    order: dict[str, int] = {}

    def walk(node: Any, path: str) -> None:
        order.setdefault(path, len(order))
        if isinstance(node, dict):
            for key, value in node.items():
                walk(value, key_path(path, key))
        elif isinstance(node, list):
            for i, value in enumerate(node):
                walk(value, key_path(path, i))

    walk(data, "$")

    def position(problem: Problem) -> int:
        path = problem.path
        while path not in order and path != "$":
            path = path[: max(path.rfind("."), path.rfind("["))] or "$"
        return order.get(path, 0)

    return sorted(problems, key=position)  # stable: same place keeps the finding order


# ---------------------------------------------------------------------------------------------
# pass 1: the JSON Schema
# ---------------------------------------------------------------------------------------------


@lru_cache(maxsize=1)
def schema() -> dict[str, Any]:
    return json.loads(schema_path().read_text(encoding="utf-8"))


@lru_cache(maxsize=1)
def _op_validator() -> Draft202012Validator:
    from jsonschema import Draft202012Validator  # heavy import: only when validating

    s = schema()
    return Draft202012Validator({"$ref": "#/$defs/op", "$defs": s["$defs"]})


def schema_problems(op: Any, base: str) -> list[Problem]:
    out: list[Problem] = []
    for error in _op_validator().iter_errors(op):
        out += [_with_msopgen_default(p, error, op) for p in _translate(error, base)]
    return list(dict.fromkeys(out))  # drop repeats, keep order


def _with_msopgen_default(problem: Problem, error: ValidationError, op: Any) -> Problem:
    """A default_value of the wrong kind: add the OpDef call msopgen would paste it into."""
    where = list(error.absolute_path)
    if len(where) < 3 or where[0] != "attr" or where[2] != "default_value":
        return problem
    info = ATTR_TYPES.get(op["attr"][where[1]].get("type"))
    if info is None:
        return problem
    value = op["attr"][where[1]]["default_value"]
    return replace(
        problem,
        message=f"{problem.message}; msopgen would paste it into the OpDef "
        f"as .{info.opdef_method}({short_json(value)})",
    )


def _path(base: str, parts: Iterable[str | int]) -> str:
    for part in parts:
        base = key_path(base, part)
    return base


def _translate(error: ValidationError, base: str) -> list[Problem]:
    """Rewrite one jsonschema error in the prototype's terms."""
    path = _path(base, error.absolute_path)
    value = error.instance
    kind = error.validator
    sub = error.schema
    field = next((p for p in reversed(error.absolute_path) if isinstance(p, str)), "")

    if kind == "oneOf":
        return _translate_one_of(error, base)
    if kind == "additionalProperties":
        known = list(sub.get("properties", {}))
        extra = [k for k in value if k not in known]
        return [
            Problem(
                key_path(path, k),
                f"unknown key '{k}': msopgen ignores it, so what it holds would be lost",
                suggestion=_key_suggestion(k, known),
            )
            for k in extra
        ]
    if kind == "required":
        missing = [k for k in error.validator_value if k not in value]
        return [
            Problem(path, f"missing required key '{k}'{_MSOPGEN_WITHOUT.get(k, '')}")
            for k in missing
        ]
    if kind == "enum":
        return [_enum_problem(path, field, value, error.validator_value)]
    if kind == "pattern":
        hint = sub.get("x-opgen-hint", f"match {error.validator_value}")
        text = f"not a valid {field or 'value'}: must be {hint}"
        if field == "op":
            text += (
                ' (msopgen only warns "should be Upper CamelCase" and derives kernel, '
                "file and aclnn names that do not match)"
            )
        return [Problem(path, text, value)]
    if kind == "minItems":
        what = {
            "output_desc": "at least one output is required",
            "type": "lists no dtype",
            "format": "lists no format",
        }.get(field)
        return [Problem(path, what or "must not be empty", value)]
    if kind == "type":
        expected = error.validator_value
        if field == "default_value" or _in_default_value(error):
            return [
                Problem(path, f"default_value must be {_json_kind(sub)} for this attr type", value)
            ]
        return [Problem(path, f"must be {_json_type_name(expected)}", value)]
    return [Problem(path, error.message)]


# Keys real prototypes misspell -> the key they mean.
KEY_ALIASES = {
    "attr_desc": "attr",
    "attrs": "attr",
    "attribute": "attr",
    "attributes": "attr",
    "inputs": "input_desc",
    "input": "input_desc",
    "outputs": "output_desc",
    "output": "output_desc",
    "op_type": "op",
    "optype": "op",
    "default": "default_value",
    "dtype": "type",
    "dtypes": "type",
    "types": "type",
    "formats": "format",
    "paramtype": "param_type",
    "param": "param_type",
    "value": "default_value",
    "default_val": "default_value",
    "defaultvalue": "default_value",
}

# What msopgen does with an object that lacks the key.
_MSOPGEN_WITHOUT = {
    "op": ' (msopgen skips the object: "Failed to obtain the op type")',
    "name": " (msopgen drops the entry)",
}


def _key_suggestion(key: str, known: list[str]) -> str | None:
    alias = KEY_ALIASES.get(key.lower())
    return alias if alias in known else did_you_mean(key, known)


def _in_default_value(error: ValidationError) -> bool:
    return "default_value" in error.absolute_path


def _translate_one_of(error: ValidationError, base: str) -> list[Problem]:
    """type/format: a string or a list. Report the branch that fits the value's JSON type."""
    branches: dict[int, list] = {}
    for sub_error in error.context:
        branches.setdefault(sub_error.relative_schema_path[0], []).append(sub_error)
    fitting = [
        errs
        for errs in branches.values()
        if not any(e.validator == "type" and not e.relative_path for e in errs)
    ]
    if len(fitting) == 1:
        return [p for e in fitting[0] for p in _translate(e, base)]
    field = next((p for p in reversed(error.absolute_path) if isinstance(p, str)), "value")
    return [
        Problem(
            _path(base, error.absolute_path),
            f"{field} must be a string or a list of strings",
            error.instance,
        )
    ]


def _enum_problem(path: str, field: str, value: Any, allowed: list) -> Problem:
    text = value if isinstance(value, str) else None
    suggestion = did_you_mean(text, [str(a) for a in allowed]) if text else None
    if field == "type" and ".attr[" in path:
        if text in UNSUPPORTED_ATTR_TYPES:
            return Problem(
                path,
                f"attr type '{text}' has no ops::OpAttrDef method, so msopgen "
                "would write code that does not compile",
            )
        return Problem(
            path, f"unknown attr type; use one of {', '.join(ATTR_TYPES)}", value, suggestion
        )
    if field == "type" or path.rsplit(".", 1)[-1].startswith("type["):
        if text in UNSUPPORTED_DTYPES:
            return Problem(
                path,
                f"dtype '{text}' is not supported: {UNSUPPORTED_DTYPES[text]}"
                + (
                    " (msopgen accepts it; an op whose every dtype combination "
                    "holds one cannot be generated)"
                    if text in NO_ELEMENT_TYPE
                    else ""
                ),
                suggestion=None
                if "write" in UNSUPPORTED_DTYPES[text]
                else DTYPE_SUGGESTIONS.get(text),
            )
        return Problem(
            path,
            "unknown dtype: msopgen would drop it",
            value,
            (DTYPE_SUGGESTIONS.get(text.lower()) if text else None) or suggestion,
        )
    if field == "format" or path.rsplit(".", 1)[-1].startswith("format["):
        return Problem(path, "unknown format", value, suggestion)
    return Problem(path, f"must be one of {', '.join(map(str, allowed))}", value, suggestion)


def _json_type_name(expected: Any) -> str:
    if isinstance(expected, list):
        return " or ".join(_json_type_name(e) for e in expected)
    return {
        "object": "an object",
        "array": "a list",
        "string": "a string",
        "integer": "an integer",
        "number": "a number",
        "boolean": "true or false",
    }.get(expected, expected)


def _json_kind(sub: dict[str, Any]) -> str:
    if isinstance(sub.get("type"), list):  # [the canonical type, msopgen's string form, ...]
        return _json_kind({**sub, "type": sub["type"][0]}) + " (or a string holding one)"
    if sub.get("type") == "array":
        return (
            "a list of "
            + _json_kind(sub.get("items", {})).removeprefix("a ").removeprefix("an ")
            + "s"
        )
    return _json_type_name(sub.get("type"))


# ---------------------------------------------------------------------------------------------
# pass 2: rules beyond the schema
# ---------------------------------------------------------------------------------------------


def _as_list(value: Any) -> list:
    return value if isinstance(value, list) else [value]


def check_op(raw: dict[str, Any], base: str) -> tuple[Op | None, list[Problem], list[str]]:
    """Check one schema-valid op; return its model when no problem was found."""
    op_type = raw["op"]
    snake = names.snake_name(op_type)
    options = raw.get("opgen", {})
    warnings = _kernel_name_warnings(raw, base, snake)
    problems = _name_problems(raw, base)
    inputs, outputs, unpaired = _check_tensors(raw, base)
    problems += unpaired
    if not problems:
        problems += _check_combinations(base, inputs, outputs)
    problems += _check_ref_and_outputs(base, inputs, outputs)
    problems += [] if outputs else _check_without_outputs(base, inputs)

    attrs, found = _check_attrs(base, raw.get("attr", []))
    problems += found

    compute, golden, found = _check_expressions(base, options, inputs, outputs, attrs)
    problems += found
    attrs = text_attrs.with_values(attrs, options)
    problems += text_attrs.values_problems(base, options, attrs, compute)
    inputs = _updated_inputs(inputs, outputs, compute)
    if not unpaired:  # else the dtype lists' lengths may differ (a problem): no combinations
        problems += _combination_problems(base, snake, inputs, outputs, compute)
    tested, found = _check_test_options(base, options, inputs, outputs, compute)
    problems += found
    if problems:
        return None, problems, warnings

    warnings += _option_warnings(base, options, compute, golden)
    aclnn, missing = build_aclnn(op_type, inputs, outputs, attrs)
    if aclnn is None:
        warnings.append(f"{base}: {op_type} gets no aclnn API and no NPU adapter: {missing}")
    else:
        problems += _unique_aclnn_names(base, aclnn)
    schema_text, dropped = build_torch_schema(snake, inputs, outputs, attrs)
    warnings += [f"{base}: {w}" for w in dropped]
    if problems:
        return None, problems, warnings
    op = Op(
        op_type,
        snake,
        inputs,
        outputs,
        attrs,
        compute,
        golden,
        aclnn,
        missing,
        schema_text,
        json_path=base,
        precision=options.get("precision", "L0"),
        fast_math=options.get("fast_math", False),
        keepdim=options.get("keepdim", False),
        **tested,
    )
    op, problems = _checked_shapes(op)
    if problems:
        return None, problems, warnings
    return op, problems, warnings + _unread_attrs_warnings(op, base)


def _checked_shapes(op: Op) -> tuple[Op, list[Problem]]:
    """The op with opgen's matmul test cases where it gives none, and the problems of its
    test_shapes and of its shape rules' dtypes."""
    structure = index_ops.index_problems(key_path(op.json_path, "opgen"), op.compute, op.outputs)
    if structure:  # the index call's own rules first: the others assume them
        return op, structure
    if op.is_matmul and not op.test_shapes:
        op = replace(op, test_shapes=matmuls.default_test_shapes(op))
    if op.is_index and not op.test_shapes:
        op = replace(op, test_shapes=index_ops.default_test_shapes(op))
    problems = broadcast.test_shapes_problems(op) + rows.test_shapes_problems(op)
    problems += matmuls.dtype_problems(op.json_path, op) + matmuls.test_shapes_problems(op)
    problems += expands.dtype_problems(op.json_path, op)
    problems += index_ops.dtype_problems(op.json_path, op) + index_ops.test_shapes_problems(op)
    return op, problems


def _updated_inputs(inputs: Tensors, outputs: Tensors, compute: dict[str, expr.Node]) -> Tensors:
    """An op without outputs updates the inputs its compute names; the others stay read-only
    (not mutable in the PyTorch schema, not copied back)."""
    if outputs or not compute:
        return inputs
    return tuple(replace(t, is_ref=t.name in compute) for t in inputs)


def _kernel_name_warnings(raw: dict[str, Any], base: str, snake: str) -> list[str]:
    """A kernel_name other than msopgen's derived name is ignored, with a word."""
    kernel_name = raw.get("kernel_name")
    if kernel_name is None or kernel_name == snake:
        return []
    return [
        f"{key_path(base, 'kernel_name')}: '{kernel_name}' differs from '{snake}', the name "
        f"msopgen derives from '{raw['op']}'; the CANN build looks the kernel up by the derived "
        f"name, so opgen uses '{snake}'"
    ]


def _name_problems(raw: dict[str, Any], base: str) -> list[Problem]:
    """Every tensor and attr name is a usable identifier, and no name is given twice."""
    problems: list[Problem] = []
    groups = {group: raw.get(group, []) for group in ("input_desc", "output_desc", "attr")}
    for group, items in groups.items():
        for i, item in enumerate(items):
            why = names.identifier_problem(item["name"])
            if why:
                problems.append(
                    Problem(
                        key_path(key_path(key_path(base, group), i), "name"),
                        f"'{item['name']}' {why}",
                    )
                )
    return problems + _unique_names(base, *groups.values())


def _check_tensors(raw: dict[str, Any], base: str) -> tuple[Tensors, Tensors, list[Problem]]:
    """The inputs and outputs with their dtypes and formats, which must line up."""
    raw_inputs = raw.get("input_desc", [])
    raw_outputs = raw.get("output_desc", [])
    first_tensor = (raw_inputs or raw_outputs or [{"type": []}])[0]  # none: reported later
    combos = len(_as_list(first_tensor["type"]))
    first = key_path(key_path(base, "input_desc" if raw_inputs else "output_desc"), 0)
    input_names = {t["name"] for t in raw_inputs}
    output_names = {o["name"] for o in raw_outputs}
    problems: list[Problem] = []
    tensors: dict[str, list[TensorParam]] = {"input_desc": [], "output_desc": []}
    for group, items in (("input_desc", raw_inputs), ("output_desc", raw_outputs)):
        for i, t in enumerate(items):
            tpath = key_path(key_path(base, group), i)
            dtypes = [DTYPE_ALIASES[d] for d in _as_list(t["type"])]
            formats = _as_list(t.get("format", "ND"))
            if len(dtypes) != combos:
                problems.append(
                    Problem(
                        key_path(tpath, "type"),
                        f"lists {len(dtypes)} dtype(s) but {first} lists {combos}; every input "
                        "and output lists the same number (the i-th entries form one dtype "
                        "combination)",
                        t["type"],
                    )
                )
            if len(formats) not in (1, len(dtypes)):
                problems.append(
                    Problem(
                        key_path(tpath, "format"),
                        f"lists {len(formats)} formats for {len(dtypes)} dtypes; give one format, "
                        "or one per dtype",
                        t.get("format"),
                    )
                )
            if len(formats) == 1:
                formats = formats * len(dtypes)
            # In place: an output named as an input and that input; every input of an op
            # without outputs (the op updates its inputs in place).
            if group == "output_desc":
                is_ref = t["name"] in input_names
            else:
                is_ref = not raw_outputs or t["name"] in output_names
            tensors[group].append(
                TensorParam(
                    t["name"],
                    t.get("param_type", "required"),
                    tuple(dtypes),
                    tuple(formats),
                    is_ref,
                    "output" if group == "output_desc" else "input",
                )
            )
    return tuple(tensors["input_desc"]), tuple(tensors["output_desc"]), problems


def _option_warnings(
    base: str, options: dict[str, Any], compute: dict[str, expr.Node], golden: dict[str, str]
) -> list[str]:
    """Options that have no effect, or a cost the user should know of."""
    warnings = []
    level = options.get("precision")
    if level is not None and not golden:
        warnings.append(
            f"{key_path(key_path(base, 'opgen'), 'precision')}: {level} has no "
            "effect: the ratio standard compares with torch computing the golden "
            "expression in the op's dtype, and the op has no compute or golden "
            "expression (the precision tests apply the threshold standard only)"
        )
    if options.get("fast_math", False):
        warnings.append(_fast_math_warning(key_path(key_path(base, "opgen"), "fast_math"), compute))
    return warnings


def _unread_attrs_warnings(op: Op, base: str) -> list[str]:
    """Attrs no expression reads change nothing the kernel computes."""
    if not op.unread_attrs:
        return []
    listed = ", ".join(f"'{a.name}'" for a in op.unread_attrs)
    fixed = " and ".join(a.name for a in op.fixed_attrs)
    return [
        f"{key_path(base, 'attr')}: the compute expressions never read {listed}: "
        f"{op.op_type}'s kernel computes the same whatever value a call passes"
        + (f" (its PyTorch op refuses a {fixed} other than the default)" if fixed else "")
        + "; read it in an expression, or drop it"
    ]


def _fast_math_warning(path: str, compute: dict[str, expr.Node]) -> str:
    """What "fast_math": true costs, or that it changes nothing."""
    uses = sorted(
        {
            f"{n.func}()"
            for tree in compute.values()
            for n in expr.walk(tree)
            if isinstance(n, expr.Call) and functions.FUNCTIONS[n.func].fast_instr
        }
        | {
            "a number / a tensor"
            for tree in compute.values()
            for n in expr.walk(tree)
            if isinstance(n, expr.BinOp)
            and n.op == "/"
            and not n.left.is_tensor
            and n.right.is_tensor
        }
    )
    if not uses:
        return (
            f"{path}: has no effect: the compute expressions use no rsqrt(), reciprocal() "
            "or number / tensor"
        )
    return (
        f"{path}: {', '.join(uses)} use the Rsqrt/Reciprocal instructions, whose results "
        "miss the CANN precision standard (double-thousandth for float16, "
        "double-ten-thousandth for float32, per the asc-devkit docs): the precision tests "
        "may fail on an NPU although they pass on the CPU twin, which computes them exactly"
    )


def _unique_names(base: str, raw_inputs: Any, raw_outputs: Any, raw_attrs: Any) -> list[Problem]:
    problems = []
    seen: dict[str, str] = {}  # name -> path of its first use
    for group, items in (("input_desc", raw_inputs), ("attr", raw_attrs)):
        for i, item in enumerate(items):
            path = key_path(key_path(key_path(base, group), i), "name")
            name = item["name"]
            if name in seen:
                problems.append(
                    Problem(
                        path,
                        f"'{name}' is already used at {seen[name]}; input "
                        "and attr names are unique",
                    )
                )
            else:
                seen[name] = path
    attr_names = {a["name"] for a in raw_attrs}
    out_seen: dict[str, str] = {}
    for i, item in enumerate(raw_outputs):
        path = key_path(key_path(key_path(base, "output_desc"), i), "name")
        name = item["name"]
        if name in out_seen:
            problems.append(Problem(path, f"'{name}' is already used at {out_seen[name]}"))
        elif name in attr_names:
            problems.append(
                Problem(
                    path,
                    f"'{name}' is an attr name; an output may share only "
                    "an input's name (the in-place form)",
                )
            )
        out_seen.setdefault(name, path)
    # The CANN build defines DTYPE_<NAME> (DTYPE_<NAME>_REF for an in-place output): names that
    # differ only in case, or x_ref next to an in-place x, would define the same macro twice.
    input_names = {t["name"] for t in raw_inputs}
    macros: dict[str, str] = {}
    for group, items in (("input_desc", raw_inputs), ("output_desc", raw_outputs)):
        for i, item in enumerate(items):
            name = item["name"]
            ref_output = group == "output_desc" and name in input_names
            macro = f"DTYPE_{dtype_macro_base(name, ref_output).upper()}"
            path = key_path(key_path(key_path(base, group), i), "name")
            if macro in macros and macros[macro] != name:
                problems.append(
                    Problem(
                        path,
                        f"'{name}' and '{macros[macro]}' both make the "
                        f"CANN build define {macro}; rename one",
                    )
                )
            macros.setdefault(macro, name)
    return problems


def _check_combinations(base: str, inputs: Tensors, outputs: Tensors) -> list[Problem]:
    problems = []
    combos = list(zip(*(t.dtypes for t in inputs + outputs), strict=True))
    for i, combo in enumerate(combos):
        if combo in combos[:i]:
            first = combos.index(combo)
            problems.append(
                Problem(
                    base, f"dtype combination {i} ({', '.join(combo)}) repeats combination {first}"
                )
            )
    return problems


def _check_ref_and_outputs(base: str, inputs: Tensors, outputs: Tensors) -> list[Problem]:
    problems = []
    by_name = {t.name: t for t in inputs}
    for i, out in enumerate(outputs):
        path = key_path(key_path(base, "output_desc"), i)
        source = by_name.get(out.name)
        if source is None:
            continue
        if source.param_type != "required" or out.param_type != "required":
            problems.append(
                Problem(
                    path,
                    f"in-place output '{out.name}' needs a required input "
                    "and a required output of that name (CANN's aclnn "
                    "generator mistypes optional and dynamic ref params)",
                )
            )
        if source.dtypes != out.dtypes:
            problems.append(
                Problem(
                    key_path(path, "type"),
                    f"in-place output '{out.name}' must list the same dtypes as "
                    f"input '{out.name}' ({', '.join(source.dtypes)})",
                    list(out.dtypes),
                )
            )
    return problems


def _check_without_outputs(base: str, inputs: Tensors) -> list[Problem]:
    """An op without outputs updates its inputs in place (ScatterMax, ScatterElements): it
    needs an input, and only required ones can be mutable PyTorch arguments the kernel
    streams back."""
    if not inputs:
        return [
            Problem(
                key_path(base, "output_desc"),
                "an op needs at least one input or output; this one has neither",
            )
        ]
    problems = []
    input_names = {t.name for t in inputs}
    for i, t in enumerate(inputs):
        if f"{t.name}_ref" in input_names:
            # The compute step names the new value of an overwritten input <name>_ref.
            problems.append(
                Problem(
                    key_path(key_path(key_path(base, "input_desc"), i), "name"),
                    f"'{t.name}' and '{t.name}_ref' both name an input; in an op without outputs "
                    f"the kernel's compute step calls the new value of '{t.name}' {t.name}_ref; "
                    "rename one",
                )
            )
        if t.param_type != "required":
            problems.append(
                Problem(
                    key_path(key_path(key_path(base, "input_desc"), i), "param_type"),
                    f"input '{t.name}' is {t.param_type}, but an op without outputs updates its "
                    "inputs in place, and opgen supports that only for required inputs; make it "
                    "required or give the op an output",
                    t.param_type,
                )
            )
    return problems


def _check_attrs(base: str, raw_attrs: Any) -> tuple[tuple[Attr, ...], list[Problem]]:
    problems = []
    attrs = []
    for i, a in enumerate(raw_attrs):
        path = key_path(key_path(base, "attr"), i)
        required = a.get("param_type", "required") == "required"
        has_default = "default_value" in a
        if not required and not has_default:
            problems.append(
                Problem(
                    path,
                    f"optional attr '{a['name']}' needs a default_value of "
                    f"type {a['type']} (msopgen would write "
                    f".{ATTR_TYPES[a['type']].opdef_method}(None))",
                )
            )
        if has_default and not required:
            problems += _check_default_range(
                key_path(path, "default_value"), a["type"], a["default_value"]
            )
        attrs.append(
            Attr(a["name"], a["type"], required, None if required else a.get("default_value"))
        )
    return tuple(attrs), problems


def _check_default_range(path: str, attr_type: str, value: Any) -> list[Problem]:
    """Values the schema types allow but C++ cannot hold: an int attr is int64 (OpAttrDef::Int),
    a float attr a C++ float (OpAttrDef::Float), finite and not rounded to 0."""
    items = value if isinstance(value, list) else [value]
    flat = [x for item in items for x in (item if isinstance(item, list) else [item])]
    element = attr_type.removeprefix("list_").removeprefix("list_")
    for x in flat:
        if element in ("int", "float") and isinstance(x, RoundedToZero):
            return [
                Problem(
                    path,
                    f"{x.text} reads as 0 (it is below the smallest double); write 0 if 0 is meant",
                    value,
                )
            ]
        if element == "int" and not INT64_MIN <= x <= INT64_MAX:
            return [
                Problem(
                    path,
                    f"{number_text(x)} does not fit in int64 (an int attr is int64: {INT64_RANGE})",
                    value,
                )
            ]
        if element == "float" and isinstance(x, float) and not math.isfinite(x):
            return [
                Problem(
                    path,
                    "is not a finite number (JSON reads 1e309 as infinity), which "
                    "OpAttrDef::Float cannot take",
                    value,
                )
            ]
        if element == "float" and abs(x) > FLOAT32_MAX:  # int or float: no conversion
            return [
                Problem(
                    path,
                    f"{number_text(x)} does not fit in a C++ float "
                    "(OpAttrDef::Float takes float, which holds up to 3.4e38)",
                    value,
                )
            ]
        if element == "float" and x != 0 and abs(x) < FLOAT32_MIN_SUBNORMAL:
            return [
                Problem(path, "rounds to 0 in a C++ float (OpAttrDef::Float takes float)", value)
            ]
        if element == "string" and any(ord(c) < 32 and c not in "\n\t" or ord(c) == 127 for c in x):
            return [Problem(path, "holds a control character", value)]
    return []


def _check_expressions(
    base: str, block: dict[str, Any], inputs: Tensors, outputs: Tensors, attrs: tuple[Attr, ...]
) -> tuple[dict[str, expr.Node], dict[str, str], list[Problem]]:
    problems: list[Problem] = []
    compute: dict[str, expr.Node] = {}
    golden: dict[str, str] = {}
    # compute and golden name the outputs, or the inputs an op without outputs overwrites
    in_place = not outputs
    output_names = [o.name for o in outputs] or [t.name for t in inputs]
    tensors = {t.name for t in inputs if t.param_type == "required"}
    scalars = {a.name for a in attrs if a.info.is_scalar}
    others = {t.name: f"is an {t.param_type} input" for t in inputs if t.name not in tensors}
    others.update({a.name: _unusable_attr(a) for a in attrs if a.name not in scalars})
    block_path = key_path(base, "opgen")
    names = {t.name for t in inputs} | {a.name for a in attrs}
    chosen: dict[str, str] = {}  # the default golden of each output a string attr chooses
    types = {a.name: a.type for a in attrs}
    parse = functools.partial(
        expr.parse_compute, tensors=tensors, scalars=scalars, others=others, attr_types=types
    )
    for section in ("compute", "golden"):
        for out_name, text in block.get(section, {}).items():
            path = key_path(key_path(block_path, section), out_name)
            if out_name not in output_names:
                what = (
                    "an input of this op (it has no outputs: compute and golden name the "
                    "inputs it overwrites in place)"
                    if in_place
                    else "an output of this op"
                )
                problems.append(
                    Problem(
                        path,
                        f"'{out_name}' is not {what}",
                        suggestion=did_you_mean(out_name, output_names),
                    )
                )
                continue
            if section == "compute" and isinstance(text, dict):
                problems += _check_choice(
                    path, out_name, text, compute, chosen, parse, attrs, block
                )
                continue
            try:
                if section == "compute":
                    compute[out_name] = parse(text)
                else:
                    golden[out_name] = expr.parse_golden(text, names)
            except expr.ExprError as exc:
                problems.append(Problem(path, f"{section} expression: {exc}", text))
            else:
                problems += _numbers_read_as_zero(path, section, text)
    golden.update({o: expr.parse_golden(t, names) for o, t in chosen.items() if o not in golden})
    problems += _coverage_problems(block_path, compute, golden, outputs, output_names)
    keepdim = bool(block.get("keepdim", False))
    problems += reductions.reduction_problems(block_path, compute, keepdim)
    problems += matmuls.matmul_problems(block_path, compute, outputs)
    problems += expands.expand_problems(block_path, compute, inputs, outputs)
    problems += _default_goldens(block_path, compute, golden, keepdim)
    return compute, golden, problems


def _check_choice(
    path: str,
    out_name: str,
    choice: dict[str, Any],
    compute: dict[str, expr.Node],
    chosen: dict[str, str],
    parse: Callable[[str], expr.Node],
    attrs: tuple[Attr, ...],
    block: dict[str, Any],
) -> list[Problem]:
    """An output whose expression a string attr chooses (frontend/choices.py): its tree into
    `compute`, its default golden text into `chosen`."""
    tree, golden, problems = choices.parse_choice(
        path, choice, attrs, block.get("values", {}), parse
    )
    for attr_name, by_value in choice.items() if tree is not None else ():
        for value, text in by_value.items():
            problems += _numbers_read_as_zero(
                key_path(key_path(path, attr_name), value), "compute", text
            )
    if tree is not None and golden is not None:  # both, or neither
        compute[out_name], chosen[out_name] = tree, golden
    return problems


def _unusable_attr(attr: Attr) -> str:
    """Why compute may not use a (non-scalar) attr as a value."""
    if attr.type == "string":
        return (
            f'is a string attr (compute compares it with a string literal: {attr.name} == "...", '
            "its values declared in opgen.values)"
        )
    return f"is a {attr.type} attr"


def _default_goldens(
    block_path: str, compute: dict[str, expr.Node], golden: dict[str, str], keepdim: bool
) -> list[Problem]:
    """The compute expression as the golden of each output without one (added to `golden`); a
    problem where it has none (index())."""
    problems: list[Problem] = []
    for out_name, tree in compute.items():
        if out_name in golden:
            continue
        try:
            text = expr.to_torch(tree)
        except expr.ExprError as exc:
            path = key_path(key_path(block_path, "compute"), out_name)
            problems.append(Problem(path, f"compute expression: {exc}"))
            continue
        plain = not any(n.dim_given for n in expr.reductions(tree))
        if plain and expr.is_row_valued(tree) and not keepdim:
            text = f"torch.squeeze({text}, -1)"  # the reduced shape x.shape[:-1]
        golden[out_name] = text
    return problems


def _coverage_problems(
    block_path: str,
    compute: dict[str, expr.Node],
    golden: dict[str, str],
    outputs: Tensors,
    output_names: list[str],
) -> list[Problem]:
    """Which outputs (or overwritten inputs) have a compute expression: all or none, none of
    them a dynamic output; an op without outputs has no golden without a compute beside it."""
    problems: list[Problem] = []
    in_place = not outputs
    if in_place and compute:
        # The inputs compute names are those the kernel overwrites; a golden for any other
        # input would check a value the kernel never writes.
        for name in golden:
            if name not in compute:
                problems.append(
                    Problem(
                        key_path(key_path(block_path, "golden"), name),
                        f"'{name}' has a golden but no compute expression; an op without outputs "
                        "overwrites exactly the inputs its compute names, so give it a compute "
                        "expression too or drop its golden",
                    )
                )
    elif compute:
        missing = [o for o in output_names if o not in compute]
        if missing:
            problems.append(
                Problem(
                    key_path(block_path, "compute"),
                    "compute gives no expression for output(s) "
                    f"{', '.join(missing)}; give one for every output, or none",
                )
            )
        for out in outputs:
            if out.param_type == "dynamic" and out.name in compute:
                problems.append(
                    Problem(
                        key_path(key_path(block_path, "compute"), out.name),
                        "a dynamic (list) output cannot have an elementwise compute expression",
                    )
                )
    return problems


def _numbers_read_as_zero(path: str, section: str, text: str) -> list[Problem]:
    """A nonzero number Python reads as 0.0 (1e-400) in an expression that parsed (so that
    ast.parse is safe on it): the kernel and the golden would silently take 0."""
    import ast

    for node in ast.walk(ast.parse(text.strip(), mode="eval")):
        if isinstance(node, ast.Constant) and type(node.value) is float and node.value == 0:
            written = ast.get_source_segment(text.strip(), node) or ""
            if any(c in "123456789" for c in written.lower().partition("e")[0]):
                return [
                    Problem(
                        path,
                        f"{section} expression: the number {written} reads as 0 "
                        "(it is below the smallest double); write 0 if 0 is "
                        "meant",
                        text,
                    )
                ]
    return []


def _check_test_options(
    base: str,
    block: dict[str, Any],
    inputs: Tensors,
    outputs: Tensors,
    compute: dict[str, expr.Node],
) -> tuple[dict[str, Any], list[Problem]]:
    """What the opgen block says of the tests, as the Op's fields (test_shapes: the cases;
    defined: the part of each output the op defines), and their problems."""
    test_shapes, problems = _check_test_shapes(base, block, inputs)
    output_names = [t.name for t in outputs]
    parts, found = defined.defined_problems(base, block, output_names, bool(compute))
    return {"test_shapes": test_shapes, "defined": parts}, problems + found


def _check_test_shapes(
    base: str, block: dict[str, Any], inputs: Tensors
) -> tuple[tuple[dict[str, tuple[int, ...]], ...], list[Problem]]:
    """ "test_shapes": each case names every required input (optional ones may be left out) and
    nothing else. Whether the shapes fit the op (broadcasting, a golden's rule) is checked where
    the shape rule is known."""
    problems: list[Problem] = []
    cases: list[dict[str, tuple[int, ...]]] = []
    names_ = [t.name for t in inputs]
    required = [t.name for t in inputs if t.param_type == "required"]
    total = 0
    shapes_path = key_path(key_path(base, "opgen"), "test_shapes")
    for i, case in enumerate(block.get("test_shapes", [])):
        path = key_path(shapes_path, i)
        for name in case:
            if name not in names_:
                problems.append(
                    Problem(
                        key_path(path, name),
                        f"'{name}' is not an input of this op",
                        suggestion=did_you_mean(name, names_),
                    )
                )
        missing = [n for n in required if n not in case]
        if missing:
            problems.append(
                Problem(
                    path,
                    "gives no shape for required input(s) "
                    f"{', '.join(missing)}; a case gives every required "
                    "input's shape",
                )
            )
        shapes = {n: tuple(int(d) for d in case[n]) for n in names_ if n in case}
        for name, shape in shapes.items():
            found = _test_shape_problems(key_path(path, name), case[name])
            problems += found
            total += 0 if found else broadcast.elements(shape)
        cases.append(shapes)
    if total > broadcast.MAX_TEST_ELEMENTS_TOTAL:
        problems.append(
            Problem(
                shapes_path,
                f"the cases' inputs hold {total} elements in all; "
                "an op's test_shapes hold at most "
                f"{broadcast.limit_text(broadcast.MAX_TEST_ELEMENTS_TOTAL)}",
            )
        )
    return tuple(cases), problems


def _test_shape_problems(path: str, dims: list[int | float]) -> list[Problem]:
    """Each dim an integer from 0 (the schema checks that) that reads as written, the shape
    at most MAX_TEST_ELEMENTS elements. A whole float (4.0) is read as the integer."""
    limit = broadcast.MAX_TEST_ELEMENTS
    for j, dim in enumerate(dims):
        if isinstance(dim, RoundedToZero):
            return [
                Problem(
                    key_path(path, j),
                    f"{dim.text} reads as 0 (it is below the "
                    "smallest double); write 0 if 0 is meant",
                )
            ]
        if dim > limit:
            return [
                Problem(
                    key_path(path, j),
                    f"dim {number_text(dim)} is larger than "
                    f"{broadcast.limit_text(limit)}, the most "
                    "elements a test tensor holds",
                )
            ]
    count = broadcast.elements(tuple(int(d) for d in dims))
    if count > limit:
        return [
            Problem(
                path,
                f"{' x '.join(str(int(d)) for d in dims)} is {count} elements; a "
                f"test tensor holds at most {broadcast.limit_text(limit)}",
                dims,
            )
        ]
    return []


def _complex_compute_problems(
    base: str,
    snake: str,
    inputs: Tensors,
    outputs: Tensors,
    compute: dict[str, expr.Node],
) -> list[Problem]:
    """A compute expression runs over every tensor the kernel streams (the required inputs,
    the outputs), in real arithmetic: none of them may be complex. An index op that only moves
    elements (roll) computes nothing: its dtype rule is index_ops.dtype_problems'."""
    if compute and all(
        isinstance(tree, expr.IndexCall) and index_functions.FUNCTIONS[tree.func].movement
        for tree in compute.values()
    ):
        return []
    found = [
        (t, sorted({d for d in t.dtypes if DTYPES[d].is_complex}))
        for t in inputs + outputs
        if t.param_type == "required" or t.role == "output"
    ]
    found = [(t, kinds) for t, kinds in found if kinds]
    if not found:
        return []
    which = " and ".join(f"{t.role} '{t.name}'" for t, _ in found)
    kinds = sorted({k for _, ks in found for k in ks})
    return [
        Problem(
            key_path(key_path(key_path(base, "opgen"), "compute"), name),
            f"{which} can be {' or '.join(kinds)}, but compute expressions are "
            "real-valued (opgen lowers them to real Ascend C vector arithmetic); drop "
            f"the compute expression and write the compute step in "
            f"op_kernel/{snake}_compute.h by hand (a golden expression may stay: torch "
            f"computes it in complex), or leave out the {' and '.join(kinds)} dtype "
            "combinations",
        )
        for name in compute
    ]


# The numbers a compute type holds: a literal of a compute expression beyond them would wrap
# (int16_t, int32_t) or become inf (float) in the kernel, while the golden computes the written
# value in float64.
_COMPUTE_TYPE_RANGES = {
    "float": (-FLOAT32_MAX, FLOAT32_MAX, "up to 3.4e38 in magnitude"),
    "int16_t": (-(2**15), 2**15 - 1, "-2**15 to 2**15-1"),
    "int32_t": (-(2**31), 2**31 - 1, "-2**31 to 2**31-1"),
}


def _combination_problems(
    base: str,
    snake: str,
    inputs: Tensors,
    outputs: Tensors,
    compute: dict[str, expr.Node],
) -> list[Problem]:
    """The compute expressions' problems in the op's dtype combinations."""
    problems = _complex_compute_problems(base, snake, inputs, outputs, compute)
    return problems + _literal_range_problems(base, compute, inputs, outputs)


def _literal_range_problems(
    base: str,
    compute: dict[str, expr.Node],
    inputs: Tensors,
    outputs: Tensors,
) -> list[Problem]:
    """Every number written in a compute expression (with its sign: -2147483648 is one) fits
    each type the op's dtype combinations compute in (catalog.compute_type)."""
    if not compute:
        return []
    from opgen.frontend.catalog import compute_type

    streamed = [t for t in inputs if t.param_type == "required"] + list(outputs)
    computed = {
        compute_type(list(dtypes), through_half=True)
        for dtypes in zip(*(t.dtypes for t in streamed), strict=True)
    }
    types = {t for t in computed if t is not None}
    problems = []
    for out_name, tree in compute.items():
        for value in _literals(tree):
            if "float" in types and value != 0 and abs(value) < FLOAT32_MIN_SUBNORMAL:
                problems.append(
                    Problem(
                        key_path(key_path(key_path(base, "opgen"), "compute"), out_name),
                        f"the number {_literal_text(value)} rounds to 0 in float, which the op "
                        "computes in (its smallest nonzero magnitude is 1.4e-45), where the golden "
                        "takes the number as written",
                    )
                )
                break
            bad = [
                t
                for t in sorted(types)
                if not (_COMPUTE_TYPE_RANGES[t][0] <= value <= _COMPUTE_TYPE_RANGES[t][1])
            ]
            if bad:
                problems.append(
                    Problem(
                        key_path(key_path(key_path(base, "opgen"), "compute"), out_name),
                        f"the number {_literal_text(value)} does not fit in {bad[0]}, which the op "
                        f"computes in ({_COMPUTE_TYPE_RANGES[bad[0]][2]}): the kernel would "
                        f"compute {'inf' if bad[0] == 'float' else 'a wrapped value'} where the "
                        "golden takes the number as written",
                    )
                )
                break
    reported = {p.path for p in problems}  # one problem per expression
    unreported = {
        out_name: tree
        for out_name, tree in compute.items()
        if key_path(key_path(key_path(base, "opgen"), "compute"), out_name) not in reported
    }
    return problems + _integer_literal_problems(base, unreported, inputs)


def _literals(tree: expr.Node) -> list[float]:
    """The numbers written in an expression, each with its sign (-5 is one)."""
    negated = {id(n.arg) for n in expr.walk(tree) if isinstance(n, expr.Neg)}
    return [
        -n.value if id(n) in negated else n.value
        for n in expr.walk(tree)
        if isinstance(n, expr.Const)
    ]


def _integer_literal_problems(
    base: str, compute: dict[str, expr.Node], inputs: Tensors
) -> list[Problem]:
    """In a dtype combination whose inputs are all integers, torch converts a whole number to
    the inputs' dtype, wrapping one out of its range (clamp(x, -5, 5) on uint8 clamps to 251..5,
    x > 200 on int8 compares with -56) or failing, where the kernel computes with the number:
    such a number is refused."""
    ranges = _integer_input_ranges(inputs)
    problems = []
    for out_name, tree in compute.items():
        for value in _literals(tree):
            bad = [
                (name, r)
                for name, r in sorted(ranges.items())
                if float(value).is_integer() and not r[0] <= value <= r[1]
            ]
            if not bad:
                continue
            name, (low, high, i) = bad[0]
            number = _literal_text(value)
            problems.append(
                Problem(
                    key_path(key_path(key_path(base, "opgen"), "compute"), out_name),
                    f"the number {number} does not fit in {name}, the dtype of {inputs[i].name} "
                    f"({key_path(key_path(base, 'input_desc'), i)}.type): torch converts it to "
                    f"{name}, wrapping it, where the kernel computes with {number}; write a "
                    f"number from {low} to {high}",
                )
            )
            break
    return problems


def _integer_input_ranges(inputs: Tensors) -> dict[str, tuple[int, int, int]]:
    """The integer dtypes of the required inputs in the dtype combinations whose inputs are all
    integers (no float, complex or bool): dtype -> (lowest, highest, the first input's index)."""
    from opgen.frontend.catalog import DTYPES

    streamed = [(i, t) for i, t in enumerate(inputs) if t.param_type == "required"]
    ranges: dict[str, tuple[int, int, int]] = {}
    for combo in zip(*(t.dtypes for _, t in streamed), strict=True):
        kinds = [DTYPES[d] for d in combo]
        if any(k.is_float or k.is_complex or k.name == "bool" for k in kinds):
            continue
        for (i, _), kind in zip(streamed, kinds, strict=True):
            bits = kind.size * 8
            signed = not kind.name.startswith("u")
            low, high = (-(2 ** (bits - 1)), 2 ** (bits - 1) - 1) if signed else (0, 2**bits - 1)
            ranges.setdefault(kind.name, (low, high, i))
    return ranges


def _literal_text(value: float) -> str:
    """40000, 2147483648, 3.5e+38: a literal as the user wrote it, near enough."""
    if isinstance(value, float) and value.is_integer() and abs(value) < 2**63:
        return str(int(value))
    return number_text(value)


def _unique_aclnn_names(base: str, aclnn: Aclnn) -> list[Problem]:
    seen: dict[str, str] = {}
    problems = []
    for arg in aclnn.args:
        if arg.name in names.ACLNN_RESERVED:
            problems.append(
                Problem(
                    base,
                    f"'{arg.source}' becomes the aclnn parameter "
                    f"'{arg.name}', which the aclnn API already has; "
                    "rename it",
                )
            )
        if arg.name in seen:
            problems.append(
                Problem(
                    base,
                    f"'{arg.source}' and '{seen[arg.name]}' both become the "
                    f"aclnn parameter '{arg.name}'; rename one",
                )
            )
        seen.setdefault(arg.name, arg.source)
    return problems


def check_across_ops(located: list[tuple[str, Op]]) -> list[Problem]:
    """Ops of one file share a project: their types and file names must differ."""
    problems = []
    by_type: dict[str, str] = {}
    by_snake: dict[str, str] = {}
    for path, op in located:
        where = key_path(path, "op")
        if op.op_type in by_type:
            problems.append(
                Problem(
                    where,
                    f"op '{op.op_type}' is already defined at "
                    f"{by_type[op.op_type]} (msopgen would keep only the "
                    "last one)",
                )
            )
        elif op.snake_name in by_snake:
            problems.append(
                Problem(
                    where,
                    f"'{op.op_type}' and '{by_snake[op.snake_name]}' "
                    f"share the kernel and file name '{op.snake_name}'",
                )
            )
        by_type.setdefault(op.op_type, where)
        by_snake.setdefault(op.snake_name, op.op_type)
    return problems
