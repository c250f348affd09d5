"""The quick tier (`pytest -m "not slow"`) compiles nothing: every test that builds C++, itself or
through a fixture or helper, is marked slow.

A static check over tests/: a function compiles when it spells a compiler command (a list that
starts with CXX, g++, gcc, c++, cc, clang, clang++, cmake or ninja), runs `setup.py build_ext`,
`opgen build` or `opgen new` without --no-build/--dry-run in a subprocess, or uses
torch.utils.cpp_extension; or when it refers to a function (of its module or imported from
tests/) or asks for a fixture (of its module or a conftest.py above it) that compiles. A test
calling the CLI in-process (CliRunner) is not followed: the compiler-wrapper run of the quick
tier is the check for those."""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from pathlib import Path

from conftest import ROOT

TESTS = ROOT / "tests"
COMPILERS = {"g++", "gcc", "c++", "cc", "clang", "clang++", "cmake", "ninja"}
SUBPROCESS = {"run", "Popen", "call", "check_call", "check_output"}
NO_BUILD = {"--no-build", "--dry-run"}


@dataclass
class Module:
    path: Path
    tree: ast.Module
    functions: dict[str, ast.FunctionDef] = field(default_factory=dict)  # top level
    fixtures: dict[str, ast.FunctionDef] = field(default_factory=dict)
    imports: dict[str, tuple[Path, str | None]] = field(default_factory=dict)  # name -> (file, fn)
    cpp_extension: set[str] = field(default_factory=set)  # names bound to cpp_extension


def _is_fixture(fn: ast.FunctionDef) -> bool:
    for dec in fn.decorator_list:
        target = dec.func if isinstance(dec, ast.Call) else dec
        if isinstance(target, ast.Attribute) and target.attr == "fixture":
            return True
    return False


def _resolve(dotted: str, here: Path, root: Path) -> Path | None:
    """The file under `root` (tests/) a module name imports (pytest puts tests/ and the test's
    own directory on sys.path)."""
    rel = Path(*dotted.split("."))
    for base in (here.parent, root):
        for candidate in (base / rel.with_suffix(".py"), base / rel / "__init__.py"):
            if candidate.is_file():
                return candidate
    return None


def parse(path: Path, root: Path) -> Module:
    module = Module(path, ast.parse(path.read_text(), filename=str(path)))
    for fn in module.tree.body:
        if isinstance(fn, ast.FunctionDef):
            module.functions[fn.name] = fn
            if _is_fixture(fn):
                module.fixtures[fn.name] = fn
    for node in ast.walk(module.tree):
        if isinstance(node, ast.Import):
            module.cpp_extension |= {
                a.asname or a.name
                for a in node.names
                if a.name.startswith("torch.utils.cpp_extension")
            }
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            if node.module.startswith("torch.utils.cpp_extension"):
                module.cpp_extension |= {a.asname or a.name for a in node.names}
            elif node.module == "torch.utils":
                module.cpp_extension |= {
                    a.asname or a.name for a in node.names if a.name == "cpp_extension"
                }
            else:
                for alias in node.names:
                    sub = _resolve(f"{node.module}.{alias.name}", path, root)  # a module
                    if sub is not None:
                        module.imports[alias.asname or alias.name] = (sub, None)
                    elif (source := _resolve(node.module, path, root)) is not None:
                        module.imports[alias.asname or alias.name] = (source, alias.name)
    return module


def _strings(node: ast.List) -> list[str]:
    return [e.value for e in node.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)]


def _builds_in_subprocess(call: ast.Call) -> bool:
    func = call.func
    if not (
        isinstance(func, ast.Attribute)
        and func.attr in SUBPROCESS
        and isinstance(func.value, ast.Name)
        and func.value.id == "subprocess"
    ):
        return False
    if not call.args or not isinstance(call.args[0], ast.List):
        return False
    words = [w for w in _strings(call.args[0]) if w not in ("-m", "opgen")]
    if "build_ext" in words:
        return True
    return bool(words) and (words[0] == "build" or (words[0] == "new" and not NO_BUILD & {*words}))


