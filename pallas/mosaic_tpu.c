/* pallas/mosaic_tpu.c: the Mosaic TPU backend's pallas_call lowering.
 * JAX counterparts: pallas/mosaic/pallas_call_registration.py
 * pallas_call_tpu_lowering_rule; tpu_custom_call.py
 * CustomCallBackendConfig.to_json and _tpu_custom_call_lowering. */
#include "lowersim/mosaic_tpu.h"
#include "backend.h"
#include "target.h"
#include "support/encode.h"
#include "support/raise.h"

#include <mlir-c/BuiltinAttributes.h>

#include <stdlib.h>

char *lsim_tpu_custom_call_config(const void *bytecode, size_t size) {
  lsimp_strbuf json = LSIMP_STRBUF_INIT;
  lsimp_strbuf_puts(&json, "{\"custom_call_config\": {\"body\": \"");
  lsimp_base64_encode(&json, bytecode, size);
  lsimp_strbuf_puts(&json, "\", \"serialization_format\": 1, \"needs_layout_passes\": true}}");
  return lsimp_strbuf_take(&json);
}

/* tpu_custom_call.get_ir_version: the forward-compatible version for
 * jax.export or without a backend of the lowering platform
 * (get_backend(optional=True) is None), else the serializer's own. */
static int ir_version(const lsim_lowering_rule_context *ctx, int *out, lsim_error *err) {
  const lsim_module_context *mc = ctx->module_context;
  const lsim_jax_profile *profile = lsim_module_context_profile(mc);
  const lsim_backend *backend;
  int rc = lsimp_jit_backend(ctx, &backend, err);
  if (rc)
    return rc;
  bool fwd = lsim_module_context_lowering_parameters(mc)->for_export || !backend;
  *out = fwd ? profile->pallas_mosaic_fwd_compat_version : profile->pallas_mosaic_serde_version;
  lsim_module_context_explain(mc, LSIM_EXPLAIN_DECISION, 0,
                              "get_ir_version: %s -> stable_mosaic.version %d",
                              fwd ? "forward compatible" : "a TPU backend", *out);
  return LSIM_OK;
}

/* A tpu_custom_call whose backend config is the JSON to_json writes, the
 * kernel as base64 of its bytecode, with default CompilerParams.  The block
 * checks of lower_jaxpr_to_pipelined_module read the TPU's kind for a
 * rank-1 block, as lowersim's are. */
int lsim_mosaic_tpu_pallas_call_lowering(lsim_lowering_rule_context *ctx, const MlirValue *args,
                                         MlirValue *results, const lsim_pallas_call_params *p,
                                         void *data, lsim_error *err) {
  (void)data;
  lsimp_strbuf bytes = LSIMP_STRBUF_INIT;
  char *json = NULL;
  lsimp_kernel_spec spec = {
      .flavor = LSIMP_KERNEL_MOSAIC_TPU,
      .mesh_operand = ctx->in_abstract_mesh && ctx->in_abstract_mesh[0],
      .x64 = lsim_module_context_lowering_parameters(ctx->module_context)->enable_x64};
  int rc = lsimp_tpu_info(ctx, err);
  if (!rc)
    rc = ir_version(ctx, &spec.mosaic_version, err);
  if (!rc)
    rc = lsimp_kernel_bytecode(ctx, p, spec, true, &bytes, err);
  if (!rc && !(json = lsim_tpu_custom_call_config(bytes.data, bytes.len)))
    rc = lsimp_fail_oom(err);
  if (!rc) {
    MlirContext mlir = ctx->ip.context;
    MlirNamedAttribute metadata = lsim_named(mlir, "kernel_metadata", lsim_string_attr(mlir, "{}"));
    MlirNamedAttribute extra[] = {
        lsim_named(mlir, "kernel_name", lsim_string_attr(mlir, p->kernel)),
        lsim_named(mlir, "mhlo.frontend_attributes", mlirDictionaryAttrGet(mlir, 1, &metadata)),
    };
    lsim_custom_call call = {.target = "tpu_custom_call",
                             .backend_config = json,
                             .api_version = 1,
                             .extra = extra,
                             .num_extra = 2};
    rc = lsimp_emit_kernel_call(ctx, &call, args, results, err);
  }
  lsimp_strbuf_free(&bytes);
  free(json);
  return rc;
}
