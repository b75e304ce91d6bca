"""The records that say what is asked: operators, their overloads, and the cases they are judged on.

Everything here is frozen data. Input tensors are described by `TensorSpec` and only made real
inside the sandbox worker, from a seed the candidate cannot know.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

Source = Literal["aten", "vllm", "cublas"]
Size = Literal["small", "large", "perf"]
SIZES: tuple[str, ...] = ("small", "large", "perf")
Visibility = Literal["public", "hidden"]
Layout = Literal["contiguous", "transposed", "strided", "expanded"]
Distribution = Literal["normal", "uniform", "positive", "index", "unit", "special", "endpoints", "unique", "mask",
                       "distinct", "offsets", "odd", "even"]
Bit = Literal["", "conj", "neg"]
# What the operator's work is, which decides what its candidate's host code may do: "compute"
# (host code may also copy, cast and fill), "data" (the work is moving or creating data, so the
# copy or fill must be a Triton kernel), "view" (metadata only: the result aliases an input or is
# an uninitialised allocation, so there is no kernel to write and nothing to time) or "read" (the
# work is reading one value into Python: `item`) or "random" (computes random values: as
# "compute", and host code may also draw the kernel's seed from the generator).
Work = Literal["compute", "data", "view", "read", "random"]
# How outputs are compared with the native ones: "values" (the tolerance, any strides),
# "values_and_strides" (also the native strides: `memory_format` is part of the contract) or
# "strides" (shape, dtype and strides only: the values are undefined, as with `empty_strided`) or
# "distribution" (random outputs, judged statistically against the law the arguments define).
Compare = Literal["values", "values_and_strides", "strides", "distribution"]

SOURCES: tuple[Source, ...] = ("aten", "vllm", "cublas")
TWIN_MARK = "~"  # joins an operator's id and a perturbed twin's tag: `aten::silu~beta`

WORK_MEANING: dict[str, str] = {
    "compute": "computes values: a Triton kernel does the math; host code may also copy, cast and fill",
    "data": "moves or creates data: the copy or fill is a Triton kernel; host code only allocates and views",
    "view": "metadata: a view (or an uninitialised allocation) as ATen makes it; judged on aliasing, not timed",
    "read": "reads one value into Python; not timed",
    "random": "draws random values: a Triton kernel generates them from a seed that host code draws from the "
              "generator argument (`torch.randint` of at most 8 values); otherwise as compute",
}
COMPARE_MEANING: dict[str, str] = {
    "values": "values within the tolerance",
    "values_and_strides": "values within the tolerance, and the native strides (memory format)",
    "strides": "shape, dtype and strides only (the values are undefined)",
    "distribution": "statistically, against the distribution the arguments define (goodness of fit, mean, "
                    "independence of neighbouring elements, at a false-rejection rate of 1e-6 per case), "
                    "values outside the support and deterministic positions exactly, and the generator "
                    "honoured (one seed twice: the same output; two seeds: different outputs)",
}


@dataclass(frozen=True)
class TensorSpec:
    """A tensor to draw: its logical shape, dtype, memory layout and value distribution.

    `bit` draws a lazily conjugated ("conj": complex dtypes) or negated ("neg") view, whose storage
    holds the values before the bit applies, as `x.conj()` and `x.imag` of one make them.
    `low`/`high` bound `uniform`, `positive`, `special` and `index` draws (`high` exclusive for
    index). `special` is uniform with NaN, +Inf, -Inf, +0.0 and -0.0 planted at about a third of
    the positions, where the semantics of special values are judged. `endpoints` is uniform with an
    eighth of the positions exactly `low` and an eighth exactly `high` (probabilities of exactly 0
    and 1, rates of exactly 0).

    `unique` draws indices in [low, high) that never repeat along dim `along` (over the whole
    tensor when `along` is None): where ATen's result is undefined with duplicate indices (a plain
    scatter, a non-accumulating index_put_), the cases draw none. `mask` draws a bool tensor with
    exactly `high` True values at random positions, so the size it selects is known to the sampler.
    `distinct` is a random permutation of distinct integers scaled by a power of two into [-1, 1),
    so no two elements tie (where order decides an index output); the dtype must represent that
    many integers exactly. `offsets` draws cumulative offsets of a 1-D shape (B+1,): non-decreasing
    from 0 to exactly `high` (the total), with random non-negative steps, about a quarter of them
    zero (empty segments), so the total, and the size of what it sizes, is known to the sampler.
    `odd` and `even` are `normal` with the lowest significand bit set or cleared (float32): two
    tensors drawn one of each never hold the same value at the same position, where a tie is a point
    on which ATen's devices disagree (smooth_l1_loss_backward with beta = 0: -grad on the CPU, NaN
    on CUDA) and which a random draw of millions of elements would otherwise hit by chance.
    """

    shape: tuple[int, ...]
    dtype: Any  # torch.dtype; typed loosely so this module imports nothing heavy
    layout: Layout = "contiguous"
    dist: Distribution = "normal"
    low: float = -1.0
    high: float = 1.0
    bit: Bit = ""
    along: int | None = None

    def describe(self) -> str:
        dt = str(self.dtype).replace("torch.", "")
        lay = "" if self.layout == "contiguous" else f" {self.layout}"
        bit = f" {self.bit}-bit" if self.bit else ""
        drawn = ""
        if self.dist == "unique":
            drawn = " unique" if self.along is None else f" unique@{self.along}"
        elif self.dist == "mask":
            drawn = f" {int(self.high)} true"
        elif self.dist == "offsets":
            drawn = f" offsets 0..{int(self.high)}"
        return f"{dt}{list(self.shape)}{lay}{bit}{drawn}"


@dataclass(frozen=True)
class Joint:
    """A tensor drawn jointly with arguments drawn before it (earlier in parameter order), where no
    distribution of its own can make the values agree (each token's sequence, consistent with the
    cumulative offsets drawn for `cu_seq_lens`). The sampler owns the draw: `draw(gen, *tensors)`
    gets the case's generator and the already drawn tensors named in `of`, and returns a tensor of
    `shape` and `dtype` on their device. `what` labels the case."""

    shape: tuple[int, ...]
    dtype: Any
    of: tuple[str, ...]
    draw: Callable[..., Any]
    what: str

    def describe(self) -> str:
        return f"{str(self.dtype).replace('torch.', '')}{list(self.shape)} {self.what}"


@dataclass(frozen=True)
class DeviceArg:
    """A `device=` argument: the device the case runs on, known only in the worker."""

    def describe(self) -> str:
        return "<device>"


DEVICE = DeviceArg()


@dataclass(frozen=True)
class GeneratorArg:
    """A `generator=` argument: a generator on the case's device, seeded from the case's seed in
    the worker (so a candidate cannot know it); None in a sample means the default generator."""

    def describe(self) -> str:
        return "<generator>"


GENERATOR = GeneratorArg()


@dataclass(frozen=True)
class OutputSpec:
    """An output buffer the candidate writes into (vLLM `out`, cuBLAS `C`); arrives poisoned."""

    shape: tuple[int, ...]
    dtype: Any

    def describe(self) -> str:
        return f"out {str(self.dtype).replace('torch.', '')}{list(self.shape)}"


@dataclass(frozen=True)
class Param:
    """One argument of an overload. `writes` marks arguments the operator mutates and that are
    judged as outputs; `scratch` marks workspaces the caller hands in (vLLM's paged_attention_v2
    partials): the candidate may overwrite them or ignore them, and they are neither judged nor
    required to come back unchanged. `via` names the array of device pointers (cuBLAS batched
    routines' `Aarray`) through which alone the routine reaches this storage: it is drawn, judged
    (`writes`) and checked like an argument but never passed (`suite.inputs.pointer_array`)."""

    name: str
    type: str
    kw_only: bool = False
    writes: bool = False
    has_default: bool = False
    default: Any = None
    scratch: bool = False
    via: str = ""


@dataclass(frozen=True)
class Overload:
    """One callable the candidate must provide.

    `reference` is a dtype-generic torch implementation: called on float64 inputs it is the
    ground truth, called on the working dtype it is the native numerics when no library is at hand.
    `returns_alias` names the argument the return value must be (ATen `Tensor(a!)` returns).
    `scale`, where given, stands in for `reference` when an `abs_scale` tolerance evaluates it on
    |inputs|: where the reference on |inputs| is no bound of the terms' magnitudes (complex
    arithmetic on interleaved real views subtracts: re(a*b) = ar*br - ai*bi).
    """

    name: str
    func_name: str
    params: tuple[Param, ...]
    signature: str
    reference: Callable[..., Any]
    doc: str = ""
    returns_alias: str | None = None
    scale: Callable[..., Any] | None = None

    @property
    def writes(self) -> tuple[str, ...]:
        return tuple(p.name for p in self.params if p.writes)

    def split(self, values: Mapping[str, Any]) -> tuple[tuple[Any, ...], dict[str, Any]]:
        """Positional and keyword arguments for a call, as the schema orders them."""
        positional = [p for p in self.params if not p.kw_only and not p.via]
        last = max((i for i, p in enumerate(positional) if p.name in values), default=-1)
        args = []
        for p in positional[: last + 1]:
            if p.name in values:
                args.append(values[p.name])
            elif p.has_default:
                args.append(p.default)
            else:
                raise KeyError(f"{self.name}: no value for required argument {p.name!r}")
        kwargs = {p.name: values[p.name] for p in self.params if p.kw_only and not p.via and p.name in values}
        return tuple(args), kwargs

    def param(self, name: str) -> Param:
        for p in self.params:
            if p.name == name:
                return p
        raise KeyError(f"{self.name} has no argument {name!r}")


@dataclass(frozen=True)
class Sample:
    """Argument values for one call, by parameter name. Tensors are `TensorSpec`/`OutputSpec`."""

    values: Mapping[str, Any]
    label: str

    def describe(self) -> str:
        return self.label


@dataclass(frozen=True)
class Case:
    """One judged call: an overload, its sample, and who may see it."""

    overload: str
    sample: Sample
    size: Size = "small"
    visibility: Visibility = "public"

    @property
    def name(self) -> str:
        return f"{self.overload}: {self.sample.describe()}"

    @property
    def dtypes(self) -> frozenset[str]:
        """The torch dtypes (`float64`) the case makes or asks for: a platform without one cannot run it."""
        return frozenset(_dtype_names(self.sample.values.values()))

    @property
    def nbytes(self) -> int:
        """The bytes of the tensors the case makes, from the spec (a layout's padding aside)."""
        return sum(_tensor_bytes(v) for v in self.sample.values.values())


def _tensor_bytes(v: Any) -> int:
    if isinstance(v, (list, tuple)):
        return sum(_tensor_bytes(x) for x in v)
    if isinstance(v, (TensorSpec, OutputSpec, Joint)):
        return math.prod(v.shape) * v.dtype.itemsize
    return 0


def _dtype_names(values: Iterable[Any]) -> Iterator[str]:
    for v in values:
        if isinstance(v, (list, tuple)):
            yield from _dtype_names(v)
        elif isinstance(v, (TensorSpec, OutputSpec, Joint)):
            yield str(v.dtype).replace("torch.", "")
        elif type(v).__name__ == "dtype":
            yield str(v).replace("torch.", "")


@dataclass(frozen=True)
class Tolerance:
    """Error allowed relative to the native implementation's own error in the same dtype.

    A floating output passes when, in both the RMS and the max norm,
    err(candidate) <= k * err(native) + floor_ulps * (eps(dtype) * |reference| + eps(acc) * scale).
    The second floor term is there only with `abs_scale`: the scale is the reference applied to
    |inputs| (sum |x|, |A| |B|), the classical error bound of sums, scans and products, taken in the
    accumulation precision (float32, or float64 for float64 outputs), so a result that cancels to
    near zero still allows the roundoff of the terms that produced it, and no more.
    """

    k_rms: float = 10.0
    k_max: float = 20.0
    floor_ulps: float = 4.0
    abs_scale: bool = False
    # Outputs judged otherwise, by position (an fp8 tensor exact to the code beside the float32
    # scale that made it, which a GPU's division rounds within a few ulps).
    per_output: tuple[tuple[int, Tolerance], ...] = ()
    # The unit roundoff of an accumulation coarser than float32, in place of float32's in the error
    # scale's term: Hopper's fast FP8 accumulation (vLLM's CUTLASS kernels, Triton's fp8 tl.dot on sm_90).
    acc_eps: float = 0.0
    # Cases judged otherwise by the dtype of their first tensor input (an fp8 GEMM accumulates
    # coarsely where an int8 one is exact).
    by_input_dtype: tuple[tuple[Any, Tolerance], ...] = ()

    def of_case(self, values: Mapping[str, Any]) -> Tolerance:
        """The tolerance of a case with these inputs."""
        first = next((v.dtype for v in values.values() if hasattr(v, "dtype") and hasattr(v, "shape")), None)
        return next((t for dtype, t in self.by_input_dtype if dtype == first), self)

    def at(self, output: int) -> Tolerance:
        """The tolerance of output `output`."""
        return next((t for i, t in self.per_output if i == output), self)


@dataclass(frozen=True)
class CodeCheck:
    """Quantisation codes judged against the scale (and zero point) the candidate itself returned,
    not against the truth's codes: a dynamic scale may be a few ulps off the truth (a GPU's
    division), and every code, a whole row's zero point even, then follows it. `check` gets the
    inputs before the call and all outputs, and returns why a code is not the rounding of its
    input under the candidate's own scale, or None; the truth still judges the scales."""

    outputs: tuple[int, ...]
    check: Callable[[Overload, Mapping[str, Any], list[Any]], str | None]


@dataclass(frozen=True)
class Operator:
    """One benchmark operator: what is asked, how it is judged, and its native baseline."""

    id: str
    source: Source
    family: str
    doc: str
    overloads: tuple[Overload, ...]
    cases: tuple[Case, ...]
    tolerance: Tolerance = field(default_factory=Tolerance)
    baseline: Callable[[str, Overload], Callable[..., Any] | None] | None = None
    notes: str = ""
    # The fewest bytes a case must move, where that is less than reading every input once
    # (a gather reads only the rows it selects); used for the timing plausibility floor.
    traffic: Callable[[Overload, dict[str, Any], list[Any]], int] | None = None
    work: Work = "compute"
    compare: Compare = "values"
    # For compare="distribution": what the outputs say about the law the inputs define
    # (`verify.statistics.Law`: inputs before the call, outputs -> `Draws`).
    law: Callable[[Overload, Mapping[str, Any], list[Any]], Any] | None = None
    codes: CodeCheck | None = None
    # Scalars host code may read per call (`.item()`) where an output's size depends on input
    # values (the True count of a bool mask): ATen reads them too, to allocate the output.
    size_reads: int = 0
    # A perturbed twin (`suite/perturbed`): the id of the operator it perturbs, and what changed.
    twin_of: str = ""
    perturbation: str = ""

    @property
    def timed(self) -> bool:
        """Whether the operator has work to time: view and read operators are judged for accuracy only."""
        return self.work in ("compute", "data", "random") and any(c.size == "perf" for c in self.cases)

    @property
    def name(self) -> str:
        """The name a candidate's contract uses: a twin (`vllm::rms_norm~eps_out`) keeps its original's."""
        return self.id.split("::", 1)[1].split(TWIN_MARK, 1)[0]

    def overload(self, name: str) -> Overload:
        for ov in self.overloads:
            if ov.name == name:
                return ov
        raise KeyError(f"{self.id} has no overload {name!r}")

    def select_cases(self, *, sizes: tuple[Size, ...], public_only: bool = False) -> tuple[Case, ...]:
        return tuple(
            c
            for c in self.cases
            if c.size in sizes and (not public_only or c.visibility == "public")
        )

    def native(self, device: str, ov: Overload) -> Callable[..., Any]:
        """The library implementation on `device`, or the reference in the working dtype."""
        if self.baseline is not None:
            fn = self.baseline(device, ov)
            if fn is not None:
                return fn
        return ov.reference

    def native_is_library(self, device: str) -> bool:
        """Whether speed-ups are over a library kernel rather than the stand-in torch reference
        (e.g. vLLM not importable): a report must say which."""
        return self.baseline is not None and all(self.baseline(device, ov) is not None for ov in self.overloads)
