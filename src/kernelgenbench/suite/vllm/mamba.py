"""Mamba's selective scan as vLLM runs it in prefill: `selective_scan_fwd`.

Semantics from vLLM's csrc/mamba/mamba_ssm/selective_scan_fwd.cu (kernel and host checks),
selective_scan.h, the schema in csrc/torch_bindings.cpp, `ops.selective_scan_fwd` in
vllm/_custom_ops.py and its caller `selective_scan_fn` in
vllm/model_executor/layers/mamba/ops/mamba_ssm.py, at the generation whose schema ends
`Tensor! ssm_states, int pad_slot_id, int block_size, Tensor? block_idx_first_scheduled_token,
Tensor? block_idx_last_scheduled_token, Tensor? initial_state_idx` (prefix caching added, before
`pad_slot_id` became `null_block_id` and the chunk metadata arrived); ssm_states may be float32 or
the input dtype. vLLM's tests/kernels/mamba/test_mamba_ssm.py (`selective_scan_ref`) for the math.

For every sequence b (rows of the padded batch, or the query_start_loc spans of a varlen batch),
with slot = cache_indices[b] (b without cache_indices); a sequence whose slot is pad_slot_id is
skipped whole (its outputs and its state are left as they are), and so is an empty one:
  dt = delta + delta_bias, softplus(dt) (x > 20 stays x) when delta_softplus,
  h_0 = ssm_states[slot] if has_initial_state[b] else 0            [dim, dstate]
  h_t = exp(dt_t * A) * h_{t-1} + dt_t * B_t * u_t                 (B of channel d's group)
  y_t = sum_n h_t[:, n] * C_t[n] + D * u_t
all in float32; y is written over delta, y * silu(z) over z (when given), and h_L, rounded to
ssm_states' dtype, over ssm_states[slot].
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass

import torch

from ..build import sample
from ..spec import Joint, Operator, Overload, Param, Sample, Size, TensorSpec
from .family import compute_dtype, vllm_operator

f32, f16, bf16 = torch.float32, torch.float16, torch.bfloat16
i32 = torch.int32
PAD_SLOT_ID = -1  # vLLM's PAD_SLOT_ID (vllm/v1/attention/backends/utils.py)


def cache_slots(batch: int, slots: int, pads: tuple[int, ...]) -> Callable[[torch.Generator], torch.Tensor]:
    """A draw of distinct cache slots for the sequences (no two write one slot), with the
    sequences in `pads` given pad_slot_id, as vLLM's scheduler pads a CUDA-graph batch."""

    def draw(gen: torch.Generator) -> torch.Tensor:
        idx = torch.randperm(slots, generator=gen, device=gen.device)[:batch].to(i32)
        for b in pads:
            idx[b] = PAD_SLOT_ID
        return idx

    return draw


