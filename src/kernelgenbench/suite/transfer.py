"""Copies between a GPU and the host that hold the GPU only while the bytes cross.

On the H200 (under gVisor) a copy into pageable host memory moved about 1 GiB/s and into page-locked
memory 50 GiB/s (`benchmarks/results/transfer-probe-h200.txt`): the slow part is the host's (new pages
faulted in, the driver's own staging), yet a float64 truth paid it inside its timer's shared hold of
the device, 3.3 s a case. Here the bytes cross through one small page-locked buffer a piece at a
time, and the host's side of every piece runs inside `host_work`, where timing lets go of the device.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext

import torch

PIECE_BYTES = 64 << 20

_staging: list[torch.Tensor] = []


def _staging_buffer(host_work: Callable[[], AbstractContextManager[object]]) -> torch.Tensor:
    """The process's page-locked buffer, made once: pinning is slow there too (0.4-0.8 s a GiB), and
    torch's pinned allocator rounds every size up to a power of two and keeps what it pinned."""
    if not _staging:
        with host_work():
            _staging.append(torch.empty(PIECE_BYTES, dtype=torch.uint8, pin_memory=True))
    return _staging[0]


def copy_across(src: torch.Tensor, dtype: torch.dtype, device: torch.device | str,
                host_work: Callable[[], AbstractContextManager[object]] = nullcontext,
                piece_bytes: int = PIECE_BYTES) -> torch.Tensor:
    """A copy of the 1-D tensor `src` in `dtype` on `device`, one piece at a time, so a timer can give
    way to a waiting measurement between pieces. Between a GPU and the host each piece passes through
    the page-locked buffer; the host's memory is written or read only inside `host_work`."""
    target = torch.device(device)
    step = max(1, min(piece_bytes, PIECE_BYTES) // max(src.element_size(), dtype.itemsize))
    if {src.device.type, target.type} != {"cuda", "cpu"}:
        out = torch.empty(src.numel(), dtype=dtype, device=target)
        for start in range(0, src.numel(), step):
            out[start:start + step].copy_(src[start:start + step])
        return out
    staging = _staging_buffer(host_work)
    to_host = target.type == "cpu"
    with host_work() if to_host else nullcontext():
        out = torch.empty(src.numel(), dtype=dtype, device=target)
    for start in range(0, src.numel(), step):
        piece = src[start:start + step]
        if to_host:  # raw bytes across, then converted on the host
            stage = staging[:piece.numel() * piece.element_size()].view(piece.dtype)
            stage.copy_(piece)
            with host_work():
                out[start:start + step].copy_(stage)
        else:  # converted on the host, then raw bytes across
            stage = staging[:piece.numel() * out.element_size()].view(dtype)
            with host_work():
                stage.copy_(piece)
            out[start:start + step].copy_(stage)
    return out
