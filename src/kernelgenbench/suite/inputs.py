"""Turning declarative `TensorSpec`s into real tensors with the layouts the spec asks for.

Small cases are drawn on the CPU from a seeded generator and then moved, so they are the same on
every device; large and performance cases (GPU only, up to gigabytes) are drawn on their device.
Low-precision tensors are drawn in float32 and rounded, which keeps full mantissas.
"""

from __future__ import annotations

import math
import weakref
from collections.abc import Callable, Mapping
from contextlib import AbstractContextManager, nullcontext
from typing import Any

import torch

from .spec import DeviceArg, GeneratorArg, Joint, OutputSpec, TensorSpec
from .transfer import copy_across

HostWork = Callable[[], AbstractContextManager[Any]]

POISON_FLOAT = float("nan")
POISON_INT = -0x5EED


def _draw(shape: tuple[int, ...], spec: TensorSpec, gen: torch.Generator) -> torch.Tensor:
    dt = spec.dtype
    if spec.dist == "index":
        return torch.randint(int(spec.low), int(spec.high), shape, generator=gen, dtype=torch.int64,
                             device=gen.device).to(dt)
    if spec.dist == "unique":
        return _distinct(shape, spec, gen).to(dt)
    if spec.dist == "mask":
        n = math.prod(shape)
        ranks = torch.rand(n, generator=gen, device=gen.device).argsort().argsort()
        return (ranks < int(spec.high)).reshape(shape).to(dt)
    if spec.dist == "distinct":
        return _distinct_values(shape, dt, gen)
    if spec.dist == "offsets":
        return _offsets(shape, int(spec.high), gen).to(dt)
    if spec.dist in ("odd", "even"):
        if dt != torch.float32:
            raise ValueError(f"`{spec.dist}` draws float32 only, not {dt}")
        bits = torch.randn(shape, generator=gen, dtype=torch.float32, device=gen.device).view(torch.int32)
        return (bits | 1 if spec.dist == "odd" else bits & ~1).view(torch.float32)
    if dt == torch.bool:
        return torch.rand(shape, generator=gen, device=gen.device) < 0.5
    if not (dt.is_floating_point or dt.is_complex):
        lo, hi = int(spec.low), int(spec.high)
        return torch.randint(lo, max(hi, lo + 1), shape, generator=gen, dtype=torch.int64, device=gen.device).to(dt)
    real = torch.float64 if dt in (torch.float64, torch.complex128) else torch.float32

    def one() -> torch.Tensor:
        if spec.dist == "normal":
            return torch.randn(shape, generator=gen, dtype=real, device=gen.device)
        if spec.dist == "unit":
            return torch.rand(shape, generator=gen, dtype=real, device=gen.device) * 2 - 1
        lo, hi = spec.low, spec.high
        if spec.dist == "positive":
            lo, hi = (spec.low if spec.low > 0 else 0.1), (spec.high if spec.high > spec.low else 10.0)
        return torch.rand(shape, generator=gen, dtype=real, device=gen.device) * (hi - lo) + lo

    if dt.is_complex:
        return torch.complex(one(), one()).to(dt)
    if spec.dist == "special":
        return _positive_nan(_plant_specials(one(), gen).to(dt))
    if spec.dist == "endpoints":
        pick = torch.randint(0, 8, shape, generator=gen, device=gen.device)
        values = torch.where(pick == 0, spec.low, torch.where(pick == 1, spec.high, one()))
        return values.to(dt)
    return one().to(dt)


def _distinct(shape: tuple[int, ...], spec: TensorSpec, gen: torch.Generator) -> torch.Tensor:
    """Indices in [low, high) without repeats along `spec.along` (the whole tensor when None):
    the first places of random permutations."""
    lo, n = int(spec.low), int(spec.high) - int(spec.low)
    if spec.along is None or not shape:
        if math.prod(shape) > n:
            raise ValueError(f"{math.prod(shape)} distinct indices cannot come from a range of {n}")
        keys = torch.rand(n, generator=gen, device=gen.device)
        return (keys.argsort()[: math.prod(shape)] + lo).reshape(shape)
    d = spec.along % len(shape)
    if shape[d] > n:
        raise ValueError(f"{shape[d]} distinct indices along dim {d} cannot come from a range of {n}")
    keys = torch.rand(shape[:d] + (n,) + shape[d + 1:], generator=gen, device=gen.device)
    return keys.argsort(dim=d).narrow(d, 0, shape[d]) + lo


