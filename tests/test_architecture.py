"""The shape of opgen's own code: stages import each other in one direction only, and functions
stay short enough to read."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from conftest import ROOT

PACKAGE = ROOT / "opgen"


def imports_of(path) -> set[str]:
    """The opgen modules a module imports, at the top or inside functions."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("opgen"):
            # `from opgen.frontend import model` imports a module, `from opgen.errors import
            # BadInput` a name: keep both spellings, module_graph keeps the modules
            found.add(node.module)
            found |= {f"{node.module}.{a.name}" for a in node.names}
        elif isinstance(node, ast.Import):
            found |= {a.name for a in node.names if a.name.startswith("opgen")}
    return found


def module_graph() -> dict[str, set[str]]:
    modules = {}
    for path in PACKAGE.rglob("*.py"):
        rel = path.relative_to(ROOT).with_suffix("")
        name = ".".join(rel.parts[:-1] if rel.name == "__init__" else rel.parts)
        modules[name] = path
    graph = {}
    for name, path in modules.items():
        graph[name] = {m for m in imports_of(path) if m in modules and m != name}
    # a package's __init__ re-exporting a submodule is not a dependency of that submodule
    return graph


def test_no_import_cycle_among_opgen_modules():
    graph = module_graph()
    assert "opgen.planning.kernel" in graph and "opgen.compiler.lower" in graph
    state: dict[str, str] = {}
    stack: list[str] = []

    def visit(node: str) -> None:
        state[node] = "open"
        stack.append(node)
        for dep in sorted(graph[node]):
            if dep == "opgen" or (node.startswith(dep + ".") and dep != "opgen"):
                continue  # a module importing its own package's __init__ (re-exports)
            if state.get(dep) == "open":
                cycle = stack[stack.index(dep) :] + [dep]
                raise AssertionError("import cycle: " + " -> ".join(cycle))
            if dep not in state:
                visit(dep)
        stack.pop()
        state[node] = "done"

    for node in sorted(graph):
        if node not in state:
            visit(node)


# The pipeline's stages, in order (docs/development.md): a stage's modules import their own
# stage's, earlier stages' and the shared modules only. The command line (cli.py) sits on
# top and may import any.
STAGES = ["frontend", "compiler", "planning", "rendering", "project", "commands"]
SHARED = {"opgen", "opgen.errors", "opgen.literals", "opgen.resources", "opgen.invocation"}
COMMAND_LINE = {"opgen.cli", "opgen.__main__"}


def rank(module: str) -> int:
    if module in SHARED:
        return -1
    if module in COMMAND_LINE:
        return len(STAGES)
    return STAGES.index(module.split(".")[1])


def test_every_module_belongs_to_a_stage():
    for module in module_graph():
        assert module in SHARED | COMMAND_LINE or module.split(".")[1] in STAGES, module


def test_stages_import_forward_only():
    backward = [
        f"{module} -> {dep}"
        for module, deps in module_graph().items()
        for dep in deps
        if rank(dep) > rank(module) or (rank(module) == -1 and module != "opgen" and rank(dep) >= 0)
    ]
    assert not backward, backward


def test_the_compiler_knows_nothing_of_templates():
    """lower.py is the compute compiler only: it builds no template data."""
    deps = module_graph()["opgen.compiler.lower"]
    assert not {d for d in deps if d.startswith("opgen.planning")}, deps


# Functions short enough to read (issue #27): none in opgen/ over 60 lines or McCabe complexity 15.
MAX_LINES, MAX_COMPLEXITY = 60, 15


def function_lines() -> dict[str, tuple[int, int, str]]:
    """Every function in opgen/: its line count, first line and file."""
    found = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        module = ".".join(path.relative_to(ROOT).with_suffix("").parts)

        def walk(node, prefix: str, path=path, module=module) -> None:
            for child in ast.iter_child_nodes(node):
                if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    lines = child.end_lineno - child.lineno + 1
                    found[f"{module}:{prefix}{child.name}"] = (lines, child.lineno, str(path))
                    walk(child, f"{prefix}{child.name}.")
                elif isinstance(child, ast.ClassDef):
                    walk(child, f"{prefix}{child.name}.")

        walk(ast.parse(path.read_text()), "")
    return found


