"""The real cuBLAS routines, called through ctypes on the tensors of a case: the speed baseline.

The library is the one PyTorch ships (already mapped into the process when torch loaded its CUDA
libraries, else found beside torch or in the nvidia-cublas wheel). One handle per device, in host
pointer mode and CUBLAS_DEFAULT_MATH: torch's TF32 flags do not reach a handle of our own, and
default math never lowers float32 below its own precision. Every status is checked.
"""

from __future__ import annotations

import ctypes
import glob
import os
from collections.abc import Callable
from functools import lru_cache
from typing import Any

import torch

from ..spec import Overload

STATUS_NAMES = {
    0: "CUBLAS_STATUS_SUCCESS",
    1: "CUBLAS_STATUS_NOT_INITIALIZED",
    3: "CUBLAS_STATUS_ALLOC_FAILED",
    7: "CUBLAS_STATUS_INVALID_VALUE",
    8: "CUBLAS_STATUS_ARCH_MISMATCH",
    11: "CUBLAS_STATUS_MAPPING_ERROR",
    13: "CUBLAS_STATUS_EXECUTION_FAILED",
    14: "CUBLAS_STATUS_INTERNAL_ERROR",
    15: "CUBLAS_STATUS_NOT_SUPPORTED",
    16: "CUBLAS_STATUS_LICENSE_ERROR",
}
OP_N, OP_T, OP_C = 0, 1, 2
_OP_LETTERS = {"N": OP_N, "T": OP_T, "C": OP_C}
POINTER_MODE_HOST = 0
POINTER_MODE_DEVICE = 1
DEFAULT_MATH = 0
_INT32 = (-(2**31), 2**31 - 1)

_h, _i, _p = ctypes.c_void_p, ctypes.c_int, ctypes.c_void_p
_f, _d = ctypes.POINTER(ctypes.c_float), ctypes.POINTER(ctypes.c_double)
PROTOTYPES: dict[str, tuple[Any, ...]] = {
    "cublasCreate_v2": (ctypes.POINTER(ctypes.c_void_p),),
    "cublasSetStream_v2": (_h, _p),
    "cublasSetPointerMode_v2": (_h, _i),
    "cublasSetMathMode": (_h, _i),
    "cublasGetVersion_v2": (_h, ctypes.POINTER(ctypes.c_int)),
    "cublasSaxpy_v2": (_h, _i, _f, _p, _i, _p, _i),
    "cublasSgemv_v2": (_h, _i, _i, _i, _f, _p, _i, _p, _i, _f, _p, _i),
    "cublasDgemv_v2": (_h, _i, _i, _i, _d, _p, _i, _p, _i, _d, _p, _i),
    "cublasSgemm_v2": (_h, _i, _i, _i, _i, _i, _f, _p, _i, _p, _i, _f, _p, _i),
    # level 1 (issue 13): a scalar result (dot, asum) is a device pointer, written in device pointer mode
    "cublasDaxpy_v2": (_h, _i, _d, _p, _i, _p, _i),
    "cublasDcopy_v2": (_h, _i, _p, _i, _p, _i),
    "cublasSscal_v2": (_h, _i, _f, _p, _i),
    "cublasSdot_v2": (_h, _i, _p, _i, _p, _i, _p),
    "cublasDasum_v2": (_h, _i, _p, _i, _p),
    "cublasCcopy_v2": (_h, _i, _p, _i, _p, _i),
    "cublasZswap_v2": (_h, _i, _p, _i, _p, _i),
    "cublasCdotu_v2": (_h, _i, _p, _i, _p, _i, _p),
    "cublasZdotc_v2": (_h, _i, _p, _i, _p, _i, _p),
    # real level 2 (issue 13): uplo and diag are cublasFillMode_t / cublasDiagType_t ints; gemv strides are long long
    "cublasSger_v2": (_h, _i, _i, _f, _p, _i, _p, _i, _p, _i),
    "cublasDsyr2_v2": (_h, _i, _i, _d, _p, _i, _p, _i, _p, _i),
    "cublasStrsv_v2": (_h, _i, _i, _i, _i, _p, _i, _p, _i),
    "cublasDsbmv_v2": (_h, _i, _i, _i, _d, _p, _i, _p, _i, _d, _p, _i),
    "cublasStbmv_v2": (_h, _i, _i, _i, _i, _i, _p, _i, _p, _i),
    "cublasSgemvStridedBatched": (_h, _i, _i, _i, _f, _p, _i, ctypes.c_longlong, _p, _i, ctypes.c_longlong, _f,
                                  _p, _i, ctypes.c_longlong, _i),
    "cublasDgemvStridedBatched": (_h, _i, _i, _i, _d, _p, _i, ctypes.c_longlong, _p, _i, ctypes.c_longlong, _d,
                                  _p, _i, ctypes.c_longlong, _i),
}


