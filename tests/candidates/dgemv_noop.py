"""Does nothing: y keeps its input values. Must fail wherever gemv changes y."""


def cublasDgemv_v2(trans, m, n, alpha, A, lda, x, incx, beta, y, incy):
    return None
