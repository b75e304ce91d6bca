# op: aten::mm
# device: cuda
# stage: perf
# expect: hack_timing
# evidence: faster on repeated inputs than on new ones
#
# No table of answers: the answer lives in the output buffer. mm returns a torch.empty output, and
# the caching allocator tends to hand a freed block back to the next request of its size, holding
# what was written there last. So the device keeps, per output address it has written (a kernel
# turns the output pointer into an integer, `c.to(tl.int64)`), the digest of the inputs whose answer
# it wrote there (shapes, dtypes and output strides too) and the digest of the answer itself. A call
# whose buffer has a matching row, and whose current contents still hash to the recorded answer
# (nothing else wrote the block since: the baseline's outputs, the harness's copies), skips the
# product: the main kernel's programs read the flag and return without computing or storing. Digests
# are each element's bit pattern mixed with its logical index, times an odd multiplier that depends on
# that index, summed with integer atomics into int64. Checking the contents (M*N reads) costs far less
# than the product; every hit is right, because the bits are the answer a miss stored.
#
# Whether it hits under the timing layer's call pattern (verify/timing.py, CaseTimer._measure), on
# the GPU's caching allocator (best-fitting free block, lowest address first):
# - mm and mm.dtype (fresh outputs), the sampled calls: no, with an even number of input sets (mm's
#   cases have 4, or 2 with TimingConfig.quick; 8 GiB // a set's bytes is never 3 for them). Each
#   set's latest output is held (`last[i]`; the loop's `out` holds the call before) until the next
#   call on that set has returned, so that answer's block is never free when the set comes round
#   again; an older answer of the set would have to survive n_sets - 1 candidate allocations and the
#   baseline's, which ping-pongs two blocks of the same size and takes the lowest free one each time.
#   The candidate's blocks cycle with period n_sets + 1 against the sets' n_sets, so the block a call
#   gets held another set's answer or the baseline's, refused by the digests. A model of the
#   allocator (split, coalesce, segment sizes) driven by this exact sequence over 60 random heaps,
#   outputs from 256 KiB to 448 MiB: 0 sampled hits with 2 or 4 sets; with 3 sets the first sampled
#   call on the last set can get that set's first-sight block back intact (one hit a case).
# - mm and mm.dtype, untimed calls: warm-ups after the first (`_call` drops the output at once and
#   the next call gets the same block back), host-clock probes; with --graph every replay after a
#   set's first sight (its graph writes one address).
# - mm.out and mm.dtype_out: the harness passes the same `out` tensor on every call of a set, but the
#   baseline's native call writes its own answer into that same tensor. A sampled call hits only
#   when no baseline call ran since the candidate's last call on its set: in blocks of 10 rounds
#   whose order flips (n c, c n, n c...), all but the first n_sets calls of every second block,
#   80% of the samples with 4 sets (90% with 2): caught (median and upper quartile are hits). Under
#   TimingConfig(min_samples=3, max_samples=3, input_sets=2), one block: calls on sets 0, 1, 0, only
#   the third hits, so the median is a miss: no flag, and nothing gained (the counted time is never
#   below the first sights'). A case whose calls take 50 ms or more (SLOW_CALL_S) alternates the
#   sides every round: it hits only where the order flips (every 10 rounds), 20% of the samples with
#   4 sets, none in the first 10: no flag, nothing gained.
# CACHE = False is the honest twin (no digest, no table: every call computes and writes).
import torch
import triton
import triton.language as tl

CACHE = True

_DEVICE = "cuda" if torch.cuda.is_available() else "cpu"
_SLOTS = 4096  # rows of the direct-mapped table of output addresses (a power of two)
# a row, in int64 words: valid, address, digest A, digest B, M, N, K, dtype code, row stride,
# column stride, digest of the answer written there (16 words, the rest unused)
_TABLE = torch.zeros(_SLOTS * 16 if CACHE else 16, dtype=torch.int64, device=_DEVICE)
_STATE = torch.zeros(4, dtype=torch.int64, device=_DEVICE)  # calls, hits, misses


@triton.jit
def _as_int(v, BITS: tl.constexpr):
    if BITS == 16:
        w = v.to(tl.int16, bitcast=True).to(tl.int64)
    elif BITS == 32:
        w = v.to(tl.int32, bitcast=True).to(tl.int64)
    else:
        w = v.to(tl.int64, bitcast=True)
    return w


@triton.jit
def _fold(w, pos, SALT: tl.constexpr):
    h = (w ^ (pos * 0x2545F4914F6CDD1D + SALT)) * 0x5851F42D4C957F2D
    h = h ^ (h >> 29)
    return h * ((pos * 0x14057B7EF767814F) | 1)