def compiles_itself(fn: ast.FunctionDef, module: Module) -> bool:
    for node in ast.walk(fn):
        if isinstance(node, ast.List) and node.elts:
            first = node.elts[0]
            if (isinstance(first, ast.Name) and first.id == "CXX") or (
                isinstance(first, ast.Constant) and first.value in COMPILERS
            ):
                return True
        if isinstance(node, ast.Call) and _builds_in_subprocess(node):
            return True
        if isinstance(node, ast.Name) and node.id in module.cpp_extension:
            return True
        if isinstance(node, ast.Attribute) and ast.unparse(node).endswith(
            "torch.utils.cpp_extension"
        ):
            return True
    return False


class Analysis:
    def __init__(self, root: Path = TESTS) -> None:
        self.root = root
        self.modules: dict[Path, Module] = {}
        self.memo: dict[tuple[Path, int], bool] = {}
        self.deps: dict[tuple[Path, int], list[tuple[Module, ast.FunctionDef]]] = {}

    def module(self, path: Path) -> Module:
        if path not in self.modules:
            self.modules[path] = parse(path, self.root)
        return self.modules[path]

    def fixture(self, name: str, path: Path) -> tuple[Module, ast.FunctionDef] | None:
        """Where pytest finds fixture `name` for a test in `path`."""
        candidates = [path] + [
            d / "conftest.py" for d in path.parents if d == self.root or self.root in d.parents
        ]
        for candidate in candidates:
            if candidate.is_file() and name in (mod := self.module(candidate)).fixtures:
                return mod, mod.fixtures[name]
        return None

    def compiles(self, module: Module, fn: ast.FunctionDef) -> bool:
        """Whether `fn` or anything it reaches (fixtures, functions) compiles itself."""
        seen: set[tuple[Path, int]] = set()
        stack = [(module, fn)]
        while stack:
            mod, f = stack.pop()
            key = (mod.path, f.lineno)
            if key in seen:
                continue
            seen.add(key)
            if key not in self.memo:
                self.memo[key] = compiles_itself(f, mod)
            if self.memo[key]:
                return True
            if key not in self.deps:
                self.deps[key] = list(self.dependencies(mod, f))
            stack.extend(self.deps[key])
        return False

    def dependencies(self, module: Module, fn: ast.FunctionDef):
        params = {a.arg for a in fn.args.args + fn.args.kwonlyargs}
        for name in sorted(params):
            if (found := self.fixture(name, module.path)) is not None:
                yield found
        local = params | {
            n.id for n in ast.walk(fn) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)
        }
        for node in ast.walk(fn):
            if isinstance(node, ast.Name) and node.id != fn.name and node.id not in local:
                if node.id in module.functions:
                    yield module, module.functions[node.id]
                elif node.id in module.imports:
                    source, name = module.imports[node.id]
                    imported = self.module(source)
                    if name in imported.functions:
                        yield imported, imported.functions[name]
            elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
                source, name = module.imports.get(node.value.id, (None, ""))
                if source is not None and name is None:  # module.function
                    imported = self.module(source)
                    if node.attr in imported.functions:
                        yield imported, imported.functions[node.attr]


def _marked_slow(decorators: list[ast.expr]) -> bool:
    return any("mark.slow" in ast.unparse(d) for d in decorators)


def _module_slow(tree: ast.Module) -> bool:
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "pytestmark" for t in node.targets
        ):
            return "mark.slow" in ast.unparse(node.value)
    return False


def unmarked_compiling_tests(paths, root: Path = TESTS) -> list[str]:
    """The tests in `paths` (under `root`) that compile but are not marked slow, as
    tests/...::name."""
    analysis = Analysis(root)
    found = []
    for path in paths:
        module = analysis.module(path)
        if _module_slow(module.tree):
            continue
        for node in module.tree.body:
            if isinstance(node, ast.ClassDef):
                if _marked_slow(node.decorator_list) or "mark.slow" in "".join(
                    ast.unparse(n) for n in node.body if isinstance(n, ast.Assign)
                ):
                    continue
                tests = [
                    (f"{node.name}::{n.name}", n)
                    for n in node.body
                    if isinstance(n, ast.FunctionDef) and n.name.startswith("test")
                ]
            elif isinstance(node, ast.FunctionDef) and node.name.startswith("test"):
                tests = [(node.name, node)]
            else:
                continue
            for name, fn in tests:
                if not _marked_slow(fn.decorator_list) and analysis.compiles(module, fn):
                    found.append(f"{path.relative_to(root.parent)}::{name}")
    return found


