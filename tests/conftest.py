"""Shared fixtures for opgen's own tests."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
# Copies of ../shared/protos (the sample prototypes in the two input formats), kept here so the
# suite runs from any checkout.
SHARED_PROTOS = ROOT / "tests" / "data" / "protos"


@pytest.fixture
def write_proto(tmp_path):
    """Write a prototype (a Python object, or raw text) to a file and return its path."""

    def write(data, name: str = "proto.json") -> Path:
        path = tmp_path / name
        path.write_text(data if isinstance(data, str) else json.dumps(data, indent=2))
        return path

    return write


def op(**overrides):
    """A valid single-op prototype in msopgen's format, with fields overridden."""
    base = {
        "op": "AddCustom",
        "input_desc": [
            {"name": "x", "param_type": "required", "format": ["ND"], "type": ["fp16", "float"]},
            {"name": "y", "param_type": "required", "format": ["ND"], "type": ["fp16", "float"]},
        ],
        "output_desc": [
            {"name": "z", "param_type": "required", "format": ["ND"], "type": ["fp16", "float"]},
        ],
        "attr": [],
    }
    base.update(overrides)
    return base


def render_files(proto, options, source):
    """What opgen new renders for `proto`: checked (compiler.checks: PrototypeError), planned,
    then rendered from the template `source`."""
    from opgen.compiler import checks
    from opgen.planning import plan_project
    from opgen.rendering import render

    checks.check(proto, options)
    return render.render(proto, options, source, plan_project(proto, options))
