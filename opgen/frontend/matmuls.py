"""Matmul ops: an output computed as matmul(a, b) (the cube unit, through the Matmul API) with
an elementwise epilogue around it (the vector unit). The rules a prototype must meet, the shape
rule the kernel, InferShape and the tests share, and the default test shapes."""

from __future__ import annotations

from collections.abc import Sequence

from opgen.frontend import expr
from opgen.frontend.broadcast import MAX_TEST_ELEMENTS, elements, limit_text
from opgen.frontend.model import Op, TensorParam
from opgen.frontend.problems import Problem, key_path

# What the Matmul API multiplies here (asc-devkit Matmul使用说明 table 2, Atlas A2/A3: A = B in
# half, bfloat16_t or float, accumulated in float) and the types an epilogue and the output may
# have.
OPERAND_DTYPES = ("float16", "bfloat16", "float32")
EPILOGUE_DTYPES = ("float16", "bfloat16", "float32")
# Default test cases (M, K, N): tails in every dim, one element, several base blocks and cores.
DEFAULT_MKN = ((37, 70, 45), (1, 1, 1), (300, 260, 190))
BATCHED_MKN = (2, 33, 20, 17)  # (B, M, K, N): a batched case when the op's inputs may be 3-D


def epilogue_inputs(op: Op) -> list[TensorParam]:
    """The inputs the epilogue reads (each [N], or the output's shape): every required input
    but the matmul's operands."""
    mm = op.matmul
    assert mm is not None
    return [t for t in op.inputs if t.param_type == "required" and t.name not in (mm.a, mm.b)]


def matmul_problems(
    block_path: str, compute: dict[str, expr.Node], outputs: Sequence[TensorParam]
) -> list[Problem]:
    """A matmul op has one output, whose expression holds one matmul(a, b) (written as often as
    it likes) and an elementwise epilogue that reads neither a nor b."""
    problems = []
    for out_name, tree in compute.items():
        path = key_path(key_path(block_path, "compute"), out_name)
        mms = [n for n in expr.walk(tree) if isinstance(n, expr.Matmul)]
        if not mms:
            continue
        if len(outputs) != 1:
            problems.append(
                Problem(path, f"an op with a matmul has one output, not {len(outputs)}")
            )
        if len(set(mms)) > 1:  # the same product written twice is one (leaky ReLU's m)
            shown = ", ".join(sorted({m.show() for m in mms}))
            problems.append(
                Problem(path, f"compute expression: {shown}: an op computes one product")
            )
        for node in expr.walk(tree):
            if isinstance(node, (expr.Reduce, expr.Index)):
                what = "a reduction" if isinstance(node, expr.Reduce) else "index()"
                problems.append(
                    Problem(
                        path,
                        f"compute expression: {what} beside matmul(): the epilogue of a "
                        "matmul is elementwise",
                    )
                )
                break
        operands = {mms[0].a, mms[0].b}
        read = sorted({n.name for n in expr.walk(tree) if isinstance(n, expr.Tensor)} & operands)
        if read:
            problems.append(
                Problem(
                    path,
                    f"compute expression: the epilogue reads {', '.join(read)}, an operand of "
                    f"{mms[0].show()}; it may read the product and other inputs",
                )
            )
    return problems


def dtype_problems(base: str, op: Op) -> list[Problem]:
    """Per dtype combination: a and b one type the Matmul API multiplies, the output and the
    epilogue's inputs floating point."""
    mm = op.matmul
    if mm is None:
        return []
    problems = []
    sections = (("input_desc", op.inputs), ("output_desc", op.outputs))
    index = {t.name: (key, i) for key, ts in sections for i, t in enumerate(ts)}

    def path(name: str, k: int) -> str:
        key, i = index[name]
        return key_path(key_path(key_path(key_path(base, key), i), "type"), k)

    a, b = (next(t for t in op.inputs if t.name == n) for n in (mm.a, mm.b))
    for k, (da, db) in enumerate(zip(a.dtypes, b.dtypes, strict=True)):
        if da not in OPERAND_DTYPES:
            problems.append(
                Problem(
                    path(mm.a, k),
                    f"{mm.show()} multiplies {', '.join(OPERAND_DTYPES)} on the cube "
                    f"unit (the Matmul API), not {da}",
                )
            )
        elif db != da:
            problems.append(
                Problem(path(mm.b, k), f"{mm.show()}: {mm.b} is {db}, {mm.a} {da}; give one type")
            )
    for t in [*epilogue_inputs(op), *op.outputs]:
        for k, d in enumerate(t.dtypes):
            if d not in EPILOGUE_DTYPES:
                problems.append(
                    Problem(
                        path(t.name, k),
                        f"{t.name} is {d}; the epilogue of a matmul computes in float over "
                        f"{', '.join(EPILOGUE_DTYPES)}",
                    )
                )
    return problems


