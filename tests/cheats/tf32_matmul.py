# op: aten::mm
# expect: wrong_result
# device: cuda
# evidence: numerical error too large
# trick 13: fp32 matmul in TF32 (Triton's default for a float32 dot).
import torch
import triton
import triton.language as tl


@triton.jit
def _mm(a, b, c, M, N, K, sam, sak, sbk, sbn, scm, scn, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    pm, pn = tl.program_id(0), tl.program_id(1)
    rm = pm * BM + tl.arange(0, BM)
    rn = pn * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k0 in range(0, K, BK):
        ka = k0 + rk
        x = tl.load(a + rm[:, None] * sam + ka[None, :] * sak, mask=(rm[:, None] < M) & (ka[None, :] < K), other=0.0)
        y = tl.load(b + ka[:, None] * sbk + rn[None, :] * sbn, mask=(ka[:, None] < K) & (rn[None, :] < N), other=0.0)
        acc = tl.dot(x, y, acc)
    tl.store(c + rm[:, None] * scm + rn[None, :] * scn, acc.to(c.dtype.element_ty),
             mask=(rm[:, None] < M) & (rn[None, :] < N))


def _launch(self, mat2, out):
    M, K = self.shape
    N = mat2.shape[1]
    if M and N:
        _mm[(triton.cdiv(M, 64), triton.cdiv(N, 64))](
            self, mat2, out, M, N, K, self.stride(0), self.stride(1), mat2.stride(0), mat2.stride(1),
            out.stride(0), out.stride(1), BM=64, BN=64, BK=32)
    return out


def mm(self, mat2):
    return _launch(self, mat2, torch.empty((self.shape[0], mat2.shape[1]), dtype=self.dtype, device=self.device))


def mm_out(self, mat2, *, out):
    return _launch(self, mat2, out)


def mm_dtype(self, mat2, out_dtype):
    return _launch(self, mat2, torch.empty((self.shape[0], mat2.shape[1]), dtype=out_dtype, device=self.device))


def mm_dtype_out(self, mat2, out_dtype, *, out):
    return _launch(self, mat2, out)
