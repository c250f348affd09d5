"""Values reach generated code only as literals that read back exactly."""

from __future__ import annotations

import pytest

from opgen.literals import cpp_string, py_string


@pytest.mark.parametrize(
    "text",
    [
        "",
        "plain",
        'quotes " and \\ backslash',
        "h\u00e9llo \U0001f600 */",
        "a\nb\t\x01\x7f",
        "\ud83d",  # a lone surrogate, as JSON may hold one
    ],
)
def test_python_literals_read_back_exactly_and_are_ascii(text):
    literal = py_string(text)
    assert literal.isascii() and eval(literal) == text  # noqa: S307 - our own literal


def test_characters_beyond_the_bmp_are_one_escape_not_two_surrogates():
    assert py_string("\U0001f600") == '"\\U0001f600"'


def test_cpp_literals_are_ascii_utf8_octal():
    assert cpp_string('\u00e9"') == '"\\303\\251\\""'
