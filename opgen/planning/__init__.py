"""The planners: the model and the options turned into what the templates render.

One module per template root, each with one `plan(...)` returning a frozen dataclass, built
once per op and passed along:

- `kernel`: `templates/kernel` (`op.kernel`), from the compute compiler (`opgen.compiler.lower`);
- `host`: `templates/host` (`op.host`), from the kernel's data;
- `torch_ext`: `templates/torch_ext` (`op.torch`);
- `tests`: `templates/tests` (`op.tests`), from the torch data;
- `user_op`: the files of an op without a compute expression, the user's to compute
  (`op.user`; the roots' `user_op/` directories);
- `project`: the roots' common data (`project`, `op`), built from the others.

`layout` wraps the statements printed into generated code; `opgen.literals` escapes values.
"""

from __future__ import annotations

from opgen.planning.project import (
    FOLLOWS_COMPUTE_MARK,
    GENERATED_MARK,
    OpData,
    ProjectData,
    plan_project,
)

__all__ = ["FOLLOWS_COMPUTE_MARK", "GENERATED_MARK", "OpData", "ProjectData", "plan_project"]