@dataclass(frozen=True)
class Scan:
    """One call. `tokens` is the padded seqlen, or the total of a varlen batch (`varlen`).
    `slots` > 0 passes cache_indices into a state cache of that many slots (`pads`: sequences
    given pad_slot_id); 0 passes none and the cache has `batch + spare` rows. `init` sequences
    have an initial state (-1: has_initial_state None)."""

    batch: int
    dim: int
    dstate: int
    tokens: int
    dtype: torch.dtype
    varlen: bool = False
    groups: int = 1
    D: bool = True
    z: bool = True
    bias: bool = True
    softplus: bool = True
    slots: int = 0
    pads: tuple[int, ...] = ()
    init: int = -1
    state: torch.dtype = f32
    spare: int = 1

    def values(self) -> dict[str, object]:
        seq = (self.dim, self.tokens) if self.varlen else (self.batch, self.dim, self.tokens)
        bc = ((self.groups, self.dstate, self.tokens) if self.varlen
              else (self.batch, self.groups, self.dstate, self.tokens))
        dt = (TensorSpec(seq, self.dtype, dist="uniform", low=-3.0, high=1.0) if self.softplus
              else TensorSpec(seq, self.dtype, dist="uniform", low=0.0, high=0.5))
        rows = self.slots if self.slots else self.batch + self.spare
        return {
            "u": TensorSpec(seq, self.dtype),
            "delta": dt,
            # Mamba's A = -exp(A_log), A_log initialised to log(1..dstate)
            "A": TensorSpec((self.dim, self.dstate), f32, dist="uniform", low=-8.0, high=-0.25),
            "B": TensorSpec(bc, self.dtype),
            "C": TensorSpec(bc, self.dtype),
            "D_": TensorSpec((self.dim,), f32, dist="uniform", low=0.5, high=1.5) if self.D else None,
            "z_": TensorSpec(seq, self.dtype) if self.z else None,
            # without softplus dt stays a step (>= 0), else the states grow without bound
            "delta_bias_": (TensorSpec((self.dim,), f32, dist="uniform", low=-1.0 if self.softplus else 0.0,
                                       high=0.5) if self.bias else None),
            "delta_softplus": self.softplus,
            "query_start_loc": (TensorSpec((self.batch + 1,), i32, dist="offsets", high=self.tokens)
                                if self.varlen else None),
            "cache_indices": (Joint((self.batch,), i32, (), cache_slots(self.batch, self.slots, self.pads),
                                    f"distinct slots of {self.slots}, {len(self.pads)} padded")
                              if self.slots else None),
            "has_initial_state": (TensorSpec((self.batch,), torch.bool, dist="mask", high=self.init)
                                  if self.init >= 0 else None),
            "ssm_states": TensorSpec((rows, self.dim, self.dstate), self.state),
            "pad_slot_id": PAD_SLOT_ID,
            "block_size": 1024,
            "block_idx_first_scheduled_token": None,
            "block_idx_last_scheduled_token": None,
            "initial_state_idx": None,
        }


CASES: dict[str, list[Scan]] = {
    "small": [
        Scan(2, 4, 4, 7, f32, D=False, z=False, bias=False, softplus=False),
        Scan(3, 8, 16, 33, f16, slots=6, pads=(1,), init=2),
        Scan(2, 16, 8, 40, bf16, groups=2, D=False, bias=False, init=1, state=bf16, spare=2),
        Scan(4, 12, 5, 37, f32, varlen=True, z=False, softplus=False, slots=7, init=2),
        Scan(5, 6, 16, 29, bf16, varlen=True, groups=3, slots=8, pads=(0, 3), init=3),
        Scan(1, 10, 12, 1, f16, varlen=True, slots=3, init=1, state=f16),
        Scan(4, 5, 7, 1, f32, slots=9, pads=(2,), init=4),
        Scan(3, 8, 4, 20, bf16, varlen=True, D=False, bias=False),
        Scan(3, 7, 9, 11, f16, bias=False, softplus=False, init=0, slots=4),
    ],
    "large": [
        Scan(3, 256, 16, 300, bf16, slots=8, pads=(1,), init=2),
        Scan(5, 128, 16, 700, f16, varlen=True, slots=12, pads=(4,), init=3),
        Scan(2, 160, 32, 129, f32, groups=2, init=1, state=f32),
    ],
    "perf": [
        # Mamba-2.8B (d_inner 5120, d_state 16) prefill: one long prompt, then a padded batch
        Scan(1, 5120, 16, 2048, bf16, slots=4, init=0),
        Scan(8, 5120, 16, 2048, bf16, slots=16, init=0),
        # vLLM's varlen form: 8 prompts of a 16k-token chunked-prefill step
        Scan(8, 5120, 16, 16384, bf16, varlen=True, slots=32, init=4),
        # Jamba's Mamba layers (d_inner 8192, d_state 16)
        Scan(4, 8192, 16, 8192, bf16, varlen=True, slots=16, init=2),
    ],
}


def _softplus(x: torch.Tensor) -> torch.Tensor:
    return torch.where(x <= 20.0, torch.log1p(torch.exp(x)), x)


