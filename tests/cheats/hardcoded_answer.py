# op: vllm::rms_norm
# expect: wrong_result
# evidence: numerical error too large
# trick 11: a constant that matches a case someone memorised; secret seeds make it wrong.
import triton
import triton.language as tl


@triton.jit
def _fill(o_ptr, n, value, BLOCK: tl.constexpr):
    i = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(o_ptr + i, tl.full([BLOCK], value, dtype=tl.float32).to(o_ptr.dtype.element_ty), mask=i < n)


def rms_norm(out, input, weight, epsilon):
    _fill[(triton.cdiv(out.numel(), 256),)](out, out.numel(), 0.7978, BLOCK=256)
