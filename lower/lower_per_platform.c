/* lower/lower_per_platform.c: one equation lowered for one or several
 * platforms.  JAX counterpart: mlir.py lower_per_platform, with
 * wrap_compute_type_in_place on each rule's results (map_compute_type,
 * _update_frontend_attributes). */
#include "lowersim/lower_per_platform.h"
#include "lowersim/emit.h"
#include "support/alloc.h"
#include "support/name_index.h"
#include "support/raise.h"
#include "support/strbuf.h"

#include <mlir-c/BuiltinAttributes.h>
#include <mlir-c/BuiltinTypes.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *lsim_map_compute_type(const char *c_type) {
  if (strcmp(c_type, "device_host") == 0)
    return "host";
  if (strcmp(c_type, "device") == 0)
    return "dense";
  if (strcmp(c_type, "tpu_sparsecore") == 0)
    return "sparseoffload";
  return NULL;
}

/* mlir.py _update_frontend_attributes: the op's dictionary, then `attrs`. */
static void update_frontend_attributes(MlirContext mlir, MlirOperation op,
                                       const MlirNamedAttribute *attrs, size_t count) {
  MlirStringRef key = mlirStringRefCreateFromCString("mhlo.frontend_attributes");
  MlirAttribute old = mlirOperationGetAttributeByName(op, key);
  size_t n_old = !mlirAttributeIsNull(old) && mlirAttributeIsADictionary(old)
                     ? (size_t)mlirDictionaryAttrGetNumElements(old)
                     : 0;
  MlirNamedAttribute merged[8];
  size_t n = 0;
  for (size_t i = 0; i < n_old && n < 8; i++) {
    MlirNamedAttribute a = mlirDictionaryAttrGetElement(old, (intptr_t)i);
    bool replaced = false;
    for (size_t j = 0; j < count; j++)
      replaced = replaced || mlirIdentifierEqual(a.name, attrs[j].name);
    if (!replaced)
      merged[n++] = a;
  }
  for (size_t j = 0; j < count && n < 8; j++)
    merged[n++] = attrs[j];
  mlirOperationSetAttributeByName(op, key, mlirDictionaryAttrGet(mlir, (intptr_t)n, merged));
}

size_t lsim_compute_type_attributes(MlirContext mlir, const char *compute_type,
                                    MlirNamedAttribute attrs[2]) {
  if (strncmp(compute_type, "gpu_stream:", 11) == 0) {
    attrs[0] = lsim_named(mlir, "_xla_stream_annotation", lsim_string_attr(mlir, compute_type + 11));
    attrs[1] = lsim_named(mlir, "inlineable", lsim_string_attr(mlir, "false"));
    return 2;
  }
  const char *mapped = lsim_map_compute_type(compute_type);
  if (!mapped)
    return 0; /* refused when the equation was made */
  attrs[0] = lsim_named(mlir, "_xla_compute_type", lsim_string_attr(mlir, mapped));
  return 1;
}

void lsim_wrap_compute_type_in_place(const lsim_lowering_rule_context *ctx,
                                     const MlirValue *values, size_t count) {
  if (!ctx->compute_type)
    return;
  MlirContext mlir = ctx->ip.context;
  MlirNamedAttribute attrs[2];
  size_t n = lsim_compute_type_attributes(mlir, ctx->compute_type, attrs);
  for (size_t i = 0; n && i < count; i++)
    if (!mlirValueIsABlockArgument(values[i]))
      update_frontend_attributes(mlir, mlirOpResultGetOwner(values[i]), attrs, n);
}

/* `op` and what it holds, but constants and ops without results (returns:
 * JAX wraps what a rule returns). */
static void wrap_tree(MlirContext mlir, MlirOperation op, const MlirNamedAttribute *attrs,
                      size_t n) {
  MlirStringRef name = mlirIdentifierStr(mlirOperationGetName(op));
  if (mlirOperationGetNumResults(op) > 0 &&
      !(name.length == 18 && memcmp(name.data, "stablehlo.constant", 18) == 0))
    update_frontend_attributes(mlir, op, attrs, n);
  for (intptr_t r = 0; r < mlirOperationGetNumRegions(op); r++)
    for (MlirBlock b = mlirRegionGetFirstBlock(mlirOperationGetRegion(op, r)); !mlirBlockIsNull(b);
         b = mlirBlockGetNextInRegion(b))
      for (MlirOperation o = mlirBlockGetFirstOperation(b); !mlirOperationIsNull(o);
           o = mlirOperationGetNextInBlock(o))
        wrap_tree(mlir, o, attrs, n);
}

