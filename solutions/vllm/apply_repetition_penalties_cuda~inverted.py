"""vllm::apply_repetition_penalties_cuda~inverted in Triton, in place on the logits (penalty inverted).

A 2-D grid of (sequence, vocabulary block): each program reads its row's penalty once. As in
vLLM, the division or multiplication is one operation of the logits' dtype (float32 math rounded
once for fp16/bf16); untouched positions are not stored.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _penalties_kernel(logits_ptr, prompt_ptr, output_ptr, pen_ptr, vocab, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
    at = row.to(tl.int64) * vocab + cols
    ok = cols < vocab
    seen = (tl.load(prompt_ptr + at, mask=ok, other=0) != 0) | (tl.load(output_ptr + at, mask=ok, other=0) != 0)
    x = tl.load(logits_ptr + at, mask=ok, other=0.0).to(tl.float32)
    p = tl.load(pen_ptr + row).to(tl.float32)
    y = tl.where(x > 0, x * p, tl.math.div_rn(x, p))
    tl.store(logits_ptr + at, y.to(logits_ptr.dtype.element_ty), mask=ok & seen)


def apply_repetition_penalties_cuda(logits, prompt_mask, output_mask, repetition_penalties):
    num_seqs, vocab = logits.shape
    if num_seqs == 0 or vocab == 0:
        return
    block = min(triton.next_power_of_2(vocab), 4096)
    grid = (num_seqs, triton.cdiv(vocab, block))
    _penalties_kernel[grid](logits, prompt_mask.view(torch.uint8), output_mask.view(torch.uint8),
                            repetition_penalties, vocab, BLOCK=block, num_warps=8)
