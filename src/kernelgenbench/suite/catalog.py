"""The 210 operator names KernelGenBench publishes (shared/OPERATORS.md), by source.

A suite that drops or renames one of these is not this benchmark, so the names are data here and
`tests/test_registry.py` checks the counts.
"""

from __future__ import annotations

ATEN: tuple[str, ...] = (
    "_index_put_impl_", "_local_scalar_dense", "_softmax", "_to_copy", "acosh", "add", "add_",
    "affine_grid_generator", "amin", "arange", "argmax", "as_strided", "asin", "bernoulli",
    "binary_cross_entropy_with_logits", "bitwise_not", "bmm", "cat", "clone", "contiguous",
    "copy_", "cos", "cosh", "cumsum", "diff", "div", "div_", "embedding", "empty_strided", "eq",
    "erfc", "expand", "expand_as", "exponential_", "fill_", "floor", "floor_divide", "fmax",
    "full", "gather", "gt", "hardsigmoid", "heaviside", "huber_loss", "i0", "im2col", "index",
    "index_put_", "index_select", "item", "le", "linear", "log10", "log_sigmoid_backward",
    "logaddexp2", "logit", "margin_ranking_loss", "masked_fill_", "matmul", "mean", "mish",
    "mish_backward", "mm", "mul", "narrow", "neg", "new_empty_strided", "new_ones", "ones_like",
    "pairwise_distance", "poisson", "polygamma", "pow", "prelu", "reflection_pad1d_backward",
    "renorm", "reshape", "resolve_conj", "resolve_neg", "rot90", "rrelu_with_noise",
    "rrelu_with_noise_backward", "rsqrt", "rsub", "scalar_tensor", "scatter", "select",
    "select_backward", "sgn", "silu", "sin", "smooth_l1_loss_backward", "soft_margin_loss",
    "softmax", "softplus_backward", "sort", "special_entr", "square", "stack", "sub", "sum", "t",
    "to", "unsafe_split", "unsafe_split_with_sizes", "unsqueeze", "upsample_nearest2d_backward",
    "zero_", "zeros", "zeros_like",
)

VLLM: tuple[str, ...] = (
    "allspark_w8a16_gemm", "apply_repetition_penalties_cuda", "awq_gemm", "awq_marlin_moe_repack",
    "batched_moe_align_block_size", "concat_and_cache_mla", "convert_fp8",
    "convert_vertical_slash_indexes", "copy_blocks", "copy_blocks_mla", "cp_gather_cache",
    "cp_gather_indexer_k_quant_cache", "cutlass_pack_scale_fp8", "cutlass_scaled_mm",
    "cutlass_scaled_mm_azp", "fused_add_rms_norm", "fused_qk_norm_rope",
    "gather_and_maybe_dequant_cache", "ggml_dequantize", "ggml_moe_a8", "ggml_moe_a8_vec",
    "ggml_mul_mat_a8", "ggml_mul_mat_vec_a8", "gptq_gemm", "gptq_marlin_24_gemm",
    "gptq_marlin_gemm", "gptq_marlin_moe_repack", "gptq_shuffle", "grouped_topk",
    "hadacore_transform", "marlin_int4_fp8_preprocess", "merge_attn_states",
    "moe_align_block_size", "moe_lora_align_block_size", "moe_sum", "paged_attention_v1",
    "paged_attention_v2", "permute_cols", "reshape_and_cache", "reshape_and_cache_flash",
    "rms_norm", "rms_norm_dynamic_per_token_quant", "rms_norm_per_block_quant", "rotary_embedding",
    "scaled_fp8_quant", "scaled_int8_quant", "selective_scan_fwd", "shuffle_rows", "swap_blocks",
    "topk_softmax",
)

CUBLAS: tuple[str, ...] = (
    "cublasCcopy_v2", "cublasCdotu_v2", "cublasCgemmStridedBatched",
    "cublasCgemmStridedBatched_64", "cublasCgemm_v2", "cublasCgemvBatched_64",
    "cublasCgemvStridedBatched", "cublasCgemv_v2", "cublasCgeru_v2", "cublasCsymm_v2",
    "cublasCsymv_v2", "cublasCsyrkEx", "cublasDasum_v2", "cublasDaxpy_v2", "cublasDcopy_v2",
    "cublasDgemmBatched", "cublasDgemmStridedBatched", "cublasDgemmStridedBatched_64",
    "cublasDgemvBatched", "cublasDgemvStridedBatched", "cublasDgemv_v2", "cublasDsbmv_v2",
    "cublasDsyr2_v2", "cublasDtrsmBatched", "cublasHgemmBatched", "cublasHgemmStridedBatched",
    "cublasSaxpy_v2", "cublasSdgmm", "cublasSdot_v2", "cublasSgeam", "cublasSgemmBatched_64",
    "cublasSgemmEx", "cublasSgemmStridedBatched", "cublasSgemm_v2", "cublasSgemvBatched",
    "cublasSgemvStridedBatched", "cublasSger_v2", "cublasSscal_v2", "cublasSsyrk_v2",
    "cublasStbmv_v2", "cublasStrsm_v2", "cublasStrsv_v2", "cublasZdotc_v2", "cublasZgemmBatched",
    "cublasZgemmStridedBatched", "cublasZgemvBatched", "cublasZgemvStridedBatched",
    "cublasZgerc_v2", "cublasZswap_v2", "cublasZtrsmBatched",
)

NAMES: dict[str, tuple[str, ...]] = {"aten": ATEN, "vllm": VLLM, "cublas": CUBLAS}
