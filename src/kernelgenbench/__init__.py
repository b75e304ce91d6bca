"""KernelGenBench: a benchmark and harness for LLM- and agent-generated Triton kernels."""

__version__ = "0.1.0"
