"""MInference's vertical-slash sparse-attention index builder: `convert_vertical_slash_indexes`.

Semantics from vLLM's csrc/attention/vertical_slash_index.cu (the kernel: one thread per block row
of BLOCK_SIZE_M queries walking the row's vertical and slash lists), its `_C` schema in
csrc/torch_bindings.cpp and the Python wrapper in vllm/_custom_ops.py, which allocates the four
int32 outputs with torch.zeros (so every slot the kernel leaves alone reads 0) and returns them.
The caller (the dual-chunk flash-attention backend) passes per-head top-k verticals sorted
ascending and slash distances sorted descending, causal=True within a chunk and False across.

For block row m (start = m * M, end = start + M, live while start < q_seqlen) of head (b, h),
with base = kv - q (causal) or kv (not causal), the kernel's walk amounts to:
- Slashes: leading slashes d >= end + base are skipped (the last one is kept if all are); the
  first kept one d0 opens a range [t0 - M, t0) with t(d) = max(base + end - d, M), unless
  d0 > end + base (no slash: the range is [base + end, +N) when causal, [kv, kv + N) when not).
  Every later slash (not causal: while d >= start) in order: t > range_end + M closes the range
  and opens [t - M, t); else t > range_end widens range_end by M.
- block_offset: each closed range, clipped to kv, cut into N-wide steps from its start (range
  starts at or past kv give none), all ranges in order; block_count their number.
- column_index: the verticals outside every range, ascending, that the walk reaches: below the
  last range's end (causal) or below kv (not causal); column_count their number.
Rows past q_seqlen, and slots past the counts, are 0 (the wrapper's zeros).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass

import torch

from ..build import sample
from ..spec import Joint, Operator, Overload, Param, Sample, Size
from .family import vllm_operator

i32, i64 = torch.int32, torch.int64
BIG = 1 << 40


def _ceil_div(a: int, b: int) -> int:
    return -(-a // b)


def _seqlens(gen: torch.Generator, batch: int, low: int, high: int) -> torch.Tensor:
    return torch.randint(low, high + 1, (batch,), generator=gen, device=gen.device).to(i32)


def _sorted_subset(gen: torch.Generator, kv: torch.Tensor, heads: int, count: int, low: int,
                   descending: bool) -> torch.Tensor:
    """`count` distinct values per (sequence, head) in [low, kv[b]), sorted: the first places of a
    random order of the range (values past kv[b] sort last and are never taken)."""
    kv = kv.to(gen.device, i64)  # drawn on the device already; the small tier's generator is on the CPU
    span = int(kv.max()) if kv.numel() else 0
    keys = torch.rand(kv.numel(), heads, span, generator=gen, device=gen.device)
    values = torch.arange(span, device=gen.device)
    keys = keys.masked_fill((values < low) | (values >= kv[:, None, None]), 2.0)
    picked = keys.argsort(dim=-1)[..., :count]
    return picked.sort(dim=-1, descending=descending).values.to(i32)


@dataclass(frozen=True)
class Sparse:
    """One call: `batch` sequences of q in [q_low, context] queries (kv = q plus a prefix of at most
    `prefix` keys when causal; kv in [kv_low, kv_high] when not), `heads` heads with `nnz_v`
    verticals and `nnz_s` slashes (slash distances drawn from [slash_low, kv))."""

    batch: int
    heads: int
    context: int
    nnz_v: int
    nnz_s: int
    bm: int = 64
    bn: int = 64
    causal: bool = True
    q_low: int = 0
    prefix: int = 0
    kv_range: tuple[int, int] = (0, 0)
    slash_low: int = 0

    def q_range(self) -> tuple[int, int]:
        return (self.q_low or max(self.nnz_v, self.nnz_s, 1), self.context)

    def values(self) -> dict[str, object]:
        b, h = self.batch, self.heads
        lo, hi = self.q_range()
        q = Joint((b,), i32, (), lambda gen: _seqlens(gen, b, lo, hi), f"q_seqlens in [{lo}, {hi}]")
        if self.causal:
            kv = Joint((b,), i32, ("q_seqlens",),
                       lambda gen, qs: qs.to(gen.device) + _seqlens(gen, b, 0, self.prefix),
                       f"kv = q + [0, {self.prefix}]")
        else:
            klo, khi = self.kv_range
            kv = Joint((b,), i32, (), lambda gen: _seqlens(gen, b, klo, khi), f"kv_seqlens in [{klo}, {khi}]")
        nv, ns, low = self.nnz_v, self.nnz_s, self.slash_low
        return {
            "q_seqlens": q,
            "kv_seqlens": kv,
            "vertical_indexes": Joint((b, h, nv), i32, ("kv_seqlens",),
                                      lambda gen, k: _sorted_subset(gen, k, h, nv, 0, False),
                                      "distinct ascending columns < kv"),
            "slash_indexes": Joint((b, h, ns), i32, ("kv_seqlens",),
                                   lambda gen, k: _sorted_subset(gen, k, h, ns, low, True),
                                   f"distinct descending diagonals in [{low}, kv)"),
            "context_size": self.context,
            "block_size_M": self.bm,
            "block_size_N": self.bn,
            "causal": self.causal,
        }


# vLLM's caller always uses 64 x 64 blocks; the small tier adds other sizes with M <= N (with
# M > N the kernel can write past a row's block_offset and spin forever: not drawn).
SPARSE: dict[str, list[Sparse]] = {
    "small": [
        Sparse(1, 2, 256, 12, 10),
        Sparse(2, 3, 200, 9, 14, 16, 16, prefix=40),
        Sparse(1, 2, 130, 7, 5, 16, 32, q_low=20, prefix=70),
        Sparse(3, 1, 96, 6, 8, 8, 8, q_low=10, prefix=15),
        Sparse(2, 2, 160, 10, 6, 16, 16, prefix=30, slash_low=40),
        Sparse(1, 3, 300, 16, 20, 32, 64, prefix=200),
        Sparse(2, 2, 128, 8, 9, 16, 16, causal=False, kv_range=(20, 180)),
        Sparse(1, 2, 256, 14, 12, 64, 64, causal=False, kv_range=(100, 400), slash_low=30),
        Sparse(2, 1, 70, 5, 7, 8, 16, causal=False, q_low=1, kv_range=(10, 60)),
        Sparse(1, 1, 64, 1, 1, 16, 16, q_low=1),
    ],
    "large": [
        Sparse(1, 8, 8192, 500, 1000),
        Sparse(2, 4, 4096, 300, 700, prefix=2048),
        Sparse(1, 8, 4096, 400, 600, causal=False, kv_range=(2048, 8192)),
    ],
    "perf": [
        Sparse(1, 28, 16384, 1000, 2048, q_low=16384),
        Sparse(1, 32, 32768, 1000, 4096, q_low=32768),
        Sparse(2, 28, 8192, 500, 1024, q_low=8192, prefix=8192),
        Sparse(1, 28, 16384, 1000, 2048, causal=False, q_low=16384, kv_range=(16384, 16384)),
    ],
}


def convert_vertical_slash_indexes_reference(
        q_seqlens: torch.Tensor, kv_seqlens: torch.Tensor, vertical_indexes: torch.Tensor,
        slash_indexes: torch.Tensor, context_size: int, block_size_M: int, block_size_N: int,
        causal: bool = True) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
    # vectorised over block rows: the range merge is a scan over the slashes (one loop step per
    # slash); the blocks and the columns then follow from the closed ranges without a walk
    bm, bn = block_size_M, block_size_N
    b, h, ns = slash_indexes.shape
    nv = vertical_indexes.shape[2]
    rows = _ceil_div(context_size, bm)
    dev, dt = q_seqlens.device, q_seqlens.dtype
    r = b * h * rows
    q = q_seqlens.to(i64)[:, None, None].expand(b, h, rows).reshape(r)
    kv = kv_seqlens.to(i64)[:, None, None].expand(b, h, rows).reshape(r)
    start = (torch.arange(rows, device=dev) * bm).expand(b, h, rows).reshape(r)
    end = start + bm
    base = kv - q if causal else kv
    live = start < q
    s = slash_indexes.to(i64)[:, :, None, :].expand(b, h, rows, ns).reshape(r, ns)
    j = torch.arange(ns, device=dev)
    edge = (end + base)[:, None]
    j0 = torch.cumprod((s >= edge).to(i64), dim=1).sum(dim=1).clamp(max=ns - 1)
    d0 = s.gather(1, j0[:, None])[:, 0]
    has = d0 <= end + base
    t = torch.clamp(edge - s, min=bm)
    later = j[None, :] > j0[:, None]
    if causal:
        used = later & has[:, None]
        none_start = base + end
    else:
        stop = later & (s < start[:, None])
        jend = torch.where(stop.any(dim=1), stop.to(i64).argmax(dim=1), ns)
        used = later & (j[None, :] < jend[:, None]) & has[:, None]
        none_start = kv
    t0 = t.gather(1, j0[:, None])[:, 0]
    rs0 = torch.where(has, t0 - bm, none_start)
    cur = torch.where(has, t0, none_start + bn)
    opens = torch.zeros((r, ns), dtype=torch.bool, device=dev)
    ends = torch.empty((r, ns), dtype=i64, device=dev)
    for k in range(ns):
        tk, uk = t[:, k], used[:, k]
        new = uk & (tk > cur + bm)
        widen = uk & ~new & (tk > cur)
        cur = torch.where(new, tk, torch.where(widen, cur + bm, cur))
        opens[:, k] = new
        ends[:, k] = cur
    first = j[None, :] == j0[:, None]
    opens |= first
    rid = torch.cumsum(opens.to(i64), dim=1)  # 1.. for ranges, 0 before the first
    slot = torch.where(opens, rid, ns + 1)
    rstart = torch.full((r, ns + 2), BIG, dtype=i64, device=dev)
    rstart[:, 0] = -BIG
    rstart.scatter_(1, slot, torch.where(first, rs0[:, None], t - bm))
    rstart[:, ns + 1] = BIG
    rend = torch.full((r, ns + 2), -BIG, dtype=i64, device=dev)
    rend.scatter_reduce_(1, torch.where(rid > 0, rid, ns + 1), ends, reduce="amax")
    rend[:, ns + 1] = -BIG
    slots = torch.arange(ns + 2, device=dev)
    real = (slots[None, :] >= 1) & (slots[None, :] <= rid[:, -1:])
    clipped = torch.minimum(rend, kv[:, None])
    count = torch.where(real & (rstart < kv[:, None]), (clipped - rstart + bn - 1) // bn, 0)
    cum = torch.cumsum(count, dim=1)
    total = cum[:, -1]
    k = torch.arange(ns, device=dev).expand(r, ns).contiguous()
    owner = torch.searchsorted(cum, k, right=True).clamp(max=ns + 1)
    offs = rstart.gather(1, owner) + bn * (k - (cum - count).gather(1, owner))
    block_offset = torch.where(live[:, None] & (k < total[:, None]), offs, 0)
    v = vertical_indexes.to(i64)[:, :, None, :].expand(b, h, rows, nv).reshape(r, nv).contiguous()
    inside = torch.searchsorted(rstart, v, right=True) - 1
    covered = v < rend.gather(1, inside)
    reach = rend.gather(1, rid[:, -1:]) if causal else kv[:, None]
    emit = ~covered & (v < reach) & live[:, None]
    pos = torch.where(emit, torch.cumsum(emit.to(i64), dim=1) - 1, nv)
    column_index = torch.zeros((r, nv + 1), dtype=i64, device=dev).scatter_(1, pos, v)[:, :nv]
    shape = (b, h, rows)
    return (torch.where(live, total, 0).reshape(shape).to(dt), block_offset.reshape(shape + (ns,)).to(dt),
            emit.sum(dim=1).reshape(shape).to(dt), column_index.reshape(shape + (nv,)).to(dt))


def convert_vertical_slash_indexes_sampler(ov: Overload, size: Size) -> Iterator[Sample]:
    for c in SPARSE[size]:
        yield sample(c.values())


def convert_vertical_slash_indexes() -> Operator:
    return vllm_operator(
        "convert_vertical_slash_indexes", "attention",
        "MInference vertical-slash pattern to block-sparse indices: per query block, the key blocks its "
        "slash diagonals cover and the vertical columns left outside them.",
        params=(
            Param("q_seqlens", "Tensor"),
            Param("kv_seqlens", "Tensor"),
            Param("vertical_indexes", "Tensor"),
            Param("slash_indexes", "Tensor"),
            Param("context_size", "int"),
            Param("block_size_M", "int"),
            Param("block_size_N", "int"),
            Param("causal", "bool", has_default=True, default=True),
        ),
        signature=("convert_vertical_slash_indexes(q_seqlens: torch.Tensor, kv_seqlens: torch.Tensor, "
                   "vertical_indexes: torch.Tensor, slash_indexes: torch.Tensor, context_size: int, "
                   "block_size_M: int, block_size_N: int, causal: bool = True) -> "
                   "tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]"),
        reference=convert_vertical_slash_indexes_reference,
        sampler=convert_vertical_slash_indexes_sampler,
        ov_doc=("int32, contiguous: q_seqlens, kv_seqlens [B]; vertical_indexes [B, H, NV] (per row distinct, "
                "ascending, < kv); slash_indexes [B, H, NS] (distinct, descending, >= 0); NV, NS >= 1; "
                "block_size_M <= block_size_N; q_seqlens <= context_size. Returns (block_count [B, H, R], "
                "block_offset [B, H, R, NS], column_count [B, H, R], column_index [B, H, R, NV]), int32, "
                "R = ceil(context_size / M), zero wherever nothing is written. For block row m with "
                "start = m*M < q, end = start + M, base = kv - q (causal) or kv: skip leading slashes "
                "d >= end + base (keep the last if all are); the first kept d0 opens range "
                "[t0 - M, t0), t(d) = max(base + end - d, M), or if d0 > end + base the range is "
                "[base + end, +N) (causal) / [kv, kv + N). Each later slash (not causal: only while "
                "d >= start), in order: t > range_end + M closes the range and opens [t - M, t); else "
                "if t > range_end, range_end += M. block_offset lists each closed range, clipped to kv, "
                "as starts range_start, +N, ... below the clip (none if range_start >= kv); column_index "
                "lists the verticals in no range and below the last range's end (causal) or kv, ascending; "
                "block_count / column_count are their lengths."),
        notes=("Follows csrc/attention/vertical_slash_index.cu (convert_vertical_slash_indexes_kernel) and "
               "vllm/_custom_ops.py (outputs from torch.zeros). Inputs are drawn as vLLM's caller makes them: "
               "per-head distinct verticals below kv ascending and distinct slash distances descending "
               "(Joint draws). Not drawn: block_size_M > block_size_N (the kernel then overruns block_offset "
               "or never terminates), verticals at or past kv + N (likewise), empty index lists, and the "
               "_mergehead variant (a different op)."),
    )


OPERATORS: dict[str, Callable[[], Operator]] = {
    "convert_vertical_slash_indexes": convert_vertical_slash_indexes,
}