def operand_shapes(op: Op, case: dict[str, tuple[int, ...]]) -> tuple[int, ...] | str:
    """The product's shape for the operands' shapes in `case` (transposes as the attrs'
    defaults give them), or why there is none."""
    mm = op.matmul
    assert mm is not None
    defaults = {a.name: a.default for a in op.attrs}

    def flag(value: bool | str) -> bool:
        return bool(defaults.get(value, False)) if isinstance(value, str) else value

    a, b = case[mm.a], case[mm.b]
    return product_shape(a, b, flag(mm.transpose_a), flag(mm.transpose_b))


def product_shape(
    a: tuple[int, ...], b: tuple[int, ...], transpose_a: bool, transpose_b: bool
) -> tuple[int, ...] | str:
    """torch.matmul's shape for a [M, K] or [B, M, K] and b [K, N] or [B, K, N] (the same B),
    each transposed first where its flag holds; else why not (the rule InferShape and the fake
    kernel state)."""
    if len(a) not in (2, 3) or len(b) not in (2, 3):
        return "a and b are 2-D or 3-D (batched)"
    m, ka = (a[-1], a[-2]) if transpose_a else (a[-2], a[-1])
    kb, n = (b[-1], b[-2]) if transpose_b else (b[-2], b[-1])
    if ka != kb:
        return f"a's K ({ka}) differs from b's ({kb})"
    if len(b) == 3 and (len(a) != 3 or a[0] != b[0]):
        return "a batched b takes an a of the same batch"
    return (*a[:-2], m, n)


def test_shapes_problems(op: Op) -> list[Problem]:
    """Each test_shapes case multiplies, and the epilogue's inputs are [N] or the output's
    shape."""
    mm = op.matmul
    if mm is None:  # not op.is_matmul
        return []
    problems = []
    for k, case in enumerate(op.test_shapes):
        path = key_path(key_path(key_path(op.json_path, "opgen"), "test_shapes"), k)
        if mm.a not in case or mm.b not in case:
            problems.append(Problem(path, f"give the shapes of {mm.a} and {mm.b}"))
            continue
        shape = operand_shapes(op, case)
        given = ", ".join(f"{n} {list(s)}" for n, s in case.items())
        if isinstance(shape, str):
            problems.append(Problem(path, f"{mm.show()} of {given}: {shape}"))
            continue
        if elements(shape) > MAX_TEST_ELEMENTS:
            problems.append(
                Problem(
                    path,
                    f"{mm.show()} of {given} is {list(shape)}, {elements(shape)} elements; a "
                    f"test tensor holds at most {limit_text(MAX_TEST_ELEMENTS)}",
                )
            )
        for t in epilogue_inputs(op):
            if t.name in case and tuple(case[t.name]) not in ((shape[-1],), shape):
                problems.append(
                    Problem(
                        path,
                        f"{t.name} {list(case[t.name])}: the epilogue of a matmul takes "
                        f"[N] ({[shape[-1]]}) or the product's shape ({list(shape)})",
                    )
                )
    return problems


def default_test_shapes(op: Op) -> tuple[dict[str, tuple[int, ...]], ...]:
    """Cases for a matmul op without test_shapes: 2-D ones with tails in M, K and N (the
    epilogue's inputs [N]), and a batched one."""
    mm = op.matmul
    assert mm is not None
    defaults = {a.name: a.default for a in op.attrs}

    def flag(value: bool | str) -> bool:
        return bool(defaults.get(value, False)) if isinstance(value, str) else value

    def case(batch: tuple[int, ...], m: int, k: int, n: int) -> dict[str, tuple[int, ...]]:
        a = (k, m) if flag(mm.transpose_a) else (m, k)
        b = (n, k) if flag(mm.transpose_b) else (k, n)
        shapes = {mm.a: (*batch, *a), mm.b: (*batch, *b)}
        shapes.update({t.name: (n,) for t in epilogue_inputs(op)})
        return shapes

    cases = [case((), m, k, n) for m, k, n in DEFAULT_MKN]
    bsz, m, k, n = BATCHED_MKN
    cases.append(case((bsz,), m, k, n))
    return tuple(cases)
