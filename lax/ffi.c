/* lax/ffi.c: FFI rules, and ffi_call.
 * JAX counterpart: ffi.py ffi_lowering: result types from avals_out,
 * row-major layouts, the keyword parameters as mhlo.backend_config;
 * ffi_call_p and ffi_call_lowering. */
#include "lowersim/ffi.h"
#include "lowersim/emit.h"
#include "support/raise.h"

#include <stdio.h>
#include <stdlib.h>

/* ffi_lowering(target, has_side_effect=...)(ctx, *args): one custom call with
 * the equation's result types; `aliases`: operand_output_aliases={} was
 * passed (an empty output_operand_aliases). */
static int ffi_lowering(lsim_lowering_rule_context *ctx, const char *target, bool has_side_effect,
                        bool aliases, const MlirValue *args, MlirValue *results,
                        lsim_error *err) {
  lsim_ffi_call call = {.target = target, .has_side_effect = has_side_effect,
                       .has_aliases = aliases};
  return lsim_emit_ffi_lowering_op(ctx, &call, args, results, err);
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
  return ffi_lowering(ctx, rule->target, false, false, args, results, err);
}

lsim_rule lsim_ffi_lowering(const lsim_ffi_rule *rule) {
  return (lsim_rule){ffi_rule, (void *)rule};
}

/* --- ffi_call_p -------------------------------------------------------------- */

static int ffi_call_check(const lsim_aval *avals_in, size_t num_in, const lsim_aval *avals_out,
                          size_t num_out, const void *params, lsim_error *err) {
  (void)avals_in, (void)num_in, (void)avals_out, (void)num_out;
  const lsim_ffi_call_params *p = params;
  if (!p || !p->target_name)
    return lsim_error_set(err, LSIM_E_INVALID_ARGUMENT, "an ffi_call needs a target name");
  return LSIM_OK;
}

/* `has_side_effect=False target_name=my_target`, in the jaxpr's order. */
static int explain_params(const void *params, char *buf, size_t size) {
  const lsim_ffi_call_params *p = params;
  return snprintf(buf, size, "has_side_effect=%s target_name=%s",
                  p->has_side_effect ? "True" : "False", p->target_name);
}

/* has_side_effect=True is an effect: jit keeps the call unused. */
static bool kept_when_unused(const void *params) {
  return ((const lsim_ffi_call_params *)params)->has_side_effect;
}

const lsim_primitive lsim_ffi_call_p = {.name = "ffi_call",
                                        .trace_check = ffi_call_check,
                                        .explain_params = explain_params,
                                        .kept_when_unused = kept_when_unused};

/* ffi_call_lowering: ffi_lowering(target_name, has_side_effect=...,
 * operand_output_aliases=dict(input_output_aliases)), which are none. */
static int ffi_call_lowering(lsim_lowering_rule_context *ctx, const MlirValue *args,
                             MlirValue *results, const void *params, void *data,
                             lsim_error *err) {
  (void)data;
  const lsim_ffi_call_params *p = params;
  return ffi_lowering(ctx, p->target_name, p->has_side_effect, true, args, results, err);
}

int lsim_register_ffi_rules(lsim_registry *reg, lsim_error *err) {
  return lsim_register_lowering(reg, &lsim_ffi_call_p, (lsim_rule){ffi_call_lowering, NULL}, NULL,
                                err);
}
