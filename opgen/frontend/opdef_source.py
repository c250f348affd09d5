"""An existing project's OpDef read back into the msopgen prototype it declares: `opgen adopt`
without --prototype. The OpDef class of op_host/<op>.cpp, as msopgen writes it and people edit
it (`this->Input("x").ParamType(REQUIRED).DataType({ge::DT_FLOAT16, ...}).Format({...});`,
`this->Output(...)`, `this->Attr("alpha").AttrType(OPTIONAL).Float(1.0);`), gives each
tensor's name, kind, dtypes and formats and each attr's type and default; the rest of the file
(TilingFunc, InferShape) stays the user's."""

from __future__ import annotations

import re
from typing import Any

from opgen.frontend.catalog import ATTR_TYPES, DTYPES, SOC_SHORT_NAMES

_CLASS = re.compile(r"\bclass\s+(\w+)\s*:\s*public\s+(?:ops::)?OpDef\b")
# one `this->Input("x")...;` statement: its kind, name and the chained calls up to the `;`
_STATEMENT = re.compile(r'this\s*->\s*(Input|Output|Attr)\s*\(\s*"(\w+)"\s*\)([^;]*);', re.S)
_CALL = re.compile(r"\.\s*(\w+)\s*\(([^()]*(?:\([^()]*\)[^()]*)*)\)", re.S)
_CONFIG = re.compile(r'AddConfig\s*\(\s*"(\w+)"')
_GE_DTYPES = {d.ge: d.name for d in DTYPES.values()}
_ATTR_METHODS = {a.opdef_method: a.name for a in ATTR_TYPES.values()}


class OpDefSourceError(ValueError):
    """The file declares no OpDef opgen can read, or one it cannot (named in the message)."""


def prototype_from_opdef(text: str, source: str) -> list[dict[str, Any]]:
    """The msopgen prototype of every OpDef class in `text` (C++ source from `source`)."""
    text, strings = _masked(text)
    classes = list(_CLASS.finditer(text))
    if not classes:
        raise OpDefSourceError(f"{source}: no OpDef class (class <Op> : public OpDef)")
    ops = []
    for k, match in enumerate(classes):
        end = classes[k + 1].start() if k + 1 < len(classes) else len(text)
        ops.append(_op(match.group(1), text[match.end() : end], source, strings))
    return ops


