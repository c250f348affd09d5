"""`opgen new` end to end, as a user runs it: render, build the extension, run the generated
tests, exit 0. The generated package is installed into this environment and removed after."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import EXAMPLES, ROOT, SHARED_PROTOS

pytestmark = pytest.mark.slow

# Package names of their own: installing one of these must not replace the package
# `make demo` installed (gelu_custom), and the uninstall below must not remove it.
CASES = {
    "e2e_gelu": EXAMPLES / "gelu_custom.json",  # README's main command
    "gelu_seed": SHARED_PROTOS / "gelu_custom.seed.json",  # tutorial format, no compute
    # attrs of every scalar kind and a string, two outputs, bf16
    "swish_pair": ROOT / "tests" / "data" / "e2e" / "swish_pair.json",
    # log1p, expm1, erf, floor, ceil, sign, clamp and real powers (boundary values included);
    # Tril and Triu from index(dim)
    "grammar_mix": ROOT / "tests" / "data" / "e2e" / "grammar_mix.json",
    # broadcasting: a bias over rows, a 1-element value among 4 inputs, [7,1,33] x [1,5,33] x [33],
    # and into a tensor updated in place (a 1-element learning rate, a row over rows)
    "broadcast": ROOT / "tests" / "data" / "e2e" / "broadcast.json",
    # golden-only (torch.matmul), inputs shaped by test_shapes: the user's to compute
    "matmul_golden": ROOT / "tests" / "data" / "e2e" / "matmul_golden.json",
    # comparisons, where() and bool outputs; int8/uint8/bool inputs through half (Heaviside,
    # Asinh, x > y, a masked dequantize)
    "compare_where": ROOT / "tests" / "data" / "e2e" / "compare_where.json",
    # the row kernel (rows longer than the UB too): RMSNorm (gamma [H], epsilon), a row sum,
    # Softmax, LayerNorm, where() over a comparison with the row mean (Compare in row tiles)
    "norms": ROOT / "tests" / "data" / "e2e" / "norms.json",
    # max/min/relu/clamp/sign and a row's amax/amin with NaN, +-inf and +-0 (torch's results)
    "special_values": ROOT / "tests" / "data" / "e2e" / "special_values.json",
    # reductions over named axes (dim=, keepdim=): ReduceSum's axes and keep_dims attrs,
    # GlobalAvgPool, a 0-d MseLoss, MseLoss whose string attr reduction chooses its shape,
    # MseLossGrad with its string attr reduction, LayerNorm over two
    # axes, LogSumExp over dim 0 (column mode), LpNorm with its p an attr
    "reductions": ROOT / "tests" / "data" / "e2e" / "reductions.json",
    # a dtype list mixing float and integer combinations (float, fp16, int32, int8), and
    # int8/uint8 arithmetic that wraps modulo 256 as torch's does
    "int_mixed": ROOT / "tests" / "data" / "e2e" / "int_mixed.json",
    # matmul ops on the Matmul API: a plain fp16 matmul with a float output, a bias and leaky
    # ReLU epilogue with an attr slope, a batched matmul with transpose_b from a bool attr
    "matmul": ROOT / "tests" / "data" / "e2e" / "matmul.json",
    # expand(x, size): the output's shape from a list_int attr (torch's x.expand), in dtypes
    # Ascend C has no arithmetic for (bool, int64, uint8: moved as words)
    "expand_attr": ROOT / "tests" / "data" / "e2e" / "expand_attr.json",
    # index ops on the index library, one project: an embedding lookup (int32 ids into a [V, D]
    # table), gather along the last axis (int64), scatter_add and index_add with duplicates,
    # argmax (int64 out), topk values and indices (k an attr), roll (float, fp16, int32),
    # one_hot, cumsum, avg_pool2d and max_pool2d (kernel/stride/padding attrs)
    "index_ops": ROOT / "tests" / "data" / "e2e" / "index_ops.json",
}


RMS_NORM_CHECK = """
import torch
import norms
from precision import assert_precision
for dtype in (torch.float16, torch.float32, torch.bfloat16):
    for shape in ((4, 37), (2, 3, 4096), (2, 40000), (1, 70000)):  # the last two in passes
        g = torch.Generator().manual_seed(0)
        x = (torch.rand(shape, generator=g) * 8 - 4).to(dtype)
        gamma = (torch.rand(shape[-1:], generator=g) * 8 - 4).to(dtype)
        actual = torch.ops.norms.rms_norm_custom(x, gamma, epsilon=1e-6)
        golden = torch.nn.functional.rms_norm(x.double(), shape[-1:], gamma.double(), 1e-6)
        bench = torch.nn.functional.rms_norm(x, shape[-1:], gamma, 1e-6)
        assert_precision(actual, golden, what=f"RmsNormCustom vs rms_norm {dtype} {shape}",
                         benchmark=bench)
"""


# One shape rule of row ops (opgen/frontend/rows.py): the CPU kernel and the fake kernel on meta
# refuse the same shapes with the same message; rows of 0 elements are refused, zero rows give empty
# outputs, and an input of x's full shape is read a row per row.
ROW_SHAPES_CHECK = """
import torch
import norms
ops = torch.ops.norms
x = torch.randn(4, 37)

def refusals(op, *args):
    messages = []
    for device in ("cpu", "meta"):
        try:
            op(*(a.to(device) for a in args))
        except RuntimeError as exc:
            messages.append(str(exc))
        else:
            raise AssertionError(f"{op} {[list(a.shape) for a in args]} not refused on {device}")
    return messages

for shape in ((4, 2), (2, 1, 1), (1, 37)):
    expected = (f"RmsNormCustom: gamma has shape {list(shape)}; a row op's inputs take x's "
                "shape [4, 37], its row [37] or a value per row ([4, 1], or without its first "
                "dims)")
    messages = refusals(ops.rms_norm_custom, x, torch.randn(shape))
    assert all(m.startswith(expected) for m in messages), (expected, messages)
