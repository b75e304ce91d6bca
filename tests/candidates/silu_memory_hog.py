"""Asks for far more memory than the sandbox allows (2 TiB)."""
import torch


def silu(self):
    return torch.empty(2**41, dtype=torch.uint8, device=self.device)


def silu_out(self, *, out):
    return torch.empty(2**41, dtype=torch.uint8, device=self.device)