void lsim_wrap_compute_type_from(const lsim_lowering_rule_context *ctx, MlirOperation first) {
  if (!ctx->compute_type || mlirOperationIsNull(first))
    return;
  MlirContext mlir = ctx->ip.context;
  MlirNamedAttribute attrs[2];
  size_t n = lsim_compute_type_attributes(mlir, ctx->compute_type, attrs);
  for (MlirOperation o = first; n && !mlirOperationIsNull(o); o = mlirOperationGetNextInBlock(o))
    wrap_tree(mlir, o, attrs, n);
}

static int not_found(const char *description, const char *const *platforms, size_t n,
                     bool singular, lsim_error *err) {
  lsimp_strbuf which = LSIMP_STRBUF_INIT;
  if (singular) {
    lsimp_strbuf_printf(&which, "platform %s", platforms[0]);
  } else {
    lsimp_strbuf_puts(&which, "platforms ");
    lsimp_py_list(&which, platforms, n);
  }
  int rc = lsimp_strbuf_failed(&which)
               ? lsimp_fail_oom(err)
               : lsimp_raise(err, LSIM_E_NO_LOWERING_RULE, description, lsimp_strbuf_cstr(&which));
  lsimp_strbuf_free(&which);
  return rc;
}

/* The plan: kept rules and, per lowering platform, the index of its rule.
 * JAX keeps platform -> rule index in a dict, so a platform named twice in
 * the lowering platforms has one entry; `order` lists the dict's keys in
 * insertion order, and `sharing` the same keys grouped by kept rule (rule k's
 * platforms are sharing[start[k]] .. sharing[start[k + 1] - 1], in the dict's
 * order).  Every step is linear in the number of platforms and rules: the
 * platforms are looked up through a hash table, never by a scan. */
typedef struct plan {
  lsim_rule *kept;
  size_t num_kept;
  int *rule_of;            /* per lowering platform (repeats share their entry) */
  const char **order;      /* distinct platforms, in the dict's order */
  size_t num_order;
  size_t *order_at;        /* where each key first occurs in the lowering platforms */
  const char **sharing;    /* `order` grouped by rule */
  size_t *start;           /* per kept rule, then the end */
  int default_index;       /* the default rule's place in kept, or -1 */
} plan;

static void plan_free(plan *p) {
  free(p->kept);
  free(p->rule_of);
  free(p->order);
  free(p->order_at);
  free(p->sharing);
  free(p->start);
}

/* The platforms sharing kept rule k, in the order JAX's dict holds them. */
static const char *const *sharing_rule(const plan *p, size_t k, size_t *count) {
  *count = p->start[k + 1] - p->start[k];
  return p->sharing + p->start[k];
}

/* `first[i]`: where platform i first occurs in the lowering platforms. */
static bool first_occurrences(const char *const *platforms, size_t n, lsimp_name_index *ix,
                              size_t *first) {
  for (size_t i = 0; i < n; i++) {
    first[i] = i;
    if (!lsimp_name_index_add(ix, platforms[i], &first[i]))
      return false;
  }
  return true;
}

/* dict[platform] = k, its first occurrence standing for all of them. */
static void plan_set(plan *p, size_t first, int k, const char *const *platforms) {
  p->rule_of[first] = k;
  p->order_at[p->num_order] = first;
  p->order[p->num_order++] = platforms[first];
}

/* Every occurrence gets its first occurrence's rule, and the dict's keys
 * are grouped by rule (a counting sort, so each group keeps the dict's
 * order).  `next` has room for a place per kept rule. */
static void group_by_rule(plan *p, size_t n, const size_t *first, size_t *next) {
  for (size_t i = 0; i < n; i++)
    p->rule_of[i] = p->rule_of[first[i]];
  for (size_t k = 0; k <= p->num_kept; k++)
    p->start[k] = 0;
  for (size_t o = 0; o < p->num_order; o++)
    p->start[p->rule_of[p->order_at[o]] + 1]++;
  for (size_t k = 0; k < p->num_kept; k++) {
    p->start[k + 1] += p->start[k];
    next[k] = p->start[k];
  }
  for (size_t o = 0; o < p->num_order; o++)
    p->sharing[next[p->rule_of[p->order_at[o]]]++] = p->order[o];
}

