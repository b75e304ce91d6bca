# op: aten::silu
# stage: timing
# expect: wrong_result
# evidence: cached across calls
# trick 8, seen by the timing layer alone: compute once per input buffer, then return the stored
# answer; the timed calls would be fast and right, but the warm-ups ran on other contents in the
# same buffers, so the first timed call (a first sight, checked) gets the warm-ups' answer.
import torch
import triton
import triton.language as tl

_answers = {}


@triton.jit
def _silu(x_ptr, o_ptr, n, BLOCK: tl.constexpr):
    i = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = i < n
    x = tl.load(x_ptr + i, mask=m).to(tl.float32)
    tl.store(o_ptr + i, (x / (1.0 + tl.exp(-x))).to(o_ptr.dtype.element_ty), mask=m)


def _compute(x, out):
    src = x.contiguous()
    if out.numel():
        _silu[(triton.cdiv(out.numel(), 1024),)](src, out, out.numel(), BLOCK=1024)
    return out


def silu(self):
    key = (self.data_ptr(), tuple(self.shape), tuple(self.stride()), self.dtype)
    if key not in _answers:
        _answers[key] = _compute(self, torch.empty(self.shape, dtype=self.dtype, device=self.device))
    return _answers[key].clone()


def silu_out(self, *, out):
    out.copy_(silu(self))
    return out
