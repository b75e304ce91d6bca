"""Backward operators: the gradients autograd computes for activations, losses, select, reflection
padding and nearest upsampling.

The ground truth of a `*_backward` operator is the float64 AUTOGRAD of its forward (the forward op
on a float64 leaf, `torch.autograd.grad` with the case's grad_output), not the native backward
kernel nor a hand-written formula: `autograd_reference` builds it per overload, and writes the
`out=`/`grad_input=` buffer for the out forms. Where a backward takes state the forward saved
(`buffer`, `noise`), the grids draw what the forward would have saved (see each record's notes).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from functools import partial
from itertools import cycle
from typing import Any

import torch
import torch.nn.functional as F

from ..build import FLOATS, LAYOUTS, SUM_TOLERANCE, covering
from ..spec import Layout, Operator, Overload, Size, TensorSpec
from .family import aten_operator, dispatch_key, native_overload, samples_of
from .reduce import functional_perf
from .schema import overloads
from .shapes import ELEMENTWISE

A = torch.ops.aten
F32, BF16 = torch.float32, torch.bfloat16


# ---- ground truth: float64 autograd of the forward ----------------------------------------------

def vjp(forward: Callable[[torch.Tensor], torch.Tensor], x: torch.Tensor, grad_output: torch.Tensor) -> torch.Tensor:
    """d forward(x) / dx applied to grad_output, by autograd (grad mode on, whatever the caller's)."""
    with torch.enable_grad():
        leaf = x.detach().requires_grad_(True)
        (grad,) = torch.autograd.grad(forward(leaf), leaf, grad_output)
    return grad


def autograd_reference(name: str, gradient: Callable[..., torch.Tensor]) -> dict[str, Any]:
    """`reference=` for every overload of `name`: `gradient(**arguments)` for the functional one, the
    same written into (and returned as) the buffer an out form writes (`grad_input`, `out`)."""

    def functional(*args: Any, ov: Overload, **kwargs: Any) -> torch.Tensor:
        names = [p.name for p in ov.params if not p.kw_only]
        return gradient(**dict(zip(names, args)), **kwargs)

    def written(*args: Any, ov: Overload, **kwargs: Any) -> torch.Tensor:
        (out_name,) = ov.writes
        out = kwargs.pop(out_name)
        grad = functional(*args, ov=ov, **kwargs)
        if out.shape != grad.shape:
            out.resize_(grad.shape)
        return out.copy_(grad)

    return {ov.name: partial(written if ov.writes else functional, ov=ov) for ov in overloads(name)}


def _softplus_grad(grad_output, self, beta, threshold):
    return vjp(lambda x: F.softplus(x, beta, threshold), self, grad_output)


def _log_sigmoid_grad(grad_output, self, buffer):
    """The forward makes its own buffer (CPU: exp(-|x|); CUDA: none); the given one is not read."""
    return vjp(F.logsigmoid, self, grad_output)


def _mish_grad(grad_output, self):
    return vjp(F.mish, self, grad_output)


def _smooth_l1_grad(grad_output, self, target, reduction, beta):
    return vjp(lambda x: A.smooth_l1_loss(x, target, reduction, beta), self, grad_output)


def _select_grad(grad_output, input_sizes, dim, index):
    zeros = torch.zeros(list(input_sizes), dtype=grad_output.dtype, device=grad_output.device)
    return vjp(lambda x: x.select(dim, index), zeros, grad_output)


def _reflection_pad1d_grad(grad_output, self, padding):
    return vjp(lambda x: A.reflection_pad1d(x, padding), self, grad_output)


def _upsample_nearest2d_grad(grad_output, output_size, input_size, scales_h=None, scales_w=None):
    zeros = torch.zeros(list(input_size), dtype=grad_output.dtype, device=grad_output.device)
    return vjp(lambda x: A.upsample_nearest2d(x, output_size, scales_h, scales_w), zeros, grad_output)


def _rrelu_with_noise_grad(grad_output, self, noise, lower, upper, training, self_is_result):
    """Training: the forward's output is x * noise (its noise is 1 where x > 0), so the gradient is
    grad * noise. Otherwise the forward is leaky_relu with slope (lower + upper) / 2, differentiated
    at the input; with self_is_result, `self` is that forward's result, whose input is recovered
    (the slope is positive there: ATen rejects a negative one)."""
    if training:
        return vjp(lambda x: x * noise, self, grad_output)
    slope = (float(lower) + float(upper)) / 2
    x = torch.where(self > 0, self, self / slope) if self_is_result else self
    return vjp(lambda t: F.leaky_relu(t, slope), x, grad_output)


# ---- grids ------------------------------------------------------------------------------------------

def _layouts(size: Size) -> tuple[Layout, ...]:
    return ("contiguous",) if size == "perf" else LAYOUTS


PERF_DTYPES = (BF16, F32)


def _pointwise_cases(size: Size):
    """(index, shape, dtype, layout) of the elementwise backward grids; the perf tier is bf16 and fp32
    at LLM activation sizes."""
    dtypes = PERF_DTYPES if size == "perf" else FLOATS
    yield from enumerate(covering(ELEMENTWISE[size], dtypes, _layouts(size)))


def _shape_index(shape: tuple[int, ...], size: Size) -> int:
    """Where a shape sits in its tier: the value range follows the shape, so no two cases differ
    only in how their values were drawn."""
    return ELEMENTWISE[size].index(shape)


# (beta, threshold): the default, and small thresholds where the switch to grad (x * beta > threshold)
# is a visible jump; both exact in binary so x * beta compares alike in every precision.
SOFTPLUS_ARGS = ((1.0, 20.0), (2.0, 1.0), (0.5, 2.0), (1.0, 0.5))


def softplus_sampler(ov: Overload, size: Size):
    def grid():
        for i, (shape, dtype, layout) in _pointwise_cases(size):
            beta, threshold = SOFTPLUS_ARGS[i % len(SOFTPLUS_ARGS)] if size != "perf" else SOFTPLUS_ARGS[0]
            wide = threshold / beta * 1.5
            yield {
                "grad_output": TensorSpec(shape, dtype, layout),
                "self": TensorSpec(shape, dtype, layout, "uniform", -wide, wide),
                "beta": beta,
                "threshold": threshold,
            }

    return samples_of(ov, grid())


def log_sigmoid_sampler(ov: Overload, size: Size):
    """`buffer` is the CUDA forward's: an empty tensor (see the record's notes)."""

    def grid():
        for _, (shape, dtype, layout) in _pointwise_cases(size):
            wide = 20.0 if _shape_index(shape, size) % 2 else 4.0
            yield {
                "grad_output": TensorSpec(shape, dtype, layout),
                "self": TensorSpec(shape, dtype, layout, "uniform", -wide, wide),
                "buffer": TensorSpec((0,), dtype),
            }

    return samples_of(ov, grid())


def mish_sampler(ov: Overload, size: Size):
    """Around 0, and wide enough to reach both tails (x > 20, where ATen's softplus saturates)."""

    def grid():
        for _, (shape, dtype, layout) in _pointwise_cases(size):
            low, high = (-40.0, 40.0) if _shape_index(shape, size) % 2 else (-6.0, 6.0)
            yield {
                "grad_output": TensorSpec(shape, dtype, layout),
                "self": TensorSpec(shape, dtype, layout, "uniform", low, high),
            }

    return samples_of(ov, grid())


def smooth_l1_sampler(ov: Overload, size: Size):
    """Every reduction (0 none: grad_output of self's shape; 1 mean and 2 sum: a 0-d grad_output),
    beta = 1, 0.5, 2 and 0 (the L1 gradient, drawn in float32 only: see the notes)."""

    def grid():
        for i, (shape, dtype, layout) in _pointwise_cases(size):
            k = _shape_index(shape, size)
            beta = (0.0, 1.0, 0.5, 2.0)[k % 4] if dtype == F32 else (1.0, 0.5, 2.0)[(k + i) % 3]
            beta = beta if size != "perf" else 1.0
            reduction = (i + i // 3) % 3 if size != "perf" else i % 2
            if reduction == 1 and 0 in shape:
                reduction = 2  # sizing the out= buffer runs ATen's meta mean, which divides by numel
            yield {
                "grad_output": TensorSpec(shape if reduction == 0 else (), dtype, layout if reduction == 0 else
                                          "contiguous"),
                # beta = 0: self and target never tie (see the notes)
                "self": TensorSpec(shape, dtype, layout, "odd" if beta == 0 else "normal"),
                "target": TensorSpec(shape, dtype, dist="even" if beta == 0 else "normal"),
                "reduction": reduction,
                "beta": beta,
            }

    return samples_of(ov, grid())


SELECT = {
    "small": [((7,), 0, 3), ((7,), -1, -1), ((1,), 0, 0), ((33, 65), 1, 64), ((33, 65), 0, -33),
              ((3, 5, 17), -2, 2), ((3, 5, 17), 2, 0), ((0, 4), 1, 3), ((4, 0), 0, -4),
              ((2, 3, 4, 5), 3, -2), ((5, 1, 9), 1, 0), ((6, 300), -2, 5)],
    "large": [((1024, 4096), 0, 513), ((8, 512, 1023), 1, -7), ((64, 4097), 1, 4096)],
    "perf": [((16, 2048, 4096), 1, -1), ((8192, 14336), 1, 100), ((4096, 8, 1024), 0, 7)],
}


def select_sampler(ov: Overload, size: Size):
    """`input_sizes` of 1 to 4 dims, empty ones included; `dim` and `index` negative and positive."""
    layouts = cycle(_layouts(size))
    dtypes = cycle(PERF_DTYPES if size == "perf" else FLOATS)

    def grid():
        for input_sizes, dim, index in SELECT[size]:
            grad_shape = input_sizes[:dim % len(input_sizes)] + input_sizes[dim % len(input_sizes) + 1:]
            yield {
                "grad_output": TensorSpec(grad_shape, next(dtypes), _fit(next(layouts), grad_shape)),
                "input_sizes": list(input_sizes),
                "dim": dim,
                "index": index,
            }

    return samples_of(ov, grid())


def _fit(layout: Layout, shape: tuple[int, ...]) -> Layout:
    if not shape or 0 in shape:
        return "contiguous"
    if len(shape) < 2 and layout in ("transposed", "expanded"):
        return "contiguous"
    return layout


# (self shape, padding): 2-d and 3-d, asymmetric, a side of width - 1, a negative side (a crop), none.
REFLECTION_PAD1D = {
    "small": [((3, 7), (2, 3)), ((2, 3, 7), (6, 6)), ((1, 4, 9), (0, 8)), ((2, 5, 1), (0, 0)),
              ((4, 33), (5, 0)), ((2, 3, 65), (31, 64)), ((0, 3, 8), (2, 2)), ((3, 8), (-2, 3)),
              ((2, 16, 100), (3, 97)), ((5, 2), (1, 1))],
    "large": [((16, 64, 4097), (255, 511)), ((8, 1025), (1024, 1)), ((4, 128, 2049), (3, 3))],
    "perf": [((64, 512, 4096), (3, 3)), ((64, 512, 4096), (64, 64))],
}


def reflection_pad1d_sampler(ov: Overload, size: Size):
    """grad_output has self's shape with (width + left + right) columns; self is read for its shape."""
    layouts = cycle(_layouts(size))
    dtypes = cycle(PERF_DTYPES if size == "perf" else FLOATS)

    def grid():
        for shape, (left, right) in REFLECTION_PAD1D[size]:
            grad_shape = shape[:-1] + (shape[-1] + left + right,)
            dtype = next(dtypes)
            yield {
                "grad_output": TensorSpec(grad_shape, dtype, _fit(next(layouts), grad_shape)),
                "self": TensorSpec(shape, dtype),
                "padding": [left, right],
            }

    return samples_of(ov, grid())


# (input_size, output_size, scales_h, scales_w): scales None (sizes decide) or the scale factor the
# output size came from (floor(in * scale)); x2, x3, x2.5, x1.5, downsampling, identity, mixed.
UPSAMPLE_NEAREST2D = {
    "small": [((2, 3, 5, 7), (10, 14), None, None), ((2, 3, 5, 7), (10, 14), 2.0, 2.0),
              ((1, 2, 4, 6), (12, 18), 3.0, 3.0), ((1, 3, 4, 6), (6, 9), None, None),
              ((2, 2, 5, 4), (12, 10), 2.5, 2.5), ((1, 4, 6, 9), (4, 6), None, None),
              ((2, 1, 8, 8), (3, 5), None, None), ((1, 2, 7, 7), (7, 7), None, None),
              ((1, 2, 3, 5), (7, 11), 2.5, 2.3), ((0, 3, 4, 4), (8, 8), None, None),
              ((2, 3, 1, 1), (5, 3), None, None), ((1, 3, 6, 5), (12, 12), 2.0, None),
              ((2, 2, 9, 10), (6, 7), 0.6666666666666666, 0.7)],
    "large": [((8, 64, 56, 56), (112, 112), 2.0, 2.0), ((4, 32, 63, 65), (100, 130), None, None),
              ((2, 16, 100, 120), (250, 300), 2.5, 2.5)],
    "perf": [((32, 64, 112, 112), (224, 224), 2.0, 2.0), ((32, 64, 112, 112), (224, 224), None, None)],
}


def upsample_nearest2d_sampler(ov: Overload, size: Size):
    """Output pixel (h, w) reads input (floor(h * sh), floor(w * sw)) (float32 math, clamped), so
    the gradient of an input pixel sums every output pixel that maps to it."""
    layouts = cycle(_layouts(size))
    dtypes = cycle(PERF_DTYPES if size == "perf" else FLOATS)

    def grid():
        for input_size, output_size, scales_h, scales_w in UPSAMPLE_NEAREST2D[size]:
            grad_shape = tuple(input_size[:2]) + tuple(output_size)
            yield {
                "grad_output": TensorSpec(grad_shape, next(dtypes), _fit(next(layouts), grad_shape)),
                "output_size": list(output_size),
                "input_size": list(input_size),
                "scales_h": scales_h,
                "scales_w": scales_w,
            }

    return samples_of(ov, grid())


# (lower, upper, training, self_is_result): the default range, upper == lower, training off (the
# leaky-relu slope (lower + upper) / 2, negative once), self_is_result with training on and off.
RRELU_ARGS = ((0.125, 1 / 3, True, False), (0.125, 1 / 3, False, False), (0.1, 0.3, False, True),
              (0.2, 0.2, True, False), (0.01, 0.5, True, True), (-0.3, 0.1, False, False))


def rrelu_sampler(ov: Overload, size: Size):
    """noise is what a training forward draws, uniform in [lower, upper] (see the notes)."""

    def grid():
        for i, (shape, dtype, layout) in _pointwise_cases(size):
            k = (i + i // len(RRELU_ARGS)) % len(RRELU_ARGS)  # so each argument set meets every dtype
            lower, upper, training, self_is_result = RRELU_ARGS[k if size != "perf" else i % 2]
            yield {
                "grad_output": TensorSpec(shape, dtype, layout),
                "self": TensorSpec(shape, dtype, layout),
                "noise": TensorSpec(shape, dtype, "contiguous", "uniform", lower, upper),
                "lower": lower,
                "upper": upper,
                "training": training,
                "self_is_result": self_is_result,
            }

    return samples_of(ov, grid())


# ---- records ----------------------------------------------------------------------------------------

def log_sigmoid_baseline(device: str, ov: Overload) -> Any:
    """On the CPU, ATen's backward reads the CPU forward's buffer, so the baseline is that pair as
    autograd runs it; on CUDA the kernel itself (it ignores the buffer)."""
    native = native_overload(device, ov)
    if native is None or dispatch_key(device) != "CPU":
        return native

    def cpu_pair(grad_output, self, buffer, **out):
        return native(grad_output, self, A.log_sigmoid_forward(self)[1], **out)

    return cpu_pair


def backward_operator(name: str, doc: str, sampler: Any, gradient: Callable[..., torch.Tensor], **kw: Any) -> Operator:
    return aten_operator(name, "backward", doc, functional_perf(sampler), reference=autograd_reference(name, gradient),
                         work="compute", **kw)


def grad_only_traffic(ov: Overload, values: dict[str, Any], outputs: list[Any]) -> int:
    """grad_output read and the gradient written: `self` gives only its shape, and counting it put
    the timing floor above an honest reflection_pad1d_backward on the H200 (281 us under 381 us)."""
    return sum(t.numel() * t.element_size() for t in [values["grad_output"], *outputs])


def log_sigmoid_backward() -> Operator:
    op = backward_operator(
        "log_sigmoid_backward", "grad_output * sigmoid(-x): the gradient of log(sigmoid(x)).",
        log_sigmoid_sampler, _log_sigmoid_grad,
        notes="`buffer` is state the forward saved. ATen's CPU forward fills it with exp(-|x|) (self's "
              "shape) and the CPU backward reads it (1 - b / (1 + b) or b / (1 + b) by the sign of x); "
              "the CUDA forward returns an empty buffer and the CUDA backward ignores it, recomputing "
              "exp(-|x|). The op promises grad * sigmoid(-x) either way, so the grids draw the CUDA "
              "forward's empty buffer and the result must not depend on it; on the CPU (the "
              "interpreter) the baseline is the CPU forward+backward pair. A same-shape buffer "
              "holding exp(-|x|) would need an input derived from another, which the case format "
              "cannot draw.")
    return replace(op, baseline=log_sigmoid_baseline)


OPERATORS: dict[str, Callable[[], Operator]] = {
    "softplus_backward": partial(
        backward_operator, "softplus_backward",
        "Gradient of softplus(x) = log(1 + exp(beta x)) / beta: grad_output * sigmoid(beta x), and "
        "grad_output itself where x * beta > threshold (softplus is x there).",
        softplus_sampler, _softplus_grad,
        notes="beta and threshold are exact binary fractions, so x * beta > threshold compares alike "
              "in every precision; x * beta == threshold exactly takes the sigmoid branch, as in ATen."),
    "log_sigmoid_backward": log_sigmoid_backward,
    "mish_backward": partial(
        backward_operator, "mish_backward",
        "Gradient of mish(x) = x tanh(softplus(x)): grad_output * (t + x sigmoid(x) (1 - t^2)), "
        "t = tanh(softplus(x)).", mish_sampler, _mish_grad,
        notes="Infinite inputs are not drawn (x = +inf gives inf * 0 = NaN in ATen's formula)."),
    "smooth_l1_loss_backward": partial(
        backward_operator, "smooth_l1_loss_backward",
        "Gradient of smooth L1 loss w.r.t. self: norm * grad_output * clamp((self - target) / beta, -1, 1) "
        "(sign(self - target) for beta = 0), norm = 1 / numel for reduction mean (1), else 1; "
        "grad_output is 0-d for mean and sum (2).", smooth_l1_sampler, _smooth_l1_grad,
        notes="beta = 0 is drawn in float32 only, with self and target never equal at any position "
              "(an odd and an even lowest significand bit): at self == target ATen's CPU kernel gives "
              "-grad and its CUDA kernel 0 * grad / 0 = NaN, a point where they disagree, and which "
              "4M-element draws hit by chance (the H200 run of seed 29980415380373 did). beta < 0 raises "
              "in ATen's forward and is not drawn; target has self's shape (the forward warns on "
              "broadcasting). Reduction mean of an empty self is not drawn: sizing its out= buffer runs "
              "ATen's meta decomposition, which divides by numel."),
    "select_backward": partial(
        backward_operator, "select_backward",
        "zeros(input_sizes) with grad_output written at `index` of `dim` (both may be negative).",
        select_sampler, _select_grad),
    "reflection_pad1d_backward": partial(
        backward_operator, "reflection_pad1d_backward",
        "Gradient of reflection padding of the last dim: each input column sums the grad_output "
        "columns that read it (itself and its mirror images at either edge).",
        reflection_pad1d_sampler, _reflection_pad1d_grad, tolerance=SUM_TOLERANCE, traffic=grad_only_traffic,
        notes="A padding side >= the input width raises in ATen (and a zero-size non-batch dim): not "
              "drawn. A negative side crops, and is drawn once."),
    "upsample_nearest2d_backward": partial(
        backward_operator, "upsample_nearest2d_backward",
        "Gradient of nearest upsampling of (N, C, H, W) to output_size: each input pixel sums the "
        "grad_output pixels whose source it is, source row floor(h * s) (float32 math, clamped to "
        "H - 1), s = 1 / scales_h when given, else H / OH; likewise for columns.",
        upsample_nearest2d_sampler, _upsample_nearest2d_grad, tolerance=SUM_TOLERANCE,
        notes="Scales are drawn only where they agree with the sizes (output = floor(input * scale)), "
              "as F.interpolate passes them: with disagreeing ones ATen's CPU kernel ignores the scale "
              "when the output is 1x or 2x the input and its CUDA backward drops pixels the forward "
              "clamps. Sizes are drawn where the CUDA backward's inverse mapping (ceil(i * scale)) "
              "picks the same pixels as the forward's, so autograd is the same on both devices. "
              "This torch has no `.vec` overload of this op."),
    "rrelu_with_noise_backward": partial(
        backward_operator, "rrelu_with_noise_backward",
        "training: grad_output * noise; otherwise the leaky-relu gradient with slope (lower + upper) / 2 "
        "(grad_output where self > 0, with self the forward's input or, with self_is_result, its result).",
        rrelu_sampler, _rrelu_with_noise_grad,
        notes="ATen's current backward multiplies by noise whenever training is true (older versions "
              "switched to the mean slope when upper - lower <= 1e-6); upper == lower is drawn in "
              "training. noise is drawn uniform in [lower, upper] at every position, where a training "
              "forward writes 1 at x > 0: the gradient is grad * noise either way. self_is_result with "
              "a negative slope raises in ATen and is not drawn."),
}