static int make_plan(const char *description, const char *const *platforms, size_t n,
                     const lsim_platform_rule *platform_rules, size_t num_platform_rules,
                     const lsim_rule *default_rule, plan *p, lsim_error *err) {
  *p = (plan){.default_index = -1};
  p->kept = lsim_malloc_array(n + 1, sizeof *p->kept);
  p->rule_of = lsim_malloc_array(n, sizeof *p->rule_of);
  p->order = lsim_malloc_array(n, sizeof *p->order);
  p->order_at = lsim_malloc_array(n, sizeof *p->order_at);
  p->sharing = lsim_malloc_array(n, sizeof *p->sharing);
  p->start = lsim_malloc_array(n + 2, sizeof *p->start);
  const char **without = lsim_malloc_array(n, sizeof *without);
  size_t *first = lsim_malloc_array(n, sizeof *first);
  size_t *next = lsim_malloc_array(n + 1, sizeof *next);
  lsimp_name_index ix = LSIMP_NAME_INDEX_INIT;
  bool ok = p->kept && p->rule_of && p->order && p->order_at && p->sharing && p->start &&
            without && first && next && first_occurrences(platforms, n, &ix, first);
  int rc = ok ? LSIM_OK : lsimp_fail_oom(err);
  for (size_t i = 0; !rc && i < n; i++)
    p->rule_of[i] = -1;
  for (size_t r = 0; !rc && r < num_platform_rules; r++) {
    size_t i;
    if (!lsimp_name_index_find(&ix, platform_rules[r].platform, &i) || p->rule_of[i] >= 0)
      continue;
    plan_set(p, i, (int)p->num_kept, platforms);
    p->kept[p->num_kept++] = platform_rules[r].rule;
  }
  size_t num_without = 0;
  for (size_t i = 0; !rc && i < n; i++)
    if (p->rule_of[first[i]] < 0)
      without[num_without++] = platforms[i];
  if (!rc && num_without && !default_rule) {
    rc = not_found(description, without, num_without, false, err);
  } else if (!rc && num_without) {
    p->default_index = (int)p->num_kept;
    for (size_t i = 0; i < n; i++)
      if (first[i] == i && p->rule_of[i] < 0)
        plan_set(p, i, p->default_index, platforms);
    p->kept[p->num_kept++] = *default_rule;
  }
  if (!rc)
    group_by_rule(p, n, first, next);
  lsimp_name_index_free(&ix);
  free(without);
  free(first);
  free(next);
  if (rc)
    plan_free(p);
  return rc;
}

/* Whose lower_per_platform this is: the equation's (jaxpr_subcomp's), or,
 * inside a rule, that rule's own (platform_index's, pallas_call's), named
 * by the primitive the rule context lowers, else the description. */
static void plan_owner(const lsim_lowering_rule_context *ctx, const char *description,
                       char *out, size_t size) {
  const char *name = ctx->primitive && ctx->primitive->name ? ctx->primitive->name : description;
  if (ctx->in_rule)
    snprintf(out, size, "%s's own lower_per_platform, inside the rule above", name);
  else
    snprintf(out, size, "lower_per_platform(%s)", name);
}

/* The plan, headed by whose lower_per_platform it is: one rule is applied
 * once with no case of its own (a case below it is a nested
 * lower_per_platform's); several are "kept rule K: WHAT for PLATFORMS"
 * lines, which explain --html draws. */
static void narrate_plan(lsim_lowering_rule_context *ctx, const char *description,
                         const char *const *platforms, size_t n, const plan *p) {
  lsim_module_context *mc = ctx->module_context;
  if (!lsim_module_context_explaining(mc))
    return;
  char owner[160];
  plan_owner(ctx, description, owner, sizeof owner);
  lsimp_strbuf line = LSIMP_STRBUF_INIT;
  if (p->num_kept == 1) {
    size_t count;
    const char *const *sharing = sharing_rule(p, 0, &count);
    lsimp_join(&line, sharing, count, ", ");
    lsim_module_context_explain(mc, LSIM_EXPLAIN_DECISION, 0,
                                "%s: one rule, %s, for %s: applied once, "
                                "no stablehlo.case of its own",
                                owner, p->default_index == 0 ? "the default rule" : "the platform rule",
                                lsimp_strbuf_cstr(&line));
    lsimp_strbuf_free(&line);
    return;
  }
  lsimp_join(&line, platforms, n, ", ");
  lsim_module_context_explain(mc, LSIM_EXPLAIN_DECISION, 0,
                              "%s: %zu kept rules for %s: stablehlo.case "
                              "(platform index -> rule index), then stablehlo.case over the rules",
                              owner, p->num_kept, lsimp_strbuf_cstr(&line));
  for (size_t k = 0; k < p->num_kept; k++) {
    lsimp_strbuf_reset(&line);
    size_t count;
    const char *const *sharing = sharing_rule(p, k, &count);
    lsimp_join(&line, sharing, count, ", ");
    const char *what = (int)k == p->default_index ? "the default rule" : "the platform rule";
    lsim_module_context_explain(mc, LSIM_EXPLAIN_DECISION, 0, "kept rule %zu: %s for %s", k, what,
                                lsimp_strbuf_cstr(&line));
  }
  lsimp_strbuf_free(&line);
}