class CublasError(RuntimeError):
    """A cuBLAS call returned a status other than success, or could not be made."""


def _is_cublas(path: str) -> bool:
    base = os.path.basename(path)
    return base.startswith("libcublas.so") and "Lt" not in base


def _mapped() -> list[str]:
    """libcublas already loaded into this process (by torch), so both use one copy."""
    try:
        with open("/proc/self/maps", encoding="utf-8", errors="replace") as f:
            paths = {line.split()[-1] for line in f if "libcublas" in line}
    except OSError:
        return []
    return sorted(p for p in paths if p.startswith("/") and _is_cublas(p))


def _shipped() -> list[str]:
    """libcublas beside torch or in an nvidia-cublas wheel (nvidia/cu13/lib, nvidia/cublas/lib)."""
    torch_dir = os.path.dirname(torch.__file__)
    site = os.path.dirname(torch_dir)
    patterns = [
        os.path.join(torch_dir, "lib", "libcublas.so*"),
        os.path.join(site, "nvidia", "cu*", "lib", "libcublas.so*"),
        os.path.join(site, "nvidia", "cublas", "lib", "libcublas.so*"),
    ]
    found = [p for pat in patterns for p in sorted(glob.glob(pat)) if _is_cublas(p)]
    major = (torch.version.cuda or "").split(".")[0]
    return sorted(found, key=lambda p: not (major and p.endswith(f".so.{major}")))


def find_library() -> str | None:
    candidates = _mapped() + _shipped()
    return candidates[0] if candidates else None


def _check(status: int, call: str) -> None:
    if status != 0:
        name = STATUS_NAMES.get(status, "unknown status")
        raise CublasError(f"{call} returned {name} ({status})")


def _int32(name: str, v: int) -> ctypes.c_int:
    if isinstance(v, bool) or not isinstance(v, int) or not _INT32[0] <= v <= _INT32[1]:
        raise ValueError(f"{name}={v!r} is not a 32-bit int")
    return ctypes.c_int(v)


def _buffer(name: str, t: torch.Tensor, need: int, device: torch.device,
            dtype: torch.dtype = torch.float32) -> ctypes.c_void_p:
    """The device pointer of a buffer, after checking it holds what cuBLAS will touch."""
    if not isinstance(t, torch.Tensor) or t.device != device:
        raise ValueError(f"{name} must be a tensor on {device}")
    if t.dtype != dtype or t.dim() != 1 or not t.is_contiguous():
        raise ValueError(f"{name} must be a 1-D contiguous {dtype} tensor, got {t.dtype} {list(t.shape)}")
    if t.numel() < need:
        raise ValueError(f"{name} has {t.numel()} elements; the call addresses {need}")
    return ctypes.c_void_p(t.data_ptr() or None)


def vector_extent(n: int, inc: int) -> int:
    """Elements a BLAS vector of n elements with increment inc spans."""
    return 0 if n <= 0 else 1 + (n - 1) * abs(inc)


def matrix_extent(rows: int, cols: int, ld: int) -> int:
    """Elements a column-major (rows, cols) matrix with leading dimension ld addresses."""
    return 0 if rows <= 0 or cols <= 0 else ld * (cols - 1) + rows


def op_code(trans: Any) -> int:
    """The cublasOperation_t for an int (0/1/2) or a letter ('N'/'T'/'C')."""
    if isinstance(trans, str) and trans.upper() in _OP_LETTERS:
        return _OP_LETTERS[trans.upper()]
    if isinstance(trans, int) and not isinstance(trans, bool) and trans in (OP_N, OP_T, OP_C):
        return trans
    raise ValueError(f"invalid cublasOperation_t {trans!r}: use 0/1/2 or 'N'/'T'/'C'")