def complexities(functions: dict[str, tuple[int, int, str]]) -> dict[str, int]:
    """McCabe complexity over MAX_COMPLEXITY, as ruff's C901 measures it, by function."""
    import json
    import re
    import shutil
    import subprocess
    import sys
    from pathlib import Path

    import pytest

    ruff = Path(sys.executable).with_name("ruff")
    exe = str(ruff) if ruff.exists() else shutil.which("ruff")
    if exe is None:
        pytest.skip("ruff is not installed (pip install '.[test]'): it measures the complexity")
    proc = subprocess.run(
        [
            exe,
            "check",
            "--no-cache",
            "--select",
            "C901",
            "--output-format",
            "json",
            "--config",
            f"lint.mccabe.max-complexity={MAX_COMPLEXITY}",
            str(PACKAGE),
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    by_place = {(file, first): name for name, (_, first, file) in functions.items()}
    found = {}
    for finding in json.loads(proc.stdout):
        value = int(re.search(r"\((\d+) > \d+\)", finding["message"]).group(1))
        found[by_place[(finding["filename"], finding["location"]["row"])]] = value
    return found


def test_no_function_over_60_lines_or_complexity_15():
    functions = function_lines()
    complexity = complexities(functions)
    problems = [
        f"{name}: {lines} lines, complexity {complexity.get(name, 0)} (limits {MAX_LINES}, "
        f"{MAX_COMPLEXITY}): split it"
        for name, (lines, _, _) in sorted(functions.items())
        if lines > MAX_LINES or complexity.get(name, 0) > MAX_COMPLEXITY
    ]
    assert not problems, "\n".join(problems)


# The CPU twin held to the same limits (issue #47), as lizard measures C++: lines from a
# function's first line to its last, and the McCabe complexity (each &&, ||, ?: and case counts).
TWIN = PACKAGE / "twin" / "include"


def test_no_twin_function_over_60_lines_or_complexity_15():
    import pytest

    lizard = pytest.importorskip("lizard", reason="lizard is not installed (pip install '.[test]')")
    problems = []
    for info in lizard.analyze([str(TWIN)], exts=lizard.get_extensions([])):
        for fn in info.function_list:
            if fn.length > MAX_LINES or fn.cyclomatic_complexity > MAX_COMPLEXITY:
                where = f"{Path(info.filename).relative_to(ROOT)}:{fn.start_line}"
                problems.append(
                    f"{where}: {fn.name}: {fn.length} lines, complexity "
                    f"{fn.cyclomatic_complexity} (limits {MAX_LINES}, {MAX_COMPLEXITY}): split it"
                )
    assert not problems, "\n".join(problems)


def test_no_twin_branch_in_what_ships_to_the_npu():
    """The kernel and host libraries hold no OPGEN_TWIN branch: what the twin checks, it checks in
    its own headers (opgen_twin/detail/unwritten.h behind opgen_kernel.h's hooks)."""
    shipped = [ROOT / "templates" / "kernel", ROOT / "templates" / "host"]
    found = [
        str(path.relative_to(ROOT))
        for root in shipped
        for path in sorted(root.rglob("*"))
        if path.is_file() and "OPGEN_TWIN" in path.read_text(errors="replace")
    ]
    assert not found


# No template over 300 lines (issue #27): what is the same in every project is a plain file
# instead (the kernel and host libraries, precision.py, _support.py, opgen_torch.h), which copier
# copies as it is, and long templates include their sections (tests/parts/).
MAX_TEMPLATE_LINES = 300


def test_no_template_over_300_lines():
    templates = ROOT / "templates"
    problems = [
        f"{p.relative_to(templates).as_posix()}: {lines} lines (limit {MAX_TEMPLATE_LINES}): "
        "split it, or make what every project shares a plain file"
        for p in sorted(templates.rglob("*.jinja"))
        if p.is_file()
        and not p.is_symlink()
        and (lines := len(p.read_text().splitlines())) > MAX_TEMPLATE_LINES
    ]
    assert not problems, "\n".join(problems)


# Code-building f-strings in the planners, per module: C++ or Python text that the templates
# should print from typed data (#27 wants none outside the compiler's emitter). Not counted: an
# f-string that builds a name or key (only identifier, path and `:` characters around its fields:
# "{snake}_tiling.h", "{namespace}::{snake}", "in:{name}"), and a message (prose: two words in a
# row, "{op} has no golden"), unless it is a comment for the generated code ("// {text}").
# None may grow, and one that shrinks lowers its count here. The one left is not code text:
# kernel.py names the dtypes of a combination in an error message ("x is float16, i is int32"),
# too short for the prose test. (C++ calls too long for a line are wrapped by
# rendering/cpp_layout.py, the templates' filter, outside the planners.)
PLANNER_FSTRINGS: dict[str, int] = {}
NAME_CHARACTERS = re.compile(r"[A-Za-z0-9_./:-]*")
PROSE = re.compile(r"(?<![\w:])[A-Za-z]+,? [a-z]+\b")
COMMENT = re.compile(r"\s*(//|#|<!--)")


def code_fstrings(path) -> int:
    """The f-strings in a module that build code text: not a name, not a message."""
    count = 0
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.JoinedStr):
            text = "".join(v.value for v in node.values if isinstance(v, ast.Constant))
            name = NAME_CHARACTERS.fullmatch(text)
            message = PROSE.search(text) and not COMMENT.match(text)
            count += not name and not message
    return count


def test_planners_build_no_more_code_text():
    found = {p.name: code_fstrings(p) for p in sorted((PACKAGE / "planning").glob("*.py"))}
    problems = [
        f"planning/{name}: {count} code-building f-strings, up from "
        f"{PLANNER_FSTRINGS.get(name, 0)}: print the text in a template from typed data"
        for name, count in found.items()
        if count > PLANNER_FSTRINGS.get(name, 0)
    ]
    problems += [
        f"planning/{name}: {found.get(name, 0)} code-building f-strings, down from {count}: "
        "lower its entry"
        for name, count in PLANNER_FSTRINGS.items()
        if found.get(name, 0) < count
    ]
    assert not problems, "\n".join(problems)


# The template context is typed, frozen dataclasses only (issue #27): no dict or Any field.
def untyped_fields() -> set[str]:
    """The fields of ProjectData and of every dataclass it holds whose type has a dict or Any."""
    import dataclasses
    import typing

    from opgen.planning import ProjectData

    seen, found = set(), set()

    def walk(cls) -> None:
        if cls in seen or not dataclasses.is_dataclass(cls):
            return
        seen.add(cls)
        hints = typing.get_type_hints(cls)
        for field in dataclasses.fields(cls):
            hint = hints[field.name]
            if "dict" in repr(hint) or "typing.Any" in repr(hint):
                found.add(
                    f"{cls.__module__.removeprefix('opgen.planning.')}.{cls.__qualname__}"
                    f".{field.name}"
                )
            inner = [hint, *typing.get_args(hint)]
            for arg in inner + [a for i in inner for a in typing.get_args(i)]:
                if isinstance(arg, type):
                    walk(arg)

    walk(ProjectData)
    return found


def test_no_untyped_field_in_the_template_context():
    found = sorted(untyped_fields())
    assert not found, f"template context fields typed as dict or Any: {found} (use a dataclass)"


def test_the_planners_raise_nothing():
    """Planners decide, they do not judge: every check runs before planning, in the front end
    or the compiler (opgen.compiler.checks), with its JSON path."""
    raising = [
        f"{path.relative_to(ROOT)}:{node.lineno}"
        for path in sorted((PACKAGE / "planning").rglob("*.py"))
        for node in ast.walk(ast.parse(path.read_text()))
        if isinstance(node, ast.Raise)
    ]
    assert not raising, raising


def test_rendering_plans_only_for_copier_by_itself():
    """opgen hands the rendering the data it planned (template_context.hand_over): rendering
    takes from planning its marks and ProjectData (and planning.layout's text filters, by
    name), and plans only in template_context.plan_answers, for copier run by itself in a
    generated project (`copier recopy`)."""
    imported: dict[str, set[str]] = {}  # module.function (or module) -> planning names
    for path in sorted((PACKAGE / "rendering").rglob("*.py")):
        tree = ast.parse(path.read_text())
        functions = [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)]
        for node in ast.walk(tree):
            if not (isinstance(node, ast.ImportFrom) and node.module or "").startswith(
                "opgen.planning"
            ):
                continue
            inside = [f.name for f in functions if f.lineno <= node.lineno <= f.end_lineno]
            where = f"{path.stem}.{inside[-1]}" if inside else path.stem
            imported.setdefault(where, set()).update(f"{node.module}.{a.name}" for a in node.names)
    assert imported == {
        "render": {
            "opgen.planning.FOLLOWS_COMPUTE_MARK",
            "opgen.planning.GENERATED_MARK",
            "opgen.planning.ProjectData",
        },
        "template_context": {"opgen.planning.ProjectData"},  # a type only
        "template_context.plan_answers": {"opgen.planning.plan_project"},
    }


def test_development_guide_names_every_module():
    """docs/development.md's source tree names each module of opgen/ (a new one gets its line)."""
    guide = (ROOT / "docs" / "development.md").read_text()
    unnamed = [
        path.relative_to(ROOT).as_posix()
        for path in sorted((ROOT / "opgen").rglob("*.py"))
        if path.name != "__init__.py" and not re.search(rf"\b{re.escape(path.name)}\b", guide)
    ]
    assert not unnamed, f"not in docs/development.md's source tree: {unnamed}"