for shape in ((4, 1), (1,)):  # a value per row: torch's broadcasting
    gamma = torch.rand(shape) + 0.5
    x64 = x.double()
    golden = x64 * torch.rsqrt((x64 * x64).mean(-1, keepdim=True) + 1e-6) * gamma.double()
    y = ops.rms_norm_custom(x, gamma, epsilon=1e-6)
    torch.testing.assert_close(y.double(), golden, rtol=1e-4, atol=1e-5)
    assert ops.rms_norm_custom(x.to("meta"), gamma.to("meta")).shape == (4, 37)
expected = "RowSumCustom: x has shape [4, 0]: rows of 0 elements"
messages = refusals(ops.row_sum_custom, torch.randn(4, 0))
assert all(m.startswith(expected) for m in messages), messages
for device in ("cpu", "meta"):
    assert ops.row_sum_custom(torch.randn(0, 37, device=device)).shape == (0,)
    r, m = ops.row_range_custom(torch.randn(0, 37, device=device))
    assert r.shape == m.shape == (0, 1)
    y = ops.rms_norm_custom(torch.randn(0, 37, device=device), torch.randn(37, device=device))
    assert y.shape == (0, 37)
gamma = torch.rand(4, 37) + 0.5
y = ops.rms_norm_custom(x, gamma, epsilon=1e-6)
x64 = x.double()
golden = x64 * torch.rsqrt((x64 * x64).mean(-1, keepdim=True) + 1e-6) * gamma.double()
torch.testing.assert_close(y.double(), golden, rtol=1e-4, atol=1e-5)
print("row shapes alike")
"""


# expand(x, size) against torch's x.expand, bit for bit, on the twin (cpu) and in shape (meta):
# -1 dims, new leading dims, dims of 1 expanded, rows longer than a tile, an empty x; sizes torch
# refuses are refused on both, naming x's shape and the size.
EXPAND_CHECK = """
import torch
import expand_attr
op = torch.ops.expand_attr.expand
cases = [((3, 1), [3, 4]), ((37,), [2, -1]), ((2, 1, 5), [4, -1, 3, -1]), ((1,), [7, 70000]),
         ((70000,), [3, -1]), ((5, 1, 1), [2, 5, 33, 2]), ((0, 3), [2, -1, -1]), ((4, 37), [4, 37])]
for dtype in (torch.bool, torch.int64, torch.float32, torch.bfloat16, torch.uint8, torch.int16):
    for shape, size in cases:
        g = torch.Generator().manual_seed(0)
        if dtype == torch.bool:
            x = torch.randint(0, 2, shape, generator=g).bool()
        elif dtype == torch.int64:  # beyond 2^53 too: words moved, not floats
            x = torch.randint(-2**62, 2**62, shape, generator=g) * 2 + 1
        elif dtype.is_floating_point:
            x = torch.randn(shape, generator=g).to(dtype)
        else:
            x = torch.randint(0, 100, shape, generator=g).to(dtype)
        y = op(x, size)
        assert y.dtype == dtype and torch.equal(y, x.expand(size)), (dtype, shape, size)
        assert op(x.to("meta"), size).shape == x.expand(size).shape
for size in ([4, 5], [-1, 3, 5], [5], [3, 5, 2]):
    try:
        torch.zeros(3, 5).expand(size)
    except RuntimeError:
        pass
    else:
        raise AssertionError(f"torch expanded [3, 5] to {size}")
    for device in ("cpu", "meta"):
        try:
            op(torch.zeros(3, 5, device=device), size)
        except RuntimeError as exc:
            assert f"Expand: x [3, 5] does not expand to size {size}" in str(exc), (device, exc)
        else:
            raise AssertionError(f"size {size} ran on {device}")
print("expand as torch")
"""


# Reductions over named axes against torch, on the twin (cpu) and in shape (meta): ReduceSum
# over every adjacent axis set of [4, 37, 5], with and without keep_dims; [0, 2] refused.
REDUCTIONS_CHECK = """
import itertools
import torch
import reductions
ops = torch.ops.reductions
x = torch.randn(4, 37, 5)
for axes, keep in itertools.product(
    ([0], [1], [2], [-1], [0, 1], [1, 2], [2, 1], [], [0, 1, 2]), (False, True)
):
    expected = torch.sum(x.double(), dim=axes, keepdim=keep)
    y = ops.reduce_sum_custom(x, axes, keep_dims=keep)
    torch.testing.assert_close(y.double(), expected, rtol=1e-5, atol=1e-4)
    meta = ops.reduce_sum_custom(x.to("meta"), axes, keep_dims=keep)
    assert meta.shape == expected.shape, (axes, keep, meta.shape, expected.shape)
# column mode adds its lines in a cascade: 2^24 + 2^20 ones sum exactly (one float32 tile taking
# them a line at a time stopped at 2^24), and a column of 2^22 rand is as close as torch's float32
ones = torch.ones(2**24 + 2**20, 2)
assert ops.reduce_sum_custom(ones, [0]).tolist() == [2.0**24 + 2**20] * 2
r = torch.rand(2**22, 2, generator=torch.Generator().manual_seed(0))
gold = r.double().sum(0)
mine = (ops.reduce_sum_custom(r, [0]).double() - gold).abs()
theirs = (r.sum(0).double() - gold).abs()
ulp = torch.finfo(torch.float32).eps * gold.abs()
assert (mine <= 4 * torch.maximum(theirs, ulp)).all(), (mine, theirs)
for device in ("cpu", "meta"):
    try:
        ops.reduce_sum_custom(x.to(device), [0, 2])
    except RuntimeError as exc:
        assert "ReduceSumCustom: dim=[0, 2] of x [4, 37, 5] are not adjacent axes" in str(exc), exc
    else:
        raise AssertionError(f"axes [0, 2] not refused on {device}")
p, t = torch.randn(3, 5, 7), torch.randn(3, 5, 7)
loss = ops.mse_loss_custom(p, t)
assert loss.shape == () and ops.mse_loss_custom(p.to("meta"), t.to("meta")).shape == ()
torch.testing.assert_close(loss.double(), torch.nn.functional.mse_loss(p.double(), t.double()))
g = ops.global_avg_pool_custom(torch.randn(2, 3, 7, 5))
assert g.shape == (2, 3, 1, 1)
for shape in ((5, 37), (3, 4, 5), (6,)):
    v = torch.randn(shape) * 4
    torch.testing.assert_close(ops.log_sum_exp_custom(v).double(), torch.logsumexp(v.double(), 0))
