# op: aten::bernoulli
# idiom: random: one 62-bit seed drawn with torch.randint(generator=...), tl.randint4x giving four uniforms per counter (each program covers four quarters), probabilities broadcast with expand().contiguous(), output written in place of out= with resize_ + copy_
import torch
import triton
import triton.language as tl

SEED_HIGH = 2**62


@triton.jit
def _quarter(r, idx, p_ptr, out_ptr, n, p_const, HAS_P: tl.constexpr):
    u = (r.to(tl.uint32, bitcast=True) >> 8).to(tl.float32) * (1.0 / 16777216.0)  # 24 bits: exact in float32
    m = idx < n
    if HAS_P:
        p = tl.load(p_ptr + idx, mask=m, other=0.0).to(tl.float32)
    else:
        p = p_const
    tl.store(out_ptr + idx, tl.where(u < p, 1.0, 0.0).to(out_ptr.dtype.element_ty), mask=m)


@triton.jit
def bernoulli_quarters(p_ptr, out_ptr, seed_ptr, n, p_const, HAS_P: tl.constexpr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    counter = pid.to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    seed = tl.load(seed_ptr)
    r0, r1, r2, r3 = tl.randint4x(seed, counter)
    base = pid.to(tl.int64) * 4 * BLOCK + tl.arange(0, BLOCK)
    _quarter(r0, base, p_ptr, out_ptr, n, p_const, HAS_P)
    _quarter(r1, base + BLOCK, p_ptr, out_ptr, n, p_const, HAS_P)
    _quarter(r2, base + 2 * BLOCK, p_ptr, out_ptr, n, p_const, HAS_P)
    _quarter(r3, base + 3 * BLOCK, p_ptr, out_ptr, n, p_const, HAS_P)


def _bernoulli(self, p, generator, out=None):
    shape = self.shape
    y = torch.empty(shape, dtype=self.dtype if out is None else out.dtype, device=self.device)
    n = y.numel()
    if n > 0:
        seed = torch.randint(0, SEED_HIGH, (1,), generator=generator, device=self.device)
        block = 256
        grid = (triton.cdiv(n, 4 * block),)
        if isinstance(p, torch.Tensor):
            bernoulli_quarters[grid](p.expand(shape).contiguous(), y, seed, n, 0.0, HAS_P=True, BLOCK=block)
        else:
            bernoulli_quarters[grid](y, y, seed, n, float(p), HAS_P=False, BLOCK=block)
    if out is None:
        return y
    out.resize_(shape)
    out.copy_(y)
    return out


def bernoulli(self, *, generator=None):
    return _bernoulli(self, self, generator)


def bernoulli_out(self, *, generator=None, out):
    return _bernoulli(self, self, generator, out)


def bernoulli_p(self, p, *, generator=None):
    return _bernoulli(self, p, generator)


def bernoulli_Tensor(self, p, *, generator=None):
    return _bernoulli(self, p, generator)


def bernoulli_Tensor_out(self, p, *, generator=None, out):
    return _bernoulli(self, p, generator, out)


def bernoulli_float_out(self, p=0.5, *, generator=None, out):
    return _bernoulli(self, p, generator, out)
