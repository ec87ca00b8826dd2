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


#endif /* LOWERSIM_LOWER_LOWERING_CACHE_H */
