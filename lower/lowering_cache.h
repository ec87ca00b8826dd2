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

/* mlir.py lower_called_computation(fn_name, jaxpr, ...) and a func.call of
 * it (_lower_jaxpr_to_fun_cached: one private function per jaxpr in the
 * module, named `fn_name` as the symbol table uniques it, taking the dim
 * vars (jax.global_constant = "_platform_index"), the token and `args`),
 * its body the jaxpr lowered by jaxpr_subcomp, whose equations have
 * `compute_type` (the one the jaxpr was traced in) unless their own.
 * `*call` receives the call (to take the caller's attributes). */
int lsimp_lower_called_computation(lsim_lowering_rule_context *ctx, const lsim_eqn *eqn,
                                   const char *fn_name, const lsim_registry *reg,
                                   const lsim_program *jaxpr, const char *compute_type,
                                   const MlirValue *args, MlirValue *results,
                                   MlirOperation *call, lsim_error *err);


#endif /* LOWERSIM_LOWER_LOWERING_CACHE_H */