/* The result types of the case ops: a token per ordered effect, then the
 * equation's results. */
static MlirType *case_result_types(lsim_lowering_rule_context *ctx, size_t *count) {
  size_t n = ctx->num_tokens_in + ctx->num_avals_out;
  MlirType *types = lsim_malloc_array(n, sizeof *types);
  if (!types)
    return NULL;
  for (size_t i = 0; i < ctx->num_tokens_in; i++)
    types[i] = lsim_token_type(ctx->ip.context);
  if (lsim_lowering_rule_context_out_types(ctx, types + ctx->num_tokens_in, NULL)) {
    free(types);
    return NULL;
  }
  *count = n;
  return types;
}

/* The first case: platform index -> index of the platform's kept rule. */
static int emit_rule_index(lsim_lowering_rule_context *ctx, const plan *p, size_t n,
                           MlirValue *rule_index, lsim_error *err) {
  MlirType i32 = lsim_i32_scalar_type(ctx->ip.context);
  MlirValue platform_index = ctx->dim_var_values[0];
  int rc = LSIM_OK;
  if (!mlirTypeEqual(mlirValueGetType(platform_index), i32))
    rc = lsim_emit_convert(&ctx->ip, platform_index, i32, &platform_index, err);
  MlirOperation case_op;
  if (rc || (rc = lsim_emit_case(&ctx->ip, platform_index, &i32, 1, n, &case_op, err)))
    return rc;
  for (size_t i = 0; i < n && !rc; i++) {
    lsim_insertion_point branch = lsim_insertion_point_in(&ctx->ip, lsim_case_branch(case_op, i));
    MlirValue k;
    rc = lsim_emit_constant_i32(&branch, p->rule_of[i], &k, err);
    if (!rc)
      rc = lsim_emit_return(&branch, &k, 1, err);
  }
  *rule_index = mlirOperationGetResult(case_op, 0);
  return rc;
}

/* Branch k of the second case: the kept rule, for the platforms sharing it. */
static int emit_rule_branch(lsim_lowering_rule_context *ctx, const char *description,
                            const plan *p, size_t k,
                            MlirOperation case_op, const MlirValue *args, const void *params,
                            lsim_error *err) {
  size_t num_results = ctx->num_tokens_in + ctx->num_avals_out;
  MlirValue *values = lsim_malloc_array(num_results, sizeof *values);
  MlirValue *tokens = lsim_malloc_array(ctx->num_tokens_in, sizeof *tokens);
  if (!values || !tokens) {
    free(values);
    free(tokens);
    return lsimp_fail_oom(err);
  }
  size_t num_sharing;
  const char *const *sharing = sharing_rule(p, k, &num_sharing);
  lsim_lowering_rule_context inner =
      lsim_lowering_rule_context_with_platforms(ctx, sharing, num_sharing);
  inner.ip = lsim_insertion_point_in(&ctx->ip, lsim_case_branch(case_op, k));
  inner.tokens_out = tokens;
  inner.num_tokens_out = 0;
  inner.in_rule = true;
  lsim_module_context *mc = ctx->module_context;
  if (lsim_module_context_explaining(mc)) {
    lsimp_strbuf who = LSIMP_STRBUF_INIT;
    lsimp_py_list(&who, sharing, num_sharing);
    const char *name = ctx->primitive && ctx->primitive->name ? ctx->primitive->name : description;
    lsim_module_context_explain_source(mc, LSIM_JAX_SOURCE("jax/_src/interpreters/mlir.py", "lower_per_platform"));
    lsim_module_context_explain(mc, LSIM_EXPLAIN_STEP, +1,
                                "branch %zu of %s's case: ctx.platforms = %s", k,
                                name, lsimp_strbuf_cstr(&who));
    lsimp_strbuf_free(&who);
  }
  int rc = p->kept[k].fn(&inner, args, values + ctx->num_tokens_in, params, p->kept[k].data, err);
  lsim_module_context_explain_nest(mc, -1);
  if (!rc) {
    lsim_wrap_compute_type_in_place(&inner, values + ctx->num_tokens_in, ctx->num_avals_out);
    for (size_t t = 0; t < ctx->num_tokens_in; t++)
      values[t] = inner.num_tokens_out ? tokens[t] : ctx->tokens_in[t];
    rc = lsim_emit_return(&inner.ip, values, num_results, err);
  }
  free(values);
  free(tokens);
  return rc;
}

