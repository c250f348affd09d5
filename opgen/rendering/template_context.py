"""The Jinja extension through which copier's rendering of opgen's templates sees `project`, the
filters opgen's templates lay out C++ and text with, and through which every `.py.jinja` file's
text leaves as `ruff format` lays it out.

templates/copier.yml lists `ProjectContext` in `_jinja_extensions`. Copier renders each file and
file name with the answers (the prototype's text and the options); the extension adds
`project` (planning.ProjectData). opgen's own rendering hands over the data it planned and
checked before rendering (`hand_over`, on the Jinja environment of that one rendering), and
nothing is planned here. Only copier run by itself in a generated project (`copier recopy`)
has no data handed over: there the first template rendered builds it from the recorded answers
(`plan_answers`, the one way rendering reaches planning), kept on the environment for the rest.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, MutableMapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from jinja2.ext import Extension

if TYPE_CHECKING:
    from jinja2 import BytecodeCache, Environment, Template, nodes
    from jinja2.runtime import Context

    from opgen.frontend.options import Options
    from opgen.planning import ProjectData

# The questions of templates/copier.yml: the prototype's text and Options' fields.
ANSWERS = (
    "prototype",
    "prototype_file",
    "package",
    "torch_namespace",
    "vendor",
    "socs",
    "adopted",
)


def answers(prototype_text: str, options: Options) -> dict[str, Any]:
    """copier's answers for a prototype rendered with `options`."""
    return {
        "prototype": prototype_text,
        "prototype_file": options.prototype_file,
        "package": options.package,
        "torch_namespace": options.namespace,
        "vendor": options.vendor,
        "socs": list(options.socs),
        "adopted": options.adopted,
    }


def hand_over(environment: Environment, data: ProjectData) -> None:
    """Give the templates rendered in `environment` (copier's, for one rendering) `data` as
    `project`: the data opgen planned for the answers it renders with."""
    cast(Any, environment).opgen_project = data  # the attribute ProjectContext adds


def plan_answers(values: Any) -> ProjectData:
    """The project data for copier's answers, when copier renders by itself (`copier recopy` in
    a generated project): the prototype checked and planned as `opgen new` did."""
    from opgen.compiler import checks
    from opgen.frontend import prototype
    from opgen.frontend.options import Options
    from opgen.planning import plan_project

    options = Options(
        package=values["package"],
        namespace=values["torch_namespace"],
        vendor=values["vendor"],
        socs=tuple(values["socs"]),
        prototype_file=values["prototype_file"],
        adopted=bool(values.get("adopted", False)),
    )
    proto = prototype.loads(values["prototype"], source=values["prototype_file"])
    checks.check(proto, options)
    return plan_project(proto, options)


class ProjectContext(Extension):
    """Adds `project` to the context of every template rendered with copier's answers."""

    def __init__(self, environment: Environment) -> None:
        super().__init__(environment)
        environment.extend(opgen_project=None)  # hand_over's, or plan_answers' on first use
        base: type[Context] = environment.context_class

        # jinja builds every template's context through this class; mypy takes no base class
        # known only at run time (the environment's own context class)
        class _Context(base):  # type: ignore[misc, valid-type]
            def __init__(
                self, env: Environment, parent: dict[str, Any], *args: Any, **kwargs: Any
            ) -> None:
                if "project" not in parent and all(k in parent for k in ANSWERS):
                    shared = cast(Any, env)  # opgen_project: the attribute added above
                    if shared.opgen_project is None:
                        shared.opgen_project = plan_answers(parent)
                    parent = {**parent, "project": shared.opgen_project}
                super().__init__(env, parent, *args, **kwargs)

        environment.context_class = _Context
        environment.template_class = _formatting_python(environment.template_class)
        environment.filters.update(FILTERS)
        if environment.bytecode_cache is None:
            environment.bytecode_cache = _bytecode_cache()
        # this environment's method replaced on it alone, as jinja has no hook for it
        environment.from_string = _reusing_compiled_strings(environment)  # type: ignore[method-assign]


