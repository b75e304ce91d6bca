"""aten::t: metadata only, no kernel.

A tensor of at most 2 dims is transposed by swapping its two sizes and strides; 0-d and 1-d tensors
are their own transpose. The result is built with as_strided on self, so it shares self's storage
and storage offset, exactly like ATen's view.
"""


def t(self):
    """Reversing the (at most two) sizes and strides swaps dims 0 and 1 and leaves 0-d/1-d as they are."""
    if self.dim() > 2:
        raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is {self.dim()}D")
    return self.as_strided(list(self.shape)[::-1], list(self.stride())[::-1])
