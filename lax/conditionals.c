/* lax/conditionals.c: lax.platform_dependent under jit.
 * JAX counterparts: lax/control_flow/conditionals.py platform_dependent
 * (its `gpu` check), the platform_index lowering and _cond_lowering with
 * branches_platforms, whose branches are lowered with mlir.jaxpr_subcomp. */
#include "lowersim/conditionals.h"
#include "lowersim/emit.h"
#include "lowersim/jaxpr_subcomp.h"
#include "lowersim/lower_per_platform.h"
#include "support/alloc.h"
#include "support/name_index.h"
#include "support/raise.h"
#include "support/strbuf.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *branch_name(const lsim_platform_branch *b) {
  return b->jaxpr && b->jaxpr->function_name ? b->jaxpr->function_name : "?";
}

static bool branch_has(const lsim_platform_branch *b, const char *platform) {
  for (size_t i = 0; i < b->num_platforms; i++)
    if (strcmp(b->platforms[i], platform) == 0)
      return true;
  return false;
}

/* lax.platform_dependent refuses a `gpu` key while joining its branches,
 * then switch traces each branch in order (the joined per-platform ones,
 * the default last), whose equations check their operands. */
static int platform_dependent_check(const lsim_aval *avals_in, size_t num_in,
                                    const lsim_aval *avals_out, size_t num_out,
                                    const void *params, const lsim_jax_profile *jax,
                                    lsim_error *err) {
  (void)avals_in, (void)num_in, (void)avals_out, (void)num_out;
  const lsim_platform_dependent_params *p = params;
  for (size_t b = 0; b < p->num_branches; b++)
    if (branch_has(&p->branches[b], "gpu"))
      return lsimp_raise(err, LSIM_E_PLATFORM_DEPENDENT_GPU,
                         lsim_jax_profile_or_default(jax)->platform_dependent_gpu_platforms);
  int rc = LSIM_OK;
  for (size_t b = 0; !rc && b < p->num_branches; b++)
    if (p->branches[b].jaxpr)
      rc = lsim_program_trace_for(p->branches[b].jaxpr, jax, err);
  return rc;
}

/* `branches=(sin, cos, neg)`: the branches' functions, default last. */
static int explain_params(const void *params, char *buf, size_t size) {
  const lsim_platform_dependent_params *p = params;
  lsimp_strbuf sb = LSIMP_STRBUF_INIT;
  lsimp_strbuf_puts(&sb, "branches=(");
  for (size_t b = 0; b < p->num_branches; b++)
    lsimp_strbuf_printf(&sb, "%s%s", b ? ", " : "", branch_name(&p->branches[b]));
  lsimp_strbuf_puts(&sb, p->num_branches == 1 ? ",)" : ")");
  int n = snprintf(buf, size, "%s", lsimp_strbuf_cstr(&sb));
  lsimp_strbuf_free(&sb);
  return n;
}

/* In the jaxpr, platform_dependent is what it binds: platform_index
 * without operands, then the cond of its branches on that index:
 *   b:i32[] = platform_index[platforms=(('tpu',), ('cuda', 'rocm'), None)]
 *   c:f32[4] = cond[branches=(...) branches_platforms=(...)] b a */
static void jaxpr_eqns(const lsim_eqn *eqn, const lsim_jax_profile *jax, lsim_jaxpr_printer *jp) {
  (void)jax;
  const lsim_platform_dependent_params *p = eqn->params;
  lsimp_strbuf platforms = LSIMP_STRBUF_INIT;
  lsimp_strbuf_putc(&platforms, '(');
  for (size_t b = 0; b < p->num_branches; b++) {
    if (b)
      lsimp_strbuf_puts(&platforms, ", ");
    if (p->branches[b].platforms)
      lsimp_py_tuple(&platforms, p->branches[b].platforms, p->branches[b].num_platforms);
    else
      lsimp_strbuf_puts(&platforms, "None");
  }
  lsimp_strbuf_puts(&platforms, p->num_branches == 1 ? ",)" : ")");
  const lsim_program **jaxprs = lsim_malloc_array(p->num_branches, sizeof *jaxprs);
  size_t *operands = lsim_malloc_array(eqn->num_operands + 1, sizeof *operands);
  if (!jaxprs || !operands || lsimp_strbuf_failed(&platforms)) {
    lsim_jaxpr_fail(jp);
  } else {
    const lsim_aval index = {.dtype = LSIM_DTYPE_I32};
    operands[0] = lsim_jaxpr_eqn_begin(jp, "platform_index", NULL, 0, &index, 1);
    lsim_jaxpr_param(jp, "platforms", "%s", lsimp_strbuf_cstr(&platforms));
    lsim_jaxpr_eqn_end(jp);
    memcpy(operands + 1, eqn->operands, eqn->num_operands * sizeof *operands);
    for (size_t b = 0; b < p->num_branches; b++)
      jaxprs[b] = p->branches[b].jaxpr;
    lsim_jaxpr_eqn_begin(jp, "cond", operands, eqn->num_operands + 1, eqn->results,
                         eqn->num_results);
    lsim_jaxpr_param_jaxprs(jp, "branches", jaxprs, p->num_branches);
    lsim_jaxpr_param(jp, "branches_platforms", "%s", lsimp_strbuf_cstr(&platforms));
    lsim_jaxpr_eqn_end(jp);
  }
  free(jaxprs);
  free(operands);
  lsimp_strbuf_free(&platforms);
}

