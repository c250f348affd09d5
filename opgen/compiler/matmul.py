"""A matmul op's epilogue: the elementwise op the compute compiler lowers after the product
(the cube unit's Matmul API computes the product itself)."""

from __future__ import annotations

from dataclasses import replace

from opgen.compiler.lower import fresh
from opgen.frontend import expr
from opgen.frontend.matmuls import epilogue_inputs
from opgen.frontend.model import Op, TensorParam


def epilogue_op(op: Op) -> tuple[Op, str]:
    """The op the epilogue is: its inputs the product (float) and the epilogue's inputs, its
    expression the output's with matmul(a, b) as the product; and the product's name."""
    mm = op.matmul
    assert mm is not None
    taken = {t.name for t in op.tensors} | {a.name for a in op.attrs}
    product = fresh("product", taken)
    ((out_name, tree),) = op.compute.items()
    combos = len(op.dtype_combinations)
    product_param = TensorParam(product, "required", ("float32",) * combos, ("ND",) * combos)
    return (
        replace(
            op,
            inputs=(product_param, *epilogue_inputs(op)),
            compute={out_name: _replace_matmul(tree, product)},
            golden={},
            test_shapes=(),
        ),
        product,
    )


def _replace_matmul(node: expr.Node, product: str) -> expr.Node:
    if isinstance(node, expr.Matmul):
        return expr.Tensor(product)
    kids = expr.children(node)
    if not kids:
        return node
    return expr.with_children(node, tuple(_replace_matmul(k, product) for k in kids))
