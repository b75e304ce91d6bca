"""aten::_local_scalar_dense: the one element of a tensor as a Python number.

There is nothing to compute: the element is viewed as a 0-d tensor at its own storage offset
(`as_strided` keeps it, so a one-element slice of a larger buffer reads the right element) and
read with `tolist()`, which gives float for floating dtypes (NaN and infinities included), an exact
int for integer dtypes (int64 beyond 2**53 too) and bool for bool. `.item()` would call this very
operator again.
"""



def _local_scalar_dense(self):
    if self.numel() != 1:
        raise RuntimeError(f"a Tensor with {self.numel()} elements cannot be converted to Scalar")
    return self.as_strided((), ()).tolist()
