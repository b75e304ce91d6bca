# op: aten::item
# idiom: self.reshape(()) (a view for one element, whatever its strides) read with .tolist(), which gives a Python float, int or bool by dtype; numel checked first


def item(self):
    if self.numel() != 1:
        raise RuntimeError(f"a Tensor with {self.numel()} elements cannot be converted to Scalar")
    return self.reshape(()).tolist()
