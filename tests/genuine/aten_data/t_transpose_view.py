# op: aten::t
# idiom: pure view construction: self.transpose(0, 1) for a 2-D tensor, self.view(self.shape) (a fresh alias, no data moved) for 0-d and 1-d; no kernel, nothing copied


def t(self):
    if self.dim() > 2:
        raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is {self.dim()}D")
    if self.dim() == 2:
        return self.transpose(0, 1)
    return self.view(self.shape)
