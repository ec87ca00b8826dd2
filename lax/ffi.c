/* lax/ffi.c: FFI rules.
 * JAX counterpart: ffi.py ffi_lowering: result types from avals_out,
 * row-major layouts, the keyword parameters as mhlo.backend_config. */
#include "lowersim/ffi.h"
#include "lowersim/emit.h"
#include "support/raise.h"

#include <stdlib.h>

/* ffi_lowering(target)(ctx, *args): one custom call with the equation's
 * result types. */
static int ffi_lowering(lsim_lowering_rule_context *ctx, const char *target, bool has_side_effect,
                        const MlirValue *args, MlirValue *results, lsim_error *err) {
  MlirType *types = malloc((ctx->num_avals_out + 1) * sizeof *types);
  if (!types)
    return lsimp_fail_oom(err);
  int rc = lsim_lowering_rule_context_out_types(ctx, types, err);
  lsim_ffi_call call = {.target = target, .has_side_effect = has_side_effect};
  MlirOperation op;
  if (!rc)
    rc = lsim_emit_ffi_call(&ctx->ip, &call, args, ctx->num_avals_in, types, ctx->num_avals_out,
                            &op, err);
  for (size_t i = 0; !rc && i < ctx->num_avals_out; i++)
    results[i] = mlirOperationGetResult(op, (intptr_t)i);
  free(types);
  return rc;
}

/* A register_lowering rule that first asks ModuleContext.get_backend as
 * its lsim_ffi_rule says, then lowers as ffi_lowering(target). */
static int ffi_rule(lsim_lowering_rule_context *ctx, const MlirValue *args, MlirValue *results,
                    const void *params, void *data, lsim_error *err) {
  (void)params;
  const lsim_ffi_rule *rule = data;
  if (rule->backend_use != LSIM_BACKEND_USE_NONE) {
    const lsim_backend *backend;
    bool optional = rule->backend_use == LSIM_BACKEND_USE_OPTIONAL;
    int rc = lsim_module_context_get_backend(ctx->module_context, optional, &backend, err);
    lsim_module_context_explain(ctx->module_context, LSIM_EXPLAIN_DETAIL, 0,
                                "get_backend(optional=%s) -> %s", optional ? "True" : "False",
                                rc ? "raises" : backend ? backend->platform : "None");
    if (rc)
      return rc;
  }
  return ffi_lowering(ctx, rule->target, false, args, results, err);
}

lsim_rule lsim_ffi_lowering(const lsim_ffi_rule *rule) {
  return (lsim_rule){ffi_rule, (void *)rule};
}
