"""Whether this machine's Triton interpreter can run kernels at all, asked once before a run.

Triton 3.6's interpreter turns a loop bound into a Python int with `int(array)`, which numpy 2.4
refuses for a one-element array ("only 0-dimensional arrays can be converted to Python scalars").
Every kernel looping over a runtime bound (a matmul's K loop, a row reduction) then fails, and
an honest candidate would be judged a runtime error: measured on the H200 host (numpy 2.5.2),
where the shipped `aten::mm` failed in the interpreter and passed on CUDA. The harness refuses
such an interpreter instead of judging with it.
"""

from __future__ import annotations

from functools import lru_cache

import triton.language as tl


def _loop_over_runtime_bound(x_ptr, n):
    acc = tl.load(x_ptr + tl.arange(0, 2))
    for i in range(1, n):
        acc += tl.load(x_ptr + 2 * i + tl.arange(0, 2))
    tl.store(x_ptr + tl.arange(0, 2), acc)


@lru_cache(maxsize=1)
def interpreter_problem() -> str | None:
    """Why the interpreter cannot judge candidates here, or None when it can."""
    import numpy
    import torch
    import triton
    from triton.runtime.interpreter import InterpretedFunction

    x = torch.arange(6, dtype=torch.float32)
    try:
        InterpretedFunction(_loop_over_runtime_bound)[(1,)](x, 3)
    except Exception as e:  # the interpreter's own failure, whatever its type
        cause = e.__cause__ or e
        return (f"the Triton {triton.__version__} interpreter cannot run a loop over a runtime bound with numpy "
                f"{numpy.__version__} ({type(cause).__name__}: {cause}); install numpy<2.4 "
                f"(pip install 'numpy<2.4') to judge candidates on the interpreter")
    if x[:2].tolist() != [6.0, 9.0]:
        return f"the Triton {triton.__version__} interpreter computed a wrong sum in its self-test: {x[:2].tolist()}"
    return None