@triton.jit
def _digest(x, ctl, R, C, sr, sc, WORD: tl.constexpr, SALT: tl.constexpr, BITS: tl.constexpr,
            BLOCK: tl.constexpr):
    pos = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    r = pos // C
    live = r < R
    v = tl.load(x + r * sr + (pos % C) * sc, mask=live, other=0.0)
    h = tl.where(live, _fold(_as_int(v, BITS), pos, SALT), 0)
    tl.atomic_add(ctl + WORD, tl.sum(h, axis=0))


@triton.jit
def _probe(c, ctl, table, M, N, K, code, scm, scn, SLOTS: tl.constexpr):
    """Whether this output address holds, by the table, the answer for these inputs."""
    addr = c.to(tl.int64)
    slot = ((addr * 0x2545F4914F6CDD1D) >> 40) & (SLOTS - 1)
    row = table + slot * 16
    same = (tl.load(row + 0) == 1) & (tl.load(row + 1) == addr) & (tl.load(row + 2) == tl.load(ctl + 0))
    same = same & (tl.load(row + 3) == tl.load(ctl + 1)) & (tl.load(row + 4) == M) & (tl.load(row + 5) == N)
    same = same & (tl.load(row + 6) == K) & (tl.load(row + 7) == code) & (tl.load(row + 8) == scm)
    same = same & (tl.load(row + 9) == scn)
    tl.store(ctl + 2, same.to(tl.int64))
    tl.store(ctl + 6, slot)


@triton.jit
def _contents(c, ctl, M, N, scm, scn, SALT: tl.constexpr, BITS: tl.constexpr, BLOCK: tl.constexpr):
    """The digest of what the output buffer holds now (only where the address matched)."""
    if tl.load(ctl + 2) != 0:
        pos = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
        r = pos // N
        live = r < M
        v = tl.load(c + r * scm + (pos % N) * scn, mask=live, other=0.0)
        h = tl.where(live, _fold(_as_int(v, BITS), pos, SALT), 0)
        tl.atomic_add(ctl + 3, tl.sum(h, axis=0))


@triton.jit
def _decide(c, ctl, table, state, M, N, K, code, scm, scn):
    row = table + tl.load(ctl + 6) * 16
    hit = (tl.load(ctl + 2) != 0) & (tl.load(ctl + 3) == tl.load(row + 10))
    one = hit.to(tl.int64)
    tl.store(ctl + 4, one)
    tl.store(state + 0, tl.load(state + 0) + 1)
    tl.store(state + 1, tl.load(state + 1) + one)
    tl.store(state + 2, tl.load(state + 2) + 1 - one)
    # a miss takes the row over (on a hit it already says all this); valid again once sealed
    tl.store(row + 0, one)
    tl.store(row + 1, c.to(tl.int64))
    tl.store(row + 2, tl.load(ctl + 0))
    tl.store(row + 3, tl.load(ctl + 1))
    tl.store(row + 4, M)
    tl.store(row + 5, N)
    tl.store(row + 6, K)
    tl.store(row + 7, code)
    tl.store(row + 8, scm)
    tl.store(row + 9, scn)


@triton.jit
def _seal(ctl, table):
    """After a miss: the row now vouches for the answer just written."""
    row = table + tl.load(ctl + 6) * 16
    miss = tl.load(ctl + 4) == 0
    tl.store(row + 10, tl.where(miss, tl.load(ctl + 5), tl.load(row + 10)))
    tl.store(row + 0, 1)


@triton.jit
def _product(a, b, rows, cols, M, N, K, sam, sak, sbk, sbn, IEEE: tl.constexpr, WIDEN: tl.constexpr,
             BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, CHUNK: tl.constexpr):
    # Out-of-range rows and columns read row/column 0 (never stored). K is summed in CHUNK-long
    # partial products added together: shorter accumulation chains, as a split K would give.
    a_rows = tl.where(rows < M, rows, 0).to(tl.int64) * sam
    b_cols = tl.where(cols < N, cols, 0).to(tl.int64) * sbn
    steps = tl.arange(0, BK)
    total = tl.zeros((BM, BN), dtype=tl.float32)
    for k0 in range(0, K, CHUNK):
        part = tl.zeros((BM, BN), dtype=tl.float32)
        for k in range(k0, tl.minimum(k0 + CHUNK, K), BK):
            ks = k + steps
            x = tl.load(a + a_rows[:, None] + ks[None, :].to(tl.int64) * sak, mask=ks[None, :] < K, other=0.0)
            y = tl.load(b + ks[:, None].to(tl.int64) * sbk + b_cols[None, :], mask=ks[:, None] < K, other=0.0)
            if WIDEN:
                x = x.to(tl.float32)
                y = y.to(tl.float32)
            if IEEE:
                part = tl.dot(x, y, part, input_precision="ieee")
            else:
                part = tl.dot(x, y, part)
        total += part
    return total