const lsim_primitive lsim_platform_dependent_p = {
    .name = "platform_dependent", .trace_check = platform_dependent_check,
    .explain_params = explain_params, .jaxpr_eqns = jaxpr_eqns};

/* --- platform_index ------------------------------------------------------------ */

/* platform_index's rule for one branch: the branch number as an i32. */
static int constant_rule(lsim_lowering_rule_context *ctx, const MlirValue *args,
                         MlirValue *results, const void *params, void *branch, lsim_error *err) {
  (void)args, (void)params;
  return lsim_emit_constant_i32(&ctx->ip, (int32_t)(intptr_t)branch, &results[0], err);
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

/* The platform rules of platform_index: a dict, so a platform named twice
 * keeps its first place and its later rule.  Returns their number, or
 * SIZE_MAX when out of memory. */
static size_t platform_index_rules(const lsim_platform_dependent_params *p,
                                   lsim_platform_rule *rules, lsim_rule *default_rule,
                                   bool *has_default) {
  size_t n = 0;
  lsimp_name_index place = LSIMP_NAME_INDEX_INIT; /* platform -> its place in rules */
  *has_default = false;
  for (size_t b = 0; b < p->num_branches; b++) {
    lsim_rule rule = {constant_rule, (void *)(intptr_t)b};
    if (!p->branches[b].platforms) {
      *default_rule = rule;
      *has_default = true;
    }
    for (size_t i = 0; i < p->branches[b].num_platforms; i++) {
      size_t at = n;
      if (!lsimp_name_index_add(&place, p->branches[b].platforms[i], &at)) {
        lsimp_name_index_free(&place);
        return SIZE_MAX;
      }
      rules[at] = (lsim_platform_rule){p->branches[b].platforms[i], rule};
      if (at == n)
        n++;
    }
  }
  lsimp_name_index_free(&place);
  return n;
}

static int lower_platform_index(lsim_lowering_rule_context *ctx,
                                const lsim_platform_dependent_params *p, MlirValue *index,
                                lsim_error *err) {
  size_t total = 0;
  for (size_t b = 0; b < p->num_branches; b++)
    total += p->branches[b].num_platforms;
  lsim_platform_rule *rules = lsim_malloc_array(total, sizeof *rules);
  char *description = platform_index_description(p);
  lsim_rule default_rule = {0};
  bool has_default;
  size_t n = rules && description ? platform_index_rules(p, rules, &default_rule, &has_default)
                                  : SIZE_MAX;
  if (n == SIZE_MAX) {
    free(rules);
    free(description);
    return lsimp_fail_oom(err);
  }
  static const lsim_aval i32_scalar = {.dtype = LSIM_DTYPE_I32};
  static const lsim_primitive platform_index_p = {.name = "platform_index"};
  lsim_lowering_rule_context index_ctx = *ctx;
  index_ctx.primitive = &platform_index_p;
  index_ctx.num_avals_in = 0;
  index_ctx.avals_out = &i32_scalar;
  index_ctx.num_avals_out = 1;
  index_ctx.num_tokens_in = 0;
  lsim_module_context_explain_source(ctx->module_context, LSIM_JAX_SOURCE("jax/_src/lax/control_flow/conditionals.py", "_platform_index_lowering"));
  lsim_module_context_explain(ctx->module_context, LSIM_EXPLAIN_STEP, +1, "%s", description);
  int rc = lsim_lower_per_platform(&index_ctx, description, rules, n,
                                   has_default ? &default_rule : NULL, NULL, index, NULL, err);
  /* platform_index is an equation of its own: its result, the case when
   * there is one, is wrapped in the compute type as well. */
  if (!rc)
    lsim_wrap_compute_type_in_place(&index_ctx, index, 1);
  lsim_module_context_explain_nest(ctx->module_context, -1);
  free(rules);
  free(description);
  return rc;
}

/* --- cond ---------------------------------------------------------------------- */

/* The branch platform `name` selects: the first one naming it or the first
 * default, whichever comes first.  `first_with` maps a platform to the first
 * branch naming it. */
static size_t selected_branch(const lsimp_name_index *first_with, size_t first_default,
                              const char *name) {
  size_t b;
  if (lsimp_name_index_find(first_with, name, &b) && b < first_default)
    return b;
  return first_default;
}

/* The kept branches: those some lowering platform selects, in the order the
 * platforms first select them; kept_of[b] is branch b's kept position or
 * -1.  Returns how many are kept, or SIZE_MAX when out of memory. */
static size_t keep_branches(const lsim_lowering_rule_context *ctx,
                            const lsim_platform_dependent_params *p, int *kept_of, size_t *kept) {
  size_t n, num_kept = 0, first_default = p->num_branches;
  const char *const *platforms = lsim_lowering_rule_context_platforms(ctx, &n);
  lsimp_name_index first_with = LSIMP_NAME_INDEX_INIT;
  for (size_t b = p->num_branches; b-- > 0;) {
    kept_of[b] = -1;
    if (!p->branches[b].platforms)
      first_default = b;
    for (size_t i = 0; i < p->branches[b].num_platforms; i++)
      if (!lsimp_name_index_set(&first_with, p->branches[b].platforms[i], b)) {
        lsimp_name_index_free(&first_with);
        return SIZE_MAX;
      }
  }
  for (size_t i = 0; i < n; i++) {
    size_t b = selected_branch(&first_with, first_default, platforms[i]);
    if (b == p->num_branches || kept_of[b] >= 0)
      continue;
    kept_of[b] = (int)num_kept;
    kept[num_kept++] = b;
    lsim_module_context_explain(ctx->module_context, LSIM_EXPLAIN_DECISION, 0,
                                "cond keeps branch %zu (%s) as %zu, first selected by %s", b,
                                branch_name(&p->branches[b]), num_kept - 1, platforms[i]);
  }
  lsimp_name_index_free(&first_with);
  return num_kept;
}

/* The first case: every branch's index -> its kept position (0 when not
 * kept). */
static int emit_kept_index(lsim_lowering_rule_context *ctx, MlirValue index, const int *kept_of,
                           size_t num_branches, MlirValue *out, lsim_error *err) {
  MlirType i32 = lsim_i32_scalar_type(ctx->ip.context);
  MlirOperation map_op;
  int rc = lsim_emit_case(&ctx->ip, index, &i32, 1, num_branches, &map_op, err);
  for (size_t b = 0; !rc && b < num_branches; b++) {
    lsim_insertion_point branch = lsim_insertion_point_in(&ctx->ip, lsim_case_branch(map_op, b));
    MlirValue k;
    rc = lsim_emit_constant_i32(&branch, kept_of[b] < 0 ? 0 : kept_of[b], &k, err);
    if (!rc)
      rc = lsim_emit_return(&branch, &k, 1, err);
  }
  if (!rc)
    *out = mlirOperationGetResult(map_op, 0);
  return rc;
}

/* One kept branch's function, lowered by jaxpr_subcomp into `block` with the
 * module's platforms, returning its tokens and results. */
static int lower_branch(lsim_lowering_rule_context *ctx, const lsim_registry *reg,
                        const lsim_platform_branch *branch, MlirBlock block,
                        const MlirValue *args, size_t num_tokens, lsim_error *err) {
  lsim_insertion_point ip = lsim_insertion_point_in(&ctx->ip, block);
  size_t num_results = num_tokens + ctx->num_avals_out;
  MlirValue *results = lsim_malloc_array(num_results, sizeof *results);
  if (!results)
    return lsimp_fail_oom(err);
  /* The branch threads the equation's token for the kind its program has. */
  lsim_effect_kind kind;
  MlirValue token = num_tokens ? ctx->tokens_in[0] : (MlirValue){NULL};
  size_t kinds = lsim_program_ordered_effects(branch->jaxpr, &kind, 1);
  lsim_token_set tokens = {&kind, &token, num_tokens && kinds ? 1 : 0};
  lsim_subcomp_inputs in = {args, &tokens, ctx->dim_var_values, ctx->num_dim_var_values, NULL,
                            ctx->compute_type, NULL};
  int rc = lsim_jaxpr_subcomp(ctx->module_context, reg, branch->jaxpr, &ip, &in,
                              results + num_tokens, err);
  if (!rc && num_tokens)
    results[0] = token;
  if (!rc)
    rc = lsim_emit_return(&ip, results, num_results, err);
  free(results);
  return rc;
}

/* How many tokens the branches thread: the equation's, when a branch has an
 * ordered effect (core.join_effects of the branches). */
static size_t branch_tokens(const lsim_lowering_rule_context *ctx,
                            const lsim_platform_dependent_params *p) {
  for (size_t b = 0; b < p->num_branches; b++)
    if (lsim_program_has_ordered_effects(p->branches[b].jaxpr))
      return ctx->num_tokens_in;
  return 0;
}

/* The case over the kept branches, each lowered as its function. */
static int emit_branches(lsim_lowering_rule_context *ctx, const lsim_registry *reg,
                         const lsim_platform_dependent_params *p, const size_t *kept,
                         size_t num_kept, MlirValue index, const MlirValue *args,
                         MlirValue *results, lsim_error *err) {
  size_t num_tokens = branch_tokens(ctx, p), num_types = num_tokens + ctx->num_avals_out;
  MlirType *types = lsim_malloc_array(num_types, sizeof *types);
  if (!types)
    return lsimp_fail_oom(err);
  for (size_t t = 0; t < num_tokens; t++)
    types[t] = lsim_token_type(ctx->ip.context);
  int rc = lsim_lowering_rule_context_out_types(ctx, types + num_tokens, err);
  MlirOperation case_op;
  if (!rc)
    rc = lsim_emit_case(&ctx->ip, index, types, num_types, num_kept, &case_op, err);
  lsim_module_context *mc = ctx->module_context;
  for (size_t k = 0; !rc && k < num_kept; k++) {
    const lsim_platform_branch *branch = &p->branches[kept[k]];
    lsim_module_context_explain_source(mc, LSIM_JAX_SOURCE("jax/_src/lax/control_flow/conditionals.py", "_cond_lowering"));
    lsim_module_context_explain(mc, LSIM_EXPLAIN_STEP, +1, "cond branch %zu: %s", k,
                                branch_name(branch));
    rc = lower_branch(ctx, reg, branch, lsim_case_branch(case_op, k), args, num_tokens, err);
    lsim_module_context_explain_nest(mc, -1);
  }
  for (size_t t = 0; !rc && t < num_tokens; t++)
    ctx->tokens_out[t] = mlirOperationGetResult(case_op, (intptr_t)t);
  if (!rc && num_tokens)
    ctx->num_tokens_out = num_tokens;
  for (size_t i = 0; !rc && i < ctx->num_avals_out; i++)
    results[i] = mlirOperationGetResult(case_op, (intptr_t)(num_tokens + i));
  free(types);
  return rc;
}

/* _cond_lowering with branches_platforms: keep the branches some lowering
 * platform selects, map every branch to its kept position, then a case over
 * the kept branches. */
static int lower_cond(lsim_lowering_rule_context *ctx, const lsim_registry *reg,
                      const lsim_platform_dependent_params *p, MlirValue index,
                      const MlirValue *args, MlirValue *results, lsim_error *err) {
  int *kept_of = lsim_malloc_array(p->num_branches, sizeof *kept_of);
  size_t *kept = lsim_malloc_array(p->num_branches, sizeof *kept);
  size_t num_kept = kept_of && kept ? keep_branches(ctx, p, kept_of, kept) : SIZE_MAX;
  int rc = num_kept == SIZE_MAX ? lsimp_fail_oom(err) : LSIM_OK;
  if (!rc)
    lsim_module_context_explain(ctx->module_context, LSIM_EXPLAIN_DECISION, 0,
                                "cond's stablehlo.case (branch index -> kept branch), then "
                                "stablehlo.case over the %zu kept branch%s",
                                num_kept, num_kept == 1 ? "" : "es");
  MlirValue kept_index;
  if (!rc)
    rc = emit_kept_index(ctx, index, kept_of, p->num_branches, &kept_index, err);
  if (!rc)
    rc = emit_branches(ctx, reg, p, kept, num_kept, kept_index, args, results, err);
  free(kept_of);
  free(kept);
  return rc;
}

static int platform_dependent_rule(lsim_lowering_rule_context *ctx, const MlirValue *args,
                                   MlirValue *results, const void *params, void *reg,
                                   lsim_error *err) {
  const lsim_platform_dependent_params *p = params;
  MlirValue index;
  /* Said once, so that the cases below are not read as this rule's. */
  lsim_module_context_explain(ctx->module_context, LSIM_EXPLAIN_DETAIL, 0,
                              "platform_dependent's rule: platform_index's own lower_per_platform "
                              "gives the branch index, then a cond's stablehlo.case picks the "
                              "branch");
  int rc = lower_platform_index(ctx, p, &index, err);
  return rc ? rc : lower_cond(ctx, reg, p, index, args, results, err);
}

int lsim_register_conditionals_rules(lsim_registry *reg, lsim_error *err) {
  return lsim_register_lowering(reg, &lsim_platform_dependent_p,
                                (lsim_rule){platform_dependent_rule, reg}, NULL, err);
}
