/* lax/ffi.c: FFI rules, and ffi_call.
 * JAX counterpart: ffi.py ffi_lowering: result types from avals_out,
 * row-major layouts, the keyword parameters as mhlo.backend_config;
 * ffi_call_p and ffi_call_lowering. */
#include "lowersim/ffi.h"
#include "lowersim/alloc.h"
#include "lowersim/emit.h"
#include "support/raise.h"
#include "support/strbuf.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

static int api_version(const lsim_ffi_call_params *p) {
  return p->custom_call_api_version ? p->custom_call_api_version : 4;
}

/* ffi.py ffi_call's allowed_vmap_methods (None is NULL). */
static const char *const vmap_methods[] = {"sequential", "sequential_unrolled", "expand_dims",
                                           "broadcast_all", "legacy_vectorized"};

/* ffi_call(...) then wrapped(*args): vmap_method, legacy_backend_config,
 * then input_output_aliases, before ffi_call_p.bind. */
static int ffi_call_check(const lsim_aval *avals_in, size_t num_in, const lsim_aval *avals_out,
                          size_t num_out, const void *params, const lsim_jax_profile *jax,
                          lsim_error *err) {
  (void)jax;
  const lsim_ffi_call_params *p = params;
  if (!p || !p->target_name)
    return lsim_error_set(err, LSIM_E_INVALID_ARGUMENT, "an ffi_call needs a target name");
  if (p->vmap_method) {
    bool known = false;
    for (size_t i = 0; i < sizeof vmap_methods / sizeof *vmap_methods; i++)
      known = known || strcmp(vmap_methods[i], p->vmap_method) == 0;
    if (!known)
      return lsimp_raise(err, LSIM_E_FFI_VMAP_METHOD, p->vmap_method);
  }
  if (api_version(p) >= 4 && p->legacy_backend_config) {
    char v[16];
    snprintf(v, sizeof v, "%d", api_version(p));
    return lsimp_raise(err, LSIM_E_FFI_LEGACY_BACKEND_CONFIG, v);
  }
  return lsim_check_io_aliases(avals_in, num_in, avals_out, num_out, p->aliases, p->num_aliases,
                               err);
}

/* `has_side_effect=False target_name=my_target`, in the jaxpr's order. */
static int explain_params(const void *params, char *buf, size_t size) {
  const lsim_ffi_call_params *p = params;
  int n = snprintf(buf, size, "custom_call_api_version=%d has_side_effect=%s "
                              "input_output_aliases=(",
                   api_version(p), p->has_side_effect ? "True" : "False");
  for (size_t i = 0; i < p->num_aliases && n >= 0 && (size_t)n < size; i++)
    n += snprintf(buf + n, size - (size_t)n, "(%" PRId64 ", %" PRId64 ")%s", p->aliases[i].input,
                  p->aliases[i].output, p->num_aliases == 1 ? "," : i + 1 < p->num_aliases ? ", " : "");
  if (n >= 0 && (size_t)n < size)
    n += snprintf(buf + n, size - (size_t)n, ") legacy_backend_config=%s%s%s target_name=%s "
                  "vmap_method=%s", p->legacy_backend_config ? "'" : "",
                  p->legacy_backend_config ? p->legacy_backend_config : "None",
                  p->legacy_backend_config ? "'" : "", p->target_name,
                  p->vmap_method ? p->vmap_method : "None");
  return n;
}

/* `((1, 0), ())`: row-major layouts, one per aval. */
static void layouts(lsimp_strbuf *sb, const int *ranks, size_t n) {
  lsimp_strbuf_putc(sb, '(');
  for (size_t i = 0; i < n; i++) {
    lsimp_strbuf_puts(sb, i ? ", (" : "(");
    for (int d = ranks[i] - 1; d >= 0; d--)
      lsimp_strbuf_printf(sb, "%d%s", d, d ? ", " : ranks[i] == 1 ? "," : "");
    lsimp_strbuf_putc(sb, ')');
  }
  lsimp_strbuf_puts(sb, n == 1 ? ",)" : ")");
}

/* ffi_call[attributes=() custom_call_api_version=4 ...], in the jaxpr's
 * order. */
