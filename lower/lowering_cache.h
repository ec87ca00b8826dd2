/* lower/lowering_cache.h (private to lower/): rules that are not inlined.
 * JAX counterpart: mlir.py jaxpr_subcomp's lowering cache
 * (LoweringCacheKey, ModuleContext.lowering_cache, _cached_lowering_miss,
 * _emit_lowering_rule_as_fun with inline=False, _emit_cached_call). */
#ifndef LOWERSIM_LOWER_LOWERING_CACHE_H
#define LOWERSIM_LOWER_LOWERING_CACHE_H

#include "lowersim/lowering_rule_context.h"
#include "lowersim/module_context.h"
#include "lowersim/program.h"
#include "lowersim/registry.h"

/* Lowers the rule of `ctx` (whose rules are `rules`/`default_rule`) as a
 * private func.func in the module and emits a func.call of it at ctx->ip:
 * the function is made on the first equation with this key (primitive,
 * compute type, avals in and out, params, effect, the module's platforms)
 * and called again for the next ones.  The function takes the dim vars,
 * the token (when ctx has one) and the operands and returns the token and
 * the results; `results` receives the call's results and ctx->tokens_out
 * its token. */
int lsimp_lower_as_function(lsim_lowering_rule_context *ctx, const lsim_eqn *eqn,
                            const lsim_platform_rule *rules, size_t num_rules,
                            const lsim_rule *default_rule, const MlirValue *args,
                            MlirValue *results, lsim_error *err);

/* wrap_compute_type_in_place: mhlo.frontend_attributes with the compute
 * type of `compute_type` (map_compute_type: device_host "host", device
 * "dense", tpu_sparsecore "sparseoffload"; gpu_stream:N
 * _xla_stream_annotation and inlineable "false") merged into the op that
 * defines each of `values` (block arguments are left). */
void lsimp_wrap_compute_type(MlirContext mlir, const char *compute_type, const MlirValue *values,
                             size_t count);

/* A rule that runs `inner` and then wraps its results in the compute type,
 * as lower_per_platform does after each rule it applies (in each branch of
 * its stablehlo.case, not on the case). */
typedef struct lsimp_compute_type_rule {
  lsim_rule inner;
  const char *compute_type;
} lsimp_compute_type_rule;
lsim_rule lsimp_compute_type_rule_make(lsimp_compute_type_rule *wrapper);

#endif /* LOWERSIM_LOWER_LOWERING_CACHE_H */
