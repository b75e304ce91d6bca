"""How candidates are produced; each method is a small class registered by name."""

from . import agent, files, llm, reference, reflect  # noqa: F401 - registration
from .base import Candidate, Interrupted, Method, MethodError, Schedule, Task, Turn, available, create

__all__ = ["Candidate", "Interrupted", "Method", "MethodError", "Schedule", "Task", "Turn", "available", "create"]
