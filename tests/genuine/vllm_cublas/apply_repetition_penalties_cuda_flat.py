# op: vllm::apply_repetition_penalties_cuda
# idiom: flat 1-D grid over every logit, the row's penalty gathered per element (offset // vocab), bool masks loaded as they are, tl.where blend written back everywhere

"""Repetition penalty, element-parallel: each lane finds its sequence from its flat offset."""

import triton
import triton.language as tl

BLOCK = 1024


@triton.jit
def penalize(logits, seen_prompt, seen_output, penalties, n, vocab, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    live = offs < n
    x = tl.load(logits + offs, mask=live, other=0.0)
    pen = tl.load(penalties + offs // vocab, mask=live, other=1.0)
    hit = tl.load(seen_prompt + offs, mask=live, other=False) | tl.load(seen_output + offs, mask=live, other=False)
    xf = x.to(tl.float32)
    pf = pen.to(tl.float32)
    scaled = tl.where(xf > 0, tl.math.div_rn(xf, pf), xf * pf).to(x.dtype)
    tl.store(logits + offs, tl.where(hit, scaled, x), mask=live)


def apply_repetition_penalties_cuda(logits, prompt_mask, output_mask, repetition_penalties):
    n = logits.numel()
    if n:
        penalize[(triton.cdiv(n, BLOCK),)](logits, prompt_mask, output_mask, repetition_penalties, n,
                                           logits.shape[1], BLOCK=BLOCK)
