"""The compute step as the templates print it (templates/macros/cpp.jinja's step_signature and
step_body), for the tests that read or run its text."""

from __future__ import annotations

from functools import lru_cache

import jinja2
from jinja2.sandbox import SandboxedEnvironment

from opgen.planning.kernel import Compute
from opgen.rendering.template_context import ProjectContext
from opgen.resources import templates_dir


@lru_cache(maxsize=1)
def _macros():
    # sandboxed, as copier's: the templates' bytecode cache (template_context) holds its code
    env = SandboxedEnvironment(
        loader=jinja2.FileSystemLoader(str(templates_dir())),
        extensions=[ProjectContext],
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
        undefined=jinja2.StrictUndefined,
    )
    return env.get_template("macros/cpp.jinja").module


def step_body(c: Compute) -> str:
    """The compute step's statements, indented as in <op>_compute.h."""
    return str(_macros().step_body(c))


def step_signature(c: Compute) -> str:
    """The compute step's template line (if any) and signature."""
    return str(_macros().step_signature(c))
