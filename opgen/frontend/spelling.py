"""msopgen's looser spellings, rewritten into the canonical prototype before validation.

Real prototypes that msopgen turns into working projects write attrs in forms the canonical
schema does not hold: `default_value` as a string (msopgen pastes the text into the C++ OpDef,
where `"0.0"`, `"{}"` or `"{1, 2}"` compile), a JSON `{}` for an empty list, attr types
`int32`/`int64`, 0/1 for a bool, a required attr with a default, dtype combinations opgen has
no element type for (complex128). Each is rewritten here to the form the schema
and the later stages read, with a warning that names the JSON path and what was assumed. A string
that would not compile where msopgen pastes it is a problem.
"""

from __future__ import annotations

import copy
import json
import math
import re
from typing import Any

from opgen.frontend.catalog import ATTR_TYPE_ALIASES, ATTR_TYPES, NO_ELEMENT_TYPE
from opgen.frontend.problems import Problem, key_path

_INT = re.compile(r"[+-]?\d+[uUlL]*")
_FLOAT = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?[fF]?")
_BOOLS = {"true": True, "false": False}
_WHAT = {
    "int": "an integer",
    "float": "a number",
    "bool": "true or false",
    "list_int": "a list of integers",
    "list_float": "a list of numbers",
    "list_bool": "a list of true/false",
    "list_list_int": "a list of lists of integers",
}


def normalise(raw: Any, base: str) -> tuple[Any, list[str], list[Problem]]:
    """The op object `raw` (at JSON path `base`) in canonical spelling, the warnings about what
    was rewritten, and the problems of what cannot be. Shapes the schema refuses anyway are
    left as they are for it to report."""
    if not isinstance(raw, dict):
        return raw, [], []
    op = copy.deepcopy(raw)
    warnings: list[str] = []
    problems: list[Problem] = []
    _drop_combinations_without_element_type(op, base, warnings)
    attrs = op.get("attr")
    for i, attr in enumerate(attrs if isinstance(attrs, list) else []):
        if isinstance(attr, dict):
            path = key_path(key_path(base, "attr"), i)
            _normalise_attr(attr, path, warnings, problems)
    return op, warnings, problems


def _drop_combinations_without_element_type(
    op: dict[str, Any], base: str, warnings: list[str]
) -> None:
    """Leave out the dtype combinations (columns of the type lists) that hold a dtype opgen has
    no element type for (complex128, qint8, ...), when others remain. Irregular lists are left
    for the rule pass to report."""
    lists = [op.get(key) for key in ("input_desc", "output_desc")]
    tensors = [t for found in lists for t in (found if isinstance(found, list) else [])]
    if not tensors or not all(
        isinstance(t, dict) and isinstance(t.get("type"), list) for t in tensors
    ):
        return
    columns = {len(t["type"]) for t in tensors}
    if len(columns) != 1:
        return
    dropped = [
        i for i in range(columns.pop()) if any(t["type"][i] in NO_ELEMENT_TYPE for t in tensors)
    ]
    if not dropped or len(dropped) == len(tensors[0]["type"]):
        return
    names = sorted({t["type"][i] for t in tensors for i in dropped} & set(NO_ELEMENT_TYPE))
    for t in tensors:
        formats = t.get("format")
        if isinstance(formats, list) and len(formats) == len(t["type"]) > 1:
            t["format"] = [f for i, f in enumerate(formats) if i not in dropped]
        t["type"] = [d for i, d in enumerate(t["type"]) if i not in dropped]
    warnings.append(
        f"{base}: dtype combination(s) {', '.join(map(str, dropped))} left out: "
        f"opgen's kernel and PyTorch templates have no element type for "
        f"{', '.join(names)}"
    )


def _normalise_attr(
    attr: dict[str, Any], path: str, warnings: list[str], problems: list[Problem]
) -> None:
    name = attr.get("name", "?")
    kind = attr.get("type")
    if isinstance(kind, str) and kind in ATTR_TYPE_ALIASES:
        attr["type"] = ATTR_TYPE_ALIASES[kind]
        warnings.append(
            f"{key_path(path, 'type')}: attr type '{kind}' is read as "
            f"'{attr['type']}' (msopgen drops an attr of this type, with a warning)"
        )
        kind = attr["type"]
    if "default_value" not in attr:
        return
    where = key_path(path, "default_value")
    if attr.get("param_type", "required") == "required":
        warnings.append(
            f"{where}: required attr '{name}' has a default_value, which is ignored "
            "as msopgen ignores it: callers always pass it (make it optional to "
            "keep the default)"
        )
        del attr["default_value"]
        return
    if kind not in ATTR_TYPES:
        return  # the schema reports the type
    value = attr["default_value"]
    if kind.startswith("list_") and value == {}:
        attr["default_value"] = []
        warnings.append(f"{where}: {{}} is read as the empty list []")
    elif kind == "bool" and type(value) is int and value in (0, 1):
        attr["default_value"] = bool(value)  # C++ converts it, as msopgen's .Bool(0) does
        warnings.append(f"{where}: {value} is read as {json.dumps(bool(value))}")
    elif isinstance(value, str) and kind != "string":
        try:
            parsed = parse_default(value, kind)
        except OutOfRange as exc:
            problems.append(Problem(where, f"the string holds {exc}", value))
            return
        if parsed is None:
            method = ATTR_TYPES[kind].opdef_method
            shown = value if len(value) <= 60 else value[:57] + "..."
            problems.append(
                Problem(
                    where,
                    f"the string is not {_WHAT[kind]}; msopgen would "
                    f"paste it into the OpDef as .{method}({shown}), "
                    "which does not compile",
                    value,
                )
            )
        else:
            attr["default_value"] = parsed
            warnings.append(
                f"{where}: the string {json.dumps(value)} is read as the {kind} "
                f"{json.dumps(parsed)}"
            )


