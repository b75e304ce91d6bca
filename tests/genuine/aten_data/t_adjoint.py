# op: aten::t
# idiom: self.adjoint() for a 2-D tensor, self.view(self.shape) for 0-d and 1-d


def t(self):
    if self.dim() > 2:
        raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is {self.dim()}D")
    if self.dim() == 2:
        return self.adjoint()
    return self.view(self.shape)
