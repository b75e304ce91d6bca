"""aten::poisson in Triton: a Poisson count per element with rate `self`.

Rates below 10 invert the CDF with one uniform (add the probabilities k = 0, 1, ... until they
pass it); rates of 10 and more use Hormann's transformed rejection (PTRS, 1993), which accepts
about nine proposals in ten whatever the rate. Uniforms come from Triton's Philox generator keyed
by two words drawn from the `generator` argument (the device's default one when it is None); the
counter's low word is the element's logical index and its high word the rejection round, so each
round draws fresh uniforms. A rate of 0 gives 0.
"""

import torch
import triton
import triton.language as tl

BLOCK = 512
MAX_ROUNDS = 64  # PTRS accepts >= 85% per round: 64 rounds leave ~1e-53 unaccepted


@triton.jit
def _uniform(r):
    """A uint32 as a float32 in (0, 1)."""
    return (r.to(tl.uint32, bitcast=True).to(tl.float32) + 0.5) * 2.3283064365386963e-10


@triton.jit
def _stirling(y):
    """log(Gamma(y)) by Stirling's series, accurate to ~1e-10 for y >= 9."""
    inv = 1.0 / y
    inv2 = inv * inv
    series = inv * (1.0 / 12.0 - inv2 * (1.0 / 360.0 - inv2 * (1.0 / 1260.0)))
    return (y - 0.5) * tl.log(y) - y + 0.9189385332046727 + series


@triton.jit
def _log_factorial(k):
    """log(k!) for k >= 0: Stirling at k + 1 from k = 8, below it at k + 9 shifted down by
    log((k+1)...(k+8))."""
    s = tl.minimum(k, 8.0)
    prod = (s + 1.0) * (s + 2.0) * (s + 3.0) * (s + 4.0) * (s + 5.0) * (s + 6.0) * (s + 7.0) * (s + 8.0)
    return tl.where(k >= 8.0, _stirling(k + 1.0), _stirling(s + 9.0) - tl.log(prod))


@triton.jit
def _poisson_kernel(rate_ptr, out_ptr, seed_ptr, n, MAX_ROUNDS: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    seed = tl.load(seed_ptr).to(tl.int64) * 2147483648 + tl.load(seed_ptr + 1).to(tl.int64)
    lam = tl.load(rate_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    small = lam < 10.0

    # Inversion (rates < 10): the smallest k with F(k) >= u.
    u = _uniform(tl.randint(seed, offs))
    k_inv = tl.zeros([BLOCK], tl.float32)
    p = tl.exp(-lam)
    cdf = p
    active = small & (u > cdf) & (lam > 0)
    step = 0
    while tl.max(active.to(tl.int32), axis=0) > 0:
        step += 1
        k_next = k_inv + 1.0
        p = p * lam / k_next
        grown = cdf + p
        k_inv = tl.where(active, k_next, k_inv)
        active = active & (u > grown) & (grown > cdf) & (step < 128)  # stop where float32 cannot add more
        cdf = grown

    # PTRS (rates >= 10).
    lam_r = tl.where(small, 10.0, lam)
    slam = tl.sqrt(lam_r)
    loglam = tl.log(lam_r)
    b = 0.931 + 2.53 * slam
    a = -0.059 + 0.02483 * b
    log_inv_alpha = tl.log(1.1239 + 1.1328 / (b - 3.4))
    vr = 0.9277 - 3.6224 / (b - 2.0)
    k_rej = tl.zeros([BLOCK], tl.float32)
    pending = (~small) & mask
    rnd = 0
    while (tl.max(pending.to(tl.int32), axis=0) > 0) & (rnd < MAX_ROUNDS):
        rnd += 1
        r0, r1, _, _ = tl.randint4x(seed, offs + (rnd.to(tl.int64) << 32))
        uu = _uniform(r0) - 0.5
        v = _uniform(r1)
        us = 0.5 - tl.abs(uu)
        k = tl.floor((2.0 * a / us + b) * uu + lam_r + 0.43)
        quick = (us >= 0.07) & (v <= vr)
        possible = (k >= 0) & ~((us < 0.013) & (v > us))
        log_accept = -lam_r + k * loglam - _log_factorial(tl.maximum(k, 0.0))
        slow = possible & (tl.log(v) + log_inv_alpha - tl.log(a / (us * us) + b) <= log_accept)
        accept = pending & (quick | slow)
        k_rej = tl.where(accept, k, k_rej)
        pending = pending & ~accept

    k_out = tl.where(small, k_inv, k_rej)
    tl.store(out_ptr + offs, k_out.to(out_ptr.dtype.element_ty), mask=mask)


def _poisson(rates, generator, out=None):
    result = torch.empty(rates.shape, dtype=rates.dtype, device=rates.device)
    n = result.numel()
    if n:
        seed = torch.randint(0, 2**31 - 1, (2,), generator=generator, device=rates.device)
        _poisson_kernel[(triton.cdiv(n, BLOCK),)](rates.contiguous(), result, seed, n, MAX_ROUNDS=MAX_ROUNDS,
                                                  BLOCK=BLOCK)
    if out is None:
        return result
    out.resize_(rates.shape)
    out.copy_(result)
    return out


def poisson(self, generator=None):
    return _poisson(self, generator)


def poisson_out(self, generator=None, *, out):
    return _poisson(self, generator, out)