for p in (1.0, 2.0, 3.0, 0.5):  # LpNorm: p an attr, through the Power API
    for axes, keep in (([-1], False), ([1], True), ([0, 1], False)):
        y = ops.lp_norm_custom(x, p=p, axes=axes, keepdim=keep)
        expected = torch.linalg.vector_norm(x.double(), p, dim=axes, keepdim=keep)
        torch.testing.assert_close(y.double(), expected, rtol=1e-4, atol=1e-5)
# InstanceNorm: gamma and beta a value per row ([C, 1], [N, C, 1]), torch's instance_norm
norm = torch.nn.functional.instance_norm
for n, c, length in ((2, 4, 37), (3, 5, 300), (1, 3, 20000)):
    v, w, b = torch.randn(n, c, length), torch.randn(c, 1), torch.randn(c, 1)
    y = ops.instance_norm_custom(v, w, b, epsilon=1e-5)
    expected = norm(v.double(), weight=w.double().flatten(), bias=b.double().flatten(), eps=1e-5)
    torch.testing.assert_close(y.double(), expected, rtol=1e-4, atol=1e-4)
    y = ops.instance_norm_custom(v, w.expand(c, 1).repeat(n, 1).view(n, c, 1), b, epsilon=1e-5)
    torch.testing.assert_close(y.double(), expected, rtol=1e-4, atol=1e-4)
for device in ("cpu", "meta"):
    try:
        shapes = ((2, 4, 37), (4, 2), (4, 1))
        ops.instance_norm_custom(*(torch.randn(s, device=device) for s in shapes))
    except RuntimeError as exc:
        assert str(exc).startswith("InstanceNormCustom: gamma has shape [4, 2]; a row op's inputs "
                                   "take x's shape [2, 4, 37], its row [37] or a value per row "
                                   "([2, 4, 1], or without its first dims)"), (device, str(exc))
    else:
        raise AssertionError(f"gamma [4, 2] ran on {device}")
# MseLossGrad: the string attr reduction picks the formula, as torch's mse_loss backward (its dout
# a value per element: the loss's gradient broadcast); a value it does not declare is refused
p = torch.randn(3, 5, 7, dtype=torch.float64, requires_grad=True)
t = torch.randn(3, 5, 7, dtype=torch.float64)
for reduction in ("none", "mean", "sum"):
    loss = torch.nn.functional.mse_loss(p, t, reduction=reduction)
    g = torch.randn(loss.shape, dtype=torch.float64)
    (expected,) = torch.autograd.grad(loss, p, g)
    dout = g.expand(p.shape).float().contiguous()
    y = ops.mse_loss_grad_custom(p.detach().float(), t.float(), dout, reduction=reduction)
    torch.testing.assert_close(y.double(), expected, rtol=1e-5, atol=1e-6)
for device in ("cpu", "meta"):
    try:
        args = (torch.randn(4, device=device) for _ in range(3))
        ops.mse_loss_grad_custom(*args, reduction="avg")
    except RuntimeError as exc:
        assert str(exc).startswith("MseLossGradCustom: reduction='avg' is not one of its values: "
                                   "'none', 'mean', 'sum'"), (device, str(exc))
    else:
        raise AssertionError(f"reduction='avg' ran on {device}")
# MseLoss: the string attr reduction chooses the expression and the output's shape, as torch's
# mse_loss ('none' the inputs' shape, in column mode across tiles and cores; 'mean' and 'sum' 0-d)
for shape in ((3, 5, 7), (2, 40000), (1,), (0, 3)):
    p, t = torch.randn(shape), torch.randn(shape)
    for reduction in ("none", "mean", "sum"):
        if reduction != "none" and p.numel() == 0:
            continue  # torch's mean of nothing is nan: rows of 0 elements are refused
        expected = torch.nn.functional.mse_loss(p.double(), t.double(), reduction=reduction)
        y = ops.mse_loss_choice_custom(p, t, reduction=reduction)
        torch.testing.assert_close(y.double(), expected, rtol=1e-5, atol=1e-5)
        meta = ops.mse_loss_choice_custom(p.to("meta"), t.to("meta"), reduction=reduction)
        assert meta.shape == expected.shape, (shape, reduction, meta.shape)
for device in ("cpu", "meta"):
    try:
        ops.mse_loss_choice_custom(torch.randn(4, device=device), torch.randn(4, device=device),
                                   reduction="avg")
    except RuntimeError as exc:
        assert str(exc).startswith("MseLossChoiceCustom: reduction='avg' is not one of its values: "
                                   "'none', 'mean', 'sum'"), (device, str(exc))
    else:
        raise AssertionError(f"reduction='avg' ran on {device}")
print("reductions as torch")
"""


# An attr the compute never reads (SwishPairCustom's clip) keeps its default: another value is
# refused on the CPU and by the fake kernel on meta, with the same message.
FIXED_ATTR_CHECK = """
import torch
import swish_pair
op = torch.ops.swish_pair.swish_pair_custom
for device in ("cpu", "meta"):
    x = torch.randn(8, device=device)
    y, z = op(x, 1.5, 2, True)
    assert y.shape == z.shape == (8,)
    try:
        op(x, 1.5, 2, False)
    except RuntimeError as exc:
        message = str(exc)
    else:
        raise AssertionError(f"clip=False ran on {device}")
    expected = ("SwishPairCustom: clip=False is not read by its compute expression; the kernel "
                "computes as for the default clip=True")
    assert message.startswith(expected), (device, message)
print("unread attr refused")
"""


SPECIAL_VALUES_CHECK = """
import math
import torch
import special_values
ops = torch.ops.special_values
SPECIAL = [math.nan, math.inf, -math.inf, 0.0, -0.0]

