/* pallas/mosaic_gpu.c: the Mosaic GPU backend's pallas_call lowering.
 * JAX counterpart: pallas/mosaic_gpu/pallas_call_registration.py
 * pallas_call_lowering: mosaic_gpu_v2 with the kernel module (the launch
 * jax/experimental/mosaic/gpu/core.py lowers it to) serialized as
 * _lower_as_gpu_kernel does: the mosaic_gpu-serde form at the profile's
 * version (the forward-compatible one for jax.export), bytecode version 0,
 * and the SHA-256 of those bytes as kernel_hash. */
#include "lowersim/mosaic_gpu.h"
#include "backend.h"
#include "kernels.h"
#include "target.h"
#include "support/encode.h"
#include "support/raise.h"

#include <mlir-c/BuiltinAttributes.h>

#include <stdio.h>
#include <string.h>

/* Hopper's shared memory (gpu's max_smem_bytes for sm_90). */
#define MAX_SMEM_BYTES 232448
/* A TMA copy needs every stride of the array in global memory but the last
 * to be a multiple of this many bytes. */
#define TMA_STRIDE_BYTES 16
/* Async copies move at most this many elements along a dimension. */
#define MAX_ASYNC_COPY_ELEMENTS 256
/* A warpgroup: 128 threads, one element each for a loaded array. */
#define WARPGROUP 128

/* A count as Python prints it, into `buf` (24 bytes). */
static const char *decimal(char *buf, long long v) {
  snprintf(buf, 24, "%lld", v);
  return buf;
}

/* What Mosaic GPU refuses while lowering the kernel, in its order:
 * _lower_as_gpu_kernel's shared memory (two buffers, each aligned to 1024
 * bytes, and the pipeline's barrier); with warpgroup semantics (from
 * 32915de40f) layout inference, which needs the loads to fill the
 * warpgroup's 128 threads; the copy of a block into shared memory (before
 * it, a multiple of the warpgroup's 128 bytes, and from ea11dbfcc3 a Hopper
 * GPU or newer for its barrier's arrive_expect_tx; then _prepare_tma's strides:
 * a 2-D array's rows start a multiple of 16 bytes apart; at most 256
 * elements, a dtype TMA can move); the load into registers (one element per thread of
 * the warpgroup, so a multiple of 128 elements); the add (no arithmetic on
 * 8-bit types). */
static int64_t align_1024(int64_t bytes) { return (bytes + 1023) / 1024 * 1024; }

/* tiled_add_one's (rows, cols) block meets the same checks, its rows in the
 * array (cols of it) 16-byte aligned for TMA as row_sum's.
 * row_sum's (rows, cols) block (f32 or i32) meets the same checks, then
 * its jnp.sum, which Mosaic GPU's reduce_sum lowering refuses ("No support
 * for axes yet"); its shared memory is the input block's and the (rows, 1)
 * output block's, each aligned to 1024 bytes, 2048 bytes more and the
 * barrier's 8 (as JAX 0.10.2 reports it). */
