"""Naming rules: msopgen's snake name, aclnn's camel names, and identifier checks.

The names generated code uses are fixed by the tools that consume it, so each rule here is a
copy of the consumer's rule, not a style choice:
- `snake_name`: msopgen's `fix_name_lower_with_under`; the CANN build looks the kernel function
  and file up by it (ascend-c.md §1.4).
- `aclnn_name`: `ConvertName` of CANN's aclnn code generator (op_aclnn_generator.cpp), which
  turns prototype names into the parameter names of `aclnn<Op>GetWorkspaceSize`.
"""

from __future__ import annotations

import keyword
import re

# A tensor or attr name must be a plain identifier in C++, Python, CMake and the aclnn header.
# No leading underscore (reserved in C++), no "__" (reserved), no trailing "_" (aclnn's
# ConvertName would read past the end of the name).
NAME_RE = re.compile(r"^[A-Za-z][A-Za-z0-9]*(_[A-Za-z0-9]+)*$")
OP_TYPE_RE = re.compile(r"^[A-Z][A-Za-z0-9]*$")

CPP_KEYWORDS = frozenset(
    """
    alignas alignof and and_eq asm auto bitand bitor bool break case catch char char8_t char16_t
    char32_t class compl concept const consteval constexpr constinit const_cast continue
    co_await co_return co_yield decltype default delete do double dynamic_cast else enum
    explicit export extern false float for friend goto if inline int long mutable namespace
    new noexcept not not_eq nullptr operator or or_eq private protected public register
    reinterpret_cast requires return short signed sizeof static static_assert static_cast
    struct switch template this thread_local throw true try typedef typeid typename union
    unsigned using virtual void volatile wchar_t while xor xor_eq
    """.split()
)
PYTHON_KEYWORDS = frozenset(keyword.kwlist)

# Names the generated code itself uses next to the prototype's names.
RESERVED_NAMES = {
    "workspace": "the kernel entry's workspace parameter",
    "tiling": "the kernel entry's tiling parameter",
    "executor": "a parameter of aclnn's GetWorkspaceSize",
    "stream": "a parameter of the aclnn API",
    "torch": "the module name golden expressions use",
    "meta_outputs": "the keyword torchair passes to graph converters",
}
# aclnn parameter names the generated API has besides the prototype's (op_aclnn_generator.cpp).
ACLNN_RESERVED = frozenset({"workspaceSize", "executor", "workspace", "stream"})


def snake_name(op_type: str) -> str:
    """msopgen's OpType -> file/kernel name rule: AddRMSNorm -> add_rms_norm.

    Mirrors `fix_name_lower_with_under` (msopgen/interface/utils.py): lower the first letter;
    put "_" before a later upper-case letter unless it follows "_", when it follows a
    non-upper-case character, or when it follows an upper-case one and precedes a lower-case one.
    """
    out = []
    for i, ch in enumerate(op_type):
        if i > 0 and ch.isupper():
            prev = op_type[i - 1]
            nxt = op_type[i + 1] if i + 1 < len(op_type) else ""
            if prev != "_" and (not prev.isupper() or nxt.islower()):
                out.append("_")
        out.append(ch.lower())
    return "".join(out)


def aclnn_name(name: str) -> str:
    """aclnn's ConvertName: lower the first letter, drop each "_" and upper the next one."""
    head, *rest = name.split("_")
    return head[:1].lower() + head[1:] + "".join(part[:1].upper() + part[1:] for part in rest)


def pascal_name(snake: str) -> str:
    """gelu_custom -> GeluCustom (for class names derived from a snake name)."""
    return "".join(part[:1].upper() + part[1:] for part in snake.split("_"))


def identifier_problem(name: str) -> str | None:
    """Why `name` cannot name a tensor or attr, or None when it can."""
    if not NAME_RE.match(name):
        return (
            "must start with a letter and hold only letters, digits and single underscores "
            "(no leading, trailing or double underscore)"
        )
    if name in CPP_KEYWORDS and name in PYTHON_KEYWORDS:
        return "is a keyword in C++ and Python"
    if name in CPP_KEYWORDS:
        return "is a C++ keyword"
    if name in PYTHON_KEYWORDS:
        return "is a Python keyword"
    if name in RESERVED_NAMES:
        return f"is reserved: it is {RESERVED_NAMES[name]}"
    return None
