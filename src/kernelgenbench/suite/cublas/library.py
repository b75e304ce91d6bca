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


class _CComplex(ctypes.Structure):
    """cuComplex: a host complex scalar (alpha, beta) of the batched complex routines."""

    _fields_ = [("x", ctypes.c_float), ("y", ctypes.c_float)]


class _ZComplex(ctypes.Structure):
    """cuDoubleComplex."""

    _fields_ = [("x", ctypes.c_double), ("y", ctypes.c_double)]


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
    # batched through arrays of device pointers (issue 13): each array is a device int64 tensor's data_ptr
    "cublasDgemmBatched": (_h, _i, _i, _i, _i, _i, _d, _p, _i, _p, _i, _d, _p, _i, _i),
    "cublasSgemmBatched_64": (_h, _i, _i, ctypes.c_int64, ctypes.c_int64, ctypes.c_int64, _f, _p, ctypes.c_int64,
                              _p, ctypes.c_int64, _f, _p, ctypes.c_int64, ctypes.c_int64),
    "cublasHgemmBatched": (_h, _i, _i, _i, _i, _i, ctypes.POINTER(ctypes.c_uint16), _p, _i, _p, _i,
                           ctypes.POINTER(ctypes.c_uint16), _p, _i, _i),
    "cublasSgemvBatched": (_h, _i, _i, _i, _f, _p, _i, _p, _i, _f, _p, _i, _i),
    "cublasDgemvBatched": (_h, _i, _i, _i, _d, _p, _i, _p, _i, _d, _p, _i, _i),
    "cublasDtrsmBatched": (_h, _i, _i, _i, _i, _i, _i, _d, _p, _i, _p, _i, _i),
    "cublasZgemmBatched": (_h, _i, _i, _i, _i, _i, ctypes.POINTER(_ZComplex), _p, _i, _p, _i,
                           ctypes.POINTER(_ZComplex), _p, _i, _i),
    "cublasZgemvBatched": (_h, _i, _i, _i, ctypes.POINTER(_ZComplex), _p, _i, _p, _i, ctypes.POINTER(_ZComplex),
                           _p, _i, _i),
    "cublasCgemvBatched_64": (_h, _i, ctypes.c_int64, ctypes.c_int64, ctypes.POINTER(_CComplex), _p, ctypes.c_int64,
                              _p, ctypes.c_int64, ctypes.POINTER(_CComplex), _p, ctypes.c_int64, ctypes.c_int64),
    "cublasZtrsmBatched": (_h, _i, _i, _i, _i, _i, _i, ctypes.POINTER(_ZComplex), _p, _i, _p, _i, _i),
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


    # ---- batched through arrays of device pointers (issue 13) -----------------------------------------
    # An array is a 1-D int64 device tensor of addresses; its own extent is checked (batchCount
    # entries), the matrices behind it cannot be without reading it back, which the timed call must not.

    def _batched(self, routine: str, dev: torch.device, *args: Any) -> None:
        with torch.cuda.device(dev):
            self._call(routine, self._handle(dev), *args)

    def _gemm_batched(self, routine: str, size: Callable[[str, int], Any], scalar: Callable[[float], Any],
                      transa: Any, transb: Any, m: int, n: int, k: int, alpha: float, Aarray: torch.Tensor,
                      lda: int, Barray: torch.Tensor, ldb: int, beta: float, Carray: torch.Tensor, ldc: int,
                      batchCount: int) -> None:
        dev = Carray.device
        arrays = [_buffer(name, t, batchCount, dev, torch.int64)
                  for name, t in (("Aarray", Aarray), ("Barray", Barray), ("Carray", Carray))]
        self._batched(routine, dev, op_code(transa), op_code(transb), size("m", m), size("n", n), size("k", k),
                      ctypes.byref(scalar(alpha)), arrays[0], size("lda", lda), arrays[1], size("ldb", ldb),
                      ctypes.byref(scalar(beta)), arrays[2], size("ldc", ldc), size("batchCount", batchCount))

    def cublasDgemmBatched(self, transa: Any, transb: Any, m: int, n: int, k: int, alpha: float,
                           Aarray: torch.Tensor, lda: int, Barray: torch.Tensor, ldb: int, beta: float,
                           Carray: torch.Tensor, ldc: int, batchCount: int) -> None:
        self._gemm_batched("cublasDgemmBatched", _int32, ctypes.c_double, transa, transb, m, n, k, alpha, Aarray,
                           lda, Barray, ldb, beta, Carray, ldc, batchCount)

    def cublasSgemmBatched_64(self, transa: Any, transb: Any, m: int, n: int, k: int, alpha: float,
                              Aarray: torch.Tensor, lda: int, Barray: torch.Tensor, ldb: int, beta: float,
                              Carray: torch.Tensor, ldc: int, batchCount: int) -> None:
        self._gemm_batched("cublasSgemmBatched_64", _int64, ctypes.c_float, transa, transb, m, n, k, alpha,
                           Aarray, lda, Barray, ldb, beta, Carray, ldc, batchCount)

    def cublasHgemmBatched(self, transa: Any, transb: Any, m: int, n: int, k: int, alpha: float,
                           Aarray: torch.Tensor, lda: int, Barray: torch.Tensor, ldb: int, beta: float,
                           Carray: torch.Tensor, ldc: int, batchCount: int) -> None:
        self._gemm_batched("cublasHgemmBatched", _int32, _half, transa, transb, m, n, k, alpha, Aarray, lda,
                           Barray, ldb, beta, Carray, ldc, batchCount)

    def _gemv_batched(self, routine: str, scalar: Callable[[float], Any], trans: Any, m: int, n: int,
                      alpha: float, Aarray: torch.Tensor, lda: int, xarray: torch.Tensor, incx: int, beta: float,
                      yarray: torch.Tensor, incy: int, batchCount: int) -> None:
        dev = yarray.device
        arrays = [_buffer(name, t, batchCount, dev, torch.int64)
                  for name, t in (("Aarray", Aarray), ("xarray", xarray), ("yarray", yarray))]
        self._batched(routine, dev, op_code(trans), _int32("m", m), _int32("n", n), ctypes.byref(scalar(alpha)),
                      arrays[0], _int32("lda", lda), arrays[1], _int32("incx", incx), ctypes.byref(scalar(beta)),
                      arrays[2], _int32("incy", incy), _int32("batchCount", batchCount))

    def cublasSgemvBatched(self, trans: Any, m: int, n: int, alpha: float, Aarray: torch.Tensor, lda: int,
                           xarray: torch.Tensor, incx: int, beta: float, yarray: torch.Tensor, incy: int,
                           batchCount: int) -> None:
        self._gemv_batched("cublasSgemvBatched", ctypes.c_float, trans, m, n, alpha, Aarray, lda, xarray, incx,
                           beta, yarray, incy, batchCount)

    def cublasDgemvBatched(self, trans: Any, m: int, n: int, alpha: float, Aarray: torch.Tensor, lda: int,
                           xarray: torch.Tensor, incx: int, beta: float, yarray: torch.Tensor, incy: int,
                           batchCount: int) -> None:
        self._gemv_batched("cublasDgemvBatched", ctypes.c_double, trans, m, n, alpha, Aarray, lda, xarray, incx,
                           beta, yarray, incy, batchCount)

    def cublasDtrsmBatched(self, side: Any, uplo: Any, trans: Any, diag: Any, m: int, n: int, alpha: float,
                           Aarray: torch.Tensor, lda: int, Barray: torch.Tensor, ldb: int, batchCount: int) -> None:
        dev = Barray.device
        pa = _buffer("Aarray", Aarray, batchCount, dev, torch.int64)
        pb = _buffer("Barray", Barray, batchCount, dev, torch.int64)
        self._batched("cublasDtrsmBatched", dev, side_code(side), fill_code(uplo), op_code(trans), diag_code(diag),
                      _int32("m", m), _int32("n", n), ctypes.byref(ctypes.c_double(alpha)), pa, _int32("lda", lda),
                      pb, _int32("ldb", ldb), _int32("batchCount", batchCount))

    def _complex_arrays(self, dev: torch.device, batchCount: int, **arrays: torch.Tensor) -> list[ctypes.c_void_p]:
        return [_buffer(name, t, batchCount, dev, torch.int64) for name, t in arrays.items()]

    def cublasZgemmBatched(self, transa: Any, transb: Any, m: int, n: int, k: int, alpha: complex,
                           Aarray: torch.Tensor, lda: int, Barray: torch.Tensor, ldb: int, beta: complex,
                           Carray: torch.Tensor, ldc: int, batchCount: int) -> None:
        dev = Carray.device
        pa, pb, pc = self._complex_arrays(dev, batchCount, Aarray=Aarray, Barray=Barray, Carray=Carray)
        a, b = complex(alpha), complex(beta)
        self._batched("cublasZgemmBatched", dev, op_code(transa), op_code(transb), _int32("m", m), _int32("n", n),
                      _int32("k", k), ctypes.byref(_ZComplex(a.real, a.imag)), pa, _int32("lda", lda), pb,
                      _int32("ldb", ldb), ctypes.byref(_ZComplex(b.real, b.imag)), pc, _int32("ldc", ldc),
                      _int32("batchCount", batchCount))

    def cublasZgemvBatched(self, trans: Any, m: int, n: int, alpha: complex, Aarray: torch.Tensor, lda: int,
                           xarray: torch.Tensor, incx: int, beta: complex, yarray: torch.Tensor, incy: int,
                           batchCount: int) -> None:
        dev = yarray.device
        pa, px, py = self._complex_arrays(dev, batchCount, Aarray=Aarray, xarray=xarray, yarray=yarray)
        a, b = complex(alpha), complex(beta)
        self._batched("cublasZgemvBatched", dev, op_code(trans), _int32("m", m), _int32("n", n),
                      ctypes.byref(_ZComplex(a.real, a.imag)), pa, _int32("lda", lda), px, _int32("incx", incx),
                      ctypes.byref(_ZComplex(b.real, b.imag)), py, _int32("incy", incy),
                      _int32("batchCount", batchCount))

    def cublasCgemvBatched_64(self, trans: Any, m: int, n: int, alpha: complex, Aarray: torch.Tensor, lda: int,
                              xarray: torch.Tensor, incx: int, beta: complex, yarray: torch.Tensor, incy: int,
                              batchCount: int) -> None:
        dev = yarray.device
        pa, px, py = self._complex_arrays(dev, batchCount, Aarray=Aarray, xarray=xarray, yarray=yarray)
        a, b = complex(alpha), complex(beta)
        self._batched("cublasCgemvBatched_64", dev, op_code(trans), _int64("m", m), _int64("n", n),
                      ctypes.byref(_CComplex(a.real, a.imag)), pa, _int64("lda", lda), px, _int64("incx", incx),
                      ctypes.byref(_CComplex(b.real, b.imag)), py, _int64("incy", incy),
                      _int64("batchCount", batchCount))

    def cublasZtrsmBatched(self, side: Any, uplo: Any, trans: Any, diag: Any, m: int, n: int, alpha: complex,
                           Aarray: torch.Tensor, lda: int, Barray: torch.Tensor, ldb: int, batchCount: int) -> None:
        dev = Barray.device
        pa, pb = self._complex_arrays(dev, batchCount, Aarray=Aarray, Barray=Barray)
        a = complex(alpha)
        self._batched("cublasZtrsmBatched", dev, side_code(side), fill_code(uplo), op_code(trans), diag_code(diag),
                      _int32("m", m), _int32("n", n), ctypes.byref(_ZComplex(a.real, a.imag)), pa,
                      _int32("lda", lda), pb, _int32("ldb", ldb), _int32("batchCount", batchCount))


def _int64(name: str, v: int) -> ctypes.c_int64:
    if isinstance(v, bool) or not isinstance(v, int) or not -(2**63) <= v < 2**63:
        raise ValueError(f"{name}={v!r} is not a 64-bit int")
    return ctypes.c_int64(v)


def _half(v: float) -> ctypes.c_uint16:
    """A host __half scalar: the float16 bit pattern of v."""
    return ctypes.c_uint16(int(torch.tensor(v, dtype=torch.float16).view(torch.int16).item()) & 0xFFFF)


def _code(v: Any, letters: str, what: str) -> int:
    """An enum given as its int or its letter (letters[i] is value i)."""
    if isinstance(v, str) and len(v) == 1 and v.upper() in letters:
        return letters.index(v.upper())
    if isinstance(v, int) and not isinstance(v, bool) and 0 <= v < len(letters):
        return v
    raise ValueError(f"invalid {what} {v!r}: use {list(range(len(letters)))} or {list(letters)}")


def side_code(v: Any) -> int:
    return _code(v, "LR", "cublasSideMode_t")


def fill_code(v: Any) -> int:
    return _code(v, "LU", "cublasFillMode_t")


def diag_code(v: Any) -> int:
    return _code(v, "NU", "cublasDiagType_t")


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
