# op: aten::unsqueeze
# idiom: a view built with as_strided: the new size-1 dim gets stride size*stride of the dim it precedes (1 at the end), as ATen does; the dim normalised with Python arithmetic on ints

from typing import List


def _insert(values: List[int], pos: int, value: int) -> List[int]:
    return values[:pos] + [value] + values[pos:]


def unsqueeze(self, dim):
    rank = self.dim() + 1  # the result's number of dims
    if dim < -rank or dim >= rank:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-rank}, {rank - 1}], but got {dim})")
    pos = dim % rank
    shape = list(self.shape)
    strides = list(self.stride())
    new_stride = shape[pos] * strides[pos] if pos < self.dim() else 1
    return self.as_strided(_insert(shape, pos, 1), _insert(strides, pos, new_stride), self.storage_offset())