class Cublas:
    """One loaded libcublas: per-device handles and the routines with the candidate's signatures."""

    def __init__(self, lib: ctypes.CDLL, path: str) -> None:
        self.path = path
        self._fn: dict[str, Any] = {}
        for name, argtypes in PROTOTYPES.items():
            try:
                fn = getattr(lib, name)
            except AttributeError as e:
                raise CublasError(f"{path} has no symbol {name}") from e
            fn.argtypes = list(argtypes)
            fn.restype = ctypes.c_int
            self._fn[name] = fn
        self._handles: dict[int, ctypes.c_void_p] = {}
        self._streams: dict[int, int] = {}

    def _call(self, name: str, *args: Any) -> None:
        _check(self._fn[name](*args), name)

    def _handle(self, device: torch.device) -> ctypes.c_void_p:
        """The device's handle, created once, bound to torch's current stream on every call."""
        index = device.index if device.index is not None else torch.cuda.current_device()
        with torch.cuda.device(index):
            if index not in self._handles:
                h = ctypes.c_void_p()
                self._call("cublasCreate_v2", ctypes.byref(h))
                self._call("cublasSetPointerMode_v2", h, POINTER_MODE_HOST)
                self._call("cublasSetMathMode", h, DEFAULT_MATH)
                self._handles[index] = h
            h = self._handles[index]
            stream = torch.cuda.current_stream(index).cuda_stream
            if self._streams.get(index) != stream:
                self._call("cublasSetStream_v2", h, ctypes.c_void_p(stream or None))
                self._streams[index] = stream
        return h

    def version(self, device: torch.device) -> int:
        v = ctypes.c_int()
        self._call("cublasGetVersion_v2", self._handle(device), ctypes.byref(v))
        return v.value

    def cublasSaxpy_v2(self, n: int, alpha: float, x: torch.Tensor, incx: int,
                       y: torch.Tensor, incy: int) -> None:
        dev = y.device
        px = _buffer("x", x, vector_extent(n, incx), dev)
        py = _buffer("y", y, vector_extent(n, incy), dev)
        with torch.cuda.device(dev):
            self._call("cublasSaxpy_v2", self._handle(dev), _int32("n", n), ctypes.byref(ctypes.c_float(alpha)),
                       px, _int32("incx", incx), py, _int32("incy", incy))

    def _gemv(self, routine: str, dtype: torch.dtype, scalar: Any, trans: Any, m: int, n: int, alpha: float,
              A: torch.Tensor, lda: int, x: torch.Tensor, incx: int, beta: float, y: torch.Tensor,
              incy: int) -> None:
        op = op_code(trans)
        xlen, ylen = (n, m) if op == OP_N else (m, n)
        dev = y.device
        pa = _buffer("A", A, matrix_extent(m, n, lda), dev, dtype)
        px = _buffer("x", x, vector_extent(xlen, incx), dev, dtype)
        py = _buffer("y", y, vector_extent(ylen, incy), dev, dtype)
        with torch.cuda.device(dev):
            self._call(routine, self._handle(dev), op, _int32("m", m), _int32("n", n),
                       ctypes.byref(scalar(alpha)), pa, _int32("lda", lda), px, _int32("incx", incx),
                       ctypes.byref(scalar(beta)), py, _int32("incy", incy))

    def cublasSgemv_v2(self, trans: Any, m: int, n: int, alpha: float, A: torch.Tensor, lda: int,
                       x: torch.Tensor, incx: int, beta: float, y: torch.Tensor, incy: int) -> None:
        self._gemv("cublasSgemv_v2", torch.float32, ctypes.c_float, trans, m, n, alpha, A, lda, x, incx,
                   beta, y, incy)

    def cublasDgemv_v2(self, trans: Any, m: int, n: int, alpha: float, A: torch.Tensor, lda: int,
                       x: torch.Tensor, incx: int, beta: float, y: torch.Tensor, incy: int) -> None:
        self._gemv("cublasDgemv_v2", torch.float64, ctypes.c_double, trans, m, n, alpha, A, lda, x, incx,
                   beta, y, incy)

    def cublasSgemm_v2(self, transa: Any, transb: Any, m: int, n: int, k: int, alpha: float,
                       A: torch.Tensor, lda: int, B: torch.Tensor, ldb: int, beta: float,
                       C: torch.Tensor, ldc: int) -> None:
        opa, opb = op_code(transa), op_code(transb)
        a_rows, a_cols = (m, k) if opa == OP_N else (k, m)
        b_rows, b_cols = (k, n) if opb == OP_N else (n, k)
        dev = C.device
        pa = _buffer("A", A, matrix_extent(a_rows, a_cols, lda), dev)
        pb = _buffer("B", B, matrix_extent(b_rows, b_cols, ldb), dev)
        pc = _buffer("C", C, matrix_extent(m, n, ldc), dev)
        with torch.cuda.device(dev):
            self._call("cublasSgemm_v2", self._handle(dev), opa, opb, _int32("m", m), _int32("n", n),
                       _int32("k", k), ctypes.byref(ctypes.c_float(alpha)), pa, _int32("lda", lda),
                       pb, _int32("ldb", ldb), ctypes.byref(ctypes.c_float(beta)), pc, _int32("ldc", ldc))

    # ---- level 1 (issue 13) ----------------------------------------------------------------------
    # Complex vectors are interleaved real tensors (suite/cublas/complex.py): 2 reals per element.
    # A routine with a scalar result writes it to a device tensor: the handle is switched to
    # CUBLAS_POINTER_MODE_DEVICE for that one call (no host synchronisation) and back to host mode,
    # which every other routine of this binding expects for alpha and beta.

    def _device_result(self, routine: str, dev: torch.device, *args: Any) -> None:
        with torch.cuda.device(dev):
            h = self._handle(dev)
            self._call("cublasSetPointerMode_v2", h, POINTER_MODE_DEVICE)
            try:
                self._call(routine, h, *args)
            finally:
                self._call("cublasSetPointerMode_v2", h, POINTER_MODE_HOST)

    def cublasDaxpy_v2(self, n: int, alpha: float, x: torch.Tensor, incx: int,
                       y: torch.Tensor, incy: int) -> None:
        dev = y.device
        px = _buffer("x", x, vector_extent(n, incx), dev, torch.float64)
        py = _buffer("y", y, vector_extent(n, incy), dev, torch.float64)
        with torch.cuda.device(dev):
            self._call("cublasDaxpy_v2", self._handle(dev), _int32("n", n), ctypes.byref(ctypes.c_double(alpha)),
                       px, _int32("incx", incx), py, _int32("incy", incy))

    def _two_vectors(self, routine: str, dtype: torch.dtype, per: int, n: int, x: torch.Tensor, incx: int,
                     y: torch.Tensor, incy: int) -> None:
        """copy and swap: two vectors of `per` reals per element (2 for complex)."""
        dev = y.device
        px = _buffer("x", x, per * vector_extent(n, incx), dev, dtype)
        py = _buffer("y", y, per * vector_extent(n, incy), dev, dtype)
        with torch.cuda.device(dev):
            self._call(routine, self._handle(dev), _int32("n", n), px, _int32("incx", incx), py,
                       _int32("incy", incy))

    def cublasDcopy_v2(self, n: int, x: torch.Tensor, incx: int, y: torch.Tensor, incy: int) -> None:
        self._two_vectors("cublasDcopy_v2", torch.float64, 1, n, x, incx, y, incy)

    def cublasCcopy_v2(self, n: int, x: torch.Tensor, incx: int, y: torch.Tensor, incy: int) -> None:
        self._two_vectors("cublasCcopy_v2", torch.float32, 2, n, x, incx, y, incy)

    def cublasZswap_v2(self, n: int, x: torch.Tensor, incx: int, y: torch.Tensor, incy: int) -> None:
        self._two_vectors("cublasZswap_v2", torch.float64, 2, n, x, incx, y, incy)

    def cublasSscal_v2(self, n: int, alpha: float, x: torch.Tensor, incx: int) -> None:
        """incx <= 0 is the reference BLAS's quick return (sscal.f), which cuBLAS leaves undocumented."""
        if n <= 0 or incx <= 0:
            return
        dev = x.device
        px = _buffer("x", x, vector_extent(n, incx), dev)
        with torch.cuda.device(dev):
            self._call("cublasSscal_v2", self._handle(dev), _int32("n", n), ctypes.byref(ctypes.c_float(alpha)),
                       px, _int32("incx", incx))

    def _dot(self, routine: str, dtype: torch.dtype, per: int, n: int, x: torch.Tensor, incx: int,
             y: torch.Tensor, incy: int, result: torch.Tensor) -> None:
        dev = result.device
        px = _buffer("x", x, per * vector_extent(n, incx), dev, dtype)
        py = _buffer("y", y, per * vector_extent(n, incy), dev, dtype)
        pr = _buffer("result", result, per, dev, dtype)
        self._device_result(routine, dev, _int32("n", n), px, _int32("incx", incx), py, _int32("incy", incy), pr)

    def cublasSdot_v2(self, n: int, x: torch.Tensor, incx: int, y: torch.Tensor, incy: int,
                      result: torch.Tensor) -> None:
        self._dot("cublasSdot_v2", torch.float32, 1, n, x, incx, y, incy, result)

    def cublasCdotu_v2(self, n: int, x: torch.Tensor, incx: int, y: torch.Tensor, incy: int,
                       result: torch.Tensor) -> None:
        self._dot("cublasCdotu_v2", torch.float32, 2, n, x, incx, y, incy, result)

    def cublasZdotc_v2(self, n: int, x: torch.Tensor, incx: int, y: torch.Tensor, incy: int,
                       result: torch.Tensor) -> None:
        self._dot("cublasZdotc_v2", torch.float64, 2, n, x, incx, y, incy, result)

    def cublasDasum_v2(self, n: int, x: torch.Tensor, incx: int, result: torch.Tensor) -> None:
        dev = result.device
        px = _buffer("x", x, vector_extent(n, incx) if incx > 0 else 0, dev, torch.float64)
        pr = _buffer("result", result, 1, dev, torch.float64)
        self._device_result("cublasDasum_v2", dev, _int32("n", n), px, _int32("incx", incx), pr)

    # ---- real level 2 (issue 13) -------------------------------------------------------------------
    # Flags arrive as ints or letters (suite/cublas/level2_real.py turns them into cuBLAS's enums,
    # imported here at call time since that module imports this one). Matrices the routine only
    # reads are checked for the storage it references; a written matrix for all of it.

    def cublasSger_v2(self, m: int, n: int, alpha: float, x: torch.Tensor, incx: int, y: torch.Tensor, incy: int,
                      A: torch.Tensor, lda: int) -> None:
        dev = A.device
        px = _buffer("x", x, vector_extent(m, incx) if n > 0 else 0, dev)
        py = _buffer("y", y, vector_extent(n, incy) if m > 0 else 0, dev)
        pa = _buffer("A", A, matrix_extent(m, n, lda), dev)
        with torch.cuda.device(dev):
            self._call("cublasSger_v2", self._handle(dev), _int32("m", m), _int32("n", n),
                       ctypes.byref(ctypes.c_float(alpha)), px, _int32("incx", incx), py, _int32("incy", incy),
                       pa, _int32("lda", lda))

    def cublasDsyr2_v2(self, uplo: Any, n: int, alpha: float, x: torch.Tensor, incx: int, y: torch.Tensor,
                       incy: int, A: torch.Tensor, lda: int) -> None:
        from .level2_real import fill_code

        dev = A.device
        px = _buffer("x", x, vector_extent(n, incx), dev, torch.float64)
        py = _buffer("y", y, vector_extent(n, incy), dev, torch.float64)
        pa = _buffer("A", A, matrix_extent(n, n, lda), dev, torch.float64)
        with torch.cuda.device(dev):
            self._call("cublasDsyr2_v2", self._handle(dev), fill_code(uplo), _int32("n", n),
                       ctypes.byref(ctypes.c_double(alpha)), px, _int32("incx", incx), py, _int32("incy", incy),
                       pa, _int32("lda", lda))

    def cublasStrsv_v2(self, uplo: Any, trans: Any, diag: Any, n: int, A: torch.Tensor, lda: int, x: torch.Tensor,
                       incx: int) -> None:
        from .level2_real import diag_code, fill_code

        dev = x.device
        pa = _buffer("A", A, matrix_extent(n, n, lda), dev)
        px = _buffer("x", x, vector_extent(n, incx), dev)
        with torch.cuda.device(dev):
            self._call("cublasStrsv_v2", self._handle(dev), fill_code(uplo), op_code(trans), diag_code(diag),
                       _int32("n", n), pa, _int32("lda", lda), px, _int32("incx", incx))

    def cublasDsbmv_v2(self, uplo: Any, n: int, k: int, alpha: float, A: torch.Tensor, lda: int, x: torch.Tensor,
                       incx: int, beta: float, y: torch.Tensor, incy: int) -> None:
        from .level2_real import fill_code

        dev = y.device
        pa = _buffer("A", A, matrix_extent(k + 1, n, lda), dev, torch.float64)
        px = _buffer("x", x, vector_extent(n, incx), dev, torch.float64)
        py = _buffer("y", y, vector_extent(n, incy), dev, torch.float64)
        with torch.cuda.device(dev):
            self._call("cublasDsbmv_v2", self._handle(dev), fill_code(uplo), _int32("n", n), _int32("k", k),
                       ctypes.byref(ctypes.c_double(alpha)), pa, _int32("lda", lda), px, _int32("incx", incx),
                       ctypes.byref(ctypes.c_double(beta)), py, _int32("incy", incy))

    def cublasStbmv_v2(self, uplo: Any, trans: Any, diag: Any, n: int, k: int, A: torch.Tensor, lda: int,
                       x: torch.Tensor, incx: int) -> None:
        from .level2_real import diag_code, fill_code

        dev = x.device
        pa = _buffer("A", A, matrix_extent(k + 1, n, lda), dev)
        px = _buffer("x", x, vector_extent(n, incx), dev)
        with torch.cuda.device(dev):
            self._call("cublasStbmv_v2", self._handle(dev), fill_code(uplo), op_code(trans), diag_code(diag),
                       _int32("n", n), _int32("k", k), pa, _int32("lda", lda), px, _int32("incx", incx))

    def _gemv_batched(self, routine: str, dtype: torch.dtype, scalar: Any, trans: Any, m: int, n: int,
                      alpha: float, A: torch.Tensor, lda: int, strideA: int, x: torch.Tensor, incx: int,
                      stridex: int, beta: float, y: torch.Tensor, incy: int, stridey: int, batchCount: int) -> None:
        op = op_code(trans)
        xlen, ylen = (n, m) if op == OP_N else (m, n)
        last = max(batchCount - 1, 0)
        live = batchCount > 0 and m > 0 and n > 0

        def span(one: int, stride: int) -> int:
            return last * stride + one if live else 0

        dev = y.device
        pa = _buffer("A", A, span(matrix_extent(m, n, lda), strideA), dev, dtype)
        px = _buffer("x", x, span(vector_extent(xlen, incx), stridex), dev, dtype)
        py = _buffer("y", y, span(vector_extent(ylen, incy), stridey), dev, dtype)
        with torch.cuda.device(dev):
            self._call(routine, self._handle(dev), op, _int32("m", m), _int32("n", n),
                       ctypes.byref(scalar(alpha)), pa, _int32("lda", lda), ctypes.c_longlong(strideA), px,
                       _int32("incx", incx), ctypes.c_longlong(stridex), ctypes.byref(scalar(beta)), py,
                       _int32("incy", incy), ctypes.c_longlong(stridey), _int32("batchCount", batchCount))

    def cublasSgemvStridedBatched(self, trans: Any, m: int, n: int, alpha: float, A: torch.Tensor, lda: int,
                                  strideA: int, x: torch.Tensor, incx: int, stridex: int, beta: float,
                                  y: torch.Tensor, incy: int, stridey: int, batchCount: int) -> None:
        self._gemv_batched("cublasSgemvStridedBatched", torch.float32, ctypes.c_float, trans, m, n, alpha, A, lda,
                           strideA, x, incx, stridex, beta, y, incy, stridey, batchCount)

    def cublasDgemvStridedBatched(self, trans: Any, m: int, n: int, alpha: float, A: torch.Tensor, lda: int,
                                  strideA: int, x: torch.Tensor, incx: int, stridex: int, beta: float,
                                  y: torch.Tensor, incy: int, stridey: int, batchCount: int) -> None:
        self._gemv_batched("cublasDgemvStridedBatched", torch.float64, ctypes.c_double, trans, m, n, alpha, A, lda,
                           strideA, x, incx, stridex, beta, y, incy, stridey, batchCount)


@lru_cache(maxsize=1)
def load() -> Cublas | None:
    """The process's cuBLAS, or None without CUDA or without the library."""
    if not torch.cuda.is_available() or torch.version.cuda is None:
        return None
    torch.cuda.init()
    path = find_library()
    if path is None:
        return None
    try:
        lib = ctypes.CDLL(path)
    except OSError as e:
        raise CublasError(f"found {path} but could not load it: {e}") from e
    return Cublas(lib, path)


def baseline(device: str, ov: Overload) -> Callable[..., None] | None:
    """The routine itself for `ov` on a CUDA device; None on other devices or without libcublas."""
    if not device.startswith("cuda"):
        return None
    lib = load()
    if lib is None:
        return None
    fn = getattr(lib, ov.func_name, None)
    if fn is None:
        raise CublasError(f"no ctypes binding for {ov.func_name}")
    return fn
