"""Line layout of the statements opgen prints into generated code: calls, signatures and
conditions wrapped at the project's line length, comments and docstrings wrapped, long Python
literals split. (No formatter runs on generated files, so they leave opgen already tidy.)"""

from __future__ import annotations

import textwrap
from typing import Any

from opgen.literals import py_string, py_value

LINE = 100  # line length of the generated Python (the project's ruff setting)


def py_def(name: str, params: list[str], returns: str | None = None) -> str:
    """A top-level `def` line, one parameter per line when it would be too long."""
    tail = ")" + (f" -> {returns}" if returns else "") + ":"
    line = f"def {name}(" + ", ".join(params) + tail
    if len(line) <= LINE or not params:
        return line
    return f"def {name}(\n" + "".join(f"    {p},\n" for p in params) + tail


def py_call(head: str, args: list[str], indent: int, lead: int = 0) -> str:
    """`head(args)` in a statement at `indent` columns whose text before the call takes `lead`
    columns; one argument per line when too long."""
    line = f"{head}(" + ", ".join(args) + ")"
    if indent + lead + len(line) <= LINE or not args:
        return line
    pad = " " * (indent + 4)
    return f"{head}(\n" + "".join(f"{pad}{a},\n" for a in args) + " " * indent + ")"


def cpp_call(head: str, args: list[str], indent: int, tail: str = "") -> str:
    """`head(args)tail` at `indent` columns; when too long, the arguments are filled greedily
    into lines aligned after the parenthesis (clang-format's style)."""
    line = f"{head}(" + ", ".join(args) + ")" + tail
    if indent + len(line) <= LINE or not args:
        return line
    column = indent + len(head) + 1
    lines, current = [], f"{head}("
    for i, arg in enumerate(args):
        piece = arg + (", " if i < len(args) - 1 else ")" + tail)
        too_long = (indent if not lines else 0) + len(current) + len(piece.rstrip()) > LINE
        if too_long and not current.endswith("("):
            lines.append(current.rstrip())
            current = " " * column
        current += piece
    lines.append(current.rstrip())
    return "\n".join(lines)


def wrap(text: str, width: int = LINE - 8, indent: str = "") -> list[str]:
    """`text` in lines of at most `width` columns, the ones after the first indented by `indent`
    (a word longer than a line is not cut)."""
    return textwrap.wrap(
        text, width, subsequent_indent=indent, break_long_words=False, break_on_hyphens=False
    )


def noqa_long(line: str, indent: int) -> str:
    """A line of user text (a golden expression) that cannot be wrapped safely."""
    return line + "  # noqa: E501" if indent + len(line) > LINE else line


def cpp_wrap(head: str, items: list[str], tail: str, width: int = 110, indent: str = "") -> str:
    """`head(item, item, ...)tail`, wrapped after commas and aligned under the first item."""
    one_line = f"{indent}{head}{', '.join(items)}{tail}"
    if len(one_line) <= width:
        return one_line
    pad = " " * (len(indent) + len(head))
    lines: list[str] = []
    current = f"{indent}{head}"
    for k, item in enumerate(items):
        piece = item + (", " if k < len(items) - 1 else tail)
        if (
            current.strip()
            and len(current) + len(piece.rstrip()) > width
            and current != f"{indent}{head}"
        ):
            lines.append(current.rstrip())
            current = pad
        current += piece
    lines.append(current.rstrip())
    return "\n".join(lines)


def cpp_comment(text: str, width: int = 100) -> str:
    """`text` as // comment lines."""
    return "\n".join("// " + line for line in textwrap.wrap(text, width - 3))


def indent_lines(lines: list[str]) -> str:
    return "\n".join(line if line.startswith("#") else "    " + line for line in lines)


def py_block(value: Any, indent: int = 0, lead: int = 0) -> str:
    """`value` as a Python literal that starts after `lead` columns of a line indented by
    `indent`: on one line when it fits, else one item per line (recursively); strings too long
    for a line become concatenated pieces."""
    flat = py_value(value)
    if indent + lead + len(flat) + 1 <= LINE:
        return flat
    pad = " " * (indent + 4)
    if isinstance(value, str):
        pieces = split_text(value, LINE - indent - 4)
        return "(\n" + "".join(f"{pad}{p}\n" for p in pieces) + " " * indent + ")"
    if isinstance(value, dict):
        items = [
            f"{py_value(k)}: " + py_block(v, indent + 4, len(py_value(k)) + 3)
            for k, v in value.items()
        ]
        opening, closing = "{", "}"
    elif isinstance(value, (list, tuple)):
        items = [py_block(v, indent + 4, 1) for v in value]
        opening, closing = ("[", "]") if isinstance(value, list) else ("(", ")")
    else:
        return flat  # a number: cannot be split
    return opening + "\n" + "".join(f"{pad}{item},\n" for item in items) + " " * indent + closing


def split_text(text: str, width: int) -> list[str]:
    """String literals, each at most `width` columns (when a character allows), that
    concatenate to `text`."""
    pieces, current = [], ""
    for ch in text:
        if current and len(py_string(current + ch)) > width:
            pieces.append(py_string(current))
            current = ""
        current += ch
    pieces.append(py_string(current))
    return pieces


def doc_lines(text: str, width: int) -> list[str]:
    """Text for a docstring or comment: wrapped, backslashes and quotes escaped."""
    text = text.replace("\\", "\\\\").replace('"', '\\"')
    return textwrap.wrap(text, width, break_long_words=True, break_on_hyphens=False) or [""]


def split_pieces(text: str, width: int = LINE - 16) -> list[str]:
    """Text cut at spaces into pieces for implicitly concatenated string literals (each piece
    keeps its trailing space)."""
    if not text:
        return []
    words = text.split(" ")
    pieces, current = [], ""
    for word in words:
        candidate = f"{current} {word}" if current else word
        if current and len(py_string(candidate)) > width:
            pieces.append(current + " ")
            current = word
        else:
            current = candidate
    pieces.append(current)
    return pieces
