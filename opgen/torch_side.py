"""PyTorch-side template data (owned by the torch_ext templates work; filled in there)."""

from __future__ import annotations

from typing import Any


def torch_context(op, options) -> dict[str, Any]:
    return {}
