"""The registry of the compute language's functions (opgen/frontend/functions.py): every
function the grammar accepts has one consistent entry, and what each entry says agrees with
torch, the catalog, the compiler's instruction table and the docs."""

from __future__ import annotations

import importlib.util
import math
import re

import pytest
import torch
from conftest import ROOT

from opgen.compiler import lower
from opgen.frontend import expr, functions
from opgen.frontend.catalog import SOC_FAMILIES

# Sample arguments of each function, inside its domain (functions.Function.domain).
SAMPLES = {
    1: [(-2.5,), (-0.75,), (0.0,), (0.3,), (1.5,), (3.0,)],
    2: [(-1.5, 2.0), (0.5, -0.25), (3.0, 3.0), (2.0, 0.5)],
    3: [(-2.0, -1.0, 1.0), (0.5, -1.0, 1.0), (3.0, -1.0, 2.0), (0.0, 4.0, -3.0)],
}


# gcd's: integers (torch.gcd has no float kernel), zeros and signs
INT_SAMPLES = [(12.0, 18.0), (-4.0, 6.0), (0.0, -5.0), (0.0, 0.0), (7.0, 7.0)]


def samples(f: functions.Function) -> list[tuple[float, ...]]:
    if f.scalar_loop:
        return INT_SAMPLES
    found = SAMPLES[f.arity]
    if f.domain == functions.POSITIVE:
        return [a for a in found if a[0] > 0]
    if f.domain == functions.NONNEGATIVE or f is functions.POW or f.golden_helper:
        # spence: NaN below 0 (tests/test_spence.py)
        return [a for a in found if a[0] >= 0]
    return found


def golden_helpers() -> dict[str, object]:
    """_support.py's goldens of the functions torch lacks (spence), which a golden calls by
    name (the generated golden.py imports them)."""
    path = ROOT / "templates" / "torch_ext" / "project" / "{{ project.package }}" / "_support.py"
    spec = importlib.util.spec_from_file_location("opgen_support_template", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    names = {f.golden_helper for f in functions.FUNCTIONS.values() if f.golden_helper}
    return {name: getattr(module, name) for name in names}


def call(f: functions.Function) -> expr.Call:
    """A call of `f` on tensors a, b, c, but for the operands it takes as scalars (clamp's
    bounds, pow's exponent)."""
    scalar = {functions.CLAMP: (1, 2), functions.POW: (1,)}.get(f, ())
    return expr.Call(
        f.name,
        tuple(
            (expr.Scalar if i in scalar else expr.Tensor)(name)
            for i, name in enumerate("abc"[: f.arity])
        ),
    )


def test_the_grammar_accepts_exactly_the_callable_functions():
    accepted = set()
    for f in functions.FUNCTIONS.values():
        # gcd takes tensors only (the scalar unit's loop reads tiles)
        args = ", ".join(["x"] + ["x" if f.scalar_loop else "1"] * (f.arity - 1))
        try:
            expr.parse_compute(f"{f.name}({args})", {"x"}, set())
            accepted.add(f.name)
        except expr.ExprError as error:
            assert not f.callable, error
    assert accepted == {f.name for f in functions.CALLABLE}
    with pytest.raises(expr.ExprError) as info:
        expr.parse_compute("erfc(x)", {"x"}, set())
    listed = str(info.value).split("allowed: ")[1].split(", ")
    assert listed[: len(functions.CALLABLE)] == [f.name for f in functions.CALLABLE]


@pytest.mark.parametrize("f", functions.CALLABLE, ids=lambda f: f.name)
def test_arity_is_checked(f):
    args = ", ".join(["x"] * (f.arity + 1))
    expected = rf"{f.name}\(\) takes {f.arity} argument"
    if f.name in ("max", "min"):  # three arguments are torch's max(x, dim, keepdim): its dim
        expected = "dim takes an int or an int attr"
    with pytest.raises(expr.ExprError, match=expected):
        expr.parse_compute(f"{f.name}({args})", {"x"}, set())


@pytest.mark.parametrize("f", functions.FUNCTIONS.values(), ids=lambda f: f.name)
def test_folding_agrees_with_the_torch_spelling(f):
    text = expr.to_torch(call(f))
    for args in samples(f):
        names = dict(zip("abc", args, strict=False))
        tensors = {
            n: torch.tensor(v, dtype=torch.int64 if f.scalar_loop else torch.float64)
            for n, v in names.items()
            if isinstance(call(f).args["abc".index(n)], expr.Tensor)
        }
        scope = {"torch": torch, **golden_helpers()}
        want = float(eval(text, scope, {**names, **tensors}))  # noqa: S307
        assert f.fold(*args) == pytest.approx(want, rel=1e-12, abs=1e-12), (text, args)


@pytest.mark.parametrize("f", functions.FUNCTIONS.values(), ids=lambda f: f.name)
def test_host_spelling_takes_the_arguments(f):
    text = f.host.format(*[f"v{i}" for i in range(f.arity)], zero="0.0", one="1.0")
    assert "{" not in text
    assert all(f"v{i}" in text for i in range(f.arity))


def test_unary_torch_spellings_name_torch_functions():
    for f in functions.FUNCTIONS.values():
        if f.torch:
            assert f.arity == 1 and callable(getattr(torch, f.torch.removeprefix("torch.")))


def test_every_instruction_has_its_ascend_c_text():
    for f in functions.FUNCTIONS.values():
        for instr in (f.instr, f.fast_instr):
            assert not instr or instr in lower._INSTR_TEXT, (f.name, instr)
        if f.api is not None:
            assert f.instr == f.api.name and f.api in functions.APIS
            assert f.api.scratch is not None and f.api.name in lower.SHARED_TMP_NEEDS
            assert f.api.name in lower._NOT_INPLACE


def test_apis_lack_only_catalog_socs_and_the_catalog_reads_them():
    keys = [a.key for a in functions.APIS]
    assert len(keys) == len(set(keys))
    for api in functions.APIS:
        assert set(api.lacking) <= set(SOC_FAMILIES), api
    for soc, family in SOC_FAMILIES.items():
        assert family.missing_apis == {a.key for a in functions.APIS if soc in a.lacking}


def test_float_only_functions_are_refused_in_an_integer_type():
    assert set(lower._FLOAT_ONLY_FUNCS) == {f.name for f in functions.CALLABLE if f.float_only} | {
        functions.POW.name
    }
    for f in functions.FUNCTIONS.values():
        if f.domain:  # a function with a domain computes in float
            assert f.float_only, f.name


def test_the_docs_list_every_function():
    docs = (ROOT / "docs" / "expressions.md").read_text(encoding="utf-8")
    listed = re.search(r"^- `(exp [^`]*)`", docs, re.M | re.S)
    assert listed is not None
    assert listed.group(1).split() == [f.name for f in functions.CALLABLE]


def test_step_functions_jump():
    for f in functions.CALLABLE:
        if f.arity == 1:
            points = (1.0, 2.0) if f.domain else (0.0, 1.0, -1.0, 2.5)
            jumps = any(abs(f.fold(x + 1e-9) - f.fold(x - 1e-9)) > 1e-3 for x in points)
            assert jumps == f.step, f.name
    assert math.isclose(functions.SIGMOID.fold(0.0), 0.5)
