/* pallas/mosaic_tpu.c: the Mosaic TPU backend's pallas_call lowering.
 * JAX counterparts: pallas/mosaic/pallas_call_registration.py
 * pallas_call_tpu_lowering_rule; tpu_custom_call.py
 * CustomCallBackendConfig.to_json and _tpu_custom_call_lowering. */
#include "lowersim/mosaic_tpu.h"
#include "backend.h"
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

/* A tpu_custom_call whose backend config is the JSON to_json writes, the
 * kernel as base64 of its bytecode, with default CompilerParams. */
int lsim_mosaic_tpu_pallas_call_lowering(lsim_lowering_rule_context *ctx, const MlirValue *args,
                                         MlirValue *results, const lsim_pallas_call_params *p,
                                         void *data, lsim_error *err) {
  (void)data;
  lsimp_strbuf bytes = LSIMP_STRBUF_INIT;
  char *json = NULL;
  int rc = lsimp_kernel_bytecode(ctx, p, LSIMP_KERNEL_MOSAIC_TPU, true, &bytes, err);
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
