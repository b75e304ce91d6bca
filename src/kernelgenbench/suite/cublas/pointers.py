"""Arrays of device pointers, as cuBLAS's batched routines take them (`const float* const Aarray[]`).

The candidate receives what the C API receives: a device array of device pointers, an int64 tensor
of addresses, and must read and write through it. The storage behind the pointers is a pool per
operand (a `Param` with `via`), drawn first and never passed; the pointers are drawn jointly with
it (`Joint`), after materialisation, as the pool's address plus element offsets. Pointers may
repeat (one A for several batch entries), come in any order and leave gaps in the pool, and the
judge compares the whole pools, so a write through a wrong pointer, or between matrices, is caught.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial

import torch

from ..inputs import pointees, pointer_array
from ..spec import Joint, OutputSpec, Param, TensorSpec
from .complex import as_complex

ARRAY_DOC = (
    "An argument named *array (Aarray, xarray, Carray...) is an array of device pointers, as the C API "
    "takes it: a 1-D int64 tensor on the device of batchCount elements, element b being the address "
    "(in bytes) of batch entry b's matrix or vector, whose storage is laid out as for the non-batched "
    "routine (element (i, j) of a matrix at address + (i + j*ld) * itemsize). In a Triton kernel, load "
    "the address and cast it: `tl.load(Aarray + b).to(tl.pointer_type(tl.float32))`. Pointers of "
    "read-only operands may repeat (one matrix for several entries); those of the written operand are "
    "distinct. The matrices sit anywhere in memory, in any order, with gaps between them: memory "
    "that no pointer of the written operand addresses (gaps, padding rows) must stay unchanged."
)


def layout(count: int, extent: int, distinct: int, gap: int, reverse: bool = False,
           align: int = 1) -> tuple[tuple[int, ...], int]:
    """Element offsets of `count` pointers to `distinct` blocks of `extent` elements, at least `gap`
    elements apart and before the first, each starting at a multiple of `align` elements, in reverse
    order when asked (entry b points at block b % distinct), and the pool's length."""
    distinct = min(distinct, count) if count else 0
    slots, end = [], gap
    for _ in range(distinct):
        start = -(-end // align) * align
        slots.append(start)
        end = start + extent + gap
    if reverse:
        slots.reverse()
    return tuple(slots[b % distinct] for b in range(count)), end


def pool(length: int, dtype: torch.dtype, poison: bool = False) -> TensorSpec | OutputSpec:
    """The storage behind one operand's pointers (all-NaN when it is an output BLAS must not read)."""
    return OutputSpec((length,), dtype) if poison else TensorSpec((length,), dtype)


def _addresses(gen: torch.Generator, backing: torch.Tensor, *, offsets: tuple[int, ...], into: str) -> torch.Tensor:
    return pointer_array(backing, offsets, into)


def pointers(into: str, offsets: tuple[int, ...], distinct: int, gap: int, reverse: bool) -> Joint:
    """The int64 addresses of `offsets` into the pool argument `into`, computed in the worker."""
    order = ", reversed" if reverse else ""
    return Joint((len(offsets),), torch.int64, (into,), partial(_addresses, offsets=offsets, into=into),
                 f"pointers into {into} ({distinct} distinct, gap {gap}{order})")


def is_pointers(v: object) -> bool:
    """Whether a sample value is a pointer array's joint draw (which needs no generator)."""
    return isinstance(v, Joint) and getattr(v.draw, "func", None) is _addresses


def pool_param(name: str, array: str, writes: bool = False) -> Param:
    return Param(name=name, type="Tensor", writes=writes, via=array)


@dataclass(frozen=True)
class Entries:
    """Every entry of a pointer array at once, so a reference reads and writes all of them in one tensor
    operation: a loop over entries cost a few kernel launches per entry, and the perf cases have up to
    8,192 entries (up to 47 s of device time per timed operator on the H200). Entries evenly spaced in
    order, as the perf cases draw them, are one strided view of the pool and cost no copy; the host's
    float64 truths read gigabytes through them."""

    pool: torch.Tensor  # the storage the pointers address (its complex view for complex data)
    offsets: tuple[int, ...]  # each entry's first element in `pool`

    def _spacing(self) -> int | None:
        """The distance between consecutive entries when it is one constant, else None."""
        o = self.offsets
        step = o[1] - o[0] if len(o) > 1 else 0
        return step if all(b - a == step for a, b in zip(o, o[1:])) else None

    def _view(self, first: int, step: int, shape: tuple[int, ...], strides: tuple[int, ...]) -> torch.Tensor:
        return self.pool.as_strided((len(self.offsets), *shape), (step, *strides),
                                    self.pool.storage_offset() + first)

    def _one(self, offset: int, shape: tuple[int, ...], strides: tuple[int, ...]) -> torch.Tensor:
        return self.pool.as_strided(shape, strides, self.pool.storage_offset() + offset)

    def read(self, shape: tuple[int, ...], strides: tuple[int, ...]) -> torch.Tensor:
        """Every entry's (shape, strides) view of its elements, stacked: (count, *shape)."""
        step = self._spacing()
        if step is None:
            return torch.stack([self._one(o, shape, strides) for o in self.offsets])
        if step >= 0:
            return self._view(self.offsets[0], step, shape, strides)
        return self._view(self.offsets[-1], -step, shape, strides).flip(0)

    def write(self, shape: tuple[int, ...], strides: tuple[int, ...], values: torch.Tensor) -> None:
        """Store every entry's values at its (shape, strides) elements only; the written operand's entries
        never overlap (its pointers are distinct), so the order of the stores cannot matter."""
        values = values.to(self.pool.dtype)
        step = self._spacing()
        if step is None:
            for o, v in zip(self.offsets, values):
                self._one(o, shape, strides).copy_(v)
        elif step >= 0:
            self._view(self.offsets[0], step, shape, strides).copy_(values)
        else:
            self._view(self.offsets[-1], -step, shape, strides).copy_(values.flip(0))

    def read_vectors(self, n: int, inc: int) -> torch.Tensor:
        """Every entry's n logical vector elements (increment inc, reversed when inc < 0): (count, n)."""
        if inc == 0:
            raise ValueError("increment must be nonzero")
        got = self.read((n,), (abs(inc),))
        return got.flip(-1) if inc < 0 else got

    def write_vectors(self, n: int, inc: int, values: torch.Tensor) -> None:
        if inc == 0:
            raise ValueError("increment must be nonzero")
        self.write((n,), (abs(inc),), values.flip(-1) if inc < 0 else values)


def entries(array: torch.Tensor, count: int, extent: int, complex_data: bool = False) -> Entries:
    """What the first `count` pointers of `array` address, `extent` elements each (complex elements of an
    interleaved pool when `complex_data`), checked to lie in the pool: the reference dereferences the
    addresses it is given, in whatever copy of the pool they point into."""
    found = pointees(array)
    if found is None:
        raise ValueError("not an array of device pointers drawn by the suite")
    backing = found[2]
    base, size = backing.data_ptr(), backing.element_size()
    step = 2 if complex_data else 1  # real elements per element
    offsets = []
    for address in array.tolist()[:count]:
        offset, rest = divmod(address - base, size)
        if rest or offset % step or offset < 0 or offset + step * extent > backing.numel():
            raise ValueError(f"pointer {address:#x} does not address {extent} elements of its pool")
        offsets.append(offset // step)
    pool = as_complex(backing) if complex_data else backing
    return Entries(pool, tuple(offsets))
