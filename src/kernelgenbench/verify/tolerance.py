"""The sound tolerance: error relative to the native implementation's own error in the same dtype.

The loose rule `atol = 1e-4 * reduce_dim` lets an all-zeros softmax or mean pass; here an output
must be about as close to the float64 truth as the library's own result is, so zeros, constants,
copies of inputs and precision downgrades fail while a different summation order passes.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

from ..suite.spec import Tolerance
from .verdict import ErrorFigures


@dataclass(frozen=True)
class Comparison:
    ok: bool
    reason: str
    figures: ErrorFigures | None = None


def _as_real(t: torch.Tensor, device: torch.device) -> torch.Tensor:
    """Float64 values on `device`."""
    t = t.detach().to(device)
    if t.is_complex():
        return torch.view_as_real(t.to(torch.complex128)).flatten()
    return t.to(torch.float64).flatten()


def _first_index(mask: torch.Tensor, shape: torch.Size) -> str:
    flat = int(mask.nonzero()[0, 0])
    idx = []
    for dim in reversed(shape):
        idx.append(flat % dim if dim else 0)
        flat //= dim if dim else 1
    return str(tuple(reversed(idx)))


def _exact(out: torch.Tensor, ref: torch.Tensor) -> Comparison:
    o, r = out.detach(), ref.to(device=out.device, dtype=out.dtype)
    if torch.equal(o, r):
        return Comparison(True, "")
    bad = o != r
    where = _first_index(bad.reshape(-1), torch.Size([bad.numel()]))
    return Comparison(False, f"{int(bad.sum())} of {bad.numel()} values differ (first at flat index {where}); "
                             f"this output must match exactly")


def _rms(t: torch.Tensor) -> torch.Tensor:
    """On the device, in one pass without a temporary."""
    return torch.linalg.vector_norm(t) / t.numel() ** 0.5


def compare(out: torch.Tensor, ref: torch.Tensor, native: torch.Tensor, tol: Tolerance,
            scale: torch.Tensor | None = None) -> Comparison:
    """Judge one output tensor (shape and dtype already checked) against the float64 reference.

    `scale` (the reference on |inputs|) adds the accumulation's roundoff to the floor when given."""
    if out.numel() == 0:
        return Comparison(True, "")
    floating = out.dtype.is_floating_point or out.dtype.is_complex
    if not floating:
        return _exact(out, ref)
    # On the GPU when the output is there, though a float64 truth comes from the CPU: a GPU compares
    # gigabytes in milliseconds, the host took 36 s per 134M-element float64 case on the H200.
    where = out.device if out.device.type != "cpu" else ref.device
    c, r, n = _as_real(out, where), _as_real(ref, where), _as_real(native, where)
    c_bad, n_bad = ~torch.isfinite(c), ~torch.isfinite(n)
    if bool((c_bad | n_bad).any()):  # rare: the common, all-finite case skips the element-wise match
        mismatch = (c_bad != n_bad) | (n_bad & ~((c == n) | (c.isnan() & n.isnan())))
        if bool(mismatch.any()):
            i = int(mismatch.nonzero()[0, 0])
            return Comparison(False, f"non-finite values differ from the native op: {int(mismatch.sum())} "
                                     f"positions (first: flat {i}, got {c[i].item()}, native {n[i].item()})")
    s = None if scale is None else _as_real(scale, where).abs()
    keep = ~n_bad & torch.isfinite(r)
    if s is not None:
        keep &= torch.isfinite(s)
    # Only where something is left out are the elements gathered (a copy of each operand, and a sync
    # for the count): the checks of the timing phase hold the GPU, so their passes over gigabytes
    # are the measurements' waits.
    if not bool(keep.all()):
        if not bool(keep.any()):
            return Comparison(True, "")
        c, r, n = c[keep], r[keep], n[keep]
        s = None if s is None else s[keep]
    err, nat = (c - r).abs(), (n - r).abs()
    real = out.dtype.to_real() if out.dtype.is_complex else out.dtype
    eps = torch.finfo(real).eps
    # terms accumulate in float32 at least (float64 for float64 outputs), as ATen does
    eps_acc = max(torch.finfo(torch.float64 if real == torch.float64 else torch.float32).eps, tol.acc_eps)
    # every figure in one transfer (one wait for the device, not one per figure)
    zero = r.new_zeros(())
    r_max, r_rms, nat_max_raw, nat_rms_raw, err_max, err_rms, s_max, s_rms = torch.stack([
        r.abs().max(), _rms(r), nat.max(), _rms(nat), err.max(), _rms(err),
        zero if s is None else s.max(), zero if s is None else _rms(s)]).tolist()
    # The native error of a few elements is a sample, not the library's accuracy (one lucky value
    # can be nearly exact): it is never credited below correct rounding, half an ulp at most and
    # ulp/sqrt(12) in RMS.
    nat_max = max(nat_max_raw, 0.5 * eps * r_max)
    nat_rms = max(nat_rms_raw, eps * r_rms / 12 ** 0.5)
    max_tol = tol.k_max * nat_max + tol.floor_ulps * (eps * r_max + eps_acc * s_max)
    # One element at the max bound and the rest exact has an RMS of max_tol / sqrt(n): the RMS bound
    # never refuses that, so it cannot be stricter than the max bound on a few elements (a 0-d logit,
    # 1.06e-07 off with 1.78e-07 allowed, failed an RMS bound of 1.05e-07 on the H200).
    rms_tol = max(tol.k_rms * nat_rms + tol.floor_ulps * (eps * r_rms + eps_acc * s_rms),
                  max_tol / r.numel() ** 0.5)
    figures = ErrorFigures(max_err=err_max, rms_err=err_rms, max_tol=max_tol, rms_tol=rms_tol,
                           native_max_err=nat_max_raw, native_rms_err=nat_rms_raw)
    if figures.ratio <= 1.0:
        return Comparison(True, "", figures)
    return Comparison(False, f"numerical error too large: {figures.describe()}", figures)
