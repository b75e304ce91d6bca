"""Small vLLM 0.13 operators around sampling, attention and GPTQ: `apply_repetition_penalties_cuda`,
`merge_attn_states` and `permute_cols`.

- apply_repetition_penalties_cuda (csrc/sampler.cu, vllm/_custom_ops.py): in place on logits
  [num_seqs, vocab]; where prompt_mask or output_mask is set, a positive logit is divided by its
  row's penalty and any other (zero or negative) is multiplied by it, in the logits' dtype.
- merge_attn_states (csrc/attention/merge_attn_states.cu): two partial attention outputs
  [tokens, heads, head_size] with their log-sum-exps [heads, tokens] (float32) merge as
  o = (e^(p - m) o_p + e^(s - m) o_s) / (e^(p - m) + e^(s - m)), m = max(p, s), in float32, and
  the merged lse is log(e^(p - m) + e^(s - m)) + m. An lse of +inf counts as -inf (an empty
  partial); a NaN, or both sides infinite, makes that head's output NaN, as vLLM's arithmetic does.
- permute_cols (csrc/permute_cols.cu): out = A[:, perm] for A [m, k] fp16/bf16 contiguous with
  k a multiple of 8 and perm int32 [k] (GPTQ act-order); returns a new tensor.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import replace

import torch

from ..build import FLOATS, sample
from ..spec import Operator, OutputSpec, Overload, Param, Sample, Size, TensorSpec, Tolerance
from .family import compute_dtype, vllm_operator

f32, f16, bf16 = torch.float32, torch.float16, torch.bfloat16

EXACT = Tolerance(k_rms=1.0, k_max=1.0, floor_ulps=0.0)
"""A gather moves values unchanged: the reference is exact, so the allowance is only the harness's
floor of a correct rounding, which a misplaced column exceeds."""


# ---------------------------------------------------------------------------------------------
# apply_repetition_penalties_cuda


def apply_repetition_penalties_reference(logits: torch.Tensor, prompt_mask: torch.Tensor, output_mask: torch.Tensor,
                                         repetition_penalties: torch.Tensor) -> None:
    p = repetition_penalties.to(logits.dtype).unsqueeze(1)
    penalised = torch.where(logits > 0, logits / p, logits * p)
    logits.copy_(torch.where(prompt_mask | output_mask, penalised, logits))


# [num_seqs, vocab]: odd vocabularies (tails), one sequence, an empty batch
PENALTY_SHAPES: dict[str, list[tuple[int, int]]] = {
    "small": [(1, 100), (3, 1000), (7, 257), (2, 3001), (0, 128)],
    "large": [(256, 32000), (64, 128256), (33, 151936)],
    "perf": [(256, 128256), (1024, 152064)],
}


def repetition_penalties_sampler(ov: Overload, size: Size) -> Iterator[Sample]:
    dtypes = FLOATS if size == "small" else (bf16, f32)
    i = 0
    for shape in PENALTY_SHAPES[size]:
        for dtype in dtypes[: 3 if size == "small" else 1 + (i % 2)]:
            i += 1
            yield sample({
                # logits around zero so both signs (and the division and multiplication) show up
                "logits": TensorSpec(shape, dtype, dist="uniform", low=-4.0, high=4.0),
                "prompt_mask": TensorSpec(shape, torch.bool),
                "output_mask": TensorSpec(shape, torch.bool),
                "repetition_penalties": TensorSpec(shape[:1], dtype, dist="uniform", low=1.0, high=2.0),
            })


def apply_repetition_penalties_cuda() -> Operator:
    return vllm_operator(
        "apply_repetition_penalties_cuda", "misc",
        "Repetition penalties in place: logits of tokens seen in the prompt or output are divided "
        "(positive) or multiplied (otherwise) by their sequence's penalty.",
        params=(
            Param("logits", "Tensor!", writes=True),
            Param("prompt_mask", "Tensor"),
            Param("output_mask", "Tensor"),
            Param("repetition_penalties", "Tensor"),
        ),
        signature=("apply_repetition_penalties_cuda(logits: torch.Tensor, prompt_mask: torch.Tensor, "
                   "output_mask: torch.Tensor, repetition_penalties: torch.Tensor) -> None"),
        reference=apply_repetition_penalties_reference,
        sampler=repetition_penalties_sampler,
        ov_doc=("logits [num_seqs, vocab] float32/float16/bfloat16, contiguous; prompt_mask and output_mask "
                "bool [num_seqs, vocab]; repetition_penalties [num_seqs] in logits' dtype. Where "
                "prompt_mask | output_mask: logit <- logit / penalty if logit > 0 else logit * penalty "
                "(one rounding to the dtype); elsewhere unchanged. In place; returns None."),
        notes="csrc/sampler.cu apply_repetition_penalties_kernel. Not drawn: non-contiguous logits "
              "(vLLM's wrapper takes its torch path for those).",
    )


# ---------------------------------------------------------------------------------------------
# merge_attn_states


def merge_attn_states_reference(output: torch.Tensor, prefix_output: torch.Tensor, prefix_lse: torch.Tensor,
                                suffix_output: torch.Tensor, suffix_lse: torch.Tensor,
                                output_lse: torch.Tensor | None = None) -> None:
    work = compute_dtype(output.dtype)
    p, s = prefix_lse.to(work), suffix_lse.to(work)
    p = torch.where(p.isinf(), float("-inf"), p)
    s = torch.where(s.isinf(), float("-inf"), s)
    m = torch.maximum(p, s)
    p_se, s_se = torch.exp(p - m), torch.exp(s - m)
    total = p_se + s_se
    p_scale = (p_se / total).transpose(0, 1).unsqueeze(-1)  # [tokens, heads, 1]
    s_scale = (s_se / total).transpose(0, 1).unsqueeze(-1)
    output.copy_(prefix_output.to(work) * p_scale + suffix_output.to(work) * s_scale)
    if output_lse is not None:
        output_lse.copy_(torch.log(total) + m)


# (tokens, heads, head_size): head_size a multiple of 8 (vLLM's 16-byte packs)
MERGE_SHAPES: dict[str, list[tuple[int, int, int]]] = {
    "small": [(1, 1, 8), (5, 3, 64), (17, 2, 128), (3, 4, 24), (0, 2, 64), (9, 8, 16)],
    "large": [(4096, 32, 128), (1000, 16, 256), (8192, 8, 64)],
    "perf": [(8192, 32, 128), (16384, 128, 128)],
}


def merge_attn_states_sampler(ov: Overload, size: Size) -> Iterator[Sample]:
    dtypes = FLOATS if size == "small" else (bf16, f16, f32)
    i = 0
    for shape in MERGE_SHAPES[size]:
        for dtype in dtypes[: 3 if size == "small" else 1]:
            tokens, heads, _ = shape
            # one small case in three plants +-inf (empty partials), NaN and +-0 in the lse
            lse = "special" if size == "small" and i % 3 == 2 else "uniform"
            yield sample({
                "output": OutputSpec(shape, dtype),
                "prefix_output": TensorSpec(shape, dtype),
                "prefix_lse": TensorSpec((heads, tokens), f32, dist=lse, low=-4.0, high=8.0),
                "suffix_output": TensorSpec(shape, dtype),
                "suffix_lse": TensorSpec((heads, tokens), f32, dist=lse, low=-4.0, high=8.0),
                "output_lse": OutputSpec((heads, tokens), f32) if i % 2 == 0 else None,
            })
            i += 1


def merge_attn_states() -> Operator:
    return vllm_operator(
        "merge_attn_states", "misc",
        "Merge two partial attention results (split-KV, prefix + suffix) weighted by their log-sum-exps.",
        params=(
            Param("output", "Tensor!", writes=True),
            Param("prefix_output", "Tensor"),
            Param("prefix_lse", "Tensor"),
            Param("suffix_output", "Tensor"),
            Param("suffix_lse", "Tensor"),
            Param("output_lse", "Tensor!?", writes=True, has_default=True),
        ),
        signature=("merge_attn_states(output: torch.Tensor, prefix_output: torch.Tensor, prefix_lse: torch.Tensor, "
                   "suffix_output: torch.Tensor, suffix_lse: torch.Tensor, output_lse: torch.Tensor | None = None) "
                   "-> None"),
        reference=merge_attn_states_reference,
        sampler=merge_attn_states_sampler,
        ov_doc=("output, prefix_output, suffix_output [tokens, heads, head_size] contiguous, one dtype "
                "(float32/float16/bfloat16), head_size a multiple of 8; prefix_lse, suffix_lse, output_lse "
                "[heads, tokens] float32. Per (token, head), in float32: p, s = the two lse with +inf replaced "
                "by -inf; m = max(p, s); a = exp(p - m), b = exp(s - m); output = o_p * a/(a+b) + o_s * b/(a+b) "
                "(rounded to the dtype); output_lse (when given) = log(a + b) + m. A NaN lse, or both lse "
                "infinite, gives NaN there. Writes output (and output_lse) in place; returns None."),
        notes="csrc/attention/merge_attn_states.cu. Not drawn: prefill_tokens_with_context and output_scale "
              "(later vLLM versions), non-contiguous tensors.",
    )


# ---------------------------------------------------------------------------------------------
# permute_cols


def permute_cols_reference(a: torch.Tensor, perm: torch.Tensor) -> torch.Tensor:
    return a.index_select(1, perm.long())


PERMUTE_SHAPES: dict[str, list[tuple[int, int]]] = {
    "small": [(1, 8), (7, 64), (13, 136), (0, 16), (5, 1024), (3, 4096)],
    "large": [(4096, 4096), (2048, 14336), (1000, 8192)],
    "perf": [(16384, 4096), (16384, 14336)],
}


def permute_cols_sampler(ov: Overload, size: Size) -> Iterator[Sample]:
    i = 0
    for shape in PERMUTE_SHAPES[size]:
        for dtype in (f16, bf16)[: 2 if size == "small" else 1 + i % 2]:
            k = shape[1]
            # a permutation (GPTQ's act-order), and now and then arbitrary columns with repeats
            perm = (TensorSpec((k,), torch.int32, dist="index", low=0, high=k) if i % 4 == 3
                    else TensorSpec((k,), torch.int32, dist="unique", low=0, high=k))
            yield sample({"a": TensorSpec(shape, dtype), "perm": perm})
            i += 1


def permute_cols() -> Operator:
    op = vllm_operator(
        "permute_cols", "misc",
        "Column permutation out = A[:, perm] (GPTQ act-order), as a new tensor.",
        params=(Param("a", "Tensor"), Param("perm", "Tensor")),
        signature="permute_cols(a: torch.Tensor, perm: torch.Tensor) -> torch.Tensor",
        reference=permute_cols_reference,
        sampler=permute_cols_sampler,
        tolerance=EXACT,
        ov_doc=("a [m, k] float16/bfloat16 contiguous, k a multiple of 8; perm int32 [k] of column indices in "
                "[0, k) (a permutation, or any indices). Returns a new contiguous [m, k] tensor of a's dtype "
                "with out[:, j] = a[:, perm[j]]."),
        notes="csrc/permute_cols.cu. Not drawn: k not a multiple of 8, float32, non-contiguous a (vLLM raises).",
    )
    return replace(op, work="data")  # a gather moves data: the copy itself must be a kernel


OPERATORS: dict[str, Callable[[], Operator]] = {
    "apply_repetition_penalties_cuda": apply_repetition_penalties_cuda,
    "merge_attn_states": merge_attn_states,
    "permute_cols": permute_cols,
}
