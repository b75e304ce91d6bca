"""Leaves the process without a word, as a candidate calling os._exit would."""
import os


def silu(self):
    os._exit(0)


def silu_out(self, *, out):
    os._exit(0)
