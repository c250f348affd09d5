"""C++ line layout for the templates (registered as filters by rendering.template_context):
calls, signatures and initializer lists longer than the line wrapped after commas and aligned
under the first argument, as clang-format would, and comments wrapped. The templates lay out
the rest of the C++ themselves."""

from __future__ import annotations

import textwrap

LINE = 100  # the generated C++'s line length


def cpp_call(head: str, args: list[str], indent: int, tail: str = "") -> str:
    """`head(args)tail` at `indent` columns; when too long, the arguments are filled greedily
    into lines aligned after the parenthesis (clang-format's style)."""
    line = f"{head}(" + ", ".join(args) + ")" + tail
    if indent + len(line) <= LINE or not args:
        return line
    column = indent + len(head) + 1
    lines: list[str] = []
    current = f"{head}("
    for i, arg in enumerate(args):
        piece = arg + (", " if i < len(args) - 1 else ")" + tail)
        too_long = (indent if not lines else 0) + len(current) + len(piece.rstrip()) > LINE
        if too_long and not current.endswith("("):
            lines.append(current.rstrip())
            current = " " * column
        current += piece
    lines.append(current.rstrip())
    return "\n".join(lines)


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


def cpp_long_calls(code: str) -> str:
    """Statements (one a line, indented) with each call `f(a, b, ...);` longer than the line
    wrapped after the commas outside parentheses, as cpp_call lays it out."""
    lines = []
    for line in code.split("\n"):
        body = line.lstrip()
        indent = len(line) - len(body)
        if len(line) <= LINE or not body.endswith(");") or "(" not in body:
            lines.append(line)
            continue
        head, _, rest = body.partition("(")
        args, depth, current = [], 0, ""
        for ch in rest[: -len(");")]:
            if ch == "," and depth == 0:
                args.append(current.strip())
                current = ""
                continue
            depth += {"(": 1, ")": -1}.get(ch, 0)
            current += ch
        args.append(current.strip())
        lines.append(" " * indent + cpp_call(head, args, indent, ";"))
    return "\n".join(lines)