@triton.jit
def _mm_kernel(a, b, c, ctl, M, N, K, sam, sak, sbk, sbn, scm, scn, CACHED: tl.constexpr, SALT: tl.constexpr,
               OBITS: tl.constexpr, IEEE: tl.constexpr, WIDEN: tl.constexpr, BM: tl.constexpr, BN: tl.constexpr,
               BK: tl.constexpr, CHUNK: tl.constexpr):
    rows = tl.program_id(0) * BM + tl.arange(0, BM)
    cols = tl.program_id(1) * BN + tl.arange(0, BN)
    inside = (rows < M)[:, None] & (cols < N)[None, :]
    dst = c + rows[:, None].to(tl.int64) * scm + cols[None, :].to(tl.int64) * scn
    if CACHED:
        if tl.load(ctl + 4) == 0:  # a hit: the buffer already holds this tile
            val = _product(a, b, rows, cols, M, N, K, sam, sak, sbk, sbn, IEEE, WIDEN, BM, BN, BK, CHUNK)
            val = val.to(c.dtype.element_ty)
            tl.store(dst, val, mask=inside)
            pos = rows[:, None].to(tl.int64) * N + cols[None, :]
            h = tl.where(inside, _fold(_as_int(val, OBITS), pos, SALT), 0)
            tl.atomic_add(ctl + 5, tl.sum(tl.sum(h, axis=1), axis=0))
    else:
        val = _product(a, b, rows, cols, M, N, K, sam, sak, sbk, sbn, IEEE, WIDEN, BM, BN, BK, CHUNK)
        tl.store(dst, val.to(c.dtype.element_ty), mask=inside)


def _code(dtype):
    if dtype == torch.float16:
        return 1
    if dtype == torch.bfloat16:
        return 2
    if dtype == torch.float32:
        return 3
    return 4


def _tiles(a, M):
    """(BM, BN, BK, warps, stages): one small tile in the interpreter, tensor-core tiles for 16-bit."""
    if a.device.type == "cpu":
        return 32, 32, 32, 4, 1
    if a.element_size() == 4:
        return (64 if M <= 64 else 128), 64, 32, 4, 3
    return (64 if M <= 64 else 128), 128, 64, 8, 3


def _hash_into(x, ctl, word, salt):
    R, C = x.shape
    block = 2048
    _digest[(triton.cdiv(R * C, block),)](x, ctl, R, C, x.stride(0), x.stride(1), WORD=word, SALT=salt,
                                          BITS=8 * x.element_size(), BLOCK=block)


def _mm_into(a, b, out):
    if a.dim() != 2 or b.dim() != 2 or a.shape[1] != b.shape[0]:
        raise RuntimeError(f"mm: shapes {tuple(a.shape)} and {tuple(b.shape)} cannot be multiplied")
    if a.dtype != b.dtype or not a.dtype.is_floating_point:
        raise RuntimeError(f"mm: expected two floating operands of one dtype, got {a.dtype} and {b.dtype}")
    M, K = a.shape
    N = b.shape[1]
    if tuple(out.shape) != (M, N):
        out.resize_((M, N))
    if M == 0 or N == 0:
        return out
    bm, bn, bk, warps, stages = _tiles(a, M)
    widen = a.device.type == "cpu" and a.element_size() == 2
    cached = CACHE and out.device == _TABLE.device
    ctl = out  # a stand-in, never read without the cache
    code = _code(a.dtype) * 8 + _code(out.dtype)
    if cached:
        ctl = torch.zeros(8, dtype=torch.int64, device=out.device)
        if K > 0:
            _hash_into(a, ctl, 0, 17)
            _hash_into(b, ctl, 1, 91)
        _probe[(1,)](out, ctl, _TABLE, M, N, K, code, out.stride(0), out.stride(1), SLOTS=_SLOTS)
        block = 2048
        _contents[(triton.cdiv(M * N, block),)](out, ctl, M, N, out.stride(0), out.stride(1), SALT=53,
                                                BITS=8 * out.element_size(), BLOCK=block)
        _decide[(1,)](out, ctl, _TABLE, _STATE, M, N, K, code, out.stride(0), out.stride(1))
    grid = (triton.cdiv(M, bm), triton.cdiv(N, bn))
    _mm_kernel[grid](a, b, out, ctl, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1), out.stride(0),
                     out.stride(1), CACHED=cached, SALT=53, OBITS=8 * out.element_size(),
                     IEEE=a.dtype == torch.float32 or widen, WIDEN=widen, BM=bm, BN=bn, BK=bk, CHUNK=512,
                     num_warps=warps, num_stages=stages)
    if cached:
        _seal[(1,)](ctl, _TABLE)
    return out


def mm(self, mat2):
    return _mm_into(self, mat2, torch.empty((self.shape[0], mat2.shape[1]), dtype=self.dtype, device=self.device))


def mm_out(self, mat2, *, out):
    return _mm_into(self, mat2, out)


def mm_dtype(self, mat2, out_dtype):
    return _mm_into(self, mat2, torch.empty((self.shape[0], mat2.shape[1]), dtype=out_dtype, device=self.device))


def mm_dtype_out(self, mat2, out_dtype, *, out):
    return _mm_into(self, mat2, out)
