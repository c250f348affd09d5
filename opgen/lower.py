"""Kernel-side template data (owned by the kernel/host templates work; filled in there)."""

from __future__ import annotations

from typing import Any


def kernel_context(op, options) -> dict[str, Any]:
    return {}
