"""aten::clone that returns its input: the right values, but the schema promises a new tensor."""


def clone(self, *, memory_format=None):
    return self


def clone_out(self, *, memory_format=None, out):
    raise NotImplementedError("not reached: the first clone case already fails")
