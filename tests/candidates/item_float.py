"""aten::item that always answers a float: an int64 tensor's item must be a Python int."""


def item(self):
    return float(self.reshape(()).tolist())
