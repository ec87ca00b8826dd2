/* ctx/lowering_rule_context.c: LoweringRuleContext.
 * JAX counterpart: jax/_src/interpreters/mlir.py LoweringRuleContext
 * (replace) and _platforms_for_eqn. */
#include "lowersim/lowering_rule_context.h"
#include "support/raise.h"

lsim_lowering_rule_context lsim_lowering_rule_context_make(lsim_module_context *module_context,
                                                           const lsim_primitive *primitive,
                                                           lsim_insertion_point ip) {
  return (lsim_lowering_rule_context){
      .module_context = module_context, .ip = ip, .primitive = primitive};
}

lsim_lowering_rule_context
lsim_lowering_rule_context_with_platforms(const lsim_lowering_rule_context *ctx,
                                          const char *const *platforms, size_t count) {
  lsim_lowering_rule_context copy = *ctx;
  copy.platforms = platforms;
  copy.num_platforms = count;
  return copy;
}

const char *const *lsim_lowering_rule_context_platforms(const lsim_lowering_rule_context *ctx,
                                                        size_t *count) {
  if (ctx->num_platforms) {
    *count = ctx->num_platforms;
    return ctx->platforms;
  }
  return lsim_module_context_platforms(ctx->module_context, count);
}

int lsim_lowering_rule_context_out_types(const lsim_lowering_rule_context *ctx, MlirType *types,
                                         lsim_error *err) {
  for (size_t i = 0; i < ctx->num_avals_out; i++) {
    types[i] = lsim_module_context_aval_to_ir_type(ctx->module_context, &ctx->avals_out[i]);
    if (mlirTypeIsNull(types[i]))
      return lsimp_fail_oom(err);
  }
  return LSIM_OK;
}
