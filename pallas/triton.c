/* pallas/triton.c: the Triton backend's pallas_call lowering.
 * JAX counterpart: pallas/triton/pallas_call_registration.py
 * pallas_call_lowering: __gpu$xla.gpu.triton with the kernel's bytecode in
 * the `ir` entry of mhlo.backend_config (from 0.11.2 after warning that
 * the Triton backend is deprecated). */
#include "lowersim/triton.h"
#include "backend.h"
#include "target.h"
#include "support/raise.h"

#include <mlir-c/BuiltinAttributes.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* lower_jaxpr_to_triton_module's checks: the launch grid
 * (_process_grid_to_3d_grid: collapsed axes must fit launch axis 0), then
 * every array's size (_check_tensor_size: the block's, a power of 2). */
static int check_kernel(const lsim_lowering_rule_context *ctx, const lsim_pallas_call_params *p,
                        lsim_error *err) {
  int64_t steps[2], launch[2];
  int rank = lsimp_kernel_grid(p->kernel, ctx->avals_in, ctx->avals_out, p->block, p->grid, steps);
  if (lsimp_triton_launch_grid(steps, rank, launch) && launch[0] >= LSIMP_TRITON_X_LIMIT)
    return lsimp_raise0(err, LSIM_E_PALLAS_TRITON_GRID);
  bool tiled = p->block[0] > 0;
  int64_t size = tiled ? p->block[0] * p->block[1] : lsim_aval_size(&ctx->avals_in[0]);
  if ((size & (size - 1)) == 0)
    return LSIM_OK;
  char shape[48];
  if (tiled)
    snprintf(shape, sizeof shape, "(%lld, %lld)", (long long)p->block[0], (long long)p->block[1]);
  else
    snprintf(shape, sizeof shape, "(%lld,)", (long long)size);
  return lsimp_raise(err, LSIM_E_PALLAS_TRITON_POWER_OF_2, shape);
}

/* Triton's verifier, which JAX runs on the kernel module it built, refuses
 * an op with a tensor of more than 2^20 elements (TensorSizeTrait on every
 * tt op), quoting the first such op in its generic form.  lowersim does not
 * model that message: it refuses a block over the limit as its own. */
#define TRITON_MAX_TENSOR_ELEMENTS (INT64_C(1) << 20)
static int check_verifiable(const lsim_lowering_rule_context *ctx,
                            const lsim_pallas_call_params *p, lsim_error *err) {
  int64_t size = p->block[0] > 0 ? p->block[0] * p->block[1] : lsim_aval_size(&ctx->avals_in[0]);
  if (size <= TRITON_MAX_TENSOR_ELEMENTS)
    return LSIM_OK;
  return lsim_error_set(err, LSIM_E_INVALID_ARGUMENT,
                        "a Triton kernel's block of %lld elements is over Triton's limit of "
                        "%lld, whose verifier error lowersim does not model",
                        (long long)size, (long long)TRITON_MAX_TENSOR_ELEMENTS);
}

int lsim_triton_pallas_call_lowering(lsim_lowering_rule_context *ctx, const MlirValue *args,
                                     MlirValue *results, const lsim_pallas_call_params *p,
                                     void *data, lsim_error *err) {
  (void)data;
  const lsim_jax_profile *jax = lsim_module_context_profile(ctx->module_context);
  /* From 0.11.2 the deprecation is this lowering's first step, before any
   * of its checks. */
  if (jax->pallas_triton_deprecated_in_lowering) {
    int rc = lsimp_warn_deprecated(ctx, LSIMP_TRITON_DEPRECATED, err);
    if (rc)
      return rc;
  }
  if (lsimp_kernel_num_scalar_prefetch(p->kernel)) /* grid_mapping.num_index_operands */
    return lsimp_raise0(err, LSIM_E_PALLAS_TRITON_SCALAR_PREFETCH);
  size_t n;
  const char *const *platforms = lsim_lowering_rule_context_platforms(ctx, &n);
  if (n != 1) /* [lowering_platform] = ...: cuda listed twice shares one rule */
    return lsimp_raise0(err, LSIM_E_PALLAS_TRITON_PLATFORMS);
  bool rocm = strcmp(platforms[0], "rocm") == 0;
  lsimp_strbuf bytes = LSIMP_STRBUF_INIT;
  lsimp_kernel_spec spec = {
      .flavor = LSIMP_KERNEL_TRITON,
      .x64 = lsim_module_context_lowering_parameters(ctx->module_context)->enable_x64,
      .cache_evict = jax->pallas_triton_cache_evict};
  int rc = lsimp_triton_gpu(ctx, rocm, err);
  if (!rc)
    rc = check_kernel(ctx, p, err);
  if (!rc)
    rc = lsimp_kernel_bytecode(ctx, p, spec, false, &bytes, NULL, err);
  if (!rc)
    rc = check_verifiable(ctx, p, err);
  /* num_warps / num_stages: the params' or 4 / (1 on rocm, else 3);
   * serialized_metadata: json.dumps(dict(metadata)) when metadata= given. */
  char *name = rc ? NULL : lsimp_kernel_func_name(p);
  lsimp_strbuf metadata = LSIMP_STRBUF_INIT;
  if (!rc && p->has_metadata)
    lsimp_metadata_json(&metadata, p, false);
  if (!rc && (!name || lsimp_strbuf_failed(&metadata)))
    rc = lsimp_fail_oom(err);
  if (!rc) {
    MlirContext mlir = ctx->ip.context;
    int64_t warps = p->num_warps ? p->num_warps : 4;
    /* The launch grid: grid_x and grid_y (a tiled kernel's blocks per
     * dimension, the axes over the y/z limit collapsed into grid_x). */
    int64_t steps[2], grid[2] = {1, 1};
    int rank =
        lsimp_kernel_grid(p->kernel, ctx->avals_in, ctx->avals_out, p->block, p->grid, steps);
    lsimp_triton_launch_grid(steps, rank, grid);
    int64_t stages = p->num_stages ? p->num_stages : rocm ? 1 : 3;
    MlirNamedAttribute config[] = {
        lsim_named(mlir, "name", lsim_string_attr(mlir, name)),
        lsim_named(mlir, "ir", lsimp_bytes_attr(mlir, &bytes)),
        lsim_named(mlir, "num_stages", lsimp_i32_attr(mlir, stages)),
        lsim_named(mlir, "num_warps", lsimp_i32_attr(mlir, warps)),
        lsim_named(mlir, "grid_x", lsimp_i32_attr(mlir, grid[0])),
        lsim_named(mlir, "grid_y", lsimp_i32_attr(mlir, grid[1])),
        lsim_named(mlir, "grid_z", lsimp_i32_attr(mlir, 1)),
        lsim_named(mlir, "debug", mlirBoolAttrGet(mlir, 0)),
        lsim_named(mlir, "serialized_metadata", lsim_string_attr(mlir, lsimp_strbuf_cstr(&metadata))),
    };
    lsim_custom_call call = {.target = "__gpu$xla.gpu.triton",
                             .backend_config_dict =
                                 mlirDictionaryAttrGet(mlir, p->has_metadata ? 9 : 8, config)};
    rc = lsimp_emit_kernel_call(ctx, &call, args, results, p, err);
  }
  free(name);
  lsimp_strbuf_free(&metadata);
  lsimp_strbuf_free(&bytes);
  return rc;
}