def _offsets(shape: tuple[int, ...], total: int, gen: torch.Generator) -> torch.Tensor:
    """0, sorted random cut points in [0, total], total; about a quarter of the inner cuts repeat
    the one before (an empty segment). Copying the sorted predecessor keeps the order."""
    if len(shape) != 1 or shape[0] < 2:
        raise ValueError(f"offsets need a shape (B+1,) with B >= 1, not {shape}")
    cuts = torch.randint(0, total + 1, (shape[0] - 2,), generator=gen, device=gen.device).sort().values
    edges = torch.tensor([0], device=gen.device)
    full = torch.cat([edges, cuts, edges + total])
    empty = torch.rand(shape[0] - 2, generator=gen, device=gen.device) < 0.25
    full[1:-1] = torch.where(empty, full[:-2], full[1:-1])
    return full


def exact_integers(dt: torch.dtype) -> int:
    """How many consecutive integers (centred on zero) the dtype holds exactly."""
    if dt.is_floating_point:
        return 2 ** (round(-math.log2(torch.finfo(dt).eps)) + 1)
    if dt == torch.bool:
        return 2
    return 2 ** torch.iinfo(dt).bits


def _distinct_values(shape: tuple[int, ...], dt: torch.dtype, gen: torch.Generator) -> torch.Tensor:
    """Pairwise distinct values: a random permutation of n integers around zero, scaled for floats
    by a power of two into [-1, 1) (exactly, so they stay distinct in the dtype)."""
    n = 1
    for s in shape:
        n *= s
    if n > exact_integers(dt):
        raise ValueError(f"{dt} cannot hold {n} distinct integers exactly")
    ints = torch.randperm(n, generator=gen, device=gen.device) - n // 2
    if not (dt.is_floating_point or dt.is_signed):  # bool, unsigned: from zero up
        ints = ints + n // 2
    if not dt.is_floating_point:
        return ints.reshape(shape).to(dt)
    scale = 2.0 ** -max(n // 2, 1).bit_length()
    return (ints.to(torch.float64) * scale).reshape(shape).to(dt)


SPECIALS = (float("nan"), float("inf"), float("-inf"), 0.0, -0.0)


def _plant_specials(values: torch.Tensor, gen: torch.Generator) -> torch.Tensor:
    """About a third of the positions become NaN, +-Inf or +-0.0 (one in 15 each)."""
    pick = torch.randint(0, 3 * len(SPECIALS), values.shape, generator=gen, device=gen.device)
    for i, v in enumerate(SPECIALS):
        values = torch.where(pick == i, torch.tensor(v, dtype=values.dtype, device=values.device), values)
    return values


def _positive_nan(t: torch.Tensor) -> torch.Tensor:
    """NaN with its sign bit clear: the CPU's float32 -> bfloat16 cast makes 0xFFFF, a negative NaN,
    which CUDA's radix sort puts before every number (pytorch/pytorch#190781) while ATen's
    contract, and its CPU kernel, put NaN after; a planted NaN is the plain one."""
    return torch.where(t.isnan(), torch.full((), float("nan"), dtype=t.dtype, device=t.device), t)


def make_tensor(spec: TensorSpec, gen: torch.Generator, device: str) -> torch.Tensor:
    t = _laid_out(spec, gen, device)
    return with_bits(t, spec.bit == "conj", spec.bit == "neg")


def with_bits(t: torch.Tensor, conj: bool, neg: bool) -> torch.Tensor:
    """`t` viewed with the conjugate and negative bits set as asked (it has neither)."""
    if conj:
        t = t.conj()
    if neg:
        t = torch._neg_view(t)
    return t


def _laid_out(spec: TensorSpec, gen: torch.Generator, device: str) -> torch.Tensor:
    shape = tuple(spec.shape)
    if spec.layout == "contiguous" or len(shape) == 0:
        return _draw(shape, spec, gen).to(device)
    if spec.dist == "unique" and spec.layout in ("transposed", "strided"):
        # drawn in its logical shape (uniqueness is along a logical dim), then placed in the layout
        values = _draw(shape, spec, gen).to(device)
        placed = _laid_out(TensorSpec(shape, values.dtype, spec.layout, "index", 0, 1), gen, device)
        return placed.copy_(values)
    if spec.layout == "transposed":
        if len(shape) < 2:
            return _draw(shape, spec, gen).to(device)
        swapped = shape[:-2] + (shape[-1], shape[-2])
        return _draw(swapped, spec, gen).to(device).transpose(-1, -2)
    if spec.layout == "strided":
        wide = shape[:-1] + (shape[-1] * 2 + 1,)
        return _draw(wide, spec, gen).to(device)[..., 1::2]
    if spec.layout == "expanded":
        base = (1,) + shape[1:]
        return _draw(base, spec, gen).to(device).expand(shape)
    raise ValueError(f"unknown layout {spec.layout!r}")


def make_output(spec: OutputSpec, device: str) -> torch.Tensor:
    return poisoned(spec.shape, spec.dtype, device)


def poisoned(shape: tuple[int, ...], dtype: torch.dtype, device: str) -> torch.Tensor:
    """A buffer whose every element is an obviously wrong value, so unwritten output fails."""
    t = torch.empty(shape, dtype=dtype, device=device)
    if dtype.is_floating_point or dtype.is_complex:
        t.fill_(POISON_FLOAT)
    elif dtype == torch.bool:
        t.fill_(True)
    else:
        t.fill_(POISON_INT if dtype not in (torch.uint8, torch.int8) else 0x5A)
    return t


def tensor_list(v: list[Any] | tuple[Any, ...]) -> bool:
    """Whether a list value is a list of tensors to draw: TensorSpecs, and Nones where the schema
    takes `Tensor?[]`."""
    return any(isinstance(x, TensorSpec) for x in v) and all(x is None or isinstance(x, TensorSpec) for x in v)


def materialize(values: Mapping[str, Any], seed: int, device: str, on_device: bool = False) -> dict[str, Any]:
    """Draw every tensor of a sample, in parameter order, from one generator seeded by `seed`
    (on `device` itself when `on_device`, else on the CPU)."""
    gen = torch.Generator(device=device if on_device else "cpu").manual_seed(seed)
    out: dict[str, Any] = {}
    for name, v in values.items():
        if isinstance(v, TensorSpec):
            out[name] = make_tensor(v, gen, device)
        elif isinstance(v, OutputSpec):
            out[name] = make_output(v, device)
        elif isinstance(v, Joint):
            drawn = v.draw(gen, *(out[k] for k in v.of))
            if tuple(drawn.shape) != tuple(v.shape) or drawn.dtype != v.dtype:
                raise ValueError(f"{name}: the joint draw made {drawn.dtype}{list(drawn.shape)}, not {v.describe()}")
            out[name] = drawn.to(device)
        elif isinstance(v, (list, tuple)) and tensor_list(v):
            # `Tensor?[]` (index's indices): None entries stay None
            out[name] = type(v)(None if x is None else make_tensor(x, gen, device) for x in v)
        elif isinstance(v, (list, tuple)) and v and all(isinstance(x, OutputSpec) for x in v):
            out[name] = [make_output(x, device) for x in v]
        elif isinstance(v, DeviceArg):
            out[name] = torch.device(device)
        elif isinstance(v, GeneratorArg):
            out[name] = torch.Generator(device=device).manual_seed(generator_seed(seed))
        else:
            out[name] = v
    return out


def generator_seed(seed: int) -> int:
    """The seed of a case's `generator=` argument (and of the default generator where it is None),
    apart from the stream its inputs are drawn from."""
    return (seed * 0x9E3779B97F4A7C15 + 0x5EED) & 0x7FFF_FFFF_FFFF


def copy_generator(g: torch.Generator) -> torch.Generator:
    """A generator in the same state: the native call must not advance the candidate's."""
    twin = torch.Generator(device=g.device)
    twin.set_state(g.get_state())
    return twin


def replica(v: torch.Tensor, dtype: torch.dtype, device: torch.device | str | None = None,
            host_work: HostWork = nullcontext) -> torch.Tensor:
    """A copy of `v`'s whole storage in `dtype` (on `device`, default `v`'s), viewed with `v`'s
    offset, sizes, strides and conjugate/negative bits (`host_work`: see `transfer.copy_across`)."""
    count = v.untyped_storage().nbytes() // v.element_size()
    whole = torch.empty(0, dtype=v.dtype, device=v.device).set_(v.untyped_storage(), 0, (count,), (1,))
    target = torch.device(device or v.device)
    copy = (whole.to(device=target, dtype=dtype, copy=True) if target.type == v.device.type
            else copy_across(whole, dtype, target, host_work))
    out = torch.empty(0, dtype=dtype, device=copy.device).set_(copy.untyped_storage(), v.storage_offset(),
                                                                v.size(), v.stride())
    return with_bits(out, v.is_conj(), v.is_neg())


def clone_values(values: Mapping[str, Any]) -> dict[str, Any]:
    """Deep copies of every tensor: the whole storage, viewed with the same offset, sizes and
    strides, so layouts survive the copy and a view of the copy is where a view of the original is."""

    def c(v: Any) -> Any:
        if isinstance(v, torch.Tensor):
            return replica(v, v.dtype)
        if isinstance(v, torch.Generator):
            return copy_generator(v)
        if isinstance(v, (list, tuple)):
            return type(v)(c(x) for x in v)
        return v

    return rebased({k: c(v) for k, v in values.items()}, values)


def upcast_value(v: Any, device: str | None = None, host_work: HostWork = nullcontext) -> Any:
    """Float64 (complex128) copies of floating tensors and dtype arguments, for the reference
    (moved to `device` when given, see `transfer.copy_across`; a `device=` argument follows them).

    Always a copy: the reference writes in place, and a float64 input must not be the very
    buffer the candidate is later judged on.
    """
    if isinstance(v, torch.Tensor):
        if v.dtype.is_complex:
            return replica(v, torch.complex128, device, host_work)
        if v.dtype.is_floating_point:
            return replica(v, torch.float64, device, host_work)
        return replica(v, v.dtype, device, host_work)
    if isinstance(v, torch.device) and device is not None:
        return torch.device(device)
    if isinstance(v, torch.Generator):
        return copy_generator(v) if device is None or torch.device(device) == v.device else None
    if isinstance(v, torch.dtype):
        if v.is_complex:
            return torch.complex128
        if v.is_floating_point:
            return torch.float64
        return v
    if isinstance(v, (list, tuple)):
        return type(v)(upcast_value(x, device, host_work) for x in v)
    return v


# Arrays of device pointers (cuBLAS batched routines take `const float* const Aarray[]`): an int64
# tensor of addresses into a backing tensor of the same case. Each one is registered with its
# backing argument's name and element offsets, so that every copy of a case's values (the
# reference's float64 copies, the native call's, snapshots) points into its own copy of the backing.
_POINTERS: dict[int, tuple[str, tuple[int, ...], torch.Tensor]] = {}


def pointer_array(backing: torch.Tensor, offsets: tuple[int, ...], into: str) -> torch.Tensor:
    """The addresses of elements `offsets` of `backing` (the argument `into`), as an int64 tensor on
    its device; repeats and gaps allowed."""
    base, size = backing.data_ptr(), backing.element_size()
    t = torch.tensor([base + o * size for o in offsets], dtype=torch.int64).to(backing.device)
    _POINTERS[id(t)] = (into, tuple(offsets), backing)
    weakref.finalize(t, _POINTERS.pop, id(t), None)
    return t


def pointees(t: Any) -> tuple[str, tuple[int, ...], torch.Tensor] | None:
    """For a pointer array: the backing argument's name, the element offsets and the backing tensor."""
    return _POINTERS.get(id(t)) if isinstance(t, torch.Tensor) else None


def pointers_intact(t: torch.Tensor) -> bool:
    """Whether a pointer array still holds the addresses it was made with."""
    found = pointees(t)
    assert found is not None
    _, offsets, backing = found
    base, size = backing.data_ptr(), backing.element_size()
    return t.dtype == torch.int64 and t.tolist() == [base + o * size for o in offsets]


def rebased(copies: dict[str, Any], originals: Mapping[str, Any]) -> dict[str, Any]:
    """`copies` of `originals` whose pointer arrays point into the copies' backing tensors."""
    for name, v in originals.items():
        found = pointees(v)
        if found is not None and found[0] in copies:
            copies[name] = pointer_array(copies[found[0]], found[1], found[0])
    return copies
