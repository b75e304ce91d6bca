# op: aten::silu
# idiom: @triton.heuristics EVEN flag to skip masks, x.new_empty(shape, dtype=...), @torch.no_grad(), __main__ self-test with torch.testing

"""SiLU (x * sigmoid(x)) with an unmasked fast path.

When the element count is a multiple of the block size the kernel is specialised with
EVEN=True and issues unmasked loads and stores.
"""

import torch
import triton
import triton.language as tl

BLOCK = 2048


@triton.heuristics({"EVEN": lambda args: args["n_elements"] % args["BLOCK"] == 0})
@triton.jit
def _silu_fwd(x_ptr, y_ptr, n_elements, BLOCK: tl.constexpr, EVEN: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    if EVEN:
        x = tl.load(x_ptr + offs)
    else:
        x = tl.load(x_ptr + offs, mask=offs < n_elements, other=0.0)
    xf = x.to(tl.float32)
    y = (xf / (1.0 + tl.exp(-xf))).to(y_ptr.dtype.element_ty)
    if EVEN:
        tl.store(y_ptr + offs, y)
    else:
        tl.store(y_ptr + offs, y, mask=offs < n_elements)


def _run(x, y):
    n = x.numel()
    if n != 0:
        _silu_fwd[(triton.cdiv(n, BLOCK),)](x, y, n, BLOCK=BLOCK, num_warps=8)
    return y


@torch.no_grad()
def silu(self):
    x = self.contiguous()
    return _run(x, x.new_empty(x.shape, dtype=self.dtype))


@torch.no_grad()
def silu_out(self, *, out):
    x = self.contiguous()
    if out.is_contiguous() and out.shape == x.shape:
        return _run(x, out)
    out.copy_(_run(x, x.new_empty(x.shape, dtype=out.dtype)))
    return out


if __name__ == "__main__":
    for dtype in (torch.float32, torch.float16, torch.bfloat16):
        for shape in ((), (7,), (64, 32), (33, 65), (4096,)):
            a = torch.randn(shape, dtype=dtype)
            torch.testing.assert_close(silu(a), torch.nn.functional.silu(a))
            o = torch.empty_like(a)
            torch.testing.assert_close(silu_out(a.t() if a.dim() == 2 else a, out=o.t() if a.dim() == 2 else o),
                                       torch.nn.functional.silu(a.t() if a.dim() == 2 else a))
    print("ok")