def same(actual, expected, what):
    torch.testing.assert_close(actual, expected, rtol=0, atol=0, equal_nan=True, msg=what)
    numbers = ~expected.isnan()  # -0 where torch keeps -0
    assert torch.equal(actual[numbers].signbit(), expected[numbers].signbit()), what

for dtype in (torch.float16, torch.float32, torch.bfloat16):
    g = torch.Generator().manual_seed(0)
    x = (torch.rand(4, 300, generator=g) * 8 - 4).to(dtype)
    y = (torch.rand(4, 300, generator=g) * 8 - 4).to(dtype)
    for i, v in enumerate(SPECIAL * 60):  # every special value in x, in y, and in both
        x.view(-1)[i * 3] = v
        y.view(-1)[i * 3 + 1] = v
        x.view(-1)[i * 3 + 2] = y.view(-1)[i * 3 + 2] = SPECIAL[(i + 1) % len(SPECIAL)]
    mx, mn, r, c, s = ops.special_values_custom(x, y)
    same(mx, torch.maximum(x, y), f"max {dtype}")
    same(mn, torch.minimum(x, y), f"min {dtype}")
    same(r, torch.relu(x), f"relu {dtype}")
    same(c, torch.clamp(x, -1, 1), f"clamp {dtype}")
    same(s, torch.sign(x), f"sign {dtype}")
    for length in (3, 40000):  # 40,000: a row longer than a tile, reduced in passes
        for position in sorted({0, 1, length // 2, length - 1}):
            for v in SPECIAL:
                row = (torch.rand(2, length, generator=g) * 8 - 4).to(dtype)
                row[0, position] = v
                hi, lo = ops.row_extremes_custom(row)
                what = f"amax/amin {dtype} row of {length}, {v} at {position}"
                same(hi, torch.amax(row, dim=-1, keepdim=True), what)
                same(lo, torch.amin(row, dim=-1, keepdim=True), what)
print("special values as torch")
"""


# The whole int8/uint8 range (overflowing, which the generated tests' small ranges avoid) and
# int32 beyond 2^24: torch's integer results exactly, wrapping included.
INT_WRAP_CHECK = """
import torch
import int_mixed
g = torch.Generator().manual_seed(0)
for dtype, lo, hi in ((torch.int8, -128, 128), (torch.uint8, 0, 256), (torch.int32, -2**31, 2**31)):
    x = torch.randint(lo, hi, (3, 1000), generator=g, dtype=torch.int64).to(dtype)
    y = torch.randint(lo, hi, (3, 1000), generator=g, dtype=torch.int64).to(dtype)
    if dtype != torch.uint8:
        if dtype == torch.int32:  # no wrap in the sum: int32 Add is exact where torch's is
            x, y = x // 2, y // 2
        assert torch.equal(torch.ops.int_mixed.add_mixed(x, y), x + y), dtype
    if dtype != torch.int32:
        assert torch.equal(torch.ops.int_mixed.mul_add_byte(x, y), x * y - x.abs() + 3), dtype
print("integers as torch")
"""


# int32 comparisons and where() at the ends of the range and beyond 2^24, where float would
# merge neighbours: torch's results exactly (ties included), broadcast too.
INT_COMPARE_CHECK = """
import torch
import compare_where
ops = torch.ops.compare_where
I = torch.iinfo(torch.int32)
vals = [I.min, I.min + 1, -2**30 - 1, -2**30, -1, 0, 1, 3, 4, 2**24, 2**24 + 1, 2**30, I.max]
x = torch.tensor([a for a in vals for b in vals], dtype=torch.int32)
y = torch.tensor([b for a in vals for b in vals], dtype=torch.int32)
keep = torch.arange(x.numel()) % 3 == 0
assert torch.equal(ops.not_equal_int(x, y), torch.ne(x, y))
assert torch.equal(ops.greater_equal_int(x, y), torch.ge(x, y))
assert torch.equal(ops.greater_equal_int(x[:14].view(1, 14), y[:70].view(5, 14)[:, :1]),
                   torch.ge(x[:14].view(1, 14), y[:70].view(5, 14)[:, :1]))
assert torch.equal(ops.greater_equal_any(x, y), torch.ge(x, y).to(torch.int32))
f = torch.tensor([float("nan"), 1.0, float("inf"), -0.0, 0.0, float("-inf")])
g = torch.tensor([1.0, float("nan"), float("inf"), 0.0, -0.0, 1.0])
assert torch.equal(ops.greater_equal_any(f, g), torch.ge(f, g).float())
for k in (3, I.max, I.min):
    a, b = ops.where_int(x, y, keep, k)
    assert torch.equal(a, torch.where(x > k, x, y)), k
    assert torch.equal(b, torch.where(keep, -x, torch.tensor(k, dtype=torch.int32))), k
print("int32 comparisons as torch")
"""


# Tril/Triu from index(): torch's values bit for bit (NaN, +-inf and -0 kept where the mask holds,
# +0 elsewhere) over diagonals inside and outside the matrix, batched, rows split mid-row across
# tiles and cores; inputs without the axes refused, naming the dim and the shape.
TRIANGLE_CHECK = """
import math
import torch
import grammar_mix
ops = torch.ops.grammar_mix
g = torch.Generator().manual_seed(0)
for shape in ((5, 7), (7, 5), (3, 4, 9), (2, 67, 131), (1, 1), (3, 700, 1037)):
    for dtype in (torch.float16, torch.float32, torch.bfloat16):
        x = torch.randn(shape, generator=g).to(dtype)
        x.view(-1)[::7] = math.nan
        x.view(-1)[3::11] = math.inf
        x.view(-1)[5::13] = -0.0
        for diagonal in (-3, -1, 0, 1, 2, 200):
            for op, torch_op in ((ops.tril_custom, torch.tril), (ops.triu_custom, torch.triu)):
                y, expected = op(x, diagonal=diagonal), torch_op(x, diagonal)
                what = f"{torch_op.__name__} {dtype} {shape} diagonal={diagonal}"
                torch.testing.assert_close(y, expected, rtol=0, atol=0, equal_nan=True, msg=what)
                numbers = ~expected.isnan()
                assert torch.equal(y[numbers].signbit(), expected[numbers].signbit()), what
for device in ("cpu", "meta"):
    for shape, dim in (((5,), -2), ((), -1)):
        try:
            ops.tril_custom(torch.zeros(shape, device=device), diagonal=0)
        except RuntimeError as exc:
            message = str(exc)
        else:
            raise AssertionError(f"tril_custom took shape {shape} on {device}")
        expected = f"TrilCustom: index({dim}) names no axis of the output's shape {list(shape)}"
        assert message.startswith(expected), (device, message)
print("triangles as torch")
"""


MATMUL_CHECK = """
import sys
import torch
import matmul
sys.path.insert(0, "tests")
from precision import assert_precision
ops = torch.ops.matmul
g = torch.Generator().manual_seed(0)
def rand(*shape, dtype=torch.float16):
    return (torch.rand(shape, generator=g) * 2 - 1).to(dtype)
for tb in (True, False):  # the transpose attr either way, b batched or 2-D
    for b_shape in ((3, 24, 33), (24, 33)):
        a, b = rand(3, 40, 24), rand(*b_shape)
        b = b.transpose(-1, -2).contiguous() if tb else b
        actual = ops.batch_matmul_custom(a, b, transpose_x2=tb)
        golden = torch.matmul(a.double(), (b.transpose(-1, -2) if tb else b).double())
        bench = torch.matmul(a, b.transpose(-1, -2) if tb else b)
        assert_precision(actual, golden, what=f"batch tb={tb} {b_shape}", benchmark=bench)
a, b = rand(33, 20), rand(20, 17)  # a bias of the product's shape, and a slope
bias = rand(33, 17, dtype=torch.float32)
actual = ops.matmul_leakyrelu_custom(a, b, bias, alpha=0.25)
golden = torch.nn.functional.leaky_relu(a.double() @ b.double() + bias.double(), 0.25)
assert_precision(actual, golden, what="leaky relu, full bias")
assert ops.matmul_custom(rand(0, 5), rand(5, 7)).shape == (0, 7)  # an empty product
for device in ("cpu", "meta"):  # the inner dims differ: refused naming both shapes
    try:
        ops.matmul_custom(rand(4, 5).to(device), rand(6, 3).to(device))
    except RuntimeError as exc:
        assert "[4, 5]" in str(exc) and "[6, 3]" in str(exc), (device, str(exc))
    else:
        raise AssertionError(f"matmul_custom took [4, 5] @ [6, 3] on {device}")
print("matmuls as torch")
"""


INDEX_CHECK = """
import torch
import index_ops

ops = torch.ops.index_ops
x = torch.randn(6, 33)
index = torch.randint(0, 6, (40, 33))
src = torch.randn(40, 33)
first = ops.scatter_add_dup(x, index, src)
assert torch.equal(first, ops.scatter_add_dup(x, index, src))  # the same bits on every call
torch.testing.assert_close(first, torch.scatter_add(x, 0, index, src))
ids = torch.randint(0, 5, (50,), dtype=torch.int32)
src = torch.randn(50, 33)
first = ops.index_add_dup(x[:5], ids, src)
assert torch.equal(first, ops.index_add_dup(x[:5], ids, src))
torch.testing.assert_close(first, torch.index_add(x[:5], 0, ids, src))
table = torch.randn(1000, 64)
ids = torch.randint(0, 1000, (300,), dtype=torch.int32)
assert torch.equal(ops.embedding_lookup(table, ids), table[ids.long()])
try:
    ops.embedding_lookup(table, torch.tensor([1000], dtype=torch.int32))
except IndexError as exc:
    assert "ids holds the index 1000, outside [0, 1000)" in str(exc), exc
else:
    raise AssertionError("an out-of-range id ran")
# autograd: the golden's backward (gather's a scatter_add, max pooling's torch's own)
x = torch.randn(5, 7, requires_grad=True)
index = torch.randint(0, 7, (5, 9))
ops.gather_last(x, index).sum().backward()
ref = x.detach().clone().requires_grad_()
torch.gather(ref, -1, index).sum().backward()
assert torch.equal(x.grad, ref.grad)
p = torch.randn(1, 2, 9, 9, requires_grad=True)
ops.max_pool_custom(p).sum().backward()
q = p.detach().clone().requires_grad_()
torch.nn.functional.max_pool2d(q, 3, 2, 1).sum().backward()
assert torch.equal(p.grad, q.grad)
print("index ops as torch")
"""


def run_check(script: str, project: Path, printed: str, timeout: int = 600) -> None:
    """Run a check script in a built project (its package importable, torch_npu not loaded):
    it passes when it exits 0 having printed `printed`."""
    check = subprocess.run(
        [sys.executable, "-c", script],
        cwd=project,
        capture_output=True,
        text=True,
        timeout=timeout,
        env={**os.environ, "TORCH_DEVICE_BACKEND_AUTOLOAD": "0"},
    )
    assert check.returncode == 0, check.stderr[-4000:]
    assert printed in check.stdout, check.stdout[-4000:]


@pytest.mark.parametrize("name", list(CASES))
def test_opgen_new_builds_and_passes_its_tests(name, tmp_path):
    project = tmp_path / name
    try:
        proc = subprocess.run(
            [
                sys.executable,
                "-m",
                "opgen",
                "new",
                str(CASES[name]),
                "-o",
                str(project),
                "--no-msopgen",
                "--json",
            ],
            capture_output=True,
            text=True,
            timeout=900,
        )
        render_summary = json.loads(proc.stdout)
        report = render_summary["build"]
        assert proc.returncode == 0, (report, proc.stderr[-4000:])
        steps = {s["step"]: s for s in report["steps"]}
        assert steps["build PyTorch extension"]["status"] == "passed"
        tests = steps["run tests"]
        assert tests["status"] == "passed" and " passed" in tests["detail"], tests
        if name == "broadcast":  # every case with a shape per input passes, test_shapes too
            rerun = subprocess.run(
                [
                    sys.executable,
                    "-m",
                    "pytest",
                    "tests",
                    "-q",
                    "-rA",
                    "-p",
                    "no:cacheprovider",
                    "-k",
                    "shape_per_input",
                ],
                cwd=project,
                capture_output=True,
                text=True,
                timeout=600,
            )
            passed = [line for line in rerun.stdout.splitlines() if line.startswith("PASSED")]
            # 3 dtypes x (test_shapes + 3 built-in broadcasts) per op
            assert len(passed) == 3 * ((3 + 3) + (2 + 3) + (1 + 3) + (2 + 3) + (1 + 3)), (
                rerun.stdout[-3000:]
            )
            for case in (
                "test-shapes-x4x37-bias37",
                "test-shapes-x37-t14x37-t21-value1",
                "test-shapes-a7x1x33-b1x5x33-c33",
                "broadcast-strided",
                "test-shapes-var3x40-alpha1-delta40",
                "test-shapes-x4x37-y37",
            ):
                assert any(line.endswith(f"-{case}]") for line in passed), case
            check_in_place_autograd(project)
            check_read_only_rows_stay_unwritten(project)
        if name == "matmul_golden":
            check_golden_only_results(project)
        if name == "index_ops":  # every file generated, the same bits on every call
            run_check(INDEX_CHECK, project, "index ops as torch")
            owned = {f["path"] for f in render_summary["files"] if f["owner"] == "user"}
            assert all(p.startswith("index_ops/overrides/") for p in owned), owned
            return
        if name == "matmul":  # every file generated: none of the user's but the overrides
            run_check(MATMUL_CHECK, project, "matmuls as torch")
            owned = {f["path"] for f in render_summary["files"] if f["owner"] == "user"}
            assert all(p.startswith("matmul/overrides/") for p in owned), owned
            return
        # no compute: the kernel is the user's, and precision waits for it
        user_step = "_kernel.h" if name in ("gelu_seed", "matmul_golden") else "_compute.h"
        if user_step == "_kernel.h":
            log = (project / ".opgen" / "logs" / "test.log").read_text()
            assert "xfailed" in log
        assert any(
            f["owner"] == "user" and f["path"].endswith(user_step) for f in render_summary["files"]
        )
        if name == "swish_pair":  # an attr the compute never reads keeps its default
            run_check(FIXED_ATTR_CHECK, project, "unread attr refused", timeout=300)
        if name == "grammar_mix":  # Tril and Triu from index(): torch's values, bit by bit
            run_check(TRIANGLE_CHECK, project, "triangles as torch")
        if name == "special_values":  # NaN, +-inf, +-0 anywhere: torch's results, bit by bit
            run_check(SPECIAL_VALUES_CHECK, project, "special values as torch")
        if name == "reductions":  # every axis set of [4, 37, 5], 0-d and column outputs
            run_check(REDUCTIONS_CHECK, project, "reductions as torch")
        if name == "compare_where":  # int32 comparisons at the ends of the range
            run_check(INT_COMPARE_CHECK, project, "int32 comparisons as torch")
        if name == "int_mixed":  # overflowing int8/uint8 and large int32: torch's values
            run_check(INT_WRAP_CHECK, project, "integers as torch")
        if name == "expand_attr":  # -1, new leading dims, bool and int64 data; refusals
            run_check(EXPAND_CHECK, project, "expand as torch")
        if name == "norms":  # RMSNorm against torch's own, by the precision standard
            check = subprocess.run(
                [sys.executable, "-c", RMS_NORM_CHECK],
                cwd=project / "tests",
                capture_output=True,
                text=True,
                timeout=300,
            )
            assert check.returncode == 0, check.stderr[-4000:]
            check = subprocess.run(
                [sys.executable, "-c", ROW_SHAPES_CHECK],
                cwd=project,
                capture_output=True,
                text=True,
                timeout=300,
            )
            assert check.returncode == 0, check.stderr[-4000:]
            assert "row shapes alike" in check.stdout
    finally:
        subprocess.run(
            [sys.executable, "-m", "pip", "uninstall", "-y", "-q", Path(name).name],
            capture_output=True,
        )


# The generated autograd tests of the ops that update an input in place (AddInplaceCustom: a ref
# output; ApplyGradientDescentCustom: no outputs), each in float16, float32 and bfloat16.
IN_PLACE_GRAD_TESTS = (
    "test_opcheck_requires_grad",
    "test_gradcheck",
    "test_backward_matches_the_float64_golden_gradient",
    "test_backward_on_the_shape_cases_matches_the_float64_golden_gradient",
    "test_update_of_a_leaf_that_requires_grad_is_refused",
    "test_backward_under_compile_matches_eager",
)


def check_in_place_autograd(project: Path) -> None:
    """Autograd through an in-place update (_support._register_mutable): every generated
    gradient test of the two in-place ops runs and passes; none is skipped. Planted into the
    installed package, a wrong registration (the Autograd kernel at AutogradCUDA, so the CPU
    runs torch's fallback) fails test_opcheck_requires_grad, which opcheck alone passes, as
    it judges an op by the tensors it returns, and these return none; a doubled gradient
    fails the golden-gradient test and gradcheck."""
    files = ["tests/test_add_inplace_custom.py", "tests/test_apply_gradient_descent_custom.py"]
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            *files,
            "-q",
            "-rA",
            "-p",
            "no:cacheprovider",
            "-k",
            " or ".join(IN_PLACE_GRAD_TESTS),
        ],
        cwd=project,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert proc.returncode == 0, proc.stdout[-4000:]
    lines = proc.stdout.splitlines()
    assert not [
        line
        for line in lines
        if line.startswith(("SKIPPED", "FAILED", "ERROR"))
        and any(test in line for test in IN_PLACE_GRAD_TESTS)
    ], proc.stdout[-4000:]
    passed = [line for line in lines if line.startswith("PASSED")]
    for file in files:
        for test in IN_PLACE_GRAD_TESTS:
            dtypes = [""] if test == "test_gradcheck" else ["float16", "float32", "bfloat16"]
            for dtype in dtypes:
                assert any(
                    line.startswith(f"PASSED {file}::{test}") and dtype in line for line in passed
                ), (file, test, dtype, proc.stdout[-4000:])
    support = project / project.name / "_support.py"
    saved = support.read_bytes()
    original = saved.decode()
    try:
        for what, old, new, expected in AUTOGRAD_PLANTS:
            assert original.count(old) == 1, (what, old)
            support.write_text(original.replace(old, new))
            results = in_place_grad_results(project, files)
            for file in files:
                op_type = OPS_IN_PLACE[file]
                qualname = f"{project.name}::{Path(file).stem.removeprefix('test_')}"
                for test, message in expected.items():
                    ran = {k: v for k, v in results.items() if k.startswith(f"{file}::{test}")}
                    assert ran, (what, file, test, results)
                    for outcome, line in ran.values():
                        if message is None:
                            assert outcome == "PASSED", (what, line)
                        else:
                            wanted = message.format(op=op_type, qualname=qualname)
                            assert outcome == "FAILED" and wanted in line, (what, wanted, line)
    finally:
        support.write_bytes(saved)


OPS_IN_PLACE = {
    "tests/test_add_inplace_custom.py": "AddInplaceCustom",
    "tests/test_apply_gradient_descent_custom.py": "ApplyGradientDescentCustom",
}
# Plants in the project's <package>/_support.py: what each is, its old and new text, and what
# the generated tests then do, by test id: None passes, a message fails with it ({op}: the op's
# type, {qualname}: its torch.ops name).
AUTOGRAD_PLANTS = [
    (
        "a wrong registration: the Autograd kernel at AutogradCUDA (torch's fallback on the CPU)",
        '(name, autograd_kernel, "Autograd", with_keyset=True)',
        '(name, autograd_kernel, "AutogradCUDA", with_keyset=True)',
        {
            "test_opcheck_requires_grad[float32-test_schema]": None,
            "test_opcheck_requires_grad[float32-test_faketensor]": None,
            "test_opcheck_requires_grad[float32-test_aot_dispatch_dynamic]": None,
            "test_opcheck_requires_grad[float32-test_autograd_registration]": (
                "{op} ({qualname}) has no autograd kernel for AutogradCPU and AutogradPrivateUse1"
            ),
            "test_backward_matches_the_float64_golden_gradient[float32]": (
                "AssertionError: gradient of tensor input 0: Tensor-likes are not close!"
            ),
        },
    ),
    (
        "a wrong gradient: every gradient of the backward doubled",
        "            return backward(ctx, *grads)\n",
        "            return tuple(None if g is None else 2 * g for g in backward(ctx, *grads))\n",
        {
            "test_opcheck_requires_grad[float32-test_autograd_registration]": None,
            "test_backward_matches_the_float64_golden_gradient[float32]": (
                "AssertionError: gradient of tensor input 0: Tensor-likes are not close!"
            ),
            "test_gradcheck": (
                "GradcheckError: Jacobian mismatch for output 0 with respect to input 0"
            ),
        },
    ),
]


def in_place_grad_results(project: Path, files: list[str]) -> dict[str, tuple[str, str]]:
    """The float32 opcheck and golden-gradient tests and gradcheck of the in-place ops, run:
    each test's id, outcome and -rA line (its message, unshortened)."""
    selected = (
        "(test_opcheck_requires_grad or test_backward_matches_the_float64_golden_gradient)"
        " and float32 or test_gradcheck"
    )
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            *files,
            "-q",
            "-rA",
            "-p",
            "no:cacheprovider",
            "-k",
            selected,
        ],
        cwd=project,
        capture_output=True,
        text=True,
        timeout=900,
        env={**os.environ, "COLUMNS": "1000"},
    )
    results = {}
    for line in proc.stdout.splitlines():
        match = re.match(r"(PASSED|FAILED|ERROR|SKIPPED) (\S+)", line)
        if match:
            results[match.group(2)] = (match.group(1), line)
    return results


BIAS_ADD = "    AscendC::Add(y, x, bias, count);\n"
# A hand edit that uses bias's tile as a temporary: y = (x + bias) + 0, through bias.
BIAS_ADD_THROUGH_BIAS = (
    "    AscendC::Add(bias, x, bias, count);\n    AscendC::Adds(y, bias, 0.0f, count);\n"
)
CALL_BIAS_ADD = """
import torch, broadcast
try:
    torch.ops.broadcast.bias_add_custom(torch.randn(64, 1024), torch.randn(1024))
except RuntimeError as exc:
    print(exc)
"""


def check_read_only_rows_stay_unwritten(project: Path) -> None:
    """The twin fails a compute step that writes into a READ_ONLY row tile (every tile of
    bias's row broadcast is that same row), naming the rule, instead of letting the later tiles
    read what was written."""
    compute = project / "op_kernel" / "bias_add_custom_compute.h"
    assert BIAS_ADD in compute.read_text()
    compute.write_text(compute.read_text().replace(BIAS_ADD, BIAS_ADD_THROUGH_BIAS))
    build = subprocess.run(
        [sys.executable, "-m", "opgen", "build", str(project)],
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert build.returncode == 0, build.stderr[-4000:]
    call = subprocess.run(
        [sys.executable, "-c", CALL_BIAS_ADD],
        cwd=project,
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "TORCH_DEVICE_BACKEND_AUTOLOAD": "0"},
    )
    assert "kernel block 0 of " in call.stdout, (call.stdout, call.stderr[-4000:])
    assert "the compute step wrote into the tile of a READ_ONLY input" in call.stdout


def check_golden_only_results(project: Path) -> None:
    """The golden-only matmul's suite, test by test: the fake kernel (the golden on meta tensors)
    and opcheck pass; InferShape against the golden's shapes and precision are strict xfails
    naming the files to write."""
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "tests", "-q", "-rA", "-p", "no:cacheprovider"],
        cwd=project,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stdout[-4000:]
    results: dict[str, list[str]] = {}
    for line in proc.stdout.splitlines():
        match = re.match(
            r"(PASSED|XFAIL|XPASS|FAILED|SKIPPED)\S* tests/test_matmul_custom\.py::"
            r"(\w+)(\[[^\]]*\])?(.*)",
            line,
        )
        if match:
            results.setdefault(match.group(2), []).append(match.group(1) + match.group(4))
    assert {r for r in results["test_fake_kernel_matches_golden"]} == {"PASSED"}
    assert len(results["test_fake_kernel_matches_golden"]) == 4  # 2 dtypes x 2 test_shapes
    assert {r for r in results["test_opcheck"]} == {"PASSED"}, results["test_opcheck"]
    assert len(results["test_opcheck"]) == 8
    for test, file in (
        ("test_host_infer_matches_golden", "op_host/matmul_custom_infer.h"),
        ("test_precision", "op_kernel/matmul_custom_kernel.h"),
    ):
        assert len(results[test]) == 4, results[test]
        assert all(r.startswith("XFAIL") and file in r for r in results[test]), results[test]