# a string or character literal, or a comment: what the statements' patterns must not look into
_LEXEME = re.compile(r'"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'|//[^\n]*|/\*.*?\*/', re.S)
_MASK = re.compile("\x00(\\d+)\x00")


def _masked(text: str) -> tuple[str, list[str]]:
    """`text` without comments, each string literal but a plain name ("x") replaced by a mark
    holding no `)`, `;`, `,` or `//` (.String("a)b") stays one call), and the literals the marks
    stand for."""
    strings: list[str] = []

    def mask(match: re.Match) -> str:
        lexeme = match.group(0)
        if lexeme.startswith("/"):
            return " "
        if re.fullmatch(r'"\w*"', lexeme):
            return lexeme
        strings.append(lexeme)
        return f"\x00{len(strings) - 1}\x00"

    return _LEXEME.sub(mask, text), strings


def _without_comments(text: str) -> str:
    return _masked(text)[0]


def _op(op_type: str, body: str, source: str, strings: list[str]) -> dict[str, Any]:
    op: dict[str, Any] = {"op": op_type, "input_desc": [], "output_desc": [], "attr": []}
    for kind, name, chain in _STATEMENT.findall(body):
        calls = {
            method: _MASK.sub(lambda m: strings[int(m.group(1))], args.strip())
            for method, args in _CALL.findall(chain)
        }
        where = f"{source}: {op_type}'s {kind.lower()} '{name}'"
        if kind == "Attr":
            op["attr"].append(_attr(name, calls, where))
        else:
            key = "input_desc" if kind == "Input" else "output_desc"
            op[key].append(_tensor(name, calls, where))
    if not op["input_desc"] and not op["output_desc"]:
        raise OpDefSourceError(f"{source}: {op_type}'s OpDef declares no Input or Output")
    return op


def _tensor(name: str, calls: dict[str, str], where: str) -> dict[str, Any]:
    if "DataType" not in calls:
        raise OpDefSourceError(f"{where}: no .DataType({{...}}) to read its dtypes from")
    dtypes = []
    for item in _items(calls["DataType"]):
        ge = item.removeprefix("ge::")
        if ge not in _GE_DTYPES:
            raise OpDefSourceError(f"{where}: dtype {item} is not one opgen knows")
        dtypes.append(_GE_DTYPES[ge])
    written = _items(calls.get("Format", ""))
    formats = [f.removeprefix("ge::").removeprefix("FORMAT_") for f in written]
    kind = calls.get("ParamType", "REQUIRED").rsplit(":", 1)[-1].lower()
    return {
        "name": name,
        "param_type": kind,
        "format": formats or ["ND"] * len(dtypes),
        "type": dtypes,
    }


def _attr(name: str, calls: dict[str, str], where: str) -> dict[str, Any]:
    typed = [m for m in calls if m in _ATTR_METHODS]
    if not typed:
        raise OpDefSourceError(f"{where}: no type method (.Int(), .Float(), .String(), ...)")
    method = typed[0]
    # metadef's OpAttrDef is required unless AttrType(OPTIONAL) says otherwise
    # (base/asc/opdef/op_def_impl.cc); a required attr's value is the caller's, so a value given
    # to its type method is no default
    kind = calls.get("AttrType", "REQUIRED").rsplit(":", 1)[-1].lower()
    attr: dict[str, Any] = {"name": name, "param_type": kind, "type": _ATTR_METHODS[method]}
    if kind == "optional" and calls[method]:
        attr["default_value"] = _literal(calls[method], attr["type"], where)
    return attr


_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "0": "\0"}  # the rest stand for themselves: \\ \"


def _items(text: str) -> list[str]:
    """The items of a braced initializer list `{a, b}` (or a single value)."""
    inner = text.strip().removeprefix("{").removesuffix("}")
    return [item.strip() for item in inner.split(",") if item.strip()]


def _literal(text: str, attr_type: str, where: str) -> Any:
    """A C++ default as JSON: 1.0f -> 1.0, true, "mean", {1, 2} -> [1, 2]."""
    if attr_type.startswith("list_"):
        return [_literal(item, attr_type.removeprefix("list_"), where) for item in _items(text)]
    value = text.strip()
    try:
        if attr_type == "bool":
            return {"true": True, "false": False}[value]
        if attr_type == "string":
            body = re.fullmatch(r'"((?:\\.|[^"\\])*)"', value, re.S).group(1)  # type: ignore[union-attr]
            return re.sub(r"\\(.)", lambda m: _ESCAPES.get(m.group(1), m.group(1)), body)
        if attr_type == "int":
            return int(value.rstrip("lLuU"))
        return float(value.rstrip("fF"))
    except (KeyError, AttributeError, ValueError):
        raise OpDefSourceError(f"{where}: its default {value} is no {attr_type} literal") from None


def target_socs(text: str) -> list[str]:
    """A full SoC name for each msopgen short name the OpDefs' AddConfig calls register, Atlas
    A2 ("ascend910b", the twin's default) first: the SoCs an adopted project's tests expect."""
    shorts = list(dict.fromkeys(_CONFIG.findall(_without_comments(text))))
    full: dict[str, str] = {}
    for name, short in SOC_SHORT_NAMES.items():
        if name != "ascend910b":  # the bare name is the 910A generation's trap
            full.setdefault(short, name)
    shorts.sort(key=lambda short: short != "ascend910b")
    return [full[s] for s in shorts if s in full]
