# op: vllm::selective_scan_fwd
# idiom: one program per channel (channel-major grid), the dstate vector as the only state; natural exp; z gating in a second tiled kernel

"""Selective scan with a program per (channel, sequence).

The scan kernel keeps one channel's dstate-long state and writes y over delta; a second kernel
then gates y by silu(z) over z in tiles along time, skipping the same padded sequences.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _sequence(seq, qsl_ptr, idx_ptr, seqlen, pad_slot_id, VARLEN: tl.constexpr, HAS_IDX: tl.constexpr):
    """(first token, length, state slot, whether to run) of sequence `seq`."""
    if VARLEN:
        first = tl.load(qsl_ptr + seq).to(tl.int64)
        n = (tl.load(qsl_ptr + seq + 1) - first).to(tl.int32)
    else:
        first = tl.zeros([], dtype=tl.int64)
        n = tl.zeros([], dtype=tl.int32) + seqlen
    if HAS_IDX:
        slot = tl.load(idx_ptr + seq).to(tl.int64)
        run = (slot != pad_slot_id) & (n > 0)
    else:
        slot = seq.to(tl.int64)
        run = n > 0
    return first, n, slot, run


@triton.jit
def scan_kernel(u_ptr, dt_ptr, a_ptr, b_ptr, c_ptr, d_ptr, bias_ptr, qsl_ptr, idx_ptr, init_ptr, st_ptr,
                seqlen, dstate, per_group, pad_slot_id,
                u_row, u_ch, dt_row, dt_ch, bc_row, bc_grp, bc_n, c_row, c_grp, c_n, st_slot, st_ch,
                VARLEN: tl.constexpr, HAS_D: tl.constexpr, HAS_BIAS: tl.constexpr, SOFTPLUS: tl.constexpr,
                HAS_IDX: tl.constexpr, HAS_INIT: tl.constexpr, BLOCK_N: tl.constexpr):
    ch = tl.program_id(0)
    seq = tl.program_id(1)
    first, n, slot, run = _sequence(seq, qsl_ptr, idx_ptr, seqlen, pad_slot_id, VARLEN, HAS_IDX)
    if run:
        k = tl.arange(0, BLOCK_N)
        km = k < dstate
        g = ch // per_group
        a = tl.load(a_ptr + ch * dstate + k, mask=km, other=0.0)
        dval = 0.0
        if HAS_D:
            dval = tl.load(d_ptr + ch)
        bval = 0.0
        if HAS_BIAS:
            bval = tl.load(bias_ptr + ch)
        st = st_ptr + slot * st_slot + ch * st_ch + k
        state = tl.zeros([BLOCK_N], dtype=tl.float32)
        if HAS_INIT:
            flag = tl.load(init_ptr + seq).to(tl.int32)
            state = tl.load(st, mask=km & (flag != 0), other=0.0).to(tl.float32)
        ub = u_ptr + seq * u_row + ch * u_ch + first
        db = dt_ptr + seq * dt_row + ch * dt_ch + first
        bb = b_ptr + seq * bc_row + g * bc_grp + k * bc_n + first
        cb = c_ptr + seq * c_row + g * c_grp + k * c_n + first
        for i in range(n):
            x = tl.load(ub + i).to(tl.float32)
            delta = tl.load(db + i).to(tl.float32) + bval
            if SOFTPLUS:
                delta = tl.where(delta > 20.0, delta, tl.log(1.0 + tl.exp(delta)))
            bvec = tl.load(bb + i, mask=km, other=0.0).to(tl.float32)
            cvec = tl.load(cb + i, mask=km, other=0.0).to(tl.float32)
            state = state * tl.exp(a * delta) + bvec * (delta * x)
            tl.store(db + i, (tl.sum(state * cvec, axis=0) + dval * x).to(dt_ptr.dtype.element_ty))
        tl.store(st, state.to(st_ptr.dtype.element_ty), mask=km)


@triton.jit
def gate_kernel(y_ptr, z_ptr, qsl_ptr, idx_ptr, seqlen, pad_slot_id, y_row, y_ch, z_row, z_ch,
                VARLEN: tl.constexpr, HAS_IDX: tl.constexpr, BLOCK_T: tl.constexpr):
    ch = tl.program_id(0)
    seq = tl.program_id(1)
    first, n, slot, run = _sequence(seq, qsl_ptr, idx_ptr, seqlen, pad_slot_id, VARLEN, HAS_IDX)
    if run:
        for t0 in range(0, n, BLOCK_T):
            t = t0 + tl.arange(0, BLOCK_T)
            m = t < n
            y = tl.load(y_ptr + seq * y_row + ch * y_ch + first + t, mask=m, other=0.0).to(tl.float32)
            zp = z_ptr + seq * z_row + ch * z_ch + first + t
            z = tl.load(zp, mask=m, other=0.0).to(tl.float32)
            tl.store(zp, (y * (z / (1.0 + tl.exp(-z)))).to(z_ptr.dtype.element_ty), mask=m)


def selective_scan_fwd(u, delta, A, B, C, D_, z_, delta_bias_, delta_softplus, query_start_loc,
                       cache_indices, has_initial_state, ssm_states, pad_slot_id, block_size=1024,
                       block_idx_first_scheduled_token=None, block_idx_last_scheduled_token=None,
                       initial_state_idx=None):
    varlen = query_start_loc is not None
    if varlen:
        nseq, dim, seqlen = query_start_loc.shape[0] - 1, u.shape[0], u.shape[1]
        u3, d3, b4, c4 = u.unsqueeze(0), delta.unsqueeze(0), B.unsqueeze(0), C.unsqueeze(0)
        z3 = z_.unsqueeze(0) if z_ is not None else None
        row = 0
    else:
        nseq, dim, seqlen = u.shape
        u3, d3, b4, c4, z3 = u, delta, B, C, z_
        row = 1
    if nseq == 0 or dim == 0:
        return
    A = A.contiguous()
    dstate = A.shape[1]
    dummy = u
    flags = has_initial_state.to(torch.int8) if has_initial_state is not None else dummy
    grid = (dim, nseq)
    scan_kernel[grid](
        u3, d3, A, b4, c4, D_ if D_ is not None else dummy, delta_bias_ if delta_bias_ is not None else dummy,
        query_start_loc if varlen else dummy, cache_indices if cache_indices is not None else dummy, flags,
        ssm_states, seqlen, dstate, dim // B.shape[-3], pad_slot_id,
        u3.stride(0) * row, u3.stride(1), d3.stride(0) * row, d3.stride(1),
        b4.stride(0) * row, b4.stride(1), b4.stride(2), c4.stride(0) * row, c4.stride(1), c4.stride(2),
        ssm_states.stride(0), ssm_states.stride(1),
        VARLEN=varlen, HAS_D=D_ is not None, HAS_BIAS=delta_bias_ is not None, SOFTPLUS=bool(delta_softplus),
        HAS_IDX=cache_indices is not None, HAS_INIT=has_initial_state is not None,
        BLOCK_N=max(16, triton.next_power_of_2(dstate)),
    )
    if z3 is not None:
        gate_kernel[grid](
            d3, z3, query_start_loc if varlen else dummy, cache_indices if cache_indices is not None else dummy,
            seqlen, pad_slot_id, d3.stride(0) * row, d3.stride(1), z3.stride(0) * row, z3.stride(1),
            VARLEN=varlen, HAS_IDX=cache_indices is not None, BLOCK_T=64,
        )
