/* lower/builtin_rules.c: the engine's own primitives.
 * JAX counterparts: lax elementwise lowerings (hlo.SineOp, ...),
 * lax/control_flow/conditionals.py platform_dependent, platform_index
 * lowering and _cond_lowering with branches_platforms, ffi.py ffi_lowering. */
#include "lower/internal.h"
#include "lowersim/emit.h"
#include "support/raise.h"
#include "support/strbuf.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static const struct {
  const char *primitive;
  const char *op;
} elementwise[] = {
    {"sin", "stablehlo.sine"},         {"cos", "stablehlo.cosine"},
    {"neg", "stablehlo.negate"},       {"exp", "stablehlo.exponential"},
    {"add", "stablehlo.add"},          {"mul", "stablehlo.multiply"},
    {"sub", "stablehlo.subtract"},
};

static int elementwise_rule(lsim_lowering_rule_context *ctx, const MlirValue *args,
                            MlirValue *results, const void *params, void *rule_data,
                            lsim_error *err) {
  (void)params;
  return lsim_emit_elementwise(ctx, rule_data, args, ctx->num_avals_in, &results[0], err);
}

/* --- ffi_lowering ------------------------------------------------------------ */

int lsim_ffi_lowering_rule(lsim_lowering_rule_context *ctx, const MlirValue *args,
                           MlirValue *results, const void *params, void *rule_data,
                           lsim_error *err) {
  (void)params;
  const lsim_ffi_rule_data *data = rule_data;
  if (data->backend_use != LSIM_BACKEND_USE_NONE) {
    const lsim_backend *backend;
    bool optional = data->backend_use == LSIM_BACKEND_USE_OPTIONAL;
    int rc = lsim_module_context_get_backend(ctx->module_context, optional, &backend, err);
    lsim_module_context_trace(ctx->module_context, LSIM_TRACE_DETAIL, 0,
                              "get_backend(optional=%s) -> %s", optional ? "True" : "False",
                              rc ? "raises" : backend ? backend->platform : "None");
    if (rc)
      return rc;
  }
  MlirOperation op;
  int rc = lsim_emit_ffi_call(ctx, data->target, false, NULL, 0, false, NULL, 0, args,
                              ctx->num_avals_in, false, &op, err);
  for (size_t i = 0; !rc && i < ctx->num_avals_out; i++)
    results[i] = mlirOperationGetResult(op, (intptr_t)i);
  return rc;
}

/* --- platform_dependent ------------------------------------------------------ */

static bool branch_has(const lsim_platform_branch *b, const char *platform) {
  for (size_t i = 0; i < b->num_platforms; i++)
    if (strcmp(b->platforms[i], platform) == 0)
      return true;
  return false;
}

/* lax.platform_dependent refuses a `gpu` key while tracing. */
static int platform_dependent_check(const lsim_aval *avals_in, size_t num_in,
                                    const lsim_aval *avals_out, size_t num_out,
                                    const void *params, void *data, lsim_error *err) {
  (void)avals_in, (void)num_in, (void)avals_out, (void)num_out, (void)data;
  const lsim_platform_dependent_params *p = params;
  for (size_t b = 0; b < p->num_branches; b++)
    if (branch_has(&p->branches[b], "gpu"))
      return lsimp_raise0(err, LSIM_E_PLATFORM_DEPENDENT_GPU);
  return LSIM_OK;
}

/* platform_index's rule for one branch: the branch number as an i32. */
static int constant_rule(lsim_lowering_rule_context *ctx, const MlirValue *args,
                         MlirValue *results, const void *params, void *rule_data,
                         lsim_error *err) {
  (void)args;
  (void)params;
  return lsim_emit_constant_i32(ctx, (int32_t)(intptr_t)rule_data, &results[0], err);
}

/* platform_index(platforms=(('tpu',), ('cuda', 'rocm'), None)). */
static char *platform_index_description(const lsim_platform_dependent_params *p) {
  lsimp_strbuf sb = LSIMP_STRBUF_INIT;
  lsimp_strbuf_puts(&sb, "platform_index(platforms=(");
  for (size_t b = 0; b < p->num_branches; b++) {
    if (b)
      lsimp_strbuf_puts(&sb, ", ");
    if (p->branches[b].platforms)
      lsimp_py_tuple(&sb, p->branches[b].platforms, p->branches[b].num_platforms);
    else
      lsimp_strbuf_puts(&sb, "None");
  }
  lsimp_strbuf_puts(&sb, p->num_branches == 1 ? ",))" : "))");
  return lsimp_strbuf_take(&sb);
}