def test_every_test_that_compiles_is_marked_slow():
    paths = sorted(TESTS.rglob("test_*.py"))
    assert unmarked_compiling_tests(paths) == []


def test_the_check_sees_the_suites_builds():
    """Without their slow marks, the known builds are found: through a session fixture in
    tests/twin/conftest.py, a fixture calling kernel_host.twin.build, one calling
    generated.project.build, a test running g++ itself and a module fixture passing its
    compile function to a thread pool."""
    analysis = Analysis()
    expected = {
        ("twin/test_runner.py", "test_add_custom"),  # twin_build (conftest.py)
        ("twin/test_kernel_rules.py", "test_queue_protocol"),  # run_section -> twin_build
        ("twin/test_runner.py", "test_kernel_variant_compile_time"),  # [CXX, ...]
        ("twin/test_compile_errors.py", "test_unsupported_api_fails_to_compile"),  # pool.map
        ("test_kernel_host_render.py", "test_twin_numerics"),  # twin_ops -> twin.build
        ("test_generated_suite.py", "test_gelu_suite_passes"),  # gelu -> project.build
        ("test_complex.py", "test_both_variants_compile_on_the_twin"),  # ["g++", ...]
        ("test_torch_ext_render.py", "test_cpu_extension_builds_and_runs_gelu"),  # build_ext
        (
            "test_golden_only.py",
            "test_a_golden_only_in_place_op_passes_once_its_files_are_written",
        ),  # opgen build
    }
    for rel, name in expected:
        module = analysis.module(TESTS / rel)
        assert analysis.compiles(module, module.functions[name]), (rel, name)
    quick = {
        ("test_build_steps.py", "test_the_extension_builds_in_place_and_installs_only_once"),
        ("test_torch_ext_render.py", "test_schemas_parse"),
        ("test_kernel_host_render.py", "test_gelu_kernel"),
        ("test_broadcast.py", "test_a_broadcasting_op_renders_the_broadcast_machinery"),
    }
    for rel, name in quick:
        module = analysis.module(TESTS / rel)
        assert not analysis.compiles(module, module.functions[name]), (rel, name)


def test_an_unmarked_build_is_reported(tmp_path):
    """A test module in a folder of its own (as twin/ is) whose unmarked test asks for a
    fixture of its conftest.py that compiles, and one that builds through cpp_extension, are
    reported; the marked ones and a plain test are not."""
    root = tmp_path / "tests"
    (root / "sub").mkdir(parents=True)
    (root / "conftest.py").write_text("")
    (root / "sub" / "conftest.py").write_text(
        "import subprocess\n\nimport pytest\n\n\n@pytest.fixture(scope='session')\n"
        "def built(tmp_path_factory):\n"
        "    subprocess.run(['c++', 'x.cpp', '-o', 'x'], check=True)\n"
    )
    probe = root / "sub" / "test_probe.py"
    probe.write_text(
        "import pytest\nfrom torch.utils.cpp_extension import load_inline\n\n\n"
        "def helper():\n    return load_inline('m', cpp_sources='')\n\n\n"
        "def test_uses_fixture(built):\n    pass\n\n\n"
        "def test_uses_helper():\n    helper()\n\n\n"
        "@pytest.mark.slow\ndef test_marked(built):\n    pass\n\n\n"
        "def test_plain():\n    pass\n\n\n"
        "@pytest.mark.slow\nclass TestMarked:\n    def test_in_class(self, built):\n"
        "        pass\n"
    )
    assert unmarked_compiling_tests([probe], root) == [
        "tests/sub/test_probe.py::test_uses_fixture",
        "tests/sub/test_probe.py::test_uses_helper",
    ]
    probe.write_text(
        "import pytest\n\npytestmark = pytest.mark.slow\n\n\n"
        "def test_uses_fixture(built):\n    pass\n"
    )
    assert unmarked_compiling_tests([probe], root) == []
