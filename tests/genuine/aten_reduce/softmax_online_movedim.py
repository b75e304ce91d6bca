# op: aten::softmax
# idiom: online softmax (running max and rescaled running sum over column blocks, then a normalising pass), softmax dim moved last on the host with movedim(dim, -1).contiguous() and moved back

import torch
import triton
import triton.language as tl


@triton.jit
def online_softmax_kernel(x_ptr, y_ptr, n_rows, n_cols, BLOCK: tl.constexpr, ROWS_PER_PROG: tl.constexpr):
    cols = tl.arange(0, BLOCK)
    for i in range(ROWS_PER_PROG):
        row = tl.program_id(0) * ROWS_PER_PROG + i
        if row < n_rows:
            x_row = x_ptr + row.to(tl.int64) * n_cols
            y_row = y_ptr + row.to(tl.int64) * n_cols
            # pass 1: running max m and running sum l of exp(x - m)
            m = tl.full([BLOCK], float("-inf"), tl.float32)
            l = tl.zeros([BLOCK], tl.float32)
            for start in range(0, n_cols, BLOCK):
                c = start + cols
                x = tl.load(x_row + c, mask=c < n_cols, other=float("-inf")).to(tl.float32)
                m_new = tl.maximum(m, x)
                # lanes still at -inf keep l = 0 (avoid inf - inf)
                scale = tl.where(m_new == float("-inf"), 0.0, tl.exp(m - m_new))
                l = l * scale + tl.where(m_new == float("-inf"), 0.0, tl.exp(x - m_new))
                m = m_new
            row_max = tl.max(m, axis=0)
            row_sum = tl.sum(tl.where(m == float("-inf"), 0.0, l * tl.exp(m - row_max)), axis=0)
            inv = 1.0 / row_sum
            # pass 2: normalise
            for start in range(0, n_cols, BLOCK):
                c = start + cols
                x = tl.load(x_row + c, mask=c < n_cols, other=float("-inf")).to(tl.float32)
                y = tl.exp(x - row_max) * inv
                tl.store(y_row + c, y.to(y_ptr.dtype.element_ty), mask=c < n_cols)


def _softmax(self, dim, dtype):
    out_dtype = dtype if dtype is not None else self.dtype
    rank = max(self.dim(), 1)
    if not -rank <= dim < rank:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-rank}, {rank - 1}], but got {dim})")
    dim = dim % rank
    x = self.reshape(1) if self.dim() == 0 else self
    moved = x.movedim(dim, -1).contiguous()
    n_cols = moved.shape[-1]
    n_rows = moved.numel() // n_cols if n_cols else 0
    y = torch.empty(moved.shape, dtype=out_dtype, device=self.device)
    if n_rows > 0 and n_cols > 0:
        block = min(triton.next_power_of_2(n_cols), 2048)
        rows_per_prog = 1 if n_rows <= 8192 else 4
        online_softmax_kernel[(triton.cdiv(n_rows, rows_per_prog),)](
            moved, y, n_rows, n_cols, BLOCK=block, ROWS_PER_PROG=rows_per_prog,
            num_warps=8 if block >= 2048 else 4)
    y = y.movedim(-1, dim)
    return y.reshape(self.shape)


def softmax_int(self, dim, dtype=None):
    return _softmax(self, dim, dtype).contiguous()


def softmax_int_out(self, dim, dtype=None, *, out):
    out.copy_(_softmax(self, dim, dtype))
    return out
