"""How candidates are produced; each method is a small class registered by name."""

from . import files, reference  # noqa: F401 - registration
from .base import Candidate, Method, MethodError, available, create

__all__ = ["Candidate", "Method", "MethodError", "available", "create"]