def selective_scan_fwd_reference(u: torch.Tensor, delta: torch.Tensor, A: torch.Tensor, B: torch.Tensor,
                                 C: torch.Tensor, D_: torch.Tensor | None, z_: torch.Tensor | None,
                                 delta_bias_: torch.Tensor | None, delta_softplus: bool,
                                 query_start_loc: torch.Tensor | None, cache_indices: torch.Tensor | None,
                                 has_initial_state: torch.Tensor | None, ssm_states: torch.Tensor,
                                 pad_slot_id: int, block_size: int = 1024,
                                 block_idx_first_scheduled_token: torch.Tensor | None = None,
                                 block_idx_last_scheduled_token: torch.Tensor | None = None,
                                 initial_state_idx: torch.Tensor | None = None) -> None:
    varlen = query_start_loc is not None
    starts = query_start_loc.tolist() if varlen else None
    slots = cache_indices.tolist() if cache_indices is not None else None
    inits = has_initial_state.tolist() if has_initial_state is not None else None
    acc = compute_dtype(u.dtype)
    batch = len(starts) - 1 if varlen else u.shape[0]
    dim = u.shape[-2]
    per_group = dim // B.shape[-3]
    a = A.to(acc)
    for b in range(batch):
        slot = b if slots is None else slots[b]
        if slots is not None and slot == pad_slot_id:
            continue
        at = (..., slice(starts[b], starts[b + 1])) if varlen else (b,)
        x = u[at].to(acc)
        if x.shape[-1] == 0:
            continue
        dt = delta[at].to(acc)
        if delta_bias_ is not None:
            dt = dt + delta_bias_.to(acc)[:, None]
        if delta_softplus:
            dt = _softplus(dt)
        bs = B[at].to(acc).repeat_interleave(per_group, dim=0)  # [dim, dstate, L]
        cs = C[at].to(acc).repeat_interleave(per_group, dim=0)
        # time-major, so each step is two torch calls on whole views: the scan is sequential, and on
        # the H200 its per-step calls (seven before) were the truth's and the stand-in baseline's time
        decay = torch.exp(dt[:, None, :] * a[:, :, None]).movedim(-1, 0).contiguous()  # [L, dim, dstate]
        drive = ((dt * x)[:, None, :] * bs).movedim(-1, 0).contiguous()
        h = (ssm_states[slot].to(acc) if inits is not None and inits[b]
             else torch.zeros_like(a))
        ys = torch.empty((x.shape[-1], dim), dtype=acc, device=x.device)
        for decay_t, drive_t, c_t, y_t in zip(decay, drive, cs.movedim(-1, 0), ys):
            h = torch.addcmul(drive_t, decay_t, h)
            torch.linalg.vecdot(h, c_t, out=y_t)
        y = ys.t()
        if D_ is not None:
            y = y + D_.to(acc)[:, None] * x
        delta[at].copy_(y.to(delta.dtype))
        if z_ is not None:
            zz = z_[at].to(acc)
            z_[at].copy_((y * zz * torch.sigmoid(zz)).to(z_.dtype))
        ssm_states[slot] = h.to(ssm_states.dtype)


def selective_scan_fwd_sampler(ov: Overload, size: Size) -> Iterator[Sample]:
    for c in CASES[size]:
        yield sample(c.values())


