"""Twins of vLLM operators: same signatures (the candidate writes the same tensors), other math."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import torch

from .. import registry
from ..build import build_cases, sample
from ..spec import Operator, Overload, Sample, Size
from ..vllm.family import compute_dtype
from ..vllm.norm import fused_add_rms_norm_sampler, rms_norm_sampler
from . import Perturbation, twin

# Epsilons large enough that where they enter shows (rows have a mean square near 1).
LARGE_EPSILONS = (0.5, 0.25)


def _rms_eps_out(out: torch.Tensor, input: torch.Tensor, weight: torch.Tensor, epsilon: float) -> None:
    xf = input.to(compute_dtype(input.dtype))
    scaled = xf / (xf.square().mean(dim=-1, keepdim=True).sqrt() + epsilon)
    out.copy_(scaled.to(input.dtype) * weight)


Sampler = Callable[[Overload, Size], Iterator[Sample]]


def _large_epsilon(sampler: Sampler) -> Sampler:
    """The sampler's cases with epsilons near 1."""
    def draw(ov: Overload, size: Size) -> Iterator[Sample]:
        for i, s in enumerate(sampler(ov, size)):
            yield sample({**s.values, "epsilon": LARGE_EPSILONS[i % 2]})

    return draw


RMS_EPS_OUT = Perturbation(
    "eps_out", "epsilon added to the root mean square, outside the square root; epsilons near 1",
    "RMSNorm with epsilon outside the root: out = round(x / (sqrt(mean(x^2, -1)) + epsilon)) * weight, "
    "statistics in float32.",
    lambda ov: _rms_eps_out,
    cases=lambda ovs: build_cases(ovs, _large_epsilon(rms_norm_sampler)),
    ov_doc=("input [..., hidden] of rank 2 to 4, any strides; weight [hidden]; out: a contiguous tensor "
            "shaped like input, written in place. Per row, in float32: d = sqrt(mean(x^2)) + epsilon; "
            "out = (x / d rounded to input.dtype) * weight. Returns None."),
)


def _fused_half_residual(input: torch.Tensor, residual: torch.Tensor, weight: torch.Tensor,
                         epsilon: float) -> None:
    z = input + 0.5 * residual
    residual.copy_(z)
    zf = z.to(compute_dtype(z.dtype))
    inv = torch.rsqrt(zf.square().mean(dim=-1, keepdim=True) + epsilon)
    input.copy_((zf * inv).to(z.dtype) * weight)


FUSED_HALF_RESIDUAL = Perturbation(
    "half_residual", "the residual enters the sum at half weight",
    "Half-weight residual add then RMSNorm, in place: residual <- input + residual / 2; "
    "input <- rms_norm(residual).",
    lambda ov: _fused_half_residual,
    ov_doc=("input and residual [..., hidden] (residual contiguous), weight [hidden], one dtype. "
            "z = input + 0.5 * residual rounded to the dtype; residual <- z; input <- (z * rsqrt(mean(z^2) "
            "+ epsilon) rounded to the dtype) * weight, statistics in float32. Returns None."),
)


def _fused_eps_out(input: torch.Tensor, residual: torch.Tensor, weight: torch.Tensor, epsilon: float) -> None:
    z = input + residual
    residual.copy_(z)
    zf = z.to(compute_dtype(z.dtype))
    input.copy_((zf / (zf.square().mean(dim=-1, keepdim=True).sqrt() + epsilon)).to(z.dtype) * weight)


FUSED_EPS_OUT = Perturbation(
    "eps_out", RMS_EPS_OUT.what,
    "Residual add then RMSNorm with epsilon outside the root, in place: residual <- input + residual; "
    "input <- round(residual / (sqrt(mean(residual^2, -1)) + epsilon)) * weight.",
    lambda ov: _fused_eps_out,
    cases=lambda ovs: build_cases(ovs, _large_epsilon(fused_add_rms_norm_sampler)),
    ov_doc=("input and residual [..., hidden] (residual contiguous), weight [hidden], one dtype. z = input + "
            "residual rounded to the dtype; residual <- z; input <- (z / (sqrt(mean(z^2)) + epsilon) rounded to "
            "the dtype) * weight, statistics in float32. Returns None."),
)


