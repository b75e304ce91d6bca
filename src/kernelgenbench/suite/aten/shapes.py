"""Shape sets shared by the ATen families, by size tier.

`small` runs in the Triton interpreter (0-d, one element, odd and empty sizes); `large` is GPU
correctness at sizes that cross block boundaries many times; `perf` is realistic LLM-scale work.
"""

ELEMENTWISE = {
    "small": [(), (1,), (7,), (33, 65), (3, 5, 17), (0, 4)],
    "large": [(1025, 4097), (8, 512, 1023)],
    "perf": [(4096, 4096), (8192, 14336)],
}

ROWS = {
    "small": [(), (1,), (7,), (33, 65), (3, 5, 17), (0, 4), (4, 300)],
    "large": [(1025, 4097), (8, 512, 1023), (4, 32769)],
    "perf": [(4096, 4096), (16384, 8192), (256, 131072)],
}
