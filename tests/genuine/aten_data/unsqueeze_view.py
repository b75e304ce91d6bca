# op: aten::unsqueeze
# idiom: self.view(shape with a 1 inserted) (a view always exists for an inserted size-1 dim)


def unsqueeze(self, dim):
    rank = self.dim() + 1
    if not -rank <= dim < rank:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-rank}, {rank - 1}], but got {dim})")
    pos = dim % rank
    shape = list(self.shape)
    return self.view(shape[:pos] + [1] + shape[pos:])
