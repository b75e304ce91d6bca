# op: aten::select
# idiom: the selected slice as_strided with the dim dropped and storage_offset() + index * stride(dim); negative dim and index wrapped with Python modulo arithmetic


def select_int(self, dim, index):
    ndim = self.dim()
    if ndim == 0:
        raise IndexError("select() cannot be applied to a 0-dim tensor.")
    if not -ndim <= dim < ndim:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-ndim}, {ndim - 1}], but got {dim})")
    dim %= ndim
    n = self.shape[dim]
    if not -n <= index < n:
        raise IndexError(f"select(): index {index} out of range for tensor of size {list(self.shape)} at dimension {dim}")
    if index < 0:
        index += n
    sizes = [s for d, s in enumerate(self.shape) if d != dim]
    strides = [s for d, s in enumerate(self.stride()) if d != dim]
    return self.as_strided(sizes, strides, self.storage_offset() + index * self.stride(dim))
