"""vllm::selective_scan_fwd in Triton: Mamba's selective scan, output over delta (gated over z),
final state into ssm_states[cache_indices[b]].

One program per (sequence, block of channels) walks the sequence in time, holding the block's
[channels, dstate] state in float32 registers. Programs are kept small (a few channels, one warp)
so that many of them are resident at once and hide the latency of each step's loads. A padded or
empty sequence returns before touching anything, as vLLM's kernel does.
"""

import torch
import triton
import triton.language as tl

LOG2E = tl.constexpr(1.4426950408889634)  # a kernel reads only constexpr globals


@triton.jit
def _scan(u_ptr, dt_ptr, a_ptr, b_ptr, c_ptr, d_ptr, z_ptr, bias_ptr, qsl_ptr, idx_ptr, init_ptr, h_ptr,
          dim, dstate, seqlen, per_group, pad_slot_id,
          s_ub, s_ud, s_dtb, s_dtd, s_zb, s_zd, s_bb, s_bg, s_bn, s_cb, s_cg, s_cn, s_ad, s_an,
          s_hs, s_hd, s_hn,
          VARLEN: tl.constexpr, HAS_D: tl.constexpr, HAS_Z: tl.constexpr, HAS_BIAS: tl.constexpr,
          SOFTPLUS: tl.constexpr, HAS_IDX: tl.constexpr, HAS_INIT: tl.constexpr,
          BLOCK_D: tl.constexpr, BLOCK_N: tl.constexpr):
    seq = tl.program_id(0)
    chans = tl.program_id(1) * BLOCK_D + tl.arange(0, BLOCK_D)
    states = tl.arange(0, BLOCK_N)
    d_ok = chans < dim
    n_ok = states < dstate
    tile_ok = d_ok[:, None] & n_ok[None, :]

    slot = seq.to(tl.int64)
    if HAS_IDX:
        slot = tl.load(idx_ptr + seq).to(tl.int64)
    if VARLEN:
        start = tl.load(qsl_ptr + seq).to(tl.int64)
        length = tl.load(qsl_ptr + seq + 1) - start
        row = 0
    else:
        start = 0
        length = seqlen
        row = seq.to(tl.int64)
    active = length > 0
    if HAS_IDX:
        active = active & (slot != pad_slot_id)
    if active:
        d64 = chans.to(tl.int64)
        group = (chans // per_group).to(tl.int64)
        u_at = u_ptr + row * s_ub + d64 * s_ud + start
        dt_at = dt_ptr + row * s_dtb + d64 * s_dtd + start
        z_at = z_ptr + row * s_zb + d64 * s_zd + start
        b_at = b_ptr + row * s_bb + group[:, None] * s_bg + states[None, :] * s_bn + start
        c_at = c_ptr + row * s_cb + group[:, None] * s_cg + states[None, :] * s_cn + start
        a2 = tl.load(a_ptr + d64[:, None] * s_ad + states[None, :] * s_an, mask=tile_ok, other=0.0) * LOG2E
        skip = tl.zeros([BLOCK_D], dtype=tl.float32)
        if HAS_D:
            skip = tl.load(d_ptr + chans, mask=d_ok, other=0.0)
        bias = tl.zeros([BLOCK_D], dtype=tl.float32)
        if HAS_BIAS:
            bias = tl.load(bias_ptr + chans, mask=d_ok, other=0.0)

        h_at = h_ptr + slot * s_hs + d64[:, None] * s_hd + states[None, :] * s_hn
        h = tl.zeros([BLOCK_D, BLOCK_N], dtype=tl.float32)
        if HAS_INIT:
            if tl.load(init_ptr + seq) != 0:
                h = tl.load(h_at, mask=tile_ok, other=0.0).to(tl.float32)

        for t in range(0, length):
            x = tl.load(u_at + t, mask=d_ok, other=0.0).to(tl.float32)
            dt = tl.load(dt_at + t, mask=d_ok, other=0.0).to(tl.float32) + bias
            if SOFTPLUS:
                dt = tl.where(dt <= 20.0, tl.log(1.0 + tl.exp(dt)), dt)
            bt = tl.load(b_at + t, mask=tile_ok, other=0.0).to(tl.float32)
            ct = tl.load(c_at + t, mask=tile_ok, other=0.0).to(tl.float32)
            h = tl.exp2(dt[:, None] * a2) * h + (dt * x)[:, None] * bt
            y = tl.sum(h * ct, axis=1) + skip * x
            tl.store(dt_at + t, y.to(dt_ptr.dtype.element_ty), mask=d_ok)
            if HAS_Z:
                zt = tl.load(z_at + t, mask=d_ok, other=0.0).to(tl.float32)
                tl.store(z_at + t, (y * zt * tl.sigmoid(zt)).to(z_ptr.dtype.element_ty), mask=d_ok)
        tl.store(h_at, h.to(h_ptr.dtype.element_ty), mask=tile_ok)


def _batch_strides(t: torch.Tensor, varlen: bool):
    """(batch stride, channel stride) of u/delta/z: a varlen tensor [dim, total] has no batch."""
    return (0, t.stride(0)) if varlen else (t.stride(0), t.stride(1))


def selective_scan_fwd(u, delta, A, B, C, D_, z_, delta_bias_, delta_softplus, query_start_loc,
                       cache_indices, has_initial_state, ssm_states, pad_slot_id, block_size=1024,
                       block_idx_first_scheduled_token=None, block_idx_last_scheduled_token=None,
                       initial_state_idx=None):
    varlen = query_start_loc is not None
    batch = query_start_loc.numel() - 1 if varlen else u.shape[0]
    dim, seqlen = u.shape[-2], u.shape[-1]
    dstate = A.shape[1]
    groups = B.shape[-3]
    if batch == 0 or dim == 0:
        return
    s_bb, s_bg, s_bn = (0, B.stride(0), B.stride(1)) if varlen else (B.stride(0), B.stride(1), B.stride(2))
    s_cb, s_cg, s_cn = (0, C.stride(0), C.stride(1)) if varlen else (C.stride(0), C.stride(1), C.stride(2))
    z = z_ if z_ is not None else delta
    init = has_initial_state.view(torch.uint8) if has_initial_state is not None else u
    block_d = max(4, min(32, triton.next_power_of_2(batch * dim // 1024 + 1) // 2))
    grid = (batch, triton.cdiv(dim, block_d))
    _scan[grid](
        u, delta, A, B, C, D_ if D_ is not None else A, z, delta_bias_ if delta_bias_ is not None else A,
        query_start_loc if varlen else u, cache_indices if cache_indices is not None else u, init, ssm_states,
        dim, dstate, seqlen, dim // groups, pad_slot_id,
        *_batch_strides(u, varlen), *_batch_strides(delta, varlen), *_batch_strides(z, varlen),
        s_bb, s_bg, s_bn, s_cb, s_cg, s_cn, A.stride(0), A.stride(1),
        ssm_states.stride(0), ssm_states.stride(1), ssm_states.stride(2),
        VARLEN=varlen, HAS_D=D_ is not None, HAS_Z=z_ is not None, HAS_BIAS=delta_bias_ is not None,
        SOFTPLUS=bool(delta_softplus), HAS_IDX=cache_indices is not None,
        HAS_INIT=has_initial_state is not None,
        BLOCK_D=block_d, BLOCK_N=triton.next_power_of_2(dstate), num_warps=1,
    )
