"""Never returns."""


def silu(self):
    while True:
        pass


def silu_out(self, *, out):
    while True:
        pass