def selective_scan_fwd() -> Operator:
    return vllm_operator(
        "selective_scan_fwd", "mamba",
        "Mamba selective scan (prefill): the SSM over each sequence, output over delta (and gated over z), "
        "final state into the state cache.",
        params=(
            Param("u", "Tensor!"),
            Param("delta", "Tensor!", writes=True),
            Param("A", "Tensor!"),
            Param("B", "Tensor!"),
            Param("C", "Tensor!"),
            Param("D_", "Tensor?"),
            Param("z_", "Tensor!?", writes=True),
            Param("delta_bias_", "Tensor?"),
            Param("delta_softplus", "bool"),
            Param("query_start_loc", "Tensor?"),
            Param("cache_indices", "Tensor?"),
            Param("has_initial_state", "Tensor?"),
            Param("ssm_states", "Tensor!", writes=True),
            Param("pad_slot_id", "int"),
            Param("block_size", "int", has_default=True, default=1024),
            Param("block_idx_first_scheduled_token", "Tensor?", has_default=True, default=None),
            Param("block_idx_last_scheduled_token", "Tensor?", has_default=True, default=None),
            Param("initial_state_idx", "Tensor?", has_default=True, default=None),
        ),
        signature=("selective_scan_fwd(u: torch.Tensor, delta: torch.Tensor, A: torch.Tensor, B: torch.Tensor, "
                   "C: torch.Tensor, D_: torch.Tensor | None, z_: torch.Tensor | None, "
                   "delta_bias_: torch.Tensor | None, delta_softplus: bool, "
                   "query_start_loc: torch.Tensor | None, cache_indices: torch.Tensor | None, "
                   "has_initial_state: torch.Tensor | None, ssm_states: torch.Tensor, pad_slot_id: int, "
                   "block_size: int = 1024, block_idx_first_scheduled_token: torch.Tensor | None = None, "
                   "block_idx_last_scheduled_token: torch.Tensor | None = None, "
                   "initial_state_idx: torch.Tensor | None = None) -> None"),
        reference=selective_scan_fwd_reference,
        sampler=selective_scan_fwd_sampler,
        notes=("The schema of the prefix-caching generation (pad_slot_id, block_size and the three block "
               "index tensors). Its prefix-caching mode (block_idx_first_scheduled_token given: 2-D "
               "cache_indices, a state written at every block boundary) is not drawn: block_size stays "
               "1024 and the three tensors None, so every case is the plain scan with the final state at "
               "cache_indices[b]. Drawn: padded [batch, dim, seqlen] and varlen [dim, total] batches "
               "(query_start_loc from 0, non-decreasing, with empty sequences: left alone, their state "
               "unwritten, as vLLM's kernel does), B/C with 1 to 3 groups, D, z, delta_bias and "
               "delta_softplus each present and absent, has_initial_state None, none, some and all, "
               "cache_indices None or distinct slots with pad_slot_id (-1) sequences (skipped whole: "
               "delta, z and their state left as they are), ssm_states float32 or the input dtype with "
               "slots no sequence names (left as they are). Not drawn: non-contiguous tensors (vLLM needs "
               "unit last strides; selective_scan_fn makes them so), B/C of float32 weight type "
               "(vLLM rejects non-variable B/C), dstate > 256 (vLLM rejects it)."),
        ov_doc=("u, delta, z_: [batch, dim, seqlen], or [dim, total] with query_start_loc int32 [batch + 1] "
                "(cumulative offsets from 0); float32/float16/bfloat16, contiguous. A float32 [dim, dstate]; "
                "B, C [batch, groups, dstate, seqlen] or [groups, dstate, total] in u's dtype, groups "
                "dividing dim (channel d uses group d // (dim / groups)); D_, delta_bias_ float32 [dim] or "
                "None; cache_indices int32 [batch] or None; has_initial_state bool [batch] or None; "
                "ssm_states [slots, dim, dstate] float32 or u's dtype. Per sequence b with slot = "
                "cache_indices[b] (b when None), skipped when slot == pad_slot_id or it is empty: dt = "
                "delta + delta_bias, softplus(dt) (dt > 20 kept) if delta_softplus; h = ssm_states[slot] if "
                "has_initial_state[b] else 0; for each t: h = exp(dt_t * A) * h + (dt_t * u_t) * B_t, "
                "y_t = sum_n h[:, n] * C_t[n] + D * u_t, in float32. Writes y over delta, y * silu(z) over "
                "z_ when given, h (final) over ssm_states[slot]; everything else is left as it is. The "
                "prefix-caching arguments keep their defaults (block_size 1024, the tensors None). "
                "Returns None."),
    )


OPERATORS: dict[str, Callable[[], Operator]] = {"selective_scan_fwd": selective_scan_fwd}