static int lower_platform_index(lsim_lowering_rule_context *ctx,
                                const lsim_platform_dependent_params *p, MlirValue *index,
                                lsim_error *err) {
  size_t total = 0;
  for (size_t b = 0; b < p->num_branches; b++)
    total += p->branches[b].num_platforms;
  lsim_platform_rule *rules = malloc((total ? total : 1) * sizeof *rules);
  char *description = platform_index_description(p);
  if (!rules || !description) {
    free(rules);
    free(description);
    return lsimp_fail_oom(err);
  }
  /* A dict: a platform named twice keeps its first place, the later rule. */
  size_t n = 0;
  lsim_rule default_rule = {0};
  bool has_default = false;
  for (size_t b = 0; b < p->num_branches; b++) {
    lsim_rule rule = {constant_rule, (void *)(intptr_t)b};
    if (!p->branches[b].platforms) {
      default_rule = rule;
      has_default = true;
    }
    for (size_t i = 0; i < p->branches[b].num_platforms; i++) {
      size_t at = 0;
      while (at < n && strcmp(rules[at].platform, p->branches[b].platforms[i]) != 0)
        at++;
      rules[at] = (lsim_platform_rule){p->branches[b].platforms[i], rule};
      if (at == n)
        n++;
    }
  }
  static const lsim_aval i32_scalar = {.dtype = LSIM_DTYPE_I32};
  lsim_lowering_rule_context index_ctx = *ctx;
  index_ctx.primitive = "platform_index";
  index_ctx.num_avals_in = 0;
  index_ctx.avals_out = &i32_scalar;
  index_ctx.num_avals_out = 1;
  index_ctx.num_tokens_in = 0;
  lsim_module_context_trace(ctx->module_context, LSIM_TRACE_STEP, +1, "%s", description);
  int rc = lsim_lower_per_platform(&index_ctx, description, rules, n,
                                   has_default ? &default_rule : NULL, NULL, index, NULL, err);
  lsim_module_context_trace_nest(ctx->module_context, -1);
  free(rules);
  free(description);
  return rc;
}

/* Lowers one branch's function (an elementwise primitive over the operands)
 * into `block`, for the module's platforms, and returns its results. */
static int lower_branch(lsim_lowering_rule_context *ctx, const lsim_registry *reg,
                        const lsim_platform_branch *branch, MlirBlock block,
                        const MlirValue *args, lsim_error *err) {
  size_t n;
  const char *const *platforms = lsim_module_context_platforms(ctx->module_context, &n);
  lsim_platform_rule *rules = malloc(n * sizeof *rules);
  MlirValue *results = malloc((ctx->num_avals_out ? ctx->num_avals_out : 1) * sizeof *results);
  if (!rules || !results) {
    free(rules);
    free(results);
    return lsimp_fail_oom(err);
  }
  size_t num_rules;
  lsim_rule default_rule;
  bool has_default, inline_rule;
  lsim_registry_lookup(reg, branch->primitive, platforms, n, rules, &num_rules, &default_rule,
                       &has_default, &inline_rule);
  lsim_lowering_rule_context inner = lsim_lowering_rule_context_with_platforms(ctx, NULL, 0);
  inner.block = block;
  inner.primitive = branch->primitive;
  int rc = lsim_lower_per_platform(&inner, branch->primitive, rules, num_rules,
                                   has_default ? &default_rule : NULL, args, results, NULL, err);
  if (!rc)
    rc = lsim_emit_return(&inner, results, ctx->num_avals_out, err);
  free(rules);
  free(results);
  return rc;
}

/* _cond_lowering with branches_platforms: keep the branches some lowering
 * platform selects, map every branch to its kept position, then a case
 * over the kept branches. */
