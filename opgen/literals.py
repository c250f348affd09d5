"""Values as source text in the languages a project holds: C++, Python, CMake and PyTorch's
schema syntax. User text (names, string defaults) reaches generated code only through these."""

from __future__ import annotations

import json
import math
from typing import Any


def cpp_string(text: str) -> str:
    """A C++ string literal holding `text` exactly (UTF-8, octal escapes for the rest)."""
    out = []
    for byte in text.encode("utf-8"):
        ch = chr(byte)
        if ch in '"\\':
            out.append("\\" + ch)
        elif 32 <= byte < 127:
            out.append(ch)
        else:
            out.append(f"\\{byte:03o}")  # octal escapes never swallow the next character
    return '"' + "".join(out) + '"'


def py_string(text: str) -> str:
    """A Python string literal holding `text` exactly, in ASCII. JSON's escapes are Python's,
    except that JSON writes a character beyond U+FFFF as two surrogate escapes, which Python
    reads as two lone surrogates: those get \\U escapes."""
    out = []
    for ch in json.dumps(text, ensure_ascii=False)[1:-1]:
        code = ord(ch)
        out.append(ch if code < 127 else f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}")
    return '"' + "".join(out) + '"'


def cmake_string(text: str) -> str:
    escaped = text.replace("\\", "\\\\").replace('"', '\\"').replace("$", "\\$")
    return f'"{escaped}"'


def cpp_double(value: float) -> str:
    """A C++ double literal (`0.5`, `2.0`, `1e-06`): the value's shortest round-trip text."""
    text = repr(float(value))
    if "e" not in text and "." not in text and "inf" not in text:
        text += ".0"
    return text


def cpp_float(value: float) -> str:
    """A C++ float literal (`0.5f`; folded constants are rounded once, by the compiler)."""
    return cpp_double(value) + "f"


def cpp_literal(attr_type: str, value: Any) -> str:
    """A C++ expression of the OpAttrDef method's parameter type for an attr default."""
    if attr_type == "int":
        return str(int(value)) if value != -(2**63) else "INT64_MIN"
    if attr_type == "float":
        return cpp_float(value)
    if attr_type == "bool":
        return "true" if value else "false"
    if attr_type == "string":
        return cpp_string(value)
    item = attr_type.removeprefix("list_")
    return "{" + ", ".join(cpp_literal(item, v) for v in value) + "}"


def py_literal(attr_type: str, value: Any) -> str:
    """An attr default as Python source (lists as tuples: immutable defaults)."""
    if isinstance(value, list):
        item = attr_type.removeprefix("list_")
        items = [py_literal(item, v) for v in value]
        return "(" + ", ".join(items) + ("," if len(items) == 1 else "") + ")"
    if attr_type == "string":
        return py_string(value)
    return _number_or_bool(attr_type, value)


def _number_or_bool(attr_type: str, value: Any) -> str:
    """An int, float or bool attr value, as Python and PyTorch's schema both write it."""
    if attr_type == "bool":
        return "True" if value else "False"
    if attr_type == "int":
        return str(int(value))
    if attr_type == "float":
        return repr(float(value))
    raise ValueError(attr_type)


def py_value(value: Any) -> str:
    """`value` (None, bool, int, float, str, list, tuple, dict, slice, Ellipsis) as a Python
    literal."""
    if value is None or value is Ellipsis or isinstance(value, bool):
        return repr(value)
    if isinstance(value, slice):
        bounds = (value.start, value.stop) + (() if value.step is None else (value.step,))
        return "slice(" + ", ".join(py_value(b) for b in bounds) + ")"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return repr(value) if math.isfinite(value) else f'float("{value}")'
    if isinstance(value, str):
        return py_string(value)
    if isinstance(value, tuple):
        items = [py_value(v) for v in value]
        return "(" + ", ".join(items) + ("," if len(items) == 1 else "") + ")"
    if isinstance(value, list):
        return "[" + ", ".join(py_value(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{py_value(k)}: {py_value(v)}" for k, v in value.items()) + "}"
    raise TypeError(type(value))


def torch_literal(attr_type: str, value: Any) -> str | None:
    """A default value in PyTorch schema syntax; None when the schema cannot express it."""
    if attr_type == "list_list_int":
        return None  # the schema parser accepts int[][] but no nested-list default
    if isinstance(value, list):
        item = attr_type.removeprefix("list_")
        return "[" + ", ".join(_torch_scalar(item, v) for v in value) + "]"
    return _torch_scalar(attr_type, value)


def _torch_scalar(attr_type: str, value: Any) -> str:
    """A string, int, float or bool value in PyTorch schema syntax."""
    if attr_type == "string":
        escaped = (
            value.replace("\\", "\\\\")
            .replace('"', '\\"')
            .replace("\n", "\\n")
            .replace("\t", "\\t")
        )
        return f'"{escaped}"'
    return _number_or_bool(attr_type, value)


def doc_text(text: str) -> str:
    """Text safe inside a generated \"\"\"docstring\"\"\" (no escapes, no closing quotes)."""
    return text.replace("\\", "\\\\").replace('"', '\\"')
