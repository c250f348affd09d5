"""Text layout that no formatter does: comments, docstrings and messages wrapped, long string
literals cut into concatenated pieces, a line of user text marked when it cannot be wrapped.
(ruff format lays out generated Python's statements; rendering.cpp_layout wraps C++ calls.)"""

from __future__ import annotations

import textwrap

from opgen.literals import py_string

LINE = 100  # line length of the generated Python (the project's ruff setting)


def wrap(text: str, width: int = LINE - 8, indent: str = "") -> list[str]:
    """`text` in lines of at most `width` columns, the ones after the first indented by `indent`
    (a word longer than a line is not cut)."""
    return textwrap.wrap(
        text, width, subsequent_indent=indent, break_long_words=False, break_on_hyphens=False
    )


def noqa_long(line: str, indent: int) -> str:
    """A line of user text (a golden expression) that cannot be wrapped safely."""
    return line + "  # noqa: E501" if indent + len(line) > LINE else line


def indent_lines(lines: list[str]) -> str:
    return "\n".join(line if line.startswith("#") else "    " + line for line in lines)


def doc_lines(text: str, width: int) -> list[str]:
    """Text for a docstring or comment: wrapped, backslashes and quotes escaped."""
    text = text.replace("\\", "\\\\").replace('"', '\\"')
    return textwrap.wrap(text, width, break_long_words=True, break_on_hyphens=False) or [""]


def split_pieces(text: str, width: int = LINE - 16) -> list[str]:
    """Text cut at spaces into pieces for implicitly concatenated string literals (each piece
    keeps its trailing space). A word too long for a piece (a path with a long op name) is a
    piece of its own without a space, the space going to the next piece (or a piece of its
    own): a line holding one word is no line too long to ruff."""
    if not text:
        return []
    words = text.split(" ")
    lines, current = [], ""
    for word in words:
        candidate = " ".join(filter(None, (current, word)))
        if current and len(py_string(candidate)) > width:
            lines.append(current)
            current = word
        else:
            current = candidate
    lines.append(current)

    def too_long(line: str) -> bool:
        return len(py_string(line)) > width

    pieces = []
    for i, line in enumerate(lines):
        if i == len(lines) - 1:
            pieces.append(line)
        elif not too_long(line.strip()):
            pieces.append(line + " ")
        elif not too_long(" " + lines[i + 1]):
            pieces.append(line)
            lines[i + 1] = " " + lines[i + 1]
        else:
            pieces += [line, " "]
    return pieces