static void jaxpr_params(const lsim_eqn *eqn, const lsim_jax_profile *jax,
                         lsim_jaxpr_printer *jp) {
  (void)jax;
  const lsim_ffi_call_params *p = eqn->params;
  size_t n = eqn->num_operands > eqn->num_results ? eqn->num_operands : eqn->num_results;
  int *ranks = lsim_malloc_array(n, sizeof *ranks);
  if (!ranks) {
    lsim_jaxpr_fail(jp);
    return;
  }
  lsimp_strbuf sb = LSIMP_STRBUF_INIT;
  lsim_jaxpr_param(jp, "attributes", "()");
  lsim_jaxpr_param(jp, "custom_call_api_version", "%d", api_version(p));
  lsim_jaxpr_param(jp, "has_side_effect", "%s", p->has_side_effect ? "True" : "False");
  for (size_t i = 0; i < eqn->num_operands; i++)
    ranks[i] = lsim_jaxpr_value_aval(jp, eqn->operands[i])->rank;
  layouts(&sb, ranks, eqn->num_operands);
  lsim_jaxpr_param(jp, "input_layouts", "%s", lsimp_strbuf_cstr(&sb));
  lsimp_strbuf_reset(&sb);
  char *aliases = lsim_io_aliases_repr(p->aliases, p->num_aliases);
  if (!aliases)
    lsim_jaxpr_fail(jp);
  lsim_jaxpr_param(jp, "input_output_aliases", "%s", aliases ? aliases : "");
  free(aliases);
  lsim_jaxpr_param(jp, "legacy_backend_config", "%s",
                   p->legacy_backend_config ? p->legacy_backend_config : "None");
  lsimp_strbuf_reset(&sb);
  for (size_t i = 0; i < eqn->num_results; i++)
    ranks[i] = eqn->results[i].rank;
  layouts(&sb, ranks, eqn->num_results);
  lsim_jaxpr_param(jp, "output_layouts", "%s", lsimp_strbuf_cstr(&sb));
  lsim_jaxpr_param_result_avals(jp, eqn);
  lsim_jaxpr_param(jp, "target_name", "%s", p->target_name);
  lsim_jaxpr_param(jp, "vmap_method", "%s", p->vmap_method ? p->vmap_method : "None");
  if (lsimp_strbuf_failed(&sb))
    lsim_jaxpr_fail(jp);
  lsimp_strbuf_free(&sb);
  free(ranks);
}

/* has_side_effect=True is an effect: jit keeps the call unused. */
static bool kept_when_unused(const void *params, const lsim_jax_profile *jax) {
  (void)jax;
  return ((const lsim_ffi_call_params *)params)->has_side_effect;
}

const lsim_primitive lsim_ffi_call_p = {.name = "ffi_call",
                                        .trace_check = ffi_call_check,
                                        .explain_params = explain_params,
                                        .jaxpr_params = jaxpr_params,
                                        .kept_when_unused = kept_when_unused};

/* ffi_call_lowering: ffi_lowering(target_name, has_side_effect=...,
 * operand_output_aliases=dict(input_output_aliases),
 * api_version=custom_call_api_version, backend_config=legacy_backend_config):
 * a dictionary config from version 4 on, else the legacy string. */
static int ffi_call_lowering(lsim_lowering_rule_context *ctx, const MlirValue *args,
                             MlirValue *results, const void *params, void *data,
                             lsim_error *err) {
  (void)data;
  const lsim_ffi_call_params *p = params;
  size_t m = p->num_aliases ? p->num_aliases : 1;
  lsim_io_alias *dict = lsim_malloc(m * sizeof *dict);
  lsim_operand_alias *aliases = lsim_malloc(m * sizeof *aliases);
  MlirType *types = lsim_malloc_array(ctx->num_avals_out, sizeof *types);
  size_t n = 0;
  int rc = dict && aliases && types && lsim_io_aliases_sorted(p->aliases, p->num_aliases, dict, &n)
               ? LSIM_OK
               : lsimp_fail_oom(err);
  for (size_t i = 0; i < n; i++)
    aliases[i] = (lsim_operand_alias){(size_t)dict[i].input, (size_t)dict[i].output};
  if (!rc && api_version(p) >= 4) {
    lsim_ffi_call call = {.target = p->target_name, .has_side_effect = p->has_side_effect,
                          .has_aliases = true, .aliases = aliases, .num_aliases = n};
    rc = lsim_emit_ffi_lowering_op(ctx, &call, args, results, err);
  } else if (!rc) {
    lsim_custom_call call = {.target = p->target_name, .has_side_effect = p->has_side_effect,
                             .backend_config = p->legacy_backend_config,
                             .api_version = api_version(p), .layouts = true,
                             .has_aliases = true, .aliases = aliases, .num_aliases = n};
    MlirOperation op;
    rc = lsim_lowering_rule_context_out_types(ctx, types, err);
    if (!rc)
      rc = lsim_emit_custom_call(&ctx->ip, &call, args, ctx->num_avals_in, types,
                                 ctx->num_avals_out, &op, err);
    for (size_t i = 0; !rc && i < ctx->num_avals_out; i++)
      results[i] = mlirOperationGetResult(op, (intptr_t)i);
  }
  free(dict);
  free(aliases);
  free(types);
  return rc;
}

int lsim_register_ffi_rules(lsim_registry *reg, lsim_error *err) {
  return lsim_register_lowering(reg, &lsim_ffi_call_p, (lsim_rule){ffi_call_lowering, NULL}, NULL,
                                err);
}