def _penalties_inverted(logits: torch.Tensor, prompt_mask: torch.Tensor, output_mask: torch.Tensor,
                        repetition_penalties: torch.Tensor) -> None:
    p = repetition_penalties.to(logits.dtype).unsqueeze(1)
    penalised = torch.where(logits > 0, logits * p, logits / p)
    logits.copy_(torch.where(prompt_mask | output_mask, penalised, logits))


def _penalties_both(logits: torch.Tensor, prompt_mask: torch.Tensor, output_mask: torch.Tensor,
                    repetition_penalties: torch.Tensor) -> None:
    p = repetition_penalties.to(logits.dtype).unsqueeze(1)
    penalised = torch.where(logits > 0, logits / p, logits * p)
    logits.copy_(torch.where(prompt_mask & output_mask, penalised, logits))


PENALTIES_INVERTED = Perturbation(
    "inverted", "the penalty multiplies positive logits and divides the others",
    "Repetition penalties applied the other way round, in place: where a token appears in the prompt or the "
    "output, a positive logit is multiplied by the sequence's penalty and any other divided by it.",
    lambda ov: _penalties_inverted,
    ov_doc=("logits [num_seqs, vocab] (float32, float16 or bfloat16, written in place), prompt_mask and "
            "output_mask [num_seqs, vocab] bool, repetition_penalties [num_seqs] of logits' dtype. Where "
            "prompt_mask | output_mask: logit := logit * penalty if logit > 0 else logit / penalty (penalty "
            "rounded to logits' dtype, each product or quotient rounded once); elsewhere unchanged. Returns None."),
)


def _moe_mean(input: torch.Tensor, output: torch.Tensor) -> None:
    work = compute_dtype(input.dtype)
    output.copy_(input.to(work).sum(dim=1) / input.shape[1])

PENALTIES_BOTH = Perturbation(
    "both_masks", "only tokens in both the prompt and the output are penalised",
    "Repetition penalties, in place, only where a token appears in the prompt AND in the output: there a "
    "positive logit is divided by the sequence's penalty and any other multiplied by it.",
    lambda ov: _penalties_both,
    ov_doc=("logits [num_seqs, vocab] (float32, float16 or bfloat16, written in place), prompt_mask and "
            "output_mask [num_seqs, vocab] bool, repetition_penalties [num_seqs] of logits' dtype. Where "
            "prompt_mask & output_mask: logit := logit / penalty if logit > 0 else logit * penalty (penalty "
            "rounded to logits' dtype, each quotient or product rounded once); elsewhere unchanged. Returns None."),
)

MOE_MEAN = Perturbation(
    "mean", "the experts' outputs are averaged, not summed",
    "The mean over the top-k experts' outputs of each token: output[t] = mean_j input[t, j], accumulated in "
    "float32.",
    lambda ov: _moe_mean,
    ov_doc=("input [tokens, topk, hidden], output [tokens, hidden] of the same dtype, written in place: "
            "output[t, h] = (sum over j of input[t, j, h]) / topk, summed in float32 and rounded once. "
            "Returns None."),
)


def _of(op_id: str, p: Perturbation) -> tuple[str, Callable[[], Operator]]:
    return f"{op_id}~{p.tag}", lambda: twin(registry.get(op_id), p)


TWINS: dict[str, Callable[[], Operator]] = dict([
    _of("vllm::rms_norm", RMS_EPS_OUT),
    _of("vllm::fused_add_rms_norm", FUSED_HALF_RESIDUAL),
    _of("vllm::fused_add_rms_norm", FUSED_EPS_OUT),
    _of("vllm::apply_repetition_penalties_cuda", PENALTIES_INVERTED),
    _of("vllm::apply_repetition_penalties_cuda", PENALTIES_BOTH),
    _of("vllm::moe_sum", MOE_MEAN),
])

