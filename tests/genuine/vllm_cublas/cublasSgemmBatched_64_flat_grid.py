# op: cublas::cublasSgemmBatched_64
# idiom: a 1-D grid flattened over (batch entry, tile) with @triton.heuristics for the flags; pointers cast from int64 with .to(tl.pointer_type); a tile pointer advanced along k; tl.dot with input_precision="ieee"

"""Batched SGEMM over arrays of device pointers, one flat grid for all entries."""

import torch
import triton
import triton.language as tl


@triton.heuristics({"NO_AB": lambda a: a["alpha"] == 0 or a["K"] == 0, "NO_C": lambda a: a["beta"] == 0})
@triton.jit
def batched_sgemm(Ap, Bp, Cp, M, N, K, sam, sak, sbk, sbn, ldc, alpha, beta, tiles_m, tiles_n,
                  TM: tl.constexpr, TN: tl.constexpr, TK: tl.constexpr, NO_AB: tl.constexpr, NO_C: tl.constexpr):
    pid = tl.program_id(0)
    per_entry = tiles_m * tiles_n
    entry = pid // per_entry
    tile = pid % per_entry
    i = (tile % tiles_m) * TM + tl.arange(0, TM)
    j = (tile // tiles_m) * TN + tl.arange(0, TN)
    p = tl.arange(0, TK)
    a_base = tl.load(Ap + entry).to(tl.pointer_type(tl.float32))
    b_base = tl.load(Bp + entry).to(tl.pointer_type(tl.float32))
    c_base = tl.load(Cp + entry).to(tl.pointer_type(tl.float32))
    acc = tl.zeros((TM, TN), tl.float32)
    if not NO_AB:
        a_tile = a_base + i[:, None].to(tl.int64) * sam + p[None, :].to(tl.int64) * sak
        b_tile = b_base + p[:, None].to(tl.int64) * sbk + j[None, :].to(tl.int64) * sbn
        for k in range(0, K, TK):
            a = tl.load(a_tile, mask=(i[:, None] < M) & (p[None, :] + k < K), other=0.0)
            b = tl.load(b_tile, mask=(p[:, None] + k < K) & (j[None, :] < N), other=0.0)
            acc = tl.dot(a, b, acc, input_precision="ieee")
            a_tile += TK * sak
            b_tile += TK * sbk
    c_ptrs = c_base + i[:, None] + j[None, :].to(tl.int64) * ldc
    inside = (i[:, None] < M) & (j[None, :] < N)
    acc = acc * alpha
    if not NO_C:
        acc += tl.load(c_ptrs, mask=inside, other=0.0) * beta
    tl.store(c_ptrs, acc, mask=inside)


def cublasSgemmBatched_64(transa, transb, m, n, k, alpha, Aarray, lda, Barray, ldb, beta, Carray, ldc, batchCount):
    ta = transa not in (0, "N", "n")
    tb = transb not in (0, "N", "n")
    if m == 0 or n == 0 or batchCount == 0:
        return
    if (alpha == 0 or k == 0) and beta == 1:
        return
    tm, tn, tk = 32, 32, 16
    tiles_m, tiles_n = triton.cdiv(m, tm), triton.cdiv(n, tn)
    batched_sgemm[(batchCount * tiles_m * tiles_n,)](
        Aarray, Barray, Carray, m, n, k,
        lda if ta else 1, 1 if ta else lda,
        ldb if tb else 1, 1 if tb else ldb,
        ldc, float(alpha), float(beta), tiles_m, tiles_n, TM=tm, TN=tn, TK=tk)
