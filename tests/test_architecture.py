"""The shape of opgen's own code: stages import each other in one direction only."""

from __future__ import annotations

import ast

from conftest import ROOT

PACKAGE = ROOT / "opgen"


def imports_of(path) -> set[str]:
    """The opgen modules a module imports, at the top or inside functions."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("opgen"):
            if node.module == "opgen" or node.module == "opgen.templatedata":
                found |= {f"{node.module}.{a.name}" for a in node.names}
            else:
                found.add(node.module)
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
    assert "opgen.templatedata.kernel" in graph and "opgen.lower" in graph
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


def test_the_compiler_knows_nothing_of_templates():
    """lower.py is the compute compiler only: it builds no template data."""
    deps = module_graph()["opgen.lower"]
    assert not {d for d in deps if d.startswith("opgen.templatedata")}, deps
