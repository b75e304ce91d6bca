"""aten::rrelu_with_noise in Triton: the randomized leaky ReLU.

In training, each x <= 0 draws its own slope r = lower + (upper - lower) * u (u from Triton's
Philox generator, keyed by two words drawn from the `generator` argument, counter = the
element's logical index), outputs x * r and writes r to `noise`; each x > 0 passes through with
noise 1. Outside training the slope is (lower + upper) / 2 for every x <= 0 and `noise` is left
alone. Arithmetic is in float32 for low-precision inputs; a bfloat16 noise is rounded to nearest
in the kernel (before it scales x), so the slope applied is exactly the one written.
"""

import torch
import triton
import triton.language as tl

BLOCK = 1024


@triton.jit
def _round_to_bf16(v):
    """float32 -> the nearest bfloat16 value (ties to even), still as float32: the store's own
    conversion then has nothing to round (Triton's interpreter truncates there)."""
    bits = v.to(tl.uint32, bitcast=True)
    bits = (bits + 0x7FFF + ((bits >> 16) & 1)) & 0xFFFF0000
    return bits.to(tl.float32, bitcast=True)


@triton.jit
def _rrelu_kernel(x_ptr, out_ptr, noise_ptr, seed_ptr, n, lower, upper, TRAINING: tl.constexpr,
                  NOISE_BF16: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    negative = x <= 0.0
    if TRAINING:
        seed = tl.load(seed_ptr).to(tl.int64) * 2147483648 + tl.load(seed_ptr + 1).to(tl.int64)
        r = lower + (upper - lower) * tl.rand(seed, offs)
        if NOISE_BF16:
            r = _round_to_bf16(r)  # the slope applied is the one written
        tl.store(noise_ptr + offs, tl.where(negative, r, 1.0).to(noise_ptr.dtype.element_ty), mask=mask)
    else:
        r = (lower + upper) * 0.5
    tl.store(out_ptr + offs, tl.where(negative, x * r, x).to(out_ptr.dtype.element_ty), mask=mask)


def _rrelu(self, noise, lower, upper, training, generator, out=None):
    result = torch.empty(self.shape, dtype=self.dtype, device=self.device)
    n = self.numel()
    if n:
        target = noise if (noise.is_contiguous() or not training) else torch.empty_like(
            noise, memory_format=torch.contiguous_format)
        seed = (torch.randint(0, 2**31 - 1, (2,), generator=generator, device=self.device) if training
                else result)
        _rrelu_kernel[(triton.cdiv(n, BLOCK),)](self.contiguous(), result, target, seed, n, float(lower),
                                                float(upper), TRAINING=bool(training),
                                                NOISE_BF16=noise.dtype == torch.bfloat16, BLOCK=BLOCK)
        if target is not noise:
            noise.copy_(target)
    if out is None:
        return result
    out.resize_(self.shape)
    out.copy_(result)
    return out


def rrelu_with_noise(self, noise, lower=0.125, upper=0.3333333333333333, training=False, generator=None):
    return _rrelu(self, noise, lower, upper, training, generator)


def rrelu_with_noise_out(self, noise, lower=0.125, upper=0.3333333333333333, training=False, generator=None,
                         *, out):
    return _rrelu(self, noise, lower, upper, training, generator, out)