def cpp_list(
    items: Iterable[object], head: str, tail: str, indent: int = 0, each: str = "{}"
) -> str:
    """The filter `items | cpp_list("int a[] = {", "};", 4, "&{}")`: the items, each formatted by
    `each`, between head and tail, wrapped after commas and aligned under the first item."""
    from opgen.rendering.cpp_layout import cpp_wrap

    return cpp_wrap(head, [each.format(i) for i in items], tail, indent=" " * indent)


def _lazy(module: str, name: str) -> Callable[..., Any]:
    """A filter that imports its function on first use (opgen's own rendering has the modules
    loaded; `copier recopy` in a project pays only for what its templates use)."""

    def call(*args: Any, **kwargs: Any) -> Any:
        import importlib

        return getattr(importlib.import_module(module), name)(*args, **kwargs)

    call.__name__ = name
    return call


# The filters opgen's templates lay out code with: cpp_layout's (C++ calls and lists wrapped,
# comments), planning.layout's text wrapping (comments, docstrings, long strings) and
# opgen.literals' spellings of values in C++ and Python.
FILTERS = {
    "cpp_list": cpp_list,
    **{
        name: _lazy("opgen.rendering.cpp_layout", name)
        for name in ("cpp_call", "cpp_comment", "cpp_long_calls")
    },
    **{
        name: _lazy("opgen.planning.layout", name)
        for name in (
            "doc_lines",
            "noqa_long",
            "split_pieces",
            "wrap",
        )
    },
    **{
        name: _lazy("opgen.literals", name)
        for name in ("cpp_literal", "cpp_string", "doc_text", "py_literal", "py_string", "py_value")
    },
}


# The generated project's ruff settings (templates/layout/pyproject.toml.jinja): generated Python
# leaves opgen as `ruff format` would leave it there.
RUFF_FORMAT = ["format", "--isolated", "--line-length", "100", "--target-version", "py310"]


def _formatting_python(base: type[Template]) -> type[Template]:
    """Jinja's template class, with what a `.py.jinja` file renders passed through `ruff format`
    (included parts and macros are formatted as part of the file that includes them)."""

    # base is the environment's template class, known only at run time (mypy takes no such base)
    class PythonFormattingTemplate(base):  # type: ignore[misc, valid-type]
        def render(self, *args: Any, **kwargs: Any) -> str:
            text = super().render(*args, **kwargs)
            if self.name and self.name.endswith(".py.jinja"):
                return ruff_format(text, self.name)
            return text

    return PythonFormattingTemplate


def ruff_format(source: str, template: str) -> str:
    """`source`, the Python text `template` rendered, as `ruff format` lays it out."""
    import subprocess

    from ruff.__main__ import find_ruff_bin

    result = subprocess.run(
        [find_ruff_bin(), *RUFF_FORMAT, "--stdin-filename", template.removesuffix(".jinja"), "-"],
        input=source,
        capture_output=True,
        text=True,
        check=False,
    )
    if result.returncode != 0:
        error = result.stderr.strip().removeprefix("error: ")
        raise ValueError(f"{template} renders Python that does not parse ({error})")
    return result.stdout


def _reusing_compiled_strings(environment: Environment) -> Callable[..., Template]:
    """`environment.from_string`, compiling each string once: copier renders every path
    component and its answers file's name from a string, and compiling them anew took half of
    a render. Each call still runs the extensions' preprocess hooks, where copier's yield tag
    resets its state as it would on a compilation."""
    compile_string = environment.from_string
    compiled: dict[str, Template] = {}

    def from_string(
        source: str | nodes.Template,
        globals: MutableMapping[str, Any] | None = None,
        template_class: type[Template] | None = None,
    ) -> Template:
        if globals is not None or template_class is not None or not isinstance(source, str):
            return compile_string(source, globals, template_class)
        environment.preprocess(source)
        if source not in compiled:
            compiled[source] = compile_string(source)
        return compiled[source]

    return from_string


def _bytecode_cache() -> BytecodeCache | None:
    """Compiled templates kept between runs (keyed by template source), when a cache directory
    can be had: compiling opgen's templates is most of a render's time."""
    import tempfile

    import jinja2

    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    directory = Path(base) / "opgen" / "jinja-copier"
    try:
        directory.mkdir(parents=True, exist_ok=True)
        tempfile.NamedTemporaryFile(dir=directory, delete=True).close()
    except OSError:
        return None
    return jinja2.FileSystemBytecodeCache(str(directory))