static int lower_cond(lsim_lowering_rule_context *ctx, const lsim_registry *reg,
                      const lsim_platform_dependent_params *p, MlirValue index,
                      const MlirValue *args, MlirValue *results, lsim_error *err) {
  size_t n;
  const char *const *platforms = lsim_lowering_rule_context_platforms(ctx, &n);
  int *kept_of = malloc(p->num_branches * sizeof *kept_of);
  size_t *kept = malloc(p->num_branches * sizeof *kept);
  MlirType *types = malloc((ctx->num_avals_out ? ctx->num_avals_out : 1) * sizeof *types);
  int rc = kept_of && kept && types ? LSIM_OK : lsimp_fail_oom(err);
  size_t num_kept = 0;
  for (size_t b = 0; !rc && b < p->num_branches; b++)
    kept_of[b] = -1;
  for (size_t i = 0; !rc && i < n; i++) {
    for (size_t b = 0; b < p->num_branches; b++) {
      if (!p->branches[b].platforms || branch_has(&p->branches[b], platforms[i])) {
        if (kept_of[b] < 0) {
          kept_of[b] = (int)num_kept;
          kept[num_kept++] = b;
          lsim_module_context_trace(ctx->module_context, LSIM_TRACE_DECISION, 0,
                                    "cond keeps branch %zu (%s) as %zu, first selected by %s", b,
                                    p->branches[b].primitive, num_kept - 1, platforms[i]);
        }
        break;
      }
    }
  }
  MlirOperation map_op, case_op;
  MlirContext mlir = lsim_module_context_mlir_context(ctx->module_context);
  MlirType i32 = lsim_i32_scalar_type(mlir);
  if (!rc)
    rc = lsim_emit_case(ctx, index, &i32, 1, p->num_branches, &map_op, err);
  for (size_t b = 0; !rc && b < p->num_branches; b++) {
    lsim_lowering_rule_context branch = *ctx;
    branch.block = lsim_case_branch(map_op, b);
    MlirValue k;
    rc = lsim_emit_constant_i32(&branch, kept_of[b] < 0 ? 0 : kept_of[b], &k, err);
    if (!rc)
      rc = lsim_emit_return(&branch, &k, 1, err);
  }
  for (size_t i = 0; !rc && i < ctx->num_avals_out; i++) {
    types[i] = lsim_module_context_aval_to_ir_type(ctx->module_context, &ctx->avals_out[i]);
    if (mlirTypeIsNull(types[i]))
      rc = lsimp_fail_oom(err);
  }
  if (!rc)
    rc = lsim_emit_case(ctx, mlirOperationGetResult(map_op, 0), types, ctx->num_avals_out,
                        num_kept, &case_op, err);
  lsim_module_context *mc = ctx->module_context;
  for (size_t k = 0; !rc && k < num_kept; k++) {
    lsim_module_context_trace(mc, LSIM_TRACE_STEP, +1, "cond branch %zu: %s", k,
                              p->branches[kept[k]].primitive);
    rc = lower_branch(ctx, reg, &p->branches[kept[k]], lsim_case_branch(case_op, k), args, err);
    lsim_module_context_trace_nest(mc, -1);
  }
  for (size_t i = 0; !rc && i < ctx->num_avals_out; i++)
    results[i] = mlirOperationGetResult(case_op, (intptr_t)i);
  free(kept_of);
  free(kept);
  free(types);
  return rc;
}

static int platform_dependent_rule(lsim_lowering_rule_context *ctx, const MlirValue *args,
                                   MlirValue *results, const void *params, void *rule_data,
                                   lsim_error *err) {
  const lsim_platform_dependent_params *p = params;
  MlirValue index;
  int rc = lower_platform_index(ctx, p, &index, err);
  if (!rc)
    rc = lower_cond(ctx, rule_data, p, index, args, results, err);
  return rc;
}

int lsim_register_builtin_rules(lsim_registry *reg, lsim_error *err) {
  int rc = LSIM_OK;
  for (size_t i = 0; !rc && i < sizeof elementwise / sizeof elementwise[0]; i++)
    rc = lsim_register_lowering(reg, elementwise[i].primitive,
                                (lsim_rule){elementwise_rule, (void *)elementwise[i].op}, NULL,
                                true, err);
  if (!rc)
    rc = lsim_register_lowering(reg, LSIM_PRIMITIVE_PLATFORM_DEPENDENT,
                                (lsim_rule){platform_dependent_rule, reg}, NULL, true, err);
  if (!rc)
    rc = lsim_registry_set_trace_check(reg, LSIM_PRIMITIVE_PLATFORM_DEPENDENT,
                                       platform_dependent_check, NULL, err);
  return rc;
}

int lsim_registry_create_builtin(lsim_runtime *runtime, lsim_registry **out, lsim_error *err) {
  int rc = lsim_registry_create(runtime, NULL, out, err);
  if (!rc && (rc = lsim_register_builtin_rules(*out, err))) {
    lsim_registry_destroy(*out);
    *out = NULL;
  }
  return rc;
}
