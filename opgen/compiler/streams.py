"""The tensors a kernel streams through the UB and the type each dtype combination computes in:
what the compute compiler (compute.py) lowers for and its checks (checks.py) judge, and what the
kernel planner names and lays out."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from opgen.frontend import expr, functions
from opgen.frontend.catalog import BYTE_DTYPES, DTYPES, compute_type
from opgen.frontend.model import Op, TensorParam
from opgen.frontend.names import aclnn_name


@dataclass(frozen=True)
class Combination:
    """A dtype combination and the type its streamed tensors compute in (None: none)."""

    dtypes: list[str]  # the combination, inputs then outputs
    compute_type: str | None
    streamed_dtypes: list[str]  # of the streamed tensors, in their order


@dataclass
class Tensor:
    param: TensorParam
    index: int  # IR index among inputs or outputs (a write-back: its input's)
    # The write-back stream of an op without outputs: the new value of input `index`, computed
    # like an in-place output (compute parameter <name>_ref) and copied back to the input's GM
    # address, under the input's DTYPE_ macro (the op has no output for the build to define one).
    writeback: bool = False
    # A 1-byte dtype (int8, uint8, bool) of an op with a compute expression: it computes in
    # float, cast through half.
    through_half: bool = False
    # A stream of an expand(x, size): it moves words of its dtype's width, never widened.
    moved: bool = False

    @property
    def role(self) -> str:
        return self.param.role

    @property
    def kernel_param(self) -> str:
        return self.param.kernel_param

    @property
    def gm_param(self) -> str:
        """The kernel entry's GM_ADDR parameter the stream reads or writes."""
        return self.param.name if self.writeback else self.param.kernel_param

    def dtype_in(self, combo: Sequence[str], n_inputs: int) -> str:
        """The tensor's dtype in a dtype combination (the op's `n_inputs` inputs, then its
        outputs; a write-back has its input's)."""
        return combo[
            self.index if self.role == "input" or self.writeback else n_inputs + self.index
        ]

    @property
    def macro(self) -> str:
        if self.writeback:
            return f"DTYPE_{self.param.name.upper()}"
        return self.param.dtype_macro

    @property
    def orig_macro(self) -> str:
        """ORIG_DTYPE_<...>: the macro the CANN build defines with the tensor's DT_ number."""
        return "ORIG_" + self.macro

    @property
    def streamed(self) -> bool:
        # an optional output is computed like a required one (its callers always pass it)
        return self.param.param_type == "required" or (
            self.role == "output" and self.param.param_type == "optional"
        )


def tensor_tags(tensors: list[Tensor]) -> dict[str, str]:
    """camelCase identifiers per tensor (x_ref -> xRef); by position if two would clash."""
    tags = {t.kernel_param: aclnn_name(t.kernel_param) for t in tensors}
    if len(set(tags.values())) < len(tags):
        tags = {
            t.kernel_param: f"{t.role[:2] if t.role == 'input' else 'out'}{t.index}"
            for t in tensors
        }
    return tags


@dataclass(frozen=True)
class Streams:
    """The op's tensors as the kernel sees them."""

    tensors: list[Tensor]  # the IR tensors, inputs then outputs
    writebacks: list[Tensor]  # an op without outputs: the inputs it writes back
    streamed: list[Tensor]  # through UB: the required tensors, then the write-backs
    tags: dict[str, str]  # camelCase identifier per kernel parameter

    @property
    def ins(self) -> list[Tensor]:
        return [t for t in self.streamed if t.role == "input"]

    @property
    def outs(self) -> list[Tensor]:
        return [t for t in self.streamed if t.role == "output"]


def streams(op: Op) -> Streams:
    tensors = [Tensor(t, i) for i, t in enumerate(op.inputs)] + [
        Tensor(t, i) for i, t in enumerate(op.outputs)
    ]
    # An op without outputs streams each input it overwrites back to where it came from.
    positions = {t.name: i for i, t in enumerate(op.inputs)}
    writebacks = [
        Tensor(t, positions[t.name], writeback=True)
        for t in (op.results if op.in_place_only else ())
    ]
    streamed = [t for t in tensors if t.streamed] + writebacks
    for t in streamed:
        t.moved = op.expand is not None
        t.through_half = (
            bool(op.compute) and not t.moved and any(d in BYTE_DTYPES for d in t.param.dtypes)
        )
    return Streams(tensors, writebacks, streamed, tensor_tags(tensors + writebacks))


def combinations(op: Op, streamed: list[Tensor]) -> list[Combination]:
    """The compute type per dtype combination (of the streamed tensors only)."""
    combos = []
    for combo in op.dtype_combinations:
        dtypes = [t.dtype_in(combo, len(op.inputs)) for t in streamed]
        ctype = (
            moved_type(dtypes[0])
            if op.expand is not None
            else compute_type(
                dtypes, through_half=bool(op.compute), scalar_loop=scalar_loop_only(op)
            )
        )
        combos.append(Combination(list(combo), ctype, dtypes))
    return combos


def moved_type(dtype: str) -> str:
    """The unsigned C type of a dtype's width: expand() moves elements as such words (any
    dtype, whether or not Ascend C computes in it)."""
    return f"uint{8 * DTYPES[dtype].size}_t"


def scalar_loop_only(op: Op) -> bool:
    """Whether every output is a function the scalar unit loops over (gcd) of such functions
    and inputs alone: then an int64 combination computes in int64_t (catalog.compute_type),
    which no vector instruction takes."""
    scalar_loop = functions.names(lambda f: f.scalar_loop)
    trees = list(op.compute.values())
    return bool(trees) and all(
        isinstance(tree, expr.Call)
        and tree.func in scalar_loop
        and all(
            isinstance(n, expr.Tensor) or isinstance(n, expr.Call) and n.func in scalar_loop
            for n in expr.walk(tree)
        )
        for tree in trees
    )
