# op: aten::contiguous
# expect: wrong_result
# evidence: has strides [1, 33], expected [65, 1]
# trick: a view where ATen copies: `self` handed back whether or not it is contiguous (the values
# read right through its strides; a caller that needs contiguous memory gets the wrong layout).


def contiguous(self, *, memory_format=0):
    return self
