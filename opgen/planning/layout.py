"""Line layout that no formatter does for opgen: C++ calls, signatures and lists wrapped at
the line length (the templates lay out the rest of the C++), and text wrapped: comments,
docstrings, long string literals cut into pieces. Generated Python's statements are laid out by
ruff format (rendering.template_context), which wraps code but not text."""

from __future__ import annotations

import textwrap

from opgen.literals import py_string

LINE = 100  # line length of the generated Python (the project's ruff setting)


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