static int check_kernel(const lsim_lowering_rule_context *ctx, const lsim_pallas_call_params *p,
                        int arch_major, lsim_error *err) {
  const lsim_aval *block = &ctx->avals_in[0];
  bool reduction = lsimp_kernel_is_reduction(p->kernel);
  bool two_d = lsimp_kernel_is_tiled(p->kernel); /* row_sum's too */
  /* A (1, N) array's copies are 1-D: JAX drops the unit dimension. */
  bool one_row = two_d && block->rank == 2 && block->dims[0] == 1;
  int64_t rows = two_d ? p->block[0] : 1, cols = two_d ? p->block[1] : block->dims[0];
  int64_t n = rows * cols;
  int64_t itemsize = lsim_dtype_itemsize(block->dtype);
  int64_t bytes = n * itemsize;
  int64_t smem = reduction ? align_1024(bytes) + align_1024(rows * itemsize) + 2048 + 8
                           : 2 * align_1024(bytes) + 8;
  char a[24], b[24], text[160];
  if (smem > MAX_SMEM_BYTES)
    return lsimp_raise(err, LSIM_E_PALLAS_MOSAIC_GPU_SMEM, decimal(a, smem),
                       decimal(b, MAX_SMEM_BYTES));
  const lsim_jax_profile *profile = lsim_module_context_profile(ctx->module_context);
  bool warpgroup_semantics = profile->pallas_mosaic_gpu_warpgroup_semantics;
  /* Warpgroup semantics infer the kernel's layouts before any copy is
   * lowered: a block of a number of elements not a multiple of 128 has
   * none, and neither has row_sum's reduction into a (rows, 1) block
   * (its jnp.sum lowers to a vector.multi_reduction; checked on jaxlib
   * 0.11.0, the 0.10.2 rule's "No support for axes yet" is never reached). */
  if (warpgroup_semantics && (n % WARPGROUP || reduction))
    return lsimp_raise0(err, LSIM_E_PALLAS_MOSAIC_GPU_LAYOUT_INFERENCE);
  if (!warpgroup_semantics && bytes % WARPGROUP)
    return lsimp_raise(err, LSIM_E_PALLAS_MOSAIC_GPU_WARPGROUP, decimal(a, bytes));
  /* The copy into shared memory arrives on its barrier expecting its bytes
   * before the copy itself is lowered (checked on jaxlib 0.11.0 with
   * compute capabilities 7.5, 8.0 and 8.6). */
  if (profile->pallas_mosaic_gpu_hopper_copies && arch_major < 9)
    return lsimp_raise0(err, LSIM_E_PALLAS_MOSAIC_GPU_HOPPER);
  if (two_d && block->dims[1] * itemsize % TMA_STRIDE_BYTES)
    return lsimp_raise0(err, LSIM_E_PALLAS_MOSAIC_GPU_TMA_STRIDES);
  if (rows > MAX_ASYNC_COPY_ELEMENTS || cols > MAX_ASYNC_COPY_ELEMENTS) {
    if (two_d && !one_row)
      snprintf(text, sizeof text, "(%lld, %lld)", (long long)rows, (long long)cols);
    else
      snprintf(text, sizeof text, "(%lld,)", (long long)n);
    return lsimp_raise(err, LSIM_E_PALLAS_MOSAIC_GPU_ASYNC_COPY, text);
  }
  if (block->dtype == LSIM_DTYPE_F64)
    return lsimp_raise(err, LSIM_E_PALLAS_MOSAIC_GPU_TMA_DTYPE, "f64");
  if (n % WARPGROUP) {
    const char *elt = lsimp_kernel_element_type(block->dtype);
    if (two_d)
      snprintf(text, sizeof text,
               "memref<%lldx%lldx%s, strided<[%lld, 1], offset: ?>, "
               "#gpu.address_space<workgroup>>",
               (long long)rows, (long long)cols, elt, (long long)cols);
    else
      snprintf(text, sizeof text,
               "memref<%lldx%s, strided<[1], offset: ?>, #gpu.address_space<workgroup>>",
               (long long)n, elt);
    return lsimp_raise(err, LSIM_E_PALLAS_MOSAIC_GPU_LAYOUT, text, decimal(a, n));
  }
  if (reduction)
    return lsimp_raise0(err, LSIM_E_PALLAS_MOSAIC_GPU_REDUCE_AXES);
  if (itemsize == 1 && strcmp(p->kernel, "copy") != 0)
    return lsimp_raise0(err, LSIM_E_PALLAS_MOSAIC_GPU_8BIT);
  return LSIM_OK;
}

int lsim_mosaic_gpu_pallas_call_lowering(lsim_lowering_rule_context *ctx, const MlirValue *args,
                                         MlirValue *results, const lsim_pallas_call_params *p,
                                         void *data, lsim_error *err) {
  (void)data;
  if (lsimp_kernel_num_scalar_prefetch(p->kernel)) /* grid_mapping.num_index_operands */
    return lsimp_raise0(err, LSIM_E_PALLAS_MOSAIC_GPU_SCALAR_PREFETCH);
  lsimp_strbuf bytes = LSIMP_STRBUF_INIT;
  const lsim_module_context *mc = ctx->module_context;
  const lsim_jax_profile *profile = lsim_module_context_profile(mc);
  bool fwd = lsim_module_context_lowering_parameters(mc)->for_export;
  lsimp_kernel_spec spec = {
      .flavor = LSIMP_KERNEL_MOSAIC_GPU,
      .mosaic_version = fwd ? profile->pallas_mosaic_gpu_fwd_compat_version
                            : profile->pallas_mosaic_gpu_serde_version,
      .x64 = lsim_module_context_lowering_parameters(mc)->enable_x64,
      .warpgroup = profile->pallas_mosaic_gpu_warpgroup_semantics};
  int rc = lsimp_mosaic_gpu_arch(ctx, &spec.arch_major, &spec.arch_minor, err);
  if (!rc)
    rc = check_kernel(ctx, p, spec.arch_major, err);
  if (!rc)
    rc = lsimp_kernel_bytecode(ctx, p, spec, true, &bytes, NULL, err);
  if (!rc) {
    MlirContext mlir = ctx->ip.context;
    uint8_t digest[32];
    lsimp_sha256(bytes.data, bytes.len, digest);
    MlirNamedAttribute config[] = {
        lsim_named(mlir, "kernel_hash",
                   mlirStringAttrGet(mlir, (MlirStringRef){(const char *)digest, 32})),
        lsim_named(mlir, "module", lsimp_bytes_attr(mlir, &bytes)),
        lsim_named(mlir, "use_custom_barrier", mlirBoolAttrGet(mlir, 0)),
        lsim_named(mlir, "uses_xla_collective_metadata", mlirBoolAttrGet(mlir, 0)),
    };
    lsim_custom_call call = {.target = "mosaic_gpu_v2",
                             .backend_config_dict = mlirDictionaryAttrGet(mlir, 4, config)};
    rc = lsimp_emit_kernel_call(ctx, &call, args, results, p, err);
  }
  lsimp_strbuf_free(&bytes);
  return rc;
}
