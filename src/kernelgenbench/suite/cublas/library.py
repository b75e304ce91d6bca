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
import struct
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


class CuComplex(ctypes.Structure):
    """cuComplex (float2): the real and imaginary parts of a single-precision complex scalar."""

    _fields_ = [("x", ctypes.c_float), ("y", ctypes.c_float)]


class CuDoubleComplex(ctypes.Structure):
    """cuDoubleComplex (double2)."""

    _fields_ = [("x", ctypes.c_double), ("y", ctypes.c_double)]


_f, _d = ctypes.POINTER(ctypes.c_float), ctypes.POINTER(ctypes.c_double)
_cp, _zp = ctypes.POINTER(CuComplex), ctypes.POINTER(CuDoubleComplex)
_ll = ctypes.c_longlong
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
    # level 3 real/half and extensions (issue 13): strides are long long; the _64 routine takes int64 sizes
    "cublasSgeam": (_h, _i, _i, _i, _i, _f, _p, _i, _f, _p, _i, _p, _i),
    "cublasSdgmm": (_h, _i, _i, _i, _p, _i, _p, _i, _p, _i),
    "cublasSsyrk_v2": (_h, _i, _i, _i, _i, _f, _p, _i, _f, _p, _i),
    "cublasStrsm_v2": (_h, _i, _i, _i, _i, _i, _i, _f, _p, _i, _p, _i),
    "cublasSgemmStridedBatched": (_h, _i, _i, _i, _i, _i, _f, _p, _i, ctypes.c_longlong, _p, _i, ctypes.c_longlong,
                                  _f, _p, _i, ctypes.c_longlong, _i),
    "cublasDgemmStridedBatched": (_h, _i, _i, _i, _i, _i, _d, _p, _i, ctypes.c_longlong, _p, _i, ctypes.c_longlong,
                                  _d, _p, _i, ctypes.c_longlong, _i),
    "cublasDgemmStridedBatched_64": (_h, _i, _i, ctypes.c_int64, ctypes.c_int64, ctypes.c_int64, _d, _p,
                                     ctypes.c_int64, ctypes.c_longlong, _p, ctypes.c_int64, ctypes.c_longlong, _d, _p,
                                     ctypes.c_int64, ctypes.c_longlong, ctypes.c_int64),
    "cublasHgemmStridedBatched": (_h, _i, _i, _i, _i, _i, _p, _p, _i, ctypes.c_longlong, _p, _i, ctypes.c_longlong,
                                  _p, _p, _i, ctypes.c_longlong, _i),
    "cublasSgemmEx": (_h, _i, _i, _i, _i, _i, _f, _p, _i, _i, _p, _i, _i, _f, _p, _i, _i),
    # complex levels 2/3 (issue 13): cuComplex / cuDoubleComplex scalars by pointer (host pointer mode);
    # strides are long long; the _64 routine takes every int as int64_t
    "cublasCgemv_v2": (_h, _i, _i, _i, _p, _p, _i, _p, _i, _p, _p, _i),
    "cublasCgemvStridedBatched": (_h, _i, _i, _i, _p, _p, _i, _ll, _p, _i, _ll, _p, _p, _i, _ll, _i),
    "cublasZgemvStridedBatched": (_h, _i, _i, _i, _p, _p, _i, _ll, _p, _i, _ll, _p, _p, _i, _ll, _i),
    "cublasCgeru_v2": (_h, _i, _i, _p, _p, _i, _p, _i, _p, _i),
    "cublasZgerc_v2": (_h, _i, _i, _p, _p, _i, _p, _i, _p, _i),
    "cublasCgemm_v2": (_h, _i, _i, _i, _i, _i, _p, _p, _i, _p, _i, _p, _p, _i),
    "cublasCgemmStridedBatched": (_h, _i, _i, _i, _i, _i, _p, _p, _i, _ll, _p, _i, _ll, _p, _p, _i, _ll, _i),
    "cublasCgemmStridedBatched_64": (_h, _i, _i, _ll, _ll, _ll, _p, _p, _ll, _ll, _p, _ll, _ll, _p, _p, _ll, _ll,
                                     _ll),
    "cublasZgemmStridedBatched": (_h, _i, _i, _i, _i, _i, _p, _p, _i, _ll, _p, _i, _ll, _p, _p, _i, _ll, _i),
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
    # complex symmetric (issue 13): cuComplex scalars by pointer; CsyrkEx's Atype/Ctype are cudaDataType ints
    "cublasCsymv_v2": (_h, _i, _i, _p, _p, _i, _p, _i, _p, _p, _i),
    "cublasCsymm_v2": (_h, _i, _i, _i, _i, _p, _p, _i, _p, _i, _p, _p, _i),
    "cublasCsyrkEx": (_h, _i, _i, _i, _i, _p, _p, _i, _i, _p, _p, _i, _i),
    # batched through arrays of device pointers (issue 13): each array is a device int64 tensor's data_ptr
    "cublasDgemmBatched": (_h, _i, _i, _i, _i, _i, _d, _p, _i, _p, _i, _d, _p, _i, _i),
    "cublasSgemmBatched_64": (_h, _i, _i, ctypes.c_int64, ctypes.c_int64, ctypes.c_int64, _f, _p, ctypes.c_int64,
                              _p, ctypes.c_int64, _f, _p, ctypes.c_int64, ctypes.c_int64),
    "cublasHgemmBatched": (_h, _i, _i, _i, _i, _i, ctypes.POINTER(ctypes.c_uint16), _p, _i, _p, _i,
                           ctypes.POINTER(ctypes.c_uint16), _p, _i, _i),
    "cublasSgemvBatched": (_h, _i, _i, _i, _f, _p, _i, _p, _i, _f, _p, _i, _i),
    "cublasDgemvBatched": (_h, _i, _i, _i, _d, _p, _i, _p, _i, _d, _p, _i, _i),
    "cublasDtrsmBatched": (_h, _i, _i, _i, _i, _i, _i, _d, _p, _i, _p, _i, _i),
    "cublasZgemmBatched": (_h, _i, _i, _i, _i, _i, _zp, _p, _i, _p, _i,
                           _zp, _p, _i, _i),
    "cublasZgemvBatched": (_h, _i, _i, _i, _zp, _p, _i, _p, _i, _zp,
                           _p, _i, _i),
    "cublasCgemvBatched_64": (_h, _i, ctypes.c_int64, ctypes.c_int64, _cp, _p, ctypes.c_int64,
                              _p, ctypes.c_int64, _cp, _p, ctypes.c_int64, ctypes.c_int64),
    "cublasZtrsmBatched": (_h, _i, _i, _i, _i, _i, _i, _zp, _p, _i, _p, _i, _i),
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

    # ---- level 3 real/half and extensions (issue 13) ---------------------------------------------
    # Side, fill and diag flags are read by suite/cublas/level3_real.py (imported here lazily: it
    # imports this module). A strided batch's buffer must hold (batchCount-1)*stride + its last matrix.

    def cublasSgeam(self, transa: Any, transb: Any, m: int, n: int, alpha: float, A: torch.Tensor, lda: int,
                    beta: float, B: torch.Tensor, ldb: int, C: torch.Tensor, ldc: int) -> None:
        opa, opb = op_code(transa), op_code(transb)
        dev = C.device
        pa = _buffer("A", A, matrix_extent(*((m, n) if opa == OP_N else (n, m)), lda), dev)
        pb = _buffer("B", B, matrix_extent(*((m, n) if opb == OP_N else (n, m)), ldb), dev)
        pc = _buffer("C", C, matrix_extent(m, n, ldc), dev)
        with torch.cuda.device(dev):
            self._call("cublasSgeam", self._handle(dev), opa, opb, _int32("m", m), _int32("n", n),
                       ctypes.byref(ctypes.c_float(alpha)), pa, _int32("lda", lda),
                       ctypes.byref(ctypes.c_float(beta)), pb, _int32("ldb", ldb), pc, _int32("ldc", ldc))

    def cublasSdgmm(self, mode: Any, m: int, n: int, A: torch.Tensor, lda: int, x: torch.Tensor, incx: int,
                    C: torch.Tensor, ldc: int) -> None:
        from .level3_real import SIDE_LEFT

        side = side_code(mode)
        dev = C.device
        pa = _buffer("A", A, matrix_extent(m, n, lda), dev)
        px = _buffer("x", x, vector_extent(m if side == SIDE_LEFT else n, incx), dev)
        pc = _buffer("C", C, matrix_extent(m, n, ldc), dev)
        with torch.cuda.device(dev):
            self._call("cublasSdgmm", self._handle(dev), side, _int32("m", m), _int32("n", n), pa,
                       _int32("lda", lda), px, _int32("incx", incx), pc, _int32("ldc", ldc))

    def cublasSsyrk_v2(self, uplo: Any, trans: Any, n: int, k: int, alpha: float, A: torch.Tensor, lda: int,
                       beta: float, C: torch.Tensor, ldc: int) -> None:
        """A real syrk's C is its T (reference BLAS ssyrk.f); cuBLAS is handed T for it."""

        op = OP_T if op_code(trans) != OP_N else OP_N
        dev = C.device
        pa = _buffer("A", A, matrix_extent(*((n, k) if op == OP_N else (k, n)), lda), dev)
        pc = _buffer("C", C, matrix_extent(n, n, ldc), dev)
        with torch.cuda.device(dev):
            self._call("cublasSsyrk_v2", self._handle(dev), fill_code(uplo), op, _int32("n", n), _int32("k", k),
                       ctypes.byref(ctypes.c_float(alpha)), pa, _int32("lda", lda),
                       ctypes.byref(ctypes.c_float(beta)), pc, _int32("ldc", ldc))

    def cublasStrsm_v2(self, side: Any, uplo: Any, trans: Any, diag: Any, m: int, n: int, alpha: float,
                       A: torch.Tensor, lda: int, B: torch.Tensor, ldb: int) -> None:
        from .level3_real import SIDE_LEFT

        s = side_code(side)
        order = m if s == SIDE_LEFT else n
        dev = B.device
        pa = _buffer("A", A, matrix_extent(order, order, lda), dev)
        pb = _buffer("B", B, matrix_extent(m, n, ldb), dev)
        with torch.cuda.device(dev):
            self._call("cublasStrsm_v2", self._handle(dev), s, fill_code(uplo), op_code(trans), diag_code(diag),
                       _int32("m", m), _int32("n", n), ctypes.byref(ctypes.c_float(alpha)), pa, _int32("lda", lda),
                       pb, _int32("ldb", ldb))

    @staticmethod
    def _batch_extents(transa: Any, transb: Any, m: int, n: int, k: int, lda: int, strideA: int, ldb: int,
                       strideB: int, ldc: int, strideC: int, batch: int) -> tuple[int, int, int]:
        opa, opb = op_code(transa), op_code(transb)
        before = max(batch - 1, 0)
        ea = matrix_extent(*((m, k) if opa == OP_N else (k, m)), lda)
        eb = matrix_extent(*((k, n) if opb == OP_N else (n, k)), ldb)
        ec = matrix_extent(m, n, ldc)
        if batch <= 0:
            return 0, 0, 0
        return before * strideA + ea, before * strideB + eb, before * strideC + ec

    def _gemm_batched(self, routine: str, dtype: torch.dtype, scalar: Any, size: Callable[[str, int], Any],
                      transa: Any, transb: Any, m: int, n: int, k: int, alpha: Any, A: torch.Tensor, lda: int,
                      strideA: int, B: torch.Tensor, ldb: int, strideB: int, beta: Any, C: torch.Tensor, ldc: int,
                      strideC: int, batchCount: int) -> None:
        ea, eb, ec = self._batch_extents(transa, transb, m, n, k, lda, strideA, ldb, strideB, ldc, strideC,
                                         batchCount)
        dev = C.device
        pa, pb, pc = _buffer("A", A, ea, dev, dtype), _buffer("B", B, eb, dev, dtype), _buffer("C", C, ec, dev, dtype)
        with torch.cuda.device(dev):
            self._call(routine, self._handle(dev), op_code(transa), op_code(transb), size("m", m), size("n", n),
                       size("k", k), ctypes.byref(scalar(alpha)), pa, size("lda", lda),
                       ctypes.c_longlong(strideA), pb, size("ldb", ldb), ctypes.c_longlong(strideB),
                       ctypes.byref(scalar(beta)), pc, size("ldc", ldc), ctypes.c_longlong(strideC),
                       size("batchCount", batchCount))

    def cublasSgemmStridedBatched(self, transa: Any, transb: Any, m: int, n: int, k: int, alpha: float,
                                  A: torch.Tensor, lda: int, strideA: int, B: torch.Tensor, ldb: int, strideB: int,
                                  beta: float, C: torch.Tensor, ldc: int, strideC: int, batchCount: int) -> None:
        self._gemm_batched("cublasSgemmStridedBatched", torch.float32, ctypes.c_float, _int32, transa, transb,
                           m, n, k, alpha, A, lda, strideA, B, ldb, strideB, beta, C, ldc, strideC, batchCount)

    def cublasDgemmStridedBatched(self, transa: Any, transb: Any, m: int, n: int, k: int, alpha: float,
                                  A: torch.Tensor, lda: int, strideA: int, B: torch.Tensor, ldb: int, strideB: int,
                                  beta: float, C: torch.Tensor, ldc: int, strideC: int, batchCount: int) -> None:
        self._gemm_batched("cublasDgemmStridedBatched", torch.float64, ctypes.c_double, _int32, transa, transb,
                           m, n, k, alpha, A, lda, strideA, B, ldb, strideB, beta, C, ldc, strideC, batchCount)

    def cublasDgemmStridedBatched_64(self, transa: Any, transb: Any, m: int, n: int, k: int, alpha: float,
                                     A: torch.Tensor, lda: int, strideA: int, B: torch.Tensor, ldb: int,
                                     strideB: int, beta: float, C: torch.Tensor, ldc: int, strideC: int,
                                     batchCount: int) -> None:
        self._gemm_batched("cublasDgemmStridedBatched_64", torch.float64, ctypes.c_double,
                           _int64, transa, transb, m, n, k, alpha, A, lda, strideA, B,
                           ldb, strideB, beta, C, ldc, strideC, batchCount)

    def cublasHgemmStridedBatched(self, transa: Any, transb: Any, m: int, n: int, k: int, alpha: float,
                                  A: torch.Tensor, lda: int, strideA: int, B: torch.Tensor, ldb: int, strideB: int,
                                  beta: float, C: torch.Tensor, ldc: int, strideC: int, batchCount: int) -> None:
        """alpha and beta are __half: their fp16 bits, passed by reference as a 16-bit integer."""
        self._gemm_batched("cublasHgemmStridedBatched", torch.float16, _half, _int32, transa, transb,
                           m, n, k, alpha, A, lda, strideA, B, ldb, strideB, beta, C, ldc, strideC, batchCount)

    def cublasSgemmEx(self, transa: Any, transb: Any, m: int, n: int, k: int, alpha: float, A: torch.Tensor,
                      Atype: int, lda: int, B: torch.Tensor, Btype: int, ldb: int, beta: float, C: torch.Tensor,
                      Ctype: int, ldc: int) -> None:
        from .level3_real import DATA_TYPES

        opa, opb = op_code(transa), op_code(transb)
        dev = C.device
        pa = _buffer("A", A, matrix_extent(*((m, k) if opa == OP_N else (k, m)), lda), dev, DATA_TYPES[Atype])
        pb = _buffer("B", B, matrix_extent(*((k, n) if opb == OP_N else (n, k)), ldb), dev, DATA_TYPES[Btype])
        pc = _buffer("C", C, matrix_extent(m, n, ldc), dev, DATA_TYPES[Ctype])
        with torch.cuda.device(dev):
            self._call("cublasSgemmEx", self._handle(dev), opa, opb, _int32("m", m), _int32("n", n),
                       _int32("k", k), ctypes.byref(ctypes.c_float(alpha)), pa, Atype, _int32("lda", lda),
                       pb, Btype, _int32("ldb", ldb), ctypes.byref(ctypes.c_float(beta)), pc, Ctype,
                       _int32("ldc", ldc))
    # ---- complex levels 2/3 (issue 13) -----------------------------------------------------------
    # Buffers are interleaved real tensors (suite/cublas/complex.py): extents count complex elements,
    # checked as 2 reals each. Complex scalars go by pointer to a struct of two floats (doubles).

    def _cgemv(self, routine: str, prec: str, trans: Any, m: int, n: int, alpha: complex, A: torch.Tensor,
               lda: int, sa: int, x: torch.Tensor, incx: int, sx: int, beta: complex, y: torch.Tensor, incy: int,
               sy: int, batch: int | None) -> None:
        op = op_code(trans)
        xlen, ylen = (n, m) if op == OP_N else (m, n)
        dtype, scalar = _COMPLEX_OF[prec]
        count = 1 if batch is None else batch
        dev = y.device
        pa = _buffer("A", A, 2 * _batch_extent(matrix_extent(m, n, lda), sa, count), dev, dtype)
        px = _buffer("x", x, 2 * _batch_extent(vector_extent(xlen, incx), sx, count), dev, dtype)
        py = _buffer("y", y, 2 * _batch_extent(vector_extent(ylen, incy), sy, count), dev, dtype)
        a, b = scalar(alpha), scalar(beta)
        if batch is None:
            args: tuple[Any, ...] = (op, _int32("m", m), _int32("n", n), ctypes.byref(a), pa, _int32("lda", lda), px,
                                     _int32("incx", incx), ctypes.byref(b), py, _int32("incy", incy))
        else:
            args = (op, _int32("m", m), _int32("n", n), ctypes.byref(a), pa, _int32("lda", lda), _ll(sa), px,
                    _int32("incx", incx), _ll(sx), ctypes.byref(b), py, _int32("incy", incy), _ll(sy),
                    _int32("batchCount", batch))
        with torch.cuda.device(dev):
            self._call(routine, self._handle(dev), *args)

    def cublasCgemv_v2(self, trans: Any, m: int, n: int, alpha: complex, A: torch.Tensor, lda: int,
                       x: torch.Tensor, incx: int, beta: complex, y: torch.Tensor, incy: int) -> None:
        self._cgemv("cublasCgemv_v2", "C", trans, m, n, alpha, A, lda, 0, x, incx, 0, beta, y, incy, 0, None)

    def cublasCgemvStridedBatched(self, trans: Any, m: int, n: int, alpha: complex, A: torch.Tensor, lda: int,
                                  strideA: int, x: torch.Tensor, incx: int, stridex: int, beta: complex,
                                  y: torch.Tensor, incy: int, stridey: int, batchCount: int) -> None:
        self._cgemv("cublasCgemvStridedBatched", "C", trans, m, n, alpha, A, lda, strideA, x, incx, stridex, beta,
                    y, incy, stridey, batchCount)

    def cublasZgemvStridedBatched(self, trans: Any, m: int, n: int, alpha: complex, A: torch.Tensor, lda: int,
                                  strideA: int, x: torch.Tensor, incx: int, stridex: int, beta: complex,
                                  y: torch.Tensor, incy: int, stridey: int, batchCount: int) -> None:
        self._cgemv("cublasZgemvStridedBatched", "Z", trans, m, n, alpha, A, lda, strideA, x, incx, stridex, beta,
                    y, incy, stridey, batchCount)

    def _cger(self, routine: str, prec: str, m: int, n: int, alpha: complex, x: torch.Tensor, incx: int,
              y: torch.Tensor, incy: int, A: torch.Tensor, lda: int) -> None:
        dtype, scalar = _COMPLEX_OF[prec]
        dev = A.device
        px = _buffer("x", x, 2 * vector_extent(m, incx), dev, dtype)
        py = _buffer("y", y, 2 * vector_extent(n, incy), dev, dtype)
        pa = _buffer("A", A, 2 * matrix_extent(m, n, lda), dev, dtype)
        a = scalar(alpha)
        with torch.cuda.device(dev):
            self._call(routine, self._handle(dev), _int32("m", m), _int32("n", n), ctypes.byref(a), px,
                       _int32("incx", incx), py, _int32("incy", incy), pa, _int32("lda", lda))

    def cublasCgeru_v2(self, m: int, n: int, alpha: complex, x: torch.Tensor, incx: int, y: torch.Tensor,
                       incy: int, A: torch.Tensor, lda: int) -> None:
        self._cger("cublasCgeru_v2", "C", m, n, alpha, x, incx, y, incy, A, lda)

    def cublasZgerc_v2(self, m: int, n: int, alpha: complex, x: torch.Tensor, incx: int, y: torch.Tensor,
                       incy: int, A: torch.Tensor, lda: int) -> None:
        self._cger("cublasZgerc_v2", "Z", m, n, alpha, x, incx, y, incy, A, lda)

    def _cgemm(self, routine: str, prec: str, transa: Any, transb: Any, m: int, n: int, k: int, alpha: complex,
               A: torch.Tensor, lda: int, sa: int, B: torch.Tensor, ldb: int, sb: int, beta: complex,
               C: torch.Tensor, ldc: int, sc: int, batch: int | None, wide: bool = False) -> None:
        opa, opb = op_code(transa), op_code(transb)
        a_rows, a_cols = (m, k) if opa == OP_N else (k, m)
        b_rows, b_cols = (k, n) if opb == OP_N else (n, k)
        dtype, scalar = _COMPLEX_OF[prec]
        count = 1 if batch is None else batch
        dev = C.device
        pa = _buffer("A", A, 2 * _batch_extent(matrix_extent(a_rows, a_cols, lda), sa, count), dev, dtype)
        pb = _buffer("B", B, 2 * _batch_extent(matrix_extent(b_rows, b_cols, ldb), sb, count), dev, dtype)
        pc = _buffer("C", C, 2 * _batch_extent(matrix_extent(m, n, ldc), sc, count), dev, dtype)
        num = _int64 if wide else _int32
        al, be = scalar(alpha), scalar(beta)
        if batch is None:
            args: tuple[Any, ...] = (opa, opb, num("m", m), num("n", n), num("k", k), ctypes.byref(al), pa,
                                     num("lda", lda), pb, num("ldb", ldb), ctypes.byref(be), pc, num("ldc", ldc))
        else:
            args = (opa, opb, num("m", m), num("n", n), num("k", k), ctypes.byref(al), pa, num("lda", lda), _ll(sa),
                    pb, num("ldb", ldb), _ll(sb), ctypes.byref(be), pc, num("ldc", ldc), _ll(sc),
                    num("batchCount", batch))
        with torch.cuda.device(dev):
            self._call(routine, self._handle(dev), *args)

    def cublasCgemm_v2(self, transa: Any, transb: Any, m: int, n: int, k: int, alpha: complex, A: torch.Tensor,
                       lda: int, B: torch.Tensor, ldb: int, beta: complex, C: torch.Tensor, ldc: int) -> None:
        self._cgemm("cublasCgemm_v2", "C", transa, transb, m, n, k, alpha, A, lda, 0, B, ldb, 0, beta, C, ldc, 0,
                    None)

    def cublasCgemmStridedBatched(self, transa: Any, transb: Any, m: int, n: int, k: int, alpha: complex,
                                  A: torch.Tensor, lda: int, strideA: int, B: torch.Tensor, ldb: int, strideB: int,
                                  beta: complex, C: torch.Tensor, ldc: int, strideC: int, batchCount: int) -> None:
        self._cgemm("cublasCgemmStridedBatched", "C", transa, transb, m, n, k, alpha, A, lda, strideA, B, ldb,
                    strideB, beta, C, ldc, strideC, batchCount)

    def cublasCgemmStridedBatched_64(self, transa: Any, transb: Any, m: int, n: int, k: int, alpha: complex,
                                     A: torch.Tensor, lda: int, strideA: int, B: torch.Tensor, ldb: int,
                                     strideB: int, beta: complex, C: torch.Tensor, ldc: int, strideC: int,
                                     batchCount: int) -> None:
        self._cgemm("cublasCgemmStridedBatched_64", "C", transa, transb, m, n, k, alpha, A, lda, strideA, B, ldb,
                    strideB, beta, C, ldc, strideC, batchCount, wide=True)

    def cublasZgemmStridedBatched(self, transa: Any, transb: Any, m: int, n: int, k: int, alpha: complex,
                                  A: torch.Tensor, lda: int, strideA: int, B: torch.Tensor, ldb: int, strideB: int,
                                  beta: complex, C: torch.Tensor, ldc: int, strideC: int, batchCount: int) -> None:
        self._cgemm("cublasZgemmStridedBatched", "Z", transa, transb, m, n, k, alpha, A, lda, strideA, B, ldb,
                    strideB, beta, C, ldc, strideC, batchCount)

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

        dev = x.device
        pa = _buffer("A", A, matrix_extent(n, n, lda), dev)
        px = _buffer("x", x, vector_extent(n, incx), dev)
        with torch.cuda.device(dev):
            self._call("cublasStrsv_v2", self._handle(dev), fill_code(uplo), op_code(trans), diag_code(diag),
                       _int32("n", n), pa, _int32("lda", lda), px, _int32("incx", incx))

    def cublasDsbmv_v2(self, uplo: Any, n: int, k: int, alpha: float, A: torch.Tensor, lda: int, x: torch.Tensor,
                       incx: int, beta: float, y: torch.Tensor, incy: int) -> None:

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

    # ---- complex symmetric (issue 13) ------------------------------------------------------------
    # Flags are read by suite/cublas/level3_real.py and CsyrkEx's types by sym_complex.py (imported
    # lazily: both import this module). A symmetric A is order x order whichever triangle is stored.

    def cublasCsymv_v2(self, uplo: Any, n: int, alpha: complex, A: torch.Tensor, lda: int, x: torch.Tensor,
                       incx: int, beta: complex, y: torch.Tensor, incy: int) -> None:

        dev = y.device
        pa = _buffer("A", A, 2 * matrix_extent(n, n, lda), dev)
        px = _buffer("x", x, 2 * vector_extent(n, incx), dev)
        py = _buffer("y", y, 2 * vector_extent(n, incy), dev)
        a, b = _c64(alpha), _c64(beta)
        with torch.cuda.device(dev):
            self._call("cublasCsymv_v2", self._handle(dev), fill_code(uplo), _int32("n", n), ctypes.byref(a), pa,
                       _int32("lda", lda), px, _int32("incx", incx), ctypes.byref(b), py, _int32("incy", incy))

    def cublasCsymm_v2(self, side: Any, uplo: Any, m: int, n: int, alpha: complex, A: torch.Tensor, lda: int,
                       B: torch.Tensor, ldb: int, beta: complex, C: torch.Tensor, ldc: int) -> None:
        from .level3_real import SIDE_LEFT

        s = side_code(side)
        order = m if s == SIDE_LEFT else n
        dev = C.device
        pa = _buffer("A", A, 2 * matrix_extent(order, order, lda), dev)
        pb = _buffer("B", B, 2 * matrix_extent(m, n, ldb), dev)
        pc = _buffer("C", C, 2 * matrix_extent(m, n, ldc), dev)
        a, b = _c64(alpha), _c64(beta)
        with torch.cuda.device(dev):
            self._call("cublasCsymm_v2", self._handle(dev), s, fill_code(uplo), _int32("m", m), _int32("n", n),
                       ctypes.byref(a), pa, _int32("lda", lda), pb, _int32("ldb", ldb), ctypes.byref(b), pc,
                       _int32("ldc", ldc))

    def cublasCsyrkEx(self, uplo: Any, trans: Any, n: int, k: int, alpha: complex, A: torch.Tensor, Atype: int,
                      lda: int, beta: complex, C: torch.Tensor, Ctype: int, ldc: int) -> None:
        """libcublas 13.0 refuses Atype CUDA_C_8I on the H200 (CUBLAS_STATUS_NOT_SUPPORTED in all 24
        shapes probed, though documented): such an A is widened to CUDA_C_32F, exactly (cuBLAS computes
        in cuComplex either way), and the same routine runs on it."""
        from .sym_complex import CUDA_C_8I, CUDA_C_32F, EX_TYPES

        if Atype == CUDA_C_8I and isinstance(A, torch.Tensor) and A.dtype == torch.int8:
            A, Atype = A.to(torch.float32), CUDA_C_32F
        op = op_code(trans)
        dev = C.device
        pa = _buffer("A", A, 2 * matrix_extent(*((n, k) if op == OP_N else (k, n)), lda), dev, EX_TYPES[Atype])
        pc = _buffer("C", C, 2 * matrix_extent(n, n, ldc), dev, EX_TYPES[Ctype])
        a, b = _c64(alpha), _c64(beta)
        with torch.cuda.device(dev):
            self._call("cublasCsyrkEx", self._handle(dev), fill_code(uplo), op, _int32("n", n), _int32("k", k),
                       ctypes.byref(a), pa, _int32("Atype", Atype), _int32("lda", lda), ctypes.byref(b), pc,
                       _int32("Ctype", Ctype), _int32("ldc", ldc))

    # ---- batched through arrays of device pointers (issue 13) -----------------------------------------
    # An array is a 1-D int64 device tensor of addresses; its own extent is checked (batchCount
    # entries), the matrices behind it cannot be without reading it back, which the timed call must not.

    def _batched(self, routine: str, dev: torch.device, *args: Any) -> None:
        with torch.cuda.device(dev):
            self._call(routine, self._handle(dev), *args)

    def _gemm_pointers(self, routine: str, size: Callable[[str, int], Any], scalar: Callable[[float], Any],
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
        self._gemm_pointers("cublasDgemmBatched", _int32, ctypes.c_double, transa, transb, m, n, k, alpha, Aarray,
                           lda, Barray, ldb, beta, Carray, ldc, batchCount)

    def cublasSgemmBatched_64(self, transa: Any, transb: Any, m: int, n: int, k: int, alpha: float,
                              Aarray: torch.Tensor, lda: int, Barray: torch.Tensor, ldb: int, beta: float,
                              Carray: torch.Tensor, ldc: int, batchCount: int) -> None:
        self._gemm_pointers("cublasSgemmBatched_64", _int64, ctypes.c_float, transa, transb, m, n, k, alpha,
                           Aarray, lda, Barray, ldb, beta, Carray, ldc, batchCount)

    def cublasHgemmBatched(self, transa: Any, transb: Any, m: int, n: int, k: int, alpha: float,
                           Aarray: torch.Tensor, lda: int, Barray: torch.Tensor, ldb: int, beta: float,
                           Carray: torch.Tensor, ldc: int, batchCount: int) -> None:
        self._gemm_pointers("cublasHgemmBatched", _int32, _half, transa, transb, m, n, k, alpha, Aarray, lda,
                           Barray, ldb, beta, Carray, ldc, batchCount)

    def _gemv_pointers(self, routine: str, scalar: Callable[[float], Any], trans: Any, m: int, n: int,
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
        self._gemv_pointers("cublasSgemvBatched", ctypes.c_float, trans, m, n, alpha, Aarray, lda, xarray, incx,
                           beta, yarray, incy, batchCount)

    def cublasDgemvBatched(self, trans: Any, m: int, n: int, alpha: float, Aarray: torch.Tensor, lda: int,
                           xarray: torch.Tensor, incx: int, beta: float, yarray: torch.Tensor, incy: int,
                           batchCount: int) -> None:
        self._gemv_pointers("cublasDgemvBatched", ctypes.c_double, trans, m, n, alpha, Aarray, lda, xarray, incx,
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
                      _int32("k", k), ctypes.byref(CuDoubleComplex(a.real, a.imag)), pa, _int32("lda", lda), pb,
                      _int32("ldb", ldb), ctypes.byref(CuDoubleComplex(b.real, b.imag)), pc, _int32("ldc", ldc),
                      _int32("batchCount", batchCount))

    def cublasZgemvBatched(self, trans: Any, m: int, n: int, alpha: complex, Aarray: torch.Tensor, lda: int,
                           xarray: torch.Tensor, incx: int, beta: complex, yarray: torch.Tensor, incy: int,
                           batchCount: int) -> None:
        dev = yarray.device
        pa, px, py = self._complex_arrays(dev, batchCount, Aarray=Aarray, xarray=xarray, yarray=yarray)
        a, b = complex(alpha), complex(beta)
        self._batched("cublasZgemvBatched", dev, op_code(trans), _int32("m", m), _int32("n", n),
                      ctypes.byref(CuDoubleComplex(a.real, a.imag)), pa, _int32("lda", lda), px, _int32("incx", incx),
                      ctypes.byref(CuDoubleComplex(b.real, b.imag)), py, _int32("incy", incy),
                      _int32("batchCount", batchCount))

    def cublasCgemvBatched_64(self, trans: Any, m: int, n: int, alpha: complex, Aarray: torch.Tensor, lda: int,
                              xarray: torch.Tensor, incx: int, beta: complex, yarray: torch.Tensor, incy: int,
                              batchCount: int) -> None:
        dev = yarray.device
        pa, px, py = self._complex_arrays(dev, batchCount, Aarray=Aarray, xarray=xarray, yarray=yarray)
        a, b = complex(alpha), complex(beta)
        self._batched("cublasCgemvBatched_64", dev, op_code(trans), _int64("m", m), _int64("n", n),
                      ctypes.byref(CuComplex(a.real, a.imag)), pa, _int64("lda", lda), px, _int64("incx", incx),
                      ctypes.byref(CuComplex(b.real, b.imag)), py, _int64("incy", incy),
                      _int64("batchCount", batchCount))

    def cublasZtrsmBatched(self, side: Any, uplo: Any, trans: Any, diag: Any, m: int, n: int, alpha: complex,
                           Aarray: torch.Tensor, lda: int, Barray: torch.Tensor, ldb: int, batchCount: int) -> None:
        dev = Barray.device
        pa, pb = self._complex_arrays(dev, batchCount, Aarray=Aarray, Barray=Barray)
        a = complex(alpha)
        self._batched("cublasZtrsmBatched", dev, side_code(side), fill_code(uplo), op_code(trans), diag_code(diag),
                      _int32("m", m), _int32("n", n), ctypes.byref(CuDoubleComplex(a.real, a.imag)), pa,
                      _int32("lda", lda), pb, _int32("ldb", ldb), _int32("batchCount", batchCount))


def _c64(z: complex) -> CuComplex:
    z = complex(z)
    return CuComplex(z.real, z.imag)


def _c128(z: complex) -> CuDoubleComplex:
    z = complex(z)
    return CuDoubleComplex(z.real, z.imag)


_COMPLEX_OF: dict[str, tuple[torch.dtype, Callable[[complex], Any]]] = {"C": (torch.float32, _c64),
                                                                        "Z": (torch.float64, _c128)}


def _int64(name: str, v: int) -> ctypes.c_longlong:
    if isinstance(v, bool) or not isinstance(v, int) or not -(2**63) <= v < 2**63:
        raise ValueError(f"{name}={v!r} is not a 64-bit int")
    return ctypes.c_longlong(v)


def _batch_extent(one: int, stride: int, batch: int) -> int:
    """Elements a strided batch addresses: the last problem's start plus one problem's extent."""
    return 0 if batch <= 0 or one <= 0 else (batch - 1) * abs(stride) + one


def _half(v: float) -> ctypes.c_uint16:
    """A host __half scalar: the float16 bit pattern of v."""
    return ctypes.c_uint16(struct.unpack("<H", struct.pack("<e", v))[0])


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