class OutOfRange(ValueError):
    """A default_value string holds a number of the attr's kind that the attr cannot hold."""


# int attrs are int64 (OpAttrDef::Int), float attrs C++ floats (OpAttrDef::Float)
_INT64_MIN, _INT64_MAX = -(2**63), 2**63 - 1
_FLOAT32_MAX = 3.4028234663852886e38
_INT64_DIGITS = 19


def parse_default(text: str, kind: str) -> Any:
    """A default_value string as msopgen's C++ would read it: "2", "1e-12", "0.0f", "false",
    brace lists "{}", "{1, 2}", "{{1, 2}, {3}}" (or the same with brackets); None when it is
    not a value of `kind`. A number of `kind` the attr cannot hold (beyond int64, beyond a
    C++ float, a nonzero float that reads as 0) raises OutOfRange."""
    text = text.strip()
    if kind.startswith("list_"):
        items = _split_list(text)
        if items is None:
            return None
        element = kind.removeprefix("list_")
        values = [parse_default(item, element) for item in items]
        return None if any(v is None for v in values) else values
    if kind == "int" and _INT.fullmatch(text):
        digits = text.rstrip("uUlL").lstrip("+-").lstrip("0")
        # int() of thousands of digits is refused by Python (and slow): count them first
        sign = -1 if text.startswith("-") else 1
        value = sign * int(digits or "0") if len(digits) <= _INT64_DIGITS else None
        if value is None or not _INT64_MIN <= value <= _INT64_MAX:
            shown = text if len(text) <= 24 else f"{text[:10]}...({len(digits)} digits)"
            raise OutOfRange(
                f"{shown}, which does not fit in int64 (an int attr is int64: -2**63 to 2**63-1)"
            )
        return value
    if kind == "int" and _FLOAT.fullmatch(text):
        number = _float(text)
        if math.isfinite(number) and not number.is_integer():
            return None
        if not _INT64_MIN <= number <= _INT64_MAX:  # inf too
            raise OutOfRange(
                f"{_short(text)}, which does not fit in int64 (an int attr is "
                "int64: -2**63 to 2**63-1)"
            )
        return int(number)  # "1.0": C++ converts it to 1
    if kind == "float" and _FLOAT.fullmatch(text):
        number = _float(text)
        if abs(number) > _FLOAT32_MAX:  # inf too
            raise OutOfRange(
                f"{_short(text)}, which does not fit in a C++ float "
                "(OpAttrDef::Float takes float, which holds up to 3.4e38)"
            )
        return number
    if kind == "bool":
        return _BOOLS.get(text.lower(), {"0": False, "1": True}.get(text))
    return None


def _float(text: str) -> float:
    """The number of a float spelling; a nonzero one that reads as 0 (1e-400) is OutOfRange."""
    number = text.rstrip("fF")
    value = float(number)
    if value == 0 and any(c in "123456789" for c in number.lower().partition("e")[0]):
        raise OutOfRange(
            f"{_short(text)}, which reads as 0 (it is below the smallest double); "
            "write 0 if 0 is meant"
        )
    return value


def _short(text: str) -> str:
    return text if len(text) <= 24 else text[:21] + "..."


def _split_list(text: str) -> list[str] | None:
    """The top-level items of "{a, b}" / "[a, b]", or None when `text` is not such a list."""
    if len(text) < 2 or (text[0], text[-1]) not in (("{", "}"), ("[", "]")):
        return None
    inner = text[1:-1].strip()
    if not inner:
        return []
    items, depth, start = [], 0, 0
    for i, ch in enumerate(inner):
        if ch in "{[":
            depth += 1
        elif ch in "}]":
            depth -= 1
            if depth < 0:
                return None
        elif ch == "," and depth == 0:
            items.append(inner[start:i])
            start = i + 1
    items.append(inner[start:])
    return None if depth else [item.strip() for item in items]
