"""Never returns."""


def rsqrt(self):
    while True:
        pass


def rsqrt_out(self, *, out):
    while True:
        pass
