/* lowersim/lowering_rule_context.h: LoweringRuleContext, as
 * jax/_src/interpreters/mlir.py has it: what one rule invocation sees. */
#ifndef LOWERSIM_LOWERING_RULE_CONTEXT_H
#define LOWERSIM_LOWERING_RULE_CONTEXT_H

#include "lowersim/aval.h"
#include "lowersim/error.h"
#include "lowersim/module_context.h"
#include "lowersim/primitive.h"

#include <mlir-c/IR.h>

#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* One rule invocation (a plain value: copying it is JAX's replace()). */
typedef struct lsim_lowering_rule_context {
  lsim_module_context *module_context; /* borrowed */
  lsim_insertion_point ip;             /* where the rule appends its ops */
  const lsim_primitive *primitive;     /* borrowed */
  const lsim_aval *avals_in;
  size_t num_avals_in;
  const lsim_aval *avals_out;
  size_t num_avals_out;
  const MlirValue *tokens_in; /* the ordered-effect token, when the equation has one */
  size_t num_tokens_in;
  MlirValue *tokens_out;      /* set by a rule with ordered effects */
  size_t num_tokens_out;
  const MlirValue *dim_var_values; /* the platform index first, when there is one */
  size_t num_dim_var_values;
  const char *const *platforms;    /* override for a branch of a multi-platform lowering */
  size_t num_platforms;            /* 0: no override */
  bool uncached; /* lowered through mlir.py _uncached_lowering (the primitive is not
                    cacheable): JAX's avals_out is then a tuple, not a list */
  /* Per operand: its aval carries the abstract mesh of the lowering's
   * use_abstract_mesh block (JAX gives it to the avals the traced function
   * computes, not to its arguments'); NULL: no operand's does. */
  const bool *in_abstract_mesh;
  /* The equation context's compute type (jaxpr_eqn_ctx.compute_type,
   * borrowed; NULL: none): lsim_lower_per_platform wraps each rule's
   * results in it (wrap_compute_type_in_place), so a rule that lowers a
   * piece through lower_per_platform with a copy of its context has that
   * piece wrapped too, as JAX does. */
  const char *compute_type;
  /* Set by lsim_lower_per_platform while a rule it applies runs: a
   * lower_per_platform the rule makes of its own (platform_index's,
   * pallas_call's) is narrated as the rule's, not as the equation's. */
  bool in_rule;
} lsim_lowering_rule_context;

/* A rule context for `primitive` over the module context, emitting at `ip`,
 * all else empty. */
lsim_lowering_rule_context lsim_lowering_rule_context_make(lsim_module_context *module_context,
                                                           const lsim_primitive *primitive,
                                                           lsim_insertion_point ip);

/* replace(platforms=...): a copy whose platforms override is `platforms`. */
lsim_lowering_rule_context
lsim_lowering_rule_context_with_platforms(const lsim_lowering_rule_context *ctx,
                                          const char *const *platforms, size_t count);

/* The effective platforms of the equation: the override if set, else the
 * module's (JAX: _platforms_for_eqn). Borrowed. */
const char *const *lsim_lowering_rule_context_platforms(const lsim_lowering_rule_context *ctx,
                                                        size_t *count);

/* The MLIR types of ctx->avals_out, into `types` (num_avals_out of them). */
int lsim_lowering_rule_context_out_types(const lsim_lowering_rule_context *ctx, MlirType *types,
                                         lsim_error *err);

#ifdef __cplusplus
}
#endif

#endif /* LOWERSIM_LOWERING_RULE_CONTEXT_H */