ROW_SUM_ALONE = """
import torch, {package}
try:
    torch.ops.{package}.row_sum_custom(torch.ones(4, 37))
except RuntimeError as exc:
    print(exc)
"""


@pytest.mark.parametrize("soc", ["ascend310b1", "ascend310p3"])
def test_row_ops_and_row_broadcasts_on_310b_and_310p(tmp_path, soc):
    """RMSNorm, a row sum (ReduceSum, documented on 310B and 310P AI Core), a bias over rows,
    ReduceSum over attr axes, LogSumExp over dim 0 (the column mode) and InstanceNorm (a value
    per row), built for `soc` (the
    twin emulates the first target) and passing their generated tests.
    310B has no UB-to-UB DataCopy: the row is copied into each tile by the vector unit. 310P has
    no DataCopyPad: a row's tail is packed in UB by the scalar unit, and the row sum's values are
    scalar writes, so each core takes rows that start a 64-byte cache line of the output; without
    that (AddRowOutput taken out of TilingFunc) the twin fails the launch naming the line."""
    norms = json.loads((ROOT / "tests" / "data" / "e2e" / "norms.json").read_text())
    broadcast = json.loads((ROOT / "tests" / "data" / "e2e" / "broadcast.json").read_text())
    reductions = json.loads((ROOT / "tests" / "data" / "e2e" / "reductions.json").read_text())
    ops = [o for o in norms if o["op"] in ("RmsNormCustom", "RowSumCustom")]
    ops += [o for o in broadcast if o["op"] == "BiasAddCustom"]
    # named axes, and the column mode (LogSumExp over dim 0: lines wider than the UB too)
    ops += [o for o in reductions if o["op"] in ("ReduceSumCustom", "LogSumExpCustom")]
    # a value per row (InstanceNorm's gamma [C, 1]), read by the scalar unit
    ops += [o for o in reductions if o["op"] == "InstanceNormCustom"]
    if soc.startswith("ascend310p"):  # no bfloat16 Cast there
        for tensor in (t for o in ops for t in o["input_desc"] + o["output_desc"]):
            tensor["type"] = [d for d in tensor["type"] if d != "bf16"]
            tensor["format"] = tensor["format"][:1]
    prototype = tmp_path / "rows.json"
    prototype.write_text(json.dumps(ops))
    name = f"rows_{soc}"
    project = tmp_path / name
    try:
        proc = subprocess.run(
            [
                sys.executable,
                "-m",
                "opgen",
                "new",
                str(prototype),
                "-o",
                str(project),
                "--soc",
                soc,
                "--no-msopgen",
                "--json",
            ],
            capture_output=True,
            text=True,
            timeout=1200,
        )
        report = json.loads(proc.stdout)["build"]
        assert proc.returncode == 0, (report, proc.stderr[-4000:])
        tests = {s["step"]: s for s in report["steps"]}["run tests"]
        assert tests["status"] == "passed" and " failed" not in tests["detail"], tests
        if soc.startswith("ascend310p"):
            host = project / "op_host" / "row_sum_custom.cpp"
            text = host.read_text()
            call = (
                "    if (!opgen::AddRowOutput(context, rows, context->GetOutputDesc(0), "
                "true)) {\n        return ge::GRAPH_FAILED;\n    }\n"
            )
            assert call in text
            host.write_text(text.replace(call, ""))
            build = subprocess.run(
                [sys.executable, "-m", "opgen", "build", str(project)],
                capture_output=True,
                text=True,
                timeout=900,
            )
            assert build.returncode == 0, build.stderr[-4000:]
            run = subprocess.run(
                [sys.executable, "-c", ROW_SUM_ALONE.format(package=name)],
                cwd=project,
                capture_output=True,
                text=True,
                timeout=300,
                env={**os.environ, "TORCH_DEVICE_BACKEND_AUTOLOAD": "0"},
            )
            assert (
                "kernel blocks 0 and 1 both write the 64-byte cache line at bytes [0, 64) "
                "of output 'y'" in run.stdout
            ), (run.stdout, run.stderr[-4000:])
    finally:
        subprocess.run(
            [sys.executable, "-m", "pip", "uninstall", "-y", "-q", name], capture_output=True
        )


def test_mixed_integer_dtypes_on_310p(tmp_path):
    """int_mixed built for ascend310p3 (no DataCopyPad, no bfloat16 Cast): its generated tests
    pass, and overflowing int8/uint8 and int32 beyond 2^24 are torch's values there too."""
    name = "int_mixed_310p"
    project = tmp_path / name
    try:
        proc = subprocess.run(
            [
                sys.executable,
                "-m",
                "opgen",
                "new",
                str(CASES["int_mixed"]),
                "-o",
                str(project),
                "--soc",
                "ascend310p3",
                "--no-msopgen",
                "--json",
            ],
            capture_output=True,
            text=True,
            timeout=1200,
        )
        report = json.loads(proc.stdout)["build"]
        assert proc.returncode == 0, (report, proc.stderr[-4000:])
        tests = {s["step"]: s for s in report["steps"]}["run tests"]
        assert tests["status"] == "passed" and " failed" not in tests["detail"], tests
        run_check(INT_WRAP_CHECK.replace("int_mixed", name), project, "integers as torch")
    finally:
        subprocess.run(
            [sys.executable, "-m", "pip", "uninstall", "-y", "-q", name], capture_output=True
        )
