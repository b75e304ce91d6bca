# op: vllm::permute_cols
# idiom: one program per row looping over column chunks, perm re-read per chunk; empty_like output

"""A[:, perm] for GPTQ act-order activations: every program copies one whole row."""

import torch
import triton
import triton.language as tl

CHUNK = 1024


@triton.jit
def permute_row(src, perm, dst, k, CHUNK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    for c0 in range(0, k, CHUNK):
        j = c0 + tl.arange(0, CHUNK)
        inside = j < k
        idx = tl.load(perm + j, mask=inside, other=0)
        v = tl.load(src + row * k + idx, mask=inside)
        tl.store(dst + row * k + j, v, mask=inside)


def permute_cols(a, perm):
    out = torch.empty_like(a)
    if a.numel():
        permute_row[(a.shape[0],)](a, perm, out, a.shape[1], CHUNK=min(CHUNK, triton.next_power_of_2(a.shape[1])))
    return out
