/* lower/lower_fun.c: a rule made from a traceable function.  JAX
 * counterpart: mlir.py lower_fun (f_lowered: trace_to_jaxpr_dynamic over
 * ctx.avals_in, ModuleContext.replace(platforms=ctx.platforms),
 * jaxpr_subcomp with the rule's tokens and dim_var_values,
 * ctx.set_tokens_out). */
#include "lowersim/jaxpr_subcomp.h"
#include "lowersim/lowering_rule_context.h"
#include "support/alloc.h"
#include "support/raise.h"

#include <stdlib.h>

/* The module context the jaxpr is lowered in: the rule's platforms when it
 * lowers inside a branch (*owned then set, to be destroyed), else the
 * module's. */
static int sub_context(const lsim_lowering_rule_context *ctx, lsim_module_context **use,
                       lsim_module_context **owned, lsim_error *err) {
  *owned = NULL;
  *use = ctx->module_context;
  if (!ctx->num_platforms)
    return LSIM_OK;
  lsim_module_context_changes changes = LSIM_MODULE_CONTEXT_CHANGES_INIT(
      .platforms = ctx->platforms, .num_platforms = ctx->num_platforms);
  int rc = lsim_module_context_replace(ctx->module_context, &changes, owned, err);
  if (!rc)
    *use = *owned;
  return rc;
}

static int lower_fun_rule(lsim_lowering_rule_context *ctx, const MlirValue *args,
                          MlirValue *results, const void *params, void *data, lsim_error *err) {
  (void)params;
  const lsim_lower_fun *fun = data;
  const lsim_program *jaxpr = NULL;
  int rc = fun->trace(fun->data, ctx->avals_in, ctx->num_avals_in, &jaxpr, err);
  if (!rc && lsim_program_num_outputs(jaxpr) != ctx->num_avals_out)
    rc = lsim_error_set(err, LSIM_E_INVALID_ARGUMENT,
                        "lower_fun: the function returns %zu values where the equation has %zu "
                        "results",
                        lsim_program_num_outputs(jaxpr), ctx->num_avals_out);
  lsim_module_context *mc = NULL, *owned = NULL;
  if (!rc)
    rc = sub_context(ctx, &mc, &owned, err);
  if (!rc) {
    /* The rule's token, threaded through the jaxpr's equations of its kind. */
    lsim_effect_kind kind;
    MlirValue token = ctx->num_tokens_in ? ctx->tokens_in[0] : (MlirValue){NULL};
    size_t kinds = lsim_program_ordered_effects(jaxpr, &kind, 1);
    lsim_token_set tokens = {&kind, &token, ctx->num_tokens_in && kinds ? 1 : 0};
    lsim_subcomp_inputs in = {args, &tokens, ctx->dim_var_values, ctx->num_dim_var_values, NULL,
                              ctx->compute_type, NULL};
    lsim_module_context_explain_source(mc,
                                       LSIM_JAX_SOURCE("jax/_src/interpreters/mlir.py", "lower_fun"));
    lsim_module_context_explain(mc, LSIM_EXPLAIN_STEP, +1,
                                "lower_fun: the function's jaxpr (%zu equation%s) lowered in place",
                                jaxpr->num_eqns, jaxpr->num_eqns == 1 ? "" : "s");
    rc = lsim_jaxpr_subcomp(mc, fun->registry, jaxpr, &ctx->ip, &in, results, err);
    lsim_module_context_explain_nest(mc, -1);
    if (!rc && tokens.count && ctx->tokens_out) {
      ctx->tokens_out[0] = token;
      ctx->num_tokens_out = 1;
    }
  }
  lsim_module_context_destroy(owned);
  if (jaxpr && fun->release)
    fun->release(fun->data, jaxpr);
  return rc;
}

lsim_rule lsim_lower_fun_rule(const lsim_lower_fun *fun) {
  return (lsim_rule){lower_fun_rule, (void *)fun};
}
