# op: aten::cat
# idiom: one launch per input into an `out.narrow` view, shapes padded to 4-D with unsqueeze views, dtype promotion in a host loop
import torch
import triton
import triton.language as tl

BLOCK = 1024


@triton.jit
def _copy4d(src, dst, n, d1, d2, d3,
            s0, s1, s2, s3, t0, t1, t2, t3,
            BLOCK: tl.constexpr):
    i = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    m = i < n
    c3 = i % d3
    c2 = (i // d3) % d2
    c1 = (i // (d3 * d2)) % d1
    c0 = i // (d3 * d2 * d1)
    v = tl.load(src + c0 * s0 + c1 * s1 + c2 * s2 + c3 * s3, mask=m)
    if dst.dtype.element_ty == tl.bfloat16:
        v = v.to(tl.float32)
    tl.store(dst + c0 * t0 + c1 * t1 + c2 * t2 + c3 * t3, v.to(dst.dtype.element_ty), mask=m)


def _copy(src, dst):
    """dst[...] = src[...], both of one shape, any strides and dtypes."""
    if dst.numel() == 0:
        return
    if src.dim() > 4:
        for i in range(src.shape[0]):
            _copy(src[i], dst[i])
        return
    while src.dim() < 4:
        src, dst = src.unsqueeze(0), dst.unsqueeze(0)
    if src.dtype == torch.bool:
        src = src.view(torch.uint8)
    if dst.dtype == torch.bool:
        dst = dst.view(torch.uint8)
    n = dst.numel()
    _copy4d[(triton.cdiv(n, BLOCK),)](src, dst, n, dst.shape[1], dst.shape[2], dst.shape[3],
                                      *src.stride(), *dst.stride(), BLOCK=BLOCK)


def _kept(tensors):
    """ATen's legacy rule: 1-d empty tensors take no part in the shape."""
    return [t for t in tensors if not (t.dim() == 1 and t.numel() == 0)]


def _result_dtype(tensors):
    dtype = tensors[0].dtype
    for t in tensors[1:]:
        dtype = torch.promote_types(dtype, t.dtype)
    return dtype


def _shape(tensors, dim):
    kept = _kept(tensors)
    if not kept:  # only 1-d empty tensors: an empty result
        return [0], 0
    d = dim % kept[0].dim()
    shape = list(kept[0].shape)
    shape[d] = sum(t.shape[d] for t in kept)
    return shape, d


def cat_out(tensors, dim=0, *, out):
    shape, d = _shape(tensors, dim)
    out.resize_(shape)
    offset = 0
    for t in _kept(tensors):
        _copy(t, out.narrow(d, offset, t.shape[d]))
        offset += t.shape[d]
    return out


def cat(tensors, dim=0):
    shape, _ = _shape(tensors, dim)
    out = torch.empty(shape, dtype=_result_dtype(list(tensors)), device=tensors[0].device)
    return cat_out(tensors, dim, out=out)
