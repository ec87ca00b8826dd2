/* pallas/mosaic_gpu.c: the Mosaic GPU backend's pallas_call lowering.
 * JAX counterpart: pallas/mosaic_gpu/pallas_call_registration.py
 * pallas_call_lowering: mosaic_gpu_v2 with the module's bytecode and its
 * SHA-256 as kernel_hash. */
#include "lowersim/mosaic_gpu.h"
#include "backend.h"
#include "support/encode.h"

#include <mlir-c/BuiltinAttributes.h>

int lsim_mosaic_gpu_pallas_call_lowering(lsim_lowering_rule_context *ctx, const MlirValue *args,
                                         MlirValue *results, const lsim_pallas_call_params *p,
                                         void *data, lsim_error *err) {
  (void)data;
  lsimp_strbuf bytes = LSIMP_STRBUF_INIT;
  int rc = lsimp_kernel_bytecode(ctx, p, LSIMP_KERNEL_MOSAIC_GPU, true, &bytes, err);
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
    rc = lsimp_emit_kernel_call(ctx, &call, args, results, err);
  }
  lsimp_strbuf_free(&bytes);
  return rc;
}