/* One rule for every platform: applied once with the context as it is
 * (marked as inside the rule while it runs), its results wrapped in the
 * compute type. */
static int apply_once(lsim_lowering_rule_context *ctx, const lsim_rule *rule,
                      const MlirValue *args, MlirValue *results, const void *params,
                      lsim_error *err) {
  bool in_rule = ctx->in_rule;
  ctx->in_rule = true;
  int rc = rule->fn(ctx, args, results, params, rule->data, err);
  ctx->in_rule = in_rule;
  if (!rc)
    lsim_wrap_compute_type_in_place(ctx, results, ctx->num_avals_out);
  return rc;
}

int lsim_lower_per_platform(lsim_lowering_rule_context *ctx, const char *description,
                            const lsim_platform_rule *platform_rules, size_t num_platform_rules,
                            const lsim_rule *default_rule, const MlirValue *args,
                            MlirValue *results, const void *params, lsim_error *err) {
  if (!ctx || !description || (num_platform_rules && !platform_rules))
    return lsim_error_set(err, LSIM_E_INVALID_ARGUMENT, "lsim_lower_per_platform: NULL argument");
  size_t n;
  const char *const *platforms = lsim_lowering_rule_context_platforms(ctx, &n);
  if (n == 1) {
    bool found = default_rule != NULL;
    for (size_t r = 0; r < num_platform_rules && !found; r++)
      found = strcmp(platform_rules[r].platform, platforms[0]) == 0;
    if (!found)
      return not_found(description, platforms, 1, true, err);
  }
  /* Only the default rule, or platform rules for none of the platforms:
   * every platform shares the default rule, applied directly with no plan
   * (so equations lowered for thousands of platforms cost O(rules) each;
   * the plan is made to be narrated). */
  bool none_matches = !ctx->num_platforms; /* the module context's platforms, indexed */
  for (size_t r = 0; none_matches && r < num_platform_rules; r++)
    none_matches = !lsim_module_context_platform_index(ctx->module_context,
                                                       platform_rules[r].platform, NULL);
  if (none_matches && default_rule && !lsim_module_context_explaining(ctx->module_context))
    return apply_once(ctx, default_rule, args, results, params, err);
  plan p;
  int rc = make_plan(description, platforms, n, platform_rules, num_platform_rules, default_rule,
                     &p, err);
  if (rc)
    return rc;
  narrate_plan(ctx, description, platforms, n, &p);
  if (p.num_kept == 1) {
    rc = apply_once(ctx, &p.kept[0], args, results, params, err);
    plan_free(&p);
    return rc;
  }
  if (ctx->num_dim_var_values == 0) {
    plan_free(&p);
    return lsim_error_set(err, LSIM_E_INVALID_ARGUMENT,
                     "lowering '%s' for several platforms needs the platform index "
                     "(dim_var_values[0])",
                     description);
  }
  MlirValue rule_index;
  rc = emit_rule_index(ctx, &p, n, &rule_index, err);
  /* rule_out_avals = [core.abstract_token] * len(ordered_effects) + ctx.avals_out */
  if (!rc && ctx->uncached &&
      lsim_module_context_profile(ctx->module_context)->uncached_multi_platform_type_error)
    rc = lsimp_raise0(err, LSIM_E_UNCACHED_MULTI_PLATFORM);
  size_t num_types = 0;
  MlirType *types = rc ? NULL : case_result_types(ctx, &num_types);
  if (!rc && !types)
    rc = lsimp_fail_oom(err);
  MlirOperation case_op;
  if (!rc)
    rc = lsim_emit_case(&ctx->ip, rule_index, types, num_types, p.num_kept, &case_op, err);
  for (size_t k = 0; k < p.num_kept && !rc; k++)
    rc = emit_rule_branch(ctx, description, &p, k, case_op, args, params, err);
  if (!rc) {
    for (size_t t = 0; t < ctx->num_tokens_in && ctx->tokens_out; t++)
      ctx->tokens_out[t] = mlirOperationGetResult(case_op, (intptr_t)t);
    ctx->num_tokens_out = ctx->tokens_out ? ctx->num_tokens_in : 0;
    for (size_t i = 0; i < ctx->num_avals_out; i++)
      results[i] = mlirOperationGetResult(case_op, (intptr_t)(ctx->num_tokens_in + i));
  }
  free(types);
  plan_free(&p);
  return rc;
}
